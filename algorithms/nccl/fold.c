/* fold.c: NCCL-mode rings on many identical nodes, simulated on one node (algorithms
 * layer).
 *
 * A multi-node ring (ring.c with channels: the same rotation inside every node) on a
 * cluster of identical servers whose fabric treats every server alike (rails, one switch)
 * is symmetric under shifting every rank by one node: transfer (channel c, ring position
 * q, step t, piece j) starts and ends exactly when (c, q + g, t, j) does, g ranks a node.
 * So each class {q + k g} needs one representative, the position whose sender is on the
 * first node, and each class of links {a link of node k} one representative, the first
 * node's link: the quotient. Every flow of the quotient crosses the representatives of the
 * links its class crosses, so each representative link carries one flow per (flow class,
 * crossing) - what every member of the link class carries in the full run - and max-min
 * fair sharing gives every flow the rate of its class: the same times, at 1/N of the
 * transfers (N nodes). The transfer that leaves the first node (into the next node's
 * entry GPU j) is delivered to a ghost endpoint hanging off the first node's GPU j by a
 * link of unbounded bandwidth and no latency, after crossing the first node's incoming NIC
 * and its links to GPU j (the representatives of the next node's); the step after it
 * starts from GPU j of the first node, the representative of the next node's GPU j.
 *
 * Checked, not assumed: every rank of the ring is shifted onto the first node's by its
 * node's offset (same node types, in the same order), every link used by a route has a
 * representative with the same bandwidth and latency, and the route of every ring
 * position, mapped onto the representatives, equals its class representative's. A fabric
 * where that fails (a fat tree whose leaves split the nodes, ECMP hashing on the
 * destination) is simulated in full. Reductions at the receiver (reduce_GBps) hold a
 * per-rank reducer, which the ghost would not share with its twin: simulated in full. A
 * size the channels and ranks do not divide has blocks one byte apart, which breaks the
 * symmetry by one byte per transfer: folded only when asked (uneven_ok), then within
 * about one byte's time per step of the full simulation. The data check needs the full
 * schedule and is not run on a folded simulation. */
#include "algorithms/nccl/fold.h"
#include "sim/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Never the bottleneck: a flow moves at its slowest link's share, and 1e6 GB/s (the
 * most a link may have) is far above any real link. */
#define GHOST_GBPS 1e6

typedef struct fold_map {
    const cs_topo *t;
    int *node_rep;           /* per node: its representative (first node's twin; switches: itself) */
    int32_t *link_rep;       /* per link: representative link, -1 none */
} fold_map;

static uint64_t pair_key(int a, int b)
{
    return a < b ? (uint64_t)a << 32 | (uint32_t)b : (uint64_t)b << 32 | (uint32_t)a;
}

typedef struct keyed {
    uint64_t key;
    int32_t link;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->link < b->link ? -1 : a->link > b->link;
}

static void map_fini(fold_map *m)
{
    free(m->node_rep);
    free(m->link_rep);
}

/* Node and link representatives. Servers are the node groups; the i-th node of a group
 * stands for the i-th node of every other group with as many nodes. 0, or 1 when the
 * groups differ (not foldable), or CS_ENOMEM. */
