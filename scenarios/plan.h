/* plan.h: training plans (scenarios layer). A plan names a model, a training setup and a
 * parallel layout (tp, pp, dp, cp, ep, vp, ZeRO) on a system (topology + GPU). This layer
 * resolves it, checks it, counts parameters, FLOPs and memory, times every collective the
 * layout issues on its real rank groups (cs_plan_comm), runs one training step as a
 * discrete-event simulation over the pipeline stages (cs_plan_step) and reports step time,
 * breakdown, MFU/HFU and memory (DESIGN §6; formulas: reference/models.md §6). */
#ifndef CS_PLAN_H
#define CS_PLAN_H

#include <stdint.h>
#include <stdio.h>
#include "sim/err.h"
#include "sim/sched.h"
#include "sim/topo.h"

#include "scenarios/model.h"
#include "scenarios/gpu.h"
#include "scenarios/step.h"


/* How Transformer Engine scales FP8 tensors (train.fp8_recipe, Megatron --fp8-recipe):
 * delayed (amax history, the cast computes the amax it needs next time), current (an amax
 * pass over each tensor before its cast), mxfp8 (Blackwell block scaling, 32-element
 * blocks, cast like delayed). */
typedef enum cs_fp8_recipe { CS_FP8_DELAYED, CS_FP8_CURRENT, CS_FP8_MXFP8 } cs_fp8_recipe;
const char *cs_fp8_recipe_name(cs_fp8_recipe r);

typedef enum cs_dp_mode { CS_DPM_DDP, CS_DPM_PS, CS_DPM_DATAPARALLEL } cs_dp_mode;
/* MoE token dispatchers (Megatron-Core's --moe-token-dispatcher-type): all-to-all of the
 * routed tokens, all-gather of every token of the EP group (and reduce-scatter back), or
 * DeepEP's fused kernels ("flex": a token crosses to each node once, NVLink inside). */
typedef enum cs_moe_dispatch { CS_MOE_ALLTOALL, CS_MOE_ALLGATHER, CS_MOE_FLEX,
                               CS_MOE_COUNT } cs_moe_dispatch;
/* "alltoall", "allgather", "flex", NULL. */
const char *const *cs_moe_dispatch_names(void);

/* Where the trained sequence length comes from (DESIGN §8 "assumptions": seq_len_from). */
typedef enum cs_seq_from { CS_SEQ_MODEL, CS_SEQ_TRAIN, CS_SEQ_FLAG } cs_seq_from;

/* Where the data-parallel degree came from (DESIGN §8 "assumptions": layout_from): the
 * plan or a flag, the topology's GPUs (no dp given: dp = N / (tp pp cp)), or 1 because the
 * topology's GPUs do not divide or --deepspeed read its batch sizes with dp 1. */
typedef enum cs_layout_from { CS_LAYOUT_GIVEN, CS_LAYOUT_TOPO, CS_LAYOUT_ONE } cs_layout_from;

/* Most entries of an explicit parallel.pipeline_layers list. */
#define CS_PLAN_MAX_STAGE_LIST 1024
/* Longest parallel.pipeline_layout string, NUL included. */
#define CS_PLAN_MAX_LAYOUT 1024

/* Parallel dimensions in the "order" string. */
enum { CS_DIM_TP, CS_DIM_CP, CS_DIM_EP, CS_DIM_DP, CS_DIM_PP, CS_DIM_COUNT };

