/* test_moe.c: mixtures of experts and attention variants in plans (issue 27): an MoE
 * layer's FLOPs, parameters and all-to-all volume by hand, the expert GEMM shapes with
 * imbalance, capacity and expert TP, MLA's parameters at DeepSeek-V3's dimensions, the
 * attention core of windowed layers, bad MoE inputs naming their key, and one plan through
 * four input routes giving the same answer. Every number is derived in the comment above. */
#include "scenarios/comm-private.h"
#include "scenarios/compute.h"
#include "scenarios/plan.h"
#include "tests/testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A plan of the MoE model M below on a DGX H100 with the given extra model keys, train
 * keys and parallel keys. */
#define MOE_MODEL "{\"layers\": 2, \"hidden\": 1024, \"heads\": 8, \"ffn_hidden\": 2048, " \
    "\"gated_mlp\": true, \"seq_len\": 256, \"vocab\": 1000, \"experts\": 8, \"top_k\": 2, " \
    "\"moe_ffn_hidden\": 512%s}"
static int parse(const char *model_extra, const char *train, const char *par, cs_plan *p,
                 cs_err *err)
{
    char model[512], json[2048];
    snprintf(model, sizeof model, MOE_MODEL, model_extra);
    snprintf(json, sizeof json, "{\"model\": %s, \"train\": {\"global_batch\": 8%s}, "
             "\"parallel\": {\"dp\": 8%s}, \"system\": {\"gpu\": \"h100-sxm\", \"topo\": "
             "\"dgx-h100\"}}", model, train, par);
    cs_plan_init(p);
    cs_err_clear(err);
    return cs_plan_parse(json, "test", p, err);
}

/* M: h 1024, 8 heads of 128, E 8 SwiGLU experts of f_e 512, top-2, s 256. Per MoE layer:
 * router 2 s h E = 4194304 FLOPs, routed k x 3 x 2 s h f_e = 1610612736, no shared.
 * Parameters: experts E x 3 h f_e = 12582912; the rest attention 4 h^2 = 4194304, norms
 * 2 h = 2048, router h E = 8192: 4204544. Layer FLOPs: QKV 2 s h 3h = 1610612736, core
 * 4 s^2 h = 268435456, projection 2 s h^2 = 536870912, + router + routed: 4030726144. */
static void t_moe_layer_counts(void)
{
    cs_plan p;
    cs_err err;
    double r, x, sh, d, e;
    CU_ASSERT_EQUAL_FATAL(parse("", "", "", &p, &err), 0);
    cs_model_moe_flops(&p.model, &r, &x, &sh);
    CU_ASSERT_DOUBLE_EQUAL(r, 4194304.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(x, 1610612736.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(sh, 0, 0);
    cs_model_layer_params(&p.model, &d, &e);
    CU_ASSERT_DOUBLE_EQUAL(e, 12582912.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 4204544.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(cs_model_layer_fwd_flops(&p.model), 4030726144.0, 0);
    cs_plan_fini(&p);
}

/* EP 4 of dp 8, micro batch 1: T = 256 tokens, each rank dispatches T k h q = 256 x 2 x
 * 1024 x 2 = 1048576 bytes (and combines as many back), 3/4 of it to other ranks. Two
 * experts per rank (E / ep); at imbalance 2 the rank holding the hottest expert gets
 * (2 + 1) / 2 = 1.5 x the mean: 1572864; a capacity factor of 1.25 caps it at (1.25 + 1)
 * / 2 = 1.125: 1179648. allgather: every rank's T h q gathered over 4 ranks, S = 2097152.
 * Expert GEMMs: T k ep / E = 256 rows at the mean, 512 for the hottest at imbalance 2,
 * 320 at capacity 1.25, width f_e = 512. */
static void t_moe_a2a_and_shapes(void)
{
    cs_plan p;
    cs_err err;
    cs_moe_comm c;
    cs_moe_shape s;
    CU_ASSERT_EQUAL_FATAL(parse("", "", ", \"ep\": 4", &p, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_check(&p, 8, &err), 0);
    cs_plan_moe_comm(&p, 1, &c);
    CU_ASSERT_EQUAL(c.dispatch, CS_COLL_ALLTOALL);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 1048576.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes * 3 / 4, 786432.0, 0);
    cs_plan_moe_shape(&p, &s);
    CU_ASSERT_EQUAL(s.n_local, 2);
    CU_ASSERT_EQUAL(s.gemms, 3);
    CU_ASSERT_DOUBLE_EQUAL(s.tokens_mean, 256.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.tokens_max, 256.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.width, 512.0, 0);
    cs_plan_fini(&p);
    CU_ASSERT_EQUAL_FATAL(parse("", "", ", \"ep\": 4, \"moe_imbalance\": 2", &p, &err), 0);
    cs_plan_moe_comm(&p, 1, &c);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 1572864.0, 0);
    cs_plan_moe_shape(&p, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.tokens_max, 512.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.tokens_mean, 256.0, 0);
    cs_plan_fini(&p);
    CU_ASSERT_EQUAL_FATAL(parse("", ", \"capacity_factor\": 1.25", ", \"ep\": 4, "
                                "\"moe_imbalance\": 2, \"moe_dispatcher\": \"allgather\"", &p,
                                &err), 0);
    cs_plan_moe_shape(&p, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.tokens_max, 320.0, 0);
    cs_plan_moe_comm(&p, 1, &c);
    CU_ASSERT_EQUAL(c.dispatch, CS_COLL_ALLGATHER);
    CU_ASSERT_EQUAL(c.combine, CS_COLL_REDUCESCATTER);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 2097152.0, 0);
    p.dispatcher = CS_MOE_ALLTOALL;
    cs_plan_moe_comm(&p, 1, &c);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 1179648.0, 0);
    /* flex (DeepEP) with the group over 2 nodes: a token goes to each node once, min(k,
     * nodes) / k = 2 / 2: the all-to-all's bytes; top-8 would send 2 / 8 of them */
    p.dispatcher = CS_MOE_FLEX;
    cs_plan_moe_comm(&p, 2, &c);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 1179648.0, 0);
    cs_plan_fini(&p);
}

