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

typedef struct fl_group fl_group;

typedef struct fl_flow {
    uint64_t token;           /* executor's id */
    uint64_t bytes;           /* payload, bytes */
    const int32_t *route;     /* directed links, owned by the topology's route cache */
    int n_route;
    int32_t vlink;            /* its channel's virtual link (index in links), -1 none */
    double remaining;         /* bytes still to deliver at time `last` */
    double rate;              /* current share, bytes per picosecond */
    cs_time last;             /* when remaining was last brought up to date, ps */
    cs_event_id ev;           /* pending completion event, 0 if none */
    uint32_t mark;            /* visit epoch of the current recompute */
    struct fl_flow *next;     /* free list / all list */
    struct fl_flow *all_next;
    fl_group *grp;            /* flows on the same links, while on its links */
} fl_flow;

/* Flows on the same links (one route, one channel link): max-min fairness gives them the
 * same share, fixed in the same step of the filling. A recompute joins a group's links
 * once, and the filling fixes a group at once (its m flows' shares subtracted m times, in
 * the same arithmetic as one by one: every subtraction of a step is the same number); the
 * flows take their group's share. */
struct fl_group {
    const int32_t *route;     /* the members' route (key) */
    int n_route;
    int32_t vlink;            /* and channel link (key) */
    int n;                    /* members: flows on the links */
    uint32_t mark;            /* recompute epoch in which its links were joined */
    int fixed;                /* share fixed in the current progressive filling */
    double share;             /* the members' share being computed, bytes per picosecond */
    fl_group *hnext;          /* hash chain / free list */
};

typedef struct fl_link {
    double cap;               /* capacity, bytes per picosecond */
    fl_flow **flows;          /* active flows crossing this direction */
    int n_flows, cap_flows;
    uint32_t mark;            /* visit epoch */
    int seeded;               /* in the net's seed list */
    int32_t pos;              /* position in comp_links during a recompute */
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
    int32_t *uf;              /* scratch per component position: union-find parent */
    int32_t *comp_start;      /* scratch per position: component sizes, then ends */
    int32_t *comp_order;      /* scratch: positions grouped by component */
    int32_t *heap;            /* scratch: filling heap of positions */
    int32_t *h_idx;           /* scratch per position: index in heap, -1 if not in it */
    double *h_key;            /* scratch per position: fair share rem/unfixed, bytes/ps */
    int32_t n_heap;           /* positions in heap */
    cs_sim_counters counters; /* recomputes, link_visits, peak_flows (cs_sim_counters) */
    uint64_t n_live_flows;    /* flows on their links now */
    int32_t *seeds;           /* links whose flows changed since the last recompute */
    int n_seeds;
    int pending;              /* a recompute event is scheduled for now */
    fl_flow *free_flows, *all_flows;
    fl_group **gtab;          /* groups by (route, vlink): hash buckets */
    uint32_t n_gtab;          /* buckets, a power of two */
    uint32_t n_groups;        /* groups with members */
    fl_group *free_groups;    /* unused groups */
};

static void fl_destroy(cs_net *n);

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
    n->uf = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->uf);
    n->comp_start = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->comp_start);
    n->comp_order = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->comp_order);
    n->heap = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->heap);
    n->h_idx = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->h_idx);
    n->h_key = malloc(((size_t)nd + (size_t)nv + 1) * sizeof *n->h_key);
    if (!n->links || !n->stats || !n->comp_links || !n->seeds || !n->uf || !n->comp_start ||
        !n->comp_order || !n->heap || !n->h_idx || !n->h_key) {
        fl_destroy(n);
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
    for (i = 0; i < (int)n->n_gtab; i++)
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
    free(n->links);
    free(n->stats);
    free(n->comp_flows);
    free(n->comp_links);
    free(n->seeds);
    free(n->uf);
    free(n->comp_start);
    free(n->comp_order);
    free(n->heap);
    free(n->h_idx);
    free(n->h_key);
    free(n);
}

static const cs_link_stats *fl_stats(const cs_net *n) { return n->stats; }

static void fl_counters(const cs_net *n, cs_sim_counters *out)
{
    out->recomputes += n->counters.recomputes;
    out->link_visits += n->counters.link_visits;
    if (n->counters.peak_flows > out->peak_flows)
        out->peak_flows = n->counters.peak_flows;
}

static void fl_end(cs_engine *eng, void *arg, uint64_t data);

/* The links flow f crosses: its route, then its channel's virtual link if any. */
static int flow_nlinks(const fl_flow *f) { return f->n_route + (f->vlink >= 0); }
static int32_t flow_link(const fl_flow *f, int k) { return k < f->n_route ? f->route[k] : f->vlink; }

/* Union-find over component positions (path halving): the root of position i. */
static int32_t uf_find(int32_t *parent, int32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

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
static void fill_component(cs_net *n, const int32_t *comp, int32_t nc)
{
    int32_t i;
    n->n_heap = 0;
    for (i = 0; i < nc; i++) {
        fl_link *L = &n->links[n->comp_links[comp[i]]];
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
        fl_link *best = &n->links[n->comp_links[top]];
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
                fl_link *L = &n->links[flow_link(f, k)];
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
                     * move one either way: sift in both directions. */
                    n->h_key[L->pos] = L->rem / L->unfixed;
                    heap_up(n, n->h_idx[L->pos]);
                    heap_down(n, n->h_idx[L->pos]);
                }
            }
        }
    }
}

