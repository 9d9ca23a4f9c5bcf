/* compute.c: timing a kernel on a GPU (scenarios layer; compute.h). A roofline with the
 * chip's achievable figures (gpu.c):
 * - GEMM: 2mkn FLOPs at the measured matmul ceiling of its dtype, lowered by how its output
 *   fills the tiles of the library's kernels (tile quantization), how the tiles fill the SMs
 *   (wave quantization, over every group of a grouped GEMM) and a short reduction dimension
 *   (k / (k + K_RAMP)); or its operands and result at the achievable HBM bandwidth, if slower.
 * - attention: its FLOPs at the kernel's measured forward or backward TFLOP/s (head dim 128,
 *   long sequences), lowered for smaller heads and for fewer keys per query, and by waves of
 *   its query blocks over the SMs.
 * - elementwise: its bytes at the achievable HBM bandwidth.
 * Every kernel launch adds the GPU's fixed kernel cost. */
#include "scenarios/compute.h"

#include <math.h>
#include <string.h>

#define K_RAMP 64.0         /* reduction length at which a GEMM's main loop runs at half its
                               rate: prologue/epilogue of a 64-deep K tile pipeline (CUTLASS
                               mainloop stages), an estimate */
#define SPLITK_MIN 256.0    /* shortest reduction piece a split-K GEMM cuts (an estimate) */
#define SMALL_TILE_RATE 0.85 /* rate of the half-size tiles against the big ones: less reuse
                               of each operand loaded (an estimate; CUTLASS's 128 x 128
                               against 128 x 256 tiles on Hopper) */
#define ATTN_BLOCK 128.0    /* query rows per attention thread block (FlashAttention-2/3) */
#define ATTN_S0 256.0       /* keys per query at which the attention kernel's rate is half its
                               long-sequence rate (FlashAttention-2 paper figs. 4-6: causal
                               head dim 128 at 1k / 2k / 4k / 16k: 0.73 / 0.85 / 0.93 / 1 of
                               the 16k rate) */
#define ATTN_SREF 8192.0    /* keys per query where the kernel's figure is taken */

static double waves_eff(double tiles, int sms)
{
    double w;
    if (sms <= 0 || tiles <= 0)
        return 1;
    w = ceil(tiles / sms);
    return tiles / (w * sms);
}

/* Math time of a GEMM (m x k) x (k x n) (count groups when grouped) cut into tiles of
 * tm x tn at rate (FLOP/s at full tiles): the tiles fill tm x tn of output each (tile
 * quantization), the tiles of every group spread over the SMs in waves (wave
 * quantization), and where too few tiles leave SMs idle the reduction is split over them
 * (split-K, as cuBLAS does) down to pieces of SPLITK_MIN; a piece of k runs at k / (k +
 * K_RAMP). */
static double tiled_s(const cs_gpu *g, double rate, double tm, double tn, double m, double k,
                      double n, double count, int grouped)
{
    double t1 = ceil(m / tm) * ceil(n / tn), t2 = ceil(m / tn) * ceil(n / tm);
    double tiles = t1 < t2 ? t1 : t2, all = tiles * (grouped ? count : 1), split = 1, kp;
    if (g->sm_count > 0 && all < g->sm_count)
        split = fmax(1, fmin(floor(g->sm_count / all), floor(k / SPLITK_MIN)));
    kp = k / split;
    return 2 * m * k * n / (rate * (m * n / (tiles * tm * tn)) * waves_eff(all * split, g->sm_count)
                            * kp / (kp + K_RAMP));
}

double cs_gemm_s(const cs_gpu *g, cs_pdtype d, double m, double k, double n, double count,
                 int grouped, const char **bound)
{
    double rate = cs_gpu_matmul_tflops(g, d, NULL) * 1e12 * g->sustained;
    double tf, tb, q = cs_pdtype_bytes(d), t, launch = g->kernel_us * 1e-6;
    if (m <= 0 || k <= 0 || n <= 0)
        return 0;
    /* the library's big tile, or half of it each way at SMALL_TILE_RATE of the rate (for
     * small or skinny outputs), whichever is faster */
    tf = tiled_s(g, rate, g->tile_m, g->tile_n, m, k, n, count, grouped);
    t = tiled_s(g, rate * SMALL_TILE_RATE, fmax(64, g->tile_m / 2), fmax(64, g->tile_n / 2),
                m, k, n, count, grouped);
    tf = t < tf ? t : tf;
    /* FP8 GEMMs read 1-byte operands and write a 16-bit result */
    tb = (q * (m * k + k * n) + (d == CS_DT_FP8 ? 2 : q) * m * n) /
         (g->hbm_GBps * 1e9 * g->mem_eff);
    t = tf > tb ? tf : tb;
    if (grouped && count > 1)
        launch /= count;                /* one launch for every group */
    if (bound)
        *bound = launch > t ? "launch" : tf >= tb ? "compute" : "memory";
    return t + launch;
}

