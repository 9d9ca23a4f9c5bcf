/* reduce_broadcast.c: allreduce as a binomial reduce to rank 0 followed by a binomial
 * broadcast from it (algorithms layer): 2 ceil(log2 p)(a + S b) (+ log2 p S g). Simple and
 * latency-bound; every round moves the whole buffer. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, rc;
    cs__front f;
    (void)err;
    if (cs_sched_chunk(s, req->bytes, -1, -1) < 0)
        return CS_ENOMEM;
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    rc = cs__tree_reduce(&f, p, 0, 0, 1, 0);
    if (rc >= 0)
        rc = cs__tree_bcast(&f, p, 0, 0, 1, cs_ceil_log2(p));
    cs__front_fini(&f);
    return rc;
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int L = cs_ceil_log2(req->n_ranks);
    double S = (double)req->bytes;
    return 2 * L * (ab->a_s + S * ab->b_s_per_B) + L * S * ab->g_s_per_B;
}

static const char *formula(const cs_coll_req *req)
{
    return !cs__is_pow2(req->n_ranks) && cs__has_gamma(req) ? "~2L(a + S*b) + L*S*γ"
                                                             : "2L(a + S*b) + L*S*γ";
}

const cs_algo cs_algo_reduce_broadcast = {
    "reduce_broadcast",
    "binomial reduce to rank 0, then binomial broadcast: 2 ceil(log2 p) rounds of S",
    CS_COLL_BIT(CS_COLL_ALLREDUCE),
    NULL, build, cost, formula,
};
