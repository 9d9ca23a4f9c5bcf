/* logparse.c: what the log readers share (calibration layer): names, tokens, numbers,
 * tables, and ranks from the busbw/algbw ratio. What a run says about itself (command
 * lines, device lists) and the rank/node inference of a table are logparse_meta.c; the
 * front door (reading, format detection, the reader registry) is logparse_read.c. */
#include "calibration/logparse.h"
#include "calibration/logparse-private.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- names and small pieces */

const char *cs_log_format_name(cs_log_format f)
{
    switch (f) {
    case CS_LOG_NCCL_TEXT: return "nccl-tests text";
    case CS_LOG_NCCL_JSON: return "nccl-tests JSON";
    case CS_LOG_HCCL_TEXT: return "hccl_test text";
    }
    return "?";
}

const char *cs_log_src_name(cs_log_src s)
{
    static const char *const names[] = {"unknown", "devices", "command line", "busbw/algbw",
                                        "banner", "default"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void cs_log_opts_init(cs_log_opts *o)
{
    o->default_coll = CS_LOG_COLL_UNKNOWN;
    o->default_ranks = 0;
}

/* Test program base names (nccl-tests _perf, hccl_test _test) and their collectives. */
static const struct { const char *name; cs_coll coll; } programs[] = {
    {"all_reduce", CS_COLL_ALLREDUCE},     {"allreduce", CS_COLL_ALLREDUCE},
    {"all_gather", CS_COLL_ALLGATHER},     {"allgather", CS_COLL_ALLGATHER},
    {"reduce_scatter", CS_COLL_REDUCESCATTER}, {"reducescatter", CS_COLL_REDUCESCATTER},
    {"alltoall", CS_COLL_ALLTOALL},        {"all_to_all", CS_COLL_ALLTOALL},
    {"broadcast", CS_COLL_BROADCAST},      {"reduce", CS_COLL_REDUCE},
    {"gather", CS_COLL_GATHER},            {"scatter", CS_COLL_SCATTER},
    {"sendrecv", CS_COLL_SENDRECV},
};

/* Match prog (a path is allowed) against the program table. A name without a _perf/_test
 * suffix counts only when strict is 0 or it is unambiguous (has an underscore or is
 * "alltoall"), so a stray word such as "reduce" in a command line is not taken. */
int cs__log_coll_from_program(const char *prog, int strict, cs_coll *out)
{
    char base[64];
    const char *slash = strrchr(prog, '/');
    size_t n, i;
    int suffixed = 0;
    if (slash)
        prog = slash + 1;
    while (*prog == '"' || *prog == '\'')
        prog++;
    n = strcspn(prog, "\"'");
    if (n == 0 || n >= sizeof base)
        return CS_ENOENT;
    memcpy(base, prog, n);
    base[n] = '\0';
    for (i = 0; i < 2; i++) {
        static const char *const sfx[] = {"_perf", "_test"};
        size_t ls = strlen(sfx[i]);
        if (n > ls && !strcmp(base + n - ls, sfx[i])) {
            base[n - ls] = '\0';
            suffixed = 1;
            break;
        }
    }
    if (strict && !suffixed && !strchr(base, '_') && strcmp(base, "alltoall"))
        return CS_ENOENT;
    for (i = 0; i < sizeof programs / sizeof programs[0]; i++)
        if (!strcmp(base, programs[i].name)) {
            *out = programs[i].coll;
            return 0;
        }
    return CS_ENOENT;
}

int cs_log_coll_from_program(const char *prog, cs_coll *out)
{
    return cs__log_coll_from_program(prog, 0, out);
}

int cs__log_split(char *s, const char *extra_seps, char **tok, int max)
{
    int n = 0;
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || (extra_seps && strchr(extra_seps, *s))))
            *s++ = '\0';
        if (!*s)
            break;
        if (n < max)
            tok[n] = s;
        n++;
        while (*s && !isspace((unsigned char)*s) && !(extra_seps && strchr(extra_seps, *s)))
            s++;
    }
    return n < max ? n : max;
}

int cs__log_count(const char *s, const char *extra_seps)
{
    int n = 0, in_tok = 0;
    for (; *s; s++) {
        int sep = isspace((unsigned char)*s) || (extra_seps && strchr(extra_seps, *s));
        if (!sep && !in_tok && n < INT_MAX)
            n++;
        in_tok = !sep;
    }
    return n;
}

int cs__log_uint(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!isdigit((unsigned char)*s))
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end)
        return 0;
    *out = v;
    return 1;
}

int cs__log_int(const char *s, long *out)
{
    char *end;
    long v;
    if (!*s)
        return 0;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end)
        return 0;
    *out = v;
    return 1;
}

