/* chain.c: pipelined chain ("ring") broadcast and reduce (algorithms layer; NCCL's
 * PipelineFrom / PipelineTo). Broadcast: root -> root+1 -> ... -> root+p-1; reduce: the
 * reverse direction, root+1 -> root+2 -> ... -> root, each hop reducing. The buffer goes as
 * --chunks k pieces; piece j of a hop waits only for piece j of the hop before, so hops
 * overlap: (p-2+k)(a + S/k b) (models.md §3.5). Listed as "ring" for broadcast and reduce. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int check(const cs_coll_req *req, cs_err *err)
{
    if ((uint64_t)(req->n_ranks - 1) * (uint64_t)req->chunks > CS__MAX_XFERS)
        return cs_err_set(err, CS_EUNSUPP, "--chunks", "ring %s with %d chunks on %d ranks "
                          "needs %llu transfers, more than %u", cs_coll_name(req->coll),
                          req->chunks, req->n_ranks,
                          (unsigned long long)(req->n_ranks - 1) * (unsigned long long)req->chunks,
                          CS__MAX_XFERS);
    return 0;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, k = req->chunks, root = req->root, i, j;
    int is_bcast = req->coll == CS_COLL_BROADCAST, ordered = !cs__single_port(req);
    uint32_t *prev;
    (void)err;
    for (j = 0; j < k; j++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)k, (uint64_t)j), -1, -1) < 0)
            return CS_ENOMEM;
    if (p == 1)
        return 0;
    if (!(prev = malloc((size_t)k * sizeof *prev)))
        return CS_ENOMEM;
    /* Hop i goes from chain position i to i+1; broadcast starts at the root, reduce at
     * root+1 and ends at the root. Piece j of a hop waits for piece j of the hop before
     * and, on link-level fabrics, for piece j-1 of its own hop: posted together the pieces
     * would share the link and arrive together, and nothing would pipeline. */
    for (i = 0; i < p - 1; i++)
        for (j = 0; j < k; j++) {
            int src = is_bcast ? (root + i) % p : (root + 1 + i) % p;
            int dst = is_bcast ? (root + i + 1) % p : (root + 2 + i) % p;
            uint32_t deps[2];
            uint32_t nd = 0;
            int64_t id;
            if (i > 0)
                deps[nd++] = prev[j];
            if (ordered && j > 0)
                deps[nd++] = (uint32_t)s->n_xfers - 1;
            id = cs_sched_xfer_range(s, src, dst, is_bcast ? CS_OP_COPY : CS_OP_REDUCE,
                                     (uint32_t)j, 1, deps, nd, i);
            if (id < 0) {
                free(prev);
                return (int)id;
            }
            s->xfers[id].pipe = (uint16_t)j;
            prev[j] = (uint32_t)id;
        }
    free(prev);
    return 0;
}

/* A grid of p-1 hops by k pieces: the last piece reaches the end after the longest path
 * through the grid, all pieces once plus p-2 more hops of the largest (first) piece:
 * k a + S b + (p-2)(a + S/k b). With gamma every hop also reduces: the first piece takes
 * (p-1)(t + g) and each later one adds max(t, g), the slower of port and reducer. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, k = req->chunks, j;
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B, g = ab->g_s_per_B;
    double c0 = cs__blk(req->bytes, k, 0), t;
    if (p == 1)
        return 0;
    if (req->coll == CS_COLL_BROADCAST || g <= 0)
        return k * a + S * b + (p - 2) * (a + c0 * b);
    t = (p - 1) * (a + c0 * b + c0 * g);
    for (j = 1; j < k; j++) {
        double c = cs__blk(req->bytes, k, j);
        t += fmax(a + c * b, c * g);
    }
    return t;
}

static const char *formula(const cs_coll_req *req)
{
    return req->coll == CS_COLL_BROADCAST ? "(p-2+k)(a + S/k*b)"
                                          : "(p-2+k)(a + S/k*b) + (p-1)*S/k*γ";
}

const cs_algo cs_algo_chain = {
    "ring",
    "pipelined chain from (or to) the root, --chunks k pieces: (p-2+k) hops of S/k",
    CS_COLL_BIT(CS_COLL_BROADCAST) | CS_COLL_BIT(CS_COLL_REDUCE),
    check, build, cost, formula,
};
