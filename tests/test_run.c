/* test_run.c: the run driver (algorithms/run.h) that `collsim run`, explain and plans share:
 * nccl-tests' size loop, a sweep on a fabric with a shared bottleneck and its link report,
 * and the schedule of one size. Every expected number is derived in a comment. */
#include "tests/testutil.h"
#include "algorithms/run.h"
#include "topologies/topology.h"

#include <stdlib.h>
#include <string.h>

/* -b 8 -e 1G -f 8: 8 * 8^k <= 2^30 for k = 0..9 (2^3 .. 2^30), ten sizes; -i 100 from 0 to
 * 250: 0, 100, 200; a factor that would overflow stops the loop. */
static void test_sizes(void)
{
    uint64_t *v = NULL;
    int n = 0;
    cs_err err;
    CU_ASSERT_EQUAL(cs_run_sizes(8, 1ull << 30, 8, 0, &v, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 10);
    if (n == 10) {
        CU_ASSERT_EQUAL(v[0], 8);
        CU_ASSERT_EQUAL(v[9], 1ull << 30);
    }
    free(v);
    CU_ASSERT_EQUAL(cs_run_sizes(0, 250, 0, 100, &v, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 3);
    if (n == 3)
        CU_ASSERT_EQUAL(v[2], 200);
    free(v);
    CU_ASSERT_EQUAL(cs_run_sizes(1ull << 62, UINT64_MAX, 4, 0, &v, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 1);
    free(v);
}

/* two-switches.json: g0, g1 on sw0 and g2, g3 on sw1 (100 GB/s, 0.5 us each), sw0-sw1 at
 * 10 GB/s and 1 us; rank order g0, g2, g1, g3, so every ring hop crosses the net link and
 * each direction carries two flows at once (5 GB/s each). Ring allreduce of S = 4 MiB:
 * 2(p-1) = 6 steps of S/4 = 1048576 B, each 2 us of route latency + 1048576 / 5e9 s =
 * 209.7152 us: 6 x 211.7152 = 1270.2912 us. The busiest link carries 6 x 2 x 1048576 =
 * 12582912 B in that time: utilisation 12582912 / (10e9 x 1270.2912e-6) = 0.990553. */
static void test_sweep_links(void)
{
    cs_topo *t = NULL;
    cs_run_cfg cfg;
    cs_sweep sw;
    cs_err err;
    uint64_t size = 4u << 20;
    char bn[256];
    memset(&sw, 0, sizeof sw);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(cs_test_data("ok/two-switches.json"), &t, &err), 0);
    cs_run_cfg_init(&cfg);
    cfg.algo = "ring";
    sw.coll = CS_COLL_ALLREDUCE;
    CU_ASSERT_EQUAL(cs_run_sweep(&cfg, t, 4, 4, &size, 1, 1, &sw, bn, sizeof bn, &err), 0);
    CU_ASSERT_EQUAL_FATAL(sw.n_rows, 1);
    CS_ASSERT_REL(sw.rows[0].time_us, 1270.2912, 1e-6);
    CU_ASSERT_EQUAL(sw.rows[0].wrong, 0);
    CU_ASSERT_STRING_EQUAL(sw.rows[0].algorithm, "ring");
    CU_ASSERT(sw.n_links >= 2);
    CU_ASSERT_STRING_EQUAL(sw.links[0].cls, "net");
    CS_ASSERT_REL(sw.links[0].bytes, 12582912.0, 1e-12);
    CS_ASSERT_REL(sw.links[0].utilisation, 12582912.0 / (10e9 * 1270.2912e-6), 1e-6);
    CU_ASSERT_PTR_EQUAL(sw.bottleneck, bn);
    CU_ASSERT(strstr(bn, "(net, 10 GB/s)") != NULL);
    cs_sweep_fini(&sw);
    cs_topo_free(t);
}

/* The schedule of one size on the bare fabric: ring allreduce on 4 ranks moves 2(p-1)p =
 * 24 transfers, with no executor costs. */
static void test_schedule(void)
{
    cs_topo *t = NULL;
    cs_run_cfg cfg;
    cs_sched s;
    cs_sim_costs costs;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(cs_test_data("ok/algo-ab4.json"), &t, &err), 0);
    cs_run_cfg_init(&cfg);
    cfg.algo = "ring";
    CU_ASSERT_EQUAL_FATAL(cs_run_schedule(&cfg, t, CS_COLL_ALLREDUCE, 4, 4, 1 << 20, &s, &costs,
                                          &err), 0);
    CU_ASSERT_EQUAL(s.n_xfers, 24);
    CU_ASSERT_EQUAL(costs.launch_us, 0.0);
    CU_ASSERT_EQUAL(costs.bw_eff, 0.0);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"size loop", test_sizes},
        {"sweep with a shared bottleneck and its link report", test_sweep_links},
        {"schedule of one size", test_schedule},
        {NULL, NULL},
    };
    return cs_test_add_suite("run", cases);
}
