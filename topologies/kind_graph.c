/* kind_graph.c: the explicit "graph" kind (topologies layer): named nodes, links between
 * them, the rank order, and optional explicit routes given as node walks (DESIGN §4).
 * Every mistake is reported with its JSON path: unknown or duplicate names, self-links,
 * ranks that are not endpoints, routes that are not walks over existing links. In check
 * mode (`collsim topo check`) every mistake is recorded and parsing goes on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/json.h"
#include "topologies/kinds.h"

/* Most nodes a graph may declare (bounds the name index). */
#define MAX_NODES (1L << 22)

typedef struct graph_ctx {
    json_t *index;           /* name -> node index, {"g0": 0, ...} (owned) */
    int *pos;                /* position in "nodes" of each node (owned) */
    cs_topo *t;              /* topology being built */
    cs_topo_problems *col;   /* check mode: where problems go; NULL = stop at the first */
    cs_err *err;             /* the error being filled */
} graph_ctx;

/* err holds a problem: strict mode stops with rc; check mode records it and returns 0 so
 * the caller skips the bad item and goes on. */
static int fail(graph_ctx *g, int rc)
{
    if (!g->col || rc == CS_ENOMEM)
        return rc;
    return cs_topo_problems_add(g->col, g->err) < 0 ? CS_ENOMEM : 0;
}

/* Node index named by v (a string at path where), or an error. */
static int node_ref(graph_ctx *g, const json_t *v, const char *where, int *out)
{
    const char *name;
    json_t *idx;
    int rc = cs_json_as_string(v, where, &name, g->err);
    if (rc < 0)
        return rc;
    if (!(idx = json_object_get(g->index, name)))
        return cs_err_set(g->err, CS_ENOENT, where, "unknown node '%s' (not in nodes)", name);
    *out = (int)json_integer_value(idx);
    return 0;
}

/* One node; returns 0 (added or, in check mode, skipped) or a negative code. */
static int parse_node(graph_ctx *g, json_t *nd, size_t i)
{
    static const char *const keys[] = {"name", "type", "group", "nvls", "sharp", NULL};
    char path[CS_JPATH_MAX], tpath[CS_JPATH_MAX];
    const char *name, *type_name;
    json_t *prev;
    cs_node_type type = CS_NODE_GPU;
    long group = -1;
    int rc, idx, nvls = 0, sharp = 0;
    cs_jpath_idx(path, sizeof path, "nodes", i);
    if (!json_is_object(nd))
        return fail(g, cs_err_set(g->err, CS_EINVAL, path, "expected an object, got %s",
                                  cs_json_type_name(nd)));
    if ((rc = cs_json_check_keys(nd, path, keys, NULL, g->err)) < 0 && (rc = fail(g, rc)) < 0)
        return rc;
    if ((rc = cs_json_string(nd, path, "name", 1, &name, g->err)) < 0)
        return fail(g, rc);
    if ((rc = cs_json_int(nd, path, "group", 0, 0, 1L << 30, &group, g->err)) < 0 &&
        (rc = fail(g, rc)) < 0)
        return rc;
    /* A switch reduces in the network only where the file says so: "nvls" (NVLink SHARP,
     * NVSwitch gen3+) or "sharp" (InfiniBand SHARP). */
    if (((rc = cs_json_bool(nd, path, "nvls", 0, &nvls, g->err)) < 0 ||
         (rc = cs_json_bool(nd, path, "sharp", 0, &sharp, g->err)) < 0) &&
        (rc = fail(g, rc)) < 0)
        return rc;
    cs_jpath_key(tpath, sizeof tpath, path, "type");
    if ((rc = cs_json_string(nd, path, "type", 1, &type_name, g->err)) < 0) {
        if ((rc = fail(g, rc)) < 0)
            return rc;
    } else if (cs_node_type_lookup(type_name, &type) < 0) {
        rc = cs_err_set(g->err, CS_EINVAL, tpath,
                        "unknown node type '%s' (known: gpu, npu, cpu, nic, switch)", type_name);
        if ((rc = fail(g, rc)) < 0)
            return rc;
    }
    cs_jpath_key(tpath, sizeof tpath, path, "name");
    if ((prev = json_object_get(g->index, name)))
        return fail(g, cs_err_set(g->err, CS_EINVAL, tpath, "duplicate node name '%s' (first "
                                  "at nodes[%d])", name, g->pos[json_integer_value(prev)]));
    if ((nvls || sharp) && type != CS_NODE_SWITCH) {
        cs_jpath_key(tpath, sizeof tpath, path, nvls ? "nvls" : "sharp");
        if ((rc = fail(g, cs_err_set(g->err, CS_EINVAL, tpath, "only a switch reduces in the "
                                     "network, got a node of type %s",
                                     cs_node_type_name(type)))) < 0)
            return rc;
    }
    if ((idx = cs_topo_add_node(g->t, name, type, (int)group)) < 0 ||
        json_object_set_new(g->index, name, json_integer(idx)) < 0)
        return cs_err_set(g->err, CS_ENOMEM, path, "out of memory");
    g->t->nodes[idx].can_reduce = (nvls || sharp) && type == CS_NODE_SWITCH;
    g->pos[idx] = (int)i;
    return 0;
}

