/* calibrate.c: fitting a topology to measured logs (calibration layer, calibrate.h). */
#include "calibration/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "sim/report.h"


static int find_class(cs_calib *c, const char *name)
{
    int i;
    for (i = 0; i < c->n_cls; i++)
        if (!strcmp(c->cls[i].name, name))
            return i;
    return -1;
}

/* Add link li to its class (creating it). */
static int class_add(cs_calib *c, int li, cs_err *err)
{
    const cs_link *l = &c->t->links[li];
    int k = find_class(c, l->cls), j;
    cs_calib_class *cc;
    if (k < 0) {
        cs_calib_class *nc = realloc(c->cls, (size_t)(c->n_cls + 1) * sizeof *nc);
        if (!nc)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        c->cls = nc;
        cc = &c->cls[c->n_cls++];
        memset(cc, 0, sizeof *cc);
        snprintf(cc->name, sizeof cc->name, "%s", l->cls);
    } else {
        cc = &c->cls[k];
        for (j = 0; j < cc->n_links; j++)
            if (cc->links[j] == li)
                return 0;
    }
    {
        int *nl = realloc(cc->links, (size_t)(cc->n_links + 1) * sizeof *nl);
        double *nb, *nt;
        if (!nl)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        cc->links = nl;
        nb = realloc(cc->bw0, (size_t)(cc->n_links + 1) * sizeof *nb);
        if (!nb)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        cc->bw0 = nb;
        nt = realloc(cc->lat0, (size_t)(cc->n_links + 1) * sizeof *nt);
        if (!nt)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        cc->lat0 = nt;
        cc->links[cc->n_links] = li;
        cc->bw0[cc->n_links] = l->bw_GBps;
        cc->lat0[cc->n_links] = l->lat_us;
        if (l->bw_GBps > cc->bw0[cc->rep_bw])
            cc->rep_bw = cc->n_links;
        if (l->lat_us > cc->lat0[cc->rep_lat])
            cc->rep_lat = cc->n_links;
        cc->n_links++;
    }
    return 0;
}

/* The link classes on the routes between the first n ranks (all pairs up to 64 ranks,
 * ring neighbours, rank 0's and opposite pairs beyond), each with all its links. */
