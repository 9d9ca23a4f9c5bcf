/* load.c: a topology's "nccl" object to NCCL-mode parameters (algorithms/nccl). The
 * topology loader carries the object through (cs_topo_section_get); it is read here.
 *   "nccl": {"version": "2.30.7", "launch_us": 3.5, "channels": 1, "channel_GBps": 0, "sm": 0,
 *            "net_channels": 0,
 *            "channel_plan": [{"ranks": 2, "channels": 2, "channel_GBps": 6}, ...],
 *            "tree_channel_GBps": 0,
 *            "max_chunks": 8, "nvls": false, "nvls_eff": 0.85, "nvls_lat_us": 25,
 *            "nvls_net_lat_us": 20.9,
 *            "proto": "auto" | "LL" | "LL128" | "Simple",
 *            "protocols": {"Simple": {"enabled": true, "base_us": 8.4, "hop_us": 2.8,
 *                                     "bw_eff": 1.0, "chunk_bytes": 2097152,
 *                                     "channel_bytes": 32768}, ...},
 *            "transports": {"p2p": {"enabled": true, ...}, "shm": {...},
 *                           "net": {"lat_us": 0, "flush_us": 0, "bw_eff": 1, "msg_us": 0,
 *                                   "msg_bytes": 524288, "eager_bytes": 0,
 *                                   "eager_lat_us": 0, "eager_msg_us": 0}},
 *            "calibration": {...}}
 * Every key is optional and overrides the table of "version" (default: the newest).
 * "calibration" records what `collsim calibrate` fitted; it is kept as written and not
 * read. Strict: unknown keys and bad values are errors with their JSON path. */
#include "algorithms/nccl/nccl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "sim/json.h"
#include "sim/limits.h"
#include "topologies/topology.h"

static int read_proto(json_t *obj, const char *where, cs_nccl_proto *q, cs_err *err)
{
    static const char *const keys[] = {"enabled", "base_us", "hop_us", "bw_eff",
                                       "chunk_bytes", "channel_bytes", NULL};
    char path[CS_JPATH_MAX];
    long chunk = (long)q->chunk_bytes, chb = (long)q->channel_bytes;
    int rc;
    if (!json_is_object(obj))
        return cs_err_set(err, CS_EINVAL, where, "expected an object, got %s",
                          cs_json_type_name(obj));
    if ((rc = cs_json_check_keys(obj, where, keys, NULL, err)) < 0 ||
        (rc = cs_json_bool(obj, where, "enabled", 0, &q->enabled, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "base_us", 0, &q->base_us, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "hop_us", 0, &q->hop_us, err)) < 0 ||
        (rc = cs_json_positive(obj, where, "bw_eff", 0, &q->bw_eff, err)) < 0 ||
        (rc = cs_json_int(obj, where, "chunk_bytes", 0, 1, 1L << 40, &chunk, err)) < 0 ||
        (rc = cs_json_int(obj, where, "channel_bytes", 0, 1, 1L << 40, &chb, err)) < 0)
        return rc;
    q->chunk_bytes = (uint64_t)chunk;
    q->channel_bytes = (uint64_t)chb;
    if (q->bw_eff > 1) {
        cs_jpath_key(path, sizeof path, where, "bw_eff");
        return cs_err_set(err, CS_EINVAL, path, "must be in (0, 1], got %g", q->bw_eff);
    }
    return 0;
}

/* One transport's object: {"enabled", "lat_us", "flush_us", "bw_eff", "msg_us", "msg_bytes",
 * "eager_bytes", "eager_lat_us", "eager_msg_us", "bw_one_GBps", "bw_both_GBps"}, all
 * optional; "enabled" and the last two on p2p and shm only (NCCL_P2P_DISABLE /
 * NCCL_SHM_DISABLE; a rank pair's limits within a host; net is the only transport between
 * hosts and its limits are its NICs'); the two eager times only with "eager_bytes". */
