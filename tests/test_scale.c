/* test_scale.c: how the simulator's work grows with scale, through its deterministic work
 * counters (cs_sim_get_counters), never through timings; streamed schedules hold O(p)
 * operations and run the same events as stored ones. A ring allreduce on the ring
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
 * transfers, at most p in the network and p flows at once. A step costs one recomputation
 * when its p flows start together after the link latency, over p one-link components: per
 * flow its seed link, its one link joined, and the filling's link, popped link and fixed
 * group (5 visits), so 10 p (p-1) in all (652 800 and 2 616 320): 4x from 256 to 512
 * ranks. Their ends leave every link empty and cost nothing (they were a second
 * recomputation of 2 visits per flow: 14 p (p-1) and 4 (p-1) recomputes). Two engine
 * events per transfer (the end of its latency, the end of its flow) and one per step (the
 * recomputation, scheduled also at the ends to keep the events' order), and the job's start:
 * 4p(p-1) + 4(p-1) + 1 events. Filling by scanning
 * every link per settled link made it p^3: 3.39e7 and 2.70e8 visits, 7.95x, which fails
 * here. */
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
        CU_ASSERT_EQUAL(c->recomputes, 2 * (p - 1));
        CU_ASSERT_EQUAL(c->link_visits, 10 * p * (p - 1));
        CU_ASSERT_EQUAL(c->events, 4 * p * (p - 1) + 4 * (p - 1) + 1);
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
 * whose state outgrows its limit (here 64 KiB) stops: #wrong -1, N/A; streamed too. */
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
    /* Streamed, the check stops the same way, its snapshots in the window freed. */
    req.stream = 1;
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &small, NULL, &wrong, &err), 0);
    CU_ASSERT_EQUAL(wrong, -1);
    cs_sched_fini(&s);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, &err), 0);
    CU_ASSERT_EQUAL(wrong, 0);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* One ring run of coll on a p-rank fabric of `kind` (ring or alpha_beta, 100 GB/s, 1 us),
 * S bytes in k pieces per step, stored or streamed, data check on: finish time, #wrong,
 * counters. */
static void ring_run_opts(const char *kind, cs_coll coll, int p, uint64_t S, int k, int stream,
                          int time_only, int channels, cs_time *t_ps, int *wrong,
                          cs_sim_counters *c, int *one_rank)
{
    char buf[160];
    cs_topo *t = NULL;
    const cs_algo *ring;
    cs_coll_req req;
    cs_sched s;
    cs_sim *sim;
    cs_job *job;
    cs_err err;
    snprintf(buf, sizeof buf, "{\"kind\":\"%s\",\"ranks\":%d,\"link\":{\"bandwidth_GBps\":100,"
             "\"latency_us\":1}}", kind, p);
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(buf, kind, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", coll, &ring, &err), 0);
    cs_coll_req_init(&req, coll, p, S);
    req.chunks = k;
    req.stream = stream;
    req.time_only = time_only;
    req.channels = channels;
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
    CU_ASSERT_EQUAL(s.stream != NULL, stream && p > 1);
    *one_rank = s.one_rank;
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, &job, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, &err), 0);
    *t_ps = cs_job_end(job);
    *wrong = cs_job_wrong(job);
    cs_sim_get_counters(sim, c);
    cs_sim_free(sim);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

static void ring_run(const char *kind, cs_coll coll, int p, uint64_t S, int k, int stream,
                     cs_time *t_ps, int *wrong, cs_sim_counters *c)
{
    int one_rank;
    ring_run_opts(kind, coll, p, S, k, stream, 0, 1, t_ps, wrong, c, &one_rank);
    CU_ASSERT_EQUAL(one_rank, 0);
}

/* Symmetric rounds: where every rank does the same thing on resources of its own (ring,
 * switch and alpha_beta fabrics, one channel, equal blocks) a time-only ring simulates
 * rank 0's transfers alone (2(p-1)k for an allreduce) and finishes at the same picosecond
 * as all p ranks' transfers, and the data check follows rank 0 (#wrong 0); so does
 * tpu-v4, whose ring plan is a Hamiltonian cycle over direct torus links, but there the
 * check cannot follow (#wrong N/A, or every rank when #wrong is wanted). Unequal blocks,
 * two channels (both
 * directions share ports) or routes that differ (dgx-h100-x2: NVSwitch inside a node,
 * NICs and InfiniBand between) run in full. */
