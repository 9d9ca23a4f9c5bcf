/* jsonutil.c: strict JSON readers with JSON-path error locations, and the problem list of
 * `topo check` (topologies layer).
 * Used by the loader and every topology kind so that all of them word errors alike:
 * `links[3].bandwidth_GBps: must be > 0, got -5`. */
#include "topologies/jsonutil.h"
#include "sim/limits.h"
#include "topologies/topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *cs__json_loadb(const char *text, size_t len, size_t flags, json_error_t *jerr)
{
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        text += 3;                   /* a UTF-8 byte order mark, as some editors write */
        len -= 3;
    }
    return json_loadb(text, len, flags, jerr);
}

void cs__jpath_key(char *out, size_t n, const char *parent, const char *key)
{
    if (parent && *parent)
        snprintf(out, n, "%s.%s", parent, key);
    else
        snprintf(out, n, "%s", key);
}

void cs__jpath_idx(char *out, size_t n, const char *parent, size_t i)
{
    snprintf(out, n, "%s[%zu]", parent ? parent : "", i);
}

const char *cs__json_type_name(const json_t *v)
{
    if (!v)
        return "nothing";
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER:
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

static int in_list(const char *key, const char *const *list)
{
    for (; list && *list; list++)
        if (!strcmp(key, *list))
            return 1;
    return 0;
}

static void append_list(char *buf, size_t n, const char *const *list)
{
    for (; list && *list; list++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", len ? ", " : "", *list);
    }
}

int cs__json_check_keys(json_t *obj, const char *where, const char *const *allowed,
                        const char *const *also, cs_err *err)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        char path[CS_JPATH_MAX], known[512] = "";
        if (in_list(key, allowed) || in_list(key, also))
            continue;
        append_list(known, sizeof known, allowed);
        append_list(known, sizeof known, also);
        cs__jpath_key(path, sizeof path, where, key);
        return cs_err_set(err, CS_EINVAL, path, "unknown key '%s' (known: %s)", key, known);
    }
    return 0;
}

int cs__json_as_number(const json_t *v, const char *where, double *out, cs_err *err)
{
    if (!json_is_number(v))
        return cs_err_set(err, CS_EINVAL, where, "expected a number, got %s",
                          cs__json_type_name(v));
    *out = json_number_value(v);
    if (!isfinite(*out))
        return cs_err_set(err, CS_EINVAL, where, "expected a finite number, got %g", *out);
    return 0;
}

int cs__json_as_int(const json_t *v, const char *where, long lo, long hi, long *out, cs_err *err)
{
    json_int_t x;
    if (json_is_real(v))
        return cs_err_set(err, CS_EINVAL, where, "expected an integer, got %g",
                          json_real_value(v));
    if (!json_is_integer(v))
        return cs_err_set(err, CS_EINVAL, where, "expected an integer, got %s",
                          cs__json_type_name(v));
    x = json_integer_value(v);
    if (x < lo)
        return cs_err_set(err, CS_EINVAL, where, "must be >= %ld, got %lld", lo, (long long)x);
    if (x > hi)
        return cs_err_set(err, CS_EINVAL, where, "must be <= %ld, got %lld", hi, (long long)x);
    *out = (long)x;
    return 0;
}

int cs__json_as_string(const json_t *v, const char *where, const char **out, cs_err *err)
{
    if (!json_is_string(v))
        return cs_err_set(err, CS_EINVAL, where, "expected a string, got %s",
                          cs__json_type_name(v));
    if (json_string_length(v) == 0)
        return cs_err_set(err, CS_EINVAL, where, "expected a non-empty string, got \"\"");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return cs_err_set(err, CS_EINVAL, where, "string contains a NUL character");
    *out = json_string_value(v);
    return 0;
}

/* Look obj[key] up: 1 with *v and path filled when present, 0 when absent and optional,
 * or the error for a missing required key. */
static int get_key(const json_t *obj, const char *parent, const char *key, int required,
                   const char *expected, json_t **v, char *path, cs_err *err)
{
    cs__jpath_key(path, CS_JPATH_MAX, parent, key);
    *v = json_object_get(obj, key);
    if (*v)
        return 1;
    if (required)
        return cs_err_set(err, CS_EINVAL, path, "missing required key (expected %s)", expected);
    return 0;
}

