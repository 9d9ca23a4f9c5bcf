/* model.c: models and GPUs of training plans (scenarios layer): the embedded presets
 * (scenarios/models, scenarios/gpus), their JSON objects, and the
 * counts a plan is built from - parameters, FLOPs (Megatron SC'21 eq. 2/3, Korthikanti
 * eq. 7/8 generalised to GQA, head_dim, gated MLPs, MoE with shared experts and dense first
 * layers). The config.json reader is hf.c. */
#include "scenarios/plan.h"
#include "scenarios/model-private.h"
#include "sim/json.h"
#include "sim/limits.h"
#include "topologies/topology.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


/* Names of an embedded table, in its (sorted) order. */
static const char *const *names_of(const cs_preset *all, int n, const char **buf, int *out)
{
    int i;
    for (i = 0; i < n && i < 63; i++)
        buf[i] = all[i].name;
    buf[i] = NULL;
    *out = i;
    return buf;
}

const char *const *cs_model_names(int *n)
{
    static _Thread_local const char *buf[64];
    int k;
    const cs_preset *all = cs_model_presets(&k);
    return names_of(all, k, buf, n);
}

const char *const *cs_gpu_names(int *n)
{
    static _Thread_local const char *buf[64];
    int k;
    const cs_preset *all = cs_gpu_presets(&k);
    return names_of(all, k, buf, n);
}

static const cs_preset *find(const cs_preset *all, int n, const char *name)
{
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(all[i].name, name))
            return &all[i];
    return NULL;
}

static int unknown(const char *what, const char *name, const char *const *names, cs_err *err)
{
    char known[1024] = "";
    int i;
    for (i = 0; names[i]; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, names[i], sizeof known - strlen(known) - 1);
    }
    return cs_err_set(err, CS_ENOENT, what, "unknown %s '%s' (known: %s)",
                      !strcmp(what, "model") ? "model" : "gpu", name, known);
}

/* "description" of a preset (per-thread storage, one at a time in each thread). */
static const char *about(const cs_preset *p)
{
    static _Thread_local char buf[1024];
    json_t *root;
    const char *d;
    buf[0] = '\0';
    if (!p || !(root = json_loads(p->json, 0, NULL)))
        return buf;
    if ((d = json_string_value(json_object_get(root, "description"))))
        snprintf(buf, sizeof buf, "%s", d);
    json_decref(root);
    return buf;
}

const char *cs_model_about(const char *name)
{
    int n;
    const cs_preset *all = cs_model_presets(&n);
    return about(find(all, n, name));
}

const char *cs_gpu_about(const char *name)
{
    int n;
    const cs_preset *all = cs_gpu_presets(&n);
    return about(find(all, n, name));
}

/* MLA's ranks (attention "mla"; kv_lora_rank > 0 is MLA): kv_lora_rank, qk_rope_head_dim,
 * qk_nope_head_dim, v_head_dim required, q_lora_rank optional (0: no query compression). */
static int mla_from_json(json_t *o, const char *where, int attn, cs_llm *m, cs_err *err)
{
    static const char *const req[] = {"kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
                                      "v_head_dim", NULL};
    const long H_MAX = 1L << 24;
    char w[256];
    int rc, i, any = json_object_get(o, "q_lora_rank") != NULL;
    for (i = 0; req[i]; i++)
        any |= json_object_get(o, req[i]) != NULL;
    if (!any && attn != 2)
        return 0;
    cs_jpath_key(w, sizeof w, where, "attention");
    if (attn >= 0 && attn != 2)
        return cs_err_set(err, CS_EINVAL, w, "the MLA ranks (kv_lora_rank, ...) need "
                          "\"mla\", got \"%s\"", attn ? "gqa" : "mha");
    for (i = 0; req[i]; i++)
        if (!json_object_get(o, req[i])) {
            cs_jpath_key(w, sizeof w, where, req[i]);
            return cs_err_set(err, CS_EINVAL, w, "missing: MLA needs kv_lora_rank, "
                              "qk_rope_head_dim, qk_nope_head_dim and v_head_dim");
        }
    if ((rc = cs_json_opt_intv(o, where, "q_lora_rank", 0, H_MAX, &m->q_lora_rank, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "kv_lora_rank", 1, H_MAX, &m->kv_lora_rank, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "qk_rope_head_dim", 1, H_MAX, &m->qk_rope_head_dim,
                               err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "qk_nope_head_dim", 1, H_MAX, &m->qk_nope_head_dim,
                               err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "v_head_dim", 1, H_MAX, &m->v_head_dim, err)) < 0)
        return rc;
    if (m->kv_heads != m->heads) {
        cs_jpath_key(w, sizeof w, where, "kv_heads");
        return cs_err_set(err, CS_EINVAL, w, "MLA has a key and value per head: must be heads "
                          "(%d), got %d", m->heads, m->kv_heads);
    }
    return 0;
}

