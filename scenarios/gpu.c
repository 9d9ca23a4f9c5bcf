/* gpu.c: a GPU of training plans (scenarios layer): its JSON object (presets in
 * scenarios/gpus, or system.gpu) and the figures compute.c times kernels with - dense peak
 * and maximum achievable matmul per dtype, GEMM tile and SM count, the attention kernel's
 * forward and backward TFLOP/s, HBM bandwidth and its achievable fraction, a fixed cost per
 * kernel, board power. A figure the object does not give is estimated and the plan says so. */
#include "scenarios/plan.h"
#include "scenarios/model-private.h"
#include "sim/json.h"
#include "sim/limits.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* Defaults of the figures a GPU object may leave out (docs/plans.md "GPU figures"). */
#define GEMM_EFF_DEFAULT 0.75   /* fraction of peak assumed without a matmul figure: the
                                   middle of the 60-97% mamf-finder measured on 20 chips */
#define ATTN_FWD_OF_MATMUL 0.55 /* attention forward / matmul ceiling, estimate */
#define ATTN_BWD_OF_MATMUL 0.45 /* attention backward / matmul ceiling, estimate */
#define SUSTAINED_DEFAULT 0.9    /* clock held under a sustained dense load at the power
                                   limit, a fraction of the short microbenchmarks' (assumed) */
#define KERNEL_US_DEFAULT 4.0   /* us per kernel: launch gap and ramp of a CUDA kernel in
                                   an eager PyTorch step (2-5 us, PyTorch profiler traces) */

static const char *const dtype_names[] = {"bf16", "fp16", "fp32", "fp8", NULL};

const char *cs_pdtype_name(cs_pdtype d) { return dtype_names[d]; }
int cs_pdtype_bytes(cs_pdtype d) { return d == CS_DT_FP32 ? 4 : d == CS_DT_FP8 ? 1 : 2; }
const char *const *cs__dtype_names(void) { return dtype_names; }

double cs_gpu_matmul_tflops(const cs_gpu *g, cs_pdtype d, int *measured)
{
    if (measured)
        *measured = g->matmul_tflops[d] > 0;
    if (g->matmul_tflops[d] > 0)
        return g->matmul_tflops[d];
    return g->peak_tflops[d] * g->gemm_eff_max;
}

const cs_attn_kernel *cs_gpu_attn_kernel(const cs_gpu *g, const char *kernel)
{
    int i;
    if (!kernel || !kernel[0])
        return g->n_attn > 0 ? &g->attn[0] : NULL;
    for (i = 0; i < g->n_attn; i++)
        if (!strcmp(g->attn[i].kernel, kernel))
            return &g->attn[i];
    return NULL;
}

double cs_gpu_attn_tflops(const cs_gpu *g, const char *kernel, int bwd, int *measured)
{
    const cs_attn_kernel *a = cs_gpu_attn_kernel(g, kernel);
    if (measured)
        *measured = a != NULL;
    if (a)
        return bwd ? a->bwd_tflops : a->fwd_tflops;
    return cs_gpu_matmul_tflops(g, g->peak_tflops[CS_DT_BF16] > 0 ? CS_DT_BF16 : CS_DT_FP16,
                                NULL) * (bwd ? ATTN_BWD_OF_MATMUL : ATTN_FWD_OF_MATMUL);
}

void cs_gpu_scale_compute(cs_gpu *g, double s, const char *source)
{
    int d;
    for (d = 0; d < CS_DT_COUNT; d++)
        g->matmul_tflops[d] = cs_gpu_matmul_tflops(g, (cs_pdtype)d, NULL) * s;
    if (g->n_attn == 0) {               /* the estimate becomes a figure to scale */
        g->n_attn = 1;
        snprintf(g->attn[0].kernel, sizeof g->attn[0].kernel, "estimated");
        g->attn[0].fwd_tflops = cs_gpu_attn_tflops(g, NULL, 0, NULL);
        g->attn[0].bwd_tflops = cs_gpu_attn_tflops(g, NULL, 1, NULL);
        snprintf(g->attn[0].source, sizeof g->attn[0].source, "estimated from the matmul "
                 "ceiling");
    }
    for (d = 0; d < g->n_attn; d++) {
        g->attn[d].fwd_tflops *= s;
        g->attn[d].bwd_tflops *= s;
    }
    g->calib_scale = g->calib_scale > 0 ? g->calib_scale * s : s;
    snprintf(g->calib_source, sizeof g->calib_source, "%s", source ? source : "");
}

/* "power_W": {"idle": W, "tdp": W, "source": "..."} (optional; energy needs it): board
 * power idle and at full load, 0 < idle < tdp <= 10 kW, and where the figures come from. */
