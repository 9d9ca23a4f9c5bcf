/* test_foldtree.c: issues 11 and 12, NCCL's trees across nodes simulated on one channel of
 * each rotation class (algorithms/nccl/fold_tree.c). The folded time equals the full
 * simulation's to the picosecond on dgx-h100-x2 and the A3 Mega start file, three protocols,
 * with and without NET transport costs; the folded run sends 1/8 of the transfers; a
 * fabric that a rotation by 2 maps onto itself folds 4 to 1; fabrics and requests without
 * the symmetry are not folded; and the executor's shared proxies and their order count. */
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

#define A3MEGA CS_TEST_DATA "/../../calibration/a3mega-2node.json"

/* Fold the tree of req as mode.c does: 16 channels are 8 pairs of trees (channel c tree 0,
 * channel c + 8 tree 1, NCCL's connectTrees), one pair per GPU of a node, so no twins to
 * merge: fills *t_ps and *work, returns the fold's answer; *full_xfers gets the transfers
 * of the unfolded schedule. */
static int fold_direct(const cs_topo *t, const cs_nccl_params *np, uint64_t bytes, cs_proto pr,
                       cs_time *t_ps, cs_sim_counters *work, uint32_t *full_xfers)
{
    cs_coll_req req, built;
    cs_nccl_pick pick;
    cs_sched s;
    cs_sim_costs costs;
    cs_err err;
    int rc;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, bytes);
    req.topo = t;
    memset(&pick, 0, sizeof pick);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("double_binary_tree", CS_COLL_ALLREDUCE, &pick.algo,
                                         NULL), 0);
    pick.proto = pr;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_build(&req, np, &pick, &s, &costs, &built, &err), 0);
    cs_sched_fini(&s);
    CU_ASSERT_EQUAL(built.channels, 8);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(pick.algo, &built, &s, &err), 0);
    *full_xfers = s.n_xfers;
    rc = cs_nccl_fold_tree(&built, t, &s, &costs, 1.0, t_ps, work, &err);
    cs_sched_fini(&s);
    return rc;
}

/* dgx-h100-x2 and the A3 Mega file (2 x 8 H100, 16 channels: 16 trees, 8 pairs): every
 * size from 64 MiB to 1 GiB, three protocols, with the file's NET costs and without: NCCL
 * mode with the fold (the default), without it (no_fold) and with every channel simulated
 * (all_channels; no twins to merge here) give the same time to the picosecond. The fold
 * keeps one channel of each rotation class in each block of 8 (channels 0 and 8: tree 0
 * and tree 1 of pair 0). Directly: the fold answers (1), and its run sends 1/8 of the
 * transfers: on 16 ranks each tree moves each of its k pieces up and down 15 edges, 30 k
 * a tree, 480 k for 16 trees, 60 k for the 2 kept. */
