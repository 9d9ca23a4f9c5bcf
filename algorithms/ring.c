/* ring.c: ring allreduce, allgather and reducescatter (algorithms layer). Rank r sends to
 * r+1. Allreduce is a reduce-scatter then an all-gather around the ring: 2(p-1) steps of
 * S/p bytes (Patarasuk & Yuan 2009; NCCL runRing); at step t rank r sends block
 * (r - t) mod p, reducing for t < p-1 and copying after. With --chunks k every block is
 * sent as k pipelined pieces; piece j of a step waits only for piece j of the step before.
 * With --channels C the buffer is cut into C slices, each on its own ring (odd channels run
 * the ring backwards, so a bidirectional ring's two directions both carry data). On a
 * multi-node topology (ranks in equal, contiguous groups, e.g. 2 x 8 GPUs) channel c also
 * rotates the order inside every node so that its ring enters each node at local GPU
 * c mod g: the node-to-node hops of different channels land on different GPUs and so leave
 * through different NICs and rails, as NCCL spreads its channels over the NICs. */
#include "algorithms/coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Chunks: channel c owns slice c of the buffer; in it block b (of p, the block of rank b),
 * piece j (of k) is chunk (c*p + b)*k + j. */
static int make_chunks(const cs_coll_req *req, cs_sched *s)
{
    int p = req->n_ranks, k = req->chunks, C = req->channels, c, b, j;
    for (c = 0; c < C; c++) {
        uint64_t slice = cs_split(req->bytes, (uint64_t)C, (uint64_t)c);
        for (b = 0; b < p; b++) {
            uint64_t block = cs_split(slice, (uint64_t)p, (uint64_t)b);
            for (j = 0; j < k; j++)
                if (cs_sched_chunk(s, cs_split(block, (uint64_t)k, (uint64_t)j), b, -1) < 0)
                    return CS_ENOMEM;
        }
    }
    return 0;
}

/* Channel c's ring: even channels go r -> r+1, odd ones r -> r-1, so two channels use both
 * directions of a ring's links. With g ranks per node (g > 0) the order inside each node
 * is rotated so that the ring enters every node at local rank c mod g: by c going forward,
 * by c + 1 going backward (whose entry is the last of the unrotated order). Rank at ring
 * position q. */
/* A ring schedule being built, by channel then step (stored) or by step then channel
 * (streamed): the same operations either way, with the same dependencies in the same
 * order, so both run the same events. */
typedef struct ring_gen {
    cs_coll_req req;      /* the request (copied; its topo is borrowed) */
    cs_sched *s;          /* the schedule built into */
    cs_ring_plan pl;      /* which rank is at which ring position, per channel */
    int32_t *at;          /* [c * p + q]: cs_ring_plan_rank(&pl, c, q), q in [0, p), looked up
                             once (five lookups per transfer were 15 % of a run) */
    uint32_t *prev;       /* per channel, ring position q, piece j: the transfer into q at
                             the channel's last step */
    uint32_t *cur;        /* the same for the step being built */
    int one_rank;         /* symmetric rounds: only ring position 0's transfers (see
                             symmetric()) */
} ring_gen;

static void gen_free(void *ctx)
{
    ring_gen *rg = ctx;
    if (!rg)
        return;
    cs_ring_plan_fini(&rg->pl);
    free(rg->at);
    free(rg->prev);
    free(rg->cur);
    free(rg);
}