/* Expert TP: tp 2 with etp 1 over dp 4, ep 4: each expert whole on a GPU (width 512), the
 * 2 TP ranks share the tokens: 256 x 2 x 4 / 8 / 2 = 128 rows; EDP = tp cp dp / (etp ep)
 * = 2 x 4 / 4 = 2. With etp 2 (the default, = tp): width 256, 256 rows, EDP 1. */
static void t_expert_tp(void)
{
    cs_plan p;
    cs_err err;
    cs_moe_shape s;
    CU_ASSERT_EQUAL_FATAL(parse("", "", ", \"ep\": 4, \"etp\": 1, \"edp\": 2", &p, &err), 0);
    p.tp = 2;
    p.dp = 4;
    CU_ASSERT_EQUAL(cs_plan_check(&p, 8, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_edp(&p), 2);
    cs_plan_moe_shape(&p, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.width, 512.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.tokens_mean, 128.0, 0);
    p.etp = 0;
    p.edp = 0;
    CU_ASSERT_EQUAL(cs_plan_etp(&p), 2);
    CU_ASSERT_EQUAL(cs_plan_edp(&p), 1);
    cs_plan_moe_shape(&p, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.width, 256.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.tokens_mean, 256.0, 0);
    cs_plan_fini(&p);
}

/* MLA at DeepSeek-V3's dimensions (h 7168, 128 heads, q_lora 1536, kv_lora 512, rope 64,
 * nope 128, v 128): q down 7168 x 1536 = 11010048, q up 1536 x 128 x 192 = 37748736, kv
 * down 7168 x 576 = 4128768, kv up 512 x 128 x 256 = 16777216, output 128 x 128 x 7168 =
 * 117440512: 187105280, + the latents' norms 1536 + 512: 187107328 a layer. A dense layer
 * of it: + 2 h norms 14336 + SwiGLU 3 h 18432 = 396361728: 583483392. */
static void t_mla_params(void)
{
    cs_llm m;
    cs_err err;
    double k[5], n[5], sum = 0, d, e;
    int tps[5], i, g;
    CU_ASSERT_EQUAL_FATAL(cs_model_preset("deepseek-v3", &m, &err), 0);
    CU_ASSERT(cs_model_is_mla(&m));
    g = cs_model_attn_gemms(&m, k, n, tps);
    CU_ASSERT_EQUAL(g, 5);
    for (i = 0; i < g; i++)
        sum += k[i] * n[i];
    CU_ASSERT_DOUBLE_EQUAL(sum, 187105280.0, 0);
    CU_ASSERT_EQUAL(tps[0], 0);                 /* the down projections are not split */
    CU_ASSERT_EQUAL(tps[2], 0);
    m.experts = 0;
    m.dense_layers = 0;
    m.shared_ffn = 0;
    m.mtp_layers = 0;
    cs_model_layer_params(&m, &d, &e);
    CU_ASSERT_DOUBLE_EQUAL(d, 583483392.0, 0);
    /* the stash per token: q_lora + kv_lora + rope + 2 a 192 + 2 a 128 = 84032 elements */
    CU_ASSERT_DOUBLE_EQUAL(cs_model_attn_act_elems(&m), 84032.0, 0);
}

/* Windows: 6 layers, s 4096, window 1024 on 5 of 6 (window_pattern 6): keys per query
 * (4096 + 5 x 1024) / 6 = 1536; the core 2 s keys a (d_h + d_h) = 2 x 4096 x 1536 x 8 x
 * 256 = 25769803776 against 4 s^2 a d_h = 68719476736 without the window. */
static void t_window_flops(void)
{
    cs_plan p;
    cs_err err;
    char json[1024];
    snprintf(json, sizeof json, "{\"model\": {\"layers\": 6, \"hidden\": 1024, \"heads\": 8, "
             "\"seq_len\": 4096, \"vocab\": 1000, \"window\": 1024, \"window_pattern\": 6}, "
             "\"train\": {\"global_batch\": 8}}");
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "test", &p, &err), 0);
    CU_ASSERT_EQUAL(p.model.window_layers, 5);
    CU_ASSERT_DOUBLE_EQUAL(cs_model_keys_per_query(&p.model), 1536.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(cs_model_attn_core_flops(&p.model), 25769803776.0, 0);
    p.model.window = 0;
    CU_ASSERT_DOUBLE_EQUAL(cs_model_attn_core_flops(&p.model), 68719476736.0, 0);
    cs_plan_fini(&p);
}

