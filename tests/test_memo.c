/* test_memo.c: the memo of collective times as shared work (scenarios/memo.h, issue 13).
 * Counts derived by hand from the collectives a layout issues (scenarios/plan.c): TP
 * without sequence parallelism issues one allreduce of the b s h activation, DP with ZeRO 0
 * one allreduce of a gradient bucket; a dense model has no EP/EDP collective. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"
#include "scenarios/plan.h"
#include "scenarios/memo.h"

/* 8 ranks of 25 GB/s, 5 us: every collective has a non-zero time. */
#define TOPO8 "{\"kind\": \"alpha_beta\", \"ranks\": 8, " \
              "\"link\": {\"bandwidth_GBps\": 25, \"latency_us\": 5}}"

/* GPT 1.7B on 8 GPUs: tp 2, dp 4, micro batch mbs, ZeRO 0, no sp, no recompute. */
static void plan8(cs_plan *p, int mbs)
{
    cs_err err;
    cs_plan_init(p);
    CU_ASSERT_EQUAL(cs_model_preset("gpt-1.7b", &p->model, &err), 0);
    CU_ASSERT_EQUAL(cs_gpu_preset("a100-80gb", &p->gpu, &err), 0);
    p->topo_json = strdup(TOPO8);
    p->tp = 2;
    p->dp = 4;
    p->pp = 1;
    p->global_batch = 16;
    p->micro_batch = mbs;
}

/* Collecting notes each distinct collective once and simulates nothing; the outcomes,
 * settled, give every plan the times a fresh context simulates. */
static void t_collect_settle(void)
{
    cs_plan p1, p2;
    cs_plan_ctx *ctx = NULL, *fresh = NULL;
    cs_plan_result r, want;
    cs_plan_pending_out out[8];
    cs_err err;
    long i;
    plan8(&p1, 1);
    plan8(&p2, 2);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p1, &err), 0);
    cs_plan_ctx_collect(ctx, 1);
    CU_ASSERT(cs_plan_ctx_collecting(ctx));
    /* p1: TP allreduce of 1 x s x h x 2 bytes, DP allreduce of the bucket: 2 */
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p1, 0, &r, &err), 0);
    cs_plan_result_fini(&r);
    CU_ASSERT_EQUAL(cs_plan_pending_count(ctx), 2);
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p1, 0, &r, &err), 0);     /* again: nothing new */
    cs_plan_result_fini(&r);
    CU_ASSERT_EQUAL(cs_plan_pending_count(ctx), 2);
    /* p2: twice the activation (a new TP key), the same gradients (the same DP key): 3 */
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p2, 0, &r, &err), 0);
    cs_plan_result_fini(&r);
    CU_ASSERT_EQUAL_FATAL(cs_plan_pending_count(ctx), 3);
    CU_ASSERT_EQUAL(cs_plan_ctx_sims(ctx), 0);
    CU_ASSERT_EQUAL(cs_plan_ctx_simulated(ctx), 0);
    /* groups of 2 (TP) and 4 (DP): costs n^2 */
    CU_ASSERT_EQUAL(cs_plan_pending_cost(ctx, 0), 4.0);
    CU_ASSERT_EQUAL(cs_plan_pending_cost(ctx, 1), 16.0);
    CU_ASSERT_EQUAL(cs_plan_pending_cost(ctx, 2), 4.0);
    cs_plan_ctx_collect(ctx, 0);
    /* simulate them in another order than noted: the outcome is per collective */
    for (i = 2; i >= 0; i--) {
        CU_ASSERT_EQUAL(cs_plan_pending_run(ctx, i, &out[i], &err), 0);
        CU_ASSERT(out[i].rc == 0 && out[i].t_s > 0 && out[i].sims == 1);
    }
    CU_ASSERT_EQUAL(cs_plan_ctx_simulated(ctx), 3);
    CU_ASSERT_EQUAL(cs_plan_pending_settle(ctx, out, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_pending_count(ctx), 0);
    /* both plans from the memo: no simulation more, and what a fresh context computes */
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&fresh, &p1, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p1, 0, &r, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_eval(fresh, &p1, 0, &want, &err), 0);
    CU_ASSERT(r.step_time_s > 0 && r.step_time_s == want.step_time_s);
    CU_ASSERT(r.costs.t_tp_fwd > 0 && r.costs.t_tp_fwd == want.costs.t_tp_fwd);
    CU_ASSERT(r.costs.t_bucket > 0 && r.costs.t_bucket == want.costs.t_bucket);
    cs_plan_result_fini(&r);
    cs_plan_result_fini(&want);
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p2, 0, &r, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_eval(fresh, &p2, 0, &want, &err), 0);
    CU_ASSERT(r.step_time_s > 0 && r.step_time_s == want.step_time_s);
    cs_plan_result_fini(&r);
    cs_plan_result_fini(&want);
    CU_ASSERT_EQUAL(cs_plan_ctx_simulated(ctx), 3);
    CU_ASSERT_EQUAL(cs_plan_ctx_simulated(fresh), 3);          /* the fresh one: 2 + 1 */
    cs_plan_ctx_free(fresh);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p1);
    cs_plan_fini(&p2);
}

/* A failed simulation is an outcome: settled, every plan that needs the collective gets
 * its error (as when it simulated it itself), and nothing is simulated again. */
