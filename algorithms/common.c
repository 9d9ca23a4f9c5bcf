/* common.c: shared helpers of the algorithms layer: request defaults, building through an
 * ops table, alpha-beta parameters of a topology, integer logarithms. */
#include "algorithms/coll.h"
#include "sim/limits.h"

#include <math.h>
#include <string.h>

void cs_coll_req_init(cs_coll_req *req, cs_coll coll, int n_ranks, uint64_t bytes)
{
    memset(req, 0, sizeof *req);
    req->coll = coll;
    req->n_ranks = n_ranks;
    req->bytes = bytes;
    req->elt_bytes = 4;
    req->chunks = 1;
    req->servers = 1;
    req->channels = 1;
}

int cs_algo_build(const cs_algo *ops, const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int rc;
    memset(s, 0, sizeof *s);
    if (!cs_algo_has(ops, req->coll))
        return cs_err_set(err, CS_EUNSUPP, "--algo", "algorithm '%s' does not implement %s",
                          ops->name, cs_coll_name(req->coll));
    if (req->n_ranks < 1)
        return cs_err_set(err, CS_EINVAL, "-g", "must be >= 1, got %d", req->n_ranks);
    if (req->chunks < 1)
        return cs_err_set(err, CS_EINVAL, "--chunks", "must be >= 1, got %d", req->chunks);
    if (req->root < 0 || req->root >= req->n_ranks)
        return cs_err_set(err, CS_EINVAL, "-r", "root must be between 0 and %d, got %d",
                          req->n_ranks - 1, req->root);
    if (ops->check && (rc = ops->check(req, err)) < 0)
        return rc;
    rc = cs_sched_init(s, req->coll, req->n_ranks,
                       cs_coll_is_rooted(req->coll) ? req->root : 0, req->bytes);
    if (rc < 0)
        return cs_err_set(err, rc, NULL, "cannot start a schedule for %d ranks", req->n_ranks);
    s->algo = ops->name;
    rc = ops->build(req, s, err);
    if (rc < 0) {
        if ((!err || !err->code) && rc == CS_ELIMIT)
            cs_budget_check(UINT64_MAX, ops->name, "the schedule with its simulation state", err);
        else if (!err || !err->code)
            cs_err_set(err, rc, ops->name, "building the schedule failed (%s)", cs_err_name(rc));
        cs_sched_fini(s);
        return rc;
    }
    return 0;
}

void cs_ab_from_topo(const cs_topo *t, cs_ab *ab)
{
    memset(ab, 0, sizeof *ab);
    if (t->reduce_GBps > 0)
        ab->g_s_per_B = 1.0 / (t->reduce_GBps * 1e9);
    if (t->model == CS_MODEL_ALPHA_BETA) {
        ab->a_s = t->ab_lat_us * 1e-6;
        ab->b_s_per_B = 1.0 / (t->ab_bw_GBps * 1e9);
        return;
    }
    if (t->n_ranks > 1) {
        const int32_t *dl;
        int n = cs_topo_route(t, t->ranks[0], t->ranks[1], &dl, NULL);
        if (n > 0) {
            ab->a_s = cs_topo_route_lat_us(t, dl, n) * 1e-6;
            ab->b_s_per_B = 1.0 / (cs_topo_route_bw_GBps(t, dl, n) * 1e9);
        }
    }
}

int cs_ceil_log2(int p)
{
    int l = 0;
    while ((1 << l) < p)
        l++;
    return l;
}

int cs_floor_log2(int p)
{
    int l = 0;
    while ((2 << l) <= p)
        l++;
    return l;
}

int cs_node_size(const cs_coll_req *req)
{
    const cs_topo *t = req->topo;
    int p = req->n_ranks, g = 1, r;
    if (!t || t->n_ranks < p || p < 1 || t->nodes[t->ranks[0]].group < 0)
        return 0;
    while (g < p && t->nodes[t->ranks[g]].group == t->nodes[t->ranks[0]].group)
        g++;
    if (g < 2 || g == p || p % g)
        return 0;
    for (r = 0; r < p; r++)
        if (t->nodes[t->ranks[r]].group != t->nodes[t->ranks[r - r % g]].group ||
            (r % g == 0 && r > 0 &&
             t->nodes[t->ranks[r]].group == t->nodes[t->ranks[r - g]].group))
            return 0;
    return g;
}

int cs_switch_of(const cs_topo *t, int r0, int n)
{
    int v, r, k;
    if (!t->adj_off)
        return -1;
    for (v = 0; v < t->n_nodes; v++) {
        if (t->nodes[v].type != CS_NODE_SWITCH || !t->nodes[v].can_reduce)
            continue;
        for (r = r0; r < r0 + n; r++) {
            int u = t->ranks[r], linked = 0;
            for (k = t->adj_off[u]; k < t->adj_off[u + 1] && !linked; k++)
                linked = cs_dlink_to(t, t->adj[k]) == v;
            if (!linked)
                break;
        }
        if (r == r0 + n)
            return v;
    }
    return -1;
}
