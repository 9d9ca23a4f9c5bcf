/* run_pictures.c: the pictures of a `collsim run` (plots layer): --plot draws the sweeps
 * as a chart (over ranks when there are several rank counts), --trace runs the one size
 * again with the recorder and writes Perfetto trace JSON. Files are written atomically. */
#include "plots/plot.h"
#include "plots/timeline.h"
#include "algorithms/run.h"
#include "sim/size.h"

#include <stdio.h>

int cs_plot_run(const char *plot, const char *trace, uint64_t min_bytes, uint64_t max_bytes,
                const cs_run_cfg *cfg, const cs_run_grid *g, int elt, cs_err *err)
{
    const cs_sweep *sw = &g->sweeps[0];
    char title[256], buf[32];
    cs_sched s;
    cs_sim_costs costs;
    cs_run_cfg one = *cfg;
    one.nccl = g->nccl_on ? &g->nccl : NULL;
    int rc = 0, p_last = g->sweeps[g->n - 1].ranks;
    if (p_last != sw->ranks && sw->n_rows > 0)   /* time against ranks at the largest size */
        snprintf(title, sizeof title, "%s%s%s, %d to %d ranks, %s", cs_coll_name(sw->coll),
                 max_bytes ? " of " : "", max_bytes ? cs_format_bytes(max_bytes, buf,
                 sizeof buf) : "", sw->ranks, p_last, sw->topology);
    else
        snprintf(title, sizeof title, "%s, %d ranks, %s", cs_coll_name(sw->coll), sw->ranks,
                 sw->topology);
    if (plot && (rc = g->n == 1 ? cs_plot_sweep(sw, title, plot, err)
                                   : cs_plot_sweeps(g->sweeps, g->n, title, plot, err)) < 0)
        return rc;
    if (!trace)
        return 0;
    if (g->n > 1)
        return cs_err_set(err, CS_EUSAGE, "--trace", "traces one run: give one rank count "
                          "and one algorithm");
    one.algo = sw->algorithm;
    if ((rc = cs_run_schedule(&one, g->topos[0], sw->coll, sw->ranks, elt,
                              min_bytes, &s, &costs, err)) < 0)
        return rc;
    rc = cs_trace_schedule(g->topos[0], &s, &costs, trace, err);
    cs_sched_fini(&s);
    return rc;
}

