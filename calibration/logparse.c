/* logparse.c: what the log readers share (calibration layer): names, tokens, numbers,
 * tables, command lines, device lists, and the rank/node inference of a table (ranks from
 * the device list, the command line, or the busbw/algbw ratio; nodes from host names).
 * The front door (reading, format detection, the reader registry) is logparse_read.c. */
#include "calibration/logparse.h"
#include "calibration/logparse-private.h"
#include "sim/limits.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
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
static int coll_from_program(const char *prog, int strict, cs_coll *out)
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
    return coll_from_program(prog, 0, out);
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
    for (i = 0; i < log->n_tables; i++)
        free(log->tables[i].rows);
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

/* ---------------------------------------------------------------- run metadata */

void cs__log_meta_init(cs__log_meta *m)
{
    memset(m, 0, sizeof *m);
    m->device_rank = INT_MAX;
}

void cs__log_meta_fini(cs__log_meta *m)
{
    int i;
    for (i = 0; i < m->n_hosts; i++)
        free(m->hosts[i]);
    free(m->hosts);
    free(m->host_ranks);
    cs__log_meta_init(m);
}

void cs__log_meta_reset(cs__log_meta *m)
{
    cs__log_meta_fini(m);
}

int cs__log_meta_device(cs__log_meta *m, int rank, const char *host, const char *model)
{
    int i;
    if (rank < 0 || rank >= CS_LIMIT_MAX_RANKS)
        return 0;                    /* not a rank collsim can simulate: ignored */
    m->dev_lines++;
    if (rank + 1 > m->dev_ranks)
        m->dev_ranks = rank + 1;
    if (model && *model && rank < m->device_rank) {
        snprintf(m->device, sizeof m->device, "%s", model);
        m->device_rank = rank;
    }
    if (!host || !*host)
        return 0;
    /* Device lists are grouped by host: look at the newest host first. */
    for (i = m->n_hosts - 1; i >= 0; i--)
        if (!strcmp(m->hosts[i], host)) {
            m->host_ranks[i]++;
            return 0;
        }
    if (m->n_hosts == m->cap_hosts) {
        int cap = m->cap_hosts ? 2 * m->cap_hosts : 8;
        char **nh = realloc(m->hosts, (size_t)cap * sizeof *nh);
        int *nr;
        if (!nh)
            return CS_ENOMEM;
        m->hosts = nh;
        nr = realloc(m->host_ranks, (size_t)cap * sizeof *nr);
        if (!nr)
            return CS_ENOMEM;
        m->host_ranks = nr;
        m->cap_hosts = cap;
    }
    if (!(m->hosts[m->n_hosts] = strdup(host)))
        return CS_ENOMEM;
    m->host_ranks[m->n_hosts++] = 1;
    return 0;
}

static int is_launcher(const char *tok)
{
    static const char *const names[] = {"mpirun", "mpiexec", "orterun", "srun", "aprun",
                                        "jsrun", "prun", "mpiexec.hydra"};
    const char *slash = strrchr(tok, '/');
    size_t i;
    if (slash)
        tok = slash + 1;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(tok, names[i]))
            return 1;
    return 0;
}

/* An option value: "--opt=V", "--opt V", or "-oV" (attached) when attach is set. Returns
 * the value string or NULL; *used is 1 when the next token was consumed. */
static const char *opt_value(char **tok, int n, int i, const char *name, int attach, int *used)
{
    size_t l = strlen(name);
    *used = 0;
    if (strncmp(tok[i], name, l))
        return NULL;
    if (tok[i][l] == '=')
        return tok[i] + l + 1;
    if (tok[i][l] == '\0') {
        if (i + 1 >= n)
            return NULL;
        *used = 1;
        return tok[i + 1];
    }
    return attach && isdigit((unsigned char)tok[i][l]) ? tok[i] + l : NULL;
}

/* A positive count from a command line; values beyond INT_MAX are kept as INT_MAX so that
 * the rank count derived from them is refused as too large rather than ignored. */
static int pos_int(const char *s)
{
    long v;
    if (!s || !cs__log_int(s, &v) || v <= 0)
        return 0;
    return v < INT_MAX ? (int)v : INT_MAX;
}

/* -H/--host list "a:8,b:8" or "a,b": host count, slots per host if uniform, slot total. */
static void host_list(cs__log_meta *m, const char *list)
{
    int hosts = 0, ppn = -1;
    int64_t slots = 0;
    const char *p = list;
    while (*p) {
        const char *e = p + strcspn(p, ",");
        const char *colon = memchr(p, ':', (size_t)(e - p));
        char num[24] = "1";
        int k;
        if (colon)
            snprintf(num, sizeof num, "%.*s", (int)(e - colon - 1 < 23 ? e - colon - 1 : 23),
                     colon + 1);
        k = pos_int(num);
        if (hosts < INT_MAX)
            hosts++;
        slots = cs_add_sat(slots, k);
        ppn = (ppn < 0 || ppn == k) ? k : 0;
        p = *e ? e + 1 : e;
    }
    m->cmd_nodes = hosts;
    if (ppn > 0)
        m->cmd_ppn = ppn;
    if (!m->np)
        m->np = slots < INT_MAX ? (int)slots : INT_MAX;
}

