/* kind_graph.c: the explicit "graph" kind (topologies layer): named nodes, links between
 * them, the rank order, and optional explicit routes given as node walks (DESIGN §4).
 * Every mistake is reported with its JSON path: unknown or duplicate names, self-links,
 * ranks that are not endpoints, routes that are not walks over existing links. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/jsonutil.h"
#include "topologies/kinds.h"

/* Most nodes a graph may declare (bounds the name index). */
#define MAX_NODES (1L << 22)

/* Name -> node index, as a JSON object of integers (jansson hashes the keys). */
typedef struct graph_ctx {
    json_t *index;           /* {"g0": 0, ...} (owned) */
    cs_topo *t;              /* topology being built */
} graph_ctx;

/* Node index named by v (a string at path where), or an error. */
static int node_ref(graph_ctx *g, const json_t *v, const char *where, int *out, cs_err *err)
{
    const char *name;
    json_t *idx;
    int rc = cs__json_as_string(v, where, &name, err);
    if (rc < 0)
        return rc;
    if (!(idx = json_object_get(g->index, name)))
        return cs_err_set(err, CS_ENOENT, where, "unknown node '%s' (not in nodes)", name);
    *out = (int)json_integer_value(idx);
    return 0;
}

static int parse_nodes(graph_ctx *g, json_t *nodes, cs_err *err)
{
    static const char *const keys[] = {"name", "type", "group", NULL};
    json_t *nd;
    size_t i;
    if (json_array_size(nodes) == 0)
        return cs_err_set(err, CS_EINVAL, "nodes", "expected at least one node, got none");
    if (json_array_size(nodes) > (size_t)MAX_NODES)
        return cs_err_set(err, CS_EINVAL, "nodes", "must have <= %ld nodes, got %zu",
                          MAX_NODES, json_array_size(nodes));
    json_array_foreach(nodes, i, nd) {
        char path[CS_JPATH_MAX], tpath[CS_JPATH_MAX];
        const char *name, *type_name;
        json_t *prev;
        cs_node_type type;
        long group = -1;
        int rc, idx;
        cs__jpath_idx(path, sizeof path, "nodes", i);
        if (!json_is_object(nd))
            return cs_err_set(err, CS_EINVAL, path, "expected an object, got %s",
                              cs__json_type_name(nd));
        if ((rc = cs__json_check_keys(nd, path, keys, NULL, err)) < 0 ||
            (rc = cs__json_string(nd, path, "name", 1, &name, err)) < 0 ||
            (rc = cs__json_string(nd, path, "type", 1, &type_name, err)) < 0 ||
            (rc = cs__json_int(nd, path, "group", 0, 0, 1L << 30, &group, err)) < 0)
            return rc;
        cs__jpath_key(tpath, sizeof tpath, path, "type");
        if (cs_node_type_lookup(type_name, &type) < 0)
            return cs_err_set(err, CS_EINVAL, tpath,
                              "unknown node type '%s' (known: gpu, npu, cpu, nic, switch)",
                              type_name);
        cs__jpath_key(tpath, sizeof tpath, path, "name");
        if ((prev = json_object_get(g->index, name)))
            return cs_err_set(err, CS_EINVAL, tpath, "duplicate node name '%s' (first at "
                              "nodes[%lld])", name, (long long)json_integer_value(prev));
        if ((idx = cs_topo_add_node(g->t, name, type, (int)group)) < 0 ||
            json_object_set_new(g->index, name, json_integer(idx)) < 0)
            return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    }
    return 0;
}

static int parse_links(graph_ctx *g, json_t *links, cs_err *err)
{
    static const char *const extra[] = {"from", "to", NULL};
    json_t *lk;
    size_t i;
    json_array_foreach(links, i, lk) {
        char path[CS_JPATH_MAX], fpath[CS_JPATH_MAX], tpath[CS_JPATH_MAX];
        cs__linkspec ls;
        json_t *from, *to;
        int rc, a, b;
        cs__jpath_idx(path, sizeof path, "links", i);
        if ((rc = cs__linkspec_parse(lk, path, extra, NULL, &ls, err)) < 0)
            return rc;
        cs__jpath_key(fpath, sizeof fpath, path, "from");
        cs__jpath_key(tpath, sizeof tpath, path, "to");
        from = json_object_get(lk, "from");
        to = json_object_get(lk, "to");
        if (!from)
            return cs_err_set(err, CS_EINVAL, fpath, "missing required key (expected a node name)");
        if (!to)
            return cs_err_set(err, CS_EINVAL, tpath, "missing required key (expected a node name)");
        if ((rc = node_ref(g, from, fpath, &a, err)) < 0 ||
            (rc = node_ref(g, to, tpath, &b, err)) < 0)
            return rc;
        if (a == b)
            return cs_err_set(err, CS_EINVAL, path, "self-link: from and to are both '%s'",
                              g->t->nodes[a].name);
        if ((rc = cs__topo_add_spec(g->t, a, b, &ls, err)) < 0)
            return rc;
    }
    return 0;
}