static int parse_nodes(graph_ctx *g, json_t *nodes)
{
    json_t *nd;
    size_t i;
    int rc;
    if (json_array_size(nodes) == 0)
        return fail(g, cs_err_set(g->err, CS_EINVAL, "nodes", "expected at least one node, "
                                  "got none"));
    if (json_array_size(nodes) > (size_t)MAX_NODES)
        return fail(g, cs_err_set(g->err, CS_EINVAL, "nodes", "must have <= %ld nodes, got "
                                  "%zu", MAX_NODES, json_array_size(nodes)));
    if (!(g->pos = malloc(json_array_size(nodes) * sizeof *g->pos)))
        return cs_err_set(g->err, CS_ENOMEM, NULL, "out of memory");
    json_array_foreach(nodes, i, nd)
        if ((rc = parse_node(g, nd, i)) < 0)
            return rc;
    return 0;
}

static int parse_link(graph_ctx *g, json_t *lk, size_t i)
{
    static const char *const extra[] = {"from", "to", NULL};
    char path[CS_JPATH_MAX], fpath[CS_JPATH_MAX], tpath[CS_JPATH_MAX];
    cs__linkspec ls;
    json_t *from, *to;
    int rc, a = -1, b = -1, is_bad = 0;
    cs_jpath_idx(path, sizeof path, "links", i);
    if (!json_is_object(lk))
        return fail(g, cs_err_set(g->err, CS_EINVAL, path, "expected an object, got %s",
                                  cs_json_type_name(lk)));
    if ((rc = cs__linkspec_parse(lk, path, extra, NULL, &ls, g->err)) < 0) {
        if ((rc = fail(g, rc)) < 0)
            return rc;
        is_bad = 1;
    }
    cs_jpath_key(fpath, sizeof fpath, path, "from");
    cs_jpath_key(tpath, sizeof tpath, path, "to");
    from = json_object_get(lk, "from");
    to = json_object_get(lk, "to");
    if (!from)
        rc = cs_err_set(g->err, CS_EINVAL, fpath, "missing required key (expected a node name)");
    else
        rc = node_ref(g, from, fpath, &a);
    if (rc < 0 && (rc = fail(g, rc)) < 0)
        return rc;
    if (!to)
        rc = cs_err_set(g->err, CS_EINVAL, tpath, "missing required key (expected a node name)");
    else
        rc = node_ref(g, to, tpath, &b);
    if (rc < 0 && (rc = fail(g, rc)) < 0)
        return rc;
    if (a < 0 || b < 0 || is_bad)
        return 0;
    if (a == b)
        return fail(g, cs_err_set(g->err, CS_EINVAL, path, "self-link: from and to are both "
                                  "'%s'", g->t->nodes[a].name));
    return cs__topo_add_spec(g->t, a, b, &ls, g->err) < 0 ? CS_ENOMEM : 0;
}