int cs__log_real(const char *s, double *out)
{
    char *end;
    double v;
    if (!strcmp(s, "N/A") || !strcmp(s, "n/a") || !strcmp(s, "-nan") || !strcmp(s, "nan")) {
        *out = NAN;
        return 1;
    }
    if (!*s || !(isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.'))
        return 0;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* ---------------------------------------------------------------- tables */

cs_log_table *cs__log_add_table(cs_log *log, const cs_log_opts *opts)
{
    cs_log_table *t;
    if (log->n_tables == log->cap_tables) {
        int cap = log->cap_tables ? 2 * log->cap_tables : 4;
        cs_log_table *nt = realloc(log->tables, (size_t)cap * sizeof *nt);
        if (!nt)
            return NULL;
        log->tables = nt;
        log->cap_tables = cap;
    }
    t = &log->tables[log->n_tables++];
    memset(t, 0, sizeof *t);
    t->coll = opts->default_coll;
    return t;
}

int cs__log_add_row(cs_log_table *t, const cs_log_row *row)
{
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows ? 2 * t->cap_rows : 32;
        cs_log_row *nr = realloc(t->rows, (size_t)cap * sizeof *nr);
        if (!nr)
            return CS_ENOMEM;
        t->rows = nr;
        t->cap_rows = cap;
    }
    if (t->n_rows == 0)
        t->first_line = row->line;
    t->rows[t->n_rows++] = *row;
    return 0;
}

void cs__log_row_init(cs_log_row *r)
{
    memset(r, 0, sizeof *r);
    r->root = -1;
    r->time_us = r->oop_time_us = r->ip_time_us = NAN;
    r->oop_algbw_GBps = r->oop_busbw_GBps = NAN;
    r->ip_algbw_GBps = r->ip_busbw_GBps = NAN;
    r->oop_wrong = r->ip_wrong = -1;
}

int cs_log_n_rows(const cs_log *log)
{
    int i, n = 0;
    for (i = 0; i < log->n_tables; i++)
        n += log->tables[i].n_rows;
    return n;
}

void cs_log_free(cs_log *log)
{
    int i;
    if (!log)
        return;
    for (i = 0; i < log->n_tables; i++) {
        free(log->tables[i].rows);
        free(log->tables[i].nccl_env);
    }
    free(log->tables);
    free(log->name);
    free(log);
}

/* ---------------------------------------------------------------- ranks from busbw */

/* Inverse of the busbw factor: the (real) n with factor(n) = f, or INFINITY past the
 * asymptote; -1 for collectives whose factor does not depend on n. */
static double factor_inverse(cs_coll c, double f)
{
    switch (c) {
    case CS_COLL_ALLREDUCE:
        return f >= 2.0 ? INFINITY : 2.0 / (2.0 - f);       /* f = 2(n-1)/n */
    case CS_COLL_ALLGATHER: case CS_COLL_REDUCESCATTER: case CS_COLL_ALLTOALL:
    case CS_COLL_GATHER: case CS_COLL_SCATTER:
        return f >= 1.0 ? INFINITY : 1.0 / (1.0 - f);       /* f = (n-1)/n */
    default:
        return -1.0;
    }
}

/* Fold one printed (algbw, busbw) pair into the ratio interval [*lo, *hi]. Printed values
 * carry +-0.005 of rounding. */
static void ratio_bounds(double a, double b, double *lo, double *hi)
{
    double l = (b - 0.005) / (a + 0.005), h = (b + 0.005) / (a - 0.005);
    if (l < 0)
        l = 0;
    if (l > *lo)
        *lo = l;
    if (h < *hi)
        *hi = h;
}

static int ranks_in(cs_coll coll, double lo, double hi)
{
    double nlo = factor_inverse(coll, lo), nhi = factor_inverse(coll, hi);
    double a = ceil(nlo - 1e-9), b = floor(nhi + 1e-9);
    if (nlo < 0 || lo > hi || !isfinite(a) || !isfinite(b) || a != b || a < 1 || a > 1e7)
        return 0;
    return (int)a;
}

int cs_log_ranks_from_busbw(cs_coll coll, const cs_log_row *rows, int n_rows)
{
    double lo = 0, hi = INFINITY, best_a = 0, blo = 0, bhi = INFINITY;
    int i, k, n;
    if ((unsigned)coll >= CS_COLL_COUNT || factor_inverse(coll, 0.5) < 0)
        return 0;
    for (i = 0; i < n_rows; i++)
        for (k = 0; k < 2; k++) {
            double a = k ? rows[i].ip_algbw_GBps : rows[i].oop_algbw_GBps;
            double b = k ? rows[i].ip_busbw_GBps : rows[i].oop_busbw_GBps;
            if (!(a >= 1.0) || !(b >= 0))
                continue;
            ratio_bounds(a, b, &lo, &hi);
            if (a > best_a) {
                best_a = a;
                blo = 0;
                bhi = INFINITY;
                ratio_bounds(a, b, &blo, &bhi);
            }
        }
    if (best_a <= 0)
        return 0;
    n = ranks_in(coll, lo, hi);
    /* Rows that disagree beyond rounding (a hand-edited or re-rounded table): trust the
     * row with the most significant digits. */
    return n ? n : ranks_in(coll, blo, bhi);
}
