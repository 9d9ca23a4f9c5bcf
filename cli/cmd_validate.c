/* cmd_validate.c: `collsim validate LOG... --topo T` (cli layer). Simulates every row of
 * measured nccl-tests / rccl-tests / hccl_test logs in NCCL mode on the topology's first n
 * ranks and prints measured against simulated time and busbw per size, the error in
 * percent, and the summary (text, or JSON with the contract keys). */
#include "cli/cli.h"
#include "calibration/logsim.h"
#include "sim/pool.h"
#include "sim/size.h"
#include "topologies/topology.h"
#include "plots/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "sim/par.h"

const cs_opt_spec cs_validate_opts[] = {
    {"topo", 0, 1, CS_LOGCMD_TOPO}, CS_TOPO_MOD_SPECS(CS_LOGCMD_NODES, CS_LOGCMD_CAL),
    {"format", 0, 1, CS_LOGCMD_FORMAT},
    {"algo", 0, 1, CS_LOGCMD_ALGO}, {"proto", 0, 1, CS_LOGCMD_PROTO},
    {"output", 0, 1, CS_LOGCMD_OUTPUT}, {"help", 'h', 0, CS_LOGCMD_HELP},
    {"plot", 0, 1, CS_LOGCMD_PLOT}, {"threads", 0, 1, CS_LOGCMD_THREADS},
    CS_LSET_SPECS,
    {NULL, 0, 0, 0},
};

static void usage(void)
{
    printf("usage: collsim validate LOG... --topo PRESET|FILE [options]\n\n"
           "Compare measured nccl-tests, rccl-tests or hccl_test logs (text, or nccl-tests\n"
           "JSON) with the simulation in NCCL mode, size by size. A log of n ranks runs on\n"
           "the topology's first n ranks. Sizes of 0 bytes are skipped.\n\n"
           "      --topo PRESET|FILE  topology (required)\n"
           "      --nodes N           the --topo cluster resized to N nodes\n"
           "      --calibration FILE  a calibration's figures laid over --topo\n"
           "      --format text|json  output format (default text)\n"
           "      --min-bytes SIZE    only sizes >= SIZE (K, M, G suffixes)\n"
           "      --sizes odd|even    only the 1st, 3rd, ... (odd) or 2nd, 4th, ... (even)\n"
           "                          size of each table, to hold out the other half\n"
           "      --keep-ranks N,...  only the tables of these rank counts\n"
           "      --max-bytes SIZE    only sizes <= SIZE\n"
           "      --coll COLL         collective of logs that do not name it\n"
           "      --ranks N           ranks of logs that do not tell\n"
           "      --algo NAME         algorithm (default: NCCL's choice by predicted time)\n"
           "      --proto P           auto (default), LL, LL128 or Simple\n"
           "      --output FILE       write there instead of stdout (atomically)\n"
           "      --plot FILE         also draw measured points over the simulated curves with\n"
           "                          the error per size beneath (.png, .svg or .pdf)\n"
           "      --threads N         threads simulating the rows (default: the CPUs online,\n"
           "                          or COLLSIM_THREADS); 1 = serial. The same output for\n"
           "                          every N\n");
}

static int parse(int argc, char **argv, cs_logcmd *o, cs_err *err)
{
    int rc = cs_logcmd_parse(argc, argv, cs_validate_opts, usage, o, err);
    if (rc != 0)
        return rc;
    if (o->n_logs == 0)
        return cs_err_set(err, CS_EUSAGE, NULL, "no log given (usage: collsim validate "
                          "LOG... --topo PRESET|FILE)");
    if (!o->topo)
        return cs_err_set(err, CS_EUSAGE, "--topo", "missing: the topology to validate");
    if (strcmp(o->format, "text") && strcmp(o->format, "json"))
        return cs_err_set(err, CS_EUSAGE, "--format", "unknown format '%s' (known: text, "
                          "json)", o->format);
    return cs_cli_check_plot(o->plot, err);
}

/* The progress of simulating the distinct rows, as sim/par.h's progress line (on rank 0,
 * where main turned it on: stderr a terminal, or COLLSIM_PROGRESS=1). */
static double g_t0_s;
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress(void *ctx, int done, int total)
{
    cs_par_progress_fn fn = cs_par_get_progress();
    double el = now_s() - g_t0_s;
    if (fn && cs_par_rank() == 0)
        fn("validate: distinct rows simulated", done, total, el,
           done > 0 ? el * (total - done) / done : 0);
}

int cs_cmd_validate_io(cs_cli_io *io, int argc, char **argv)
{
    cs_logcmd o;
    cs_err err;
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_lset ls;
    cs_lpar *par = NULL;
    cs_out out;
    int rc, on, threads;
    cs_err_clear(&err);
    memset(&ls, 0, sizeof ls);
    rc = parse(argc, argv, &o, &err);
    if (rc != 0) {
        free(o.logs);
        return rc > 0 ? CS_EXIT_OK : cs_cli_error(io, &err);
    }
    if ((rc = cs_topo_open(o.topo, &t, &err)) < 0 ||
        (rc = cs_nccl_setup(o.topo, o.proto, 1, &np, &on, &err)) < 0 ||
        (rc = cs_lset_load(&ls, o.logs, o.n_logs, &o.ls, t, &err)) < 0 ||
        (rc = cs_lset_env_apply(&ls, t, &np, o.algo, o.proto, &err)) < 0)
        goto fail;
    threads = o.threads ? o.threads : cs_pool_default_threads();
    if (threads > 1 && (rc = cs_lpar_new(threads, &par, &err)) < 0)
        goto fail;
    ls.par = par;
    if (cs_par_get_progress()) {
        ls.progress = progress;
        g_t0_s = now_s();
    }
    rc = cs_lset_simulate(&ls, t, &np, o.algo, &err);
    if (ls.progress && cs_par_rank() == 0)
        cs_par_get_progress()("validate", 0, 0, 0, -1);     /* the line cleared */
    if (rc < 0 ||
        (o.plot && cs_cli_writes() && (rc = cs_plot_validation(&ls, t, o.plot, &err)) < 0) ||
        (rc = cs_out_open(&out, io->out, o.output, &err)) < 0)
        goto fail;
    rc = !strcmp(o.format, "json") ? cs_lset_write_json(out.f, &ls, t, &np)
                                   : cs_lset_write_text(out.f, &ls, t, &np);
    if (rc < 0) {
        cs_out_abort(&out);
        cs_err_set(&err, rc, o.output, "cannot write the report");
        goto fail;
    }
    if ((rc = cs_out_commit(&out, &err)) < 0)
        goto fail;
    cs_lset_fini(&ls);
    cs_lpar_free(par);
    cs_topo_free(t);
    free(o.logs);
    return CS_EXIT_OK;
fail:
    cs_lset_fini(&ls);
    cs_lpar_free(par);
    cs_topo_free(t);
    free(o.logs);
    return cs_cli_error(io, &err);
}
