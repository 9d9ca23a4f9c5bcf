/* double_binary_tree.c: NCCL's double binary tree allreduce (algorithms layer; NCCL
 * src/graph/trees.cc ncclGetBtree; Sanders, Speck & Traeff 2009; models.md §3.2). Tree 0 is
 * NCCL's binary tree over the ranks (root 0 with one child; parent and children from the
 * lowest set bit), tree 1 its mirror (rank -> p-1-rank) for even p or its shift by one for
 * odd p, so a rank interior in one tree is a leaf in the other. The buffer is split in half,
 * one half per tree, each cut in --chunks k pieces; a piece is reduced up its tree and
 * broadcast back down, pieces pipelined. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>

/* One tree: parent and up to two children of every rank (-1 for none). */
typedef struct dbt_tree {
    int *up, *down;           /* up[r]; down[3r .. 3r+2] (-1 for none) */
    int root;
} dbt_tree;

#define MAXC 3                /* children a rank can have: two nodes' heads and its chain */

/* NCCL's ncclGetBtree for rank r of n. */
static void btree(int n, int r, int *up, int *d0, int *d1)
{
    int bit, lowbit, u;
    for (bit = 1; bit < n; bit <<= 1)
        if (bit & r)
            break;
    if (r == 0) {
        *up = -1;
        *d0 = -1;
        *d1 = n > 1 ? bit >> 1 : -1;
        return;
    }
    u = (r ^ bit) | (bit << 1);
    if (u >= n)
        u = r ^ bit;
    *up = u;
    lowbit = bit >> 1;
    *d0 = lowbit ? r - lowbit : -1;
    *d1 = lowbit ? r + lowbit : -1;
    while (*d1 >= n) {
        lowbit >>= 1;
        *d1 = lowbit ? r + lowbit : -1;
    }
}

/* Tree t (0 or 1) of n ranks: tree 1 renames tree 0's rank q as p-1-q (even n) or q+1. */
static void make_tree(int n, int t, dbt_tree *tr)
{
    int r;
    for (r = 0; r < n; r++) {
        int q = t == 0 ? r : n % 2 == 0 ? n - 1 - r : (r - 1 + n) % n, u, d0, d1, i;
        int c[3];
        btree(n, q, &u, &d0, &d1);
        c[0] = u;
        c[1] = d0;
        c[2] = d1;
        for (i = 0; i < 3 && t == 1; i++)
            if (c[i] >= 0)
                c[i] = n % 2 == 0 ? n - 1 - c[i] : (c[i] + 1) % n;
        /* Children in increasing rank order. */
        if (c[1] > c[2] && c[2] >= 0) {
            int tmp = c[1];
            c[1] = c[2];
            c[2] = tmp;
        }
        tr->up[r] = c[0];
        tr->down[MAXC * r] = c[1];
        tr->down[MAXC * r + 1] = c[2];
        tr->down[MAXC * r + 2] = -1;
        if (c[0] < 0)
            tr->root = r;
    }
}

/* Height of r above its deepest leaf (leaves 0). */
static int height(const dbt_tree *tr, int r)
{
    int h = 0, i;
    for (i = 0; i < MAXC; i++) {
        int c = tr->down[MAXC * r + i];
        if (c >= 0) {
            int hc = height(tr, c) + 1;
            if (hc > h)
                h = hc;
        }
    }
    return h;
}

static int depth(const dbt_tree *tr, int r)
{
    int d = 0;
    while (tr->up[r] >= 0) {
        r = tr->up[r];
        d++;
    }
    return d;
}

