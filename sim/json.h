/* json.h: strict JSON readers with JSON-path error locations (core layer), shared by every
 * file format: topologies, NCCL tables, plans, models and GPUs.
 * Every reader names the JSON path of the value in cs_err.where (`links[3].bandwidth_GBps`)
 * and says what was expected and what was found (`must be > 0, got -5`). Readers that take
 * a key read obj[key]; the cs_json_as_* ones read a value already in hand.
 * Two wordings exist and stay as they are, because messages are part of the contract:
 * the key readers (cs_json_number ...) name types bare ("got string") and take a required
 * flag; the optional readers (cs_json_opt_* , used by plan, model and GPU files) name types
 * with their article ("got a string"), keep *out when the key is absent and take integers
 * written as reals (3.0). */
#ifndef CS_SIM_JSON_H
#define CS_SIM_JSON_H

#include <stddef.h>
#include <jansson.h>

#include "sim/err.h"

/* Largest JSON path kept, with its NUL (longer ones are truncated); as cs_err.where. */
#define CS_JPATH_MAX 256

/* json_loadb that skips a leading UTF-8 byte order mark. */
json_t *cs_json_loadb(const char *text, size_t len, size_t flags, json_error_t *jerr);

/* Join a path: parent.key (or key when parent is empty or NULL) / parent[i]. out has n
 * bytes. */
void cs_jpath_key(char *out, size_t n, const char *parent, const char *key);
void cs_jpath_idx(char *out, size_t n, const char *parent, size_t i);

/* Name of a JSON value's type for messages: "object", "array", "string", "number",
 * "boolean", "null" ("nothing" for NULL). */
const char *cs_json_type_name(const json_t *v);
/* The same with its article: "an object", "a number", ..., "null" ("nothing" for NULL). */
const char *cs_json_type_a(const json_t *v);

/* Reject keys of obj not in allowed (NULL-terminated), then not in also (may be NULL).
 * The error names the key's path and lists the known keys in the order given. */
int cs_json_check_keys(json_t *obj, const char *where, const char *const *allowed,
                       const char *const *also, cs_err *err);

/* Value readers. where is the value's JSON path. Numbers accept JSON integers and reals. */
int cs_json_as_number(const json_t *v, const char *where, double *out, cs_err *err);
int cs_json_as_int(const json_t *v, const char *where, long lo, long hi, long *out, cs_err *err);
int cs_json_as_string(const json_t *v, const char *where, const char **out, cs_err *err);

/* Key readers over an object. required: a missing key is an error (`missing required key`);
 * otherwise *out keeps the default passed in and 0 is returned. A JSON null counts as a
 * wrong type, not as missing. Strings stay owned by the JSON value. */
int cs_json_number(const json_t *obj, const char *parent, const char *key, int required,
                   double *out, cs_err *err);
/* As cs_json_number, and the value must be > 0. */
int cs_json_positive(const json_t *obj, const char *parent, const char *key, int required,
                     double *out, cs_err *err);
/* A number in [lo, hi] (sim/limits.h ranges): "must be between LO and HI UNIT, got V". */
int cs_json_range(const json_t *obj, const char *parent, const char *key, int required,
                  double lo, double hi, const char *unit, double *out, cs_err *err);
/* As cs_json_number, and the value must be >= 0. */
int cs_json_nonneg(const json_t *obj, const char *parent, const char *key, int required,
                   double *out, cs_err *err);
/* An integer in [lo, hi]; a JSON real (even 3.0) is refused. */
int cs_json_int(const json_t *obj, const char *parent, const char *key, int required,
                long lo, long hi, long *out, cs_err *err);
/* true or false. */
int cs_json_bool(const json_t *obj, const char *parent, const char *key, int required,
                 int *out, cs_err *err);
/* A non-empty string. */
int cs_json_string(const json_t *obj, const char *parent, const char *key, int required,
                   const char **out, cs_err *err);
/* An array (of any length) / an object; *out is borrowed from obj, NULL when absent. */
int cs_json_array(const json_t *obj, const char *parent, const char *key, int required,
                  json_t **out, cs_err *err);
int cs_json_object(const json_t *obj, const char *parent, const char *key, int required,
                   json_t **out, cs_err *err);

/* Optional readers (plan wording, see the top): an absent key keeps *out and returns 0. */
/* obj[key] must be present: "missing required key". */
int cs_json_need(const json_t *obj, const char *parent, const char *key, cs_err *err);
/* A whole number in [lo, hi], written as an integer or as a real with no fraction. */
int cs_json_opt_int(const json_t *obj, const char *parent, const char *key, long lo, long hi,
                    long *out, cs_err *err);
int cs_json_opt_intv(const json_t *obj, const char *parent, const char *key, long lo, long hi,
                     int *out, cs_err *err);
/* A number > 0, or >= 0 when nonneg is set. */
int cs_json_opt_num(const json_t *obj, const char *parent, const char *key, int nonneg,
                    double *out, cs_err *err);
/* true or false. */
int cs_json_opt_bool(const json_t *obj, const char *parent, const char *key, int *out,
                     cs_err *err);
/* A string out of names (NULL-terminated); *out gets its index. An unknown one lists them. */
int cs_json_opt_enum(const json_t *obj, const char *parent, const char *key,
                     const char *const *names, int *out, cs_err *err);

#endif
