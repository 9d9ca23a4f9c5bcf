/* logparse_rows.c: the tables of the text readers (calibration layer): column layouts
 * from nccl-tests and hccl_test header lines (or the default ones), and rows read against
 * them, a table closed. A row whose columns do not fit stops the parse with "name:line:
 * why". The line scanner (logparse_text.c) calls it; it calls nothing there. */
#include "calibration/logparse.h"
#include "calibration/logtext-private.h"
#include "sim/limits.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void layout_nccl(cs__log_layout *l, int with_root)
{
    int o = with_root ? 1 : 0, g;
    l->ncols = 12 + o;
    l->size = 0;
    l->count = 1;
    l->type = 2;
    l->redop = 3;
    l->root = with_root ? 4 : -1;
    for (g = 0; g < 2; g++) {
        l->time[g] = 4 + o + 4 * g;
        l->algbw[g] = 5 + o + 4 * g;
        l->busbw[g] = 6 + o + 4 * g;
        l->wrong[g] = 7 + o + 4 * g;
    }
}

static void layout_clear(cs__log_layout *l)
{
    int g;
    memset(l, 0, sizeof *l);
    l->size = l->count = l->type = l->redop = l->root = -1;
    for (g = 0; g < 2; g++)
        l->time[g] = l->algbw[g] = l->busbw[g] = l->wrong[g] = -1;
}

/* A header line "#  size  count  type  redop  root  time  algbw  busbw #wrong  time ...":
 * column positions by name. Returns 1 if it was a header. */
int cs__logtext_header(cs__log_reader *r, char *body)
{
    char buf[1024], *tok[64];
    cs__log_layout l;
    int n, i, g = -1, has_size = 0, has_time = 0;
    snprintf(buf, sizeof buf, "%s", body);
    n = cs__log_split(buf, NULL, tok, 64);
    for (i = 0; i < n; i++) {
        has_size |= !strcmp(tok[i], "size");
        has_time |= !strcmp(tok[i], "time");
    }
    if (!has_size || !has_time)
        return 0;
    layout_clear(&l);
    l.ncols = n;
    for (i = 0; i < n; i++) {
        const char *t = tok[i];
        if (!strcmp(t, "size")) l.size = i;
        else if (!strcmp(t, "count")) l.count = i;
        else if (!strcmp(t, "type")) l.type = i;
        else if (!strcmp(t, "redop")) l.redop = i;
        else if (!strcmp(t, "root")) l.root = i;
        else if (!strcmp(t, "time") && g < 1) l.time[++g] = i;
        else if (g >= 0 && !strcmp(t, "algbw")) l.algbw[g] = i;
        else if (g >= 0 && !strcmp(t, "busbw")) l.busbw[g] = i;
        else if (g >= 0 && (!strcmp(t, "#wrong") || !strcmp(t, "wrong") || !strcmp(t, "error")))
            l.wrong[g] = i;
    }
    if (l.size != 0)
        return 0;
    cs__logtext_close_table(r);
    r->lay = l;
    r->has_layout = 1;
    return 1;
}

