/* topo.c: fabric data, validation and routing with a lazy route cache (core layer).
 * Routes are explicit routes first, then the kind's route_fn, then BFS shortest path in
 * hops with ties broken by link order, so routing is deterministic. */
#include "sim/topo.h"
#include "sim/limits.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cache of computed routes: open addressing on key src * n_nodes + dst. */
typedef struct route_ent {
    uint64_t key;        /* src * n_nodes + dst + 1; 0 = empty */
    const int32_t *dl;   /* its dlinks, in a block that never moves */
    uint32_t len;        /* number of dlinks */
} route_ent;

/* Routes live in blocks that are never reallocated: flows in flight keep pointers to them
 * for as long as the topology lives (topo.h's promise). */
typedef struct route_block {
    struct route_block *next;   /* older block */
    uint32_t used, cap;         /* dlinks used / held */
    int32_t dl[];               /* the dlinks */
} route_block;

struct cs_route_cache {
    route_ent *tab;      /* hash table, power-of-two size */
    uint32_t cap, n;     /* slots, used slots */
    route_block *blocks; /* newest block first */
    int32_t *scratch;    /* BFS work: parent dlink per node, queue, path */
    int32_t *queue;
};

static const int32_t no_dlinks[1] = {0};

/* A kind's route_fn keeps lazily built state in the kind data that a topology and its
 * views share (topologies/routing.c: tier masks, distance tables, BFS scratch): one
 * thread at a time computes a route with it. Taken on a route cache's miss only. */
static pthread_mutex_t route_fn_lock = PTHREAD_MUTEX_INITIALIZER;

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int cs_topo_new(cs_topo **out)
{
    cs_topo *t = calloc(1, sizeof *t);
    if (!t)
        return CS_ENOMEM;
    t->model = CS_MODEL_FLUID;
    *out = t;
    return 0;
}

static void cache_free(struct cs_route_cache *c)
{
    if (!c)
        return;
    free(c->tab);
    while (c->blocks) {
        route_block *nx = c->blocks->next;
        free(c->blocks);
        c->blocks = nx;
    }
    free(c->scratch);
    free(c->queue);
    free(c);
}

void cs_topo_free(cs_topo *t)
{
    int i;
    if (!t)
        return;
    for (i = 0; i < t->n_nodes; i++)
        free(t->nodes[i].name);
    for (i = 0; i < t->n_links; i++)
        free(t->links[i].cls);
    for (i = 0; i < t->n_routes; i++)
        free(t->routes[i].dlinks);
    if (t->kind_free)
        t->kind_free(t->kind_data);
    free(t->nodes);
    free(t->links);
    free(t->ranks);
    free(t->routes);
    free(t->adj_off);
    free(t->adj);
    free(t->name);
    free(t->kind);
    cache_free(t->cache);
    free(t);
}

int cs_topo_add_node(cs_topo *t, const char *name, cs_node_type type, int group)
{
    cs_node *nn;
    char *s;
    if (!(t->n_nodes & (t->n_nodes - 1)) || t->n_nodes < 8) {
        int cap = t->n_nodes < 8 ? 8 : t->n_nodes * 2;
        nn = realloc(t->nodes, (size_t)cap * sizeof *nn);
        if (!nn)
            return CS_ENOMEM;
        t->nodes = nn;
    }
    s = dup_str(name);
    if (!s)
        return CS_ENOMEM;
    t->nodes[t->n_nodes] = (cs_node){s, type, group, 0};
    return t->n_nodes++;
}

int cs_topo_add_link(cs_topo *t, int a, int b, const char *cls, double bw_GBps, double lat_us)
{
    cs_link *nl;
    char *s;
    if (!(t->n_links & (t->n_links - 1)) || t->n_links < 8) {
        int cap = t->n_links < 8 ? 8 : t->n_links * 2;
        nl = realloc(t->links, (size_t)cap * sizeof *nl);
        if (!nl)
            return CS_ENOMEM;
        t->links = nl;
    }
    s = dup_str(cls ? cls : "generic");
    if (!s)
        return CS_ENOMEM;
    t->links[t->n_links] = (cs_link){a, b, s, bw_GBps, lat_us};
    return t->n_links++;
}

int cs_topo_find_node(const cs_topo *t, const char *name)
{
    int i;
    for (i = 0; i < t->n_nodes; i++)
        if (!strcmp(t->nodes[i].name, name))
            return i;
    return -1;
}

const char *cs_node_type_name(cs_node_type ty)
{
    static const char *const names[] = {"gpu", "npu", "cpu", "nic", "switch"};
    return (unsigned)ty < 5 ? names[ty] : "?";
}

