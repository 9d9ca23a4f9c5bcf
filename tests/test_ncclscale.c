/* test_ncclscale.c: NCCL's and RCCL's behaviour at scale (issues 25, 28; branch ncclscale):
 * the channels RCCL's ring search gives across nodes (net_channels), NVLS's efficiency on
 * NVLink only, and the rack placement of GB300 NVL72 clusters. Every expected number is
 * derived by hand in a comment. */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/nccl/nvlstree.h"
#include "topologies/topology.h"

/* One NCCL-mode allreduce of S bytes on ranks 0..p-1 of a preset (algo NULL = NCCL's
 * choice): the pick; its busbw in *bw. */
static cs_nccl_pick allreduce(const char *preset, const char *algo, int p, uint64_t S,
                              double *bw)
{
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    cs_coll_req req;
    cs_nccl_pick pick;
    const cs_algo *ops = NULL;
    int on;
    memset(&pick, 0, sizeof pick);
    *bw = 0;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(preset, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(preset, NULL, 0, &np, &on, &err), 0);
    if (algo)
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup(algo, CS_COLL_ALLREDUCE, &ops, NULL), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, S);
    req.topo = t;
    if (cs_nccl_simulate(&req, t, ops, &np, 0, &pick, &err) == 0)
        *bw = (double)S / (pick.time_us * 1e3) * 2.0 * (p - 1) / p;
    else
        CU_FAIL("simulation failed");
    cs_topo_free(t);
    return pick;
}

/* "net_channels": read, 0 by default, refused by name out of 0..64. */
static void t_net_channels_json(void)
{
    cs_nccl_params p;
    cs_err err;
    CU_ASSERT_EQUAL(cs_test_nccl_json("{}", &p, &err), 0);
    CU_ASSERT_EQUAL(p.net_channels, 0);
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"channels\": 6, \"net_channels\": 8}", &p, &err), 0);
    CU_ASSERT_EQUAL(p.channels, 6);
    CU_ASSERT_EQUAL(p.net_channels, 8);
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"net_channels\": 65}", &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.net_channels");
    CU_ASSERT_EQUAL(cs_test_nccl_json("{\"net_channels\": \"8\"}", &p, &err), CS_EINVAL);
}

/* MI355X: one node runs the XGMI model's 6 rings, two nodes RCCL's 8 (one per NIC). The
 * ring across 2 nodes crosses each node boundary once per ring and direction; 8 rings on
 * 8 NICs of 50 GB/s each carry one ring each way: busbw <= 8 x 50 = 400 GB/s (6 rings: 6 x
 * 50 = 300). One node: each of the 6 rings has 61.44 GB/s links (xGMI at 80%), busbw <= 6 x
 * 61.44 = 368.6 GB/s. */
static void t_mi355x_channels(void)
{
    double bw;
    cs_nccl_pick one = allreduce("mi355x-x2", "ring", 8, 1u << 30, &bw);
    CU_ASSERT_EQUAL(one.channels, 6);
    CU_ASSERT(bw <= 368.64 + 1e-6 && bw > 0.97 * 368.64);
    cs_nccl_pick two = allreduce("mi355x-x2", "ring", 16, 1u << 30, &bw);
    CU_ASSERT_EQUAL(two.channels, 8);
    CU_ASSERT(bw <= 400.0 + 1e-6 && bw > 0.97 * 400.0);
}

/* NCCL's NVLSTree loops per channel and head (nvlstree.h): dgx-b200-x2 has g = 8 heads and
 * sm 100, so C = 32 channels and C g = 256 concurrent ops. 1 MiB < 256 x 64 KiB: 32 KiB
 * chunks, ceil(1 MiB / 8 MiB) = 1; 64 MiB in [16, 128) MiB: 64 KiB chunks, 64 MiB / 16
 * MiB = 4; 2 GiB: 128 KiB chunks, 2 GiB / 32 MiB = 64; 8 GiB: 256, capped at 64.
 * dgx-h100-x2 (sm 90, C = 16, C g = 128): 1 GiB / (128 x 128 KiB) = 64; 16 MiB < 4 x 128 x
 * 128 KiB: 64 KiB chunks, 16 MiB / 8 MiB = 2. One node: 1 (nvls.c's own pieces). */