static void t_fold_equals_full(void)
{
    static const char *const specs[] = {"dgx-h100-x2", A3MEGA};
    int i, net, pr, e, n = 0, n_fold = 0, n_ext = 0;
    for (i = 0; i < 2; i++)
        for (net = 0; net < 2; net++) {
            cs_topo *t = NULL;
            cs_err err;
            cs_nccl_params np;
            const cs_algo *tree;
            int on;
            CU_ASSERT_EQUAL_FATAL(cs_topo_open(specs[i], &t, &err), 0);
            CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(specs[i], NULL, 0, &np, &on, &err), 0);
            CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("double_binary_tree", CS_COLL_ALLREDUCE,
                                                 &tree, NULL), 0);
            if (net) {
                /* dgx-h100-x2 has none: give it the A3 Mega file's start values */
                np.tr[CS_TR_NET].lat_us = 40;
                np.tr[CS_TR_NET].msg_us = 40;
                np.tr[CS_TR_NET].msg_bytes = 2097152;
            } else {
                memset(&np.tr[CS_TR_NET], 0, sizeof np.tr[CS_TR_NET]);
            }
            for (pr = 0; pr < CS_PROTO_COUNT; pr++)
                for (e = 26; e <= 30; e++) {
                    cs_coll_req req;
                    cs_nccl_pick full, twin, fold;
                    cs_sim_counters work;
                    cs_time t_ps = 0;
                    uint32_t xf = 0;
                    int rc;
                    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 1ull << e);
                    req.topo = t;
                    np.force_proto = pr;
                    np.all_channels = 1;
                    CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 0, &full, &err), 0);
                    np.all_channels = 0;
                    np.no_fold = 1;
                    CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 0, &twin, &err), 0);
                    np.no_fold = 0;
                    CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 0, &fold, &err), 0);
                    CU_ASSERT_EQUAL(fold.chunks, twin.chunks);
                    CU_ASSERT(fold.time_us == twin.time_us);
                    CU_ASSERT(fold.time_us == full.time_us);
                    CU_ASSERT(fold.time_us == twin.time_us);
                    /* Simple's pieces are one step (a quarter of the table's 4-step
                     * chunk), each of the 16 trees carrying 1/16 of the buffer */
                    if (pr == CS_PROTO_SIMPLE)
                        CU_ASSERT_EQUAL((uint64_t)fold.chunks,
                                        (1ull << e) / 16 /
                                            (np.proto[CS_PROTO_SIMPLE].chunk_bytes / 4));
                    if (fold.chunks > 64) {
                        n_ext++;
                        /* extrapolated from 64 and 32 pieces (mode.c): no one schedule */
                        n++;
                        continue;
                    }
                    rc = fold_direct(t, &np, 1ull << e, (cs_proto)pr, &t_ps, &work, &xf);
                    /* Where the proxy binds (LL, LL128 with NET costs) two messages
                     * may come to one shared proxy at one instant, and where their
                     * order decides a time the fold gives up; Simple's large pieces
                     * and runs without a proxy always fold. */
                    CU_ASSERT(rc == 1 || (net && pr != CS_PROTO_SIMPLE && rc == 0 &&
                                          work.proxy_order > 0));
                    CU_ASSERT_EQUAL(xf, 480u * (uint32_t)fold.chunks);
                    CU_ASSERT_EQUAL(work.transfers, 60u * (uint64_t)fold.chunks);
                    if (rc == 1) {
                        CU_ASSERT(cs_time_to_us(t_ps) == twin.time_us);
                        CU_ASSERT_EQUAL(work.proxy_order, 0);
                        n_fold++;
                    }
                    if (fold.time_us != twin.time_us)
                        fprintf(stderr, "\n  %s net %d %s 2^%d: %.6f vs %.6f us", specs[i], net,
                                cs_proto_name((cs_proto)pr), e, fold.time_us, twin.time_us);
                    n++;
                }
            cs_topo_free(t);
        }
    CU_ASSERT_EQUAL(n, 60);
    fprintf(stderr, "\n  %d of 60 folded directly, %d extrapolated", n_fold, n_ext);
    CU_ASSERT(n_fold >= 30);
}

/* A tree of more than 64 pieces is simulated with 64 and 32 and extended along that line
 * (mode.c try_one): in its steady state every further piece adds the same period. Against
 * the whole simulation (tree_sim_pieces above the piece count), Simple on dgx-h100-x2 and
 * the A3 Mega file (128-256 pieces: 1-2 GiB of 512 KiB steps, 2-4 GiB of 1 MiB
 * steps): within 1%. */
static void t_tree_extrapolated(void)
{
    static const char *const specs[] = {"dgx-h100-x2", A3MEGA};
    int i, e;
    for (i = 0; i < 2; i++) {
        cs_topo *t = NULL;
        cs_err err;
        cs_nccl_params np;
        const cs_algo *tree;
        int on;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(specs[i], &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(specs[i], NULL, 0, &np, &on, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("double_binary_tree", CS_COLL_ALLREDUCE, &tree,
                                             NULL), 0);
        np.force_proto = CS_PROTO_SIMPLE;
        for (e = i ? 31 : 30; e <= (i ? 32 : 31); e++) {
            cs_coll_req req;
            cs_nccl_pick ext, full;
            cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 1ull << e);
            req.topo = t;
            np.tree_sim_pieces = 0;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 0, &ext, &err), 0);
            np.tree_sim_pieces = 1 << 20;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 0, &full, &err), 0);
            CU_ASSERT(ext.chunks > 64);
            CU_ASSERT_EQUAL(ext.chunks, full.chunks);
            fprintf(stderr, "\n  %s 2^%d: extrapolated %.1f us, simulated %.1f us", specs[i],
                    e, ext.time_us, full.time_us);
            CS_ASSERT_REL(ext.time_us, full.time_us, 0.01);
        }
        cs_topo_free(t);
    }
}

