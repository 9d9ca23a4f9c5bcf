/* attention.c: the attention variants and MoE parts of a model, counted (scenarios layer):
 * multi-head latent attention (DeepSeek-V2 arXiv:2405.04434 §2.1, V3 arXiv:2412.19437),
 * sliding windows (Mistral 7B, Gemma 3's 5 local : 1 global, GPT-OSS alternating),
 * and the MoE layer's router and experts. The layer totals built from these (and the
 * multi-token prediction modules, DeepSeek-V3 §2.2, a layer each) are model.c's, which calls
 * this file one way; the plan's use of them is plan.c's. */
#include "scenarios/plan.h"

#include <math.h>

int cs_model_head_dim(const cs_llm *m)
{
    return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

int cs_model_is_mla(const cs_llm *m) { return m->kv_lora_rank > 0; }

double cs_model_qk_dim(const cs_llm *m)
{
    return cs_model_is_mla(m) ? (double)m->qk_nope_head_dim + m->qk_rope_head_dim
                              : cs_model_head_dim(m);
}

double cs_model_v_dim(const cs_llm *m)
{
    return cs_model_is_mla(m) ? m->v_head_dim : cs_model_head_dim(m);
}

int cs_model_attn_gemms(const cs_llm *m, double k[5], double n[5], int tp_split[5])
{
    double h = m->hidden, a = m->heads, dh = cs_model_head_dim(m);
    int i = 0;
    if (!cs_model_is_mla(m)) {
        k[i] = h, n[i] = a * dh + 2.0 * m->kv_heads * dh, tp_split[i++] = 1;   /* QKV */
        k[i] = a * dh, n[i] = h, tp_split[i++] = 1;                           /* output */
        return i;
    }
    /* MLA: the down projections are replicated on every TP rank (Megatron-Core's
     * MLASelfAttention: linear_q_down_proj, linear_kv_down_proj not split) */
    if (m->q_lora_rank > 0) {
        k[i] = h, n[i] = m->q_lora_rank, tp_split[i++] = 0;                  /* q down */
        k[i] = m->q_lora_rank, n[i] = a * cs_model_qk_dim(m), tp_split[i++] = 1;   /* q up */
    } else {
        k[i] = h, n[i] = a * cs_model_qk_dim(m), tp_split[i++] = 1;          /* q */
    }
    k[i] = h, n[i] = (double)m->kv_lora_rank + m->qk_rope_head_dim, tp_split[i++] = 0;
    k[i] = m->kv_lora_rank, n[i] = a * ((double)m->qk_nope_head_dim + m->v_head_dim),
    tp_split[i++] = 1;                                                      /* kv up */
    k[i] = a * m->v_head_dim, n[i] = h, tp_split[i++] = 1;                    /* output */
    return i;
}

double cs_model_keys_per_query(const cs_llm *m)
{
    double s = m->seq_len, L = m->layers, w, lw;
    if (m->window <= 0 || m->window >= m->seq_len)
        return s;
    w = m->window;
    lw = m->window_layers > 0 && m->window_layers < m->layers ? m->window_layers : L;
    return ((L - lw) * s + lw * w) / L;     /* the mean layer */
}

double cs_model_attn_act_elems(const cs_llm *m)
{
    double a = m->heads;
    if (!cs_model_is_mla(m))
        return 4.0 * a * cs_model_head_dim(m);
    return (double)m->q_lora_rank + m->kv_lora_rank + m->qk_rope_head_dim +
           2 * a * cs_model_qk_dim(m) + 2 * a * cs_model_v_dim(m);
}

void cs_model_moe_flops(const cs_llm *m, double *router, double *routed, double *shared)
{
    double s = m->seq_len, h = m->hidden, g = m->gated_mlp ? 3 : 2;
    *router = *routed = *shared = 0;
    if (m->experts <= 0)
        return;
    *router = 2 * s * h * m->experts;
    *routed = m->top_k * g * 2 * s * h * m->moe_ffn_hidden;
    *shared = m->shared_ffn > 0 ? g * 2 * s * h * m->shared_ffn : 0;
}