int cs__log_meta_command(cs__log_meta *m, const char *line)
{
    /* The whole line, however long (launchers may carry hundreds of -x flags): a token
     * starts after a blank, so a line of L bytes has at most L/2 + 1 of them. */
    size_t len = strlen(line);
    char *buf = malloc(len + 1), **tok = malloc((len / 2 + 2) * sizeof *tok);
    int n, i, prog = -1, launcher = -1, is_srun = 0, is_hccl, used;
    cs_coll coll;
    if (!buf || !tok || len / 2 + 2 > INT_MAX) {
        free(buf);
        free(tok);
        return CS_ENOMEM;
    }
    memcpy(buf, line, len + 1);
    n = cs__log_split(buf, NULL, tok, (int)(len / 2 + 2));
    for (i = 0; i < n && prog < 0; i++) {
        if (launcher < 0 && is_launcher(tok[i])) {
            launcher = i;
            is_srun = strstr(tok[i], "srun") != NULL;
        } else if (tok[i][0] != '-' && coll_from_program(tok[i], 1, &coll) == 0) {
            prog = i;
        }
    }
    if (prog < 0) {
        free(buf);
        free(tok);
        return 0;
    }
    is_hccl = strstr(tok[prog], "_test") != NULL;
    m->has_cmd = 1;
    m->has_coll = 1;
    m->coll = coll;
    if (launcher >= 0) {
        m->has_launcher = 1;
        for (i = launcher + 1; i < prog; i++) {
            const char *v;
            if ((v = opt_value(tok, prog, i, "-np", 1, &used)) ||
                (v = opt_value(tok, prog, i, "--np", 0, &used)) ||
                (v = opt_value(tok, prog, i, "--ntasks", 0, &used)) ||
                (v = opt_value(tok, prog, i, "-n", 1, &used))) {
                if (pos_int(v))
                    m->np = pos_int(v);
            } else if ((v = opt_value(tok, prog, i, "-npernode", 0, &used)) ||
                       (v = opt_value(tok, prog, i, "--npernode", 0, &used)) ||
                       (v = opt_value(tok, prog, i, "--ntasks-per-node", 0, &used)) ||
                       (v = opt_value(tok, prog, i, "--tasks-per-node", 0, &used))) {
                if (pos_int(v))
                    m->cmd_ppn = pos_int(v);
            } else if ((v = opt_value(tok, prog, i, "--nodes", 0, &used)) ||
                       (v = opt_value(tok, prog, i, "-N", 1, &used))) {
                /* srun -N counts nodes; Open MPI's -N is processes per node. */
                if (pos_int(v) && (is_srun || !strncmp(tok[i], "--nodes", 7)))
                    m->cmd_nodes = pos_int(v);
                else if (pos_int(v))
                    m->cmd_ppn = pos_int(v);
            } else if ((v = opt_value(tok, prog, i, "-H", 0, &used)) ||
                       (v = opt_value(tok, prog, i, "--host", 0, &used)) ||
                       (v = opt_value(tok, prog, i, "-host", 0, &used))) {
                host_list(m, v);
            } else {
                used = 0;
            }
            i += used;
        }
    }
    for (i = prog + 1; i < n; i++) {
        const char *v;
        if ((v = opt_value(tok, n, i, "-g", 1, &used)) ||
            (v = opt_value(tok, n, i, "--ngpus", 0, &used))) {
            if (pos_int(v))
                m->gpus = pos_int(v);
        } else if ((v = opt_value(tok, n, i, "-t", 1, &used)) ||
                   (v = opt_value(tok, n, i, "--nthreads", 0, &used))) {
            if (pos_int(v))
                m->threads = pos_int(v);
        } else if ((v = opt_value(tok, n, i, "-d", 0, &used)) ||
                   (v = opt_value(tok, n, i, "--datatype", 0, &used))) {
            snprintf(m->dtype, sizeof m->dtype, "%s", v);
        } else if ((v = opt_value(tok, n, i, "-o", 0, &used)) ||
                   (v = opt_value(tok, n, i, "--op", 0, &used))) {
            snprintf(m->redop, sizeof m->redop, "%s", v);
        } else if (is_hccl && (v = opt_value(tok, n, i, "-p", 0, &used))) {
            if (pos_int(v))
                m->cmd_ppn = pos_int(v);   /* hccl_test -p: NPUs per server */
        } else {
            used = 0;
        }
        i += used;
    }
    free(buf);
    free(tok);
    return 1;
}

