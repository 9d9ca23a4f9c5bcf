/* test_zero3.c: ZeRO-3 / FSDP and offload in plans (issue 26), by hand: each layer's
 * parameter all-gather and gradient reduce-scatter on the alpha_beta model (a + b l), the
 * step of a ZeRO-3 plan with nothing overlapped, and offloaded parameters' transfer on a
 * host link two GPUs share. Every number is derived in the comment above its check. */
#include "scenarios/plan.h"
#include "scenarios/compute.h"
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A GPT of 2 layers, h 1024 (one layer: 12 h^2 + 13 h = 12596224 parameters), s 512, vocab
 * 1000, micro batch 1, global batch 4 on dp 2: 2 microbatches a replica; ZeRO-3. */
static void plan_of(cs_plan *p, const char *topo, const char *extra)
{
    char json[2048];
    cs_err err;
    snprintf(json, sizeof json,
             "{\"model\": {\"layers\": 2, \"hidden\": 1024, \"heads\": 8, \"seq_len\": 512, "
             "\"vocab\": 1000}, \"train\": {\"global_batch\": 4%s}, \"parallel\": {\"dp\": 2, "
             "\"zero\": 3, \"overlap_grad_reduce\": false, \"overlap_param_gather\": false}, "
             "\"system\": {\"gpu\": \"a100-80gb\", \"topo\": %s}}", extra, topo);
    cs_plan_init(p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "test", p, &err), 0);
}

static int eval(cs_plan *p, cs_plan_result *r)
{
    cs_plan_ctx *ctx = NULL;
    cs_err err;
    int rc;
    if ((rc = cs_plan_check(p, 0, &err)) < 0 || (rc = cs_plan_ctx_new(&ctx, p, &err)) < 0)
        return rc;
    rc = cs_plan_eval(ctx, p, 0, r, &err);
    cs_plan_ctx_free(ctx);
    return rc;
}

/* alpha_beta, 2 ranks, 10 GB/s, 5 us. The stage's parameters, 2 layers + the embedding
 * (1000 x 1024), positions (512 x 1024) and final norm (2 x 1024) = 26742784, are gathered
 * a layer's share at a time: 13371392 parameters, S = 26742784 bytes; on 2 ranks an
 * all-gather is one step of S/2 each way: g = 5e-6 + 13371392 / 10e9 = 1.3421392e-3 s; the
 * reduce-scatter of its gradients the same. Nothing overlapped: each layer's forward and
 * backward of each of the 2 microbatches waits for its gather (8 gathers), and the
 * gradients, accumulated over the microbatches, are reduce-scattered a layer at a time after
 * the last backward (2): the step = 10 g + the compute of 2 microbatches (the chunk's
 * forward and backward with the embedding and head) + the optimizer. */
static void t_zero3_alpha_beta(void)
{
    cs_plan p;
    cs_plan_result r;
    double g = 5e-6 + 13371392.0 / 10e9, comp;
    plan_of(&p, "{\"kind\": \"alpha_beta\", \"ranks\": 2, \"link\": {\"bandwidth_GBps\": 10, "
                "\"latency_us\": 5}}", "");
    CU_ASSERT_EQUAL_FATAL(eval(&p, &r), 0);
    CS_ASSERT_REL(r.costs.t_gather, g, 1e-9);
    CS_ASSERT_REL(r.costs.t_bucket, g, 1e-9);
    CU_ASSERT_EQUAL(r.costs.n_pieces, 2);
    comp = 2 * (r.costs.t_fwd + r.costs.t_bwd + r.costs.t_first_extra +
                r.costs.t_first_extra_bwd + r.costs.t_last_extra + r.costs.t_last_extra_bwd);
    CS_ASSERT_REL(r.step_time_s, comp + 10 * g + r.costs.t_opt, 1e-6);
    cs_plan_result_fini(&r);
    cs_plan_fini(&p);
}

