/* test_ring.c: ring allreduce/allgather/reducescatter and sendrecv against their closed
 * forms (a = 1 us, b = 1/(100 GB/s), S = 1 GiB, p = 8) on the ring and alpha_beta fabrics,
 * through the library and through `collsim run --format json`; #wrong = 0 for p = 1..17;
 * a deliberately broken schedule is caught by the data check; in NCCL mode a 64-rank
 * ring's busbw is monotone in size. */
#include "tests/testutil.h"
#include "sim/exec.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define A_S 1e-6
#define B_S (1.0 / 100e9)
#define GIB 1073741824.0

static cs_topo *load(const char *kind, int p)
{
    char buf[256];
    cs_topo *t = NULL;
    cs_err err;
    snprintf(buf, sizeof buf, "{\"kind\":\"%s\",\"ranks\":%d,\"link\":{\"bandwidth_GBps\":100,"
             "\"latency_us\":1}}", kind, p);
    if (cs_topo_load_string(buf, kind, &t, &err) < 0)
        fprintf(stderr, "load failed: %s: %s\n", err.where, err.msg);
    return t;
}

/* Simulated seconds of collective c with the ring algorithm on t. */
static double sim_s(const cs_topo *t, cs_coll c, int p, uint64_t S, int *wrong)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_time t_ps = -1;
    cs_err err;
    cs_coll_req_init(&req, c, p, S);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", c, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, &t_ps, wrong, &err), 0);
    cs_sched_fini(&s);
    return cs_time_to_s(t_ps);
}

