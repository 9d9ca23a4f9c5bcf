/* budget.c: a run's cost, energy and goodput asked for at once (scenarios layer): the token
 * count reader, and cs_budget_eval over cost.c, energy.c and goodput.c. */
#include "scenarios/budget.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cs_budget_parse_tokens(const char *s, const char *flag, double *out, cs_err *err)
{
    static const char suf[] = "KMGTP";
    char *end;
    const char *k;
    double x;
    errno = 0;
    x = strtod(s, &end);
    if (end != s && *end && end[1] == '\0' && (k = strchr(suf, *end))) {
        x *= pow(10.0, 3.0 * (double)(k - suf + 1));
        end++;
    }
    if (end == s || *end || errno || !isfinite(x) || x < 1 || x > 1e18)
        return cs_err_set(err, CS_EUSAGE, NULL, "%s: expected a token count from 1 to 1e18 "
                          "(suffixes K, M, G, T, P = 1e3 .. 1e15), got '%s'", flag, s);
    *out = x;
    return 0;
}

int cs_budget_asked(const cs_budget_opts *o)
{
    return o->tokens > 0 || o->price_per_gpu_h > 0 || o->want_energy || o->want_goodput ||
           o->straggler > 0 || o->lose_nodes > 0;
}

int cs_budget_eval(cs_plan_ctx *ctx, const cs_plan *p, const cs_plan_result *r,
                   const cs_budget_opts *o, cs_budget *out, cs_err *err)
{
    int rc, nodes = cs_plan_ctx_nodes(ctx, r->gpus);
    memset(out, 0, sizeof *out);
    if (o->tokens > 0 || o->price_per_gpu_h > 0) {
        out->has_cost = 1;
        cs_cost_of(r, o->price_per_gpu_h, o->tokens, &out->cost);
    }
    if (o->want_energy) {
        out->has_energy = 1;
        if ((rc = cs_energy_of(p, r, nodes, o, &out->energy, err)) < 0)
            return rc;
    }
    if (o->straggler > 0) {
        out->has_straggler = 1;
        if ((rc = cs_plan_straggler(r, o->straggler, &out->straggler, err)) < 0)
            return rc;
    }
    if (o->lose_nodes > 0) {
        out->has_elastic = 1;
        if ((rc = cs_plan_elastic(ctx, p, r, o->lose_nodes, &out->elastic, err)) < 0)
            return rc;
    }
    if (o->want_goodput) {
        out->has_goodput = 1;
        if ((rc = cs_fail_stats_load(o->failures ? o->failures : "llama3-405b", &out->fail,
                                     err)) < 0)
            return rc;
        cs_goodput_of(&out->fail, r->gpus, nodes, cs_plan_state_bytes(p, r), r->step_time_s,
                      r->tokens_per_s * r->step_time_s, o, &out->goodput);
    }
    return 0;
}

int cs_budget_print(FILE *f, int json, const cs_plan *p, const cs_plan_result *r,
                    const cs_budget *b)
{
    const cs_cost *c = b->has_cost ? &b->cost : NULL;
    const cs_energy *e = b->has_energy ? &b->energy : NULL;
    const cs_goodput *g = b->has_goodput ? &b->goodput : NULL;
    if (json)
        return cs_plan_print_json_budget(f, p, r, c, e, g, &b->fail,
                                         b->has_straggler ? &b->straggler : NULL,
                                         b->has_elastic ? &b->elastic : NULL);
    cs_plan_print_text(f, p, r);
    cs_budget_print_text(f, c, e, g, &b->fail);
    if (b->has_straggler)
        cs_straggler_print_text(f, &b->straggler);
    if (b->has_elastic)
        cs_elastic_print_text(f, &b->elastic);
    return ferror(f) ? CS_EIO : 0;
}
