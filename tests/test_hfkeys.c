/* test_hfkeys.c: every input read completely or refused out loud (issue 27): Hugging Face
 * config.json keys that change the counts (head_dim, tie_word_embeddings, shared experts,
 * dense first layers), keys named as ignored in the result, the plan JSON's model keys of
 * the same, and the defaults a plan states (the layout from the topology). Every number is
 * derived by hand in the comment above its assertion. */
#include "scenarios/plan.h"
#include "tests/testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load(const char *rel, cs_llm *m)
{
    cs_err err;
    cs_err_clear(&err);
    if (cs_model_load_hf(cs_test_data(rel), m, &err) < 0)
        fprintf(stderr, "\n  %s: %s: %s\n", rel, err.where, err.msg);
    CU_ASSERT_EQUAL_FATAL(err.code, 0);
}

/* Qwen3-style: h 1024, 16 heads of head_dim 128 (a d_h = 2048 != h), 8 KV heads, SwiGLU f
 * 3072, 2 layers, V 1000, tied. Per layer: attention h (a d_h + 2 kv d_h) + a d_h h =
 * 1024 x 4096 + 2048 x 1024 = 6291456, RMSNorms 2 h = 2048, MLP 3 h f = 9437184: 15730688;
 * 2 layers 31461376; embedding V h + final norm h = 1025024 (tied: no output layer);
 * total 32486400. Untied: + V h = 1024000. */
