/* trainfit.c: training logs simulated and fitted (scenarios layer): the system a log runs
 * on (--gpu, --topo, or a default cluster of the log's GPU count), the plan's step time
 * against the measured one (plan validate), and one scale of the GPU's compute figures
 * fitted to the logs with leave-one-out errors (plan calibrate). */
#include "scenarios/trainlog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPU presets and the node preset (8 GPUs each) and fabric a default cluster of them is
 * built from; a GPU named "<preset>-anything" (a calibrated file) takes its preset's. */
static const struct { const char *gpu, *node, *fabric; } defaults[] = {
    {"a100-40gb", "dgx-a100", "ib-ndr-rail"}, {"a100-80gb", "dgx-a100", "ib-ndr-rail"},
    {"h100-sxm", "dgx-h100", "ib-ndr-rail"}, {"h800", "dgx-h100", "ib-ndr-rail"},
    {"h200", "hgx-h200", "ib-ndr-rail"}, {"b200", "dgx-b200", "ib-ndr-rail"},
    {"b300", "hgx-b300", "ib-xdr-rail"}, {"mi300x", "mi300x", "roce-400g-rail"},
    {"mi325x", "mi325x", "roce-400g-rail"}, {"mi355x", "mi355x", "roce-400g-switch"},
};
#define NODE_GPUS 8

