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
/* A series about to be read with n rows: added to set under label (*si its index), with
 * room for the rows' closed-form times (*closed, freed by cs__series_end). where names the
 * source in an out-of-memory error (may be NULL). Returns 0 or CS_ENOMEM. */
int cs__series_begin(cs_series_set *set, const char *label, int is_measured, size_t n,
                     const char *where, double **closed, int *si, cs_err *err);
/* The end of series si, read with result rc: its closed-form series beside it (simulated
 * series), closed freed; after an error every series added since set had n0 goes. */
int cs__series_end(cs_series_set *set, int si, int n0, int is_measured, double *closed,
                   int rc, cs_err *err);
/* Read a collsim CSV (DESIGN §7 keys; RFC 4180 records of any length) into set: one
 * series per sweep (a new one where the rank count changes or the size stops growing). */
int cs__series_load_csv(cs_series_set *set, const char *path, const char *label,
                        int is_measured, cs_err *err);

#endif