/* Two 8-GPU nodes on rails whose GPUs share NICs as nic_of_gpu says (nics NICs). */
static cs_topo *nic_shared(const char *nic_of_gpu, int nics, char *spec, size_t n)
{
    char text[1024];
    cs_topo *t = NULL;
    cs_err err;
    snprintf(text, sizeof text, "{\"kind\":\"cluster\",\"nodes\":2,\"node\":{\"kind\":\"node\","
             "\"gpus\":8,\"nvlink\":{\"topology\":\"switch\",\"class\":\"nvlink4\",\"links\":18,"
             "\"bandwidth_GBps\":25,\"latency_us\":1},\"nics\":%d,\"nic\":{\"class\":\"ib_ndr\","
             "\"bandwidth_GBps\":50,\"latency_us\":1.5},\"nic_of_gpu\":%s,\"pcie\":{\"class\":"
             "\"pcie5\",\"bandwidth_GBps\":63,\"latency_us\":1},\"pcie_switches\":4,\"cpus\":2},"
             "\"fabric\":{\"type\":\"rail\",\"link\":{\"class\":\"ib_ndr\",\"bandwidth_GBps\":50,"
             "\"latency_us\":1.5}},\"nccl\":{\"channels\":16}}", nics, nic_of_gpu);
    cs_test_json_file(text, spec, n);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(spec, &t, &err), 0);
    return t;
}

/* GPUs in pairs on 4 NICs: rotating by one GPU moves GPU 1's traffic off GPU 0's NIC onto
 * GPU 2's, not a symmetry; by two it is. So 2 of each block of 8 tree channels stand for
 * all (4 of 16 trees: transfers 120 k of 480 k), the same time as without the fold. */
static void t_fold_by_two(void)
{
    char spec[64];
    cs_topo *t = nic_shared("[0,0,1,1,2,2,3,3]", 4, spec, sizeof spec);
    cs_err err;
    cs_nccl_params np;
    const cs_algo *tree;
    int on, pr;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("double_binary_tree", CS_COLL_ALLREDUCE, &tree, NULL),
                          0);
    np.tr[CS_TR_NET].msg_us = 20;
    np.tr[CS_TR_NET].msg_bytes = 1 << 20;
    for (pr = 0; pr < CS_PROTO_COUNT; pr++) {
        cs_coll_req req;
        cs_nccl_pick twin, fold;
        cs_sim_counters work;
        cs_time t_ps = 0;
        uint32_t xf = 0;
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 256u << 20);
        req.topo = t;
        np.force_proto = pr;
        np.no_fold = 1;
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 0, &twin, &err), 0);
        np.no_fold = 0;
        CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, tree, &np, 0, &fold, &err), 0);
        CU_ASSERT(fold.time_us == twin.time_us);
        on = fold_direct(t, &np, 256u << 20, (cs_proto)pr, &t_ps, &work, &xf);
        /* LL's small pieces make the shared proxy bind: it may give up (above). */
        CU_ASSERT(on == 1 || (pr == CS_PROTO_LL && on == 0 && work.proxy_order > 0));
        if (on == 0)
            continue;
        CU_ASSERT(cs_time_to_us(t_ps) == twin.time_us);
        CU_ASSERT_EQUAL(xf, 480u * (uint32_t)fold.chunks);
        CU_ASSERT_EQUAL(work.transfers, 120u * (uint64_t)fold.chunks);
    }
    cs_topo_free(t);
    unlink(spec);
}

