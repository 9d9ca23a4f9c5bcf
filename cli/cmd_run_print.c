/* cmd_run_print.c: what `collsim run` prints besides the simulation (cli layer): its usage,
 * the report (nccl-tests' tables, JSON or CSV, through cs_out) and its notes (stderr in the
 * program; cs_cli_io.note). */
#include "cli/cli.h"
#include "sim/report.h"
#include "topologies/topology.h"
#include "algorithms/nccl/mode.h"

#include <stdio.h>

void cs_cli_run_usage(void)
{
    printf("usage: collsim run [COLL] [options]\n\n"
           "Simulate a size sweep of one collective and print nccl-tests' table.\n"
           "COLL: allreduce (default), allgather, reducescatter, broadcast, reduce, gather,\n"
           "      scatter, alltoall, sendrecv, barrier (nccl-tests names like all_reduce_perf too),\n"
           "      or all: every one of these in this order, one table each\n\n"
           "  -b, --minbytes SIZE     smallest size (default 8; K, M, G, T, P suffixes are\n"
           "                          powers of 1024 as in nccl-tests: 1G = 1GB = 1GiB = 2^30)\n"
           "  -e, --maxbytes SIZE     largest size (default 128M)\n"
           "  -f, --stepfactor F      multiply the size by F each step (default 2)\n"
           "  -i, --stepbytes SIZE    add SIZE each step instead\n"
           "  -g, --ngpus N           GPUs per process, as nccl-tests (ranks = -g x -t; default:\n"
           "                          every rank of the topology); a sweep: A:B doubling (2:64),\n"
           "                          A:B:+K, A:B:*F, or A,B,C\n"
           "  -t, --nthreads T        threads per process, as nccl-tests (default 1)\n"
           "      --ranks N           total ranks, overriding -g x -t (a sweep as for -g)\n"           "  -d, --datatype T        float (default), half, bfloat16, double, int8, ...; all\n"
           "  -o, --op OP             sum (default), prod, max, min, avg; all\n"
           "  -r, --root R            root of broadcast/reduce/gather/scatter (default 0)\n"
           "  -c, --check 0|1         symbolic data check for #wrong (default 1)\n"
           "  -n, -w, -m, -a, -z, -G, -N, -p, -C, -T, -y, -R N\n"
           "                          nccl-tests' timing and launch flags: accepted, ignored\n"
           "  -J, --output_file FILE  also write collsim's JSON report there (nccl-tests -J)\n"
           "      --topo PRESET|FILE  topology (default %s; `collsim list topologies`)\n"
           "      --nodes N           the --topo cluster resized to N nodes\n"
           "      --calibration FILE  a calibration's figures laid over --topo\n"
           "      --algo NAME|auto    algorithm (default auto; `collsim list algorithms`);\n"
           "                          a comma list runs each (ring,parameter_server)\n"
           "      --chunks N          pipeline chunks per step (default 1 = textbook)\n"
           "      --servers K         parameter_server: server ranks (default 1)\n"
           "      --channels N        parallel rings/trees (default 1, or the topology's NCCL\n"
           "                          table)\n"
           "      --format text|json|csv   output format (default text, or by --output suffix)\n"
           "      --output FILE       write there instead of stdout (atomically)\n"
           "      --proto P           NCCL mode: auto (by time), LL, LL128 or Simple; none for\n"
           "                          the bare fabric (default: NCCL mode on node, cluster, pcie\n"
           "                          and GPU graph kinds and wherever there is an \"nccl\" object)\n"
           "      --links             report the busiest links of the largest size and name\n"
           "                          the bottleneck (link-level fabrics)\n"
           "      --plot FILE         also draw the sweep (.png, .svg or .pdf); over several\n"
           "                          rank counts: time against ranks at the largest size\n"
           "      --trace FILE        one size (-b = -e): write a Perfetto/Chrome trace (JSON)\n",
           CS_DEFAULT_PRESET);
}

int cs_cli_report(FILE *std, const char *path, const char *format, const cs_sweep *sw, int n,
                  int kinds, cs_err *err)
{
    cs_out out;
    int rc;
    if ((rc = cs_out_open(&out, std, path, err)) < 0)
        return rc;
    if ((rc = cs_report_kinds(out.f, format, sw, n, kinds)) < 0) {
        cs_out_abort(&out);
        return cs_err_set(err, rc, path ? path : "stdout", "cannot write the report");
    }
    return cs_out_commit(&out, err);
}

void cs_cli_run_notes(FILE *note, const cs_sweep *sw, int n, int check)
{
    int k, i, one_rank = 0;
    if (!cs_cli_writes() || !note)      /* rank 0 says it (sim/par.h) */
        return;
    /* Asked for, not run (N/A): the executor stopped the check when its state outgrew its
     * limit (sim/exec.c), or one node stood for all identical ones (a folded ring). */
    for (k = 0; k < n; k++) {
        one_rank |= sw[k].ranks == 1;
        for (i = 0; check && i < sw[k].n_rows; i++)
            if (sw[k].rows[i].wrong < 0)
                fprintf(note, "collsim run: note: data check skipped at %llu bytes on %d "
                        "ranks: %s (#wrong N/A)\n",
                        (unsigned long long)sw[k].rows[i].size_bytes, sw[k].ranks,
                        sw[k].rows[i].wrong == CS_WRONG_FOLDED ? "one node stood for all "
                        "identical ones; the whole schedule is too large to check"
                        : "its state outgrew 256 MiB");
    }
    if (one_rank)
        fprintf(note, "collsim run: note: 1 rank: nothing is communicated (times are "
                "fixed costs only, busbw is 0); give -g N or --ranks N for more ranks\n");
}