static int read_transport(json_t *obj, const char *where, cs_transport_costs *q,
                          double *flush_us, unsigned char *off, int pair_ok, cs_err *err)
{
    static const char *const keys[] = {"enabled", "lat_us", "flush_us", "bw_eff", "msg_us",
                                       "msg_bytes", "eager_bytes", "eager_lat_us",
                                       "eager_msg_us", "bw_one_GBps", "bw_both_GBps", NULL};
    static const char *const pair_keys[] = {"enabled", "bw_one_GBps", "bw_both_GBps"};
    char path[CS_JPATH_MAX];
    long mb = (long)q->msg_bytes, eb = (long)q->eager_bytes;
    int rc, on = !*off;
    if (!json_is_object(obj))
        return cs_err_set(err, CS_EINVAL, where, "expected an object, got %s",
                          cs_json_type_name(obj));
    if ((rc = cs_json_check_keys(obj, where, keys, NULL, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "lat_us", 0, &q->lat_us, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "flush_us", 0, flush_us, err)) < 0 ||
        (rc = cs_json_positive(obj, where, "bw_eff", 0, &q->bw_eff, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "msg_us", 0, &q->msg_us, err)) < 0 ||
        (rc = cs_json_int(obj, where, "msg_bytes", 0, 0, 1L << 40, &mb, err)) < 0 ||
        (rc = cs_json_int(obj, where, "eager_bytes", 0, 0, 1L << 40, &eb, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "eager_lat_us", 0, &q->eager_lat_us, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "eager_msg_us", 0, &q->eager_msg_us, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "bw_one_GBps", 0, &q->bw_one_GBps, err)) < 0 ||
        (rc = cs_json_nonneg(obj, where, "bw_both_GBps", 0, &q->bw_both_GBps, err)) < 0 ||
        (rc = cs_json_bool(obj, where, "enabled", 0, &on, err)) < 0)
        return rc;
    *off = !on;
    for (rc = 0; rc < 3 && !pair_ok; rc++)
        if (json_object_get(obj, pair_keys[rc])) {
            cs_jpath_key(path, sizeof path, where, pair_keys[rc]);
            return cs_err_set(err, CS_EINVAL, path, rc ? "a rank pair's limit within a host: "
                              "p2p and shm only (net's is its NICs' bandwidth)" : "p2p and "
                              "shm only (net, the transport between hosts, cannot be off)");
        }
    q->msg_bytes = (uint64_t)mb;
    q->eager_bytes = (uint64_t)eb;
    for (rc = 0; rc < 2 && !eb; rc++)
        if (json_object_get(obj, rc ? "eager_msg_us" : "eager_lat_us")) {
            cs_jpath_key(path, sizeof path, where, rc ? "eager_msg_us" : "eager_lat_us");
            return cs_err_set(err, CS_EINVAL, path, "an eager message's figure: needs "
                              "eager_bytes >= 1 (the size up to which a message is eager)");
        }
    if (q->bw_eff > 1) {
        cs_jpath_key(path, sizeof path, where, "bw_eff");
        return cs_err_set(err, CS_EINVAL, path, "must be in (0, 1], got %g", q->bw_eff);
    }
    return 0;
}

/* "channel_plan": [{"ranks": n, "channels": c, "channel_GBps": x}, ...]: a PCIe host's
 * channel plan per rank count, as calibrate writes NCCL's search's (search.c) when its logs
 * had several rank counts; in place of the search. */
