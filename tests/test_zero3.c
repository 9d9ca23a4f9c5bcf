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
        {NULL, NULL}};
    return cs_test_add_suite("zero3", cases);
}
