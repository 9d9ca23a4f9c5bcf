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
    int p = req->n_ranks, rc, *rank, *start, step;
    cs__fold fd;
    cs__front f;
    (void)err;
    if ((rc = cs__rabenseifner_rs(req, s, &f, &fd, &rank, &start, &step)) < 0 || !rank)
        return rc;
    rc = cs__gather_tree(&f, fd.p2, rank, start, step + cs_floor_log2(p));
    free(rank);
    cs__front_fini(&f);
    return rc;
}

/* The fold costs one message of S: the root's side never folds out. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    return cs__rabenseifner_cost(req, ab, 1);
}

static const char *formula(const cs_coll_req *req)
{
    /* p != 2^k: the fold costs one more a + S b + S g (p' = 2^floor(log2 p)). */
    return cs__is_pow2(req->n_ranks) ? "2*log2(p)*a + 2(p-1)/p*S*b + (p-1)/p*S*γ"
                                     : "~(2*floor(log2(p)) + 1)*a + (2(p'-1)/p' + 1)*S*b"
                                       " + ((p'-1)/p' + 1)*S*γ";
}

const cs_algo cs_algo_rs_gather = {
    "reducescatter_gather",
    "Rabenseifner: reduce-scatter by recursive halving, then binomial gather to the root",
    CS_COLL_BIT(CS_COLL_REDUCE),
    NULL, build, cost, formula,
};