/* Not folded: NICs shared unevenly (GPUs 0-2 on NIC 0, 3-4 on 1, 5-6 on 2, 7 on 3: no
 * rotation maps the NIC routes onto one another); a size whose tree parts differ by a byte
 * inside a block of 8 (64 MiB + 4 on 16 trees: trees 0-3 carry a byte more than 4-7); a
 * receiver that reduces at a finite rate (a per-rank reducer); 4 pairs on 8-GPU nodes
 * (tree 0 of pairs 0-3 and tree 1 of pairs 0-3 in one block: no rotation maps the one
 * onto the other, their trees over the nodes are mirrors). 64 MiB + 8 folds: trees 0-7
 * (every tree 0) carry the byte more, and the rotation maps tree 0s onto tree 0s. */
static void t_fold_refuses(void)
{
    char spec[64];
    cs_topo *t = nic_shared("[0,0,0,1,1,2,2,3]", 4, spec, sizeof spec);
    cs_err err;
    cs_nccl_params np;
    cs_time t_ps;
    cs_sim_counters work;
    uint32_t xf;
    int on;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(spec, NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(fold_direct(t, &np, 256u << 20, CS_PROTO_SIMPLE, &t_ps, &work, &xf), 0);
    cs_topo_free(t);
    unlink(spec);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &np, &on, &err), 0);
    {
        cs_coll_req req;
        const cs_algo *tree;
        cs_sched s;
        cs_sim_costs costs;
        memset(&costs, 0, sizeof costs);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("double_binary_tree", CS_COLL_ALLREDUCE, &tree,
                                             NULL), 0);
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, (64u << 20) + 4);
        req.topo = t;
        req.channels = 8;
        req.chunks = 4;
        CU_ASSERT_EQUAL_FATAL(cs_algo_build(tree, &req, &s, &err), 0);
        CU_ASSERT_EQUAL(cs_nccl_fold_tree(&req, t, &s, &costs, 1.0, &t_ps, NULL, &err), 0);
        cs_sched_fini(&s);
        req.bytes = (64u << 20) + 8;
        CU_ASSERT_EQUAL_FATAL(cs_algo_build(tree, &req, &s, &err), 0);
        CU_ASSERT_EQUAL(cs_nccl_fold_tree(&req, t, &s, &costs, 1.0, &t_ps, NULL, &err), 1);
        cs_sched_fini(&s);
        req.bytes = 64u << 20;
        req.channels = 4;
        CU_ASSERT_EQUAL_FATAL(cs_algo_build(tree, &req, &s, &err), 0);
        CU_ASSERT_EQUAL(cs_nccl_fold_tree(&req, t, &s, &costs, 1.0, &t_ps, NULL, &err), 0);
        cs_sched_fini(&s);
        req.channels = 8;
        CU_ASSERT_EQUAL_FATAL(cs_algo_build(tree, &req, &s, &err), 0);
        CU_ASSERT_EQUAL(cs_nccl_fold_tree(&req, t, &s, &costs, 1.0, &t_ps, NULL, &err), 1);
        t->reduce_GBps = 500;
        CU_ASSERT_EQUAL(cs_nccl_fold_tree(&req, t, &s, &costs, 1.0, &t_ps, NULL, &err), 0);
        t->reduce_GBps = 0;
        cs_sched_fini(&s);
    }
    cs_topo_free(t);
}

/* Shared proxies (cs_sim_set_proxies). Two servers of one GPU and one NIC, GDR, 12 GB/s:
 * 12 MB each way at once arrives after 5 (NET step) + 6 (route) + 1000 us = 1011 us. NET
 * messages of 1 MB at 100 us: each rank's own proxy is done with its 12 at 5 + 1200 =
 * 1205 us. One proxy for both ranks takes both transfers' 24 messages, charged at the same
 * instant (5 us): one is done at 1205 us, the other at 2405 us, which is the time; both
 * transfers arrived (1011 us) before the proxy was done with both (2405 us), so the order
 * of the instant decided their times: proxy_order 2. At 10 us a message the shared proxy is
 * done with both at 5 + 240 = 245 us, before the bytes: 1011 us, proxy_order 0. */
