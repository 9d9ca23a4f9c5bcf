/* step.h: one training step as a discrete-event simulation over the pipeline stages
 * (scenarios layer; step.c): the costs it schedules and what it reports. */
#ifndef CS_SCENARIOS_STEP_H
#define CS_SCENARIOS_STEP_H

#include <stdint.h>
#include "sim/err.h"

typedef enum cs_sched_kind { CS_PS_1F1B, CS_PS_GPIPE, CS_PS_INTERLEAVED } cs_sched_kind;

/* --- One step (step.c) --- */
/* Kinds of tasks of the step simulation, for breakdowns and pictures. */
typedef enum cs_task_kind {
    CS_T_FWD, CS_T_BWD, CS_T_RECOMP, CS_T_OPT,       /* compute */
    CS_T_TP, CS_T_CP, CS_T_EP,                        /* blocking comm on the compute stream */
    CS_T_PP, CS_T_DP,                                 /* comm on their own streams */
    CS_T_COUNT
} cs_task_kind;
const char *cs_task_kind_name(cs_task_kind k);

/* A task of the step simulation as it ran (for pictures and traces). */
typedef struct cs_step_task {
    int stage;               /* pipeline stage */
    int8_t kind;             /* cs_task_kind */
    int8_t stream;           /* 0 compute, 1 pipeline sends, 2 data-parallel comm */
    int16_t chunk;           /* virtual stage (model chunk) 0..vp-1, -1 if none */
    int32_t mb;              /* microbatch, -1 if none */
    double start_s, end_s;   /* when it ran, seconds from the start of the step */
} cs_step_task;

/* Per-stage compute and comm costs the step simulation schedules (seconds). */
typedef struct cs_step_costs {
    int pp, vp, m;           /* stages, chunks per stage, microbatches */
    cs_sched_kind schedule;  /* 1F1B, GPipe or interleaved */
    double t_fwd;            /* forward of one chunk for one microbatch (compute only), s */
    double t_bwd;            /* backward of one chunk, s */
    double t_recomp;         /* recompute of one chunk before its backward, s */
    double t_tp_fwd, t_tp_bwd; /* TP comm per chunk per microbatch, fwd/bwd, s */
    double t_cp_fwd, t_cp_bwd; /* exposed CP comm per chunk per microbatch, s */
    double t_ep_fwd, t_ep_bwd; /* EP all-to-all per chunk per microbatch, s */
    double t_first_extra;    /* extra forward on stage 0 (embedding), s */
    double t_first_extra_bwd; /* its backward, s */
    double t_last_extra;     /* extra forward on the last stage (logits + loss), s */
    double t_last_extra_bwd; /* its backward, s */
    double t_pp;             /* one activation/gradient send between stages, s */
    int *chunk_layers;       /* uneven split: layers of each virtual stage (pp x vp entries,
                                cs_plan_stage_layers), and then t_fwd .. t_ep_bwd are per
                                layer and ZeRO-3 runs a chunk in its layers' pieces; NULL:
                                every chunk alike, the times per chunk. Owned by the
                                cs_plan_result holding the costs (freed by its fini) */
    double t_opt;            /* optimizer step, s */
    /* DP: gradient reduction of each chunk's parameters in n_buckets buckets issued as the
     * last microbatch's backward of that chunk produces them; ZeRO-3 instead gathers each
     * layer's parameters before its forward and backward of every microbatch (prefetched
     * when overlapped) and reduce-scatters each layer's gradients after its backward. */
    int n_buckets;           /* buckets per chunk (>= 0) */
    double t_bucket;         /* reduction of one bucket, s */
    double t_dp_tail;        /* after the last bucket: ZeRO-1/2 parameter all-gather, s */
    double t_gather;         /* ZeRO-3 parameter all-gather of one layer, s (0 = none); with
                                offloaded parameters it includes the layer's copy up */
    int prefetch;            /* ZeRO-3: gathers issued ahead of the computing layer (0 = the
                                default 1, -1 = none; they queue on one stream, never
                                overlapping each other) */
    double t_act_out;        /* activation offload: one layer's stash to the host, s */
    double t_act_in;         /* and back before its backward, s (0 = no offload) */
    int n_pieces;            /* ZeRO-3: layers per chunk; each op runs layer by layer, a
                                gather before each layer, a gradient bucket after each
                                layer's backward (n_buckets = n_pieces, t_bucket per layer) */
    int overlap_grad;        /* buckets overlap backward (else they start after it) */
    int overlap_gather;      /* gathers are prefetched on the DP stream */
    int slow_stage;          /* a straggler's stage (with slow_factor > 1) */
    double slow_factor;      /* its compute takes this many times longer (<= 1: none); its
                                TP/CP/EP/DP peers wait for it, so the stage runs at its pace */
} cs_step_costs;

/* Result of the step simulation. */
typedef struct cs_step_result {
    double step_s;                   /* makespan, s */
    double bubble_s;                 /* reported stage: compute idle not waiting on comm, s */
    double pp_exposed_s;             /* reported stage: idle waiting on pipeline sends, s */
    double dp_exposed_s;             /* reported stage: idle waiting on DP comm, s */
    int report_stage;                /* the stage the breakdown describes (stage 0) */
    int peak_inflight;               /* most microbatch-chunks with forward done and
                                        backward not started on any stage */
    int peak_stage;                  /* the stage with that peak */
    cs_step_task *tasks;             /* every task (owned; NULL unless asked), in order */
    long n_tasks;
} cs_step_result;

/* Simulate one step. keep_tasks asks for the task list (for pictures). Returns 0 or a
 * negative code (CS_ENOMEM, CS_EINVAL on inconsistent costs). */
int cs_plan_step(const cs_step_costs *sc, int keep_tasks, cs_step_result *out, cs_err *err);
void cs_step_result_fini(cs_step_result *r);

#endif
