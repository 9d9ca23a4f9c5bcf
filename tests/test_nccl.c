/* test_nccl.c: NCCL mode (algorithms/nccl/nccl.h, algorithms/nccl/mode.h), the executor's extra costs
 * (cs_sim_costs in sim/exec.h), the "nccl" object of topology JSON, and the fitting maths
 * (calibration/fit.h) on closed forms. Every expected number is derived by hand in a comment. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "sim/exec.h"
#include "calibration/fit.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/rules.h"
#include "topologies/topology.h"

/* Ring allreduce of S bytes on p ranks with the given costs; time in us. */
static double ring_us(const cs_topo *t, int p, uint64_t S, const cs_sim_costs *costs)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_sim_opts so = {0, 0, costs};
    cs_time t_ps = -1;
    cs_err err;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, S);
    if (cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, &err) < 0 ||
        cs_algo_build(ops, &req, &s, &err) < 0)
        return NAN;
    if (cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, &err) < 0)
        t_ps = -1;
    cs_sched_fini(&s);
    return t_ps < 0 ? NAN : cs_time_to_us(t_ps);
}

/* alpha_beta, a = 1 us, 10 GB/s, p = 4, S = 4 MB: 2(p-1)(a + S/p b) = 6 (1 + 100) = 606 us.
 * With launch 5, 2 us per transfer and half the bandwidth: 5 + 6 (2 + 1 + 200) = 1223 us. */
static void t_costs_alpha_beta(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"alpha_beta\", \"ranks\": 4, "
                      "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 1}}");
    cs_sim_costs none = {0, 0, 0, 0, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0}, c = {5.0, 2.0, 0.5, 0, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CS_ASSERT_REL(ring_us(t, 4, 4000000, NULL), 606.0, 1e-9);
    CS_ASSERT_REL(ring_us(t, 4, 4000000, &none), 606.0, 1e-9);
    CS_ASSERT_REL(ring_us(t, 4, 4000000, &c), 1223.0, 1e-9);
    cs_topo_free(t);
}

/* Fluid switch, 0.5 us per link (1 us per route), 10 GB/s, no contention in a ring: the same
 * 606 us and 1223 us; zero costs are exactly the default. */
static void t_costs_fluid(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"switch\", \"ranks\": 4, "
                      "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 0.5}}");
    cs_sim_costs none = {0, 0, 0, 0, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0}, c = {5.0, 2.0, 0.5, 0, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CS_ASSERT_REL(ring_us(t, 4, 4000000, NULL), 606.0, 1e-9);
    CU_ASSERT_EQUAL(ring_us(t, 4, 4000000, &none), ring_us(t, 4, 4000000, NULL));
    CS_ASSERT_REL(ring_us(t, 4, 4000000, &c), 1223.0, 1e-9);
    cs_topo_free(t);
}

static void t_costs_bad(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"alpha_beta\", \"ranks\": 2, "
                      "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 1}}");
    cs_sim_costs c = {0, 0, 1.5, 0, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0};
    cs_sim_opts so = {0, 0, &c};
    cs_sim *sim = NULL;
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(cs_sim_new(&sim, t, &so, &err), CS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bw_eff in (0, 1]"));
    cs_topo_free(t);
}

