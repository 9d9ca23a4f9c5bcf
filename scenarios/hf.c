/* hf.c: a Hugging Face config.json as a model (scenarios layer). Every key is used, known
 * to be irrelevant to cost and memory, or named in cs_llm.ignored so that the result says
 * what it did not model (issue 27). Families: LLaMA, Mistral, Mixtral, Qwen2/3 (MoE), GPT-2,
 * OPT, BLOOM, DeepSeek (MoE, MLA, multi-token prediction), GPT-OSS and Gemma 3 (sliding
 * windows and their per-layer pattern). */
#include "scenarios/plan.h"
#include "scenarios/model-private.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* Keys that change no FLOP, parameter or byte collsim counts: token ids, initialisation,
 * norm epsilons, rotary settings, dropout (training FLOPs are the same), inference and
 * router-loss switches, bookkeeping. */
static const char *const irrelevant[] = {
    "_name_or_path", "architectures", "model_type", "transformers_version", "torch_dtype",
    "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id",
    "sep_token_id", "decoder_start_token_id", "initializer_range", "initializer_factor",
    "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "rope_theta", "rope_scaling",
    "rope_type", "partial_rotary_factor", "use_cache", "attention_dropout", "hidden_dropout",
    "dropout", "attn_pdrop", "embd_pdrop", "resid_pdrop", "attention_probs_dropout_prob",
    "hidden_dropout_prob", "activation_dropout", "layerdrop", "pretraining_tp",
    "tokenizer_class", "router_aux_loss_coef", "output_router_logits", "router_jitter_noise",
    "norm_topk_prob", "routed_scaling_factor", "scoring_func", "topk_method",
    "aux_loss_alpha", "seq_aux", "ep_size", "n_ctx", "scale_attn_weights", "reorder_and_upcast_attn",
    "scale_attn_by_inverse_layer_idx", "summary_activation", "summary_first_dropout",
    "summary_proj_to_labels", "summary_type", "summary_use_proj", "task_specific_params",
    "do_layer_norm_before", "apply_residual_connection_post_layernorm", "slow_but_exact",
    "attention_softmax_in_fp32", "masked_softmax_fusion", "bias_dropout_fusion",
    "id2label", "label2id", "prefix", "return_dict", "use_return_dict",
    "keys_to_ignore_at_inference", "enable_bias", "output_attentions",
    "output_hidden_states", "is_decoder", "is_encoder_decoder", "tie_encoder_decoder",
    "activation_function", "mlp_only_layers", "decoder_sparse_step",
    "moe_layer_freq", "attention_bias", "mlp_bias", "init_std", "skip_bias_add",
    "skip_bias_add_qkv", "offset_alibi", "swiglu_limit", "initial_context_length",
    "router_z_loss_coef", NULL};

/* Keys read (their aliases in one row). */
static const char *const used[] = {
    "num_hidden_layers", "n_layer", "hidden_size", "n_embd", "num_attention_heads", "n_head",
    "vocab_size", "num_key_value_heads", "intermediate_size", "ffn_dim", "n_inner",
    "max_position_embeddings", "n_positions", "num_local_experts", "n_routed_experts",
    "num_experts", "num_experts_per_tok", "experts_per_token", "moe_intermediate_size",
    "shared_expert_intermediate_size", "n_shared_experts", "first_k_dense_replace",
    "head_dim", "tie_word_embeddings", "hidden_act", "q_lora_rank", "kv_lora_rank",
    "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "num_nextn_predict_layers",
    "sliding_window", "use_sliding_window", "layer_types", "sliding_window_pattern",
    "max_window_layers", "n_group", "topk_group", NULL};

static int in(const char *const *set, const char *k)
{
    int i;
    for (i = 0; set[i]; i++)
        if (!strcmp(set[i], k))
            return 1;
    return 0;
}

/* Is the key's value one that changes nothing (null, false, 0, "", [], 1 for the
 * every-layer-MoE steps)? Such keys are silently fine (attention_bias: false, ...). */
