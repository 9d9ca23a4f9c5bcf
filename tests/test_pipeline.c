/* test_pipeline.c: pipeline splits and sequence lengths of training plans (scenarios/
 * stages.c, plan.h). Every expected number is derived by hand in a comment: the splits
 * (collsim's balanced default, Megatron-Core's first/last stages and embedding/loss
 * accounting), an uneven 1F1B step on free communication, Megatron's blocking pipeline
 * sends, its memory, and train.seq_len. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "scenarios/plan.h"
#include "scenarios/step-private.h"

/* The fastest fabric a topology may declare, no latency (as test_plan.c). */
#define FREE_TOPO "{\"kind\": \"alpha_beta\", \"ranks\": 64, " \
                  "\"link\": {\"bandwidth_GBps\": 1e6, \"latency_us\": 0}}"

/* The layers per stage of a split as "a,b,c" ("even" for an even split). */
static void split_of(const cs_plan *p, char *buf, size_t n, const char **from)
{
    int *x = NULL, s;
    cs_err err;
    buf[0] = '\0';
    if (cs_plan_stage_layers(p, &x, from, &err) < 0) {
        snprintf(buf, n, "error %.60s: %.180s", err.where, err.msg);
        return;
    }
    if (!x) {
        snprintf(buf, n, "even");
        return;
    }
    for (s = 0; s < p->pp * p->vp; s++)
        snprintf(buf + strlen(buf), n - strlen(buf), s ? ",%d" : "%d", x[s]);
    free(x);
}

/* Splits a user brings. Balanced default (layers L = q pp + r: r stages get q + 1, the
 * middle ones from the last middle stage back, then the first stage):
 *   BLOOM 70 on 12: q 5, r 10 = every middle stage -> 5, 6 x 10, 5;
 *   Llama 3 405B 126 on 16: q 7, r 14 -> 7, 8 x 14, 7;
 *   DeepSeek-V3 61 on 16: q 3, r 13 of 14 middle stages -> 3, 3, 4 x 13, 3;
 *   71 on 12: q 5, r 11 = 10 middle + the first -> 6, 6 x 10, 5;
 *   7 on 2: q 3, r 1, no middle stage -> 4, 3.
 * Megatron-Core: --decoder-first/last-pipeline-num-layers 7 of 126 on 16 leave 112 layers
 * for 14 stages, 8 each; --account-for-embedding/loss-in-pipeline-split: (126 + 2) / 16 = 8
 * places a stage, the embedding's off the first, the loss's off the last: the same split.
 * With vp 2 and the embedding counted, (30 + 1 + 1) / (4 x 2) = 4 a chunk: chunk 0 of
 * stage 0 holds 3, the last chunk of stage 3 holds 3. An even list is no uneven split. */
