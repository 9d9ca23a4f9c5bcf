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
 * CUDA block that moves a channel's data does.
 *
 * Flows on the same links form a group (fluid-private.h); the filling of a component is in
 * net_fluid_fill.c; the pieces of a FIFO connection take the link one after another
 * (net_fluid_fifo.c). */
#include "sim/fluid-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fl_destroy(cs_net *n);

static int fl_create(cs_net **out, cs_engine *eng, const cs_topo *t, const cs_net_cb *cb,
                     double cap_GBps, double bw_scale, const cs_net_pair *pair, cs_err *err)
{
    int nd = 2 * t->n_links, nv = cap_GBps > 0 ? CS_NET_MAX_CHANNELS * t->n_ranks : 0, g;
    int np = cs__fl_pair_count(t, pair, &g);
    cs_net *n = calloc(1, sizeof *n);
    if (!n)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    nv += np;      /* the pair links follow the channels' (n_vlinks counts only those) */
    if ((size_t)nd + (size_t)nv + 1 <= FL_FLAT_MAX) {
        n->flat = calloc((size_t)nd + (size_t)nv + 1, sizeof *n->flat);
        n->flat_st = calloc((size_t)nd + 1, sizeof *n->flat_st);
        if (!n->flat || !n->flat_st) {
            fl_destroy(n);
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        }
    } else {
        n->n_pages = (int32_t)(((size_t)nd + (size_t)nv + FL_PAGE) / FL_PAGE);
        n->pages = calloc((size_t)n->n_pages, sizeof *n->pages);
    }
    n->stats_out = calloc(1, sizeof *n->stats_out);
    /* the scratch arrays grow with the links a recompute meets (a plan's groups touch a
     * few thousand links of a 100,000-GPU fabric's million) */
    if ((!n->flat && !n->pages) || !n->stats_out ||
        cs__fl_grow_scratch(n, nd + nv < 1024 ? nd + nv + 1 : 1024) < 0) {
        fl_destroy(n);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    n->n_dlinks = nd;
    n->n_vlinks = nv - np;
    n->n_plinks = np;
    n->pair_g = g;
    n->bw_scale = bw_scale;
    n->vcap = cap_GBps * 1e-3;
    if (n->flat) {
        int32_t i;
        for (i = 0; i < nd; i++)
            /* GB/s -> bytes/ps; (bw x scale) x 1e-3, the doubles of a topology whose
             * figures were scaled before (bw x 1 = bw exactly) */
            n->flat[i].cap = t->links[i >> 1].bw_GBps * bw_scale * 1e-3;
        for (i = nd; i < nd + nv - np; i++)
            n->flat[i].cap = n->vcap;
    }
    n->eng = eng;
    n->t = t;
    n->cb = *cb;
    if (np && cs__fl_pair_init(n, pair, bw_scale) < 0) {
        fl_destroy(n);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    *out = n;
    return 0;
}

/* realloc *p to cap elements of elt bytes; 0 or CS_ENOMEM (*p kept). */
static int grow1(void **p, size_t elt, int32_t cap)
{
    void *x = realloc(*p, (size_t)cap * elt);
    if (!x)
        return CS_ENOMEM;
    *p = x;
    return 0;
}

int cs__fl_grow_scratch(cs_net *n, int32_t need)
{
    int32_t cap = n->cap_comp_links > 0 ? 2 * n->cap_comp_links : need;
    if (need <= n->cap_comp_links)
        return 0;
    if (cap < need)
        cap = need;
    if (grow1((void **)&n->comp_links, sizeof *n->comp_links, cap) < 0 ||
        grow1((void **)&n->seeds, sizeof *n->seeds, cap) < 0 ||
        grow1((void **)&n->uf, sizeof *n->uf, cap) < 0 ||
        grow1((void **)&n->comp_start, sizeof *n->comp_start, cap) < 0 ||
        grow1((void **)&n->comp_order, sizeof *n->comp_order, cap) < 0 ||
        grow1((void **)&n->heap, sizeof *n->heap, cap) < 0 ||
        grow1((void **)&n->h_idx, sizeof *n->h_idx, cap) < 0 ||
        grow1((void **)&n->h_key, sizeof *n->h_key, cap) < 0)
        return CS_ENOMEM;
    n->cap_comp_links = cap;
    return 0;
}

static void fl_destroy(cs_net *n)
{
    int i;
    if (!n)
        return;
    for (i = 0; n->flat && i < n->n_dlinks + n->n_vlinks + n->n_plinks; i++)
        free(n->flat[i].flows);
    free(n->flat);
    free(n->flat_st);
    for (i = 0; n->pages && i < n->n_pages; i++) {
        int j;
        for (j = 0; n->pages[i] && j < FL_PAGE; j++)
            free(n->pages[i]->l[j].flows);
        free(n->pages[i]);
    }
    free(n->rank_of_node);
    free(n->pair_loc);
    while (n->all_flows) {
        fl_flow *nx = n->all_flows->all_next;
        free(n->all_flows);
        n->all_flows = nx;
    }
    cs__fl_groups_free(n);
    cs__fl_conns_free(n);
    free(n->pages);
    if (n->stats_out)
        free(*n->stats_out);
    free(n->stats_out);
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

int cs__fl_page_in(cs_net *n, int32_t d)
{
    fl_page *pg;
    int32_t j, base = d & ~(FL_PAGE - 1);
    if (n->flat || n->pages[d >> FL_PAGE_BITS])
        return 0;
    if (!(pg = calloc(1, sizeof *pg)))
        return CS_ENOMEM;
    for (j = 0; j < FL_PAGE; j++) {
        int32_t i = base + j;
        if (i < n->n_dlinks)
            /* GB/s -> bytes/ps; (bw x scale) x 1e-3, the doubles of a topology whose
             * figures were scaled before (bw x 1 = bw exactly) */
            pg->l[j].cap = n->t->links[i >> 1].bw_GBps * n->bw_scale * 1e-3;
        else if (i < n->n_dlinks + n->n_vlinks)
            pg->l[j].cap = n->vcap;
    }
    n->pages[d >> FL_PAGE_BITS] = pg;
    return 0;
}

/* Every dlink's statistics, gathered from the pages (zeros where no flow went). */
static const cs_link_stats *fl_stats(const cs_net *n)
{
    cs_link_stats *a = *n->stats_out;
    int32_t d;
    if (n->flat)
        return n->flat_st;
    if (!a && !(a = *n->stats_out = calloc((size_t)n->n_dlinks + 1, sizeof *a)))
        return NULL;
    for (d = 0; d < n->n_dlinks; d++)
        if (n->pages[d >> FL_PAGE_BITS])
            a[d] = *fl_st(n, d);
    return a;
}

static void fl_counters(const cs_net *n, cs_sim_counters *out)
{
    out->recomputes += n->counters.recomputes;
    out->link_visits += n->counters.link_visits;
    if (n->counters.peak_flows > out->peak_flows)
        out->peak_flows = n->counters.peak_flows;
}

static void fl_end(cs_engine *eng, void *arg, uint64_t data);

/* Union-find over component positions (path halving): the root of position i. */
static int32_t uf_find(int32_t *parent, int32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
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
    uint32_t ep;

    /* Only links that lost their last flow changed (touch): no share moves. */
    if (n->n_seeds == 0)
        return 0;
    ep = ++n->epoch;
    n->counters.recomputes++;
    for (i = 0; i < n->n_seeds; i++) {
        fl_lk(n, n->seeds[i])->seeded = 0;
        if (fl_lk(n, n->seeds[i])->mark != ep) {
            fl_lk(n, n->seeds[i])->mark = ep;
            fl_lk(n, n->seeds[i])->pos = nl;
            n->comp_links[nl++] = n->seeds[i];
        }
    }
    n->n_seeds = 0;
    /* Breadth-first over links: every flow on a component link, every link of such a
     * flow. Links of one flow are joined in the union-find. */
    for (i = 0; i < nl; i++)
        n->uf[i] = i;
    for (i = 0; i < nl; i++) {
        fl_link *L = fl_lk(n, n->comp_links[i]);
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
                fl_link *M = fl_lk(n, flow_link(f, k));
                int32_t a, b;
                n->counters.link_visits++;
                if (M->mark != ep) {
                    if (nl == n->cap_comp_links && cs__fl_grow_scratch(n, nl + 1) < 0)
                        return CS_ENOMEM;
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
        cs__fl_fill_component(n, n->comp_order + c, n->comp_start[i] - c);
        c = n->comp_start[i];
    }
    /* Apply: bring remaining bytes up to date at the old rate, reschedule the end. The
     * moves are one engine batch (engine.h): the heap is put in order once after them. */
    cs_engine_batch_begin(n->eng, (uint32_t)nf);
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
        /* remaining >= 0 and rate > 0 here: the quotient is >= 0; an end past the
         * clock stops the run (CS_NET_PAST_CLOCK_MSG) */
        if (!(f->remaining / f->rate < (double)(CS_TIME_MAX - now) - 1)) {
            cs_engine_batch_end(n->eng);
            return CS_ELIMIT;
        }
        dt = (cs_time)cs__fl_round(f->remaining / f->rate);
        f->ev = f->ev ? cs_engine_move(n->eng, f->ev, now + dt)
                      : cs_engine_at(n->eng, now + dt, fl_end, n, (uint64_t)(uintptr_t)f);
        if (!f->ev) {
            cs_engine_batch_end(n->eng);
            return CS_ENOMEM;
        }
    }
    cs_engine_batch_end(n->eng);
    return 0;
}

static void recompute_now(cs_engine *eng, void *arg, uint64_t data)
{
    cs_net *n = arg;
    int rc;
    (void)data;
    n->pending = 0;
    rc = recompute(n);
    if (rc == CS_ELIMIT)
        cs_engine_fail(eng, CS_ELIMIT, NULL, CS_NET_PAST_CLOCK_MSG);
    else if (rc < 0)
        cs_engine_fail(eng, CS_ENOMEM, NULL, "out of memory");
}

void cs__fl_seed(cs_net *n, int32_t d)
{
    fl_link *L = fl_lk(n, d);
    if (!L->seeded) {
        if (n->n_seeds == n->cap_comp_links && cs__fl_grow_scratch(n, n->n_seeds + 1) < 0) {
            cs_engine_fail(n->eng, CS_ENOMEM, NULL, "out of memory");
            return;
        }
        L->seeded = 1;
        n->seeds[n->n_seeds++] = d;
    }
    if (!n->pending) {
        n->pending = 1;
        if (!cs_engine_after(n->eng, 0, recompute_now, n, 0))
            cs_engine_fail(n->eng, CS_ENOMEM, NULL, "out of memory");
    }
}

/* The flows of f's links changed: recompute them once this instant's events are done. A
 * link f left empty is not seeded: no flow's share depends on it any more (a ring step's
 * ends then cost no recomputation; tests/test_scale.c counts it). The recompute event is
 * scheduled all the same, so the instant's events keep their order. */
static void touch(cs_net *n, const fl_flow *f)
{
    int k;
    for (k = 0; k < flow_nlinks(f); k++) {
        fl_link *L = fl_lk(n, flow_link(f, k));
        if (!L->seeded && L->n_flows > 0) {
            if (n->n_seeds == n->cap_comp_links &&
                cs__fl_grow_scratch(n, n->n_seeds + 1) < 0) {
                cs_engine_fail(n->eng, CS_ENOMEM, NULL, "out of memory");
                return;
            }
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
    fl_link *L = fl_lk(n, d);
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
    if (d < n->n_dlinks && L->n_flows > fl_st(n, d)->peak_flows)
        fl_st(n, d)->peak_flows = L->n_flows;
}

static void link_remove(cs_net *n, int32_t d, fl_flow *f, cs_time now)
{
    fl_link *L = fl_lk(n, d);
    int j;
    for (j = 0; j < L->n_flows; j++)
        if (L->flows[j] == f) {
            memmove(&L->flows[j], &L->flows[j + 1], (size_t)(L->n_flows - j - 1) * sizeof f);
            L->n_flows--;
            break;
        }
    if (d >= n->n_dlinks)
        return;
    fl_st(n, d)->bytes += (double)f->bytes;
    if (L->n_flows == 0)
        fl_st(n, d)->busy_ps += now - L->busy_since;
}

static void release(cs_net *n, fl_flow *f)
{
    f->next = n->free_flows;
    n->free_flows = f;
}

/* The flow starts its bandwidth phase: it joins its links. */
static void join(cs_net *n, fl_flow *f, cs_time now)
{
    cs_engine *eng = n->eng;
    int k;
    f->last = now;
    f->rate = 0;
    f->ev = 0;
    for (k = 0; k < flow_nlinks(f); k++)
        link_add(n, flow_link(f, k), f, now);
    if (cs__fl_pair_turn(n, f, 1))
        cs__fl_seed(n, f->prev_link);
    if (cs__fl_group_join(n, f) < 0)
        cs_engine_fail(eng, CS_ENOMEM, NULL, "out of memory");
    if (++n->n_live_flows > n->counters.peak_flows)
        n->counters.peak_flows = n->n_live_flows;
    touch(n, f);
}

/* The route latency has passed: the flow joins its links, or, a piece of a connection
 * whose previous piece is still in its bandwidth phase, waits in the FIFO for it. */
static void fl_begin(cs_engine *eng, void *arg, uint64_t data)
{
    cs_net *n = arg;
    fl_flow *f = (fl_flow *)(uintptr_t)data;
    if (f->conn && !cs__fl_conn_take(n, f))
        return;
    join(n, f, cs_engine_now(eng));
}

static void fl_end(cs_engine *eng, void *arg, uint64_t data)
{
    cs_net *n = arg;
    fl_flow *f = (fl_flow *)(uintptr_t)data;
    cs_time now = cs_engine_now(eng);
    uint64_t token = f->token;
    fl_flow *next = NULL;
    int k;
    f->ev = 0;
    for (k = 0; k < flow_nlinks(f); k++)
        link_remove(n, flow_link(f, k), f, now);
    if (cs__fl_pair_turn(n, f, 0))
        cs__fl_seed(n, f->prev_link);
    if (f->n_route) {
        n->n_live_flows--;
        touch(n, f);
        if (f->grp)
            cs__fl_group_leave(n, f);
    }
    if (f->conn)
        next = cs__fl_conn_done(n, f);
    release(n, f);
    /* Its connection's next piece takes the link at once (its latency has passed). */
    if (next)
        join(n, next, now);
    n->cb.on_done(n->cb.ctx, token);
}

static int fl_send(cs_net *n, int src, int dst, uint64_t bytes, uint64_t token, int chan_key,
                   uint64_t fifo, int pair, cs_err *err)
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
    cs__fl_pair_of(n, f, src, dst, pair);
    {
        int k;
        for (k = 0; k < flow_nlinks(f); k++)
            if (cs__fl_page_in(n, flow_link(f, k)) < 0)
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        if (f->prev_link >= 0 && cs__fl_page_in(n, f->prev_link) < 0)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    f->remaining = (double)bytes;
    f->rate = 0;
    f->ev = 0;
    f->mark = 0;
    f->conn = NULL;
    if (fifo != CS_NET_NO_FIFO && bytes > 0 && nr > 0 &&
        cs__fl_conn_attach(n, f, src, dst, fifo) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    lat = cs_time_from_us(cs_topo_route_lat_us(n->t, route, nr));
    n->cb.on_start(n->cb.ctx, token);
    if (bytes == 0 || nr == 0) {
        f->n_route = 0;       /* nothing flows: done after the latency */
        f->vlink = f->plink = -1;
        cs_engine_after(n->eng, lat, fl_end, n, (uint64_t)(uintptr_t)f);
    } else {
        cs_engine_after(n->eng, lat, fl_begin, n, (uint64_t)(uintptr_t)f);
    }
    return 0;
}

const cs_net_ops cs__net_fluid = {"fluid", fl_create, fl_send, fl_counters, fl_stats, fl_destroy};
