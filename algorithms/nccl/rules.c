/* rules.c: NCCL's per-collective rules as data (algorithms/nccl). Facts from NVIDIA/nccl
 * (master as of 2026, the 2.30 line; line numbers of that tree):
 *   src/include/collectives.h:19-34  *_CHUNKSTEPS / *_SLICESTEPS per collective: allreduce,
 *       allgather, reducescatter 4 / 2 steps (NCCL_STEPS / 2, / 4); broadcast, reduce,
 *       alltoall, gather, scatter 1 / 1.
 *   src/enqueue.cc:2222-2227  chunkSize = stepSize x chunkSteps for Simple on the ring only
 *       (1 step otherwise); stepSize = buffSize / NCCL_STEPS = 4 MiB / 8 (init.cc:813,
 *       device.h:26).
 *   src/enqueue.cc:91-102  ncclFuncTrafficPerByte: allreduce 2, allgather and reducescatter
 *       nRanks, others 1.
 *   src/enqueue.cc:2190-2214  the pattern per collective: broadcast PipelineFrom, reduce
 *       PipelineTo, allgather/reducescatter Ring, allreduce RingTwice (or trees, NVLS).
 *   src/init.cc:818-843  p2pChunkSize: P2P_NET_CHUNKSIZE 128 KiB across nodes,
 *       P2P_NVL_CHUNKSIZE 512 KiB when all GPUs are NVLink-connected, P2P_PCI_CHUNKSIZE
 *       128 KiB otherwise; never above a Simple step.
 *   src/graph/paths.cc:920-955  channels per peer: 2 x max(1, path bw / one NVLink's bw)
 *       over NVLink, 2 over PCIe, max(NICs, ceil(NIC bw / P2P_PER_CHANNEL_NET_BW = 14 GB/s))
 *       over the network; p2pnChannelsPerPeer is the smallest over the peers.
 *   src/graph/paths.cc:977-1004  p2pnChannels = pow2Up(nChannels); per peer pow2Up, at most
 *       p2pnChannels; across nodes halved while per_peer x ceil(peers / 8) > p2pnChannels.
 *   src/enqueue.cc:1143-1146  an op's starting channels: per_peer halved while
 *       channels x nRanks > p2pnChannels.
 *   src/enqueue.cc:916-933  an op of b bytes: min(start, ceil(b / minPart)) channels,
 *       doubled while the part exceeds maxPart (minPart chunk/8, maxPart 32 chunks on one
 *       node; chunk/2 and 1 chunk across nodes); LL while b <= channels x
 *       P2P_LL_THRESHOLD (16 KiB, enqueue.cc:859) and not to self, else Simple.
 *   src/device/sendrecv.h:96-160  a p2p channel runs its send and its receive in separate
 *       warps, at the same time.
 *   src/init.cc:890-955 ncclP2pSchedule, src/enqueue.cc:1130-1200  alltoall's n sends
 *       and n receives are paired into rounds (a send to group + delta, a receive from
 *       group - delta, deltas in the quadratic order 0, 1, 3, 6, ... over groups of local
 *       ranks), each round on its own channel base, all rounds of a group call in one
 *       kernel: they run together, as direct.c posts every peer at once. */
#include "algorithms/nccl/rules.h"

#include <string.h>

/* Steps of a Simple chunk in the parameter table's chunk_bytes (NCCL's allreduce chunk,
 * ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2). */
#define TABLE_CHUNK_STEPS 4

/* The table, one row per collective NCCL runs (gather and scatter are nccl-tests' grouped
 * sends and receives). Algorithms: the ring schedule (ring.c) for the ring patterns, the
 * pipelined chain (chain.c, listed as "ring") for broadcast and reduce, NCCL's trees across
 * nodes for allreduce, the p2p schedules for the rest. */