/* Sliding windows: window (keys a query sees), on every layer, or on window_layers of
 * them, or window_pattern N: every N-th layer global, the others windowed (Gemma 3: 6). */
static int window_from_json(json_t *o, const char *where, cs_llm *m, cs_err *err)
{
    char w[256];
    int rc, pat = 0;
    if ((rc = cs_json_opt_intv(o, where, "window", 1, 1L << 24, &m->window, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "window_pattern", 1, 1L << 20, &pat, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "window_layers", 1, 1L << 20, &m->window_layers,
                               err)) < 0)
        return rc;
    if ((pat || m->window_layers) && !m->window) {
        cs_jpath_key(w, sizeof w, where, pat ? "window_pattern" : "window_layers");
        return cs_err_set(err, CS_EINVAL, w, "needs model.window (the window's keys)");
    }
    if (pat && m->window_layers) {
        cs_jpath_key(w, sizeof w, where, "window_layers");
        return cs_err_set(err, CS_EINVAL, w, "give window_layers or window_pattern, not both");
    }
    if (m->window_layers > m->layers) {
        cs_jpath_key(w, sizeof w, where, "window_layers");
        return cs_err_set(err, CS_EINVAL, w, "must be <= layers (%d), got %d", m->layers,
                          m->window_layers);
    }
    if (m->window && !m->window_layers)
        m->window_layers = m->layers - (pat ? m->layers / pat : 0);
    if (!m->window_layers)              /* window_pattern 1: every layer global */
        m->window = 0;
    return 0;
}

