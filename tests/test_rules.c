/* test_rules.c: NCCL's per-collective rules as data (algorithms/nccl/rules.h) and their use
 * by NCCL mode (mode.c): chunk steps per collective, the p2p channel / chunk / protocol
 * rules of NCCL's addP2pToPlan, the pipelined chain of broadcast and reduce. Every expected
 * number is derived by hand in a comment. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/rules.h"
#include "topologies/topology.h"

/* collectives.h: allreduce, allgather, reducescatter 4-step chunks (2 MiB of Simple with 512
 * KiB steps), broadcast and reduce 1-step ones (512 KiB); LL and LL128 one step whatever the
 * collective (32768 and 576000 B in the 2.30.7 table). Patterns and algorithms per
 * collective: allreduce ring then trees; broadcast/reduce the chain ("ring"); alltoall p2p
 * ("direct"). */
static void t_table(void)
{
    cs_nccl_params p;
    const cs_nccl_coll_rule *ar = cs_nccl_rule(CS_COLL_ALLREDUCE);
    const cs_nccl_coll_rule *ag = cs_nccl_rule(CS_COLL_ALLGATHER);
    const cs_nccl_coll_rule *bc = cs_nccl_rule(CS_COLL_BROADCAST);
    const cs_nccl_coll_rule *rd = cs_nccl_rule(CS_COLL_REDUCE);
    const cs_nccl_coll_rule *a2a = cs_nccl_rule(CS_COLL_ALLTOALL);
    const cs_algo *cand[8];
    cs_nccl_params_default(&p);
    CU_ASSERT_EQUAL(ar->pattern, CS_NCCL_PAT_RING_TWICE);
    CU_ASSERT_EQUAL(ag->pattern, CS_NCCL_PAT_RING);
    CU_ASSERT_EQUAL(bc->pattern, CS_NCCL_PAT_PIPELINE);
    CU_ASSERT_EQUAL(rd->pattern, CS_NCCL_PAT_PIPELINE);
    CU_ASSERT_EQUAL(a2a->pattern, CS_NCCL_PAT_P2P);
    CU_ASSERT_EQUAL(cs_nccl_rule(CS_COLL_SENDRECV)->pattern, CS_NCCL_PAT_P2P);
    CU_ASSERT_EQUAL(cs_nccl_coll_chunk(&p, ar, CS_PROTO_SIMPLE), 2097152u);
    CU_ASSERT_EQUAL(cs_nccl_coll_chunk(&p, ag, CS_PROTO_SIMPLE), 2097152u);
    CU_ASSERT_EQUAL(cs_nccl_coll_chunk(&p, bc, CS_PROTO_SIMPLE), 524288u);
    CU_ASSERT_EQUAL(cs_nccl_coll_chunk(&p, rd, CS_PROTO_SIMPLE), 524288u);
    CU_ASSERT_EQUAL(cs_nccl_coll_chunk(&p, bc, CS_PROTO_LL), 32768u);
    CU_ASSERT_EQUAL(cs_nccl_coll_chunk(&p, bc, CS_PROTO_LL128), 576000u);
    CU_ASSERT_EQUAL(rd->reduces, 1);
    CU_ASSERT_EQUAL(bc->reduces, 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_algos(CS_COLL_ALLREDUCE, 1, cand, 8), 3);
    CU_ASSERT_STRING_EQUAL(cand[0]->name, "ring");
    CU_ASSERT_STRING_EQUAL(cand[1]->name, "double_binary_tree");
    CU_ASSERT_STRING_EQUAL(cand[2]->name, "nvls");
    CU_ASSERT_EQUAL_FATAL(cs_nccl_algos(CS_COLL_BROADCAST, 0, cand, 8), 1);
    CU_ASSERT(cs_algo_has(cand[0], CS_COLL_BROADCAST));
    CU_ASSERT_EQUAL_FATAL(cs_nccl_algos(CS_COLL_ALLTOALL, 0, cand, 8), 1);
    CU_ASSERT_STRING_EQUAL(cand[0]->name, "direct");
}

