/* logparse_text.c: the text readers (calibration layer): nccl-tests / rccl-tests tables
 * and Ascend hccl_test output, line by line. Lines may carry MPI labels ("0: ",
 * "[1,0]<stdout>:"), NCCL INFO/WARN chatter, launcher warnings and banners; several runs or
 * tables may follow each other. This file scans the lines and reads what the run says
 * about itself (command lines, device lists, "# nThread", banners); logparse_rows.c reads
 * the table headers and rows. */
#include "calibration/logparse.h"
#include "calibration/logtext-private.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A new run starts (command line, "# nThread", "# Using devices"): if the previous run
 * produced rows, close its table and forget what it said. */
static void new_run(cs__log_reader *r)
{
    if (!r->rows_since_reset)
        return;
    cs__logtext_close_table(r);
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

/* A line that is not a row or a comment: a command line naming a test program starts a
 * run; a line setting NCCL variables alone (export NCCL_ALGO=Ring) belongs to the run
 * that follows. Either way its NCCL settings are kept for that run. */
static int command(cs__log_reader *r, const char *s)
{
    if (!names_program(s)) {
        if (cs__log_meta_env_line(NULL, s) > 0) {
            new_run(r);
            cs__log_meta_env_line(&r->meta, s);
        }
        return 0;
    }
    new_run(r);
    cs__log_meta_command(&r->meta, s);
    cs__log_meta_env_line(&r->meta, s);
    return 1;
}

/* "# Rank  0 Group  0 Pid 305376 on host device  0 [0000:0f:00] NVIDIA A100-SXM4-40GB"
 * (rccl-tests omits "Group"; some sources collapse the spaces). */
static int device_line(cs__log_reader *r, char *body)
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

/* "====== 2-node ======": a section of a concatenated log; remember its node count. */
static void banner(cs__log_reader *r, const char *s)
{
    const char *p = strstr(s, "-node");
    cs__logtext_close_table(r);
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
static int comment_line(cs__log_reader *r, char *body)
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
    if (cs__logtext_header(r, body))
        return 0;
    command(r, body);      /* "# ./build/all_reduce_perf -b 8 ..." as some posts show it */
    return 0;
}

/* Drop a shell prompt or quote marker in front of a command: "$ ", "> ". */
static char *strip_prompt(char *s)
{
    if ((s[0] == '$' || s[0] == '>') && (s[1] == ' ' || s[1] == '\0'))
        return skip_ws(s + 1);
    return s;
}

/* Run the line loop over buf with a per-line handler for rows. */
static int read_lines(cs__log_reader *r, char *buf, int (*row_fn)(cs__log_reader *, char *))
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
            /* blank, or NCCL debug output between rows; it may echo a setting */
            cs__log_meta_env_info(&r->meta, s);
        } else if (*s == '#') {
            rc = comment_line(r, skip_ws(s + 1));
        } else if (r->is_hccl && strstr(s, "data_size")) {
            cs__logtext_hccl_header(r, s);
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
        cs__logtext_close_table(r);
    return rc;
}

/* Read the text with a private copy to cut into lines, rows by row_fn. */
static int read_text(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                     int is_hccl, int (*row_fn)(cs__log_reader *, char *), cs_err *err)
{
    cs__log_reader r;
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
    return read_text(log, buf, len, opts, 0, cs__logtext_nccl_row, err);
}

int cs__log_read_hccl_text(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                           cs_err *err)
{
    return read_text(log, buf, len, opts, 1, cs__logtext_hccl_row, err);
}