/* The transfers of the trees tr[0 .. n_tr) (tree i carries chunks i*k .. i*k+k-1). */
static int build_trees(const cs_coll_req *req, cs_sched *s, const dbt_tree *tr, int n_tr,
                       int *hgt, int *dep, int per_channel)
{
    int p = req->n_ranks, k = req->chunks, t, j, r, lvl, max_lvl = 0, rc = 0;
    int ordered = !cs__single_port(req);
    /* Per tree and rank: its reduce into its parent and the broadcast into it, of the
     * latest piece. On link-level fabrics piece j of an edge also waits for piece j-1 of
     * the same edge, or the pieces would share the link, arrive together, not pipeline. */
    uint32_t *red = malloc(2 * (size_t)n_tr * (size_t)p * sizeof *red);
    uint32_t *bc = red + (size_t)n_tr * (size_t)p;
    if (!red)
        return CS_ENOMEM;
    for (t = 0; t < n_tr; t++)
        for (r = 0; r < p; r++) {
            hgt[t * p + r] = height(&tr[t], r);
            dep[t * p + r] = depth(&tr[t], r);
            if (hgt[t * p + r] > max_lvl)
                max_lvl = hgt[t * p + r];
            if (dep[t * p + r] > max_lvl)
                max_lvl = dep[t * p + r];
        }
    for (j = 0; j < k && rc >= 0; j++)
        for (t = 0; t < n_tr && rc >= 0; t++) {
            uint32_t chunk = (uint32_t)(t * k + j);
            uint8_t ch = (uint8_t)(per_channel ? t : 0);
            /* Reduce: leaves first; a rank sends up once its children's pieces are in. */
            for (lvl = 0; lvl <= max_lvl && rc >= 0; lvl++)
                for (r = 0; r < p && rc >= 0; r++) {
                    uint32_t deps[MAXC + 1];
                    int n = 0, i;
                    int64_t id;
                    if (hgt[t * p + r] != lvl || tr[t].up[r] < 0)
                        continue;
                    for (i = 0; i < MAXC; i++)
                        if (tr[t].down[MAXC * r + i] >= 0)
                            deps[n++] = red[t * p + tr[t].down[MAXC * r + i]];
                    if (ordered && j > 0)
                        deps[n++] = red[t * p + r];
                    id = cs_sched_xfer_range(s, r, tr[t].up[r], CS_OP_REDUCE, chunk, 1, deps,
                                             (uint32_t)n, lvl);
                    if (id >= 0) {
                        s->xfers[id].pipe = (uint16_t)j;
                        s->xfers[id].channel = ch;
                    }
                    rc = cs__ok(id);
                    red[t * p + r] = (uint32_t)id;
                }
            /* Broadcast: the root once its children's pieces are in, then down. */
            for (lvl = 0; lvl <= max_lvl && rc >= 0; lvl++)
                for (r = 0; r < p && rc >= 0; r++) {
                    int i;
                    if (dep[t * p + r] != lvl)
                        continue;
                    for (i = 0; i < MAXC && rc >= 0; i++) {
                        int c = tr[t].down[MAXC * r + i], n = 0;
                        uint32_t deps[MAXC + 1];
                        int64_t id;
                        if (c < 0)
                            continue;
                        if (r == tr[t].root) {
                            int i2;
                            for (i2 = 0; i2 < MAXC; i2++)
                                if (tr[t].down[MAXC * r + i2] >= 0)
                                    deps[n++] = red[t * p + tr[t].down[MAXC * r + i2]];
                        } else {
                            deps[n++] = bc[t * p + r];
                        }
                        if (ordered && j > 0)
                            deps[n++] = bc[t * p + c];
                        id = cs_sched_xfer_range(s, r, c, CS_OP_COPY, chunk, 1, deps,
                                                 (uint32_t)n, max_lvl + 1 + lvl);
                        if (id >= 0) {
                            s->xfers[id].pipe = (uint16_t)j;
                            s->xfers[id].channel = ch;
                        }
                        rc = cs__ok(id);
                        bc[t * p + c] = (uint32_t)id;
                    }
                }
        }
    free(red);
    return rc;
}

/* NCCL's trees across nodes (src/graph/trees.cc ncclGetDtree, connect.cc): g ranks a node,
 * N nodes. Inside a node a chain from its head; the heads join the binary tree over node
 * indices (tree 1: its mirror, or shift for odd N), up and down. Channel c's chain starts
 * at local rank c mod g for tree 0 and (c + g/2) mod g for tree 1, so that channels and
 * the two trees leave their nodes by different GPUs and NICs, as NCCL's channels do. */
static void make_node_tree(int g, int N, int c, int t, dbt_tree *tr)
{
    int node, i, head = t == 0 ? c % g : (c + g / 2) % g;
    for (node = 0; node < N; node++) {
        int q = t == 0 ? node : N % 2 == 0 ? N - 1 - node : (node - 1 + N) % N, u, d0, d1;
        int nb[3], x;
        btree(N, q, &u, &d0, &d1);
        nb[0] = u;
        nb[1] = d0;
        nb[2] = d1;
        for (x = 0; x < 3 && t == 1; x++)
            if (nb[x] >= 0)
                nb[x] = N % 2 == 0 ? N - 1 - nb[x] : (nb[x] + 1) % N;
        for (i = 0; i < g; i++) {
            int r = node * g + (head + i) % g;
            tr->down[MAXC * r] = tr->down[MAXC * r + 1] = tr->down[MAXC * r + 2] = -1;
            if (i > 0)
                tr->up[r] = node * g + (head + i - 1) % g;
            if (i + 1 < g)
                tr->down[MAXC * r] = node * g + (head + i + 1) % g;
        }
        {
            int h = node * g + head;
            tr->up[h] = nb[0] >= 0 ? nb[0] * g + head : -1;
            if (nb[0] < 0)
                tr->root = h;
            tr->down[MAXC * h + 1] = nb[1] >= 0 ? nb[1] * g + head : -1;
            tr->down[MAXC * h + 2] = nb[2] >= 0 ? nb[2] * g + head : -1;
        }
    }
}

