/* memory.c: memory per GPU of a training plan (scenarios layer): model states after the
 * ZeRO paper, activations after Korthikanti et al. times the microbatches in flight of the
 * schedule, and the buffers (DP buckets, ZeRO-3 gathers, fp32 logits). */
#include "scenarios/memory-private.h"
#include "scenarios/step-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of an activation element in memory (fp8 keeps 16-bit activations between
 * layers). */
static int act_bytes(const cs_plan *p) { return p->dtype == CS_DT_FP32 ? 4 : 2; }
/* Bytes per parameter of weights and of gradients. */
static int wbytes(const cs_plan *p) { return p->dtype == CS_DT_FP32 ? 4 : 2; }

const char *const cs_plan_memory_detail_names[CS_PLAN_MEMORY_DETAIL] = {"logits",
    "temporaries", "dp_buckets", "zero3_buffers", "nccl", "cuda_context", "workspace",
    "offloaded_to_host"};

double cs_plan_memory_detail(const cs_plan_memory *m, int i)
{
    const double v[CS_PLAN_MEMORY_DETAIL] = {m->logits, m->temporaries, m->dp_buckets,
        m->zero3_buffers, m->nccl, m->cuda_context, m->workspace, m->host_bytes};
    return i >= 0 && i < CS_PLAN_MEMORY_DETAIL ? v[i] : 0;
}

/* The number of dense layers of a MoE model (the first dense_layers), 0 for dense models. */
static double n_dense(const cs_llm *M)
{
    return M->experts > 0 ? fmin(M->dense_layers, M->layers) : 0;
}

double cs_plan_layer_act_bytes(const cs_plan *p)
{
    const cs_llm *M = &p->model;
    double s = (double)M->seq_len / p->cp, b = p->micro_batch, h = M->hidden, a = M->heads;
    double t = p->tp, sbh = s * b * h, scale = act_bytes(p) / 2.0;
    /* Korthikanti Table 2 with the 24 sbh of the MLP/attention parts that TP splits
     * generalised to 8 + 4 f/h (Megatron's theoretical_memory_usage.py), f = ffn_hidden
     * (k x moe_ffn_hidden + the shared experts for MoE) */
    double f = M->experts > 0 ? (double)M->top_k * M->moe_ffn_hidden + M->shared_ffn
                              : M->ffn_hidden, k = n_dense(M);
    double qd = (double)M->heads * cs_model_head_dim(M), split, core;
    int sp = p->sp && p->tp > 1;
    if (k > 0)                          /* the mean layer: k dense of L */
        f = (k * M->ffn_hidden + (M->layers - k) * f) / M->layers;
    /* the attention's 8 sbh: Q and the projection's input scale with a d_h / h, K and V
     * with the kv heads' kv d_h / h (GQA); the MLP's 4 f/h (the fc1 output and the
     * activation's output) are 6 f/h for a gated MLP, whose fc1 output is 2f wide
     * (Megatron's fused SwiGLU keeps it and the fc2 input) */
    split = 4 * (qd / h) + 4 * (M->kv_heads * cs_model_head_dim(M) / h) +
            (M->gated_mlp ? 6 : 4) * f / h;
    /* MLA: the 8 sbh of the attention are 2 bytes x cs_model_attn_act_elems (its latents
     * and heads) */
    if (cs_model_is_mla(M))
        split = 8 * (cs_model_attn_act_elems(M) / 4 / h) + (M->gated_mlp ? 6 : 4) * f / h;
    core = p->flash_attention ? 0 : 5 * a * s / (h * t);
    switch (p->recompute) {
    case CS_RC_FULL: {
        /* only the layer's input stays, 2sbh; with sequence parallelism it is split over
         * the tp ranks (Korthikanti et al. §5: the checkpoint is stored sequence-parallel);
         * where only a share of the layers is recomputed the others keep everything */
        double fr = cs_plan_recompute_frac(p), keep = 0;
        if (fr < 1) {
            cs_plan q = *p;
            q.recompute = CS_RC_NONE;
            keep = cs_plan_layer_act_bytes(&q);
        }
        return fr * 2 * sbh * scale / (sp ? t : 1) + (1 - fr) * keep;
    }
    case CS_RC_SELECTIVE:
        return (sp ? sbh * (10 + split) / t : sbh * (10 + split / t)) * scale;
    default:
        return (sp ? sbh * ((10 + split) / t + core) : sbh * (10 + split / t + core)) * scale;
    }
}