static void t_nvls_tree_pieces(void)
{
    static const struct { const char *topo; int p; uint64_t S; int k; } c[] = {
        {"dgx-b200-x2", 16, 1u << 20, 1}, {"dgx-b200-x2", 16, 64u << 20, 4},
        {"dgx-b200-x2", 16, 2ull << 30, 64}, {"dgx-b200-x2", 16, 8ull << 30, 64},
        {"dgx-h100-x2", 16, 1u << 30, 64}, {"dgx-h100-x2", 16, 16u << 20, 2},
        {"dgx-b200-x2", 8, 1u << 30, 1},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        cs_topo *t = NULL;
        cs_err err;
        cs_nccl_params np;
        cs_coll_req req;
        int on;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(c[i].topo, &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(c[i].topo, NULL, 0, &np, &on, &err), 0);
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, c[i].p, c[i].S);
        req.topo = t;
        CU_ASSERT_EQUAL(cs_nccl_nvls_tree_pieces(&req, &np), c[i].k);
        cs_topo_free(t);
    }
}

/* NVLSTree's network messages (nvlstree.h cs_nccl_nvls_tree_msg_bytes), on p5-h100-x2: sm
 * 90, C = 16 channels, g = 8 heads, C g = 128. A GPU's network leg of a piece is S / (g k)
 * bytes, C channels' chunks, one message each (NCCL's net proxy posts one isend per
 * channel and step). 1 GiB: 128 KiB chunks, k = 1 GiB / 16 MiB = 64, a leg 2 MiB, 16
 * messages of 128 KiB. 8 GiB: k capped at 64, a leg 16 MiB = 8 loops of 16 channels: 128
 * messages of the 128 KiB chunk. 16 MiB: 64 KiB chunks, k = 2, a leg 1 MiB, 16 of 64 KiB.
 * 1 MiB: 32 KiB chunks, k = 1, a leg 128 KiB, 16 of 8 KiB (less than the chunk). One
 * node: 0 (no network). cs_nccl_nvls_tree_costs lowers the proxied NET transport's 1 MiB
 * to that message and leaves a transport without a proxy cost alone. */
static void t_nvls_tree_msgs(void)
{
    static const struct { int p; uint64_t S; int k; uint64_t mb; } c[] = {
        {16, 1u << 30, 64, 131072}, {16, 8ull << 30, 64, 131072}, {16, 16u << 20, 2, 65536},
        {16, 1u << 20, 1, 8192}, {8, 1u << 30, 1, 0},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        cs_topo *t = NULL;
        cs_err err;
        cs_nccl_params np;
        cs_coll_req req;
        cs_sim_costs costs;
        uint64_t leg;
        int on;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open("p5-h100-x2", &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("p5-h100-x2", NULL, 0, &np, &on, &err), 0);
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, c[i].p, c[i].S);
        req.topo = t;
        req.chunks = cs_nccl_nvls_tree_pieces(&req, &np);
        CU_ASSERT_EQUAL(req.chunks, c[i].k);
        CU_ASSERT_EQUAL(cs_nccl_nvls_tree_msg_bytes(&req, &np), c[i].mb);
        if (c[i].mb > 0) {
            leg = c[i].S / 8 / (uint64_t)c[i].k;
            CU_ASSERT_EQUAL(leg / c[i].mb, c[i].S == (8ull << 30) ? 128u : 16u);
            memset(&costs, 0, sizeof costs);
            costs.tr[CS_TR_NET].msg_us = 4;
            costs.tr[CS_TR_NET].msg_bytes = 1048576;
            costs.tr[CS_TR_P2P].msg_bytes = 1048576;
            cs_nccl_nvls_tree_costs(&req, &np, &costs);
            CU_ASSERT_EQUAL(costs.tr[CS_TR_NET].msg_bytes, c[i].mb);
            CU_ASSERT_EQUAL(costs.tr[CS_TR_P2P].msg_bytes, 1048576u);
        }
        cs_topo_free(t);
    }
}

/* NVLSTree on 2 x DGX B200 at 2 GiB: nvls_eff 0.74 on the NVLink legs only. Each NIC (8 a
 * node, 50 GB/s) carries S/8 each way: algbw <= 400 GB/s, busbw <= 400 x 2 x 15/16 = 750.
 * Each GPU's NVLink carries S (1 + 1/8) up at 18 x 40.1 x 0.74 = 534.1 GB/s: algbw <= 474.8,
 * not the bound. 64 pieces of 3 stages and 78 us of latency cost < 5%: busbw in [712.5,
 * 750]. (With 0.74 on every leg, as before, the NICs bound at 0.74 x 750 = 555.) The tree's
 * latency: 2 floor(log2 2) x 20.9 = 41.8 us more than with nvls_net_lat_us 0. */
