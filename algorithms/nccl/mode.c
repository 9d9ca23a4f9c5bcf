/* mode.c: NCCL-mode simulation of one candidate (algorithms layer): chunk the step blocks
 * by the protocol's chunk size, run with the protocol's launch, per-transfer latency and
 * bandwidth efficiency, folded where nodes or channels repeat each other; the schedule of a
 * pick for pictures. pick.c runs the candidates and keeps the fastest. */
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/mode-private.h"
#include "algorithms/nccl/fold.h"
#include "algorithms/nccl/rules.h"
#include "algorithms/nccl/nvlstree.h"
#include "sim/exec.h"
#include "sim/limits.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern const cs_algo cs_algo_ring;    /* builds a ring per channel */
extern const cs_algo cs_algo_double_binary_tree;   /* a tree pair per channel across nodes */
extern const cs_algo cs_algo_chain;   /* broadcast, reduce: a pipelined chain ("ring") */

/* The NVLS algorithms: Simple only, NVLS costs, their own (128 KiB) pieces. */
static int is_nvls(const cs_algo *ops)
{
    return !strcmp(ops->name, "in_network") || !strcmp(ops->name, "nvls");
}

/* NCCL's algorithm set per collective: the rules table (rules.c), with the nvls algorithm
 * after the others for allreduce where the fabric reduces in its switches. */
static int names_for(cs_coll c, int nvls, const char **out, int max)
{
    const cs_nccl_coll_rule *rule = cs_nccl_rule(c);
    int n = 0, i;
    for (i = 0; i < 3 && rule->algos[i] && n < max; i++)
        out[n++] = rule->algos[i];
    if (nvls && c == CS_COLL_ALLREDUCE && n < max)
        out[n++] = "nvls";
    return n;
}

int cs_nccl_algos(cs_coll coll, int nvls, const cs_algo **out, int max)
{
    const char *nm[4];
    int n = 0, i, k = names_for(coll, nvls, nm, 4);
    for (i = 0; i < k && n < max; i++) {
        const cs_algo *ops;
        if (cs_algo_lookup(nm[i], coll, &ops, NULL) == 0)
            out[n++] = ops;
    }
    return n;
}

int cs_nccl_params_algos(cs_coll coll, const cs_nccl_params *np, const cs_algo **out, int max)
{
    return cs_nccl_algo_filter(coll, np->algo_mask, out, cs_nccl_algos(coll, np->nvls, out, max));
}

/* Most transfers of a schedule built whole by cs_nccl_build (pictures, link reports). */
#define BUILD_MAX_XFERS 4e6

/* A multi-node tree's pieces: one step each (NCCL's chunk for Simple), at most
 * TREE_MAX_PIECES a tree in the request; more than TREE_SIM_PIECES (fewer on many ranks,
 * TREE_SIM_XFERS) are not simulated but extrapolated (try_one). A schedule built whole (cs_nccl_build) has at most
 * TREE_BUILD_XFERS transfers over all its trees. */
#define TREE_MAX_PIECES (1u << 30)
#define TREE_SIM_PIECES 64
#define TREE_SIM_XFERS 50000u
#define TREE_BUILD_XFERS 100000u

/* Schedules built per channel: the ring (one ring a channel), and NCCL's trees across
 * nodes (double_binary_tree.c: one tree a channel, req.channels counting pairs; each
 * pair's trees leave the nodes by other GPUs). */
static int per_channel(const cs_algo *ops, const cs_coll_req *req)
{
    return ops == &cs_algo_ring ||
           (ops == &cs_algo_double_binary_tree && req->n_ranks > 1 && cs_node_size(req) > 0);
}

/* Most transfers of a pipelined chain's schedule (bounds its pieces). */
#define CHAIN_XFERS 100000u

/* Pieces of a pipelined chain (broadcast, reduce) on n >= 2 ranks: NCCL moves chunk-sized
 * pieces with up to NCCL_STEPS (8) of them in flight on a hop, so a piece's latency hides
 * behind the others'. The chain schedule's pieces on a hop follow one another, each paying
 * its latency a (route + protocol), so k pieces of S over bandwidth B cost
 * (n - 2 + k)(a + S/(k B)): the k that minimises it, sqrt((n - 2) S / (a B)) - 1 for two
 * ranks, where NCCL's overlapped pipeline costs a + S/B - at most NCCL's own count
 * k_nccl (S / channels / chunk) and CHAIN_XFERS / (n - 1), is the closest the schedule
 * comes to NCCL's pipeline. a and B are those of the first hop (root to root + 1), B the
 * route's narrowest link times the protocol's efficiency, under the channels' cap. */
