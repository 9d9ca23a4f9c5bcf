/* unfold.c: every link's statistics from a folded run (core layer). A turned schedule
 * (sched.h one_rank and turns) simulates rank 0's transfers only; rank v's are rank 0's
 * translated by v on the rank grid, and so are their routes' links, hop by hop. Where every
 * link of the fabric is the image of at most one (translation, rank-0 link) pair, that
 * link carried, in the full run, exactly the translates of the flows the rank-0 link
 * carried, at the same times: its bytes, busy time and peak flows are the rank-0 link's. */
#include "sim/exec.h"

#include <stdlib.h>
#include <string.h>

/* Most distinct links on rank 0's routes. */
#define MAX_L0 256

/* The rank grid of a turned schedule: levels and sizes (one level of n_ranks if unset). */
typedef struct tgrid {
    int n, d[CS_SCHED_MAX_LEVELS];
} tgrid;

/* Rank a + b, digit by digit modulo the level sizes (rank = i0 + d0*(i1 + ...)). */
static int grid_add(const tgrid *g, int a, int b)
{
    int l, r = 0, stride = 1;
    for (l = 0; l < g->n; l++) {
        r += (a % g->d[l] + b % g->d[l]) % g->d[l] * stride;
        stride *= g->d[l];
        a /= g->d[l];
        b /= g->d[l];
    }
    return r;
}

int cs_sim_link_stats_unfold(const cs_topo *t, const cs_sched *s, const cs_link_stats *st,
                             cs_link_stats *full)
{
    tgrid g;
    int dst0[2 * CS_SCHED_MAX_LEVELS], n0[2 * CS_SCHED_MAX_LEVELS], n_dst = 0, n_l0 = 0;
    const int32_t *r0[2 * CS_SCHED_MAX_LEVELS], *route;
    int32_t l0[MAX_L0], img[MAX_L0];
    uint8_t *owned;
    int l, v, k, i, ok = 1, stride = 1;
    if (!s->one_rank || !s->turns || !s->turn_dirs || s->turn_levels > CS_SCHED_MAX_LEVELS)
        return 0;
    g.n = s->turn_levels > 0 ? s->turn_levels : 1;
    for (l = 0; l < g.n; l++) {
        g.d[l] = s->turn_levels > 0 ? s->turn_dims[l] : s->n_ranks;
        /* rank 0's neighbours +e_l and -e_l, where it sends to them */
        if (s->turn_dirs >> (2 * l) & 1)
            dst0[n_dst++] = stride;
        if (s->turn_dirs >> (2 * l + 1) & 1)
            dst0[n_dst++] = stride * (g.d[l] - 1);
        stride *= g.d[l];
    }
    if (stride != s->n_ranks || s->n_ranks > t->n_ranks)
        return 0;
    for (k = 0; k < n_dst && ok; k++) {
        n0[k] = cs_topo_route(t, t->ranks[0], t->ranks[dst0[k]], &r0[k], NULL);
        ok = n0[k] >= 0;
        for (i = 0; i < n0[k] && ok; i++) {
            int j = 0;
            while (j < n_l0 && l0[j] != r0[k][i])
                j++;
            if (j == n_l0 && (ok = n_l0 < MAX_L0))
                l0[n_l0++] = r0[k][i];
        }
    }
    if (!ok || !(owned = calloc((size_t)t->n_links * 2 + 1, 1)))
        return ok ? CS_ENOMEM : 0;
    memset(full, 0, (size_t)t->n_links * 2 * sizeof *full);
    for (v = 0; v < s->n_ranks && ok; v++) {
        for (i = 0; i < n_l0; i++)
            img[i] = -1;
        for (k = 0; k < n_dst && ok; k++) {
            int n = cs_topo_route(t, t->ranks[v], t->ranks[grid_add(&g, v, dst0[k])], &route,
                                  NULL);
            ok = n == n0[k];
            for (i = 0; i < n && ok; i++) {
                int j = 0;
                while (l0[j] != r0[k][i])
                    j++;
                ok = t->links[cs_dlink_link(route[i])].bw_GBps ==
                     t->links[cs_dlink_link(l0[j])].bw_GBps;
                if (ok && img[j] < 0) {
                    ok = !owned[route[i]];
                    owned[route[i]] = 1;
                    img[j] = route[i];
                    full[route[i]] = st[l0[j]];
                } else if (ok) {
                    ok = img[j] == route[i];
                }
            }
        }
    }
    free(owned);
    return ok;
}
