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
    /* the attention's 8 sbh (Q, K, V, the projection's input) scale with a d_h / h */
    split = 8 * (qd / h) + 4 * f / h;
    core = p->flash_attention ? 0 : 5 * a * s / (h * t);
    switch (p->recompute) {
    case CS_RC_FULL:
        return 2 * sbh * scale;
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
    *expert = Ls * e / p->tp / p->ep;
    if (st == 0)
        *dense += (V * h + (M->gated_mlp ? 0 : (double)M->seq_len * h)) / p->tp;
    if (st == p->pp - 1)
        *dense += (p->pp > 1 || !cs_model_is_tied(M) ? V * h / p->tp : 0) + 2 * h;
}

/* Model states of stage st (ZeRO paper) into m's weights, gradients, optimizer. */
static void stage_states(const cs_plan *p, const int *split, int st, cs_plan_memory *m)
{
    double K, dd, ee, edp = (double)p->dp / p->ep;
    int mixed = p->dtype != CS_DT_FP32;
    cs__memory_stage_params(p, st, cs__memory_stage_layers(p, split, st), &dd, &ee);
    /* ZeRO paper: K = 12 for mixed-precision Adam (fp32 master, momentum, variance);
     * fp32 Adam keeps momentum and variance (8); SGD momentum (+ master) 8 or 4 */
    K = p->optimizer_sgd ? (mixed ? 8 : 4) : (mixed ? 12 : 8);
    m->weights = wbytes(p) * (dd / (p->zero >= 3 ? p->dp : 1) + ee / (p->zero >= 3 ? edp : 1));
    m->gradients = wbytes(p) * (dd / (p->zero >= 2 ? p->dp : 1) + ee / (p->zero >= 2 ? edp : 1));
    m->optimizer = K * (dd / (p->zero >= 1 ? p->dp : 1) + ee / (p->zero >= 1 ? edp : 1));
    if (p->offload_optimizer)
        m->optimizer = 0;
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

/* Memory of an uneven split: each stage's model states, its activations (its layers times
 * the microbatch-chunks the schedule keeps in flight on it, the embedding outputs on stage
 * 0) and buffers; the stage with the largest total. */
static void memory_uneven(const cs_plan *p, const int *split, cs_plan_memory *m)
{
    const cs_llm *M = &p->model;
    int v = p->schedule == CS_PS_GPIPE ? 1 : p->vp, st;
    int mb = (int)(p->global_batch / p->dp / p->micro_batch);
    cs_sched_kind k = p->schedule == CS_PS_GPIPE ? CS_PS_GPIPE
                    : v > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B;
    double T = (double)p->micro_batch * M->seq_len / p->cp, layer_act = cs_plan_layer_act_bytes(p);
    memset(m, 0, sizeof *m);
    m->total = -1;
    for (st = 0; st < p->pp; st++) {
        cs_plan_memory x;
        double Ls = cs__memory_stage_layers(p, split, st), dd, ee;
        int peak = cs__step_peak(k, p->pp, v, mb, st);
        memset(&x, 0, sizeof x);
        stage_states(p, split, st, &x);
        x.activations = peak * Ls / v * layer_act;
        if (st == 0)
            x.activations += peak * T * M->hidden * act_bytes(p) / (p->sp ? p->tp : 1) / v;
        cs__memory_stage_params(p, st, Ls, &dd, &ee);
        if (p->dp > 1 && p->zero < 3)
            x.other += 2 * p->bucket_MB * 1048576.0;
        if (p->zero >= 3 && p->dp > 1 && Ls > 0)
            x.other += 2 * (dd + ee) / Ls * wbytes(p);
        if (p->pp == 1)
            x.other += 4.0 * T * M->vocab / p->tp;
        x.total = x.weights + x.gradients + x.optimizer + x.activations + x.other;
        if (x.total > m->total)
            *m = x;
    }
}

void cs_plan_memory_of(const cs_plan *p, cs_plan_memory *m)
{
    const cs_llm *M = &p->model;
    int v = p->schedule == CS_PS_GPIPE ? 1 : p->vp;
    double Lc = (double)M->layers / (p->pp * v), T = (double)p->micro_batch * M->seq_len / p->cp;
    double dd, ee, chunk_params;
    int *split = NULL, peak;
    cs_err err;
    if (cs_plan_stage_layers(p, &split, NULL, &err) == 0 && split) {
        memory_uneven(p, split, m);
        free(split);
        return;
    }
    peak = cs__step_peak(p->schedule == CS_PS_GPIPE ? CS_PS_GPIPE
                             : v > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B, p->pp, v,
                             (int)(p->global_batch / p->dp / p->micro_batch), 0);
    memset(m, 0, sizeof *m);
    cs_plan_model_states(p, m);
    m->activations = peak * Lc * cs_plan_layer_act_bytes(p);
    /* stage 0 also stashes the embedding output of each microbatch in flight */
    m->activations += peak * T * M->hidden * act_bytes(p) / (p->sp ? p->tp : 1) / v;
    cs__memory_stage_params(p, 0, (double)M->layers / p->pp, &dd, &ee);
    chunk_params = (dd + ee) / v;
    /* buffers: DDP/ZeRO-1/2 gradient buckets (two in flight), ZeRO-3 gathered chunk
     * (current and prefetched), fp32 logits of one microbatch on the last stage */
    if (p->dp > 1 && p->zero < 3) {
        /* two buckets, but never more than the gradients they hold (one bucket of 40 GB
         * for 0.9 GB of gradients holds 0.9 GB) */
        double buckets = 2 * p->bucket_MB * 1048576.0, grads = (dd + ee) * wbytes(p);
        m->other += buckets < grads ? buckets : grads;
    }
    if (p->zero >= 3 && p->dp > 1)
        m->other += 2 * chunk_params / Lc * wbytes(p);
    if (p->pp == 1)
        m->other += 4.0 * T * M->vocab / p->tp;
    m->total = m->weights + m->gradients + m->optimizer + m->activations + m->other;
}
