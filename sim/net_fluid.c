/* net_fluid.c: the link-level fluid network model (core layer, DESIGN §2). A message
 * follows its route: it starts delivering after the sum of the route's latencies, then flows
 * at its max-min fair share of every directed link it crosses. Shares are recomputed by
 * progressive filling when flows start or end, only over the flows connected to them
 * through shared links; all the starts and ends of one instant are gathered into one
 * recomputation, run after them at the same time (a ring step starts hundreds of flows
 * at once). With no contention a message costs sum(lat) + l / min(bw).
 *
 * A channel's bandwidth cap (NCCL mode) is a virtual link per (channel, sending rank) of
 * that capacity, which every flow the rank sends on the channel also crosses: the pieces
 * of a pipelined ring that are in flight at once share their channel's cap, as the one
 * CUDA block that moves a channel's data does. */
#include "sim/net-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_flow {
    uint64_t token;           /* executor's id */
    uint64_t bytes;           /* payload, bytes */
    const int32_t *route;     /* directed links, owned by the topology's route cache */
    int n_route;
    int32_t vlink;            /* its channel's virtual link (index in links), -1 none */
    double remaining;         /* bytes still to deliver at time `last` */
    double rate;              /* current share, bytes per picosecond */
    double new_rate;          /* share being computed, bytes per picosecond */
    cs_time last;             /* when remaining was last brought up to date, ps */
    cs_event_id ev;           /* pending completion event, 0 if none */
    uint32_t mark;            /* visit epoch of the current recompute */
    int fixed;                /* share fixed in the current progressive filling */
    struct fl_flow *next;     /* free list / all list */
    struct fl_flow *all_next;
} fl_flow;

typedef struct fl_link {
    double cap;               /* capacity, bytes per picosecond */
    fl_flow **flows;          /* active flows crossing this direction */
    int n_flows, cap_flows;
    uint32_t mark;            /* visit epoch */
    int seeded;               /* in the net's seed list */
    double rem;               /* progressive filling: capacity left */
    int unfixed;              /* progressive filling: flows without a share yet */
    cs_time busy_since;       /* when n_flows last went 0 -> 1 */
} fl_link;

struct cs_net {
    cs_engine *eng;
    const cs_topo *t;
    cs_net_cb cb;
    fl_link *links;           /* per dlink, then the channels' virtual links */
    int n_dlinks;             /* 2 * topology links: links[0..n_dlinks) are real */
    int n_vlinks;             /* virtual links: CS_NET_MAX_CHANNELS per rank, or 0 */
    cs_link_stats *stats;     /* per dlink */
    uint32_t epoch;           /* recompute visit epoch */
    fl_flow **comp_flows;     /* scratch: flows of the component */
    int32_t *comp_links;      /* scratch: dlinks of the component */
    int cap_comp_flows, cap_comp_links;
    int32_t *seeds;           /* links whose flows changed since the last recompute */
    int n_seeds;
    int pending;              /* a recompute event is scheduled for now */
    fl_flow *free_flows, *all_flows;
};

static int fl_create(cs_net **out, cs_engine *eng, const cs_topo *t, const cs_net_cb *cb,
                     double cap_GBps, cs_err *err)
{
    int i, nd = 2 * t->n_links, nv = cap_GBps > 0 ? CS_NET_MAX_CHANNELS * t->n_ranks : 0;
    cs_net *n = calloc(1, sizeof *n);
    if (!n)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    n->links = calloc((size_t)nd + (size_t)nv + 1, sizeof *n->links);
    n->stats = calloc((size_t)nd + 1, sizeof *n->stats);
    n->comp_links = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->comp_links);
    n->seeds = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->seeds);
    if (!n->links || !n->stats || !n->comp_links || !n->seeds) {
        free(n->links);
        free(n->stats);
        free(n->comp_links);
        free(n->seeds);
        free(n);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    n->cap_comp_links = nd + nv;
    n->n_dlinks = nd;
    n->n_vlinks = nv;
    for (i = 0; i < nd; i++)
        n->links[i].cap = t->links[i >> 1].bw_GBps * 1e-3;   /* GB/s -> bytes/ps */
    for (i = nd; i < nd + nv; i++)
        n->links[i].cap = cap_GBps * 1e-3;
    n->eng = eng;
    n->t = t;
    n->cb = *cb;
    *out = n;
    return 0;
}

static void fl_destroy(cs_net *n)
{
    int i;
    if (!n)
        return;
    for (i = 0; i < n->n_dlinks + n->n_vlinks; i++)
        free(n->links[i].flows);
    while (n->all_flows) {
        fl_flow *nx = n->all_flows->all_next;
        free(n->all_flows);
        n->all_flows = nx;
    }
    free(n->links);
    free(n->stats);
    free(n->comp_flows);
    free(n->comp_links);
    free(n->seeds);
    free(n);
}

