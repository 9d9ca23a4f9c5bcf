/* logparse_text.c: the text readers (core layer): nccl-tests / rccl-tests tables and Ascend
 * hccl_test output, line by line. Lines may carry MPI labels ("0: ", "[1,0]<stdout>:"),
 * NCCL INFO/WARN chatter, launcher warnings and banners; several runs or tables may follow
 * each other. A row whose columns do not fit stops the parse with "name:line: why". */
#include "calibration/logparse.h"
#include "calibration/logparse-private.h"
#include "sim/limits.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column positions of a table (-1 = absent). Group 0 is out-of-place, group 1 in-place. */
typedef struct layout {
    int ncols;               /* columns a row must have */
    int size, count, type, redop, root;
    int time[2], algbw[2], busbw[2], wrong[2];
} layout;

/* Reader state shared by both text formats. */
typedef struct reader {
    cs_log *log;
    const cs_log_opts *opts;
    cs_err *err;
    cs__log_meta meta;       /* what the current run said so far */
    cs_log_table *cur;       /* table being filled, NULL between tables */
    int rows_since_reset;    /* rows read since meta was last reset */
    layout lay;              /* columns from the last header */
    int has_layout;          /* a header was read */
    uint64_t last_size;      /* size of the previous row of cur */
    int line;                /* current line number, 1-based */
    int last_line;           /* number of the last line of the buffer */
    int is_hccl;             /* hccl_test output */
} reader;

static void layout_nccl(layout *l, int with_root)
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

static void layout_clear(layout *l)
{
    int g;
    memset(l, 0, sizeof *l);
    l->size = l->count = l->type = l->redop = l->root = -1;
    for (g = 0; g < 2; g++)
        l->time[g] = l->algbw[g] = l->busbw[g] = l->wrong[g] = -1;
}

/* Strip an MPI output label: "0: ", " 12: " (srun --label, mpirun --tag-output styles)
 * or "[1,0]<stdout>:" (Open MPI --tag-output). */
static char *strip_label(char *s)
{
    char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (isdigit((unsigned char)*p)) {
        char *q = p;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q == ':' && (q[1] == ' ' || q[1] == '\t' || q[1] == '#' || q[1] == '\0'))
            return q + 1;
    } else if (*p == '[' && isdigit((unsigned char)p[1])) {
        char *q = p + 1;
        while (isdigit((unsigned char)*q) || *q == ',')
            q++;
        if (*q == ']') {
            q++;
            if (!strncmp(q, "<stdout>", 8) || !strncmp(q, "<stderr>", 8))
                q += 8;
            if (*q == ':')
                return q + 1;
        }
    }
    return s;
}