static void t_splits(void)
{
    static const struct { int L, pp, vp, first, last, emb, loss; const char *want, *from; } c[] = {
        {70, 12, 1, 0, 0, 0, 0, "5,6,6,6,6,6,6,6,6,6,6,5", "balanced"},
        {126, 16, 1, 0, 0, 0, 0, "7,8,8,8,8,8,8,8,8,8,8,8,8,8,8,7", "balanced"},
        {61, 16, 1, 0, 0, 0, 0, "3,3,4,4,4,4,4,4,4,4,4,4,4,4,4,3", "balanced"},
        {71, 12, 1, 0, 0, 0, 0, "6,6,6,6,6,6,6,6,6,6,6,5", "balanced"},
        {7, 2, 1, 0, 0, 0, 0, "4,3", "balanced"},
        {126, 16, 1, 7, 7, 0, 0, "7,8,8,8,8,8,8,8,8,8,8,8,8,8,8,7",
         "--decoder-first/last-pipeline-num-layers"},
        {126, 16, 1, 0, 0, 1, 1, "7,8,8,8,8,8,8,8,8,8,8,8,8,8,8,7",
         "--account-for-embedding/loss-in-pipeline-split"},
        {30, 4, 2, 0, 0, 1, 1, "3,4,4,4,4,4,4,3", "--account-for-embedding/loss-in-pipeline-split"},
        {96, 8, 2, 0, 0, 0, 0, "even", "even"},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        cs_plan p;
        char got[256];
        const char *from = NULL;
        cs_plan_init(&p);
        p.model.layers = c[i].L, p.pp = c[i].pp, p.vp = c[i].vp;
        if (c[i].vp > 1)
            p.schedule = CS_PS_INTERLEAVED;
        p.first_stage_layers = c[i].first, p.last_stage_layers = c[i].last;
        p.embed_in_split = c[i].emb, p.loss_in_split = c[i].loss;
        split_of(&p, got, sizeof got, &from);
        CU_ASSERT_STRING_EQUAL(got, c[i].want);
        if (from)
            CU_ASSERT_STRING_EQUAL(from, c[i].from);
        if (strcmp(got, c[i].want))
            fprintf(stderr, "\n  case %zu: got %s, want %s\n", i, got, c[i].want);
    }
    {
        /* an explicit list equal to the even split is the even split (same bytes as none) */
        cs_plan p;
        char got[256];
        cs_plan_init(&p);
        p.model.layers = 6, p.pp = 3, p.n_stage_list = 3;
        p.stage_list[0] = p.stage_list[1] = p.stage_list[2] = 2;
        split_of(&p, got, sizeof got, NULL);
        CU_ASSERT_STRING_EQUAL(got, "even");
        /* Megatron refuses first/last layers whose rest does not divide: 96 - 10 = 86 over 7 */
        p.model.layers = 96, p.pp = 8, p.n_stage_list = 0, p.first_stage_layers = 10;
        split_of(&p, got, sizeof got, NULL);
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "--decoder-first-pipeline-num-layers"));
        /* interleaving with layers that do not divide and no list: refused, naming pp */
        p.first_stage_layers = 0, p.model.layers = 70, p.pp = 12, p.vp = 2;
        p.schedule = CS_PS_INTERLEAVED;
        split_of(&p, got, sizeof got, NULL);
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "error parallel.pp: layers (70) must be divisible "
                                           "by pp x vp (12 x 2) with interleaving"));
    }
}

/* An uneven 1F1B step with free communication: 3 stages of 2, 3 and 2 layers, forward 1 and
 * backward 2 per layer, so F = (2, 3, 2), B = (4, 6, 4), m = 4. Programs (Megatron's order):
 * stage 0 F0 F1 F2 B0 F3 B1 B2 B3, stage 1 F0 F1 B0 F2 B1 F3 B2 B3, stage 2 F0 B0 F1 B1 ...
 * Stage 1 (the slowest) runs F0 [2, 5], F1 [5, 8], then waits for stage 2's B0: F0 [5, 7],
 * B0 [7, 11]. From 11 it never waits again (its inputs arrive no later than it is free:
 * stage 2 turns a forward into a backward in 2 + 4 = 6 = stage 1's backward) and runs
 * B0 F2 B1 F3 B2 B3 = (m - 2) 3 + m 6 = 30 to 41; stage 0's last backward ends at 45. So
 * step = F0 + F1 + F2 + B2 + (m - 2) F1 + m B1 + B0 = m (F1 + B1) + (F0 + B0) + (F2 + B2)
 * - F1 = 9 m + 9: the slowest stage sets the steady state (9 a microbatch), and the bubble
 * over it, 9, is the other stages' F + B less the forward stage 1 overlaps. Stage 0 is
 * busy m (F0 + B0) = 24 s: its idle, 45 - 24 = 21 s, is the reported bubble. m = 8: 81. */
static void t_uneven_step(void)
{
    int layers[3] = {2, 3, 2}, m;
    for (m = 4; m <= 8; m += 4) {
        cs_step_costs c;
        cs_step_result r;
        cs_err err;
        memset(&c, 0, sizeof c);
        c.pp = 3, c.vp = 1, c.m = m, c.schedule = CS_PS_1F1B;
        c.t_fwd = 1, c.t_bwd = 2, c.chunk_layers = layers;
        CU_ASSERT_EQUAL_FATAL(cs_plan_step(&c, 0, &r, &err), 0);
        CS_ASSERT_REL(r.step_s, 9.0 * m + 9, 1e-12);
        CS_ASSERT_REL(r.bubble_s, 9.0 * m + 9 - 6.0 * m, 1e-12);
        cs_step_result_fini(&r);
    }
}