int cs_node_type_lookup(const char *name, cs_node_type *out)
{
    int i;
    for (i = 0; i < 5; i++)
        if (!strcmp(name, cs_node_type_name((cs_node_type)i))) {
            *out = (cs_node_type)i;
            return 0;
        }
    return CS_ENOENT;
}

int cs_node_is_endpoint(cs_node_type ty) { return ty != CS_NODE_SWITCH; }

/* Is dst reachable from src over the adjacency (BFS)? Uses the cache's scratch arrays. */
static int bfs(const cs_topo *t, int src, int dst, int32_t *parent, int32_t *queue)
{
    int head = 0, tail = 0, v, k;
    for (v = 0; v < t->n_nodes; v++)
        parent[v] = -2;
    parent[src] = -1;
    queue[tail++] = src;
    while (head < tail) {
        v = queue[head++];
        if (v == dst)
            return 1;
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            int32_t d = t->adj[k];
            int w = cs_dlink_to(t, d);
            if (parent[w] == -2) {
                parent[w] = d;
                queue[tail++] = w;
            }
        }
    }
    return dst < 0;   /* dst < 0: full sweep wanted, report success */
}

/* An empty route cache with BFS scratch for n_nodes nodes, or NULL. */
static struct cs_route_cache *cache_new(int n_nodes)
{
    struct cs_route_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->scratch = malloc(((size_t)n_nodes + 1) * sizeof *c->scratch);
    c->queue = malloc(((size_t)n_nodes + 1) * sizeof *c->queue);
    if (!c->scratch || !c->queue) {
        cache_free(c);
        return NULL;
    }
    return c;
}

