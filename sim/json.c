/* json.c: strict JSON readers with JSON-path error locations (core layer). Used by every
 * file format so that all of them word errors alike:
 * `links[3].bandwidth_GBps: must be > 0, got -5`. */
#include "sim/json.h"
#include "sim/limits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

json_t *cs_json_loadb(const char *text, size_t len, size_t flags, json_error_t *jerr)
{
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        text += 3;                   /* a UTF-8 byte order mark, as some editors write */
        len -= 3;
    }
    return json_loadb(text, len, flags, jerr);
}

void cs_jpath_key(char *out, size_t n, const char *parent, const char *key)
{
    if (parent && *parent)
        snprintf(out, n, "%s.%s", parent, key);
    else
        snprintf(out, n, "%s", key);
}

void cs_jpath_idx(char *out, size_t n, const char *parent, size_t i)
{
    snprintf(out, n, "%s[%zu]", parent ? parent : "", i);
}

/* Type names for messages, bare and with their article, by json_type. */
static const char *type_names(const json_t *v, int article)
{
    static const char *const names[][2] = {
        [JSON_OBJECT] = {"object", "an object"},   [JSON_ARRAY] = {"array", "an array"},
        [JSON_STRING] = {"string", "a string"},    [JSON_INTEGER] = {"number", "a number"},
        [JSON_REAL] = {"number", "a number"},      [JSON_TRUE] = {"boolean", "a boolean"},
        [JSON_FALSE] = {"boolean", "a boolean"},   [JSON_NULL] = {"null", "null"},
    };
    if (!v)
        return "nothing";
    if ((unsigned)json_typeof(v) >= sizeof names / sizeof names[0])
        return "?";
    return names[json_typeof(v)][article != 0];
}

const char *cs_json_type_name(const json_t *v)
{
    return type_names(v, 0);
}

const char *cs_json_type_a(const json_t *v)
{
    return type_names(v, 1);
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

int cs_json_check_keys(json_t *obj, const char *where, const char *const *allowed,
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
        cs_jpath_key(path, sizeof path, where, key);
        return cs_err_set(err, CS_EINVAL, path, "unknown key '%s' (known: %s)", key, known);
    }
    return 0;
}

/* A finite number; a wrong type is named with its article when article is set. */
static int number_of(const json_t *v, const char *where, int article, double *out, cs_err *err)
{
    if (!json_is_number(v))
        return cs_err_set(err, CS_EINVAL, where, "expected a number, got %s",
                          type_names(v, article));
    *out = json_number_value(v);
    if (!isfinite(*out))
        return cs_err_set(err, CS_EINVAL, where, "expected a finite number, got %g", *out);
    return 0;
}

/* x must be > 0, or >= 0 when nonneg is set. */
static int sign_check(double x, int nonneg, const char *where, cs_err *err)
{
    if (nonneg ? !(x >= 0) : !(x > 0))
        return cs_err_set(err, CS_EINVAL, where, "must be %s 0, got %g", nonneg ? ">=" : ">", x);
    return 0;
}

/* true or false; a wrong type is named with its article when article is set. */
static int bool_of(const json_t *v, const char *where, int article, int *out, cs_err *err)
{
    if (!json_is_boolean(v))
        return cs_err_set(err, CS_EINVAL, where, "expected true or false, got %s",
                          type_names(v, article));
    *out = json_is_true(v);
    return 0;
}

int cs_json_as_number(const json_t *v, const char *where, double *out, cs_err *err)
{
    return number_of(v, where, 0, out, err);
}

int cs_json_as_int(const json_t *v, const char *where, long lo, long hi, long *out, cs_err *err)
{
    json_int_t x;
    if (json_is_real(v))
        return cs_err_set(err, CS_EINVAL, where, "expected an integer, got %g",
                          json_real_value(v));
    if (!json_is_integer(v))
        return cs_err_set(err, CS_EINVAL, where, "expected an integer, got %s",
                          cs_json_type_name(v));
    x = json_integer_value(v);
    if (x < lo)
        return cs_err_set(err, CS_EINVAL, where, "must be >= %ld, got %lld", lo, (long long)x);
    if (x > hi)
        return cs_err_set(err, CS_EINVAL, where, "must be <= %ld, got %lld", hi, (long long)x);
    *out = (long)x;
    return 0;
}

int cs_json_as_string(const json_t *v, const char *where, const char **out, cs_err *err)
{
    if (!json_is_string(v))
        return cs_err_set(err, CS_EINVAL, where, "expected a string, got %s",
                          cs_json_type_name(v));
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
    cs_jpath_key(path, CS_JPATH_MAX, parent, key);
    *v = json_object_get(obj, key);
    if (*v)
        return 1;
    if (required)
        return cs_err_set(err, CS_EINVAL, path, "missing required key (expected %s)", expected);
    return 0;
}

int cs_json_number(const json_t *obj, const char *parent, const char *key, int required,
                   double *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "a number", &v, path, err);
    if (rc <= 0)
        return rc;
    return cs_json_as_number(v, path, out, err);
}

/* A number > 0, or >= 0 when nonneg is set (cs_json_positive, cs_json_nonneg). */
static int signed_key(const json_t *obj, const char *parent, const char *key, int required,
                      int nonneg, double *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    double x;
    int rc = get_key(obj, parent, key, required, nonneg ? "a number >= 0" : "a number > 0", &v,
                     path, err);
    if (rc <= 0)
        return rc;
    if ((rc = number_of(v, path, 0, &x, err)) < 0 || (rc = sign_check(x, nonneg, path, err)) < 0)
        return rc;
    *out = x;
    return 0;
}