/* Megatron's 1F1B blocks on its pipeline sends (p2p_communication.py: wait, then
 * torch.cuda.synchronize()): p = 2, m = 2, t_f = 1, t_b = 2, a send 0.5. Programs: stage 0
 * F0 F1 B0 B1, stage 1 F0 B0 F1 B1. Stage 0: F0 [0, 1], send [1, 1.5], F1 [1.5, 2.5], send
 * [2.5, 3]. Stage 1: F0 [1.5, 2.5], B0 [2.5, 4.5], its send [4.5, 5] holds it, F1 [5, 6]
 * (not 4.5 as with a send on its own stream), B1 [6, 8], send [8, 8.5]. Stage 0: B0 [5, 7],
 * B1 [8.5, 10.5]: step 10.5 (10 with non-blocking sends). Stage 0's breakdown: busy
 * 2 + 4 = 6, its own sends 1, waits 2 (3 to 5) and 1.5 (7 to 8.5) each on a 0.5 send:
 * pp exposed 1 + 0.5 + 0.5 = 2, bubble 1.5 + 1 = 2.5; 6 + 2 + 2.5 = 10.5. GPipe keeps its
 * sends on their own streams: F0 F1 then B0 B1 per stage, stage 1 F0 [1.5, 2.5], F1
 * [2.5, 3.5], B0 [3.5, 5.5], B1 [5.5, 7.5], stage 0 B0 [6, 8], B1 [8, 10]: 10. */
static void t_blocking_send(void)
{
    cs_step_costs c;
    cs_step_result r;
    cs_err err;
    memset(&c, 0, sizeof c);
    c.pp = 2, c.vp = 1, c.m = 2, c.t_fwd = 1, c.t_bwd = 2, c.t_pp = 0.5;
    c.schedule = CS_PS_1F1B;
    CU_ASSERT_EQUAL_FATAL(cs_plan_step(&c, 1, &r, &err), 0);
    CS_ASSERT_REL(r.step_s, 10.5, 1e-12);
    CS_ASSERT_REL(r.pp_exposed_s, 2, 1e-12);
    CS_ASSERT_REL(r.bubble_s, 2.5, 1e-12);
    CU_ASSERT_EQUAL(r.n_tasks, 2 * (4 + 2 + 1));    /* a stage: 4 ops, 2 sends, Adam */
    CU_ASSERT_EQUAL(r.tasks[1].kind, CS_T_PP);       /* stage 0's first send ... */
    CU_ASSERT_EQUAL(r.tasks[1].stream, 1);           /* ... drawn on the send lane */
    CS_ASSERT_REL(r.tasks[1].end_s, 1.5, 1e-12);
    cs_step_result_fini(&r);
    c.schedule = CS_PS_GPIPE;
    CU_ASSERT_EQUAL_FATAL(cs_plan_step(&c, 0, &r, &err), 0);
    CS_ASSERT_REL(r.step_s, 10, 1e-12);
    cs_step_result_fini(&r);
}

/* The microbatch-chunks in flight that memory counts (cs__step_peak, a closed form: GPipe
 * m; 1F1B and interleaved the warm-up forwards plus one, at most m v) are the ones the step
 * simulation's program keeps in flight, stage 0 the most: over pp 1-6, vp 1-3, m 1-12
 * (interleaved: m a multiple of pp). */
static void t_peak_closed_form(void)
{
    int pp, vp, m, sk;
    for (sk = 0; sk < 2; sk++)
        for (pp = 1; pp <= 6; pp++)
            for (vp = 1; vp <= (sk ? 1 : 3); vp++)
                for (m = 1; m <= 12; m++) {
                    cs_step_costs c;
                    cs_step_result r;
                    cs_err err;
                    int st, best = 0;
                    if (vp > 1 && (pp < 2 || m % pp))
                        continue;           /* interleaving: m a multiple of pp (Megatron) */
                    memset(&c, 0, sizeof c);
                    c.pp = pp, c.vp = vp, c.m = m, c.t_fwd = 1, c.t_bwd = 2;
                    c.schedule = sk ? CS_PS_GPIPE : vp > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B;
                    CU_ASSERT_EQUAL_FATAL(cs_plan_step(&c, 0, &r, &err), 0);
                    for (st = 0; st < pp; st++) {
                        int k = cs__step_peak(c.schedule, pp, vp, m, st);
                        if (k > best)
                            best = k;
                    }
                    CU_ASSERT_EQUAL(best, r.peak_inflight);
                    CU_ASSERT_EQUAL(cs__step_peak(c.schedule, pp, vp, m, 0), r.peak_inflight);
                    cs_step_result_fini(&r);
                }
    /* by hand: 1F1B on 4 stages, 8 microbatches: 4 on stage 0, 1 on stage 3; interleaved
     * v 2: (4 - 0 - 1) 2 + (2 - 1) 4 + 1 = 11 on stage 0; GPipe: all 8 */
    CU_ASSERT_EQUAL(cs__step_peak(CS_PS_1F1B, 4, 1, 8, 0), 4);
    CU_ASSERT_EQUAL(cs__step_peak(CS_PS_1F1B, 4, 1, 8, 3), 1);
    CU_ASSERT_EQUAL(cs__step_peak(CS_PS_INTERLEAVED, 4, 2, 8, 0), 11);
    CU_ASSERT_EQUAL(cs__step_peak(CS_PS_GPIPE, 4, 1, 8, 2), 8);
}

