/* parameter_server.c: allreduce through K server ranks (algorithms layer; Li et al.,
 * OSDI 2014; openmlsys's collective-communication chapter; PyTorch DataParallel is K = 1,
 * gather to GPU 0 and send back). Ranks 0..K-1 are servers, server k owns block k of K:
 * every rank pushes its block k to server k (reduced there), then server k sends the result
 * back to every rank. K = 1: 2(p-1)(a + S b) -- linear in the workers, the point of the
 * example. --servers K sets K (1 <= K <= p). */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

static int check(const cs_coll_req *req, cs_err *err)
{
    if (req->servers < 1 || req->servers > req->n_ranks)
        return cs_err_set(err, CS_EUNSUPP, "--servers",
                          "parameter_server needs 1 to %d servers on %d ranks, got %d",
                          req->n_ranks, req->n_ranks, req->servers);
    return 0;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, K = req->servers, r, k, i, rc;
    int chain = cs__single_port(req);
    int64_t *last;            /* per rank: its previous push (chained on single-port fabrics) */
    cs__front f;
    (void)err;
    for (k = 0; k < K; k++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)K, (uint64_t)k), -1, -1) < 0)
            return CS_ENOMEM;
    if (!(last = malloc((size_t)p * sizeof *last)))
        return CS_ENOMEM;
    if ((rc = cs__front_init(&f, s, p)) < 0) {
        free(last);
        return rc;
    }
    for (r = 0; r < p; r++)
        last[r] = -1;
    /* Push: in round i rank r sends to server (r + i) mod K (not to itself). On a
     * single-port fabric a rank's pushes go one after the other, in round order. */
    for (i = 0; i < K && rc >= 0; i++)
        for (r = 0; r < p && rc >= 0; r++) {
            uint32_t dep = (uint32_t)last[r];
            k = (r + i) % K;
            if (k == r)
                continue;
            last[r] = cs_sched_xfer_range(s, r, k, CS_OP_REDUCE, (uint32_t)k, 1, &dep,
                                          chain && last[r] >= 0, 0);
            rc = cs__front_add(&f, k, last[r]);
        }
    free(last);
    /* Pull: server k sends its reduced block to k+1, k+2, ... once all pushes are in. */
    for (k = 0; k < K && rc >= 0; k++) {
        uint32_t prev = 0, chunk = (uint32_t)k;
        for (i = 1; i < p && rc >= 0; i++) {
            int64_t id = cs__put_after(&f, k, (k + i) % p, CS_OP_COPY, &chunk, 1, &prev,
                                       chain && i > 1, 1);
            rc = cs__ok(id);
            prev = (uint32_t)id;
        }
    }
    cs__front_fini(&f);
    return rc;
}

/* K = 1: the server's port takes p-1 pushes back to back (their reductions serialised),
 * then sends p-1 copies: 2(p-1)(a + S b) with g = 0. K > 1: the same with blocks of S/K,
 * every server port busy back to back (K = p is the direct algorithm). */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, K = req->servers < 1 ? 1 : req->servers;
    double blk = cs__blk(req->bytes, K, 0), t = ab->a_s + blk * ab->b_s_per_B;
    return cs__serial_reduce(p - 1, t, blk * ab->g_s_per_B) + (p - 1) * t;
}

static const char *formula(const cs_coll_req *req)
{
    if (req->servers <= 1)
        return "2(p-1)(a + S*b) + S*γ";
    return cs__has_gamma(req) ? "~2(p-1)(a + S/K*b) + S/K*γ" : "2(p-1)(a + S/K*b)";
}

const cs_algo cs_algo_parameter_server = {
    "parameter_server",
    "push to K server ranks owning 1/K each (--servers K), reduce there, pull back",
    CS_COLL_BIT(CS_COLL_ALLREDUCE),
    check, build, cost, formula,
};
