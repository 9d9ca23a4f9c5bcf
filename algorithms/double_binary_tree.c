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
    int *up, *down;           /* up[r]; down[2r], down[2r+1] */
    int root;
} dbt_tree;

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
        tr->down[2 * r] = c[1];
        tr->down[2 * r + 1] = c[2];
        if (c[0] < 0)
            tr->root = r;
    }
}

/* Height of r above its deepest leaf (leaves 0). */
static int height(const dbt_tree *tr, int r)
{
    int h = 0, i;
    for (i = 0; i < 2; i++) {
        int c = tr->down[2 * r + i];
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

static int build_trees(const cs_coll_req *req, cs_sched *s, dbt_tree tr[2], int *hgt, int *dep)
{
    int p = req->n_ranks, k = req->chunks, t, j, r, lvl, max_lvl = 0, rc = 0;
    int ordered = !cs__single_port(req);
    /* Per tree and rank: its reduce into its parent and the broadcast into it, of the
     * latest piece. On link-level fabrics piece j of an edge also waits for piece j-1 of
     * the same edge, or the pieces would share the link, arrive together, not pipeline. */
    uint32_t *red = malloc(4 * (size_t)p * sizeof *red);
    uint32_t *bc = red + 2 * (size_t)p;
    if (!red)
        return CS_ENOMEM;
    for (t = 0; t < 2; t++)
        for (r = 0; r < p; r++) {
            hgt[t * p + r] = height(&tr[t], r);
            dep[t * p + r] = depth(&tr[t], r);
            if (hgt[t * p + r] > max_lvl)
                max_lvl = hgt[t * p + r];
            if (dep[t * p + r] > max_lvl)
                max_lvl = dep[t * p + r];
        }
    for (j = 0; j < k && rc >= 0; j++)
        for (t = 0; t < 2 && rc >= 0; t++) {
            uint32_t chunk = (uint32_t)(t * k + j);
            /* Reduce: leaves first; a rank sends up once its children's pieces are in. */
            for (lvl = 0; lvl <= max_lvl && rc >= 0; lvl++)
                for (r = 0; r < p && rc >= 0; r++) {
                    uint32_t deps[3];
                    int n = 0, i;
                    int64_t id;
                    if (hgt[t * p + r] != lvl || tr[t].up[r] < 0)
                        continue;
                    for (i = 0; i < 2; i++)
                        if (tr[t].down[2 * r + i] >= 0)
                            deps[n++] = red[t * p + tr[t].down[2 * r + i]];
                    if (ordered && j > 0)
                        deps[n++] = red[t * p + r];
                    id = cs_sched_xfer_range(s, r, tr[t].up[r], CS_OP_REDUCE, chunk, 1, deps,
                                             (uint32_t)n, lvl);
                    s->xfers[id < 0 ? 0 : id].pipe = (uint16_t)j;
                    rc = cs__ok(id);
                    red[t * p + r] = (uint32_t)id;
                }
            /* Broadcast: the root once its children's pieces are in, then down. */
            for (lvl = 0; lvl <= max_lvl && rc >= 0; lvl++)
                for (r = 0; r < p && rc >= 0; r++) {
                    int i;
                    if (dep[t * p + r] != lvl)
                        continue;
                    for (i = 0; i < 2 && rc >= 0; i++) {
                        int c = tr[t].down[2 * r + i], n = 0;
                        uint32_t deps[3];
                        int64_t id;
                        if (c < 0)
                            continue;
                        if (r == tr[t].root) {
                            int i2;
                            for (i2 = 0; i2 < 2; i2++)
                                if (tr[t].down[2 * r + i2] >= 0)
                                    deps[n++] = red[t * p + tr[t].down[2 * r + i2]];
                        } else {
                            deps[n++] = bc[t * p + r];
                        }
                        if (ordered && j > 0)
                            deps[n++] = bc[t * p + c];
                        id = cs_sched_xfer_range(s, r, c, CS_OP_COPY, chunk, 1, deps,
                                                 (uint32_t)n, max_lvl + 1 + lvl);
                        s->xfers[id < 0 ? 0 : id].pipe = (uint16_t)j;
                        rc = cs__ok(id);
                        bc[t * p + c] = (uint32_t)id;
                    }
                }
        }
    free(red);
    return rc;
}

/* Each piece of each half goes up and down p-1 tree edges. */
static int check(const cs_coll_req *req, cs_err *err)
{
    uint64_t n = 4 * (uint64_t)(req->n_ranks - 1) * (uint64_t)req->chunks;
    if (n > CS__MAX_XFERS)
        return cs_err_set(err, CS_EUNSUPP, "--chunks", "double_binary_tree with %d chunks on %d "
                          "ranks needs %llu transfers, more than %u", req->chunks, req->n_ranks,
                          (unsigned long long)n, CS__MAX_XFERS);
    return 0;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, k = req->chunks, t, j, rc;
    int *mem;
    dbt_tree tr[2];
    (void)err;
    for (t = 0; t < 2; t++)
        for (j = 0; j < k; j++) {
            uint64_t half = cs_split(req->bytes, 2, (uint64_t)t);
            if (cs_sched_chunk(s, cs_split(half, (uint64_t)k, (uint64_t)j), -1, -1) < 0)
                return CS_ENOMEM;
        }
    if (p == 1)
        return 0;
    if (!(mem = malloc(10 * (size_t)p * sizeof *mem)))
        return CS_ENOMEM;
    for (t = 0; t < 2; t++) {
        tr[t].up = mem + (size_t)t * 3 * p;
        tr[t].down = tr[t].up + p;
        make_tree(p, t, &tr[t]);
    }
    rc = build_trees(req, s, tr, mem + 6 * (size_t)p, mem + 8 * (size_t)p);
    free(mem);
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