static int chain_pieces(const cs_coll_req *req, const cs_nccl_params *np, cs_proto pr,
                        double cap_GBps, uint64_t k_nccl)
{
    const cs_topo *t = req->topo;
    int p = req->n_ranks;
    double a, B, k;
    uint64_t most = CHAIN_XFERS / (uint64_t)(p > 1 ? p - 1 : 1);
    if (k_nccl > most)
        k_nccl = most;
    if (p <= 2 || k_nccl <= 1)
        return 1;
    if (!t) {
        return k_nccl > (uint64_t)np->max_chunks ? np->max_chunks : (int)k_nccl;
    } else if (t->model == CS_MODEL_ALPHA_BETA) {
        a = t->ab_lat_us;
        B = t->ab_bw_GBps;
    } else {
        const int32_t *route;
        int root = req->root % p, n;
        n = cs_topo_route(t, t->ranks[root], t->ranks[(root + 1) % p], &route, NULL);
        if (n < 1)
            return 1;
        a = cs_topo_route_lat_us(t, route, n);
        B = cs_topo_route_bw_GBps(t, route, n);
    }
    a += np->proto[pr].hop_us;
    B *= np->proto[pr].bw_eff;
    if (cap_GBps > 0 && cap_GBps < B)
        B = cap_GBps;
    if (!(a > 0) || !(B > 0))
        return (int)k_nccl;
    k = floor(sqrt((p - 2) * (double)req->bytes / (a * B * 1e3)) + 0.5);
    if (k < 1)
        k = 1;
    return k < (double)k_nccl ? (int)k : (int)k_nccl;
}

/* Bytes of one point-to-point operation of a p2p collective of bytes bytes on n ranks, as
 * nccl-tests posts them: alltoall, gather, scatter S/n to (or from) each peer, sendrecv S. */
static uint64_t p2p_op_bytes(cs_coll c, uint64_t bytes, int n)
{
    return c == CS_COLL_SENDRECV || n < 1 ? bytes : bytes / (uint64_t)n;
}

/* A point-to-point collective (rules.c): channels and protocol as NCCL's addP2pToPlan
 * decides them from the bytes of one send, NCCL's p2p chunk, on the group's ranks of
 * base->p2p_topo (through p2p_map) when set, else of base->topo. Fills req (channels,
 * pieces of a part), *chans (a peer's) and *rank_ch (the channels a rank's sends use
 * together: rules.h cs_nccl_p2p_rank_channels); CS_EUNSUPP when pr is not the protocol
 * NCCL would use (unless forced: np->force_proto, which runs as asked). */
static int prepare_p2p(const cs_coll_req *base, const cs_nccl_params *np, cs_proto pr,
                       cs_coll_req *req, int *chans, int *rank_ch, cs_err *err)
{
    cs_nccl_p2p pp;
    uint64_t op = p2p_op_bytes(base->coll, base->bytes, base->n_ranks), part, c;
    int ch;
    cs_proto want;
    if (base->p2p_topo)              /* the group's real ranks (coll.h) */
        cs_nccl_p2p_setup(np, base->p2p_topo, base->p2p_map, base->n_ranks, &pp);
    else
        cs_nccl_p2p_setup(np, base->topo, NULL, base->n_ranks, &pp);
    ch = cs_nccl_p2p_channels(&pp, op);
    want = cs_nccl_p2p_proto(&pp, op, ch);
    if (!np->proto[want].enabled && np->proto[CS_PROTO_SIMPLE].enabled)
        want = CS_PROTO_SIMPLE;
    if (np->force_proto < 0 && pr != want)
        return err ? cs_err_set(err, CS_EUNSUPP, "--proto", "NCCL sends %llu bytes per peer "
                                "with %s, not %s", (unsigned long long)op, cs_proto_name(want),
                                cs_proto_name(pr)) : CS_EUNSUPP;
    part = (op + (uint64_t)ch - 1) / (uint64_t)ch;
    c = pr == CS_PROTO_SIMPLE ? pp.chunk_bytes : np->proto[pr].chunk_bytes;
    c = c ? (part + c - 1) / c : 1;
    if (c > (uint64_t)np->max_chunks)
        c = (uint64_t)np->max_chunks;
    req->chunks = c < 1 ? 1 : (int)c;
    req->channels = ch;
    *chans = ch;
    *rank_ch = cs_nccl_p2p_rank_channels(&pp, base->coll, base->n_ranks, ch);
    return 0;
}