static int parse_ranks(graph_ctx *g, json_t *ranks)
{
    cs_topo *t = g->t;
    json_t *r;
    size_t i;
    int rc, *rank_of, n = 0;
    if (json_array_size(ranks) == 0)
        return fail(g, cs_err_set(g->err, CS_EINVAL, "ranks", "expected at least one rank, "
                                  "got none"));
    if ((rc = cs__topo_alloc_ranks(t, (int)json_array_size(ranks), g->err)) < 0)
        return rc;
    if (!(rank_of = malloc(((size_t)t->n_nodes + 1) * sizeof *rank_of)))
        return cs_err_set(g->err, CS_ENOMEM, "ranks", "out of memory");
    for (i = 0; i < (size_t)t->n_nodes; i++)
        rank_of[i] = -1;
    rc = 0;
    json_array_foreach(ranks, i, r) {
        char path[CS_JPATH_MAX];
        int v;
        cs_jpath_idx(path, sizeof path, "ranks", i);
        rc = node_ref(g, r, path, &v);
        if (rc == 0 && !cs_node_is_endpoint(t->nodes[v].type))
            rc = cs_err_set(g->err, CS_EINVAL, path, "'%s' is a %s, not an endpoint (expected "
                            "gpu, npu, cpu or nic)", t->nodes[v].name,
                            cs_node_type_name(t->nodes[v].type));
        else if (rc == 0 && rank_of[v] >= 0)
            rc = cs_err_set(g->err, CS_EINVAL, path, "duplicate rank '%s' (also ranks[%d])",
                            t->nodes[v].name, rank_of[v]);
        if (rc < 0) {
            if ((rc = fail(g, rc)) < 0)
                break;
            continue;
        }
        rank_of[v] = (int)i;
        t->ranks[n++] = v;
    }
    t->n_ranks = n;
    free(rank_of);
    return rc;
}