/* A PCIe pair with NCCL's 2 channels (one searched ring, doubled): p2pnChannels 2, 2 per
 * PCIe peer, an op starts on 1 (2 x 2 ranks > 2); chunk 128 KiB (P2P_PCI_CHUNKSIZE),
 * parts of 16 KiB to 4 MiB (chunk/8, 32 chunks). An op of b bytes: 1 channel up to 4 MiB,
 * 2 above (the part of 4 MiB + 1 exceeds 4 MiB); LL up to 16 KiB on 1 channel. With 3
 * channels asked: p2pnChannels 4, an op starts on 2 (2 x 2 = 4): 10 KiB -> ceil(10/16) = 1
 * channel, 20 KiB -> 2, LL up to 2 x 16 KiB. */
static void t_p2p_pcie(void)
{
    cs_topo *t = cs_test_pcie3_pair(0);
    cs_nccl_params p;
    cs_nccl_p2p pp;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_nccl_params_default(&p);
    p.channels = 2;
    cs_nccl_p2p_setup(&p, t, NULL, 2, &pp);
    CU_ASSERT_EQUAL(pp.n_channels, 2);
    CU_ASSERT_EQUAL(pp.per_peer, 2);
    CU_ASSERT_EQUAL(pp.ch_min, 1);
    CU_ASSERT_EQUAL(pp.chunk_bytes, 131072u);
    CU_ASSERT_EQUAL(pp.min_part, 16384u);
    CU_ASSERT_EQUAL(pp.max_part, 4194304u);
    CU_ASSERT_EQUAL(pp.multi_node, 0);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 0), 1);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 16384), 1);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 4194304), 1);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 4194305), 2);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 1u << 30), 2);
    CU_ASSERT_EQUAL(cs_nccl_p2p_proto(&pp, 16384, 1), CS_PROTO_LL);
    CU_ASSERT_EQUAL(cs_nccl_p2p_proto(&pp, 16385, 1), CS_PROTO_SIMPLE);
    p.channels = 3;
    cs_nccl_p2p_setup(&p, t, NULL, 2, &pp);
    CU_ASSERT_EQUAL(pp.n_channels, 4);
    CU_ASSERT_EQUAL(pp.per_peer, 2);
    CU_ASSERT_EQUAL(pp.ch_min, 2);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 10240), 1);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 20480), 2);
    CU_ASSERT_EQUAL(cs_nccl_p2p_proto(&pp, 32768, 2), CS_PROTO_LL);
    CU_ASSERT_EQUAL(cs_nccl_p2p_proto(&pp, 32769, 2), CS_PROTO_SIMPLE);
    cs_topo_free(t);
}

/* 2 x DGX H100 (16 channels, one 50 GB/s NIC per GPU on its route): per network peer
 * max(1 NIC, ceil(50 / 14)) = 4 channels, NVLink peers 2 x floor(bw / 20.6) >= 4, so 4 per
 * peer; across nodes halved while 4 x ceil(16 peers / 8) > 16: no. An op starts on 4,
 * halved while x 16 ranks > 16: 1. Chunk 128 KiB (NET), parts of 64 KiB to 128 KiB. An op of
 * 1 MiB: 1 channel, part 1 MiB > 128 KiB -> 2 (part 512 KiB) -> 4 (256 KiB), then 4 > 4/2
 * stops: 4 channels. 64 KiB: 1 channel. */
static void t_p2p_net(void)
{
    cs_topo *t = NULL;
    cs_nccl_params p;
    cs_nccl_p2p pp;
    int on = 0;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &p, &on, &err), 0);
    CU_ASSERT_EQUAL(p.channels, 16);
    cs_nccl_p2p_setup(&p, t, NULL, 16, &pp);
    CU_ASSERT_EQUAL(pp.multi_node, 1);
    CU_ASSERT_EQUAL(pp.n_channels, 16);
    CU_ASSERT_EQUAL(pp.per_peer, 4);
    CU_ASSERT_EQUAL(pp.ch_min, 1);
    CU_ASSERT_EQUAL(pp.chunk_bytes, 131072u);
    CU_ASSERT_EQUAL(pp.min_part, 65536u);
    CU_ASSERT_EQUAL(pp.max_part, 131072u);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 1u << 20), 4);
    CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, 65536), 1);
    /* One node of the same: every peer over NVLink (NVL chunk 512 KiB). */
    cs_nccl_p2p_setup(&p, t, NULL, 8, &pp);
    CU_ASSERT_EQUAL(pp.multi_node, 0);
    CU_ASSERT_EQUAL(pp.chunk_bytes, 524288u);
    cs_topo_free(t);
}