static void t_symmetric(void)
{
    static const char *const kinds[] = {"ring", "alpha_beta", "switch"};
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER,
                                    CS_COLL_REDUCESCATTER};
    static const int ps[] = {2, 3, 8, 64};
    int a, b, i, k, one_rank;
    cs_sim_counters c0, c1;
    cs_time t0, t1;
    int w0, w1;
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++)
            for (i = 0; i < 4; i++)
                for (k = 1; k <= 4; k += 3) {
                    uint64_t p = (uint64_t)ps[i], S = 3u << 20;
                    uint64_t steps = colls[b] == CS_COLL_ALLREDUCE ? 2 * (p - 1) : p - 1;
                    ring_run(kinds[a], colls[b], ps[i], S, k, 0, &t0, &w0, &c0);
                    ring_run_opts(kinds[a], colls[b], ps[i], S, k, 1, 1, 1, &t1, &w1, &c1,
                                  &one_rank);
                    if (t0 != t1)
                        fprintf(stderr, "\n  %s %s p=%d k=%d: all ranks %lld ps, one rank "
                                "%lld ps\n", kinds[a], cs_coll_name(colls[b]), ps[i], k,
                                (long long)t0, (long long)t1);
                    CU_ASSERT_EQUAL(one_rank, 1);
                    CU_ASSERT_EQUAL(t0, t1);
                    CU_ASSERT_EQUAL(w0, 0);
                    CU_ASSERT_EQUAL(w1, 0);       /* the check follows rank 0, turned */
                    CU_ASSERT_EQUAL(c0.transfers, steps * p * (uint64_t)k);
                    CU_ASSERT_EQUAL(c1.transfers, steps * (uint64_t)k);
                }
    ring_run_opts("ring", CS_COLL_ALLREDUCE, 33, 1000003, 1, 1, 1, 1, &t1, &w1, &c1, &one_rank);
    CU_ASSERT_EQUAL(one_rank, 0);
    CU_ASSERT_EQUAL(c1.transfers, 2 * 33 * 32);
    /* Two channels share ports on alpha_beta (they fold on the ring kind: test_foldgrid) */
    ring_run_opts("alpha_beta", CS_COLL_ALLREDUCE, 8, 1u << 20, 1, 1, 1, 2, &t1, &w1, &c1,
                  &one_rank);
    CU_ASSERT_EQUAL(one_rank, 0);
    for (a = 0; a < 2; a++) {
        cs_topo *t = NULL;
        const cs_algo *ring;
        cs_coll_req req;
        cs_sched s;
        cs_err err;
        int p = a ? 16 : 64;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(a ? "dgx-h100-x2" : "tpu-v4", &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
        for (i = 0; i < 2; i++) {
            cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, 1u << 20);
            req.time_only = i;
            req.topo = t;
            CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
            CU_ASSERT_EQUAL(s.one_rank, i && !a);
            CU_ASSERT_EQUAL(s.turns, 0);      /* tpu-v4's cycle is not in rank order */
            CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, i ? &t1 : &t0, &w1, &err), 0);
            CU_ASSERT_EQUAL(w1, i && !a ? -1 : 0);
            cs_sched_fini(&s);
            /* Wanting #wrong, tpu-v4 runs every rank. */
            req.time_only = CS_REQ_TIME_WRONG;
            CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
            CU_ASSERT_EQUAL(s.one_rank, 0);
            cs_sched_fini(&s);
        }
        CU_ASSERT_EQUAL(t0, t1);
        cs_topo_free(t);
    }
}

/* A turned allreduce by hand on p = 5 ranks: rank 0 sends block -t to rank 1 at step t,
 * reducing for p-1 steps, copying for p-1 more. The data check follows rank 0 and turns
 * it: the whole ring is right (#wrong 0); stopped after the reduce-scatter every rank
 * lacks blocks (#wrong p); reducing one block twice counts contributions twice (p). */