static int power_from_json(json_t *o, const char *where, cs_gpu *g, cs_err *err)
{
    static const char *const keys[] = {"idle", "tdp", "source", NULL};
    json_t *pw;
    const char *src = NULL;
    char w[256];
    int rc;
    if ((rc = cs_json_object(o, where, "power_W", 0, &pw, err)) < 0 || !pw)
        return rc;
    cs_jpath_key(w, sizeof w, where, "power_W");
    if ((rc = cs_json_check_keys(pw, w, keys, NULL, err)) < 0 ||
        (rc = cs_json_range(pw, w, "tdp", 1, 1, 1e4, "W", &g->power_tdp_W, err)) < 0 ||
        (rc = cs_json_range(pw, w, "idle", 1, 0, g->power_tdp_W, "W", &g->power_idle_W,
                            err)) < 0 ||
        (rc = cs_json_string(pw, w, "source", 1, &src, err)) < 0)
        return rc;
    snprintf(g->power_source, sizeof g->power_source, "%s", src);
    return 0;
}

/* An object of TFLOP/s per dtype at where.key ("peak_tflops", "matmul_tflops"); with
 * source_ok a "source" string may come along (into src). */
static int per_dtype(json_t *o, const char *where, const char *key, double out[CS_DT_COUNT],
                     char *src, size_t n_src, cs_err *err)
{
    static const char *const also[] = {"source", NULL};
    const char *const *names = cs__dtype_names();
    json_t *pk = json_object_get(o, key);
    char w[256];
    int rc, d;
    cs_jpath_key(w, sizeof w, where, key);
    if (!pk)
        return 0;
    if (!json_is_object(pk))
        return cs_err_set(err, CS_EINVAL, w, "expected an object of TFLOP/s per dtype, got %s",
                          cs_json_type_a(pk));
    if ((rc = cs_json_check_keys(pk, w, names, src ? also : NULL, err)) < 0)
        return rc;
    for (d = 0; d < CS_DT_COUNT; d++) {
        char wd[300];
        cs_jpath_key(wd, sizeof wd, w, names[d]);
        if ((rc = cs_json_opt_num(pk, w, names[d], 1, &out[d], err)) < 0 ||
            (rc = cs_limit_check_or0(out[d], CS_LIMIT_TFLOPS_MIN, CS_LIMIT_TFLOPS_MAX,
                                     "TFLOP/s", "not supported", wd, err)) < 0)
            return rc;
    }
    if (src) {
        const char *s = NULL;
        if ((rc = cs_json_string(pk, w, "source", 0, &s, err)) < 0)
            return rc;
        snprintf(src, n_src, "%s", s ? s : "");
    }
    return 0;
}

/* "attention": [{"kernel", "fwd_tflops", "bwd_tflops", "source"}, ...] (or one object):
 * the attention kernels measured on this GPU, the first the default. */
static int attention_from_json(json_t *o, const char *where, cs_gpu *g, cs_err *err)
{
    static const char *const keys[] = {"kernel", "fwd_tflops", "bwd_tflops", "source", NULL};
    json_t *arr = json_object_get(o, "attention"), *a;
    char w[256], wi[300];
    size_t i, n;
    int rc, j;
    if (!arr)
        return 0;
    cs_jpath_key(w, sizeof w, where, "attention");
    if (!json_is_array(arr) && !json_is_object(arr))
        return cs_err_set(err, CS_EINVAL, w, "expected an array of attention kernels "
                          "({\"kernel\", \"fwd_tflops\", \"bwd_tflops\", \"source\"}), "
                          "got %s", cs_json_type_a(arr));
    n = json_is_array(arr) ? json_array_size(arr) : 1;
    if (n < 1 || n > CS_GPU_ATTN_MAX)
        return cs_err_set(err, CS_EINVAL, w, "expected 1 to %d kernels, got %zu",
                          CS_GPU_ATTN_MAX, n);
    for (i = 0; i < n; i++) {
        cs_attn_kernel *k = &g->attn[i];
        const char *kn = NULL, *src = NULL;
        a = json_is_array(arr) ? json_array_get(arr, i) : arr;
        if (json_is_array(arr))
            cs_jpath_idx(wi, sizeof wi, w, i);
        else
            snprintf(wi, sizeof wi, "%s", w);
        if (!json_is_object(a))
            return cs_err_set(err, CS_EINVAL, wi, "expected an object, got %s",
                              cs_json_type_a(a));
        if ((rc = cs_json_check_keys(a, wi, keys, NULL, err)) < 0 ||
            (rc = cs_json_string(a, wi, "kernel", 1, &kn, err)) < 0 ||
            (rc = cs_json_range(a, wi, "fwd_tflops", 1, CS_LIMIT_TFLOPS_MIN,
                                CS_LIMIT_TFLOPS_MAX, "TFLOP/s", &k->fwd_tflops, err)) < 0 ||
            (rc = cs_json_range(a, wi, "bwd_tflops", 1, CS_LIMIT_TFLOPS_MIN,
                                CS_LIMIT_TFLOPS_MAX, "TFLOP/s", &k->bwd_tflops, err)) < 0 ||
            (rc = cs_json_string(a, wi, "source", 1, &src, err)) < 0)
            return rc;
        if (!kn[0] || strlen(kn) >= sizeof k->kernel)
            return cs_err_set(err, CS_EINVAL, wi, "kernel: expected a name of 1 to %zu "
                              "characters", sizeof k->kernel - 1);
        for (j = 0; j < (int)i; j++)
            if (!strcmp(g->attn[j].kernel, kn))
                return cs_err_set(err, CS_EINVAL, wi, "kernel '%s' given twice", kn);
        snprintf(k->kernel, sizeof k->kernel, "%s", kn);
        snprintf(k->source, sizeof k->source, "%s", src);
        g->n_attn = (int)i + 1;
    }
    return 0;
}