static int read_plan(json_t *arr, cs_nccl_params *out, cs_err *err)
{
    static const char *const keys[] = {"ranks", "channels", "channel_GBps", NULL};
    size_t i;
    json_t *e;
    if (!json_is_array(arr))
        return cs_err_set(err, CS_EINVAL, "nccl.channel_plan", "expected an array of "
                          "{\"ranks\", \"channels\", \"channel_GBps\"}, got %s",
                          cs_json_type_a(arr));
    json_array_foreach(arr, i, e) {
        char path[CS_JPATH_MAX], key[CS_JPATH_MAX];
        long n, c;
        double gbps;
        int rc;
        cs_jpath_idx(path, sizeof path, "nccl.channel_plan", i);
        if ((rc = cs_json_check_keys(e, path, keys, NULL, err)) < 0 ||
            (rc = cs_json_int(e, path, "ranks", 1, 2, CS_NCCL_PLAN_MAX, &n, err)) < 0 ||
            (rc = cs_json_int(e, path, "channels", 1, 1, 64, &c, err)) < 0 ||
            (rc = cs_json_nonneg(e, path, "channel_GBps", 1, &gbps, err)) < 0)
            return rc;
        cs_jpath_key(key, sizeof key, path, "channel_GBps");
        if ((rc = cs_limit_check_or0(gbps, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS, "GB/s",
                                     "no cap", key, err)) < 0)
            return rc;
        out->plan_ch[n] = (unsigned char)c;
        out->plan_GBps[n] = gbps;
        if (n > out->plan_n)
            out->plan_n = (int)n;
    }
    return 0;
}