static void t_nvls_b200_x2(void)
{
    double bw;
    cs_nccl_pick pk = allreduce("dgx-b200-x2", "nvls", 16, 2ull << 30, &bw);
    CU_ASSERT_EQUAL(pk.chunks, 64);
    CU_ASSERT(bw <= 750.0 + 1e-6 && bw >= 0.95 * 750.0);
    {
        cs_topo *t = NULL;
        cs_err err;
        cs_nccl_params np;
        cs_coll_req req;
        cs_nccl_pick a, b;
        const cs_algo *ops;
        int on;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-b200-x2", &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-b200-x2", NULL, 0, &np, &on, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("nvls", CS_COLL_ALLREDUCE, &ops, NULL), 0);
        CS_ASSERT_REL(np.nvls_net_lat_us, 20.9, 1e-12);
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 16, 1024);
        req.topo = t;
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ops, &np, 0, &a, &err), 0);
        np.nvls_net_lat_us = 0;
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ops, &np, 0, &b, &err), 0);
        CS_ASSERT_REL(a.time_us - b.time_us, 41.8, 1e-6);
        cs_topo_free(t);
    }
}

/* gb300-nvl72-x2 is two racks of 16 trays in the job (64 GPUs each, the OCI 32-tray run's
 * placement): 128 ranks, 64 a rack, so a 128-rank allreduce runs NVLSTree over both racks
 * (on full racks it would be 72 + 56, and NVLS cannot span unequal racks). 64 MiB: C g =
 * 32 x 64 = 2048 ops, 64 MiB < 2048 x 64 KiB, 32 KiB chunks, 1 piece. NVLink bound: S (1 +
 * 1/64) up each GPU at 18 x 40.1 x 0.74 = 534.1 GB/s, busbw <= 2 x 127/128 x 534.1 / (65/64)
 * = 1043.6 GB/s. */
static void t_gb300_racks(void)
{
    cs_topo *t = NULL;
    cs_err err;
    double bw;
    cs_nccl_pick pk;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("gb300-nvl72-x2", &t, &err), 0);
    CU_ASSERT_EQUAL(t->n_ranks, 128);
    cs_topo_free(t);
    pk = allreduce("gb300-nvl72-x2", NULL, 128, 64u << 20, &bw);
    CU_ASSERT_STRING_EQUAL(pk.algo->name, "nvls");
    CU_ASSERT_EQUAL(pk.chunks, 1);
    CU_ASSERT(bw > 0 && bw <= 1043.6);
}

/* LL rings across nodes: NCCL's llMaxBw (Intel hosts, 2 nodes: 39 GB/s of bus bandwidth)
 * shared by the channels, each capped at 39 / C. A ring's busbw is C times one channel's
 * rate on its links: <= 39 GB/s, where the links alone (8 NICs of 50 GB/s at LL's 0.5)
 * would allow 200. 1 GiB: the pipeline's fill under 3%. */
static void t_ll_max(void)
{
    double bw;
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    cs_coll_req req;
    cs_nccl_pick pk;
    const cs_algo *ring;
    int on;
    CS_ASSERT_REL(cs_nccl_ll_max_GBps(2), 39.0, 1e-12);
    CS_ASSERT_REL(cs_nccl_ll_max_GBps(4), 20.4, 1e-12);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-b200-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-b200-x2", "LL", 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 16, 1u << 30);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ring, &np, 0, &pk, &err), 0);
    bw = (double)(1u << 30) / (pk.time_us * 1e3) * 2.0 * 15 / 16;
    CU_ASSERT(bw <= 39.0 + 1e-6 && bw >= 0.97 * 39.0);
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case tc[] = {
        {"net_channels read and refused by name", t_net_channels_json},
        {"mi355x: 6 rings on one node, 8 (one per NIC) across nodes", t_mi355x_channels},
        {"NVLSTree loops per channel and head as NCCL 2.26 cuts them", t_nvls_tree_pieces},
        {"NVLSTree's network messages, one per channel and loop", t_nvls_tree_msgs},
        {"dgx-b200-x2 NVLSTree: the NICs bind at 750 GB/s busbw; 41.8 us of tree latency",
         t_nvls_b200_x2},
        {"gb300-nvl72-x2: racks of 64, NVLSTree over both at 128 ranks", t_gb300_racks},
        {"LL rings across nodes under NCCL's llMaxBw", t_ll_max},
        {NULL, NULL}};
    return cs_test_add_suite("ncclscale", tc) ? -1 : 0;
}
