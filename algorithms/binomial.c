/* binomial.c: binomial trees rooted at the root (algorithms layer; MPICH's
 * bcast/reduce/gather/scatter_intra_binomial). With v = rank - root, broadcast and scatter
 * halve the distance each round (the root first sends to v = 2^(L-1)); reduce and gather
 * double it (v odd sends to v-1 first). L = ceil(log2 p) rounds for any p: the openmlsys
 * "divide and conquer" broadcast (a + b*l) log p. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, root = req->root, L = cs_ceil_log2(p), k, v, rc = 0;
    uint64_t S = req->bytes;
    int whole = req->coll == CS_COLL_BROADCAST || req->coll == CS_COLL_REDUCE;
    cs__front f;
    (void)err;
    if (whole) {
        if (cs_sched_chunk(s, S, -1, -1) < 0)
            return CS_ENOMEM;
    } else {
        for (v = 0; v < p; v++) {
            int r = (root + v) % p;
            if (cs_sched_chunk(s, cs_split(S, (uint64_t)p, (uint64_t)r), r, -1) < 0)
                return CS_ENOMEM;
        }
    }
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    for (k = 0; k < L && rc >= 0; k++) {
        int down = req->coll == CS_COLL_BROADCAST || req->coll == CS_COLL_SCATTER;
        int m = down ? 1 << (L - 1 - k) : 1 << k;
        /* Down: v = 0, 2m, 4m... sends to v+m. Up: v = m, 3m, 5m... sends to v-m. */
        for (v = down ? 0 : m; v < p && rc >= 0; v += 2 * m) {
            int src = (root + v) % p;
            int64_t id;
            if (down) {
                int dst = v + m;
                if (dst >= p)
                    continue;
                if (whole)
                    id = cs__put(&f, src, (root + dst) % p, CS_OP_COPY, 0, 1, k);
                else
                    id = cs__put(&f, src, (root + dst) % p, CS_OP_COPY, (uint32_t)dst,
                                 (uint32_t)((dst + m < p ? dst + m : p) - dst), k);
            } else {
                int dst = (root + v - m) % p;
                if (whole)
                    id = cs__put(&f, src, dst, CS_OP_REDUCE, 0, 1, k);
                else
                    id = cs__put(&f, src, dst, CS_OP_COPY, (uint32_t)v,
                                 (uint32_t)((v + m < p ? v + m : p) - v), k);
            }
            rc = id < 0 ? (int)id : 0;
        }
        if (rc >= 0)
            rc = cs__front_commit(&f);
    }
    cs__front_fini(&f);
    return rc;
}

/* L = ceil(log2 p) rounds. Broadcast L(a + S b), reduce L(a + S b + S g); gather and
 * scatter L a + (p-1)/p S b: the root's port carries every other block once, back to back
 * (exact for divisible S; the root's messages are the critical path for any p). */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, L = cs_ceil_log2(p);
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B;
    switch (req->coll) {
    case CS_COLL_BROADCAST:
        return L * (a + S * b);
    case CS_COLL_REDUCE:
        return L * (a + S * b + S * ab->g_s_per_B);
    case CS_COLL_GATHER:
    case CS_COLL_SCATTER:
        return p == 1 ? 0 : L * a + (S - cs__blk(req->bytes, p, req->root)) * b;
    default:
        return NAN;
    }
}

static const char *formula(const cs_coll_req *req)
{
    switch (req->coll) {
    case CS_COLL_BROADCAST: return "L(a + S*b)";
    case CS_COLL_REDUCE:
        /* With gamma the smaller subtrees of p != 2^k finish their reductions early. */
        return !cs__is_pow2(req->n_ranks) && cs__has_gamma(req) ? "~L(a + S*b + S*γ)"
                                                                : "L(a + S*b + S*γ)";
    default: return "L*a + (p-1)/p*S*b";
    }
}

const cs_algo cs_algo_binomial = {
    "binomial",
    "binomial tree from/to the root: ceil(log2 p) rounds, the set of ranks reached doubles",
    CS_COLL_BIT(CS_COLL_BROADCAST) | CS_COLL_BIT(CS_COLL_REDUCE) |
        CS_COLL_BIT(CS_COLL_GATHER) | CS_COLL_BIT(CS_COLL_SCATTER),
    NULL, build, cost, formula,
};