static void t_shared_proxy(void)
{
    static const struct { double msg_us; int share; double us; uint64_t order; } cases[] = {
        {100, 0, 1205, 0}, {100, 1, 2405, 2}, {10, 1, 1011, 0}};
    cs_topo *t = cs_test_topo("{\"kind\": \"cluster\", \"nodes\": 2, \"node\": {"
        "\"kind\": \"node\", \"gpus\": 1, \"nics\": 1, \"nic\": {\"class\": \"roce100\", "
        "\"bandwidth_GBps\": 12, \"latency_us\": 1}, \"pcie\": {\"class\": \"pcie4\", "
        "\"bandwidth_GBps\": 24, \"latency_us\": 1}, \"pcie_switches\": 1, \"cpus\": 1}, "
        "\"fabric\": {\"type\": \"switch\"}}");
    size_t i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_sim_costs c;
        cs_sim_opts so = {0, 0, &c};
        cs_sim *sim;
        cs_job *job;
        cs_sched s;
        cs_err err;
        cs_sim_counters cnt;
        int both[2] = {0, 0};
        int64_t k;
        memset(&c, 0, sizeof c);
        c.tr[CS_TR_NET].lat_us = 5;
        c.tr[CS_TR_NET].msg_bytes = 1000000;
        c.tr[CS_TR_NET].msg_us = cases[i].msg_us;
        cs_sched_init(&s, CS_COLL_SENDRECV, 2, 0, 12000000);
        k = cs_sched_chunk(&s, 12000000, 0, 1);
        cs_sched_xfer_range(&s, 0, 1, CS_OP_COPY, (uint32_t)k, 1, NULL, 0, 0);
        k = cs_sched_chunk(&s, 12000000, 1, 0);
        cs_sched_xfer_range(&s, 1, 0, CS_OP_COPY, (uint32_t)k, 1, NULL, 0, 0);
        CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, &so, &err), 0);
        if (cases[i].share)
            CU_ASSERT_EQUAL(cs_sim_set_proxies(sim, both, &err), 0);
        CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, &job, &err), 0);
        CU_ASSERT_EQUAL(cs_sim_run(sim, &err), 0);
        cs_sim_get_counters(sim, &cnt);
        CS_ASSERT_REL(cs_time_to_us(cs_job_end(job)), cases[i].us, 1e-12);
        CU_ASSERT_EQUAL(cnt.proxy_order, cases[i].order);
        cs_sim_free(sim);
        cs_sched_fini(&s);
    }
    {
        int bad[2] = {0, 2};
        cs_sim_costs c;
        cs_sim_opts so = {0, 0, &c};
        cs_sim *sim;
        cs_err err;
        memset(&c, 0, sizeof c);
        CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, &so, &err), 0);
        CU_ASSERT_EQUAL(cs_sim_set_proxies(sim, bad, &err), CS_EINVAL);
        cs_sim_free(sim);
    }
    cs_topo_free(t);
}

/* Twin channels merged where a proxy costs time (mode.c): dgx-h100-x2's 16 ring channels
 * are 8 rotations twice over, so NCCL mode simulates 8 carrying half the bytes on links of
 * half the bandwidth, each message costing the proxy twice msg_us. Against every channel
 * simulated (all_channels, no fold): the same time to the picosecond, every protocol, 1 MiB
 * to 1 GiB, with 40 us a message of 2 MiB. */
static void t_ring_proxy_twins(void)
{
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    const cs_algo *ring;
    int on, pr, e;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
    np.tr[CS_TR_NET].msg_us = 40;
    np.tr[CS_TR_NET].msg_bytes = 2097152;
    for (pr = 0; pr < CS_PROTO_COUNT; pr++)
        for (e = 20; e <= 30; e += 2) {
            cs_coll_req req;
            cs_nccl_pick full, twin;
            cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 1ull << e);
            req.topo = t;
            np.force_proto = pr;
            np.no_fold = 1;
            np.all_channels = 1;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &full, &err), 0);
            np.all_channels = 0;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, ring, &np, 0, &twin, &err), 0);
            CU_ASSERT_EQUAL(full.channels, 16);
            CU_ASSERT(twin.time_us == full.time_us);
        }
    cs_topo_free(t);
}

