/* model.h: the models of training plans (scenarios layer): a transformer's shape, its
 * element types, and the counts a plan is built from - parameters, FLOPs, the attention's
 * projections and heads, MoE and multi-token prediction (model.c, attention.c, hf.c). */
#ifndef CS_SCENARIOS_MODEL_H
#define CS_SCENARIOS_MODEL_H

#include <stddef.h>
#include "sim/err.h"

/* Element types of a plan's weights and activations ("dtype"). */
typedef enum cs_pdtype { CS_DT_BF16, CS_DT_FP16, CS_DT_FP32, CS_DT_FP8, CS_DT_COUNT } cs_pdtype;
const char *cs_pdtype_name(cs_pdtype d);
/* Bytes per element of weights/activations (fp8: activations and GEMM inputs 1 byte). */
int cs_pdtype_bytes(cs_pdtype d);

/* A transformer model (DESIGN §6 "model"). GPT-style (gated_mlp false): biases, learned
 * position embeddings, output layer tied to the input embedding (Megatron SC'21 eq. 2).
 * LLaMA-style (gated_mlp true): no biases, rotary positions, untied output layer. With
 * experts > 0 every layer's MLP (but the first dense_layers, dense with ffn_hidden) is a
 * mixture of experts of moe_ffn_hidden each, top_k routed per token, plus an always-on shared
 * expert MLP of shared_ffn. Attention projects to heads x head_dim (Q) and kv_heads x head_dim
 * (K, V), which need not be hidden. */
typedef struct cs_llm {
    char name[64];           /* preset name or "custom" */
    int layers;              /* L, transformer layers */
    int hidden;              /* h, model width */
    int heads;               /* a, attention heads */
    int kv_heads;            /* key/value heads (GQA; = heads for multi-head attention) */
    int ffn_hidden;          /* f, MLP inner width (dense layers) */
    int gated_mlp;           /* 1: SwiGLU-style gated MLP (3 matrices), 0: 2 matrices */
    int seq_len;             /* s, tokens per sequence */
    int vocab;               /* V, vocabulary size */
    int experts;             /* E, experts per MoE layer (0 = dense model) */
    int top_k;               /* k, experts per token */
    int moe_ffn_hidden;      /* inner width of one expert */
    int head_dim;            /* d_h, width of one attention head (0 = hidden / heads) */
    int tied;                /* output layer: CS_TIE_FAMILY (GPT tied, LLaMA untied),
                                CS_TIE_YES (shares the embedding), CS_TIE_NO (its own V x h) */
    int shared_ffn;          /* inner width of the shared experts of a MoE layer together (an
                                always-on MLP: n_shared x moe_ffn_hidden; 0 = none) */
    int dense_layers;        /* the first k layers are dense (ffn_hidden) in a MoE model */
    /* Multi-head latent attention (DeepSeek-V2/V3; kv_lora_rank > 0 turns it on): queries
     * through a rank-q_lora_rank bottleneck (0: a full h x a (nope + rope) projection),
     * keys and values from one kv_lora_rank latent plus a shared qk_rope_head_dim RoPE key;
     * a head's query/key is qk_nope_head_dim + qk_rope_head_dim wide, its value v_head_dim */
    int q_lora_rank;         /* query latent rank (0 = no query compression) */
    int kv_lora_rank;        /* key/value latent rank (0 = not MLA) */
    int qk_rope_head_dim;    /* rotary part of a query/key head */
    int qk_nope_head_dim;    /* non-rotary part of a query/key head */
    int v_head_dim;          /* value (and output projection input) width per head */
    int window;              /* sliding-window attention: keys one query attends to (0 = all) */
    int window_layers;       /* layers that use the window (the others attend to every key;
                                Gemma 3: 5 of every 6, GPT-OSS every other one) */
    int router_groups;       /* group-limited routing (DeepSeek-V3's n_group, Megatron's
                                --moe-router-num-groups): the experts in this many equal
                                groups, 0 = no groups */
    int router_group_topk;   /* ... and a token's top_k experts within this many of them
                                (topk_group, --moe-router-group-topk) */
    int mtp_layers;          /* multi-token prediction modules (DeepSeek-V3's
                                num_nextn_predict_layers): each one more layer of the model's
                                last kind, a 2h x h projection, 3 norms and the logits */
    char ignored[512];       /* config.json keys that change cost and are not modelled,
                                comma-separated ("" = none; cs_model_load_hf) */
} cs_llm;

