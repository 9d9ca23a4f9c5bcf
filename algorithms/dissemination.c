/* dissemination.c: the dissemination barrier (algorithms layer; Hensgen, Finkel & Manber
 * 1988; MPICH barrier_intra_recexch's k=2 case): in round k rank r signals r+2^k with an
 * empty message; after ceil(log2 p) rounds every rank has heard, directly or not, from every
 * other: L a. The data check sees each rank's "arrived" token as a 0-byte chunk. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, L = cs_ceil_log2(p), k, r, i, rc;
    uint32_t *ids;
    cs__front f;
    (void)err;
    for (r = 0; r < p; r++)
        if (cs_sched_chunk(s, 0, r, -1) < 0)
            return CS_ENOMEM;
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    if (!(ids = malloc((size_t)p * sizeof *ids)))
        rc = CS_ENOMEM;
    /* After round k-1 rank r holds the tokens of r, r-1, ..., r-2^k+1. */
    for (k = 0; k < L && rc >= 0; k++) {
        int d = 1 << k, cnt = d < p ? d : p;
        for (r = 0; r < p && rc >= 0; r++) {
            for (i = 0; i < cnt; i++)
                ids[i] = (uint32_t)cs__mod(r - i, p);
            rc = cs__ok(cs__put_list(&f, r, (r + d) % p, CS_OP_COPY, ids, (uint32_t)cnt, k));
        }
        if (rc >= 0)
            rc = cs__front_commit(&f);
    }
    free(ids);
    cs__front_fini(&f);
    return rc;
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    return cs_ceil_log2(req->n_ranks) * ab->a_s;
}

static const char *formula(const cs_coll_req *req) { return "L*a"; }

const cs_algo cs_algo_dissemination = {
    "dissemination",
    "dissemination barrier: in round k rank r signals r+2^k; ceil(log2 p) rounds",
    CS_COLL_BIT(CS_COLL_BARRIER),
    NULL, build, cost, formula,
};