static int collect_classes(cs_calib *c, int n, cs_err *err)
{
    const cs_topo *t = c->t;
    int i, j, k, rc;
    if (t->model == CS_MODEL_ALPHA_BETA) {
        if (!(c->cls = calloc(1, sizeof *c->cls)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        snprintf(c->cls[0].name, sizeof c->cls[0].name, "alpha_beta");
        c->n_cls = 1;
        return 0;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            const int32_t *dl;
            int m;
            if (i == j || (n > 64 && j != (i + 1) % n && i != 0 && j != (i + n / 2) % n))
                continue;
            if ((m = cs_topo_route(t, t->ranks[i], t->ranks[j], &dl, err)) < 0)
                return m;
            for (k = 0; k < m; k++)
                if (find_class(c, t->links[cs_dlink_link(dl[k])].cls) < 0 &&
                    (rc = class_add(c, cs_dlink_link(dl[k]), err)) < 0)
                    return rc;
        }
    /* A class is fitted as a whole: every link of it, used by these ranks or not. */
    for (i = 0; i < t->n_links; i++)
        if (find_class(c, t->links[i].cls) >= 0 && (rc = class_add(c, i, err)) < 0)
            return rc;
    return 0;
}

/* A parameter whose topology value is orig; a fit starts it from start (within [lo, hi]). */
static int add_param(cs_calib *c, const char *name, double orig, double start, double lo,
                     double hi)
{
    cs_fit_param *p = &c->par[c->n_par];
    memset(p, 0, sizeof *p);
    c->start[c->n_par] = orig;
    snprintf(p->name, sizeof p->name, "%.63s", name);
    p->lo = lo;
    p->hi = hi;
    p->value = start < lo ? lo : start > hi ? hi : start;
    return c->n_par++;
}

static void build_params(cs_calib *c)
{
    const cs_nccl_params *np = c->np;
    char nm[64];
    int i, p;
    for (i = 0; i < CS_PROTO_COUNT; i++)
        c->p_hop[i] = c->p_eff[i] = -1;
    for (i = 0; i < c->n_cls && c->n_par < 40; i++) {
        cs_calib_class *cc = &c->cls[i];
        double bw = cc->n_links ? cc->bw0[cc->rep_bw] : c->t->ab_bw_GBps;
        snprintf(nm, sizeof nm, "%.47s.bandwidth_GBps", cc->name);
        cc->p_bw = add_param(c, nm, bw, bw, bw / 1000, bw * 100);
    }
    for (i = 0; i < c->n_cls && c->n_par < 48; i++) {
        cs_calib_class *cc = &c->cls[i];
        double lat = cc->n_links ? cc->lat0[cc->rep_lat] : c->t->ab_lat_us;
        snprintf(nm, sizeof nm, "%.47s.latency_us", cc->name);
        cc->p_lat = add_param(c, nm, lat, lat > 0.05 ? lat : 0.05, 1e-3,
                              lat * 100 > 1e3 ? lat * 100 : 1e3);
    }
    c->p_launch = add_param(c, "launch_us", np->launch_us, np->launch_us > 1 ? np->launch_us : 1, 1e-2, 1e4);
    /* A channel cap is fitted when the start topology declares one (a machine whose
     * channels, not its links, bound the bandwidth). */
    c->p_chan = np->channel_GBps > 0
        ? add_param(c, "channel_GBps", np->channel_GBps, np->channel_GBps, np->channel_GBps / 100,
                    np->channel_GBps * 100)
        : -1;
    c->p_nvls = np->nvls ? add_param(c, "nvls_eff", np->nvls_eff, np->nvls_eff, 0.05, 1.0) : -1;
    /* A transport's step latency and proxy time per message, where the start sets them. */
    for (i = 0; i < CS_TR_COUNT; i++) {
        const cs_transport_costs *q = &np->tr[i];
        snprintf(nm, sizeof nm, "%s.lat_us", cs_transport_name((cs_transport)i));
        c->p_tr_lat[i] = q->lat_us > 0 ? add_param(c, nm, q->lat_us, q->lat_us, 1e-3, 1e4) : -1;
        snprintf(nm, sizeof nm, "%s.msg_us", cs_transport_name((cs_transport)i));
        c->p_tr_msg[i] = q->msg_us > 0 ? add_param(c, nm, q->msg_us, q->msg_us, 1e-3, 1e4) : -1;
    }
    /* Simple's latency first: it runs the large sizes that every log has. */
    for (i = CS_PROTO_COUNT - 1; i >= 0; i--) {
        if (np->force_proto >= 0 ? np->force_proto != i : !np->proto[i].enabled)
            continue;
        snprintf(nm, sizeof nm, "%s.hop_us", cs_proto_name((cs_proto)i));
        c->p_hop[i] = add_param(c, nm, np->proto[i].hop_us, np->proto[i].hop_us > 0.05 ? np->proto[i].hop_us : 0.05,
                                1e-3, 1e3);
    }
    for (p = 0; p < CS_PROTO_SIMPLE; p++) {
        if (np->force_proto >= 0 ? np->force_proto != p : !np->proto[p].enabled)
            continue;
        snprintf(nm, sizeof nm, "%s.bw_eff", cs_proto_name((cs_proto)p));
        c->p_eff[p] = add_param(c, nm, np->proto[p].bw_eff, np->proto[p].bw_eff, 0.02, 1.0);
    }
    /* Reduction throughput last, and only when the logs hold both a collective that
     * reduces and one that does not: with reducing collectives alone it trades off
     * one for one against the link bandwidth. */
    c->p_gamma = -1;
    c->gamma0 = c->t->reduce_GBps;
    for (i = 0, p = 0; i < c->ls->n_rows; i++) {
        cs_coll k = c->ls->rows[i].coll;
        p |= (k == CS_COLL_ALLREDUCE || k == CS_COLL_REDUCE || k == CS_COLL_REDUCESCATTER)
                 ? 1 : 2;
    }
    if (p == 3)
        c->p_gamma = add_param(c, "reduce_GBps", c->gamma0, c->gamma0 > 0 ? c->gamma0 : 100.0, 0.1, 1e5);
}

/* Put parameter values into the topology and the NCCL table. */
static void apply(cs_calib *c, const double *th)
{
    int i, k;
    for (i = 0; i < c->n_cls; i++) {
        cs_calib_class *cc = &c->cls[i];
        double bw = th[cc->p_bw], lat = th[cc->p_lat];
        if (c->t->model == CS_MODEL_ALPHA_BETA) {
            c->t->ab_bw_GBps = bw;
            c->t->ab_lat_us = lat;
            continue;
        }
        for (k = 0; k < cc->n_links; k++) {
            cs_link *l = &c->t->links[cc->links[k]];
            l->bw_GBps = cc->bw0[k] * (bw / cc->bw0[cc->rep_bw]);
            l->lat_us = cc->lat0[cc->rep_lat] > 0 ? cc->lat0[k] * (lat / cc->lat0[cc->rep_lat])
                                                   : lat;
        }
    }
    c->np->launch_us = th[c->p_launch];
    if (c->p_chan >= 0)
        c->np->channel_GBps = th[c->p_chan];
    if (c->p_nvls >= 0)
        c->np->nvls_eff = th[c->p_nvls];
    for (i = 0; i < CS_TR_COUNT; i++) {
        if (c->p_tr_lat[i] >= 0)
            c->np->tr[i].lat_us = th[c->p_tr_lat[i]];
        if (c->p_tr_msg[i] >= 0)
            c->np->tr[i].msg_us = th[c->p_tr_msg[i]];
    }
    if (c->p_gamma >= 0)   /* held with no reduction cost at the start: none */
        c->t->reduce_GBps = c->held[c->p_gamma] != CS_CALIB_FREE && c->gamma0 == 0
                                ? 0 : th[c->p_gamma];
    for (i = 0; i < CS_PROTO_COUNT; i++) {
        if (c->p_hop[i] >= 0)
            c->np->proto[i].hop_us = th[c->p_hop[i]];
        if (c->p_eff[i] >= 0)
            c->np->proto[i].bw_eff = th[c->p_eff[i]];
    }
}

static int model(void *ctx, const double *th, double *pred, cs_err *err)
{
    cs_calib *c = ctx;
    int i, rc;
    apply(c, th);
    /* Every candidate every CS_CALIB_FULL_EVERY calls; in between only those within
     * CS_CALIB_KEEP of the fastest then (cs_lset_simulate_viable). */
    if ((rc = cs_lset_simulate_viable(c->ls, c->t, c->np, c->algo,
                                      c->n_evals % CS_CALIB_FULL_EVERY == 0, CS_CALIB_KEEP,
                                      err)) < 0)
        return rc;
    c->n_evals++;
    for (i = 0; i < c->ls->n_rows; i++)
        pred[i] = c->ls->rows[i].simulated_us;
    return 0;
}

/* The model with every row's algorithm and protocol kept from the last model call. */
static int model_pinned(void *ctx, const double *th, double *pred, cs_err *err)
{
    cs_calib *c = ctx;
    int i, rc;
    apply(c, th);             /* counted by the fit (n_jac_evals): the columns may run on
                                 other MPI ranks */
    if ((rc = cs_lset_simulate_pinned(c->ls, c->t, c->np, err)) < 0)
        return rc;
    for (i = 0; i < c->ls->n_rows; i++)
        pred[i] = c->ls->rows[i].simulated_us;
    return 0;
}

/* Stage 1: a common factor on every latency-like parameter (link latencies, launch,
 * per-transfer latencies) fitted to the small sizes (<= 64 KiB), then a common factor on
 * every link bandwidth fitted to the large sizes (>= 1 MiB). Effective bandwidths can be
 * several times the per-link figures (NCCL runs many channels over many links) and
 * software latencies many times NCCL's constants; the factors bring the start into the
 * right regime before the parameters are fitted one by one, where which link is the
 * bottleneck makes the cost surface piecewise. */
typedef struct scale_ctx {
    cs_calib *c;
    const double *start;      /* start values of all parameters */
    double f[2];              /* bandwidth and latency factors */
    int which;                /* the factor being fitted */
    double *th;               /* scratch: all parameter values */
} scale_ctx;

static int is_bw_param(const cs_calib *c, int i)
{
    int k;
    if (i == c->p_chan)
        return 1;
    for (k = 0; k < c->n_cls; k++)
        if (c->cls[k].p_bw == i)
            return 1;
    return 0;
}

static int is_lat_param(const cs_calib *c, int i)
{
    int k;
    for (k = 0; k < c->n_cls; k++)
        if (c->cls[k].p_lat == i)
            return 1;
    for (k = 0; k < CS_PROTO_COUNT; k++)
        if (c->p_hop[k] == i)
            return 1;
    for (k = 0; k < CS_TR_COUNT; k++)
        if (c->p_tr_lat[k] == i || c->p_tr_msg[k] == i)
            return 1;
    return i == c->p_launch;
}

static void scaled(const cs_calib *c, const double *start, const double *f, double *th)
{
    int i;
    for (i = 0; i < c->n_par; i++) {
        const cs_fit_param *p = &c->par[i];
        double v = start[i];
        if (!p->is_fixed && is_bw_param(c, i))
            v *= f[0];
        else if (!p->is_fixed && is_lat_param(c, i))
            v *= f[1];
        th[i] = p->is_fixed ? p->value : v < p->lo ? p->lo : v > p->hi ? p->hi : v;
    }
}

static int scale_model(void *ctx, const double *f, double *pred, cs_err *err)
{
    scale_ctx *s = ctx;
    s->f[s->which] = f[0];
    scaled(s->c, s->start, s->f, s->th);
    return model(s->c, s->th, pred, err);
}

static int scale_model_pinned(void *ctx, const double *f, double *pred, cs_err *err)
{
    scale_ctx *s = ctx;
    s->f[s->which] = f[0];
    scaled(s->c, s->start, s->f, s->th);
    return model_pinned(s->c, s->th, pred, err);
}

/* Fit factor `which` on the rows with size in [lo, hi] (at least two of them). */
static int prefit_one(scale_ctx *sc, int which, uint64_t lo, uint64_t hi, int max_iter,
                      cs_err *err)
{
    cs_calib *c = sc->c;
    cs_lset *all = c->ls, sub = *all;
    cs_fit_param f;
    cs_fit_result fr;
    cs_fit_opts fo = {max_iter, 0, 0, scale_model_pinned};
    double *obs;
    int i, rc;
    if (!(sub.rows = malloc((size_t)all->n_rows * sizeof *sub.rows)) ||
        !(obs = malloc((size_t)all->n_rows * sizeof *obs))) {
        free(sub.rows);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    sub.n_rows = 0;
    for (i = 0; i < all->n_rows; i++)
        if (all->rows[i].size_bytes >= lo && all->rows[i].size_bytes <= hi) {
            obs[sub.n_rows] = all->rows[i].measured_us;
            sub.rows[sub.n_rows++] = all->rows[i];
        }
    rc = 0;
    if (sub.n_rows >= 2) {
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, which ? "latency factor" : "bandwidth factor");
        f.value = 1;
        f.lo = 1e-2;
        f.hi = 1e2;
        sc->which = which;
        c->ls = &sub;
        rc = cs_fit_run(&f, 1, obs, sub.n_rows, scale_model, sc, &fo, &fr, err);
        c->n_pinned += fr.n_jac_evals;
        c->ls = all;
        if (rc == 0)
            sc->f[which] = f.value;
    }
    free(sub.rows);
    free(obs);
    return rc;
}

/* Sum of squared log errors of every row at parameter values th. */
static int cost_th(cs_calib *c, const double *th, double *cost, cs_err *err)
{
    double *pred = malloc(((size_t)c->ls->n_rows + 1) * sizeof *pred);
    int i, rc;
    if (!pred)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    rc = model(c, th, pred, err);
    for (i = 0, *cost = 0; rc == 0 && i < c->ls->n_rows; i++) {
        double d = log(pred[i]) - log(c->ls->rows[i].measured_us);
        *cost += d * d;
    }
    free(pred);
    return rc;
}

/* The two factors, kept only where they bring the whole fit closer than the start does (a
 * start already near the logs can be thrown into a worse basin by factors fitted on the
 * small and the large sizes apart). */
static int prefit(cs_calib *c, const double *start, int max_iter, cs_err *err)
{
    double th[64], th0[64], cost0, cost1;
    static const double one[2] = {1.0, 1.0};
    scale_ctx sc = {c, start, {1.0, 1.0}, 0, th};
    int i, rc;
    scaled(c, start, one, th0);
    if ((rc = cost_th(c, th0, &cost0, err)) < 0 ||
        (rc = prefit_one(&sc, 1, 1, 64u << 10, max_iter, err)) < 0 ||
        (rc = prefit_one(&sc, 0, 1u << 20, UINT64_MAX, max_iter, err)) < 0)
        return rc;
    scaled(c, start, sc.f, th);
    if ((rc = cost_th(c, th, &cost1, err)) < 0)
        return rc;
    for (i = 0; i < c->n_par; i++)
        c->par[i].value = cost1 <= cost0 ? th[i] : th0[i];
    return 0;
}

/* --fix a,b,c: hold those parameters. */
static int apply_fix(cs_calib *c, const char *list, cs_err *err)
{
    char buf[1024], *tok, *save = NULL;
    int i;
    snprintf(buf, sizeof buf, "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        for (i = 0; i < c->n_par; i++)
            if (!strcmp(c->par[i].name, tok)) {
                c->par[i].is_fixed = 1;
                c->held[i] = CS_CALIB_HELD_FIX;
                break;
            }
        if (i == c->n_par) {
            char known[2048] = "";
            for (i = 0; i < c->n_par; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         i ? ", " : "", c->par[i].name);
            return cs_err_set(err, CS_EUSAGE, "--fix", "unknown parameter '%s' (known: %s)",
                              tok, known);
        }
    }
    return 0;
}

/* Which measurement would determine parameter i. */
const char *cs_calib_hint(const cs_calib *c, int i)
{
    int k;
    if (i == c->p_gamma)
        return "a broadcast, allgather or sendrecv log beside the reducing one separates "
               "link bandwidth from reduction cost";
    if (i == c->p_launch)
        return "sizes <= 64 KiB: the launch cost is the floor of the smallest sizes";
    if (i == c->p_chan)
        return "sizes >= 1 MiB on a run whose links are not the bound (or one with fewer "
               "channels, NCCL_MAX_NCHANNELS)";
    if (i == c->p_nvls)
        return "large allreduce sizes with NVLS on beside a run with NCCL_ALGO=Ring";
    for (k = 0; k < CS_TR_COUNT; k++)
        if (i == c->p_tr_lat[k] || i == c->p_tr_msg[k])
            return "mid sizes (1-256 MiB) across this transport, where its per-step and "
                   "per-message costs, not its bandwidth, bound the time";
    for (k = 0; k < CS_PROTO_COUNT; k++) {
        if (i == c->p_hop[k])
            return k == CS_PROTO_SIMPLE
                ? "mid sizes (64 KiB - 1 MiB) with more ranks or hops: Simple's per-transfer "
                  "latency adds to the link latency on every route"
                : "sizes where this protocol is chosen, or a log run with NCCL_PROTO set to it";
        if (i == c->p_eff[k])
            return "a log run with NCCL_PROTO set to this protocol, or sizes where it is "
                   "chosen beside Simple's";
    }
    for (k = 0; k < c->n_cls; k++) {
        if (i == c->cls[k].p_bw)
            return "sizes >= 1 MiB on ranks whose routes cross this link class alone (a "
                   "broadcast or sendrecv log separates link bandwidth from reduction cost)";
        if (i == c->cls[k].p_lat)
            return "sizes <= 64 KiB on ranks whose routes cross this link class, at more "
                   "than one rank count (latency per hop against the launch cost)";
    }
    return "more sizes or another collective";
}

/* A fitted value pinned at a bound: -1 lower, 1 upper, 0 inside. */
int cs_calib_at_bound(const cs_fit_param *p)
{
    double span = log(p->hi) - log(p->lo), x = log(p->value);
    if (p->is_fixed)
        return 0;
    return x - log(p->lo) < 1e-3 * span ? -1 : log(p->hi) - x < 1e-3 * span ? 1 : 0;
}

/* The "nccl" object of the calibrated topology, with what it was fitted on. */
json_t *cs_calib_nccl_json(const cs_calib *c, const cs_calib_opts *o)
{
    json_t *n = json_object(), *protos = json_object(), *cal_o = json_object();
    json_t *logs = json_array(), *pars = json_object();
    double med, mean, max;
    int i;
    json_object_set_new(n, "version", json_string(c->np->version));
    json_object_set_new(n, "launch_us", cs_json_num(c->np->launch_us));
    json_object_set_new(n, "channels", json_integer(c->np->channels));
    json_object_set_new(n, "channel_GBps", cs_json_num(c->np->channel_GBps));
    json_object_set_new(n, "nvls", json_boolean(c->np->nvls));
    json_object_set_new(n, "nvls_eff", cs_json_num(c->np->nvls_eff));
    json_object_set_new(n, "nvls_lat_us", cs_json_num(c->np->nvls_lat_us));
    json_object_set_new(n, "max_chunks", json_integer(c->np->max_chunks));
    if (c->np->force_proto >= 0)
        json_object_set_new(n, "proto", json_string(cs_proto_name((cs_proto)c->np->force_proto)));
    for (i = 0; i < CS_PROTO_COUNT; i++) {
        const cs_nccl_proto *q = &c->np->proto[i];
        json_t *p = json_object();
        json_object_set_new(p, "enabled", json_boolean(q->enabled));
        json_object_set_new(p, "base_us", cs_json_num(q->base_us));
        json_object_set_new(p, "hop_us", cs_json_num(q->hop_us));
        json_object_set_new(p, "bw_eff", cs_json_num(q->bw_eff));
        json_object_set_new(p, "chunk_bytes", json_integer((json_int_t)q->chunk_bytes));
        json_object_set_new(p, "channel_bytes", json_integer((json_int_t)q->channel_bytes));
        json_object_set_new(protos, cs_proto_name((cs_proto)i), p);
    }
    json_object_set_new(n, "protocols", protos);
    {
        json_t *trs = json_object();
        for (i = 0; i < CS_TR_COUNT; i++) {
            const cs_transport_costs *q = &c->np->tr[i];
            json_t *to;
            if (!(q->lat_us > 0 || q->bw_eff > 0 || q->msg_us > 0 || q->msg_bytes ||
                  c->np->flush_us[i] > 0))
                continue;
            to = json_object();
            json_object_set_new(to, "lat_us", cs_json_num(q->lat_us));
            if (c->np->flush_us[i] > 0)
                json_object_set_new(to, "flush_us", cs_json_num(c->np->flush_us[i]));
            if (q->bw_eff > 0)
                json_object_set_new(to, "bw_eff", cs_json_num(q->bw_eff));
            json_object_set_new(to, "msg_us", cs_json_num(q->msg_us));
            json_object_set_new(to, "msg_bytes", json_integer((json_int_t)q->msg_bytes));
            json_object_set_new(trs, cs_transport_name((cs_transport)i), to);
        }
        if (json_object_size(trs))
            json_object_set_new(n, "transports", trs);
        else
            json_decref(trs);
    }
    for (i = 0; i < o->n_logs; i++)
        json_array_append_new(logs, json_string(cs_lset_basename(o->logs[i])));
    json_object_set_new(cal_o, "tool", json_string("collsim calibrate"));
    json_object_set_new(cal_o, "start_topology", json_string(o->topo_spec));
    json_object_set_new(cal_o, "logs", logs);
    json_object_set_new(cal_o, "rows", json_integer(c->ls->n_rows));
    json_object_set_new(cal_o, "min_bytes", json_integer((json_int_t)o->ls->min_bytes));
    if (o->ls->max_bytes)
        json_object_set_new(cal_o, "max_bytes", json_integer((json_int_t)o->ls->max_bytes));
    if (o->ls->parity)
        json_object_set_new(cal_o, "sizes", json_string(o->ls->parity == 1 ? "odd" : "even"));
    json_object_set_new(cal_o, "rms_log_error", cs_json_num(c->fr.rms_log));
    cs_lset_stats(c->ls, 0, &med, &mean, &max);
    json_object_set_new(cal_o, "median_abs_error_pct", cs_json_num(med));
    json_object_set_new(cal_o, "max_abs_error_pct", cs_json_num(max));
    for (i = 0; i < c->n_par; i++) {
        const cs_fit_param *p = &c->par[i];
        json_t *v = json_object();
        json_object_set_new(v, "value", cs_json_num(p->value));
        if (cs_calib_at_bound(p))
            json_object_set_new(v, "at_bound", json_string(cs_calib_at_bound(p) < 0 ? "lower" : "upper"));
        if (c->held[i] == CS_CALIB_HELD_UNDETERMINED) {
            json_object_set_new(v, "held", json_string("not determined by these logs"));
            json_object_set_new(v, "determined_by", json_string(cs_calib_hint(c, i)));
        } else if (c->held[i] == CS_CALIB_HELD_FIX)
            json_object_set_new(v, "held", json_string("--fix"));
        else if (isfinite(p->sigma))
            json_object_set_new(v, "sigma", cs_json_num(p->sigma));
        if (c->uncertain[i])
            json_object_set_new(v, "uncertain", json_string("relative uncertainty over 50%, "
                                                            "but the logs reject its start"));
        json_object_set_new(pars, p->name, v);
    }
    json_object_set_new(cal_o, "parameters", pars);
    json_object_set_new(n, "calibration", cal_o);
    return n;
}

void cs_calib_fini(cs_calib *c)
{
    int i;
    for (i = 0; i < c->n_cls; i++) {
        free(c->cls[i].links);
        free(c->cls[i].bw0);
        free(c->cls[i].lat0);
    }
    free(c->cls);
}

/* One round of the fit, the parameters in held[] held at their start values. Cold: from the
 * start values, the common-factor pre-fit first. Warm: from the current values. */
static int fit_round(cs_calib *c, const double *ob, int max_iter, int warm, cs_err *err)
{
    cs_fit_opts fo = {0, 0, 0, model_pinned};
    int i, rc;
    for (i = 0; i < c->n_par; i++) {
        cs_fit_param *p = &c->par[i];
        double v = warm ? p->value : c->fit_start[i];
        p->value = c->held[i] != CS_CALIB_FREE ? c->start[i] : v < p->lo ? p->lo
                 : v > p->hi ? p->hi : v;
        p->is_fixed = c->held[i] != CS_CALIB_FREE;
        p->was_unidentified = 0;
    }
    fo.max_iter = max_iter;
    if (!warm && (rc = prefit(c, c->fit_start, max_iter, err)) < 0)
        return rc;
    for (i = 0; i < c->n_par; i++)      /* held means unchanged: the pre-fit skips them */
        if (c->held[i] != CS_CALIB_FREE)
            c->par[i].value = c->start[i];
    c->n_rounds++;
    rc = cs_fit_run(c->par, c->n_par, ob, c->ls->n_rows, model, c, &fo, &c->fr, err);
    c->n_pinned += c->fr.n_jac_evals;
    return rc;
}

/* A fitted parameter the logs may not determine: the fit could not tell it apart from the
 * others, no time depends on it at the end, or its relative uncertainty exceeds 50%. */
static int undetermined(const cs_fit_param *p)
{
    return p->was_unidentified || !isfinite(p->sigma) || p->sigma > 0.5 * p->value;
}

static double rel_sigma(const cs_fit_param *p)
{
    return p->was_unidentified || !isfinite(p->sigma) ? INFINITY : p->sigma / p->value;
}

/* The state of a fit, to go back to after a trial. */
typedef struct calib_snap {
    cs_fit_param par[64];
    cs_calib_held held[64];
    cs_fit_result fr;
} calib_snap;

/* Sum of squared log errors at the parameters' current values (held ones at their start). */
static int cost_now(cs_calib *c, const double *ob, double *cost, cs_err *err)
{
    double th[64], *pred = malloc(((size_t)c->ls->n_rows + 1) * sizeof *pred);
    int i, rc;
    if (!pred)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < c->n_par; i++)
        th[i] = c->held[i] != CS_CALIB_FREE ? c->start[i] : c->par[i].value;
    rc = model(c, th, pred, err);
    for (i = 0, *cost = 0; rc == 0 && i < c->ls->n_rows; i++)
        *cost += (log(pred[i]) - log(ob[i])) * (log(pred[i]) - log(ob[i]));
    free(pred);
    return rc;
}

/* Without refitting: each undetermined parameter in turn put back to its start value, kept
 * there when the cost stays within 10% (+1e-4) of cost1 (one simulation each). */
static int cheap_holds(cs_calib *c, const double *ob, double cost1, cs_err *err)
{
    int i, rc;
    for (i = 0; i < c->n_par; i++) {
        double cost = 0;
        if (c->held[i] != CS_CALIB_FREE || !undetermined(&c->par[i]))
            continue;
        c->held[i] = CS_CALIB_HELD_UNDETERMINED;
        if ((rc = cost_now(c, ob, &cost, err)) < 0)
            return rc;
        if (cost <= cost1 * 1.1 + 1e-4) {
            c->par[i].value = c->start[i];
            c->par[i].is_fixed = 1;
        } else {
            c->held[i] = CS_CALIB_FREE;
        }
    }
    return 0;
}

/* Hold what the logs do not determine. A parameter whose relative uncertainty exceeds 50%
 * (or that the fit could not tell apart) is held at its start value, and the others
 * refitted (warm), when that leaves the fit as good: the cost (sum of squared log errors)
 * stays within 10% (+1e-4) of the first fit's. Each round tries all of them at once, then
 * those the fit could not tell apart, then the least determined alone (correlated
 * parameters are undetermined each but not together); CS_CALIB_MAX_ROUNDS refits at most.
 * First, those that can go back to their start without a refit (cheap_holds).
 * One whose start value the logs reject stays fitted and is reported as uncertain. */
static int hold_undetermined(cs_calib *c, const double *ob, int max_iter, cs_err *err)
{
    calib_snap *snap = malloc(sizeof *snap);
    double cost1 = c->fr.cost;    /* the first fit's: holds may not add up past +10% */
    int i, k, rc = 0, n_fits = 0;
    if (!snap)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = cheap_holds(c, ob, cost1, err)) < 0)
        goto out;
    while (n_fits < CS_CALIB_MAX_ROUNDS) {
        int order[64], n = 0, n_unid = 0, accepted = 0, trial;
        for (i = 0; i < c->n_par; i++)
            if (c->held[i] == CS_CALIB_FREE && undetermined(&c->par[i])) {
                n_unid += c->par[i].was_unidentified;
                for (k = n++; k > 0 && rel_sigma(&c->par[order[k - 1]]) < rel_sigma(&c->par[i]);
                     k--)
                    order[k] = order[k - 1];
                order[k] = i;
            }
        if (n == 0)
            break;
        memcpy(snap->par, c->par, sizeof snap->par);
        memcpy(snap->held, c->held, sizeof snap->held);
        snap->fr = c->fr;
        /* trial -2: all of them at once; -1: the untold-apart ones together; 0: the least
         * determined alone */
        for (trial = n > 1 ? -2 : 0; trial < 1 && !accepted && n_fits < CS_CALIB_MAX_ROUNDS;
             trial++) {
            if (trial == -1 && !(n_unid > 1 && n_unid < n))
                continue;
            for (i = 0; i < c->n_par; i++)
                if (trial == -2 ? c->held[i] == CS_CALIB_FREE && undetermined(&c->par[i])
                    : trial == -1 ? c->held[i] == CS_CALIB_FREE && c->par[i].was_unidentified
                    : i == order[0])
                    c->held[i] = CS_CALIB_HELD_UNDETERMINED;
            n_fits++;
            if ((rc = fit_round(c, ob, max_iter, 1, err)) < 0)
                goto out;
            if (c->fr.cost <= cost1 * 1.1 + 1e-4) {
                accepted = 1;
                break;
            }
            memcpy(c->par, snap->par, sizeof snap->par);
            memcpy(c->held, snap->held, sizeof snap->held);
            c->fr = snap->fr;
        }
        if (!accepted)
            break;
    }
