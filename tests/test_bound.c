/* test_bound.c: the link-load lower bound of a schedule (sim/bound.h) by hand. Its use, the
 * candidates a plan's collective leaves unsimulated, is counted in test_memo (every
 * candidate simulated or bounded) and checked in test_compose (a plan's collective on a
 * group takes the time `collsim run`, which simulates every candidate, gives). */
#include "tests/testutil.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "topologies/topology.h"
#include "algorithms/coll.h"

#define RING4 "{\"kind\":\"ring\",\"ranks\":4,\"link\":{\"bandwidth_GBps\":10,\"latency_us\":1}}"
#define AB4                                                                                 \
    "{\"kind\":\"alpha_beta\",\"ranks\":4,\"link\":{\"bandwidth_GBps\":10,\"latency_us\":1}}"

static void ring_allreduce(cs_sched *s, uint64_t bytes)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4, bytes);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, s, NULL), 0);
}

/* Ring allreduce of S = 4e6 B on 4 ranks of a bidirectional ring at 10 GB/s: every rank
 * sends 2(p-1)/p S = 6e6 B to the next over its one link r -> r+1, so each of the 4
 * forward links carries 6e6 B: 6e6 / 10e9 = 0.6 ms. Loaded like 2 bytes per byte (bw_eff
 * 0.5): 1.2 ms. The simulation adds 6 latencies of 1 us to the first: 0.606 ms >= 0.6. */
static void test_ring_bound(void)
{
    cs_topo *t = cs_test_topo(RING4);
    cs_sched s;
    cs_time t_ps;
    double lb = -1;
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ring_allreduce(&s, 4000000);
    CU_ASSERT_EQUAL(cs_sched_link_bound(t, &s, NULL, 1, NULL, &lb, &err), 0);
    CS_ASSERT_REL(lb, 0.6e-3, 1e-12);
    CU_ASSERT_EQUAL(cs_sched_link_bound(t, &s, NULL, 2, NULL, &lb, &err), 0);
    CS_ASSERT_REL(lb, 1.2e-3, 1e-12);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, &t_ps, NULL, &err), 0);
    CS_ASSERT_REL(cs_time_to_s(t_ps), 0.6e-3 + 6e-6, 1e-9);
    CU_ASSERT(cs_time_to_s(t_ps) >= 0.6e-3);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* A rank map moves the load, not its size: ranks 0..3 on topology ranks 3, 2, 1, 0 send
 * r -> r-1 on the ring, each of the 4 backward links 6e6 B: 0.6 ms again, also through a
 * caller's scratch, which it leaves zero. alpha_beta has no links: no bound (0). */
static void test_map_and_ab(void)
{
    cs_topo *t = cs_test_topo(RING4), *ab = cs_test_topo(AB4);
    static const int rev[4] = {3, 2, 1, 0};
    cs_sched s;
    double lb = -1;
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ab);
    ring_allreduce(&s, 4000000);
    CU_ASSERT_EQUAL(cs_sched_link_bound(t, &s, rev, 1, NULL, &lb, &err), 0);
    CS_ASSERT_REL(lb, 0.6e-3, 1e-12);
    /* with a caller's scratch (8 directed links): the same bound, the scratch left zero */
    {
        double scratch[8] = {0};
        int i;
        CU_ASSERT_EQUAL_FATAL(t->n_links, 4);
        CU_ASSERT_EQUAL(cs_sched_link_bound(t, &s, rev, 1, scratch, &lb, &err), 0);
        CS_ASSERT_REL(lb, 0.6e-3, 1e-12);
        for (i = 0; i < 8; i++)
            CU_ASSERT_EQUAL(scratch[i], 0);
    }
    CU_ASSERT_EQUAL(cs_sched_link_bound(ab, &s, NULL, 1, NULL, &lb, &err), 0);
    CU_ASSERT_EQUAL(lb, 0);
    cs_sched_fini(&s);
    cs_topo_free(t);
    cs_topo_free(ab);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"ring allreduce: 2(p-1)/p S on each link", test_ring_bound},
        {"rank map; alpha_beta has none", test_map_and_ab},
        {NULL, NULL},
    };
    return cs_test_add_suite("bound", cases);
}
