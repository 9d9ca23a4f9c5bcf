/* calib_params.c: the parameter table of a calibration (calibration layer, calibrate.h):
 * the link classes on the logs' routes, one parameter per fitted figure with its bounds,
 * putting parameter values into the topology and the NCCL table, --fix, the hints of what
 * would determine a parameter. A new parameter is declared in cs__calib_build_params
 * (its index in cs_calib, name, start value and bounds), set in cs__calib_apply, and given
 * a hint in cs_calib_hint (and a kind for the pre-fit in is_bw/is_lat_param). */
#include "calibration/calib-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int cs__calib_collect_classes(cs_calib *c, int n, cs_err *err)
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

void cs__calib_build_params(cs_calib *c)
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
    c->p_tree = np->tree_GBps > 0
        ? add_param(c, "tree_channel_GBps", np->tree_GBps, np->tree_GBps, np->tree_GBps / 100,
                    np->tree_GBps * 100)
        : -1;
    c->p_nvls = np->nvls ? add_param(c, "nvls_eff", np->nvls_eff, np->nvls_eff, 0.05, 1.0) : -1;
    /* A transport's step latency and proxy time per message, where the start sets them. */
    for (i = 0; i < CS_TR_COUNT; i++) {
        const cs_transport_costs *q = &np->tr[i];
        snprintf(nm, sizeof nm, "%s.lat_us", cs_transport_name((cs_transport)i));
        c->p_tr_lat[i] = q->lat_us > 0 ? add_param(c, nm, q->lat_us, q->lat_us, 1e-3, 1e4) : -1;
        snprintf(nm, sizeof nm, "%s.msg_us", cs_transport_name((cs_transport)i));
        c->p_tr_msg[i] = q->msg_us > 0 ? add_param(c, nm, q->msg_us, q->msg_us, 1e-3, 1e4) : -1;
        /* A rank pair's limits one way and both ways (held at the start where no row moves
         * that way: no time depends on it). */
        snprintf(nm, sizeof nm, "%s.bw_one_GBps", cs_transport_name((cs_transport)i));
        c->p_tr_one[i] = q->bw_one_GBps > 0 ? add_param(c, nm, q->bw_one_GBps, q->bw_one_GBps,
                                                        q->bw_one_GBps / 100,
                                                        q->bw_one_GBps * 100) : -1;
        snprintf(nm, sizeof nm, "%s.bw_both_GBps", cs_transport_name((cs_transport)i));
        c->p_tr_both[i] = q->bw_both_GBps > 0 ? add_param(c, nm, q->bw_both_GBps,
                                                          q->bw_both_GBps, q->bw_both_GBps / 100,
                                                          q->bw_both_GBps * 100) : -1;
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
void cs__calib_apply(cs_calib *c, const double *th)
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
    if (c->p_tree >= 0)
        c->np->tree_GBps = th[c->p_tree];
    if (c->p_nvls >= 0)
        c->np->nvls_eff = th[c->p_nvls];
    for (i = 0; i < CS_TR_COUNT; i++) {
        if (c->p_tr_lat[i] >= 0)
            c->np->tr[i].lat_us = th[c->p_tr_lat[i]];
        if (c->p_tr_msg[i] >= 0)
            c->np->tr[i].msg_us = th[c->p_tr_msg[i]];
        if (c->p_tr_one[i] >= 0)
            c->np->tr[i].bw_one_GBps = th[c->p_tr_one[i]];
        if (c->p_tr_both[i] >= 0)
            c->np->tr[i].bw_both_GBps = th[c->p_tr_both[i]];
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

int cs__calib_is_bw_param(const cs_calib *c, int i)
{
    int k;
    if (i == c->p_chan || i == c->p_tree)
        return 1;
    for (k = 0; k < CS_TR_COUNT; k++)
        if (i == c->p_tr_one[k] || i == c->p_tr_both[k])
            return 1;
    for (k = 0; k < c->n_cls; k++)
        if (c->cls[k].p_bw == i)
            return 1;
    return 0;
}

int cs__calib_is_lat_param(const cs_calib *c, int i)
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

/* --fix a,b,c: hold those parameters. */
int cs__calib_apply_fix(cs_calib *c, const char *list, cs_err *err)
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
    if (i == c->p_tree)
        return "mid sizes (1-64 MiB) of an allreduce across nodes run by NCCL's trees "
               "(NCCL_ALGO=Tree), where a tree channel's piece crosses one hop after another";
    if (i == c->p_nvls)
        return "large allreduce sizes with NVLS on beside a run with NCCL_ALGO=Ring";
    for (k = 0; k < CS_TR_COUNT; k++) {
        if (i == c->p_tr_lat[k] || i == c->p_tr_msg[k])
            return "mid sizes (1-256 MiB) across this transport, where its per-step and "
                   "per-message costs, not its bandwidth, bound the time";
        if (i == c->p_tr_one[k])
            return "a log of a collective that moves one direction at a time (broadcast, "
                   "reduce) at sizes >= 1 MiB";
        if (i == c->p_tr_both[k])
            return "a log of a collective that moves both directions at once (allreduce, "
                   "allgather, alltoall) at sizes >= 1 MiB";
    }
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

const char *cs_calib_dir_note(const cs_calib *c)
{
    int i, k, set = 0, dirs = 0;
    for (k = 0; k < CS_TR_COUNT; k++)
        set |= c->np->tr[k].bw_one_GBps > 0 || c->np->tr[k].bw_both_GBps > 0 ||
               c->p_tr_one[k] >= 0 || c->p_tr_both[k] >= 0;
    if (!set)
        return NULL;
    /* Which ways the rows move: 1 one direction at a time (a rooted collective's data
     * flow away from or towards its root), 2 both at once. */
    for (i = 0; i < c->ls->n_rows; i++)
        dirs |= cs_coll_is_rooted(c->ls->rows[i].coll) ? 1 : 2;
    if (dirs == 2)
        return "these logs move both directions at once; one-directional collectives "
               "(broadcast, reduce, gather, scatter) rest on the start value of bw_one_GBps "
               "(and the links'): their predictions carry the start value's uncertainty, "
               "not the fit's, at least +-20%";
    if (dirs == 1)
        return "these logs move one direction at a time; collectives that move both at once "
               "(allreduce, allgather, reducescatter, alltoall, sendrecv) rest on the start "
               "value of bw_both_GBps: their predictions carry the start value's "
               "uncertainty, not the fit's, at least +-20%";
    return NULL;
}