/* The p2p rules on a group's real ranks (a rank map), on 2 x DGX H100 (16 channels; a
 * GPU's NVLink route is 18 x 20.6 = 370.8 GB/s, 2 x 18 = 36 channels per NVLink peer, a
 * network peer max(1, ceil(50 / 14)) = 4).
 * (1) Ranks 0, 2, 4, 6 (a strided group on node 0): every peer over NVLink: NVL chunk 512
 *     KiB, one node's p2p channels (the node's p2p_channels, 32), per_peer pow2Up(36) = 64
 *     capped at 32, an op starts on 32 halved while x 4 ranks > 32: 8; parts of 64 KiB to
 *     16 MiB. The same as ranks 0..3 of one DGX H100, and ranks 8..15 (node 1) the same as
 *     ranks 0..7 (starting on 4). Across nodes the p2p channels are the channels' (16).
 * (2) Ranks 0, 2, ..., 14 (4 per node): multi-node, NET chunk 128 KiB, per peer min(36, 4)
 *     = 4, halved while 4 x ceil(8 / 8) > 16: no; an op starts on 4 halved while x 8 > 16:
 *     2; parts of 64 KiB to 128 KiB. Ranks 0..7 of the same would be one node (NVL).
 * (3) A map with a rank outside the topology counts as no topology (one node, PCIe):
 *     chunk 128 KiB, 2 per peer. */
static void t_p2p_map(void)
{
    static const int strided4[4] = {0, 2, 4, 6}, node1[8] = {8, 9, 10, 11, 12, 13, 14, 15};
    static const int strided8[8] = {0, 2, 4, 6, 8, 10, 12, 14}, bad[4] = {0, 2, 4, 16};
    cs_topo *t = NULL, *one = NULL;
    cs_nccl_params p;
    cs_nccl_p2p pp, ref;
    int on = 0;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100", &one, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &p, &on, &err), 0);
    cs_nccl_p2p_setup(&p, t, strided4, 4, &pp);
    CU_ASSERT_EQUAL(pp.multi_node, 0);
    CU_ASSERT_EQUAL(pp.chunk_bytes, 524288u);
    CU_ASSERT_EQUAL(pp.n_channels, 32);
    CU_ASSERT_EQUAL(pp.per_peer, 32);
    CU_ASSERT_EQUAL(pp.ch_min, 8);
    CU_ASSERT_EQUAL(pp.min_part, 65536u);
    CU_ASSERT_EQUAL(pp.max_part, 16777216u);
    cs_nccl_p2p_setup(&p, one, NULL, 4, &ref);
    CU_ASSERT(memcmp(&pp, &ref, sizeof pp) == 0);
    cs_nccl_p2p_setup(&p, t, node1, 8, &pp);
    cs_nccl_p2p_setup(&p, t, NULL, 8, &ref);
    CU_ASSERT(memcmp(&pp, &ref, sizeof pp) == 0);
    CU_ASSERT_EQUAL(pp.chunk_bytes, 524288u);
    CU_ASSERT_EQUAL(pp.ch_min, 4);
    cs_nccl_p2p_setup(&p, t, strided8, 8, &pp);
    CU_ASSERT_EQUAL(pp.multi_node, 1);
    CU_ASSERT_EQUAL(pp.chunk_bytes, 131072u);
    CU_ASSERT_EQUAL(pp.per_peer, 4);
    CU_ASSERT_EQUAL(pp.ch_min, 2);
    CU_ASSERT_EQUAL(pp.min_part, 65536u);
    CU_ASSERT_EQUAL(pp.max_part, 131072u);
    cs_nccl_p2p_setup(&p, t, bad, 4, &pp);
    CU_ASSERT_EQUAL(pp.multi_node, 0);
    CU_ASSERT_EQUAL(pp.chunk_bytes, 131072u);
    CU_ASSERT_EQUAL(pp.per_peer, 2);
    cs_topo_free(one);
    cs_topo_free(t);
}

