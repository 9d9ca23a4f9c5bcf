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

/* "nodes=N" after the '#' of a spec: the cluster resized to N nodes. */
static int apply_mods(json_t *root, const char *spec, const char *mods, cs_err *err)
{
    const char *kind = json_string_value(json_object_get(root, "kind"));
    char *end = NULL;
    long n;
    int rc;
    if (strncmp(mods, "nodes=", 6))
        return cs_err_set(err, CS_EUSAGE, spec, "unknown modifier '%s' (known: nodes=N, as "
                          "--nodes N gives)", mods);
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

int cs_topo_section_layers(json_t *root, const char *key, cs_topo_layer out[3], int *n,
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
    cs_topo_layer l[3];
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
