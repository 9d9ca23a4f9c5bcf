/* straggler.c: one slow GPU in a synchronous step (scenarios layer). Its compute takes a
 * factor longer; every collective of its stage waits for it, so the stage runs at its
 * pace: the step simulation reruns with that stage's compute scaled (cs_step_costs
 * slow_stage, slow_factor), on every stage in turn, the worst kept. */
#include "scenarios/budget.h"

#include <string.h>

int cs_plan_straggler(const cs_plan_result *r, double factor, cs_straggler *out, cs_err *err)
{
    cs_step_costs c = r->costs;
    int pp = r->costs.pp, n = pp < 32 ? pp : 32, i, rc;
    memset(out, 0, sizeof *out);
    out->factor = factor;
    out->base_step_s = r->step_time_s;
    out->step_s = r->step_time_s;
    c.slow_factor = factor;
    for (i = 0; i < n; i++) {
        cs_step_result st;
        /* the first, the last and evenly between */
        c.slow_stage = n > 1 ? (int)((long)i * (pp - 1) / (n - 1)) : 0;
        if ((rc = cs_plan_step(&c, 0, &st, err)) < 0)
            return rc;
        if (i == 0 || st.step_s > out->step_s) {
            out->step_s = st.step_s;
            out->stage = c.slow_stage;
        }
        cs_step_result_fini(&st);
    }
    out->slowdown_pct = out->base_step_s > 0 ? 100 * (out->step_s / out->base_step_s - 1) : 0;
    return 0;
}
