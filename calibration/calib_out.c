/* calib_out.c: writing a calibrated topology (cli layer, a save edge). The original JSON of
 * the topology is kept and every link spec ({"class", "bandwidth_GBps", "latency_us"}) gets
 * the fitted figures of its class; the "nccl" object is replaced. The result is loaded back
 * and compared link by link; when the original cannot carry the figures (a kind that
 * refers to another preset, link specs without a class), an explicit "graph" topology with
 * the same nodes, links, ranks and (up to 64 ranks) routes is written instead. */
#include "calibration/logsim.h"
#include "calibration/calibrate.h"
#include "sim/report.h"
#include "topologies/topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#define GRAPH_ROUTE_RANKS 64   /* write explicit routes for topologies up to this size */

/* Fitted figures of a link class in t: those of its first link; 0 if none. */
static int class_figures(const cs_topo *t, const char *cls, double *bw, double *lat)
{
    int i;
    if (t->model == CS_MODEL_ALPHA_BETA) {
        *bw = t->ab_bw_GBps;
        *lat = t->ab_lat_us;
        return 1;
    }
    for (i = 0; i < t->n_links; i++)
        if (!strcmp(t->links[i].cls, cls)) {
            *bw = t->links[i].bw_GBps;
            *lat = t->links[i].lat_us;
            return 1;
        }
    return 0;
}

/* Put the figures into every link spec under v (the "nccl" object excluded). */
static void rewrite(json_t *v, const cs_topo *t)
{
    const char *key;
    json_t *val;
    size_t i;
    if (json_is_array(v)) {
        json_array_foreach(v, i, val)
            rewrite(val, t);
        return;
    }
    if (!json_is_object(v))
        return;
    if (json_object_get(v, "bandwidth_GBps") || json_object_get(v, "latency_us") ||
        json_is_string(json_object_get(v, "class"))) {
        json_t *c = json_object_get(v, "class");
        double bw, lat;
        json_t *nl = json_object_get(v, "links");
        if (class_figures(t, json_is_string(c) ? json_string_value(c) : "generic", &bw, &lat)) {
            /* a node's "nvlink" spec gives one of "links" parallel links */
            if (json_is_integer(nl) && json_integer_value(nl) > 0)
                bw /= (double)json_integer_value(nl);
            json_object_set_new(v, "bandwidth_GBps", json_real(bw));
            json_object_set_new(v, "latency_us", json_real(lat));
        }
    }
    json_object_foreach(v, key, val)
        if (strcmp(key, "nccl"))
            rewrite(val, t);
}

/* Does the topology in text reproduce t's links? */
static int same_links(const char *text, const cs_topo *t)
{
    cs_topo *u = NULL;
    cs_err e;
    int i, ok;
    if (cs_topo_load_string(text, "calibrated", &u, &e) < 0)
        return 0;
    ok = u->n_links == t->n_links && u->model == t->model;
    if (ok && t->model == CS_MODEL_ALPHA_BETA)
        ok = fabs(u->ab_bw_GBps - t->ab_bw_GBps) <= 1e-6 * t->ab_bw_GBps &&
             fabs(u->ab_lat_us - t->ab_lat_us) <= 1e-6 * (t->ab_lat_us + 1e-9);
    for (i = 0; ok && i < t->n_links; i++)
        ok = !strcmp(u->links[i].cls, t->links[i].cls) &&
             fabs(u->links[i].bw_GBps - t->links[i].bw_GBps) <= 1e-6 * t->links[i].bw_GBps &&
             fabs(u->links[i].lat_us - t->links[i].lat_us) <= 1e-6 * (t->links[i].lat_us + 1e-9);
    cs_topo_free(u);
    return ok;
}