static void t_params(void)
{
    cs_nccl_params p;
    cs_sim_costs c;
    cs_proto pr;
    cs_err err;
    cs_nccl_params_default(&p);
    CU_ASSERT_STRING_EQUAL(p.version, "2.30.7");
    CU_ASSERT_EQUAL(p.force_proto, -1);
    /* models.md 2.4: base latencies of Ring 6.6 / 14.0 / 8.4 us */
    CS_ASSERT_REL(p.proto[CS_PROTO_LL].base_us, 6.6, 1e-12);
    CS_ASSERT_REL(p.proto[CS_PROTO_LL128].base_us, 14.0, 1e-12);
    CS_ASSERT_REL(p.proto[CS_PROTO_SIMPLE].base_us, 8.4, 1e-12);
    CS_ASSERT_REL(p.proto[CS_PROTO_LL].bw_eff, 0.5, 1e-12);
    CU_ASSERT_EQUAL(p.proto[CS_PROTO_SIMPLE].chunk_bytes, 2097152);
    CU_ASSERT_EQUAL(cs_nccl_params_check(&p, "nccl", &err), 0);
    p.launch_us = 3;
    cs_nccl_costs(&p, CS_PROTO_SIMPLE, 0, &c);
    CS_ASSERT_REL(c.launch_us, 11.4, 1e-12);     /* 3 + 8.4 */
    CS_ASSERT_REL(c.xfer_lat_us, 2.8, 1e-12);
    /* NVLS: 3 + 25 us once, no per-transfer latency, Simple's 1.0 of the bandwidth (the
     * 0.85 goes on its NVLink legs only: test_ncclscale) */
    cs_nccl_costs(&p, CS_PROTO_SIMPLE, 1, &c);
    CS_ASSERT_REL(c.launch_us, 28.0, 1e-12);
    CS_ASSERT_REL(c.xfer_lat_us, 0.0, 1e-12);
    CS_ASSERT_REL(c.bw_eff, 1.0, 1e-12);
    /* chunks: ceil(5 MiB / 2 MiB) = 3; 1 GiB / 2 MiB = 512 capped at max_chunks 8 */
    CU_ASSERT_EQUAL(cs_nccl_chunks(&p, CS_PROTO_SIMPLE, 5u << 20), 3);
    CU_ASSERT_EQUAL(cs_nccl_chunks(&p, CS_PROTO_SIMPLE, 1u << 30), 8);
    CU_ASSERT_EQUAL(cs_nccl_chunks(&p, CS_PROTO_SIMPLE, 1), 1);
    CU_ASSERT(cs_proto_lookup("simple", &pr, &err) == 0 && pr == CS_PROTO_SIMPLE);
    CU_ASSERT(cs_proto_lookup("LL128", &pr, &err) == 0 && pr == CS_PROTO_LL128);
    CU_ASSERT_EQUAL(cs_proto_lookup("LL64", &pr, &err), CS_ENOENT);
    CU_ASSERT_EQUAL(cs_nccl_params_version("2.18.0", &p, &err), CS_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "known: 2.30.7"));
}