static void closed_forms_on(const char *kind)
{
    int p = 8, wrong = -1;
    double S = GIB;
    cs_topo *t = load(kind, p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* allreduce: 2(p-1)(a + S/p b) */
    CS_ASSERT_REL(sim_s(t, CS_COLL_ALLREDUCE, p, (uint64_t)S, &wrong),
                  2 * (p - 1) * (A_S + S / p * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    /* allgather and reducescatter (S = total): (p-1)(a + S/p b) */
    CS_ASSERT_REL(sim_s(t, CS_COLL_ALLGATHER, p, (uint64_t)S, &wrong),
                  (p - 1) * (A_S + S / p * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    CS_ASSERT_REL(sim_s(t, CS_COLL_REDUCESCATTER, p, (uint64_t)S, &wrong),
                  (p - 1) * (A_S + S / p * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    cs_topo_free(t);
}

static void test_closed_ring(void) { closed_forms_on("ring"); }
static void test_closed_ab(void) { closed_forms_on("alpha_beta"); }

/* sendrecv on alpha_beta: a + S b. */
static void test_sendrecv(void)
{
    int wrong = -1;
    cs_topo *t = load("alpha_beta", 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CS_ASSERT_REL(sim_s(t, CS_COLL_SENDRECV, 8, (uint64_t)GIB, &wrong), A_S + GIB * B_S, 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    cs_topo_free(t);
}

/* --chunks k on alpha_beta: every port stays busy, so 2(p-1)(k a + S/p b). */
static void test_chunks(void)
{
    cs_topo *t = load("alpha_beta", 4);
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_time t_ps;
    int wrong = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4, 1 << 24);
    req.chunks = 4;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL(s.n_xfers, 2u * 3 * 4 * 4);      /* 2(p-1) steps x p ranks x k pieces */
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, &t_ps, &wrong, NULL), 0);
    CS_ASSERT_REL(cs_time_to_s(t_ps), 2 * 3 * (4 * A_S + (1 << 24) / 4.0 * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* --channels 2 on a bidirectional ring: channel 1 runs backwards, so the two channels use
 * different link directions and never share: 2(p-1)(a + S/(2p) b), half the bandwidth term
 * of one channel. On alpha_beta the ports serialise them: 2(p-1)(2a + S/p b). #wrong stays
 * 0 with 3 channels and sizes not divisible by anything. */
static void test_channels(void)
{
    cs_topo *ring = load("ring", 8), *ab = load("alpha_beta", 8);
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_time t_ps;
    int wrong = -1, p = 8;
    double S = GIB;
    CU_ASSERT_PTR_NOT_NULL_FATAL(ring);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ab);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, (uint64_t)S);
    req.channels = 2;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL(cs_sim_once(ring, &s, NULL, NULL, &t_ps, &wrong, NULL), 0);
    CS_ASSERT_REL(cs_time_to_s(t_ps), 2 * (p - 1) * (A_S + S / (2 * p) * B_S), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(cs_sim_once(ab, &s, NULL, NULL, &t_ps, &wrong, NULL), 0);
    CS_ASSERT_REL(cs_time_to_s(t_ps), 2 * (p - 1) * (2 * A_S + S / p * B_S), 1e-6);
    cs_sched_fini(&s);
    req.channels = 3;
    req.bytes = 1000003;
    for (int c = 0; c < 3; c++) {
        req.coll = c == 0 ? CS_COLL_ALLREDUCE : c == 1 ? CS_COLL_ALLGATHER : CS_COLL_REDUCESCATTER;
        CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
        CU_ASSERT_EQUAL(cs_sim_once(ring, &s, NULL, NULL, NULL, &wrong, NULL), 0);
        CU_ASSERT_EQUAL(wrong, 0);
        cs_sched_fini(&s);
    }
    cs_topo_free(ring);
    cs_topo_free(ab);
}

/* Ring moves 2(p-1)/p S per rank in allreduce: the schedule's total bytes are 2(p-1) S. */
static void test_bytes(void)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, 8000);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    CU_ASSERT_EQUAL(cs_sched_total_bytes(&s), 2u * 7 * 8000);
    cs_sched_fini(&s);
}

/* #wrong is 0 at every p from 1 to 17, for sizes 0, not divisible by p, and 1 MiB. */
static void test_wrong_zero(void)
{
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER, CS_COLL_REDUCESCATTER,
                                    CS_COLL_SENDRECV};
    static const uint64_t sizes[] = {0, 1000003, 1 << 20};
    int p, c, z, bad = 0;
    for (p = 1; p <= 17; p++) {
        cs_topo *t = load("alpha_beta", p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (c = 0; c < 4; c++)
            for (z = 0; z < 3; z++) {
                int wrong = -1;
                sim_s(t, colls[c], p, sizes[z], &wrong);
                if (wrong != 0) {
                    fprintf(stderr, "\n  %s p=%d S=%llu: #wrong %d\n", cs_coll_name(colls[c]), p,
                            (unsigned long long)sizes[z], wrong);
                    bad++;
                }
            }
        cs_topo_free(t);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* Break a correct schedule three ways; the check must notice each. */
static void test_broken(void)
{
    cs_topo *t = load("alpha_beta", 4);
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    int wrong = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4, 4096);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    /* 1. A reduce turned into a copy loses a contribution: every rank ends with a block
     *    that misses rank 0's part. */
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    s.xfers[0].op = CS_OP_COPY;
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, NULL), 0);
    CU_ASSERT_EQUAL(wrong, 4);
    cs_sched_fini(&s);
    /* 2. A copy in the all-gather turned into a reduce counts contributions twice at its
     *    receiver only. */
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    s.xfers[s.n_xfers - 1].op = CS_OP_REDUCE;
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, NULL), 0);
    CU_ASSERT_EQUAL(wrong, 1);
    cs_sched_fini(&s);
    /* 3. The last transfer delivered to the wrong rank: its intended receiver misses a
     *    block, and the extra copy is harmless. */
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, NULL), 0);
    s.xfers[s.n_xfers - 1].dst = (s.xfers[s.n_xfers - 1].dst + 1) % 4;
    if (s.xfers[s.n_xfers - 1].dst == s.xfers[s.n_xfers - 1].src)
        s.xfers[s.n_xfers - 1].dst = (s.xfers[s.n_xfers - 1].dst + 1) % 4;
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, NULL), 0);
    CU_ASSERT_EQUAL(wrong, 1);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* The check through the command: JSON time_us, algbw and busbw. */
