/* explain.c: `collsim plan --explain` (scenarios layer): the compute twin of `collsim
 * explain` - every kernel of one layer (and of the first and last stages' extras) for one
 * microbatch on one GPU, with its shape, FLOPs, bytes, bound and time forward and
 * backward, its share of the layer; where the compute figures come from; and where the
 * step's time goes (the breakdown of the simulated step). */
#include "scenarios/compute.h"
#include "scenarios/model-private.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *const part_names[] = {"dense layer", "MoE layer", "embedding (first stage)",
                                         "output layer and loss (last stage)"};
static const char *const part_keys[] = {"dense_layer", "moe_layer", "embedding", "head"};
static const char *const kind_names[] = {"gemm", "attention", "elementwise"};

/* The parts the model has: its layers' kinds, then the extras. */
static int parts_of(const cs_plan *p, cs_kpart out[4])
{
    const cs_llm *M = &p->model;
    int n = 0;
    if (M->experts == 0 || M->dense_layers > 0)
        out[n++] = CS_KP_DENSE;
    if (M->experts > 0)
        out[n++] = CS_KP_MOE;
    out[n++] = CS_KP_EMBED;
    out[n++] = CS_KP_HEAD;
    return n;
}

static void shape(char *buf, size_t n, const cs_kernel *k)
{
    if (k->kind == CS_K_GEMM)
        snprintf(buf, n, "%.0fx%.0fx%.0f%s", k->m, k->k, k->n, k->fp8 ? " fp8" : "");
    else if (k->kind == CS_K_ATTN)
        snprintf(buf, n, "%.0f q x %.0f k, d %.0f", k->m, k->n, k->k);
    else
        snprintf(buf, n, "-");
}

static void about_text(FILE *f, const cs_plan *p)
{
    cs_compute_about a;
    cs_plan_compute_about(p, &a);
    fprintf(f, "# GPU %s: GEMMs at most %.1f TFLOP/s %s (%s); attention %s %.0f / %.0f "
            "TFLOP/s forward / backward (%s); elementwise at %.0f GB/s; %.1f us a kernel\n",
            p->gpu.name, a.matmul_tflops, cs_pdtype_name(p->dtype),
            a.matmul_measured ? "measured: matmul_tflops" : "not measured: peak x gemm_eff_max",
            a.attn ? a.attn->kernel : "kernel", a.attn_fwd_tflops, a.attn_bwd_tflops,
            a.attn_measured ? "measured" : "not measured: estimated from the matmul ceiling",
            a.hbm_GBps, a.kernel_us);
    fprintf(f, "# math held at %.2f of those rates over a run (%s)\n", p->gpu.sustained,
            p->gpu.sustained_source[0] ? p->gpu.sustained_source
                                       : "assumed: no figure for this GPU");
    if (p->gpu.calib_scale > 0)
        fprintf(f, "# calibrated: compute figures x %.3f from %s\n", p->gpu.calib_scale,
                p->gpu.calib_source);
}

void cs_plan_print_explain(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    cs_kpart parts[4];
    cs_kernel ks[CS_LAYER_KERNELS];
    int np = parts_of(p, parts), i, j;
    fprintf(f, "# plan --explain: compute of one microbatch (%d x %d tokens / cp %d) on one "
            "GPU, tp %d%s, %s%s\n", p->micro_batch, p->model.seq_len, p->cp, p->tp,
            p->sp && p->tp > 1 ? " with sequence parallelism" : "", cs_pdtype_name(p->dtype),
            p->dtype == CS_DT_FP8 ? " (Transformer Engine: linear layers in FP8, attention "
            "and the output layer in BF16)" : "");
    about_text(f, p);
    for (j = 0; j < np; j++) {
        int n = cs_plan_kernels(p, parts[j], ks);
        double tf = 0, tb = 0;
        for (i = 0; i < n; i++)
            tf += ks[i].count * ks[i].fwd_s, tb += ks[i].count * ks[i].bwd_s;
        fprintf(f, "\n## %s: forward %.1f us, backward %.1f us\n", part_names[parts[j]],
                tf * 1e6, tb * 1e6);
        fprintf(f, "%-16s %-11s %-26s %6s %10s %10s %-8s %10s %-8s %10s %6s\n", "kernel", "kind",
                "shape (m x k x n)", "calls", "fwd GFLOP", "fwd MB", "fwd", "fwd us",
                "bwd", "bwd us", "share");
        for (i = 0; i < n; i++) {
            char sh[64];
            const cs_kernel *k = &ks[i];
            shape(sh, sizeof sh, k);
            fprintf(f, "%-16s %-11s %-26s %6.0f %10.3f %10.2f %-8s %10.1f %-8s %10.1f %5.1f%%\n",
                    k->name, kind_names[k->kind], sh, k->count, k->count * k->fwd_flops / 1e9,
                    k->count * k->fwd_bytes / 1e6, k->fwd_bound, k->count * k->fwd_s * 1e6,
                    k->bwd_bound, k->count * k->bwd_s * 1e6,
                    tf + tb > 0 ? 100 * k->count * (k->fwd_s + k->bwd_s) / (tf + tb) : 0);
        }
    }
    fprintf(f, "\n## where the step's %.4f s go (stage %d, simulated)\n", r->step_time_s,
            r->step.report_stage);
    for (i = 0; i < 10; i++)
        fprintf(f, "%-20s %10.4f s %6.1f%%\n", cs_plan_breakdown_names[i], r->breakdown_s[i],
                r->step_time_s > 0 ? 100 * r->breakdown_s[i] / r->step_time_s : 0);
}

