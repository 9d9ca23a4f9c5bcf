/* hops.c: hop distances to one target node, grown level by level as far as the sources asked
 * need and kept sparse (topologies layer; the tables behind routing.c's ECMP). A route from a
 * source at distance L needs every node within L - 1 hops of the target labelled, and nothing
 * farther: a breadth-first search from the target that stops there and resumes when a farther
 * source comes touches the part of the fabric near the ranks a plan uses, not the whole of it
 * (a 100,000-GPU cluster's rail switch at one hop from a NIC is labelled, its 12,500 other
 * NICs are not). Labels live in a small hash table: memory follows the nodes labelled. */
#include "topologies/kinds.h"

#include <stdlib.h>
#include <string.h>

struct cs__hops {
    int target;              /* node the distances lead to */
    const uint8_t *mask;     /* mask[link] != 0: the link may be used; NULL = every link */
    int32_t *order;          /* labelled nodes in search order (so by level) */
    int n, cap;              /* labelled, allocated */
    int *lvl;                /* lvl[l]: index in order where level l starts, l <= top */
    long *lvl_deg;           /* lvl_deg[l]: adjacency entries of level l's nodes, summed */
    int top;                 /* levels 0..top are complete; level top is the frontier */
    int lvl_cap;             /* allocated entries of lvl and lvl_deg */
    int done;                /* 1: the frontier added nothing, every reachable node labelled */
    int32_t *key;            /* hash table of labels: key[i] node or -1, val[i] its level */
    int16_t *val;
    int hcap;                /* power of two, at least twice n */
    long work;               /* nodes labelled and adjacency entries scanned (work counter) */
};

static int usable(const cs__hops *h, int32_t dl)
{
    return !h->mask || h->mask[cs_dlink_link(dl)];
}

static size_t slot(const cs__hops *h, int v)
{
    size_t i = ((uint32_t)v * 2654435761u) & (size_t)(h->hcap - 1);
    while (h->key[i] >= 0 && h->key[i] != v)
        i = (i + 1) & (size_t)(h->hcap - 1);
    return i;
}

/* v's level, or -1 where not labelled (farther than the complete levels, or unreachable). */
static int level_of(const cs__hops *h, int v)
{
    size_t i = slot(h, v);
    return h->key[i] == v ? h->val[i] : -1;
}

static int rehash(cs__hops *h, int cap)
{
    int32_t *k = malloc((size_t)cap * sizeof *k);
    int16_t *v = malloc((size_t)cap * sizeof *v);
    int32_t *ok = h->key;
    int16_t *ov = h->val;
    int i, oc = h->hcap;
    if (!k || !v) {
        free(k);
        free(v);
        return CS_ENOMEM;
    }
    for (i = 0; i < cap; i++)
        k[i] = -1;
    h->key = k;
    h->val = v;
    h->hcap = cap;
    for (i = 0; i < oc; i++)
        if (ok[i] >= 0) {
            size_t s = slot(h, ok[i]);
            h->key[s] = ok[i];
            h->val[s] = ov[i];
        }
    free(ok);
    free(ov);
    return 0;
}

/* Label v at level l (not labelled before). */
static int label(const cs_topo *t, cs__hops *h, int v, int l)
{
    size_t s;
    if (h->n == h->cap) {
        int c = h->cap ? 2 * h->cap : 16;
        int32_t *o = realloc(h->order, (size_t)c * sizeof *o);
        if (!o)
            return CS_ENOMEM;
        h->order = o;
        h->cap = c;
    }
    if (2 * (h->n + 1) > h->hcap && rehash(h, h->hcap ? 2 * h->hcap : 32) < 0)
        return CS_ENOMEM;
    s = slot(h, v);
    h->key[s] = v;
    h->val[s] = (int16_t)l;
    h->order[h->n++] = v;
    h->lvl_deg[l] += t->adj_off[v + 1] - t->adj_off[v];
    h->work++;
    return 0;
}

static int grow_levels(cs__hops *h)
{
    if (h->top + 2 > h->lvl_cap) {
        int c = h->lvl_cap ? 2 * h->lvl_cap : 8;
        int *l = realloc(h->lvl, (size_t)c * sizeof *l);
        long *d;
        if (l)
            h->lvl = l;
        d = l ? realloc(h->lvl_deg, (size_t)c * sizeof *d) : NULL;
        if (!d)
            return CS_ENOMEM;
        h->lvl_deg = d;
        h->lvl_cap = c;
    }
    return 0;
}

int cs__hops_new(cs__hops **out, const cs_topo *t, int target, const uint8_t *mask,
                 cs_err *err)
{
    cs__hops *h = calloc(1, sizeof *h);
    if (!h || grow_levels(h) < 0 || rehash(h, 32) < 0)
        goto oom;
    h->target = target;
    h->mask = mask;
    h->lvl[0] = 0;
    h->lvl_deg[0] = 0;
    if (label(t, h, target, 0) < 0)
        goto oom;
    *out = h;
    return 0;
oom:
    cs__hops_free(h);
    return cs_err_set(err, CS_ENOMEM, NULL, "out of memory for the route tables");
}