/* Layers of stage st under split (cs_plan_stage_layers; NULL = even). */
double cs__memory_stage_layers(const cs_plan *p, const int *split, int st)
{
    int v = p->schedule == CS_PS_GPIPE ? 1 : p->vp, c;
    double n = 0;
    if (!split)
        return (double)p->model.layers / p->pp;
    for (c = 0; c < v; c++)
        n += split[c * p->pp + st];
    return n;
}

/* Parameters held by stage st of Ls layers (before ZeRO sharding), split into dense
 * (replicated over dp) and expert (over dp/ep) parts, per GPU (divided by tp, experts also
 * by ep). */
void cs__memory_stage_params(const cs_plan *p, int st, double Ls, double *dense,
                             double *expert)
{
    const cs_llm *M = &p->model;
    double d, e, V = M->vocab, h = M->hidden;
    cs_model_layer_params(M, &d, &e);
    *dense = Ls * d / p->tp;
    *expert = Ls * e / cs_plan_etp(p) / p->ep;     /* experts over etp (default tp) x ep */
    if (st == p->pp - 1 && M->mtp_layers > 0) {     /* DeepSeek-V3's MTP modules, last */
        cs_llm one = *M;
        one.dense_layers = 0;
        cs_model_layer_params(&one, &d, &e);
        *dense += (cs_model_mtp_params(M) - M->mtp_layers * e) / p->tp;
        *expert += M->mtp_layers * e / cs_plan_etp(p) / p->ep;
    }
    if (st == 0)
        *dense += (V * h + (M->gated_mlp ? 0 : (double)M->seq_len * h)) / p->tp;
    if (st == p->pp - 1)
        *dense += (p->pp > 1 || !cs_model_is_tied(M) ? V * h / p->tp : 0) + 2 * h;
}

/* The degree the dense parameters are sharded over by ZeRO (HSDP: its shard group), and
 * the expert parameters' (dp/ep, cut alike by HSDP's replicas). Context parallel ranks hold
 * the same parameters, so ZeRO shards over dp x cp: Megatron's distributed optimizer uses
 * the data-parallel-with-context-parallel group, torchtitan's FSDP the dp_shard x cp mesh. */
static double shard_dense(const cs_plan *p)
{
    return p->hsdp > 0 ? p->hsdp : (double)p->dp * p->cp;
}
static double shard_expert(const cs_plan *p)
{
    double edp = cs_plan_group_size(p, CS_G_EDP);   /* dp / ep, or folded tp cp dp / etp ep */
    return p->hsdp > 0 ? fmax(1, edp * p->hsdp / p->dp) : edp;
}

int cs_plan_zero_run(const cs_plan *p) { return p->zero >= 3 && p->pp > 1 ? 1 : p->zero; }

int cs__memory_prefetch(const cs_plan *p, double layer_params)
{
    int d = p->prefetch > 0 ? p->prefetch : 1;
    if (p->prefetch_params > 0 && layer_params > 0)
        d = (int)fmax(1, fmin(64, floor(p->prefetch_params / layer_params)));
    /* DeepSpeed's stage3_max_live_parameters: never more gathered than that, so at most
     * max_live / layer layers at once, one of them computing */
    if (p->max_live_params > 0 && layer_params > 0) {
        double live = floor(p->max_live_params / layer_params);
        if (live - 1 < d)
            d = live - 1 < 0 ? 0 : (int)(live - 1);
    }
    return d;
}

/* Model states of stage st (ZeRO paper) into m's weights, gradients, optimizer, and the
 * bytes moved to the host into host_bytes. */
