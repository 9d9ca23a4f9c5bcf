/* logparse_meta.c: what a run says about itself (calibration layer): command lines
 * (launcher options, test program, its -g/-t or hccl_test options), device lists, and the
 * rank/node inference of a table from them (ranks from the device list, the command line,
 * or the busbw/algbw ratio; nodes from host names, the command line or a banner). */
#include "calibration/logparse.h"
#include "calibration/logparse-private.h"
#include "sim/limits.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    free(m->env);
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
        } else if (tok[i][0] != '-' && cs__log_coll_from_program(tok[i], 1, &coll) == 0) {
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
    if (m->env && !t->nccl_env && !(t->nccl_env = strdup(m->env)))
        t->nccl_env_lost = 1;
    t->nccl_env_lost |= m->env_lost;
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
