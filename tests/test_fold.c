/* test_fold.c: issue 11, multi-node presets at speed. A ring over N identical nodes on
 * rails (or one switch) simulated on one node (algorithms/nccl/fold.c) gives the time of
 * the full simulation: clusters of 2, 3 and 4 DGX H100 nodes, 16 channels, the three
 * protocols, allreduce, allgather and reducescatter; with and without twin channels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "sim/exec.h"
#include "algorithms/nccl/fold.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

/* A cluster of dgx-h100 nodes on rails or one switch, 16 channels; path in buf. */
static const char *cluster(int nodes, const char *fabric, char *buf, size_t n)
{
    char text[512];
    snprintf(text, sizeof text, "{\"kind\":\"cluster\",\"nodes\":%d,\"node\":\"dgx-h100\","
             "\"fabric\":{\"type\":\"%s\",\"link\":{\"class\":\"ib_ndr\","
             "\"bandwidth_GBps\":50,\"latency_us\":1.5}},\"nccl\":{\"channels\":16}}",
             nodes, fabric);
    return cs_test_json_file(text, buf, n);
}

static void t_fold_equals_full(void)
{
    static const struct { int nodes; const char *fabric; } cases[] = {
        {2, "rail"}, {3, "rail"}, {4, "rail"}, {3, "switch"}};
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER,
                                    CS_COLL_REDUCESCATTER};
    size_t i, c;
    int pr, twin;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char spec[512];
        cs_topo *t = NULL;
        cs_err err;
        cs_nccl_params np;
        const cs_algo *ring;
        int on;
        cluster(cases[i].nodes, cases[i].fabric, spec, sizeof spec);
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
        for (c = 0; c < 3; c++)
            for (pr = 0; pr < CS_PROTO_COUNT; pr++)
                for (twin = 0; twin < 2; twin++) {
                    cs_coll_req req;
                    cs_nccl_pick full, fold;
                    cs_time tf = 0;
                    cs_coll_req_init(&req, colls[c], t->n_ranks, 48u << 20);
                    req.topo = t;
                    np.force_proto = pr;
                    np.all_channels = !twin;
                    np.no_fold = 1;
                    CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &full, &err), 0);
                    np.no_fold = 0;
                    CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &fold, &err), 0);
                    CU_ASSERT_EQUAL(full.channels, fold.channels);
                    CU_ASSERT_EQUAL(full.chunks, fold.chunks);
                    CS_ASSERT_REL(fold.time_us, full.time_us, 1e-9);
                    /* And it did fold: the request as mode.c builds it. */
                    req.channels = fold.channels;
                    req.chunks = fold.chunks;
                    CU_ASSERT_EQUAL(cs_nccl_fold_ring(&req, t, NULL, 1.0, 0, &tf, &err), 1);
                    if (c == 0 && twin)
                        fprintf(stderr, "\n  %d x dgx-h100 %s %s: full %.3f us, folded %.3f us",
                                cases[i].nodes, cases[i].fabric,
                                cs_proto_name((cs_proto)pr), full.time_us, fold.time_us);
                }
        cs_topo_free(t);
        unlink(spec);
    }
}

/* A size the channels and ranks do not divide (1 000 000 B on 3 x 8 ranks, 8 channels:
 * blocks of 5208 and 5209 B, pieces one byte apart): folded only when asked, then within a
 * byte's time per step of the full simulation - 46 steps, a byte at >= 1 GB/s is 1 ns, so
 * within 0.05 us, far under 1e-4 of the time. */
static void t_fold_uneven(void)
{
    char spec[64];
    cs_topo *t = NULL;
    cs_err err;
    cs_coll_req req;
    const cs_algo *ring;
    cs_sched s;
    cs_sim_opts so = {0, 0, NULL};
    cs_time full = 0, fold = 0;
    int wrong;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(cluster(3, "rail", spec, sizeof spec), &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 1000000);
    req.topo = t;
    req.channels = 8;
    req.chunks = 2;
    CU_ASSERT_EQUAL(cs_nccl_fold_ring(&req, t, NULL, 1.0, 0, &fold, &err), 0);
    CU_ASSERT_EQUAL(cs_nccl_fold_ring(&req, t, NULL, 1.0, 1, &fold, &err), 1);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ring, &req, &s, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, &so, &full, &wrong, &err), 0);
    cs_sched_fini(&s);
    fprintf(stderr, "\n  3 x dgx-h100, 1000000 B, 8 channels: full %.6f us, folded %.6f us",
            cs_time_to_us(full), cs_time_to_us(fold));
    CU_ASSERT(llabs((long long)(fold - full)) <= 50000);   /* 0.05 us in ps */
    CS_ASSERT_REL(cs_time_to_us(fold), cs_time_to_us(full), 1e-4);
    cs_topo_free(t);
    unlink(spec);
}