static void stage_states(const cs_plan *p, const int *split, int st, cs_plan_memory *m)
{
    double K, dd, ee, sd = shard_dense(p), se = shard_expert(p);
    int mixed = p->dtype != CS_DT_FP32, z = cs_plan_zero_run(p);
    cs__memory_stage_params(p, st, cs__memory_stage_layers(p, split, st), &dd, &ee);
    /* ZeRO paper: K = 12 for mixed-precision Adam (fp32 master, momentum, variance);
     * fp32 Adam keeps momentum and variance (8); SGD momentum (+ master) 8 or 4 */
    K = p->optimizer_sgd ? (mixed ? 8 : 4) : (mixed ? 12 : 8);
    m->weights = wbytes(p) * (dd / (z >= 3 ? sd : 1) + ee / (z >= 3 ? se : 1));
    m->gradients = wbytes(p) * (dd / (z >= 2 ? sd : 1) +
                                ee / (z >= 2 ? (z >= 3 ? se : (double)cs_plan_group_size(p, CS_G_EDP)) : 1));
    m->optimizer = K * (dd / (z >= 1 ? sd : 1) +
                        ee / (z >= 1 ? (z >= 3 ? se : (double)cs_plan_group_size(p, CS_G_EDP)) : 1));
    m->host_bytes = 0;
    if (p->offload_optimizer) {
        m->host_bytes += m->optimizer;
        m->optimizer = 0;
    }
    /* ZeRO-Infinity offload_param / FSDP CPUOffload: the parameter shard and its gradient
     * shard live on the host; the GPU holds only the gathered layers (zero3_buffers) */
    if (p->offload_params) {
        m->host_bytes += m->weights + m->gradients;
        m->weights = m->gradients = 0;
    }
}

void cs_plan_model_states(const cs_plan *p, cs_plan_memory *m)
{
    double best = -1;
    int st, *split = NULL;
    cs_err err;
    if (cs_plan_stage_layers(p, &split, NULL, &err) < 0)
        split = NULL;                   /* an unchecked plan: the even split */
    for (st = 0; st < p->pp; st++) {
        cs_plan_memory x;
        stage_states(p, split, st, &x);
        if (x.weights + x.gradients + x.optimizer > best) {
            best = x.weights + x.gradients + x.optimizer;
            m->weights = x.weights;
            m->gradients = x.gradients;
            m->optimizer = x.optimizer;
        }
    }
    free(split);
}

/* NCCL buffers of one communicator: every channel keeps a receive buffer per ring peer for
 * each protocol: Simple NCCL_BUFFSIZE 4 MiB (NCCL docs, "Environment Variables":
 * NCCL_BUFFSIZE default 4194304), LL128 4,915,200 B and LL 524,288 B (NCCL src/include/
 * device.h: DEFAULT_LL128_BUFFSIZE = 120 elems x 640 threads x 8 steps x 8 B,
 * DEFAULT_LL_BUFFSIZE = 8 lines x 512 threads x 8 steps x 16 B). Channels: assumption 16,
 * the ring channel count NCCL_DEBUG=INFO prints on an 8-GPU H100 NVSwitch node ("16 coll
 * channels"; NCCL_MIN/MAX_NCHANNELS change it); tree and NVLS buffers not counted. */
#define NCCL_CHANNELS 16
#define NCCL_PEER_BYTES (4194304.0 + 4915200.0 + 524288.0)
/* CUDA context on the GPU, outside PyTorch's allocator (PyTorch docs, "CUDA semantics",
 * Memory management: memory_allocated/memory_reserved do not count it): assumption 0.5 GB,
 * an H100 with CUDA 12 and lazy module loading as nvidia-smi shows it (0.3-1 GB across
 * GPUs and CUDA versions). */
#define CUDA_CONTEXT_BYTES 0.5e9
/* cuBLAS workspace: PyTorch allocates one per handle and stream, 32 MiB on Hopper
 * (CUBLAS_WORKSPACE_CONFIG default ":4096:8" = 8 x 4 MiB; PyTorch docs "Reproducibility"
 * and cuBLAS docs, cublasSetWorkspace: 32 MiB recommended on Hopper). */
#define CUBLAS_WORKSPACE_BYTES (32.0 * 1048576)

double cs__memory_nccl_bytes(const cs_plan *p)
{
    double comms = (p->tp > 1) + (p->cp > 1) + (p->ep > 1) + (p->dp > 1) +
                   (p->ep > 1 && cs_plan_group_size(p, CS_G_EDP) > 1) + (p->hsdp > 0 && p->hsdp < p->dp);
    /* pipeline sends: a peer each way (the previous and the next stage) */
    return NCCL_CHANNELS * NCCL_PEER_BYTES * (comms + (p->pp > 1 ? 2 : 0));
}

/* Memory of stage st: model states, activations (its layers times the microbatch-chunks
 * the schedule keeps in flight on it, the embedding outputs on stage 0), and the buffers. */
