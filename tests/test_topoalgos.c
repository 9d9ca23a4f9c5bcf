/* test_topoalgos.c: topology-aware algorithms. torus allreduce on a 4x4 torus against
 * 2(X-1)(a + S/X b) + 2(Y-1)(a + S/(XY) b); torus allgather/reducescatter forms; #wrong 0 on
 * 2- and 3-dimensional grids; the algorithms refuse topologies they cannot use. */
#include "tests/testutil.h"
#include "sim/exec.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"

#define A_S 1e-6
#define B_S (1.0 / 100e9)

static double run_s(const cs_topo *t, const char *algo, cs_coll c, uint64_t S, int *wrong)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_time t_ps = -1;
    cs_err err;
    cs_coll_req_init(&req, c, t->n_ranks, S);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup(algo, c, &ops, NULL), 0);
    if (cs_algo_build(ops, &req, &s, &err) < 0) {
        fprintf(stderr, "build failed: %s: %s\n", err.where, err.msg);
        CU_FAIL("build");
        return -1;
    }
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, &t_ps, wrong, &err), 0);
    cs_sched_fini(&s);
    return cs_time_to_s(t_ps);
}

/* The form, S = 1 GiB, X = Y = 4: every ring step moves along one torus link with
 * no other flow on it (X rings use x-links, Y rings y-links, each in one direction). */
static void test_torus_closed(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"torus\",\"dims\":[4,4],\"link\":{\"bandwidth_GBps\":100,"
                      "\"latency_us\":1}}");
    double S = 1073741824.0, X = 4, Y = 4;
    int wrong = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CS_ASSERT_REL(run_s(t, "torus", CS_COLL_ALLREDUCE, (uint64_t)S, &wrong),
                  2 * (X - 1) * (A_S + S / X * B_S) + 2 * (Y - 1) * (A_S + S / (X * Y) * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    /* allgather: Y ring on S/(XY) first, then X ring on S/X (S = total). */
    CS_ASSERT_REL(run_s(t, "torus", CS_COLL_ALLGATHER, (uint64_t)S, &wrong),
                  (X - 1) * (A_S + S / X * B_S) + (Y - 1) * (A_S + S / (X * Y) * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    CS_ASSERT_REL(run_s(t, "torus", CS_COLL_REDUCESCATTER, (uint64_t)S, &wrong),
                  (X - 1) * (A_S + S / X * B_S) + (Y - 1) * (A_S + S / (X * Y) * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    cs_topo_free(t);
}

/* Data stays right on other shapes and awkward sizes. */
static void test_torus_wrong(void)
{
    static const char *const shapes[] = {"[4,4,4]", "[3,5]", "[2,3,2]", "[7]"};
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER, CS_COLL_REDUCESCATTER};
    static const uint64_t sizes[] = {0, 1000003, 1 << 20};
    size_t i, c, z;
    for (i = 0; i < 4; i++) {
        char json[256];
        cs_topo *t;
        snprintf(json, sizeof json, "{\"kind\":\"torus\",\"dims\":%s,\"link\":"
                 "{\"bandwidth_GBps\":100,\"latency_us\":1}}", shapes[i]);
        t = cs_test_topo(json);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (c = 0; c < 3; c++)
            for (z = 0; z < 3; z++) {
                int wrong = -1;
                run_s(t, "torus", colls[c], sizes[z], &wrong);
                CU_ASSERT_EQUAL(wrong, 0);
            }
        cs_topo_free(t);
    }
}

/* in_network with K pieces on a switch: piece j goes up in a + S/(KB) after piece j-1, comes
 * down once every rank's piece j is in and piece j-1 is down: (K+1)(a + S/(KB)). Per rank
 * S up and S down (the schedule's bytes: 2 p S). */
static void test_in_network(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"switch\",\"ranks\":8,\"sharp\":true,\"link\":"
                      "{\"bandwidth_GBps\":100,\"latency_us\":1}}");
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_time t_ps;
    int wrong = -1, p, K = 4;
    double S = 4e8;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, (uint64_t)S);
    req.topo = t;
    req.chunks = K;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("in_network", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL(cs_sched_total_bytes(&s), (uint64_t)(2 * 8 * S));
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, &t_ps, &wrong, NULL), 0);
    CS_ASSERT_REL(cs_time_to_s(t_ps), (K + 1) * (A_S + S / K * B_S), 1e-9);
    CU_ASSERT_EQUAL(wrong, 0);
    cs_sched_fini(&s);
    for (p = 2; p <= 8; p++) {
        static const uint64_t sizes[] = {0, 1000003, 1 << 20};
        int z;
        for (z = 0; z < 3; z++) {
            cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, sizes[z]);
            req.topo = t;
            CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
            CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, NULL), 0);
            CU_ASSERT_EQUAL(wrong, 0);
            cs_sched_fini(&s);
        }
    }
    cs_topo_free(t);
}

/* On two DGX H100 nodes (rail-optimised NDR, 50 GB/s per NIC), flat ring allreduce of 1 GiB
 * crosses the network with the whole 2(p-1)/p S per rank through one NIC per crossing, so its
 * busiest link is a network link; hierarchical sends only S/8 per rank over the network, on
 * all 8 rails at once, and wins. Hierarchical allgather/reducescatter keep #wrong 0. */
