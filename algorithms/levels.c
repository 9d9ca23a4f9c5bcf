/* levels.c: rings on the levels of a rank grid (algorithms layer). The buffer is cut into
 * p blocks indexed with the level-0 digit most significant, so after a reduce-scatter along
 * levels 0..l-1 a rank holds one contiguous range of blocks, and every later ring works on
 * sub-ranges of it. Each rank's next send waits for the last transfer into it. */
#include "algorithms/levels-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct grid {
    int n;                    /* levels */
    int d[CS_MAX_LEVELS];     /* size of each level */
    int p;                    /* ranks = product of d */
} grid;

/* Digit l of rank r (rank = i0 + d0*(i1 + ...)). */
static int digit(const grid *g, int r, int l)
{
    int k;
    for (k = 0; k < l; k++)
        r /= g->d[k];
    return r % g->d[l];
}

/* Rank r with digit l replaced by v. */
static int with_digit(const grid *g, int r, int l, int v)
{
    int k, stride = 1;
    for (k = 0; k < l; k++)
        stride *= g->d[k];
    return r + (v - digit(g, r, l)) * stride;
}

/* Block index of a rank's digits, level 0 most significant. */
static int block_of(const grid *g, int r)
{
    int k, b = 0;
    for (k = 0; k < g->n; k++)
        b = b * g->d[k] + digit(g, r, k);
    return b;
}

typedef enum { PH_RS, PH_AG, PH_AR } phase_kind;

/* One ring phase along level l: every ring (ranks differing only in digit l) runs at once.
 * Ring block j of a rank is the range of blocks whose digits 0..l-1 are the rank's and
 * digit l is j. last[r] is the id of the last transfer into r (NONE if none), updated.
 * With one_rank only rank 0's transfers are added: the transfer into rank 0 is rank 0's
 * own, translated (sched.h turns). */
static int phase(const grid *g, cs_sched *s, int l, phase_kind kind, uint32_t *last,
                 uint32_t *next, int *step, int one_rank)
{
    int dl = g->d[l], t, r, n_steps, span = 1, k, n_r = one_rank ? 1 : g->p;
    if (dl == 1)
        return 0;
    for (k = l + 1; k < g->n; k++)
        span *= g->d[k];
    n_steps = kind == PH_AR ? 2 * (dl - 1) : dl - 1;
    for (t = 0; t < n_steps; t++, (*step)++) {
        memcpy(next, last, (size_t)g->p * sizeof *next);
        for (r = 0; r < n_r; r++) {
            int q = digit(g, r, l), j, prefix = 0;
            int dst = with_digit(g, r, l, (q + 1) % dl);
            cs_op op;
            int64_t id;
            for (k = 0; k < l; k++)
                prefix = prefix * g->d[k] + digit(g, r, k);
            switch (kind) {
            case PH_RS: j = q - t - 1; op = CS_OP_REDUCE; break;
            case PH_AG: j = q - t; op = CS_OP_COPY; break;
            default: j = q - t; op = t < dl - 1 ? CS_OP_REDUCE : CS_OP_COPY; break;
            }
            j = ((j % dl) + dl) % dl;
            id = cs_sched_xfer_range(s, r, dst, op, (uint32_t)((prefix * dl + j) * span),
                                     (uint32_t)span, &last[r], last[r] != NONE, *step);
            if (id < 0)
                return (int)id;
            next[one_rank ? 0 : dst] = (uint32_t)id;
        }
        memcpy(last, next, (size_t)g->p * sizeof *last);
    }
    return 0;
}

/* Symmetric rounds on the grid: does every rank do the same thing at the same times
 * without touching what another rank uses? Then rank 0's transfers alone finish when all
 * would (sched.h one_rank), and its translates by grid vectors are every rank's (turns):
 * equal blocks, and on each level either alpha_beta (a rank sends once and receives once
 * per step: ports and reducer of its own) or routes from every rank to its +1 neighbour
 * on the level that are pairwise link-disjoint and alike hop by hop (bandwidth, latency),
 * as on a torus routed in dimension order. The levels run one after the other in lock
 * step, so links may be shared between levels. */