enum { CS_TIE_FAMILY, CS_TIE_YES, CS_TIE_NO };
/* Is the attention multi-head latent attention (kv_lora_rank > 0)? */
int cs_model_is_mla(const cs_llm *m);
/* The head width d_h (head_dim, else hidden / heads) and whether the output layer is tied. */
int cs_model_head_dim(const cs_llm *m);
int cs_model_is_tied(const cs_llm *m);

typedef enum cs_recompute { CS_RC_NONE, CS_RC_SELECTIVE, CS_RC_FULL } cs_recompute;

/* Counting (numbers a test can derive by hand). */
/* Parameters of the whole model (Ψ). */
double cs_model_params(const cs_llm *m);
/* Parameters of one transformer layer: dense part (attention, norms, router, shared
 * experts) and the expert part (all experts); with dense_layers the mean layer. */
void cs_model_layer_params(const cs_llm *m, double *dense, double *experts);
/* Embedding (+ untied output layer) parameters. */
double cs_model_embed_params(const cs_llm *m);
/* Forward FLOPs of one layer for one sequence of s tokens (whole layer, no parallelism):
 * QKV, attention scores and values, projection, MLP or the k routed experts + router +
 * shared experts; with dense_layers the mean layer. */
double cs_model_layer_fwd_flops(const cs_llm *m);
/* Attention-core forward FLOPs of one layer for one sequence (scores + values). */
double cs_model_attn_core_flops(const cs_llm *m);
/* Logits forward FLOPs for one sequence: 2 s h V. */
double cs_model_logit_flops(const cs_llm *m);
/* Attention projections of one token, whole layer (no parallelism), for the kernel list:
 * up to 5 GEMMs (k x n per token), *tp_split[i] 1 when TP splits the GEMM's n (or k for the
 * output projection), 0 when every TP rank runs it whole (MLA's down projections).
 * MHA/GQA: QKV h x (a d_h + 2 kv d_h), output a d_h x h. MLA: q down h x q_lora (or q
 * h x a (nope + rope) without query compression), q up q_lora x a (nope + rope), kv down
 * h x (kv_lora + rope), kv up kv_lora x a (nope + v), output a v x h (DeepSeek-V2 §2.1).
 * Returns the number of GEMMs. */
int cs_model_attn_gemms(const cs_llm *m, double k[5], double n[5], int tp_split[5]);
/* Attention head widths: query/key (d_h, MLA nope + rope) and value (d_h, MLA v). */
double cs_model_qk_dim(const cs_llm *m);
double cs_model_v_dim(const cs_llm *m);
/* Keys one query attends to in a layer, s or min(s, window), over the layers (the mean:
 * window_layers of them windowed); the attention core of a layer is 2 s keys a (qk + v). */
double cs_model_keys_per_query(const cs_llm *m);
/* Elements per token the attention stashes for its backward besides the layer's input
 * (Korthikanti's 8 sbh at 2 bytes: Q, K, V and the projection's input, 4 a d_h; MLA: the
 * two latents, Q and K of a (nope + rope), V and the projection's input of a v). */
double cs_model_attn_act_elems(const cs_llm *m);
/* Multi-token prediction (DeepSeek-V3 §2.2): parameters of the mtp_layers modules (each a
 * layer of the model's MoE or dense kind, a 2h x h projection, three RMSNorms; embedding
 * and output head shared) and their forward FLOPs for one sequence (the layer, the
 * projection 2 s 2h h, the logits 2 s h V). 0 without MTP. */
double cs_model_mtp_params(const cs_llm *m);
double cs_model_mtp_fwd_flops(const cs_llm *m);
/* MoE parts of one MoE layer's forward for one sequence of s tokens, FLOPs: the router
 * 2 s h E, the k routed experts k x gemms x 2 s h f_e, the shared experts. 0 for a dense
 * model. */
void cs_model_moe_flops(const cs_llm *m, double *router, double *routed, double *shared);
/* Model FLOPs per step for B sequences (3 x forward, no recompute; Korthikanti eq. 7
 * generalised), and hardware FLOPs (recompute counted: + 1 forward of the layers for full,
 * + the attention core for selective). */
double cs_model_flops_step(const cs_llm *m, long batch);
double cs_model_hw_flops_step(const cs_llm *m, long batch, cs_recompute rc);

#endif