/* Fail at the current line: where = "name:line". */
static int row_err(cs__log_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int row_err(cs__log_reader *r, const char *fmt, ...)
{
    char where[320];
    va_list ap;
    snprintf(where, sizeof where, "%s:%d", r->log->name, r->line);
    va_start(ap, fmt);
    cs_err_vset(r->err, CS_EPARSE, where, fmt, ap);
    va_end(ap);
    return CS_EPARSE;
}

/* One column value of a row: a number >= 0, or N/A (NAN); absent columns give NAN. */
static int col_real(cs__log_reader *r, char **tok, int idx, const char *what, double *out)
{
    *out = NAN;
    if (idx < 0)
        return 0;
    if (cs__log_real(tok[idx], out) && !(*out < 0)) {
        /* a time beyond the limit is a unit mistake and would make every error "inf%" */
        if (!strcmp(what, "time") || !strcmp(what, "aveg_time"))
            if (*out > CS_LIMIT_TIME_MAX_US)
                return row_err(r, "column %d (%s): must be at most %g us, got '%s'", idx + 1,
                               what, CS_LIMIT_TIME_MAX_US, tok[idx]);
        return 0;
    }
    return row_err(r, "column %d (%s): expected a number >= 0 or N/A, got '%s'", idx + 1,
                   what, tok[idx]);
}

/* The size column: a whole number of bytes up to CS_LIMIT_MAX_BYTES. */
static int col_size(cs__log_reader *r, char **tok, int idx, const char *what, uint64_t *out)
{
    if (!cs__log_uint(tok[idx], out) && tok[idx][strspn(tok[idx], "0123456789")] != '\0')
        return row_err(r, "column %d (%s): expected a whole number of bytes, got '%s'",
                       idx + 1, what, tok[idx]);
    if (tok[idx][strspn(tok[idx], "0123456789")] == '\0' && strlen(tok[idx]) > 16)
        *out = UINT64_MAX;           /* all digits but beyond 2^64: too large, not "bad" */
    if (*out > CS_LIMIT_MAX_BYTES)
        return row_err(r, "column %d (%s): must be at most %llu bytes (1 PiB), got '%s'",
                       idx + 1, what, (unsigned long long)CS_LIMIT_MAX_BYTES, tok[idx]);
    return 0;
}

static int col_wrong(const char *s, int *out)
{
    double v;
    long l;
    if (!strcmp(s, "N/A") || !strcmp(s, "n/a")) {
        *out = -1;
        return 1;
    }
    if (cs__log_int(s, &l)) {
        *out = (int)l;
        return 1;
    }
    if (cs__log_real(s, &v) && isfinite(v)) {
        *out = v != 0;            /* old nccl-tests printed a max error such as 0e+00 */
        return 1;
    }
    return 0;
}

static int add_row(cs__log_reader *r, cs_log_row *row)
{
    int rc;
    if (r->cur && row->size_bytes < r->last_size)
        cs__logtext_close_table(r);      /* sizes go down again: a new table of the same run */
    if (!r->cur && !(r->cur = cs__log_add_table(r->log, r->opts)))
        return cs_err_set(r->err, CS_ENOMEM, r->log->name, "out of memory");
    if ((rc = cs__log_add_row(r->cur, row)) < 0)
        return cs_err_set(r->err, rc, r->log->name, "out of memory");
    r->last_size = row->size_bytes;
    r->rows_since_reset++;
    return 0;
}

static int column_count_error(cs__log_reader *r, int want, int got)
{
    if (r->line == r->last_line)
        return row_err(r, "expected %d columns, got %d: the log ends inside this row "
                       "(truncated)", want, got);
    return row_err(r, "expected %d columns, got %d", want, got);
}

/* An nccl-tests row. */
int cs__logtext_nccl_row(cs__log_reader *r, char *s)
{
    char *tok[64];
    cs__log_layout def;
    const cs__log_layout *l = &r->lay;
    cs_log_row row;
    long root;
    int n_all = cs__log_count(s, NULL), n = cs__log_split(s, NULL, tok, 64), g, rc;
    if (!r->has_layout) {
        layout_nccl(&def, n != 12);
        l = &def;
    }
    if (n_all != l->ncols)
        return column_count_error(r, l->ncols, n_all);
    cs__log_row_init(&row);
    row.line = r->line;
    if ((rc = col_size(r, tok, l->size, "size", &row.size_bytes)) < 0)
        return rc;
    if (l->count >= 0 && !cs__log_uint(tok[l->count], &row.count))
        return row_err(r, "column %d (count): expected a whole number of elements, got '%s'",
                       l->count + 1, tok[l->count]);
    if (l->type >= 0)
        snprintf(row.type, sizeof row.type, "%s", tok[l->type]);
    if (l->redop >= 0)
        snprintf(row.redop, sizeof row.redop, "%s", tok[l->redop]);
    if (l->root >= 0) {
        if (!cs__log_int(tok[l->root], &root))
            return row_err(r, "column %d (root): expected an integer, got '%s'", l->root + 1,
                           tok[l->root]);
        row.root = (int)root;
    }
    for (g = 0; g < 2; g++) {
        double *t = g ? &row.ip_time_us : &row.oop_time_us;
        double *a = g ? &row.ip_algbw_GBps : &row.oop_algbw_GBps;
        double *b = g ? &row.ip_busbw_GBps : &row.oop_busbw_GBps;
        int *w = g ? &row.ip_wrong : &row.oop_wrong;
        if ((rc = col_real(r, tok, l->time[g], "time", t)) < 0 ||
            (rc = col_real(r, tok, l->algbw[g], "algbw", a)) < 0 ||
            (rc = col_real(r, tok, l->busbw[g], "busbw", b)) < 0)
            return rc;
        if (l->wrong[g] >= 0 && !col_wrong(tok[l->wrong[g]], w))
            return row_err(r, "column %d (#wrong): expected a count or N/A, got '%s'",
                           l->wrong[g] + 1, tok[l->wrong[g]]);
    }
    row.time_us = isfinite(row.oop_time_us) ? row.oop_time_us : row.ip_time_us;
    if (!isfinite(row.time_us))
        return row_err(r, "no time in this row: out-of-place and in-place are both missing");
    return add_row(r, &row);
}

/* hccl_test header: "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): |
 * check_result:" (the bars are optional). */
void cs__logtext_hccl_header(cs__log_reader *r, char *s)
{
    char buf[1024], *tok[32];
    cs__log_layout l;
    int n, i;
    snprintf(buf, sizeof buf, "%s", s);
    n = cs__log_split(buf, "|", tok, 32);
    layout_clear(&l);
    l.ncols = n;
    for (i = 0; i < n; i++) {
        if (!strncmp(tok[i], "data_size", 9)) l.size = i;
        else if (!strncmp(tok[i], "aveg_time", 9) || !strncmp(tok[i], "avg_time", 8))
            l.time[0] = i;
        else if (!strncmp(tok[i], "alg_bandwidth", 13)) l.algbw[0] = i;
        else if (!strncmp(tok[i], "check_result", 12)) l.wrong[0] = i;
    }
    if (l.size != 0 || l.time[0] < 0)
        return;
    cs__logtext_close_table(r);
    r->lay = l;
    r->has_layout = 1;
}

/* Element size of an hccl_test -d type; 0 if unknown. */
static int hccl_elt_bytes(const char *t)
{
    static const struct { const char *name; int bytes; } types[] = {
        {"int8", 1}, {"uint8", 1}, {"int16", 2}, {"uint16", 2}, {"fp16", 2}, {"bfp16", 2},
        {"bf16", 2}, {"int32", 4}, {"uint32", 4}, {"fp32", 4}, {"float", 4}, {"int64", 8},
        {"uint64", 8}, {"fp64", 8}, {"double", 8}};
    size_t i;
    for (i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(t, types[i].name))
            return types[i].bytes;
    return 0;
}

/* An hccl_test row: size | time | algbw | check_result. */
int cs__logtext_hccl_row(cs__log_reader *r, char *s)
{
    char *tok[32];
    cs__log_layout def;
    const cs__log_layout *l = &r->lay;
    cs_log_row row;
    int n_all = cs__log_count(s, "|"), n = cs__log_split(s, "|", tok, 32), rc, elt;
    (void)n;
    if (!r->has_layout) {
        layout_clear(&def);
        def.ncols = 4;
        def.size = 0;
        def.time[0] = 1;
        def.algbw[0] = 2;
        def.wrong[0] = 3;
        l = &def;
    }
    if (n_all != l->ncols)
        return column_count_error(r, l->ncols, n_all);
    cs__log_row_init(&row);
    row.line = r->line;
    if ((rc = col_size(r, tok, l->size, "data_size", &row.size_bytes)) < 0)
        return rc;
    if ((rc = col_real(r, tok, l->time[0], "aveg_time", &row.oop_time_us)) < 0 ||
        (rc = col_real(r, tok, l->algbw[0], "alg_bandwidth", &row.oop_algbw_GBps)) < 0)
        return rc;
    if (l->wrong[0] >= 0) {
        const char *c = tok[l->wrong[0]];
        row.oop_wrong = !strcmp(c, "success") ? 0 : (!strcmp(c, "NULL") ? -1 : 1);
    }
    snprintf(row.type, sizeof row.type, "%s", r->meta.dtype[0] ? r->meta.dtype : "fp32");
    snprintf(row.redop, sizeof row.redop, "%s", r->meta.redop);
    elt = hccl_elt_bytes(row.type);
    row.count = elt ? row.size_bytes / (uint64_t)elt : 0;
    row.time_us = row.oop_time_us;
    if (!isfinite(row.time_us))
        return row_err(r, "column %d (aveg_time): no time in this row", l->time[0] + 1);
    return add_row(r, &row);
}

/* Close the table being filled: infer its collective, ranks and nodes. hccl_test prints
 * no busbw: derive it as nccl-tests would, algbw x factor(collective, ranks). */
void cs__logtext_close_table(cs__log_reader *r)
{
    cs_log_table *t = r->cur;
    int i;
    if (!t)
        return;
    cs__log_table_finish(t, &r->meta, r->opts);
    if (r->is_hccl && t->coll != CS_LOG_COLL_UNKNOWN && t->ranks > 0)
        for (i = 0; i < t->n_rows; i++)
            t->rows[i].oop_busbw_GBps =
                t->rows[i].oop_algbw_GBps * cs_coll_busbw_factor(t->coll, t->ranks);
    r->cur = NULL;
}
