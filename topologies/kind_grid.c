/* kind_grid.c: the grid kinds torus, mesh and hypercube (topologies layer). Ranks r0.. sit
 * on an n-dimensional grid, dimension 0 varying fastest (rank = x + X*(y + Y*z)); links
 * join neighbours along each dimension, a torus wraps, and routes go in dimension order
 * (dimension 0 first, the shorter way round, ties in the + direction), as TPU tori do. */
#include <stdlib.h>

#include "topologies/jsonutil.h"
#include "topologies/kinds.h"

/* Most dimensions and most ranks of a grid. */
#define MAX_GRID_RANKS (1L << 22)
#define MAX_DIMS 22              /* a hypercube of MAX_GRID_RANKS ranks */

/* Routing data of a grid: the dlinks to each node's neighbours. */
typedef struct grid {
    int n_dims;              /* dimensions */
    int dims[MAX_DIMS];      /* size of each dimension */
    int stride[MAX_DIMS];    /* rank distance of one step along each dimension */
    int is_torus;            /* dimensions wrap around */
    int32_t *plus;           /* plus[v * n_dims + d]: dlink v -> its + neighbour, -1 none */
    int32_t *minus;          /* minus[v * n_dims + d]: dlink v -> its - neighbour, -1 none */
} grid;

static void grid_free(void *p)
{
    grid *g = p;
    if (!g)
        return;
    free(g->plus);
    free(g->minus);
    free(g);
}

/* Dimension-order route between two grid nodes (node index = rank). */
static int grid_route(const cs_topo *t, int src, int dst, int32_t *out, int max, cs_err *err)
{
    const grid *g = t->kind_data;
    int d, n = 0, v = src;
    for (d = 0; d < g->n_dims; d++) {
        int k = g->dims[d];
        int cs = (src / g->stride[d]) % k, cd = (dst / g->stride[d]) % k;
        int fwd = g->is_torus ? ((cd - cs) % k + k) % k : cd - cs;
        int steps, up;
        if (fwd == 0)
            continue;
        if (g->is_torus) {
            up = fwd <= k - fwd;
            steps = up ? fwd : k - fwd;
        } else {
            up = fwd > 0;
            steps = up ? fwd : -fwd;
        }
        while (steps-- > 0) {
            int32_t dl = (up ? g->plus : g->minus)[(size_t)v * (size_t)g->n_dims + (size_t)d];
            if (dl < 0 || n >= max)
                return cs_err_set(err, CS_ESTATE, "route", "no grid step from '%s' along "
                                  "dimension %d", t->nodes[v].name, d);
            out[n++] = dl;
            v = cs_dlink_to(t, dl);
        }
    }
    return n;
}

/* Build the grid of g->dims with the links of ls. */
static int grid_build(cs_topo *t, grid *g, const cs__linkspec *ls, cs_err *err)
{
    long total = 1;
    int d, v, rc;
    for (d = 0; d < g->n_dims; d++) {
        g->stride[d] = (int)total;
        total *= g->dims[d];
    }
    if ((rc = cs__topo_alloc_ranks(t, (int)total, err)) < 0)
        return rc;
    g->plus = malloc((size_t)total * (size_t)g->n_dims * sizeof *g->plus);
    g->minus = malloc((size_t)total * (size_t)g->n_dims * sizeof *g->minus);
    if (!g->plus || !g->minus)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory for %ld grid nodes", total);
    for (v = 0; v < total * g->n_dims; v++)
        g->plus[v] = g->minus[v] = -1;
    for (v = 0; v < total; v++) {
        if ((rc = cs__topo_add_nodef(t, CS_NODE_GPU, -1, err, "r%d", v)) < 0)
            return rc;
        t->ranks[v] = v;
    }
    for (v = 0; v < total; v++) {
        for (d = 0; d < g->n_dims; d++) {
            int k = g->dims[d], c = (v / g->stride[d]) % k, w, li;
            size_t iv = (size_t)v * (size_t)g->n_dims + (size_t)d, iw;
            if (k < 2 || (c + 1 == k && (!g->is_torus || k == 2)))
                continue;   /* no + neighbour, or the k = 2 wrap is the same link */
            w = c + 1 == k ? v - c * g->stride[d] : v + g->stride[d];
            iw = (size_t)w * (size_t)g->n_dims + (size_t)d;
            if ((li = cs__topo_add_spec(t, v, w, ls, err)) < 0)
                return li;
            g->plus[iv] = 2 * li;
            g->minus[iw] = 2 * li + 1;
            if (k == 2 && g->is_torus) {   /* wrapping from either end crosses this link */
                g->minus[iv] = 2 * li;
                g->plus[iw] = 2 * li + 1;
            }
        }
    }
    return 0;
}

