/* phase.c: building blocks shared by the algorithm builders (algorithms layer): per-rank
 * fronts of ready data, transfers posted after them, exchanges, and the power-of-two fold
 * used by every algorithm that needs p = 2^k (see phase-private.h). */
#include "algorithms/phase-private.h"

#include <stdlib.h>
#include <string.h>

static int ids_push(cs__ids *l, uint32_t id)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 4;
        uint32_t *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return CS_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = id;
    return 0;
}

int cs__front_init(cs__front *f, cs_sched *s, int p)
{
    memset(f, 0, sizeof *f);
    f->s = s;
    f->p = p;
    f->r = calloc((size_t)p, sizeof *f->r);
    return f->r ? 0 : CS_ENOMEM;
}

void cs__front_fini(cs__front *f)
{
    int i;
    if (!f->r)
        return;
    for (i = 0; i < f->p; i++)
        free(f->r[i].v);
    free(f->r);
    free(f->pend_rank.v);
    free(f->pend_op.v);
    f->r = NULL;
}

/* Remember a transfer into rank for the next commit. */
static int pend(cs__front *f, int rank, uint32_t id)
{
    int rc = ids_push(&f->pend_rank, (uint32_t)rank);
    return rc < 0 ? rc : ids_push(&f->pend_op, id);
}

int cs__front_commit(cs__front *f)
{
    uint32_t i;
    int rc = 0;
    for (i = 0; i < f->pend_op.n && rc == 0; i++)
        rc = ids_push(&f->r[f->pend_rank.v[i]], f->pend_op.v[i]);
    f->pend_rank.n = f->pend_op.n = 0;
    return rc;
}

int cs__front_add(cs__front *f, int rank, int64_t op)
{
    if (op < 0)
        return (int)op;
    return ids_push(&f->r[rank], (uint32_t)op);
}

/* Replace rank's front by a single zero-time join if it has more than CS__FRONT_JOIN ops. */
static int front_compact(cs__front *f, int rank, int step)
{
    cs__ids *l = &f->r[rank];
    int64_t id;
    if (l->n <= CS__FRONT_JOIN)
        return 0;
    id = cs_sched_compute(f->s, rank, 0, l->v, l->n, step);
    if (id < 0)
        return (int)id;
    l->n = 0;
    return ids_push(l, (uint32_t)id);
}

int64_t cs__put_after(cs__front *f, int src, int dst, cs_op op, const uint32_t *ids,
                      uint32_t n, const uint32_t *extra, uint32_t n_extra, int step)
{
    cs__ids *l = &f->r[src];
    int64_t id;
    int rc;
    uint32_t n0, i;
    if ((rc = front_compact(f, src, step)) < 0)
        return rc;
    n0 = l->n;
    for (i = 0; i < n_extra; i++)
        if ((rc = ids_push(l, extra[i])) < 0)
            return rc;
    id = cs_sched_xfer(f->s, src, dst, op, ids, n, l->v, l->n, step);
    l->n = n0;
    if (id < 0)
        return id;
    if ((rc = pend(f, dst, (uint32_t)id)) < 0)
        return rc;
    return id;
}

int64_t cs__put_list(cs__front *f, int src, int dst, cs_op op, const uint32_t *ids,
                     uint32_t n, int step)
{
    return cs__put_after(f, src, dst, op, ids, n, NULL, 0, step);
}

int64_t cs__put(cs__front *f, int src, int dst, cs_op op, uint32_t lo, uint32_t n, int step)
{
    cs__ids *l;
    int64_t id;
    int rc;
    if ((rc = front_compact(f, src, step)) < 0)
        return rc;
    l = &f->r[src];
    id = cs_sched_xfer_range(f->s, src, dst, op, lo, n, l->v, l->n, step);
    if (id < 0)
        return id;
    if ((rc = pend(f, dst, (uint32_t)id)) < 0)
        return rc;
    return id;
}

int cs__exchange(cs__front *f, int a, int b, cs_op op, uint32_t lo, uint32_t n, int step)
{
    cs__ids both = {NULL, 0, 0};
    int64_t ia, ib;
    uint32_t i;
    int rc = 0;
    if ((rc = front_compact(f, a, step)) < 0 || (rc = front_compact(f, b, step)) < 0)
        return rc;
    for (i = 0; i < f->r[a].n && rc == 0; i++)
        rc = ids_push(&both, f->r[a].v[i]);
    for (i = 0; i < f->r[b].n && rc == 0; i++)
        rc = ids_push(&both, f->r[b].v[i]);
    if (rc == 0) {
        ia = cs_sched_xfer_range(f->s, a, b, op, lo, n, both.v, both.n, step);
        ib = ia < 0 ? ia : cs_sched_xfer_range(f->s, b, a, op, lo, n, both.v, both.n, step);
        if (ib < 0)
            rc = (int)ib;
        else if ((rc = pend(f, b, (uint32_t)ia)) == 0)
            rc = pend(f, a, (uint32_t)ib);
    }
    free(both.v);
    return rc;
}

