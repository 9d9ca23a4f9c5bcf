/* test_pipelayout.c: Megatron-Core's pipeline layout string (scenarios/pipelayout.c, its
 * use in stages.c, load.c and import.c). Every expected number is counted by hand in a
 * comment: the virtual stages of real layouts (Megatron-Bridge's recipes), a repeat with
 * parentheses, each refusal's message, and a two-stage 1F1B step on free communication. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "scenarios/plan.h"
#include "scenarios/pipelayout.h"

/* The fastest fabric a topology may declare, no latency (as test_pipeline.c). */
#define FREE_TOPO "{\"kind\": \"alpha_beta\", \"ranks\": 64, " \
                  "\"link\": {\"bandwidth_GBps\": 1e6, \"latency_us\": 0}}"

/* The split of a plan of `layers` layers (mtp MTP layers) on pp x vp under layout s, as
 * "a,b,c" per virtual stage, "even", or "error WHERE: MESSAGE". */
static void split_of(const char *s, int pp, int vp, int layers, int mtp, char *buf, size_t n,
                     const char **from)
{
    cs_plan p;
    cs_err err;
    int *x = NULL, i;
    cs_plan_init(&p);
    p.model.layers = layers, p.model.mtp_layers = mtp, p.pp = pp, p.vp = vp;
    p.schedule = vp > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B;
    snprintf(p.pipeline_layout, sizeof p.pipeline_layout, "%s", s);
    buf[0] = '\0';
    if (cs_plan_stage_layers(&p, &x, from, &err) < 0)
        snprintf(buf, n, "error %.60s: %.400s", err.where, err.msg);
    else if (!x)
        snprintf(buf, n, "even");
    for (i = 0; x && i < pp * vp; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), i ? ",%d" : "%d", x[i]);
    free(x);
}

/* "N x k" for n copies of k joined by commas, appended to buf. */
static void rep(char *buf, size_t n, int copies, int k)
{
    int i;
    for (i = 0; i < copies; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%d", buf[0] ? "," : "", k);
}

/* Real layouts, Megatron-Bridge 067f987 (src/megatron/bridge/perf_recipes/):
 *   DeepSeek-V3 on GB300/GB200 PP 4 VP 4 (deepseek/gb300/deepseek_v3.py:54; GB200's BF16
 *   recipe builds the same from recipes/deepseek/h100/deepseek_v3.py layout_map (4, 4)):
 *   "Et*4|(t*4|)*14tmL" = E + 4 t | 14 stages of 4 t | t m L: 16 virtual stages holding
 *   4, 4 x 14, 1 = 61 layers, the one MTP layer with the loss.
 *   Llama 3 70B on H100 PP 8 VP 5 (llama/h100/llama3.py:170):
 *   "Et*2|(t*2|)*34,t*3|(t*2|)*3,tL" = 2 | 2 x 34 | 3 | 2 x 3 | 1: 40 stages, 80 layers.
 *   Kimi K2 on H100 PP 16 VP 2 (kimi/h100/kimi_k2.py:47): "Et|(tt|)*30L" = 1 | 2 x 30 | 0:
 *   32 stages, 61 layers, the last virtual stage only the loss.
 * A repeat with parentheses: "Et|(tt|)*2tL" unrolls to "Et|tt|tt|tL": 1, 2, 2, 1 on pp 2
 * vp 2. Equal stages ("Ett|tt|ttL", 2 each) are the even split. */
static void t_stages(void)
{
    char got[1024], want[1024];
    const char *from = NULL;
    want[0] = '\0';
    rep(want, sizeof want, 15, 4), rep(want, sizeof want, 1, 1);
    split_of("Et*4|(t*4|)*14tmL", 4, 4, 61, 1, got, sizeof got, &from);
    CU_ASSERT_STRING_EQUAL(got, want);
    CU_ASSERT_PTR_NOT_NULL_FATAL(from);
    CU_ASSERT_STRING_EQUAL(from, "parallel.pipeline_layout");
    want[0] = '\0';
    rep(want, sizeof want, 35, 2), rep(want, sizeof want, 1, 3);
    rep(want, sizeof want, 3, 2), rep(want, sizeof want, 1, 1);
    split_of("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL", 8, 5, 80, 0, got, sizeof got, NULL);
    CU_ASSERT_STRING_EQUAL(got, want);
    want[0] = '\0';
    rep(want, sizeof want, 1, 1), rep(want, sizeof want, 30, 2), rep(want, sizeof want, 1, 0);
    split_of("Et|(tt|)*30L", 16, 2, 61, 0, got, sizeof got, NULL);
    CU_ASSERT_STRING_EQUAL(got, want);
    split_of("Et|(tt|)*2tL", 2, 2, 6, 0, got, sizeof got, NULL);
    CU_ASSERT_STRING_EQUAL(got, "1,2,2,1");
    split_of("Ett|tt|ttL", 3, 1, 6, 0, got, sizeof got, &from);
    CU_ASSERT_STRING_EQUAL(got, "even");
    CU_ASSERT_STRING_EQUAL(from, "parallel.pipeline_layout");
}

/* The parse itself: Megatron's own example "Et*3|(tt|)*29,m|L" (its help text and
 * parse_str_to_list's docstring): 32 stages, 3 + 2 x 29 = 61 t, one m alone in stage 30,
 * L alone in stage 31. Commas anywhere are cosmetic; "(t*2|)*2" unrolls the inner repeat
 * inside the group. */
static void t_parse(void)
{
    cs_pipe_layout l;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_pipe_layout_parse("Et*3|(tt|)*29,m|L", "x", &l, &err), 0);
    CU_ASSERT_EQUAL(l.n_stages, 32);
    CU_ASSERT_EQUAL(l.n_layers, 61);
    CU_ASSERT_EQUAL(l.layers[0], 3);
    CU_ASSERT_EQUAL(l.layers[29], 2);
    CU_ASSERT_EQUAL(l.layers[30], 0);
    CU_ASSERT_EQUAL(l.n_mtp, 1);
    CU_ASSERT_EQUAL(l.mtp_stage, 30);
    CU_ASSERT_EQUAL(l.loss_stage, 31);
    CU_ASSERT(l.embed_first && l.loss_last && !l.t_after_mtp && !l.mtp_split);
    cs_pipe_layout_fini(&l);
    CU_ASSERT_EQUAL_FATAL(cs_pipe_layout_parse("E,(t*2|,)*2,t,L", "x", &l, &err), 0);
    CU_ASSERT_EQUAL(l.n_stages, 3);
    CU_ASSERT(l.layers[0] == 2 && l.layers[1] == 2 && l.layers[2] == 1);
    cs_pipe_layout_fini(&l);
}

