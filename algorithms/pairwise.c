/* pairwise.c: pairwise exchange (algorithms layer; MPICH reduce_scatter_block_intra_pairwise
 * and alltoall_intra_pairwise; HCCL Pairwise): p-1 blocking steps; at step s rank r sends
 * to r+s and receives from r-s, and starts step s+1 only when both are done (reductions
 * included). Reducescatter (p-1)(a + S/p (b + g)), alltoall (p-1)(a + S/p b). */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, r, d, st, is_a2a = req->coll == CS_COLL_ALLTOALL;
    uint32_t *sent, *got;     /* per rank: its send and its receive of the last step */
    uint32_t *got_now;        /* per rank: its receive of this step */
    (void)err;
    for (r = 0; r < (is_a2a ? p : 1); r++)
        for (d = 0; d < p; d++)
            if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)p, (uint64_t)d),
                               is_a2a ? r : d, is_a2a ? d : -1) < 0)
                return CS_ENOMEM;
    if (p == 1)
        return 0;
    sent = malloc(3 * (size_t)p * sizeof *sent);
    if (!sent)
        return CS_ENOMEM;
    got = sent + p;
    got_now = got + p;
    for (st = 1; st < p; st++, memcpy(got, got_now, (size_t)p * sizeof *got))
        for (r = 0; r < p; r++) {
            uint32_t deps[2] = {sent[r], got[r]};
            int64_t id;
            d = (r + st) % p;
            id = cs_sched_xfer_range(s, r, d, is_a2a ? CS_OP_COPY : CS_OP_REDUCE,
                                     (uint32_t)(is_a2a ? r * p + d : d), 1, deps,
                                     st > 1 ? 2 : 0, st - 1);
            if (id < 0) {
                free(sent);
                return (int)id;
            }
            sent[r] = got_now[d] = (uint32_t)id;
        }
    free(sent);
    return 0;
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks;
    double blk = cs__blk(req->bytes, p, 0);
    double g = req->coll == CS_COLL_ALLTOALL ? 0 : ab->g_s_per_B;
    return (p - 1) * (ab->a_s + blk * (ab->b_s_per_B + g));
}

static const char *formula(const cs_coll_req *req)
{
    return req->coll == CS_COLL_ALLTOALL ? "(p-1)(a + S/p*b)" : "(p-1)(a + S/p*(b + γ))";
}

const cs_algo cs_algo_pairwise = {
    "pairwise",
    "p-1 blocking exchange steps: at step s rank r sends to r+s and receives from r-s",
    CS_COLL_BIT(CS_COLL_REDUCESCATTER) | CS_COLL_BIT(CS_COLL_ALLTOALL),
    NULL, build, cost, formula,
};
