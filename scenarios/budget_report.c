/* budget_report.c: printing a run's cost, energy and goodput (scenarios layer): text
 * sections after the plan's report and the JSON objects "cost", "energy", "goodput"
 * (DESIGN §8), each figure with its source or "user-given". */
#include "scenarios/budget.h"
#include "scenarios/model-private.h"

#include <jansson.h>
#include <math.h>

void cs_budget_tokens_str(double t, char *buf, size_t n)
{
    static const char suf[] = "KMGTP";
    int k = 0;
    while (k < 5 && t >= 1e3 * pow(10.0, 3.0 * k) - 0.5)
        k++;
    if (k == 0)
        snprintf(buf, n, "%.0f", t);
    else
        snprintf(buf, n, "%.4g%c", t / pow(10.0, 3.0 * k), suf[k - 1]);
}

static void cost_text(FILE *f, const cs_cost *c)
{
    char tk[32];
    if (c->price_per_gpu_h > 0) {
        fprintf(f, "\n# cost at $%.4g per GPU-hour (user-given)\n", c->price_per_gpu_h);
        fprintf(f, "%-24s %12.4f $\n", "per step", c->per_step);
        fprintf(f, "%-24s %12.4f $\n", "per million tokens", c->per_million_tokens);
    } else {
        fprintf(f, "\n# training time (no --price given: no cost)\n");
    }
    if (c->tokens > 0) {
        cs_budget_tokens_str(c->tokens, tk, sizeof tk);
        fprintf(f, "# to train %s tokens (failure-free)\n", tk);
        fprintf(f, "%-24s %12.0f\n", "steps", c->steps);
        fprintf(f, "%-24s %12.2f days\n", "time", c->train_s / 86400);
        fprintf(f, "%-24s %12.0f\n", "GPU-hours", c->gpu_hours);
        if (c->price_per_gpu_h > 0)
            fprintf(f, "%-24s %12.0f $\n", "cost", c->total);
    }
}

static void energy_text(FILE *f, const cs_energy *e)
{
    char tk[32];
    fprintf(f, "\n# energy (GPU board power: %s)\n", e->gpu_source);
    fprintf(f, "%-24s %8.0f / %.0f W\n", "GPU idle / full load", e->gpu_idle_W, e->gpu_tdp_W);
    fprintf(f, "%-24s tensor %.1f%%, memory %.1f%%, waiting %.1f%% of the step (load %.1f, "
            "%.1f, %.1f: collsim's assumptions)\n", "GPU in the step", 100 * e->tensor_frac,
            100 * e->memory_frac, 100 * e->wait_frac, CS_LOAD_TENSOR, CS_LOAD_MEMORY,
            CS_LOAD_WAIT);
    fprintf(f, "%-24s %8.0f W\n", "GPU mean power", e->gpu_avg_W);
    fprintf(f, "%-24s %8d x %.0f W (%s)\n", "nodes, besides GPUs", e->nodes, e->node_W,
            e->node_W_user ? CS_FROM_USER : CS_NODE_W_SOURCE);
    fprintf(f, "%-24s %8.2f (%s)\n", "PUE", e->pue, e->pue != 1 ? CS_FROM_USER
                                                                 : "1: IT power only");
    fprintf(f, "%-24s %8.1f kW\n", "job power", e->system_kW);
    fprintf(f, "%-24s %12.0f J\n", "energy per step", e->step_J);
    fprintf(f, "%-24s %12.4f J\n", "energy per token", e->per_token_J);
    if (e->tokens > 0) {
        cs_budget_tokens_str(e->tokens, tk, sizeof tk);
        fprintf(f, "%-24s %12.0f kWh (%s tokens, failure-free)\n", "energy to train",
                e->train_kWh, tk);
        if (e->grid_gCO2_per_kWh > 0)
            fprintf(f, "%-24s %12.1f t (at %g gCO2/kWh, user-given)\n", "CO2 to train",
                    e->co2_t, e->grid_gCO2_per_kWh);
    }
}