int cs__model_from_json(json_t *o, const char *where, const char *name, cs_llm *m,
                        cs_err *err)
{
    static const char *const keys[] = {"layers", "hidden", "heads", "kv_heads", "ffn_hidden",
        "gated_mlp", "seq_len", "vocab", "experts", "top_k", "moe_ffn_hidden", "description",
        "sources", "head_dim", "tied_embeddings", "shared_experts", "dense_layers", "attention",
        "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
        "window", "window_pattern", "window_layers", "mtp_layers", "router_groups",
        "router_group_topk", NULL};
    static const char *const attns[] = {"mha", "gqa", "mla", NULL};
    static const char *const need[] = {"layers", "hidden", "heads", "seq_len", "vocab", NULL};
    /* bounds keep every count a product of these in range (4 h, s h, ...) */
    const long L_MAX = 1L << 20, H_MAX = 1L << 24, S_MAX = 1L << 24, V_MAX = 1L << 28;
    int rc, i, tied = -1, n_shared = 0, attn = -1;
    char w[256];
    if (!json_is_object(o))
        return cs_err_set(err, CS_EINVAL, where, "expected a preset name or a model object");
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    if ((rc = cs_json_check_keys(o, where, keys, NULL, err)) < 0)
        return rc;
    for (i = 0; need[i]; i++)
        if ((rc = cs_json_need(o, where, need[i], err)) < 0)
            return rc;
    if ((rc = cs_json_opt_intv(o, where, "layers", 1, L_MAX, &m->layers, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "hidden", 1, H_MAX, &m->hidden, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "heads", 1, H_MAX, &m->heads, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "seq_len", 1, S_MAX, &m->seq_len, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "vocab", 1, V_MAX, &m->vocab, err)) < 0)
        return rc;
    m->kv_heads = m->heads;
    m->ffn_hidden = 4 * m->hidden;
    if ((rc = cs_json_opt_intv(o, where, "kv_heads", 1, H_MAX, &m->kv_heads, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "ffn_hidden", 1, V_MAX, &m->ffn_hidden, err)) < 0 ||
        (rc = cs_json_opt_bool(o, where, "gated_mlp", &m->gated_mlp, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "experts", 0, L_MAX, &m->experts, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "top_k", 0, L_MAX, &m->top_k, err)) < 0)
        return rc;
    m->moe_ffn_hidden = m->ffn_hidden;
    if ((rc = cs_json_opt_intv(o, where, "moe_ffn_hidden", 1, V_MAX, &m->moe_ffn_hidden, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "head_dim", 1, H_MAX, &m->head_dim, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "shared_experts", 0, L_MAX, &n_shared, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "dense_layers", 0, L_MAX, &m->dense_layers, err)) < 0)
        return rc;
    if (json_object_get(o, "tied_embeddings")) {
        if ((rc = cs_json_opt_bool(o, where, "tied_embeddings", &tied, err)) < 0)
            return rc;
        m->tied = tied ? CS_TIE_YES : CS_TIE_NO;
    }
    if ((n_shared || m->dense_layers) && !m->experts) {
        cs_jpath_key(w, sizeof w, where, n_shared ? "shared_experts" : "dense_layers");
        return cs_err_set(err, CS_EINVAL, w, "needs a mixture of experts (experts > 0), got %d",
                          n_shared ? n_shared : m->dense_layers);
    }
    if (m->dense_layers > m->layers) {
        cs_jpath_key(w, sizeof w, where, "dense_layers");
        return cs_err_set(err, CS_EINVAL, w, "must be <= layers (%d), got %d", m->layers,
                          m->dense_layers);
    }
    if ((double)n_shared * m->moe_ffn_hidden > V_MAX) {
        cs_jpath_key(w, sizeof w, where, "shared_experts");
        return cs_err_set(err, CS_EINVAL, w, "x moe_ffn_hidden must be <= %ld, got %d", V_MAX,
                          n_shared);
    }
    m->shared_ffn = n_shared * m->moe_ffn_hidden;
    /* attention: a check of kv_heads (mha: = heads), or MLA with its ranks */
    if ((rc = cs_json_opt_enum(o, where, "attention", attns, &attn, err)) < 0 ||
        (rc = mla_from_json(o, where, attn, m, err)) < 0 ||
        (rc = window_from_json(o, where, m, err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "mtp_layers", 0, 64, &m->mtp_layers, err)) < 0)
        return rc;
    cs_jpath_key(w, sizeof w, where, "attention");
    if (attn == 0 && m->kv_heads != m->heads)
        return cs_err_set(err, CS_EINVAL, w, "mha needs kv_heads = heads (%d), got %d",
                          m->heads, m->kv_heads);
    if (!m->head_dim && m->hidden % m->heads) {
        cs_jpath_key(w, sizeof w, where, "heads");
        return cs_err_set(err, CS_EINVAL, w, "must divide hidden (%d) unless head_dim is given, "
                          "got %d", m->hidden, m->heads);
    }
    if (m->heads % m->kv_heads) {
        cs_jpath_key(w, sizeof w, where, "kv_heads");
        return cs_err_set(err, CS_EINVAL, w, "must divide heads (%d), got %d", m->heads,
                          m->kv_heads);
    }
    if (m->experts > 0 && m->top_k == 0)
        m->top_k = 1;
    if (m->top_k > m->experts) {
        cs_jpath_key(w, sizeof w, where, "top_k");
        return cs_err_set(err, CS_EINVAL, w, "must be <= experts (%d), got %d", m->experts,
                          m->top_k);
    }
    if ((rc = cs_json_opt_intv(o, where, "router_groups", 1, L_MAX, &m->router_groups,
                               err)) < 0 ||
        (rc = cs_json_opt_intv(o, where, "router_group_topk", 1, L_MAX, &m->router_group_topk,
                               err)) < 0)
        return rc;
    return cs__model_check_groups(m, where, "router_groups", "router_group_topk", err);
}

int cs__model_check_groups(const cs_llm *m, const char *where, const char *k_groups,
                           const char *k_topk, cs_err *err)
{
    char w[256];
    if (!m->router_groups && !m->router_group_topk)
        return 0;
    cs_jpath_key(w, sizeof w, where, m->router_groups ? k_topk : k_groups);
    if (!m->router_groups || !m->router_group_topk)
        return cs_err_set(err, CS_EINVAL, w, "group-limited routing needs both %s and %s",
                          k_groups, k_topk);
    if (!m->experts) {
        cs_jpath_key(w, sizeof w, where, k_groups);
        return cs_err_set(err, CS_EINVAL, w, "needs a mixture of experts (experts > 0)");
    }
    if (m->experts % m->router_groups) {
        cs_jpath_key(w, sizeof w, where, k_groups);
        return cs_err_set(err, CS_EINVAL, w, "must divide the experts (%d), got %d",
                          m->experts, m->router_groups);
    }
    if (m->router_group_topk > m->router_groups) {
        cs_jpath_key(w, sizeof w, where, k_topk);
        return cs_err_set(err, CS_EINVAL, w, "must be <= %s (%d), got %d", k_groups,
                          m->router_groups, m->router_group_topk);
    }
    /* every group chosen holds at least one of the token's experts (DeepSeek-V3: the top
     * k of the chosen groups' experts), so k experts need k / groups-sized room */
    if ((long)m->router_group_topk * (m->experts / m->router_groups) < m->top_k) {
        cs_jpath_key(w, sizeof w, where, k_topk);
        return cs_err_set(err, CS_EINVAL, w, "%d groups of %d experts hold fewer than top_k "
                          "(%d)", m->router_group_topk, m->experts / m->router_groups,
                          m->top_k);
    }
    return 0;
}