int cs__halving(cs__front *f, int n, const int *rank, const int *start, int step0)
{
    int m, w, k = 0, rc = 0;
    for (m = n / 2; m >= 1 && rc >= 0; m /= 2, k++) {
        for (w = 0; w < n && rc >= 0; w++) {
            int lo = w & ~(2 * m - 1);
            int send_lo = (w & m) ? lo : lo + m;       /* the half without w */
            rc = cs__ok(cs__put(f, rank[w], rank[w ^ m], CS_OP_REDUCE, (uint32_t)start[send_lo],
                                (uint32_t)(start[send_lo + m] - start[send_lo]), step0 + k));
        }
        if (rc >= 0)
            rc = cs__front_commit(f);
    }
    return rc;
}

int cs__doubling(cs__front *f, int n, const int *rank, const int *start, int step0)
{
    int m, w, k = 0, rc = 0;
    for (m = 1; m < n && rc >= 0; m *= 2, k++) {
        for (w = 0; w < n && rc >= 0; w++) {
            int lo = w & ~(m - 1);
            rc = cs__ok(cs__put(f, rank[w], rank[w ^ m], CS_OP_COPY, (uint32_t)start[lo],
                                (uint32_t)(start[lo + m] - start[lo]), step0 + k));
        }
        if (rc >= 0)
            rc = cs__front_commit(f);
    }
    return rc;
}

int cs__gather_tree(cs__front *f, int n, const int *rank, const int *start, int step0)
{
    int m, w, k = 0, rc = 0;
    for (m = 1; m < n && rc >= 0; m *= 2, k++) {
        for (w = m; w < n && rc >= 0; w += 2 * m)
            rc = cs__ok(cs__put(f, rank[w], rank[w - m], CS_OP_COPY, (uint32_t)start[w],
                                (uint32_t)(start[w + m] - start[w]), step0 + k));
        if (rc >= 0)
            rc = cs__front_commit(f);
    }
    return rc;
}

int cs__tree_bcast(cs__front *f, int p, int root, uint32_t lo, uint32_t n, int step0)
{
    int L = cs_ceil_log2(p), k, v, rc = 0;
    for (k = 0; k < L && rc >= 0; k++) {
        int m = 1 << (L - 1 - k);
        for (v = 0; v + m < p && rc >= 0; v += 2 * m)
            rc = cs__ok(cs__put(f, (root + v) % p, (root + v + m) % p, CS_OP_COPY, lo, n,
                                step0 + k));
        if (rc >= 0)
            rc = cs__front_commit(f);
    }
    return rc;
}

int cs__tree_reduce(cs__front *f, int p, int root, uint32_t lo, uint32_t n, int step0)
{
    int L = cs_ceil_log2(p), k, v, rc = 0;
    for (k = 0; k < L && rc >= 0; k++) {
        int m = 1 << k;
        for (v = m; v < p && rc >= 0; v += 2 * m)
            rc = cs__ok(cs__put(f, (root + v) % p, (root + v - m) % p, CS_OP_REDUCE, lo, n,
                                step0 + k));
        if (rc >= 0)
            rc = cs__front_commit(f);
    }
    return rc;
}

int cs__tree_gather(cs__front *f, int p, int root, int step0)
{
    int L = cs_ceil_log2(p), k, v, rc = 0;
    for (k = 0; k < L && rc >= 0; k++) {
        int m = 1 << k;
        for (v = m; v < p && rc >= 0; v += 2 * m) {
            int end = v + m < p ? v + m : p;
            rc = cs__ok(cs__put(f, (root + v) % p, (root + v - m) % p, CS_OP_COPY,
                                (uint32_t)v, (uint32_t)(end - v), step0 + k));
        }
        if (rc >= 0)
            rc = cs__front_commit(f);
    }
    return rc;
}

void cs__fold_init(cs__fold *fd, int p)
{
    fd->p = p;
    fd->p2 = 1 << cs_floor_log2(p);
    fd->r = p - fd->p2;
}

int cs__fold_old(const cs__fold *fd, int w) { return w < fd->r ? 2 * w : w + fd->r; }

