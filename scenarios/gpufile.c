/* gpufile.c: GPU objects as files (scenarios layer): `--gpu FILE.json` reads one with the
 * keys of system.gpu (gpu.c), and `plan calibrate --output GPU.json` writes one, its
 * compute figures scaled and "calibrated": {"scale", "logs"} saying so. */
#include "scenarios/trainlog.h"
#include "scenarios/model-private.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int cs_gpu_load(const char *path, cs_gpu *out, cs_err *err)
{
    json_error_t je;
    json_t *root;
    struct stat st;
    char where[1100], name[64];
    const char *base = strrchr(path, '/');
    size_t n;
    int rc;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cs_err_set(err, CS_EIO, path, "is a directory, expected a GPU object file");
    if (!(root = json_load_file(path, 0, &je))) {
        if (je.line < 0 || stat(path, &st) != 0)
            return cs_err_set(err, CS_EIO, path, "cannot read: %s", je.text);
        snprintf(where, sizeof where, "%s:%d:%d", path, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    base = base ? base + 1 : path;
    n = strlen(base);
    if (n > 5 && !strcmp(base + n - 5, ".json"))
        n -= 5;
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), base);
    rc = cs__gpu_from_json(root, "", name, out, err);
    json_decref(root);
    if (rc < 0)
        cs_err_prefix(err, path);
    return rc;
}

/* {"bf16": x, ...} of the dtypes with a dense peak; matmul figures above the peak are
 * written as the peak (cs__gpu_from_json refuses them) and counted in *capped. */
static json_t *per_dtype(const cs_gpu *g, const double *v, int cap, int *capped)
{
    const char *const *names = cs__dtype_names();
    json_t *o = json_object();
    int d;
    for (d = 0; o && d < CS_DT_COUNT; d++) {
        double x = v[d];
        if (g->peak_tflops[d] <= 0 || x <= 0)
            continue;
        if (cap && x > g->peak_tflops[d]) {
            x = g->peak_tflops[d];
            ++*capped;
        }
        json_object_set_new(o, names[d], json_real(x));
    }
    return o;
}

int cs_gpu_print_json(FILE *f, const cs_gpu *g, const char *description)
{
    json_t *root = json_object(), *mm, *att = json_array(), *gm = json_object(), *c;
    double matmul[CS_DT_COUNT];
    int d, capped = 0, rc;
    if (!root || !att || !gm) {
        json_decref(root);
        json_decref(att);
        json_decref(gm);
        return CS_ENOMEM;
    }
    for (d = 0; d < CS_DT_COUNT; d++)
        matmul[d] = cs_gpu_matmul_tflops(g, (cs_pdtype)d, NULL);
    if (description)
        json_object_set_new(root, "description", json_string(description));
    json_object_set_new(root, "peak_tflops", per_dtype(g, g->peak_tflops, 0, &capped));
    mm = per_dtype(g, matmul, 1, &capped);
    if (g->matmul_source[0])
        json_object_set_new(mm, "source", json_string(g->matmul_source));
    json_object_set_new(root, "matmul_tflops", mm);
    json_object_set_new(root, "gemm_eff_max", json_real(g->gemm_eff_max));
    if (g->sm_count > 0)
        json_object_set_new(gm, "sm_count", json_integer(g->sm_count));
    json_object_set_new(gm, "tile", json_pack("[ii]", g->tile_m, g->tile_n));
    json_object_set_new(root, "gemm", gm);
    for (d = 0; d < g->n_attn; d++)
        json_array_append_new(att, json_pack("{s:s, s:f, s:f, s:s}", "kernel",
                                             g->attn[d].kernel, "fwd_tflops",
                                             g->attn[d].fwd_tflops, "bwd_tflops",
                                             g->attn[d].bwd_tflops, "source",
                                             g->attn[d].source));
    if (g->n_attn)
        json_object_set_new(root, "attention", att);
    else
        json_decref(att);
    json_object_set_new(root, "hbm_GB", json_real(g->hbm_GB));
    json_object_set_new(root, "hbm_GBps", json_real(g->hbm_GBps));
    json_object_set_new(root, "mem_eff", json_real(g->mem_eff));
    json_object_set_new(root, "kernel_us", json_real(g->kernel_us));
    if (g->power_tdp_W > 0)
        json_object_set_new(root, "power_W", json_pack("{s:f, s:f, s:s}", "idle",
                            g->power_idle_W, "tdp", g->power_tdp_W, "source",
                            g->power_source));
    if (g->calib_scale > 0) {
        c = json_pack("{s:f, s:s}", "scale", g->calib_scale, "logs", g->calib_source[0]
                      ? g->calib_source : "(not recorded)");
        json_object_set_new(root, "calibrated", c);
    }
    rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (rc < 0 || fputc('\n', f) == EOF)
        return CS_EIO;
    return capped;
}
