/* nvlstree.c: NVLS across nodes as NCCL runs it (algorithms/nccl): NVLSTree's loops per
 * channel and head, its network latency, and NVLS's efficiency on its NVLink legs only
 * (nvlstree.h). mode.c applies them to every nvls candidate. */
#include "algorithms/nccl/nvlstree.h"

#include <math.h>
#include <stdint.h>

/* NVLSTree's pieces across nodes (1 = NVLS on one node: nvls.c's own): NCCL's loops per
 * channel and head, S / (C g chunk), with C = NCCL's NVLS channels (16 before Blackwell, 32
 * on it: src/transport/nvls.cc NVLS_NCHANNELS_SM90/SM100) and g heads, and the chunk as
 * NCCL 2.26 cuts it (src/enqueue.cc calcCollChunking, NVLS_TREE): NCCL_NVLS_CHUNKSIZE 128
 * KiB (64 KiB from 4 nodes), halved to 64 KiB below 4 C g 128 KiB and to 32 KiB below C g
 * 64 KiB. Between 1 and NVLS_TREE_MAX_PIECES (nvls.c's own bound on NVLS-sized pieces). */
#define NVLS_TREE_MAX_PIECES 64
/* NCCL's NVLS channels: 16 before Blackwell, 32 on it. */
static uint64_t nvls_channels(const cs_nccl_params *np)
{
    return np->sm >= 100 ? 32 : 16;
}

/* NCCL 2.26's NVLSTree chunk for req (above), bytes. */
static uint64_t nvls_tree_chunk(const cs_coll_req *req, const cs_nccl_params *np, int g)
{
    uint64_t ops = nvls_channels(np) * (uint64_t)g;
    uint64_t chunk = req->n_ranks / g >= 4 ? 65536 : 131072;
    if (req->bytes < 4 * ops * chunk && chunk > 65536)
        chunk = 65536;
    if (req->bytes < ops * chunk && chunk > 32768)
        chunk = 32768;
    return chunk;
}

int cs_nccl_nvls_tree_pieces(const cs_coll_req *req, const cs_nccl_params *np)
{
    int g = cs_node_size(req);
    uint64_t ops, k;
    if (g <= 0 || req->n_ranks / g < 2)
        return 1;
    ops = nvls_channels(np) * (uint64_t)g * nvls_tree_chunk(req, np, g);
    k = (req->bytes + ops - 1) / ops;
    return k < 1 ? 1 : k > NVLS_TREE_MAX_PIECES ? NVLS_TREE_MAX_PIECES : (int)k;
}

/* A GPU's network leg of one piece (S / g / k bytes) is C channels' chunks: each channel's
 * proxy connection posts its own (NCCL src/transport/net.cc sendProxyProgress: one isend
 * per channel's sub and step, of that step's size), so a message is at most one channel's
 * share of the piece, ceil(S / (g k C)), and at most the chunk (a piece of more than C
 * chunks, past the 64 pieces, is several loops). */
uint64_t cs_nccl_nvls_tree_msg_bytes(const cs_coll_req *req, const cs_nccl_params *np)
{
    int g = cs_node_size(req);
    uint64_t k, piece, share, chunk;
    if (g <= 0 || req->n_ranks / g < 2)
        return 0;
    k = req->chunks > 1 ? (uint64_t)req->chunks : 1;
    piece = (req->bytes / (uint64_t)g + k - 1) / k;
    share = (piece + nvls_channels(np) - 1) / nvls_channels(np);
    chunk = nvls_tree_chunk(req, np, g);
    return share < 1 ? 1 : share < chunk ? share : chunk;
}

/* NVLSTree across N >= 2 nodes (NCCL's tuner, tuning.cc): its latency grows by 2 floor(log2
 * N) network hops of nvls_net_lat_us, the tree up and down over the nodes; a proxied
 * transport's messages are the channels' (cs_nccl_nvls_tree_msg_bytes). */
void cs_nccl_nvls_tree_costs(const cs_coll_req *req, const cs_nccl_params *np,
                             cs_sim_costs *costs)
{
    int g = cs_node_size(req), k;
    uint64_t mb = cs_nccl_nvls_tree_msg_bytes(req, np);
    if (g > 0 && req->n_ranks / g >= 2)
        costs->launch_us += 2.0 * cs_floor_log2(req->n_ranks / g) * np->nvls_net_lat_us;
    for (k = 0; mb > 0 && k < CS_TR_COUNT; k++) {
        cs_transport_costs *q = &costs->tr[k];
        if (q->msg_us > 0 && (q->msg_bytes == 0 || q->msg_bytes > mb))
            q->msg_bytes = mb;
    }
}

/* NVLS's efficiency on the legs it applies to: the transfers to and from the switch (its
 * auxiliary endpoints) carry 1 / nvls_eff bytes on the wire per data byte, the network
 * legs between nodes none. NCCL's tuner (2.28 on, src/graph/tuning.cc) applies
 * nvlsEfficiency to the NVLS graph's bwIntra only and takes bwInter whole (twice that for
 * NVLSTree on 2 nodes: both directions of each NIC carry a node's sum). */
void cs_nccl_nvls_legs(cs_sched *s, const cs_nccl_params *np)
{
    uint32_t i;
    if (!(np->nvls_eff > 0) || np->nvls_eff >= 1.0 || s->stream)
        return;
    for (i = 0; i < s->n_xfers; i++) {
        cs_xfer *x = &s->xfers[i];
        if (x->op != CS_OP_COMPUTE && (x->src >= s->n_ranks || x->dst >= s->n_ranks))
            x->bytes = (uint64_t)llround((double)x->bytes / np->nvls_eff);
    }
}