/* Add step t of channel c: every ring position sends its block, as k pipelined pieces. */
static int emit(ring_gen *rg, int c, int t)
{
    const cs_coll_req *req = &rg->req;
    cs_sched *s = rg->s;
    int p = req->n_ranks, k = req->chunks, q, j, n_q = rg->one_rank ? 1 : p;
    uint32_t *prev = rg->prev + (size_t)c * p * k, *cur = rg->cur + (size_t)c * p * k;
    const int32_t *at = rg->at + (size_t)c * p;
    /* block position q - t (mod p), walked with q; reducescatter's is one further back */
    int bq = ((req->coll == CS_COLL_REDUCESCATTER ? -t - 1 : -t) % p + p) % p;
    for (q = 0; q < n_q; q++, bq = bq + 1 == p ? 0 : bq + 1) {
        int src = at[q], dst = at[q + 1 == p ? 0 : q + 1], block = at[bq];
        cs_op op;
        uint32_t before = 0;     /* this step's previous piece on the same link */
        switch (req->coll) {
        case CS_COLL_ALLREDUCE:
            op = t < p - 1 ? CS_OP_REDUCE : CS_OP_COPY;
            break;
        case CS_COLL_REDUCESCATTER:
            op = CS_OP_REDUCE;
            break;
        default:
            op = CS_OP_COPY;
            break;
        }
        for (j = 0; j < k; j++) {
            /* What position q forwards at step t arrived from q-1 at step t-1; the pieces
             * of a step follow each other so that they pipeline. */
            uint32_t deps[2], nd = 0;
            int64_t id;
            if (t > 0)
                deps[nd++] = prev[q * k + j];
            if (j > 0)
                deps[nd++] = before;
            id = cs_sched_xfer_range(s, src, dst, op, (uint32_t)((c * p + block) * k + j), 1,
                                     deps, nd, t);
            if (id < 0)
                return (int)id;
            s->xfers[id - s->base].pipe = (uint16_t)j;
            s->xfers[id - s->base].channel = (uint8_t)c;
            /* One rank: position 1's next transfer is position 0's, turned by one. */
            cur[(rg->one_rank ? 0 : (q + 1) % p) * k + j] = (uint32_t)id;
            before = (uint32_t)id;
        }
    }
    /* This step is the next one's previous. */
    for (q = 0; q < p * k; q++)
        prev[q] = cur[q];
    return 0;
}

static int n_steps_of(const cs_coll_req *req)
{
    return req->coll == CS_COLL_ALLREDUCE ? 2 * (req->n_ranks - 1) : req->n_ranks - 1;
}

/* Streamed: step t of every channel. */
static int gen_step(void *ctx, int t)
{
    ring_gen *rg = ctx;
    int c, rc;
    for (c = 0; c < rg->req.channels; c++)
        if ((rc = emit(rg, c, t)) < 0)
            return rc;
    return 0;
}

static const cs_sched_gen_ops ring_gen_ops = {gen_step, gen_free};

/* Most channels a symmetric ring folds. */
#define FOLD_MAX_CHANNELS 64

/* Channel c's ring direction in rank order: +1 (position q is rank q), -1 (rank -q), 0
 * neither. */
static int ring_dir(const int32_t *at, int p)
{
    int q, fwd = 1, bwd = 1;
    for (q = 0; q < p; q++) {
        fwd = fwd && at[q] == q;
        bwd = bwd && at[q] == (p - q) % p;
    }
    return fwd ? 1 : bwd ? -1 : 0;
}

/* Routes of every ring position to the next, on every channel, checked against ring
 * position 0's: hop by hop alike (bandwidth, latency), and position q's links are the
 * images of position 0's under one map per q -- the same link of position 0 always
 * becomes the same link of q, and no link is the image of two positions or of two links.
 * Then each link carries one position's flows, which are position 0's on its preimage:
 * position 0's transfers alone load their links as every rank's load theirs. */