static const cs_nccl_coll_rule rules[] = {
    /* coll, pattern, algorithms, chunk steps, slice steps, traffic/byte, reduces */
    {CS_COLL_ALLREDUCE, CS_NCCL_PAT_RING_TWICE, {"ring", "double_binary_tree", NULL}, 4, 2, 2, 1},
    {CS_COLL_ALLGATHER, CS_NCCL_PAT_RING, {"ring", NULL, NULL}, 4, 2, 0, 0},
    {CS_COLL_REDUCESCATTER, CS_NCCL_PAT_RING, {"ring", NULL, NULL}, 4, 2, 0, 1},
    {CS_COLL_BROADCAST, CS_NCCL_PAT_PIPELINE, {"ring", NULL, NULL}, 1, 1, 1, 0},
    {CS_COLL_REDUCE, CS_NCCL_PAT_PIPELINE, {"ring", NULL, NULL}, 1, 1, 1, 1},
    {CS_COLL_ALLTOALL, CS_NCCL_PAT_P2P, {"direct", NULL, NULL}, 1, 1, 1, 0},
    {CS_COLL_SENDRECV, CS_NCCL_PAT_P2P, {"ring", NULL, NULL}, 1, 1, 1, 0},
    {CS_COLL_GATHER, CS_NCCL_PAT_P2P, {"linear", NULL, NULL}, 1, 1, 1, 0},
    {CS_COLL_SCATTER, CS_NCCL_PAT_P2P, {"linear", NULL, NULL}, 1, 1, 1, 0},
};

static const cs_nccl_coll_rule none = {CS_COLL_ALLREDUCE, CS_NCCL_PAT_NONE, {NULL, NULL, NULL},
                                       1, 1, 1, 0};

int cs_nccl_nvls_supported(const char *dtype, const char *redop)
{
    static const char *const minmax[] = {"int32", "uint32", "int64", "uint64", "half",
                                         "bfloat16"};
    size_t i;
    if (!dtype || !redop)
        return 1;
    if (!strcmp(redop, "sum") && (!strcmp(dtype, "float") || !strcmp(dtype, "double")))
        return 1;
    for (i = 0; i < sizeof minmax / sizeof minmax[0]; i++)
        if (!strcmp(dtype, minmax[i]))
            return !strcmp(redop, "sum") || !strcmp(redop, "min") || !strcmp(redop, "max");
    return 0;
}

const cs_nccl_coll_rule *cs_nccl_rule(cs_coll coll)
{
    size_t i;
    for (i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].coll == coll)
            return &rules[i];
    return &none;
}

uint64_t cs_nccl_coll_chunk(const cs_nccl_params *np, const cs_nccl_coll_rule *rule, cs_proto pr)
{
    uint64_t c = np->proto[pr].chunk_bytes;
    if (pr == CS_PROTO_SIMPLE && rule->chunk_steps != TABLE_CHUNK_STEPS)
        c = c / TABLE_CHUNK_STEPS * (uint64_t)rule->chunk_steps;
    return c > 0 ? c : 1;
}

uint64_t cs_nccl_step_bytes(const cs_nccl_params *np)
{
    uint64_t c = np->proto[CS_PROTO_SIMPLE].chunk_bytes / TABLE_CHUNK_STEPS;
    return c > 0 ? c : 1;
}

/* NCCL's constants for point-to-point operations. */
#define P2P_NET_CHUNK (128u * 1024)      /* NCCL_P2P_NET_CHUNKSIZE, init.cc:818 */
#define P2P_PCI_CHUNK (128u * 1024)      /* NCCL_P2P_PCI_CHUNKSIZE, init.cc:819 */
#define P2P_NVL_CHUNK (512u * 1024)      /* NCCL_P2P_NVL_CHUNKSIZE, init.cc:820 */
#define SIMPLE_STEP (512u * 1024)        /* DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS 8 */
#define P2P_LL_THRESHOLD 16384u          /* NCCL_P2P_LL_THRESHOLD, enqueue.cc:859 */
#define P2P_NET_CHANNEL_GBPS 14.0        /* NCCL_P2P_PER_CHANNEL_NET_BW, paths.cc:918 */
#define P2P_PER_BATCH 8                  /* NCCL_MAX_DEV_WORK_P2P_PER_BATCH, device.h:391 */
#define NVLINK_LINK_GBPS 20.6            /* one NVLink's bandwidth in NCCL's model (SM90,
                                            graph/topo.h:22; SM80 20, SM100 40.1) */