/* "sustained": {"clock", "source"}: the fraction of the microbenchmarks' math rate held
 * over a long run (GPU clocks under the power limit). */
static int sustained_from_json(json_t *o, const char *where, cs_gpu *g, cs_err *err)
{
    static const char *const keys[] = {"clock", "source", NULL};
    json_t *a;
    const char *src = NULL;
    char w[256];
    int rc;
    if ((rc = cs_json_object(o, where, "sustained", 0, &a, err)) < 0 || !a)
        return rc;
    cs_jpath_key(w, sizeof w, where, "sustained");
    if ((rc = cs_json_check_keys(a, w, keys, NULL, err)) < 0 ||
        (rc = cs_json_range(a, w, "clock", 1, 0.1, 1, "", &g->sustained, err)) < 0 ||
        (rc = cs_json_string(a, w, "source", 1, &src, err)) < 0)
        return rc;
    snprintf(g->sustained_source, sizeof g->sustained_source, "%s", src);
    return 0;
}

/* "gemm": {"sm_count", "tile": [m, n]}: how a GEMM's output is cut into tiles and spread
 * over the SMs (wave quantization). */
static int gemm_from_json(json_t *o, const char *where, cs_gpu *g, cs_err *err)
{
    static const char *const keys[] = {"sm_count", "tile", NULL};
    json_t *a, *t;
    long v;
    char w[256], wt[300], wi[320];
    int rc, i;
    if ((rc = cs_json_object(o, where, "gemm", 0, &a, err)) < 0 || !a)
        return rc;
    cs_jpath_key(w, sizeof w, where, "gemm");
    if ((rc = cs_json_check_keys(a, w, keys, NULL, err)) < 0 ||
        (rc = cs_json_opt_intv(a, w, "sm_count", 1, 100000, &g->sm_count, err)) < 0)
        return rc;
    if (!(t = json_object_get(a, "tile")))
        return 0;
    cs_jpath_key(wt, sizeof wt, w, "tile");
    if (!json_is_array(t) || json_array_size(t) != 2)
        return cs_err_set(err, CS_EINVAL, wt, "expected [m, n], the output tile of the GEMM "
                          "kernels, e.g. [128, 256]");
    for (i = 0; i < 2; i++) {
        cs_jpath_idx(wi, sizeof wi, wt, (size_t)i);
        if ((rc = cs_json_as_int(json_array_get(t, (size_t)i), wi, 8, 4096, &v, err)) < 0)
            return rc;
        if (i == 0)
            g->tile_m = (int)v;
        else
            g->tile_n = (int)v;
    }
    return 0;
}

