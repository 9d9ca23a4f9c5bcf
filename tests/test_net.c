/* test_net.c: the network models and the executor. alpha_beta ports (a + b*l, single port,
 * full duplex), fluid fair sharing on bottleneck links, contention between jobs, compute
 * tasks, the reduction cost gamma and a connection's FIFO. Every expected time is derived
 * in the comments. */
#include "tests/testutil.h"
#include "sim/exec.h"
#include "topologies/topology.h"
#include "algorithms/coll.h"

#include <string.h>

#define AB3 "{\"kind\":\"alpha_beta\",\"ranks\":3,\"link\":{\"bandwidth_GBps\":100,\"latency_us\":1}}"

/* Schedule of independent copies, one chunk each of `bytes`, chunk owner = src. */
static void copies(cs_sched *s, int p, const int (*pairs)[2], int n, uint64_t bytes)
{
    int i;
    cs_sched_init(s, CS_COLL_SENDRECV, p, 0, bytes);
    for (i = 0; i < n; i++) {
        int64_t c = cs_sched_chunk(s, bytes, pairs[i][0], pairs[i][1]);
        cs_sched_xfer_range(s, pairs[i][0], pairs[i][1], CS_OP_COPY, (uint32_t)c, 1, NULL, 0, 0);
    }
}

static double run_us(const cs_topo *t, const cs_sched *s)
{
    cs_time t_ps = -1;
    cs_err err;
    int rc = cs_sim_once(t, s, NULL, NULL, &t_ps, NULL, &err);
    if (rc < 0)
        fprintf(stderr, "run failed: %s: %s\n", err.where, err.msg);
    CU_ASSERT_EQUAL(rc, 0);
    return cs_time_to_us(t_ps);
}