static void t_failure_memoised(void)
{
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_plan_result r;
    cs_plan_pending_out out[2];
    cs_err err;
    plan8(&p, 1);
    p.dp = 1;                   /* tp 2 x dp 1 = 2 GPUs: the TP allreduce only */
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    cs_plan_ctx_collect(ctx, 1);
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p, 0, &r, &err), 0);
    cs_plan_result_fini(&r);
    cs_plan_ctx_collect(ctx, 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_pending_count(ctx), 1);
    memset(out, 0, sizeof out);
    out[0].rc = CS_EUNSUPP;
    cs_err_set(&out[0].err, CS_EUNSUPP, "here", "no algorithm on purpose");
    CU_ASSERT_EQUAL(cs_plan_pending_settle(ctx, out, &err), 0);
    cs_err_clear(&err);
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p, 0, &r, &err), CS_EUNSUPP);
    CU_ASSERT_STRING_EQUAL(err.msg, "no algorithm on purpose");
    CU_ASSERT_STRING_EQUAL(err.where, "here");
    cs_plan_result_fini(&r);
    CU_ASSERT_EQUAL(cs_plan_ctx_simulated(ctx), 0);
    CU_ASSERT_EQUAL(cs_plan_pending_run(ctx, 1, &out[1], &err), CS_EINVAL);   /* none left */
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
}

/* In NCCL mode (a DGX H100: NVSwitch node) the cost counts the runs: NCCL's allreduce
 * candidates are ring and tree, each in 3 protocols (LL, LL128, Simple), and NVLS (the
 * NVSwitch reduces), Simple only: 7 runs, each a cs_sim; groups of 2 (TP) and 4 (DP):
 * 2^2 x 7 = 28 and 4^2 x 7 = 112. The plan's groups follow the nccl object's algo
 * (NCCL_ALGO) as collsim run does. */
static void t_cost_runs(void)
{
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_plan_result r;
    cs_plan_pending_out out;
    cs_err err;
    plan8(&p, 1);
    free(p.topo_json);
    p.topo_json = NULL;
    strcpy(p.topo_spec, "dgx-h100");
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_FATAL(cs_plan_ctx_nccl(ctx));
    cs_plan_ctx_collect(ctx, 1);
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p, 0, &r, &err), 0);
    cs_plan_result_fini(&r);
    cs_plan_ctx_collect(ctx, 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_pending_count(ctx), 2);
    CU_ASSERT_EQUAL(cs_plan_pending_cost(ctx, 0), 28.0);
    CU_ASSERT_EQUAL(cs_plan_pending_cost(ctx, 1), 112.0);
    CU_ASSERT_EQUAL(cs_plan_pending_run(ctx, 0, &out, &err), 0);
    /* every candidate either simulated or spared by its link-load bound (comm.c) */
    CU_ASSERT(out.rc == 0 && out.sims + out.bounded == 7 && out.sims >= 1 && out.t_s > 0);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
    /* NCCL_ALGO=Ring (the nccl object's algo) leaves the ring's 3 protocols: 12 and 48 */
    plan8(&p, 1);
    free(p.topo_json);
    p.topo_json = strdup("{\"kind\": \"cluster\", \"nodes\": 1, \"node\": \"dgx-h100\", "
                         "\"fabric\": \"ib-ndr-rail\", \"nccl\": {\"algo\": \"Ring\"}}");
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    cs_plan_ctx_collect(ctx, 1);
    CU_ASSERT_EQUAL(cs_plan_eval(ctx, &p, 0, &r, &err), 0);
    cs_plan_result_fini(&r);
    cs_plan_ctx_collect(ctx, 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_pending_count(ctx), 2);
    CU_ASSERT_EQUAL(cs_plan_pending_cost(ctx, 0), 12.0);
    CU_ASSERT_EQUAL(cs_plan_pending_cost(ctx, 1), 48.0);
    CU_ASSERT_EQUAL(cs_plan_pending_run(ctx, 1, &out, &err), 0);
    CU_ASSERT(out.rc == 0 && out.sims + out.bounded == 3 && out.t_s > 0);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
}

/* The search in one process: collectives noted, simulated once each as items, candidates
 * from the memo -- the same results as evaluating candidate by candidate, and the same
 * number of collectives simulated. */
static void t_search_run(void)
{
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_plan_cand *c = NULL;
    cs_plan_cand_result *a, *b;
    cs_plan_search_stats st;
    long n, fit = 0, i, old_simulated;
    cs_err err;
    plan8(&p, 1);
    CU_ASSERT_EQUAL_FATAL(cs_plan_search_enum(&p, 8, &c, &n, &err), 0);
    a = calloc((size_t)n, sizeof *a);
    b = calloc((size_t)n, sizeof *b);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_search_eval(ctx, &p, c, 0, n, a, NULL, NULL, &err), 0);
    old_simulated = cs_plan_ctx_simulated(ctx);
    cs_plan_ctx_free(ctx);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_search_run(ctx, &p, c, n, b, &st, &err), 0);
    CU_ASSERT(!memcmp(a, b, sizeof *a * (size_t)n));
    for (i = 0; i < n; i++)
        fit += b[i].ok && b[i].fits;
    CU_ASSERT(fit > 10);
    CU_ASSERT(st.collectives > 2);
    CU_ASSERT_EQUAL(st.collectives, old_simulated);
    CU_ASSERT_EQUAL(st.pending_run, st.collectives);
    CU_ASSERT_EQUAL(st.simulated, st.collectives);
    CU_ASSERT_EQUAL(st.evaluated, n);
    CU_ASSERT_EQUAL(st.sims, cs_plan_ctx_sims(ctx));
    cs_plan_ctx_free(ctx);
    free(a);
    free(b);
    free(c);
    cs_plan_fini(&p);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"collecting, simulating, settling", t_collect_settle},
        {"a failed simulation is memoised", t_failure_memoised},
        {"the cost counts the algorithm x protocol runs", t_cost_runs},
        {"the search simulates each collective once", t_search_run},
        {NULL, NULL},
    };
    return cs_test_add_suite("memo", cases);
}