/* The piece of a tree across nodes: one Simple step (the buffer / NCCL_STEPS, enqueue.cc
 * computeCollChunkInfo: chunkSteps is for Simple on the ring only), the protocol's chunk
 * for LL and LL128. Bytes, >= 1. */
static uint64_t tree_piece(const cs_nccl_params *np, cs_proto pr)
{
    uint64_t c = pr == CS_PROTO_SIMPLE ? cs_nccl_step_bytes(np) : np->proto[pr].chunk_bytes;
    return c > 0 ? c : 1;
}

/* The request and costs of running ops with protocol pr; *chans (may be NULL) gets the
 * channels it uses (reported as the pick's). CS_EUNSUPP (err filled when given) if the
 * candidate cannot run. */
int cs__nccl_prepare(const cs_coll_req *base, const cs_algo *ops, const cs_nccl_params *np,
                     cs_proto pr, cs_coll_req *reqp, cs_sim_costs *costsp, int *chans,
                     cs_err *err)
{
    cs_coll_req req = *base;
    cs_sim_costs costs;
    const cs_nccl_coll_rule *rule = cs_nccl_rule(base->coll);
    int rc, nvls = is_nvls(ops), ring = per_channel(ops, base), used = 1, rank_ch = 0;
    uint64_t block;
    if (ops->check && (rc = ops->check(&req, err)) < 0)
        return rc;
    if (nvls && pr != CS_PROTO_SIMPLE)
        return err ? cs_err_set(err, CS_EUNSUPP, "--proto", "%s runs Simple only",
                                ops->name) : CS_EUNSUPP;
    if (rule->pattern == CS_NCCL_PAT_P2P && !ring) {
        if ((rc = prepare_p2p(base, np, pr, &req, &used, &rank_ch, err)) < 0)
            return rc;
    } else {
        /* NCCL trims channels for small messages; the ring builds one ring per channel,
         * each capped at channel_GBps. Other schedules stand for all their channels at
         * once, so their transfers get the channels' summed cap. */
        req.channels = cs_nccl_channels(np, pr, req.bytes,
                                        ops == &cs_algo_ring ? req.n_ranks : 1);
        used = req.channels;
        /* NCCL's trees across nodes: channel c runs tree 0 and channel c + C/2 tree 1 on the
         * same chain (connect.cc connectTrees, the channels duplicated), C trees in all, each
         * with 1/C of the buffer: C/2 pairs (double_binary_tree.c builds two per pair). */
        if (ring && ops != &cs_algo_ring && req.channels > 1)
            req.channels /= 2;
        /* Pieces: of a ring's blocks, of a tree pair's halves (per channel), of the whole
         * buffer down a pipelined chain (broadcast, reduce: each channel a slice), else of
         * a block. The chunk is the collective's (rules.c: Simple on the ring moves 4-step
         * chunks for allreduce, allgather, reducescatter, 1-step ones for broadcast, reduce). */
        block = ops == &cs_algo_ring ? req.bytes / (uint64_t)req.n_ranks / (uint64_t)req.channels
                : ring ? req.bytes / 2 / (uint64_t)req.channels
                : rule->pattern == CS_NCCL_PAT_PIPELINE ? req.bytes / (uint64_t)req.channels
                : req.bytes / (uint64_t)req.n_ranks;
        if (nvls) {
            req.chunks = cs_nccl_nvls_tree_pieces(&req, np);
        } else {
            uint64_t c = cs_nccl_coll_chunk(np, rule, pr), k = (block + c - 1) / c;
            if (k < 1)
                k = 1;
            if (ops == &cs_algo_chain) {
                /* The channels' summed cap, each direction of a channel as its groups move
                 * (rules.h cs_nccl_dir_groups). */
                double cap = np->channel_GBps * req.channels *
                             cs_nccl_dir_groups(rule, req.n_ranks);
                req.chunks = chain_pieces(&req, np, pr, cap, k);
            } else {
                if (k > (uint64_t)np->max_chunks)
                    k = (uint64_t)np->max_chunks;
                req.chunks = block > 0 ? (int)k : 1;
            }
        }
        if (ring && ops != &cs_algo_ring) {
            /* Trees across nodes pipeline their pieces down chains of g GPUs and up and
             * down the node tree in pieces of tree_piece (max_chunks is for rings, whose
             * steps pipeline by themselves; try_one extrapolates long trees). */
            uint64_t c = tree_piece(np, pr), k = (block + c - 1) / c;
            if (k > TREE_MAX_PIECES)
                k = TREE_MAX_PIECES;
            req.chunks = k < 1 ? 1 : (int)k;
        }
        /* max_chunks bounds the pieces a rank has per step over all its rings: C rings of
         * k pieces each cost C k transfers, and C rings already overlap one another. */
        if (ops == &cs_algo_ring && req.chunks > 1 && req.chunks * req.channels > np->max_chunks)
            req.chunks = np->max_chunks / req.channels > 1 ? np->max_chunks / req.channels : 1;
    }
    cs_nccl_costs(np, pr, nvls, &costs);
    if (nvls)
        cs_nccl_nvls_tree_costs(&req, np, &costs);
    /* Simple's tree allreduce splits a channel's threads between the reduce going up and
     * the broadcast coming down (all_reduce.h runTreeSplit): each direction its own cap. */
    if (ring && ops != &cs_algo_ring) {
        costs.split_dirs = pr == CS_PROTO_SIMPLE;
        if (np->tree_GBps > 0)
            costs.chan_GBps = np->tree_GBps;
    }
    /* LL rings across nodes: NCCL's llMaxBw shared by the channels (nccl.h). */
    if (pr == CS_PROTO_LL && ops == &cs_algo_ring && cs_node_size(&req) > 0) {
        double cap = cs_nccl_ll_max_GBps(req.n_ranks / cs_node_size(&req)) / req.channels;
        if (!(costs.chan_GBps > 0) || cap < costs.chan_GBps)
            costs.chan_GBps = cap;
    }
    /* channel_GBps is what one direction of a ring channel moves: the ring's one thread
     * group receives and sends with the same threads. A p2p channel gives its send and
     * its receive their own warps, and a 2-rank chain's ends work one direction each: they
     * move twice that (rules.h, cs_nccl_dir_groups). */
    if (!ring && !nvls)
        costs.chan_GBps *= cs_nccl_dir_groups(rule, base->n_ranks);
    /* A p2p channel's send and receive each have half the block: NCCL's per-channel figure
     * for the GPUs (rules.h cs_nccl_p2p_chan_GBps), the smaller of the two caps. */
    if (rule->pattern == CS_NCCL_PAT_P2P && !ring)
        costs.chan_GBps = cs_nccl_p2p_chan_GBps(np, costs.chan_GBps);
    /* One channel stands for all: a p2p collective's for the channels its rank's sends
     * use together (every rank's transfers share one cap, sim/exec.c), others' for theirs. */
    if (!ring) {
        costs.chan_GBps *= rank_ch > 0 ? rank_ch : req.channels;
        req.channels = 1;
    }
    *reqp = req;
    *costsp = costs;
    if (chans)
        *chans = used;
    return 0;
}

