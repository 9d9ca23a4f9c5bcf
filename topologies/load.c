/* load.c: topology JSON files and embedded presets to cs_topo (topologies layer).
 * Reads the text, reports syntax errors as file:line:column, handles the keys common to
 * every kind, hands the rest to the kind's build, and validates with cs_topo_finish. */
#include "topologies/topology.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "sim/json.h"
#include "topologies/kinds.h"
#include "sim/limits.h"

/* Largest topology file read, bytes: far above any real one, it bounds a wrong path. */
#define MAX_FILE_BYTES (64L * 1024 * 1024)

const cs_preset *cs_preset_find(const char *name)
{
    int i, n;
    const cs_preset *p = cs_preset_all(&n);
    for (i = 0; i < n; i++)
        if (!strcmp(p[i].name, name))
            return &p[i];
    return NULL;
}

/* "sources": a string or an array of strings. */
static int check_sources(const json_t *root, cs_err *err)
{
    json_t *v = json_object_get(root, "sources"), *item;
    const char *s;
    size_t i;
    int rc;
    if (!v || json_is_string(v))
        return v ? cs_json_as_string(v, "sources", &s, err) : 0;
    if (!json_is_array(v))
        return cs_err_set(err, CS_EINVAL, "sources",
                          "expected a string or an array of strings, got %s",
                          cs_json_type_name(v));
    json_array_foreach(v, i, item) {
        char path[CS_JPATH_MAX];
        cs_jpath_idx(path, sizeof path, "sources", i);
        if ((rc = cs_json_as_string(item, path, &s, err)) < 0)
            return rc;
    }
    return 0;
}

static int set_str(char **dst, const char *src, cs_err *err)
{
    char *s = strdup(src);
    if (!s)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    free(*dst);
    *dst = s;
    return 0;
}

int cs__topo_common(json_t *root, double *reduce_GBps, cs_topo_problems *col, cs_err *err)
{
    const char *s;
    json_t *nccl;
    int i, rc = 0;
    for (i = 0; i < 5; i++) {
        switch (i) {
        case 0: rc = cs_json_string(root, "", "name", 0, &s, err); break;
        case 1: rc = cs_json_string(root, "", "description", 0, &s, err); break;
        case 2: rc = check_sources(root, err); break;
        case 3: rc = cs_json_range(root, "", "reduce_GBps", 0, CS_LIMIT_BW_MIN_GBPS,
                                   CS_LIMIT_BW_MAX_GBPS, "GB/s", reduce_GBps, err); break;
        default: rc = cs_json_object(root, "", "nccl", 0, &nccl, err); break;
        }
        if (rc < 0 && (!col || rc == CS_ENOMEM))
            return rc;
        if (rc < 0 && cs_topo_problems_add(col, err) < 0)
            return CS_ENOMEM;
    }
    return 0;
}

/* Build a topology from a parsed root object. name goes into t->name. ranks > 0: the
 * caller's rank count for a kind that takes it, used when the file gives none. */