int cs_nccl_params_from_json(struct json_t *nccl, cs_nccl_params *out, cs_err *err)
{
    static const char *const keys[] = {"version", "launch_us", "channels", "channel_GBps", "sm",
                                       "channel_plan", "net_channels",
                                       "tree_channel_GBps", "p2p_channel_GBps", "p2p_channels",
                                       "max_chunks", "nvls", "nvls_eff", "nvls_lat_us",
                                       "nvls_net_lat_us",
                                       "proto", "protocols", "transports", "algo",
                                       "calibration", NULL};
    const char *version = NULL, *proto = NULL, *algo = NULL;
    json_t *protos = NULL, *cal = NULL, *trs = NULL;
    long channels, max_chunks, sm = 0, net_channels = 0, p2p_channels = 0;
    int rc, i;
    cs_nccl_params_default(out);
    if (!json_is_object(nccl))
        return cs_err_set(err, CS_EINVAL, "nccl", "expected an object, got %s",
                          cs_json_type_name(nccl));
    if ((rc = cs_json_check_keys(nccl, "nccl", keys, NULL, err)) < 0 ||
        (rc = cs_json_string(nccl, "nccl", "version", 0, &version, err)) < 0)
        return rc;
    if (version && (rc = cs_nccl_params_version(version, out, err)) < 0)
        return rc;
    channels = out->channels;
    max_chunks = out->max_chunks;
    if ((rc = cs_json_nonneg(nccl, "nccl", "launch_us", 0, &out->launch_us, err)) < 0 ||
        (rc = cs_json_int(nccl, "nccl", "channels", 0, 1, 64, &channels, err)) < 0 ||
        (rc = cs_json_int(nccl, "nccl", "net_channels", 0, 0, 64, &net_channels, err)) < 0 ||
        (rc = cs_json_int(nccl, "nccl", "p2p_channels", 0, 0, 64, &p2p_channels, err)) < 0 ||
        (rc = cs_json_nonneg(nccl, "nccl", "channel_GBps", 0, &out->channel_GBps, err)) < 0 ||
        (rc = cs_json_nonneg(nccl, "nccl", "tree_channel_GBps", 0, &out->tree_GBps, err)) < 0 ||
        (rc = cs_json_nonneg(nccl, "nccl", "p2p_channel_GBps", 0, &out->p2p_GBps, err)) < 0 ||
        (rc = cs_json_bool(nccl, "nccl", "nvls", 0, &out->nvls, err)) < 0 ||
        (rc = cs_json_positive(nccl, "nccl", "nvls_eff", 0, &out->nvls_eff, err)) < 0 ||
        (rc = cs_json_nonneg(nccl, "nccl", "nvls_lat_us", 0, &out->nvls_lat_us, err)) < 0 ||
        (rc = cs_json_nonneg(nccl, "nccl", "nvls_net_lat_us", 0, &out->nvls_net_lat_us,
                             err)) < 0 ||
        (rc = cs_json_int(nccl, "nccl", "max_chunks", 0, 1, 4096, &max_chunks, err)) < 0 ||
        (rc = cs_json_string(nccl, "nccl", "proto", 0, &proto, err)) < 0 ||
        (rc = cs_json_string(nccl, "nccl", "algo", 0, &algo, err)) < 0 ||
        (rc = cs_json_object(nccl, "nccl", "protocols", 0, &protos, err)) < 0 ||
        (rc = cs_json_object(nccl, "nccl", "transports", 0, &trs, err)) < 0 ||
        (rc = cs_json_object(nccl, "nccl", "calibration", 0, &cal, err)) < 0 ||
        (rc = cs_json_int(nccl, "nccl", "sm", 0, 10, 200, &sm, err)) < 0)
        return rc;
    out->sm = (int)sm;
    if (algo && (rc = cs_nccl_algo_parse(algo, "nccl.algo", &out->algo_mask, err)) < 0)
        return rc;
    if (json_object_get(nccl, "net_channels"))
        out->net_channels = (int)net_channels;
    if (json_object_get(nccl, "p2p_channels"))
        out->p2p_channels = (int)p2p_channels;
    out->tree_given = json_object_get(nccl, "tree_channel_GBps") != NULL;
    out->p2p_given = json_object_get(nccl, "p2p_channel_GBps") != NULL;
    out->channels_given = json_object_get(nccl, "channels") != NULL ||
                          json_object_get(nccl, "channel_GBps") != NULL ||
                          json_object_get(nccl, "channel_plan") != NULL;
    if (json_object_get(nccl, "channel_plan") &&
        (rc = read_plan(json_object_get(nccl, "channel_plan"), out, err)) < 0)
        return rc;
    out->channels = (int)channels;
    out->max_chunks = (int)max_chunks;
    if (proto && strcmp(proto, "auto")) {
        cs_proto p;
        if (cs_proto_lookup(proto, &p, err) < 0) {
            snprintf(err->where, sizeof err->where, "nccl.proto");
            return CS_EINVAL;
        }
        out->force_proto = (int)p;
    }
    if (protos) {
        const char *const names[] = {"LL", "LL128", "Simple", NULL};
        if ((rc = cs_json_check_keys(protos, "nccl.protocols", names, NULL, err)) < 0)
            return rc;
        for (i = 0; i < CS_PROTO_COUNT; i++) {
            json_t *q = json_object_get(protos, names[i]);
            char path[CS_JPATH_MAX];
            cs_jpath_key(path, sizeof path, "nccl.protocols", names[i]);
            if (q && (rc = read_proto(q, path, &out->proto[i], err)) < 0)
                return rc;
        }
    }
    if (trs) {
        const char *const names[] = {"p2p", "shm", "net", NULL};
        if ((rc = cs_json_check_keys(trs, "nccl.transports", names, NULL, err)) < 0)
            return rc;
        for (i = 0; i < CS_TR_COUNT; i++) {
            json_t *q = json_object_get(trs, names[i]);
            char path[CS_JPATH_MAX];
            cs_jpath_key(path, sizeof path, "nccl.transports", names[i]);
            if (q && (rc = read_transport(q, path, &out->tr[i], &out->flush_us[i],
                                          &out->tr_off[i],
                                          i != CS_TR_NET, err)) < 0)
                return rc;
        }
    }
    return cs_nccl_params_check(out, "nccl", err);
}

/* Check each level of a cluster's layered "nccl" object on its own, so a problem names
 * where it is ("node.nccl.channels", "fabric.nccl.transports"). */
static int check_layers(const cs_topo_layer *l, int n, cs_err *err)
{
    cs_nccl_params tmp;
    int i, rc;
    for (i = 0; i < n; i++)
        if (strcmp(l[i].where, "nccl") &&
            (rc = cs_nccl_params_from_json(l[i].obj, &tmp, err)) < 0) {
            char where[sizeof err->where];
            snprintf(where, sizeof where, "%s%s", l[i].where,
                     strncmp(err->where, "nccl", 4) ? "" : err->where + 4);
            snprintf(err->where, sizeof err->where, "%s", where);
            return rc;
        }
    return 0;
}

