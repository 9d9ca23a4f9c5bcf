/* jsonutil.h: strict JSON readers shared by the topology kinds (topologies layer, private).
 * Every reader names the JSON path of the value in cs_err.where (`links[3].bandwidth_GBps`)
 * and says what was expected and what was found (`must be > 0, got -5`). Readers that take
 * a key read obj[key]; the cs__json_as_* ones read a value already in hand. */
#ifndef CS_TOPOLOGIES_JSONUTIL_H
#define CS_TOPOLOGIES_JSONUTIL_H

#include <stddef.h>
#include <jansson.h>

#include "sim/err.h"

/* Largest JSON path kept (longer ones are truncated). */
#define CS_JPATH_MAX 200

/* json_loadb that skips a leading UTF-8 byte order mark. */
json_t *cs__json_loadb(const char *text, size_t len, size_t flags, json_error_t *jerr);

/* Join a path: parent.key (or key when parent is empty) / parent[i]. out has n bytes. */
void cs__jpath_key(char *out, size_t n, const char *parent, const char *key);
void cs__jpath_idx(char *out, size_t n, const char *parent, size_t i);

/* Name of a JSON value's type for messages: "object", "array", "string", "number",
 * "boolean", "null" ("nothing" for NULL). */
const char *cs__json_type_name(const json_t *v);

/* Reject keys of obj not in allowed (NULL-terminated), then not in also (may be NULL).
 * The error names the key's path and lists the known keys in the order given. */
int cs__json_check_keys(json_t *obj, const char *where, const char *const *allowed,
                        const char *const *also, cs_err *err);

/* Value readers. where is the value's JSON path. Numbers accept JSON integers and reals. */
int cs__json_as_number(const json_t *v, const char *where, double *out, cs_err *err);
int cs__json_as_int(const json_t *v, const char *where, long lo, long hi, long *out, cs_err *err);
int cs__json_as_string(const json_t *v, const char *where, const char **out, cs_err *err);

/* Key readers over an object. required: a missing key is an error (`missing required key`);
 * otherwise *out keeps the default passed in and 0 is returned. A JSON null counts as a
 * wrong type, not as missing. Strings stay owned by the JSON value. */
int cs__json_number(const json_t *obj, const char *parent, const char *key, int required,
                    double *out, cs_err *err);
/* As cs__json_number, and the value must be > 0. */
int cs__json_positive(const json_t *obj, const char *parent, const char *key, int required,
                      double *out, cs_err *err);
/* As cs__json_number, and the value must be >= 0. */
/* A number in [lo, hi] (sim/limits.h ranges): "must be between LO and HI UNIT, got V". */
int cs__json_range(const json_t *obj, const char *parent, const char *key, int required,
                   double lo, double hi, const char *unit, double *out, cs_err *err);
int cs__json_nonneg(const json_t *obj, const char *parent, const char *key, int required,
                    double *out, cs_err *err);
/* An integer in [lo, hi]. */
int cs__json_int(const json_t *obj, const char *parent, const char *key, int required,
                 long lo, long hi, long *out, cs_err *err);
/* true or false. */
int cs__json_bool(const json_t *obj, const char *parent, const char *key, int required,
                  int *out, cs_err *err);
/* A non-empty string. */
int cs__json_string(const json_t *obj, const char *parent, const char *key, int required,
                    const char **out, cs_err *err);
/* An array (of any length) / an object; *out is borrowed from obj, NULL when absent. */
int cs__json_array(const json_t *obj, const char *parent, const char *key, int required,
                   json_t **out, cs_err *err);
int cs__json_object(const json_t *obj, const char *parent, const char *key, int required,
                    json_t **out, cs_err *err);

#endif