void cs__hops_free(cs__hops *h)
{
    if (!h)
        return;
    free(h->order);
    free(h->lvl);
    free(h->lvl_deg);
    free(h->key);
    free(h->val);
    free(h);
}

long cs__hops_work(const cs__hops *h) { return h->work; }
int cs__hops_labelled(const cs__hops *h) { return h->n; }

/* Complete the next level: label the unlabelled neighbours of the frontier. */
static int expand(const cs_topo *t, cs__hops *h)
{
    int i, k, end = h->n, l = h->top + 1;
    if (l > INT16_MAX) {
        h->done = 1;
        return 0;
    }
    if (grow_levels(h) < 0)
        return CS_ENOMEM;
    h->lvl[l] = end;
    h->lvl_deg[l] = 0;
    for (i = h->lvl[h->top]; i < end; i++) {
        int v = h->order[i];
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            int w = cs_dlink_to(t, t->adj[k]);
            h->work++;
            if (usable(h, t->adj[k]) && level_of(h, w) < 0 && label(t, h, w, l) < 0)
                return CS_ENOMEM;
        }
    }
    if (h->n == end)
        h->done = 1;
    else
        h->top = l;
    return 0;
}

int cs__hops_dist(const cs_topo *t, cs__hops *h, int v, int *out, cs_err *err)
{
    int l = level_of(h, v), k;
    while (l < 0 && !h->done) {
        /* v is past the complete levels: one hop past them if a neighbour is on the
         * frontier (its own neighbours need not be listed), else complete one more */
        for (k = t->adj_off[v]; k < t->adj_off[v + 1] && l < 0; k++) {
            h->work++;
            if (usable(h, t->adj[k]) && level_of(h, cs_dlink_to(t, t->adj[k])) == h->top &&
                h->top < INT16_MAX)
                l = h->top + 1;
        }
        if (l < 0 && expand(t, h) < 0)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory for the route tables");
        if (l < 0)
            l = level_of(h, v);
    }
    *out = l;
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int cs__hops_next(const cs_topo *t, cs__hops *h, int v, int l, int32_t **buf, int *buf_cap,
                  int *n_out, cs_err *err)
{
    int n = 0, k, i;
    /* the links out of v to level l - 1, in v's adjacency order (link order): from v's
     * side, or from the level's side where that is less to read (a rail switch with
     * 12,500 ports, one of them to the target) */
    long from_v = t->adj_off[v + 1] - t->adj_off[v];
    int lo = h->lvl[l - 1], hi = l - 1 < h->top ? h->lvl[l] : h->n;
    if (from_v <= h->lvl_deg[l - 1]) {
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            h->work++;
            if (usable(h, t->adj[k]) && level_of(h, cs_dlink_to(t, t->adj[k])) == l - 1) {
                if (n == *buf_cap && cs__grow_i32(buf, buf_cap, err) < 0)
                    return CS_ENOMEM;
                (*buf)[n++] = t->adj[k];
            }
        }
        *n_out = n;
        return 0;
    }
    for (i = lo; i < hi; i++) {
        int w = h->order[i];
        for (k = t->adj_off[w]; k < t->adj_off[w + 1]; k++) {
            h->work++;
            if (cs_dlink_to(t, t->adj[k]) == v && usable(h, t->adj[k])) {
                if (n == *buf_cap && cs__grow_i32(buf, buf_cap, err) < 0)
                    return CS_ENOMEM;
                (*buf)[n++] = t->adj[k] ^ 1;
            }
        }
    }
    qsort(*buf, (size_t)n, sizeof **buf, cmp_i32);
    *n_out = n;
    return 0;
}

int cs__grow_i32(int32_t **buf, int *cap, cs_err *err)
{
    int c = *cap ? 2 * *cap : 16;
    int32_t *b = realloc(*buf, (size_t)c * sizeof *b);
    if (!b)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory for the route tables");
    *buf = b;
    *cap = c;
    return 0;
}

int cs_topo_hops(const cs_topo *t, int src, const int *to, int n, int *out, cs_err *err)
{
    cs__hops *h;
    int i, rc = 0;
    if (!t->adj_off)
        return cs_err_set(err, CS_ESTATE, NULL, "hop distances asked before cs_topo_finish");
    if ((rc = cs__hops_new(&h, t, src, NULL, err)) < 0)
        return rc;
    for (i = 0; i < n && rc == 0; i++)
        rc = cs__hops_dist(t, h, to[i], &out[i], err);
    cs__hops_free(h);
    return rc;
}