static void t_json(void)
{
    cs_nccl_params p;
    cs_err err;
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"launch_us\": 2.5, \"proto\": \"LL128\", \"channels\": 4, "
                              "\"protocols\": {\"LL\": {\"enabled\": false}, \"Simple\": "
                              "{\"bw_eff\": 0.9, \"chunk_bytes\": 1048576}}}", &p, &err), 0);
    CS_ASSERT_REL(p.launch_us, 2.5, 1e-12);
    CU_ASSERT_EQUAL(p.force_proto, CS_PROTO_LL128);
    CU_ASSERT_EQUAL(p.channels, 4);
    CU_ASSERT_EQUAL(p.proto[CS_PROTO_LL].enabled, 0);
    CS_ASSERT_REL(p.proto[CS_PROTO_SIMPLE].bw_eff, 0.9, 1e-12);
    CU_ASSERT_EQUAL(p.proto[CS_PROTO_SIMPLE].chunk_bytes, 1048576);
    CS_ASSERT_REL(p.proto[CS_PROTO_SIMPLE].base_us, 8.4, 1e-12);   /* untouched default */

    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"protocols\": {\"LL\": {\"bw_eff\": 2}}}", &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.protocols.LL.bw_eff");
    CU_ASSERT_STRING_EQUAL(err.msg, "must be in (0, 1], got 2");
    /* the limits of docs/limits.md: the edges pass, one step beyond them is refused */
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"launch_us\": 1e6, \"channel_GBps\": 1e-6, "
                              "\"tree_channel_GBps\": 0, \"transports\": {\"net\": "
                              "{\"bw_eff\": 0.001, \"msg_us\": 1e6}}}", &p, &err), 0);
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"launch_us\": 1.5e6}", &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.launch_us");
    CU_ASSERT_STRING_EQUAL(err.msg, "must be between 0 and 1e+06 us, got 1.5e+06");
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"channel_GBps\": 1e-7}", &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "must be 0 (no cap) or between 1e-06 and 1e+06 GB/s, got "
                           "1e-07");
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"protocols\": {\"Simple\": {\"hop_us\": 2e6}}}", &p, &err),
                    CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.protocols.Simple.hop_us");
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"transports\": {\"shm\": {\"flush_us\": 1e7}}}", &p, &err),
                    CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.transports.shm.flush_us");
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"nvls_lat_us\": 1e300}", &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.nvls_lat_us");
    CU_ASSERT(cs_test_nccl_json("{\"lunch_us\": 1}", &p, &err) < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.where, "lunch_us"));
    CU_ASSERT(cs_test_nccl_json("{\"protocols\": {\"LL256\": {}}}", &p, &err) < 0);
    CU_ASSERT(cs_test_nccl_json("{\"proto\": \"LL\", \"protocols\": {\"LL\": {\"enabled\": false}}}",
                        &p, &err) < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "forced but disabled"));
    CU_ASSERT(cs_test_nccl_json("{\"launch_us\": -1}", &p, &err) < 0);
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"channels\": 16, \"channel_GBps\": 22.5, \"protocols\": "
                              "{\"LL\": {\"channel_bytes\": 1024}}}", &p, &err), 0);
    CS_ASSERT_REL(p.channel_GBps, 22.5, 1e-12);
    CU_ASSERT_EQUAL(p.proto[CS_PROTO_LL].channel_bytes, 1024);
    CU_ASSERT_EQUAL(p.proto[CS_PROTO_SIMPLE].channel_bytes, 32768);   /* default */
    CU_ASSERT(cs_test_nccl_json("{\"channel_GBps\": -1}", &p, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.channel_GBps");
    CU_ASSERT(cs_test_nccl_json("{\"protocols\": {\"LL\": {\"channel_bytes\": 0}}}", &p, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.protocols.LL.channel_bytes");
    CU_ASSERT(cs_test_nccl_json("{\"channels\": 65}", &p, &err) < 0);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.channels");
}

/* A preset without an "nccl" object: defaults, present = 0 (pcie-rtx4090x8, whose channels
 * NCCL's ring search derives); dgx-h100 has one (16 channels, NVLS), and so has dgx-a100
 * (24, NCCL's on one DGX A100: search.cc 6 rings doubled twice); so has a file with one. */
static void t_topo_nccl(void)
{
    cs_nccl_params p;
    cs_err err;
    int present = 1;
    CU_ASSERT_EQUAL(cs_nccl_open("pcie-rtx4090x8", &p, &present, &err), 0);
    CU_ASSERT_EQUAL(present, 0);
    CU_ASSERT_EQUAL(p.channels, 1);
    CU_ASSERT_EQUAL(cs_nccl_open("dgx-a100", &p, &present, &err), 0);
    CU_ASSERT_EQUAL(present, 1);
    CU_ASSERT_EQUAL(p.channels, 24);
    CU_ASSERT_EQUAL(cs_nccl_open("dgx-h100", &p, &present, &err), 0);
    CU_ASSERT_EQUAL(present, 1);
    CU_ASSERT_EQUAL(p.channels, 16);
    CU_ASSERT_EQUAL(p.nvls, -1);   /* as the fabric: resolved by cs_nccl_setup */
    CS_ASSERT_REL(p.nvls_eff, 0.85, 1e-12);
    CU_ASSERT_EQUAL(cs_nccl_open(cs_test_data("ok/cal-truth.json"), &p, &present, &err), 0);
    CU_ASSERT_EQUAL(present, 1);
    CS_ASSERT_REL(p.launch_us, 12.0, 1e-12);
    CU_ASSERT_EQUAL(p.force_proto, CS_PROTO_SIMPLE);
    CS_ASSERT_REL(p.proto[CS_PROTO_SIMPLE].hop_us, 1.0, 1e-12);
}

/* Selection: the pick is the fastest of the forced runs; tiny messages go to LL (lowest
 * base + per-transfer latency), 1 GiB to a full-bandwidth protocol. */
static void t_select(void)
{
    cs_topo *t = NULL;
    cs_nccl_params p;
    cs_err err;
    uint64_t sizes[2] = {8, 1u << 30};
    int i, k;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100", &t, &err), 0);
    cs_nccl_params_default(&p);
    for (i = 0; i < 2; i++) {
        cs_coll_req req;
        cs_nccl_pick pick, forced;
        double best = INFINITY;
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, sizes[i]);
        req.topo = t;
        p.force_proto = -1;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pick, &err), 0);
        CU_ASSERT_EQUAL(pick.wrong, 0);
        for (k = 0; k < CS_PROTO_COUNT; k++) {
            p.force_proto = k;
            CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 0, &forced, &err), 0);
            CU_ASSERT_EQUAL(forced.proto, k);
            if (forced.time_us < best)
                best = forced.time_us;
        }
        CU_ASSERT_EQUAL(pick.time_us, best);
        if (i == 0)
            CU_ASSERT_EQUAL(pick.proto, CS_PROTO_LL);
        if (i == 1)
            CU_ASSERT_NOT_EQUAL(pick.proto, CS_PROTO_LL);
    }
    cs_topo_free(t);
}