/* The "nccl" object that applies to root (its levels checked and merged; a new reference
 * or NULL). */
static int merged_nccl(json_t *root, json_t **out, cs_err *err)
{
    cs_topo_layer l[4];
    int n, rc;
    *out = NULL;
    if ((rc = cs_topo_section_layers(root, "nccl", l, &n, err)) < 0)
        return rc;
    if ((rc = check_layers(l, n, err)) == 0)
        rc = cs_topo_layers_merge(l, n, out, err);
    cs_topo_layers_fini(l, n);
    return rc;
}

/* "node.nccl (dgx-h100): channels, nvls_eff; fabric.nccl (efa-v2-rail): transports" into
 * origin: each level and the keys it states. */
static void note_levels(json_t *root, char *origin, size_t n)
{
    cs_topo_layer l[4];
    cs_err e;
    int k, i;
    size_t len = 0;
    origin[0] = '\0';
    if (cs_topo_section_layers(root, "nccl", l, &k, &e) < 0)
        return;
    for (i = 0; i < k && len < n; i++) {
        const char *key, *part = NULL;
        json_t *v;
        int first = 1;
        if (!strncmp(l[i].where, "node", 4) || !strncmp(l[i].where, "fabric", 6))
            part = json_string_value(json_object_get(root, !strncmp(l[i].where, "node", 4)
                                                           ? "node" : "fabric"));
        len += (size_t)snprintf(origin + len, n - len, "%s%s%s%s%s:", len ? "; " : "",
                                l[i].where, part ? " (" : "", part ? part : "", part ? ")" : "");
        json_object_foreach(l[i].obj, key, v)
            if (strcmp(key, "calibration") && len < n) {
                len += (size_t)snprintf(origin + len, n - len, "%s %s", first ? "" : ",", key);
                first = 0;
            }
    }
    cs_topo_layers_fini(l, k);
    {   /* a calibration laid over the topology: its link classes too */
        json_t *ov = json_object_get(root, "overlay"), *links = json_object_get(ov, "links");
        const char *key;
        json_t *v;
        int first = 1;
        if (json_object_size(links) && len < n)
            len += (size_t)snprintf(origin + len, n - len, "%soverlay (%s): links", len ? "; "
                                    : "", json_string_value(json_object_get(ov, "source")) ?
                                    json_string_value(json_object_get(ov, "source")) : "");
        json_object_foreach(links, key, v)
            if (len < n) {
                len += (size_t)snprintf(origin + len, n - len, "%s %s", first ? "" : ",", key);
                first = 0;
            }
    }
    if (len >= n)
        origin[n - 1] = '\0';
}

static int open_root(json_t *root, cs_nccl_params *out, int *present, json_t **merged,
                     cs_err *err)
{
    int rc;
    *present = 0;
    *merged = NULL;
    cs_nccl_params_default(out);
    if ((rc = merged_nccl(root, merged, err)) < 0 || !*merged)
        return rc;
    *present = 1;
    if ((rc = cs_nccl_params_from_json(*merged, out, err)) == 0)
        note_levels(root, out->origin, sizeof out->origin);
    return rc;
}

int cs_nccl_open(const char *spec, cs_nccl_params *out, int *present, cs_err *err)
{
    json_t *root, *merged;
    int rc;
    *present = 0;
    cs_nccl_params_default(out);
    if ((rc = cs_topo_spec_root(spec, &root, NULL, err)) < 0)
        return rc;
    rc = open_root(root, out, present, &merged, err);
    if (rc < 0)
        cs_err_prefix(err, spec);
    json_decref(merged);
    json_decref(root);
    return rc;
}

static int check_section(json_t *obj, cs_err *err)
{
    cs_nccl_params params;
    return cs_nccl_params_from_json(obj, &params, err);
}

const cs_topo_section cs_nccl_section = {"nccl", check_section};
const cs_topo_section *const cs_nccl_sections[] = {&cs_nccl_section, NULL};