static void test_hierarchical(void)
{
    cs_topo *t = NULL;
    cs_coll_req req;
    const cs_algo *ring, *hier;
    cs_sched s;
    cs_sim *sim;
    cs_job *job;
    const cs_link_stats *st;
    double t_ring, t_hier, best = -1;
    int wrong = -1, d, best_d = -1, c;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, NULL), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 16, 1u << 30);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("hierarchical", CS_COLL_ALLREDUCE, &hier, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, &job, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, NULL), 0);
    t_ring = cs_time_to_s(cs_job_end(job));
    st = cs_sim_link_stats(sim);
    for (d = 0; d < 2 * t->n_links; d++) {
        double u = st[d].bytes / t->links[d >> 1].bw_GBps;
        if (u > best) {
            best = u;
            best_d = d;
        }
    }
    CU_ASSERT_STRING_EQUAL(t->links[best_d >> 1].cls, "ib_ndr");
    cs_sim_free(sim);
    cs_sched_fini(&s);
    t_hier = run_s(t, "hierarchical", CS_COLL_ALLREDUCE, 1u << 30, &wrong);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT(t_hier < t_ring / 2);
    for (c = 0; c < 3; c++) {
        cs_coll coll = c == 0 ? CS_COLL_ALLREDUCE : c == 1 ? CS_COLL_ALLGATHER : CS_COLL_REDUCESCATTER;
        run_s(t, "hierarchical", coll, 1000003, &wrong);
        CU_ASSERT_EQUAL(wrong, 0);
    }
    cs_topo_free(t);
}

/* nvls on one switch of g = 4 ranks, 10 GB/s and 0.5 us per link, S = 400000 B: the 100000 B
 * shards are one piece each (<= 128 KiB). Up: every rank sends its 4 shards at once, S
 * over its link: 40 us; the switch's sum of shard h to rank h: 10 us; rank h uploads the
 * total: 10 us; the switch multicasts it, 3 shards into every link: 30 us. Four legs of
 * 0.5 us: 92 us = 4 a + (2 + 1/g) S b. #wrong 0 on one, two and three nodes (the exchange
 * and the chain across nodes), any size. */
static void test_nvls(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"switch\",\"ranks\":4,\"sharp\":true,\"link\":"
                      "{\"bandwidth_GBps\":10,\"latency_us\":0.5}}");
    static const char *const cl = "{\"kind\":\"cluster\",\"nodes\":%d,\"node\":{\"kind\":"
        "\"node\",\"gpus\":4,\"nvlink\":{\"topology\":\"switch\",\"nvls\":true,\"links\":1,"
        "\"bandwidth_GBps\":100,\"latency_us\":0.5},\"nics\":4,\"nic_attach\":\"gpu\","
        "\"nic\":{\"bandwidth_GBps\":10,\"latency_us\":1}},\"fabric\":{\"type\":\"rail\","
        "\"link\":{\"bandwidth_GBps\":10,\"latency_us\":1}}}";
    static const uint64_t sizes[] = {0, 7, 1000003, 4u << 20};
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_time t_ps;
    int wrong = -1, n, z;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("nvls", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4, 400000);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, &t_ps, &wrong, NULL), 0);
    CS_ASSERT_REL(cs_time_to_us(t_ps), 92.0, 1e-9);
    CU_ASSERT_EQUAL(wrong, 0);
    cs_sched_fini(&s);
    cs_topo_free(t);
    for (n = 1; n <= 3; n++) {
        char js[1024];
        snprintf(js, sizeof js, cl, n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t = cs_test_topo(js));
        for (z = 0; z < 4; z++) {
            cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4 * n, sizes[z]);
            req.topo = t;
            CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
            wrong = -1;
            CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, NULL), 0);
            CU_ASSERT_EQUAL(wrong, 0);
            cs_sched_fini(&s);
        }
        cs_topo_free(t);
    }
}

/* torus and hierarchical need the structure they exploit. */
static void test_refuse(void)
{
    cs_topo *t = cs_test_topo("{\"kind\":\"alpha_beta\",\"ranks\":8,\"link\":{\"bandwidth_GBps\":100,"
                      "\"latency_us\":1}}");
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, 1024);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("torus", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL(cs_algo_build(ops, &req, &s, &err), CS_EUNSUPP);
    CU_ASSERT_STRING_EQUAL(err.msg, "torus needs a grid topology (kind torus, mesh or hypercube)");
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("hierarchical", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL(cs_algo_build(ops, &req, &s, &err), CS_EUNSUPP);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("in_network", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL(cs_algo_build(ops, &req, &s, &err), CS_EUNSUPP);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("nvls", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL(cs_algo_build(ops, &req, &s, &err), CS_EUNSUPP);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nvls needs a link-level fabric"));
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"torus closed forms 4x4", test_torus_closed},
        {"torus #wrong 0 on grids", test_torus_wrong},
        {"hierarchical beats ring across nodes", test_hierarchical},
        {"in_network pipelined through the switch", test_in_network},
        {"nvls closed form and #wrong 0 on 1-3 nodes", test_nvls},
        {"refuse topologies without the structure", test_refuse},
        {NULL, NULL},
    };
    return cs_test_add_suite("topoalgos", cases);
}