int cs_model_preset(const char *name, cs_llm *out, cs_err *err)
{
    int n, rc;
    const cs_preset *all = cs_model_presets(&n), *p = find(all, n, name);
    json_t *root;
    if (!p)
        return unknown("model", name, cs_model_names(&n), err);
    if (!(root = json_loads(p->json, 0, NULL)))
        return cs_err_set(err, CS_EPARSE, "model", "preset '%s' does not parse", name);
    rc = cs__model_from_json(root, "model", name, out, err);
    json_decref(root);
    return rc;
}

int cs_gpu_preset(const char *name, cs_gpu *out, cs_err *err)
{
    int n, rc;
    const cs_preset *all = cs_gpu_presets(&n), *p = find(all, n, name);
    json_t *root;
    if (!p)
        return unknown("gpu", name, cs_gpu_names(&n), err);
    if (!(root = json_loads(p->json, 0, NULL)))
        return cs_err_set(err, CS_EPARSE, "gpu", "preset '%s' does not parse", name);
    rc = cs__gpu_from_json(root, "gpu", name, out, err);
    json_decref(root);
    return rc;
}

/* --- counting --- */

int cs_model_is_tied(const cs_llm *m)
{
    return m->tied == CS_TIE_FAMILY ? !m->gated_mlp : m->tied == CS_TIE_YES;
}

/* Parameters of one layer's parts: attention (Q: h x a d_h, K and V: h x kv d_h, output
 * a d_h x h, biases for GPT-style), norms, a dense MLP of width f, the MoE part (router
 * h x E, E experts, the shared expert MLP). */
static double attn_params(const cs_llm *m)
{
    double h = m->hidden, dh = cs_model_head_dim(m), qd = m->heads * dh, kv = m->kv_heads * dh;
    double bias = m->gated_mlp ? 0 : 1, k[5], n[5], x = 0;
    int i, tps[5], g;
    if (!cs_model_is_mla(m))
        return h * (qd + 2 * kv) + qd * h + bias * (qd + 2 * kv + h);
    /* MLA: its GEMMs and the RMSNorms of the two latents (q_a_layernorm, kv_a_layernorm) */
    g = cs_model_attn_gemms(m, k, n, tps);
    for (i = 0; i < g; i++)
        x += k[i] * n[i];
    return x + m->q_lora_rank + m->kv_lora_rank;
}

static double mlp_params(const cs_llm *m, double f)
{
    double h = m->hidden, bias = m->gated_mlp ? 0 : 1;
    return m->gated_mlp ? 3 * h * f : 2 * h * f + bias * (f + h);
}

/* Layer kinds: the first dense_layers are dense in a MoE model. */
static double n_dense_layers(const cs_llm *m)
{
    return m->experts > 0 ? (m->dense_layers < m->layers ? m->dense_layers : m->layers)
                          : m->layers;
}

void cs_model_layer_params(const cs_llm *m, double *dense, double *experts)
{
    double h = m->hidden, L = m->layers, k = n_dense_layers(m);
    double attn = attn_params(m);
    double norms = m->gated_mlp ? 2 * h : 4 * h;       /* RMSNorm weight / LayerNorm w + b */
    if (m->experts > 0) {
        double one = mlp_params(m, m->moe_ffn_hidden), moe_dense = h * m->experts;
        if (m->shared_ffn > 0)
            moe_dense += mlp_params(m, m->shared_ffn);  /* router h x E, shared experts */
        if (k > 0) {                /* the mean layer: k dense of L (cs_model_params exact) */
            *dense = attn + norms + (k * mlp_params(m, m->ffn_hidden) + (L - k) * moe_dense) / L;
            *experts = (L - k) * one * m->experts / L;
        } else {
            *dense = attn + norms + moe_dense;
            *experts = one * m->experts;
        }
    } else {
        *dense = attn + norms + mlp_params(m, m->ffn_hidden);
        *experts = 0;
    }
}

double cs_model_embed_params(const cs_llm *m)
{
    double h = m->hidden, V = m->vocab, out = cs_model_is_tied(m) ? 0 : V * h;
    if (m->gated_mlp)              /* output layer, rotary positions, final RMSNorm */
        return V * h + out + h;
    return V * h + out + (double)m->seq_len * h + 2 * h; /* learned positions, final LN */
}

