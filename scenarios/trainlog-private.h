/* trainlog-private.h: what the training-log readers share inside scenarios/ (not the
 * layer's interface): list and number helpers (trainlog_util.c) and the torchtitan reader
 * (trainlog_titan.c) that trainlog.c dispatches to. */
#ifndef CS_SCENARIOS_TRAINLOG_PRIVATE_H
#define CS_SCENARIOS_TRAINLOG_PRIVATE_H

#include "scenarios/trainlog.h"

/* Append "s" to a sep-separated list of n bytes (dropped when it does not fit). */
void cs__tlog_list_add(char *list, size_t n, const char *sep, const char *s);
/* The number after "key" on line into *out: 1 when found, else 0. Thousands separators
 * ("7,026") are read when commas is set. */
int cs__tlog_num_after(const char *line, const char *key, int commas, double *out);
/* The median of v[0..n) (sorts v); n > 0. */
double cs__tlog_median(double *v, int n);

/* Does text (NUL-terminated) look like a torchtitan log (step lines with tps/wps, or a
 * "Building ... with ...Args(" line)? */
int cs__tlog_is_titan(const char *text);
/* Read a torchtitan log (text NUL-terminated and writable: the reader cuts it into
 * lines) into t (initialised by the caller; name for messages). */
int cs__tlog_titan_parse(char *text, const char *name, cs_trainlog *t, cs_err *err);

#endif