/* NCCL mode reads the map of a request without a topology (a plan's strided group): only
 * the p2p rules see it. dgx-h100-x2, channel_GBps 1 (a p2p channel moves 2 x 1 GB/s: its
 * own send and receive warps), Simple.
 * A rank's sends to its n - 1 peers spread over min(p2p channels, (n - 1) x channels a
 * send) (rules.h cs_nccl_p2p_rank_channels), whose caps they share (sim/exec.c).
 * (1) Alltoall of 32 MiB on ranks 0, 2, 4, 6 (one node: 32 p2p channels): 8 MiB per
 *     peer, starts on 8 channels, part 1 MiB <= 16 MiB: 8 channels a send, min(32, 3 x 8)
 *     = 24 a rank, cap 24 x 2 = 48 GB/s; 1 MiB / 512 KiB = 2 chunks. Without the map (one
 *     node, PCIe): per peer 2, starts on 2 (2 x 4 <= 32), part 4 MiB <= 4 MiB: 2 channels,
 *     min(32, 3 x 2) = 6 a rank, 12 GB/s; 4 MiB / 128 KiB = 32 chunks, max_chunks 8.
 * (2) Alltoall of 8 MiB on ranks 0, 2, ..., 14 (across nodes: 16 p2p channels): 1 MiB per
 *     peer, starts on 2, part 512 KiB > 128 KiB doubles to 4 (4 <= 4 / 2 fails next): 4
 *     channels, min(16, 7 x 4) = 16 a rank, 32 GB/s; 256 KiB / 128 KiB = 2 chunks.
 *     Without the map: 2 channels (part 512 KiB <= 4 MiB), min(32, 7 x 2) = 14 a rank,
 *     28 GB/s, 512 KiB / 128 KiB = 4 chunks. */
static void t_p2p_req_map(void)
{
    static const int strided4[4] = {0, 2, 4, 6};
    static const int strided8[8] = {0, 2, 4, 6, 8, 10, 12, 14};
    static const struct { int n; const int *map; uint64_t bytes; double cap[2]; int chunks[2]; }
        cases[2] = {{4, strided4, 32u << 20, {48, 12}, {2, 8}},
                    {8, strided8, 8u << 20, {32, 28}, {2, 4}}};
    cs_topo *t = NULL;
    cs_nccl_params p;
    cs_nccl_pick pk;
    int on = 0, i, m;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 0, &p, &on, &err), 0);
    p.channel_GBps = 1;
    memset(&pk, 0, sizeof pk);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("direct", CS_COLL_ALLTOALL, &pk.algo, &err), 0);
    pk.proto = CS_PROTO_SIMPLE;
    for (i = 0; i < 2; i++)
        for (m = 0; m < 2; m++) {
            cs_coll_req req, built;
            cs_sched s;
            cs_sim_costs costs;
            cs_coll_req_init(&req, CS_COLL_ALLTOALL, cases[i].n, cases[i].bytes);
            if (m == 0) {
                req.p2p_topo = t;
                req.p2p_map = cases[i].map;
            }
            CU_ASSERT_EQUAL_FATAL(cs_nccl_build(&req, &p, &pk, &s, &costs, &built, &err), 0);
            CS_ASSERT_REL(costs.chan_GBps, cases[i].cap[m], 1e-12);
            CU_ASSERT_EQUAL(built.chunks, cases[i].chunks[m]);
            cs_sched_fini(&s);
        }
    cs_topo_free(t);
}

/* The NCCL parameters of the timing tests: no launch or protocol latency, so that times are
 * links and caps only; 2 channels, a ring channel moving at most 1.5 GB/s each way (a p2p
 * channel 2 x 1.5 = 3 GB/s each way: its send and receive have their own warps). */
static void quiet_params(cs_nccl_params *p)
{
    int i;
    cs_nccl_params_default(p);
    for (i = 0; i < CS_PROTO_COUNT; i++)
        p->proto[i].base_us = p->proto[i].hop_us = 0;
    p->channels = 2;
    p->channel_GBps = 1.5;
}

