/* series_load.c: chart series read from files (plots layer): collsim JSON and CSV results
 * (DESIGN §7 keys; CSV as RFC 4180 records of any length, columns by header name, one series
 * per sweep) and nccl-tests/rccl-tests logs (calibration/logparse.h). jansson stays at this
 * load edge; the series set itself is series.c. */
#include "plots/series-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "calibration/logparse.h"

/* Split a CSV line in place at commas (fields may be double-quoted). Returns the count. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        char *out;
        fields[n++] = out = p;
        if (*p == '"') {
            p++;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                *out++ = *p++;
            }
            if (*p == '"')
                p++;
            while (*p && *p != ',')
                p++;
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        if (*p != ',') {
            *out = '\0';
            break;
        }
        *out = '\0';
        p++;
    }
    return n;
}

enum { COL_SIZE, COL_TIME, COL_ALGBW, COL_BUSBW, COL_RANKS, COL_CLOSED, COL_ALGO, COL_TOPO,
       N_COLS };
static const char *const csv_keys[N_COLS] = {
    "size_bytes", "time_us", "algbw_GBps", "busbw_GBps", "ranks", "closed_form_us",
    "algorithm", "topology"
};
#define N_NUM_COLS 6       /* the numeric columns come first */

static int csv_number(const char *s, double *out)
{
    char *end;
    *out = NAN;
    if (!*s)
        return 0;
    errno = 0;
    *out = strtod(s, &end);
    return (*end || errno == ERANGE) ? -1 : 0;
}

/* Read one CSV record of any length (RFC 4180: a quoted field may hold commas, doubled
 * quotes and line breaks) into *buf, without its line break. *line is the physical line
 * the record starts on, *next_line the line after it. Returns 1, 0 at the end,
 * CS_EINVAL when the file ends inside a quoted field, or CS_ENOMEM. A UTF-8 byte order mark at the start of the file is skipped. */
static int csv_record(FILE *f, char **buf, size_t *cap, int *line, int *next_line)
{
    size_t n = 0;
    int c, quoted = 0, any = 0;
    *line = *next_line;
    while ((c = getc(f)) != EOF) {
        any = 1;
        if (c == '"')
            quoted = !quoted;
        if (c == '\n') {
            ++*next_line;
            if (!quoted)
                break;
        }
        if (n + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 4096;
            char *nb = realloc(*buf, ncap);
            if (!nb)
                return CS_ENOMEM;
            *buf = nb;
            *cap = ncap;
        }
        (*buf)[n++] = (char)c;
    }
    if (!any)
        return 0;
    if (quoted)
        return CS_EINVAL;             /* the file ends inside a quoted field */
    if (!*buf && !(*buf = malloc(*cap = 1)))
        return CS_ENOMEM;
    (*buf)[n] = '\0';
    if (n > 0 && (*buf)[n - 1] == '\r')
        (*buf)[n - 1] = '\0';
    if (*line == 1 && !strncmp(*buf, "\xEF\xBB\xBF", 3))
        memmove(*buf, *buf + 3, strlen(*buf + 3) + 1);
    return 1;
}

#define CSV_MAX_FIELDS 256

/* The sweep being read from a CSV: its points, closed forms, algorithm and topology. */
typedef struct csv_sweep {
    int si;                  /* index of its series in the set, -1 before the first row */
    double *closed;          /* per point: closed_form_us or NAN (owned) */
    int cap;
    char algo[128], topo[128];
    int mixed_algo;          /* the algorithm changes from size to size (auto) */
} csv_sweep;

/* Close the sweep: its label (given, else algorithm and topology) and closed forms. */
static int csv_close(cs_series_set *set, csv_sweep *cs, const char *path, const char *label,
                     int is_measured, cs_err *err)
{
    char lab[300];
    cs_series *s;
    if (cs->si < 0)
        return 0;
    s = &set->items[cs->si];
    cs__series_default_label(lab, sizeof lab, cs->mixed_algo ? "auto" : cs->algo, cs->topo, path);
    free(s->label);
    if (!(s->label = strdup(label ? label : lab)))
        return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    if (!is_measured && cs__series_add_closed_form(set, cs->si, cs->closed, err))
        return CS_ENOMEM;
    cs->si = -1;
    cs->mixed_algo = 0;
    return 0;
}

/* One data row into the current sweep; a new sweep starts where the rank count changes or
 * the size does not grow (the CSV of a sweep over ranks or algorithms). */
