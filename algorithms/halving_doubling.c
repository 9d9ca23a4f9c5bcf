/* halving_doubling.c: Rabenseifner's allreduce (algorithms layer; MPICH
 * allreduce_intra_reduce_scatter_allgather): a reduce-scatter by recursive halving, then an
 * all-gather by recursive doubling: 2 log2 p a + 2(p-1)/p S b + (p-1)/p S g. For p not a
 * power of two the first 2r ranks fold in pairs first (their whole buffer) and the result is
 * copied back at the end: (2 lg + 2) a + (2(p'-1)/p' + 2) S b + (1 + (p'-1)/p') S g. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, v, rc, *rank, *start, step, lg = cs_floor_log2(p);
    cs__fold fd;
    cs__front f;
    (void)err;
    cs__fold_init(&fd, p);
    for (v = 0; v < fd.p2; v++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)fd.p2, (uint64_t)v), -1, -1) < 0)
            return CS_ENOMEM;
    if (p == 1)
        return 0;
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    if ((rc = cs__fold_arrays(&fd, 0, 0, &rank, &start)) < 0) {
        cs__front_fini(&f);
        return rc;
    }
    for (v = 1; v < 2 * fd.r && rc >= 0; v += 2)
        rc = cs__ok(cs__put(&f, v, v - 1, CS_OP_REDUCE, 0, (uint32_t)fd.p2, 0));
    if (rc >= 0)
        rc = cs__front_commit(&f);
    step = fd.r > 0;
    if (rc >= 0)
        rc = cs__halving(&f, fd.p2, rank, start, step);
    if (rc >= 0)
        rc = cs__doubling(&f, fd.p2, rank, start, step + lg);
    for (v = 1; v < 2 * fd.r && rc >= 0; v += 2)
        rc = cs__ok(cs__put(&f, v - 1, v, CS_OP_COPY, 0, (uint32_t)fd.p2,
                                          step + 2 * lg));
    free(rank);
    cs__front_fini(&f);
    return rc < 0 ? rc : 0;
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, lg = cs_floor_log2(p), p2 = 1 << lg, folded = p != p2;
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B, g = ab->g_s_per_B;
    double part = S - cs__blk(req->bytes, p2, p2 - 1);   /* (p'-1)/p' S */
    if (p == 1)
        return 0;
    return (2 * lg + 2 * folded) * a + (2 * part + 2 * folded * S) * b
           + (part + folded * S) * g;
}

static const char *formula(const cs_coll_req *req)
{
    /* p != 2^k: MPICH's folded form (p' = 2^floor(log2 p)). */
    return cs__is_pow2(req->n_ranks) ? "2*log2(p)*a + 2(p-1)/p*S*b + (p-1)/p*S*g"
                                     : "~(2*floor(log2(p)) + 2)*a + (2(p'-1)/p' + 2)*S*b"
                                       " + ((p'-1)/p' + 1)*S*g";
}

const cs_algo cs_algo_halving_doubling = {
    "halving_doubling",
    "Rabenseifner: reduce-scatter by recursive halving, all-gather by recursive doubling",
    CS_COLL_BIT(CS_COLL_ALLREDUCE),
    NULL, build, cost, formula,
};
