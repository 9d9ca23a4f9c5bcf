/* routing.c: deterministic equal-cost multipath (ECMP) routing shared by the tree, fat-tree,
 * PCIe, node and cluster kinds (topologies layer). A route is a shortest path in hops; at
 * each hop with several equal next hops the choice is a digit of a flow key, so flows to
 * different destinations spread over equal spines (destination-mod-k, as InfiniBand
 * subnet managers route fat trees) and every run picks the same paths. */
#include "topologies/kinds.h"

#include <stdlib.h>
#include <string.h>

/* Hop distances to a target node, computed once per target (BFS over t->adj). */
struct cs__ecmp {
    int n_nodes;             /* nodes of the topology it was made for */
    int16_t **dist;          /* dist[target][v]: hops from v to target, -1 unreachable */
    int32_t *queue;          /* BFS work array, n_nodes entries */
};

int cs__ecmp_new(cs__ecmp **out, int n_nodes, cs_err *err)
{
    cs__ecmp *e = calloc(1, sizeof *e);
    if (e) {
        e->n_nodes = n_nodes;
        e->dist = calloc((size_t)n_nodes + 1, sizeof *e->dist);
        e->queue = malloc(((size_t)n_nodes + 1) * sizeof *e->queue);
    }
    if (!e || !e->dist || !e->queue) {
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
    free(e);
}

/* Hop distances from every node to target (the graph is symmetric: BFS from target). */
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
            if (d[w] < 0 && d[v] < INT16_MAX) {
                d[w] = (int16_t)(d[v] + 1);
                e->queue[tail++] = w;
            }
        }
    }
    e->dist[target] = d;
    return d;
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
            if (d[cs_dlink_to(t, t->adj[k])] == d[v] - 1)
                c++;
        pick = (int)(key % (uint64_t)c);
        key /= (uint64_t)c;
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
            if (d[cs_dlink_to(t, t->adj[k])] == d[v] - 1 && pick-- == 0) {
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

/* Kind data of kinds that route by plain ECMP. */
static void ecmp_kind_free(void *p)
{
    cs__ecmp_free(p);
}

static int ecmp_route(const cs_topo *t, int src, int dst, int32_t *out, int max, cs_err *err)
{
    int n = 0, rc = cs__ecmp_path(t, t->kind_data, src, dst, (uint64_t)dst, out, &n, max, err);
    return rc < 0 ? rc : n;
}

int cs__topo_use_ecmp(cs_topo *t, cs_err *err)
{
    cs__ecmp *e;
    int rc = cs__ecmp_new(&e, t->n_nodes, err);
    if (rc < 0)
        return rc;
    t->kind_data = e;
    t->kind_free = ecmp_kind_free;
    t->route_fn = ecmp_route;
    return 0;
}
