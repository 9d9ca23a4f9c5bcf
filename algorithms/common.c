/* common.c: shared helpers of the algorithms layer: request defaults, building through an
 * ops table, alpha-beta parameters of a topology, integer logarithms. */
#include "algorithms/coll.h"
#include "sim/limits.h"
#include "topologies/topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cs_coll_req_init(cs_coll_req *req, cs_coll coll, int n_ranks, uint64_t bytes)
{
    memset(req, 0, sizeof *req);
    req->coll = coll;
    req->n_ranks = n_ranks;
    req->bytes = bytes;
    req->elt_bytes = 4;
    req->chunks = 1;
    req->servers = 1;
    req->channels = 1;
}

int cs_algo_build(const cs_algo *ops, const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int rc;
    memset(s, 0, sizeof *s);
    if (!cs_algo_has(ops, req->coll))
        return cs_err_set(err, CS_EUNSUPP, "--algo", "algorithm '%s' does not implement %s",
                          ops->name, cs_coll_name(req->coll));
    if (req->n_ranks < 1)
        return cs_err_set(err, CS_EINVAL, "-g", "must be >= 1, got %d", req->n_ranks);
    if (req->chunks < 1)
        return cs_err_set(err, CS_EINVAL, "--chunks", "must be >= 1, got %d", req->chunks);
    if (req->root < 0 || req->root >= req->n_ranks)
        return cs_err_set(err, CS_EINVAL, "-r", "root must be between 0 and %d, got %d",
                          req->n_ranks - 1, req->root);
    if (ops->check && (rc = ops->check(req, err)) < 0)
        return rc;
    rc = cs_sched_init(s, req->coll, req->n_ranks,
                       cs_coll_is_rooted(req->coll) ? req->root : 0, req->bytes);
    if (rc < 0)
        return cs_err_set(err, rc, NULL, "cannot start a schedule for %d ranks", req->n_ranks);
    s->algo = ops->name;
    rc = ops->build(req, s, err);
    if (rc < 0) {
        if ((!err || !err->code) && rc == CS_ELIMIT)
            cs_budget_check(UINT64_MAX, ops->name, "the schedule with its simulation state", err);
        else if ((!err || !err->code) && rc == CS_ENOMEM)
            cs_err_set(err, rc, ops->name, "out of memory building the schedule for %d ranks "
                       "(the system refused an allocation; --max-memory SIZE refuses such "
                       "runs up front)", req->n_ranks);
        else if (!err || !err->code)
            cs_err_set(err, rc, ops->name, "building the schedule failed (%s)", cs_err_name(rc));
        cs_sched_fini(s);
        return rc;
    }
    return 0;
}

void cs_ab_from_topo(const cs_topo *t, cs_ab *ab)
{
    memset(ab, 0, sizeof *ab);
    if (t->reduce_GBps > 0)
        ab->g_s_per_B = 1.0 / (t->reduce_GBps * 1e9);
    if (t->model == CS_MODEL_ALPHA_BETA) {
        ab->a_s = t->ab_lat_us * 1e-6;
        ab->b_s_per_B = 1.0 / (t->ab_bw_GBps * 1e9);
        return;
    }
    if (t->n_ranks > 1) {
        const int32_t *dl;
        int n = cs_topo_route(t, t->ranks[0], t->ranks[1], &dl, NULL);
        if (n > 0) {
            ab->a_s = cs_topo_route_lat_us(t, dl, n) * 1e-6;
            ab->b_s_per_B = 1.0 / (cs_topo_route_bw_GBps(t, dl, n) * 1e9);
        }
    }
}

int cs_ceil_log2(int p)
{
    int l = 0;
    while ((1 << l) < p)
        l++;
    return l;
}

int cs_floor_log2(int p)
{
    int l = 0;
    while ((2 << l) <= p)
        l++;
    return l;
}

int cs_node_size(const cs_coll_req *req)
{
    const cs_topo *t = req->topo;
    int p = req->n_ranks, g = 1, r;
    if (!t || t->n_ranks < p || p < 1 || t->nodes[t->ranks[0]].group < 0)
        return 0;
    while (g < p && t->nodes[t->ranks[g]].group == t->nodes[t->ranks[0]].group)
        g++;
    if (g < 2 || g == p || p % g)
        return 0;
    for (r = 0; r < p; r++)
        if (t->nodes[t->ranks[r]].group != t->nodes[t->ranks[r - r % g]].group ||
            (r % g == 0 && r > 0 &&
             t->nodes[t->ranks[r]].group == t->nodes[t->ranks[r - g]].group))
            return 0;
    return g;
}