static int is_neutral(const char *k, json_t *v)
{
    if (json_is_null(v) || json_is_false(v))
        return 1;
    if (json_is_array(v) && json_array_size(v) == 0)
        return 1;
    if ((!strcmp(k, "decoder_sparse_step") || !strcmp(k, "moe_layer_freq")) &&
        json_is_integer(v) && json_integer_value(v) == 1)
        return 1;
    return 0;
}

/* Keys irrelevant except with some values: a bias switched on, MoE on some layers only,
 * a sliding window in use. */
static int ignored_by_value(json_t *root, const char *k, json_t *v)
{
    static const char *const when_set[] = {"attention_bias", "mlp_bias", "mlp_only_layers",
                                           "decoder_sparse_step", "moe_layer_freq", NULL};
    (void)root;
    return in(when_set, k) && !is_neutral(k, v);
}

static void add_ignored(cs_llm *m, const char *k)
{
    size_t n = strlen(m->ignored);
    if (n + strlen(k) + 3 < sizeof m->ignored)
        snprintf(m->ignored + n, sizeof m->ignored - n, "%s%s", n ? ", " : "", k);
}

/* The first of the keys present (aliases), as an integer in lo..2^24 into *out; missing
 * (all absent or null) leaves *out and returns 0 unless req. */
static int hf_int(json_t *root, const char *const *keys, long lo, int req, int *out,
                  cs_err *err)
{
    int i;
    for (i = 0; keys[i]; i++) {
        json_t *v = json_object_get(root, keys[i]);
        if (!v || json_is_null(v))
            continue;
        if (!json_is_integer(v) || json_integer_value(v) < lo ||
            json_integer_value(v) > (1 << 24))
            return cs_err_set(err, CS_EINVAL, keys[i], "expected an integer in %ld..16777216",
                              lo);
        *out = (int)json_integer_value(v);
        return 1;
    }
    if (req)
        return cs_err_set(err, CS_EINVAL, keys[0], "missing required key (Hugging Face "
                          "config.json)");
    return 0;
}

#define K(...) ((const char *const[]){__VA_ARGS__, NULL})

/* MLA (DeepSeek-V2/V3): kv_lora_rank turns it on and needs the head widths; q_lora_rank
 * null or absent is no query compression (V2-Lite). Multi-token prediction modules. */
static int read_mla(json_t *root, cs_llm *m, cs_err *err)
{
    static const char *const need[] = {"qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
                                       NULL};
    int rc, i, *dst[] = {&m->qk_rope_head_dim, &m->qk_nope_head_dim, &m->v_head_dim};
    if ((rc = hf_int(root, K("num_nextn_predict_layers"), 0, 0, &m->mtp_layers, err)) < 0 ||
        (rc = hf_int(root, K("kv_lora_rank"), 1, 0, &m->kv_lora_rank, err)) < 0)
        return rc;
    if (!m->kv_lora_rank)
        return 0;
    for (i = 0; need[i]; i++)
        if ((rc = hf_int(root, (const char *const[]){need[i], NULL}, 1, 1, dst[i], err)) < 0)
            return cs_err_set(err, CS_EINVAL, need[i], "kv_lora_rank (MLA) needs it: an "
                              "integer >= 1");
    if ((rc = hf_int(root, K("q_lora_rank"), 1, 0, &m->q_lora_rank, err)) < 0)
        return rc;
    if (m->kv_heads != m->heads)
        return cs_err_set(err, CS_EINVAL, "num_key_value_heads", "MLA has a key and value per "
                          "head: must be num_attention_heads (%d), got %d", m->heads,
                          m->kv_heads);
    return 0;
}

/* Sliding windows: sliding_window (unless null or use_sliding_window false) on the layers
 * layer_types names "sliding_attention" (GPT-OSS, Gemma 3), else all but every
 * sliding_window_pattern-th (Gemma 3's older configs), else with use_sliding_window those
 * from max_window_layers on (Qwen2: layer i >= max_window_layers slides), else every
 * layer (Mistral). */