/* Common part: read the link, allocate the grid data, build, install the router. */
static int grid_finish_build(json_t *root, cs_topo *t, grid *g, cs_err *err)
{
    json_t *link;
    cs__linkspec ls;
    int rc, d;
    if ((rc = cs__json_object(root, "", "link", 1, &link, err)) < 0 ||
        (rc = cs__linkspec_parse(link, "link", NULL, NULL, &ls, err)) < 0 ||
        (rc = grid_build(t, g, &ls, err)) < 0) {
        grid_free(g);
        return rc;
    }
    t->kind_data = g;
    if (g->n_dims <= (int)(sizeof t->dims / sizeof t->dims[0])) {
        t->n_dims = g->n_dims;      /* the shape, for torus-aware algorithms */
        for (d = 0; d < g->n_dims; d++)
            t->dims[d] = g->dims[d];
    }
    t->kind_free = grid_free;
    t->route_fn = grid_route;
    return 0;
}

/* torus / mesh: {"dims": [X, Y, ...], "link": {...}}. */
static int build_dims(json_t *root, cs_topo *t, int is_torus, cs_err *err)
{
    static const char *const keys[] = {"dims", "link", NULL};
    json_t *dims, *v;
    grid *g;
    long total = 1;
    size_t i;
    int rc;
    if ((rc = cs__json_check_keys(root, "", keys, cs__topo_common_keys, err)) < 0 ||
        (rc = cs__json_array(root, "", "dims", 1, &dims, err)) < 0)
        return rc;
    if (json_array_size(dims) < 1 || json_array_size(dims) > MAX_DIMS)
        return cs_err_set(err, CS_EINVAL, "dims", "expected 1 to %d dimensions, got %zu",
                          MAX_DIMS, json_array_size(dims));
    if (!(g = calloc(1, sizeof *g)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    g->is_torus = is_torus;
    g->n_dims = (int)json_array_size(dims);
    json_array_foreach(dims, i, v) {
        char path[CS_JPATH_MAX];
        long k;
        cs__jpath_idx(path, sizeof path, "dims", i);
        if ((rc = cs__json_as_int(v, path, 1, MAX_GRID_RANKS, &k, err)) < 0) {
            grid_free(g);
            return rc;
        }
        g->dims[i] = (int)k;
        total *= k;
        if (total > MAX_GRID_RANKS) {
            grid_free(g);
            return cs_err_set(err, CS_EINVAL, "dims", "the grid has more than %ld ranks",
                              MAX_GRID_RANKS);
        }
    }
    return grid_finish_build(root, t, g, err);
}

static int build_torus(json_t *root, cs_topo *t, cs_err *err)
{
    return build_dims(root, t, 1, err);
}

static int build_mesh(json_t *root, cs_topo *t, cs_err *err)
{
    return build_dims(root, t, 0, err);
}

/* hypercube: {"ranks": 2^d, "link": {...}}; a mesh of d dimensions of size 2, routed in
 * dimension order (e-cube routing: fix the differing address bits lowest first). */
static int build_hypercube(json_t *root, cs_topo *t, cs_err *err)
{
    static const char *const keys[] = {"ranks", "link", NULL};
    grid *g;
    long n;
    int d = 0, rc;
    if ((rc = cs__json_check_keys(root, "", keys, cs__topo_common_keys, err)) < 0 ||
        (rc = cs__json_int(root, "", "ranks", 1, 1, MAX_GRID_RANKS, &n, err)) < 0)
        return rc;
    if (n & (n - 1))
        return cs_err_set(err, CS_EINVAL, "ranks", "must be a power of two, got %ld", n);
    if (!(g = calloc(1, sizeof *g)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    while ((1L << d) < n)
        g->dims[d++] = 2;
    if (d == 0)
        g->dims[d++] = 1;
    g->n_dims = d;
    return grid_finish_build(root, t, g, err);
}

const cs_topo_kind cs_topo_kind_torus = {
    "torus", "n-dimensional torus (\"dims\"), wrap-around links, dimension-order routing",
    build_torus, NULL, 0,
};
const cs_topo_kind cs_topo_kind_mesh = {
    "mesh", "n-dimensional mesh (\"dims\"), no wrap-around, dimension-order routing",
    build_mesh, NULL, 0,
};
const cs_topo_kind cs_topo_kind_hypercube = {
    "hypercube", "2^d ranks, links between addresses one bit apart, e-cube routing",
    build_hypercube, NULL, 0,
};
