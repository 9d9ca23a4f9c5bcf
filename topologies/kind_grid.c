/* kind_grid.c: the grid kinds torus, mesh and hypercube (topologies layer). Ranks r0.. sit
 * on an n-dimensional grid, dimension 0 varying fastest (rank = x + X*(y + Y*z)); links
 * join neighbours along each dimension, a torus wraps, and routes go in dimension order
 * (dimension 0 first, the shorter way round, ties in the + direction), as TPU tori do. */
#include <stdlib.h>

#include "sim/json.h"
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
    {
        char what[64];
        snprintf(what, sizeof what, "a grid of %ld ranks in %d dimensions", total, g->n_dims);
        if ((rc = cs__topo_size_check(total, total * g->n_dims, total, "dims", what, err)) < 0)
            return rc;
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

/* The rank link ("link", every problem to col when checking, see cs__topo_note), then a new
 * empty grid in *g, left NULL when col holds more problems than its first n0. */
static int grid_new(json_t *root, cs__linkspec *ls, cs_topo_problems *col, int n0, grid **g,
                    cs_err *err)
{
    json_t *link = NULL;
    *g = NULL;
    CS__NOTE(col, err, cs_json_object(root, "", "link", 1, &link, err));
    if (link)
        CS__NOTE(col, err, cs__linkspec_parse(link, "link", NULL, NULL, ls, err));
    if (col && col->n > n0)
        return 0;
    if (!(*g = calloc(1, sizeof **g)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    return 0;
}

/* Common part: build the grid g (owned from here on) with link ls, install the router. */
static int grid_finish_build(cs_topo *t, grid *g, const cs__linkspec *ls, cs_err *err)
{
    int rc, d;
    if ((rc = grid_build(t, g, ls, err)) < 0) {
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

/* torus / mesh: {"dims": [X, Y, ...], "link": {...}}. Building (col NULL) stops at the
 * first problem; checking records each and builds nothing. */
static int dims_run(json_t *root, cs_topo *t, int is_torus, cs_topo_problems *col,
                    cs_err *err)
{
    static const char *const keys[] = {"dims", "link", NULL};
    json_t *dims = NULL, *v;
    cs__linkspec ls = {"generic", 1, 0};
    int sizes[MAX_DIMS];
    long total = 1;
    size_t i;
    int n0 = col ? col->n : 0, rc;
    grid *g;
    CS__NOTE(col, err, cs_json_check_keys(root, "", keys, cs__topo_common_keys, err));
    CS__NOTE(col, err, cs_json_array(root, "", "dims", 1, &dims, err));
    if (dims && (json_array_size(dims) < 1 || json_array_size(dims) > MAX_DIMS)) {
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "dims", "expected 1 to %d dimensions, "
                                      "got %zu", MAX_DIMS, json_array_size(dims)));
        dims = NULL;
    }
    if (dims)
        json_array_foreach(dims, i, v) {
            char path[CS_JPATH_MAX];
            long k = 1;
            cs_jpath_idx(path, sizeof path, "dims", i);
            CS__NOTE(col, err, cs_json_as_int(v, path, 1, MAX_GRID_RANKS, &k, err));
            sizes[i] = (int)k;
            if ((total *= k) > MAX_GRID_RANKS) {
                CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "dims", "the grid has more than "
                                              "%ld ranks", MAX_GRID_RANKS));
                break;
            }
        }
    if ((rc = grid_new(root, &ls, col, n0, &g, err)) < 0 || !g)
        return rc;
    g->is_torus = is_torus;
    g->n_dims = (int)json_array_size(dims);
    for (i = 0; i < (size_t)g->n_dims; i++)
        g->dims[i] = sizes[i];
    return grid_finish_build(t, g, &ls, err);
}

static int build_torus(json_t *root, cs_topo *t, cs_err *err)
{
    return dims_run(root, t, 1, NULL, err);
}

static int build_mesh(json_t *root, cs_topo *t, cs_err *err)
{
    return dims_run(root, t, 0, NULL, err);
}

/* hypercube: {"ranks": 2^d, "link": {...}}; a mesh of d dimensions of size 2, routed in
 * dimension order (e-cube routing: fix the differing address bits lowest first). */
static int cube_run(json_t *root, cs_topo *t, cs_topo_problems *col, cs_err *err)
{
    static const char *const keys[] = {"ranks", "link", NULL};
    cs__linkspec ls = {"generic", 1, 0};
    grid *g;
    long n = 1;
    int d = 0, rc, n0 = col ? col->n : 0;
    CS__NOTE(col, err, cs_json_check_keys(root, "", keys, cs__topo_common_keys, err));
    CS__NOTE(col, err, cs_json_int(root, "", "ranks", 1, 1, MAX_GRID_RANKS, &n, err));
    if (n & (n - 1))
        CS__NOTE(col, err, cs_err_set(err, CS_EINVAL, "ranks", "must be a power of two, got %ld",
                                      n));
    if ((rc = grid_new(root, &ls, col, n0, &g, err)) < 0 || !g)
        return rc;
    while ((1L << d) < n)
        g->dims[d++] = 2;
    if (d == 0)
        g->dims[d++] = 1;
    g->n_dims = d;
    return grid_finish_build(t, g, &ls, err);
}

static int build_hypercube(json_t *root, cs_topo *t, cs_err *err)
{
    return cube_run(root, t, NULL, err);
}

/* topo check: every problem of the keys (and the build's, when they are clean). */
static int check_with(int (*run)(json_t *, cs_topo *, int, cs_topo_problems *, cs_err *),
                      json_t *root, cs_topo *t, int arg, cs_topo_problems *probs)
{
    cs_err err;
    int rc;
    cs_err_clear(&err);
    rc = run(root, t, arg, probs, &err);
    return rc < 0 ? cs__topo_note(probs, rc, &err) : 0;
}

/* cube_run in check_with's shape (no dimension argument). */
static int cube_check_run(json_t *root, cs_topo *t, int arg, cs_topo_problems *col,
                          cs_err *err)
{
    (void)arg;
    return cube_run(root, t, col, err);
}

static int check_torus(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    return check_with(dims_run, root, t, 1, probs);
}

static int check_mesh(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    return check_with(dims_run, root, t, 0, probs);
}

static int check_hypercube(json_t *root, cs_topo *t, cs_topo_problems *probs)
{
    return check_with(cube_check_run, root, t, 0, probs);
}

const cs_topo_kind cs_topo_kind_torus = {
    "torus", "n-dimensional torus (\"dims\"), wrap-around links, dimension-order routing",
    build_torus, check_torus, 0,
};
const cs_topo_kind cs_topo_kind_mesh = {
    "mesh", "n-dimensional mesh (\"dims\"), no wrap-around, dimension-order routing",
    build_mesh, check_mesh, 0,
};
const cs_topo_kind cs_topo_kind_hypercube = {
    "hypercube", "2^d ranks, links between addresses one bit apart, e-cube routing",
    build_hypercube, check_hypercube, 0,
};
