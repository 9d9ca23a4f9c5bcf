/* check.c: `collsim topo check` and `topo show` analyses (topologies layer): checking a
 * topology file while collecting every problem instead of stopping at the first, and the
 * bisection bandwidth of a built topology (max flow between the two halves of the ranks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "sim/json.h"
#include "topologies/kinds.h"

/* Record err's problem; CS_ENOMEM (with err filled) when the list cannot grow. */
static int note(cs_topo_problems *probs, cs_err *err)
{
    if (err->code == CS_ENOMEM || cs_topo_problems_add(probs, err) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    return 0;
}

/* Check a parsed root: common keys, the kind's own check (or build), the sections of higher
 * layers (the NCCL table). */
static int check_root(json_t *root, const char *name, const cs_topo_section *const *sections,
                      cs_topo_problems *probs, cs_err *err)
{
    const cs_topo_kind *kind;
    const char *kind_name;
    cs_topo *t = NULL;
    double reduce_GBps = 0;
    int rc;
    if (!json_is_object(root)) {
        cs_err_set(err, CS_EINVAL, name, "expected a JSON object, got %s",
                   cs_json_type_name(root));
        return note(probs, err);
    }
    if ((rc = cs_json_string(root, "", "kind", 1, &kind_name, err)) < 0 ||
        (rc = cs_topo_kind_lookup(kind_name, &kind, err)) < 0)
        return note(probs, err);
    if ((rc = cs__topo_common(root, &reduce_GBps, probs, err)) < 0)
        return rc;
    /* every level of a section: a cluster's node's and fabric's, its own, an overlay's,
     * each problem named where it is ("node.nccl.chanels") */
    for (; sections && *sections; sections++) {
        cs_topo_layer l[4];
        int n, i;
        if (cs_topo_section_layers(root, (*sections)->key, l, &n, err) < 0) {
            if ((rc = note(probs, err)) < 0)
                return rc;
            continue;
        }
        for (i = 0; i < n; i++) {
            size_t klen = strlen((*sections)->key);
            if (!json_is_object(l[i].obj) || (*sections)->check(l[i].obj, err) == 0)
                continue;
            if (strcmp(l[i].where, (*sections)->key) &&
                !strncmp(err->where, (*sections)->key, klen)) {
                char where[sizeof err->where];
                snprintf(where, sizeof where, "%s%s", l[i].where, err->where + klen);
                snprintf(err->where, sizeof err->where, "%s", where);
            }
            if ((rc = note(probs, err)) < 0) {
                cs_topo_layers_fini(l, n);
                return rc;
            }
        }
        cs_topo_layers_fini(l, n);
    }
    /* A kind that takes its rank count from the command is checked at 2 ranks when the
     * file leaves "ranks" out (any count the command gives builds the same way). */
    if (kind->ranks_from_caller && !json_object_get(root, "ranks") &&
        json_object_set_new(root, "ranks", json_integer(2)) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = cs_topo_new(&t)) < 0)
        return cs_err_set(err, rc, NULL, "out of memory");
    if (!(t->kind = strdup(kind_name))) {       /* kinds that share a builder read it */
        cs_topo_free(t);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    cs_err_clear(err);
    if (kind->check)
        rc = kind->check(root, t, probs);
    else if (kind->build(root, t, err) < 0)
        rc = note(probs, err);
    cs_topo_free(t);
    if (rc < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    return 0;
}

int cs_topo_check(const char *spec, const cs_topo_section *const *sections,
                  cs_topo_problems *probs, cs_err *err)
{
    const cs_preset *p = cs_preset_find(spec);
    json_error_t jerr;
    json_t *root;
    char *buf = NULL;
    size_t len;
    int rc;
    cs_err_clear(err);
    if (p) {
        len = strlen(p->json);
        root = cs_json_loadb(p->json, len, JSON_REJECT_DUPLICATES, &jerr);
    } else {
        if ((rc = cs__topo_read_file(spec, &buf, &len, err)) < 0)
            return rc == CS_ENOMEM ? rc : note(probs, err) < 0 ? CS_ENOMEM : probs->n;
        root = cs_json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
        free(buf);
    }
    if (!root) {
        char where[sizeof err->where];
        snprintf(where, sizeof where, "%.200s:%d:%d", spec, jerr.line, jerr.column);
        cs_err_set(err, CS_EPARSE, where, "%s", jerr.text);
        return note(probs, err) < 0 ? CS_ENOMEM : probs->n;
    }
    rc = check_root(root, p ? p->name : spec, sections, probs, err);
    json_decref(root);
    if (rc < 0)
        return rc;
    /* Whatever the collecting pass could not see (cs_topo_finish's checks) shows here. */
    if (probs->n == 0) {
        cs_topo *t;
        if (cs_topo_open_ranks(spec, 2, &t, err) < 0) {
            if (err->code == CS_ENOMEM || note(probs, err) < 0)
                return CS_ENOMEM;
        } else {
            cs_topo_free(t);
        }
    }
    return probs->n;
}

/* Max flow (Dinic) from ranks [0, n/2) to ranks [n/2, n) over the directed links. */
typedef struct mf_edge {
    int to;                  /* head node */
    int next;                /* next edge out of the same node, -1 at the end */
    double cap;              /* residual capacity, GB/s */
} mf_edge;

typedef struct mf {
    mf_edge *e;              /* edges; edge i ^ 1 is the reverse of edge i */
    int n_e;
    int *head;               /* first edge out of each node, -1 if none */
    int *level;              /* BFS level of each node, -1 if unreached */
    int *it;                 /* current edge per node during the blocking flow */
    int *queue;
    int n;                   /* nodes: topology nodes + source + sink */
} mf;

static void mf_add(mf *g, int a, int b, double cap)
{
    g->e[g->n_e] = (mf_edge){b, g->head[a], cap};
    g->head[a] = g->n_e++;
    g->e[g->n_e] = (mf_edge){a, g->head[b], 0};
    g->head[b] = g->n_e++;
}

static void mf_free(mf *g)
{
    free(g->e);
    free(g->head);
    free(g->level);
    free(g->it);
    free(g->queue);
}

static int mf_bfs(mf *g, int s, int t)
{
    int head = 0, tail = 0, v, k;
    for (v = 0; v < g->n; v++)
        g->level[v] = -1;
    g->level[s] = 0;
    g->queue[tail++] = s;
    while (head < tail) {
        v = g->queue[head++];
        for (k = g->head[v]; k >= 0; k = g->e[k].next)
            if (g->e[k].cap > 1e-12 && g->level[g->e[k].to] < 0) {
                g->level[g->e[k].to] = g->level[v] + 1;
                g->queue[tail++] = g->e[k].to;
            }
    }
    return g->level[t] >= 0;
}

/* Depth-first augmenting search along the level graph (depth <= the path's hops). */
static double mf_push(mf *g, int v, int t, double f)
{
    if (v == t)
        return f;
    for (; g->it[v] >= 0; g->it[v] = g->e[g->it[v]].next) {
        mf_edge *e = &g->e[g->it[v]];
        if (e->cap > 1e-12 && g->level[e->to] == g->level[v] + 1) {
            double got = mf_push(g, e->to, t, f < e->cap ? f : e->cap);
            if (got > 0) {
                e->cap -= got;
                g->e[g->it[v] ^ 1].cap += got;
                return got;
            }
        }
    }
    return 0;
}

int cs_topo_bisection_GBps(const cs_topo *t, double *out, cs_err *err)
{
    mf g;
    int i, half = t->n_ranks / 2, s = t->n_nodes, sink = t->n_nodes + 1, v;
    double total = 0, inf = 0;
    *out = 0;
    if (t->n_ranks < 2)
        return 0;
    if (t->model == CS_MODEL_ALPHA_BETA) {
        *out = half * t->ab_bw_GBps;
        return 0;
    }
    for (i = 0; i < t->n_links; i++)
        inf += t->links[i].bw_GBps;
    memset(&g, 0, sizeof g);
    g.n = t->n_nodes + 2;
    g.e = malloc(((size_t)t->n_links * 4 + (size_t)t->n_ranks * 2 + 2) * sizeof *g.e);
    g.head = malloc((size_t)g.n * sizeof *g.head);
    g.level = malloc((size_t)g.n * sizeof *g.level);
    g.it = malloc((size_t)g.n * sizeof *g.it);
    g.queue = malloc((size_t)g.n * sizeof *g.queue);
    if (!g.e || !g.head || !g.level || !g.it || !g.queue) {
        mf_free(&g);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    for (v = 0; v < g.n; v++)
        g.head[v] = -1;
    for (i = 0; i < t->n_links; i++) {
        mf_add(&g, t->links[i].a, t->links[i].b, t->links[i].bw_GBps);
        mf_add(&g, t->links[i].b, t->links[i].a, t->links[i].bw_GBps);
    }
    for (i = 0; i < t->n_ranks; i++) {
        if (i < half)
            mf_add(&g, s, t->ranks[i], inf + 1);
        else if (i < 2 * half)
            mf_add(&g, t->ranks[i], sink, inf + 1);
    }
    while (mf_bfs(&g, s, sink)) {
        double f;
        for (v = 0; v < g.n; v++)
            g.it[v] = g.head[v];
        while ((f = mf_push(&g, s, sink, inf + 1)) > 0)
            total += f;
    }
    mf_free(&g);
    *out = total;
    return 0;
}
