/* compare.c: one plan over several systems (scenarios layer): the --systems list, the GPU a
 * topology's name implies, and the evaluation of the plan on each system, as given or at
 * its best layout (a restricted plan search), with the run's budget (budget.h). */
#include "scenarios/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Topology name fragments and their GPU (first match; more specific first). */
static const struct { const char *part, *gpu; } gpu_of[] = {
    {"h200", "h200"}, {"gh200", "h100-sxm"}, {"h100", "h100-sxm"}, {"b200", "b200"},
    {"a100", "a100-80gb"}, {"v100", "v100-32gb"}, {"mi300x", "mi300x"}, {"4090", "rtx4090"},
    {"ascend910", "ascend-910b"}, {NULL, NULL}};

const char *cs_compare_gpu_of(const char *topo)
{
    const char *base = strrchr(topo, '/');
    int i;
    base = base ? base + 1 : topo;
    for (i = 0; gpu_of[i].part; i++)
        if (strstr(base, gpu_of[i].part))
            return gpu_of[i].gpu;
    return NULL;
}

/* One entry: NAME=TOPO:GPU, TOPO:GPU or TOPO. */
static int parse_one(const char *s, size_t len, cs_cmp_system *y, cs_err *err)
{
    char buf[640], *eq, *topo, *colon;
    const char *g;
    cs_gpu tmp;
    if (len == 0 || len >= sizeof buf)
        return cs_err_set(err, CS_EUSAGE, "--systems", "expected NAME=TOPO:GPU, TOPO:GPU or "
                          "TOPO, got '%.*s'", (int)(len > 80 ? 80 : len), s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    memset(y, 0, sizeof *y);
    eq = strchr(buf, '=');
    topo = eq ? eq + 1 : buf;
    colon = strrchr(topo, ':');
    if (colon)
        *colon = '\0';
    if (eq)
        *eq = '\0';
    if (!*topo || (eq && !*buf) || (colon && !colon[1]) || strlen(buf) >= sizeof y->name ||
        strlen(topo) >= sizeof y->topo)
        return cs_err_set(err, CS_EUSAGE, "--systems", "expected NAME=TOPO:GPU, TOPO:GPU or "
                          "TOPO, got '%.*s'", (int)len, s);
    snprintf(y->topo, sizeof y->topo, "%s", topo);
    snprintf(y->name, sizeof y->name, "%s", eq ? buf : topo);
    if (colon) {
        g = colon + 1;
    } else if (!(g = cs_compare_gpu_of(topo))) {
        return cs_err_set(err, CS_EUSAGE, "--systems", "no GPU known for topology '%s': give "
                          "it as %s:GPU (collsim list gpus)", topo, topo);
    }
    y->gpu_default = !colon;
    snprintf(y->gpu, sizeof y->gpu, "%s", g);
    if (cs_gpu_preset(y->gpu, &tmp, err) < 0) {
        snprintf(err->where, sizeof err->where, "--systems");
        return err->code;
    }
    return 0;
}

int cs_compare_parse_systems(const char *spec, cs_cmp_system **out, int *n, cs_err *err)
{
    const char *s = spec, *c;
    int k = 1, i = 0, rc;
    for (c = spec; *c; c++)
        k += *c == ',';
    if (k > 64)
        return cs_err_set(err, CS_EUSAGE, "--systems", "at most 64 systems, got %d", k);
    if (!(*out = calloc((size_t)k, sizeof **out)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (;;) {
        c = strchr(s, ',');
        if ((rc = parse_one(s, c ? (size_t)(c - s) : strlen(s), &(*out)[i++], err)) < 0) {
            free(*out);
            *out = NULL;
            return rc;
        }
        if (!c)
            break;
        s = c + 1;
    }
    *n = i;
    return 0;
}

int cs_compare_parse_prices(const char *spec, cs_cmp_system *sys, int n, cs_err *err)
{
    const char *s = spec;
    while (*s) {
        const char *eq = strchr(s, '='), *c = strchr(s, ',');
        char *end;
        double v;
        int i;
        size_t len = c ? (size_t)(c - s) : strlen(s);
        if (!eq || (c && eq > c))
            return cs_err_set(err, CS_EUSAGE, "--price", "expected P or NAME=P,..., got '%s'",
                              spec);
        v = strtod(eq + 1, &end);
        if (end == eq + 1 || (size_t)(end - s) != len || !(v > 0 && v <= 1e6))
            return cs_err_set(err, CS_EUSAGE, "--price", "expected a price > 0 after '%.*s=', "
                              "got '%.*s'", (int)(eq - s), s, (int)(len - (size_t)(eq - s) - 1),
                              eq + 1);
        for (i = 0; i < n; i++)
            if (strlen(sys[i].name) == (size_t)(eq - s) && !strncmp(sys[i].name, s,
                                                                    (size_t)(eq - s)))
                break;
        if (i == n)
            return cs_err_set(err, CS_EUSAGE, "--price", "no system named '%.*s' in "
                              "--systems", (int)(eq - s), s);
        sys[i].price_per_gpu_h = v;
        s += len + (c ? 1 : 0);
    }
    return 0;
}

static void layout_of(const cs_plan *p, cs_plan_cand *c)
{
    c->tp = p->tp, c->pp = p->pp, c->dp = p->dp, c->cp = p->cp, c->ep = p->ep, c->vp = p->vp;
    c->mbs = p->micro_batch, c->zero = p->zero, c->sp = p->sp, c->recompute = p->recompute;
}

/* One system: its plan, layout, evaluation and budget into row. */
static int run_one(const cs_plan *base, const cs_cmp_system *y, int search,
                   const cs_budget_opts *o, cs_cmp_row *row, cs_err *err)
{
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_plan_result r;
    cs_budget_opts o2 = *o;
    cs_err e2;
    int rc, gpus = base->tp * base->pp * base->dp * base->cp;
    memset(&r, 0, sizeof r);
    row->sys = *y;
    if ((rc = cs_plan_copy(&p, base)) < 0)
        return cs_err_set(err, rc, NULL, "out of memory");
    free(p.topo_json);
    p.topo_json = NULL;
    snprintf(p.topo_spec, sizeof p.topo_spec, "%s", y->topo);
    if ((rc = cs_gpu_preset(y->gpu, &p.gpu, &e2)) < 0 || (rc = cs_plan_check(&p, 0, &e2)) < 0 ||
        (rc = cs_plan_ctx_new(&ctx, &p, &e2)) < 0)
        goto why;
    if (gpus > cs_plan_ctx_ranks(ctx)) {
        rc = cs_err_set(&e2, CS_EINVAL, "gpus", "the plan's %d GPUs, the system has %d", gpus,
                        cs_plan_ctx_ranks(ctx));
        goto why;
    }
    if (search && (rc = cs_plan_search_best(ctx, &p, gpus, &row->n_searched, &e2)) != 0) {
        if (rc == 1)
            rc = cs_err_set(&e2, CS_EINVAL, "search", "no layout of %d GPUs fits in %.0f GB",
                            gpus, p.gpu.hbm_GB);
        if (rc == CS_ENOMEM)
            goto fail;
        goto why;
    }
    if ((rc = cs_plan_check(&p, cs_plan_ctx_ranks(ctx), &e2)) < 0 ||
        (rc = cs_plan_eval(ctx, &p, 0, &r, &e2)) < 0)
        goto why;
    if (y->price_per_gpu_h > 0)
        o2.price_per_gpu_h = y->price_per_gpu_h;
    o2.want_energy = 1;
    if ((rc = cs_budget_eval(ctx, &p, &r, &o2, &row->budget, &e2)) < 0)
        goto why;
    layout_of(&p, &row->layout);
    row->ok = 1;
    row->gpus = r.gpus;
    row->step_s = r.step_time_s;
    row->tokens_per_s = r.tokens_per_s;
    row->model_tflops_per_gpu = r.model_tflops_per_gpu;
    row->mfu_pct = r.mfu_pct;
    row->mem_bytes = r.mem.total;
    row->capacity_bytes = r.capacity_bytes;
    row->fits = r.fits;
    rc = 0;
    goto done;
why:
    snprintf(row->why, sizeof row->why, "%.100s%s%.150s", e2.where, e2.where[0] ? ": " : "", e2.msg);
    rc = 0;
    goto done;
fail:
    *err = e2;
done:
    cs_plan_result_fini(&r);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
    return rc;
}

int cs_compare_run(const cs_plan *base, const cs_cmp_system *sys, int n, int search,
                   const cs_budget_opts *o, cs_cmp_row *rows, cs_err *err)
{
    int i, rc;
    for (i = 0; i < n; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        if ((rc = run_one(base, &sys[i], search, o, &rows[i], err)) < 0)
            return rc;
    }
    return 0;
}