int cs__gpu_from_json(json_t *o, const char *where, const char *name, cs_gpu *g, cs_err *err)
{
    static const char *const keys[] = {"peak_tflops", "matmul_tflops", "hbm_GB", "hbm_GBps",
        "gemm_eff_max", "gemm", "attention", "mem_eff", "kernel_us", "power_W", "calibrated",
        "sustained", "checked_against",
        "description", "sources", NULL};
    char w[256];
    int rc, d;
    if (!json_is_object(o))
        return cs_err_set(err, CS_EINVAL, where, "expected a preset name or a gpu object");
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->gemm_eff_max = GEMM_EFF_DEFAULT;
    g->mem_eff = 0.9;
    g->kernel_us = KERNEL_US_DEFAULT;
    g->sustained = SUSTAINED_DEFAULT;
    g->tile_m = 128;
    g->tile_n = 128;
    if (json_object_get(o, "gemm_half_GFLOP")) {
        cs_jpath_key(w, sizeof w, where, "gemm_half_GFLOP");
        return cs_err_set(err, CS_EINVAL, w, "no longer read: GEMM efficiency now comes from "
                          "the shape (gemm.sm_count, gemm.tile) and matmul_tflops "
                          "(docs/plans.md \"GPU figures\"); remove the key");
    }
    if ((rc = cs_json_check_keys(o, where, keys, NULL, err)) < 0 ||
        (rc = cs_json_need(o, where, "peak_tflops", err)) < 0 ||
        (rc = cs_json_need(o, where, "hbm_GB", err)) < 0 ||
        (rc = cs_json_need(o, where, "hbm_GBps", err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "hbm_GB", 0, &g->hbm_GB, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "hbm_GBps", 0, &g->hbm_GBps, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "gemm_eff_max", 0, &g->gemm_eff_max, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "mem_eff", 0, &g->mem_eff, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "kernel_us", 1, &g->kernel_us, err)) < 0)
        return rc;
    if (g->gemm_eff_max > 1 || g->mem_eff > 1) {
        cs_jpath_key(w, sizeof w, where, g->gemm_eff_max > 1 ? "gemm_eff_max" : "mem_eff");
        return cs_err_set(err, CS_EINVAL, w, "must be in (0, 1], got %g",
                          g->gemm_eff_max > 1 ? g->gemm_eff_max : g->mem_eff);
    }
    if (g->kernel_us > 1e4) {
        cs_jpath_key(w, sizeof w, where, "kernel_us");
        return cs_err_set(err, CS_EINVAL, w, "must be between 0 and 10000 us, got %g",
                          g->kernel_us);
    }
    cs_jpath_key(w, sizeof w, where, "hbm_GBps");
    if ((rc = cs_limit_check(g->hbm_GBps, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS, "GB/s", w,
                             err)) < 0)
        return rc;
    if ((rc = power_from_json(o, where, g, err)) < 0 ||
        (rc = gemm_from_json(o, where, g, err)) < 0 ||
        (rc = attention_from_json(o, where, g, err)) < 0 ||
        (rc = sustained_from_json(o, where, g, err)) < 0)
        return rc;
    cs_jpath_key(w, sizeof w, where, "peak_tflops");
    if (!json_is_object(json_object_get(o, "peak_tflops")))
        return cs_err_set(err, CS_EINVAL, w, "expected an object of TFLOP/s per dtype");
    if ((rc = per_dtype(o, where, "peak_tflops", g->peak_tflops, NULL, 0, err)) < 0 ||
        (rc = per_dtype(o, where, "matmul_tflops", g->matmul_tflops, g->matmul_source,
                        sizeof g->matmul_source, err)) < 0)
        return rc;
    for (d = 0; d < CS_DT_COUNT; d++)
        if (g->matmul_tflops[d] > 0 && g->matmul_tflops[d] > g->peak_tflops[d]) {
            char wd[300];
            cs_jpath_key(w, sizeof w, where, "matmul_tflops");
            cs_jpath_key(wd, sizeof wd, w, cs__dtype_names()[d]);
            return cs_err_set(err, CS_EINVAL, wd, "%g TFLOP/s is above the dense peak %g "
                              "(peak_tflops.%s)", g->matmul_tflops[d], g->peak_tflops[d],
                              cs__dtype_names()[d]);
        }
    {
        const char *ck = NULL;
        if ((rc = cs_json_string(o, where, "checked_against", 0, &ck, err)) < 0)
            return rc;
        if (ck && strlen(ck) >= sizeof g->checked)
            return cs_err_set(err, CS_EINVAL, where, "checked_against: at most %zu characters, "
                              "got %zu", sizeof g->checked - 1, strlen(ck));
        snprintf(g->checked, sizeof g->checked, "%s", ck ? ck : "");
    }
    {
        json_t *c;
        const char *src = NULL;
        static const char *const ckeys[] = {"scale", "logs", NULL};
        if ((rc = cs_json_object(o, where, "calibrated", 0, &c, err)) < 0)
            return rc;
        if (c) {
            cs_jpath_key(w, sizeof w, where, "calibrated");
            if ((rc = cs_json_check_keys(c, w, ckeys, NULL, err)) < 0 ||
                (rc = cs_json_range(c, w, "scale", 1, 1e-3, 1e3, "", &g->calib_scale,
                                    err)) < 0 ||
                (rc = cs_json_string(c, w, "logs", 1, &src, err)) < 0)
                return rc;
            snprintf(g->calib_source, sizeof g->calib_source, "%s", src);
        }
    }
    return 0;
}
