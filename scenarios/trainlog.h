/* trainlog.h: training logs as plans and measurements (scenarios layer). A Megatron-LM log
 * (its argument dump and iteration lines, trainlog.c) or a torchtitan log (its ModelArgs,
 * device mesh, batch and step lines, trainlog_titan.c) is read back into the plan that ran
 * and the step time it measured; `collsim plan validate` simulates the plan and compares,
 * `collsim plan calibrate` fits one scale of the GPU's compute figures to the logs
 * (trainfit.c, trainfit_report.c). docs/plans.md "Validating and calibrating plans on your
 * runs". */
#ifndef CS_TRAINLOG_H
#define CS_TRAINLOG_H

#include <stdio.h>
#include "sim/err.h"
#include "scenarios/plan.h"

/* Log formats read. */
typedef enum cs_tlog_format { CS_TLOG_MEGATRON, CS_TLOG_TORCHTITAN } cs_tlog_format;
const char *cs_tlog_format_name(cs_tlog_format f);

/* Iteration lines whose iteration number is at most this are warm-up (CUDA and NCCL
 * set-up, allocator growth, the first pipeline fill), and the first line read is always
 * one: its interval contains iteration 1. */
#define CS_TLOG_WARMUP_ITERS 3
/* Most iteration lines kept per log. */
#define CS_TLOG_MAX_ITERS 100000

/* One training log, read. */
typedef struct cs_trainlog {
    char name[256];           /* the file as given (errors and reports name it) */
    cs_tlog_format format;    /* which reader read it */
    cs_plan plan;             /* the plan rebuilt: model, train, parallel (dp from
                                 world_size); no GPU and no topology */
    int world_size;           /* GPUs of the run (the dump's world_size) */
    char gpu[64];             /* GPU preset the log names ("" = it does not say) */
    int n_lines;              /* iteration lines read */
    int n_used;               /* of which after warm-up (the median is theirs) */
    int first_used;           /* iteration number of the first line used */
    double step_s;            /* median measured step time over the lines used, s */
    double tflops_per_gpu;    /* median printed TFLOP/s per GPU (0 = not printed) */
    double tokens_per_s;      /* global batch x seq_len / step_s */
    double peak_mem_bytes;    /* peak memory per GPU as printed (0 = not printed) */
    char mem_stat[24];        /* which statistic: "max allocated" (Megatron), "max reserved"
                                 (torchtitan) */
    char ignored[1024];       /* arguments that change cost and collsim does not model,
                                 "name=value" comma-separated ("" = none; may be cut) */
    char assumed[512];        /* what the reader assumed where the log is silent, in words
                                 ("; "-separated; "" = nothing) */
} cs_trainlog;

/* Read a training log from text (n bytes; name for messages) or a file. Detects the format
 * (Megatron-LM/NeMo argument dump "------------------------ arguments ---" with
 * "  name ..... value" lines and " iteration N/ M | ... elapsed time per iteration (ms): T"
 * lines), or torchtitan ("Building M with ModelArgs(dim=..., ...)", "Building N-D device
 * mesh with [names], [degrees]", "Training starts at step 1, with local batch size b,
 * global batch size B, sequence length s" and "step: N ... tps: T" lines; step time =
 * (B / dp) s / (T tp pp cp), T being torchtitan's tokens/s per GPU). Errors: CS_EPARSE
 * with where = "FILE:LINE" and what was expected (no argument
 * dump, no iteration line, a bad number), CS_EINVAL for a plan the arguments do not make
 * (naming the argument), CS_EIO for a file that cannot be read. out is initialised even on
 * failure (cs_trainlog_fini frees it). */
int cs_trainlog_parse(const char *text, size_t n, const char *name, cs_trainlog *out,
                      cs_err *err);
int cs_trainlog_load(const char *path, cs_trainlog *out, cs_err *err);
void cs_trainlog_fini(cs_trainlog *t);

/* --- Simulating logs (trainfit.c) --- */

/* The system a log is simulated on. */
typedef struct cs_tlog_system {
    cs_gpu gpu;               /* the GPU (preset, file or calibrated) */
    int gpu_given;            /* --gpu gave it (else the log's own, if it names one) */
    char topo[512];           /* --topo (preset or file; "" = the default below) */
} cs_tlog_system;