/* A training setup and layout (DESIGN §6 "train" and "parallel"). */
typedef struct cs_plan {
    cs_llm model;           /* the model */
    cs_gpu gpu;               /* the GPU of every rank */
    char topo_spec[512];      /* topology preset or file; "" when topo_json is set */
    char *topo_json;          /* inline topology object as JSON text (owned), or NULL */
    /* train */
    long global_batch;        /* B, sequences per step */
    int micro_batch;          /* b, sequences per microbatch */
    cs_pdtype dtype;           /* weights/activations type */
    int optimizer_sgd;        /* 0: Adam, 1: SGD with momentum */
    cs_recompute recompute;   /* activation recomputation */
    double grad_compression;  /* DP gradient bytes are multiplied by this, (0, 1] */
    int offload_optimizer;    /* optimizer states live in host memory (ZeRO-Offload) */
    int offload_params;       /* parameters (and their gradients) live in host memory and
                                 are copied up layer by layer (ZeRO-Infinity offload_param,
                                 FSDP CPUOffload); needs zero 3 */
    int offload_activations;  /* each layer's stashed activations go to the host after its
                                 forward and come back before its backward */
    double memory_margin;     /* --memory-margin: fraction of capacity kept free, [0, 1) */
    int flash_attention;      /* attention never writes the s x s scores to memory (Dao et
                                 al. 2022): no score traffic, no 5as/h activation term;
                                 default on (Megatron-LM, NeMo) */
    int flash_given;          /* train.flash_attention or --flash-attention set it */
    int dtype_flag;           /* --dtype set dtype (its errors name the flag) */
    cs_fp8_recipe fp8_recipe; /* FP8 scaling (dtype fp8; default delayed) */
    double recompute_frac;    /* train.recompute_fraction: with full recompute, the share of
                                 the layers recomputed (torchtitan's selective 'layer' AC
                                 every N: 1/N), the rest keep their activations (0 = all) */
    int recompute_block;      /* Megatron --recompute-method block --recompute-num-layers N:
                                 N layers of each stage recomputed (0 = none given) */
    int eager;                /* train.kernels "eager": the framework runs elementwise steps
                                 as separate PyTorch ops (torchtitan, Hugging Face without
                                 torch.compile); "fused" (default): one kernel each
                                 (Megatron-LM with Transformer Engine, NeMo, torch.compile) */
    int loss_pytorch;         /* train.loss "pytorch": F.cross_entropy(pred.float()) as
                                 torchtitan, torchtune and Hugging Face run it - the 16-bit
                                 logits, their fp32 copy and fp32 log-softmax live at once;
                                 "fused" (default): Megatron's vocab-parallel cross entropy,
                                 fp32 logits and their fp32 gradient (memory.c) */
    char attn_kernel[32];     /* train.attention_kernel: one of the GPU's measured attention
                                 kernels ("" = the framework's: cs_plan_attn_kernel) */
    int sdpa;                 /* attention through PyTorch's SDPA (a torchtitan log): its
                                 FlashAttention-2, the GPU's first kernel, even when fused */
    char megatron_ignored[512]; /* --megatron flags not read, comma-separated ("" = none) */
    char deepspeed_ignored[1024]; /* --deepspeed config keys not read, comma-separated */
    int zero_deepspeed;       /* the ZeRO stage came from a DeepSpeed config (its engine
                                 refuses ZeRO-2/3 with pipeline parallelism) */
    int dp_given;             /* parallel.dp or --dp set dp (else cs_plan_default_layout) */
    /* mixture of experts (moe.c; docs/plans.md "Mixture of experts") */
    double capacity_factor;   /* train.capacity_factor / --moe-expert-capacity-factor: an
                                 expert takes at most this x the mean tokens, the rest are
                                 dropped (0 = dropless, Megatron's default) */
    double moe_imbalance;     /* parallel.moe_imbalance: the most loaded expert's tokens over
                                 the mean (>= 1; 1 = perfect balance, the default) */
    cs_moe_dispatch dispatcher; /* parallel.moe_dispatcher / --moe-token-dispatcher-type */
    int etp;                  /* parallel.etp / --expert-tensor-parallel-size: expert tensor
                                 parallelism, divides tp (0 = tp, Megatron's default) */
    int edp;                  /* parallel.edp as given, checked against the derived expert
                                 data parallelism tp x cp x dp / (etp x ep) (0 = not given) */
    int moe_overlap;          /* parallel.moe_overlap / --overlap-moe-expert-parallel-comm:
                                 EP all-to-alls overlap another microbatch's compute (1F1B
                                 A2A overlap, DeepSeek's DualPipe); off: blocking */
    cs_layout_from layout_from; /* where dp came from (the header and assumptions say it) */
    int topo_gpus;            /* GPUs of the topology when layout_from is not GIVEN */
    int seq_len;              /* train.seq_len / --seq-length: tokens per trained sequence
                                 (0 = the model's seq_len); cs_plan_apply_train puts it in
                                 model.seq_len */
    int pad_vocab_to;         /* --pad-vocab-size-to: the padded vocabulary (0 = none) */
    int vocab_multiple;       /* --make-vocab-size-divisible-by: the vocabulary is padded
                                 to a multiple of this x tp (0 = none) */
    int kv_channels;          /* --kv-channels: the head dimension (0 = none);
                                 cs_plan_apply_train puts it in model.head_dim */
    cs_seq_from seq_len_from; /* who set the sequence length */
    /* parallel */
    int tp, pp, dp, cp, ep, vp; /* degrees; GPUs = tp x pp x dp x cp; ep divides dp */
    int sp;                   /* sequence parallel (needs tp > 1 to matter) */
    int zero;                 /* ZeRO stage 0..3 */
    cs_sched_kind schedule;   /* pipeline schedule */
    int order[CS_DIM_COUNT];  /* dimensions innermost first (default tp, cp, ep, dp, pp) */
    double bucket_MB;         /* DP gradient bucket, MiB (PyTorch's bucket_cap_mb) */
    int overlap_grad_reduce;  /* DP reduction overlaps backward */
    int hsdp;                 /* parallel.hsdp: ZeRO-3 shards within groups of this many DP
                                 ranks and replicates across them (0 = shard over all dp) */
    int prefetch;             /* ZeRO-3 layers gathered ahead of the one computing (FSDP2 1;
                                 DeepSpeed from stage3_prefetch_bucket_size) */
    double prefetch_params;   /* DeepSpeed stage3_prefetch_bucket_size: parameters gathered
                                 ahead (0 = use prefetch); sets the depth to
                                 max(1, floor(this / one layer's parameters)) */
    double max_live_params;   /* DeepSpeed stage3_max_live_parameters: most gathered
                                 parameters at once (0 = no limit) */
    int overlap_param_gather; /* ZeRO parameter gathers are prefetched (ZeRO-3) or overlap
                                 the next step's first forward (ZeRO-1/2) */
    int tp_comm_overlap;      /* TP collectives overlap the GEMMs they feed (extension
                                 key "tp_comm_overlap", default false) */
    cs_dp_mode dp_mode;       /* how DP reduces: ring allreduce, parameter server, or
                                 torch DataParallel (gather to rank 0 and broadcast) */
    /* pipeline split (cs_plan_stage_layers): an explicit list, or Megatron's flags */
    int n_stage_list;         /* entries of stage_list (0 = none given) */
    int stage_list[CS_PLAN_MAX_STAGE_LIST]; /* parallel.pipeline_layers: layers per stage */
    int first_stage_layers;   /* --decoder-first-pipeline-num-layers (0 = not given) */
    int last_stage_layers;    /* --decoder-last-pipeline-num-layers (0 = not given) */
    int embed_in_split;       /* --account-for-embedding-in-pipeline-split: the embedding
                                 counts as one layer of the first stage when splitting */
    int loss_in_split;        /* --account-for-loss-in-pipeline-split: the loss counts as
                                 one layer of the last stage */
    char pipeline_layout[CS_PLAN_MAX_LAYOUT]; /* parallel.pipeline_layout /
                                 --pipeline-model-parallel-layout: Megatron's layout string
                                 ("" = none; scenarios/pipelayout.h) */
} cs_plan;