/* The same through a whole plan: 7 layers on pp 3 split 2, 3, 2 (the list, or the balanced
 * default: q 2, r 1 on the one middle stage), on free communication with an 8-word
 * vocabulary. The per-layer forward and backward are those of a 7-stage plan (one layer a
 * stage), so step = 9 m + 9 in units of (t_f + t_b) per layer, less F1's forward:
 * m 3 (t_f + t_b) + 2 (2 (t_f + t_b)) - 3 t_f + optimizer, within 0.5% (embedding, logits).
 * Memory follows stage 1's 3 layers: weights 2 bytes x 3 layer parameters (the most loaded
 * stage, no embedding there), activations 2 microbatches in flight (1F1B: p - 1) x 3
 * layers. */
static void t_uneven_plan(void)
{
    static const char *const plan =
        "{\"model\": {\"layers\": 7, \"hidden\": 2048, \"heads\": 16, \"seq_len\": 1024, "
        "\"vocab\": 8}, \"train\": {\"global_batch\": 8}, \"parallel\": {\"pp\": 3, "
        "\"pipeline_layers\": [2, 3, 2]}, \"system\": {\"gpu\": \"a100-80gb\", \"topo\": "
        FREE_TOPO "}}";
    cs_plan p;
    cs_plan_result r, one;
    cs_err err;
    double tf, tb, m = 8, d, e, step;
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(plan, "uneven", &p, &err), 0);
    p.pp = 7, p.n_stage_list = 0;
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&p, &one), 0);
    CU_ASSERT_PTR_NULL(one.costs.chunk_layers);           /* 7 / 7: even */
    tf = one.costs.t_fwd, tb = one.costs.t_bwd;
    cs_plan_result_fini(&one);
    p.pp = 3, p.n_stage_list = 3;
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&p, &r), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.costs.chunk_layers);
    CU_ASSERT(r.costs.chunk_layers[0] == 2 && r.costs.chunk_layers[1] == 3 &&
              r.costs.chunk_layers[2] == 2);
    CS_ASSERT_REL(r.costs.t_fwd, tf, 1e-12);               /* per layer */
    step = m * 3 * (tf + tb) + 2 * 2 * (tf + tb) - 3 * tf + r.costs.t_opt;
    CS_ASSERT_REL(r.step_time_s, step, 5e-3);
    cs_model_layer_params(&p.model, &d, &e);
    CS_ASSERT_REL(r.mem.weights, 2 * 3 * d, 1e-12);
    CS_ASSERT_REL(r.mem.activations, 2 * 3 * cs_plan_layer_act_bytes(&p), 1e-12);
    /* the breakdown of stage 0 still sums to the step */
    {
        double sum = 0;
        int i;
        for (i = 0; i < 10; i++)
            sum += r.breakdown_s[i];
        CS_ASSERT_REL(sum, r.step_time_s, 1e-9);
        CS_ASSERT_REL(r.breakdown_s[0], m * 2 * tf + m * r.costs.t_first_extra, 1e-9);
    }
    cs_plan_result_fini(&r);
    /* no list: the balanced default is the same split, the same step */
    p.n_stage_list = 0;
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&p, &one), 0);
    CS_ASSERT_REL(one.step_time_s, step, 5e-3);
    cs_plan_result_fini(&one);
    cs_plan_fini(&p);
}

/* train.seq_len sets the trained sequence, over the model's: a plan of 2048-token
 * sequences on a 4096-token model is the same plan as the model at 2048 (and says where the
 * length came from); --megatron "--seq-length" does the same. */