double cs_model_params(const cs_llm *m)
{
    double d, e, k = n_dense_layers(m), L = m->layers;
    cs_llm dm;
    if (m->experts > 0 && k > 0) {     /* k dense layers and L - k MoE layers, exactly */
        dm = *m;
        dm.experts = 0;
        cs_model_layer_params(&dm, &d, &e);
        dm = *m;
        dm.dense_layers = 0;
        {
            double d2, e2;
            cs_model_layer_params(&dm, &d2, &e2);
            return k * (d + e) + (L - k) * (d2 + e2) + cs_model_embed_params(m) +
                   cs_model_mtp_params(m);
        }
    }
    cs_model_layer_params(m, &d, &e);
    return m->layers * (d + e) + cs_model_embed_params(m) + cs_model_mtp_params(m);
}

double cs_model_attn_core_flops(const cs_llm *m)
{
    /* Q K^T 2 s keys a qk and (softmax) V 2 s keys a v, keys = s, or min(s, window) on the
     * windowed layers (the mean layer): 4 s^2 a d_h for MHA/GQA without a window */
    double s = m->seq_len, a = m->heads;
    return 2 * s * cs_model_keys_per_query(m) * a * (cs_model_qk_dim(m) + cs_model_v_dim(m));
}

/* Forward FLOPs of one layer, dense (moe 0) or MoE (moe 1). */
static double layer_flops(const cs_llm *m, int moe)
{
    double s = m->seq_len, h = m->hidden, gemms = m->gated_mlp ? 3 : 2, mlp, proj = 0;
    double k[5], n[5], router, routed, shared;
    int tps[5], g = cs_model_attn_gemms(m, k, n, tps), i;
    if (moe) {
        cs_model_moe_flops(m, &router, &routed, &shared);
        mlp = router + routed + shared;
    } else {
        mlp = gemms * 2 * s * h * m->ffn_hidden;
    }
    for (i = 0; i < g; i++)          /* QKV and output (MHA/GQA), MLA's five GEMMs */
        proj += 2 * s * k[i] * n[i];
    return proj + cs_model_attn_core_flops(m) + mlp;
}

double cs_model_layer_fwd_flops(const cs_llm *m)
{
    double k = n_dense_layers(m), L = m->layers;
    if (m->experts > 0 && k > 0)       /* the mean layer */
        return (k * layer_flops(m, 0) + (L - k) * layer_flops(m, 1)) / L;
    return layer_flops(m, m->experts > 0);
}
double cs_model_logit_flops(const cs_llm *m)
{
    return 2.0 * m->seq_len * m->hidden * m->vocab;
}

double cs_model_flops_step(const cs_llm *m, long batch)
{
    return 3.0 * batch * (m->layers * cs_model_layer_fwd_flops(m) + cs_model_logit_flops(m) +
                          cs_model_mtp_fwd_flops(m));
}

double cs_model_hw_flops_step(const cs_llm *m, long batch, cs_recompute rc)
{
    double extra = rc == CS_RC_FULL ? cs_model_layer_fwd_flops(m)
                 : rc == CS_RC_SELECTIVE ? cs_model_attn_core_flops(m) : 0;
    return cs_model_flops_step(m, batch) + (double)batch * m->layers * extra;
}

/* One MTP module's own parts besides its transformer layer: the 2h x h projection and the
 * RMSNorms of its two inputs and of its output head (HF: eh_proj, enorm, hnorm,
 * shared_head.norm). */
double cs_model_mtp_params(const cs_llm *m)
{
    cs_llm one = *m;
    double h = m->hidden, d, e;
    if (m->mtp_layers <= 0)
        return 0;
    one.dense_layers = 0;               /* the module's layer is of the model's last kind */
    one.mtp_layers = 0;
    cs_model_layer_params(&one, &d, &e);
    return m->mtp_layers * (d + e + 2 * h * h + 3 * h);
}

double cs_model_mtp_fwd_flops(const cs_llm *m)
{
    cs_llm one = *m;
    double s = m->seq_len, h = m->hidden;
    if (m->mtp_layers <= 0)
        return 0;
    one.dense_layers = 0;
    one.window = 0;                     /* the module's layer attends to every key */
    one.mtp_layers = 0;
    return m->mtp_layers * (cs_model_layer_fwd_flops(&one) + 2 * s * 2 * h * h +
                            cs_model_logit_flops(m));
}