/* Alltoall on the P2P pair (2 links of 1 us between the GPUs, each direction its own): each
 * rank sends S/2 to the other. S = 8 MiB: 4 MiB per peer, 1 p2p channel capped at 3 GB/s:
 * 2 + 4194304 / 3000 = 1400.101 us. S = 16 MiB: 8 MiB per peer, 2 channels, 6 GB/s: the
 * same 2 + 8388608 / 6000 = 1400.101 us. Without the cap the link decides: 8 MiB at 12
 * GB/s = 2 + 4194304 / 12000 = 351.525 us. Protocols: 32 KiB is 16 KiB per peer, LL; 64 KiB
 * Simple, whatever is faster (NCCL decides by size). */
static void t_alltoall_channels(void)
{
    cs_topo *t = cs_test_pcie3_pair(1);
    cs_nccl_params p;
    cs_nccl_pick pk;
    cs_coll_req req;
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    quiet_params(&p);
    cs_coll_req_init(&req, CS_COLL_ALLTOALL, 2, 8u << 20);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.proto, CS_PROTO_SIMPLE);
    CU_ASSERT_EQUAL(pk.channels, 1);
    CU_ASSERT_EQUAL(pk.wrong, 0);
    CS_ASSERT_REL(pk.time_us, 2 + 4194304 / 3000.0, 1e-9);
    req.bytes = 16u << 20;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.channels, 2);
    CU_ASSERT_EQUAL(pk.wrong, 0);
    CS_ASSERT_REL(pk.time_us, 2 + 8388608 / 6000.0, 1e-9);
    p.channel_GBps = 0;
    req.bytes = 8u << 20;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 0, &pk, &err), 0);
    CS_ASSERT_REL(pk.time_us, 2 + 4194304 / 12000.0, 1e-9);
    /* sendrecv sends the whole S to the next rank: 4 MiB on 1 channel (3 GB/s), 8 MiB on
     * 2 (6 GB/s): 2 + 4194304 / 3000 = 2 + 8388608 / 6000 = 1400.101 us either way. Its
     * pieces go through the connection's FIFO one after another, each ending on a whole
     * picosecond: a few ps off the quotient (1e-8). */
    p.channel_GBps = 1.5;
    req.coll = CS_COLL_SENDRECV;
    req.bytes = 4u << 20;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.channels, 1);
    CU_ASSERT_EQUAL(pk.wrong, 0);
    CS_ASSERT_REL(pk.time_us, 2 + 4194304 / 3000.0, 1e-8);
    req.bytes = 8u << 20;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.channels, 2);
    CS_ASSERT_REL(pk.time_us, 2 + 8388608 / 6000.0, 1e-8);
    req.coll = CS_COLL_ALLTOALL;
    p.channel_GBps = 0;
    req.bytes = 32768;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 0, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.proto, CS_PROTO_LL);
    req.bytes = 65536;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 0, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.proto, CS_PROTO_SIMPLE);
    cs_topo_free(t);
}

/* Broadcast as NCCL's pipelined chain: 4 ranks on alpha_beta (a = 1 us, 10 GB/s), one
 * channel, Simple forced: the whole 4 MiB goes in 512 KiB chunks (BROADCAST_CHUNKSTEPS 1),
 * k = 8 pieces down p - 1 = 3 hops: (p - 2 + k)(a + S/k b) = 10 (1 + 524288 / 10000) =
 * 10 x 53.4288 = 534.288 us. Reduce up the same chain reduces inside the receive (GPU
 * faster than the link): the same 534.288 us. With allreduce's 2 MiB chunks it would be
 * (2 + 2)(1 + 209.7152) = 842.86 us; with the old blocks of S/p, (2 + 1)(1 + 419.4304).
 * 64 MiB: NCCL's 128 chunks would pay 128 latencies one after the other; the chain takes
 * k = round(sqrt((p - 2) S / (a B))) = round(sqrt(2 x 67108864 / 10000)) = round(115.85) =
 * 116 pieces (the largest ceil(S / 116) = 578525 B): k a + S b + (p - 2)(a + 578525 b) =
 * 116 + 6710.8864 + 2 x 58.8525 = 6944.5914 us. */
