/* cmd_plan_search.c: the search of `collsim plan search PLAN.json` (cli layer): enumerate,
 * evaluate (scenarios/search.c, spread over MPI ranks), rank, write; its counts on
 * request. */
#include "cli/cmd_plan-private.h"
#include "cli/cli.h"
#include "sim/par.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>

/* COLLSIM_STATS=1: one line per process on note (stderr), for tests and benchmarks (the sums over
 * the processes are what one process does alone). */
static void print_stats(FILE *note, const cs_plan_search_stats *st, long n)
{
    const char *e = getenv("COLLSIM_STATS");
    cs_par_stats ps;
    struct rusage ru;
    if (!e || strcmp(e, "1") || !note)
        return;
    cs_par_get_stats(&ps);
    getrusage(RUSAGE_SELF, &ru);
    fprintf(note, "# plan search stats: rank %d of %d: %ld candidates, %ld distinct "
            "collectives; here: %ld collectives simulated as items, %ld simulated in all "
            "(%ld simulations), %ld candidates evaluated; CPU: %.3f s in %ld items, %.3f s "
            "user + %.3f s sys in all\n", cs_par_rank(), cs_par_size(), n, st->collectives,
            st->pending_run, st->simulated, st->sims, st->evaluated, ps.item_cpu_s, ps.items,
            (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec,
            (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec);
}

int cs__cmd_plan_search(cs_cli_io *io, cs_plan *p, cs_plan_ctx *ctx, int gpus, int top,
                        const char *fmt, const char *out, cs_err *err)
{
    cs_out o;
    cs_plan_cand *cands = NULL;
    cs_plan_cand_result *res = NULL;
    cs_plan_search_stats st;
    long n;
    int rc, csv = !strcmp(fmt, "csv"), js = !strcmp(fmt, "json");
    if ((rc = cs_plan_search_enum(p, gpus, &cands, &n, err)) < 0)
        return rc;
    if ((rc = cs_plan_search_check_memory(p, gpus, cands, n, err)) < 0) {
        free(cands);
        return rc;
    }
    if (!(res = calloc((size_t)(n ? n : 1), sizeof *res))) {
        free(cands);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    /* the output is opened when the results are ready: a process killed during the search
     * (SIGKILL can remove nothing) leaves no empty temporary behind */
    if ((rc = cs_plan_search_run(ctx, p, cands, n, res, &st, err)) == 0) {
        print_stats(io->note, &st, n);
        cs_plan_search_rank(res, n);
        if ((rc = cs_out_open(&o, io->out, out, err)) == 0) {
            rc = js ? cs_plan_search_print_json(o.f, p, gpus, res, n)
                    : cs_plan_search_print_table(o.f, p, gpus, top, csv, res, n);
            if (rc < 0) {
                cs_out_abort(&o);
                cs_err_set(err, rc, out ? out : "stdout", "cannot write the results");
            } else {
                rc = cs_out_commit(&o, err);
            }
        }
    }
    free(cands);
    free(res);
    return rc;
}
