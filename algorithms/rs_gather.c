/* rs_gather.c: Rabenseifner's reduce (algorithms layer; MPICH
 * reduce_intra_reduce_scatter_gather): a reduce-scatter by recursive halving, then a
 * binomial gather of the reduced blocks to the root: 2 log2 p a + 2(p-1)/p S b +
 * (p-1)/p S g. Ranks count from the root (v = rank - root); for p not a power of two the
 * odd v < 2r fold into v-1 first (one more a + S b + S g), so the root never folds out. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, root = req->root, v, rc, *rank, *start, step;
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
    if ((rc = cs__fold_arrays(&fd, root, 0, &rank, &start)) < 0) {
        cs__front_fini(&f);
        return rc;
    }
    for (v = 1; v < 2 * fd.r && rc >= 0; v += 2)
        rc = cs__ok(cs__put(&f, (root + v) % p, (root + v - 1) % p, CS_OP_REDUCE, 0,
                            (uint32_t)fd.p2, 0));
    if (rc >= 0)
        rc = cs__front_commit(&f);
    step = fd.r > 0;
    if (rc >= 0)
        rc = cs__halving(&f, fd.p2, rank, start, step);
    if (rc >= 0)
        rc = cs__gather_tree(&f, fd.p2, rank, start, step + cs_floor_log2(p));
    free(rank);
    cs__front_fini(&f);
    return rc;
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, lg = cs_floor_log2(p), p2 = 1 << lg, folded = p != p2;
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B, g = ab->g_s_per_B;
    double part = S - cs__blk(req->bytes, p2, p2 - 1);   /* (p'-1)/p' S */
    if (p == 1)
        return 0;
    return (2 * lg + folded) * a + (2 * part + folded * S) * b + (part + folded * S) * g;
}

static const char *formula(const cs_coll_req *req)
{
    /* p != 2^k: the fold costs one more a + S b + S g (p' = 2^floor(log2 p)). */
    return cs__is_pow2(req->n_ranks) ? "2*log2(p)*a + 2(p-1)/p*S*b + (p-1)/p*S*g"
                                     : "~(2*floor(log2(p)) + 1)*a + (2(p'-1)/p' + 1)*S*b"
                                       " + ((p'-1)/p' + 1)*S*g";
}

const cs_algo cs_algo_rs_gather = {
    "reducescatter_gather",
    "Rabenseifner: reduce-scatter by recursive halving, then binomial gather to the root",
    CS_COLL_BIT(CS_COLL_REDUCE),
    NULL, build, cost, formula,
};