static int routes_alike(const cs_topo *t, const int32_t *at, int p, int C)
{
    const int32_t *r0[FOLD_MAX_CHANNELS], *route;
    int n0[FOLD_MAX_CHANNELS], q, c, i, ok = 1, n_l0 = 0;
    int32_t *owner, l0[64], img[64];      /* position 0's distinct links, their images */
    if (C > FOLD_MAX_CHANNELS || !(owner = calloc((size_t)t->n_links * 2 + 1, sizeof *owner)))
        return 0;
    for (c = 0; c < C && ok; c++) {
        const int32_t *a = at + (size_t)c * p;
        n0[c] = cs_topo_route(t, t->ranks[a[0]], t->ranks[a[1]], &r0[c], NULL);
        ok = n0[c] >= 1;
        for (i = 0; i < n0[c] && ok; i++) {      /* position 0's distinct links */
            int j = 0;
            while (j < n_l0 && l0[j] != r0[c][i])
                j++;
            if (j == n_l0 && (ok = n_l0 < 64))
                l0[n_l0++] = r0[c][i];
        }
    }
    for (q = 0; q < p && ok; q++) {
        for (i = 0; i < n_l0; i++)
            img[i] = -1;
        for (c = 0; c < C && ok; c++) {
            const int32_t *a = at + (size_t)c * p;
            int n = cs_topo_route(t, t->ranks[a[q]], t->ranks[a[q + 1 == p ? 0 : q + 1]],
                                  &route, NULL);
            ok = n == n0[c];
            for (i = 0; i < n && ok; i++) {
                const cs_link *x = &t->links[cs_dlink_link(route[i])];
                const cs_link *y = &t->links[cs_dlink_link(r0[c][i])];
                int j = 0;
                while (l0[j] != r0[c][i])
                    j++;
                ok = x->bw_GBps == y->bw_GBps && x->lat_us == y->lat_us;
                if (ok && img[j] < 0) {
                    ok = !owner[route[i]];
                    owner[route[i]] = q + 1;
                    img[j] = route[i];
                } else if (ok) {
                    ok = img[j] == route[i];
                }
            }
        }
    }
    free(owner);
    return ok;
}

/* Symmetric rounds: does every rank do the same thing at the same times, without
 * touching what another rank uses? Then ring position 0's transfers alone finish when all
 * of them would, and one rank is simulated for all (a 16k-rank allreduce is 32k
 * transfers instead of 537M). It holds where every block is the same size (every rank
 * sends the same bytes every step) and, with one channel, on alpha_beta (the sender's send
 * port, the receiver's receive port and reducer are its own); on a link-level fabric
 * where the routes of every position to the next are alike and use links of their own
 * (routes_alike). Several channels share ports and reducers between directions (rank 1
 * receives from 0 on channel 0 and from 2 on channel 1), so they need a link-level fabric
 * without reducer (reduce_GBps 0) and every channel's ring in rank order, forwards or
 * backwards: rank 0's transfers on all channels then load its links as each rank's do.
 * With the rings in rank order the data check follows rank 0 too (check.c, turned sets). */
static int symmetric(const cs_coll_req *req, const int32_t *at)
{
    const cs_topo *t = req->topo;
    int p = req->n_ranks, C = req->channels, c;
    if (!req->time_only || !t || C < 1 || p < 2 || req->bytes % ((uint64_t)p * (uint64_t)C))
        return 0;
    if (C > 1) {
        if (t->model == CS_MODEL_ALPHA_BETA || t->reduce_GBps > 0)
            return 0;
        for (c = 0; c < C; c++)
            if (!ring_dir(at + (size_t)c * p, p))
                return 0;
    }
    if (t->model == CS_MODEL_ALPHA_BETA)
        return 1;
    return routes_alike(t, at, p, C);
}

/* Is every channel's ring in rank order (forwards or backwards)? Then rank 0's transfers
 * translated by q are rank q's, and the data check can follow rank 0 alone (sched.h
 * turns). */