/* Recompute max-min fair shares for every flow connected to the seed links, then move
 * the completion events of flows whose share changed. The connected flows and links are
 * gathered breadth-first in one list (the order fixes tie-breaks and event order), split
 * into connected components of the flow-link graph, and each component is filled alone:
 * a ring step's hundreds of independent flows cost one small filling each. */
static int recompute(cs_net *n)
{
    int32_t nl = 0, i, c;
    int nf = 0, j, k;
    cs_time now = cs_engine_now(n->eng);
    uint32_t ep = ++n->epoch;

    n->counters.recomputes++;
    for (i = 0; i < n->n_seeds; i++) {
        n->links[n->seeds[i]].seeded = 0;
        if (n->links[n->seeds[i]].mark != ep) {
            n->links[n->seeds[i]].mark = ep;
            n->links[n->seeds[i]].pos = nl;
            n->comp_links[nl++] = n->seeds[i];
        }
    }
    n->n_seeds = 0;
    /* Breadth-first over links: every flow on a component link, every link of such a
     * flow. Links of one flow are joined in the union-find. */
    for (i = 0; i < nl; i++)
        n->uf[i] = i;
    for (i = 0; i < nl; i++) {
        fl_link *L = &n->links[n->comp_links[i]];
        n->counters.link_visits++;
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
            if (f->grp->mark == ep)
                continue;      /* a member before it joined the group's links already */
            f->grp->mark = ep;
            f->grp->fixed = 0;
            for (k = 0; k < flow_nlinks(f); k++) {
                fl_link *M = &n->links[flow_link(f, k)];
                int32_t a, b;
                n->counters.link_visits++;
                if (M->mark != ep) {
                    M->mark = ep;
                    M->pos = nl;
                    n->uf[nl] = nl;
                    n->comp_links[nl++] = flow_link(f, k);
                }
                a = uf_find(n->uf, i);
                b = uf_find(n->uf, M->pos);
                if (a != b)
                    n->uf[a > b ? a : b] = a < b ? a : b;
            }
        }
    }
    /* Group the positions by component, each group in list order (counting sort on the
     * root: comp_start[r] counts, then offsets). */
    for (i = 0; i < nl; i++)
        n->comp_start[i] = 0;
    for (i = 0; i < nl; i++) {
        n->uf[i] = uf_find(n->uf, i);
        n->comp_start[n->uf[i]]++;
    }
    for (i = 0, c = 0; i < nl; i++) {
        int32_t cnt = n->comp_start[i];
        n->comp_start[i] = c;
        c += cnt;
    }
    for (i = 0; i < nl; i++) {
        int32_t r = n->uf[i];          /* the root itself since the counting pass */
        n->comp_order[n->comp_start[r]++] = i;
    }
    /* comp_start[r] now ends root r's group; a group starts where the one before ended. */
    for (i = 0, c = 0; i < nl; i++) {
        if (n->uf[i] != i)
            continue;
        fill_component(n, n->comp_order + c, n->comp_start[i] - c);
        c = n->comp_start[i];
    }
    /* Apply: bring remaining bytes up to date at the old rate, reschedule the end. */
    for (i = 0; i < nf; i++) {
        fl_flow *f = n->comp_flows[i];
        cs_time dt;
        double new_rate = f->grp->share;
        if (new_rate == f->rate && f->ev)
            continue;
        f->remaining -= f->rate * (double)(now - f->last);
        if (f->remaining < 0)
            f->remaining = 0;
        f->last = now;
        f->rate = new_rate;
        if (f->rate <= 0) {
            if (f->ev)
                cs_engine_cancel(n->eng, f->ev);
            f->ev = 0;          /* starved (cannot happen with positive capacities) */
            continue;
        }
        dt = (cs_time)llround(f->remaining / f->rate);
        f->ev = f->ev ? cs_engine_move(n->eng, f->ev, now + dt)
                      : cs_engine_at(n->eng, now + dt, fl_end, n, (uint64_t)(uintptr_t)f);
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

static uint32_t group_hash(const int32_t *route, int32_t vlink)
{
    uint64_t h = (uint64_t)(uintptr_t)route * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)vlink;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* Put f into the group of its links (created when it has none). Returns 0 or CS_ENOMEM. */
static int group_join(cs_net *n, fl_flow *f)
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
        if (g->route == f->route && g->n_route == f->n_route && g->vlink == f->vlink)
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
static void group_leave(cs_net *n, fl_flow *f)
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
    if (group_join(n, f) < 0)
        cs_engine_fail(eng, CS_ENOMEM, NULL, "out of memory");
    if (++n->n_live_flows > n->counters.peak_flows)
        n->counters.peak_flows = n->n_live_flows;
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
    if (f->n_route) {
        n->n_live_flows--;
        touch(n, f);
        if (f->grp)
            group_leave(n, f);
    }
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

const cs_net_ops cs__net_fluid = {"fluid", fl_create, fl_send, fl_counters, fl_stats, fl_destroy};
