/* routing.c: deterministic equal-cost multipath (ECMP) routing over link tiers, shared by
 * the fat-tree, PCIe, node and cluster kinds (topologies layer). A route is a shortest path
 * in hops; at each hop with several equal next hops the choice is a digit of a flow key, so
 * flows to different destinations spread over equal spines (destination-mod-k, as
 * InfiniBand subnet managers route fat trees) and every run picks the same paths.
 * Tiers order the transports the way NCCL prefers them: the GPU fabric (NVLink/NVSwitch,
 * HCCS, xGMI) first, then paths that avoid the CPUs (PCIe peer-to-peer, NICs, network),
 * then anything (host-staged through a CPU). */
#include "topologies/kinds.h"

#include <stdlib.h>
#include <string.h>

/* Hop distances to each target asked, over the links a mask allows (hops.c: grown as far as
 * the sources asked need, kept sparse). */
struct cs__ecmp {
    int n_nodes;             /* nodes of the topology it was made for */
    uint8_t *mask;           /* mask[link] != 0: the link may be used; NULL = every link */
    cs__hops **hops;         /* hops[target]: distances to target, NULL until asked */
    int32_t *next;           /* the equal next hops of a route's node (cs__hops_next) */
    int next_cap;            /* allocated entries of next */
};

int cs__ecmp_new(cs__ecmp **out, int n_nodes, const uint8_t *mask, int n_links, cs_err *err)
{
    cs__ecmp *e = calloc(1, sizeof *e);
    if (e) {
        e->n_nodes = n_nodes;
        e->hops = calloc((size_t)n_nodes + 1, sizeof *e->hops);
        if (mask && (e->mask = malloc((size_t)n_links + 1)))
            memcpy(e->mask, mask, (size_t)n_links);
    }
    if (!e || !e->hops || (mask && !e->mask)) {
        cs__ecmp_free(e);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory for the route tables");
    }
    *out = e;
    return 0;
}

void cs__ecmp_free(cs__ecmp *e)
{
    int i;
    if (!e)
        return;
    if (e->hops)
        for (i = 0; i < e->n_nodes; i++)
            cs__hops_free(e->hops[i]);
    free(e->hops);
    free(e->next);
    free(e->mask);
    free(e);
}

long cs__ecmp_work(const cs__ecmp *e)
{
    long w = 0;
    int i;
    for (i = 0; i < e->n_nodes; i++)
        if (e->hops[i])
            w += cs__hops_work(e->hops[i]);
    return w;
}

/* The distances to target (made on first use), or NULL with err filled. */
static cs__hops *hops_to(const cs_topo *t, cs__ecmp *e, int target, cs_err *err)
{
    if (!e->hops[target] && cs__hops_new(&e->hops[target], t, target, e->mask, err) < 0)
        return NULL;
    return e->hops[target];
}

int cs__ecmp_reaches(const cs_topo *t, cs__ecmp *e, int src, int dst, cs_err *err)
{
    cs__hops *h = hops_to(t, e, dst, err);
    int l;
    if (!h || cs__hops_dist(t, h, src, &l, err) < 0)
        return CS_ENOMEM;
    return l >= 0;
}

int cs__ecmp_path(const cs_topo *t, cs__ecmp *e, int src, int dst, uint64_t key,
                  int32_t *out, int *n, int max, cs_err *err)
{
    cs__hops *h = hops_to(t, e, dst, err);
    int v = src, l;
    if (!h || cs__hops_dist(t, h, src, &l, err) < 0)
        return CS_ENOMEM;
    if (l < 0)
        return cs_err_set(err, CS_EINVAL, "route", "no path from '%s' to '%s'",
                          t->nodes[src].name, t->nodes[dst].name);
    while (v != dst) {
        int c, pick;
        int32_t chosen;
        if (cs__hops_next(t, h, v, l, &e->next, &e->next_cap, &c, err) < 0)
            return CS_ENOMEM;
        if (c == 0)
            return cs_err_set(err, CS_ESTATE, "route", "no next hop at '%s' towards '%s'",
                              t->nodes[v].name, t->nodes[dst].name);
        pick = (int)(key % (uint64_t)c);
        key /= (uint64_t)c;
        chosen = e->next[pick];
        if (*n >= max)
            return cs_err_set(err, CS_ESTATE, "route", "route from '%s' to '%s' longer than "
                              "%d links", t->nodes[src].name, t->nodes[dst].name, max);
        out[(*n)++] = chosen;
        v = cs_dlink_to(t, chosen);
        l--;
    }
    return 0;
}

/* Is v a GPU-fabric node: an accelerator, or a switch whose neighbours are all
 * accelerators (an NVSwitch)? */
static int is_fabric_node(const cs_topo *t, int v)
{
    int k;
    if (t->nodes[v].type == CS_NODE_GPU || t->nodes[v].type == CS_NODE_NPU)
        return 1;
    if (t->nodes[v].type != CS_NODE_SWITCH)
        return 0;
    for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
        cs_node_type ty = t->nodes[cs_dlink_to(t, t->adj[k])].type;
        if (ty != CS_NODE_GPU && ty != CS_NODE_NPU)
            return 0;
    }
    return 1;
}

void cs__router_fini(cs__router *r)
{
    int i;
    for (i = 0; i < CS__N_TIERS; i++)
        cs__ecmp_free(r->tier[i]);
    memset(r, 0, sizeof *r);
}