int cs_json_positive(const json_t *obj, const char *parent, const char *key, int required,
                     double *out, cs_err *err)
{
    return signed_key(obj, parent, key, required, 0, out, err);
}

int cs_json_range(const json_t *obj, const char *parent, const char *key, int required,
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
    if ((rc = cs_json_as_number(v, path, &x, err)) < 0 ||
        (rc = cs_limit_check(x, lo, hi, unit, path, err)) < 0)
        return rc;
    *out = x;
    return 0;
}

int cs_json_nonneg(const json_t *obj, const char *parent, const char *key, int required,
                   double *out, cs_err *err)
{
    return signed_key(obj, parent, key, required, 1, out, err);
}

int cs_json_int(const json_t *obj, const char *parent, const char *key, int required,
                long lo, long hi, long *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "an integer", &v, path, err);
    if (rc <= 0)
        return rc;
    return cs_json_as_int(v, path, lo, hi, out, err);
}

int cs_json_bool(const json_t *obj, const char *parent, const char *key, int required,
                 int *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "true or false", &v, path, err);
    if (rc <= 0)
        return rc;
    return bool_of(v, path, 0, out, err);
}

int cs_json_string(const json_t *obj, const char *parent, const char *key, int required,
                   const char **out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc = get_key(obj, parent, key, required, "a string", &v, path, err);
    if (rc <= 0)
        return rc;
    return cs_json_as_string(v, path, out, err);
}

/* obj[key] of JSON type want, named expected ("an array"); *out borrowed, NULL if absent. */
static int typed_key(const json_t *obj, const char *parent, const char *key, int required,
                     json_type want, const char *expected, json_t **out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    int rc;
    *out = NULL;
    rc = get_key(obj, parent, key, required, expected, &v, path, err);
    if (rc <= 0)
        return rc;
    if (json_typeof(v) != want)
        return cs_err_set(err, CS_EINVAL, path, "expected %s, got %s", expected,
                          cs_json_type_name(v));
    *out = v;
    return 0;
}

int cs_json_array(const json_t *obj, const char *parent, const char *key, int required,
                  json_t **out, cs_err *err)
{
    return typed_key(obj, parent, key, required, JSON_ARRAY, "an array", out, err);
}

int cs_json_object(const json_t *obj, const char *parent, const char *key, int required,
                   json_t **out, cs_err *err)
{
    return typed_key(obj, parent, key, required, JSON_OBJECT, "an object", out, err);
}

/* The optional readers (plan wording). */

int cs_json_need(const json_t *obj, const char *parent, const char *key, cs_err *err)
{
    char path[CS_JPATH_MAX];
    if (json_object_get(obj, key))
        return 0;
    cs_jpath_key(path, sizeof path, parent, key);
    return cs_err_set(err, CS_EINVAL, path, "missing required key");
}

int cs_json_opt_int(const json_t *obj, const char *parent, const char *key, long lo, long hi,
                    long *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    double d;
    if (get_key(obj, parent, key, 0, NULL, &v, path, err) <= 0)
        return 0;
    if (!json_is_number(v))
        return cs_err_set(err, CS_EINVAL, path, "expected an integer, got %s",
                          cs_json_type_a(v));
    d = json_number_value(v);
    if (d != floor(d))
        return cs_err_set(err, CS_EINVAL, path, "expected an integer, got %g", d);
    if (d < (double)lo)
        return cs_err_set(err, CS_EINVAL, path, "must be >= %ld, got %g", lo, d);
    if (d > (double)hi)
        return cs_err_set(err, CS_EINVAL, path, "must be <= %ld, got %g", hi, d);
    *out = (long)d;
    return 0;
}

int cs_json_opt_intv(const json_t *obj, const char *parent, const char *key, long lo, long hi,
                     int *out, cs_err *err)
{
    long v = *out;
    int rc = cs_json_opt_int(obj, parent, key, lo, hi, &v, err);
    *out = (int)v;
    return rc;
}

int cs_json_opt_num(const json_t *obj, const char *parent, const char *key, int nonneg,
                    double *out, cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    double x;
    int rc;
    if (get_key(obj, parent, key, 0, NULL, &v, path, err) <= 0)
        return 0;
    if ((rc = number_of(v, path, 1, &x, err)) < 0 || (rc = sign_check(x, nonneg, path, err)) < 0)
        return rc;
    *out = x;
    return 0;
}

int cs_json_opt_bool(const json_t *obj, const char *parent, const char *key, int *out,
                     cs_err *err)
{
    char path[CS_JPATH_MAX];
    json_t *v;
    if (get_key(obj, parent, key, 0, NULL, &v, path, err) <= 0)
        return 0;
    return bool_of(v, path, 1, out, err);
}

int cs_json_opt_enum(const json_t *obj, const char *parent, const char *key,
                     const char *const *names, int *out, cs_err *err)
{
    char path[CS_JPATH_MAX], known[256] = "";
    json_t *v;
    int i;
    if (get_key(obj, parent, key, 0, NULL, &v, path, err) <= 0)
        return 0;
    if (!json_is_string(v))
        return cs_err_set(err, CS_EINVAL, path, "expected a string, got %s", cs_json_type_a(v));
    for (i = 0; names[i]; i++)
        if (!strcmp(names[i], json_string_value(v))) {
            *out = i;
            return 0;
        }
    append_list(known, sizeof known, names);
    return cs_err_set(err, CS_EINVAL, path, "unknown value '%s' (known: %s)",
                      json_string_value(v), known);
}