int cs_switch_of(const cs_topo *t, int r0, int n)
{
    int v, r, k;
    if (!t->adj_off)
        return -1;
    for (v = 0; v < t->n_nodes; v++) {
        if (t->nodes[v].type != CS_NODE_SWITCH || !t->nodes[v].can_reduce)
            continue;
        for (r = r0; r < r0 + n; r++) {
            int u = t->ranks[r], linked = 0;
            for (k = t->adj_off[u]; k < t->adj_off[u + 1] && !linked; k++)
                linked = cs_dlink_to(t, t->adj[k]) == v;
            if (!linked)
                break;
        }
        if (r == r0 + n)
            return v;
    }
    return -1;
}

/* Depth-first search for a Hamiltonian cycle from rank 0 over direct links with capacity
 * left (adj[i*p+j] > 0, in rings), lowest rank first, as NCCL's search tries its candidates in order; *budget bounds
 * the steps. Returns 1 when path[0..p) closes back to rank 0. */
static int ham_dfs(int p, unsigned char *adj, int *path, unsigned char *used, int depth,
                   int step, long *budget)
{
    int jj, u = path[depth - 1];
    if (depth == p)
        return adj[u * p + path[0]];
    for (jj = 0; jj < p; jj++) {
        int j = (u + step * (jj + 1)) % p;
        if (used[j] || !adj[u * p + j] || --*budget < 0)
            continue;
        used[j] = 1;
        path[depth] = j;
        if (ham_dfs(p, adj, path, used, depth + 1, step, budget))
            return 1;
        used[j] = 0;
    }
    return 0;
}

/* Greedy edge-disjoint cycles with candidate order step (next rank u + step, u + 2 step, ...
 * mod p; step coprime to p); adj is consumed. Returns how many were written to cyc. */
static int ham_greedy(int p, unsigned char *adj, unsigned char *used, int step, int *cyc)
{
    int k, q;
    for (k = 0; k < CS_RING_MAX_CYCLES; k++) {
        int *path = cyc + (size_t)k * p;
        long budget = 200000;
        memset(used, 0, (size_t)p);
        path[0] = 0;
        used[0] = 1;
        if (!ham_dfs(p, adj, path, used, 1, step, &budget))
            break;
        for (q = 0; q < p; q++) {
            int a = path[q], b = path[(q + 1) % p];
            adj[a * p + b]--;
            adj[b * p + a]--;
        }
    }
    return k;
}

/* A host of PCIe switches and CPU sockets (a topology with CPU nodes, ranks of one server
 * with no direct links between them): the ring NCCL's search finds there. From rank 0, always on to the nearest rank
 * not yet on the ring (fewest links, ties to the lowest rank): every rank under a PCIe
 * switch before the next switch, every switch under a socket before the CPU link, so each
 * switch uplink and each CPU link is crossed once each way - the fewest a ring can.
 * Returns 1 with the order in cyc[0..p), 0 when t is no such host, or CS_ENOMEM. */
static int pcie_ring(const cs_topo *t, int p, int *cyc)
{
    int *dist = NULL, *to = NULL, *on = NULL, i, q, has_cpu = 0, rc = CS_ENOMEM;
    for (i = 0; i < t->n_nodes && !has_cpu; i++)
        has_cpu |= t->nodes[i].type == CS_NODE_CPU;
    for (i = 1; i < p; i++)          /* one server: nodes of a cluster keep their rotations */
        if (t->nodes[t->ranks[i]].group != t->nodes[t->ranks[0]].group)
            return 0;
    if (!has_cpu || !t->adj_off)
        return 0;
    dist = malloc((size_t)p * (size_t)p * sizeof *dist);
    to = malloc((size_t)p * sizeof *to);
    on = calloc((size_t)p, sizeof *on);
    if (!dist || !to || !on)
        goto out;
    /* Hops from every rank to every rank (breadth-first over all links, as far as the
     * farthest rank: the server, not the whole of a cluster). */
    for (i = 0; i < p; i++)
        to[i] = t->ranks[i];
    for (i = 0; i < p; i++)
        if (cs_topo_hops(t, t->ranks[i], to, p, dist + (size_t)i * p, NULL) < 0)
            goto out;
    rc = 1;
    for (i = 0; i < p && rc == 1; i++)           /* direct links: the mesh search's case */
        for (q = 0; q < p; q++)
            if (q != i && dist[(size_t)i * p + q] == 1)
                rc = 0;
    cyc[0] = 0;
    on[0] = 1;
    for (q = 1; q < p && rc == 1; q++) {
        const int *d = dist + (size_t)cyc[q - 1] * p;
        int best = -1;
        for (i = 0; i < p; i++)
            if (!on[i] && d[i] >= 0 && (best < 0 || d[i] < d[best]))
                best = i;
        if (best < 0)
            rc = 0;                              /* a rank out of reach: keep rank order */
        else
            on[cyc[q] = best] = 1;
    }
out:
    free(dist);
    free(to);
    free(on);
    return rc;
}

