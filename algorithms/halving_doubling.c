/* halving_doubling.c: Rabenseifner's allreduce (algorithms layer; MPICH
 * allreduce_intra_reduce_scatter_allgather): a reduce-scatter by recursive halving, then an
 * all-gather by recursive doubling: 2 log2 p a + 2(p-1)/p S b + (p-1)/p S g. For p not a
 * power of two the first 2r ranks fold in pairs first (their whole buffer) and the result is
 * copied back at the end: (2 lg + 2) a + (2(p'-1)/p' + 2) S b + (1 + (p'-1)/p') S g. The
 * ranks count from req->root (0 for collsim's own allreduce requests) in the fold in and
 * the copy back alike, so any root gives the same data and time. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, rc, *rank, *start, step, lg = cs_floor_log2(p);
    cs__fold fd;
    cs__front f;
    (void)err;
    if ((rc = cs__rabenseifner_rs(req, s, &f, &fd, &rank, &start, &step)) < 0 || !rank)
        return rc;
    rc = cs__doubling(&f, fd.p2, rank, start, step + lg);
    if (rc >= 0)
        rc = cs__fold_out(&f, &fd, req->root, 0, (uint32_t)fd.p2, step + 2 * lg);
    free(rank);
    cs__front_fini(&f);
    return rc < 0 ? rc : 0;
}

/* The fold costs two messages of S: in, and the result back out. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    return cs__rabenseifner_cost(req, ab, 2);
}

static const char *formula(const cs_coll_req *req)
{
    /* p != 2^k: MPICH's folded form (p' = 2^floor(log2 p)). */
    return cs__is_pow2(req->n_ranks) ? "2*log2(p)*a + 2(p-1)/p*S*b + (p-1)/p*S*γ"
                                     : "~(2*floor(log2(p)) + 2)*a + (2(p'-1)/p' + 2)*S*b"
                                       " + ((p'-1)/p' + 1)*S*γ";
}

const cs_algo cs_algo_halving_doubling = {
    "halving_doubling",
    "Rabenseifner: reduce-scatter by recursive halving, all-gather by recursive doubling",
    CS_COLL_BIT(CS_COLL_ALLREDUCE),
    NULL, build, cost, formula,
};