int cs__json_number(const json_t *obj, const char *parent, const char *key, int required,
                    double *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "a number", &v, path, err);
    if (rc <= 0)
        return rc;
    return cs__json_as_number(v, path, out, err);
}

int cs__json_positive(const json_t *obj, const char *parent, const char *key, int required,
                      double *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    double x;
    int rc = get_key(obj, parent, key, required, "a number > 0", &v, path, err);
    if (rc <= 0)
        return rc;
    if ((rc = cs__json_as_number(v, path, &x, err)) < 0)
        return rc;
    if (!(x > 0))
        return cs_err_set(err, CS_EINVAL, path, "must be > 0, got %g", x);
    *out = x;
    return 0;
}

int cs__json_range(const json_t *obj, const char *parent, const char *key, int required,
                   double lo, double hi, const char *unit, double *out, cs_err *err)
{
    char path[CS_JPATH_MAX], expected[96];
    json_t *v;
    double x;
    int rc;
    snprintf(expected, sizeof expected, "a number between %g and %g %s", lo, hi, unit);
    rc = get_key(obj, parent, key, required, expected, &v, path, err);
    if (rc <= 0)
        return rc;
    if ((rc = cs__json_as_number(v, path, &x, err)) < 0 ||
        (rc = cs_limit_check(x, lo, hi, unit, path, err)) < 0)
        return rc;
    *out = x;
    return 0;
}

int cs__json_nonneg(const json_t *obj, const char *parent, const char *key, int required,
                    double *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    double x;
    int rc = get_key(obj, parent, key, required, "a number >= 0", &v, path, err);
    if (rc <= 0)
        return rc;
    if ((rc = cs__json_as_number(v, path, &x, err)) < 0)
        return rc;
    if (!(x >= 0))
        return cs_err_set(err, CS_EINVAL, path, "must be >= 0, got %g", x);
    *out = x;
    return 0;
}

int cs__json_int(const json_t *obj, const char *parent, const char *key, int required,
                 long lo, long hi, long *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "an integer", &v, path, err);
    if (rc <= 0)
        return rc;
    return cs__json_as_int(v, path, lo, hi, out, err);
}

int cs__json_bool(const json_t *obj, const char *parent, const char *key, int required,
                  int *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "true or false", &v, path, err);
    if (rc <= 0)
        return rc;
    if (!json_is_boolean(v))
        return cs_err_set(err, CS_EINVAL, path, "expected true or false, got %s",
                          cs__json_type_name(v));
    *out = json_is_true(v);
    return 0;
}

int cs__json_string(const json_t *obj, const char *parent, const char *key, int required,
                    const char **out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "a string", &v, path, err);
    if (rc <= 0)
        return rc;
    return cs__json_as_string(v, path, out, err);
}

int cs__json_array(const json_t *obj, const char *parent, const char *key, int required,
                   json_t **out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc;
    *out = NULL;
    rc = get_key(obj, parent, key, required, "an array", &v, path, err);
    if (rc <= 0)
        return rc;
    if (!json_is_array(v))
        return cs_err_set(err, CS_EINVAL, path, "expected an array, got %s",
                          cs__json_type_name(v));
    *out = v;
    return 0;
}

int cs__json_object(const json_t *obj, const char *parent, const char *key, int required,
                    json_t **out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc;
    *out = NULL;
    rc = get_key(obj, parent, key, required, "an object", &v, path, err);
    if (rc <= 0)
        return rc;
    if (!json_is_object(v))
        return cs_err_set(err, CS_EINVAL, path, "expected an object, got %s",
                          cs__json_type_name(v));
    *out = v;
    return 0;
}

/* The problem list of `topo check` (topology.h): kinds append to it while checking. */
int cs_topo_problems_add(cs_topo_problems *p, const cs_err *e)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        cs_err *items = realloc(p->items, (size_t)cap * sizeof *items);
        if (!items)
            return CS_ENOMEM;
        p->items = items;
        p->cap = cap;
    }
    p->items[p->n++] = *e;
    return 0;
}

void cs_topo_problems_fini(cs_topo_problems *p)
{
    if (!p)
        return;
    free(p->items);
    memset(p, 0, sizeof *p);
}