/* Bad MoE inputs: each refused naming its key. */
/* The host's side of a MoE layer, stated not modelled: M with ep 4 (2 local experts, bf16)
 * launches, in its forward, 7 kernels of attention (norm1, qkv, rotary, attention, proj,
 * residual1, norm2), 3 of routing (router, topk, permute), 2 GEMMs a local expert (fc1,
 * fc2: 4), the activation over both experts, unpermute and residual2: 7 + 3 + 4 + 3 = 17,
 * and their mean GPU time is the layer's forward over 17. A dense model states nothing. */
static void t_moe_host_launches(void)
{
    cs_plan p;
    cs_err err;
    cs_plan_result r;
    cs_layer_times t;
    json_t *o;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(parse("", "", ", \"ep\": 4", &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_check(&p, 8, &err), 0);
    o = cs_plan_compute_json(&p, &r);
    cs_plan_part_times(&p, CS_KP_MOE, &t);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(o, "moe_fwd_launches")), 17, 0);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(o, "moe_us_per_launch")),
                           1e6 * t.fwd / 17, 1e-9);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "host_dispatch")),
                           "not modelled");
    json_decref(o);
    p.model.experts = 0;
    o = cs_plan_compute_json(&p, &r);
    CU_ASSERT_PTR_NULL(json_object_get(o, "moe_fwd_launches"));
    json_decref(o);
    cs_plan_fini(&p);
}

/* Megatron-Core's MoE parallel folding (ep does not divide dp): the expert groups lie over
 * each stage's tp x cp x dp consecutive ranks, etp innermost, then ep, then edp. On 16
 * GPUs of 2 DGX H100, tp 4, dp 4, ep 8 (the 8 experts of M), etp 1: dp % ep = 4, so folded; edp = tp x dp /
 * (etp x ep) = 16 / 8 = 2; EP groups {0..7} and {8..15}; expert-DP groups 8 apart: {0, 8},
 * {1, 9}, ... {7, 15} (8 of them); the DP group still dp ranks 4 apart: {0, 4, 8, 12}.
 * With etp 4 (the default, = tp: etp x ep = 32 does not divide 16) it is refused by name,
 * and so is pp not outermost. ep 2 dividing dp 4 is not folded (ranks 4 apart in dp). */