int cs_tlog_default_topo(const char *gpu, int n, char **spec, char **json, char *label,
                         size_t n_label, cs_err *err)
{
    size_t i, best = 0, best_len = 0;
    *spec = *json = NULL;
    for (i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        size_t l = strlen(defaults[i].gpu);
        if (!strncmp(gpu, defaults[i].gpu, l) && (!gpu[l] || gpu[l] == '-') && l > best_len)
            best = i, best_len = l;
    }
    if (!best_len)
        return cs_err_set(err, CS_EINVAL, "--topo", "no default system for gpu '%s' (defaults "
                          "exist for a100-40gb, a100-80gb, h100-sxm, h800, h200, b200, b300, "
                          "mi300x, mi325x, mi355x, and GPU files named <preset>-*.json): give --topo", gpu);
    if (n <= NODE_GPUS) {
        if (!(*spec = strdup(defaults[best].node)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        snprintf(label, n_label, "%s (default: one node of %s)", defaults[best].node,
                 defaults[best].gpu);
        return 0;
    }
    if (n % NODE_GPUS)
        return cs_err_set(err, CS_EINVAL, "--topo", "%d GPUs are not whole %d-GPU nodes of the "
                          "default system for %s: give --topo", n, NODE_GPUS, gpu);
    if (!(*json = malloc(256)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    snprintf(*json, 256, "{\"kind\": \"cluster\", \"nodes\": %d, \"node\": \"%s\", "
             "\"fabric\": \"%s\"}", n / NODE_GPUS, defaults[best].node, defaults[best].fabric);
    snprintf(label, n_label, "%d x %s on %s (default for %s)", n / NODE_GPUS,
             defaults[best].node, defaults[best].fabric, defaults[best].gpu);
    return 0;
}

int cs_tlog_prepare(const cs_trainlog *t, const cs_tlog_system *sys, cs_plan *p,
                    cs_plan_ctx **ctx, cs_tlog_row *row, cs_err *err)
{
    char *spec = NULL, *json = NULL;
    int rc;
    *ctx = NULL;
    memset(row, 0, sizeof *row);
    row->log = t;
    if ((rc = cs_plan_copy(p, &t->plan)) < 0)
        return cs_err_set(err, rc, NULL, "out of memory");
    if (sys->gpu_given) {
        p->gpu = sys->gpu;
    } else if (!t->gpu[0]) {
        return cs_err_set(err, CS_EINVAL, t->name, "the log does not name its GPU: give --gpu "
                          "(a preset, see collsim list gpus, or a GPU.json)");
    } else if ((rc = cs_gpu_preset(t->gpu, &p->gpu, err)) < 0) {
        cs_err_prefix(err, t->name);
        return rc;
    }
    if (p->gpu.peak_tflops[p->dtype] <= 0)
        return cs_err_set(err, CS_EINVAL, t->name, "the run trains in %s and gpu '%s' has no "
                          "%s peak", cs_pdtype_name(p->dtype), p->gpu.name,
                          cs_pdtype_name(p->dtype));
    snprintf(row->gpu, sizeof row->gpu, "%s", p->gpu.name);
    if (sys->topo[0]) {
        snprintf(p->topo_spec, sizeof p->topo_spec, "%s", sys->topo);
        snprintf(row->topo, sizeof row->topo, "%s", sys->topo);
    } else {
        if ((rc = cs_tlog_default_topo(p->gpu.name, t->world_size, &spec, &json, row->topo,
                                       sizeof row->topo, err)) < 0)
            return rc;
        row->topo_default = 1;
        if (spec)
            snprintf(p->topo_spec, sizeof p->topo_spec, "%s", spec);
        free(spec);
        p->topo_json = json;            /* owned by the plan now */
    }
    if ((rc = cs_plan_check(p, 0, err)) < 0 || (rc = cs_plan_ctx_new(ctx, p, err)) < 0 ||
        (rc = cs_plan_check(p, cs_plan_ctx_ranks(*ctx), err)) < 0) {
        cs_err_prefix(err, t->name);
        return rc;
    }
    return 0;
}

/* Evaluate p on ctx into row's simulated figures and error. */
static int eval_row(cs_plan_ctx *ctx, const cs_plan *p, cs_tlog_row *row, cs_err *err)
{
    cs_plan_result r;
    int rc;
    memset(&r, 0, sizeof r);
    if ((rc = cs_plan_eval(ctx, p, 0, &r, err)) < 0) {
        cs_plan_result_fini(&r);
        cs_err_prefix(err, row->log->name);
        return rc;
    }
    row->sim_step_s = r.step_time_s;
    row->sim_tokens_per_s = r.tokens_per_s;
    row->sim_mfu_pct = r.mfu_pct;
    row->err_pct = (r.step_time_s - row->log->step_s) / row->log->step_s * 100.0;
    cs_plan_result_fini(&r);
    return 0;
}

int cs_tlog_validate(const cs_trainlog *logs, int n, const cs_tlog_system *sys,
                     cs_tlog_row *rows, cs_err *err)
{
    int i, rc = 0;
    for (i = 0; i < n && rc == 0; i++) {
        cs_plan p;
        cs_plan_ctx *ctx = NULL;
        cs_plan_init(&p);
        if ((rc = cs_tlog_prepare(&logs[i], sys, &p, &ctx, &rows[i], err)) == 0)
            rc = eval_row(ctx, &p, &rows[i], err);
        cs_plan_ctx_free(ctx);
        cs_plan_fini(&p);
    }
    return rc;
}

/* The logs prepared once for the fit: plan, context and unscaled GPU of each. */
typedef struct fitset {
    int n;
    cs_plan *p;
    cs_plan_ctx **ctx;
    cs_gpu *base;
    cs_tlog_row *rows;
} fitset;

/* Simulated step of log i with its compute figures x s. */
static int sim_at(fitset *fs, int i, double s, double *step_s, cs_err *err)
{
    cs_gpu g = fs->base[i];
    int rc;
    cs_gpu_scale_compute(&g, s, NULL);
    fs->p[i].gpu = g;
    rc = eval_row(fs->ctx[i], &fs->p[i], &fs->rows[i], err);
    fs->p[i].gpu = fs->base[i];
    *step_s = fs->rows[i].sim_step_s;
    return rc;
}

/* Sum over the logs but `skip` of ln(simulated at s / measured). */
static int log_resid(fitset *fs, int skip, double s, double *sum, cs_err *err)
{
    int i, rc;
    double t;
    *sum = 0;
    for (i = 0; i < fs->n; i++) {
        if (i == skip)
            continue;
        if ((rc = sim_at(fs, i, s, &t, err)) < 0)
            return rc;
        *sum += log(t / fs->rows[i].log->step_s);
    }
    return 0;
}

#define SCALE_MIN 1e-3
#define SCALE_MAX 1e3

/* Bisection on u = ln s over [ln 1e-3, ln 1e3] for a zero of log_resid (it falls as s
 * grows: faster compute, shorter steps), to |du| < 1e-12. */
static int fit_scale(fitset *fs, int skip, double *scale, cs_err *err)
{
    double lo = log(SCALE_MIN), hi = log(SCALE_MAX), glo, ghi;
    int rc;
    if ((rc = log_resid(fs, skip, SCALE_MIN, &glo, err)) < 0 ||
        (rc = log_resid(fs, skip, SCALE_MAX, &ghi, err)) < 0)
        return rc;
    if (glo < 0)
        return cs_err_set(err, CS_EINVAL, "calibrate", "no scale fits: even with the compute "
                          "figures x %g the simulated steps are shorter than measured (is the "
                          "GPU right? does the log measure something else?)", SCALE_MIN);
    if (ghi > 0)
        return cs_err_set(err, CS_EINVAL, "calibrate", "no scale fits: even with the compute "
                          "figures x %g the simulated steps are longer than measured "
                          "(communication or memory-bound time the scale does not touch: is "
                          "--topo right?)", SCALE_MAX);
    while (hi - lo > 1e-12) {
        double mid = 0.5 * (lo + hi), g;
        if ((rc = log_resid(fs, skip, exp(mid), &g, err)) < 0)
            return rc;
        if (g > 0)
            lo = mid;
        else
            hi = mid;
    }
    *scale = exp(0.5 * (lo + hi));
    return 0;
}

static int cmp_abs(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

/* Median of |v[i]| (v reordered). */
static double median_abs(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_abs);
    return n % 2 ? fabs(v[n / 2]) : 0.5 * (fabs(v[n / 2 - 1]) + fabs(v[n / 2]));
}

/* Do all logs have one shape (model, sequence, dtype)? */
static int one_shape(const cs_trainlog *logs, int n)
{
    int i;
    for (i = 1; i < n; i++) {
        const cs_llm *a = &logs[0].plan.model, *b = &logs[i].plan.model;
        if (a->layers != b->layers || a->hidden != b->hidden || a->heads != b->heads ||
            a->kv_heads != b->kv_heads || a->ffn_hidden != b->ffn_hidden ||
            a->seq_len != b->seq_len || a->experts != b->experts ||
            logs[0].plan.dtype != logs[i].plan.dtype)
            return 0;
    }
    return 1;
}

int cs_tlog_calibrate(const cs_trainlog *logs, int n, const cs_tlog_system *sys,
                      cs_tlog_row *rows, cs_tlog_fit *fit, cs_err *err)
{
    fitset fs = {n, calloc((size_t)n, sizeof(cs_plan)), calloc((size_t)n, sizeof(cs_plan_ctx *)),
                 calloc((size_t)n, sizeof(cs_gpu)), rows};
    double *errs = calloc((size_t)n, sizeof *errs), t;
    char src[256] = "";
    int i, rc = 0;
    memset(fit, 0, sizeof *fit);
    fit->heldout_median_abs_err_pct = -1;
    fit->n_logs = n;
    if (!fs.p || !fs.ctx || !fs.base || !errs) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (i = 0; i < n; i++)
        cs_plan_init(&fs.p[i]);
    for (i = 0; i < n && rc == 0; i++) {
        if ((rc = cs_tlog_prepare(&logs[i], sys, &fs.p[i], &fs.ctx[i], &rows[i], err)) < 0)
            break;
        fs.base[i] = fs.p[i].gpu;
        if (strcmp(rows[i].gpu, rows[0].gpu))
            rc = cs_err_set(err, CS_EINVAL, logs[i].name, "runs on gpu '%s', %s on '%s': "
                            "calibrate one GPU at a time", rows[i].gpu, logs[0].name,
                            rows[0].gpu);
        if (strlen(src) + strlen(logs[i].name) + 3 < sizeof src)
            snprintf(src + strlen(src), sizeof src - strlen(src), "%s%s", i ? ", " : "",
                     logs[i].name);
    }
    /* held out: each log judged at the scale the others give */
    for (i = 0; n >= 2 && i < n && rc == 0; i++) {
        double s;
        if ((rc = fit_scale(&fs, i, &s, err)) == 0 && (rc = sim_at(&fs, i, s, &t, err)) == 0) {
            errs[i] = (t - logs[i].step_s) / logs[i].step_s * 100.0;
            rows[i].heldout_scale = s;
        }
    }
    if (rc == 0 && (rc = fit_scale(&fs, -1, &fit->scale, err)) == 0) {
        for (i = 0; i < n && rc == 0; i++) {
            rows[i].heldout_err_pct = errs[i];
            rc = sim_at(&fs, i, fit->scale, &t, err);
        }
        if (n >= 2)
            fit->heldout_median_abs_err_pct = median_abs(errs, n);
        for (i = 0; i < n; i++)
            errs[i] = rows[i].err_pct;
        fit->median_abs_err_pct = median_abs(errs, n);
        fit->one_shape = one_shape(logs, n);
        fit->gpu = fs.base[0];
        cs_gpu_scale_compute(&fit->gpu, fit->scale, src);
    }
done:
    for (i = 0; fs.p && i < n; i++) {
        if (fs.ctx)
            cs_plan_ctx_free(fs.ctx[i]);
        cs_plan_fini(&fs.p[i]);
    }
    free(fs.p);
    free(fs.ctx);
    free(fs.base);
    free(errs);
    return rc;
}
