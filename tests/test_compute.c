/* test_compute.c: the compute of training plans kernel by kernel (issue 26): a GEMM's
 * roofline time with tile and wave quantization by hand, an elementwise kernel, the
 * attention kernel's FLOPs and its causal keys, an FP8 layer (which GEMMs run in FP8 and
 * the casts around them), eager against fused kernels, GPU objects refusing what they
 * cannot mean, and the sums the step simulation uses. Every number is derived in the
 * comment above its check. */
#include "scenarios/compute.h"
#include "scenarios/model-private.h"
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* A GPU whose figures make hand arithmetic easy: 80 TFLOP/s bf16 matmul ceiling (peak 100),
 * 160 fp8 (peak 200), 4 SMs, 128 x 128 tiles, HBM 1000 GB/s all achievable, no fixed cost
 * per kernel, the rates held in full; attention 40 / 20 TFLOP/s. */
static const char *const GPU =
    "{\"peak_tflops\": {\"bf16\": 100, \"fp8\": 200}, \"matmul_tflops\": {\"bf16\": 80, "
    "\"fp8\": 160, \"source\": \"test\"}, \"gemm\": {\"sm_count\": 4, \"tile\": [128, 128]}, "
    "\"attention\": [{\"kernel\": \"fa\", \"fwd_tflops\": 40, \"bwd_tflops\": 20, "
    "\"source\": \"test\"}], \"hbm_GB\": 80, \"hbm_GBps\": 1000, \"mem_eff\": 1, "
    "\"kernel_us\": 0, \"sustained\": {\"clock\": 1, \"source\": \"test\"}}";

static void gpu_of(const char *json, cs_gpu *g, int want_rc, const char *where)
{
    json_t *o = json_loads(json, 0, NULL);
    cs_err err;
    int rc;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    cs_err_clear(&err);
    rc = cs__gpu_from_json(o, "gpu", "test", g, &err);
    CU_ASSERT_EQUAL(rc, want_rc);
    if (where)
        CU_ASSERT_STRING_EQUAL(err.where, where);
    json_decref(o);
}

/* 256 x 1024 x 256: 2 x 2 = 4 tiles of 128 x 128 fill the 4 SMs in one wave, the reduction
 * runs at 1024 / (1024 + 64): t = 2 x 256 x 1024 x 256 / (80e12 x 1024 / 1088) =
 * 1.7825792e-6 s (half tiles, 64 x 64: 16 tiles, 4 full waves, at 0.85 of the rate: slower);
 * its bytes 2 (256 x 1024 x 2 + 256 x 256) = 1179648 take 1.18e-6 s, less. 200 rows
 * instead of 256 pad to the same 4 tiles: the same time (tile quantization). 640 x 1024 x
 * 128: 5 big tiles make 2 waves on 4 SMs (5/8 busy); the half tiles, 10 x 2 = 20, make 5
 * full waves at 0.85: t = 2 x 640 x 1024 x 128 / (80e12 x 0.85 x 1024/1088), the faster.
 * 16 x 64 x 16: a 64 x 64 tile 1/16 filled on 1 of 4 SMs (k 64 is too short to split),
 * k 64/128, at 0.85: 32768 FLOPs at 80e12 x 0.85 / 128 = 6.168094e-8 s. 4096 x 8 x 4096
 * moves 2 (2 x 4096 x 8 + 4096^2) = 33685504 bytes, 3.3685504e-5 s, more than its 268435456
 * FLOPs at 80e12 x 8/72 (3.02e-5 s): memory bound. */