static void goodput_text(FILE *f, const cs_goodput *g, const cs_fail_stats *st)
{
    int k;
    fprintf(f, "\n# goodput (failure rates: %s, scaled from %d GPUs to this job; host "
            "failures per node)\n", st->source, st->gpus);
    fprintf(f, "%-24s %12.2f per day (MTBF %.2f h); planned %.2f per day\n", "interruptions",
            24 * g->interrupt_per_h, g->mtbf_s / 3600, 24 * g->planned_per_h);
    fprintf(f, "%-24s", "by component (per day)");
    for (k = 0; k < CS_FP_COUNT; k++)
        fprintf(f, " %s %.3g%s", cs_fail_part_name((cs_fail_part)k), 24 * g->part_per_h[k],
                k + 1 < CS_FP_COUNT ? "," : "\n");
    fprintf(f, "%-24s %12.1f GB at %.1f GB/s (%s): write %.1f s, load %.1f s\n", "checkpoint",
            g->state_bytes / 1e9, g->ckpt_GBps, g->ckpt_GBps_user ? CS_FROM_USER
            : "default: Llama 3's 2 TB/s for 16,384 GPUs, per GPU", g->ckpt_write_s,
            g->ckpt_load_s);
    fprintf(f, "%-24s %12.1f s (%s, + the load)\n", "restart", g->restart_s,
            g->restart_user ? CS_FROM_USER : "600 s assumed: detect, reschedule, initialise");
    fprintf(f, "%-24s %12.0f s (Young), %.0f s (Daly)\n", "checkpoint interval", g->young_s,
            g->daly_s);
    fprintf(f, "%-24s %11.1f%%\n", "effective training time", 100 * g->fraction);
    if (g->tokens > 0)
        fprintf(f, "%-24s %12.2f days, %.0f GPU-hours (with failures)\n", "time to train",
                g->wall_s / 86400, g->gpu_hours);
}

void cs_budget_print_text(FILE *f, const cs_cost *c, const cs_energy *e, const cs_goodput *g,
                          const cs_fail_stats *st)
{
    if (c)
        cost_text(f, c);
    if (e)
        energy_text(f, e);
    if (g && st)
        goodput_text(f, g, st);
}

static json_t *cost_json(const cs_cost *c)
{
    json_t *o = json_object();
    if (c->price_per_gpu_h > 0) {
        json_object_set_new(o, "price_per_gpu_hour", json_real(c->price_per_gpu_h));
        json_object_set_new(o, "price_from", json_string(CS_FROM_USER));
        json_object_set_new(o, "per_step_usd", json_real(c->per_step));
        json_object_set_new(o, "per_million_tokens_usd", json_real(c->per_million_tokens));
    }
    if (c->tokens > 0) {
        json_object_set_new(o, "tokens", json_real(c->tokens));
        json_object_set_new(o, "steps", json_real(c->steps));
        json_object_set_new(o, "train_time_s", json_real(c->train_s));
        json_object_set_new(o, "gpu_hours", json_real(c->gpu_hours));
        if (c->price_per_gpu_h > 0)
            json_object_set_new(o, "total_usd", json_real(c->total));
    }
    return o;
}

static json_t *energy_json(const cs_energy *e)
{
    json_t *o = json_object(), *pw = json_object(), *ld = json_object();
    json_object_set_new(pw, "idle", json_real(e->gpu_idle_W));
    json_object_set_new(pw, "tdp", json_real(e->gpu_tdp_W));
    json_object_set_new(pw, "source", json_string(e->gpu_source));
    json_object_set_new(o, "gpu_power_W", pw);
    json_object_set_new(ld, "tensor_frac", json_real(e->tensor_frac));
    json_object_set_new(ld, "memory_frac", json_real(e->memory_frac));
    json_object_set_new(ld, "wait_frac", json_real(e->wait_frac));
    json_object_set_new(ld, "tensor_load", json_real(CS_LOAD_TENSOR));
    json_object_set_new(ld, "memory_load", json_real(CS_LOAD_MEMORY));
    json_object_set_new(ld, "wait_load", json_real(CS_LOAD_WAIT));
    json_object_set_new(ld, "source", json_string("collsim's assumptions: a GPU draws idle + "
                        "(tdp - idle) x load; the shares from stage 0's breakdown"));
    json_object_set_new(o, "gpu_load", ld);
    json_object_set_new(o, "gpu_avg_W", json_real(e->gpu_avg_W));
    json_object_set_new(o, "gpus", json_integer(e->gpus));
    json_object_set_new(o, "nodes", json_integer(e->nodes));
    json_object_set_new(o, "node_W", json_real(e->node_W));
    json_object_set_new(o, "node_W_from", json_string(e->node_W_user ? CS_FROM_USER
                                                                      : CS_NODE_W_SOURCE));
    json_object_set_new(o, "pue", json_real(e->pue));
    json_object_set_new(o, "pue_from", json_string(e->pue != 1 ? CS_FROM_USER
                                                                : "default 1: IT power only"));
    json_object_set_new(o, "system_kW", json_real(e->system_kW));
    json_object_set_new(o, "step_J", json_real(e->step_J));
    json_object_set_new(o, "per_token_J", json_real(e->per_token_J));
    if (e->tokens > 0) {
        json_object_set_new(o, "tokens", json_real(e->tokens));
        json_object_set_new(o, "train_kWh", json_real(e->train_kWh));
        if (e->grid_gCO2_per_kWh > 0) {
            json_object_set_new(o, "grid_gCO2_per_kWh", json_real(e->grid_gCO2_per_kWh));
            json_object_set_new(o, "grid_from", json_string(CS_FROM_USER));
            json_object_set_new(o, "co2_t", json_real(e->co2_t));
        }
    }
    return o;
}