static void t_seq_len(void)
{
    static const char *const plan =
        "{\"model\": {\"layers\": 2, \"hidden\": 1024, \"heads\": 16, \"seq_len\": %d, "
        "\"vocab\": 64}, \"train\": {\"global_batch\": 8%s}, \"system\": {\"gpu\": "
        "\"a100-80gb\", \"topo\": " FREE_TOPO "}}";
    char text[1024];
    cs_plan a, b;
    cs_plan_result ra, rb;
    cs_err err;
    char ign[64];
    cs_plan_init(&a);
    cs_plan_init(&b);
    snprintf(text, sizeof text, plan, 4096, ", \"seq_len\": 2048");
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(text, "a", &a, &err), 0);
    snprintf(text, sizeof text, plan, 2048, "");
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(text, "b", &b, &err), 0);
    CU_ASSERT_EQUAL(a.model.seq_len, 2048);
    CU_ASSERT_EQUAL(a.seq_len_from, CS_SEQ_TRAIN);
    CU_ASSERT_EQUAL(b.seq_len_from, CS_SEQ_MODEL);
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&a, &ra), 0);
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&b, &rb), 0);
    CU_ASSERT_EQUAL(ra.step_time_s, rb.step_time_s);
    cs_plan_result_fini(&ra);
    cs_plan_result_fini(&rb);
    b.model.seq_len = 4096;
    CU_ASSERT_EQUAL(cs_plan_megatron("--seq-length 1024", &b, ign, sizeof ign, &err), 0);
    CU_ASSERT(b.model.seq_len == 1024 && b.seq_len == 1024 && b.seq_len_from == CS_SEQ_FLAG);
    cs_plan_fini(&a);
    cs_plan_fini(&b);
}

/* Megatron flags that change the cost: GPT-3's 50,257 words padded as Megatron's tokenizer
 * does, to a multiple of 128 x tp 8 = 1024: 50 x 1024 = 51,200 (--pad-vocab-size-to 51200
 * the same); --checkpoint-activations is full recomputation; --kv-channels hidden / heads
 * (12288 / 96 = 128) is accepted, 96 refused by name. */
static void t_megatron_flags(void)
{
    static const char *const args[] = {"--make-vocab-size-divisible-by 128",
        "--pad-vocab-size-to 51200"};
    cs_plan p;
    cs_err err;
    char ign[64];
    int i;
    for (i = 0; i < 2; i++) {
        cs_plan_init(&p);
        CU_ASSERT_EQUAL_FATAL(cs_model_preset("gpt3-175b", &p.model, &err), 0);
        CU_ASSERT_EQUAL(cs_plan_megatron(args[i], &p, ign, sizeof ign, &err), 0);
        p.tp = 8;
        cs_plan_apply_train(&p);
        CU_ASSERT_EQUAL(p.model.vocab, 51200);
    }
    CU_ASSERT_EQUAL(cs_plan_megatron("--checkpoint-activations --kv-channels 128", &p, ign,
                                     sizeof ign, &err), 0);
    CU_ASSERT_EQUAL(p.recompute, CS_RC_FULL);
    CU_ASSERT_EQUAL(p.kv_channels, 128);
    CU_ASSERT_STRING_EQUAL(ign, "");
}

/* The JSON output: parallel.pipeline_layers as resolved and the assumptions object. */
static void t_json(void)
{
    char cmd[2048], *out = NULL;
    json_t *root, *as, *pl;
    snprintf(cmd, sizeof cmd, "%s plan --model gpt3-175b --gpu a100-80gb --topo dgx-a100 "
             "--pp 7 --gbs 7 --seq-length 1024 --format json", CS_COLLSIM);
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, &out), 0);
    root = json_loads(out, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    pl = json_object_get(json_object_get(root, "parallel"), "pipeline_layers");
    /* 96 on 7: q 13, r 5 = every middle stage: 13, 14 x 5, 13 */
    CU_ASSERT_EQUAL(json_array_size(pl), 7);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(pl, 0)), 13);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(pl, 1)), 14);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(pl, 2)), 14);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(pl, 6)), 13);
    as = json_object_get(root, "assumptions");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(as, "seq_len")), 1024);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(as, "seq_len_from")),
                           "--seq-length");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(as, "pipeline_layers_from")),
                           "balanced");
    json_decref(root);
    free(out);
}

int cs_test_register(void)
{
    static const cs_test_case split[] = {
        {"splits", t_splits}, {"uneven_step", t_uneven_step}, {"blocking_send", t_blocking_send},
        {"peak in flight", t_peak_closed_form}, {"uneven_plan", t_uneven_plan},
        {"seq_len", t_seq_len}, {"megatron_flags", t_megatron_flags}, {"json", t_json},
        {NULL, NULL}};
    return cs_test_add_suite("pipeline", split);
}