/* Twin channels. NCCL's rings are rotations of one another; with more channels than
 * distinct rotations (16 channels on 8 GPUs a node) channel c + m repeats channel c's ring
 * exactly. Twins share every link they cross equally (max-min fairness gives equal flows
 * equal shares), so m channels carrying m/C of the bytes on a fabric whose links all have
 * m/C of their bandwidth move every flow at the same rate: the same time, exactly, at m/C
 * of the cost. Returns the smallest such period m (an even divisor of C), or C if none. */
static int twin_period(const cs_coll_req *req)
{
    int p = req->n_ranks, C = req->channels, m, c, q;
    cs_ring_plan pl;
    cs_ring_plan_init(&pl, req);
    for (m = 2; m < C; m += 2) {
        int same = C % m == 0;
        for (c = 0; same && c + m < C; c++)
            for (q = 0; q < p && same; q++)
                same = cs_ring_plan_rank(&pl, c, q) == cs_ring_plan_rank(&pl, c + m, q);
        if (same)
            break;
    }
    cs_ring_plan_fini(&pl);
    return m < C ? m : C;
}

/* Twin tree pairs: pair c's trees start their chains at local rank c mod g
 * (double_binary_tree.c), so pair c + g repeats pair c's trees when g divides the pairs
 * (req->channels). */