static int map_init(fold_map *m, const cs_topo *t, int g0)
{
    int n = t->n_nodes, L = t->n_links, v, i, *first = NULL, *count = NULL, *ord = NULL;
    int max_group = -1, rc = 1;
    keyed *all = NULL, *reps = NULL;
    int n_reps = 0;
    memset(m, 0, sizeof *m);
    m->t = t;
    for (v = 0; v < n; v++)
        if (t->nodes[v].group > max_group)
            max_group = t->nodes[v].group;
    m->node_rep = malloc((size_t)n * sizeof *m->node_rep);
    m->link_rep = malloc(((size_t)L + 1) * sizeof *m->link_rep);
    first = calloc((size_t)max_group + 2, sizeof *first);
    count = calloc((size_t)max_group + 2, sizeof *count);
    ord = malloc(((size_t)n + 1) * sizeof *ord);
    all = malloc(((size_t)L + 1) * sizeof *all);
    reps = malloc(((size_t)L + 1) * sizeof *reps);
    if (!m->node_rep || !m->link_rep || !first || !count || !ord || !all || !reps) {
        rc = CS_ENOMEM;
        goto out;
    }
    /* ord[v]: v's index among its group's nodes; first[G]: the group's first node + 1. */
    for (v = 0; v < n; v++) {
        int G = t->nodes[v].group;
        if (G < 0)
            continue;
        if (!first[G])
            first[G] = v + 1;
        ord[v] = count[G]++;
    }
    if (g0 < 0 || g0 > max_group)
        goto out;
    for (v = 0; v < n; v++) {
        int G = t->nodes[v].group;
        m->node_rep[v] = v;
        if (G < 0 || G == g0)
            continue;
        if (count[G] != count[g0])
            goto out;
        /* Groups are stored contiguously by the cluster kind; check rather than trust. */
        m->node_rep[v] = first[g0] - 1 + ord[v];
        if (m->node_rep[v] >= n || t->nodes[m->node_rep[v]].group != g0 ||
            t->nodes[m->node_rep[v]].type != t->nodes[v].type)
            goto out;
    }
    /* A link's representative: the link between its ends' representatives, the k-th of
     * those when k links join its own two ends (parallel links keep their order). */
    for (i = 0; i < L; i++) {
        int a = t->links[i].a, b = t->links[i].b;
        all[i] = (keyed){pair_key(a, b), i};
        if (m->node_rep[a] == a && m->node_rep[b] == b)
            reps[n_reps++] = (keyed){pair_key(a, b), i};
    }
    qsort(all, (size_t)L, sizeof *all, cmp_keyed);
    qsort(reps, (size_t)n_reps, sizeof *reps, cmp_keyed);
    for (i = 0; i < L; i++) {
        int k = 0, lo = 0, hi = n_reps, l = all[i].link;
        const cs_link *x = &t->links[l];
        uint64_t rk = pair_key(m->node_rep[x->a], m->node_rep[x->b]);
        while (i - k > 0 && all[i - k - 1].key == all[i].key)
            k++;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (reps[mid].key < rk)
                lo = mid + 1;
            else
                hi = mid;
        }
        m->link_rep[l] = -1;
        if (lo + k < n_reps && reps[lo + k].key == rk) {
            const cs_link *r = &t->links[reps[lo + k].link];
            if (r->bw_GBps == x->bw_GBps && r->lat_us == x->lat_us)
                m->link_rep[l] = reps[lo + k].link;
        }
    }
    rc = 0;
out:
    free(first);
    free(count);
    free(ord);
    free(all);
    free(reps);
    return rc;
}

/* The representative of a directed link, -1 if none. */
static int32_t dlink_rep(const fold_map *m, int32_t d)
{
    int32_t l = m->link_rep[cs_dlink_link(d)];
    int from;
    if (l < 0)
        return -1;
    from = m->node_rep[cs_dlink_from(m->t, d)];
    return from == m->t->links[l].a ? 2 * l : 2 * l + 1;
}

/* The route src -> dst (topology nodes) mapped onto representatives into out (room for
 * max). Returns its length, -1 when a link has no representative, or a negative code. */
static int rep_route(const fold_map *m, int src, int dst, int32_t *out, int max, cs_err *err)
{
    const int32_t *dl;
    int n = cs_topo_route(m->t, src, dst, &dl, err), i;
    if (n < 0)
        return n;
    if (n > max)
        return -1;
    for (i = 0; i < n; i++)
        if ((out[i] = dlink_rep(m, dl[i])) < 0)
            return -1;
    return n;
}

/* Ring position data for one channel: window[i] = the i-th position (in ring order) whose
 * sender is on the first node. */
typedef struct fold_ring {
    int *window;             /* per channel, g positions */
    int32_t *route;          /* per (channel, window index): mapped route, max_hops each */
    int *route_len;
} fold_ring;

static int node_of(const cs_topo *t, int r)
{
    return t->nodes[t->ranks[r]].group;
}