/* ---------------------------------------------------------------- channels */

/* A channel cap below the link: each ring step of S/p = 1 MB moves at 2.5 GB/s instead of
 * 10: 6 (1 + 400) = 2406 us, on alpha_beta and on the fluid switch. With bw_eff 0.2 the
 * link gives data only 2 GB/s, below the cap: 6 (1 + 500) = 3006 us. */
static void t_channel_cap(void)
{
    const char *js[2] = {"{\"kind\": \"alpha_beta\", \"ranks\": 4, "
                         "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 1}}",
                         "{\"kind\": \"switch\", \"ranks\": 4, "
                         "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 0.5}}"};
    cs_sim_costs cap = {0, 0, 0, 2.5, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0}, slow = {0, 0, 0.2, 2.5, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0};
    int i;
    for (i = 0; i < 2; i++) {
        cs_topo *t = cs_test_topo(js[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CS_ASSERT_REL(ring_us(t, 4, 4000000, &cap), 2406.0, 1e-9);
        CS_ASSERT_REL(ring_us(t, 4, 4000000, &slow), 3006.0, 1e-9);
        cs_topo_free(t);
    }
}

/* The cap is per channel and sending rank, not per transfer: a ring in 4 pipelined pieces
 * has several pieces of a channel in flight at once (the link could carry 10 GB/s), yet each
 * rank's channel moves at most 2.5 GB/s. Every rank sends 2(p-1) S/p = 6 MB, so the time
 * is 6 MB / 2.5 GB/s = 2400 us plus the pipeline's latencies (< 0.5%). */
static void t_channel_cap_shared(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"switch\", \"ranks\": 4, "
                      "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 0.5}}");
    cs_sim_costs cap = {0, 0, 0, 2.5, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0};
    cs_sim_opts so = {0, 0, &cap};
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_time t_ps = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4, 4000000);
    req.chunks = 4;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, NULL), 0);
    CU_ASSERT(cs_time_to_us(t_ps) >= 2400.0);
    CS_ASSERT_REL(cs_time_to_us(t_ps), 2400.0, 5e-3);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* NCCL's trimming: channel_bytes Simple 32768, LL 4096 (x p for a ring), 16 channels.
 * 100000 B: Simple 3 channels (3 x 32768 <= 100000 < 4 x 32768); LL on an 8-rank ring has
 * the same 32768 per channel, 3; LL elsewhere 4096 per channel, all 16 (16 x 4096 = 65536);
 * 1 GiB uses all 16, 10 B one. */
static void t_channel_trim(void)
{
    cs_nccl_params p;
    cs_nccl_params_default(&p);
    p.channels = 16;
    CU_ASSERT_EQUAL(cs_nccl_channels(&p, CS_PROTO_SIMPLE, 100000, 8), 3);
    CU_ASSERT_EQUAL(cs_nccl_channels(&p, CS_PROTO_LL, 100000, 8), 3);
    CU_ASSERT_EQUAL(cs_nccl_channels(&p, CS_PROTO_LL, 100000, 1), 16);
    CU_ASSERT_EQUAL(cs_nccl_channels(&p, CS_PROTO_SIMPLE, 1u << 30, 8), 16);
    CU_ASSERT_EQUAL(cs_nccl_channels(&p, CS_PROTO_LL128, 10, 8), 1);
}