/* The share of the layers full recomputation replays: 0 without full recompute, else
 * recompute_frac, or Megatron's block layers over the layers per stage, or 1. */
double cs_plan_recompute_frac(const cs_plan *p);

/* Defaults of every optional key (DESIGN §6); model/gpu/topo empty. */
void cs_plan_init(cs_plan *p);
void cs_plan_fini(cs_plan *p);
/* Deep copy (topo_json duplicated). Returns 0 or CS_ENOMEM. */
int cs_plan_copy(cs_plan *dst, const cs_plan *src);

/* Presets. Names in display order; lookup fills *out or CS_ENOENT listing the known. */
const char *const *cs_model_names(int *n);
const char *const *cs_gpu_names(int *n);
int cs_model_preset(const char *name, cs_llm *out, cs_err *err);
int cs_gpu_preset(const char *name, cs_gpu *out, cs_err *err);
/* The embedded model and GPU presets (name, JSON text), sorted by name; *n their count. */
struct cs_preset;
const struct cs_preset *cs_model_presets(int *n);
const struct cs_preset *cs_gpu_presets(int *n);
/* A preset's "description" and "source" (per-thread storage until the thread's next call;
 * "" if none). The names above: per thread as well. */
const char *cs_model_about(const char *name);
const char *cs_gpu_about(const char *name);

/* Readers. All errors name the JSON path or the flag. */
/* A plan JSON text (DESIGN §6); base_dir resolves a relative system.topo file. */
int cs_plan_parse(const char *json, const char *name, cs_plan *out, cs_err *err);
int cs_plan_load(const char *path, cs_plan *out, cs_err *err);
/* No dp given (dp_given 0): dp = ranks / (tp x pp x cp) when that divides, else 1, and
 * layout_from says which (keep_one: leave dp 1, e.g. batch sizes already read per rank). */
