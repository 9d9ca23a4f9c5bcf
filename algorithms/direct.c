/* direct.c: every rank talks straight to every peer (algorithms layer; HCCL's Mesh). At
 * step s rank r sends to r+s, so each step is a permutation and no port is asked twice.
 * Reducescatter: block j of every rank goes to rank j, reduced; allgather: rank r's block
 * to everyone; allreduce: the two in turn, 2(p-1)(a + S/p b); alltoall: block (r, j) to j.
 * Everything is posted at once, so link-level fabrics run all peers in parallel. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, r, d, st, rc, chain = cs__single_port(req);
    uint64_t S = req->bytes;
    cs_coll c = req->coll;
    cs__front f;
    uint32_t *last;           /* per rank: its previous send (chained sends) */
    (void)err;
    /* Alltoall: chunk r*p + j is rank r's block for rank j; otherwise chunk j is block j
     * (owned by rank j, except for allreduce). */
    for (r = 0; r < (c == CS_COLL_ALLTOALL ? p : 1); r++)
        for (d = 0; d < p; d++) {
            int owner = c == CS_COLL_ALLTOALL ? r : c == CS_COLL_ALLREDUCE ? -1 : d;
            if (cs_sched_chunk(s, cs_split(S, (uint64_t)p, (uint64_t)d), owner,
                               c == CS_COLL_ALLTOALL ? d : -1) < 0)
                return CS_ENOMEM;
        }
    if (p == 1)
        return 0;
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    if (!(last = malloc((size_t)p * sizeof *last))) {
        cs__front_fini(&f);
        return CS_ENOMEM;
    }
    /* On a single-port fabric a rank talks to one peer at a time anyway: its sends are
     * chained in step order, which keeps every step a clean permutation. Elsewhere they are
     * all posted at once and share the links. */
    if (c == CS_COLL_ALLREDUCE || c == CS_COLL_REDUCESCATTER) {
        for (st = 1; st < p && rc >= 0; st++)
            for (r = 0; r < p && rc >= 0; r++) {
                int64_t id;
                d = (r + st) % p;
                id = cs_sched_xfer_range(s, r, d, CS_OP_REDUCE, (uint32_t)d, 1, &last[r],
                                         chain && st > 1, st - 1);
                rc = cs__front_add(&f, d, id);
                last[r] = (uint32_t)id;
            }
    }
    if (c != CS_COLL_REDUCESCATTER) {
        int step0 = c == CS_COLL_ALLREDUCE ? p - 1 : 0;
        for (st = 1; st < p && rc >= 0; st++)
            for (r = 0; r < p && rc >= 0; r++) {
                uint32_t chunk = c == CS_COLL_ALLTOALL ? (uint32_t)(r * p + (r + st) % p)
                                                       : (uint32_t)r;
                int64_t id;
                /* Allreduce: rank r's reduced block waits for all its receives. */
                id = cs__put_after(&f, r, (r + st) % p, CS_OP_COPY, &chunk, 1, &last[r],
                                   chain && (st > 1 || step0 > 0), step0 + st - 1);
                rc = cs__ok(id);
                last[r] = (uint32_t)id;
            }
    }
    free(last);
    cs__front_fini(&f);
    return rc;
}

/* Allgather/alltoall (p-1)(a + S/p b); reducescatter the same, each step waiting for its
 * reduction (g); allreduce reducescatter then allgather. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks;
    double blk = cs__blk(req->bytes, p, 0), a = ab->a_s, b = ab->b_s_per_B;
    double t = a + blk * b, rs = (p - 1) * (t + blk * ab->g_s_per_B);
    switch (req->coll) {
    case CS_COLL_ALLREDUCE: return rs + (p - 1) * t;
    case CS_COLL_REDUCESCATTER: return rs;
    default: return (p - 1) * t;
    }
}

static const char *formula(const cs_coll_req *req)
{
    switch (req->coll) {
    case CS_COLL_ALLREDUCE: return "2(p-1)(a + S/p*b) + (p-1)*S/p*γ";
    case CS_COLL_REDUCESCATTER: return "(p-1)(a + S/p*(b + γ))";
    default: return "(p-1)(a + S/p*b)";
    }
}

const cs_algo cs_algo_direct = {
    "direct",
    "straight to every peer: step s sends r -> r+s (all at once on link-level fabrics)",
    CS_COLL_BIT(CS_COLL_ALLREDUCE) | CS_COLL_BIT(CS_COLL_ALLGATHER) |
        CS_COLL_BIT(CS_COLL_REDUCESCATTER) | CS_COLL_BIT(CS_COLL_ALLTOALL),
    NULL, build, cost, formula,
};