static void t_head_dim_params(void)
{
    cs_llm m, u;
    double d, e;
    load("ok/hf-qwen3-small.json", &m);
    CU_ASSERT_EQUAL(m.head_dim, 128);
    CU_ASSERT_EQUAL(cs_model_head_dim(&m), 128);
    CU_ASSERT(cs_model_is_tied(&m));
    cs_model_layer_params(&m, &d, &e);
    CU_ASSERT_DOUBLE_EQUAL(d, 15730688.0, 0.5);
    CU_ASSERT_DOUBLE_EQUAL(e, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(cs_model_embed_params(&m), 1025024.0, 0.5);
    CU_ASSERT_DOUBLE_EQUAL(cs_model_params(&m), 32486400.0, 0.5);
    load("ok/hf-qwen3-untied.json", &u);
    CU_ASSERT(!cs_model_is_tied(&u));
    CU_ASSERT_DOUBLE_EQUAL(cs_model_params(&u) - cs_model_params(&m), 1000.0 * 1024, 0.5);
}

/* Forward FLOPs of one layer, s = 256: QKV 2 s h (a d_h + 2 kv d_h) = 2147483648, core
 * 4 s^2 a d_h = 536870912, projection 2 s a d_h h = 1073741824, MLP 3 x 2 s h f =
 * 4831838208: 2^33. */
static void t_head_dim_flops(void)
{
    cs_llm m;
    load("ok/hf-qwen3-small.json", &m);
    CU_ASSERT_EQUAL(m.seq_len, 256);
    CU_ASSERT_DOUBLE_EQUAL(cs_model_attn_core_flops(&m), 536870912.0, 0.5);
    CU_ASSERT_DOUBLE_EQUAL(cs_model_layer_fwd_flops(&m), 8589934592.0, 0.5);
}

/* DeepSeek-style: h 512, 8 heads (d_h 64), 4 layers, the first dense (f 2048), 3 MoE
 * layers of 8 experts of 256 (top 2) and 2 shared experts (one MLP of 512), V 1000,
 * untied. Attention as MHA would be 4 h^2 = 1048576; it is MLA (kv_lora 128, rope 32,
 * nope 64, v 64, no q_lora): q h x a (64 + 32) = 393216, kv down h x (128 + 32) = 81920,
 * its norm 128, kv up 128 x a (64 + 64) = 131072, output a 64 x h = 262144: 868480, 180096
 * less a layer. Norms 1024. Dense layer with MHA: + 3 h 2048 = 3145728: 4195328. MoE
 * layer: + router h E = 4096 + experts 8 x 3 h 256 = 3145728 + shared 3 h 512 = 786432:
 * 4985856. Layers 4195328 + 3 x 4985856 = 19152896; embedding and output 2 V h + h =
 * 1024512: 20177408 with MHA, 20177408 - 4 x 180096 = 19457024 with MLA. Every layer MoE
 * without shared experts (the model before issue 27): 4 x 4199424 + 1024512 - 720384 =
 * 17101824. */
static void t_deepseek_params(void)
{
    cs_llm m, old;
    load("ok/hf-deepseek-small.json", &m);
    CU_ASSERT_EQUAL(m.dense_layers, 1);
    CU_ASSERT_EQUAL(m.shared_ffn, 512);
    CU_ASSERT_EQUAL(m.experts, 8);
    CU_ASSERT(cs_model_is_mla(&m));
    CU_ASSERT_DOUBLE_EQUAL(cs_model_params(&m), 19457024.0, 0.5);
    old = m;
    old.dense_layers = 0;
    old.shared_ffn = 0;
    CU_ASSERT_DOUBLE_EQUAL(cs_model_params(&old), 17101824.0, 0.5);
    /* the mean layer's FLOPs: (1 dense + 3 MoE) / 4; s = 256, MLA projections 2 s x
     * (868480 - 128 norm) = 444596224, core 2 s^2 a (96 + 64) = 167772160; dense MLP
     * 6 s h 2048 = 1610612736; MoE router 2 s h E = 2097152, routed 2 x 6 s h 256 =
     * 402653184, shared 6 s h 512 = 402653184 */
    CU_ASSERT_DOUBLE_EQUAL(cs_model_layer_fwd_flops(&m), 612368384.0 +
                           (1610612736.0 + 3 * (2097152.0 + 402653184 + 402653184)) / 4, 1);
}

/* Keys that change cost and are not modelled are named, in the file's order: an unknown
 * key; known-irrelevant keys are not, nor the MLA ranks (read; q_lora_rank null: not set). */
static void t_ignored_named(void)
{
    cs_llm m;
    load("ok/hf-deepseek-small.json", &m);
    CU_ASSERT_STRING_EQUAL(m.ignored, "");
    load("ok/hf-qwen3-small.json", &m);
    CU_ASSERT_STRING_EQUAL(m.ignored, "frobnicate");
    load("ok/plan-llama-2-7b-config.json", &m);
    CU_ASSERT_STRING_EQUAL(m.ignored, "");
}

/* The output of `collsim plan --model MODEL --gpu h100-sxm --topo dgx-h100 --gbs 8 EXTRA`
 * (malloc'd; NULL when it failed). */
static char *plan_out(const char *model, const char *extra)
{
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s plan --model %s --gpu h100-sxm --topo dgx-h100 --gbs 8 %s",
             CS_COLLSIM, model, extra);
    if (cs_test_sh(cmd, &out) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* assumptions.ignored of `collsim plan ... EXTRA --format json`, joined by ", " into buf
 * ("?" when the run or its JSON failed). */
static const char *ignored_of(const char *model, const char *extra, char *buf, size_t n)
{
    char args[256], *out;
    json_t *root, *ig;
    size_t i;
    snprintf(args, sizeof args, "%s --format json 2>/dev/null", extra);
    snprintf(buf, n, "?");
    if (!(out = plan_out(model, args)))
        return buf;
    root = json_loads(out, 0, NULL);
    free(out);
    ig = json_object_get(json_object_get(root, "assumptions"), "ignored");
    if (json_is_array(ig))
        buf[0] = '\0';
    for (i = 0; i < json_array_size(ig); i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? ", " : "",
                 json_string_value(json_array_get(ig, i)));
    json_decref(root);
    return buf;
}

/* The result says it: the text header and JSON assumptions.ignored (config.json keys, then
 * --megatron flags not read). */
static void t_ignored_in_result(void)
{
    char model[1024], buf[512], *out;
    snprintf(model, sizeof model, "%s", cs_test_data("ok/hf-qwen3-small.json"));
    out = plan_out(model, "--dp 8 --megatron '--foo-bar 3' 2>/dev/null");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n# ignored from config.json: frobnicate\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n# ignored from --megatron: --foo-bar\n"));
    free(out);
    CU_ASSERT_STRING_EQUAL(ignored_of(model, "--dp 8", buf, sizeof buf), "frobnicate");
    CU_ASSERT_STRING_EQUAL(ignored_of(model, "--dp 8 --megatron '--foo-bar 3'", buf,
                                      sizeof buf), "frobnicate, --foo-bar");
    CU_ASSERT_STRING_EQUAL(ignored_of(cs_test_data("ok/plan-llama-2-7b-config.json"),
                                      "--dp 8", buf, sizeof buf), "");
}

/* The plan JSON's model keys give the same counts as the config.json, and are strict. */
static void t_plan_model_keys(void)
{
    static const char *const bad[][2] = {
        {"\"shared_experts\": 2", "model.shared_experts"},
        {"\"experts\": 8, \"dense_layers\": 5", "model.dense_layers"},
        {"\"head_dim\": 0", "model.head_dim"},
        {"\"tied_embeddings\": 1", "model.tied_embeddings"},
        {"\"attention\": \"mla\"", "model.kv_lora_rank"},
        {"\"kv_lora_rank\": 64, \"attention\": \"gqa\"", "model.attention"},
        {"\"kv_heads\": 2, \"attention\": \"mha\"", "model.attention"}};
#define FMT "{\"model\": {\"layers\": 4, \"hidden\": 512, \"heads\": 8, " \
        "\"ffn_hidden\": 2048, \"gated_mlp\": true, \"seq_len\": 256, \"vocab\": 1000, %s}, " \
        "\"train\": {\"global_batch\": 8}}"
    char json[1024];
    cs_plan p;
    cs_err err;
    size_t i;
    snprintf(json, sizeof json, FMT, "\"experts\": 8, \"top_k\": 2, \"moe_ffn_hidden\": 256, "
             "\"shared_experts\": 2, \"dense_layers\": 1, \"tied_embeddings\": false");
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "test", &p, &err), 0);
    CS_ASSERT_REL(cs_model_params(&p.model), 20177408.0, 1e-15);
    cs_plan_fini(&p);
    snprintf(json, sizeof json, FMT, "\"head_dim\": 128, \"tied_embeddings\": true, "
             "\"kv_heads\": 2, \"attention\": \"gqa\"");
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "test", &p, &err), 0);
    CU_ASSERT_EQUAL(cs_model_head_dim(&p.model), 128);
    cs_plan_fini(&p);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(json, sizeof json, FMT, bad[i][0]);
        cs_err_clear(&err);
        cs_plan_init(&p);
        CU_ASSERT(cs_plan_parse(json, "test", &p, &err) < 0);
        CU_ASSERT_STRING_EQUAL(err.where, bad[i][1]);
        cs_plan_fini(&p);
    }
}

