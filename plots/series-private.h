/* series-private.h: pieces the series readers share (plots layer, series*.c only). */
#ifndef CS_SERIES_PRIVATE_H
#define CS_SERIES_PRIVATE_H

#include "plots/plot.h"

/* Drop the last series of set. */
void cs__series_pop(cs_series_set *set);
/* "algo, topo" (or the file's base name) as a series label. */
void cs__series_default_label(char *buf, size_t len, const char *algo, const char *topo,
                              const char *path);
/* A point's figures finite and positive where given; error at where otherwise. */
int cs__series_check_point(const cs_point *p, const char *where, cs_err *err);
/* The closed forms of series si (per point, NAN = none) as a dashed series beside it. */
int cs__series_add_closed_form(cs_series_set *set, int si, const double *closed, cs_err *err);
/* Read a collsim CSV (DESIGN §7 keys; RFC 4180 records of any length) into set: one
 * series per sweep (a new one where the rank count changes or the size stops growing). */
int cs__series_load_csv(cs_series_set *set, const char *path, const char *label,
                        int is_measured, cs_err *err);

#endif
