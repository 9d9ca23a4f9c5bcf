/* assume.c: the compute assumptions of a plan's result (scenarios layer; compute.h): the
 * header lines "# compute: ..." and the JSON object assumptions.compute - which kernels,
 * where each compute figure comes from (measured, assumed, calibrated), which GPUs were
 * checked against published runs, and the SM contention added. report.c prints them with
 * every result; explain.c's tables rest on the same figures. */
#include "scenarios/compute.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* A MoE layer's forward as the host launches it: kernel launches (each local expert's GEMMs
 * and casts one launch each, as Transformer Engine's grouped linear issues them) and the
 * mean GPU time a launch. 0 launches without experts. */
static double moe_launches(const cs_plan *p, double *us_each)
{
    cs_kernel k[CS_LAYER_KERNELS];
    int i, n;
    double calls = 0, s = 0;
    *us_each = 0;
    if (p->model.experts <= 0)
        return 0;
    n = cs_plan_kernels(p, CS_KP_MOE, k);
    for (i = 0; i < n; i++)
        if (k[i].fwd_s > 0)
            calls += k[i].count, s += k[i].count * k[i].fwd_s;
    *us_each = calls > 0 ? 1e6 * s / calls : 0;
    return calls;
}

void cs_plan_compute_text(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    cs_compute_about a;
    cs_plan_compute_about(p, &a);
    fprintf(f, "# compute: %s kernels, GEMMs at most %.0f TFLOP/s %s (%s), attention %s "
            "(%s%s%s), math held at %.2f (%s)%s\n", p->eager ? "eager PyTorch" : "fused",
            a.matmul_tflops, cs_pdtype_name(p->dtype), a.matmul_measured ? "measured"
            : "not measured: an assumed fraction of the peak", a.attn ? a.attn->kernel
            : "estimated", a.attn_measured ? "measured" : "not measured: from the matmul rate",
            strncmp(a.attn_from, "Transformer", 11) ? "" : "; ",
            strncmp(a.attn_from, "Transformer", 11) ? "" : a.attn_from,
            p->gpu.sustained, p->gpu.sustained_source[0] ? "preset" : "assumed",
            p->dtype == CS_DT_FP8 ? p->fp8_recipe == CS_FP8_CURRENT ? ", FP8 current scaling"
            : p->fp8_recipe == CS_FP8_MXFP8 ? ", MXFP8" : ", FP8 delayed scaling" : "");
    fprintf(f, "# compute figures of %s: %s; %s\n", p->gpu.name, p->gpu.calib_scale > 0
            ? "calibrated on the user's runs" : "not calibrated", p->gpu.checked[0]
            ? p->gpu.checked : "never checked against a training run on this GPU");
    {
        double us, n = moe_launches(p, &us);
        if (n > 0)
            fprintf(f, "# host: a MoE layer's forward is %.0f kernel launches of %.1f us of GPU "
                    "work each on average; the host's side (router bookkeeping, the "
                    "dispatcher's device-to-host sync of token counts, per-expert launches; "
                    "CUDA graphs) is not modelled: where it sets the pace the step is longer "
                    "(ACCURACY.md, Megatron-Bridge's MoE rows)\n", n, us);
    }
    if (r->comm_sm_share > 0 && r->comm_sm_extra_s > 0)
        fprintf(f, "# SM contention: NCCL holds %.0f%% of the SMs while DP communication "
                "overlaps compute (+%.3g s a step)\n", 100 * r->comm_sm_share,
                r->comm_sm_extra_s);
}

json_t *cs_plan_compute_json(const cs_plan *p, const cs_plan_result *r)
{
    json_t *o = json_object();
    cs_compute_about a;
    cs_plan_compute_about(p, &a);
    json_object_set_new(o, "kernels", json_string(p->eager ? "eager" : "fused"));
    json_object_set_new(o, "loss", json_string(p->loss_pytorch ? "pytorch" : "fused"));
    json_object_set_new(o, "matmul_tflops", json_real(a.matmul_tflops));
    json_object_set_new(o, "matmul_from", json_string(a.matmul_measured ? p->gpu.matmul_source
                                                      : "assumed: peak x gemm_eff_max"));
    json_object_set_new(o, "attention_kernel", json_string(a.attn ? a.attn->kernel
                                                           : "estimated"));
    json_object_set_new(o, "attention_kernel_from", json_string(a.attn_from));
    json_object_set_new(o, "attention_from", json_string(a.attn ? a.attn->source
                        : "estimated from the matmul rate (0.55 / 0.45)"));
    json_object_set_new(o, "sustained_clock", json_real(p->gpu.sustained));
    json_object_set_new(o, "sustained_from", json_string(p->gpu.sustained_source[0]
                                                         ? p->gpu.sustained_source : "assumed"));
    if (p->dtype == CS_DT_FP8)
        json_object_set_new(o, "fp8_recipe", json_string(cs_fp8_recipe_name(p->fp8_recipe)));
    json_object_set_new(o, "calibrated", p->gpu.calib_scale > 0 ? json_real(p->gpu.calib_scale)
                                                                : json_false());
    json_object_set_new(o, "checked_against", json_string(p->gpu.checked[0] ? p->gpu.checked
                        : "never checked against a training run on this GPU"));
    {
        double us, n = moe_launches(p, &us);
        if (n > 0) {
            json_object_set_new(o, "moe_fwd_launches", json_real(n));
            json_object_set_new(o, "moe_us_per_launch", json_real(us));
            json_object_set_new(o, "host_dispatch", json_string("not modelled"));
        }
    }
    json_object_set_new(o, "comm_sm_share", json_real(r->comm_sm_share));
    json_object_set_new(o, "comm_sm_extra_s", json_real(r->comm_sm_extra_s));
    return o;
}