static int tree_period(const cs_coll_req *req)
{
    int g = cs_node_size(req), C = req->channels;
    return g > 0 && g < C && C % g == 0 ? g : C;
}

/* A ring whose whole schedule is too large to run again for the data check: more than
 * this many transfers (about 0.2 s of simulation). */
#define FOLD_CHECK_MAX_XFERS 200000.0

static int fold_too_big(const cs_coll_req *req)
{
    double steps = req->coll == CS_COLL_ALLREDUCE ? 2.0 * (req->n_ranks - 1) : req->n_ranks - 1;
    return steps * req->n_ranks * req->channels * req->chunks > FOLD_CHECK_MAX_XFERS;
}

/* A proxy time per message on some transport: each rank's proxy thread serves all its
 * connections in arrival order. Twin channels merged m of C carry m/C of the messages on
 * links of m/C of the bandwidth, so each message costs the proxy C/m times as long: the
 * proxy's share of the time scales with the links'. The real proxy serves twin A's message
 * before twin B's, where the merged one serves both at once; on dgx-h100-x2's rings, every
 * protocol and size, the two give the same time to the picosecond (tests/test_foldtree.c
 * ring_proxy_twins), not proven in general. */
static void proxy_scale(cs_sim_costs *c, double f)
{
    int k;
    for (k = 0; k < CS_TR_COUNT; k++)
    {
        c->tr[k].msg_us *= f;
        c->tr[k].eager_msg_us *= f;
    }
}

/* Simulate req (prepared, with its costs): merge twin channels, fold, run. Fills *t_ps
 * and *wrong. */