static void json_case(const char *kind, const char *coll, double want_s, double factor)
{
    char cmd[1024], *out = NULL;
    json_t *root, *row;
    json_error_t jerr;
    double t_us, algbw, busbw;
    FILE *f;
    const char *path = "test_ring_topo.json";
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"kind\":\"%s\",\"ranks\":8,\"link\":{\"bandwidth_GBps\":100,\"latency_us\":1}}\n",
            kind);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s run %s --topo %s --algo ring --chunks 1 -b 1G -e 1G -g 8 "
             "--format json", CS_COLLSIM, coll, path);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    remove(path);
    root = json_loads(out ? out : "", 0, &jerr);
    free(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    row = json_array_get(json_object_get(root, "results"), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(row, "size_bytes")), 1073741824);
    t_us = json_number_value(json_object_get(row, "time_us"));
    algbw = json_number_value(json_object_get(row, "algbw_GBps"));
    busbw = json_number_value(json_object_get(row, "busbw_GBps"));
    CS_ASSERT_REL(t_us, want_s * 1e6, 1e-6);
    CS_ASSERT_REL(algbw, GIB / want_s / 1e9, 1e-6);
    CS_ASSERT_REL(busbw, algbw * factor, 1e-12);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(row, "wrong")), 0);
    json_decref(root);
}

static void test_cli_json(void)
{
    double S = GIB, p = 8;
    json_case("ring", "allreduce", 2 * (p - 1) * (A_S + S / p * B_S), 2 * (p - 1) / p);
    json_case("alpha_beta", "allreduce", 2 * (p - 1) * (A_S + S / p * B_S), 2 * (p - 1) / p);
    json_case("ring", "allgather", (p - 1) * (A_S + S / p * B_S), (p - 1) / p);
    json_case("alpha_beta", "reducescatter", (p - 1) * (A_S + S / p * B_S), (p - 1) / p);
    json_case("alpha_beta", "sendrecv", A_S + S * B_S, 1.0);
}

/* NCCL mode sends a connection's steps through one FIFO (sim/net_fluid_fifo.c): 64 MI325X
 * (calibration/mi325x-8node.json: 8 nodes, 8 RCCL rings, each leaving a node by its own
 * 50 GB/s NIC) run a ring allreduce whose busbw grows with size towards the NICs' 8 x 50
 * = 400 GB/s, never down (before the FIFO, pieces of consecutive steps shared a link and
 * it wobbled, 346-399 GB/s over 4-16 GiB), and is within 1% of it from 4 GiB. */
static void test_fifo_monotone(void)
{
    const char *spec = CS_TEST_DATA "/../../calibration/mi325x-8node.json";
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    const cs_algo *ring;
    double last_us = 0, last_bus = 0;
    int on, g;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(t->n_ranks, 64);
    for (g = 8; g <= 32; g += 3) {           /* 4 to 16 GiB in steps of 1.5 GiB */
        cs_coll_req req;
        cs_nccl_pick pk;
        double bus;
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 64, (uint64_t)g << 29);
        req.topo = t;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ring, &np, 0, &pk, &err), 0);
        bus = (double)req.bytes / (pk.time_us * 1e3) * 2 * 63 / 64;
        CU_ASSERT(pk.time_us > last_us);
        CU_ASSERT(bus >= last_bus);
        CU_ASSERT(bus <= 400.0 && bus > 396.0);
        last_us = pk.time_us;
        last_bus = bus;
    }
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"closed forms on ring", test_closed_ring},
        {"closed forms on alpha_beta", test_closed_ab},
        {"sendrecv a + S b", test_sendrecv},
        {"pipelined chunks", test_chunks},
        {"channels", test_channels},
        {"bytes moved 2(p-1)S", test_bytes},
        {"#wrong 0 for p = 1..17", test_wrong_zero},
        {"broken schedules are caught", test_broken},
        {"collsim run --format json", test_cli_json},
        {"NCCL mode: busbw monotone in size (FIFO)", test_fifo_monotone},
        {NULL, NULL},
    };
    return cs_test_add_suite("ring", cases);
}
