/* net_ab.c: the alpha_beta network model (core layer, DESIGN §2). Every pair of ranks can
 * talk directly; a message of l bytes costs a + b*l and holds its sender's send port and its
 * receiver's receive port for that whole time (single port, full duplex). Waiting messages
 * take a freed port in the order they were posted. A per-message bandwidth cap (a channel's,
 * NCCL mode) below the link bandwidth replaces b by 1/cap. */
#include "sim/net-private.h"

#include <math.h>
#include <stdlib.h>

/* A message waiting for or holding ports. Linked on its sender's and receiver's queues. */
typedef struct ab_msg {
    int src, dst;              /* node indices */
    uint64_t bytes;            /* payload, bytes */
    uint64_t token;            /* executor's id */
    struct ab_msg *snext, *sprev;   /* sender's queue of waiting messages */
    struct ab_msg *rnext, *rprev;   /* receiver's queue of waiting messages */
    struct ab_msg *all_next;        /* every message ever allocated, for destroy */
} ab_msg;

typedef struct ab_port {
    int send_busy, recv_busy;  /* ports held by a message in flight */
    ab_msg *sq_head, *sq_tail; /* waiting messages from this node, in post order */
    ab_msg *rq_head, *rq_tail; /* waiting messages to this node, in post order */
} ab_port;

struct cs_net {
    cs_engine *eng;
    const cs_topo *t;
    cs_net_cb cb;
    ab_port *ports;            /* per node */
    double ps_per_byte;        /* b, picoseconds per byte */
    cs_time lat_ps;            /* a, picoseconds */
    ab_msg *free_msgs;         /* recycled messages (linked by snext) */
    ab_msg *all_msgs;          /* every allocated message (linked by all_next) */
};

static int ab_create(cs_net **out, cs_engine *eng, const cs_topo *t, const cs_net_cb *cb,
                     double cap_GBps, double bw_scale, const cs_net_pair *pair, cs_err *err)
{
    cs_net *n = calloc(1, sizeof *n);
    (void)pair;               /* no routes, no transports */
    if (!n || !(n->ports = calloc((size_t)t->n_nodes, sizeof *n->ports))) {
        free(n);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    n->eng = eng;
    n->t = t;
    n->cb = *cb;
    /* A message moves at the link bandwidth or its cap, whichever is lower. */
    n->ps_per_byte = 1000.0 / (cap_GBps > 0 && cap_GBps < t->ab_bw_GBps ? cap_GBps
                                                                         : t->ab_bw_GBps);
    n->lat_ps = cs_time_from_us(t->ab_lat_us);
    *out = n;
    return 0;
}

static void ab_destroy(cs_net *n)
{
    if (!n)
        return;
    while (n->all_msgs) {
        ab_msg *nx = n->all_msgs->all_next;
        free(n->all_msgs);
        n->all_msgs = nx;
    }
    free(n->ports);
    free(n);
}

static void ab_done(cs_engine *eng, void *arg, uint64_t data);

/* Take both ports and schedule the message's end. */
static void start(cs_net *n, ab_msg *m)
{
    double wire_ps = (double)m->bytes * n->ps_per_byte;
    cs_time dur;
    if (!(wire_ps < (double)(CS_TIME_MAX - cs_engine_now(n->eng) - n->lat_ps) - 1)) {
        cs_engine_fail(n->eng, CS_ELIMIT, NULL, CS_NET_PAST_CLOCK_MSG);
        return;
    }
    dur = n->lat_ps + (cs_time)llround(wire_ps);
    n->ports[m->src].send_busy = 1;
    n->ports[m->dst].recv_busy = 1;
    n->cb.on_start(n->cb.ctx, m->token);
    cs_engine_after(n->eng, dur, ab_done, n, (uint64_t)(uintptr_t)m);
}

static void unlink_msg(cs_net *n, ab_msg *m)
{
    ab_port *s = &n->ports[m->src], *r = &n->ports[m->dst];
    if (m->sprev) m->sprev->snext = m->snext; else s->sq_head = m->snext;
    if (m->snext) m->snext->sprev = m->sprev; else s->sq_tail = m->sprev;
    if (m->rprev) m->rprev->rnext = m->rnext; else r->rq_head = m->rnext;
    if (m->rnext) m->rnext->rprev = m->rprev; else r->rq_tail = m->rprev;
}

/* The send port of node v is free: start its first waiting message whose receiver is free. */
static void kick_send(cs_net *n, int v)
{
    ab_msg *m;
    for (m = n->ports[v].sq_head; m && !n->ports[v].send_busy; m = m->snext)
        if (!n->ports[m->dst].recv_busy) {
            unlink_msg(n, m);
            start(n, m);
            return;
        }
}

/* The receive port of node v is free: start its first waiting message whose sender is free. */
static void kick_recv(cs_net *n, int v)
{
    ab_msg *m;
    for (m = n->ports[v].rq_head; m && !n->ports[v].recv_busy; m = m->rnext)
        if (!n->ports[m->src].send_busy) {
            unlink_msg(n, m);
            start(n, m);
            return;
        }
}

static void ab_done(cs_engine *eng, void *arg, uint64_t data)
{
    cs_net *n = arg;
    ab_msg *m = (ab_msg *)(uintptr_t)data;
    uint64_t token = m->token;
    int src = m->src, dst = m->dst;
    n->ports[src].send_busy = 0;
    n->ports[dst].recv_busy = 0;
    m->snext = n->free_msgs;
    n->free_msgs = m;
    /* Waiting messages take the freed ports before anything the completion unblocks. */
    kick_send(n, src);
    kick_recv(n, dst);
    n->cb.on_done(n->cb.ctx, token);
}

static int ab_send(cs_net *n, int src, int dst, uint64_t bytes, uint64_t token, int chan_key,
                   uint64_t fifo, int pair, cs_err *err)
{
    ab_msg *m = n->free_msgs;
    ab_port *s = &n->ports[src], *r = &n->ports[dst];
    ab_msg *all;
    if (m) {
        n->free_msgs = m->snext;
        all = m->all_next;
    } else {
        if (!(m = malloc(sizeof *m)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        all = n->all_msgs;
        n->all_msgs = m;
    }
    (void)chan_key;           /* one message at a time per port: the cap is per message */
    (void)fifo;               /* and so a sender's messages are in order already */
    (void)pair;
    *m = (ab_msg){src, dst, bytes, token, NULL, NULL, NULL, NULL, all};
    if (!s->send_busy && !r->recv_busy) {
        start(n, m);
        return 0;
    }
    m->sprev = s->sq_tail;
    if (s->sq_tail) s->sq_tail->snext = m; else s->sq_head = m;
    s->sq_tail = m;
    m->rprev = r->rq_tail;
    if (r->rq_tail) r->rq_tail->rnext = m; else r->rq_head = m;
    r->rq_tail = m;
    return 0;
}

static const cs_link_stats *ab_stats(const cs_net *n) { return NULL; }

const cs_net_ops cs__net_alpha_beta = {"alpha_beta", ab_create, ab_send, NULL, ab_stats, ab_destroy};
