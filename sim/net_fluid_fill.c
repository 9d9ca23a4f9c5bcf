/* net_fluid_fill.c: the fluid model's progressive filling and its groups of flows (core
 * layer, fluid-private.h). The filling of one connected component finds the link with the
 * smallest fair share with a binary heap and fixes its flows' groups at that share; the
 * groups (flows with one route and channel link) are kept in a hash table by route and
 * channel link while they have flows on the links. */
#include "sim/fluid-private.h"

#include <stdlib.h>
#include <string.h>

/* The filling heap orders links by (fair share, position in the component list): the
 * position breaks ties exactly as a scan in list order that keeps the first minimum. */
static int heap_less(const cs_net *n, int32_t a, int32_t b)
{
    return n->h_key[a] < n->h_key[b] || (n->h_key[a] == n->h_key[b] && a < b);
}

static void heap_set(cs_net *n, int32_t at, int32_t pos)
{
    n->heap[at] = pos;
    n->h_idx[pos] = at;
}

static void heap_up(cs_net *n, int32_t at)
{
    int32_t pos = n->heap[at];
    while (at > 0) {
        int32_t up = (at - 1) / 2;
        if (!heap_less(n, pos, n->heap[up]))
            break;
        heap_set(n, at, n->heap[up]);
        at = up;
    }
    heap_set(n, at, pos);
}

static void heap_down(cs_net *n, int32_t at)
{
    int32_t pos = n->heap[at];
    for (;;) {
        int32_t c = 2 * at + 1;
        if (c >= n->n_heap)
            break;
        if (c + 1 < n->n_heap && heap_less(n, n->heap[c + 1], n->heap[c]))
            c++;
        if (!heap_less(n, n->heap[c], pos))
            break;
        heap_set(n, at, n->heap[c]);
        at = c;
    }
    heap_set(n, at, pos);
}

/* Take position pos out of the heap (it is in it). */
static void heap_remove(cs_net *n, int32_t pos)
{
    int32_t at = n->h_idx[pos], last = n->heap[--n->n_heap];
    n->h_idx[pos] = -1;
    if (at == n->n_heap)
        return;
    heap_set(n, at, last);
    heap_up(n, at);
    heap_down(n, n->h_idx[last]);
}

/* Progressive filling of one connected component (positions comp[0..nc) in list order):
 * the link with the smallest fair share rem/unfixed fixes its unfixed flows at that share
 * and gives it up on every other link they cross. A binary heap keyed by the share finds
 * that link; a link's key moves only when one of its flows is fixed, so the work is
 * O(flow-link incidences * log links) instead of a scan of every link per settled link. */
void cs__fl_fill_component(cs_net *n, const int32_t *comp, int32_t nc)
{
    int32_t i;
    if (nc == 1) {
        /* One link (a ring step's flows, each alone on its link): every flow on it crosses
         * only it, so all get rem/unfixed = cap/n at once - the heap's one step, the same
         * double and the same visits. */
        fl_link *L = fl_lk(n, n->comp_links[comp[0]]);
        double share;
        int j;
        n->counters.link_visits++;
        if (L->n_flows == 0)
            return;
        share = L->cap / L->n_flows;
        if (share < 0)
            share = 0;
        n->counters.link_visits++;
        for (j = 0; j < L->n_flows; j++) {
            fl_group *g = L->flows[j]->grp;
            if (g->fixed)
                continue;
            g->fixed = 1;
            g->share = share;
            n->counters.link_visits++;
        }
        return;
    }
    n->n_heap = 0;
    for (i = 0; i < nc; i++) {
        fl_link *L = fl_lk(n, n->comp_links[comp[i]]);
        L->rem = L->cap;
        L->unfixed = L->n_flows;
        n->h_idx[comp[i]] = -1;
        if (L->unfixed > 0) {
            n->h_key[comp[i]] = L->rem / L->unfixed;
            heap_set(n, n->n_heap++, comp[i]);
        }
    }
    for (i = n->n_heap / 2; i-- > 0;)
        heap_down(n, i);
    n->counters.link_visits += (uint64_t)nc;
    while (n->n_heap > 0) {
        int32_t top = n->heap[0];
        fl_link *best = fl_lk(n, n->comp_links[top]);
        double best_share = n->h_key[top];
        int j, k;
        heap_remove(n, top);
        n->counters.link_visits++;
        if (best_share < 0)
            best_share = 0;
        for (j = 0; j < best->n_flows; j++) {
            fl_flow *f = best->flows[j];
            fl_group *g = f->grp;
            int m = g->n, q;
            if (g->fixed)
                continue;
            /* f's whole group: every member is on best, unfixed until now */
            g->fixed = 1;
            g->share = best_share;
            for (k = 0; k < flow_nlinks(f); k++) {
                fl_link *L = fl_lk(n, flow_link(f, k));
                for (q = 0; q < m; q++)
                    L->rem -= best_share;
                L->unfixed -= m;
                n->counters.link_visits++;
                if (L == best || n->h_idx[L->pos] < 0)
                    continue;
                if (L->unfixed == 0) {
                    heap_remove(n, L->pos);
                } else {
                    /* Shares only grow as flows are fixed below them, but rounding may
                     * move one either way. A link whose share equalled best's, or that
                     * rounding takes below it, keeps best's share exactly (as in exact
                     * arithmetic): links of equal share then get it whichever the heap
                     * takes first, so the result does not depend on the links' order -
                     * which a fabric's symmetry permutes (algorithms/nccl/fold_tree.c
                     * relies on it). Sift in both directions. */
                    double key = L->rem / L->unfixed;
                    if (n->h_key[L->pos] == best_share || key < best_share)
                        key = best_share;
                    n->h_key[L->pos] = key;
                    heap_up(n, n->h_idx[L->pos]);
                    heap_down(n, n->h_idx[L->pos]);
                }
            }
        }
    }
}


