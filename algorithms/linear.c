/* linear.c: the root talks to every other rank in turn (algorithms layer). Broadcast and
 * scatter: the root sends; reduce and gather: the root receives. Its single port serialises
 * the p-1 messages: the openmlsys "naive loop" broadcast (a + b*l)(p-1). */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, root = req->root, v;
    uint64_t S = req->bytes;
    int rooted_all = req->coll == CS_COLL_BROADCAST || req->coll == CS_COLL_REDUCE;
    (void)err;
    /* Broadcast/reduce move the whole buffer (one chunk); gather/scatter move block r of
     * rank r, listed from the root on (chunk v is rank root+v's block). */
    if (rooted_all) {
        if (cs_sched_chunk(s, S, -1, -1) < 0)
            return CS_ENOMEM;
    } else {
        for (v = 0; v < p; v++) {
            int r = (root + v) % p;
            if (cs_sched_chunk(s, cs_split(S, (uint64_t)p, (uint64_t)r), r, -1) < 0)
                return CS_ENOMEM;
        }
    }
    for (v = 1; v < p; v++) {
        int r = (root + v) % p;
        int64_t id;
        switch (req->coll) {
        case CS_COLL_BROADCAST:
            id = cs_sched_xfer_range(s, root, r, CS_OP_COPY, 0, 1, NULL, 0, v - 1);
            break;
        case CS_COLL_REDUCE:
            id = cs_sched_xfer_range(s, r, root, CS_OP_REDUCE, 0, 1, NULL, 0, v - 1);
            break;
        case CS_COLL_GATHER:
            id = cs_sched_xfer_range(s, r, root, CS_OP_COPY, (uint32_t)v, 1, NULL, 0, v - 1);
            break;
        default:
            id = cs_sched_xfer_range(s, root, r, CS_OP_COPY, (uint32_t)v, 1, NULL, 0, v - 1);
            break;
        }
        if (id < 0)
            return (int)id;
    }
    return 0;
}

/* The root's port is busy back to back: broadcast (p-1)(a + S b); reduce adds the
 * serialised reductions at the root; gather/scatter (p-1) a + (S - own block) b. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks;
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B;
    switch (req->coll) {
    case CS_COLL_BROADCAST:
        return (p - 1) * (a + S * b);
    case CS_COLL_REDUCE:
        return cs__serial_reduce(p - 1, a + S * b, S * ab->g_s_per_B);
    case CS_COLL_GATHER:
    case CS_COLL_SCATTER:
        return p == 1 ? 0 : (p - 1) * a + (S - cs__blk(req->bytes, p, req->root)) * b;
    default:
        return NAN;
    }
}

static const char *formula(const cs_coll_req *req)
{
    switch (req->coll) {
    case CS_COLL_BROADCAST: return "(p-1)(a + S*b)";
    case CS_COLL_REDUCE: return "(p-1)(a + S*b) + S*γ";
    default: return "(p-1)(a + S/p*b)";
    }
}

const cs_algo cs_algo_linear = {
    "linear",
    "the root sends to (or receives from) every rank in turn: p-1 messages on its one port",
    CS_COLL_BIT(CS_COLL_BROADCAST) | CS_COLL_BIT(CS_COLL_REDUCE) |
        CS_COLL_BIT(CS_COLL_GATHER) | CS_COLL_BIT(CS_COLL_SCATTER),
    NULL, build, cost, formula,
};