void cs_plan_default_layout(cs_plan *p, int ranks, int keep_one);
/* A Hugging Face config.json as a model. */
int cs_model_load_hf(const char *path, cs_llm *out, cs_err *err);
/* Megatron-LM command-line arguments ("--num-layers 24 --hidden-size 2304 ...") into p;
 * flags it does not know are listed in ignored (comma-separated, may be truncated). */
int cs_plan_megatron(const char *args, cs_plan *p, char *ignored, size_t n_ignored,
                     cs_err *err);
/* The ZeRO stage the step runs (memory.c): the plan's, but ZeRO-3 with pp > 1 runs as
 * FSDP2 does under pipeline parallelism - torchtitan's reshard_after_forward "default" is
 * False with PP "to avoid per-microbatch all-gathers" (torchtitan/distributed/fsdp.py): the
 * stage's parameters gathered once a step and kept, its gradients reduce-scattered once
 * after the last microbatch - ZeRO-1's communication and memory (1). */
int cs_plan_zero_run(const cs_plan *p);
/* A DeepSpeed ds_config.json into p (batch sizes, ZeRO stage, offload, stage-3 prefetch
 * limits, dtype, optimizer; deepspeed.c); the keys it does not use are listed in ignored
 * (comma-separated, ending ", ..." when cut). */
int cs_plan_deepspeed(const char *path, cs_plan *p, char *ignored, size_t n_ignored,
                      cs_err *err);


/* Memory. */
typedef struct cs_plan_memory {
    double weights;          /* bytes of parameters on the GPU */
    double gradients;        /* bytes of gradients */
    double optimizer;        /* bytes of optimizer states (0 when offloaded) */
    double activations;      /* bytes of stashed activations at the peak */
    double other;            /* bytes of buffers: the sum of the seven lines below */
    double total;            /* sum, bytes */
    /* the buffers of "other" (memory_detail_bytes in JSON) */
    double logits;           /* last stage: fp32 logits of a microbatch and their gradient */
    double temporaries;      /* the largest kernel's temporaries: the MLP's f-wide gradient
                                in backward, a fully recomputed layer's activations */
    double dp_buckets;       /* DDP / ZeRO-1/2 gradient buckets in flight */
    double zero3_buffers;    /* ZeRO-3: gathered layers (current + prefetched) and one
                                layer's unsharded gradient */
    double nccl;             /* NCCL channel buffers of every communicator */
    double cuda_context;     /* CUDA context (not seen by PyTorch's allocator) */
    double workspace;        /* cuBLAS workspace */
    double host_bytes;       /* bytes offloaded to host memory (freed from the GPU) */
} cs_plan_memory;
/* The lines of "other" and the host bytes, in display order (JSON memory_detail_bytes):
 * logits, temporaries, dp_buckets, zero3_buffers, nccl, cuda_context, workspace (their sum
 * is other), offloaded_to_host. cs_plan_memory_detail gives line i's bytes. */
#define CS_PLAN_MEMORY_DETAIL 8
extern const char *const cs_plan_memory_detail_names[CS_PLAN_MEMORY_DETAIL];
double cs_plan_memory_detail(const cs_plan_memory *m, int i);
/* Activation bytes of one transformer layer for one microbatch on one GPU (Korthikanti
 * Table 2 for the plan's tp, sp and recompute; s divided by cp; 16-bit activations). */
double cs_plan_layer_act_bytes(const cs_plan *p);
/* Model states per GPU (ZeRO paper: 2Ψ weights, 2Ψ gradients, KΨ optimizer with K = 12
 * for mixed-precision Adam, sharded over dp by the ZeRO stage), Ψ = parameters of the
 * most loaded stage divided by tp (experts by ep). */
void cs_plan_model_states(const cs_plan *p, cs_plan_memory *m);

/* What the training run sets over the model, into p->model: the trained sequence length
 * (p->seq_len, when set) and the padded vocabulary (Megatron's --pad-vocab-size-to, else
 * --make-vocab-size-divisible-by x tp). Called after the model is read, so --model or a
 * Hugging Face config's max_position_embeddings never override train.seq_len /
 * --seq-length. */
void cs_plan_apply_train(cs_plan *p);