static int load_root(json_t *root, const char *name, int ranks, cs_topo **out, cs_err *err)
{
    const cs_topo_kind *kind;
    const char *kind_name;
    cs_topo *t = NULL;
    double reduce_GBps = 0;
    int rc;

    if (!json_is_object(root))
        return cs_err_set(err, CS_EINVAL, name, "expected a JSON object, got %s",
                          cs_json_type_name(root));
    if ((rc = cs_json_string(root, "", "kind", 1, &kind_name, err)) < 0)
        return rc;
    if ((rc = cs_topo_kind_lookup(kind_name, &kind, err)) < 0)
        return rc;
    if ((rc = cs__topo_common(root, &reduce_GBps, NULL, err)) < 0)
        return rc;
    if (ranks > 0 && kind->ranks_from_caller && !json_object_get(root, "ranks") &&
        json_object_set_new(root, "ranks", json_integer(ranks)) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");

    if ((rc = cs_topo_new(&t)) < 0)
        return cs_err_set(err, rc, NULL, "out of memory");
    if ((rc = set_str(&t->name, name, err)) < 0 || (rc = set_str(&t->kind, kind_name, err)) < 0)
        goto fail;
    t->model = CS_MODEL_FLUID;
    t->reduce_GBps = reduce_GBps;
    if ((rc = kind->build(root, t, err)) < 0 || (rc = cs__topo_apply_overlay(root, t, err)) < 0)
        goto fail;
    if ((rc = cs_topo_finish(t, err)) < 0)
        goto fail;
    *out = t;
    return 0;
fail:
    cs_topo_free(t);
    return rc;
}

/* Parse text of len bytes; where names the source in syntax errors (file:line:column). */
static int load_buffer(const char *text, size_t len, const char *name, int ranks,
                       cs_topo **out, cs_err *err)
{
    json_error_t jerr;
    json_t *root;
    int rc;
    root = cs_json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        char where[sizeof err->where];
        snprintf(where, sizeof where, "%s:%d:%d", name, jerr.line, jerr.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", jerr.text);
    }
    rc = load_root(root, name, ranks, out, err);
    json_decref(root);
    return rc;
}

int cs_topo_load_string(const char *json, const char *name, cs_topo **out, cs_err *err)
{
    return cs_topo_load_string_ranks(json, name, 0, out, err);
}

int cs_topo_load_string_ranks(const char *json, const char *name, int ranks, cs_topo **out,
                              cs_err *err)
{
    *out = NULL;
    cs_err_clear(err);
    return load_buffer(json, strlen(json), name ? name : "<string>", ranks, out, err);
}

int cs__topo_read_file(const char *path, char **buf, size_t *len, cs_err *err)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 65536, n = 0;
    char *b;
    if (!f)
        return cs_err_set(err, CS_EIO, path, "cannot read: %s", strerror(errno));
    if (!(b = malloc(cap))) {
        fclose(f);
        return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    }
    for (;;) {
        size_t got;
        if (n == cap) {
            char *nb = cap * 2 > (size_t)MAX_FILE_BYTES ? NULL : realloc(b, cap * 2);
            if (!nb) {
                free(b);
                fclose(f);
                return cs_err_set(err, CS_EIO, path, "cannot read: file larger than %ld bytes",
                                  MAX_FILE_BYTES);
            }
            b = nb;
            cap *= 2;
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(b);
        fclose(f);
        return cs_err_set(err, CS_EIO, path, "cannot read: %s", strerror(e ? e : EIO));
    }
    fclose(f);
    *buf = b;
    *len = n;
    return 0;
}

static int load_file_ranks(const char *path, int ranks, cs_topo **out, cs_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;
    *out = NULL;
    cs_err_clear(err);
    if ((rc = cs__topo_read_file(path, &buf, &len, err)) < 0)
        return rc;
    rc = load_buffer(buf, len, path, ranks, out, err);
    free(buf);
    /* Content errors name a JSON path; say which file it is in too (syntax errors already
     * start with path:line:column). Strings and presets are named by their callers. */
    if (rc < 0 && err && strncmp(err->where, path, strlen(path)))
        cs_err_prefix(err, path);
    return rc;
}

int cs_topo_load_file(const char *path, cs_topo **out, cs_err *err)
{
    return load_file_ranks(path, 0, out, err);
}

int cs_topo_open(const char *spec, cs_topo **out, cs_err *err)
{
    return cs_topo_open_ranks(spec, 0, out, err);
}

int cs_topo_open_ranks(const char *spec, int ranks, cs_topo **out, cs_err *err)
{
    const cs_preset *p = cs_preset_find(spec);
    json_t *root = NULL;
    int rc, is_file = 0;
    *out = NULL;
    cs_err_clear(err);
    rc = cs_topo_spec_root(spec, &root, &is_file, err);
    /* A bare word that is neither a preset nor a file was most likely a mistyped preset. */
    if (rc == CS_EIO && !strchr(spec, '/') && !strchr(spec, '.') && !strchr(spec, '#')) {
        char known[1024] = "";
        int i, n;
        const cs_preset *all = cs_preset_all(&n);
        for (i = 0; i < n; i++) {
            size_t l = strlen(known);
            snprintf(known + l, sizeof known - l, "%s%s", i ? ", " : "", all[i].name);
        }
        return cs_err_set(err, CS_ENOENT, spec,
                          "no such preset or file (known presets: %s)", known);
    }
    if (rc < 0)
        return rc;
    rc = load_root(root, p ? p->name : spec, ranks, out, err);
    json_decref(root);
    /* Content errors name a JSON path; say which file it is in too (syntax errors already
     * start with path:line:column). Presets are named by their callers. */
    if (rc < 0 && is_file && strncmp(err->where, spec, strlen(spec)))
        cs_err_prefix(err, spec);
    return rc;
}

int cs_topo_section_get(const char *spec, const char *key, json_t **out, cs_err *err)
{
    json_t *root, *obj;
    int rc;
    *out = NULL;
    if ((rc = cs_topo_spec_root(spec, &root, NULL, err)) < 0)
        return rc;
    obj = json_is_object(root) ? json_object_get(root, key) : NULL;
    if (obj)
        *out = json_incref(obj);
    json_decref(root);
    return 0;
}

int cs_topo_load_root(json_t *root, const char *name, int ranks, cs_topo **out, cs_err *err)
{
    *out = NULL;
    cs_err_clear(err);
    return load_root(root, name, ranks, out, err);
}