double cs_elem_s(const cs_gpu *g, double bytes, const char **bound)
{
    double t = bytes / (g->hbm_GBps * 1e9 * g->mem_eff), launch = g->kernel_us * 1e-6;
    if (bound)
        *bound = launch > t ? "launch" : "memory";
    return t + launch;
}

/* Attention: k->m query-token-heads, k->k head dim, k->n keys each query sees. */
static double attn_s(const cs_gpu *g, const char *kname, const cs_kernel *k, int bwd,
                     const char **bound)
{
    double tf = cs_gpu_attn_tflops(g, kname, bwd, NULL) * 1e12 * g->sustained;
    double hd = k->k, keys = k->n;
    double flops = bwd ? k->bwd_flops : k->fwd_flops, bytes = bwd ? k->bwd_bytes : k->fwd_bytes;
    double eff = hd >= 128 ? 1 : 0.7 + 0.3 * hd / 128;
    double seq = keys / (keys + ATTN_S0) * (ATTN_SREF + ATTN_S0) / ATTN_SREF, t, tb;
    double launch = g->kernel_us * 1e-6;
    eff *= seq < 1 ? seq : 1;
    eff *= waves_eff(ceil(k->m / ATTN_BLOCK), g->sm_count);
    t = flops / (tf * eff);
    tb = bytes / (g->hbm_GBps * 1e9 * g->mem_eff);
    if (bound)
        *bound = launch > (t > tb ? t : tb) ? "launch" : t >= tb ? "compute" : "memory";
    return (t > tb ? t : tb) + launch;
}

/* The attention kernel plan p runs: the one it names (train.attention_kernel); else, with
 * fused kernels (Megatron-LM and NeMo on Transformer Engine), cuDNN's where the GPU has
 * figures for it - TE's DotProductAttention turns FlashAttention off "to give FusedAttention
 * preference on Hopper+ for performance reasons" (transformer_engine/pytorch/attention/
 * dot_product_attention/utils.py, get_attention_backend); else the GPU's first (eager
 * PyTorch and torchtitan's logs: SDPA's FlashAttention-2). from: why, for the output. */
const char *cs_plan_attn_kernel(const cs_plan *p, const char **from)
{
    const char *f = "the GPU's first", *k = "";
    if (p->attn_kernel[0])
        f = "train.attention_kernel", k = p->attn_kernel;
    else if (!p->eager && !p->sdpa && cs_gpu_attn_kernel(&p->gpu, "cudnn"))
        f = "Transformer Engine's default on Hopper and later", k = "cudnn";
    if (from)
        *from = f;
    return k;
}

void cs_kernel_time(const cs_plan *p, cs_kernel *k)
{
    const cs_gpu *g = &p->gpu;
    cs_pdtype d = k->fp8 ? CS_DT_FP8 : p->dtype == CS_DT_FP32 ? CS_DT_FP32
                : p->dtype == CS_DT_FP16 ? CS_DT_FP16 : CS_DT_BF16;
    const char *b2;
    switch (k->kind) {
    case CS_K_GEMM:
        /* backward: the input gradient (m x n) x (n x k) and the weight gradient
         * (k x m) x (m x n), two GEMMs of the forward's FLOPs */
        k->fwd_s = cs_gemm_s(&p->gpu, d, k->m, k->k, k->n, k->count, k->grouped, &k->fwd_bound);
        k->bwd_s = cs_gemm_s(&p->gpu, d, k->m, k->n, k->k, k->count, k->grouped, &k->bwd_bound) +
                   cs_gemm_s(&p->gpu, d, k->k, k->m, k->n, k->count, k->grouped, &b2);
        break;
    case CS_K_ATTN: {
        const char *ak = cs_plan_attn_kernel(p, NULL);
        k->fwd_s = attn_s(g, ak, k, 0, &k->fwd_bound);
        k->bwd_s = attn_s(g, ak, k, 1, &k->bwd_bound);
        break;
    }
    default:
        k->fwd_s = k->fwd_bytes > 0 ? cs_elem_s(g, k->fwd_bytes, &k->fwd_bound) : 0;
        if (k->fwd_bytes <= 0)
            k->fwd_bound = "none";
        k->bwd_s = k->bwd_bytes > 0 ? cs_elem_s(g, k->bwd_bytes, &k->bwd_bound) : 0;
        if (k->bwd_bytes <= 0)
            k->bwd_bound = "none";
        break;
    }
}

void cs_plan_compute_about(const cs_plan *p, cs_compute_about *a)
{
    const cs_gpu *g = &p->gpu;
    const char *ak = cs_plan_attn_kernel(p, &a->attn_from);
    a->matmul_tflops = cs_gpu_matmul_tflops(g, p->dtype, &a->matmul_measured);
    a->attn_fwd_tflops = cs_gpu_attn_tflops(g, ak, 0, &a->attn_measured);
    a->attn_bwd_tflops = cs_gpu_attn_tflops(g, ak, 1, NULL);
    a->attn = cs_gpu_attn_kernel(g, ak);
    a->hbm_GBps = g->hbm_GBps * g->mem_eff;
    a->kernel_us = g->kernel_us;
}