/* The dlink from node u to node v over the first link joining them, or -1. */
static int32_t dlink_between(const cs_topo *t, int u, int v)
{
    int i;
    for (i = 0; i < t->n_links; i++) {
        if (t->links[i].a == u && t->links[i].b == v)
            return 2 * i;
        if (t->links[i].b == u && t->links[i].a == v)
            return 2 * i + 1;
    }
    return -1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A route may pass a node twice (up to a CPU root complex and back down through the same
 * PCIe switch) but never cross the same directed link twice: the flow would count twice
 * against that link's bandwidth. Sorting a copy of the dlinks finds a repeat in O(n log n). */
static int check_links_once(graph_ctx *g, const cs_route *rt, const char *ppath)
{
    int i, n = rt->n_dlinks, *ids = malloc(((size_t)n + 1) * sizeof *ids), rc = 0;
    if (!ids)
        return cs_err_set(g->err, CS_ENOMEM, ppath, "out of memory");
    for (i = 0; i < n; i++)
        ids[i] = rt->dlinks[i];
    qsort(ids, (size_t)n, sizeof *ids, cmp_int);
    for (i = 1; i < n && !rc; i++)
        if (ids[i] == ids[i - 1])
            rc = cs_err_set(g->err, CS_EINVAL, ppath, "crosses the link from '%s' to '%s' twice, "
                            "expected each directed link at most once",
                            g->t->nodes[cs_dlink_from(g->t, ids[i])].name,
                            g->t->nodes[cs_dlink_to(g->t, ids[i])].name);
    free(ids);
    return rc;
}

/* Turn one {"from", "to", "path"} into a cs_route in rt (dlinks owned by rt on success). */
static int parse_route(graph_ctx *g, json_t *ro, const char *path, cs_route *rt)
{
    static const char *const keys[] = {"from", "to", "path", NULL};
    char fpath[CS_JPATH_MAX], tpath[CS_JPATH_MAX], ppath[CS_JPATH_MAX], epath[CS_JPATH_MAX];
    cs_err *err = g->err;
    json_t *walk, *from, *to;
    size_t i, n;
    int rc, prev = -1;
    if (!json_is_object(ro))
        return cs_err_set(err, CS_EINVAL, path, "expected an object, got %s",
                          cs_json_type_name(ro));
    if ((rc = cs_json_check_keys(ro, path, keys, NULL, err)) < 0 ||
        (rc = cs_json_array(ro, path, "path", 1, &walk, err)) < 0)
        return rc;
    cs_jpath_key(fpath, sizeof fpath, path, "from");
    cs_jpath_key(tpath, sizeof tpath, path, "to");
    cs_jpath_key(ppath, sizeof ppath, path, "path");
    if (!(from = json_object_get(ro, "from")))
        return cs_err_set(err, CS_EINVAL, fpath, "missing required key (expected a node name)");
    if (!(to = json_object_get(ro, "to")))
        return cs_err_set(err, CS_EINVAL, tpath, "missing required key (expected a node name)");
    if ((rc = node_ref(g, from, fpath, &rt->src)) < 0 ||
        (rc = node_ref(g, to, tpath, &rt->dst)) < 0)
        return rc;
    if (rt->src == rt->dst)
        return cs_err_set(err, CS_EINVAL, path, "route from '%s' to itself",
                          g->t->nodes[rt->src].name);
    n = json_array_size(walk);
    if (n < 2)
        return cs_err_set(err, CS_EINVAL, ppath, "expected at least 2 node names, got %zu", n);
    if (!(rt->dlinks = malloc((n - 1) * sizeof *rt->dlinks)))
        return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    rt->n_dlinks = 0;
    for (i = 0; i < n; i++) {
        int v;
        cs_jpath_idx(epath, sizeof epath, ppath, i);
        if ((rc = node_ref(g, json_array_get(walk, i), epath, &v)) < 0)
            goto fail;
        if (i == 0 && v != rt->src) {
            rc = cs_err_set(err, CS_EINVAL, epath, "path starts at '%s', expected the route's "
                            "from '%s'", g->t->nodes[v].name, g->t->nodes[rt->src].name);
            goto fail;
        }
        if (i == n - 1 && v != rt->dst) {
            rc = cs_err_set(err, CS_EINVAL, epath, "path ends at '%s', expected the route's "
                            "to '%s'", g->t->nodes[v].name, g->t->nodes[rt->dst].name);
            goto fail;
        }
        if (i > 0) {
            int32_t d = dlink_between(g->t, prev, v);
            if (d < 0) {
                rc = cs_err_set(err, CS_EINVAL, epath, "no link between '%s' and '%s' (a path "
                                "must follow links)", g->t->nodes[prev].name,
                                g->t->nodes[v].name);
                goto fail;
            }
            rt->dlinks[rt->n_dlinks++] = d;
        }
        prev = v;
    }
    if ((rc = check_links_once(g, rt, ppath)) < 0)
        goto fail;
    return 0;
fail:
    free(rt->dlinks);
    rt->dlinks = NULL;
    return rc;
}

static int parse_routes(graph_ctx *g, json_t *routes)
{
    cs_topo *t = g->t;
    size_t i, n = json_array_size(routes);
    int j, rc;
    if (n == 0)
        return 0;
    if (!(t->routes = calloc(n, sizeof *t->routes)))
        return cs_err_set(g->err, CS_ENOMEM, "routes", "out of memory");
    for (i = 0; i < n; i++) {
        char path[CS_JPATH_MAX];
        cs_route *rt = &t->routes[t->n_routes];
        cs_jpath_idx(path, sizeof path, "routes", i);
        if ((rc = parse_route(g, json_array_get(routes, i), path, rt)) < 0) {
            if ((rc = fail(g, rc)) < 0)
                return rc;
            continue;
        }
        t->n_routes++;
        for (j = 0; j < t->n_routes - 1; j++)
            if (t->routes[j].src == rt->src && t->routes[j].dst == rt->dst) {
                rc = cs_err_set(g->err, CS_EINVAL, path, "second route from '%s' to '%s'",
                                t->nodes[rt->src].name, t->nodes[rt->dst].name);
                if ((rc = fail(g, rc)) < 0)
                    return rc;
                free(rt->dlinks);
                t->n_routes--;
                break;
            }
    }
    return 0;
}

/* Check mode: every rank that cannot reach rank 0 (links joined by union-find). */
static int check_connected(graph_ctx *g)
{
    cs_topo *t = g->t;
    int *up = malloc(((size_t)t->n_nodes + 1) * sizeof *up), i, rc = 0;
    if (!up)
        return cs_err_set(g->err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < t->n_nodes; i++)
        up[i] = i;
    for (i = 0; i < t->n_links; i++) {
        int a = t->links[i].a, b = t->links[i].b;
        while (up[a] != a)
            a = up[a] = up[up[a]];
        while (up[b] != b)
            b = up[b] = up[up[b]];
        up[a] = b;
    }
    for (i = 0; i < t->n_nodes; i++) {
        int r = i;
        while (up[r] != r)
            r = up[r];
        up[i] = r;
    }
    for (i = 1; rc == 0 && i < t->n_ranks; i++)
        if (up[t->ranks[i]] != up[t->ranks[0]]) {
            char where[64];
            snprintf(where, sizeof where, "ranks[%d]", i);
            rc = fail(g, cs_err_set(g->err, CS_EINVAL, where, "'%s' cannot be reached from "
                                    "rank 0 '%s' (disconnected)", t->nodes[t->ranks[i]].name,
                                    t->nodes[t->ranks[0]].name));
        }
    free(up);
    return rc;
}

static int graph_run(json_t *root, cs_topo *t, cs_topo_problems *col, cs_err *err)
{
    static const char *const keys[] = {"nodes", "links", "ranks", "routes", NULL};
    json_t *nodes, *links, *ranks, *routes, *v;
    graph_ctx g = {NULL, NULL, t, col, err};
    size_t i;
    int rc;
    if ((rc = cs_json_check_keys(root, "", keys, cs__topo_common_keys, err)) < 0 &&
        (rc = fail(&g, rc)) < 0)
        return rc;
    if ((rc = cs_json_array(root, "", "nodes", 1, &nodes, err)) < 0 ||
        (rc = cs_json_array(root, "", "links", 1, &links, err)) < 0 ||
        (rc = cs_json_array(root, "", "ranks", 1, &ranks, err)) < 0 ||
        (rc = cs_json_array(root, "", "routes", 0, &routes, err)) < 0)
        return fail(&g, rc);
    if (!(g.index = json_object()))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = parse_nodes(&g, nodes)) >= 0) {
        json_array_foreach(links, i, v)
            if ((rc = parse_link(&g, v, i)) < 0)
                break;
    }
    if (rc >= 0)
        rc = parse_ranks(&g, ranks);
    if (rc >= 0 && routes)
        rc = parse_routes(&g, routes);
    if (rc >= 0 && col && t->n_ranks > 0)
        rc = check_connected(&g);
    json_decref(g.index);
    free(g.pos);
    return rc < 0 ? rc : 0;
}

static int build_graph(json_t *root, cs_topo *t, cs_err *err)
{
    return graph_run(root, t, NULL, err);
}

static int check_graph(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    cs_err err;
    cs_err_clear(&err);
    return graph_run(root, t, probs, &err);
}

const cs_topo_kind cs_topo_kind_graph = {
    "graph", "explicit nodes, links, ranks and optional routes", build_graph, check_graph, 0,
};
