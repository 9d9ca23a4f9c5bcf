/* net_fluid_fifo.c: the fluid model's FIFO connections (core layer, private to sim/). NCCL
 * sends a connection's steps in order through one FIFO of NCCL_STEPS slots: a step's data
 * goes out once the step before it is out, and the steps in flight overlap only their
 * latencies. Here a piece of a connection starts its bandwidth phase when its latency has
 * passed and the piece before it has finished its own, so consecutive pieces never share
 * the link's bandwidth (two pieces of l bytes on an idle link of bandwidth B: the first
 * done at a + l/B, the second at a + 2l/B). Connections live in a hash table while a piece
 * refers to them. */
#include "sim/fluid-private.h"

#include <stdlib.h>

static uint32_t conn_hash(int32_t src, int32_t dst, uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) * 0xc2b2ae3d27d4eb4full;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

int cs__fl_conn_attach(cs_net *n, fl_flow *f, int32_t src, int32_t dst, uint64_t key)
{
    fl_conn *c;
    uint32_t b, i;
    if (n->n_conns + 1 > n->n_ctab) {
        /* Load at most one connection a bucket: double the table, rehash. */
        uint32_t nb = n->n_ctab ? n->n_ctab * 2 : 64;
        fl_conn **nt = calloc(nb, sizeof *nt);
        if (!nt)
            return CS_ENOMEM;
        for (i = 0; i < n->n_ctab; i++)
            while (n->ctab[i]) {
                fl_conn *x = n->ctab[i];
                n->ctab[i] = x->hnext;
                b = conn_hash(x->src, x->dst, x->key) & (nb - 1);
                x->hnext = nt[b];
                nt[b] = x;
            }
        free(n->ctab);
        n->ctab = nt;
        n->n_ctab = nb;
    }
    b = conn_hash(src, dst, key) & (n->n_ctab - 1);
    for (c = n->ctab[b]; c; c = c->hnext)
        if (c->src == src && c->dst == dst && c->key == key)
            break;
    if (!c) {
        if (n->free_conns) {
            c = n->free_conns;
            n->free_conns = c->hnext;
        } else if (!(c = malloc(sizeof *c))) {
            return CS_ENOMEM;
        }
        *c = (fl_conn){src, dst, key, 0, NULL, NULL, NULL, n->ctab[b]};
        n->ctab[b] = c;
        n->n_conns++;
    }
    c->refs++;
    f->conn = c;
    f->qnext = NULL;
    return 0;
}

int cs__fl_conn_take(cs_net *n, fl_flow *f)
{
    fl_conn *c = f->conn;
    (void)n;
    if (!c->active) {
        c->active = f;
        return 1;
    }
    if (c->qtail)
        c->qtail->qnext = f;
    else
        c->qhead = f;
    c->qtail = f;
    return 0;
}

fl_flow *cs__fl_conn_done(cs_net *n, fl_flow *f)
{
    fl_conn *c = f->conn, **pp;
    fl_flow *next = NULL;
    f->conn = NULL;
    if (c->active == f) {
        c->active = next = c->qhead;
        if (next) {
            c->qhead = next->qnext;
            if (!c->qhead)
                c->qtail = NULL;
            next->qnext = NULL;
        }
    }
    if (--c->refs > 0)
        return next;
    for (pp = &n->ctab[conn_hash(c->src, c->dst, c->key) & (n->n_ctab - 1)]; *pp != c;
         pp = &(*pp)->hnext)
        ;
    *pp = c->hnext;
    c->hnext = n->free_conns;
    n->free_conns = c;
    n->n_conns--;
    return next;
}

void cs__fl_conns_free(cs_net *n)
{
    uint32_t i;
    for (i = 0; i < n->n_ctab; i++)
        while (n->ctab[i]) {
            fl_conn *nx = n->ctab[i]->hnext;
            free(n->ctab[i]);
            n->ctab[i] = nx;
        }
    while (n->free_conns) {
        fl_conn *nx = n->free_conns->hnext;
        free(n->free_conns);
        n->free_conns = nx;
    }
    free(n->ctab);
}
