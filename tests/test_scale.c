/* test_scale.c: how the simulator's work grows with scale, through its deterministic work
 * counters (cs_sim_get_counters), never through timings. A ring allreduce on the ring
 * fabric does O(p) fluid-model work per step, so doubling p may at most about quadruple
 * the link visits (2(p-1) steps of p flows); 16 NCCL channels may cost at most 16 times
 * one channel's visits. Counts derivable by hand are asserted exactly. */
#include "tests/testutil.h"
#include "sim/exec.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "topologies/topology.h"

#include <stdio.h>
#include <string.h>

/* Run schedule s with costs (NULL = none) on t, data check off; fill the counters. */
static void count(const cs_topo *t, const cs_sched *s, const cs_sim_costs *costs,
                  cs_sim_counters *out)
{
    cs_sim_opts so = {0, 0, costs};
    cs_sim *sim;
    cs_err err;
    memset(out, 0, sizeof *out);
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, &so, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, s, NULL, 0, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, &err), 0);
    cs_sim_get_counters(sim, out);
    cs_sim_free(sim);
}

/* Ring allreduce of S bytes on a p-rank ring fabric (100 GB/s, 1 us links). */
static void ring_counters(int p, uint64_t S, cs_sim_counters *out)
{
    char buf[160];
    cs_topo *t = NULL;
    const cs_algo *ring;
    cs_coll_req req;
    cs_sched s;
    cs_err err;
    snprintf(buf, sizeof buf, "{\"kind\":\"ring\",\"ranks\":%d,\"link\":{\"bandwidth_GBps\":100,"
             "\"latency_us\":1}}", p);
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(buf, "ring", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, S);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
    count(t, &s, NULL, out);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* Ring allreduce, p = 256 and 512, S = 1 GiB (blocks divide exactly). Every step all p
 * ranks send one block to their neighbour, each alone on its directed link: 2p(p-1)
 * transfers, at most p in the network and p flows at once. A step costs two
 * recomputations (its p flows start together after the link latency, and end together),
 * each over p one-link components, so the link visits grow as p^2 overall: 4x from 256 to
 * 512 ranks (14 p (p-1): 913 920 and 3 662 848 visits). Filling by scanning every link
 * per settled link made it p^3: 3.39e7 and 2.70e8 visits, 7.95x, which fails here. */
static void t_ring_visits(void)
{
    cs_sim_counters c256, c512;
    uint64_t p;
    ring_counters(256, 1u << 30, &c256);
    ring_counters(512, 1u << 30, &c512);
    fprintf(stderr, "\n  ring allreduce: 256 ranks %llu link visits, %llu recomputes, %llu "
            "events; 512 ranks %llu link visits, %llu recomputes, %llu events\n",
            (unsigned long long)c256.link_visits, (unsigned long long)c256.recomputes,
            (unsigned long long)c256.events, (unsigned long long)c512.link_visits,
            (unsigned long long)c512.recomputes, (unsigned long long)c512.events);
    CU_ASSERT(c256.link_visits > 0);
    CU_ASSERT(c512.link_visits * 2 <= c256.link_visits * 9);    /* <= 4.5x */
    for (p = 256; p <= 512; p *= 2) {
        const cs_sim_counters *c = p == 256 ? &c256 : &c512;
        CU_ASSERT_EQUAL(c->transfers, 2 * p * (p - 1));
        CU_ASSERT_EQUAL(c->peak_transfers, p);
        CU_ASSERT_EQUAL(c->peak_flows, p);
        CU_ASSERT_EQUAL(c->recomputes, 4 * (p - 1));
    }
}

/* NCCL mode on dgx-h100-x2 (2 x 8 H100, rails): a ring allreduce of 1 GiB with Simple on
 * 16 channels against one channel. 16 rings do 16 times one ring's transfers (pieces per
 * step are bounded over all channels), and their flows share links, so each
 * recomputation sees more flows; the work must stay within 16x one channel's (it is
 * 1.4x: 432 668 and 614 746 visits; 5.5x with the per-settled-link scan). */
static void t_nccl_channels(void)
{
    cs_topo *t = NULL;
    cs_nccl_params np;
    const cs_algo *ring;
    cs_coll_req req;
    cs_sim_counters c[2];
    cs_err err;
    int present = 0, i;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_open("dgx-h100-x2", &np, &present, &err), 0);
    CU_ASSERT(present);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
    np.force_proto = CS_PROTO_SIMPLE;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 16, 1u << 30);
    req.topo = t;
    for (i = 0; i < 2; i++) {
        cs_nccl_pick pick;
        cs_sim_costs costs;
        cs_sched s;
        np.channels = i ? 16 : 1;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ring, &np, 0, &pick, &err), 0);
        CU_ASSERT_EQUAL(pick.channels, np.channels);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_build(&req, &np, &pick, &s, &costs, NULL, &err), 0);
        count(t, &s, &costs, &c[i]);
        cs_sched_fini(&s);
    }
    fprintf(stderr, "\n  dgx-h100-x2 ring allreduce 1 GiB: 1 channel %llu link visits, %llu "
            "recomputes, %llu transfers; 16 channels %llu link visits, %llu recomputes, %llu "
            "transfers\n", (unsigned long long)c[0].link_visits,
            (unsigned long long)c[0].recomputes, (unsigned long long)c[0].transfers,
            (unsigned long long)c[1].link_visits, (unsigned long long)c[1].recomputes,
            (unsigned long long)c[1].transfers);
    CU_ASSERT(c[0].link_visits > 0);
    CU_ASSERT(c[1].link_visits <= 16 * c[0].link_visits);
    cs_topo_free(t);
}

/* The data check at scale: a ring allreduce of 1024 ranks (1024 chunks) is checked (0
 * wrong; its sets are a few runs per chunk, where bitsets needed 128 MiB), and a check
 * whose state outgrows its limit (here 64 KiB) stops: #wrong -1, N/A. */
static void t_check_scale(void)
{
    char buf[160];
    cs_topo *t = NULL;
    const cs_algo *ring;
    cs_coll_req req;
    cs_sched s;
    cs_err err;
    cs_sim_opts small = {1, 64 << 10, NULL};
    int wrong = -2;
    snprintf(buf, sizeof buf, "{\"kind\":\"alpha_beta\",\"ranks\":1024,\"link\":"
             "{\"bandwidth_GBps\":100,\"latency_us\":1}}");
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(buf, "ab", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 1024, 1u << 30);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, &err), 0);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &small, NULL, &wrong, &err), 0);
    CU_ASSERT_EQUAL(wrong, -1);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"ring allreduce link visits 256 -> 512 ranks <= 4.5x", t_ring_visits},
        {"NCCL 16 channels <= 16x one channel's link visits", t_nccl_channels},
        {"data check of 1024 ranks; stopped past its limit", t_check_scale},
        {NULL, NULL},
    };
    return cs_test_add_suite("scale", cases);
}