/* First of the ranks new rank w stands for (w = p2 gives p): new ranks [w0, w1) cover
 * ranks [fold_start(w0), fold_start(w1)). */
static int fold_start(const cs__fold *fd, int w) { return w < fd->r ? 2 * w : w + fd->r; }

int cs__fold_arrays(const cs__fold *fd, int root, int per_rank, int **rank, int **start)
{
    int w, *a = malloc((2 * (size_t)fd->p2 + 1) * sizeof *a);
    if (!a)
        return CS_ENOMEM;
    *rank = a;
    *start = a + fd->p2;
    for (w = 0; w < fd->p2; w++)
        a[w] = (root + cs__fold_old(fd, w)) % fd->p;
    for (w = 0; w <= fd->p2; w++)
        (*start)[w] = per_rank ? fold_start(fd, w) : w;
    return 0;
}

double cs__serial_reduce(int n, double t, double g)
{
    if (n <= 0)
        return 0;
    return t + (n - 1) * (t > g ? t : g) + g;
}

int cs__fold_blocks(const cs_coll_req *req, cs_sched *s, cs__fold *fd, cs__front *f,
                    int **rank, int **start)
{
    int p = req->n_ranks, v, rc;
    for (v = 0; v < p; v++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)p, (uint64_t)v), v, -1) < 0)
            return CS_ENOMEM;
    if (p == 1)
        return 1;
    cs__fold_init(fd, p);
    if ((rc = cs__front_init(f, s, p)) < 0)
        return rc;
    if ((rc = cs__fold_arrays(fd, 0, 1, rank, start)) < 0)
        cs__front_fini(f);
    return rc;
}

int cs__fold_in(cs__front *f, const cs__fold *fd, int root, cs_op op, int own, uint32_t n)
{
    int p = fd->p, v, rc = 0;
    for (v = 1; v < 2 * fd->r && rc >= 0; v += 2)
        rc = cs__ok(cs__put(f, (root + v) % p, (root + v - 1) % p, op, own ? (uint32_t)v : 0, n,
                            0));
    if (rc >= 0)
        rc = cs__front_commit(f);
    return rc < 0 ? rc : fd->r > 0;
}

int cs__fold_out(cs__front *f, const cs__fold *fd, int root, int own, uint32_t n, int step)
{
    int p = fd->p, v, rc = 0;
    for (v = 1; v < 2 * fd->r && rc >= 0; v += 2)
        rc = cs__ok(cs__put(f, (root + v - 1) % p, (root + v) % p, CS_OP_COPY,
                            own ? (uint32_t)v : 0, n, step));
    return rc;
}

int cs__rabenseifner_rs(const cs_coll_req *req, cs_sched *s, cs__front *f, cs__fold *fd,
                        int **rank, int **start, int *step)
{
    int p = req->n_ranks, root = req->root, v, rc;
    *rank = *start = NULL;
    cs__fold_init(fd, p);
    for (v = 0; v < fd->p2; v++)
        if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)fd->p2, (uint64_t)v), -1, -1) < 0)
            return CS_ENOMEM;
    if (p == 1)
        return 0;
    if ((rc = cs__front_init(f, s, p)) < 0)
        return rc;
    if ((rc = cs__fold_arrays(fd, root, 0, rank, start)) < 0) {
        cs__front_fini(f);
        return rc;
    }
    *step = fd->r > 0;
    if ((rc = cs__fold_in(f, fd, root, CS_OP_REDUCE, 0, (uint32_t)fd->p2)) >= 0)
        rc = cs__halving(f, fd->p2, *rank, *start, *step);
    if (rc < 0) {
        free(*rank);
        *rank = *start = NULL;
        cs__front_fini(f);
    }
    return rc < 0 ? rc : 0;
}

/* Halving moves (p'-1)/p' S in lg messages and reduces it; the second half moves the same
 * in lg messages; the fold costs fold_msgs messages of S and one reduction of S. */
double cs__rabenseifner_cost(const cs_coll_req *req, const cs_ab *ab, int fold_msgs)
{
    int p = req->n_ranks, lg = cs_floor_log2(p), p2 = 1 << lg, folded = p != p2;
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B, g = ab->g_s_per_B;
    double part = S - cs__blk(req->bytes, p2, p2 - 1);   /* (p'-1)/p' S */
    if (p == 1)
        return 0;
    return (2 * lg + fold_msgs * folded) * a + (2 * part + fold_msgs * folded * S) * b
           + (part + folded * S) * g;
}