static int parse_ranks(graph_ctx *g, json_t *ranks, cs_err *err)
{
    cs_topo *t = g->t;
    json_t *r;
    size_t i;
    int rc, *rank_of;
    if (json_array_size(ranks) == 0)
        return cs_err_set(err, CS_EINVAL, "ranks", "expected at least one rank, got none");
    if ((rc = cs__topo_alloc_ranks(t, (int)json_array_size(ranks), err)) < 0)
        return rc;
    if (!(rank_of = malloc((size_t)t->n_nodes * sizeof *rank_of)))
        return cs_err_set(err, CS_ENOMEM, "ranks", "out of memory");
    for (i = 0; i < (size_t)t->n_nodes; i++)
        rank_of[i] = -1;
    rc = 0;
    json_array_foreach(ranks, i, r) {
        char path[CS_JPATH_MAX];
        int v;
        cs__jpath_idx(path, sizeof path, "ranks", i);
        if ((rc = node_ref(g, r, path, &v, err)) < 0)
            break;
        if (!cs_node_is_endpoint(t->nodes[v].type)) {
            rc = cs_err_set(err, CS_EINVAL, path, "'%s' is a %s, not an endpoint (expected "
                            "gpu, npu, cpu or nic)", t->nodes[v].name,
                            cs_node_type_name(t->nodes[v].type));
            break;
        }
        if (rank_of[v] >= 0) {
            rc = cs_err_set(err, CS_EINVAL, path, "duplicate rank '%s' (also ranks[%d])",
                            t->nodes[v].name, rank_of[v]);
            break;
        }
        rank_of[v] = (int)i;
        t->ranks[i] = v;
    }
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

/* Turn one {"from", "to", "path"} into a cs_route in rt (dlinks owned by rt on success). */
static int parse_route(graph_ctx *g, json_t *ro, const char *path, cs_route *rt, cs_err *err)
{
    static const char *const keys[] = {"from", "to", "path", NULL};
    char fpath[CS_JPATH_MAX], tpath[CS_JPATH_MAX], ppath[CS_JPATH_MAX], epath[CS_JPATH_MAX];
    json_t *walk, *from, *to;
    size_t i, n;
    int rc, prev = -1;
    if (!json_is_object(ro))
        return cs_err_set(err, CS_EINVAL, path, "expected an object, got %s",
                          cs__json_type_name(ro));
    if ((rc = cs__json_check_keys(ro, path, keys, NULL, err)) < 0 ||
        (rc = cs__json_array(ro, path, "path", 1, &walk, err)) < 0)
        return rc;
    cs__jpath_key(fpath, sizeof fpath, path, "from");
    cs__jpath_key(tpath, sizeof tpath, path, "to");
    cs__jpath_key(ppath, sizeof ppath, path, "path");
    if (!(from = json_object_get(ro, "from")))
        return cs_err_set(err, CS_EINVAL, fpath, "missing required key (expected a node name)");
    if (!(to = json_object_get(ro, "to")))
        return cs_err_set(err, CS_EINVAL, tpath, "missing required key (expected a node name)");
    if ((rc = node_ref(g, from, fpath, &rt->src, err)) < 0 ||
        (rc = node_ref(g, to, tpath, &rt->dst, err)) < 0)
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
        cs__jpath_idx(epath, sizeof epath, ppath, i);
        if ((rc = node_ref(g, json_array_get(walk, i), epath, &v, err)) < 0)
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
    return 0;
fail:
    free(rt->dlinks);
    rt->dlinks = NULL;
    return rc;
}

static int parse_routes(graph_ctx *g, json_t *routes, cs_err *err)
{
    cs_topo *t = g->t;
    size_t i, n = json_array_size(routes);
    int j;
    if (n == 0)
        return 0;
    if (!(t->routes = calloc(n, sizeof *t->routes)))
        return cs_err_set(err, CS_ENOMEM, "routes", "out of memory");
    for (i = 0; i < n; i++) {
        char path[CS_JPATH_MAX];
        cs_route *rt = &t->routes[i];
        int rc;
        cs__jpath_idx(path, sizeof path, "routes", i);
        if ((rc = parse_route(g, json_array_get(routes, i), path, rt, err)) < 0)
            return rc;
        t->n_routes++;
        for (j = 0; j < (int)i; j++)
            if (t->routes[j].src == rt->src && t->routes[j].dst == rt->dst)
                return cs_err_set(err, CS_EINVAL, path, "second route from '%s' to '%s' "
                                  "(first at routes[%d])", t->nodes[rt->src].name,
                                  t->nodes[rt->dst].name, j);
    }
    return 0;
}

static int build_graph(json_t *root, cs_topo *t, cs_err *err)
{
    static const char *const keys[] = {"nodes", "links", "ranks", "routes", NULL};
    json_t *nodes, *links, *ranks, *routes;
    graph_ctx g;
    int rc;
    if ((rc = cs__json_check_keys(root, "", keys, cs__topo_common_keys, err)) < 0 ||
        (rc = cs__json_array(root, "", "nodes", 1, &nodes, err)) < 0 ||
        (rc = cs__json_array(root, "", "links", 1, &links, err)) < 0 ||
        (rc = cs__json_array(root, "", "ranks", 1, &ranks, err)) < 0 ||
        (rc = cs__json_array(root, "", "routes", 0, &routes, err)) < 0)
        return rc;
    g.t = t;
    if (!(g.index = json_object()))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = parse_nodes(&g, nodes, err)) >= 0 && (rc = parse_links(&g, links, err)) >= 0 &&
        (rc = parse_ranks(&g, ranks, err)) >= 0 && routes)
        rc = parse_routes(&g, routes, err);
    json_decref(g.index);
    return rc < 0 ? rc : 0;
}

const cs_topo_kind cs_topo_kind_graph = {
    "graph", "explicit nodes, links, ranks and optional routes", build_graph,
};