static int pow2_up(int x)
{
    int p = 1;
    while (p < x && p < (1 << 20))
        p <<= 1;
    return p;
}

/* Is every link of the directed route between topology ranks a and b an NVLink (class
 * "nvlink...")? *bw_GBps gets the narrowest. */
static int nvlink_route(const cs_topo *t, int a, int b, double *bw_GBps)
{
    const int32_t *route;
    int n = cs_topo_route(t, t->ranks[a], t->ranks[b], &route, NULL), i;
    double bw = 0;
    if (n < 1)
        return 0;
    for (i = 0; i < n; i++) {
        const cs_link *l = &t->links[cs_dlink_link(route[i])];
        if (strncmp(l->cls, "nvlink", 6) != 0)
            return 0;
        if (i == 0 || l->bw_GBps < bw)
            bw = l->bw_GBps;
    }
    *bw_GBps = bw;
    return 1;
}

/* NICs of topology rank a's node and their bandwidth: the links between node a and anything
 * that is in no group or another one, counted from the rank's host group. Approximated by
 * the narrowest link of the route to topology rank b of another node (one NIC per route). */
static int net_channels(const cs_topo *t, int a, int b)
{
    const int32_t *route;
    int n = cs_topo_route(t, t->ranks[a], t->ranks[b], &route, NULL), i;
    double bw = 0;
    for (i = 0; i < n; i++) {
        const cs_link *l = &t->links[cs_dlink_link(route[i])];
        if (i == 0 || l->bw_GBps < bw)
            bw = l->bw_GBps;
    }
    /* One NIC on the route: max(1, ceil(bw / 14)); NCCL's floor of 2 when no NIC is
     * known does not arise (a route exists). */
    n = (int)(bw / P2P_NET_CHANNEL_GBPS);
    if ((double)n * P2P_NET_CHANNEL_GBPS < bw)
        n++;
    return n > 1 ? n : 1;
}

/* Topology rank of group rank i: map[i], or i without a map. */
static int topo_rank(const int *map, int i) { return map ? map[i] : i; }