static int read_window(json_t *root, cs_llm *m, cs_err *err)
{
    json_t *lt = json_object_get(root, "layer_types"), *use;
    int rc, pat = 0, mwl = -1;
    size_t i;
    use = json_object_get(root, "use_sliding_window");
    if ((rc = hf_int(root, K("sliding_window"), 1, 0, &m->window, err)) <= 0)
        return rc;
    if (use && json_is_false(use)) {
        m->window = 0;
        return 0;
    }
    m->window_layers = m->layers;
    if (lt && !json_is_null(lt)) {
        if (!json_is_array(lt) || json_array_size(lt) != (size_t)m->layers)
            return cs_err_set(err, CS_EINVAL, "layer_types", "expected an array of "
                              "num_hidden_layers (%d) strings", m->layers);
        m->window_layers = 0;
        for (i = 0; i < json_array_size(lt); i++) {
            const char *t = json_string_value(json_array_get(lt, i));
            if (!t || (strcmp(t, "sliding_attention") && strcmp(t, "full_attention")))
                return cs_err_set(err, CS_EINVAL, "layer_types", "entry %zu: expected "
                                  "\"sliding_attention\" or \"full_attention\"", i);
            m->window_layers += !strcmp(t, "sliding_attention");
        }
    } else if ((rc = hf_int(root, K("sliding_window_pattern"), 1, 0, &pat, err)) < 0) {
        return rc;
    } else if (pat) {
        m->window_layers = m->layers - m->layers / pat;
    } else if (use && json_is_true(use) &&
               (rc = hf_int(root, K("max_window_layers"), 0, 0, &mwl, err)) > 0) {
        m->window_layers = mwl < m->layers ? m->layers - mwl : 0;
    }
    if (rc < 0)
        return rc;
    if (m->window_layers <= 0)
        m->window = m->window_layers = 0;         /* no layer slides */
    return 0;
}

