/* best.c: the fastest layout of a plan on its system, found fast (scenarios layer): the
 * plan search's candidates restricted to the layouts large runs use, two exact prunings
 * (the least recompute that fits; branch and bound on a lower bound), for compare --search
 * and the elastic re-plan. */
#include "scenarios/compare.h"
#include "scenarios/memo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Does candidate c fit in memory on p's GPU (and pass the plan's checks)? */
static int fits(const cs_plan *base, int ranks, const cs_plan_cand *c)
{
    cs_plan p = *base;          /* shallow: nothing of it is freed */
    cs_plan_memory m;
    cs_err e;
    cs_plan_apply(&p, c);
    if (cs_plan_check(&p, ranks, &e) < 0)
        return 0;
    cs_plan_memory_of(&p, &m);
    return m.total <= p.gpu.hbm_GB * 1e9 * (1 - p.memory_margin);
}

/* A candidate with its lower bound. */
typedef struct cand_lb {
    cs_plan_cand c;
    double lb_s;             /* the step with every collective free, s */
    long index;              /* enumeration order (ties) */
} cand_lb;

static int by_lb(const void *a, const void *b)
{
    const cand_lb *x = a, *y = b;
    return x->lb_s < y->lb_s ? -1 : x->lb_s > y->lb_s ? 1
         : x->index < y->index ? -1 : x->index > y->index;
}

/* Lower bound of c's step: its compute, bubble and optimizer simulated with every
 * collective at 0 s (lbx collects and never simulates: memo.h). The step simulation only
 * grows with its tasks' times, so the true step is at least this. HUGE_VAL if it fails. */
static double lower_bound(cs_plan_ctx *lbx, const cs_plan *base, const cs_plan_cand *c)
{
    cs_plan p = *base;
    cs_plan_result r;
    cs_step_result st;
    cs_err e;
    double lb = HUGE_VAL;
    cs_plan_apply(&p, c);
    if (cs_plan_eval(lbx, &p, 0, &r, &e) == 0 && cs_plan_step(&r.costs, 0, &st, &e) == 0) {
        lb = st.step_s;
        cs_step_result_fini(&st);
    }
    cs_plan_result_fini(&r);
    return lb;
}

/* The search's candidates, restricted to what large runs use: ZeRO-1 (the distributed
 * optimizer) when dp > 1, else none; sequence parallelism with tensor parallelism. Of a
 * layout's recompute choices only the least that fits is evaluated: more recompute adds
 * compute and no communication, so it is never faster. Then branch and bound: candidates
 * in order of their lower bound (lower_bound), each evaluated in full, until the next
 * bound is no better than the best step found: the same winner as evaluating them all. */
int cs_plan_search_best(cs_plan_ctx *ctx, cs_plan *p, int gpus, long *n_searched, cs_err *err)
{
    cs_plan_cand *c = NULL;
    cand_lb *cl = NULL;
    cs_plan_ctx *lbx = NULL;
    long n, i, k = 0;
    double best = HUGE_VAL;
    int rc, r, ranks = cs_plan_ctx_ranks(ctx), found = 0;
    *n_searched = 0;
    if ((rc = cs_plan_search_enum(p, gpus, &c, &n, err)) < 0)
        return rc;
    if (!(cl = calloc((size_t)(n ? n : 1), sizeof *cl))) {
        free(c);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    if ((rc = cs_plan_ctx_new(&lbx, p, err)) < 0)
        goto done;
    cs_plan_ctx_collect(lbx, 1);
    for (i = 0; i < n; i++) {
        cs_plan_cand lower = c[i];
        if (c[i].zero != (c[i].dp > 1) || c[i].sp != (c[i].tp > 1) || !fits(p, ranks, &c[i]))
            continue;
        for (r = 0; r < (int)c[i].recompute; r++) {
            lower.recompute = (cs_recompute)r;
            if (fits(p, ranks, &lower))
                break;
        }
        if (r < (int)c[i].recompute)
            continue;
        cl[k].c = c[i];
        cl[k].index = i;
        cl[k].lb_s = lower_bound(lbx, p, &c[i]);
        k++;
    }
    qsort(cl, (size_t)k, sizeof *cl, by_lb);
    for (i = 0; i < k && cl[i].lb_s < best; i++) {
        cs_plan q = *p;
        cs_plan_result res;
        cs_err e2;
        cs_plan_apply(&q, &cl[i].c);
        (*n_searched)++;
        if ((rc = cs_plan_eval(ctx, &q, 0, &res, &e2)) == CS_ENOMEM) {
            *err = e2;
            goto done;
        }
        if (rc == 0 && (res.step_time_s < best ||
                        (res.step_time_s == best && cl[i].index < cl[found].index))) {
            best = res.step_time_s;
            found = (int)i;
        }
        cs_plan_result_fini(&res);
    }
    rc = best < HUGE_VAL ? 0 : 1;          /* 1: nothing fits, the row says so */
    if (rc == 0)
        cs_plan_apply(p, &cl[found].c);
done:
    cs_plan_ctx_free(lbx);
    free(cl);
    free(c);
    return rc;
}