static void t_broadcast_chain(void)
{
    cs_topo *t = cs_test_topo("{\"kind\": \"alpha_beta\", \"ranks\": 4, \"reduce_GBps\": 500, "
                      "\"link\": {\"bandwidth_GBps\": 10, \"latency_us\": 1}}");
    static const cs_coll colls[2] = {CS_COLL_BROADCAST, CS_COLL_REDUCE};
    cs_nccl_params p;
    int i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    quiet_params(&p);
    p.channels = 1;
    p.channel_GBps = 0;
    p.force_proto = CS_PROTO_SIMPLE;
    for (i = 0; i < 2; i++) {
        cs_coll_req req;
        cs_nccl_pick pk;
        cs_err err;
        cs_coll_req_init(&req, colls[i], 4, 4u << 20);
        req.topo = t;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pk, &err), 0);
        CU_ASSERT_EQUAL(pk.chunks, 8);
        CU_ASSERT_EQUAL(pk.wrong, 0);
        CS_ASSERT_REL(pk.time_us, 534.288, 1e-9);
        req.bytes = 64u << 20;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 0, &pk, &err), 0);
        CU_ASSERT_EQUAL(pk.chunks, 116);
        CS_ASSERT_REL(pk.time_us, 6944.5914, 1e-9);
    }
    cs_topo_free(t);
}

/* One channel cap, three collectives on the P2P pair (12 GB/s links, 2 us per route), 2
 * channels, a ring channel at most 1.5 GB/s each way. Allgather of 8 MiB: each rank sends
 * its 4 MiB, 2 MiB per ring channel (1 piece of at most 2 MiB): 2 + 2097152 / 1500 =
 * 1400.101 us. Alltoall of 8 MiB: 4 MiB per peer on 1 p2p channel, whose send and receive
 * have their own warps (2 x 1.5 = 3 GB/s): 2 + 4194304 / 3000, the same 1400.101 us: one
 * p2p channel moves what two ring channels do. Broadcast of 4 MiB on 2 ranks: the root
 * only sends, the peer only receives (2 x 1.5 per channel, 2 channels: 6 GB/s), in one
 * piece (a chain of one hop gains nothing from pieces, whose latencies NCCL overlaps):
 * 2 + 4194304 / 6000 = 701.051 us. */
static void t_channel_groups(void)
{
    cs_topo *t = cs_test_pcie3_pair(1);
    static const cs_coll colls[3] = {CS_COLL_ALLGATHER, CS_COLL_ALLTOALL, CS_COLL_BROADCAST};
    static const uint64_t bytes[3] = {8u << 20, 8u << 20, 4u << 20};
    static const double want[3] = {2 + 2097152 / 1500.0, 2 + 4194304 / 3000.0,
                                   2 + 4194304 / 6000.0};
    cs_nccl_params p;
    int i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    quiet_params(&p);
    p.force_proto = CS_PROTO_SIMPLE;
    for (i = 0; i < 3; i++) {
        cs_coll_req req;
        cs_nccl_pick pk;
        cs_err err;
        cs_coll_req_init(&req, colls[i], 2, bytes[i]);
        req.topo = t;
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pk, &err), 0);
        CU_ASSERT_EQUAL(pk.wrong, 0);
        CS_ASSERT_REL(pk.time_us, want[i], 1e-9);
    }
    cs_topo_free(t);
}