/* Trees per request: two, or on several nodes two per pair of NCCL channels: req->channels
 * counts the pairs (NCCL mode asks for C / 2 of them for C channels). */
static int n_trees(const cs_coll_req *req, int *g)
{
    *g = req->n_ranks > 1 ? cs_node_size(req) : 0;
    return *g > 0 ? 2 * req->channels : 2;
}

/* Each piece of each tree's part goes up and down p-1 tree edges. */
static int check(const cs_coll_req *req, cs_err *err)
{
    int g;
    uint64_t n = 2 * (uint64_t)n_trees(req, &g) * (uint64_t)(req->n_ranks - 1) *
                 (uint64_t)req->chunks;
    if (n > CS__MAX_XFERS)
        return cs_err_set(err, CS_EUNSUPP, "--chunks", "double_binary_tree with %d chunks on %d "
                          "ranks needs %llu transfers, more than %u", req->chunks, req->n_ranks,
                          (unsigned long long)n, CS__MAX_XFERS);
    return 0;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, k = req->chunks, t, j, rc, g, nt = n_trees(req, &g);
    int *mem;
    dbt_tree *tr;
    (void)err;
    /* Tree t carries part t of the 2P trees. On nodes it is NCCL's channel t: pair t mod P,
     * tree t / P (connect.cc: channel c runs tree 0, channel c + P tree 1, both on chain c). */
    for (t = 0; t < nt; t++)
        for (j = 0; j < k; j++) {
            uint64_t part = cs_split(req->bytes, (uint64_t)nt, (uint64_t)t);
            if (cs_sched_chunk(s, cs_split(part, (uint64_t)k, (uint64_t)j), -1, -1) < 0)
                return CS_ENOMEM;
        }
    if (p == 1)
        return 0;
    mem = malloc((size_t)nt * (MAXC + 3) * (size_t)p * sizeof *mem);
    tr = malloc((size_t)nt * sizeof *tr);
    if (!mem || !tr) {
        free(mem);
        free(tr);
        return CS_ENOMEM;
    }
    for (t = 0; t < nt; t++) {
        tr[t].up = mem + (size_t)t * (MAXC + 1) * p;
        tr[t].down = tr[t].up + p;
        if (g > 0)
            make_node_tree(g, p / g, t % (nt / 2), t / (nt / 2), &tr[t]);
        else
            make_tree(p, t, &tr[t]);
    }
    rc = build_trees(req, s, tr, nt, mem + (size_t)nt * (MAXC + 1) * p,
                     mem + (size_t)nt * (MAXC + 2) * p, g > 0);
    free(mem);
    free(tr);
    return rc;
}

/* Powers of two, one piece per half: every interior rank takes two children's halves on its
 * one receive port going up and feeds two children going down, so each tree level costs two
 * message times except the root's single child: 2(2 log2 p - 1)(a + S/2 b) for both trees
 * at once (their ports interleave: a rank interior in one tree is a leaf in the other).
 * With k pieces the steady state is four messages per piece per rank (estimate). */
static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, L = cs_ceil_log2(p), k = req->chunks;
    double piece = cs__blk(cs_split(req->bytes, 2, 0), k, 0);
    double t = ab->a_s + piece * ab->b_s_per_B, g = piece * ab->g_s_per_B;
    if (p == 1)
        return 0;
    /* Up: each interior level takes two pieces and reduces both, the root's only child one;
     * down: 2L-1 message times. */
    return (L - 1) * (t + fmax(t, g) + g) + t + g + (2 * L - 1) * t + 4 * (k - 1) * t;
}

static const char *formula(const cs_coll_req *req)
{
    if (req->chunks > 1)
        return "~(4*log2(p) - 2 + 4(k-1))(a + S/(2k)*b) + log2(p)*S/(2k)*γ";
    return cs__is_pow2(req->n_ranks) ? "(4*log2(p) - 2)(a + S/2*b) + log2(p)*S/2*γ"
                                     : "~(4L - 2)(a + S/2*b) + L*S/2*γ";
}

const cs_algo cs_algo_double_binary_tree = {
    "double_binary_tree",
    "NCCL's two complementary binary trees, half the data each: reduce up, broadcast down",
    CS_COLL_BIT(CS_COLL_ALLREDUCE),
    check, build, cost, formula,
};