/* The pipeline split (stages.c; docs/plans.md "Pipeline split"): layers of every virtual
 * stage vs = chunk x pp + stage (pp x vp entries, vp 1 for GPipe). From Megatron's layout
 * string parallel.pipeline_layout (pipelayout.h: each virtual stage as written), the explicit
 * parallel.pipeline_layers, or Megatron's --decoder-first/last-pipeline-num-layers (the
 * rest split evenly over the middle stages, refused when they do not divide), or
 * --account-for-embedding/loss-in-pipeline-split (one layer's place on the first/last
 * virtual stage), else layers / (pp x vp) each; when the layers do not divide and vp is 1,
 * the most even split with the extra layers on the middle stages (the last of them first;
 * the first stage gets one too when every middle stage has one). *out is malloc'd when the
 * virtual stages differ, NULL for an even split. *from (may be NULL) names the rule, as
 * the JSON's assumptions.pipeline_layers_from. Returns 0 or CS_EINVAL naming the key, or
 * CS_ENOMEM. */
int cs_plan_stage_layers(const cs_plan *p, int **out, const char **from, cs_err *err);

/* Resolved rank groups: group g of a dimension set holds ranks members[g*size + i]. */
int cs_plan_rank(const cs_plan *p, const int coord[CS_DIM_COUNT]);

/* Most compute operations (microbatches x chunks x stages, x layers per chunk with
 * ZeRO-3) one step simulation may hold: 2^24. */
#define CS_PLAN_MAX_OPS (1 << 24)
/* parallel.bucket_MB (MiB): from 1 kB to the size limit of one collective (1 PiB). */
#define CS_PLAN_BUCKET_MIN_MB 1e-3
#define CS_PLAN_BUCKET_MAX_MB 1073741824.0   /* 2^30 MiB = CS_LIMIT_MAX_BYTES */

/* --- Mixture of experts on a layout (moe.c) --- */
/* The expert GEMMs of one MoE layer on one GPU for one microbatch, for the kernel list:
 * n_local experts (E / ep), each a grouped GEMM of gemms matrices (3 gated, 2 not) on
 * tokens rows: tokens_mean for n_local - 1 of them and tokens_max for the most loaded one
 * (the step waits for it), of width f_e / etp. Tokens per expert on a GPU = T k ep / E /
 * (tp / etp) x the load (T = b s / cp: the microbatch's tokens on the EP rank; tp / etp
 * ranks of a TP group share them when experts are split over fewer ranks than tp); the
 * load is min(moe_imbalance, capacity_factor) for the most loaded expert and min(1,
 * capacity_factor) for the others (dropped tokens are not computed). */
typedef struct cs_moe_shape {
    int n_local;             /* experts on one GPU, E / ep */
    int gemms;               /* matrices per expert: 3 (gated) or 2 */
    double tokens_mean;      /* rows of an expert at the mean load */
    double tokens_max;       /* rows of the most loaded expert */
    double width;            /* f_e / etp, the inner width of an expert on one GPU */
    double hidden;           /* h */
} cs_moe_shape;
void cs_plan_moe_shape(const cs_plan *p, cs_moe_shape *out);
/* Expert tensor parallelism as resolved (etp, else tp) and expert data parallelism
 * tp x cp x dp / (etp x ep) (Megatron-Core: ETP x EP x EDP = TP x CP x DP). */
int cs_plan_etp(const cs_plan *p);
/* Megatron-Core's MoE parallel folding where collsim needs it: ep does not divide dp, so
 * the expert groups are laid over the tp x cp x dp ranks of a stage, etp innermost, then
 * ep, then edp (its expert RankGenerator, order tp-ep-dp), not carved out of dp. */
int cs_plan_ep_folded(const cs_plan *p);
int cs_plan_edp(const cs_plan *p);
/* The EP communication of one MoE layer, one direction, for one microbatch: per
 * dispatcher the collective (all-to-all, or all-gather then reduce-scatter), the bytes S
 * of each (DESIGN §3) and how many run (dispatch and combine: 2). alltoall and flex: each
 * rank sends its T k h q bytes of routed tokens (/ tp with sequence parallelism, x etp / tp
 * when tp / etp ranks share the tokens), x the most loaded rank's share (imbalance, below);
 * flex (DeepEP) sends a token once to each node it goes to: x reached / k when the group
 * spans nodes (nodes: NVLink domains of the EP group, cs_plan_group_span; reached:
 * cs_plan_moe_nodes_reached, min(k, nodes) or fewer with group-limited routing). allgather:
 * every rank's T h q tokens gathered over the EP group (S = ep T h q) and reduce-scattered
 * back. The most loaded rank holds the most loaded expert and E/ep - 1 at the mean:
 * (load_max + E/ep - 1) / (E/ep) of the mean. */