/* No dp given on the 8 GPUs of a DGX H100: dp 8, said in the layout line and in
 * assumptions.layout_from; flash attention by default, said too. A plan that gives dp and
 * flash attention gets neither note. */
static void t_default_layout(void)
{
    char *out = plan_out("gpt-1.7b", "");
    json_t *root, *as;
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "# layout: tp 1, pp 1, dp 8, cp 1,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "(dp from the topology's 8 GPUs: no --dp given)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n# attention: flash attention (the default"));
    free(out);
    out = plan_out("gpt-1.7b", "--format json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    root = json_loads(out, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    as = json_object_get(root, "assumptions");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "gpus")), 8);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(root, "parallel"),
                                                       "dp")), 8);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(as, "layout_from")), "topology");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(as, "topology_gpus")), 8);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(as, "flash_attention_from")),
                           "default");
    json_decref(root);
    free(out);
    out = plan_out("gpt-1.7b", "--dp 2 --flash-attention off");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "order tp-cp-ep-dp-pp\n"));
    CU_ASSERT_PTR_NULL(strstr(out, "no --dp given"));
    CU_ASSERT_PTR_NULL(strstr(out, "# attention:"));
    free(out);
}

/* Megatron's --kv-channels is the head dimension: GPT-3 175B (h 12288, 96 heads of 128)
 * with 96-wide heads: a d_h = 9216, attention 4 h a d_h + biases 3 a d_h + h per layer,
 * 4 x 12288 x 3072 + 3 x 3072 = 151004160 fewer per layer, 14496399360 over 96 layers.
 * --use-flash-attn turns flash attention on, --untie-embeddings-and-output-weights gives the
 * output layer its own V x h. */
static void t_megatron_keys(void)
{
    cs_plan p;
    cs_err err;
    double full;
    char ign[256];
    cs_plan_init(&p);
    p.flash_attention = 0;
    CU_ASSERT_EQUAL_FATAL(cs_model_preset("gpt3-175b", &p.model, &err), 0);
    full = cs_model_params(&p.model);
    CU_ASSERT_EQUAL_FATAL(cs_plan_megatron("--kv-channels 96 --use-flash-attn", &p, ign,
                                           sizeof ign, &err), 0);
    CU_ASSERT_EQUAL(p.model.head_dim, 96);
    CU_ASSERT(p.flash_attention && p.flash_given);
    CU_ASSERT_DOUBLE_EQUAL(full - cs_model_params(&p.model), 14496399360.0, 0.5);
    CU_ASSERT_EQUAL_FATAL(cs_plan_megatron("--untie-embeddings-and-output-weights", &p, ign,
                                           sizeof ign, &err), 0);
    CU_ASSERT_EQUAL(p.model.tied, CS_TIE_NO);
    CU_ASSERT_STRING_EQUAL(ign, "");
    cs_plan_fini(&p);
}

int cs_test_register(void)
{
    static const cs_test_case hf[] = {
        {"head_dim_params", t_head_dim_params}, {"head_dim_flops", t_head_dim_flops},
        {"deepseek_params", t_deepseek_params}, {"ignored_named", t_ignored_named},
        {"ignored_in_result", t_ignored_in_result}, {"plan_model_keys", t_plan_model_keys},
        {"default_layout", t_default_layout}, {"megatron_keys", t_megatron_keys},
        {NULL, NULL}};
    return cs_test_add_suite("hfkeys", hf);
}