static void t_ep_folding(void)
{
    cs_plan p;
    cs_err err;
    int *m, ng, gs, i;
    char model[512], json[2048];
    snprintf(model, sizeof model, MOE_MODEL, "");
    snprintf(json, sizeof json, "{\"model\": %s, \"train\": {\"global_batch\": 8}, "
             "\"parallel\": {\"tp\": 4, \"dp\": 4, \"ep\": 8, \"etp\": 1}, \"system\": "
             "{\"gpu\": \"h100-sxm\", \"topo\": \"dgx-h100-x2\"}}", model);
    cs_plan_init(&p);
    cs_err_clear(&err);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "test", &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_check(&p, 16, &err), 0);
    CU_ASSERT_TRUE(cs_plan_ep_folded(&p));
    CU_ASSERT_EQUAL(cs_plan_group_size(&p, CS_G_EP), 8);
    CU_ASSERT_EQUAL(cs_plan_group_size(&p, CS_G_EDP), 2);
    CU_ASSERT_EQUAL_FATAL(cs__plan_groups(&p, CS_G_EP, &m, &ng, &gs), 0);
    CU_ASSERT_EQUAL(ng, 2);
    CU_ASSERT_EQUAL(gs, 8);
    for (i = 0; i < 16; i++)
        CU_ASSERT_EQUAL(m[i], i);
    free(m);
    CU_ASSERT_EQUAL_FATAL(cs__plan_groups(&p, CS_G_EDP, &m, &ng, &gs), 0);
    CU_ASSERT_EQUAL(ng, 8);
    CU_ASSERT_EQUAL(gs, 2);
    for (i = 0; i < 8; i++) {
        CU_ASSERT_EQUAL(m[2 * i], i);
        CU_ASSERT_EQUAL(m[2 * i + 1], i + 8);
    }
    free(m);
    CU_ASSERT_EQUAL_FATAL(cs__plan_groups(&p, CS_G_DP, &m, &ng, &gs), 0);
    CU_ASSERT_EQUAL(gs, 4);
    CU_ASSERT_EQUAL(m[0], 0);
    CU_ASSERT_EQUAL(m[1], 4);
    CU_ASSERT_EQUAL(m[3], 12);
    free(m);
    {
        /* the experts' states shard over edp = 2, not dp / ep = 0.5: each GPU holds one
         * expert of 3 h f_e / etp = 1572864 parameters a layer, ee = 3145728 for the 2
         * layers; ZeRO-0 weights W0 = 2 (dd + ee) bytes give the dense dd, and ZeRO-2
         * gradients are 2 (dd / (dp cp) + ee / edp) = 2 ((W0 / 2 - ee) / 4 + ee / 2) */
        cs_plan_ctx *ctx = NULL;
        cs_plan_result r0, r2;
        double ee = 2 * 3 * 1024.0 * 512, dd;
        CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_plan_eval(ctx, &p, 0, &r0, &err), 0);
        p.zero = 2;
        CU_ASSERT_EQUAL_FATAL(cs_plan_eval(ctx, &p, 0, &r2, &err), 0);
        p.zero = 0;
        dd = r0.mem.weights / 2 - ee;
        CU_ASSERT(dd > 0);
        CS_ASSERT_REL(r2.mem.gradients, 2 * (dd / 4 + ee / 2), 1e-12);
        cs_plan_result_fini(&r0);
        cs_plan_result_fini(&r2);
        cs_plan_ctx_free(ctx);
    }
    p.etp = 4;
    CU_ASSERT_NOT_EQUAL(cs_plan_check(&p, 16, &err), 0);
    CU_ASSERT_STRING_EQUAL(err.where, "parallel.ep");
    p.etp = 1;
    p.order[CS_DIM_COUNT - 1] = CS_DIM_DP;
    p.order[CS_DIM_DP] = CS_DIM_PP;
    CU_ASSERT_NOT_EQUAL(cs_plan_check(&p, 16, &err), 0);
    CU_ASSERT_STRING_EQUAL(err.where, "parallel.order");
    cs_plan_fini(&p);
    CU_ASSERT_EQUAL_FATAL(parse("", "", ", \"ep\": 2", &p, &err), 0);
    CU_ASSERT_FALSE(cs_plan_ep_folded(&p));
    CU_ASSERT_EQUAL(cs_plan_group_size(&p, CS_G_EDP), 4);
    cs_plan_fini(&p);
}