/* SC'21 Table 2's ZeRO-3 rows keep the global batch (1536) as the GPUs double (384, 768,
 * 1536) with micro batch 4, 2, 1: one microbatch a step at every scale, so a GPU gathers
 * and reduce-scatters the whole model once a step however many GPUs share the batch, while
 * its compute halves. The same on alpha_beta (10 GB/s, 5 us), the plan above with global
 * batch 4 and nothing overlapped: dp 2, micro batch 2, and dp 4, micro batch 1, both m = 1.
 * A ring all-gather of S on n ranks is n - 1 steps of S/n: g(n) = (n - 1)(5e-6 + S/n / 10e9)
 * with S = 26742784 bytes (a layer's share of the stage, as above): g(2) = 1.3421392e-3 s,
 * g(4) = 3 (5e-6 + 6685696 / 10e9) = 2.0207088e-3 s. A step: each of the 2 layers gathered
 * for its forward and its backward (4) and its gradients reduce-scattered once (2), nothing
 * overlapped: one microbatch's compute + 6 g(n) + the optimizer. Bytes a GPU sends (the
 * stage's 2 S bytes three times): 3 (n - 1)/n x 2 S = 80228352 (dp 2) and 120342528 (dp 4);
 * they grow with n while the tokens a GPU computes halve. */
static void t_zero3_fixed_batch(void)
{
    static const struct { int dp, mbs; double g, bytes; } rows[] = {
        {2, 2, 5e-6 + 13371392.0 / 10e9, 80228352.0},
        {4, 1, 3 * (5e-6 + 6685696.0 / 10e9), 120342528.0}};
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char topo[160], extra[64];
        cs_plan p;
        cs_plan_result r;
        double comp;
        snprintf(topo, sizeof topo, "{\"kind\": \"alpha_beta\", \"ranks\": %d, \"link\": "
                 "{\"bandwidth_GBps\": 10, \"latency_us\": 5}}", rows[i].dp);
        snprintf(extra, sizeof extra, ", \"micro_batch\": %d", rows[i].mbs);
        plan_of(&p, topo, extra);
        p.dp = rows[i].dp;
        CU_ASSERT_EQUAL_FATAL(eval(&p, &r), 0);
        CU_ASSERT_EQUAL(r.microbatches, 1);
        CS_ASSERT_REL(r.costs.t_gather, rows[i].g, 1e-9);
        CS_ASSERT_REL(r.costs.t_bucket, rows[i].g, 1e-9);
        CS_ASSERT_REL(r.dp_bytes_per_gpu, rows[i].bytes, 1e-9);
        comp = r.costs.t_fwd + r.costs.t_bwd + r.costs.t_first_extra + r.costs.t_first_extra_bwd +
               r.costs.t_last_extra + r.costs.t_last_extra_bwd;
        CS_ASSERT_REL(r.step_time_s, comp + 6 * rows[i].g + r.costs.t_opt, 1e-6);
        cs_plan_result_fini(&r);
        cs_plan_fini(&p);
    }
}


/* FSDP2 under pipeline parallelism (torchtitan: reshard_after_forward off with PP): the
 * model above on pp 2 x dp 2 (4 ranks of alpha_beta), ZeRO-3 runs as ZeRO-1 - no per-layer
 * gathers (t_gather 0), the stage's gradients in buckets once a step and its parameters
 * gathered once (t_dp_tail > 0) - so its step and memory are the ZeRO-1 plan's to the
 * byte; the weights are whole on each GPU (one layer + the stage's share of the embedding
 * or head at 2 bytes), not sharded over dp. Refused by name: ZeRO-2 with pp (DeepSpeed), a
 * DeepSpeed config's stage 3 with pp, HSDP and parameter offload with pp. */
