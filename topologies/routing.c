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

/* Hop distances to a target node over the links a mask allows, computed once per target. */
struct cs__ecmp {
    int n_nodes;             /* nodes of the topology it was made for */
    uint8_t *mask;           /* mask[link] != 0: the link may be used; NULL = every link */
    int16_t **dist;          /* dist[target][v]: hops from v to target, -1 unreachable */
    int32_t *queue;          /* BFS work array, n_nodes entries */
};

int cs__ecmp_new(cs__ecmp **out, int n_nodes, const uint8_t *mask, int n_links, cs_err *err)
{
    cs__ecmp *e = calloc(1, sizeof *e);
    if (e) {
        e->n_nodes = n_nodes;
        e->dist = calloc((size_t)n_nodes + 1, sizeof *e->dist);
        e->queue = malloc(((size_t)n_nodes + 1) * sizeof *e->queue);
        if (mask && (e->mask = malloc((size_t)n_links + 1)))
            memcpy(e->mask, mask, (size_t)n_links);
    }
    if (!e || !e->dist || !e->queue || (mask && !e->mask)) {
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
    if (e->dist)
        for (i = 0; i < e->n_nodes; i++)
            free(e->dist[i]);
    free(e->dist);
    free(e->queue);
    free(e->mask);
    free(e);
}

static int usable(const cs__ecmp *e, int32_t dl)
{
    return !e->mask || e->mask[cs_dlink_link(dl)];
}

/* Hop distances from every node to target (links are full duplex: BFS from target). */
static const int16_t *dist_to(const cs_topo *t, cs__ecmp *e, int target, cs_err *err)
{
    int16_t *d;
    int head = 0, tail = 0, v, k;
    if (e->dist[target])
        return e->dist[target];
    if (!(d = malloc((size_t)t->n_nodes * sizeof *d))) {
        cs_err_set(err, CS_ENOMEM, NULL, "out of memory for the route tables");
        return NULL;
    }
    for (v = 0; v < t->n_nodes; v++)
        d[v] = -1;
    d[target] = 0;
    e->queue[tail++] = target;
    while (head < tail) {
        v = e->queue[head++];
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            int w = cs_dlink_to(t, t->adj[k]);
            if (d[w] < 0 && d[v] < INT16_MAX && usable(e, t->adj[k])) {
                d[w] = (int16_t)(d[v] + 1);
                e->queue[tail++] = w;
            }
        }
    }
    e->dist[target] = d;
    return d;
}

int cs__ecmp_reaches(const cs_topo *t, cs__ecmp *e, int src, int dst, cs_err *err)
{
    const int16_t *d = dist_to(t, e, dst, err);
    if (!d)
        return CS_ENOMEM;
    return d[src] >= 0;
}

int cs__ecmp_path(const cs_topo *t, cs__ecmp *e, int src, int dst, uint64_t key,
                  int32_t *out, int *n, int max, cs_err *err)
{
    const int16_t *d = dist_to(t, e, dst, err);
    int v = src;
    if (!d)
        return CS_ENOMEM;
    if (d[src] < 0)
        return cs_err_set(err, CS_EINVAL, "route", "no path from '%s' to '%s'",
                          t->nodes[src].name, t->nodes[dst].name);
    while (v != dst) {
        int k, c = 0, pick;
        int32_t chosen = -1;
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
            if (usable(e, t->adj[k]) && d[cs_dlink_to(t, t->adj[k])] == d[v] - 1)
                c++;
        pick = (int)(key % (uint64_t)c);
        key /= (uint64_t)c;
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
            if (usable(e, t->adj[k]) && d[cs_dlink_to(t, t->adj[k])] == d[v] - 1 &&
                pick-- == 0) {
                chosen = t->adj[k];
                break;
            }
        if (*n >= max)
            return cs_err_set(err, CS_ESTATE, "route", "route from '%s' to '%s' longer than "
                              "%d links", t->nodes[src].name, t->nodes[dst].name, max);
        out[(*n)++] = chosen;
        v = cs_dlink_to(t, chosen);
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
