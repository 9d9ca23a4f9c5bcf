/* compose.c: a system from its parts (topologies layer). The forms a topology is named by
 * (a preset, a file, "SPEC#nodes=N" for a cluster resized, a `topo show --format json`
 * report, read by its "definition"), fabric presets, and a cluster's layered sections:
 * its node's "nccl" object, then its fabric's, then its own, each key of a later level
 * replacing the earlier one's (objects merged key by key), so a cluster built by hand
 * from a node preset and a fabric runs the node's collective library settings. */
#include "topologies/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "sim/json.h"
#include "topologies/kinds.h"
#include "sim/limits.h"

/* Parse a preset's or a file's text; syntax errors say name:line:column. */
static int parse_text(const char *text, size_t len, const char *name, json_t **out,
                      cs_err *err)
{
    json_error_t je;
    *out = cs_json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!*out) {
        char where[sizeof err->where];
        snprintf(where, sizeof where, "%.200s:%d:%d", name, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    return 0;
}

int cs__preset_root(const cs_preset *p, json_t **out, cs_err *err)
{
    return parse_text(p->json, strlen(p->json), p->name, out, err);
}

const cs_preset *cs_fabric_preset_find(const char *name)
{
    int i, n;
    const cs_preset *p = cs_fabric_preset_all(&n);
    for (i = 0; i < n; i++)
        if (!strcmp(p[i].name, name))
            return &p[i];
    return NULL;
}

/* A `topo show --format json` report stands for the topology in its "definition". */
static json_t *unwrap_report(json_t *root)
{
    json_t *def = json_object_get(root, "definition");
    if (json_is_object(root) && json_is_string(json_object_get(root, "topology")) &&
        json_is_object(def)) {
        json_incref(def);
        json_decref(root);
        return def;
    }
    return root;
}

/* Put a fitted parameter of `collsim calibrate` (its report's name: "nvlink4.bandwidth_GBps",
 * "Simple.hop_us", "net.lat_us", "launch_us", "reduce_GBps", ...) into overlay ov. */
static int overlay_param(json_t *ov, const char *name, json_t *value)
{
    static const char *const protos[] = {"LL", "LL128", "Simple", NULL};
    static const char *const trs[] = {"p2p", "shm", "net", NULL};
    const char *dot = strrchr(name, '.');
    char head[128];
    json_t *o;
    int i, k;
    if (!dot) {
        if (!strcmp(name, "reduce_GBps"))
            return json_object_set(ov, name, value);
        if (!(o = json_object_get(ov, "nccl")))
            json_object_set_new(ov, "nccl", o = json_object());
        return json_object_set(o, name, value);
    }
    snprintf(head, sizeof head, "%.*s", (int)(dot - name), name);
    for (i = 0; protos[i] && strcmp(protos[i], head); i++)
        ;
    for (k = 0; trs[k] && strcmp(trs[k], head); k++)
        ;
    if (protos[i] || trs[k]) {
        const char *group = protos[i] ? "protocols" : "transports";
        json_t *nccl = json_object_get(ov, "nccl"), *g, *e;
        if (!nccl)
            json_object_set_new(ov, "nccl", nccl = json_object());
        if (!(g = json_object_get(nccl, group)))
            json_object_set_new(nccl, group, g = json_object());
        if (!(e = json_object_get(g, head)))
            json_object_set_new(g, head, e = json_object());
        return json_object_set(e, dot + 1, value);
    }
    if (!(o = json_object_get(ov, "links")))
        json_object_set_new(ov, "links", o = json_object());
    if (!(o = json_object_get(o, head)) &&
        json_object_set_new(json_object_get(ov, "links"), head, o = json_object()) < 0)
        return -1;
    return json_object_set(o, dot + 1, value);
}

/* "calibration=FILE": what a calibration fitted, as root's "overlay". FILE written by
 * `collsim calibrate` carries its record (nccl.calibration.parameters): the parameters it
 * fitted go over, those it held ("not determined by these logs") stay the system's own -
 * so a figure that follows the size of the system (NCCL's tree cap by node count) is the
 * new size's. Any other topology FILE carries all it has: every link class's figures as
 * FILE's system built them, its reduction throughput and its whole "nccl" object. */
static int overlay_from(json_t *root, const char *path, cs_err *err)
{
    json_t *cal = NULL, *ov = NULL, *nccl = NULL, *params, *v;
    cs_topo *t = NULL;
    const char *name;
    int rc, i;
    if ((rc = cs_topo_spec_root(path, &cal, NULL, err)) < 0 ||
        (rc = cs_topo_root_section(cal, "nccl", &nccl, err)) < 0 ||
        (rc = cs_topo_load_root(cal, path, 2, &t, err)) < 0) {
        cs_err_prefix(err, "--calibration");
        goto out;
    }
    if (t->model != CS_MODEL_FLUID) {
        rc = cs_err_set(err, CS_EUSAGE, "--calibration", "%s: a calibration of a %s fabric "
                        "has no link classes to carry", path, t->kind);
        goto out;
    }
    if (!(ov = json_pack("{s:s}", "source", path))) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    params = json_object_get(json_object_get(nccl, "calibration"), "parameters");
    if (json_is_object(params)) {
        json_object_foreach(params, name, v)
            if (!json_object_get(v, "held") && json_is_number(json_object_get(v, "value")) &&
                overlay_param(ov, name, json_object_get(v, "value")) < 0) {
                rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
                goto out;
            }
    } else {
        json_t *links = json_object();
        for (i = 0; links && i < t->n_links; i++)
            if (!json_object_get(links, t->links[i].cls))
                json_object_set_new(links, t->links[i].cls,
                                    json_pack("{s:f, s:f}", "bandwidth_GBps",
                                              t->links[i].bw_GBps, "latency_us",
                                              t->links[i].lat_us));
        json_object_set_new(ov, "links", links);
        if (t->reduce_GBps > 0)
            json_object_set_new(ov, "reduce_GBps", json_real(t->reduce_GBps));
        if (nccl)
            json_object_set(ov, "nccl", nccl);
    }
    if (json_object_set(root, "overlay", ov) < 0)
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
out:
    json_decref(ov);
    json_decref(nccl);
    json_decref(cal);
    cs_topo_free(t);
    return rc;
}

/* "nodes=N" after a '#' of a spec: the cluster resized to N nodes; "calibration=FILE": a
 * calibration's figures laid over it. */
static int apply_mods(json_t *root, const char *spec, const char *mods, cs_err *err)
{
    const char *kind = json_string_value(json_object_get(root, "kind"));
    char *end = NULL;
    long n;
    int rc;
    if (!strncmp(mods, "calibration=", 12))
        return overlay_from(root, mods + 12, err);
    if (strncmp(mods, "nodes=", 6))
        return cs_err_set(err, CS_EUSAGE, spec, "unknown modifier '%s' (known: nodes=N, as "
                          "--nodes N gives; calibration=FILE, as --calibration FILE)", mods);
    n = strtol(mods + 6, &end, 10);
    if (end == mods + 6 || *end || n < 1 || n > 65536)
        return cs_err_set(err, CS_EUSAGE, "--nodes", "expected a node count in [1, 65536], "
                          "got '%s'", mods + 6);
    if (!kind || strcmp(kind, "cluster"))
        return cs_err_set(err, CS_EUSAGE, "--nodes", "%.*s is a%s %s topology, not a cluster "
                          "(compose one: {\"kind\": \"cluster\", \"node\": ..., \"fabric\": "
                          "..., \"nodes\": %ld})", (int)(mods - 1 - spec), spec,
                          kind && strchr("aeiou", kind[0]) ? "n" : "", kind ? kind : "?", n);
    if (json_object_set_new(root, "nodes", json_integer(n)) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    /* the text describes the size the file was written for: say so */
    if (json_is_string(json_object_get(root, "description"))) {
        const char *was = json_string_value(json_object_get(root, "description"));
        size_t len = strlen(was) + 64;
        char *d = malloc(len);
        if (!d)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        snprintf(d, len, "Resized to %ld nodes (--nodes); as written: %s", n, was);
        rc = json_object_set_new(root, "description", json_string(d));
        free(d);
        if (rc < 0)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    return 0;
}

int cs__topo_apply_overlay(json_t *root, cs_topo *t, cs_err *err)
{
    static const char *const keys[] = {"source", "links", "reduce_GBps", "nccl", NULL};
    static const char *const fig[] = {"bandwidth_GBps", "latency_us", NULL};
    json_t *ov = json_object_get(root, "overlay"), *links, *v;
    const char *cls, *s;
    int rc, i;
    if (!ov)
        return 0;
    if ((rc = cs_json_check_keys(ov, "overlay", keys, NULL, err)) < 0 ||
        (rc = cs_json_string(ov, "overlay", "source", 0, &s, err)) < 0 ||
        (rc = cs_json_object(ov, "overlay", "links", 0, &links, err)) < 0 ||
        (rc = cs_json_object(ov, "overlay", "nccl", 0, &v, err)) < 0 ||
        (rc = cs_json_range(ov, "overlay", "reduce_GBps", 0, CS_LIMIT_BW_MIN_GBPS,
                            CS_LIMIT_BW_MAX_GBPS, "GB/s", &t->reduce_GBps, err)) < 0)
        return rc;
    if (t->model != CS_MODEL_FLUID && links && json_object_size(links))
        return cs_err_set(err, CS_EINVAL, "overlay.links", "a %s fabric has no link classes",
                          t->kind);
    json_object_foreach(links, cls, v) {
        char where[CS_JPATH_MAX];
        double bw = 0, lat = 0;
        int used = 0;
        cs_jpath_key(where, sizeof where, "overlay.links", cls);
        if ((rc = cs_json_check_keys(v, where, fig, NULL, err)) < 0 ||
            (rc = cs_json_range(v, where, "bandwidth_GBps", 0, CS_LIMIT_BW_MIN_GBPS,
                                CS_LIMIT_BW_MAX_GBPS, "GB/s", &bw, err)) < 0 ||
            (rc = cs_json_range(v, where, "latency_us", 0, 0, CS_LIMIT_LAT_MAX_US, "us",
                                &lat, err)) < 0)
            return rc;
        for (i = 0; i < t->n_links; i++)
            if (!strcmp(t->links[i].cls, cls)) {
                if (json_object_get(v, "bandwidth_GBps"))
                    t->links[i].bw_GBps = bw;
                if (json_object_get(v, "latency_us"))
                    t->links[i].lat_us = lat;
                used = 1;
            }
        /* a calibration carries to systems of the same parts: a class it fitted that this
         * system lacks says the parts differ */
        if (!used)
            return cs_err_set(err, CS_EINVAL, where, "this topology has no link of class '%s' "
                              "(a calibration applies to systems built from the same node "
                              "and fabric)", cls);
    }
    return 0;
}

int cs_topo_spec_root(const char *spec, json_t **out, int *is_file, cs_err *err)
{
    const cs_preset *p = cs_preset_find(spec);
    const char *hash = strrchr(spec, '#');
    char *buf = NULL;
    size_t len = 0;
    int rc;
    *out = NULL;
    if (is_file)
        *is_file = 0;
    if (p)
        rc = cs__preset_root(p, out, err);
    else if (hash && access(spec, F_OK) != 0) {
        char base[4096];
        if ((size_t)(hash - spec) >= sizeof base)
            return cs_err_set(err, CS_EUSAGE, "--topo", "name too long");
        memcpy(base, spec, (size_t)(hash - spec));
        base[hash - spec] = '\0';
        if ((rc = cs_topo_spec_root(base, out, is_file, err)) < 0)
            return rc;
        if ((rc = apply_mods(*out, spec, hash + 1, err)) < 0) {
            json_decref(*out);
            *out = NULL;
        }
        return rc;
    } else {
        if ((rc = cs__topo_read_file(spec, &buf, &len, err)) < 0)
            return rc;
        if (is_file)
            *is_file = 1;
        rc = parse_text(buf, len, spec, out, err);
        free(buf);
    }
    if (rc == 0)
        *out = unwrap_report(*out);
    return rc;
}

/* A cluster's node or fabric as an object (a new reference): a preset name is looked up
 * (node: topology presets; fabric: fabric presets), an object is taken as it is. NULL when
 * absent or neither (the kind's own checks say so). */
static int part_of(json_t *root, const char *key, json_t **out, cs_err *err)
{
    json_t *v = json_object_get(root, key);
    *out = NULL;
    if (json_is_string(v)) {
        const char *name = json_string_value(v);
        const cs_preset *p = !strcmp(key, "node") ? cs_preset_find(name)
                                                  : cs_fabric_preset_find(name);
        int rc;
        if (!p)
            return 0;
        if ((rc = cs__preset_root(p, out, err)) < 0)
            cs_err_prefix(err, key);
        return rc;
    }
    if (json_is_object(v))
        *out = json_incref(v);
    return 0;
}

static int is_cluster(json_t *root)
{
    const char *kind = json_string_value(json_object_get(root, "kind"));
    return kind && !strcmp(kind, "cluster");
}

int cs_topo_section_layers(json_t *root, const char *key, cs_topo_layer out[4], int *n,
                           cs_err *err)
{
    static const char *const parts[] = {"node", "fabric"};
    int i, rc;
    *n = 0;
    if (is_cluster(root))
        for (i = 0; i < 2; i++) {
            json_t *part, *obj;
            if ((rc = part_of(root, parts[i], &part, err)) < 0) {
                cs_topo_layers_fini(out, *n);
                return rc;
            }
            if ((obj = json_object_get(part, key))) {
                out[*n].obj = json_incref(obj);
                snprintf(out[*n].where, sizeof out[*n].where, "%s.%s", parts[i], key);
                (*n)++;
            }
            json_decref(part);
        }
    if (json_object_get(root, key)) {
        out[*n].obj = json_incref(json_object_get(root, key));
        snprintf(out[*n].where, sizeof out[*n].where, "%s", key);
        (*n)++;
    }
    /* a calibration laid over the topology (--calibration) has the last word */
    if (json_object_get(json_object_get(root, "overlay"), key)) {
        out[*n].obj = json_incref(json_object_get(json_object_get(root, "overlay"), key));
        snprintf(out[*n].where, sizeof out[*n].where, "overlay.%s", key);
        (*n)++;
    }
    return 0;
}

void cs_topo_layers_fini(cs_topo_layer *l, int n)
{
    int i;
    for (i = 0; i < n; i++)
        json_decref(l[i].obj);
}

/* Copy src's keys onto dst: objects on both sides merge key by key, anything else
 * replaces. dst is a fresh deep copy owned by the caller. */
static int merge_into(json_t *dst, json_t *src)
{
    const char *k;
    json_t *v;
    json_object_foreach(src, k, v) {
        json_t *d = json_object_get(dst, k);
        if (json_is_object(d) && json_is_object(v)) {
            if (merge_into(d, v) < 0)
                return -1;
        } else if (json_object_set_new(dst, k, json_deep_copy(v)) < 0) {
            return -1;
        }
    }
    return 0;
}

int cs_topo_layers_merge(const cs_topo_layer *l, int n, json_t **out, cs_err *err)
{
    int i;
    *out = NULL;
    if (n == 0)
        return 0;
    if (!json_is_object(l[0].obj))
        return cs_err_set(err, CS_EINVAL, l[0].where, "expected an object, got %s",
                          cs_json_type_name(l[0].obj));
    if (!(*out = json_deep_copy(l[0].obj)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 1; i < n; i++) {
        if (!json_is_object(l[i].obj)) {
            json_decref(*out);
            *out = NULL;
            return cs_err_set(err, CS_EINVAL, l[i].where, "expected an object, got %s",
                              cs_json_type_name(l[i].obj));
        }
        if (merge_into(*out, l[i].obj) < 0) {
            json_decref(*out);
            *out = NULL;
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        }
    }
    return 0;
}

int cs_topo_root_section(json_t *root, const char *key, json_t **out, cs_err *err)
{
    cs_topo_layer l[4];
    int n, rc;
    *out = NULL;
    if (!json_is_object(root))
        return 0;
    if ((rc = cs_topo_section_layers(root, key, l, &n, err)) < 0)
        return rc;
    rc = cs_topo_layers_merge(l, n, out, err);
    cs_topo_layers_fini(l, n);
    return rc;
}

int cs_topo_definition(const char *spec, json_t **out, cs_err *err)
{
    static const char *const parts[] = {"node", "fabric"};
    json_t *root;
    int i, rc;
    *out = NULL;
    if ((rc = cs_topo_spec_root(spec, &root, NULL, err)) < 0)
        return rc;
    if (is_cluster(root))
        for (i = 0; i < 2; i++) {
            json_t *part;
            if ((rc = part_of(root, parts[i], &part, err)) < 0) {
                json_decref(root);
                return rc;
            }
            if (part && json_object_set_new(root, parts[i], part) < 0) {
                json_decref(root);
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            }
        }
    *out = root;
    return 0;
}