/* An explicit graph of t. */
static json_t *graph_of(const cs_topo *t, const json_t *orig)
{
    json_t *g = json_object(), *nodes = json_array(), *links = json_array(), *ranks = json_array();
    int i, j;
    json_object_set_new(g, "kind", json_string("graph"));
    if (json_object_get(orig, "name"))
        json_object_set(g, "name", json_object_get(orig, "name"));
    if (json_object_get(orig, "sources"))
        json_object_set(g, "sources", json_object_get(orig, "sources"));
    for (i = 0; i < t->n_nodes; i++) {
        json_t *n = json_object();
        json_object_set_new(n, "name", json_string(t->nodes[i].name));
        json_object_set_new(n, "type", json_string(cs_node_type_name(t->nodes[i].type)));
        if (t->nodes[i].group >= 0)
            json_object_set_new(n, "group", json_integer(t->nodes[i].group));
        if (t->nodes[i].can_reduce) {
            /* A switch that reduces says so, or NCCL mode refuses the file's "nvls": NVLink
             * SHARP when its links are NVLink, InfiniBand SHARP otherwise. */
            int nv = 0;
            for (j = 0; j < t->n_links && !nv; j++)
                nv = (t->links[j].a == i || t->links[j].b == i) &&
                     !strncmp(t->links[j].cls, "nvlink", 6);
            json_object_set_new(n, nv ? "nvls" : "sharp", json_true());
        }
        json_array_append_new(nodes, n);
    }
    for (i = 0; i < t->n_links; i++) {
        json_t *l = json_object();
        json_object_set_new(l, "from", json_string(t->nodes[t->links[i].a].name));
        json_object_set_new(l, "to", json_string(t->nodes[t->links[i].b].name));
        json_object_set_new(l, "class", json_string(t->links[i].cls));
        json_object_set_new(l, "bandwidth_GBps", json_real(t->links[i].bw_GBps));
        json_object_set_new(l, "latency_us", json_real(t->links[i].lat_us));
        json_array_append_new(links, l);
    }
    for (i = 0; i < t->n_ranks; i++)
        json_array_append_new(ranks, json_string(t->nodes[t->ranks[i]].name));
    json_object_set_new(g, "nodes", nodes);
    json_object_set_new(g, "links", links);
    json_object_set_new(g, "ranks", ranks);
    if (t->n_ranks <= GRAPH_ROUTE_RANKS) {
        json_t *routes = json_array();
        for (i = 0; i < t->n_ranks; i++)
            for (j = 0; j < t->n_ranks; j++) {
                const int32_t *dl;
                int n = i == j ? 0 : cs_topo_route(t, t->ranks[i], t->ranks[j], &dl, NULL), k;
                json_t *r, *path;
                if (n <= 1)
                    continue;      /* direct neighbours and self need no route */
                r = json_object();
                path = json_array();
                json_array_append_new(path, json_string(t->nodes[t->ranks[i]].name));
                for (k = 0; k < n; k++)
                    json_array_append_new(path, json_string(t->nodes[cs_dlink_to(t, dl[k])].name));
                json_object_set_new(r, "from", json_string(t->nodes[t->ranks[i]].name));
                json_object_set_new(r, "to", json_string(t->nodes[t->ranks[j]].name));
                json_object_set_new(r, "path", path);
                json_array_append_new(routes, r);
            }
        json_object_set_new(g, "routes", routes);
    }
    return g;
}

/* The reduction throughput (gamma) as the topology now has it; absent = free. */
static void set_reduce(json_t *root, const cs_topo *t)
{
    if (t->reduce_GBps > 0)
        json_object_set_new(root, "reduce_GBps", json_real(t->reduce_GBps));
    else
        json_object_del(root, "reduce_GBps");
}

static void add_description(json_t *root, const json_t *orig, const char *add)
{
    const char *d = json_string_value(json_object_get(orig, "description"));
    size_t n = (d ? strlen(d) + 1 : 0) + strlen(add) + 1;
    char *s = malloc(n);
    if (!s)
        return;
    snprintf(s, n, "%s%s%s", d ? d : "", d ? " " : "", add);
    json_object_set_new(root, "description", json_string(s));
    free(s);
}