static int symmetric(const cs_coll_req *req, const grid *g)
{
    const cs_topo *t = req->topo;
    uint8_t *used;
    int l, ok = 1;
    if (!req->time_only || !t || g->p < 2 || req->bytes % (uint64_t)g->p)
        return 0;
    if (t->model == CS_MODEL_ALPHA_BETA)
        return 1;
    if (!(used = malloc((size_t)t->n_links * 2 + 1)))
        return 0;
    for (l = 0; l < g->n && ok; l++) {
        const int32_t *r0, *route;
        int n0, n, r, i;
        if (g->d[l] == 1)
            continue;
        memset(used, 0, (size_t)t->n_links * 2 + 1);
        n0 = cs_topo_route(t, t->ranks[0], t->ranks[with_digit(g, 0, l, 1)], &r0, NULL);
        ok = n0 >= 1;
        for (r = 0; r < g->p && ok; r++) {
            n = cs_topo_route(t, t->ranks[r],
                              t->ranks[with_digit(g, r, l, (digit(g, r, l) + 1) % g->d[l])],
                              &route, NULL);
            ok = n == n0;
            for (i = 0; i < n && ok; i++) {
                const cs_link *a = &t->links[cs_dlink_link(route[i])];
                const cs_link *b = &t->links[cs_dlink_link(r0[i])];
                ok = !used[route[i]] && a->bw_GBps == b->bw_GBps && a->lat_us == b->lat_us;
                used[route[i]] = 1;
            }
        }
    }
    free(used);
    return ok;
}

int cs__levels_build(const cs_coll_req *req, cs_sched *s, const int *dims, int n_dims)
{
    grid g;
    uint32_t *last, *next;
    int b, r, l, rc = 0, step = 0, one = 0;
    g.n = n_dims;
    g.p = 1;
    for (l = 0; l < n_dims; l++) {
        g.d[l] = dims[l];
        g.p *= dims[l];
    }
    if (g.p != req->n_ranks || n_dims < 1 || n_dims > CS_MAX_LEVELS)
        return CS_EINVAL;
    /* Chunk of block b belongs to the rank whose digits spell b. */
    {
        int *owner = malloc((size_t)g.p * sizeof *owner);
        if (!owner)
            return CS_ENOMEM;
        for (r = 0; r < g.p; r++)
            owner[block_of(&g, r)] = r;
        for (b = 0; b < g.p && rc == 0; b++)
            if (cs_sched_chunk(s, cs_split(req->bytes, (uint64_t)g.p, (uint64_t)b), owner[b],
                               -1) < 0)
                rc = CS_ENOMEM;
        free(owner);
        if (rc)
            return rc;
    }
    last = malloc((size_t)g.p * sizeof *last);
    next = malloc((size_t)g.p * sizeof *next);
    if (!last || !next) {
        free(last);
        free(next);
        return CS_ENOMEM;
    }
    for (r = 0; r < g.p; r++)
        last[r] = NONE;
    /* The grid, for the data check's runs (cyclic inside rows) and a fold's turns */
    s->turn_levels = n_dims;
    for (l = 0; l < n_dims; l++)
        s->turn_dims[l] = dims[l];
    if (symmetric(req, &g)) {
        one = s->one_rank = s->turns = 1;
        for (l = 0; l < n_dims; l++)
            if (dims[l] > 1)
                s->turn_dirs |= 1u << (2 * l);     /* rank 0 sends to its +1 neighbours */
    }
    switch (req->coll) {
    case CS_COLL_ALLREDUCE:
        for (l = 0; l < n_dims - 1 && rc == 0; l++)
            rc = phase(&g, s, l, PH_RS, last, next, &step, one);
        if (rc == 0)
            rc = phase(&g, s, n_dims - 1, PH_AR, last, next, &step, one);
        for (l = n_dims - 2; l >= 0 && rc == 0; l--)
            rc = phase(&g, s, l, PH_AG, last, next, &step, one);
        break;
    case CS_COLL_REDUCESCATTER:
        for (l = 0; l < n_dims && rc == 0; l++)
            rc = phase(&g, s, l, PH_RS, last, next, &step, one);
        break;
    case CS_COLL_ALLGATHER:
        for (l = n_dims - 1; l >= 0 && rc == 0; l--)
            rc = phase(&g, s, l, PH_AG, last, next, &step, one);
        break;
    default:
        rc = CS_EUNSUPP;
        break;
    }
    free(last);
    free(next);
    return rc;
}

double cs__levels_cost(const cs_coll_req *req, const cs_ab *ab, const int *dims, int n_dims)
{
    double S = (double)req->bytes, a = ab->a_s, b = ab->b_s_per_B, g = ab->g_s_per_B;
    double t = 0, part = S, p = req->n_ranks;
    int l;
    for (l = 0; l < n_dims; l++) {
        double d = dims[l];
        int last = l == n_dims - 1;
        part /= d;                               /* what a level-l ring step moves */
        switch (req->coll) {
        case CS_COLL_ALLREDUCE:
            if (last)     /* ring allreduce on S/(d0..d_{n-2}): steps of S/p */
                t += 2 * (d - 1) * (a + S / p * b) + (d - 1) * S / p * g;
            else          /* reduce-scatter down and all-gather back up */
                t += 2 * (d - 1) * (a + part * b) + (d - 1) * part * g;
            break;
        case CS_COLL_REDUCESCATTER:
            t += (d - 1) * (a + part * b + part * g);
            break;
        case CS_COLL_ALLGATHER:
            t += (d - 1) * (a + part * b);
            break;
        default:
            return NAN;
        }
    }
    return t;
}