int cs_nccl_fold_ring(const cs_coll_req *req, const cs_topo *topo, const cs_sim_costs *costs,
                      double scale, int uneven_ok, cs_time *t_ps, cs_err *err)
{
    const cs_topo *t = topo;
    int p = req->n_ranks, C = req->channels, k = req->chunks, g, N, c, q, i, j, rc = 0;
    int max_hops, n_steps, g0;
    cs_ring_plan pl;
    fold_map m;
    fold_ring fr = {NULL, NULL, NULL};
    int32_t *buf = NULL, *pair_route = NULL;
    int *pair_len = NULL;
    cs_topo *f = NULL;
    cs_sched s;
    int sched_live = 0;
    uint32_t *prev = NULL, *cur = NULL;
    if (!t || t->model != CS_MODEL_FLUID || t->reduce_GBps > 0 || p < 4 || C < 1 || k < 1 ||
        (req->coll != CS_COLL_ALLREDUCE && req->coll != CS_COLL_ALLGATHER &&
         req->coll != CS_COLL_REDUCESCATTER))
        return 0;
    /* Equal blocks only: a shifted transfer must carry as many bytes as its class's
     * representative. */
    if (!uneven_ok && (req->bytes % (uint64_t)C || (req->bytes / (uint64_t)C) % (uint64_t)p))
        return 0;
    cs_ring_plan_init(&pl, req);
    g = pl.g > 0 ? pl.g : cs_node_size(req);
    if (pl.n_cyc > 0 || g < 2 || p % g || (N = p / g) < 2) {
        cs_ring_plan_fini(&pl);
        return 0;
    }
    g0 = node_of(t, 0);
    if ((rc = map_init(&m, t, g0)) != 0) {
        cs_ring_plan_fini(&pl);
        return rc == 1 ? 0 : cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    rc = 0;
    max_hops = 2 * t->n_nodes + 4;
    if (max_hops > 64)
        max_hops = 64;
    fr.window = malloc((size_t)C * (size_t)g * sizeof *fr.window);
    fr.route = malloc((size_t)C * (size_t)g * (size_t)max_hops * sizeof *fr.route);
    fr.route_len = malloc((size_t)C * (size_t)g * sizeof *fr.route_len);
    buf = malloc((size_t)max_hops * sizeof *buf);
    pair_route = malloc((size_t)g * 2 * (size_t)g * (size_t)max_hops * sizeof *pair_route);
    pair_len = malloc((size_t)g * 2 * (size_t)g * sizeof *pair_len);
    if (!fr.window || !fr.route || !fr.route_len || !buf || !pair_route || !pair_len) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (i = 0; i < 2 * g * g; i++)
        pair_len[i] = -1;
    /* Ranks: rank r of node k is rank r - k g of the first node's (same local index). */
    for (q = 0; q < p; q++)
        if (node_of(t, q) < 0 || m.node_rep[t->ranks[q]] != t->ranks[q % g])
            goto nofold;
    /* Windows: the g positions whose sender is on the first node, in ring order. */
    for (c = 0; c < C; c++) {
        int start = -1, n = 0;
        for (q = 0; q < p && start < 0; q++)
            if (cs_ring_plan_rank(&pl, c, q) < g && cs_ring_plan_rank(&pl, c, q - 1) >= g)
                start = q;
        if (start < 0)
            goto nofold;
        for (i = 0; i < g; i++) {
            int r = cs_ring_plan_rank(&pl, c, start + i);
            if (r >= g)
                goto nofold;
            fr.window[c * g + i] = start + i;
            n++;
        }
        (void)n;
    }
    /* Every position's mapped route equals its class representative's. */
    for (c = 0; c < C; c++)
        for (i = 0; i < g; i++) {
            int w = fr.window[c * g + i];
            int32_t *rt = fr.route + ((size_t)c * g + i) * max_hops;
            int src = cs_ring_plan_rank(&pl, c, w), dst = cs_ring_plan_rank(&pl, c, w + 1);
            int n = rep_route(&m, t->ranks[src], t->ranks[dst], rt, max_hops, err), pi, x;
            if (n < -1) {
                rc = n;
                goto out;
            }
            if (n < 0)
                goto nofold;
            fr.route_len[c * g + i] = n;
            /* The folded topology has one route per (sender, receiver or ghost). */
            pi = src * 2 * g + (dst < g ? dst : g + dst % g);
            if (pair_len[pi] < 0) {
                pair_len[pi] = n;
                memcpy(pair_route + (size_t)pi * max_hops, rt, (size_t)n * sizeof *rt);
            } else {
                if (pair_len[pi] != n)
                    goto nofold;
                for (x = 0; x < n; x++)
                    if (pair_route[(size_t)pi * max_hops + x] != rt[x])
                        goto nofold;
            }
        }
    for (c = 0; c < C; c++)
        for (q = 0; q < p; q++) {
            int src = cs_ring_plan_rank(&pl, c, q), dst = cs_ring_plan_rank(&pl, c, q + 1), n, x;
            const int32_t *rt;
            /* Its class representative: the window position with the same sender local
             * index... found by the shift: position q and the window position w with
             * cs_ring_plan_rank(w) == src mod g are in the same class. */
            for (i = 0; i < g && cs_ring_plan_rank(&pl, c, fr.window[c * g + i]) != src % g; i++)
                ;
            if (i == g)
                goto nofold;
            if ((n = rep_route(&m, t->ranks[src], t->ranks[dst], buf, max_hops, err)) < -1) {
                rc = n;
                goto out;
            }
            rt = fr.route + ((size_t)c * g + i) * max_hops;
            if (n != fr.route_len[c * g + i] ||
                (cs_ring_plan_rank(&pl, c, fr.window[c * g + i] + 1) % g) != dst % g)
                goto nofold;
            for (x = 0; x < n; x++)
                if (buf[x] != rt[x])
                    goto nofold;
        }

    /* The folded topology: every node and link (the unused ones stay idle), the first
     * node's ranks, then g ghosts, each joined to its twin by a link that never limits. */
    if (cs_topo_new(&f) < 0) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    f->model = CS_MODEL_FLUID;
    for (i = 0; i < t->n_nodes; i++) {
        int v = cs_topo_add_node(f, t->nodes[i].name, t->nodes[i].type, t->nodes[i].group);
        if (v < 0) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            goto out;
        }
        f->nodes[v].can_reduce = t->nodes[i].can_reduce;
    }
    for (i = 0; i < t->n_links; i++)
        if (cs_topo_add_link(f, t->links[i].a, t->links[i].b, t->links[i].cls,
                             t->links[i].bw_GBps * scale, t->links[i].lat_us) < 0) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            goto out;
        }
    for (i = 0; i < g; i++) {
        char name[48];
        int v;
        snprintf(name, sizeof name, "fold.ghost%d", i);
        /* The ghost stands for a GPU of the next node: another group, so that transfers
         * into it are NET (sim/exec.h transports), as in the full run. */
        if ((v = cs_topo_add_node(f, name, CS_NODE_GPU,
                                  t->nodes[t->ranks[0]].group + 1)) < 0 ||
            cs_topo_add_link(f, t->ranks[i], v, "fold", GHOST_GBPS, 0) < 0) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            goto out;
        }
    }
    if (!(f->ranks = malloc((size_t)2 * g * sizeof *f->ranks))) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    f->n_ranks = 2 * g;
    for (i = 0; i < g; i++) {
        f->ranks[i] = t->ranks[i];
        f->ranks[g + i] = t->n_nodes + i;
    }
    {
        int n_routes = 0;
        for (i = 0; i < 2 * g * g; i++)
            n_routes += pair_len[i] >= 0;
        if (!(f->routes = calloc((size_t)n_routes + 1, sizeof *f->routes))) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            goto out;
        }
        for (i = 0; i < 2 * g * g; i++) {
            int src = i / (2 * g), d = i % (2 * g), n = pair_len[i], ghost = d >= g;
            cs_route *r;
            if (n < 0)
                continue;
            r = &f->routes[f->n_routes];
            if (!(r->dlinks = malloc(((size_t)n + 1) * sizeof *r->dlinks))) {
                rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
                goto out;
            }
            f->n_routes++;
            memcpy(r->dlinks, pair_route + (size_t)i * max_hops, (size_t)n * sizeof *r->dlinks);
            if (ghost)   /* the ghost link is link t->n_links + (d - g), from its twin */
                r->dlinks[n++] = 2 * (t->n_links + d - g);
            r->n_dlinks = n;
            r->src = t->ranks[src];
            r->dst = ghost ? t->n_nodes + d - g : t->ranks[d];
        }
    }
    if ((rc = cs_topo_finish(f, err)) < 0)
        goto out;

    /* The folded schedule: ring.c's chunks and, for the window positions only, its
     * transfers; the predecessor of a window's first position is its last one. */
    if ((rc = cs_sched_init(&s, req->coll, 2 * g, 0, req->bytes)) < 0)
        goto out;
    sched_live = 1;
    s.algo = "ring";
    for (c = 0; c < C; c++) {
        uint64_t slice = cs_split(req->bytes, (uint64_t)C, (uint64_t)c);
        int b;
        for (b = 0; b < p; b++) {
            uint64_t block = cs_split(slice, (uint64_t)p, (uint64_t)b);
            for (j = 0; j < k; j++)
                if (cs_sched_chunk(&s, cs_split(block, (uint64_t)k, (uint64_t)j), -1, -1) < 0) {
                    rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
                    goto out;
                }
        }
    }
    n_steps = req->coll == CS_COLL_ALLREDUCE ? 2 * (p - 1) : p - 1;
    prev = malloc((size_t)g * (size_t)k * sizeof *prev);
    cur = malloc((size_t)g * (size_t)k * sizeof *cur);
    if (!prev || !cur) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (c = 0; c < C; c++)
        for (int st = 0; st < n_steps; st++) {
            for (i = 0; i < g; i++) {
                int w = fr.window[c * g + i], src = cs_ring_plan_rank(&pl, c, w);
                int dst = cs_ring_plan_rank(&pl, c, w + 1), block;
                uint32_t before = 0;
                cs_op op;
                switch (req->coll) {
                case CS_COLL_ALLREDUCE:
                    block = cs_ring_plan_rank(&pl, c, w - st);
                    op = st < p - 1 ? CS_OP_REDUCE : CS_OP_COPY;
                    break;
                case CS_COLL_REDUCESCATTER:
                    block = cs_ring_plan_rank(&pl, c, w - st - 1);
                    op = CS_OP_REDUCE;
                    break;
                default:
                    block = cs_ring_plan_rank(&pl, c, w - st);
                    op = CS_OP_COPY;
                    break;
                }
                if (dst >= g)
                    dst = g + dst % g;
                for (j = 0; j < k; j++) {
                    uint32_t deps[2], nd = 0;
                    int64_t id;
                    if (st > 0)
                        deps[nd++] = prev[((i + g - 1) % g) * k + j];
                    if (j > 0)
                        deps[nd++] = before;
                    id = cs_sched_xfer_range(&s, src, dst, op,
                                             (uint32_t)((c * p + block) * k + j), 1, deps, nd,
                                             st);
                    if (id < 0) {
                        rc = (int)id;
                        goto out;
                    }
                    s.xfers[id].pipe = (uint16_t)j;
                    s.xfers[id].channel = (uint8_t)c;
                    cur[i * k + j] = (uint32_t)id;
                    before = (uint32_t)id;
                }
            }
            {
                uint32_t *tmp = prev;
                prev = cur;
                cur = tmp;
            }
        }
    {
        cs_sim_opts so = {0, 0, costs};
        int wrong;
        if ((rc = cs_sim_once(f, &s, NULL, &so, t_ps, &wrong, err)) < 0)
            goto out;
    }
    rc = 1;
    goto out;
nofold:
    rc = 0;
out:
    if (sched_live)
        cs_sched_fini(&s);
    free(prev);
    free(cur);
    cs_topo_free(f);
    free(fr.window);
    free(fr.route);
    free(fr.route_len);
    free(buf);
    free(pair_route);
    free(pair_len);
    map_fini(&m);
    cs_ring_plan_fini(&pl);
    return rc;
}