/* The preset itself: dgx-h100-x16 (16 nodes, 128 ranks, 16 channels), allreduce of 64 MiB
 * with Simple, folded and in full. */
static void t_fold_x16(void)
{
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    const cs_algo *ring;
    cs_coll_req req;
    cs_nccl_pick full, fold;
    int on;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x16", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x16", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 64u << 20);
    req.topo = t;
    np.force_proto = CS_PROTO_SIMPLE;
    np.no_fold = 1;
    CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &full, &err), 0);
    np.no_fold = 0;
    CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &fold, &err), 0);
    CU_ASSERT_EQUAL(fold.channels, 16);
    fprintf(stderr, "\n  dgx-h100-x16 Simple 64 MiB: full %.3f us, folded %.3f us", full.time_us,
            fold.time_us);
    CS_ASSERT_REL(fold.time_us, full.time_us, 1e-9);
    cs_topo_free(t);
}

/* NCCL's trees across nodes, one tree per channel (channel c tree 0, c + C/2 tree 1, on
 * chain c): with 32 channels on 8-GPU nodes pair c + 8 repeats pair c's trees, so 8 of 16
 * pairs with half the bytes and half of every link's bandwidth take the time of all 16;
 * and the data check passes (every rank ends with the full sum). 2 and 3 nodes, three
 * protocols, 16 MiB (at most 64 pieces a tree: simulated, not extrapolated). */
static void t_tree_twins(void)
{
    int nodes, pr;
    for (nodes = 2; nodes <= 3; nodes++) {
        char spec[64];
        cs_topo *t = NULL;
        cs_err err;
        cs_nccl_params np;
        const cs_algo *tree;
        int on;
        cluster(nodes, "rail", spec, sizeof spec);
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("double_binary_tree", CS_COLL_ALLREDUCE, &tree,
                                             NULL), 0);
        for (pr = 0; pr < CS_PROTO_COUNT; pr++) {
            cs_coll_req req;
            cs_nccl_pick full, twin;
            cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 16u << 20);
            req.topo = t;
            np.force_proto = pr;
            np.channels = 32;
            np.all_channels = 1;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 1, &full, &err), 0);
            np.all_channels = 0;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 1, &twin, &err), 0);
            CU_ASSERT_EQUAL(full.channels, 32);
            CU_ASSERT_EQUAL(twin.channels, 32);
            CU_ASSERT_EQUAL(full.wrong, 0);
            CU_ASSERT_EQUAL(twin.wrong, 0);
            CS_ASSERT_REL(twin.time_us, full.time_us, 1e-9);
        }
        cs_topo_free(t);
        unlink(spec);
    }
}

/* Where the nodes are not alike for the ring, nothing folds: a fat tree whose leaves split
 * the nodes (2 NICs a leaf: rails of a node on different leaves, node pairs differ), a
 * size the blocks do not divide, one node. */
static void t_fold_refuses(void)
{
    char ftp[64];
    const char *ft = "{\"kind\":\"cluster\",\"nodes\":4,\"node\":\"dgx-h100\",\"fabric\":"
                     "{\"type\":\"fat_tree\",\"spines\":2,\"nics_per_leaf\":12,\"oversubscription\":4,"
                     "\"link\":{\"class\":\"ib_ndr\",\"bandwidth_GBps\":50,\"latency_us\":1.5}}}";
    char spec[512];
    cs_topo *t = NULL;
    cs_err err;
    cs_coll_req req;
    cs_time tf;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(cs_test_json_file(ft, ftp, sizeof ftp), &t, &err), 0);
    unlink(ftp);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 32u << 20);
    req.topo = t;
    req.channels = 8;
    CU_ASSERT_EQUAL(cs_nccl_fold_ring(&req, t, NULL, 1.0, 0, &tf, &err), 0);
    cs_topo_free(t);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(cluster(3, "rail", spec, sizeof spec), &t, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 1000000);
    req.topo = t;
    req.channels = 8;
    CU_ASSERT_EQUAL(cs_nccl_fold_ring(&req, t, NULL, 1.0, 0, &tf, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, 8u << 20);
    req.topo = t;
    req.channels = 8;
    CU_ASSERT_EQUAL(cs_nccl_fold_ring(&req, t, NULL, 1.0, 0, &tf, &err), 0);
    cs_topo_free(t);
    unlink(spec);
}

int cs_test_register(void)
{
    static const cs_test_case tc[] = {
        {"a folded multi-node ring takes the full simulation's time", t_fold_equals_full},
        {"nothing folds where the nodes differ", t_fold_refuses},
        {"tree channels: twins merged, data checked", t_tree_twins},
        {"dgx-h100-x16 folded equals full", t_fold_x16},
        {"uneven sizes fold within a byte's time per step", t_fold_uneven},
        {NULL, NULL}};
    return cs_test_add_suite("fold", tc) ? -1 : 0;
}