static int in_rank_order(const int32_t *at, int p, int C)
{
    int c;
    for (c = 0; c < C; c++)
        if (!ring_dir(at + (size_t)c * p, p))
            return 0;
    return 1;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, k = req->chunks, C = req->channels, t, c, rc = 0;
    size_t n = (size_t)C * (size_t)p * (size_t)k;
    ring_gen *rg;
    if ((rc = make_chunks(req, s)) < 0)
        return rc;
    if (p == 1)
        return 0;
    rg = calloc(1, sizeof *rg);
    if (!rg || !(rg->prev = malloc(n * sizeof *rg->prev)) ||
        !(rg->cur = malloc(n * sizeof *rg->cur))) {
        gen_free(rg);
        return CS_ENOMEM;
    }
    rg->req = *req;
    rg->s = s;
    cs_ring_plan_init(&rg->pl, req);
    if (!(rg->at = malloc((size_t)C * (size_t)p * sizeof *rg->at))) {
        gen_free(rg);
        return CS_ENOMEM;
    }
    for (c = 0; c < C; c++)
        for (t = 0; t < p; t++)
            rg->at[(size_t)c * p + t] = cs_ring_plan_rank(&rg->pl, c, t);
    if (symmetric(req, rg->at)) {
        int turns = in_rank_order(rg->at, p, C);
        if (turns || req->time_only == CS_REQ_TIME)
            rg->one_rank = s->one_rank = 1;
        s->turns = rg->one_rank && turns;
        s->turn_per_block = (uint32_t)k;
        for (c = 0; c < C && s->turns; c++)      /* forwards: to rank 1, backwards: p-1 */
            s->turn_dirs |= ring_dir(rg->at + (size_t)c * p, p) > 0 ? 1u : 2u;
    }
    if (req->stream)
        return cs_sched_set_gen(s, &ring_gen_ops, rg, n_steps_of(req));
    for (c = 0; c < C && rc == 0; c++)
        for (t = 0; t < n_steps_of(req) && rc == 0; t++)
            rc = emit(rg, c, t);
    gen_free(rg);
    (void)err;
    return rc;
}

/* alpha_beta: every step all ranks send at once and every port stays busy, so k pieces on C
 * channels cost C*k*a + S/p*b per step: allreduce 2(p-1)(C k a + S/p b) + (p-1)/p S g;
 * allgather and reducescatter (p-1)(C k a + S/p b) (+ (p-1)/p S g for reducescatter). */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    double p = req->n_ranks, k = (double)req->chunks * req->channels, S = (double)req->bytes;
    double step = k * ab->a_s + S / p * ab->b_s_per_B;
    if (req->n_ranks == 1)
        return 0;
    switch (req->coll) {
    case CS_COLL_ALLREDUCE:
        return 2 * (p - 1) * step + (p - 1) / p * S * ab->g_s_per_B;
    case CS_COLL_REDUCESCATTER:
        return (p - 1) * step + (p - 1) / p * S * ab->g_s_per_B;
    case CS_COLL_ALLGATHER:
        return (p - 1) * step;
    default:
        return NAN;
    }
}

static const char *formula(const cs_coll_req *req)
{
    /* With pieces and gamma the reductions of a step overlap the next pieces' transfers, so
     * the form is an estimate there ('~': auto simulates instead). */
    if (req->chunks > 1)
        switch (req->coll) {
        case CS_COLL_ALLREDUCE: return "~2(p-1)(C*k*a + S/p*b) + (p-1)/p*S*γ";
        case CS_COLL_REDUCESCATTER: return "~(p-1)(C*k*a + S/p*b) + (p-1)/p*S*γ";
        default: break;
        }
    switch (req->coll) {
    case CS_COLL_ALLREDUCE: return "2(p-1)(C*k*a + S/p*b) + (p-1)/p*S*γ";
    case CS_COLL_REDUCESCATTER: return "(p-1)(C*k*a + S/p*b) + (p-1)/p*S*γ";
    default: return "(p-1)(C*k*a + S/p*b)";
    }
}

const cs_algo cs_algo_ring = {
    "ring",
    "ring: reduce-scatter then all-gather around the ring, 2(p-1) steps of S/p (bandwidth-optimal)",
    CS_COLL_BIT(CS_COLL_ALLREDUCE) | CS_COLL_BIT(CS_COLL_ALLGATHER) |
        CS_COLL_BIT(CS_COLL_REDUCESCATTER),
    NULL, build, cost, formula,
};