/* Two nodes of 4 GPUs on one NVSwitch (1000 GB/s), one 10 GB/s NIC per GPU on 4 rails.
 * Ring allreduce of S = 1 GiB on 8 ranks moves 2(p-1)/p S = 1.75 S over every ring hop;
 * the node-to-node hops bound it. Channel c enters each node at GPU c mod 4, so C channels
 * use min(C, 4) rails: busbw 10, 20, 30, 40, 40 GB/s for C = 1, 2, 3, 4, 8 and time =
 * 8.4 us (Simple's base) + 1.75 S / busbw (latencies add < 0.1%). A cap of 4 GB/s per channel with 8 channels gives
 * 8 x 4 = 32 GB/s although the rails could carry 40. */
static void t_channel_rails(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": {\"kind\": \"node\", "
                      "\"gpus\": 4, \"nvlink\": {\"topology\": \"switch\", \"links\": 1, "
                      "\"bandwidth_GBps\": 1000, \"latency_us\": 0.5}, \"nics\": 4, "
                      "\"nic_attach\": \"gpu\", \"nic\": {\"bandwidth_GBps\": 10, "
                      "\"latency_us\": 1}}, \"fabric\": {\"type\": \"rail\", "
                      "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 1}}}");
    static const int chans[5] = {1, 2, 3, 4, 8};
    static const double busbw[5] = {10, 20, 30, 40, 40};
    const double S = 1073741824.0;
    const cs_algo *ring;
    cs_nccl_params p;
    cs_coll_req req;
    cs_nccl_pick pick;
    cs_err err;
    int i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
    cs_nccl_params_default(&p);
    p.force_proto = CS_PROTO_SIMPLE;
    p.proto[CS_PROTO_SIMPLE].hop_us = 0;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, (uint64_t)S);
    req.topo = t;
    for (i = 0; i < 5; i++) {
        p.channels = chans[i];
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ring, &p, i == 4, &pick, &err), 0);
        CU_ASSERT_EQUAL(pick.channels, chans[i]);
        CS_ASSERT_REL(pick.time_us, 8.4 + 1.75 * S / (busbw[i] * 1e3), 1e-3);
        if (i == 4)
            CU_ASSERT_EQUAL(pick.wrong, 0);
    }
    p.channel_GBps = 4;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ring, &p, 0, &pick, &err), 0);
    CS_ASSERT_REL(pick.time_us, 8.4 + 1.75 * S / (32 * 1e3), 1e-3);
    cs_topo_free(t);
}

/* Reduction inside the receive loop (costs.reduce_in_loop): one reduce of 1e6 B over a link
 * of 100 GB/s and 1 us. A reducer at 500 GB/s keeps pace with the link: 1 + 10 = 11 us, the
 * time of a copy. One at 50 GB/s is the bound: it works from the send, 1e6 / 50e9 = 20 us.
 * The alpha-beta-gamma model (reduce after delivery) gives 1 + 10 + 20 = 31 us. */
static void t_reduce_in_loop(void)
{
    static const double gamma[2] = {500, 50}, want[2] = {11, 20};
    cs_sim_costs loop = {0, 0, 0, 0, 1, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0}, after = {0, 0, 0, 0, 0, {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}, 0, 0};
    cs_sim_opts so = {0, 0, &loop};
    char json[256];
    int i;
    for (i = 0; i < 2; i++) {
        cs_topo *t;
        cs_sched s;
        cs_time t_ps;
        cs_err err;
        int64_t c;
        snprintf(json, sizeof json, "{\"kind\":\"alpha_beta\",\"ranks\":2,\"reduce_GBps\":%g,"
                 "\"link\":{\"bandwidth_GBps\":100,\"latency_us\":1}}", gamma[i]);
        t = cs_test_topo(json);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        cs_sched_init(&s, CS_COLL_REDUCE, 2, 1, 1000000);
        c = cs_sched_chunk(&s, 1000000, -1, -1);
        cs_sched_xfer_range(&s, 0, 1, CS_OP_REDUCE, (uint32_t)c, 1, NULL, 0, 0);
        so.costs = &loop;
        CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, &err), 0);
        CS_ASSERT_REL(cs_time_to_us(t_ps), want[i], 1e-9);
        so.costs = &after;
        CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, &err), 0);
        CS_ASSERT_REL(cs_time_to_us(t_ps), 11 + 1e6 / (gamma[i] * 1e3), 1e-9);
        cs_sched_fini(&s);
        cs_topo_free(t);
    }
}

