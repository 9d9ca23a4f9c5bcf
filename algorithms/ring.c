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
static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, k = req->chunks, C = req->channels, t, q, j, c, n_steps, rc;
    cs_ring_plan pl;
    uint32_t *prev;       /* id of the transfer into ring position q at the last step, piece j */
    uint32_t *cur;
    if ((rc = make_chunks(req, s)) < 0)
        return rc;
    if (p == 1)
        return 0;
    cs_ring_plan_init(&pl, req);
    n_steps = req->coll == CS_COLL_ALLREDUCE ? 2 * (p - 1) : p - 1;
    prev = malloc(sizeof *prev * (size_t)p * (size_t)k);
    cur = malloc(sizeof *cur * (size_t)p * (size_t)k);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        cs_ring_plan_fini(&pl);
        return CS_ENOMEM;
    }
    for (c = 0; c < C; c++) {
        for (t = 0; t < n_steps; t++) {
            for (q = 0; q < p; q++) {
                int src = cs_ring_plan_rank(&pl, c, q), dst = cs_ring_plan_rank(&pl, c, q + 1), block;
                cs_op op;
                switch (req->coll) {
                case CS_COLL_ALLREDUCE:
                    block = cs_ring_plan_rank(&pl, c, q - t);
                    op = t < p - 1 ? CS_OP_REDUCE : CS_OP_COPY;
                    break;
                case CS_COLL_REDUCESCATTER:
                    block = cs_ring_plan_rank(&pl, c, q - t - 1);
                    op = CS_OP_REDUCE;
                    break;
                default:
                    block = cs_ring_plan_rank(&pl, c, q - t);
                    op = CS_OP_COPY;
                    break;
                }
                uint32_t before = 0;     /* this step's previous piece on the same link */
                for (j = 0; j < k; j++) {
                    /* What position q forwards at step t arrived from q-1 at step t-1; the
                     * pieces of a step follow each other so that they pipeline. */
                    uint32_t deps[2], nd = 0;
                    int64_t id;
                    if (t > 0)
                        deps[nd++] = prev[q * k + j];
                    if (j > 0)
                        deps[nd++] = before;
                    id = cs_sched_xfer_range(s, src, dst, op, (uint32_t)((c * p + block) * k + j),
                                             1, deps, nd, t);
                    if (id < 0) {
                        free(prev);
                        free(cur);
                        cs_ring_plan_fini(&pl);
                        return (int)id;
                    }
                    s->xfers[id].pipe = (uint16_t)j;
                    s->xfers[id].channel = (uint8_t)c;
                    cur[((q + 1) % p) * k + j] = (uint32_t)id;
                    before = (uint32_t)id;
                }
            }
            {
                uint32_t *tmp = prev;
                prev = cur;
                cur = tmp;
            }
        }
    }
    free(prev);
    free(cur);
    cs_ring_plan_fini(&pl);
    (void)err;
    return 0;
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