static int csv_row(cs_series_set *set, csv_sweep *cs, const cs_point *p, double closed,
                   const char *algo, const char *topo, const char *path, const char *label,
                   int is_measured, cs_err *err)
{
    cs_series *s = cs->si >= 0 ? &set->items[cs->si] : NULL;
    if (s && s->n_pts > 0 && (s->pts[s->n_pts - 1].ranks != p->ranks ||
                              s->pts[s->n_pts - 1].size_bytes >= p->size_bytes)) {
        if (csv_close(set, cs, path, label, is_measured, err))
            return CS_ENOMEM;
        s = NULL;
    }
    if (!s) {
        if (!(s = cs_series_add(set, "", is_measured)))
            return cs_err_set(err, CS_ENOMEM, path, "out of memory");
        cs->si = set->n - 1;
        snprintf(cs->algo, sizeof cs->algo, "%s", algo);
    }
    if (s->n_pts == cs->cap) {
        int nc = cs->cap ? cs->cap * 2 : 32;
        double *nv = realloc(cs->closed, (size_t)nc * sizeof *nv);
        if (!nv)
            return cs_err_set(err, CS_ENOMEM, path, "out of memory");
        cs->closed = nv;
        cs->cap = nc;
    }
    cs->closed[s->n_pts] = closed;
    if (s->n_pts > 0 && strcmp(cs->algo, algo))
        cs->mixed_algo = 1;
    snprintf(cs->algo, sizeof cs->algo, "%s", algo);
    snprintf(cs->topo, sizeof cs->topo, "%s", topo);
    if (cs_series_push(s, p, NAN))
        return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    return 0;
}

static int load_csv_lines(cs_series_set *set, FILE *f, const char *path, const char *label,
                          int is_measured, cs_err *err)
{
    char *line = NULL, where[600];
    char *fields[CSV_MAX_FIELDS];
    size_t cap = 0;
    int col[N_COLS], lineno = 1, next_line = 1, i, n, n_hdr, rc = 0, got, n0 = set->n;
    csv_sweep cs;
    memset(&cs, 0, sizeof cs);
    cs.si = -1;
    if ((got = csv_record(f, &line, &cap, &lineno, &next_line)) <= 0) {
        free(line);
        if (got == CS_EINVAL)
            return cs_err_set(err, got, path, "unterminated quoted field in the header");
        return got < 0 ? cs_err_set(err, got, path, "out of memory")
                       : cs_err_set(err, CS_EINVAL, path, "empty file, expected a header row "
                                    "with size_bytes");
    }
    n_hdr = n = csv_split(line, fields, CSV_MAX_FIELDS);
    for (i = 0; i < N_COLS; i++) {
        int j;
        col[i] = -1;
        for (j = 0; j < n; j++)
            if (!strcmp(fields[j], csv_keys[i]))
                col[i] = j;
    }
    snprintf(where, sizeof where, "%s:1", path);
    if (col[COL_SIZE] < 0)
        rc = cs_err_set(err, CS_EINVAL, where, "header has no size_bytes column");
    else if (col[COL_TIME] < 0 && col[COL_ALGBW] < 0 && col[COL_BUSBW] < 0)
        rc = cs_err_set(err, CS_EINVAL, where, "header has no time_us, algbw_GBps or busbw_GBps column");
    while (!rc && (got = csv_record(f, &line, &cap, &lineno, &next_line)) > 0) {
        cs_point p;
        double v[N_NUM_COLS];
        if (!line[0])
            continue;
        n = csv_split(line, fields, CSV_MAX_FIELDS);
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (n != n_hdr) {
            /* RFC 4180: every record has the header's fields; more means an unquoted comma
             * shifted the columns, fewer a cut row: refuse rather than read the wrong column */
            rc = cs_err_set(err, CS_EINVAL, where, "expected %d fields as in the header, got "
                            "%d%s", n_hdr, n, n >= CSV_MAX_FIELDS ? " or more" : "");
            break;
        }
        for (i = 0; i < N_NUM_COLS && !rc; i++) {
            v[i] = NAN;
            if (col[i] >= 0 && csv_number(fields[col[i]], &v[i]))
                rc = cs_err_set(err, CS_EINVAL, where, "%s: expected a number, got '%.100s'",
                                csv_keys[i], fields[col[i]]);
        }
        if (rc)
            break;
        p.size_bytes = v[COL_SIZE];
        p.time_us = v[COL_TIME];
        p.algbw_GBps = v[COL_ALGBW];
        p.busbw_GBps = v[COL_BUSBW];
        p.ranks = v[COL_RANKS] >= 1 ? v[COL_RANKS] : 0;
        if (!(rc = cs__series_check_point(&p, where, err)))
            rc = csv_row(set, &cs, &p, v[COL_CLOSED],
                         col[COL_ALGO] >= 0 ? fields[col[COL_ALGO]] : "",
                         col[COL_TOPO] >= 0 ? fields[col[COL_TOPO]] : "",
                         path, label, is_measured, err);
    }
    free(line);
    if (!rc && got == CS_EINVAL) {
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        rc = cs_err_set(err, CS_EINVAL, where, "unterminated quoted field (a '\"' without its "
                        "closing '\"')");
    } else if (!rc && got == CS_ENOMEM) {
        rc = cs_err_set(err, CS_ENOMEM, path, "out of memory");
    }
    if (!rc && ferror(f))
        rc = cs_err_set(err, CS_EIO, path, "cannot read: %s", strerror(errno));
    if (!rc && cs.si < 0 && set->n == n0)
        rc = cs_err_set(err, CS_EINVAL, path, "results: empty, expected at least one size");
    if (!rc)
        rc = csv_close(set, &cs, path, label, is_measured, err);
    free(cs.closed);
    if (rc)
        while (set->n > n0)
            cs__series_pop(set);
    return rc;
}