typedef struct cs_moe_comm {
    cs_coll dispatch;        /* CS_COLL_ALLTOALL or CS_COLL_ALLGATHER */
    cs_coll combine;         /* CS_COLL_ALLTOALL or CS_COLL_REDUCESCATTER */
    double bytes;            /* S of each, bytes */
    double rank_load;        /* the most loaded rank's volume over the mean (>= 1) */
    int nodes_reached;       /* the most nodes a token's copies go to (all-to-all) */
} cs_moe_comm;
void cs_plan_moe_comm(const cs_plan *p, int nodes, cs_moe_comm *out);
/* The most distinct nodes a token's top_k experts are on, for an EP group over `nodes`
 * nodes: min(nodes, top_k), and with group-limited routing at most router_group_topk groups
 * of ceil(nodes / router_groups) nodes each. DeepEP (the flex dispatcher) sends a token once
 * per node it reaches. */
int cs_plan_moe_nodes_reached(const cs_llm *M, int nodes);
/* The MoE keys of p checked (capacity factor > 0 or dropless, imbalance >= 1, etp divides
 * tp, edp as derived, experts only where the model has them). CS_EINVAL naming the key. */
int cs_plan_moe_check(const cs_plan *p, cs_err *err);

/* Check the plan against itself and the topology size (n_topo_ranks; 0 = skip): every
 * divisibility rule, positive sizes, known names. Errors say the key path, e.g.
 * "parallel.tp: must divide heads (96), got 7". */
int cs_plan_check(const cs_plan *p, int n_topo_ranks, cs_err *err);

/* --- Collective times on the plan's rank groups (comm.c) --- */
typedef struct cs_plan_ctx cs_plan_ctx;
/* A context owns the topology (opened from the plan's system.topo), its NCCL parameters and
 * the memo of collective times; reuse it across plans on the same system (search). */
int cs_plan_ctx_new(cs_plan_ctx **out, const cs_plan *p, cs_err *err);
void cs_plan_ctx_free(cs_plan_ctx *c);
const cs_topo *cs_plan_ctx_topo(const cs_plan_ctx *c);
/* Ranks of the topology. */
int cs_plan_ctx_ranks(const cs_plan_ctx *c);
/* A plan's cluster is built in part: the servers its GPUs sit on (ranks node major), the
 * fabric as at the whole cluster's size. Servers built, and *all the cluster's (0, *all 0:
 * the topology is built whole). */
int cs_plan_ctx_built(const cs_plan_ctx *c, int *all);
/* Build more of a cluster built in part so that ranks 0..gpus-1 are in it (cs_plan_eval does
 * it first). Returns 0 or a negative code. */
int cs_plan_ctx_cover(cs_plan_ctx *c, int gpus, cs_err *err);
/* Is NCCL mode on for this system? */
int cs_plan_ctx_nccl(const cs_plan_ctx *c);
/* SMs NCCL's kernels hold while a collective runs: one a channel (0 outside NCCL mode). */
int cs_plan_ctx_comm_sms(const cs_plan_ctx *c);
/* Collectives simulated (not memoised) so far. */
long cs_plan_ctx_sims(const cs_plan_ctx *c);

/* Rank-group kinds a plan issues collectives on. */
typedef enum cs_group {
    CS_G_TP,        /* tensor parallel */
    CS_G_CP,        /* context parallel (ring of K/V exchanges) */
    CS_G_EP,        /* expert parallel (all-to-all) */
    CS_G_DP,        /* data parallel of the dense parameters (ep x dp/ep ranks) */
    CS_G_EDP,       /* data parallel of the expert parameters (dp/ep ranks) */
    CS_G_PP,        /* pipeline neighbours: stage i -> i+1 of the same coordinates */
    CS_G_COUNT
} cs_group;
/* Time of collective coll of bytes (DESIGN §3 meaning of S) on every group of kind g of
 * plan p at once, seconds (the slowest group). All groups of the kind run together in
 * one simulation on the topology (rank maps), so groups that share NICs contend.
 * For CS_G_PP, coll is CS_COLL_SENDRECV and bytes go from each rank of stage i to the
 * same rank of stage i+1, for all i at once. Memoised by (coll, group shape, bytes). */