int cs_topo_finish(cs_topo *t, cs_err *err)
{
    int i, *deg;
    char where[64];
    struct cs_route_cache *c;

    if (t->n_ranks < 1)
        return cs_err_set(err, CS_EINVAL, "ranks", "must be >= 1, got %d", t->n_ranks);
    if (t->model == CS_MODEL_ALPHA_BETA) {
        int rc;
        if ((rc = cs_limit_check(t->ab_bw_GBps, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS,
                                 "GB/s", "link.bandwidth_GBps", err)) < 0 ||
            (rc = cs_limit_check(t->ab_lat_us, 0, CS_LIMIT_LAT_MAX_US, "us", "link.latency_us",
                                 err)) < 0)
            return rc;
    }
    if (t->n_ranks > CS_LIMIT_MAX_RANKS)
        return cs_err_set(err, CS_ELIMIT, "ranks", "must be at most %ld, got %d",
                          CS_LIMIT_MAX_RANKS, t->n_ranks);
    if (t->reduce_GBps != 0 && cs_limit_check(t->reduce_GBps, CS_LIMIT_BW_MIN_GBPS,
                                              CS_LIMIT_BW_MAX_GBPS, "GB/s", "reduce_GBps", err))
        return CS_EINVAL;
    for (i = 0; i < t->n_links; i++) {
        const cs_link *l = &t->links[i];
        if (l->a < 0 || l->a >= t->n_nodes || l->b < 0 || l->b >= t->n_nodes) {
            snprintf(where, sizeof where, "links[%d]", i);
            return cs_err_set(err, CS_EINVAL, where, "refers to a node that does not exist");
        }
        if (l->a == l->b) {
            snprintf(where, sizeof where, "links[%d]", i);
            return cs_err_set(err, CS_EINVAL, where, "links node '%s' to itself",
                              t->nodes[l->a].name);
        }
        if (!(l->bw_GBps >= CS_LIMIT_BW_MIN_GBPS && l->bw_GBps <= CS_LIMIT_BW_MAX_GBPS)) {
            snprintf(where, sizeof where, "links[%d].bandwidth_GBps", i);
            return cs_limit_check(l->bw_GBps, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS,
                                  "GB/s", where, err);
        }
        if (!(l->lat_us >= 0 && l->lat_us <= CS_LIMIT_LAT_MAX_US)) {
            snprintf(where, sizeof where, "links[%d].latency_us", i);
            return cs_limit_check(l->lat_us, 0, CS_LIMIT_LAT_MAX_US, "us", where, err);
        }
    }
    /* rank_of[v]: the rank already on node v, -1 if none (a linear duplicate check). */
    deg = malloc(((size_t)t->n_nodes + 1) * sizeof *deg);
    if (!deg)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < t->n_nodes; i++)
        deg[i] = -1;
    for (i = 0; i < t->n_ranks; i++) {
        int v = t->ranks[i], rc = 0;
        snprintf(where, sizeof where, "ranks[%d]", i);
        if (v < 0 || v >= t->n_nodes)
            rc = cs_err_set(err, CS_EINVAL, where, "refers to a node that does not exist");
        else if (!cs_node_is_endpoint(t->nodes[v].type))
            rc = cs_err_set(err, CS_EINVAL, where, "'%s' is a switch, expected an endpoint "
                            "(gpu, npu, cpu, nic)", t->nodes[v].name);
        else if (deg[v] >= 0)
            rc = cs_err_set(err, CS_EINVAL, where, "node '%s' is already rank %d",
                            t->nodes[v].name, deg[v]);
        if (rc) {
            free(deg);
            return rc;
        }
        deg[v] = i;
    }
    free(deg);

    /* Adjacency in link order: dlink 2i leaves a, 2i+1 leaves b. */
    free(t->adj_off);
    free(t->adj);
    t->adj_off = calloc((size_t)t->n_nodes + 1, sizeof *t->adj_off);
    t->adj = malloc(((size_t)t->n_links * 2 + 1) * sizeof *t->adj);
    deg = calloc((size_t)t->n_nodes + 1, sizeof *deg);
    if (!t->adj_off || !t->adj || !deg) {
        free(deg);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    for (i = 0; i < t->n_links; i++) {
        t->adj_off[t->links[i].a + 1]++;
        t->adj_off[t->links[i].b + 1]++;
    }
    for (i = 0; i < t->n_nodes; i++)
        t->adj_off[i + 1] += t->adj_off[i];
    for (i = 0; i < t->n_links; i++) {
        int a = t->links[i].a, b = t->links[i].b;
        t->adj[t->adj_off[a] + deg[a]++] = 2 * i;
        t->adj[t->adj_off[b] + deg[b]++] = 2 * i + 1;
    }
    free(deg);

    cache_free(t->cache);
    if (!(t->cache = c = cache_new(t->n_nodes)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");

    /* Every rank must reach every other: one BFS from rank 0 on a symmetric graph. */
    if (t->model == CS_MODEL_FLUID && t->n_ranks > 1) {
        bfs(t, t->ranks[0], -1, c->scratch, c->queue);
        for (i = 1; i < t->n_ranks; i++)
            if (c->scratch[t->ranks[i]] == -2) {
                snprintf(where, sizeof where, "ranks[%d]", i);
                return cs_err_set(err, CS_EINVAL, where, "'%s' cannot be reached from rank 0 "
                                  "'%s' (disconnected)", t->nodes[t->ranks[i]].name,
                                  t->nodes[t->ranks[0]].name);
            }
    }
    return 0;
}

static int cache_put(struct cs_route_cache *c, uint64_t key, const int32_t *dl, int n)
{
    uint32_t h;
    if (c->n * 2 >= c->cap) {
        uint32_t ncap = c->cap ? c->cap * 2 : 1024, i;
        route_ent *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return CS_ENOMEM;
        for (i = 0; i < c->cap; i++)
            if (c->tab[i].key) {
                uint32_t j = (uint32_t)(c->tab[i].key * 0x9E3779B97F4A7C15ull >> 32) & (ncap - 1);
                while (nt[j].key)
                    j = (j + 1) & (ncap - 1);
                nt[j] = c->tab[i];
            }
        free(c->tab);
        c->tab = nt;
        c->cap = ncap;
    }
    if (!c->blocks || c->blocks->cap - c->blocks->used < (uint32_t)n) {
        uint32_t bcap = (uint32_t)n > 16384 ? (uint32_t)n : 16384;
        route_block *b = malloc(sizeof *b + (size_t)bcap * sizeof b->dl[0]);
        if (!b)
            return CS_ENOMEM;
        b->next = c->blocks;
        b->used = 0;
        b->cap = bcap;
        c->blocks = b;
    }
    if (n)
        memcpy(c->blocks->dl + c->blocks->used, dl, (size_t)n * sizeof *dl);
    h = (uint32_t)(key * 0x9E3779B97F4A7C15ull >> 32) & (c->cap - 1);
    while (c->tab[h].key)
        h = (h + 1) & (c->cap - 1);
    c->tab[h] = (route_ent){key, c->blocks->dl + c->blocks->used, (uint32_t)n};
    c->blocks->used += (uint32_t)n;
    c->n++;
    return 0;
}

static const route_ent *cache_get(const struct cs_route_cache *c, uint64_t key)
{
    uint32_t h;
    if (!c->cap)
        return NULL;
    h = (uint32_t)(key * 0x9E3779B97F4A7C15ull >> 32) & (c->cap - 1);
    while (c->tab[h].key) {
        if (c->tab[h].key == key)
            return &c->tab[h];
        h = (h + 1) & (c->cap - 1);
    }
    return NULL;
}

int cs_topo_route(const cs_topo *t, int src, int dst, const int32_t **dlinks, cs_err *err)
{
    struct cs_route_cache *c = t->cache;
    uint64_t key = (uint64_t)src * (uint64_t)t->n_nodes + (uint64_t)dst + 1;
    const route_ent *e;
    int n = 0, i, rc;

    if (!c)
        return cs_err_set(err, CS_ESTATE, NULL, "topology used before cs_topo_finish");
    if (src == dst) {
        *dlinks = no_dlinks;
        return 0;
    }
    e = cache_get(c, key);
    if (e) {
        *dlinks = e->dl;
        return (int)e->len;
    }
    for (i = 0; i < t->n_routes; i++)
        if (t->routes[i].src == src && t->routes[i].dst == dst)
            break;
    if (i < t->n_routes) {
        rc = cache_put(c, key, t->routes[i].dlinks, t->routes[i].n_dlinks);
        n = t->routes[i].n_dlinks;
    } else if (t->route_fn) {
        int max = t->n_nodes * 2 + 4;
        int32_t *buf = malloc((size_t)max * sizeof *buf);
        if (!buf)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        pthread_mutex_lock(&route_fn_lock);
        n = t->route_fn(t, src, dst, buf, max, err);
        pthread_mutex_unlock(&route_fn_lock);
        rc = n < 0 ? n : cache_put(c, key, buf, n);
        free(buf);
    } else {
        int v;
        if (!bfs(t, src, dst, c->scratch, c->queue))
            return cs_err_set(err, CS_EINVAL, "route", "no path from '%s' to '%s'",
                              t->nodes[src].name, t->nodes[dst].name);
        for (v = dst; c->scratch[v] >= 0; v = cs_dlink_from(t, c->scratch[v]))
            n++;
        /* Write the path backwards into the queue array, then store it. */
        i = n;
        for (v = dst; c->scratch[v] >= 0; v = cs_dlink_from(t, c->scratch[v]))
            c->queue[--i] = c->scratch[v];
        rc = cache_put(c, key, c->queue, n);
    }
    if (rc < 0)
        return rc == CS_ENOMEM ? cs_err_set(err, rc, NULL, "out of memory") : rc;
    e = cache_get(c, key);
    *dlinks = e->dl;
    return n;
}

int cs_topo_view_new(const cs_topo *t, cs_topo **out, cs_err *err)
{
    cs_topo *v;
    if (!t->cache)
        return cs_err_set(err, CS_ESTATE, NULL, "topology used before cs_topo_finish");
    if (!(v = calloc(1, sizeof *v)) || !(v->cache = cache_new(t->n_nodes)) ||
        !(v->links = malloc(((size_t)t->n_links + 1) * sizeof *v->links))) {
        if (v)
            cache_free(v->cache);
        free(v);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    cs_topo_view_sync(v, t);
    *out = v;
    return 0;
}

void cs_topo_view_sync(cs_topo *v, const cs_topo *t)
{
    struct cs_route_cache *c = v->cache;
    cs_link *l = v->links;
    *v = *t;
    v->cache = c;
    v->links = l;
    memcpy(l, t->links, (size_t)t->n_links * sizeof *l);
}

void cs_topo_view_free(cs_topo *v)
{
    if (!v)
        return;
    cache_free(v->cache);
    free(v->links);
    free(v);
}

int cs_topo_group_init(cs_topo *v, const cs_topo *t, const int *members, int n)
{
    int i, *ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof *ranks);
    if (!ranks)
        return CS_ENOMEM;
    for (i = 0; i < n; i++)
        ranks[i] = t->ranks[members[i]];
    *v = *t;
    v->ranks = ranks;
    v->n_ranks = n;
    return 0;
}

void cs_topo_group_fini(cs_topo *v)
{
    free(v->ranks);
    v->ranks = NULL;
}

double cs_topo_route_lat_us(const cs_topo *t, const int32_t *dlinks, int n)
{
    double s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += t->links[cs_dlink_link(dlinks[i])].lat_us;
    return s;
}

double cs_topo_route_bw_GBps(const cs_topo *t, const int32_t *dlinks, int n)
{
    double m = INFINITY;
    int i;
    for (i = 0; i < n; i++)
        if (t->links[cs_dlink_link(dlinks[i])].bw_GBps < m)
            m = t->links[cs_dlink_link(dlinks[i])].bw_GBps;
    return m;
}