static char *skip_ws(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A count from a header ("nGpus 8"): 0 if not a positive integer, INT_MAX if larger (the
 * rank count is then refused as too large, never wrapped). */
static int count_of(const char *s)
{
    long v;
    if (!cs__log_int(s, &v) || v <= 0)
        return 0;
    return v < INT_MAX ? (int)v : INT_MAX;
}

/* Close the table being filled: infer its collective, ranks and nodes. hccl_test prints
 * no busbw: derive it as nccl-tests would, algbw x factor(collective, ranks). */
static void close_table(reader *r)
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

/* A new run starts (command line, "# nThread", "# Using devices"): if the previous run
 * produced rows, close its table and forget what it said. */
static void new_run(reader *r)
{
    if (!r->rows_since_reset)
        return;
    close_table(r);
    cs__log_meta_reset(&r->meta);
    r->rows_since_reset = 0;
    r->has_layout = 0;
}

/* Does a line name a test program (so it is a command line)? */
static int names_program(const char *s)
{
    size_t len = strlen(s);
    char *buf = malloc(len + 1), **tok = malloc((len / 2 + 2) * sizeof *tok);
    int n, i, found = 0;
    cs_coll c;
    if (!buf || !tok || len / 2 + 2 > INT_MAX) {
        free(buf);
        free(tok);
        return 0;
    }
    memcpy(buf, s, len + 1);
    n = cs__log_split(buf, NULL, tok, (int)(len / 2 + 2));
    for (i = 0; i < n && !found; i++) {
        const char *slash = strrchr(tok[i], '/');
        const char *b = slash ? slash + 1 : tok[i];
        size_t l = strlen(b);
        if (tok[i][0] == '-')
            continue;
        /* strict: a _perf/_test suffix, or an unambiguous bare name */
        if (((l > 5 && (!strcmp(b + l - 5, "_perf") || !strcmp(b + l - 5, "_test"))) ||
             strchr(b, '_') || !strcmp(b, "alltoall")) &&
            cs_log_coll_from_program(tok[i], &c) == 0)
            found = 1;
    }
    free(buf);
    free(tok);
    return found;
}

static int command(reader *r, const char *s)
{
    if (!names_program(s))
        return 0;
    new_run(r);
    cs__log_meta_command(&r->meta, s);
    return 1;
}

/* "# Rank  0 Group  0 Pid 305376 on host device  0 [0000:0f:00] NVIDIA A100-SXM4-40GB"
 * (rccl-tests omits "Group"; some sources collapse the spaces). */
static int device_line(reader *r, char *body)
{
    char *p = body + 4, *host, *q, *model;
    long rank;
    char save;
    p = skip_ws(p);
    rank = strtol(p, &q, 10);
    if (q == p || rank < 0 || rank > 10000000)
        return 0;
    host = strstr(q, " on ");
    if (!host)
        return 0;
    host = skip_ws(host + 4);
    q = host + strcspn(host, " \t");
    save = *q;
    *q = '\0';
    model = save ? strstr(q + 1, "device") : NULL;   /* the host may end the line */
    if (save && model) {
        model = skip_ws(model + 6);
        while (isdigit((unsigned char)*model))
            model++;
        model = skip_ws(model);
        if (*model == '[' && strchr(model, ']'))
            model = skip_ws(strchr(model, ']') + 1);
        for (q = model + strlen(model); q > model && isspace((unsigned char)q[-1]); q--)
            ;
        *q = '\0';
    } else {
        model = NULL;
    }
    return cs__log_meta_device(&r->meta, (int)rank, host, model) < 0 ? CS_ENOMEM : 1;
}

/* A header line "#  size  count  type  redop  root  time  algbw  busbw #wrong  time ...":
 * column positions by name. Returns 1 if it was a header. */
static int header_line(reader *r, char *body)
{
    char buf[1024], *tok[64];
    layout l;
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
    close_table(r);
    r->lay = l;
    r->has_layout = 1;
    return 1;
}

/* Fail at the current line: where = "name:line". */
static int row_err(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int row_err(reader *r, const char *fmt, ...)
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
static int col_real(reader *r, char **tok, int idx, const char *what, double *out)
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
static int col_size(reader *r, char **tok, int idx, const char *what, uint64_t *out)
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

static int add_row(reader *r, cs_log_row *row)
{
    int rc;
    if (r->cur && row->size_bytes < r->last_size)
        close_table(r);      /* sizes go down again: a new table of the same run */
    if (!r->cur && !(r->cur = cs__log_add_table(r->log, r->opts)))
        return cs_err_set(r->err, CS_ENOMEM, r->log->name, "out of memory");
    if ((rc = cs__log_add_row(r->cur, row)) < 0)
        return cs_err_set(r->err, rc, r->log->name, "out of memory");
    r->last_size = row->size_bytes;
    r->rows_since_reset++;
    return 0;
}

static int column_count_error(reader *r, int want, int got)
{
    if (r->line == r->last_line)
        return row_err(r, "expected %d columns, got %d: the log ends inside this row "
                       "(truncated)", want, got);
    return row_err(r, "expected %d columns, got %d", want, got);
}

/* An nccl-tests row. */
static int nccl_row(reader *r, char *s)
{
    char *tok[64];
    layout def;
    const layout *l = &r->lay;
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

/* "====== 2-node ======": a section of a concatenated log; remember its node count. */
static void banner(reader *r, const char *s)
{
    const char *p = strstr(s, "-node");
    close_table(r);
    if (p) {
        const char *q = p;
        while (q > s && isdigit((unsigned char)q[-1]))
            q--;
        if (q < p) {
            char num[24];
            snprintf(num, sizeof num, "%.*s", (int)(p - q < 23 ? p - q : 23), q);
            r->meta.banner_nodes = count_of(num);
        }
    }
}

/* A '#' line of nccl-tests. Returns 0 or a negative code. */
static int comment_line(reader *r, char *body)
{
    if (!strncmp(body, "Rank", 4) && isspace((unsigned char)body[4]))
        return device_line(r, body) < 0 ? cs_err_set(r->err, CS_ENOMEM, r->log->name,
                                                     "out of memory") : 0;
    if (strstr(body, "Using devices")) {
        new_run(r);
        return 0;
    }
    if (!strncmp(body, "nThread", 7)) {
        char buf[512], *tok[32];
        int n, i;
        new_run(r);
        snprintf(buf, sizeof buf, "%s", body);
        n = cs__log_split(buf, NULL, tok, 32);
        for (i = 0; i + 1 < n; i++) {
            if (!strcmp(tok[i], "nThread"))
                r->meta.hdr_threads = count_of(tok[i + 1]);
            else if (!strcmp(tok[i], "nGpus"))
                r->meta.hdr_gpus = count_of(tok[i + 1]);
        }
        return 0;
    }
    if (!strncmp(body, "collsim:", 8)) {
        /* collsim's own header: "# collsim: allreduce, 8 ranks, algorithm ..." */
        char buf[256], *tok[8];
        cs_coll c;
        int n;
        new_run(r);
        snprintf(buf, sizeof buf, "%s", body + 8);
        n = cs__log_split(buf, ",", tok, 8);
        if (n >= 1 && cs_coll_lookup(tok[0], &c, NULL) == 0) {
            r->meta.has_coll = 1;
            r->meta.coll = c;
        }
        if (n >= 3 && !strcmp(tok[2], "ranks") && count_of(tok[1]) > 0) {
            r->meta.has_launcher = 1;      /* the rank count is stated outright */
            r->meta.np = count_of(tok[1]);
        }
        return 0;
    }
    if (!strncmp(body, "Collective test starting:", 25)) {
        cs_coll c;
        char buf[256];
        new_run(r);
        snprintf(buf, sizeof buf, "%s", skip_ws(body + 25));
        buf[strcspn(buf, " \t\r\n")] = '\0';
        if (cs_log_coll_from_program(buf, &c) == 0) {
            r->meta.has_coll = 1;
            r->meta.coll = c;
        }
        return 0;
    }
    if (strstr(body, "concluded") || strstr(body, "Avg bus bandwidth") ||
        strstr(body, "out-of-place") || strstr(body, "Out of bounds"))
        return 0;
    if (header_line(r, body))
        return 0;
    command(r, body);      /* "# ./build/all_reduce_perf -b 8 ..." as some posts show it */
    return 0;
}

/* hccl_test header: "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): |
 * check_result:" (the bars are optional). */
static void hccl_header(reader *r, char *s)
{
    char buf[1024], *tok[32];
    layout l;
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
    close_table(r);
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
static int hccl_row(reader *r, char *s)
{
    char *tok[32];
    layout def;
    const layout *l = &r->lay;
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

/* Drop a shell prompt or quote marker in front of a command: "$ ", "> ". */
static char *strip_prompt(char *s)
{
    if ((s[0] == '$' || s[0] == '>') && (s[1] == ' ' || s[1] == '\0'))
        return skip_ws(s + 1);
    return s;
}

/* Run the line loop over buf with a per-line handler for rows. */
static int read_lines(reader *r, char *buf, int (*row_fn)(reader *, char *))
{
    char *line = buf, *cmd = NULL;
    size_t cmd_len = 0;
    int rc = 0, n = 1;
    char *p;
    for (p = buf; *p; p++)
        n += *p == '\n';
    r->last_line = (p > buf && p[-1] == '\n') ? n - 1 : n;
    for (r->line = 1; line && *line && rc == 0; r->line++) {
        char *nl = strchr(line, '\n'), *s, *e;
        char *next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        e = line + strlen(line);
        while (e > line && (e[-1] == '\r' || isspace((unsigned char)e[-1])))
            *--e = '\0';
        s = skip_ws(strip_label(line));
        if (cmd) {
            /* a command continued with a trailing backslash */
            int more = e > s && e[-1] == '\\';
            char *piece = strip_prompt(s), *nc;
            if (more)
                e[-1] = '\0';
            nc = realloc(cmd, cmd_len + strlen(piece) + 2);
            if (!nc) {
                rc = cs_err_set(r->err, CS_ENOMEM, r->log->name, "out of memory");
                break;
            }
            cmd = nc;
            cmd_len += (size_t)sprintf(cmd + cmd_len, " %s", piece);
            if (!more) {
                command(r, cmd);
                free(cmd);
                cmd = NULL;
                cmd_len = 0;
            }
        } else if (*s == '\0' || strstr(s, "NCCL INFO") || strstr(s, "NCCL WARN") ||
                   strstr(s, "NCCL TRACE")) {
            /* blank, or NCCL debug output between rows */
        } else if (*s == '#') {
            rc = comment_line(r, skip_ws(s + 1));
        } else if (r->is_hccl && strstr(s, "data_size")) {
            hccl_header(r, s);
        } else if (s[0] == '=' && s[1] == '=') {
            banner(r, s);
        } else if (isdigit((unsigned char)*s) && (isspace((unsigned char)s[strspn(s,
                   "0123456789")]) || s[strspn(s, "0123456789")] == '|')) {
            rc = row_fn(r, s);
        } else {
            char *c = strip_prompt(s);
            if (e > c && e[-1] == '\\') {
                e[-1] = '\0';
                if (!(cmd = strdup(c)))
                    rc = cs_err_set(r->err, CS_ENOMEM, r->log->name, "out of memory");
                cmd_len = cmd ? strlen(cmd) : 0;
            } else {
                command(r, c);
            }
        }
        line = next;
    }
    if (cmd && rc == 0)
        command(r, cmd);
    free(cmd);
    if (rc == 0)
        close_table(r);
    return rc;
}

/* Read the text with a private copy to cut into lines, rows by row_fn. */
static int read_text(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                     int is_hccl, int (*row_fn)(reader *, char *), cs_err *err)
{
    reader r;
    char *copy = malloc(len + 1);
    int rc;
    if (!copy)
        return cs_err_set(err, CS_ENOMEM, log->name, "out of memory");
    memcpy(copy, buf, len + 1);
    memset(&r, 0, sizeof r);
    r.log = log;
    r.opts = opts;
    r.err = err;
    r.is_hccl = is_hccl;
    cs__log_meta_init(&r.meta);
    rc = read_lines(&r, copy, row_fn);
    cs__log_meta_fini(&r.meta);
    free(copy);
    return rc;
}

int cs__log_read_nccl_text(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                           cs_err *err)
{
    return read_text(log, buf, len, opts, 0, nccl_row, err);
}

int cs__log_read_hccl_text(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                           cs_err *err)
{
    return read_text(log, buf, len, opts, 1, hccl_row, err);
}