static void t_gemm_roofline(void)
{
    cs_gpu g;
    const char *b;
    gpu_of(GPU, &g, 0, NULL);
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 256, 1024, 256, 1, 0, &b), 1.7825792e-6, 1e-12);
    CU_ASSERT_STRING_EQUAL(b, "compute");
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 200, 1024, 256, 1, 0, &b), 1.7825792e-6, 1e-12);
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 640, 1024, 128, 1, 0, &b),
                  2.0 * 640 * 1024 * 128 / (80e12 * 0.85 * 1024 / 1088), 1e-12);
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 16, 64, 16, 1, 0, &b), 32768 / (80e12 * 0.85 / 128),
                  1e-12);
    CU_ASSERT_STRING_EQUAL(b, "compute");
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 4096, 8, 4096, 1, 0, &b), 3.3685504e-5, 1e-12);
    CU_ASSERT_STRING_EQUAL(b, "memory");
    /* FP8 doubles the ceiling and halves the operands' bytes (the result stays 16-bit) */
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_FP8, 256, 1024, 256, 1, 0, &b), 1.7825792e-6 / 2, 1e-12);
    /* a grouped GEMM of 4 groups of 1 tile (HBM made fast, so that compute bounds): the 4
     * tiles share one wave, each group takes a quarter of the SMs' time: 2 x 128 x 1024 x
     * 128 / (80e12 x 1024/1088) */
    g.hbm_GBps = 1e6;
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 128, 1024, 128, 4, 1, &b),
                  2.0 * 128 * 1024 * 128 / (80e12 * 1024 / 1088), 1e-12);
    /* ... where one launch of 1 tile splits its reduction 4 ways over the 4 SMs (split-K),
     * each piece of 256 at 256 / 320: 2 x 128 x 1024 x 128 / (80e12 x 0.8) */
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 128, 1024, 128, 1, 0, &b),
                  2.0 * 128 * 1024 * 128 / (80e12 * 0.8), 1e-12);
    /* a fixed cost per kernel adds once per launch, once for a whole grouped GEMM */
    g.kernel_us = 5;
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 256, 1024, 256, 1, 0, &b), 1.7825792e-6 + 5e-6,
                  1e-12);
    CS_ASSERT_REL(4 * cs_gemm_s(&g, CS_DT_BF16, 128, 1024, 128, 4, 1, &b),
                  4 * 2.0 * 128 * 1024 * 128 / (80e12 * 1024 / 1088) + 5e-6, 1e-12);
    /* elementwise: bytes at the achievable bandwidth, plus the fixed cost */
    g.hbm_GBps = 1000;
    CS_ASSERT_REL(cs_elem_s(&g, 1e6, &b), 1e-6 + 5e-6, 1e-12);
    CU_ASSERT_STRING_EQUAL(b, "launch");
    /* the sustained clock scales every math rate */
    g.kernel_us = 0, g.sustained = 0.5;
    CS_ASSERT_REL(cs_gemm_s(&g, CS_DT_BF16, 256, 1024, 256, 1, 0, &b), 2 * 1.7825792e-6, 1e-12);
}

/* The layer of a plan on the test GPU: h 1024, 8 heads of 128, GPT MLP 4096, s 2048, micro
 * batch 1, tp 1. Attention: causal, a query sees 1024 keys on average: forward 2 T a (qk +
 * v) keys = 2 x 2048 x 8 x 256 x 1024 = 8589934592 FLOPs, backward 2.5 x; at 40 / 20
 * TFLOP/s with head dim 128 (no penalty) and keys 1024: rate x (1024 / 1280) / (8192 /
 * 8448) = 0.825; waves: 2048 x 8 / 128 = 128 query blocks on 4 SMs, full. */
static void plan_on_test_gpu(cs_plan *p, const char *dtype, const char *kernels)
{
    char json[2048];
    cs_err err;
    snprintf(json, sizeof json,
             "{\"model\": {\"layers\": 2, \"hidden\": 1024, \"heads\": 8, \"seq_len\": 2048, "
             "\"vocab\": 1000}, \"train\": {\"global_batch\": 1, \"dtype\": \"%s\", "
             "\"kernels\": \"%s\"}, \"system\": {\"gpu\": %s, \"topo\": {\"kind\": "
             "\"alpha_beta\", \"ranks\": 2, \"link\": {\"bandwidth_GBps\": 100, "
             "\"latency_us\": 1}}}}", dtype, kernels, GPU);
    cs_plan_init(p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "test", p, &err), 0);
}

static const cs_kernel *find(const cs_kernel *ks, int n, const char *name)
{
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(ks[i].name, name))
            return &ks[i];
    return NULL;
}