int cs__series_load_csv(cs_series_set *set, const char *path, const char *label, int is_measured,
                    cs_err *err)
{
    FILE *f = fopen(path, "r");
    int rc;
    if (!f)
        return cs_err_set(err, CS_EIO, path, "cannot read: %s", strerror(errno));
    rc = load_csv_lines(set, f, path, label, is_measured, err);
    fclose(f);
    return rc;
}

/* A number of a results row: absent or null is NAN; anything else must be a number. */
static int json_num(json_t *row, const char *key, int idx, double *out, cs_err *err)
{
    json_t *v = json_object_get(row, key);
    char where[96];
    *out = NAN;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v)) {
        snprintf(where, sizeof where, "results[%d].%s", idx, key);
        return cs_err_set(err, CS_EINVAL, where, "expected a number");
    }
    *out = json_number_value(v);
    return 0;
}

/* One sweep object of a results JSON. */
static int load_json_sweep(cs_series_set *set, json_t *o, const char *ctx, const char *path,
                           const char *label, int is_measured, cs_err *err)
{
    json_t *res = json_object_get(o, "results"), *rk = json_object_get(o, "ranks");
    char lab[256], where[96];
    cs_series *s;
    size_t i;
    int rc, si, n0 = set->n;
    double *closed;
    if (!json_is_object(o))
        return cs_err_set(err, CS_EINVAL, ctx[0] ? ctx : "(root)", "expected a results object");
    if (!json_is_array(res))
        return cs_err_set(err, CS_EINVAL, ctx[0] ? ctx : "(root)", "results: missing, expected an array of rows");
    if (json_array_size(res) == 0) {
        snprintf(where, sizeof where, "%s%sresults", ctx, ctx[0] ? "." : "");
        return cs_err_set(err, CS_EINVAL, where, "empty, expected at least one size");
    }
    cs__series_default_label(lab, sizeof lab, json_string_value(json_object_get(o, "algorithm")),
                  json_string_value(json_object_get(o, "topology")), path);
    if ((rc = cs__series_begin(set, label ? label : lab, is_measured, json_array_size(res), path,
                           &closed, &si, err)))
        return rc;
    s = &set->items[si];
    for (i = 0; i < json_array_size(res); i++) {
        json_t *row = json_array_get(res, i);
        cs_point p;
        p.ranks = json_is_integer(rk) ? (double)json_integer_value(rk) : 0;
        snprintf(where, sizeof where, "%s%sresults[%d]", ctx, ctx[0] ? "." : "", (int)i);
        if (!json_is_object(row))
            rc = cs_err_set(err, CS_EINVAL, where, "expected an object");
        else if (!(rc = json_num(row, "size_bytes", (int)i, &p.size_bytes, err)) &&
                 !(rc = json_num(row, "time_us", (int)i, &p.time_us, err)) &&
                 !(rc = json_num(row, "algbw_GBps", (int)i, &p.algbw_GBps, err)) &&
                 !(rc = json_num(row, "busbw_GBps", (int)i, &p.busbw_GBps, err)) &&
                 !(rc = json_num(row, "closed_form_us", (int)i, &closed[s->n_pts], err)) &&
                 !(rc = cs__series_check_point(&p, where, err)) && (rc = cs_series_push(s, &p, NAN)))
            cs_err_set(err, rc, path, "out of memory");
        if (rc)
            break;
    }
    return cs__series_end(set, si, n0, is_measured, closed, rc, err);
}