static const cs_link_stats *fl_stats(const cs_net *n) { return n->stats; }

static void fl_end(cs_engine *eng, void *arg, uint64_t data);

/* The links flow f crosses: its route, then its channel's virtual link if any. */
static int flow_nlinks(const fl_flow *f) { return f->n_route + (f->vlink >= 0); }
static int32_t flow_link(const fl_flow *f, int k) { return k < f->n_route ? f->route[k] : f->vlink; }

/* Recompute max-min fair shares for every flow connected to the seed links, then move
 * the completion events of flows whose share changed. */
static int recompute(cs_net *n)
{
    int nl = 0, nf = 0, i, j, k, left;
    cs_time now = cs_engine_now(n->eng);
    uint32_t ep = ++n->epoch;

    for (i = 0; i < n->n_seeds; i++) {
        n->links[n->seeds[i]].seeded = 0;
        if (n->links[n->seeds[i]].mark != ep) {
            n->links[n->seeds[i]].mark = ep;
            n->comp_links[nl++] = n->seeds[i];
        }
    }
    n->n_seeds = 0;
    /* Breadth-first over links: every flow on a component link, every link of such a flow. */
    for (i = 0; i < nl; i++) {
        fl_link *L = &n->links[n->comp_links[i]];
        for (j = 0; j < L->n_flows; j++) {
            fl_flow *f = L->flows[j];
            if (f->mark == ep)
                continue;
            f->mark = ep;
            if (nf == n->cap_comp_flows) {
                int cap = n->cap_comp_flows ? n->cap_comp_flows * 2 : 64;
                fl_flow **nc = realloc(n->comp_flows, (size_t)cap * sizeof *nc);
                if (!nc)
                    return CS_ENOMEM;
                n->comp_flows = nc;
                n->cap_comp_flows = cap;
            }
            n->comp_flows[nf++] = f;
            f->fixed = 0;
            for (k = 0; k < flow_nlinks(f); k++)
                if (n->links[flow_link(f, k)].mark != ep) {
                    n->links[flow_link(f, k)].mark = ep;
                    n->comp_links[nl++] = flow_link(f, k);
                }
        }
    }
    /* Progressive filling: the link with the smallest fair share fixes its flows' rates. */
    for (i = 0; i < nl; i++) {
        fl_link *L = &n->links[n->comp_links[i]];
        L->rem = L->cap;
        L->unfixed = L->n_flows;
    }
    left = nf;
    while (left > 0) {
        fl_link *best = NULL;
        double best_share = INFINITY;
        for (i = 0; i < nl; i++) {
            fl_link *L = &n->links[n->comp_links[i]];
            if (L->unfixed > 0) {
                double sh = L->rem / L->unfixed;
                if (sh < best_share) {
                    best_share = sh;
                    best = L;
                }
            }
        }
        if (!best)
            break;
        if (best_share < 0)
            best_share = 0;
        for (j = 0; j < best->n_flows; j++) {
            fl_flow *f = best->flows[j];
            if (f->fixed)
                continue;
            f->fixed = 1;
            f->new_rate = best_share;
            left--;
            for (k = 0; k < flow_nlinks(f); k++) {
                fl_link *L = &n->links[flow_link(f, k)];
                L->rem -= best_share;
                L->unfixed--;
            }
        }
    }
    /* Apply: bring remaining bytes up to date at the old rate, reschedule the end. */
    for (i = 0; i < nf; i++) {
        fl_flow *f = n->comp_flows[i];
        cs_time dt;
        if (f->new_rate == f->rate && f->ev)
            continue;
        f->remaining -= f->rate * (double)(now - f->last);
        if (f->remaining < 0)
            f->remaining = 0;
        f->last = now;
        f->rate = f->new_rate;
        if (f->ev)
            cs_engine_cancel(n->eng, f->ev);
        if (f->rate <= 0) {
            f->ev = 0;          /* starved (cannot happen with positive capacities) */
            continue;
        }
        dt = (cs_time)llround(f->remaining / f->rate);
        f->ev = cs_engine_at(n->eng, now + dt, fl_end, n, (uint64_t)(uintptr_t)f);
        if (!f->ev)
            return CS_ENOMEM;
    }
    return 0;
}

static void recompute_now(cs_engine *eng, void *arg, uint64_t data)
{
    cs_net *n = arg;
    (void)data;
    n->pending = 0;
    if (recompute(n) < 0)
        cs_engine_fail(eng, CS_ENOMEM, NULL, "out of memory");
}