static uint32_t group_hash(const int32_t *route, int32_t vlink)
{
    uint64_t h = (uint64_t)(uintptr_t)route * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)vlink;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* Put f into the group of its links (created when it has none). Returns 0 or CS_ENOMEM. */
int cs__fl_group_join(cs_net *n, fl_flow *f)
{
    uint32_t b;
    fl_group *g;
    if (2 * (n->n_groups + 1) > n->n_gtab) {
        uint32_t nb = n->n_gtab ? 2 * n->n_gtab : 256, i;
        fl_group **nt = calloc(nb, sizeof *nt);
        if (!nt)
            return CS_ENOMEM;
        for (i = 0; i < n->n_gtab; i++)
            while (n->gtab[i]) {
                fl_group *x = n->gtab[i];
                n->gtab[i] = x->hnext;
                b = group_hash(x->route, x->vlink) & (nb - 1);
                x->hnext = nt[b];
                nt[b] = x;
            }
        free(n->gtab);
        n->gtab = nt;
        n->n_gtab = nb;
    }
    b = group_hash(f->route, f->vlink) & (n->n_gtab - 1);
    for (g = n->gtab[b]; g; g = g->hnext)
        if (g->route == f->route && g->n_route == f->n_route && g->vlink == f->vlink &&
            g->plink == f->plink)
            break;
    if (!g) {
        if (n->free_groups) {
            g = n->free_groups;
            n->free_groups = g->hnext;
        } else if (!(g = malloc(sizeof *g))) {
            return CS_ENOMEM;
        }
        g->route = f->route;
        g->n_route = f->n_route;
        g->vlink = f->vlink;
        g->plink = f->plink;
        g->n = 0;
        g->mark = 0;
        g->hnext = n->gtab[b];
        n->gtab[b] = g;
        n->n_groups++;
    }
    f->grp = g;
    g->n++;
    return 0;
}

/* Take f out of its group (the group goes back to the free list when empty). */
void cs__fl_group_leave(cs_net *n, fl_flow *f)
{
    fl_group *g = f->grp, **pp;
    f->grp = NULL;
    if (--g->n > 0)
        return;
    for (pp = &n->gtab[group_hash(g->route, g->vlink) & (n->n_gtab - 1)]; *pp != g;
         pp = &(*pp)->hnext)
        ;
    *pp = g->hnext;
    g->hnext = n->free_groups;
    n->free_groups = g;
    n->n_groups--;
}


void cs__fl_groups_free(cs_net *n)
{
    uint32_t i;
    for (i = 0; i < n->n_gtab; i++)
        while (n->gtab[i]) {
            fl_group *nx = n->gtab[i]->hnext;
            free(n->gtab[i]);
            n->gtab[i] = nx;
        }
    while (n->free_groups) {
        fl_group *nx = n->free_groups->hnext;
        free(n->free_groups);
        n->free_groups = nx;
    }
    free(n->gtab);
}