int cs_plan_comm(cs_plan_ctx *c, const cs_plan *p, cs_group g, cs_coll coll, uint64_t bytes,
                 double *t_s, cs_err *err);

/* The most NVLink domains (a cluster's nodes: an NVL72 rack is one) that one group of kind
 * g of plan p spans on topology t (1: every group stays inside a domain), over every group
 * of the kind (groups.c). *gsize: the group's ranks; *per_domain: GPUs of a domain (0 on
 * one machine). A negative code on failure. */
int cs_plan_group_span(const cs_topo *t, const cs_plan *p, cs_group g, int *gsize,
                       int *per_domain);
/* The ranks of one group of kind g (groups.c): tp, cp, ep, dp, the expert data-parallel
 * dp / ep (tp x cp x dp / (etp x ep) when the experts are folded), 2 for pp. */
int cs_plan_group_size(const cs_plan *p, cs_group g);


/* --- The whole plan (plan.c) --- */
typedef struct cs_plan_result {
    int gpus;                 /* tp x pp x dp x cp */
    double params;            /* Ψ */
    double step_time_s;       /* simulated step */
    double tokens_per_s;      /* B s / step */
    double model_tflops_per_gpu;  /* model FLOPs / step / gpus, TFLOP/s */
    double hw_tflops_per_gpu;     /* hardware FLOPs (recompute counted) / step / gpus */
    double mfu_pct, hfu_pct;  /* the above over the dtype's dense peak, % */
    double breakdown_s[10];   /* forward, backward, recompute, optimizer, pipeline_bubble,
                                 tp_exposed, cp_exposed, ep_exposed, pp_exposed, dp_exposed */
    cs_plan_memory mem;       /* per GPU, most loaded stage */
    double capacity_bytes;    /* the GPU's memory */
    int fits;                 /* total <= capacity */
    int microbatches;         /* m per DP replica */
    double dp_bytes_per_gpu;  /* bytes one GPU sends in DP collectives per step, ring
                                 volumes: allreduce 2(n-1)/n S, all-gather and
                                 reduce-scatter (n-1)/n S */
    double dp_coll_bytes;     /* DP collective sizes S summed over the step, bytes */
    const char *bottleneck;   /* largest non-compute breakdown entry, or "compute" */
    cs_step_costs costs;      /* what the step simulation ran */
    cs_step_result step;      /* the step (tasks kept when asked) */
    /* Groups that leave an NVLink domain (TP, CP, EP: their collectives then cross the
     * network): spans[k] domains for CS_G_TP, CS_G_CP, CS_G_EP (1 = inside one). */
    int spans[3], span_gsize[3], domain_gpus;
    /* SM contention: the share of the GPU's SMs NCCL's kernels hold while DP communication
     * runs (its channels / sm_count), and the compute time that adds, s per step */
    double comm_sm_share, comm_sm_extra_s;
    /* the cluster's servers built for the plan of topo_nodes (0, 0: the topology whole) */
    int topo_built, topo_nodes;
} cs_plan_result;
extern const char *const cs_plan_breakdown_names[10];

/* cs_plan_eval's flags: CS_PLAN_KEEP_TASKS keeps the step's tasks (pictures, traces);
 * CS_PLAN_STEP_ONLY leaves out what only a report reads (memory, fits, the groups'
 * NVLink-domain spans): a search ranks by step time and has its own memory figure. */
#define CS_PLAN_KEEP_TASKS 1
#define CS_PLAN_STEP_ONLY 2
/* Evaluate a checked plan on ctx's system (flags: CS_PLAN_*, 0 = the whole result).
 * Returns 0 or a negative code. */
int cs_plan_eval(cs_plan_ctx *ctx, const cs_plan *p, int flags, cs_plan_result *out,
                 cs_err *err);
/* Memory only (no topology needed). */
void cs_plan_memory_of(const cs_plan *p, cs_plan_memory *m);
void cs_plan_result_fini(cs_plan_result *r);

/* Printers (to a FILE the caller opened). */
void cs_plan_print_text(FILE *f, const cs_plan *p, const cs_plan_result *r);
int cs_plan_print_json(FILE *f, const cs_plan *p, const cs_plan_result *r);
/* Perfetto trace of the step's tasks (needs keep_tasks). */
int cs_plan_print_trace(FILE *f, const cs_plan *p, const cs_plan_result *r);