/* On a link-bound fabric (two GPUs under one PCIe Gen3 switch, no P2P: copies staged through
 * the host at 12 GB/s; the GPUs reduce at 200 GB/s) NCCL mode's reduce and broadcast of the
 * same size take the same time, as on the real box: the reduction hides in the receive. */
static void t_reduce_as_broadcast(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"pcie\", \"sockets\": 1, \"switches_per_socket\": 1, "
                      "\"gpus_per_switch\": 2, \"p2p\": false, \"reduce_GBps\": 200, "
                      "\"link\": {\"class\": \"pcie3\", \"bandwidth_GBps\": 12, "
                      "\"latency_us\": 1}, \"uplink\": {\"class\": \"pcie3\", "
                      "\"bandwidth_GBps\": 12, \"latency_us\": 1}}");
    static const uint64_t sizes[3] = {1u << 20, 64u << 20, 1u << 30};
    cs_nccl_params p;
    cs_err err;
    int i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_nccl_params_default(&p);
    for (i = 0; i < 3; i++) {
        cs_coll_req rq, bq;
        cs_nccl_pick rp, bp;
        cs_coll_req_init(&rq, CS_COLL_REDUCE, 2, sizes[i]);
        cs_coll_req_init(&bq, CS_COLL_BROADCAST, 2, sizes[i]);
        rq.topo = bq.topo = t;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&rq, t, NULL, &p, 0, &rp, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&bq, t, NULL, &p, 0, &bp, &err), 0);
        CS_ASSERT_REL(rp.time_us, bp.time_us, 1e-9);
    }
    cs_topo_free(t);
}

/* Transports on a PCIe host (two GPUs under one switch, 12 GB/s and 1 us per link), 12 MB
 * from GPU 0 to GPU 1, alone and with 12 MB from GPU 1 to GPU 0 at the same time.
 * P2P ("p2p": true, GPU -> switch -> GPU, 2 hops): each direction has its own links, both
 * at full speed: 2 + 1000 = 1002 us either way. SHM ("p2p": false, staged through host
 * memory: GPU -> switch -> CPU -> switch -> GPU, 4 hops): alone 4 + 1000 = 1004 us; both
 * directions share the switch's uplink to the CPU (up for both writes, down for both
 * reads): 6 GB/s each, 4 + 2000 = 2004 us. */
static void t_transport_p2p_shm(void)
{
    static const double want[2][2] = {{1004, 2004}, {1002, 1002}};   /* [p2p][both] */
    int p2p, both;
    for (p2p = 0; p2p < 2; p2p++) {
        char json[512];
        cs_topo *t;
        snprintf(json, sizeof json, "{\"kind\": \"pcie\", \"sockets\": 1, "
                 "\"switches_per_socket\": 1, \"gpus_per_switch\": 2, \"p2p\": %s, "
                 "\"link\": {\"class\": \"pcie3\", \"bandwidth_GBps\": 12, \"latency_us\": 1}, "
                 "\"uplink\": {\"class\": \"pcie3\", \"bandwidth_GBps\": 12, "
                 "\"latency_us\": 1}}", p2p ? "true" : "false");
        t = cs_test_topo(json);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (both = 0; both < 2; both++) {
            cs_sched s;
            cs_time t_ps;
            cs_err err;
            cs_sim_opts so = {0, 0, NULL};
            int64_t c0, c1;
            cs_sched_init(&s, CS_COLL_SENDRECV, 2, 0, 12000000);
            c0 = cs_sched_chunk(&s, 12000000, 0, 1);
            cs_sched_xfer_range(&s, 0, 1, CS_OP_COPY, (uint32_t)c0, 1, NULL, 0, 0);
            if (both) {
                c1 = cs_sched_chunk(&s, 12000000, 1, 0);
                cs_sched_xfer_range(&s, 1, 0, CS_OP_COPY, (uint32_t)c1, 1, NULL, 0, 0);
            }
            CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &so, &t_ps, NULL, &err), 0);
            CS_ASSERT_REL(cs_time_to_us(t_ps), want[p2p][both], 1e-9);
            cs_sched_fini(&s);
        }
        cs_topo_free(t);
    }
}

