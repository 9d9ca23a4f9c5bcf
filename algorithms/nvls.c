/* nvls.c: allreduce with NVLink SHARP inside each node (algorithms layer): NCCL's NVLS on
 * one node, NVLSTree across nodes. The buffer is cut into g shards, one per GPU of a node
 * (g GPUs per node, N nodes). Per shard h and pipeline piece:
 *   1. every GPU of a node sends its piece of shard h up to the node's NVSwitch, which
 *      reduces them (multimem ld_reduce) and hands the node's sum to local GPU h;
 *   2. (several nodes) the GPUs h of all nodes (one per node, each behind its own NIC: one
 *      rail per shard) allreduce the node sums: an exchange for two nodes, else a chain -
 *      reduce from the last node to the first, then copy back (bandwidth-optimal once
 *      pipelined);
 *   3. GPU h sends the total up to its switch once, which multicasts it to the node's
 *      other GPUs (multimem st).
 * Each GPU's NVLink carries S + S/g up and S/g + S down, and each NIC S/g each way (two
 * nodes), against a ring's 2(g N - 1)/(g N) S everywhere: on 8 and 2 x 8 H100 nccl-tests
 * shows ~470 GB/s busbw where rings stop at ~370 (models.md §2.5, tests/data/real).
 * in_network is the textbook switch reduction (S up, S down); this is how NVLS moves data
 * (multimem ld_reduce of a shard, then multimem st of it). Needs a link-level fabric whose
 * ranks form one node or equal nodes, each node's ranks linked directly to a switch. Pieces: --chunks k, or with --chunks 1 NVLS-sized ones (128 KiB of a shard,
 * NCCL_NVLS_CHUNKSIZE, at most 64), as in_network, on one node; across nodes --chunks k
 * (NCCL mode passes NCCL's NVLSTree loops, algorithms/nccl/mode.c). */
#include "algorithms/coll.h"

#include <math.h>
#include <stdlib.h>

#define NVLS_CHUNK_BYTES (128u << 10)
#define MAX_PIECES 64

static int pieces_of(const cs_coll_req *req, int g)
{
    uint64_t k, shard = req->bytes / (uint64_t)g;
    if (req->chunks > 1 || req->n_ranks > g)
        return req->chunks;
    k = (shard + NVLS_CHUNK_BYTES - 1) / NVLS_CHUNK_BYTES;
    return k < 1 ? 1 : k > MAX_PIECES ? MAX_PIECES : (int)k;
}

/* Ranks per node: the node size of a multi-node group, or all ranks when they share one
 * switch (one node); 0 when neither. */
static int ranks_per_node(const cs_coll_req *req)
{
    int g = cs_node_size(req);
    if (g == 0 && req->n_ranks >= 2 && cs_switch_of(req->topo, 0, req->n_ranks) >= 0)
        g = req->n_ranks;
    return g;
}

static int check(const cs_coll_req *req, cs_err *err)
{
    int g, n;
    if (!req->topo || req->topo->model == CS_MODEL_ALPHA_BETA || !(g = ranks_per_node(req)))
        return cs_err_set(err, CS_EUNSUPP, "--algo", "nvls needs a link-level fabric whose "
                          "ranks are one node on a switch that reduces (NVSwitch with "
                          "\"nvls\": true), or nodes with the same number (>= 2) of ranks "
                          "each");
    if (req->n_ranks / g > CS_SCHED_MAX_AUX)
        return cs_err_set(err, CS_EUNSUPP, "--algo", "nvls handles up to %d nodes, got %d",
                          CS_SCHED_MAX_AUX, req->n_ranks / g);
    for (n = 0; n < req->n_ranks / g; n++)
        if (cs_switch_of(req->topo, n * g, g) < 0)
            return cs_err_set(err, CS_EUNSUPP, "--algo", "nvls: the ranks %d-%d of node %d "
                              "do not all link directly to one switch that reduces (an "
                              "NVSwitch declared with \"nvls\": true)", n * g,
                              n * g + g - 1, n);
    return 0;
}

/* Operations of one (shard, piece): ids kept to chain the next piece and the phases. */
typedef struct piece_ids {
    uint32_t *up;     /* [n * g + r]: GPU r of node n -> switch, this piece */
    uint32_t *fin;    /* [n]: after it, GPU h of node n holds the total */
} piece_ids;

