/* net_fluid_pair.c: a rank pair's one-direction and both-directions limits in the fluid
 * model (core layer, private to sim/; exec.h cs_transport_costs bw_one_GBps and
 * bw_both_GBps). A host-staged copy (SHM: into host memory and back out) moves more alone
 * than beside its reverse: a broadcast between two RTX 2080 Ti without P2P moves 11.1 GB/s
 * one way, an allgather 3.8 each way. Every message of a pair under such limits crosses a
 * virtual link of its direction, a -> b, whose capacity is one_GBps while b -> a carries
 * nothing and both_GBps while it carries a message too; a direction that turns on or off
 * changes its reverse's capacity and its flows are recomputed at that instant. Pair links
 * are indexed by (sending rank, the receiver's index in its group). */
#include "sim/fluid-private.h"

#include <stdlib.h>

/* A limit of 0 (none) as a capacity no link reaches, bytes per ps (1e9 GB/s). */
#define PAIR_NONE 1e6

static int any_limit(const cs_net_pair *pair)
{
    int k;
    for (k = 0; pair && k < CS_TR_COUNT; k++)
        if (pair->one_GBps[k] > 0 || pair->both_GBps[k] > 0)
            return 1;
    return 0;
}

int cs__fl_pair_count(const cs_topo *t, const cs_net_pair *pair, int *g_out)
{
    int r, g = 0, *cnt;
    *g_out = 0;
    if (!any_limit(pair) || t->n_ranks < 2 || !(cnt = calloc((size_t)t->n_nodes + 1, sizeof *cnt)))
        return 0;
    /* Ranks per group (index group + 1: a topology without groups is one host). */
    for (r = 0; r < t->n_ranks; r++) {
        int *c = &cnt[t->nodes[t->ranks[r]].group + 1];
        if (++*c > g)
            g = *c;
    }
    free(cnt);
    *g_out = g;
    return t->n_ranks * g;
}

int cs__fl_pair_init(cs_net *n, const cs_net_pair *pair, double bw_scale)
{
    const cs_topo *t = n->t;
    int r, q, k;
    n->rank_of_node = malloc((size_t)t->n_nodes * sizeof *n->rank_of_node);
    n->pair_loc = malloc((size_t)t->n_ranks * sizeof *n->pair_loc);
    if (!n->rank_of_node || !n->pair_loc)
        return CS_ENOMEM;
    for (q = 0; q < t->n_nodes; q++)
        n->rank_of_node[q] = -1;
    /* A rank's index in its group: how many of its group's ranks come before it. */
    {
        int *cnt = calloc((size_t)t->n_nodes + 1, sizeof *cnt);
        if (!cnt)
            return CS_ENOMEM;
        for (r = 0; r < t->n_ranks; r++) {
            n->rank_of_node[t->ranks[r]] = r;
            n->pair_loc[r] = cnt[t->nodes[t->ranks[r]].group + 1]++;
        }
        free(cnt);
    }
    for (k = 0; k < CS_TR_COUNT; k++) {
        n->pair.one_GBps[k] = pair->one_GBps[k] > 0 ? pair->one_GBps[k] * bw_scale * 1e-3
                                                    : PAIR_NONE;
        n->pair.both_GBps[k] = pair->both_GBps[k] > 0 ? pair->both_GBps[k] * bw_scale * 1e-3
                                                      : PAIR_NONE;
    }
    return 0;
}

void cs__fl_pair_of(const cs_net *n, fl_flow *f, int src, int dst, int tr)
{
    int a, b, base = n->n_dlinks + n->n_vlinks;
    f->plink = f->prev_link = -1;
    f->ptr = -1;
    if (tr < 0 || !n->n_plinks || (a = n->rank_of_node[src]) < 0 ||
        (b = n->rank_of_node[dst]) < 0 ||
        n->t->nodes[src].group != n->t->nodes[dst].group)
        return;
    f->plink = base + a * n->pair_g + n->pair_loc[b];
    f->prev_link = base + b * n->pair_g + n->pair_loc[a];
    f->ptr = (int8_t)tr;
}

int cs__fl_pair_turn(cs_net *n, const fl_flow *f, int on)
{
    fl_link *P, *R;
    if (f->plink < 0)
        return 0;
    P = fl_lk(n, f->plink);
    R = fl_lk(n, f->prev_link);
    if (on && P->n_flows == 1) {
        /* This direction turns on: both run at the both-directions figure, or it alone at
         * the one-direction one. */
        if (R->n_flows > 0) {
            P->cap = R->cap = n->pair.both_GBps[f->ptr];
            return 1;
        }
        P->cap = n->pair.one_GBps[f->ptr];
    } else if (!on && P->n_flows == 0 && R->n_flows > 0) {
        R->cap = n->pair.one_GBps[f->ptr];
        return 1;
    }
    return 0;
}