/* ---------------------------------------------------------------- fitting */

static const double fit_sizes[] = {1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
#define N_FIT 7

/* T = a + S / (1000 b) us (+ c when a third parameter is given). */
static int lin_model(void *ctx, const double *th, double *pred, cs_err *err)
{
    int i, three = *(int *)ctx;
    for (i = 0; i < N_FIT; i++)
        pred[i] = th[0] + fit_sizes[i] / (1000.0 * th[1]) + (three ? th[2] : 0);
    return 0;
}

/* Exact data from a = 5 us, b = 2 GB/s: recovered to 1e-6 from a = 1, b = 50. */
static void t_fit_closed_form(void)
{
    cs_fit_param par[2];
    cs_fit_result res;
    cs_err err;
    double obs[N_FIT];
    int i, three = 0;
    for (i = 0; i < N_FIT; i++)
        obs[i] = 5.0 + fit_sizes[i] / 2000.0;
    memset(par, 0, sizeof par);
    snprintf(par[0].name, sizeof par[0].name, "a");
    par[0].value = 1;
    par[0].lo = 0.01;
    par[0].hi = 1000;
    snprintf(par[1].name, sizeof par[1].name, "b");
    par[1].value = 50;
    par[1].lo = 0.01;
    par[1].hi = 1000;
    CU_ASSERT_EQUAL_FATAL(cs_fit_run(par, 2, obs, N_FIT, lin_model, &three, NULL, &res, &err), 0);
    CU_ASSERT_EQUAL(res.n_free, 2);
    CS_ASSERT_REL(par[0].value, 5.0, 1e-6);
    CS_ASSERT_REL(par[1].value, 2.0, 1e-6);
    CU_ASSERT(res.cost < 1e-12);
    CU_ASSERT(res.cost0 > res.cost);
}

/* a and c only ever appear as a + c: the second of them (c) is held at its start, a takes
 * the sum: a + 3 = 5 + 0 - so a = 2 when c is held at 3. */
static void t_fit_unidentified(void)
{
    cs_fit_param par[3];
    cs_fit_result res;
    cs_err err;
    double obs[N_FIT];
    int i, three = 1;
    for (i = 0; i < N_FIT; i++)
        obs[i] = 5.0 + fit_sizes[i] / 2000.0;
    memset(par, 0, sizeof par);
    for (i = 0; i < 3; i++) {
        snprintf(par[i].name, sizeof par[i].name, "p%d", i);
        par[i].lo = 0.01;
        par[i].hi = 1000;
    }
    par[0].value = 1;
    par[1].value = 50;
    par[2].value = 3;
    CU_ASSERT_EQUAL_FATAL(cs_fit_run(par, 3, obs, N_FIT, lin_model, &three, NULL, &res, &err), 0);
    CU_ASSERT_EQUAL(res.n_free, 2);
    CU_ASSERT_EQUAL(par[2].was_unidentified, 1);
    CS_ASSERT_REL(par[2].value, 3.0, 1e-12);
    CS_ASSERT_REL(par[0].value, 2.0, 1e-6);
    CS_ASSERT_REL(par[1].value, 2.0, 1e-6);
}

static void t_fit_bad(void)
{
    cs_fit_param par[1];
    cs_fit_result res;
    cs_err err;
    double obs[N_FIT] = {1, 1, 1, 1, 1, 1, 0};
    int three = 0;
    memset(par, 0, sizeof par);
    par[0].value = 5;
    par[0].lo = 10;
    par[0].hi = 20;
    CU_ASSERT_EQUAL(cs_fit_run(par, 1, obs, N_FIT, lin_model, &three, NULL, &res, &err),
                    CS_EINVAL);
    par[0].lo = 1;
    CU_ASSERT_EQUAL(cs_fit_run(par, 1, obs, N_FIT, lin_model, &three, NULL, &res, &err),
                    CS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "observation 6 must be a time > 0"));
}