static int read_keys(json_t *root, cs_llm *m, cs_err *err)
{
    const char *act;
    int rc, n_shared = 0, w_shared = 0;
    json_t *tie;
    if ((rc = hf_int(root, K("num_hidden_layers", "n_layer"), 1, 1, &m->layers, err)) < 0 ||
        (rc = hf_int(root, K("hidden_size", "n_embd"), 1, 1, &m->hidden, err)) < 0 ||
        (rc = hf_int(root, K("num_attention_heads", "n_head"), 1, 1, &m->heads, err)) < 0 ||
        (rc = hf_int(root, K("vocab_size"), 1, 1, &m->vocab, err)) < 0)
        return rc;
    m->kv_heads = m->heads;
    m->ffn_hidden = 4 * m->hidden;
    m->seq_len = 2048;
    if ((rc = hf_int(root, K("num_key_value_heads"), 1, 0, &m->kv_heads, err)) < 0 ||
        (rc = hf_int(root, K("intermediate_size", "ffn_dim", "n_inner"), 1, 0, &m->ffn_hidden,
                     err)) < 0 ||
        (rc = hf_int(root, K("max_position_embeddings", "n_positions"), 1, 0, &m->seq_len,
                     err)) < 0 ||
        (rc = hf_int(root, K("num_local_experts", "n_routed_experts", "num_experts"), 1, 0,
                     &m->experts, err)) < 0 ||
        (rc = hf_int(root, K("num_experts_per_tok", "experts_per_token"), 1, 0, &m->top_k,
                     err)) < 0 ||
        (rc = hf_int(root, K("head_dim"), 1, 0, &m->head_dim, err)) < 0 ||
        (rc = hf_int(root, K("first_k_dense_replace"), 0, 0, &m->dense_layers, err)) < 0 ||
        (rc = hf_int(root, K("n_shared_experts"), 0, 0, &n_shared, err)) < 0 ||
        (rc = hf_int(root, K("shared_expert_intermediate_size"), 0, 0, &w_shared, err)) < 0)
        return rc;
    m->moe_ffn_hidden = m->ffn_hidden;
    if ((rc = hf_int(root, K("moe_intermediate_size"), 1, 0, &m->moe_ffn_hidden, err)) < 0)
        return rc;
    if (m->experts) {
        /* shared experts: DeepSeek's n of moe_intermediate_size, Qwen-MoE's one width */
        m->shared_ffn = w_shared ? w_shared : n_shared * m->moe_ffn_hidden;
        if (m->dense_layers > m->layers)
            return cs_err_set(err, CS_EINVAL, "first_k_dense_replace", "must be <= "
                              "num_hidden_layers (%d), got %d", m->layers, m->dense_layers);
    } else {
        m->dense_layers = 0;            /* a dense model: every layer is dense anyway */
    }
    tie = json_object_get(root, "tie_word_embeddings");
    if (tie && !json_is_null(tie)) {
        if (!json_is_boolean(tie))
            return cs_err_set(err, CS_EINVAL, "tie_word_embeddings", "expected true or false");
        m->tied = json_is_true(tie) ? CS_TIE_YES : CS_TIE_NO;
    }
    act = json_string_value(json_object_get(root, "hidden_act"));
    m->gated_mlp = act && (!strcmp(act, "silu") || !strcmp(act, "swiglu"));
    if (!m->head_dim && m->hidden % m->heads)
        return cs_err_set(err, CS_EINVAL, "num_attention_heads", "%d heads do not divide "
                          "hidden %d (and no head_dim)", m->heads, m->hidden);
    if (m->heads % m->kv_heads)
        return cs_err_set(err, CS_EINVAL, "num_attention_heads", "%d heads, %d key/value heads "
                          "do not divide", m->heads, m->kv_heads);
    if ((rc = read_mla(root, m, err)) < 0 || (rc = read_window(root, m, err)) < 0)
        return rc;
    if (m->experts && !m->top_k)
        m->top_k = 1;
    if (m->top_k > m->experts)
        return cs_err_set(err, CS_EINVAL, "num_experts_per_tok", "must be <= the experts (%d), "
                          "got %d", m->experts, m->top_k);
    /* group-limited routing (DeepSeek-V3: 8 groups, a token's experts within 4): it bounds
     * the nodes a token's copies go to (DeepEP) */
    if ((rc = hf_int(root, K("n_group"), 1, 0, &m->router_groups, err)) < 0 ||
        (rc = hf_int(root, K("topk_group"), 1, 0, &m->router_group_topk, err)) < 0)
        return rc;
    if (m->router_groups == 1 && m->router_group_topk == 1)
        m->router_groups = m->router_group_topk = 0;     /* one group: no limit */
    return cs__model_check_groups(m, NULL, "n_group", "topk_group", err);
}

int cs_model_load_hf(const char *path, cs_llm *m, cs_err *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je), *v;
    const char *base, *k;
    char where[256];
    int rc;
    if (!root) {
        if (je.line < 0)
            return cs_err_set(err, CS_EIO, path, "cannot read: %s", je.text);
        snprintf(where, sizeof where, "%s:%d:%d", path, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    memset(m, 0, sizeof *m);
    base = strrchr(path, '/');
    snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : path);
    if (!json_is_object(root)) {
        json_decref(root);
        return cs_err_set(err, CS_EINVAL, path, "expected a JSON object");
    }
    rc = read_keys(root, m, err);
    json_object_foreach(root, k, v) {   /* in the file's order (jansson keeps it) */
        if (in(used, k) || (in(irrelevant, k) && !ignored_by_value(root, k, v)) ||
            json_is_null(v))            /* null: not set (q_lora_rank of V2-Lite) */
            continue;
        add_ignored(m, k);
    }
    json_decref(root);
    return rc;
}
