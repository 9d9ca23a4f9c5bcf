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

/* The forms of -g: 2:64 doubles (2, 4, 8, 16, 32, 64), 2:8:+2 adds (2, 4, 6, 8), 3:30:*3
 * multiplies (3, 9, 27), a list keeps its order; bad forms are usage errors on -g. */
static void test_rank_forms(void)
{
    static const char *const bad[] = {"0", "8:2", "2:8:-1", "a", "2:8:*1", "2,,4", "2:4,8", ""};
    int *v = NULL, n = 0;
    size_t i;
    cs_err err;
    CU_ASSERT_EQUAL(cs_run_parse_ranks("2:64", &v, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 6);
    if (n == 6)
        CU_ASSERT(v[0] == 2 && v[1] == 4 && v[5] == 64);
    free(v);
    CU_ASSERT_EQUAL(cs_run_parse_ranks("2:8:+2", &v, &n, &err), 0);
    CU_ASSERT(n == 4 && v[3] == 8 && v[1] == 4);
    free(v);
    CU_ASSERT_EQUAL(cs_run_parse_ranks("3:30:*3", &v, &n, &err), 0);
    CU_ASSERT(n == 3 && v[2] == 27);
    free(v);
    CU_ASSERT_EQUAL(cs_run_parse_ranks("8,2,3", &v, &n, &err), 0);
    CU_ASSERT(n == 3 && v[0] == 8 && v[2] == 3);
    free(v);
    CU_ASSERT_EQUAL(cs_run_parse_ranks("16", &v, &n, &err), 0);
    CU_ASSERT(n == 1 && v[0] == 16);
    free(v);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(cs_run_parse_ranks(bad[i], &v, &n, &err), CS_EUSAGE);
        CU_ASSERT_STRING_EQUAL(err.where, "-g");
    }
}

/* ring and parameter_server allreduce of S = 64 MiB = 67108864 B on ab-any.json (no rank
 * count; a = 1 us, b = 1/(100 GB/s) = 1e-5 us/B) for p = 2 .. 64: every sweep's time is
 * the textbook form, ring 2(p-1)(a + S/p b) and one server 2(p-1)(a + S b). p = 2: ring
 * 2(1 + 335.54432) = 673.08864 us, server 2(1 + 671.08864) = 1344.17728 us; p = 64: ring
 * 126(1 + 10.48576) = 1447.20576 us, server 126 x 672.08864 = 84683.16864 us. */
static void test_grid_closed_forms(void)
{
    static const char *const algos[] = {"ring", "parameter_server"};
    const double a = 1, b = 1e-5, S = 67108864;
    uint64_t size = 64ull << 20;
    int ranks[] = {2, 4, 8, 16, 32, 64}, i;
    cs_run_grid_req rq;
    cs_run_grid g;
    cs_err err;
    memset(&rq, 0, sizeof rq);
    rq.topo = cs_test_data("ok/ab-any.json");
    rq.ranks = ranks;
    rq.n_ranks = 6;
    rq.algos = algos;
    rq.n_algos = 2;
    rq.coll = CS_COLL_ALLREDUCE;
    rq.dtype = "float";
    rq.elt = 4;
    rq.redop = "sum";
    rq.sizes = &size;
    rq.n_sizes = 1;
    cs_run_cfg_init(&rq.cfg);
    CU_ASSERT_EQUAL_FATAL(cs_run_grid_run(&rq, &g, &err), 0);
    CU_ASSERT_EQUAL(g.n, 12);
    for (i = 0; i < g.n; i++) {
        const cs_sweep *sw = &g.sweeps[i];
        double p = ranks[i / 2];
        double want = i % 2 ? 2 * (p - 1) * (a + S * b) : 2 * (p - 1) * (a + S / p * b);
        CU_ASSERT_EQUAL(sw->ranks, ranks[i / 2]);
        CU_ASSERT_STRING_EQUAL(sw->algorithm, algos[i % 2]);
        CU_ASSERT_EQUAL(sw->n_rows, 1);
        CU_ASSERT(cs_close_rel(sw->rows[0].time_us, want, 1e-6));
        CU_ASSERT(sw->rows[0].has_closed_form && cs_close_rel(sw->rows[0].closed_form_us, want, 1e-6));
        CU_ASSERT_EQUAL(sw->rows[0].wrong, 0);
    }
    CU_ASSERT(cs_close_rel(g.sweeps[0].rows[0].time_us, 673.08864, 1e-9));
    CU_ASSERT(cs_close_rel(g.sweeps[11].rows[0].time_us, 84683.16864, 1e-9));
    cs_run_grid_fini(&g);
}

/* A file that gives "ranks" fixes the count: algo-ab4.json (4 ranks) runs -g 2,4 but
 * refuses 8 with run's error; a file without it (ab-any.json) builds any count. */
static void test_grid_fixed_ranks(void)
{
    static const char *const algos[] = {"ring"};
    uint64_t size = 1024;
    int ok[] = {2, 4}, too_many[] = {2, 8};
    cs_run_grid_req rq;
    cs_run_grid g;
    cs_topo *t = NULL;
    cs_err err;
    memset(&rq, 0, sizeof rq);
    rq.topo = cs_test_data("ok/algo-ab4.json");
    rq.ranks = ok;
    rq.n_ranks = 2;
    rq.algos = algos;
    rq.n_algos = 1;
    rq.coll = CS_COLL_ALLREDUCE;
    rq.dtype = "float";
    rq.elt = 4;
    rq.redop = "sum";
    rq.sizes = &size;
    rq.n_sizes = 1;
    cs_run_cfg_init(&rq.cfg);
    CU_ASSERT_EQUAL(cs_run_grid_run(&rq, &g, &err), 0);
    CU_ASSERT_EQUAL(g.n, 2);
    cs_run_grid_fini(&g);
    rq.ranks = too_many;
    CU_ASSERT_EQUAL(cs_run_grid_run(&rq, &g, &err), CS_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err.where, "-g");
    CU_ASSERT(strstr(err.msg, "8 ranks requested but topology") != NULL);
    CU_ASSERT(strstr(err.msg, "has 4") != NULL);
    CU_ASSERT_EQUAL(cs_topo_open_ranks(cs_test_data("ok/ab-any.json"), 1000, &t, &err), 0);
    CU_ASSERT(t && t->n_ranks == 1000);
    cs_topo_free(t);
    /* without a count from the caller the file says what is missing */
    CU_ASSERT(cs_topo_open(cs_test_data("ok/ab-any.json"), &t, &err) < 0);
    CU_ASSERT(strstr(err.msg, "-g") != NULL);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"size loop", test_sizes},
        {"sweep with a shared bottleneck and its link report", test_sweep_links},
        {"schedule of one size", test_schedule},
        {"rank forms of -g", test_rank_forms},
        {"ring and parameter server over 2..64 ranks equal their closed forms", test_grid_closed_forms},
        {"a file that gives ranks fixes the count", test_grid_fixed_ranks},
        {NULL, NULL},
    };
    return cs_test_add_suite("run", cases);
}