/* --- Search (search.c) --- */
/* One candidate layout. */
typedef struct cs_plan_cand {
    int tp, pp, dp, cp, ep, vp; /* parallel degrees (vp > 1: interleaved 1F1B) */
    int mbs;                 /* micro batch, sequences */
    int zero;                /* ZeRO stage */
    int sp;                  /* sequence parallelism */
    cs_recompute recompute;  /* activation recomputation */
} cs_plan_cand;
/* A candidate's outcome. */
typedef struct cs_plan_cand_result {
    cs_plan_cand c;          /* the layout */
    int ok;                  /* evaluated (0: dropped, see why) */
    int fits;                /* memory fits */
    double step_time_s, tokens_per_s, mfu_pct, mem_bytes;
    char why[96];            /* reason it was dropped */
} cs_plan_cand_result;
/* Enumerate candidate layouts for gpus GPUs around base (model, train, system fixed):
 * tp (divides heads, <= 8 and GPUs per node), pp (divides layers), cp, ep (divides experts
 * and dp), vp (interleaving when layers/pp allows), micro batch (powers of two dividing
 * B/dp), ZeRO 0-3, recompute, sp. Only layouts whose degrees divide go in. Deterministic
 * order. *out is malloc'd. */
int cs_plan_search_enum(const cs_plan *base, int gpus, cs_plan_cand **out, long *n,
                        cs_err *err);
/* The memory a search of the n candidates over gpus GPUs needs, estimated before it runs
 * (its largest collective's schedule and simulation state, every group at once, and the
 * results): 0 when it fits the memory budget (sim/limits.h), else CS_ELIMIT naming --gpus
 * and --max-memory. */
int cs_plan_search_check_memory(const cs_plan *base, int gpus, const cs_plan_cand *cands,
                                long n, cs_err *err);
/* Evaluate candidates [lo, hi) (independent items: any split over processes gives the same
 * results); cb is called after each with its index (may be NULL). results[i - lo]. */
typedef void (*cs_plan_search_cb)(void *ctx, long index, const cs_plan_cand_result *r);
int cs_plan_search_eval(cs_plan_ctx *ctx, const cs_plan *base, const cs_plan_cand *cands,
                        long lo, long hi, cs_plan_cand_result *results,
                        cs_plan_search_cb cb, void *cb_ctx, cs_err *err);
/* What one process did in cs_plan_search_run (counts; COLLSIM_STATS=1 prints them). */
typedef struct cs_plan_search_stats {
    long collectives;        /* distinct collectives the candidates issue (to simulate) */
    long pending_run;        /* of which simulated by this process, as work items */
    long evaluated;          /* candidates evaluated by this process */
    long simulated;          /* collectives this process simulated in all (pending_run plus
                                any memo miss while evaluating: 0 when collecting saw all) */
    long sims;               /* cs_sim runs they took (algorithms x protocols) */
} cs_plan_search_stats;
/* Evaluate every candidate into results[0..n), as cs_plan_search_eval over [0, n) -- but
 * as work items of sim/par.h: first the distinct collectives the candidates issue (noted
 * without simulating, memo.h), then the candidates from the memo they fill. Under MPI
 * both are spread over the ranks and every rank gets every result, so each collective is
 * simulated once in all and the results are the same bytes. Collective: every rank calls
 * it alike. st (may be NULL) gets this process's counts. */
int cs_plan_search_run(cs_plan_ctx *ctx, const cs_plan *base, const cs_plan_cand *cands,
                       long n, cs_plan_cand_result *results, cs_plan_search_stats *st,
                       cs_err *err);
/* Sort results: fitting ones first by step time, then dropped ones; ties by index. */
void cs_plan_search_rank(cs_plan_cand_result *r, long n);
/* JSON of every result (ranked): {"model", "gpus", "candidates": [...]}. */
int cs_plan_search_print_json(FILE *f, const cs_plan *p, int gpus,
                              const cs_plan_cand_result *r, long n);
/* Text (the top K that fit) or CSV (all) of ranked results. */
int cs_plan_search_print_table(FILE *f, const cs_plan *p, int gpus, int top, int csv,
                               const cs_plan_cand_result *r, long n);
/* Apply a candidate to a plan (a candidate of another pp drops the plan's explicit split:
 * parallel.pipeline_layers and Megatron's first/last stage layers). */
void cs_plan_apply(cs_plan *p, const cs_plan_cand *c);

#endif
