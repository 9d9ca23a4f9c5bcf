/* sendrecv.c: the sendrecv ring shift (algorithms layer), as nccl-tests' sendrecv_perf:
 * rank r sends its S-byte buffer to r+1 and receives r-1's. With --chunks k the buffer goes
 * as k pieces back to back. alpha_beta cost: k*a + S*b. */
#include "algorithms/coll.h"

#include <math.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, k = req->chunks, r, j;
    for (r = 0; r < p; r++)
        for (j = 0; j < k; j++)
            if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)k, (uint64_t)j), r,
                               (r + 1) % p) < 0)
                return CS_ENOMEM;
    if (p == 1)
        return 0;
    for (r = 0; r < p; r++)
        for (j = 0; j < k; j++) {
            int64_t id = cs_sched_xfer_range(s, r, (r + 1) % p, CS_OP_COPY,
                                             (uint32_t)(r * k + j), 1, NULL, 0, 0);
            if (id < 0)
                return (int)id;
            s->xfers[id].pipe = (uint16_t)j;
        }
    (void)err;
    return 0;
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    if (req->n_ranks == 1)
        return 0;
    return req->chunks * ab->a_s + (double)req->bytes * ab->b_s_per_B;
}

static const char *formula(const cs_coll_req *req) { return "k*a + S*b"; }

const cs_algo cs_algo_sendrecv = {
    "ring",
    "sendrecv ring shift: rank r sends its buffer to r+1 and receives from r-1",
    CS_COLL_BIT(CS_COLL_SENDRECV),
    NULL, build, cost, formula,
};
