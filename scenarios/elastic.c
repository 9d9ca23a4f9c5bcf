/* elastic.c: the job after losing nodes (scenarios layer): the plan re-planned on what is
 * left, as an elastic trainer would restart it: the same model and global batch, the
 * fastest layout (best.c) of the largest GPU count, a whole number of nodes at most the
 * nodes left, that some layout fits (a count whose dp does not divide the batch, or whose
 * factors tp x pp x cp cannot take, has none). */
#include "scenarios/budget.h"
#include "scenarios/compare.h"

#include <string.h>

int cs_plan_elastic(cs_plan_ctx *ctx, const cs_plan *p, const cs_plan_result *r, int lost,
                    cs_elastic *out, cs_err *err)
{
    int nodes = cs_plan_ctx_nodes(ctx, r->gpus), gpn, k, rc;
    memset(out, 0, sizeof *out);
    out->lost_nodes = lost;
    out->gpus_before = r->gpus;
    out->base_step_s = r->step_time_s;
    gpn = r->gpus / nodes;
    if (lost >= nodes) {
        snprintf(out->why, sizeof out->why, "the job has %d node%s", nodes,
                 nodes > 1 ? "s" : "");
        return 0;
    }
    out->gpus_left = r->gpus - lost * gpn;
    for (k = nodes - lost; k >= 1; k--) {
        cs_plan q;
        cs_plan_result res;
        long n = 0;
        if ((rc = cs_plan_copy(&q, p)) < 0)
            return cs_err_set(err, rc, NULL, "out of memory");
        rc = cs_plan_search_best(ctx, &q, k * gpn, &n, err);
        out->n_searched += n;
        if (rc == 0 && (rc = cs_plan_eval(ctx, &q, 0, &res, err)) == 0) {
            out->ok = 1;
            out->gpus_after = k * gpn;
            out->layout = (cs_plan_cand){q.tp, q.pp, q.dp, q.cp, q.ep, q.vp, q.micro_batch,
                                         q.zero, q.sp, q.recompute};
            out->step_s = res.step_time_s;
            out->tokens_per_s = res.tokens_per_s;
            out->slowdown_pct = 100 * (res.step_time_s / r->step_time_s - 1);
            cs_plan_result_fini(&res);
        }
        cs_plan_fini(&q);
        if (rc < 0)
            return rc;
        if (out->ok)
            return 0;
    }
    snprintf(out->why, sizeof out->why, "no layout of the global batch fits on any whole "
             "number of the %d nodes left", nodes - lost);
    return 0;
}