/* Kinds that describe GPU/NPU hardware (what NCCL, RCCL or HCCL run on): NCCL mode is their
 * default. The textbook kinds (alpha_beta, ring, switch, torus, ...) stay bare unless the
 * file has an "nccl" object. */
static int is_hw_kind(const char *kind)
{
    static const char *const hw[] = {"node", "cluster", "pcie", NULL};
    int i;
    for (i = 0; kind && hw[i]; i++)
        if (!strcmp(kind, hw[i]))
            return 1;
    return 0;
}

/* Does the fabric have a switch that reduces in the network (declared "nvls"/"sharp")? */
static int has_reducing_switch(const cs_topo *t)
{
    int v;
    for (v = 0; v < t->n_nodes; v++)
        if (t->nodes[v].type == CS_NODE_SWITCH && t->nodes[v].can_reduce)
            return 1;
    return 0;
}

/* Do two GPUs of a node reach each other over a GPU fabric (NVLink, or xGMI / HCCS, which
 * RCCL's and HCCL's topologies count as NVLink)? NCCL enables LL128 by default only then:
 * tuning.cc, `pEnable &= (graphs[a]->typeIntra <= PATH_NVB)` - NVLink, directly or through
 * one more GPU; a path over PCIe or the CPU (PIX, PXB, PHB, SYS) runs LL and Simple only.
 * Ranks 0 and 1 stand for the node (GPUs 0 and 1 of the first node). */
static int gpu_fabric_path(const cs_topo *t)
{
    const int32_t *route;
    int n, i;
    if (t->n_ranks < 2)
        return 1;
    n = cs_topo_route(t, t->ranks[0], t->ranks[1], &route, NULL);
    for (i = 0; i < n; i++) {
        const char *cls = t->links[cs_dlink_link(route[i])].cls;
        if (strncmp(cls, "nvlink", 6) && strncmp(cls, "xgmi", 4) && strncmp(cls, "hccs", 4))
            return 0;
    }
    return 1;
}

/* Does the topology's "nccl" object (merged) ask for LL128 itself ("proto": "LL128", or
 * "protocols": {"LL128": {"enabled": ...}}), as NCCL_PROTO would? */
static int ll128_asked(json_t *nccl)
{
    json_t *q = json_object_get(json_object_get(nccl, "protocols"), "LL128");
    const char *pr = json_string_value(json_object_get(nccl, "proto"));
    return json_object_get(q, "enabled") != NULL || (pr && !strcmp(pr, "LL128"));
}

/* The GPUs' compute capability x 10 from the GPU fabric's link class (NVLink 2, 3, 4, 5:
 * Volta, Ampere, Hopper, Blackwell), 0 when there is none: NCCL reads it from the GPU,
 * collsim from what joins the GPUs. */
static int sm_of_links(const cs_topo *t)
{
    static const struct { const char *cls; int sm; } gen[] = {
        {"nvlink2", 70}, {"nvlink3", 80}, {"nvlink4", 90}, {"nvlink5", 100},
    };
    int i, k;
    for (i = 0; i < t->n_links; i++)
        for (k = 0; k < (int)(sizeof gen / sizeof gen[0]); k++)
            if (!strcmp(t->links[i].cls, gen[k].cls))
                return gen[k].sm;
    return 0;
}

/* A transport stated off ("enabled": false: NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1) against
 * the routes, which pick the transport (sim/exec.h): within a host, a route through a CPU
 * is SHM, any other P2P. Checks each pair of ranks of one host (a run of consecutive ranks
 * of one group, as every kind numbers them); the first pair that would take an off
 * transport is an error saying how to write the host instead. */
