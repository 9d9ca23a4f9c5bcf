/* kernels.c: the kernels a framework runs for one transformer layer, one microbatch, on one
 * GPU (scenarios layer; compute.h), as Megatron-Core with Transformer Engine runs them:
 * the GEMMs at their shapes after the TP / SP / CP / EP split, the attention kernel
 * (FlashAttention-class, or the unfused scores-softmax-values path), norms, rotary,
 * activation, residual adds, the FP8 casts around the FP8 GEMMs, MoE routing, permutation
 * and grouped expert GEMMs, and the first stage's embedding and the last stage's logits and
 * loss. Each kernel carries its FLOPs and HBM bytes forward and backward; compute.c times
 * it. Formulas: docs/plans.md "Compute". */
#include "scenarios/compute.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct klist {
    const cs_plan *p;
    cs_kernel *k;
    int n;
} klist;

static cs_kernel *add(klist *l, const char *name, cs_kkind kind, double count)
{
    cs_kernel *k;
    if (l->n >= CS_LAYER_KERNELS || count <= 0)
        return NULL;
    k = &l->k[l->n++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    k->kind = kind;
    k->count = count;
    return k;
}

/* Does the plan run its linear layers in FP8 (Transformer Engine)? */
static int fp8(const cs_plan *p) { return p->dtype == CS_DT_FP8; }
/* Bytes of an activation element (16-bit but for fp32 plans). */
static double abytes(const cs_plan *p) { return p->dtype == CS_DT_FP32 ? 4 : 2; }

/* A GEMM (m x k) x (k x n), count times (grouped: one launch). FP8 plans run it in FP8
 * when lin is set (the transformer layers' linear layers; TE) with the casts of its
 * output gradient in backward (read 16-bit, write the FP8 copy and its transpose: 4 bytes
 * an element; current scaling reads it once more for the amax: 6); cast_in adds the cast
 * of its input in forward (3 bytes an element; 5 with current scaling) where no norm or
 * activation kernel writes the FP8 input itself. */
static void gemm(klist *l, const char *name, double m, double k, double n, double count,
                 int grouped, int lin, int cast_in, int tp_overlap)
{
    const cs_plan *p = l->p;
    cs_kernel *g = add(l, name, CS_K_GEMM, count);
    double cur = p->fp8_recipe == CS_FP8_CURRENT ? 2 : 0;
    if (!g)
        return;
    g->m = m, g->k = k, g->n = n;
    g->grouped = grouped;
    g->fwd_flops = 2 * m * k * n;
    g->bwd_flops = 2 * g->fwd_flops;
    g->fp8 = lin && fp8(p);
    g->tp_overlap = tp_overlap;
    g->fwd_bytes = (g->fp8 ? 1 : abytes(p)) * (m * k + k * n) + abytes(p) * m * n;
    g->bwd_bytes = 2 * g->fwd_bytes;
    if (g->fp8) {
        char nm[24];
        cs_kernel *c;
        snprintf(nm, sizeof nm, "%.16s.cast", name);
        if ((c = add(l, nm, CS_K_ELEM, count))) {
            c->fwd_bytes = cast_in ? (3 + cur) * m * k : 0;
            c->bwd_bytes = (4 + cur) * m * n;
        }
    }
}

/* An elementwise kernel of fwd bytes forward and bwd bytes backward. */
static void elem(klist *l, const char *name, double fwd, double bwd)
{
    cs_kernel *e = add(l, name, CS_K_ELEM, 1);
    if (e)
        e->fwd_bytes = fwd, e->bwd_bytes = bwd;
}

/* An elementwise step run as its fused kernel (Transformer Engine, torch.compile) or as the
 * n eager PyTorch ops it is written with, moving eager_x the fused bytes in all. */
static void elem_op(klist *l, const char *name, double fwd, double bwd, int n_eager,
                    double eager_x)
{
    cs_kernel *e;
    if (!l->p->eager || n_eager <= 1) {
        elem(l, name, fwd, bwd);
        return;
    }
    if ((e = add(l, name, CS_K_ELEM, n_eager)))
        e->fwd_bytes = fwd * eager_x / n_eager, e->bwd_bytes = bwd * eager_x / n_eager;
}

/* A norm over T tokens of width h: LayerNorm is one kernel even in eager PyTorch; RMSNorm
 * (LLaMA family) in eager PyTorch is float(), pow(2), mean, rsqrt, mul, type_as, mul by the
 * weight: 6 passes moving 36 bytes an element where the fused kernel moves 4 (read 2,
 * write 2); backward about twice that. */
static void norm(klist *l, const char *name, double n_el)
{
    const cs_plan *p = l->p;
    double q = abytes(p);
    if (p->model.gated_mlp)
        elem_op(l, name, 2 * q * n_el, 3 * q * n_el, 6, 36.0 / 4);
    else
        elem(l, name, 2 * q * n_el, 3 * q * n_el);
}

/* The attention core of one layer: T query tokens (b sequences of s/cp) of heads/tp heads
 * against the keys each query sees (causal: half the sequence on average). */
static void attention(klist *l)
{
    const cs_plan *p = l->p;
    const cs_llm *M = &p->model;
    double t = p->tp, b = p->micro_batch, s = M->seq_len, T = b * s / p->cp;
    double qk = cs_model_qk_dim(M), v = cs_model_v_dim(M), hq = M->heads / t;
    double hkv = M->kv_heads >= p->tp ? M->kv_heads / t : 1, q = abytes(p);
    /* keys a query sees: causal, i + 1 of a full sequence (s / 2 on average), or of a
     * window w (w - w^2 / 2s on average; cs_model_keys_per_query mixes windowed and full
     * layers) */
    double w = cs_model_keys_per_query(M), keys = w - w * w / (2 * s);
    if (p->flash_attention) {
        cs_kernel *a = add(l, "attention", CS_K_ATTN, 1);
        if (!a)
            return;
        a->m = T * hq;
        a->k = qk > v ? qk : v;
        a->n = keys < s / p->cp ? keys : s / p->cp;   /* CP: the kernel runs piece by piece */
        /* QK^T and PV: 2 (qk + v) FLOPs per query-key pair; backward recomputes QK^T and
         * runs dV, dP, dQ, dK: 2.5 x the forward (FlashAttention-2 paper §3.1) */
        a->fwd_flops = 2 * T * hq * keys * (qk + v);
        a->bwd_flops = 2.5 * a->fwd_flops;
        a->fwd_bytes = q * (T * hq * (qk + v) + (s / p->cp) * b * hkv * (qk + v));
        a->bwd_bytes = 2.5 * a->fwd_bytes;
    } else {
        /* Megatron's unfused path: Q K^T for every pair (the mask is applied after), the
         * fused scale-mask-softmax, dropout (1-byte mask), softmax x V; the b (a/t) (s/cp) w
         * scores go through memory: written, read and written by softmax and dropout, read
         * by the values GEMM - 13 bytes a score forward, about twice backward */
        double scores = b * hq * (s / p->cp) * w;
        gemm(l, "scores", s / p->cp, qk, w, b * hq, 1, 0, 0, 0);
        elem(l, "softmax", 13 * scores, 2 * 13 * scores);
        gemm(l, "values", s / p->cp, w, v, b * hq, 1, 0, 0, 0);
    }
}

/* A dense MLP of inner width f on T tokens (TP splits f). */
static void mlp(klist *l, const char *prefix, double f, double T, int overlap)
{
    const cs_plan *p = l->p;
    const cs_llm *M = &p->model;
    double t = p->tp, h = M->hidden, q = abytes(p), g = M->gated_mlp ? 2 : 1;
    char n1[24], n2[24], na[24];
    snprintf(n1, sizeof n1, "%sfc1", prefix);
    snprintf(na, sizeof na, "%sact", prefix);
    snprintf(n2, sizeof n2, "%sfc2", prefix);
    /* fc1 (gate and up fused, TE's LayerNormMLP), the activation (SwiGLU reads 2 f/t,
     * writes f/t; GeLU reads and writes f/t; it writes the FP8 input of fc2 itself), fc2 */
    gemm(l, n1, T, h, g * f / t, 1, 0, 1, 0, overlap);
    /* eager SwiGLU: silu, then the product (10 bytes an f-element against the fused 6) */
    if (g > 1)
        elem_op(l, na, q * T * (g + 1) * f / t, q * T * (2 * g + 1) * f / t, 2, 10.0 / 6);
    else
        elem(l, na, q * T * (g + 1) * f / t, q * T * (2 * g + 1) * f / t);
    gemm(l, n2, T, f / t, h, 1, 0, 1, 0, overlap);
}

/* The MoE part of a layer: router, top-k, permutation of the routed token copies to their
 * experts and back, the local experts' grouped GEMMs at tokens per expert = T k ep / E
 * (x the load imbalance of the most loaded expert), shared experts. */
static void moe(klist *l, double T)
{
    const cs_plan *p = l->p;
    const cs_llm *M = &p->model;
    double h = M->hidden, q = abytes(p), E = M->experts, k = M->top_k;
    double g = M->gated_mlp ? 2 : 1, rows;
    cs_moe_shape ms;
    cs_plan_moe_shape(p, &ms);
    gemm(l, "router", T, h, E, 1, 0, 0, 0, 0);
    elem(l, "topk", 4.0 * T * E * 3, 4.0 * T * E * 3);
    elem(l, "permute", 2 * q * T * k * h, 2 * q * T * k * h);
    /* the local experts of one grouped GEMM each: the most loaded at tokens_max rows, the
     * others at tokens_mean (cs_plan_moe_shape: imbalance, capacity, etp) */
    if (ms.n_local > 1) {
        gemm(l, "experts.fc1", ms.tokens_mean, h, g * ms.width, ms.n_local - 1, 1, 1, 1, 0);
        gemm(l, "experts.fc2", ms.tokens_mean, ms.width, h, ms.n_local - 1, 1, 1, 0, 0);
    }
    gemm(l, "expert_max.fc1", ms.tokens_max, h, g * ms.width, 1, 1, 1, 1, 0);
    gemm(l, "expert_max.fc2", ms.tokens_max, ms.width, h, 1, 1, 1, 0, 0);
    rows = ms.tokens_max + (ms.n_local - 1) * ms.tokens_mean;
    elem(l, "experts.act", q * rows * (g + 1) * ms.width, q * rows * (2 * g + 1) * ms.width);
    elem(l, "unpermute", 2 * q * T * k * h, 2 * q * T * k * h);
    if (M->shared_ffn > 0)
        mlp(l, "shared.", M->shared_ffn, T, 1);
}

static void layer(klist *l, int is_moe)
{
    const cs_plan *p = l->p;
    const cs_llm *M = &p->model;
    double t = p->tp, T = (double)p->micro_batch * M->seq_len / p->cp, h = M->hidden;
    double dh = cs_model_head_dim(M), kv = M->kv_heads * dh, qd = M->heads * dh, q = abytes(p);
    double sp = p->sp && p->tp > 1 ? t : 1, drop = M->gated_mlp ? 0 : 1;
    /* norms on the sequence-parallel region: read x, write y (backward reads x and dy,
     * writes dx); residual add with dropout (GPT: a 1-byte mask) reads two tensors and
     * writes one */
    norm(l, "norm1", T * h / sp);
    {
        /* the attention's projections (cs_model_attn_gemms: QKV and output, or MLA's down
         * and up projections); TP splits n, or k of the output projection, where the GEMM
         * is split (MLA's down projections run whole on every TP rank) */
        static const char *const mha[] = {"qkv", "proj"};
        static const char *const mla5[] = {"q_down", "q_up", "kv_down", "kv_up", "proj"};
        static const char *const mla4[] = {"q", "kv_down", "kv_up", "proj"};
        double gk[5], gn[5];
        int split[5], ng = cs_model_attn_gemms(M, gk, gn, split), i;
        const char *const *names = ng == 2 ? mha : ng == 5 ? mla5 : mla4;
        for (i = 0; i < ng; i++) {
            int last = i == ng - 1;
            double k = last && split[i] ? gk[i] / t : gk[i];
            double n = !last && split[i] ? gn[i] / t : gn[i];
            if (last)
                attention(l);
            gemm(l, names[i], T, k, n, 1, 0, 1, last, 1);
            /* rotary embedding of q and k after the first projection (LLaMA family);
             * eager PyTorch: float(), complex product, type_as - about 20 bytes an element
             * where the fused kernel moves 4 */
            if (i == 0 && M->gated_mlp)
                elem_op(l, "rotary", 2 * q * T * (qd + kv) / t, 2 * q * T * (qd + kv) / t, 4, 5);
        }
    }
    elem(l, "residual1", (3 * q + drop) * T * h / sp, (2 * q + drop) * T * h / sp);
    norm(l, "norm2", T * h / sp);
    if (is_moe)
        moe(l, T);
    else
        mlp(l, "", M->ffn_hidden, T, 1);
    elem(l, "residual2", (3 * q + drop) * T * h / sp, (2 * q + drop) * T * h / sp);
}

int cs_plan_kernels(const cs_plan *p, cs_kpart part, cs_kernel *out)
{
    const cs_llm *M = &p->model;
    double t = p->tp, T = (double)p->micro_batch * M->seq_len / p->cp, h = M->hidden;
    double V = M->vocab, q = abytes(p), sp = p->sp && p->tp > 1 ? t : 1;
    klist l = {p, out, 0};
    int i;
    switch (part) {
    case CS_KP_DENSE:
    case CS_KP_MOE:
        layer(&l, part == CS_KP_MOE);
        break;
    case CS_KP_EMBED:
        /* gather T rows of the table (+ the learned positions of GPT); backward adds the
         * rows' gradients into the table's */
        elem(&l, "embedding", (M->gated_mlp ? 2 : 3) * q * T * h, 3 * q * T * h);
        break;
    case CS_KP_HEAD:
        /* final norm, the output layer (16-bit even in FP8 plans: Megatron runs the
         * output layer outside Transformer Engine), cross-entropy in fp32 over V/t:
         * cast up, max, exp-sum, loss (about 18 bytes a logit), backward softmax minus
         * one-hot and the cast down (14) */
        norm(&l, "final_norm", T * h / sp);
        gemm(&l, "logits", T, h, V / t, 1, 0, 0, 0, 0);
        elem(&l, "cross_entropy", 18.0 * T * V / t, 14.0 * T * V / t);
        /* multi-token prediction modules (DeepSeek-V3): their layer, projection and
         * logits, timed as one GEMM of their FLOPs on T x h inputs */
        if (cs_model_mtp_fwd_flops(M) > 0)
            gemm(&l, "mtp", T, h, cs_model_mtp_fwd_flops(M) * p->micro_batch / p->cp /
                 (2 * T * h) / t, 1, 0, 1, 0, 0);
        break;
    }
    for (i = 0; i < l.n; i++)
        cs_kernel_time(p, &out[i]);
    return l.n;
}

void cs_plan_part_times(const cs_plan *p, cs_kpart part, cs_layer_times *t)
{
    cs_kernel ks[CS_LAYER_KERNELS];
    int n = cs_plan_kernels(p, part, ks), i;
    t->fwd = t->bwd = t->core_fwd = t->tp_gemm_fwd = 0;
    for (i = 0; i < n; i++) {
        double c = ks[i].count;
        t->fwd += c * ks[i].fwd_s;
        t->bwd += c * ks[i].bwd_s;
        if (ks[i].kind == CS_K_ATTN || !strcmp(ks[i].name, "scores") ||
            !strcmp(ks[i].name, "softmax") || !strcmp(ks[i].name, "values"))
            t->core_fwd += c * ks[i].fwd_s;
        if (ks[i].tp_overlap)
            t->tp_gemm_fwd += c * ks[i].fwd_s;
    }
}

void cs_plan_layer_times(const cs_plan *p, cs_layer_times *t)
{
    const cs_llm *M = &p->model;
    double k = M->experts > 0 ? fmin(M->dense_layers, M->layers) : 0, L = M->layers;
    cs_layer_times d;
    cs_plan_part_times(p, M->experts > 0 ? CS_KP_MOE : CS_KP_DENSE, t);
    if (k > 0) {
        cs_plan_part_times(p, CS_KP_DENSE, &d);
        t->fwd = (k * d.fwd + (L - k) * t->fwd) / L;
        t->bwd = (k * d.bwd + (L - k) * t->bwd) / L;
        t->core_fwd = (k * d.core_fwd + (L - k) * t->core_fwd) / L;
        t->tp_gemm_fwd = (k * d.tp_gemm_fwd + (L - k) * t->tp_gemm_fwd) / L;
    }
}