/* ---------------------------------------------------------------- table inference */

void cs__log_table_finish(cs_log_table *t, const cs__log_meta *m, const cs_log_opts *opts)
{
    int64_t gpus = m->gpus > 0 ? m->gpus : (m->hdr_gpus > 0 ? m->hdr_gpus : 1);
    int64_t threads = m->threads > 0 ? m->threads : (m->hdr_threads > 0 ? m->hdr_threads : 1);
    /* Products of command-line counts in 64 bits, saturated: beyond CS_LIMIT_MAX_RANKS the
     * claim is recorded and the parse fails (cs_log_parse_mem), never wraps. */
    int64_t per_proc = cs_mul_sat(gpus, threads), strong = 0, weak = 0;
    int busbw, ppn = 0, i;
    if (m->has_coll) {
        t->coll = m->coll;
        t->coll_from_log = 1;
    } else {
        t->coll = opts->default_coll;
    }
    /* Ranks from the command line: processes x GPUs x threads per process; a command
     * without a launcher is one process. The "# nThread T nGpus G" line alone is weak
     * evidence: the launcher part may simply not have been published. */
    if (m->has_launcher) {
        if (m->np > 0)
            strong = cs_mul_sat(m->np, per_proc);
        else if (m->cmd_nodes > 0 && m->cmd_ppn > 0)
            strong = cs_mul_sat(cs_mul_sat(m->cmd_nodes, m->cmd_ppn), per_proc);
    } else if (m->has_cmd) {
        strong = per_proc;
    }
    if (m->hdr_gpus > 0)
        weak = per_proc;
    if (strong > CS_LIMIT_MAX_RANKS || weak > CS_LIMIT_MAX_RANKS) {
        t->ranks_claimed = strong > weak ? strong : weak;
        strong = weak = 0;
    }
    busbw = cs_log_ranks_from_busbw(t->coll, t->rows, t->n_rows);

    if (m->dev_ranks > 0 && strong > m->dev_ranks) {
        t->ranks = (int)strong;          /* a device list cut short */
        t->ranks_src = CS_LOG_SRC_CMDLINE;
    } else if (m->dev_ranks > 0) {
        t->ranks = m->dev_ranks;
        t->ranks_src = CS_LOG_SRC_DEVICES;
    } else if (strong > 0 && (busbw == 0 || busbw == strong)) {
        t->ranks = (int)strong;
        t->ranks_src = CS_LOG_SRC_CMDLINE;
    } else if (busbw > 0) {
        t->ranks = busbw;                /* measured numbers beat a partial command line */
        t->ranks_src = CS_LOG_SRC_BUSBW;
    } else if (weak > 0) {
        t->ranks = (int)weak;
        t->ranks_src = CS_LOG_SRC_CMDLINE;
    } else if (opts->default_ranks > 0) {
        t->ranks = opts->default_ranks;
        t->ranks_src = CS_LOG_SRC_DEFAULT;
    }

    /* Nodes: distinct hosts of a complete device list; a partial list gives ranks per
     * host (the busiest host listed); then the command line; then a banner. */
    for (i = 0; i < m->n_hosts; i++)
        if (m->host_ranks[i] > ppn)
            ppn = m->host_ranks[i];
    if (m->n_hosts > 0 && m->dev_ranks >= t->ranks) {
        t->nodes = m->n_hosts;
        t->nodes_src = CS_LOG_SRC_DEVICES;
    } else if (m->n_hosts > 0 && ppn > 0 && t->ranks % ppn == 0) {
        t->nodes = t->ranks / ppn;
        t->nodes_src = CS_LOG_SRC_DEVICES;
    } else if (m->cmd_nodes > 0) {
        t->nodes = m->cmd_nodes;
        t->nodes_src = CS_LOG_SRC_CMDLINE;
    } else if (m->cmd_ppn > 0 && t->ranks > 0 && t->ranks % cs_mul_sat(m->cmd_ppn, per_proc) == 0) {
        t->nodes = (int)(t->ranks / cs_mul_sat(m->cmd_ppn, per_proc));
        t->nodes_src = CS_LOG_SRC_CMDLINE;
    } else if (m->has_cmd && !m->has_launcher && strong > 0) {
        t->nodes = 1;                    /* a single process runs on one host */
        t->nodes_src = CS_LOG_SRC_CMDLINE;
    } else if (m->banner_nodes > 0) {
        t->nodes = m->banner_nodes;
        t->nodes_src = CS_LOG_SRC_BANNER;
    }
    snprintf(t->device, sizeof t->device, "%s", m->device);
}