/* The flows of f's links changed: recompute them once this instant's events are done. */
static void touch(cs_net *n, const fl_flow *f)
{
    int k;
    for (k = 0; k < flow_nlinks(f); k++) {
        fl_link *L = &n->links[flow_link(f, k)];
        if (!L->seeded) {
            L->seeded = 1;
            n->seeds[n->n_seeds++] = flow_link(f, k);
        }
    }
    if (!n->pending) {
        n->pending = 1;
        if (!cs_engine_after(n->eng, 0, recompute_now, n, 0))
            cs_engine_fail(n->eng, CS_ENOMEM, NULL, "out of memory");
    }
}

static void link_add(cs_net *n, int32_t d, fl_flow *f, cs_time now)
{
    fl_link *L = &n->links[d];
    if (L->n_flows == L->cap_flows) {
        int cap = L->cap_flows ? L->cap_flows * 2 : 4;
        fl_flow **nf = realloc(L->flows, (size_t)cap * sizeof *nf);
        if (!nf) {
            cs_engine_fail(n->eng, CS_ENOMEM, NULL, "out of memory");
            return;
        }
        L->flows = nf;
        L->cap_flows = cap;
    }
    if (L->n_flows == 0)
        L->busy_since = now;
    L->flows[L->n_flows++] = f;
    if (d < n->n_dlinks && L->n_flows > n->stats[d].peak_flows)
        n->stats[d].peak_flows = L->n_flows;
}

static void link_remove(cs_net *n, int32_t d, fl_flow *f, cs_time now)
{
    fl_link *L = &n->links[d];
    int j;
    for (j = 0; j < L->n_flows; j++)
        if (L->flows[j] == f) {
            memmove(&L->flows[j], &L->flows[j + 1], (size_t)(L->n_flows - j - 1) * sizeof f);
            L->n_flows--;
            break;
        }
    if (d >= n->n_dlinks)
        return;
    n->stats[d].bytes += (double)f->bytes;
    if (L->n_flows == 0)
        n->stats[d].busy_ps += now - L->busy_since;
}

static void release(cs_net *n, fl_flow *f)
{
    f->next = n->free_flows;
    n->free_flows = f;
}

/* The route latency has passed: the flow joins its links. */
static void fl_begin(cs_engine *eng, void *arg, uint64_t data)
{
    cs_net *n = arg;
    fl_flow *f = (fl_flow *)(uintptr_t)data;
    cs_time now = cs_engine_now(eng);
    int k;
    f->last = now;
    f->rate = 0;
    f->ev = 0;
    for (k = 0; k < flow_nlinks(f); k++)
        link_add(n, flow_link(f, k), f, now);
    touch(n, f);
}

static void fl_end(cs_engine *eng, void *arg, uint64_t data)
{
    cs_net *n = arg;
    fl_flow *f = (fl_flow *)(uintptr_t)data;
    cs_time now = cs_engine_now(eng);
    uint64_t token = f->token;
    int k;
    f->ev = 0;
    for (k = 0; k < flow_nlinks(f); k++)
        link_remove(n, flow_link(f, k), f, now);
    if (f->n_route)
        touch(n, f);
    release(n, f);
    n->cb.on_done(n->cb.ctx, token);
}

static int fl_send(cs_net *n, int src, int dst, uint64_t bytes, uint64_t token, int chan_key,
                   cs_err *err)
{
    const int32_t *route;
    int nr = cs_topo_route(n->t, src, dst, &route, err);
    fl_flow *f;
    cs_time lat;
    if (nr < 0)
        return nr;
    if (n->free_flows) {
        f = n->free_flows;
        n->free_flows = f->next;
    } else {
        if (!(f = calloc(1, sizeof *f)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        f->all_next = n->all_flows;
        n->all_flows = f;
    }
    f->token = token;
    f->bytes = bytes;
    f->route = route;
    f->n_route = nr;
    f->vlink = chan_key >= 0 && chan_key < n->n_vlinks ? n->n_dlinks + chan_key : -1;
    f->remaining = (double)bytes;
    f->rate = 0;
    f->ev = 0;
    f->mark = 0;
    lat = cs_time_from_us(cs_topo_route_lat_us(n->t, route, nr));
    n->cb.on_start(n->cb.ctx, token);
    if (bytes == 0 || nr == 0) {
        f->n_route = 0;       /* nothing flows: done after the latency */
        f->vlink = -1;
        cs_engine_after(n->eng, lat, fl_end, n, (uint64_t)(uintptr_t)f);
    } else {
        cs_engine_after(n->eng, lat, fl_begin, n, (uint64_t)(uintptr_t)f);
    }
    return 0;
}

const cs_net_ops cs__net_fluid = {"fluid", fl_create, fl_send, fl_stats, fl_destroy};
