/* in_network.c: allreduce reduced inside the switch (algorithms layer), as NVLink SHARP
 * (NCCL's NVLS) or InfiniBand SHARP do it: every rank sends its buffer up to the switch once,
 * the switch reduces at line rate and multicasts the result back down, so each rank's link
 * carries S up and S down instead of ring's 2(p-1)/p S each way. busbw (which nccl-tests
 * computes as if it were a ring) then exceeds the per-link bandwidth, as on real H100 NVLS
 * systems. Pieces follow each other up and down so the two directions overlap: with --chunks 1
 * the pieces are NVLS-sized (128 KiB, NCCL_NVLS_CHUNKSIZE, models.md §2.7, at most 64 of
 * them); --chunks k sets k pieces. Needs one switch linked directly to every rank. */
#include "algorithms/coll.h"

#include <math.h>
#include <stdlib.h>

#define NVLS_CHUNK_BYTES (128u << 10)
#define MAX_PIECES 64

static int check(const cs_coll_req *req, cs_err *err)
{
    if (!req->topo || req->topo->model == CS_MODEL_ALPHA_BETA || req->n_ranks < 2 ||
        cs_switch_of(req->topo, 0, req->n_ranks) < 0)
        return cs_err_set(err, CS_EUNSUPP, "--algo", "in_network needs a switch that every "
                          "rank links to directly and that reduces in the network: an "
                          "NVSwitch declared with \"nvls\": true (NVLink SHARP) or an "
                          "InfiniBand switch with \"sharp\": true; a plain switch only "
                          "forwards");
    return 0;
}

static int pieces_of(const cs_coll_req *req)
{
    uint64_t k;
    if (req->chunks > 1)
        return req->chunks;
    k = (req->bytes + NVLS_CHUNK_BYTES - 1) / NVLS_CHUNK_BYTES;
    return k < 1 ? 1 : k > MAX_PIECES ? MAX_PIECES : (int)k;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, K = pieces_of(req), sw, r, j, rc = check(req, err);
    uint32_t *up, *down, prev_up = 0, deps_max;
    if (rc < 0)
        return rc;
    sw = cs_sched_add_aux(s, cs_switch_of(req->topo, 0, p));
    if (sw < 0)
        return sw;
    for (j = 0; j < K; j++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)K, (uint64_t)j), -1, -1) < 0)
            return CS_ENOMEM;
    deps_max = (uint32_t)p;
    up = malloc(sizeof *up * (size_t)p * (size_t)K);
    down = malloc(sizeof *down * (size_t)p);
    if (!up || !down) {
        free(up);
        free(down);
        return CS_ENOMEM;
    }
    for (j = 0; j < K && rc == 0; j++) {
        /* Up: rank r sends piece j after its piece j-1 left (one piece in flight per link). */
        for (r = 0; r < p; r++) {
            int64_t id;
            prev_up = j > 0 ? up[(size_t)(j - 1) * p + r] : 0;
            id = cs_sched_xfer_range(s, r, sw, CS_OP_REDUCE, (uint32_t)j, 1, &prev_up, j > 0, 2 * j);
            if (id < 0) {
                rc = (int)id;
                break;
            }
            s->xfers[id].pipe = (uint16_t)j;
            up[(size_t)j * p + r] = (uint32_t)id;
        }
        /* Down: once every rank's piece j is reduced, the switch multicasts it; piece j to r
         * follows piece j-1 to r. */
        for (r = 0; r < p && rc == 0; r++) {
            uint32_t deps[1 + 1024], nd = 0, q;
            int64_t id;
            if (deps_max + 1 > sizeof deps / sizeof deps[0]) {
                rc = cs_err_set(err, CS_EUNSUPP, "-g", "in_network handles up to 1024 ranks");
                break;
            }
            for (q = 0; q < (uint32_t)p; q++)
                deps[nd++] = up[(size_t)j * p + q];
            if (j > 0)
                deps[nd++] = down[r];
            id = cs_sched_xfer_range(s, sw, r, CS_OP_COPY, (uint32_t)j, 1, deps, nd, 2 * j + 1);
            if (id < 0) {
                rc = (int)id;
                break;
            }
            s->xfers[id].pipe = (uint16_t)j;
            down[r] = (uint32_t)id;
        }
    }
    free(up);
    free(down);
    return rc;
}

/* No alpha_beta form: the single-port textbook fabric has no switch to reduce in. */
static double cost(const cs_coll_req *req, const cs_ab *ab) { return NAN; }

static const char *formula(const cs_coll_req *req)
{
    /* k pieces of S/k follow each other up and down one link: a sketch, no exact total. */
    return "~(1 + 1/k)*S*b + 2(k+1)*a";
}

const cs_algo cs_algo_in_network = {
    "in_network",
    "reduction inside the switch (NVLink SHARP / IB SHARP): S up and S down per rank",
    CS_COLL_BIT(CS_COLL_ALLREDUCE),
    check, build, cost, formula,
};
