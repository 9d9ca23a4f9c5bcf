/* bruck.c: Bruck's algorithms (algorithms layer; MPICH allgather_intra_brucks and
 * alltoall_intra_brucks). ceil(log2 p) rounds for any p; in round k rank r talks to the rank
 * 2^k away. Allgather: r sends the run of blocks it holds, starting with its own, to r-2^k:
 * L a + (p-1)/p S b. Alltoall (store and forward): a block with i = (dest - holder) mod p
 * moves 2^k ahead in round k when bit k of i is set: log2 p (a + S/2 b) for p = 2^k. */
#include "algorithms/coll.h"
#include "algorithms/phase-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int build_allgather(const cs_coll_req *req, cs_sched *s, cs__front *f)
{
    int p = req->n_ranks, L = cs_ceil_log2(p), k, r, i, rc = 0;
    uint32_t *ids = malloc((size_t)p * sizeof *ids);
    if (!ids)
        return CS_ENOMEM;
    for (k = 0; k < L && rc >= 0; k++) {
        int d = 1 << k, cnt = d < p - d ? d : p - d;
        for (r = 0; r < p && rc >= 0; r++) {
            for (i = 0; i < cnt; i++)
                ids[i] = (uint32_t)((r + i) % p);
            rc = cs__ok(cs__put_list(f, r, cs__mod(r - d, p), CS_OP_COPY, ids, (uint32_t)cnt, k));
        }
        if (rc >= 0)
            rc = cs__front_commit(f);
    }
    free(ids);
    (void)s;
    return rc;
}

static int build_alltoall(const cs_coll_req *req, cs_sched *s, cs__front *f)
{
    int p = req->n_ranks, L = cs_ceil_log2(p), k, r, rc = 0;
    size_t n = (size_t)p * p, c;
    int *pos = malloc(n * sizeof *pos);                  /* holder of each chunk */
    uint32_t *list = malloc(n * sizeof *list);           /* this round's chunks by holder */
    uint32_t *off = malloc(((size_t)p + 1) * sizeof *off);
    if (!pos || !list || !off)
        rc = CS_ENOMEM;
    for (c = 0; rc >= 0 && c < n; c++)
        pos[c] = (int)(c / (size_t)p);
    for (k = 0; k < L && rc >= 0; k++) {
        int d = 1 << k;
        /* Counting sort of the moving chunks by holder, keeping chunk order. */
        memset(off, 0, ((size_t)p + 1) * sizeof *off);
        for (c = 0; c < n; c++)
            if (cs__mod((int)(c % (size_t)p) - pos[c], p) & d)
                off[pos[c] + 1]++;
        for (r = 0; r < p; r++)
            off[r + 1] += off[r];
        for (c = 0; c < n; c++)
            if (cs__mod((int)(c % (size_t)p) - pos[c], p) & d)
                list[off[pos[c]]++] = (uint32_t)c;
        for (r = p - 1; r > 0; r--)
            off[r] = off[r - 1];
        off[0] = 0;
        for (r = 0; r < p && rc >= 0; r++)
            if (off[r + 1] > off[r])
                rc = cs__ok(cs__put_list(f, r, (r + d) % p, CS_OP_COPY, list + off[r],
                                         off[r + 1] - off[r], k));
        if (rc >= 0)
            rc = cs__front_commit(f);
        for (c = 0; c < n; c++)
            if (cs__mod((int)(c % (size_t)p) - pos[c], p) & d)
                pos[c] = (pos[c] + d) % p;
    }
    free(pos);
    free(list);
    free(off);
    (void)s;
    return rc;
}

static int build(const cs_coll_req *req, cs_sched *s, cs_err *err)
{
    int p = req->n_ranks, r, d, rc, is_a2a = req->coll == CS_COLL_ALLTOALL;
    cs__front f;
    (void)err;
    for (r = 0; r < (is_a2a ? p : 1); r++)
        for (d = 0; d < p; d++)
            if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)p, (uint64_t)d),
                               is_a2a ? r : d, is_a2a ? d : -1) < 0)
                return CS_ENOMEM;
    if ((rc = cs__front_init(&f, s, p)) < 0)
        return rc;
    rc = is_a2a ? build_alltoall(req, s, &f) : build_allgather(req, s, &f);
    cs__front_fini(&f);
    return rc;
}

/* Blocks i in [0, p) with bit k set: how many blocks every rank forwards in round k. */
static int bit_count(int p, int k)
{
    int d = 1 << k, rem = p % (2 * d) - d;
    return (p / (2 * d)) * d + (rem > 0 ? rem : 0);
}

static double cost(const cs_coll_req *req, const cs_ab *ab)
{
    int p = req->n_ranks, L = cs_ceil_log2(p), k;
    double S = (double)req->bytes, blk = cs__blk(req->bytes, p, 0), t = 0;
    if (p == 1)
        return 0;
    if (req->coll == CS_COLL_ALLGATHER)
        return L * ab->a_s + (S - cs__blk(req->bytes, p, p - 1)) * ab->b_s_per_B;
    for (k = 0; k < L; k++)
        t += ab->a_s + bit_count(p, k) * blk * ab->b_s_per_B;
    return t;
}

static const char *formula(const cs_coll_req *req)
{
    return req->coll == CS_COLL_ALLGATHER ? "L*a + (p-1)/p*S*b" : "log2(p)*(a + S/2*b)";
}

const cs_algo cs_algo_bruck = {
    "bruck",
    "Bruck: ceil(log2 p) rounds for any p, round k talks to the rank 2^k away",
    CS_COLL_BIT(CS_COLL_ALLGATHER) | CS_COLL_BIT(CS_COLL_ALLTOALL),
    NULL, build, cost, formula,
};