out:
    for (i = 0; i < c->n_par; i++)
        c->uncertain[i] = c->held[i] == CS_CALIB_FREE && undetermined(&c->par[i]);
    free(snap);
    return rc;
}

int cs_calib_run(cs_calib *c, cs_topo *t, cs_nccl_params *np, cs_lset *ls,
                 const cs_calib_opts *o, cs_err *err)
{
    double *ob, th[64];
    int rc, i;
    memset(c, 0, sizeof *c);
    c->t = t;
    c->np = np;
    c->ls = ls;
    c->algo = o->algo;
    if ((rc = collect_classes(c, ls->max_ranks, err)) < 0)
        return rc;
    build_params(c);
    if (o->fix && (rc = apply_fix(c, o->fix, err)) < 0)
        return rc;
    if (!(ob = malloc((size_t)ls->n_rows * sizeof *ob)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < ls->n_rows; i++)
        ob[i] = ls->rows[i].measured_us;
    for (i = 0; i < c->n_par; i++)
        c->fit_start[i] = c->par[i].value;
    if ((rc = fit_round(c, ob, o->max_iter, 0, err)) < 0 ||
        (rc = hold_undetermined(c, ob, o->max_iter, err)) < 0) {
        free(ob);
        return rc;
    }
    free(ob);
    for (i = 0; i < c->n_par; i++) {
        if (c->held[i] != CS_CALIB_FREE) {
            c->par[i].value = c->start[i];
            c->par[i].is_fixed = 1;
            c->par[i].sigma = 0;
        }
        c->par[i].was_unidentified = c->held[i] == CS_CALIB_HELD_UNDETERMINED;
        th[i] = c->par[i].value;
    }
    apply(c, th);      /* leave topology and table at the fitted values */
    if (c->p_gamma >= 0 && c->gamma0 == 0 && c->held[c->p_gamma] != CS_CALIB_FREE)
        t->reduce_GBps = 0;   /* a reduction cost the logs cannot see stays free */
    if ((rc = cs_lset_simulate(ls, t, np, o->algo, err)) < 0)
        return rc;
    for (i = 0, c->fr.cost = 0; i < ls->n_rows; i++) {
        double d = log(ls->rows[i].simulated_us) - log(ls->rows[i].measured_us);
        c->fr.cost += d * d;
    }
    c->fr.rms_log = sqrt(c->fr.cost / ls->n_rows);
    return 0;
}