void cs_nccl_p2p_setup(const cs_nccl_params *np, const cs_topo *topo, const int *map,
                       int n_ranks, cs_nccl_p2p *out)
{
    int per_peer = 1 << 20, all_nvl = topo != NULL && n_ranks > 1, r, multi = 0, ok = 0;
    memset(out, 0, sizeof *out);
    if (topo && topo->n_ranks >= n_ranks) {
        ok = 1;                              /* every group rank is a rank of topo */
        for (r = 0; r < n_ranks && map; r++)
            if (map[r] < 0 || map[r] >= topo->n_ranks)
                ok = 0;
    }
    if (ok)
        for (r = 1; r < n_ranks; r++) {
            int a = topo_rank(map, 0), b = topo_rank(map, r);
            int g0 = topo->nodes[topo->ranks[a]].group, g = topo->nodes[topo->ranks[b]].group;
            int ch;
            double bw;
            if (g0 >= 0 && g >= 0 && g != g0) {
                multi = 1;
                all_nvl = 0;
                ch = net_channels(topo, a, b);
            } else if (nvlink_route(topo, a, b, &bw)) {
                ch = 2 * (bw / NVLINK_LINK_GBPS > 1 ? (int)(bw / NVLINK_LINK_GBPS) : 1);
            } else {
                all_nvl = 0;
                ch = 2;
            }
            if (ch < per_peer)
                per_peer = ch;
        }
    else
        all_nvl = 0;
    if (n_ranks < 2 || per_peer == 1 << 20)
        per_peer = 2;
    out->multi_node = multi;
    /* p2p_channels is one node's; across nodes the comm's channels are net_channels' */
    out->n_channels = pow2_up(multi ? (np->net_channels > 0 ? np->net_channels : np->channels)
                                    : np->p2p_channels > 0 ? np->p2p_channels : np->channels);
    out->per_peer = pow2_up(per_peer);
    if (multi) {
        int batches = (n_ranks + P2P_PER_BATCH - 1) / P2P_PER_BATCH;
        while (out->per_peer * batches > out->n_channels && out->per_peer > 1)
            out->per_peer /= 2;
    } else if (out->per_peer > out->n_channels) {
        out->per_peer = out->n_channels;
    }
    out->ch_min = out->per_peer;
    while (out->ch_min * n_ranks > out->n_channels && out->ch_min > 1)
        out->ch_min /= 2;
    /* NCCL 2.13.4-2.19.4 on one node: the most a send uses, halved while x ranks exceeds
     * 4 x p2pnChannels (enqueue.cc:627 at 2.19.4); ch_min was taken before, as there. */
    while (np->p2p_op_x4 && !multi && out->per_peer * n_ranks > 4 * out->n_channels &&
           out->per_peer > 1)
        out->per_peer /= 2;
    out->chunk_bytes = multi ? P2P_NET_CHUNK : all_nvl ? P2P_NVL_CHUNK : P2P_PCI_CHUNK;
    if (out->chunk_bytes > SIMPLE_STEP)
        out->chunk_bytes = SIMPLE_STEP;
    out->min_part = multi ? out->chunk_bytes / 2 : out->chunk_bytes / 8;
    out->max_part = multi ? out->chunk_bytes : out->chunk_bytes * 32;
    out->ll_threshold = P2P_LL_THRESHOLD;
}

int cs_nccl_p2p_channels(const cs_nccl_p2p *pp, uint64_t bytes)
{
    uint64_t part;
    int ch;
    if (bytes == 0)
        return 1;
    ch = pp->ch_min;
    if ((bytes + pp->min_part - 1) / pp->min_part < (uint64_t)ch)
        ch = (int)((bytes + pp->min_part - 1) / pp->min_part);
    part = (bytes + (uint64_t)ch - 1) / (uint64_t)ch;
    if (part < pp->min_part)
        part = pp->min_part;
    while (part > pp->max_part && ch <= pp->per_peer / 2) {
        ch *= 2;
        part = (bytes + (uint64_t)ch - 1) / (uint64_t)ch;
    }
    return ch;
}

int cs_nccl_dir_groups(const cs_nccl_coll_rule *rule, int n_ranks)
{
    return rule->pattern == CS_NCCL_PAT_P2P ||
           (rule->pattern == CS_NCCL_PAT_PIPELINE && n_ranks == 2) ? 2 : 1;
}

int cs_nccl_p2p_rank_channels(const cs_nccl_p2p *pp, cs_coll coll, int n_ranks, int ch)
{
    int peers = coll == CS_COLL_ALLTOALL || coll == CS_COLL_SCATTER ? n_ranks - 1 : 1;
    long all = (long)(peers > 1 ? peers : 1) * ch;
    if (all > pp->n_channels)
        all = pp->n_channels;
    return all > ch ? (int)all : ch;
}

double cs_nccl_p2p_chan_GBps(const cs_nccl_params *np, double chan_GBps)
{
    if (np->p2p_GBps > 0 && (!(chan_GBps > 0) || np->p2p_GBps < chan_GBps))
        return np->p2p_GBps;
    return chan_GBps;
}

cs_proto cs_nccl_p2p_proto(const cs_nccl_p2p *pp, uint64_t bytes, int ch)
{
    return bytes <= (uint64_t)ch * pp->ll_threshold ? CS_PROTO_LL : CS_PROTO_SIMPLE;
}