int cs_nccl_check_transports(const cs_topo *t, const cs_nccl_params *np, const char *name,
                             cs_err *err)
{
    int a, b, k, n, cpu;
    const int32_t *dl;
    if (!np->tr_off[CS_TR_P2P] && !np->tr_off[CS_TR_SHM])
        return 0;
    for (a = 0; a < t->n_ranks; a++)
        for (b = a + 1; b < t->n_ranks && t->nodes[t->ranks[b]].group ==
                                          t->nodes[t->ranks[a]].group; b++) {
            if ((n = cs_topo_route(t, t->ranks[a], t->ranks[b], &dl, NULL)) < 0)
                continue;
            for (cpu = 0, k = 0; k + 1 < n; k++)
                cpu |= t->nodes[cs_dlink_to(t, dl[k])].type == CS_NODE_CPU;
            if (np->tr_off[cpu ? CS_TR_SHM : CS_TR_P2P])
                return cs_err_set(err, CS_EINVAL, cpu ? "nccl.transports.shm.enabled" :
                                  "nccl.transports.p2p.enabled", "%s: false, but ranks %d and "
                                  "%d of one host are joined %s, which collsim runs as %s (it "
                                  "picks a transport by route): write the host as NCCL then "
                                  "runs it (without P2P: \"p2p\": false in a pcie host stages "
                                  "copies through the CPU; without P2P and SHM: one-GPU hosts, "
                                  "each on its NIC, as preset rtx6000d-x2-netonly)", name, a, b,
                                  cpu ? "through a CPU" : "without a CPU on the way",
                                  cpu ? "SHM" : "P2P");
        }
    return 0;
}

/* Servers of a multi-node topology (the copies of a cluster's node: its "nodes", all of
 * them built or the first "built_nodes"), 1 otherwise. */
static int servers_of(json_t *root, const cs_topo *t)
{
    int v, n = 0;
    if (!strcmp(t->kind, "cluster") && json_is_integer(json_object_get(root, "nodes")))
        return (int)json_integer_value(json_object_get(root, "nodes"));
    for (v = 0; v < t->n_nodes; v++)
        if (t->nodes[v].group + 1 > n)
            n = t->nodes[v].group + 1;
    return n > 1 ? n : 1;
}