/* Whether the g ranks of the first node of t (ranks 0..g-1) are joined all to all by
 * direct xGMI links (an AMD Infinity Fabric mesh: RCCL's platforms; NCCL's search on an
 * NVLink mesh is not modelled so). */
static int node_mesh(const cs_topo *t, int g)
{
    int a, b, k;
    if (!t->adj_off)
        return 0;
    for (a = 0; a < g; a++)
        for (b = 0; b < g; b++) {
            int u = t->ranks[a], linked = a == b;
            for (k = t->adj_off[u]; k < t->adj_off[u + 1] && !linked; k++)
                linked = cs_dlink_to(t, t->adj[k]) == t->ranks[b] &&
                         !strcmp(t->links[cs_dlink_link(t->adj[k])].cls, "xgmi");
            if (!linked)
                return 0;
        }
    return 1;
}

/* Multi-node rings on nodes whose g GPUs are joined all to all by xGMI (even g): RCCL runs each
 * channel through a node on its own Hamiltonian path, the paths together taking every
 * directed GPU-to-GPU link once, and out by the path's last GPU's NIC (ROCm/rccl
 * src/graph/rome_models.cc, rome_model_81, 8 GPUs and 8 NICs: lines "N0 0 1 2 3 4 5 6 7
 * N7|N1 1 0 2 4 3 5 7 6 N6|..."). Here Walecki's paths: 0, 1, g-1, 2, g-2, ... g/2 and its
 * shifts by 1 .. g/2-1 share no link (either direction), so they and their reverses (the odd
 * channels) are g paths over every directed link once, starting at g different GPUs and
 * ending at g different GPUs (so at g different NICs). Every node runs the same path; cycle
 * i is node 0's path i, node 1's, ... Returns the cycles written (g/2). */
static int mesh_node_paths(int p, int g, int *cyc)
{
    int i, m, j;
    for (i = 0; i < g / 2; i++)
        for (m = 0; m < p / g; m++)
            for (j = 0; j < g; j++) {
                int w = j == 0 ? 0 : j % 2 ? (j + 1) / 2 : g - j / 2;
                cyc[(size_t)i * p + m * g + j] = m * g + (w + i) % g;
            }
    return g / 2;
}

/* Rank lookup for the mesh search: keys node * 128 + rank of ranks 0..p-1 (p <= 64),
 * sorted; the rank of a node is the highest one on it, -1 for none. */
static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int rank_at(const long *key, int p, int node)
{
    int lo = 0, hi = p;                 /* first key above node's last possible one */
    while (lo < hi) {
        int m = (lo + hi) / 2;
        if (key[m] <= (long)node * 128 + 127)
            lo = m + 1;
        else
            hi = m;
    }
    return lo > 0 && key[lo - 1] / 128 == node ? (int)(key[lo - 1] % 128) : -1;
}

/* The links joining two ranks' nodes, in link order: read from the ranks' adjacency (a
 * server's links, not the whole of a cluster's), every link at its end a. *out (malloc'd),
 * *n of them. Returns 0 or CS_ENOMEM. */
static int rank_links(const cs_topo *t, const long *key, int p, int **out, int *n)
{
    int i, k, cap = 0, *l;
    *n = 0;
    if (!t->adj_off) {                  /* an unfinished topology: every link */
        if (!(*out = malloc(((size_t)t->n_links + 1) * sizeof **out)))
            return CS_ENOMEM;
        for (i = 0; i < t->n_links; i++)
            (*out)[(*n)++] = i;
        return 0;
    }
    for (i = 0; i < p; i++)
        cap += t->adj_off[t->ranks[i] + 1] - t->adj_off[t->ranks[i]];
    if (!(*out = l = malloc(((size_t)cap + 1) * sizeof *l)))
        return CS_ENOMEM;
    for (i = 0; i < p; i++) {
        int v = t->ranks[i];
        if (rank_at(key, p, v) != i)    /* a node several ranks share: once */
            continue;
        for (k = t->adj_off[v]; k < t->adj_off[v + 1]; k++)
            if (!(t->adj[k] & 1) && rank_at(key, p, t->links[t->adj[k] >> 1].b) >= 0)
                l[(*n)++] = t->adj[k] >> 1;
    }
    qsort(l, (size_t)*n, sizeof *l, cmp_int);
    return 0;
}