static void t_attention_kernel(void)
{
    cs_plan p;
    cs_kernel ks[CS_LAYER_KERNELS];
    const cs_kernel *a;
    int n;
    double eff = (1024.0 / 1280) / (8192.0 / 8448);
    plan_on_test_gpu(&p, "bf16", "fused");
    n = cs_plan_kernels(&p, CS_KP_DENSE, ks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a = find(ks, n, "attention"));
    CS_ASSERT_REL(a->fwd_flops, 8589934592.0, 1e-12);
    CS_ASSERT_REL(a->bwd_flops, 2.5 * 8589934592.0, 1e-12);
    CS_ASSERT_REL(a->fwd_s, 8589934592.0 / (40e12 * eff), 1e-9);
    CS_ASSERT_REL(a->bwd_s, 2.5 * 8589934592.0 / (20e12 * eff), 1e-9);
    /* a GPT layer's kernels: norm1, qkv, attention, proj, residual1, norm2, fc1, act, fc2,
     * residual2 - and qkv is 2048 x 1024 x 3072 */
    CU_ASSERT_EQUAL(n, 10);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a = find(ks, n, "qkv"));
    CU_ASSERT(a->m == 2048 && a->k == 1024 && a->n == 3072 && !a->fp8);
    CS_ASSERT_REL(a->fwd_s, cs_gemm_s(&p.gpu, CS_DT_BF16, 2048, 1024, 3072, 1, 0, NULL), 1e-12);
    /* backward: the input gradient (2048 x 3072) x (3072 x 1024) and the weight gradient
     * (1024 x 2048) x (2048 x 3072) */
    CS_ASSERT_REL(a->bwd_s, cs_gemm_s(&p.gpu, CS_DT_BF16, 2048, 3072, 1024, 1, 0, NULL) +
                  cs_gemm_s(&p.gpu, CS_DT_BF16, 1024, 2048, 3072, 1, 0, NULL), 1e-12);
    cs_plan_fini(&p);
}

/* FP8 (Transformer Engine): qkv, proj, fc1, fc2 run in FP8, attention and the output layer
 * in BF16. Casts: proj's input (the attention output, T x a d_h = 2048 x 1024) 3 bytes an
 * element forward (delayed scaling: 6291456 bytes), every FP8 GEMM's output gradient 4
 * bytes an element backward (fc2: 2048 x 1024 x 4 = 8388608); current scaling adds an amax
 * read: 5 and 6 bytes. */
static void t_fp8_layer(void)
{
    cs_plan p;
    cs_kernel ks[CS_LAYER_KERNELS];
    const cs_kernel *k;
    int n;
    plan_on_test_gpu(&p, "fp8", "fused");
    n = cs_plan_kernels(&p, CS_KP_DENSE, ks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k = find(ks, n, "fc1"));
    CU_ASSERT(k->fp8);
    CS_ASSERT_REL(k->fwd_s, cs_gemm_s(&p.gpu, CS_DT_FP8, 2048, 1024, 4096, 1, 0, NULL), 1e-12);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k = find(ks, n, "proj.cast"));
    CS_ASSERT_REL(k->fwd_bytes, 6291456.0, 1e-12);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k = find(ks, n, "fc2.cast"));
    CS_ASSERT_REL(k->fwd_bytes + 1, 1, 1e-12);         /* the activation writes FP8 itself */
    CS_ASSERT_REL(k->bwd_bytes, 8388608.0, 1e-12);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k = find(ks, n, "attention"));
    CU_ASSERT(!k->fp8);
    n = cs_plan_kernels(&p, CS_KP_HEAD, ks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k = find(ks, n, "logits"));
    CU_ASSERT(!k->fp8);
    p.fp8_recipe = CS_FP8_CURRENT;
    n = cs_plan_kernels(&p, CS_KP_DENSE, ks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k = find(ks, n, "proj.cast"));
    CS_ASSERT_REL(k->fwd_bytes, 5.0 * 2048 * 1024, 1e-12);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k = find(ks, n, "fc2.cast"));
    CS_ASSERT_REL(k->bwd_bytes, 6.0 * 2048 * 1024, 1e-12);
    cs_plan_fini(&p);
}

/* Eager PyTorch against fused kernels on a LLaMA-style layer: RMSNorm as 6 ops moving 36
 * bytes an element (fused: 4), rotary as 4 ops moving 5 x the fused bytes; the GEMMs and
 * attention are the same. */
