/* offload.c: the host link a GPU crosses to reach host memory (scenarios layer): the
 * narrowest link of the route from the GPU to its nearest CPU node (PCIe, or C2C on Grace
 * nodes), and how many GPUs' routes to their CPUs share that link in the same direction,
 * for ZeRO-Offload, ZeRO-Infinity / FSDP CPU offload and activation offload. */
#include "scenarios/memory-private.h"
#include "scenarios/comm-private.h"

#include <stdlib.h>
#include <string.h>

/* The nearest CPU node of node g (fewest hops, then lowest index), -1 if none. */
static int nearest_cpu(const cs_topo *t, int g, const int32_t **route, int *n_route)
{
    int i, best = -1, best_n = 0;
    cs_err err;
    for (i = 0; i < t->n_nodes; i++) {
        const int32_t *d;
        int n;
        if (t->nodes[i].type != CS_NODE_CPU || (n = cs_topo_route(t, g, i, &d, &err)) <= 0)
            continue;
        if (best < 0 || n < best_n) {
            best = i;
            best_n = n;
            *route = d;
        }
    }
    *n_route = best_n;
    return best;
}

int cs__offload_host_link(const cs_topo *t, int rank, double *bw_GBps, int *share)
{
    const int32_t *d = NULL, *d2 = NULL;
    int32_t *own;
    int n = 0, n2, cpu, r, i, j, *k;
    double best = -1;
    *bw_GBps = 0;
    *share = 1;
    if (!t || rank < 0 || rank >= t->n_ranks ||
        (cpu = nearest_cpu(t, t->ranks[rank], &d, &n)) < 0 || n <= 0)
        return 0;
    /* the route is copied: the route lookups below may reuse the cache it points into */
    if (!(own = malloc((size_t)n * sizeof *own)) || !(k = calloc((size_t)n, sizeof *k))) {
        free(own);
        return 0;
    }
    memcpy(own, d, (size_t)n * sizeof *own);
    /* one pass over the GPUs with the same nearest CPU (only they can cross these links in
     * the same direction): how many cross each link of this GPU's route */
    for (r = 0; r < t->n_ranks; r++) {
        if (nearest_cpu(t, t->ranks[r], &d2, &n2) != cpu)
            continue;
        for (i = 0; i < n; i++)
            for (j = 0; j < n2; j++)
                if (d2[j] == own[i]) {
                    k[i]++;
                    break;
                }
    }
    /* the link whose bandwidth over the GPUs crossing it is least bounds the GPU */
    for (i = 0; i < n; i++) {
        int c = k[i] < 1 ? 1 : k[i];
        double bw = t->links[own[i] / 2].bw_GBps;
        if (best < 0 || bw / c < best) {
            best = bw / c;
            *bw_GBps = bw;
            *share = c;
        }
    }
    free(own);
    free(k);
    return 1;
}

/* Host link: PCIe Gen4 x16 at about 25 GB/s achievable per direction when the topology
 * has no CPU node (assumption, the figure ZeRO-Offload's paper measures on DGX-2). */
#define HOST_LINK_ASSUMED_GBps 25.0

double cs__offload_host_Bps(cs_plan_ctx *ctx)
{
    double bw;
    int share;
    if (ctx && ctx->host_Bps > 0)
        return ctx->host_Bps;
    if (!cs__offload_host_link(ctx ? cs_plan_ctx_topo(ctx) : NULL, 0, &bw, &share) || bw <= 0)
        bw = HOST_LINK_ASSUMED_GBps, share = 1;
    if (ctx)
        ctx->host_Bps = bw * 1e9 / share;
    return bw * 1e9 / share;
}

int cs__offload_costs(cs_plan_ctx *ctx, const cs_plan *p, cs_step_costs *sc,
                      double layer_params, double Lh, cs_err *err)
{
    double Bps, wb = p->dtype == CS_DT_FP32 ? 4 : 2;
    double shard = p->hsdp > 0 ? p->hsdp : (double)p->dp * p->cp;
    (void)err;
    if (!p->offload_params && !p->offload_activations)
        return 0;
    Bps = cs__offload_host_Bps(ctx);
    if (p->offload_params) {
        /* ZeRO-Infinity / FSDP CPUOffload: the layer's parameter shard comes up before its
         * gather (prefetched with it), its gradient shard goes down after the
         * reduce-scatter */
        double t = layer_params / shard * wb / Bps;
        if (sc->t_gather <= 0)
            sc->n_pieces = (int)Lh;
        sc->t_gather += t;
        if (sc->n_buckets <= 0)
            sc->n_buckets = (int)Lh;
        sc->t_bucket += t;
    }
    if (p->offload_activations) {
        /* a layer's stash of one microbatch goes down after its forward and comes back
         * before its backward */
        sc->t_act_out = sc->t_act_in = cs_plan_layer_act_bytes(p) / Bps;
        if (sc->n_pieces <= 0)
            sc->n_pieces = (int)Lh;
    }
    return 0;
}

int cs__hsdp_costs(cs_plan_ctx *ctx, const cs_plan *p, cs_step_costs *sc, double grad_bytes,
                   double param_bytes, cs_err *err)
{
    /* the shard groups: hsdp consecutive ranks of the dp dimension, the DP groups of the
     * plan with dp = hsdp and pp x dp/hsdp; the replica groups: dp/hsdp ranks hsdp apart,
     * the DP groups of the plan with tp x cp x hsdp innermost */
    cs_plan q = *p, r = *p;
    double ag, rs, ar;
    int rc;
    q.dp = p->hsdp;
    q.pp = p->pp * (p->dp / p->hsdp);
    r.tp = p->tp * p->cp * p->hsdp;
    r.cp = r.ep = 1;
    r.dp = p->dp / p->hsdp;
    if ((rc = cs_plan_comm(ctx, &q, CS_G_DP, CS_COLL_ALLGATHER, (uint64_t)(param_bytes + 0.5),
                           &ag, err)) < 0 ||
        (rc = cs_plan_comm(ctx, &q, CS_G_DP, CS_COLL_REDUCESCATTER,
                           (uint64_t)(grad_bytes + 0.5), &rs, err)) < 0 ||
        (rc = cs_plan_comm(ctx, &r, CS_G_DP, CS_COLL_ALLREDUCE,
                           (uint64_t)(grad_bytes / p->hsdp + 0.5), &ar, err)) < 0)
        return rc;
    sc->t_gather = ag;
    sc->t_bucket = rs + ar;
    return 0;
}
