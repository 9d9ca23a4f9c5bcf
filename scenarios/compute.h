/* compute.h: the compute of a training plan, kernel by kernel (scenarios layer).
 * kernels.c lists the kernels a framework runs for one transformer layer, one microbatch,
 * on one GPU (GEMMs at their shapes after the TP/SP/CP/EP split, the attention kernel,
 * norms, activations, rotary, residual adds, FP8 casts, MoE routing and grouped expert
 * GEMMs), and the embedding, logits and loss of the first and last stages; compute.c times
 * each on the plan's GPU with a roofline of the chip's achievable figures (gpu.c): GEMMs at
 * the measured matmul ceiling quantized by tiles and waves, attention at the kernel's
 * measured forward/backward TFLOP/s by head dimension and sequence, elementwise kernels at
 * the achievable HBM bandwidth, and a fixed cost per kernel (docs/plans.md "Compute"). */
#ifndef CS_SCENARIOS_COMPUTE_H
#define CS_SCENARIOS_COMPUTE_H

#include "scenarios/plan.h"

typedef enum cs_kkind { CS_K_GEMM, CS_K_ATTN, CS_K_ELEM } cs_kkind;

/* One kernel of a layer (per call; count calls per layer and microbatch). */
typedef struct cs_kernel {
    char name[24];           /* "qkv", "attention", "fc1", "norm", ... */
    cs_kkind kind;
    double count;            /* calls per layer per microbatch (local experts of a grouped
                                GEMM: one launch, count groups) */
    int grouped;             /* a grouped GEMM: count groups in one launch */
    double m, k, n;          /* GEMM (m x k) x (k x n); attention: m = query tokens x heads,
                                k = head dim (QK), n = key tokens each query sees */
    double fwd_flops, bwd_flops;  /* per call */
    double fwd_bytes, bwd_bytes;  /* HBM traffic per call */
    int fp8;                 /* the GEMM runs in FP8 (Transformer Engine) */
    int tp_overlap;          /* a dense GEMM TP communication can hide behind */
    /* filled by cs_kernel_time */
    double fwd_s, bwd_s;     /* per call, seconds */
    const char *fwd_bound, *bwd_bound;  /* "compute", "memory" or "launch" */
} cs_kernel;

/* Most kernels of one layer. */
#define CS_LAYER_KERNELS 40

/* What to list: a dense layer, a MoE layer, the first stage's embedding, the last stage's
 * logits and loss. */
typedef enum cs_kpart { CS_KP_DENSE, CS_KP_MOE, CS_KP_EMBED, CS_KP_HEAD } cs_kpart;

/* The kernels of part for one microbatch on one GPU of plan p, timed; returns their count
 * (<= CS_LAYER_KERNELS). */
int cs_plan_kernels(const cs_plan *p, cs_kpart part, cs_kernel *out);

/* The attention kernel plan p runs ("" = the GPU's first) and, in *from (may be NULL), why:
 * train.attention_kernel, Transformer Engine's default (cuDNN on Hopper and later, with
 * fused kernels) or the GPU's first. */
const char *cs_plan_attn_kernel(const cs_plan *p, const char **from);

/* Time one kernel on p's GPU (fills fwd_s, bwd_s and the bounds). */
void cs_kernel_time(const cs_plan *p, cs_kernel *k);
/* A GEMM (m x k) x (k x n) in dtype d (fp8 1: FP8 inputs) on g: seconds, and which bound. */
double cs_gemm_s(const cs_gpu *g, cs_pdtype d, double m, double k, double n, double count,
                 int grouped, const char **bound);
/* An elementwise kernel moving bytes: seconds (bytes at the achievable HBM bandwidth, or
 * the fixed kernel cost). */
double cs_elem_s(const cs_gpu *g, double bytes, const char **bound);

/* The sums the step simulation uses, per layer per microbatch (s). */
typedef struct cs_layer_times {
    double fwd, bwd;         /* every kernel */
    double core_fwd;         /* the attention kernel's forward (selective recompute, CP) */
    double tp_gemm_fwd;      /* the dense GEMMs TP communication can hide behind */
} cs_layer_times;
/* Sums over the kernels of one part. */
void cs_plan_part_times(const cs_plan *p, cs_kpart part, cs_layer_times *t);
/* The mean layer of the model (the dense first layers of a MoE model and its MoE layers
 * weighted by their counts). */
void cs_plan_layer_times(const cs_plan *p, cs_layer_times *t);

/* Where the compute figures of p's GPU come from, for the output (one line each). */
typedef struct cs_compute_about {
    double matmul_tflops;    /* the GEMM ceiling of the plan's dtype */
    int matmul_measured;
    double attn_fwd_tflops, attn_bwd_tflops;
    int attn_measured;
    const cs_attn_kernel *attn; /* the kernel behind them (NULL: estimated) */
    const char *attn_from;   /* why that kernel (cs_plan_attn_kernel) */
    double hbm_GBps;         /* achievable: hbm_GBps x mem_eff */
    double kernel_us;
} cs_compute_about;
void cs_plan_compute_about(const cs_plan *p, cs_compute_about *a);

/* `collsim plan --explain` (explain.c): the kernels of each part of the model with their
 * shapes, FLOPs, bytes, bounds and times, the GPU figures behind them, and the step's
 * breakdown; text, or JSON {"gpu", "kernels": {part: [...]}, "plan"}. */
void cs_plan_print_explain(FILE *f, const cs_plan *p, const cs_plan_result *r);
int cs_plan_print_explain_json(FILE *f, const cs_plan *p, const cs_plan_result *r);

/* The compute assumptions of a plan's result (explain.c): header lines "# compute: ..." and
 * the JSON object assumptions.compute - kernels, where each figure comes from (measured,
 * assumed, calibrated), which GPUs were checked against published runs, SM contention. */
void cs_plan_compute_text(FILE *f, const cs_plan *p, const cs_plan_result *r);
struct json_t;
struct json_t *cs_plan_compute_json(const cs_plan *p, const cs_plan_result *r);

#endif
