/* gather_broadcast.c: allgather as a binomial gather of the blocks to rank 0 followed by a
 * binomial broadcast of the whole result (algorithms layer): L a + (p-1)/p S b for the
 * gather plus L(a + S b) for the broadcast (L = ceil(log2 p)). A baseline: the broadcast
 * re-sends everything, so it loses to ring and recursive doubling for all but tiny S. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, v, rc;
    cs__front f;
    (void)err;
    for (v = 0; v < p; v++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)p, (uint64_t)v), v, -1) < 0)
            return CS_ENOMEM;
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    rc = cs__tree_gather(&f, p, 0, 0);
    if (rc >= 0)
        rc = cs__tree_bcast(&f, p, 0, 0, (uint32_t)p, cs_ceil_log2(p));
    cs__front_fini(&f);
    return rc;
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, L = cs_ceil_log2(p);
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B;
    if (p == 1)
        return 0;
    return L * a + (S - cs__blk(req->bytes, p, 0)) * b + L * (a + S * b);
}

static const char *formula(const cs_coll_req *req) { return "L*a + (p-1)/p*S*b + L(a + S*b)"; }

const cs_algo cs_algo_gather_broadcast = {
    "gather_broadcast",
    "binomial gather to rank 0, then binomial broadcast of the whole result",
    CS_COLL_BIT(CS_COLL_ALLGATHER),
    NULL, build, cost, formula,
};