/* One message: a + b*l = 1 us + 1e6 B / 100 GB/s = 11 us. */
static void test_ab_single(void)
{
    cs_topo *t = cs_test_topo(AB3);
    cs_sched s;
    static const int pairs[][2] = {{0, 1}};
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    copies(&s, 3, pairs, 1, 1000000);
    CS_ASSERT_REL(run_us(t, &s), 11.0, 1e-9);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* Single port: two sends from one rank, or two receives at one rank, go one after the
 * other (22 us); a send and a receive at once are fine (full duplex, 11 us). */
static void test_ab_ports(void)
{
    cs_topo *t = cs_test_topo(AB3);
    cs_sched s;
    static const int fan_out[][2] = {{0, 1}, {0, 2}};
    static const int fan_in[][2] = {{0, 1}, {2, 1}};
    static const int duplex[][2] = {{0, 1}, {1, 0}};
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    copies(&s, 3, fan_out, 2, 1000000);
    CS_ASSERT_REL(run_us(t, &s), 22.0, 1e-9);
    cs_sched_fini(&s);
    copies(&s, 3, fan_in, 2, 1000000);
    CS_ASSERT_REL(run_us(t, &s), 22.0, 1e-9);
    cs_sched_fini(&s);
    copies(&s, 3, duplex, 2, 1000000);
    CS_ASSERT_REL(run_us(t, &s), 11.0, 1e-9);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* Fluid on a switch: 0->2 and 1->2 share the sw->2 direction and get 50 GB/s each:
 * 2 * 0.5 us + 1e6 B / 50 GB/s = 1 + 20 = 21 us. 0->1 alone: 1 + 10 = 11 us. */
static void test_fluid_share(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"switch\",\"ranks\":3,\"link\":{\"bandwidth_GBps\":100,"
                      "\"latency_us\":0.5}}");
    cs_sched s;
    static const int share[][2] = {{0, 2}, {1, 2}};
    static const int alone[][2] = {{0, 1}};
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    copies(&s, 3, share, 2, 1000000);
    CS_ASSERT_REL(run_us(t, &s), 21.0, 1e-9);
    cs_sched_fini(&s);
    copies(&s, 3, alone, 1, 1000000);
    CS_ASSERT_REL(run_us(t, &s), 11.0, 1e-9);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* A flow that ends early gives its share back: 0->2 with 1e6 B and 1->2 with 3e6 B share
 * sw->2. Both at 50 GB/s until the small one ends at 1 + 20 us (1e6 B each moved); the big
 * one then has 2e6 B left at 100 GB/s: 20 us more. Total 41 us. */
static void test_fluid_release(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"switch\",\"ranks\":3,\"link\":{\"bandwidth_GBps\":100,"
                      "\"latency_us\":0.5}}");
    cs_sched s;
    int64_t c0, c1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_sched_init(&s, CS_COLL_SENDRECV, 3, 0, 0);
    c0 = cs_sched_chunk(&s, 1000000, 0, 2);
    c1 = cs_sched_chunk(&s, 3000000, 1, 2);
    cs_sched_xfer_range(&s, 0, 2, CS_OP_COPY, (uint32_t)c0, 1, NULL, 0, 0);
    cs_sched_xfer_range(&s, 1, 2, CS_OP_COPY, (uint32_t)c1, 1, NULL, 0, 0);
    CS_ASSERT_REL(run_us(t, &s), 41.0, 1e-9);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

#define TWO_SWITCHES                                                                          \
    "{\"kind\":\"graph\",\"nodes\":[{\"name\":\"g0\",\"type\":\"gpu\"},"                      \
    "{\"name\":\"g1\",\"type\":\"gpu\"},{\"name\":\"g2\",\"type\":\"gpu\"},"                  \
    "{\"name\":\"g3\",\"type\":\"gpu\"},{\"name\":\"sw0\",\"type\":\"switch\"},"              \
    "{\"name\":\"sw1\",\"type\":\"switch\"}],\"links\":["                                     \
    "{\"from\":\"g0\",\"to\":\"sw0\",\"class\":\"nvlink\",\"bandwidth_GBps\":100,\"latency_us\":0.5}," \
    "{\"from\":\"g1\",\"to\":\"sw0\",\"class\":\"nvlink\",\"bandwidth_GBps\":100,\"latency_us\":0.5}," \
    "{\"from\":\"g2\",\"to\":\"sw1\",\"class\":\"nvlink\",\"bandwidth_GBps\":100,\"latency_us\":0.5}," \
    "{\"from\":\"g3\",\"to\":\"sw1\",\"class\":\"nvlink\",\"bandwidth_GBps\":100,\"latency_us\":0.5}," \
    "{\"from\":\"sw0\",\"to\":\"sw1\",\"class\":\"net\",\"bandwidth_GBps\":10,\"latency_us\":1}],"

/* The contention case: ranks g0, g2, g1, g3; sendrecv r -> r+1 sends g0->g2 and
 * g1->g3 across sw0->sw1, g2->g1 and g3->g0 across sw1->sw0: two flows per direction of the
 * 10 GB/s link, 5 GB/s each. 1e9 B: 0.5 + 1 + 0.5 us + 1e9 / 5e9 s = 2 us + 0.2 s. The link
 * report sees 2e9 B and 2 flows at peak in each direction. */
static void test_contention_sendrecv(void)
{
    cs_topo *t = cs_test_topo(TWO_SWITCHES "\"ranks\":[\"g0\",\"g2\",\"g1\",\"g3\"]}");
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_sim *sim;
    cs_job *job;
    const cs_link_stats *st;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_SENDRECV, 4, 1000000000ull);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_SENDRECV, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, &job, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, NULL), 0);
    CS_ASSERT_REL(cs_time_to_us(cs_job_end(job)), 2.0 + 200000.0, 1e-9);
    CU_ASSERT_EQUAL(cs_job_wrong(job), 0);
    st = cs_sim_link_stats(sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    /* link 4 is sw0-sw1: dlink 8 is sw0->sw1, 9 is sw1->sw0. */
    CS_ASSERT_REL(st[8].bytes, 2e9, 1e-12);
    CS_ASSERT_REL(st[9].bytes, 2e9, 1e-12);
    CU_ASSERT_EQUAL(st[8].peak_flows, 2);
    CU_ASSERT_EQUAL(st[9].peak_flows, 2);
    cs_sim_free(sim);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* A net of more links than one flat array takes (sim/fluid-private.h FL_FLAT_MAX, 2^18)
 * keeps them in pages made as flows touch them: a 140,000-rank ring (280,000 directed
 * links), copies 0 -> 1 and 70,000 -> 70,001 of 1e6 B at once on links of their own: 1 us +
 * 1e6 B / 100 GB/s = 11 us each; the statistics of the two links used are theirs (1e6 B,
 * one flow), an untouched link's are zero. */
static void test_paged_links(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"ring\",\"ranks\":140000,\"link\":"
                              "{\"bandwidth_GBps\":100,\"latency_us\":1}}");
    static const int pairs[][2] = {{0, 1}, {70000, 70001}};
    const int32_t *dl;
    const cs_link_stats *st;
    cs_sched s;
    cs_sim *sim;
    cs_job *job;
    cs_err err;
    int k;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_FATAL(2L * t->n_links > (1L << 18));
    copies(&s, 140000, pairs, 2, 1000000);
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, &job, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, &err), 0);
    CS_ASSERT_REL(cs_time_to_us(cs_job_end(job)), 11.0, 1e-9);
    st = cs_sim_link_stats(sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    for (k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL_FATAL(cs_topo_route(t, t->ranks[pairs[k][0]], t->ranks[pairs[k][1]],
                                            &dl, &err), 1);
        CS_ASSERT_REL(st[dl[0]].bytes, 1e6, 1e-12);
        CU_ASSERT_EQUAL(st[dl[0]].peak_flows, 1);
    }
    CU_ASSERT_EQUAL_FATAL(cs_topo_route(t, t->ranks[5], t->ranks[6], &dl, &err), 1);
    CU_ASSERT_EQUAL(st[dl[0]].bytes, 0);
    cs_sim_free(sim);
    /* a rank map naming a topology rank twice is refused (a bit per rank, not a scan) */
    {
        static int twice[140000];
        for (k = 0; k < 140000; k++)
            twice[k] = k;
        twice[139999] = 70001;
        CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, &err), 0);
        CU_ASSERT_EQUAL(cs_sim_add(sim, &s, twice, 0, &job, &err), CS_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rank 70001 appears twice"));
        cs_sim_free(sim);
    }
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* Two allreduces at once on disjoint groups {g0, g2} and {g1, g3} that share sw0-sw1.
 * Ring allreduce on 2 ranks: 2 steps, each rank sends S/2 per step, one flow per direction
 * per group. Alone, a step takes 2 us + 5e8 B / 10 GB/s = 2 us + 0.05 s; together the two
 * groups' flows halve the link: 2 us + 0.1 s per step, 2 steps = 4 us + 0.2 s each. */
