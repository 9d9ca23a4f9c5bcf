/* model.c: models and GPUs of training plans (scenarios layer): the embedded presets
 * (scenarios/models, scenarios/gpus), their JSON objects, Hugging Face config.json, and the
 * counts a plan is built from - parameters, FLOPs (Megatron SC'21 eq. 2/3, Korthikanti
 * eq. 7/8 generalised to GQA, gated MLPs and MoE). */
#include "scenarios/plan.h"
#include "scenarios/model-private.h"
#include "sim/json.h"
#include "sim/limits.h"
#include "topologies/topology.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const dtype_names[] = {"bf16", "fp16", "fp32", "fp8", NULL};

const char *cs_pdtype_name(cs_pdtype d) { return dtype_names[d]; }
int cs_pdtype_bytes(cs_pdtype d) { return d == CS_DT_FP32 ? 4 : d == CS_DT_FP8 ? 1 : 2; }
const char *const *cs__dtype_names(void) { return dtype_names; }

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

int cs__model_from_json(json_t *o, const char *where, const char *name, cs_llm *m,
                        cs_err *err)
{
    static const char *const keys[] = {"layers", "hidden", "heads", "kv_heads", "ffn_hidden",
        "gated_mlp", "seq_len", "vocab", "experts", "top_k", "moe_ffn_hidden", "description",
        "sources", NULL};
    static const char *const need[] = {"layers", "hidden", "heads", "seq_len", "vocab", NULL};
    /* bounds keep every count a product of these in range (4 h, s h, ...) */
    const long L_MAX = 1L << 20, H_MAX = 1L << 24, S_MAX = 1L << 24, V_MAX = 1L << 28;
    int rc, i;
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
    if ((rc = cs_json_opt_intv(o, where, "moe_ffn_hidden", 1, V_MAX, &m->moe_ffn_hidden, err)) < 0)
        return rc;
    if (m->hidden % m->heads) {
        cs_jpath_key(w, sizeof w, where, "heads");
        return cs_err_set(err, CS_EINVAL, w, "must divide hidden (%d), got %d", m->hidden,
                          m->heads);
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

int cs__gpu_from_json(json_t *o, const char *where, const char *name, cs_gpu *g, cs_err *err)
{
    static const char *const keys[] = {"peak_tflops", "hbm_GB", "hbm_GBps", "gemm_eff_max",
        "gemm_half_GFLOP", "mem_eff", "description", "sources", NULL};
    json_t *pk;
    char w[256];
    int rc, d;
    if (!json_is_object(o))
        return cs_err_set(err, CS_EINVAL, where, "expected a preset name or a gpu object");
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->gemm_eff_max = 0.66;
    g->gemm_half_GFLOP = 1.0;
    g->mem_eff = 0.9;
    if ((rc = cs_json_check_keys(o, where, keys, NULL, err)) < 0 ||
        (rc = cs_json_need(o, where, "peak_tflops", err)) < 0 ||
        (rc = cs_json_need(o, where, "hbm_GB", err)) < 0 ||
        (rc = cs_json_need(o, where, "hbm_GBps", err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "hbm_GB", 0, &g->hbm_GB, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "hbm_GBps", 0, &g->hbm_GBps, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "gemm_eff_max", 0, &g->gemm_eff_max, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "gemm_half_GFLOP", 1, &g->gemm_half_GFLOP, err)) < 0 ||
        (rc = cs_json_opt_num(o, where, "mem_eff", 0, &g->mem_eff, err)) < 0)
        return rc;
    if (g->gemm_eff_max > 1 || g->mem_eff > 1) {
        cs_jpath_key(w, sizeof w, where, g->gemm_eff_max > 1 ? "gemm_eff_max" : "mem_eff");
        return cs_err_set(err, CS_EINVAL, w, "must be in (0, 1], got %g",
                          g->gemm_eff_max > 1 ? g->gemm_eff_max : g->mem_eff);
    }
    cs_jpath_key(w, sizeof w, where, "hbm_GBps");
    if ((rc = cs_limit_check(g->hbm_GBps, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS, "GB/s", w,
                             err)) < 0)
        return rc;
    cs_jpath_key(w, sizeof w, where, "peak_tflops");
    pk = json_object_get(o, "peak_tflops");
    if (!json_is_object(pk))
        return cs_err_set(err, CS_EINVAL, w, "expected an object of TFLOP/s per dtype");
    if ((rc = cs_json_check_keys(pk, w, dtype_names, NULL, err)) < 0)
        return rc;
    for (d = 0; d < CS_DT_COUNT; d++) {
        char wd[300];
        cs_jpath_key(wd, sizeof wd, w, dtype_names[d]);
        if ((rc = cs_json_opt_num(pk, w, dtype_names[d], 1, &g->peak_tflops[d], err)) < 0 ||
            (rc = cs_limit_check_or0(g->peak_tflops[d], CS_LIMIT_TFLOPS_MIN, CS_LIMIT_TFLOPS_MAX,
                                     "TFLOP/s", "not supported", wd, err)) < 0)
            return rc;
    }
    return 0;
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

/* Hugging Face config.json: LLaMA/Mistral/Mixtral/Qwen-style keys. */
int cs_model_load_hf(const char *path, cs_llm *m, cs_err *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je), *v;
    const char *act, *base;
    char where[256];
    if (!root) {
        if (je.line < 0)
            return cs_err_set(err, CS_EIO, path, "cannot read: %s", je.text);
        snprintf(where, sizeof where, "%s:%d:%d", path, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    memset(m, 0, sizeof *m);
    base = strrchr(path, '/');
    snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : path);
#define HF_INT(key, field, req) do {                                                      \
        v = json_object_get(root, key);                                                   \
        if (v && json_is_integer(v) && json_integer_value(v) > 0 &&                       \
            json_integer_value(v) <= (1 << 24))                                           \
            m->field = (int)json_integer_value(v);                                        \
        else if (v || (req)) {                                                            \
            json_decref(root);                                                            \
            return cs_err_set(err, CS_EINVAL, key, v ? "expected an integer in 1..16777216"\
                              : "missing required key (Hugging Face config.json)");       \
        }                                                                                 \
    } while (0)
    HF_INT("num_hidden_layers", layers, 1);
    HF_INT("hidden_size", hidden, 1);
    HF_INT("num_attention_heads", heads, 1);
    HF_INT("vocab_size", vocab, 1);
    m->kv_heads = m->heads;
    m->ffn_hidden = 4 * m->hidden;
    HF_INT("num_key_value_heads", kv_heads, 0);
    HF_INT("intermediate_size", ffn_hidden, 0);
    m->seq_len = 2048;
    HF_INT("max_position_embeddings", seq_len, 0);
    HF_INT("num_local_experts", experts, 0);
    HF_INT("n_routed_experts", experts, 0);
    HF_INT("num_experts", experts, 0);
    HF_INT("num_experts_per_tok", top_k, 0);
    m->moe_ffn_hidden = m->ffn_hidden;
    HF_INT("moe_intermediate_size", moe_ffn_hidden, 0);
#undef HF_INT
    act = json_string_value(json_object_get(root, "hidden_act"));
    m->gated_mlp = act && (!strcmp(act, "silu") || !strcmp(act, "swiglu"));
    json_decref(root);
    if (m->hidden % m->heads || m->heads % m->kv_heads)
        return cs_err_set(err, CS_EINVAL, "num_attention_heads", "%d heads, %d key/value heads "
                          "do not divide hidden %d", m->heads, m->kv_heads, m->hidden);
    if (m->experts && !m->top_k)
        m->top_k = 1;
    if (m->top_k > m->experts)
        return cs_err_set(err, CS_EINVAL, "num_experts_per_tok", "must be <= the experts (%d), "
                          "got %d", m->experts, m->top_k);
    return 0;
}

/* --- counting --- */

void cs_model_layer_params(const cs_llm *m, double *dense, double *experts)
{
    double h = m->hidden, dh = h / m->heads, kv = m->kv_heads * dh, f = m->ffn_hidden;
    double bias = m->gated_mlp ? 0 : 1;
    double attn = h * (h + 2 * kv) + h * h + bias * (h + 2 * kv + h);
    double norms = m->gated_mlp ? 2 * h : 4 * h;       /* RMSNorm weight / LayerNorm w + b */
    double mlp1 = m->gated_mlp ? 3 * h * f : 2 * h * f + bias * (f + h);
    if (m->experts > 0) {
        double fe = m->moe_ffn_hidden;
        double one = m->gated_mlp ? 3 * h * fe : 2 * h * fe + bias * (fe + h);
        *dense = attn + norms + h * m->experts;         /* router: h x E */
        *experts = one * m->experts;
    } else {
        *dense = attn + norms + mlp1;
        *experts = 0;
    }
}

double cs_model_embed_params(const cs_llm *m)
{
    double h = m->hidden, V = m->vocab;
    if (m->gated_mlp)              /* untied output layer, rotary positions, final RMSNorm */
        return 2 * V * h + h;
    return V * h + (double)m->seq_len * h + 2 * h;  /* tied, learned positions, final LN */
}

double cs_model_params(const cs_llm *m)
{
    double d, e;
    cs_model_layer_params(m, &d, &e);
    return m->layers * (d + e) + cs_model_embed_params(m);
}

double cs_model_attn_core_flops(const cs_llm *m)
{
    double s = m->seq_len, h = m->hidden;
    return 4 * s * s * h;          /* Q K^T and (softmax) V: 2 s^2 h each */
}

double cs_model_layer_fwd_flops(const cs_llm *m)
{
    double s = m->seq_len, h = m->hidden, dh = h / m->heads, kv = m->kv_heads * dh;
    double gemms = m->gated_mlp ? 3 : 2, mlp;
    if (m->experts > 0)
        mlp = 2 * s * h * m->experts + m->top_k * gemms * 2 * s * h * m->moe_ffn_hidden;
    else
        mlp = gemms * 2 * s * h * m->ffn_hidden;
    return 2 * s * h * (h + 2 * kv) + cs_model_attn_core_flops(m) + 2 * s * h * h + mlp;
}

double cs_model_logit_flops(const cs_llm *m)
{
    return 2.0 * m->seq_len * m->hidden * m->vocab;
}

double cs_model_flops_step(const cs_llm *m, long batch)
{
    return 3.0 * batch * (m->layers * cs_model_layer_fwd_flops(m) + cs_model_logit_flops(m));
}

double cs_model_hw_flops_step(const cs_llm *m, long batch, cs_recompute rc)
{
    double extra = rc == CS_RC_FULL ? cs_model_layer_fwd_flops(m)
                 : rc == CS_RC_SELECTIVE ? cs_model_attn_core_flops(m) : 0;
    return cs_model_flops_step(m, batch) + (double)batch * m->layers * extra;
}