static void stage_memory(const cs_plan *p, const int *split, int st, cs_plan_memory *x)
{
    const cs_llm *M = &p->model;
    int v = p->schedule == CS_PS_GPIPE ? 1 : p->vp;
    int mb = (int)(p->global_batch / p->dp / p->micro_batch);
    cs_sched_kind k = p->schedule == CS_PS_GPIPE ? CS_PS_GPIPE
                    : v > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B;
    double T = (double)p->micro_batch * M->seq_len / p->cp, layer_act = cs_plan_layer_act_bytes(p);
    double Ls = cs__memory_stage_layers(p, split, st), dd, ee, lp, f, stash;
    int peak = cs__step_peak(k, p->pp, v, mb, st), zero3 = cs_plan_zero_run(p) >= 3;
    memset(x, 0, sizeof *x);
    stage_states(p, split, st, x);
    x->activations = peak * Ls / v * layer_act;
    if (st == 0)
        x->activations += peak * T * M->hidden * act_bytes(p) / (p->sp ? p->tp : 1) / v;
    /* activation offload: a layer's stash leaves after its forward and returns before its
     * backward, so the GPU holds the computing layer's and the one in transit */
    if (p->offload_activations && x->activations > 2 * layer_act) {
        x->host_bytes += x->activations - 2 * layer_act;
        x->activations = 2 * layer_act;
    }
    cs__memory_stage_params(p, st, Ls, &dd, &ee);
    lp = Ls > 0 ? (dd + ee) / Ls : 0;                /* one layer's parameters per GPU */
    /* Megatron's vocab-parallel cross entropy keeps the microbatch's logits in fp32 and
     * computes their gradient in fp32: 2 x s b V/tp x 4 bytes on the last stage.
     * F.cross_entropy(pred.flatten(0, 1).float(), labels) (torchtitan's loss_fn, torchtune,
     * Hugging Face's upcast logits): the 16-bit logits (2 bytes), their fp32 copy (4) and
     * the fp32 log-softmax it saves (4) are live together in the loss's forward, 10 x
     * s b V/tp (the backward frees the copy and the 16-bit logits before the fp32 gradient:
     * at most 4 + 4 + 2) */
    if (st == p->pp - 1)
        x->logits = (p->loss_pytorch ? 10.0 : 8.0) * T * M->vocab / p->tp;
    /* backward of the MLP holds the gradient of its f-wide intermediate (two with a gated
     * MLP); full recompute rebuilds one layer's activations before its backward */
    f = M->experts > 0 ? (double)M->top_k * M->moe_ffn_hidden + M->shared_ffn : M->ffn_hidden;
    x->temporaries = T * f / p->tp * act_bytes(p) * (M->gated_mlp ? 2 : 1);
    if (p->recompute == CS_RC_FULL) {
        cs_plan q = *p;
        q.recompute = CS_RC_NONE;
        stash = cs_plan_layer_act_bytes(&q);
        x->temporaries += stash;
    }
    /* DDP / ZeRO-1/2: two gradient buckets in flight, never more than the gradients */
    if (p->dp > 1 && !zero3) {
        double buckets = 2 * p->bucket_MB * 1048576.0, grads = (dd + ee) * wbytes(p);
        x->dp_buckets = buckets < grads ? buckets : grads;
    }
    /* ZeRO-3 / FSDP: the computing layer gathered, the prefetched ones, and in backward
     * the layer's unsharded gradient before its reduce-scatter (FSDP2's per-layer
     * all-gather and reduce-scatter outputs) */
    if (zero3 && (p->dp > 1 || p->offload_params) && Ls > 0)
        x->zero3_buffers = (2.0 + cs__memory_prefetch(p, lp)) * lp * wbytes(p);
    x->nccl = cs__memory_nccl_bytes(p);
    x->cuda_context = CUDA_CONTEXT_BYTES;
    x->workspace = CUBLAS_WORKSPACE_BYTES;
    x->other = x->logits + x->temporaries + x->dp_buckets + x->zero3_buffers + x->nccl +
               x->cuda_context + x->workspace;
    x->total = x->weights + x->gradients + x->optimizer + x->activations + x->other;
}

void cs_plan_memory_of(const cs_plan *p, cs_plan_memory *m)
{
    int *split = NULL, st;
    cs_err err;
    if (cs_plan_stage_layers(p, &split, NULL, &err) < 0)
        split = NULL;                   /* an unchecked plan: the even split */
    memset(m, 0, sizeof *m);
    m->total = -1;
    for (st = 0; st < p->pp; st++) {
        cs_plan_memory x;
        stage_memory(p, split, st, &x);
        if (x.total > m->total)
            *m = x;
    }
    free(split);
}
