/* gpu.h: the GPUs of training plans (scenarios layer): the figures compute.c times kernels
 * with (gpu.c reads them; presets in scenarios/gpus). */
#ifndef CS_SCENARIOS_GPU_H
#define CS_SCENARIOS_GPU_H

#include "scenarios/model.h"

/* A GPU (DESIGN §6 "gpu"; gpu.c reads it, compute.c times kernels on it). Every figure is
 * data with its source: the dense peak per dtype (datasheet), the maximum achievable matmul
 * per dtype (a measured ceiling: mamf-finder), the GEMM tile and SM count that quantize
 * small and skinny GEMMs, the FlashAttention-class kernel's forward and backward TFLOP/s,
 * HBM bandwidth and the fraction elementwise kernels reach, a fixed cost per kernel. A
 * figure the preset does not measure is estimated from the peak and says so (*_measured 0). */
/* An attention kernel's measured figures on a GPU: forward and backward TFLOP/s at 16 bits,
 * head dim 128, long sequences (gpu.c "attention"). */
typedef struct cs_attn_kernel {
    char kernel[32];                  /* "fa2", "fa3", "cudnn", "ck", ... */
    double fwd_tflops, bwd_tflops;    /* backward counts its 2.5x forward FLOPs */
    char source[256];                 /* where they come from */
} cs_attn_kernel;
#define CS_GPU_ATTN_MAX 4

typedef struct cs_gpu {
    char name[64];                    /* preset name or "custom" */
    double peak_tflops[CS_DT_COUNT];  /* dense peak per dtype, TFLOP/s (0 = unsupported) */
    double matmul_tflops[CS_DT_COUNT];/* maximum achievable dense matmul per dtype, TFLOP/s
                                         (matmul_tflops; 0 = peak x gemm_eff_max) */
    char matmul_source[256];          /* where the matmul figures come from ("" = none) */
    double gemm_eff_max;              /* fraction of peak assumed where no matmul figure is
                                         given (default 0.75) */
    int sm_count;                     /* SMs / CUs a GEMM's tiles spread over (0 = no wave
                                         quantization) */
    int tile_m, tile_n;               /* GEMM output tile of the library's big kernels */
    int n_attn;                       /* attention kernels measured on this GPU */
    cs_attn_kernel attn[CS_GPU_ATTN_MAX]; /* the first is the default (train.attention_kernel
                                         picks another) */
    double hbm_GB;                    /* memory capacity, GB (1e9 bytes) */
    double hbm_GBps;                  /* memory bandwidth, GB/s */
    double mem_eff;                   /* fraction of hbm_GBps elementwise kernels reach */
    double sustained;                 /* fraction of the microbenchmarks' rate the math units
                                         hold over a training run (clocks under the power
                                         limit; "sustained.clock", default 0.9) */
    char sustained_source[256];       /* where it comes from ("" = the default) */
    double kernel_us;                 /* fixed cost of one kernel on the GPU's stream
                                         (launch gap, ramp), us */
    double calib_scale;               /* plan calibrate: compute figures were multiplied by
                                         this (0 = not calibrated) */
    char calib_source[256];           /* the logs a calibration came from */
    char checked[1024];               /* "checked_against": published training runs on this
                                         GPU its figures were compared with (ACCURACY.md);
                                         "" = never checked against a run */
    double power_idle_W;              /* board power idle, W (power_W.idle; 0 = not given) */
    double power_tdp_W;               /* board power at full load (TDP/TBP), W (power_W.tdp) */
    char power_source[256];           /* power_W.source: where the two figures come from */
} cs_gpu;

/* The GEMM ceiling of dtype d on g, TFLOP/s: the measured matmul figure, else peak x
 * gemm_eff_max. *measured (may be NULL): 1 when a measured figure stands behind it. */
double cs_gpu_matmul_tflops(const cs_gpu *g, cs_pdtype d, int *measured);
/* Attention kernel TFLOP/s (16-bit, head dim 128, long sequences), forward or backward
 * (bwd 1), of the kernel named (NULL or "" = the GPU's first): its measured figure, else
 * the estimate (forward 0.55, backward 0.45 of the 16-bit matmul ceiling: FlashAttention-2
 * on A100 reached 0.72/0.63 of peak, 0.83/0.72 of its matmul ceiling, and less on newer
 * GPUs). *measured as above. */
double cs_gpu_attn_tflops(const cs_gpu *g, const char *kernel, int bwd, int *measured);
/* The attention kernel named on g (NULL or "" = the first; NULL when none matches). */
const cs_attn_kernel *cs_gpu_attn_kernel(const cs_gpu *g, const char *kernel);
/* Multiply every compute figure (matmul, attention) by s (plan calibrate). */
void cs_gpu_scale_compute(cs_gpu *g, double s, const char *source);

#endif
