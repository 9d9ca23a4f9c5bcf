/* scatter_allgather.c: van de Geijn broadcast (algorithms layer; MPICH
 * bcast_intra_scatter_ring_allgather): a binomial scatter of p blocks from the root, then a
 * ring all-gather of the blocks. (log2 p + p - 1) a + 2(p-1)/p S b: bandwidth-optimal for
 * long messages. v = rank - root; block v is the chunk rank v ends the scatter with. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, root = req->root, L = cs_ceil_log2(p), k, v, t, rc = 0;
    cs__front f;
    uint32_t *ring;
    (void)err;
    for (v = 0; v < p; v++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)p, (uint64_t)v), -1, -1) < 0)
            return CS_ENOMEM;
    if (p == 1)
        return 0;
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    /* Scatter: round k, v = 0, 2m, 4m... (m = 2^(L-1-k)) sends blocks [v+m, v+2m). */
    for (k = 0; k < L && rc >= 0; k++) {
        int m = 1 << (L - 1 - k);
        for (v = 0; v + m < p && rc >= 0; v += 2 * m) {
            int end = v + 2 * m < p ? v + 2 * m : p;
            int64_t id = cs__put(&f, (root + v) % p, (root + v + m) % p, CS_OP_COPY,
                                 (uint32_t)(v + m), (uint32_t)(end - v - m), k);
            /* The sender's all-gather waits for its scatter sends too: the phases stay apart
             * as in the textbook, whatever order the ports pick. */
            rc = cs__front_add(&f, (root + v) % p, id);
        }
        if (rc >= 0)
            rc = cs__front_commit(&f);
    }
    /* Ring all-gather: at step t rank v sends block v-t to v+1, the one it got at t-1
     * (prev[v]: the transfer into v at step t-1; cur[]: this step's). */
    ring = malloc(2 * (size_t)p * sizeof *ring);
    if (!ring && rc >= 0)
        rc = CS_ENOMEM;
    for (t = 0; t < p - 1 && rc >= 0; t++) {
        uint32_t *prev = ring + (size_t)(t % 2) * p, *cur = ring + (size_t)((t + 1) % 2) * p;
        for (v = 0; v < p && rc >= 0; v++) {
            int src = (root + v) % p, dst = (root + v + 1) % p;
            uint32_t blk = (uint32_t)cs__mod(v - t, p);
            int64_t id;
            if (t == 0)
                id = cs__put(&f, src, dst, CS_OP_COPY, blk, 1, L + t);
            else
                id = cs_sched_xfer_range(s, src, dst, CS_OP_COPY, blk, 1, &prev[v], 1, L + t);
            if (id < 0)
                rc = (int)id;
            else
                cur[(v + 1) % p] = (uint32_t)id;
        }
    }
    free(ring);
    cs__front_fini(&f);
    return rc;
}

/* Binomial scatter L a + (p-1)/p S b (the root's messages back to back), then the ring
 * (p-1)(a + S/p b). */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, L = cs_ceil_log2(p);
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B;
    double blk0 = cs__blk(req->bytes, p, 0);   /* the largest block */
    if (p == 1)
        return 0;
    return (L + p - 1) * a + (S - blk0) * b + (p - 1) * blk0 * b;
}

/* For p != 2^k the scatter's uneven subtrees let the ring start early on some ranks and
 * late on others: the form is an estimate there. */
static const char *formula(const cs_coll_req *req)
{
    return cs__is_pow2(req->n_ranks) ? "(log2(p) + p-1)*a + 2(p-1)/p*S*b"
                                     : "~(L + p-1)*a + 2(p-1)/p*S*b";
}

const cs_algo cs_algo_scatter_allgather = {
    "scatter_allgather",
    "van de Geijn: binomial scatter of p blocks, then ring all-gather (long messages)",
    CS_COLL_BIT(CS_COLL_BROADCAST),
    NULL, build, cost, formula,
};