static void t_eager_kernels(void)
{
    cs_plan p;
    cs_kernel f[CS_LAYER_KERNELS], e[CS_LAYER_KERNELS];
    const cs_kernel *a, *b;
    int nf, ne;
    plan_on_test_gpu(&p, "bf16", "fused");
    p.model.gated_mlp = 1;
    nf = cs_plan_kernels(&p, CS_KP_DENSE, f);
    p.eager = 1;
    ne = cs_plan_kernels(&p, CS_KP_DENSE, e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a = find(f, nf, "norm1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(b = find(e, ne, "norm1"));
    CU_ASSERT(a->count == 1 && b->count == 6);
    CS_ASSERT_REL(b->count * b->fwd_bytes, 9 * a->fwd_bytes, 1e-12);
    CS_ASSERT_REL(a->fwd_bytes, 2.0 * 2 * 2048 * 1024, 1e-12);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a = find(f, nf, "rotary"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(b = find(e, ne, "rotary"));
    CS_ASSERT_REL(b->count * b->fwd_bytes, 5 * a->fwd_bytes, 1e-12);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a = find(f, nf, "fc1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(b = find(e, ne, "fc1"));
    CU_ASSERT_DOUBLE_EQUAL(a->fwd_s, b->fwd_s, 0);
    cs_plan_fini(&p);
}

/* GPU objects: a matmul figure above the peak, the retired gemm_half_GFLOP, a tile that is
 * not two numbers, an attention kernel named twice, a sustained clock above 1 - each
 * refused at its path; a plan naming an attention kernel the GPU has no figures for is
 * refused naming train.attention_kernel and listing the GPU's kernels. */
static void t_gpu_refusals(void)
{
    cs_gpu g;
    cs_plan p;
    cs_err err;
    gpu_of("{\"peak_tflops\": {\"bf16\": 100}, \"matmul_tflops\": {\"bf16\": 120}, "
           "\"hbm_GB\": 1, \"hbm_GBps\": 1}", &g, CS_EINVAL, "gpu.matmul_tflops.bf16");
    gpu_of("{\"peak_tflops\": {\"bf16\": 100}, \"gemm_half_GFLOP\": 1, \"hbm_GB\": 1, "
           "\"hbm_GBps\": 1}", &g, CS_EINVAL, "gpu.gemm_half_GFLOP");
    gpu_of("{\"peak_tflops\": {\"bf16\": 100}, \"gemm\": {\"tile\": [128]}, \"hbm_GB\": 1, "
           "\"hbm_GBps\": 1}", &g, CS_EINVAL, "gpu.gemm.tile");
    gpu_of("{\"peak_tflops\": {\"bf16\": 100}, \"attention\": [{\"kernel\": \"a\", "
           "\"fwd_tflops\": 1, \"bwd_tflops\": 1, \"source\": \"x\"}, {\"kernel\": \"a\", "
           "\"fwd_tflops\": 1, \"bwd_tflops\": 1, \"source\": \"x\"}], \"hbm_GB\": 1, "
           "\"hbm_GBps\": 1}", &g, CS_EINVAL, "gpu.attention[1]");
    gpu_of("{\"peak_tflops\": {\"bf16\": 100}, \"sustained\": {\"clock\": 1.5, \"source\": "
           "\"x\"}, \"hbm_GB\": 1, \"hbm_GBps\": 1}", &g, CS_EINVAL, "gpu.sustained.clock");
    plan_on_test_gpu(&p, "bf16", "fused");
    snprintf(p.attn_kernel, sizeof p.attn_kernel, "fa3");
    cs_err_clear(&err);
    CU_ASSERT_EQUAL(cs_plan_check(&p, 0, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "train.attention_kernel");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "it has: fa"));
    cs_plan_fini(&p);
    /* without figures the attention is estimated from the matmul ceiling: 0.55 / 0.45 */
    gpu_of("{\"peak_tflops\": {\"bf16\": 100}, \"matmul_tflops\": {\"bf16\": 80}, "
           "\"hbm_GB\": 1, \"hbm_GBps\": 1}", &g, 0, NULL);
    CS_ASSERT_REL(cs_gpu_attn_tflops(&g, NULL, 0, NULL), 44, 1e-12);
    CS_ASSERT_REL(cs_gpu_attn_tflops(&g, NULL, 1, NULL), 36, 1e-12);
}

/* The plan keys of this round, refused at their path: an unknown kernels mode or FP8
 * recipe, a recompute share without full recompute or outside (0, 1]. */
static void t_train_refusals(void)
{
    static const struct { const char *train, *where; } bad[] = {
        {"\"kernels\": \"xla\"", "train.kernels"},
        {"\"fp8_recipe\": \"e5m2\"", "train.fp8_recipe"},
        {"\"recompute_fraction\": 0.5", "train.recompute_fraction"},
        {"\"recompute\": \"full\", \"recompute_fraction\": 1.5", "train.recompute_fraction"},
        {"\"attention_kernel\": 3", "train.attention_kernel"}};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[512];
        cs_plan p;
        cs_err err;
        snprintf(json, sizeof json, "{\"model\": \"gpt-1.7b\", \"train\": {\"global_batch\": 8, "
                 "%s}, \"system\": {\"gpu\": \"h100-sxm\", \"topo\": \"dgx-h100\"}}",
                 bad[i].train);
        cs_plan_init(&p);
        cs_err_clear(&err);
        CU_ASSERT(cs_plan_parse(json, "test", &p, &err) < 0);
        CU_ASSERT_STRING_EQUAL(err.where, bad[i].where);
        cs_plan_fini(&p);
    }
}

/* The sums: the layer's forward is the sum of its kernels' (count x time); the mean layer
 * of a model whose first of 2 layers is dense and second MoE is their average. */
static void t_layer_sums(void)
{
    cs_plan p;
    cs_kernel ks[CS_LAYER_KERNELS];
    cs_layer_times t;
    double fwd = 0, bwd = 0;
    int n, i;
    plan_on_test_gpu(&p, "bf16", "fused");
    n = cs_plan_kernels(&p, CS_KP_DENSE, ks);
    for (i = 0; i < n; i++)
        fwd += ks[i].count * ks[i].fwd_s, bwd += ks[i].count * ks[i].bwd_s;
    cs_plan_layer_times(&p, &t);
    CS_ASSERT_REL(t.fwd, fwd, 1e-12);
    CS_ASSERT_REL(t.bwd, bwd, 1e-12);
    CU_ASSERT_PTR_NOT_NULL_FATAL(find(ks, n, "attention"));
    CS_ASSERT_REL(t.core_fwd, find(ks, n, "attention")->fwd_s, 1e-12);
    cs_plan_fini(&p);
}

/* A share of the layers recomputed (torchtitan's every-other-layer AC; Megatron's
 * --recompute-method block --recompute-num-layers N: N of the stage's layers): the
 * recompute is that share of the forward, the activations that share of the checkpoint
 * (2 s b h bytes... at 16 bits) plus the rest of the full stash; Megatron's block of 1 of a
 * 2-layer stage is one half. */
static void t_recompute_share(void)
{
    cs_plan p;
    cs_plan_result r;
    cs_plan_ctx *ctx = NULL;
    cs_err err;
    double full, none, half;
    plan_on_test_gpu(&p, "bf16", "fused");
    p.recompute = CS_RC_NONE;
    none = cs_plan_layer_act_bytes(&p);
    p.recompute = CS_RC_FULL;
    full = cs_plan_layer_act_bytes(&p);
    CS_ASSERT_REL(full, 2.0 * 2048 * 1024 * 2 / 2, 1e-12);      /* 2 s b h, 16-bit */
    p.recompute_frac = 0.5;
    half = cs_plan_layer_act_bytes(&p);
    CS_ASSERT_REL(half, 0.5 * full + 0.5 * none, 1e-12);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(ctx, &p, 0, &r, &err), 0);
    CS_ASSERT_REL(r.costs.t_recomp, 0.5 * r.costs.t_fwd, 1e-12);
    cs_plan_result_fini(&r);
    p.recompute_frac = 0;
    p.recompute_block = 1;                /* 1 of the stage's 2 layers */
    CS_ASSERT_REL(cs_plan_recompute_frac(&p), 0.5, 1e-12);
    p.recompute_block = 5;
    CS_ASSERT_REL(cs_plan_recompute_frac(&p), 1, 1e-12);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"gemm_roofline", t_gemm_roofline}, {"attention_kernel", t_attention_kernel},
        {"fp8_layer", t_fp8_layer}, {"eager_kernels", t_eager_kernels},
        {"gpu_refusals", t_gpu_refusals}, {"layer_sums", t_layer_sums},
        {"recompute_share", t_recompute_share}, {"train_refusals", t_train_refusals},
        {NULL, NULL}};
    return cs_test_add_suite("compute", cases);
}
