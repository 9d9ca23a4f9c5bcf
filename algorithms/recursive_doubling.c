/* recursive_doubling.c: recursive doubling allreduce and allgather (algorithms layer;
 * MPICH allreduce_intra_recursive_doubling, allgather_intra_recursive_doubling). Partners
 * at distance 1, 2, 4, ... exchange everything they hold: allreduce the whole buffer every
 * round (log2 p (a + S b)), allgather a doubling run of blocks (log2 p a + (p-1)/p S b).
 * For p not a power of two the first 2r ranks fold in pairs (r = p - 2^floor(log2 p)): the
 * odd one hands its data to its even partner first and gets the result back at the end. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int build_allreduce(const cs_coll_req *req, cs_sched *s)
{
    int p = req->n_ranks, w, m, k, step, rc;
    cs__fold fd;
    cs__front f;
    if (cs_sched_chunk(s, req->bytes, -1, -1) < 0)
        return CS_ENOMEM;
    if (p == 1)
        return 0;
    cs__fold_init(&fd, p);
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    rc = step = cs__fold_in(&f, &fd, 0, CS_OP_REDUCE, 0, 1);
    for (m = 1, k = 0; m < fd.p2 && rc >= 0; m *= 2, k++) {
        for (w = 0; w < fd.p2 && rc >= 0; w++)
            if (!(w & m))
                rc = cs__exchange(&f, cs__fold_old(&fd, w), cs__fold_old(&fd, w ^ m),
                                  CS_OP_REDUCE, 0, 1, step + k);
        if (rc >= 0)
            rc = cs__front_commit(&f);
    }
    if (rc >= 0)
        rc = cs__fold_out(&f, &fd, 0, 0, 1, step + k);
    cs__front_fini(&f);
    return rc < 0 ? rc : 0;
}

static int build_allgather(const cs_coll_req *req, cs_sched *s)
{
    int p = req->n_ranks, v, rc, *rank, *start, step = 0;
    uint32_t *ids;
    cs__fold fd;
    cs__front f;
    if ((rc = cs__fold_blocks(req, s, &fd, &f, &rank, &start)) != 0)
        return rc < 0 ? rc : 0;
    ids = malloc((size_t)p * sizeof *ids);
    if (!ids)
        rc = CS_ENOMEM;
    else if ((rc = step = cs__fold_in(&f, &fd, 0, CS_OP_COPY, 1, 1)) >= 0)
        rc = cs__doubling(&f, fd.p2, rank, start, step);
    step += cs_floor_log2(p);
    /* The even partner sends the folded rank every block but its own. */
    for (v = 1; v < 2 * fd.r && rc >= 0; v += 2) {
        uint32_t n = 0, i;
        for (i = 0; i < (uint32_t)p; i++)
            if (i != (uint32_t)v)
                ids[n++] = i;
        rc = cs__ok(cs__put_list(&f, v - 1, v, CS_OP_COPY, ids, n, step));
    }
    free(ids);
    free(rank);
    cs__front_fini(&f);
    return rc < 0 ? rc : 0;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    (void)err;
    return req->coll == CS_COLL_ALLREDUCE ? build_allreduce(req, s) : build_allgather(req, s);
}

/* Powers of two: allreduce log2 p (a + S b + S g), allgather log2 p a + (p-1)/p S b.
 * Otherwise the fold adds a round at each end: allreduce (lg + 2)(a + S b) + (lg + 1) S g;
 * allgather (lg + 2) a + (1/p + 2(p-1)/p) S b (estimate; lg = floor(log2 p)). */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, lg = cs_floor_log2(p), folded = p != (1 << lg);
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B, g = ab->g_s_per_B;
    double blk = cs__blk(req->bytes, p, 0);
    if (p == 1)
        return 0;
    if (req->coll == CS_COLL_ALLREDUCE)
        return (lg + folded) * (a + S * b + S * g) + folded * (a + S * b);
    if (!folded)
        return lg * a + (S - blk) * b;
    return (lg + 2) * a + (blk + 2 * (S - blk)) * b;
}

static const char *formula(const cs_coll_req *req)
{
    int pow2 = cs__is_pow2(req->n_ranks);
    if (req->coll == CS_COLL_ALLREDUCE)
        return pow2 ? "log2(p)*(a + S*b + S*γ)"
                    : "(floor(log2(p)) + 2)(a + S*b) + (floor(log2(p)) + 1)*S*γ";
    return pow2 ? "log2(p)*a + (p-1)/p*S*b" : "~(floor(log2(p)) + 2)*a + (1 + 2(p-1))/p*S*b";
}

const cs_algo cs_algo_recursive_doubling = {
    "recursive_doubling",
    "partners at distance 1, 2, 4... exchange all they hold: log2 p rounds (short messages)",
    CS_COLL_BIT(CS_COLL_ALLREDUCE) | CS_COLL_BIT(CS_COLL_ALLGATHER),
    NULL, build, cost, formula,
};