static void t_bad_inputs(void)
{
    static const char *const bad[][4] = {      /* model extra, train, parallel, where */
        {"", "", ", \"ep\": 3", "parallel.ep"},                 /* 3 does not divide 8 */
        {"", "", ", \"ep\": 4, \"moe_dispatcher\": \"deepep\"", "parallel.moe_dispatcher"},
        {"", ", \"capacity_factor\": 0", "", "train.capacity_factor"},
        {"", ", \"capacity_factor\": -1", "", "train.capacity_factor"},
        {", \"top_k\": 9", "", "", "model.top_k"},
        {"", "", ", \"moe_imbalance\": 0.5", "parallel.moe_imbalance"},
        {"", "", ", \"etp\": 3", "parallel.etp"},
        {"", "", ", \"ep\": 4, \"edp\": 1", "parallel.edp"},
        {", \"router_groups\": 3, \"router_group_topk\": 1", "", "", "model.router_groups"},
        {", \"router_groups\": 4, \"router_group_topk\": 5", "", "", "model.router_group_topk"},
        {", \"router_groups\": 4", "", "", "model.router_group_topk"},
        /* 1 group of 8 / 8 = 1 expert cannot hold top-2 */
        {", \"router_groups\": 8, \"router_group_topk\": 1", "", "", "model.router_group_topk"}};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* top_k is a model key: its extra replaces the model's "top_k": 2 by appearing
         * later (JSON objects keep the last) */
        cs_plan p;
        cs_err err;
        int rc = parse(bad[i][0], bad[i][1], bad[i][2], &p, &err);
        if (rc == 0)
            rc = cs_plan_check(&p, 8, &err);
        CU_ASSERT(rc < 0);
        CU_ASSERT_STRING_EQUAL(err.where, bad[i][3]);
        if (strcmp(err.where, bad[i][3]))
            fprintf(stderr, "\n  case %zu: %s: %s\n", i, err.where, err.msg);
        cs_plan_fini(&p);
    }
    {
        char *out = NULL;
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s plan --model qwen3-30b-a3b --gpu h100-sxm --topo "
                 "dgx-h100 --gbs 8 --megatron '--moe-token-dispatcher-type deepep' 2>&1",
                 CS_COLLSIM);
        CU_ASSERT_NOT_EQUAL(cs_test_sh(cmd, &out), 0);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "--moe-token-dispatcher-type: unknown "
                                             "dispatcher 'deepep' (known: alltoall, allgather, "
                                             "flex)"));
        free(out);
    }
}

/* Group-limited routing (DeepSeek-V3's n_group / topk_group, Megatron's
 * --moe-router-num-groups / --moe-router-group-topk): M's 8 experts in 4 groups of 2, a
 * token's top-2 within 1 group. Nodes a token reaches, min(nodes, k, topk_group x
 * ceil(nodes / groups)): EP over 4 nodes 1 (its group is on one node), over 8 nodes 2 (a
 * group on 2 nodes), over 2 nodes 1; without groups min(4, 2) = 2. DeepEP (flex) sends a
 * token once per node: on 4 nodes the all-to-all's 1048576 bytes x 1 / 2 = 524288.
 * DeepSeek-V3 (256 experts, top-8, 4 of 8 groups): EP over 8 nodes 4 (the paper's "at most
 * 4 nodes"), over 16 nodes min(16, 8, 4 x 2) = 8, over 4 nodes 4. Read alike from a plan's
 * model, a config.json and Megatron's flags. */