/* Build the tiers of a finished topology: masks from the node types at each link's ends. */
static int router_init(cs__router *r, const cs_topo *t, cs_err *err)
{
    uint8_t *m[CS__N_TIERS];
    int i, j, rc = 0;
    memset(r, 0, sizeof *r);
    if (!t->adj_off)
        return cs_err_set(err, CS_ESTATE, NULL, "routing tables built before cs_topo_finish");
    for (j = 0; j < CS__N_TIERS; j++)
        m[j] = malloc((size_t)t->n_links + 1);
    for (j = 0; j < CS__N_TIERS; j++)
        if (!m[j])
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory for the route tables");
    for (i = 0; rc == 0 && i < t->n_links; i++) {
        int a = t->links[i].a, b = t->links[i].b;
        m[0][i] = (uint8_t)(is_fabric_node(t, a) && is_fabric_node(t, b));
        m[1][i] = (uint8_t)(t->nodes[a].type != CS_NODE_CPU && t->nodes[b].type != CS_NODE_CPU);
        m[2][i] = 1;
    }
    /* A tier that allows the same links as the next one adds nothing: leave it out. */
    for (j = 0; rc == 0 && j < CS__N_TIERS; j++) {
        if (j + 1 < CS__N_TIERS && !memcmp(m[j], m[j + 1], (size_t)t->n_links))
            continue;
        rc = cs__ecmp_new(&r->tier[j], t->n_nodes, j + 1 < CS__N_TIERS ? m[j] : NULL,
                          t->n_links, err);
    }
    for (j = 0; j < CS__N_TIERS; j++)
        free(m[j]);
    if (rc < 0)
        cs__router_fini(r);
    else
        r->is_ready = 1;
    return rc;
}

int cs__router_reaches(const cs_topo *t, cs__router *r, int tier, int src, int dst,
                       cs_err *err)
{
    int rc;
    if (!r->is_ready && (rc = router_init(r, t, err)) < 0)
        return rc;
    while (tier < CS__N_TIERS - 1 && !r->tier[tier])
        tier++;
    return cs__ecmp_reaches(t, r->tier[tier], src, dst, err);
}

int cs__router_path(const cs_topo *t, cs__router *r, int src, int dst, uint64_t key,
                    int32_t *out, int *n, int max, cs_err *err)
{
    int j, rc;
    if (src == dst)
        return 0;
    if (!r->is_ready && (rc = router_init(r, t, err)) < 0)
        return rc;
    for (j = 0; j < CS__N_TIERS; j++) {
        if (!r->tier[j])
            continue;
        if ((rc = cs__ecmp_reaches(t, r->tier[j], src, dst, err)) < 0)
            return rc;
        if (rc || j == CS__N_TIERS - 1)
            return cs__ecmp_path(t, r->tier[j], src, dst, key, out, n, max, err);
    }
    return cs_err_set(err, CS_ESTATE, "route", "no routing tier");
}

/* Kinds that route by plain tiered ECMP keep a cs__router as their kind data. */
static void router_free(void *p)
{
    if (!p)
        return;
    cs__router_fini(p);
    free(p);
}

static int ecmp_route(const cs_topo *t, int src, int dst, int32_t *out, int max, cs_err *err)
{
    int n = 0, rc = cs__router_path(t, t->kind_data, src, dst, (uint64_t)dst, out, &n, max, err);
    if (rc >= 0)
        rc = cs__host_detour(t, out, 0, &n, max, err);
    return rc < 0 ? rc : n;
}

/* The dlink from CPU node c into its host memory, or -1. */
static int32_t hostmem_dlink(const cs_topo *t, int c)
{
    int k;
    if (!t->adj_off)
        return -1;
    for (k = t->adj_off[c]; k < t->adj_off[c + 1]; k++) {
        const cs_link *l = &t->links[cs_dlink_link(t->adj[k])];
        if (l->cls && !strcmp(l->cls, CS__HOSTMEM_CLASS))
            return t->adj[k];
    }
    return -1;
}

int cs__host_detour(const cs_topo *t, int32_t *out, int n0, int *n, int max, cs_err *err)
{
    int k, j;
    if (*n - n0 < 2 || t->nodes[cs_dlink_from(t, out[n0])].type == CS_NODE_CPU ||
        t->nodes[cs_dlink_to(t, out[*n - 1])].type == CS_NODE_CPU)
        return 0;
    for (k = n0; k + 1 < *n; k++) {
        int c = cs_dlink_to(t, out[k]);
        int32_t in;
        if (t->nodes[c].type != CS_NODE_CPU || (in = hostmem_dlink(t, c)) < 0)
            continue;
        if (*n + 2 > max)
            return cs_err_set(err, CS_ELIMIT, "route", "route longer than %d links", max);
        for (j = *n - 1; j > k; j--)
            out[j + 2] = out[j];
        out[k + 1] = in;
        out[k + 2] = in ^ 1;
        *n += 2;
        return 0;
    }
    return 0;
}

int cs__add_host_memory(cs_topo *t, const cs__linkspec *ls, cs_err *err)
{
    cs__linkspec m = *ls;
    int v, n = t->n_nodes, k = 0, rc;
    m.cls = CS__HOSTMEM_CLASS;
    for (v = 0; v < n; v++) {
        if (t->nodes[v].type != CS_NODE_CPU)
            continue;
        if ((rc = cs__topo_add_nodef(t, CS_NODE_CPU, t->nodes[v].group, err, "mem%d", k++)) < 0)
            return rc;
        if ((rc = cs__topo_add_spec(t, v, rc, &m, err)) < 0)
            return rc;
    }
    return 0;
}

int cs__topo_use_ecmp(cs_topo *t, cs_err *err)
{
    cs__router *r = calloc(1, sizeof *r);
    if (!r)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    t->kind_data = r;
    t->kind_free = router_free;
    t->route_fn = ecmp_route;
    return 0;
}