static void t_zero3_pipeline(void)
{
    cs_plan p, q;
    cs_plan_result r, r1;
    cs_err err;
    static const char topo[] = "{\"kind\": \"alpha_beta\", \"ranks\": 4, \"link\": "
        "{\"bandwidth_GBps\": 10, \"latency_us\": 5}}";
    plan_of(&p, topo, "");
    plan_of(&q, topo, "");
    p.pp = q.pp = 2;
    q.zero = 1;
    CU_ASSERT_EQUAL(cs_plan_zero_run(&p), 1);
    CU_ASSERT_EQUAL_FATAL(eval(&p, &r), 0);
    CU_ASSERT_EQUAL_FATAL(eval(&q, &r1), 0);
    CU_ASSERT_DOUBLE_EQUAL(r.costs.t_gather, 0, 0);
    CU_ASSERT(r.costs.t_dp_tail > 0);
    CU_ASSERT_DOUBLE_EQUAL(r.step_time_s, r1.step_time_s, 0);
    CU_ASSERT_DOUBLE_EQUAL(r.mem.total, r1.mem.total, 0);
    CU_ASSERT_DOUBLE_EQUAL(r.mem.weights, r1.mem.weights, 0);
    cs_plan_result_fini(&r);
    cs_plan_result_fini(&r1);
    p.zero = 2;
    CU_ASSERT_NOT_EQUAL(cs_plan_check(&p, 0, &err), 0);
    CU_ASSERT_STRING_EQUAL(err.where, "parallel.zero");
    p.zero = 3;
    p.zero_deepspeed = 1;
    CU_ASSERT_NOT_EQUAL(cs_plan_check(&p, 0, &err), 0);
    CU_ASSERT_STRING_EQUAL(err.where, "parallel.zero");
    p.zero_deepspeed = 0;
    p.hsdp = 2;
    CU_ASSERT_NOT_EQUAL(cs_plan_check(&p, 0, &err), 0);
    CU_ASSERT_STRING_EQUAL(err.where, "parallel.hsdp");
    p.hsdp = 0;
    p.offload_params = 1;
    CU_ASSERT_NOT_EQUAL(cs_plan_check(&p, 0, &err), 0);
    CU_ASSERT_STRING_EQUAL(err.where, "train.offload");
    cs_plan_fini(&p);
    cs_plan_fini(&q);
}

/* Two GPUs under one PCIe switch whose uplink to the CPU (24 GB/s) both cross: each GPU's
 * share of its host link is 12 GB/s. Offloaded parameters (ZeRO-Infinity / FSDP CPU
 * offload): before each layer's gather its shard, 13371392 / 2 parameters x 2 bytes (the
 * layer's share of the stage, as above), comes up: + 13371392 / 12e9 s on the gather, and
 * its gradient shard goes down after the reduce-scatter: the same on the reduce-scatter. */
static void t_offload_shared_link(void)
{
    static const char *const topo =
        "{\"kind\": \"graph\", \"nodes\": [{\"name\": \"cpu0\", \"type\": \"cpu\"}, "
        "{\"name\": \"sw0\", \"type\": \"switch\"}, {\"name\": \"g0\", \"type\": \"gpu\"}, "
        "{\"name\": \"g1\", \"type\": \"gpu\"}], \"links\": [{\"from\": \"g0\", \"to\": "
        "\"sw0\", \"bandwidth_GBps\": 24, \"latency_us\": 1}, {\"from\": \"g1\", \"to\": "
        "\"sw0\", \"bandwidth_GBps\": 24, \"latency_us\": 1}, {\"from\": \"sw0\", \"to\": "
        "\"cpu0\", \"bandwidth_GBps\": 24, \"latency_us\": 1}], \"ranks\": [\"g0\", \"g1\"]}";
    cs_plan p;
    cs_plan_result r0, r1;
    plan_of(&p, topo, "");
    CU_ASSERT_EQUAL_FATAL(eval(&p, &r0), 0);
    cs_plan_fini(&p);
    plan_of(&p, topo, ", \"offload\": \"parameters\"");
    CU_ASSERT_EQUAL_FATAL(eval(&p, &r1), 0);
    CS_ASSERT_REL(r1.costs.t_gather - r0.costs.t_gather, 13371392.0 / 12e9, 1e-9);
    CS_ASSERT_REL(r1.costs.t_bucket - r0.costs.t_bucket, 13371392.0 / 12e9, 1e-9);
    cs_plan_result_fini(&r0);
    cs_plan_result_fini(&r1);
    cs_plan_fini(&p);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"zero3_alpha_beta", t_zero3_alpha_beta}, {"offload_shared_link", t_offload_shared_link},
        {"zero3_fixed_batch", t_zero3_fixed_batch},
        {"zero3_pipeline", t_zero3_pipeline},
        {NULL, NULL}};
    return cs_test_add_suite("zero3", cases);
}
