/* compare_report.c: printing a comparison of systems (scenarios layer): the table as text,
 * JSON and CSV, and one self-contained HTML page (table, the chart's SVG inline,
 * assumptions and sources; nothing fetched from a network). */
#include "scenarios/compare.h"
#include "scenarios/model-private.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static const char *const rc_names[] = {"none", "selective", "full"};

/* "tp4 pp4 dp16 cp4 vp4 mb1 z1 sp sel". */
static void layout_str(const cs_plan_cand *c, char *buf, size_t n)
{
    snprintf(buf, n, "tp%d pp%d dp%d", c->tp, c->pp, c->dp);
    if (c->cp > 1)
        snprintf(buf + strlen(buf), n - strlen(buf), " cp%d", c->cp);
    if (c->ep > 1)
        snprintf(buf + strlen(buf), n - strlen(buf), " ep%d", c->ep);
    if (c->vp > 1)
        snprintf(buf + strlen(buf), n - strlen(buf), " vp%d", c->vp);
    snprintf(buf + strlen(buf), n - strlen(buf), " mb%d z%d%s%s%s", c->mbs, c->zero,
             c->sp ? " sp" : "", c->recompute ? " rc-" : "",
             c->recompute == CS_RC_FULL ? "full" : c->recompute ? "sel" : "");
}

/* Time to train the asked tokens: with failures when goodput was asked, s (0 = none). */
static double train_s(const cs_cmp_row *r)
{
    if (r->budget.has_goodput && r->budget.goodput.wall_s > 0)
        return r->budget.goodput.wall_s;
    return r->budget.has_cost ? r->budget.cost.train_s : 0;
}

static double gpu_hours(const cs_cmp_row *r)
{
    return r->gpus * train_s(r) / 3600;
}

static double cost_usd(const cs_cmp_row *r)
{
    const cs_cost *c = &r->budget.cost;
    return r->budget.has_cost && c->price_per_gpu_h > 0 ? gpu_hours(r) * c->price_per_gpu_h
                                                        : NAN;
}

/* Energy to train, MWh (failures stretch the time at the same power). */
static double train_MWh(const cs_cmp_row *r)
{
    double t = train_s(r);
    return t > 0 ? r->budget.energy.system_kW * t / 3.6e6 : NAN;
}

/* A number with decimals, or "-" when there is none (not asked: 0 or NaN). */
static void num(char *buf, size_t n, double v, int decimals)
{
    if (isnan(v) || v <= 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.*f", decimals, v);
}

static void header_text(FILE *f, const cs_plan *b, const cs_budget_opts *o)
{
    fprintf(f, "# compare: %s, %d GPUs, global batch %ld x %d tokens, %s", b->model.name,
            b->tp * b->pp * b->dp * b->cp, b->global_batch, b->model.seq_len,
            cs_pdtype_name(b->dtype));
    if (o->tokens > 0) {
        char tk[32];
        cs_budget_tokens_str(o->tokens, tk, sizeof tk);
        fprintf(f, "; to train %s tokens%s", tk, o->want_goodput ? " (with failures: "
                "Llama 3's rates)" : " (failure-free)");
    }
    fputc('\n', f);
}

int cs_compare_print_text(FILE *f, const cs_plan *base, const cs_cmp_row *rows, int n,
                          const cs_budget_opts *o)
{
    char lay[96], days[32], gh[32], usd[32], mwh[32];
    int i;
    header_text(f, base, o);
    fprintf(f, "%-18s %-10s %9s %10s %8s %6s %7s %7s %9s %11s %12s %9s %9s  %s\n", "system",
            "gpu", "step_s", "tokens/s", "TFLOP/s", "MFU%", "mem_GB", "free_GB", "days",
            "GPU-hours", "cost_$", "J/token", "MWh", "layout");
    for (i = 0; i < n; i++) {
        const cs_cmp_row *r = &rows[i];
        if (!r->ok) {
            fprintf(f, "%-18s %-10s  not run: %s\n", r->sys.name, r->sys.gpu, r->why);
            continue;
        }
        layout_str(&r->layout, lay, sizeof lay);
        num(days, sizeof days, train_s(r) / 86400, 2);
        num(gh, sizeof gh, gpu_hours(r), 0);
        num(usd, sizeof usd, cost_usd(r), 0);
        num(mwh, sizeof mwh, train_MWh(r), 1);
        fprintf(f, "%-18s %-10s %9.3f %10.0f %8.1f %6.1f %7.1f %7.1f %9s %11s %12s %9.3f %9s  "
                "%s%s\n", r->sys.name, r->sys.gpu, r->step_s, r->tokens_per_s,
                r->model_tflops_per_gpu, r->mfu_pct, r->mem_bytes / 1e9,
                (r->capacity_bytes - r->mem_bytes) / 1e9, days, gh, usd,
                r->budget.energy.per_token_J, mwh, lay, r->fits ? "" : " (does not fit)");
    }
    fprintf(f, "# power: GPU board power from each GPU preset's power_W (collsim list gpus); "
            "nodes %s; J/token and MWh at PUE %.2f\n", o->node_W > 0 ? "user-given" :
            CS_NODE_W_SOURCE, o->pue > 0 ? o->pue : 1.0);
    if (o->want_goodput && n > 0 && rows[0].ok) {
        fprintf(f, "# failures: %s\n# effective training time (Daly's interval):",
                rows[0].budget.fail.source);
        for (i = 0; i < n; i++)
            if (rows[i].ok)
                fprintf(f, " %s %.1f%%%s", rows[i].sys.name,
                        100 * rows[i].budget.goodput.fraction, i + 1 < n ? "," : "");
        fputc('\n', f);
    }
    return ferror(f) ? CS_EIO : 0;
}

static json_t *row_json(const cs_cmp_row *r)
{
    json_t *o = json_object(), *lay;
    const cs_plan_cand *c = &r->layout;
    json_object_set_new(o, "name", json_string(r->sys.name));
    json_object_set_new(o, "topo", json_string(r->sys.topo));
    json_object_set_new(o, "gpu", json_string(r->sys.gpu));
    json_object_set_new(o, "gpu_from", json_string(r->sys.gpu_default ? "the topology's name"
                                                                       : CS_FROM_USER));
    json_object_set_new(o, "ok", json_boolean(r->ok));
    if (!r->ok) {
        json_object_set_new(o, "why", json_string(r->why));
        return o;
    }
    lay = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:s}", "tp", c->tp, "pp",
                    c->pp, "dp", c->dp, "cp", c->cp, "ep", c->ep, "vp", c->vp, "micro_batch",
                    c->mbs, "zero", c->zero, "sequence_parallel", c->sp, "recompute",
                    rc_names[c->recompute]);
    json_object_set_new(o, "parallel", lay);
    json_object_set_new(o, "searched_candidates", json_integer(r->n_searched));
    json_object_set_new(o, "gpus", json_integer(r->gpus));
    json_object_set_new(o, "step_time_s", json_real(r->step_s));
    json_object_set_new(o, "tokens_per_s", json_real(r->tokens_per_s));
    json_object_set_new(o, "model_tflops_per_gpu", json_real(r->model_tflops_per_gpu));
    json_object_set_new(o, "mfu_pct", json_real(r->mfu_pct));
    json_object_set_new(o, "memory_bytes", json_real(r->mem_bytes));
    json_object_set_new(o, "memory_capacity_bytes", json_real(r->capacity_bytes));
    json_object_set_new(o, "memory_headroom_bytes", json_real(r->capacity_bytes - r->mem_bytes));
    json_object_set_new(o, "fits", json_boolean(r->fits));
    if (train_s(r) > 0) {
        json_object_set_new(o, "train_time_s", json_real(train_s(r)));
        json_object_set_new(o, "gpu_hours", json_real(gpu_hours(r)));
        if (!isnan(cost_usd(r)))
            json_object_set_new(o, "cost_usd", json_real(cost_usd(r)));
        json_object_set_new(o, "train_MWh", json_real(train_MWh(r)));
    }
    cs_budget_json(o, r->budget.has_cost ? &r->budget.cost : NULL, &r->budget.energy,
                   r->budget.has_goodput ? &r->budget.goodput : NULL, &r->budget.fail);
    if (r->budget.has_straggler)
        cs_straggler_json(o, &r->budget.straggler);
    if (r->budget.has_elastic)
        cs_elastic_json(o, &r->budget.elastic);
    return o;
}