/* A p2p channel's block (NCCL_MAX_NTHREADS 640) gives its send and its receive half each
 * (sendrecv.h), as a tree channel gives its reduce and its broadcast (runTreeSplit): one
 * direction of either moves half NCCL's perChMaxTreeBws at one node (tuning.cc): Volta
 * 26.5 / 2 = 13.25, Ampere 24.0 / 2 = 12, Hopper 38.7 / 2 = 19.35, Blackwell 70 / 2 = 35
 * GB/s. DGX A100 (nvlink3: sm 80; 24 channels, so 32 p2p channels, 32 a peer; 12 NVLinks
 * at 20 = 240 GB/s a GPU), 8 ranks, launch and protocol latencies zeroed, the route's 2 us
 * kept. A send of S starts on 32 halved while x 8 > 32: 4 channels, doubled while its part
 * exceeds 32 x 512 KiB = 16 MiB and the channels stay <= 16.
 * (1) sendrecv 128 MiB: 4, 8 (part 16 MiB): 8 x 12 = 96 GB/s, 2 + 134217728 / 96000 =
 *     1400.101333 us (nccl-tests on a DGX A100: 110.8 GB/s). 256 MiB: 16 channels, 192
 *     GB/s, 2 + 268435456 / 192000 = the same 1400.101333 us (measured 188.6); without the
 *     figure the links: 2 + 268435456 / 240000 = 1120.481067 us. 1 GiB: 32 channels, 384
 *     GB/s of blocks, the links decide: 2 + 1073741824 / 240000 = 4475.924267 us.
 * (2) NCCL 2.13.4-2.19.4 (table 2.19.4) also halves a send's most channels on one node
 *     while x 8 > 4 x 32: 16. 1 GiB: 16 channels, 2 + 1073741824 / 192000 = 5594.405333 us
 *     (measured 195.1 GB/s).
 * (3) alltoall 1 GiB (2.30.7): 128 MiB a peer on 8 channels, a rank's 7 sends on min(32,
 *     7 x 8) = 32 channels, 384 GB/s: the links, 2 + 7 x 134217728 / 240000 = 3916.683733
 *     us. With 16 p2p channels (channels 16): 16 x 12 = 192 GB/s, 2 + 939524096 / 192000 =
 *     4895.354667 us. */