static void t_group_routing(void)
{
    cs_plan p;
    cs_llm v3;
    cs_moe_comm c;
    cs_err err;
    char tmp[256], hf[300], ign[256] = "";
    CU_ASSERT_EQUAL_FATAL(parse(", \"router_groups\": 4, \"router_group_topk\": 1", "",
                                ", \"ep\": 4, \"moe_dispatcher\": \"flex\"", &p, &err), 0);
    CU_ASSERT(p.model.router_groups == 4 && p.model.router_group_topk == 1);
    CU_ASSERT_EQUAL(cs_plan_moe_nodes_reached(&p.model, 4), 1);
    CU_ASSERT_EQUAL(cs_plan_moe_nodes_reached(&p.model, 8), 2);
    CU_ASSERT_EQUAL(cs_plan_moe_nodes_reached(&p.model, 2), 1);
    cs_plan_moe_comm(&p, 4, &c);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 524288.0, 0);
    p.model.router_groups = p.model.router_group_topk = 0;
    CU_ASSERT_EQUAL(cs_plan_moe_nodes_reached(&p.model, 4), 2);
    cs_plan_moe_comm(&p, 4, &c);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 1048576.0, 0);
    cs_plan_fini(&p);
    CU_ASSERT_EQUAL_FATAL(cs_model_preset("deepseek-v3", &v3, &err), 0);
    CU_ASSERT(v3.router_groups == 8 && v3.router_group_topk == 4);
    CU_ASSERT_EQUAL(cs_plan_moe_nodes_reached(&v3, 8), 4);
    CU_ASSERT_EQUAL(cs_plan_moe_nodes_reached(&v3, 16), 8);
    CU_ASSERT_EQUAL(cs_plan_moe_nodes_reached(&v3, 4), 4);
    cs_test_json_file("{\"num_hidden_layers\": 2, \"hidden_size\": 1024, "
        "\"num_attention_heads\": 8, \"intermediate_size\": 2048, \"vocab_size\": 1000, "
        "\"n_routed_experts\": 8, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 512, "
        "\"n_group\": 4, \"topk_group\": 1}", tmp, sizeof tmp);
    snprintf(hf, sizeof hf, "%s.json", tmp);
    CU_ASSERT_EQUAL_FATAL(rename(tmp, hf), 0);
    CU_ASSERT_EQUAL(cs_model_load_hf(hf, &v3, &err), 0);
    CU_ASSERT(v3.router_groups == 4 && v3.router_group_topk == 1 && !v3.ignored[0]);
    unlink(hf);
    cs_plan_init(&p);
    CU_ASSERT_EQUAL(cs_plan_megatron("--num-layers 2 --hidden-size 1024 --num-attention-heads 8 "
                                     "--seq-length 256 --padded-vocab-size 1000 --num-experts 8 "
                                     "--moe-router-topk 2 --moe-router-num-groups 4 "
                                     "--moe-router-group-topk 1", &p, ign, sizeof ign, &err), 0);
    CU_ASSERT(p.model.router_groups == 4 && p.model.router_group_topk == 1 && !ign[0]);
    cs_plan_fini(&p);
    cs_plan_init(&p);
    CU_ASSERT(cs_plan_megatron("--num-layers 2 --hidden-size 1024 --num-attention-heads 8 "
                               "--seq-length 256 --padded-vocab-size 1000 --num-experts 8 "
                               "--moe-router-topk 2 --moe-router-num-groups 4 "
                               "--moe-router-group-topk 5", &p, ign, sizeof ign, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "--moe-router-group-topk");
    cs_plan_fini(&p);
}

/* step_time_s and memory_bytes.total of `collsim plan ARGS --format json` into t, mem. */
static int run_plan(const char *args, double *t, double *mem)
{
    char cmd[4096], *out = NULL;
    json_t *root;
    snprintf(cmd, sizeof cmd, "%s plan %s --format json 2>/dev/null", CS_COLLSIM, args);
    if (cs_test_sh(cmd, &out) != 0 || !(root = json_loads(out, 0, NULL))) {
        fprintf(stderr, "\n  failed: %s\n%s\n", cmd, out ? out : "");
        free(out);
        return -1;
    }
    free(out);
    *t = json_real_value(json_object_get(root, "step_time_s"));
    *mem = json_real_value(json_object_get(json_object_get(root, "memory_bytes"), "total"));
    json_decref(root);
    return 0;
}

/* One MoE plan four ways: a plan JSON, a Hugging Face config.json with flags, Megatron-LM
 * arguments, a DeepSpeed config with the config.json: 4 layers, h 1024, 8 heads, SwiGLU
 * 2048, 8 experts of 512, top-2, V 1024, s 1024, untied; 16 sequences, micro batch 1, dp 8,
 * ep 4, capacity factor 1.25, imbalance 1.5, bf16, on a DGX H100. Same bytes out. */