static void t_turned_check(void)
{
    cs_topo *t = NULL;
    cs_err err;
    int p = 5, v, n, wrong;
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string("{\"kind\":\"alpha_beta\",\"ranks\":5,\"link\":"
                                              "{\"bandwidth_GBps\":1,\"latency_us\":1}}",
                                              "ab", &t, &err), 0);
    for (v = 0; v < 3; v++) {
        cs_sched s;
        int64_t prev = -1;
        int step;
        CU_ASSERT_EQUAL_FATAL(cs_sched_init(&s, CS_COLL_ALLREDUCE, p, 0, 500), 0);
        for (n = 0; n < p; n++)
            CU_ASSERT(cs_sched_chunk(&s, 100, n, -1) >= 0);
        s.one_rank = s.turns = 1;
        n = v == 1 ? p - 1 : 2 * (p - 1);
        for (step = 0; step < n; step++) {
            uint32_t dep = (uint32_t)prev;
            int block = ((v == 2 && step == 1 ? 0 : -step) % p + p) % p;
            prev = cs_sched_xfer_range(&s, 0, 1, step < p - 1 ? CS_OP_REDUCE : CS_OP_COPY,
                                       (uint32_t)block, 1, &dep, prev >= 0, step);
            CU_ASSERT_FATAL(prev >= 0);
        }
        CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, &err), 0);
        CU_ASSERT_EQUAL(wrong, v ? p : 0);
        cs_sched_fini(&s);
    }
    cs_topo_free(t);
}

/* A streamed ring runs the same events as the stored one: the same finish time to the
 * picosecond, the same #wrong (0), the same transfers, events and link visits, for
 * allreduce, allgather and reducescatter on both fabrics, rank counts that divide the
 * buffer and some that do not, 1 and 4 pieces per step. */
static void t_stream_same(void)
{
    static const char *const kinds[] = {"ring", "alpha_beta"};
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER,
                                    CS_COLL_REDUCESCATTER};
    static const int ps[] = {1, 2, 3, 5, 8, 33, 64};
    int a, b, i, k;
    for (a = 0; a < 2; a++)
        for (b = 0; b < 3; b++)
            for (i = 0; i < (int)(sizeof ps / sizeof ps[0]); i++)
                for (k = 1; k <= 4; k += 3) {
                    cs_sim_counters c0, c1;
                    cs_time t0, t1;
                    int w0, w1;
                    uint64_t S = ps[i] == 33 ? 1000003 : 1u << 24;
                    ring_run(kinds[a], colls[b], ps[i], S, k, 0, &t0, &w0, &c0);
                    ring_run(kinds[a], colls[b], ps[i], S, k, 1, &t1, &w1, &c1);
                    if (t0 != t1 || w0 != w1)
                        fprintf(stderr, "\n  %s %s p=%d k=%d: stored %lld ps #wrong %d, "
                                "streamed %lld ps #wrong %d\n", kinds[a], cs_coll_name(colls[b]),
                                ps[i], k, (long long)t0, w0, (long long)t1, w1);
                    CU_ASSERT_EQUAL(t0, t1);
                    CU_ASSERT_EQUAL(w0, 0);
                    CU_ASSERT_EQUAL(w1, 0);
                    CU_ASSERT_EQUAL(c0.transfers, c1.transfers);
                    CU_ASSERT_EQUAL(c0.events, c1.events);
                    CU_ASSERT_EQUAL(c0.link_visits, c1.link_visits);
                    CU_ASSERT(t0 > 0 || ps[i] == 1);
                }
}

/* What a streamed ring holds: a stored ring allreduce holds all 2p(p-1) transfers; a
 * streamed one only a window of live steps of pk transfers each (the step in flight, the
 * one being posted and the one produced ahead, plus done ones waiting to be dropped in
 * bulk; with k pipelined pieces about k steps are in flight at once), so its peak grows
 * as p: 256 -> 512 ranks at most 2.5x (2x now: 4p with 1 piece, 10pk with 4), and at
 * most 16 steps' worth. */