/* NVLS across 2 DGX H100 nodes (nvls.c: shard h reduced in each node's switch, handed to
 * GPU h, exchanged between the GPUs h of both nodes, multicast back): rotating the GPUs of
 * every node by one maps shard h onto shard h + 1, the switches onto themselves. NCCL mode
 * with the fold and without it (no_fold) give the same time to the picosecond, 1 MiB to
 * 1 GiB, with and without NET costs. Directly: per (shard, piece) 16 sends up, 2 sums down
 * to GPU h, 2 reduces between the nodes, 2 uploads and 14 multicast copies, 36 transfers:
 * 36 x 8 K for K pieces of each of the 8 shards, 36 K folded (one shard). */
static void t_fold_nvls(void)
{
    cs_topo *t = NULL;
    cs_err err;
    cs_nccl_params np;
    const cs_algo *nvls;
    int on, net, e, n_fold = 0;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("nvls", CS_COLL_ALLREDUCE, &nvls, NULL), 0);
    np.force_proto = CS_PROTO_SIMPLE;
    for (net = 0; net < 2; net++) {
        np.tr[CS_TR_NET].lat_us = net ? 40 : 0;
        np.tr[CS_TR_NET].msg_us = net ? 40 : 0;
        np.tr[CS_TR_NET].msg_bytes = net ? 2097152 : 0;
        for (e = 20; e <= 30; e += 2) {
            cs_coll_req req, built;
            cs_nccl_pick full, fold, pick;
            cs_sched s;
            cs_sim_costs costs;
            cs_sim_counters work;
            cs_time t_ps = 0;
            uint32_t K;
            int rc;
            cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 1ull << e);
            req.topo = t;
            np.no_fold = 1;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, nvls, &np, 0, &full, &err), 0);
            np.no_fold = 0;
            CU_ASSERT_EQUAL(cs_nccl_simulate(&req, t, nvls, &np, 0, &fold, &err), 0);
            CU_ASSERT(fold.time_us == full.time_us);
            memset(&pick, 0, sizeof pick);
            pick.algo = nvls;
            pick.proto = CS_PROTO_SIMPLE;
            CU_ASSERT_EQUAL_FATAL(cs_nccl_build(&req, &np, &pick, &s, &costs, &built, &err), 0);
            K = s.n_chunks / 8;
            CU_ASSERT_EQUAL(s.n_chunks, 8 * K);
            CU_ASSERT_EQUAL(s.n_xfers, 36 * 8 * K);
            memset(&work, 0, sizeof work);
            rc = cs_nccl_fold_tree(&built, t, &s, &costs, 1.0, &t_ps, &work, &err);
            CU_ASSERT(rc == 1 || (net && rc == 0 && work.proxy_order > 0));
            CU_ASSERT_EQUAL(work.transfers, 36u * K);
            if (rc == 1) {
                CU_ASSERT(cs_time_to_us(t_ps) == full.time_us);
                n_fold++;
            }
            cs_sched_fini(&s);
        }
    }
    CU_ASSERT(n_fold >= 6);
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case tc[] = {
        {"folded trees take the full simulation's time", t_fold_equals_full},
        {"a rotation by two GPUs folds 4 to 1", t_fold_by_two},
        {"nothing folds without the symmetry", t_fold_refuses},
        {"trees of many pieces: extrapolated within 1% of the whole run", t_tree_extrapolated},
        {"shared proxies and the order of an instant", t_shared_proxy},
        {"NVLS across nodes: one shard of eight, the same time", t_fold_nvls},
        {"ring twins merged under a proxy: the same time", t_ring_proxy_twins},
        {NULL, NULL}};
    return cs_test_add_suite("foldtree", tc) ? -1 : 0;
}