void cs_ring_plan_init(cs_ring_plan *pl, const cs_coll_req *req)
{
    const cs_topo *t = req->topo;
    int p = req->n_ranks, i, k, *lk = NULL, n_lk = 0;
    long *key = NULL;
    double min_bw = 0;
    unsigned char *adj = NULL, *used = NULL, *adj2 = NULL;
    int *tmp = NULL;
    memset(pl, 0, sizeof *pl);
    pl->p = p;
    pl->g = req->channels > 1 ? cs_node_size(req) : 0;
    if (t && t->model == CS_MODEL_FLUID && pl->g >= 4 && pl->g % 2 == 0 &&
        pl->g <= 2 * CS_RING_MAX_CYCLES && node_mesh(t, pl->g)) {
        if ((pl->cyc = malloc((size_t)p * CS_RING_MAX_CYCLES * sizeof *pl->cyc)))
            pl->n_cyc = mesh_node_paths(p, pl->g, pl->cyc);
        return;
    }
    /* One group of ranks with direct links between them (an xGMI or NVLink mesh, a DGX-1
     * cube-mesh): rings over those links only, a different one per channel pair where
     * edge-disjoint ones exist (NCCL's search.cc: rings over NVLink, never through PCIe
     * when NVLink can close them). */
    if (!t || t->model != CS_MODEL_FLUID || pl->g > 0 || p < 3 || p > CS_RING_MESH_MAX)
        return;
    adj = calloc((size_t)p * (size_t)p, 1);
    used = calloc((size_t)p, 1);
    key = malloc((size_t)p * sizeof *key);
    pl->cyc = malloc((size_t)p * CS_RING_MAX_CYCLES * sizeof *pl->cyc);
    if (!adj || !used || !key || !pl->cyc)
        goto out;
    for (i = 0; i < p; i++)
        key[i] = (long)t->ranks[i] * 128 + i;
    qsort(key, (size_t)p, sizeof *key, cmp_long);
    if (rank_links(t, key, p, &lk, &n_lk) < 0)
        goto out;
    /* A pair's direct bandwidth in units of the slowest direct link (a doubled NVLink pair
     * of the DGX-1 counts 2): how many rings may cross it. */
    for (k = 0; k < n_lk; k++) {
        const cs_link *L = &t->links[lk[k]];
        int a = rank_at(key, p, L->a), b = rank_at(key, p, L->b);
        if (a >= 0 && b >= 0 && a != b && (min_bw == 0 || L->bw_GBps < min_bw))
            min_bw = L->bw_GBps;
    }
    for (k = 0; k < n_lk; k++) {
        const cs_link *L = &t->links[lk[k]];
        int a = rank_at(key, p, L->a), b = rank_at(key, p, L->b), u;
        if (a < 0 || b < 0 || a == b)
            continue;
        u = adj[a * p + b] + (int)floor(L->bw_GBps / min_bw + 1e-9);
        adj[a * p + b] = adj[b * p + a] = (unsigned char)(u > 255 ? 255 : u);
    }
    /* NCCL's search tries candidates in several orders and keeps the best: here the orders
     * u + step for every step coprime to p, the most rings kept (ties: the smallest step,
     * so a plain ring keeps rank order). */
    if (!(adj2 = malloc((size_t)p * (size_t)p)) ||
        !(tmp = malloc((size_t)p * CS_RING_MAX_CYCLES * sizeof *tmp)))
        goto out;
    for (k = 1; k < p; k++) {
        int a = p, b = k, n;
        while (b) {
            int r = a % b;
            a = b;
            b = r;
        }
        if (a != 1)
            continue;
        memcpy(adj2, adj, (size_t)p * (size_t)p);
        n = ham_greedy(p, adj2, used, k, tmp);
        if (n > pl->n_cyc) {
            pl->n_cyc = n;
            memcpy(pl->cyc, tmp, (size_t)n * (size_t)p * sizeof *tmp);
        }
    }
    /* No cycle over direct links: on a PCIe host, the ring that follows the PCIe tree. */
    if (pl->n_cyc == 0 && pcie_ring(t, p, pl->cyc) == 1)
        pl->n_cyc = 1;
out:
    if (pl->n_cyc == 0) {
        free(pl->cyc);
        pl->cyc = NULL;
    }
    free(adj);
    free(adj2);
    free(tmp);
    free(used);
    free(key);
    free(lk);
}

void cs_ring_plan_fini(cs_ring_plan *pl)
{
    free(pl->cyc);
    pl->cyc = NULL;
}

int cs_ring_plan_rank(const cs_ring_plan *pl, int c, int q)
{
    int p = pl->p;
    q = ((q % p) + p) % p;
    if (pl->n_cyc > 0)
        return pl->cyc[(size_t)((c / 2) % pl->n_cyc) * p + ((c & 1) ? (p - q) % p : q)];
    return cs_ring_channel_rank(c, p, pl->g, q);
}

int cs_ring_channel_rank(int c, int p, int g, int q)
{
    int r;
    q = ((q % p) + p) % p;
    r = (c & 1) ? (p - q) % p : q;
    return g > 0 ? r - r % g + (r % g + c + (c & 1)) % g : r;
}