/* Each refusal, with its where and message: the grammar (positions are 1-based characters
 * of the string as written), then Megatron's validate_layer_layout and collsim's
 * placement, then the combinations Megatron refuses. */
static void t_refusals(void)
{
    static const struct { const char *s; int pp, vp, L, mtp; const char *want; } c[] = {
        {"Ext|tL", 2, 1, 2, 0, "unknown layer letter 'x' at character 2 (known: E embedding"},
        {"E(tt|tL", 2, 1, 3, 0, "unbalanced parentheses: '(' at character 2 is not closed"},
        {"Ett)*2|tL", 2, 1, 3, 0, "unbalanced parentheses: ')' at character 4 has no '('"},
        {"E((t|)*2)*2L", 2, 1, 2, 0, "nested parentheses at character 3"},
        {"E(tt|)tL", 2, 1, 3, 0, "')' at character 6 must be followed by *N"},
        {"E()*2tL", 1, 1, 1, 0, "empty parentheses at character 2"},
        {"Et*|tL", 2, 1, 2, 0, "'*' at character 3: expected a repeat count"},
        {"Et*2*2|tL", 2, 1, 5, 0, "'*' at character 5 must follow a layer letter"},
        {"Et2|tL", 2, 1, 2, 0, "digit '2' at character 3 outside a repeat count"},
        {"E(t|)*1048576L", 2, 1, 2, 0, "unrolls to more than 1048576 characters"},
        {",,", 1, 1, 1, 0, "expected a layout such as"},
        {"Et|tL", 4, 1, 2, 0, "has 2 virtual stages, pp x vp (4 x 1) = 4 are needed"},
        {"tE|tL", 2, 1, 2, 0, "must start with E"},
        {"Et|EtL", 2, 1, 2, 0, "has 2 E (the embedding), exactly one is expected"},
        {"|Ett|tL", 3, 1, 3, 0, "E is in virtual stage 1; collsim places the embedding on the "
                                "first virtual stage (0)"},
        {"Et|tLt", 2, 1, 3, 0, "must end with L"},
        {"Et|tL|", 3, 1, 2, 0, "L is in virtual stage 1; collsim places the loss on the last "
                               "virtual stage (2)"},
        {"Et|tL", 2, 1, 3, 0, "the virtual stages hold 2 transformer layers (t), the model "
                              "has 3"},
        {"Et|tmL", 2, 1, 2, 0, "has 1 MTP layers (m), the model has 0"},
        {"Et|tL", 2, 1, 2, 1, "has 0 MTP layers (m), the model has 1"},
        {"Et|mtL", 2, 1, 2, 1, "a transformer layer (t) follows an MTP layer (m)"},
        {"Ettm|mL", 2, 1, 2, 2, "the MTP layers (m) are in more than one virtual stage"},
        {"Et*3|(tt|)*29,m|L", 16, 2, 61, 1, "standalone MTP (m in virtual stage 30, L in 31) "
                                            "is not modelled"},
        {"E|tt|L", 3, 1, 2, 0, "pipeline stage 0 (virtual stage 0) holds no transformer "
                               "layer"},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        char got[1024];
        split_of(c[i].s, c[i].pp, c[i].vp, c[i].L, c[i].mtp, got, sizeof got, NULL);
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "error parallel.pipeline_layout: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(got, c[i].want));
        if (!strstr(got, c[i].want))
            fprintf(stderr, "\n  case %zu '%s': got %s\n", i, c[i].s, got);
    }
}

