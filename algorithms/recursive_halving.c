/* recursive_halving.c: recursive halving reduce-scatter (algorithms layer; MPICH
 * reduce_scatter_intra_recursive_halving, commutative ops): the partner at distance p/2,
 * p/4, ..., 1 gets the half of the current range that does not hold its own block, reduced:
 * log2 p a + (p-1)/p S (b + g). For p not a power of two the odd v < 2r send their whole
 * buffer to v-1 first, v-1 works for both blocks, and hands block v over at the end. */
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
    if ((rc = cs__fold_blocks(req, s, &fd, &f, &rank, &start)) != 0)
        return rc < 0 ? rc : 0;
    if ((rc = step = cs__fold_in(&f, &fd, 0, CS_OP_REDUCE, 0, (uint32_t)p)) >= 0)
        rc = cs__halving(&f, fd.p2, rank, start, step);
    if (rc >= 0)
        rc = cs__fold_out(&f, &fd, 0, 1, 1, step + cs_floor_log2(p));
    free(rank);
    cs__front_fini(&f);
    return rc;
}

/* Powers of two: log2 p a + (p-1)/p S (b + g). Folded (estimate): one round of the whole
 * buffer before, the halving on the p' survivors, one block after. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, lg = cs_floor_log2(p), p2 = 1 << lg;
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B, g = ab->g_s_per_B;
    if (p == 1)
        return 0;
    if (p == p2)
        return lg * a + (S - cs__blk(req->bytes, p, p - 1)) * (b + g);
    return (lg + 2) * a + S * (b + g) + (p2 - 1.0) / p2 * S * (b + g)
           + cs__blk(req->bytes, p, 0) * b;
}

static const char *formula(const cs_coll_req *req)
{
    return cs__is_pow2(req->n_ranks) ? "log2(p)*a + (p-1)/p*S*(b + γ)"
                                     : "~(floor(log2(p)) + 2)*a + (1 + (p'-1)/p')*S*(b + γ)"
                                       " + S/p*b";
}

const cs_algo cs_algo_recursive_halving = {
    "recursive_halving",
    "partners at distance p/2, p/4... trade the halves they do not keep, reduced",
    CS_COLL_BIT(CS_COLL_REDUCESCATTER),
    NULL, build, cost, formula,
};