int cs_compare_print_json(FILE *f, const cs_plan *base, const cs_cmp_row *rows, int n,
                          const cs_budget_opts *o)
{
    json_t *root = json_object(), *arr = json_array();
    int i;
    json_object_set_new(root, "model", json_string(base->model.name));
    json_object_set_new(root, "gpus", json_integer(base->tp * base->pp * base->dp * base->cp));
    json_object_set_new(root, "global_batch", json_integer(base->global_batch));
    json_object_set_new(root, "seq_len", json_integer(base->model.seq_len));
    if (o->tokens > 0)
        json_object_set_new(root, "tokens", json_real(o->tokens));
    json_object_set_new(root, "train_time_with_failures", json_boolean(o->want_goodput));
    for (i = 0; i < n; i++)
        json_array_append_new(arr, row_json(&rows[i]));
    json_object_set_new(root, "systems", arr);
    return cs__plan_json_dump(f, root);
}

/* A CSV cell and its comma: empty when there is no figure (not asked). */
static void csv_num(FILE *f, double v)
{
    if (!isnan(v) && v > 0)
        fprintf(f, "%.9g", v);
    fputc(',', f);
}

int cs_compare_print_csv(FILE *f, const cs_cmp_row *rows, int n)
{
    int i;
    fprintf(f, "name,topo,gpu,ok,tp,pp,dp,cp,ep,vp,micro_batch,zero,sequence_parallel,"
            "recompute,gpus,step_time_s,tokens_per_s,model_tflops_per_gpu,mfu_pct,"
            "memory_bytes,memory_capacity_bytes,fits,train_time_s,gpu_hours,cost_usd,"
            "per_token_J,train_MWh,why\n");
    for (i = 0; i < n; i++) {
        const cs_cmp_row *r = &rows[i];
        const cs_plan_cand *c = &r->layout;
        fprintf(f, "%s,%s,%s,%d,", r->sys.name, r->sys.topo, r->sys.gpu, r->ok);
        if (!r->ok) {
            fprintf(f, ",,,,,,,,,,,,,,,,,,,,,,,\"%s\"\n", r->why);
            continue;
        }
        fprintf(f, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,",
                c->tp, c->pp, c->dp, c->cp, c->ep, c->vp, c->mbs, c->zero, c->sp,
                rc_names[c->recompute], r->gpus, r->step_s, r->tokens_per_s,
                r->model_tflops_per_gpu, r->mfu_pct, r->mem_bytes, r->capacity_bytes, r->fits);
        csv_num(f, train_s(r));
        csv_num(f, gpu_hours(r));
        csv_num(f, cost_usd(r));
        csv_num(f, r->budget.energy.per_token_J);
        csv_num(f, train_MWh(r));
        fputc('\n', f);
    }
    return ferror(f) ? CS_EIO : 0;
}