/* One log simulated. */
typedef struct cs_tlog_row {
    const cs_trainlog *log;   /* borrowed */
    char gpu[64];             /* the GPU simulated */
    char topo[600];           /* the topology: --topo, or the default built ("dgx-a100",
                                 "4 x dgx-h100 on ib-ndr-rail") */
    int topo_default;         /* 1 when the default was built */
    double sim_step_s;        /* simulated step time, s */
    double sim_tokens_per_s;  /* simulated tokens/s */
    double sim_mfu_pct;       /* simulated MFU, % */
    double err_pct;           /* (simulated - measured) / measured x 100 */
    double heldout_err_pct;   /* calibrate: error with the scale fitted on the others */
    double heldout_scale;     /* that scale (0 = not computed: one log) */
} cs_tlog_row;

/* The default topology of n GPUs for GPU preset gpu: the node preset of that GPU when n
 * fits one node, else a cluster of n / 8 such nodes on the fabric named (gpu presets
 * without a node preset, and n not a multiple of the node's GPUs, refuse naming --topo).
 * *spec gets a preset name or NULL, *json (malloc'd) an inline cluster or NULL; label says
 * which in words. */
int cs_tlog_default_topo(const char *gpu, int n, char **spec_or_null, char **json,
                         char *label, size_t n_label, cs_err *err);

/* A simulation context for log t on sys (owned by the caller: cs_plan_ctx_free) and the
 * plan it runs (cs_plan_fini), ready for cs_plan_eval; row gets the names. */
int cs_tlog_prepare(const cs_trainlog *t, const cs_tlog_system *sys, cs_plan *p,
                    cs_plan_ctx **ctx, cs_tlog_row *row, cs_err *err);

/* Simulate every log on sys (validate): rows[i] for logs[i]. */
int cs_tlog_validate(const cs_trainlog *logs, int n, const cs_tlog_system *sys,
                     cs_tlog_row *rows, cs_err *err);

/* The fit of plan calibrate. */
typedef struct cs_tlog_fit {
    double scale;             /* every compute figure x scale (cs_gpu_scale_compute) */
    double median_abs_err_pct;    /* over the logs, fitted scale */
    double heldout_median_abs_err_pct; /* leave-one-out (n >= 2), else -1 */
    int one_shape;            /* every log has the same model, sequence and dtype: GEMM and
                                 attention efficiency cannot be told apart */
    int n_logs;               /* logs fitted */
    int capped;               /* matmul figures over the dense peak written as the peak
                                 (set by the caller from cs_gpu_print_json) */
    cs_gpu gpu;               /* the GPU with its compute figures scaled */
} cs_tlog_fit;

/* The scale s (in [1e-3, 1e3]) at which the mean of ln(simulated / measured) over the
 * logs is 0: the geometric mean of the ratios is 1, the least-squares fit in log space
 * for step times proportional to 1 / s (found by bisection on ln s, the step time falling
 * with s). With n >= 2, each log's held-out error uses the scale fitted on the others.
 * rows as cs_tlog_validate, at the fitted scale. CS_EINVAL when no scale in range fits. */
int cs_tlog_calibrate(const cs_trainlog *logs, int n, const cs_tlog_system *sys,
                      cs_tlog_row *rows, cs_tlog_fit *fit, cs_err *err);

/* Reports (trainfit_report.c). fit NULL: validate. */
void cs_tlog_print_text(FILE *f, const cs_tlog_row *rows, int n, const cs_tlog_fit *fit,
                        const char *output);
int cs_tlog_print_json(FILE *f, const cs_tlog_row *rows, int n, const cs_tlog_fit *fit,
                       const char *output);

/* --- GPU objects as files (gpufile.c) --- */
/* A GPU object in a JSON file (the keys of system.gpu; named by the file's base name
 * without .json). Errors name the file and the key. */
int cs_gpu_load(const char *path, cs_gpu *out, cs_err *err);
/* g as a GPU object (the keys cs_gpu_load reads, "calibrated" included) to f. Returns how
 * many matmul figures were over their dense peak and were written as the peak (>= 0), or
 * CS_EIO / CS_ENOMEM. */
int cs_gpu_print_json(FILE *f, const cs_gpu *g, const char *description);

#endif
