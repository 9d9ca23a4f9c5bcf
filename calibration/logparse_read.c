/* logparse_read.c: the log reader's front door (calibration layer): reading the file,
 * refusing empty and binary input, and handing the text to the first registered reader
 * whose detector accepts it. A new log format is one reader file and one line in the
 * table below. */
#include "calibration/logparse.h"
#include "calibration/logparse-private.h"
#include "sim/limits.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A log format: a detector over the whole text and its reader. */
typedef struct log_reader {
    cs_log_format format;    /* what the log is read as */
    /* Does text (NUL-terminated, len bytes) look like this format? */
    int (*detect)(const char *text, size_t len);
    int (*read)(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                cs_err *err);
} log_reader;

/* JSON: an object, or an array of run objects (not an MPI label such as "[1,0]"). */
static int is_json(const char *text, size_t len)
{
    size_t i;
    for (i = 0; i < len && isspace((unsigned char)text[i]); i++)
        ;
    return text[i] == '{' ||
           (text[i] == '[' && text[i + 1 + strspn(text + i + 1, " \t\r\n")] == '{');
}

/* hccl_test prints data_size and aveg_time column heads. */
static int is_hccl(const char *text, size_t len)
{
    return strstr(text, "data_size") && strstr(text, "aveg_time");
}

/* nccl-tests and rccl-tests text: whatever is left. */
static int is_any(const char *text, size_t len)
{
    return 1;
}

/* Registered readers, tried in order; the last accepts anything. */
static const log_reader readers[] = {
    {CS_LOG_NCCL_JSON, is_json, cs__log_read_json},
    {CS_LOG_HCCL_TEXT, is_hccl, cs__log_read_hccl_text},
    {CS_LOG_NCCL_TEXT, is_any, cs__log_read_nccl_text},
};

/* Refuse empty and binary input with a message naming the line. */
static int check_text(const char *name, const char *buf, size_t len, cs_err *err)
{
    size_t i, line = 1, odd = 0, first_odd = (size_t)-1;
    int blank = 1;
    char where[300];
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\n')
            line++;
        if (!isspace(c))
            blank = 0;
        if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' &&
                       c != 0x1b)) {
            if (first_odd == (size_t)-1)
                first_odd = i;
            odd++;
            if (c == 0 || odd > 8) {
                snprintf(where, sizeof where, "%s:%zu", name, line);
                return cs_err_set(err, CS_EPARSE, where,
                                  "binary data (byte 0x%02x at offset %zu), expected the text "
                                  "output of nccl-tests, rccl-tests or hccl_test, or "
                                  "nccl-tests JSON", (unsigned char)buf[first_odd], first_odd);
            }
        }
    }
    if (blank)
        return cs_err_set(err, CS_EPARSE, name,
                          "empty file, expected the output of nccl-tests, rccl-tests or "
                          "hccl_test");
    return 0;
}

int cs_log_parse_mem(const char *name, const char *buf, size_t len, const cs_log_opts *opts,
                     cs_log **out, cs_err *err)
{
    cs_log_opts defaults;
    const log_reader *r;
    cs_log *log;
    char *text;
    int rc, i;
    *out = NULL;
    if (!opts) {
        cs_log_opts_init(&defaults);
        opts = &defaults;
    }
    if (!name)
        name = "log";
    if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
        buf += 3;                    /* a UTF-8 byte order mark */
        len -= 3;
    }
    if ((rc = check_text(name, buf, len, err)) < 0)
        return rc;
    log = calloc(1, sizeof *log);
    text = malloc(len + 1);
    if (!log || !text || !(log->name = strdup(name))) {
        free(text);
        cs_log_free(log);
        return cs_err_set(err, CS_ENOMEM, name, "out of memory");
    }
    memcpy(text, buf, len);
    text[len] = '\0';
    for (r = readers; !r->detect(text, len); r++)
        ;
    log->format = r->format;
    rc = r->read(log, text, len, opts, err);
    free(text);
    for (i = 0; rc == 0 && i < log->n_tables; i++) {
        const cs_log_table *t = &log->tables[i];
        char where[320];
        if (!t->ranks_claimed)
            continue;
        snprintf(where, sizeof where, "%s:%d", name, t->first_line);
        rc = cs_err_set(err, CS_ELIMIT, t->first_line ? where : name, "the log's command line "
                        "or header gives %lld ranks (processes x GPUs x threads), more than "
                        "the limit of %ld", (long long)t->ranks_claimed, CS_LIMIT_MAX_RANKS);
    }
    if (rc == 0 && cs_log_n_rows(log) == 0)
        rc = cs_err_set(err, CS_EPARSE, name,
                        "no result rows found, expected a table of size, count, type, redop, "
                        "root, time, algbw, busbw, #wrong (nccl-tests), data_size, aveg_time, "
                        "alg_bandwidth (hccl_test) or a JSON \"results\" array");
    if (rc < 0) {
        cs_log_free(log);
        return rc;
    }
    *out = log;
    return 0;
}

int cs_log_parse_file(const char *path, const cs_log_opts *opts, cs_log **out, cs_err *err)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc;
    *out = NULL;
    if (!f)
        return cs_err_set(err, CS_EIO, path, "cannot open: %s", strerror(errno));
    for (;;) {
        size_t got;
        if (cap - len < 65536) {
            char *nb;
            cap = cap ? 2 * cap : 65536;
            if (!(nb = realloc(buf, cap))) {
                free(buf);
                fclose(f);
                return cs_err_set(err, CS_ENOMEM, path, "out of memory");
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return cs_err_set(err, CS_EIO, path, "read error");
    }
    fclose(f);
    rc = cs_log_parse_mem(path, buf, len, opts, out, err);
    free(buf);
    return rc;
}