static json_t *goodput_json(const cs_goodput *g, const cs_fail_stats *st)
{
    json_t *o = json_object(), *parts = json_object();
    int k;
    json_object_set_new(o, "failures", json_string(st->name));
    json_object_set_new(o, "failures_source", json_string(st->source));
    json_object_set_new(o, "interruptions_per_day", json_real(24 * g->interrupt_per_h));
    for (k = 0; k < CS_FP_COUNT; k++)
        json_object_set_new(parts, cs_fail_part_name((cs_fail_part)k),
                            json_real(24 * g->part_per_h[k]));
    json_object_set_new(o, "by_component_per_day", parts);
    json_object_set_new(o, "planned_per_day", json_real(24 * g->planned_per_h));
    json_object_set_new(o, "mtbf_s", json_real(g->mtbf_s));
    json_object_set_new(o, "state_bytes", json_real(g->state_bytes));
    json_object_set_new(o, "ckpt_GBps", json_real(g->ckpt_GBps));
    json_object_set_new(o, "ckpt_GBps_from", json_string(g->ckpt_GBps_user ? CS_FROM_USER :
                        "default: Llama 3's storage, 2 TB/s sustained for 16,384 GPUs (Meta "
                        "2024, section 3.3.1), per GPU x the job's GPUs"));
    json_object_set_new(o, "ckpt_write_s", json_real(g->ckpt_write_s));
    json_object_set_new(o, "ckpt_load_s", json_real(g->ckpt_load_s));
    json_object_set_new(o, "restart_s", json_real(g->restart_s));
    json_object_set_new(o, "restart_from", json_string(g->restart_user ? CS_FROM_USER " + "
                        "the checkpoint load" : "default: 600 s assumed (detect, reschedule, "
                        "initialise at scale; collsim's assumption) + the checkpoint load"));
    json_object_set_new(o, "young_interval_s", json_real(g->young_s));
    json_object_set_new(o, "daly_interval_s", json_real(g->daly_s));
    json_object_set_new(o, "effective_fraction", json_real(g->fraction));
    if (g->tokens > 0) {
        json_object_set_new(o, "tokens", json_real(g->tokens));
        json_object_set_new(o, "wall_time_s", json_real(g->wall_s));
        json_object_set_new(o, "gpu_hours", json_real(g->gpu_hours));
    }
    return o;
}

void cs_budget_json(struct json_t *root, const cs_cost *c, const cs_energy *e,
                    const cs_goodput *g, const cs_fail_stats *st)
{
    if (c)
        json_object_set_new(root, "cost", cost_json(c));
    if (e)
        json_object_set_new(root, "energy", energy_json(e));
    if (g && st)
        json_object_set_new(root, "goodput", goodput_json(g, st));
}