static void t_four_routes(void)
{
    char plan[256], tmp[256], hf[300], ds[256], args[2048];
    double t[4], m[4];
    int i;
    cs_test_json_file("{\"model\": {\"layers\": 4, \"hidden\": 1024, \"heads\": 8, "
        "\"ffn_hidden\": 2048, \"gated_mlp\": true, \"seq_len\": 1024, \"vocab\": 1024, "
        "\"experts\": 8, \"top_k\": 2, \"moe_ffn_hidden\": 512, \"tied_embeddings\": false}, "
        "\"train\": {\"global_batch\": 16, \"micro_batch\": 1, \"dtype\": \"bf16\", "
        "\"capacity_factor\": 1.25}, \"parallel\": {\"dp\": 8, \"ep\": 4, \"moe_imbalance\": 1.5}, "
        "\"system\": {\"gpu\": \"h100-sxm\", \"topo\": \"dgx-h100\"}}", plan, sizeof plan);
    cs_test_json_file("{\"num_hidden_layers\": 4, \"hidden_size\": 1024, "
        "\"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"intermediate_size\": 2048, "
        "\"hidden_act\": \"silu\", \"max_position_embeddings\": 1024, \"vocab_size\": 1024, "
        "\"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 512, "
        "\"tie_word_embeddings\": false}", tmp, sizeof tmp);
    cs_test_json_file("{\"train_batch_size\": 16, \"train_micro_batch_size_per_gpu\": 1, "
        "\"bf16\": {\"enabled\": true}}", ds, sizeof ds);
    snprintf(hf, sizeof hf, "%s.json", tmp);  /* --model reads a config.json by its ending */
    CU_ASSERT_EQUAL_FATAL(rename(tmp, hf), 0);
    CU_ASSERT_EQUAL(run_plan(plan, &t[0], &m[0]), 0);
    snprintf(args, sizeof args, "--model %s --gpu h100-sxm --topo dgx-h100 --gbs 16 --mbs 1 "
             "--dp 8 --ep 4 --capacity-factor 1.25 --moe-imbalance 1.5", hf);
    CU_ASSERT_EQUAL(run_plan(args, &t[1], &m[1]), 0);
    snprintf(args, sizeof args, "--gpu h100-sxm --topo dgx-h100 --dp 8 --moe-imbalance 1.5 "
             "--megatron '--num-layers 4 --hidden-size 1024 --num-attention-heads 8 "
             "--ffn-hidden-size 2048 --swiglu --seq-length 1024 --padded-vocab-size 1024 "
             "--num-experts 8 --moe-router-topk 2 --moe-ffn-hidden-size 512 "
             "--untie-embeddings-and-output-weights --micro-batch-size 1 "
             "--global-batch-size 16 --expert-model-parallel-size 4 --bf16 "
             "--moe-expert-capacity-factor 1.25 --moe-token-dispatcher-type alltoall "
             "--moe-grouped-gemm'");
    CU_ASSERT_EQUAL(run_plan(args, &t[2], &m[2]), 0);
    snprintf(args, sizeof args, "--model %s --deepspeed %s --gpu h100-sxm --topo dgx-h100 "
             "--dp 8 --ep 4 --capacity-factor 1.25 --moe-imbalance 1.5", hf, ds);
    CU_ASSERT_EQUAL(run_plan(args, &t[3], &m[3]), 0);
    for (i = 1; i < 4; i++) {
        CU_ASSERT_DOUBLE_EQUAL(t[i], t[0], 0);
        CU_ASSERT_DOUBLE_EQUAL(m[i], m[0], 0);
        if (t[i] != t[0] || m[i] != m[0])
            fprintf(stderr, "\n  route %d: %.9g s %.9g B, plan JSON %.9g s %.9g B\n", i, t[i],
                    m[i], t[0], m[0]);
    }
    CU_ASSERT(t[0] > 0);
    unlink(plan);
    unlink(hf);
    unlink(ds);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"moe_layer_counts", t_moe_layer_counts}, {"moe_a2a_and_shapes", t_moe_a2a_and_shapes},
        {"expert_tp", t_expert_tp}, {"mla_params", t_mla_params},
        {"window_flops", t_window_flops}, {"bad_inputs", t_bad_inputs},
        {"group-limited routing", t_group_routing},
        {"four_routes", t_four_routes}, {"moe_host_launches", t_moe_host_launches},
        {"ep_folding", t_ep_folding},
        {NULL, NULL}};
    return cs_test_add_suite("moe", cases);
}