int cs_calib_topology_json(const char *spec, const cs_topo *t, struct json_t *nccl,
                           const char *description_add, char **out, cs_err *err)
{
    const cs_preset *pr = cs_preset_find(spec);
    json_error_t je;
    json_t *orig = pr ? json_loads(pr->json, 0, &je) : json_load_file(spec, 0, &je), *root;
    char *text = NULL;
    int rc = 0;
    *out = NULL;
    if (!orig) {
        json_decref(nccl);
        return cs_err_set(err, CS_EPARSE, spec, "cannot re-read the topology: %s", je.text);
    }
    root = json_deep_copy(orig);
    rewrite(root, t);
    set_reduce(root, t);
    json_object_set(root, "nccl", nccl);
    add_description(root, orig, description_add);
    text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    if (text && !same_links(text, t)) {
        free(text);
        json_decref(root);
        root = graph_of(t, orig);
        set_reduce(root, t);
        json_object_set(root, "nccl", nccl);
        add_description(root, orig, description_add);
        text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
        if (text && !same_links(text, t)) {
            free(text);
            text = NULL;
            rc = cs_err_set(err, CS_ESTATE, spec, "cannot express the calibrated topology "
                            "as JSON that loads back to the same links");
            goto out;
        }
    }
    if (!text) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    *out = text;
out:
    json_decref(root);
    json_decref(orig);
    json_decref(nccl);
    return rc;
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
    /* A PCIe host's channel plan that stayed per rank count (logs of several, calibrate.c)
     * is written as it is, NCCL's search's on the start's figures (search.c). */
    if (c->np->plan_n > 0) {
        json_t *plan = json_array();
        for (i = 2; i <= c->np->plan_n; i++)
            if (c->np->plan_ch[i])
                json_array_append_new(plan, json_pack("{s:i, s:i, s:o}", "ranks", i,
                                                      "channels", (int)c->np->plan_ch[i],
                                                      "channel_GBps",
                                                      cs_json_num(c->np->plan_GBps[i])));
        json_object_set_new(n, "channel_plan", plan);
    } else {
        json_object_set_new(n, "channels", json_integer(c->np->channels));
        json_object_set_new(n, "channel_GBps", cs_json_num(c->np->channel_GBps));
    }
    if (c->np->sm > 0)
        json_object_set_new(n, "sm", json_integer(c->np->sm));
    if (c->np->tree_GBps > 0)
        json_object_set_new(n, "tree_channel_GBps", cs_json_num(c->np->tree_GBps));
    json_object_set_new(n, "nvls", json_boolean(c->np->nvls));
    json_object_set_new(n, "nvls_eff", cs_json_num(c->np->nvls_eff));
    json_object_set_new(n, "nvls_lat_us", cs_json_num(c->np->nvls_lat_us));
    if (c->np->nvls)
        json_object_set_new(n, "nvls_net_lat_us", cs_json_num(c->np->nvls_net_lat_us));
    if (c->np->net_channels > 0)
        json_object_set_new(n, "net_channels", json_integer(c->np->net_channels));
    if (c->np->p2p_channels > 0)
        json_object_set_new(n, "p2p_channels", json_integer(c->np->p2p_channels));
    if (c->np->p2p_given)
        json_object_set_new(n, "p2p_channel_GBps", cs_json_num(c->np->p2p_GBps));
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
                  q->eager_bytes || c->np->flush_us[i] > 0 || q->bw_one_GBps > 0 ||
                  q->bw_both_GBps > 0))
                continue;
            to = json_object();
            json_object_set_new(to, "lat_us", cs_json_num(q->lat_us));
            if (c->np->flush_us[i] > 0)
                json_object_set_new(to, "flush_us", cs_json_num(c->np->flush_us[i]));
            if (q->bw_eff > 0)
                json_object_set_new(to, "bw_eff", cs_json_num(q->bw_eff));
            json_object_set_new(to, "msg_us", cs_json_num(q->msg_us));
            json_object_set_new(to, "msg_bytes", json_integer((json_int_t)q->msg_bytes));
            if (q->eager_bytes) {
                json_object_set_new(to, "eager_bytes", json_integer((json_int_t)q->eager_bytes));
                json_object_set_new(to, "eager_lat_us", cs_json_num(q->eager_lat_us));
                json_object_set_new(to, "eager_msg_us", cs_json_num(q->eager_msg_us));
            }
            if (q->bw_one_GBps > 0)
                json_object_set_new(to, "bw_one_GBps", cs_json_num(q->bw_one_GBps));
            if (q->bw_both_GBps > 0)
                json_object_set_new(to, "bw_both_GBps", cs_json_num(q->bw_both_GBps));
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
    if (cs_calib_dir_note(c))
        json_object_set_new(cal_o, "directions", json_string(cs_calib_dir_note(c)));
    json_object_set_new(n, "calibration", cal_o);
    return n;
}