void cs_straggler_print_text(FILE *f, const cs_straggler *s)
{
    fprintf(f, "\n# straggler: one GPU %.3gx slower in compute (user-given), on the stage "
            "where it costs most; its peers wait for it\n", s->factor);
    fprintf(f, "%-24s %12d\n", "stage", s->stage);
    fprintf(f, "%-24s %12.4f s (%.4f s without, +%.1f%%)\n", "step time", s->step_s,
            s->base_step_s, s->slowdown_pct);
}

void cs_straggler_json(struct json_t *root, const cs_straggler *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "factor", json_real(s->factor));
    json_object_set_new(o, "factor_from", json_string(CS_FROM_USER));
    json_object_set_new(o, "stage", json_integer(s->stage));
    json_object_set_new(o, "base_step_time_s", json_real(s->base_step_s));
    json_object_set_new(o, "step_time_s", json_real(s->step_s));
    json_object_set_new(o, "slowdown_pct", json_real(s->slowdown_pct));
    json_object_set_new(root, "straggler", o);
}

static const char *const rc_names[] = {"none", "selective", "full"};

void cs_elastic_print_text(FILE *f, const cs_elastic *e)
{
    const cs_plan_cand *c = &e->layout;
    fprintf(f, "\n# elastic: %d node%s lost (user-given), %d of %d GPUs left; re-planned with "
            "the global batch kept\n", e->lost_nodes, e->lost_nodes > 1 ? "s" : "",
            e->gpus_left, e->gpus_before);
    if (!e->ok) {
        fprintf(f, "%-24s %s\n", "no layout", e->why);
        return;
    }
    fprintf(f, "%-24s %12d (the largest whole number of nodes a layout fits)\n", "GPUs used",
            e->gpus_after);
    fprintf(f, "%-24s tp %d, pp %d, dp %d, cp %d, ep %d, vp %d, micro batch %d, zero %d, sp %s, "
            "recompute %s\n", "layout", c->tp, c->pp, c->dp, c->cp, c->ep, c->vp, c->mbs,
            c->zero, c->sp ? "on" : "off", rc_names[c->recompute]);
    fprintf(f, "%-24s %12.4f s (%.4f s before, %+.1f%%)\n", "step time", e->step_s,
            e->base_step_s, e->slowdown_pct);
    fprintf(f, "%-24s %12.0f\n", "tokens/s", e->tokens_per_s);
}

void cs_elastic_json(struct json_t *root, const cs_elastic *e)
{
    json_t *o = json_object();
    const cs_plan_cand *c = &e->layout;
    json_object_set_new(o, "lost_nodes", json_integer(e->lost_nodes));
    json_object_set_new(o, "gpus_before", json_integer(e->gpus_before));
    json_object_set_new(o, "gpus_left", json_integer(e->gpus_left));
    json_object_set_new(o, "ok", json_boolean(e->ok));
    if (!e->ok) {
        json_object_set_new(o, "why", json_string(e->why));
    } else {
        json_object_set_new(o, "gpus", json_integer(e->gpus_after));
        json_object_set_new(o, "parallel", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, "
                            "s:b, s:s}", "tp", c->tp, "pp", c->pp, "dp", c->dp, "cp", c->cp,
                            "ep", c->ep, "vp", c->vp, "micro_batch", c->mbs, "zero", c->zero,
                            "sequence_parallel", c->sp, "recompute", rc_names[c->recompute]));
        json_object_set_new(o, "searched_candidates", json_integer(e->n_searched));
        json_object_set_new(o, "base_step_time_s", json_real(e->base_step_s));
        json_object_set_new(o, "step_time_s", json_real(e->step_s));
        json_object_set_new(o, "tokens_per_s", json_real(e->tokens_per_s));
        json_object_set_new(o, "slowdown_pct", json_real(e->slowdown_pct));
    }
    json_object_set_new(root, "elastic", o);
}

int cs_plan_print_json_budget(FILE *f, const cs_plan *p, const cs_plan_result *r,
                              const cs_cost *c, const cs_energy *e, const cs_goodput *g,
                              const cs_fail_stats *st, const cs_straggler *sg,
                              const cs_elastic *el)
{
    json_t *root = cs__plan_json(p, r);
    cs_budget_json(root, c, e, g, st);
    if (sg)
        cs_straggler_json(root, sg);
    if (el)
        cs_elastic_json(root, el);
    return cs__plan_json_dump(f, root);
}