/* Megatron refuses the layout with the other split arguments (TransformerConfig: "cannot be
 * set with other pipeline layout arguments"; arguments.py: not with
 * --num-layers-per-virtual-pipeline-stage); collsim with parallel.pipeline_layers too. */
static void t_combinations(void)
{
    cs_plan p;
    cs_err err;
    int *x = NULL, i;
    char ign[128];
    for (i = 0; i < 4; i++) {
        cs_plan_init(&p);
        p.model.layers = 4, p.pp = 2;
        snprintf(p.pipeline_layout, sizeof p.pipeline_layout, "Ett|ttL");
        if (i == 0)
            p.n_stage_list = 2, p.stage_list[0] = p.stage_list[1] = 2;
        else if (i == 1)
            p.first_stage_layers = 2;
        else if (i == 2)
            p.embed_in_split = 1;
        else
            p.loss_in_split = 1;
        CU_ASSERT_EQUAL(cs_plan_stage_layers(&p, &x, NULL, &err), CS_EINVAL);
        CU_ASSERT_STRING_EQUAL(err.where, "parallel.pipeline_layout");
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, i ? "cannot be combined with --decoder-first"
                                                 : "give the layout or parallel.pipeline_layers"));
        CU_ASSERT_PTR_NULL(x);
    }
    cs_plan_init(&p);
    CU_ASSERT_EQUAL(cs_plan_megatron("--pipeline-model-parallel-size 2 "
                                     "--num-layers-per-virtual-pipeline-stage 1 "
                                     "--pipeline-model-parallel-layout Et|tL", &p, ign,
                                     sizeof ign, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "--pipeline-model-parallel-layout");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--num-layers-per-virtual-pipeline-stage"));
}

/* --pipeline-model-parallel-layout: with --pipeline-model-parallel-size 4, the 16 stages
 * of DeepSeek-V3's layout give vp 16 / 4 = 4 and the interleaved schedule (Megatron's
 * arguments.py); a quoted value (as copied from a command line) loses its quotes; 3 stages
 * on pp 2 are refused; a grammar error names the flag. */
static void t_megatron(void)
{
    cs_plan p;
    cs_err err;
    char ign[128];
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_megatron("--pipeline-model-parallel-size 4 "
                                           "--pipeline-model-parallel-layout "
                                           "\"Et*4|(t*4|)*14tmL\"", &p, ign, sizeof ign,
                                           &err), 0);
    CU_ASSERT_EQUAL(p.pp, 4);
    CU_ASSERT_EQUAL(p.vp, 4);
    CU_ASSERT_EQUAL(p.schedule, CS_PS_INTERLEAVED);
    CU_ASSERT_STRING_EQUAL(p.pipeline_layout, "Et*4|(t*4|)*14tmL");
    cs_plan_init(&p);
    CU_ASSERT_EQUAL(cs_plan_megatron("--pipeline-model-parallel-size 2 "
                                     "--pipeline-model-parallel-layout Et|t|tL", &p, ign,
                                     sizeof ign, &err), CS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has 3 virtual stages, not a multiple of "
                                           "--pipeline-model-parallel-size (2)"));
    CU_ASSERT_EQUAL(cs_plan_megatron("--pipeline-model-parallel-layout Et|t?L", &p, ign,
                                     sizeof ign, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "--pipeline-model-parallel-layout");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown layer letter '?' at character 5"));
}

