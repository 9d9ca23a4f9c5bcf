/* jread.c: strict JSON key readers for plan files (scenarios layer). */
#include "scenarios/jread.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cs__jr_path(char *out, size_t n, const char *parent, const char *key)
{
    if (parent && parent[0])
        snprintf(out, n, "%s.%s", parent, key);
    else
        snprintf(out, n, "%s", key);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

int cs__jr_keys(json_t *obj, const char *parent, const char *const *allowed, cs_err *err)
{
    const char *k;
    json_t *v;
    char where[256], known[512];
    json_object_foreach(obj, k, v) {
        int i, ok = 0;
        for (i = 0; allowed[i]; i++)
            if (!strcmp(k, allowed[i]))
                ok = 1;
        if (ok)
            continue;
        known[0] = '\0';
        for (i = 0; allowed[i]; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, allowed[i], sizeof known - strlen(known) - 1);
        }
        cs__jr_path(where, sizeof where, parent, k);
        return cs_err_set(err, CS_EINVAL, where, "unknown key '%s' (known: %s)", k, known);
    }
    return 0;
}

int cs__jr_need(json_t *obj, const char *parent, const char *key, cs_err *err)
{
    char where[256];
    if (json_object_get(obj, key))
        return 0;
    cs__jr_path(where, sizeof where, parent, key);
    return cs_err_set(err, CS_EINVAL, where, "missing required key");
}

int cs__jr_int(json_t *obj, const char *parent, const char *key, long lo, long hi, long *out,
               cs_err *err)
{
    json_t *v = json_object_get(obj, key);
    char where[256];
    double d;
    if (!v)
        return 0;
    cs__jr_path(where, sizeof where, parent, key);
    if (!json_is_number(v))
        return cs_err_set(err, CS_EINVAL, where, "expected an integer, got %s", type_name(v));
    d = json_number_value(v);
    if (d != floor(d))
        return cs_err_set(err, CS_EINVAL, where, "expected an integer, got %g", d);
    if (d < (double)lo)
        return cs_err_set(err, CS_EINVAL, where, "must be >= %ld, got %g", lo, d);
    if (d > (double)hi)
        return cs_err_set(err, CS_EINVAL, where, "must be <= %ld, got %g", hi, d);
    *out = (long)d;
    return 0;
}

int cs__jr_intv(json_t *obj, const char *parent, const char *key, long lo, long hi, int *out,
                cs_err *err)
{
    long v = *out;
    int rc = cs__jr_int(obj, parent, key, lo, hi, &v, err);
    *out = (int)v;
    return rc;
}

int cs__jr_num(json_t *obj, const char *parent, const char *key, int nonneg, double *out,
               cs_err *err)
{
    json_t *v = json_object_get(obj, key);
    char where[256];
    double d;
    if (!v)
        return 0;
    cs__jr_path(where, sizeof where, parent, key);
    if (!json_is_number(v))
        return cs_err_set(err, CS_EINVAL, where, "expected a number, got %s", type_name(v));
    d = json_number_value(v);
    if (nonneg ? !(d >= 0) : !(d > 0))
        return cs_err_set(err, CS_EINVAL, where, "must be %s 0, got %g", nonneg ? ">=" : ">", d);
    *out = d;
    return 0;
}

int cs__jr_bool(json_t *obj, const char *parent, const char *key, int *out, cs_err *err)
{
    json_t *v = json_object_get(obj, key);
    char where[256];
    if (!v)
        return 0;
    cs__jr_path(where, sizeof where, parent, key);
    if (!json_is_boolean(v))
        return cs_err_set(err, CS_EINVAL, where, "expected true or false, got %s", type_name(v));
    *out = json_is_true(v);
    return 0;
}

int cs__jr_enum(json_t *obj, const char *parent, const char *key, const char *const *names,
                int *out, cs_err *err)
{
    json_t *v = json_object_get(obj, key);
    char where[256], known[256] = "";
    int i;
    if (!v)
        return 0;
    cs__jr_path(where, sizeof where, parent, key);
    if (!json_is_string(v))
        return cs_err_set(err, CS_EINVAL, where, "expected a string, got %s", type_name(v));
    for (i = 0; names[i]; i++) {
        if (!strcmp(names[i], json_string_value(v))) {
            *out = i;
            return 0;
        }
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, names[i], sizeof known - strlen(known) - 1);
    }
    return cs_err_set(err, CS_EINVAL, where, "unknown value '%s' (known: %s)",
                      json_string_value(v), known);
}