/* NCCL's NVLS reduces only some types and ops (ncclNvlsSupported): every data type x op
 * against the table written out by hand. */
static void t_nvls_types(void)
{
    static const char *const types[] = {"int8", "uint8", "int32", "uint32", "int64", "uint64",
                                        "half", "float", "double", "bfloat16", "fp8_e4m3",
                                        "fp8_e5m2"};
    static const char *const ops[] = {"sum", "prod", "max", "min", "avg"};
    /* per type, the ops NVLS takes: s = sum, m = min and max */
    static const char *const want[] = {"", "", "sm", "sm", "sm", "sm", "sm", "s", "s", "sm",
                                       "", ""};
    size_t t, o;
    for (t = 0; t < sizeof types / sizeof types[0]; t++)
        for (o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            int yes = (o == 0 && strchr(want[t], 's')) || ((o == 2 || o == 3) &&
                                                           strchr(want[t], 'm'));
            CU_ASSERT_EQUAL(cs_nccl_nvls_supported(types[t], ops[o]), yes);
        }
    CU_ASSERT_EQUAL(cs_nccl_nvls_supported(NULL, "prod"), 1);
}

/* The link-load bound (pick.c): on 2 DGX H100 nodes (16 ranks) at 1 MiB-1 GiB the choice,
 * its time and #wrong are those of simulating every candidate (no_bound), and at 1 GiB a
 * candidate is spared: LL moves 2 bytes a byte, so its ring's link loads alone exceed the
 * Simple ring's whole time. */
static void t_select_bound(void)
{
    cs_topo *t = NULL;
    cs_nccl_params p;
    cs_err err;
    uint64_t b;
    int on;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &p, &on, &err), 0);
    for (b = 1u << 20; b <= 1u << 30; b <<= 5) {
        cs_coll_req req;
        cs_nccl_pick with, without;
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 16, b);
        req.topo = t;
        p.no_bound = 0;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &with, &err), 0);
        p.no_bound = 1;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &without, &err), 0);
        CU_ASSERT(with.algo == without.algo && with.proto == without.proto);
        CU_ASSERT_EQUAL(with.time_us, without.time_us);
        CU_ASSERT_EQUAL(with.wrong, without.wrong);
        CU_ASSERT_EQUAL(without.bounded, 0);
        if (b == 1u << 30)
            CU_ASSERT(with.bounded >= 1);
    }
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case costs[] = {
        {"alpha_beta", t_costs_alpha_beta}, {"fluid", t_costs_fluid}, {"bad", t_costs_bad},
        {"reduce_in_loop", t_reduce_in_loop}, {NULL, NULL}};
    static const cs_test_case params[] = {
        {"defaults", t_params}, {"json", t_json}, {"topology", t_topo_nccl},
        {"select", t_select}, {"select_bound", t_select_bound}, {"channel_cap", t_channel_cap},
        {"channel_cap_shared", t_channel_cap_shared},
        {"channel_trim", t_channel_trim}, {"channel_rails", t_channel_rails},
        {"reduce_as_broadcast", t_reduce_as_broadcast},
        {"transport_p2p_shm", t_transport_p2p_shm}, {"nvls_types", t_nvls_types},
        {NULL, NULL}};
    static const cs_test_case fit[] = {
        {"closed_form", t_fit_closed_form}, {"unidentified", t_fit_unidentified},
        {"bad", t_fit_bad}, {NULL, NULL}};
    if (cs_test_add_suite("nccl_costs", costs) || cs_test_add_suite("nccl_params", params) ||
        cs_test_add_suite("fit", fit))
        return -1;
    return 0;
}
