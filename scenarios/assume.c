/* assume.c: the compute assumptions of a plan's result (scenarios layer; compute.h): the
 * header lines "# compute: ..." and the JSON object assumptions.compute - which kernels,
 * where each compute figure comes from (measured, assumed, calibrated), which GPUs were
 * checked against published runs, and the SM contention added. report.c prints them with
 * every result; explain.c's tables rest on the same figures. */
#include "scenarios/compute.h"

#include <jansson.h>
#include <stdio.h>

void cs_plan_compute_text(FILE *f, const cs_plan *p, const cs_plan_result *r)
{
    cs_compute_about a;
    cs_plan_compute_about(p, &a);
    fprintf(f, "# compute: %s kernels, GEMMs at most %.0f TFLOP/s %s (%s), attention %s "
            "(%s), math held at %.2f (%s)%s\n", p->eager ? "eager PyTorch" : "fused",
            a.matmul_tflops, cs_pdtype_name(p->dtype), a.matmul_measured ? "measured"
            : "not measured: an assumed fraction of the peak", a.attn ? a.attn->kernel
            : "estimated", a.attn_measured ? "measured" : "not measured: from the matmul rate",
            p->gpu.sustained, p->gpu.sustained_source[0] ? "preset" : "assumed",
            p->dtype == CS_DT_FP8 ? p->fp8_recipe == CS_FP8_CURRENT ? ", FP8 current scaling"
            : p->fp8_recipe == CS_FP8_MXFP8 ? ", MXFP8" : ", FP8 delayed scaling" : "");
    fprintf(f, "# compute figures of %s: %s; %s\n", p->gpu.name, p->gpu.calib_scale > 0
            ? "calibrated on the user's runs" : "not calibrated", p->gpu.checked[0]
            ? p->gpu.checked : "never checked against a training run on this GPU");
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
    json_object_set_new(o, "comm_sm_share", json_real(r->comm_sm_share));
    json_object_set_new(o, "comm_sm_extra_s", json_real(r->comm_sm_extra_s));
    return o;
}