static int load_json(cs_series_set *set, const char *path, const char *label, int is_measured,
                     cs_err *err)
{
    json_error_t je;
    json_t *root;
    FILE *f = fopen(path, "r");
    int rc = 0, n0 = set->n;
    if (!f)
        return cs_err_set(err, CS_EIO, path, "cannot read: %s", strerror(errno));
    root = json_loadf(f, 0, &je);
    fclose(f);
    if (!root) {
        char where[512];
        snprintf(where, sizeof where, "%s:%d:%d", path, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    if (json_is_array(root)) {
        size_t i;
        if (json_array_size(root) == 0)
            rc = cs_err_set(err, CS_EINVAL, "(root)", "empty array, expected results objects");
        for (i = 0; !rc && i < json_array_size(root); i++) {
            char ctx[32];
            snprintf(ctx, sizeof ctx, "[%d]", (int)i);
            rc = load_json_sweep(set, json_array_get(root, i), ctx, path, label, is_measured, err);
        }
    } else {
        rc = load_json_sweep(set, root, "", path, label, is_measured, err);
    }
    json_decref(root);
    if (rc) {
        while (set->n > n0)
            cs__series_pop(set);
        if (rc != CS_ENOMEM)
            cs_err_prefix(err, path);
    }
    return rc;
}

static int load_log(cs_series_set *set, const char *path, const char *label, int is_measured,
                    cs_err *err)
{
    cs_log *log = NULL;
    int rc = cs_log_parse_file(path, NULL, &log, err), t, n0 = set->n;
    char base[200], lab[300];
    if (rc)
        return rc;
    cs__series_default_label(base, sizeof base, NULL, NULL, path);
    for (t = 0; t < log->n_tables && !rc; t++) {
        const cs_log_table *tb = &log->tables[t];
        cs_series *s;
        int i;
        if (label && log->n_tables > 1)
            snprintf(lab, sizeof lab, "%s [%d]", label, t + 1);
        else if (label)
            snprintf(lab, sizeof lab, "%s", label);
        else if (log->n_tables > 1)
            snprintf(lab, sizeof lab, "%s [%s, %d ranks]", base,
                     tb->coll == CS_LOG_COLL_UNKNOWN ? "?" : cs_coll_name(tb->coll), tb->ranks);
        else
            snprintf(lab, sizeof lab, "%s", base);
        if (!(s = cs_series_add(set, lab, is_measured))) {
            rc = cs_err_set(err, CS_ENOMEM, path, "out of memory");
            break;
        }
        for (i = 0; i < tb->n_rows && !rc; i++) {
            const cs_log_row *r = &tb->rows[i];
            cs_point p;
            p.size_bytes = (double)r->size_bytes;
            p.time_us = r->time_us;
            p.algbw_GBps = isnan(r->oop_algbw_GBps) ? r->ip_algbw_GBps : r->oop_algbw_GBps;
            p.busbw_GBps = isnan(r->oop_busbw_GBps) ? r->ip_busbw_GBps : r->oop_busbw_GBps;
            p.ranks = tb->ranks > 0 ? tb->ranks : 0;
            if (p.size_bytes > 0 && (rc = cs_series_push(s, &p, NAN)))
                cs_err_set(err, rc, path, "out of memory");
        }
    }
    cs_log_free(log);
    if (rc)
        while (set->n > n0)
            cs__series_pop(set);
    return rc;
}

int cs_series_load(cs_series_set *set, const char *path, const char *label, int is_measured,
                   cs_err *err)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && slash && dot < slash)
        dot = NULL;
    if (dot && !strcasecmp(dot, ".json"))
        return load_json(set, path, label, is_measured, err);
    if (dot && !strcasecmp(dot, ".csv"))
        return cs__series_load_csv(set, path, label, is_measured, err);
    if (dot && (!strcasecmp(dot, ".log") || !strcasecmp(dot, ".txt") || !strcasecmp(dot, ".out")))
        return load_log(set, path, label, 1, err);
    return cs_err_set(err, CS_EINVAL, path, "unknown file type '%s' (expected .json or .csv "
                      "results, or an nccl-tests log .log, .txt or .out)", dot ? dot : "");
}