static int run_req(cs_coll_req req, const cs_topo *topo, const cs_algo *ops,
                   const cs_nccl_params *np, cs_sim_costs *costs, int check, cs_time *t_ps,
                   int *wrong, cs_err *err)
{
    cs_sim_opts so = {check, 0, costs};
    cs_sim_costs local;
    cs_sched s;
    int rc, ring = ops == &cs_algo_ring, channels, m = 0;
    uint64_t rep_bytes = 0, bytes = req.bytes;
    int c;
    *wrong = -1;
    channels = req.channels;
    if (!np->all_channels && channels > 2 &&
        topo->model == CS_MODEL_FLUID && req.n_ranks > 1 && per_channel(ops, &req) &&
        (m = ring ? twin_period(&req) : tree_period(&req)) < channels) {
        for (c = 0; c < m; c++)
            rep_bytes += cs_split(bytes, (uint64_t)channels, (uint64_t)c);
        /* Equal slices only: the twins must carry the same bytes. */
        if (bytes % (uint64_t)channels == 0) {
            req.bytes = rep_bytes;
            req.channels = m;
            local = *costs;
            proxy_scale(&local, (double)channels / m);
            costs = &local;
            so.costs = costs;
        } else {
            m = channels;
        }
    } else {
        m = channels;
    }
    /* Many identical nodes doing the same: one node's share stands for all (fold.c),
     * exactly where the size divides evenly, and within a byte's time per step otherwise
     * when the whole schedule is too large. The data check needs the whole schedule: run
     * in full where that stays small, else the winner goes unchecked (CS_WRONG_FOLDED). */
    rc = 0;
    if (ring && !np->no_fold && (!check || fold_too_big(&req)))
        rc = cs_nccl_fold_ring(&req, topo, costs, (double)m / channels, fold_too_big(&req),
                               t_ps, err);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        *wrong = check ? CS_WRONG_FOLDED : -1;
    } else {
        if ((rc = cs_algo_build(ops, &req, &s, err)) < 0)
            return rc;
        if (is_nvls(ops))
            cs_nccl_nvls_legs(&s, np);
        /* Trees and NVLS across nodes: one channel (NVLS: shard) of each rotation class
         * (fold_tree.c). */
        rc = 0;
        if (!ring && (per_channel(ops, &req) || is_nvls(ops)) && !np->no_fold &&
            !np->all_channels && !check)
            rc = cs_nccl_fold_tree(&req, topo, &s, costs, (double)m / channels, t_ps,
                                   NULL, err);
        /* Twins merged: every link's bandwidth times m / C, scaled in the network model
         * (the topology stays untouched, so threads can share it; x 1 is exact). */
        if (rc == 0)
            rc = cs_sim_once_scaled(topo, &s, NULL, &so, (double)m / channels, t_ps, wrong,
                                    err);
        cs_sched_fini(&s);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Pieces a tree of req is simulated with: TREE_SIM_PIECES (or np's), fewer where its
 * trees' transfers, 4 a piece, pair and rank, would pass TREE_SIM_XFERS (many nodes), at
 * least 2. */
static int tree_sim_pieces(const cs_coll_req *req, const cs_nccl_params *np)
{
    uint64_t k = np->tree_sim_pieces > 1 ? (uint64_t)np->tree_sim_pieces : TREE_SIM_PIECES;
    uint64_t budget = TREE_SIM_XFERS / (4 * (uint64_t)req->channels * (uint64_t)(req->n_ranks - 1));
    if (np->tree_sim_pieces <= 1 && budget < k)
        k = budget < 2 ? 2 : budget;
    return (int)k;
}

/* np as req sees it: net_channels where its ranks are two or more nodes, else a PCIe
 * host's channel plan for its rank count (search.c), for ranks 0..n-1 of the host only (a
 * plan's strided group has no topo). */
const cs_nccl_params *cs__nccl_planned(const cs_nccl_params *np, const cs_coll_req *req,
                                      cs_nccl_params *local)
{
    if (req->topo && ((np->net_channels > 0 && np->net_channels != np->channels) ||
                      np->p2p_channels > 0) && cs_node_size(req) > 0) {
        /* Ranks over several nodes: the rings the search finds across them (nccl.h), and
         * their p2p channels (pow2Up of those; p2p_channels is one node's). */
        *local = *np;
        if (np->net_channels > 0)
            local->channels = np->net_channels;
        local->p2p_channels = 0;
        return local;
    }
    return req->topo ? cs_nccl_with_plan(np, req->n_ranks, local) : np;
}

/* The two shorter runs of a long tree (req and costs as prepare made them), or e->on 0. */
static void plan_extrap(const cs_coll_req *req, const cs_algo *ops, const cs_nccl_params *np,
                        cs_proto pr, cs_nccl_extrap *e)
{
    int sim;
    uint64_t trees, piece;
    memset(e, 0, sizeof *e);
    if (ops == &cs_algo_ring || !per_channel(ops, req) ||
        req->chunks < (sim = tree_sim_pieces(req, np)))
        return;
    trees = 2 * (uint64_t)req->channels;
    piece = tree_piece(np, pr);
    e->channels = req->channels;
    e->chunks = sim;
    e->b1 = trees * (uint64_t)sim * piece;
    e->b0 = trees * (uint64_t)(sim / 2) * piece;
    if (req->chunks > sim)
        e->on = 1;
    else if (req->bytes == e->b1)
        e->whole = 1;
    else
        memset(e, 0, sizeof *e);
}

cs_time cs_nccl_extrap_time(const cs_nccl_extrap *e, uint64_t bytes)
{
    return e->t1 + (cs_time)llround((double)(e->t1 - e->t0) * (double)(bytes - e->b1) /
                                    (double)(e->b1 - e->b0));
}

int cs_nccl_extrap_plan(const cs_coll_req *req, const cs_algo *algo, const cs_nccl_params *np,
                        cs_proto pr, cs_nccl_extrap *out)
{
    cs_coll_req r;
    cs_sim_costs costs;
    cs_nccl_params local;
    int rc;
    memset(out, 0, sizeof *out);
    np = cs__nccl_planned(np, req, &local);
    if ((rc = cs__nccl_prepare(req, algo, np, pr, &r, &costs, NULL, NULL)) < 0)
        return rc;
    plan_extrap(&r, algo, np, pr, out);
    return 0;
}

/* One candidate: build, run, return the time. A tree across nodes of more than
 * tree_sim_pieces pieces a tree is in its steady state long before its last piece: every
 * further piece adds the same time (the pipeline's period). It runs twice, with
 * tree_sim_pieces and half as many pieces of the true size, and the time is extended
 * along that line to the true size (its data unchecked, as a fold leaves it). */
int cs__nccl_try_one(const cs_coll_req *base, const cs_topo *topo, const cs_algo *ops,
                     const cs_nccl_params *np, cs_proto pr, int check, cs_nccl_pick *out,
                     cs_err *err)
{
    cs_coll_req req;
    cs_sim_costs costs;
    cs_nccl_extrap ex;
    cs_time t_ps;
    int wrong = -1, rc, used = 1;
    if ((rc = cs__nccl_prepare(base, ops, np, pr, &req, &costs, &used, NULL)) < 0)
        return rc;
    plan_extrap(&req, ops, np, pr, &ex);
    if (ex.on) {
        cs_coll_req r1 = req, r0 = req;
        int w;
        r1.chunks = ex.chunks;
        r1.bytes = ex.b1;
        r0.chunks = ex.chunks / 2;
        r0.bytes = ex.b0;
        if ((rc = run_req(r1, topo, ops, np, &costs, 0, &ex.t1, &w, err)) < 0 ||
            (rc = run_req(r0, topo, ops, np, &costs, 0, &ex.t0, &w, err)) < 0)
            return rc;
        /* the line extended past the simulated clock's end is the engine's error too (a
         * time that wrapped would be negative and win) */
        if (!((double)ex.t1 + (double)(ex.t1 - ex.t0) * ((double)req.bytes - (double)ex.b1) /
              (double)(ex.b1 - ex.b0) < (double)CS_TIME_MAX / 2))
            return cs_err_set(err, CS_ELIMIT, NULL, "%s", CS_LIMIT_PAST_CLOCK_MSG);
        t_ps = cs_nccl_extrap_time(&ex, req.bytes);
        wrong = check ? CS_WRONG_FOLDED : -1;
    } else if ((rc = run_req(req, topo, ops, np, &costs, check, &t_ps, &wrong, err)) < 0) {
        return rc;
    }
    out->algo = ops;
    out->proto = pr;
    out->chunks = req.chunks;
    out->channels = used;
    out->time_us = cs_time_to_us(t_ps);
    out->wrong = wrong;
    out->ex = ex;
    return 0;
}

int cs_nccl_build(const cs_coll_req *req, const cs_nccl_params *np, const cs_nccl_pick *pick,
                  cs_sched *s, cs_sim_costs *costs, cs_coll_req *built, cs_err *err)
{
    cs_coll_req r;
    cs_nccl_params local;
    int rc;
    double n;
    np = cs__nccl_planned(np, req, &local);
    if ((rc = cs__nccl_prepare(req, pick->algo, np, pick->proto, &r, costs, NULL, err)) < 0)
        return rc;
    /* A tree's pieces as many as TREE_BUILD_XFERS transfers allow (a picture needs no
     * more; the time came from the true pieces). */
    if (pick->algo != &cs_algo_ring && per_channel(pick->algo, &r)) {
        uint64_t cap = TREE_BUILD_XFERS / (4 * (uint64_t)r.channels * (uint64_t)(r.n_ranks - 1));
        if ((uint64_t)r.chunks > cap)
            r.chunks = cap > 0 ? (int)cap : 1;
    }
    /* The whole schedule, for pictures and link reports: refuse what would not fit (a
     * 16-channel ring on 1024 ranks is 33 million transfers, several GB). */
    n = (double)r.channels * r.chunks * r.n_ranks *
        (r.coll == CS_COLL_ALLREDUCE ? 2.0 * (r.n_ranks - 1) : r.n_ranks - 1);
    if (n > BUILD_MAX_XFERS)
        return cs_err_set(err, CS_EUNSUPP, "--channels", "the whole %s schedule has about "
                          "%.0f million transfers (%d channels x %d pieces on %d ranks), too "
                          "many to build; the time (%.1f us) came from one node standing for "
                          "all: pass --channels 1 or fewer ranks (-g) for a schedule",
                          pick->algo->name, n / 1e6, r.channels, r.chunks, r.n_ranks,
                          pick->time_us);
    if (built)
        *built = r;
    if ((rc = cs_algo_build(pick->algo, &r, s, err)) < 0)
        return rc;
    if (is_nvls(pick->algo))
        cs_nccl_nvls_legs(s, np);
    return 0;
}
