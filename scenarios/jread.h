/* jread.h: strict JSON key readers for plan files (scenarios layer, private). Each names
 * the JSON path in cs_err.where ("parallel.tp") and says what was expected and found. */
#ifndef CS_SCENARIOS_JREAD_H
#define CS_SCENARIOS_JREAD_H

#include <jansson.h>
#include "sim/err.h"

/* "parent.key" into a static-size buffer. */
void cs__jr_path(char *out, size_t n, const char *parent, const char *key);
/* Reject keys not in allowed (NULL-terminated), listing the known ones. */
int cs__jr_keys(json_t *obj, const char *parent, const char *const *allowed, cs_err *err);
/* An integer in [lo, hi]; absent keeps *out. */
int cs__jr_int(json_t *obj, const char *parent, const char *key, long lo, long hi, long *out,
               cs_err *err);
int cs__jr_intv(json_t *obj, const char *parent, const char *key, long lo, long hi, int *out,
                cs_err *err);
/* A number > 0 (or >= 0 with nonneg); absent keeps *out. */
int cs__jr_num(json_t *obj, const char *parent, const char *key, int nonneg, double *out,
               cs_err *err);
/* true/false (absent keeps *out). */
int cs__jr_bool(json_t *obj, const char *parent, const char *key, int *out, cs_err *err);
/* A string out of a list of names; *out gets its index (absent keeps *out). */
int cs__jr_enum(json_t *obj, const char *parent, const char *key, const char *const *names,
                int *out, cs_err *err);
/* Required-key check. */
int cs__jr_need(json_t *obj, const char *parent, const char *key, cs_err *err);

#endif