static int64_t add(cs_sched *s, int src, int dst, cs_op op, uint32_t chunk, const uint32_t *deps,
                   uint32_t nd, int step, int j)
{
    int64_t id = cs_sched_xfer_range(s, src, dst, op, chunk, 1, deps, nd, step);
    if (id >= 0)
        s->xfers[id].pipe = (uint16_t)j;
    return id;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, g, N, K, h, j, n, r, rc;
    int sw[CS_SCHED_MAX_AUX];
    uint32_t *prev_up, *up, *red, *fin, *deps;
    int64_t id = 0;
    if ((rc = check(req, err)) < 0)
        return rc;
    g = ranks_per_node(req);
    N = p / g;
    K = pieces_of(req, g);
    for (n = 0; n < N; n++)
        if ((sw[n] = cs_sched_add_aux(s, cs_switch_of(req->topo, n * g, g))) < 0)
            return sw[n];
    for (h = 0; h < g; h++)
        for (j = 0; j < K; j++)
            if (cs_sched_chunk(s, cs_split(cs_split(req->bytes, (uint64_t)g, (uint64_t)h),
                                           (uint64_t)K, (uint64_t)j), -1, -1) < 0)
                return CS_ENOMEM;
    prev_up = malloc(sizeof *prev_up * (size_t)p * (size_t)g);
    up = malloc(sizeof *up * (size_t)p);
    red = malloc(sizeof *red * (size_t)N);
    fin = malloc(sizeof *fin * (size_t)N);
    deps = malloc(sizeof *deps * (size_t)(g + 3));
    if (!prev_up || !up || !red || !fin || !deps) {
        rc = CS_ENOMEM;
        goto out;
    }
    for (j = 0; j < K; j++)
        for (h = 0; h < g; h++) {
            uint32_t c = (uint32_t)(h * K + j);
            /* 1. Up to each node's switch; the piece follows the same GPU's previous piece
             * of this shard. The switch's sum goes to GPU h. */
            for (n = 0; n < N; n++) {
                for (r = 0; r < g; r++) {
                    uint32_t *pu = &prev_up[(size_t)(n * g + r) * g + h];
                    if ((id = add(s, n * g + r, sw[n], CS_OP_REDUCE, c, pu, j > 0, 0, j)) < 0)
                        goto fail;
                    up[n * g + r] = *pu = (uint32_t)id;
                }
                if ((id = add(s, sw[n], n * g + h, CS_OP_COPY, c, &up[n * g], (uint32_t)g, 1,
                              j)) < 0)
                    goto fail;
                red[n] = (uint32_t)id;
            }
            /* 2. Across nodes, among the GPUs h. A reduce waits until the receiver holds its
             * node's sum, or the copy from the switch would overwrite what it adds. */
            if (N == 1) {
                fin[0] = red[0];
            } else if (N == 2) {
                for (n = 0; n < 2; n++) {
                    deps[0] = red[0];
                    deps[1] = red[1];
                    if ((id = add(s, (1 - n) * g + h, n * g + h, CS_OP_REDUCE, c, deps, 2, 2,
                                  j)) < 0)
                        goto fail;
                    fin[n] = (uint32_t)id;
                }
            } else {
                uint32_t last = 0;
                for (n = N - 1; n >= 1; n--) {
                    uint32_t nd = 0;
                    deps[nd++] = red[n];
                    deps[nd++] = red[n - 1];
                    if (n < N - 1)
                        deps[nd++] = last;
                    if ((id = add(s, n * g + h, (n - 1) * g + h, CS_OP_REDUCE, c, deps, nd,
                                  2 + (N - 1 - n), j)) < 0)
                        goto fail;
                    last = (uint32_t)id;
                }
                fin[0] = last;
                for (n = 1; n < N; n++) {
                    if ((id = add(s, (n - 1) * g + h, n * g + h, CS_OP_COPY, c, &fin[n - 1], 1,
                                  N + n, j)) < 0)
                        goto fail;
                    fin[n] = (uint32_t)id;
                }
            }
            /* 3. GPU h uploads the total once; the switch multicasts it to the others. */
            for (n = 0; n < N; n++) {
                uint32_t upl;
                int st = N == 1 ? 2 : N == 2 ? 3 : 2 * N;
                if ((id = add(s, n * g + h, sw[n], CS_OP_COPY, c, &fin[n], 1, st, j)) < 0)
                    goto fail;
                upl = (uint32_t)id;
                for (r = 0; r < g; r++)
                    if (r != h && (id = add(s, sw[n], n * g + r, CS_OP_COPY, c, &upl, 1, st + 1,
                                            j)) < 0)
                        goto fail;
            }
        }
    rc = 0;
    goto out;
fail:
    rc = (int)id;
out:
    free(prev_up);
    free(up);
    free(red);
    free(fin);
    free(deps);
    return rc;
}

/* No alpha_beta form: the single-port textbook fabric has no switch to reduce in. */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    (void)req;
    (void)ab;
    return NAN;
}

static const char *formula(const cs_coll_req *req)
{
    (void)req;
    /* Once pipelined the busier of a GPU's NVLink, (1 + 1/g) S, and its NIC, S/g (b is the
     * route's; NVLink's for the first term, the NIC's for the second): a sketch. */
    return "~max((1 + 1/g)*S*b, S/g*b)";
}

const cs_algo cs_algo_nvls = {
    "nvls",
    "NVLink SHARP: shards reduced in each node's NVSwitch, node sums allreduced across nodes (NCCL NVLS/NVLSTree)",
    CS_COLL_BIT(CS_COLL_ALLREDUCE),
    check, build, cost, formula,
};