static void t_stream_window(void)
{
    cs_sim_counters c[2][2];
    cs_time t_ps;
    int wrong, i, k;
    for (k = 0; k < 2; k++)
        for (i = 0; i < 2; i++) {
            uint64_t p = 256u << i, kk = k ? 4 : 1;
            ring_run("ring", CS_COLL_ALLREDUCE, (int)p, 1u << 30, (int)kk, 1, &t_ps, &wrong,
                     &c[k][i]);
            CU_ASSERT_EQUAL(c[k][i].transfers, 2 * p * (p - 1) * kk);
            CU_ASSERT(c[k][i].peak_ops <= 16 * p * kk);
            CU_ASSERT(c[k][i].peak_ops >= 2 * p * kk);
        }
    fprintf(stderr, "\n  streamed ring allreduce, peak operations held: 256 ranks %llu, 512 "
            "ranks %llu (1 piece); %llu, %llu (4 pieces)\n",
            (unsigned long long)c[0][0].peak_ops, (unsigned long long)c[0][1].peak_ops,
            (unsigned long long)c[1][0].peak_ops, (unsigned long long)c[1][1].peak_ops);
    for (k = 0; k < 2; k++)
        CU_ASSERT(c[k][1].peak_ops * 2 <= c[k][0].peak_ops * 5);      /* <= 2.5x */
    ring_run("ring", CS_COLL_ALLREDUCE, 256, 1u << 30, 1, 0, &t_ps, &wrong, &c[0][0]);
    CU_ASSERT_EQUAL(c[0][0].peak_ops, 2 * 256 * 255);
}

/* A generator breaking the contract of sched.h: step t depends on step t-2. */
typedef struct bad_gen {
    cs_sched *s;
    int64_t first[3];        /* the id of each step's transfer */
} bad_gen;

static int bad_step(void *ctx, int t)
{
    bad_gen *g = ctx;
    uint32_t dep = t >= 2 ? (uint32_t)g->first[t - 2] : t ? (uint32_t)g->first[0] : 0;
    g->first[t] = cs_sched_xfer_range(g->s, t % 2, (t + 1) % 2, CS_OP_COPY, 0, 1, &dep,
                                      t > 0, t);
    return g->first[t] < 0 ? (int)g->first[t] : 0;
}

static const cs_sched_gen_ops bad_ops = {bad_step, NULL};

/* The generator's contract is checked as operations come: a dependency two steps back
 * fails the run with CS_EINVAL; a streamed schedule runs once (CS_ESTATE the second
 * time). */
static void t_stream_contract(void)
{
    cs_topo *t = NULL;
    cs_sched s;
    cs_sim *sim;
    cs_err err;
    bad_gen g = {&s, {-1, -1, -1}};
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string("{\"kind\":\"alpha_beta\",\"ranks\":2,\"link\":"
                                              "{\"bandwidth_GBps\":1,\"latency_us\":1}}",
                                              "ab", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_sched_init(&s, CS_COLL_ALLGATHER, 2, 0, 100), 0);
    CU_ASSERT(cs_sched_chunk(&s, 100, 0, -1) >= 0);
    CU_ASSERT_EQUAL_FATAL(cs_sched_set_gen(&s, &bad_ops, &g, 3), 0);
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, NULL, &err), CS_ESTATE);
    CU_ASSERT_EQUAL(cs_sim_run(sim, &err), CS_EINVAL);
    CU_ASSERT(g.first[0] == 0 && g.first[1] == 1 && g.first[2] == CS_EINVAL);
    cs_sim_free(sim);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"streamed ring: same times, #wrong, events and visits as stored", t_stream_same},
        {"streamed ring holds O(p) operations: 256 -> 512 ranks <= 2.5x", t_stream_window},
        {"streamed schedule: generator contract checked, runs once", t_stream_contract},
        {"symmetric rounds: one rank's transfers, the same finish time", t_symmetric},
        {"symmetric rounds: the data check follows rank 0 turned", t_turned_check},
        {"ring allreduce link visits 256 -> 512 ranks <= 4.5x", t_ring_visits},
        {"NCCL 16 channels <= 16x one channel's link visits", t_nccl_channels},
        {"data check of 1024 ranks; stopped past its limit", t_check_scale},
        {NULL, NULL},
    };
    return cs_test_add_suite("scale", cases);
}