/* A plan through the layout: 3 layers on pp 2 as "Et|ttL" (1 and 2 layers), m = 8
 * microbatches, 1F1B on free communication. With f, b the forward and backward of one
 * layer (those of the even plan of 3 stages of one layer each), stage 0 takes F0 = f + the
 * embedding's forward, B0 = b + its backward, stage 1 F1 = 2f + the logits' and loss's
 * forward, B1 = 2b + their backward. Stage 1 starts at F0 and never waits (stage 0 hands
 * it forward k + 1 at B(k - 1)'s end + B0 + F0, before stage 1's B(k) ends, since F0 + B0 <
 * F1 + B1: the slowest stage sets the pace), then stage 0's last backward: step = F0 +
 * m (F1 + B1) + B0 + the optimizer, within 1e-5 (the two sends on the critical path cross
 * a 1e6 GB/s link: about 1e-6 of the step); without the ends' extras (2m + 1)(f + b) =
 * 17 (f + b), within 2% here. The JSON says which rule split. */
static void t_plan(void)
{
    static const char *const plan =
        "{\"model\": {\"layers\": 3, \"hidden\": 2048, \"heads\": 16, \"seq_len\": 1024, "
        "\"vocab\": 8}, \"train\": {\"global_batch\": 8}, \"parallel\": {\"pp\": 2, \"dp\": 1, "
        "\"pipeline_layout\": \"Et|ttL\"}, \"system\": {\"gpu\": \"a100-80gb\", \"topo\": "
        FREE_TOPO "}}";
    cs_plan p;
    cs_plan_result r, one;
    cs_err err;
    double f, b;
    char cmd[2048], *out = NULL;
    json_t *root;
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(plan, "layout", &p, &err), 0);
    CU_ASSERT_STRING_EQUAL(p.pipeline_layout, "Et|ttL");
    p.pp = 3, p.pipeline_layout[0] = '\0';
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&p, &one), 0);
    CU_ASSERT_PTR_NULL(one.costs.chunk_layers);            /* 3 / 3: even */
    f = one.costs.t_fwd, b = one.costs.t_bwd;
    cs_plan_result_fini(&one);
    p.pp = 2;
    snprintf(p.pipeline_layout, sizeof p.pipeline_layout, "Et|ttL");
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&p, &r), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.costs.chunk_layers);
    CU_ASSERT(r.costs.chunk_layers[0] == 1 && r.costs.chunk_layers[1] == 2);
    CS_ASSERT_REL(r.costs.t_fwd, f, 1e-12);                 /* per layer */
    {
        const cs_step_costs *k = &r.costs;
        double F0 = f + k->t_first_extra, B0 = b + k->t_first_extra_bwd;
        double F1 = 2 * f + k->t_last_extra, B1 = 2 * b + k->t_last_extra_bwd;
        CS_ASSERT_REL(r.step_time_s, F0 + 8 * (F1 + B1) + B0 + k->t_opt, 1e-5);
        CS_ASSERT_REL(r.step_time_s, 17 * (f + b) + k->t_opt, 2e-2);
    }
    cs_plan_result_fini(&r);
    cs_plan_fini(&p);
    /* the CLI's JSON of the same plan (tests/data/ok): the split per stage and its rule */
    snprintf(cmd, sizeof cmd, "%s plan %s/ok/plan-layout-small.json --format json",
             CS_COLLSIM, CS_TEST_DATA);
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, &out), 0);
    root = json_loads(out, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(root,
                           "assumptions"), "pipeline_layers_from")),
                           "parallel.pipeline_layout");
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(json_object_get(root,
                    "parallel"), "pipeline_layers"), 1)), 2);
    json_decref(root);
    free(out);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"stages", t_stages}, {"parse", t_parse}, {"refusals", t_refusals},
        {"combinations", t_combinations}, {"megatron", t_megatron}, {"plan", t_plan},
        {NULL, NULL}};
    return cs_test_add_suite("pipelayout", cases);
}