int cs_plan_print_explain_json(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    json_t *root = json_object(), *parts = json_object(), *gpu = json_object();
    cs_kpart pk[4];
    cs_kernel ks[CS_LAYER_KERNELS];
    cs_compute_about a;
    int np = parts_of(p, pk), i, j;
    cs_plan_compute_about(p, &a);
    json_object_set_new(gpu, "name", json_string(p->gpu.name));
    json_object_set_new(gpu, "matmul_tflops", json_real(a.matmul_tflops));
    json_object_set_new(gpu, "matmul_measured", json_boolean(a.matmul_measured));
    json_object_set_new(gpu, "attention_kernel", json_string(a.attn ? a.attn->kernel
                                                                  : "estimated"));
    json_object_set_new(gpu, "attention_fwd_tflops", json_real(a.attn_fwd_tflops));
    json_object_set_new(gpu, "attention_bwd_tflops", json_real(a.attn_bwd_tflops));
    json_object_set_new(gpu, "attention_measured", json_boolean(a.attn_measured));
    json_object_set_new(gpu, "hbm_achievable_GBps", json_real(a.hbm_GBps));
    json_object_set_new(gpu, "kernel_us", json_real(a.kernel_us));
    json_object_set_new(gpu, "sustained_clock", json_real(p->gpu.sustained));
    json_object_set_new(gpu, "calibrated_scale", json_real(p->gpu.calib_scale));
    for (j = 0; j < np; j++) {
        int n = cs_plan_kernels(p, pk[j], ks);
        json_t *arr = json_array();
        for (i = 0; i < n; i++) {
            const cs_kernel *k = &ks[i];
            json_t *o = json_object();
            json_object_set_new(o, "name", json_string(k->name));
            json_object_set_new(o, "kind", json_string(kind_names[k->kind]));
            json_object_set_new(o, "m", json_real(k->m));
            json_object_set_new(o, "k", json_real(k->k));
            json_object_set_new(o, "n", json_real(k->n));
            json_object_set_new(o, "calls", json_real(k->count));
            json_object_set_new(o, "fp8", json_boolean(k->fp8));
            json_object_set_new(o, "fwd_flops", json_real(k->count * k->fwd_flops));
            json_object_set_new(o, "bwd_flops", json_real(k->count * k->bwd_flops));
            json_object_set_new(o, "fwd_bytes", json_real(k->count * k->fwd_bytes));
            json_object_set_new(o, "bwd_bytes", json_real(k->count * k->bwd_bytes));
            json_object_set_new(o, "fwd_s", json_real(k->count * k->fwd_s));
            json_object_set_new(o, "bwd_s", json_real(k->count * k->bwd_s));
            json_object_set_new(o, "fwd_bound", json_string(k->fwd_bound));
            json_object_set_new(o, "bwd_bound", json_string(k->bwd_bound));
            json_array_append_new(arr, o);
        }
        json_object_set_new(parts, part_keys[pk[j]], arr);
    }
    json_object_set_new(root, "gpu", gpu);
    json_object_set_new(root, "kernels", parts);
    json_object_set_new(root, "plan", cs__plan_json(p, r));
    return cs__plan_json_dump(f, root);
}