int cs_nccl_setup_root(json_t *root, const char *name, const char *proto, int always_on,
                       cs_nccl_params *np, int *on, cs_err *err)
{
    int present = 0, rc, hw, can_reduce, fabric, asked;
    json_t *merged = NULL;
    cs_topo *t = NULL;
    if ((rc = open_root(root, np, &present, &merged, err)) < 0) {
        json_decref(merged);
        cs_err_prefix(err, name);
        return rc;
    }
    asked = ll128_asked(merged);
    json_decref(merged);
    /* The kind and its switches do not depend on the rank count: a file that takes its
     * count from the command is read at 2 ranks. */
    if ((rc = cs_topo_load_root(root, name, 2, &t, err)) < 0) {
        if (strncmp(err->where, name, strlen(name)))
            cs_err_prefix(err, name);
        return rc;
    }
    /* a graph whose ranks are GPUs or NPUs is a box described by hand: NCCL's behaviour as
     * on the same box from a preset */
    hw = is_hw_kind(t->kind) || (!strcmp(t->kind, "graph") && t->n_ranks > 0 &&
                                 (t->nodes[t->ranks[0]].type == CS_NODE_GPU ||
                                  t->nodes[t->ranks[0]].type == CS_NODE_NPU));
    can_reduce = has_reducing_switch(t);
    fabric = gpu_fabric_path(t);
    if (!np->sm)
        np->sm = sm_of_links(t);
    /* A PCIe host whose file does not give the channels: NCCL's ring search (search.c)
     * for every rank count of the host. */
    if (!strcmp(t->kind, "pcie") && !np->channels_given)
        cs_nccl_plan_fill(np, t);
    /* Hardware whose channels no level states and no search derives here (NVLink, NPU
     * links): one channel, said - NCCL runs more, and a cluster of such nodes would run one
     * ring through one NIC a node (a dgx-a100 cluster: 24 GB/s busbw on 2 nodes) */
    else if (hw && !np->channels_given) {
        size_t len = strlen(np->origin);
        snprintf(np->origin + len, sizeof np->origin - len, "%schannels: none stated, 1 "
                 "assumed (NCCL runs more: give the node, fabric or cluster \"nccl\": "
                 "{\"channels\": N})", len ? "; " : "");
    }
    /* Trees across nodes: NCCL's cap per tree channel for the GPUs' generation and the
     * node count, unless a level of the "nccl" object states it. */
    if (!strcmp(t->kind, "cluster") && !np->tree_given) {
        size_t len = strlen(np->origin);
        int nodes = servers_of(root, t);
        np->tree_GBps = cs_nccl_tree_cap_GBps(np->sm, nodes);
        if (np->tree_GBps > 0)
            snprintf(np->origin + len, sizeof np->origin - len, "%stree cap: NCCL's for sm %d "
                     "at %d nodes", len ? "; " : "", np->sm, nodes);
    }
    /* A p2p channel's send and receive: NCCL's figure for the GPUs' generation, unless a
     * level of the "nccl" object states it (rules.h, cs_nccl_p2p_cap_GBps). */
    if (hw && !np->p2p_given) {
        size_t len = strlen(np->origin);
        np->p2p_GBps = cs_nccl_p2p_cap_GBps(np->sm);
        if (np->p2p_GBps > 0)
            snprintf(np->origin + len, sizeof np->origin - len, "%sp2p channel cap %g GB/s: "
                     "NCCL's for sm %d", len ? "; " : "", np->p2p_GBps, np->sm);
    }
    rc = cs_nccl_check_transports(t, np, name, err);
    cs_topo_free(t);
    if (rc < 0)
        return rc;
    /* LL128 where NCCL enables it by default (above); --proto LL128 or the file's own
     * setting runs it anyway, as NCCL_PROTO=LL128 does. */
    if (hw && !fabric && !(proto && !strcmp(proto, "LL128")) && !asked)
        np->proto[CS_PROTO_LL128].enabled = 0;
    /* NVLS runs where the hardware reduces: by default exactly there; "nvls": true on a
     * fabric that declares no such switch is a mistake worth stopping for. */
    if (np->nvls < 0)
        np->nvls = can_reduce;
    else if (np->nvls && !can_reduce)
        return cs_err_set(err, CS_EINVAL, "nccl.nvls", "%s: true, but no switch of the fabric "
                          "reduces in the network (declare it: \"nvls\": true in \"nvlink\" "
                          "of a node, \"sharp\": true on a switch or fabric)", name);
    *on = present || proto || always_on || hw;
    if (proto && !strcmp(proto, "none")) {
        /* The bare fabric: no NCCL costs even where the topology has an "nccl" object. */
        if (always_on)
            return cs_err_set(err, CS_EUSAGE, "--proto", "none: comparing with real logs "
                              "needs NCCL mode (use auto, LL, LL128 or Simple)");
        *on = 0;
        return 0;
    }
    if (proto && strcmp(proto, "auto")) {
        cs_proto p;
        if ((rc = cs_proto_lookup(proto, &p, err)) < 0) {
            err->code = CS_EUSAGE;
            return CS_EUSAGE;
        }
        if (!np->proto[p].enabled)
            return cs_err_set(err, CS_EUSAGE, "--proto", "protocol %s is disabled in the "
                              "topology's \"nccl\" object", cs_proto_name(p));
        np->force_proto = (int)p;
    } else if (proto) {
        np->force_proto = -1;
    }
    return 0;
}

int cs_nccl_setup(const char *topo_spec, const char *proto, int always_on,
                  cs_nccl_params *np, int *on, cs_err *err)
{
    const cs_preset *p = cs_preset_find(topo_spec);
    json_t *root;
    int rc;
    cs_nccl_params_default(np);
    *on = 0;
    if ((rc = cs_topo_spec_root(topo_spec, &root, NULL, err)) < 0)
        return rc;
    rc = cs_nccl_setup_root(root, p ? p->name : topo_spec, proto, always_on, np, on, err);
    json_decref(root);
    return rc;
}