static void test_two_jobs_share(void)
{
    cs_topo *t = cs_test_topo(TWO_SWITCHES "\"ranks\":[\"g0\",\"g1\",\"g2\",\"g3\"]}");
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_sim *sim;
    cs_job *ja, *jb;
    static const int ga[] = {0, 2}, gb[] = {1, 3};
    cs_time alone_ps;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 2, 1000000000ull);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, ga, NULL, &alone_ps, NULL, NULL), 0);
    CS_ASSERT_REL(cs_time_to_us(alone_ps), 4.0 + 100000.0, 1e-9);
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, ga, 0, &ja, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, gb, 0, &jb, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, NULL), 0);
    CS_ASSERT_REL(cs_time_to_us(cs_job_end(ja)), 4.0 + 200000.0, 1e-9);
    CS_ASSERT_REL(cs_time_to_us(cs_job_end(jb)), 4.0 + 200000.0, 1e-9);
    CU_ASSERT_EQUAL(cs_job_wrong(ja), 0);
    CU_ASSERT_EQUAL(cs_job_wrong(jb), 0);
    cs_sim_free(sim);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* A compute task holds its rank: 5 us of compute, then a transfer that depends on it
 * (5 + 11 = 16 us); a second compute task on the same rank queues behind the first. */
static void test_compute(void)
{
    cs_topo *t = cs_test_topo(AB3);
    cs_sched s;
    uint32_t dep;
    int64_t c;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_sched_init(&s, CS_COLL_SENDRECV, 3, 0, 0);
    dep = (uint32_t)cs_sched_compute(&s, 0, cs_time_from_us(5), NULL, 0, 0);
    c = cs_sched_chunk(&s, 1000000, 0, 1);
    cs_sched_xfer_range(&s, 0, 1, CS_OP_COPY, (uint32_t)c, 1, &dep, 1, 1);
    CS_ASSERT_REL(run_us(t, &s), 16.0, 1e-9);
    cs_sched_compute(&s, 0, cs_time_from_us(30), NULL, 0, 0);   /* 5 + 30 = 35 us */
    CS_ASSERT_REL(run_us(t, &s), 35.0, 1e-9);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* gamma: a reduce completes l/gamma after delivery: 1 + 10 + 1e6 B / 50 GB/s = 31 us. */
static void test_gamma(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"alpha_beta\",\"ranks\":2,\"reduce_GBps\":50,"
                      "\"link\":{\"bandwidth_GBps\":100,\"latency_us\":1}}");
    cs_sched s;
    int64_t c;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_sched_init(&s, CS_COLL_REDUCE, 2, 1, 1000000);
    c = cs_sched_chunk(&s, 1000000, -1, -1);
    cs_sched_xfer_range(&s, 0, 1, CS_OP_REDUCE, (uint32_t)c, 1, NULL, 0, 0);
    CS_ASSERT_REL(run_us(t, &s), 31.0, 1e-9);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* Observer: when each of a job's first 4 transfers was done, us. */
static void note_done(void *ctx, const cs_obs_event *ev)
{
    double *done_us = ctx;
    if (ev->kind == CS_OBS_XFER_DONE && ev->xfer < 4)
        done_us[ev->xfer] = cs_time_to_us(ev->t_ps);
}

/* A connection's FIFO (cs_sim_costs.fifo, NCCL mode): two pieces of 1e6 B from rank 0 to
 * rank 1 on a switch (two links of 0.5 us, 100 GB/s), both ready at 0. Shared (no FIFO,
 * or on different channels): both at 1 + 2e6 / 100 GB/s = 21 us. FIFO, one channel: the
 * first has the link alone, 1 + 10 = 11 us; the second's latency overlapped the first's
 * bandwidth phase and it starts at 11: done at 21 us = a + 2 l/B (a chained dependency,
 * the second waiting for the first's arrival, would give 2a + 2 l/B = 22 us). */
static void test_fifo(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"switch\",\"ranks\":3,\"link\":{\"bandwidth_GBps\":100,"
                      "\"latency_us\":0.5}}");
    static const int twice[][2] = {{0, 1}, {0, 1}};
    static const struct { int fifo, chan1; double first, second; } cases[] = {
        {0, 0, 21, 21}, {1, 0, 11, 21}, {1, 1, 21, 21},
    };
    int i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (i = 0; i < 3; i++) {
        cs_sim_costs c;
        cs_sim_opts so = {1, 0, &c};
        cs_sim *sim;
        cs_job *job;
        cs_sched s;
        cs_err err;
        double done_us[4] = {0, 0, 0, 0};
        memset(&c, 0, sizeof c);
        c.fifo = cases[i].fifo;
        copies(&s, 3, twice, 2, 1000000);
        s.xfers[1].channel = (uint8_t)cases[i].chan1;
        CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, &so, &err), 0);
        cs_sim_set_observer(sim, note_done, done_us);
        CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, &job, &err), 0);
        CU_ASSERT_EQUAL(cs_sim_run(sim, &err), 0);
        CS_ASSERT_REL(done_us[0], cases[i].first, 1e-12);
        CS_ASSERT_REL(done_us[1], cases[i].second, 1e-12);
        CS_ASSERT_REL(cs_time_to_us(cs_job_end(job)), 21.0, 1e-12);
        CU_ASSERT_EQUAL(cs_job_wrong(job), 0);
        cs_sim_free(sim);
        cs_sched_fini(&s);
    }
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"alpha_beta single message a + b*l", test_ab_single},
        {"alpha_beta single port, full duplex", test_ab_ports},
        {"fluid fair share on a bottleneck", test_fluid_share},
        {"fluid share released when a flow ends", test_fluid_release},
        {"sendrecv contention across a 10 GB/s link", test_contention_sendrecv},
        {"links in pages past 2^18", test_paged_links},
        {"two allreduces on disjoint groups share a link", test_two_jobs_share},
        {"compute tasks hold their rank", test_compute},
        {"reduction cost gamma", test_gamma},
        {"a connection's pieces one at a time (FIFO)", test_fifo},
        {NULL, NULL},
    };
    return cs_test_add_suite("net", cases);
}