static void t_p2p_block_cap(void)
{
    static const struct { uint64_t bytes; int ch; double us; } sr[3] = {
        {128u << 20, 8, 2 + 134217728 / 96000.0}, {256u << 20, 16, 2 + 268435456 / 192000.0},
        {1u << 30, 32, 2 + 1073741824 / 240000.0}};
    cs_topo *t = NULL;
    cs_nccl_params p, q;
    cs_nccl_pick pk;
    cs_nccl_p2p pp;
    cs_coll_req req;
    cs_err err;
    int on = 0, i;
    json_t *j;
    char note[128];
    CS_ASSERT_REL(cs_nccl_p2p_cap_GBps(75), 13.25, 1e-12);
    CS_ASSERT_REL(cs_nccl_p2p_cap_GBps(80), 12.0, 1e-12);
    CS_ASSERT_REL(cs_nccl_p2p_cap_GBps(90), 19.35, 1e-12);
    CS_ASSERT_REL(cs_nccl_p2p_cap_GBps(100), 35.0, 1e-12);
    CU_ASSERT_EQUAL(cs_nccl_p2p_cap_GBps(0), 0.0);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-a100", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-a100", NULL, 0, &p, &on, &err), 0);
    CS_ASSERT_REL(p.p2p_GBps, 12.0, 1e-12);
    cs_nccl_p2p_setup(&p, t, NULL, 8, &pp);
    CU_ASSERT_EQUAL(pp.n_channels, 32);
    CU_ASSERT_EQUAL(pp.per_peer, 32);
    CU_ASSERT_EQUAL(pp.ch_min, 4);
    CU_ASSERT_EQUAL(cs_nccl_p2p_rank_channels(&pp, CS_COLL_SENDRECV, 8, 8), 8);
    CU_ASSERT_EQUAL(cs_nccl_p2p_rank_channels(&pp, CS_COLL_ALLTOALL, 8, 8), 32);
    CU_ASSERT_EQUAL(cs_nccl_p2p_rank_channels(&pp, CS_COLL_ALLTOALL, 2, 2), 2);
    p.launch_us = 0;
    for (i = 0; i < CS_PROTO_COUNT; i++)
        p.proto[i].base_us = p.proto[i].hop_us = 0;
    cs_coll_req_init(&req, CS_COLL_SENDRECV, 8, 0);
    req.topo = t;
    for (i = 0; i < 3; i++) {
        req.bytes = sr[i].bytes;
        CU_ASSERT_EQUAL(cs_nccl_p2p_channels(&pp, sr[i].bytes), sr[i].ch);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, i == 2, &pk, &err), 0);
        CU_ASSERT_EQUAL(pk.channels, sr[i].ch);
        CU_ASSERT(i < 2 || pk.wrong == 0);
        CS_ASSERT_REL(pk.time_us, sr[i].us, 1e-8);
    }
    q = p;
    q.p2p_GBps = 0;
    req.bytes = 256u << 20;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &q, 0, &pk, &err), 0);
    CS_ASSERT_REL(pk.time_us, 2 + 268435456 / 240000.0, 1e-8);
    /* (2) NCCL 2.19.4's rule */
    CU_ASSERT_EQUAL_FATAL(cs_nccl_params_version("2.19.4", &q, &err), 0);
    CU_ASSERT_EQUAL(q.p2p_op_x4, 1);
    q = p;
    q.p2p_op_x4 = 1;
    cs_nccl_p2p_setup(&q, t, NULL, 8, &pp);
    CU_ASSERT_EQUAL(pp.per_peer, 16);
    CU_ASSERT_EQUAL(pp.ch_min, 4);
    req.bytes = 1u << 30;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &q, 0, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.channels, 16);
    CS_ASSERT_REL(pk.time_us, 2 + 1073741824 / 192000.0, 1e-8);
    /* (3) alltoall */
    req.coll = CS_COLL_ALLTOALL;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 1, &pk, &err), 0);
    CU_ASSERT_EQUAL(pk.wrong, 0);
    CS_ASSERT_REL(pk.time_us, 2 + 939524096 / 240000.0, 1e-8);
    p.channels = 16;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, NULL, &p, 0, &pk, &err), 0);
    CS_ASSERT_REL(pk.time_us, 2 + 939524096 / 192000.0, 1e-8);
    cs_topo_free(t);
    /* "p2p_channel_GBps" in the "nccl" object: read, and refused when negative. */
    j = json_loads("{\"p2p_channel_GBps\": 20}", 0, NULL);
    CU_ASSERT_EQUAL(cs_nccl_params_from_json(j, &p, &err), 0);
    CS_ASSERT_REL(p.p2p_GBps, 20.0, 1e-12);
    CU_ASSERT_EQUAL(p.p2p_given, 1);
    json_decref(j);
    j = json_loads("{\"p2p_channel_GBps\": -1}", 0, NULL);
    CU_ASSERT_EQUAL(cs_nccl_params_from_json(j, &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.p2p_channel_GBps");
    json_decref(j);
    /* "p2p_channels" (NCCL's p2pnChannels on one node): 1..64, and NCCL_MAX_NCHANNELS=8
     * bounds it as it bounds the channels NCCL derives it from (32 -> 8). */
    j = json_loads("{\"channels\": 16, \"p2p_channels\": 32}", 0, NULL);
    CU_ASSERT_EQUAL(cs_nccl_params_from_json(j, &p, &err), 0);
    CU_ASSERT_EQUAL(p.p2p_channels, 32);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&p, NULL, "NCCL_MAX_NCHANNELS", "8", note, sizeof note,
                                      &err), 0);
    CU_ASSERT_EQUAL(p.p2p_channels, 8);
    CU_ASSERT_EQUAL(p.channels, 8);
    json_decref(j);
    j = json_loads("{\"p2p_channels\": 65}", 0, NULL);
    CU_ASSERT_EQUAL(cs_nccl_params_from_json(j, &p, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "nccl.p2p_channels");
    json_decref(j);
}

int cs_test_register(void)
{
    static const cs_test_case rules[] = {
        {"table", t_table}, {"p2p_pcie", t_p2p_pcie}, {"p2p_net", t_p2p_net},
        {"p2p_map", t_p2p_map}, {"p2p_req_map", t_p2p_req_map},
        {"alltoall_channels", t_alltoall_channels}, {"broadcast_chain", t_broadcast_chain},
        {"channel_groups", t_channel_groups}, {"p2p_block_cap", t_p2p_block_cap},
        {NULL, NULL}};
    return cs_test_add_suite("nccl_rules", rules);
}
