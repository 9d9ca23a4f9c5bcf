/* logsim.c: measured logs against the simulator (calibration layer): NCCL-mode setup, the row
 * set of several logs, the entry points that simulate its rows (on the set's threads,
 * logsim_par.c and logsim_batch.c, or one after another, logsim_row.c), statistics. */
#include "calibration/logsim-private.h"
#include "sim/size.h"
#include "sim/report.h"
#include "algorithms/nccl/mode.h"
#include "topologies/topology.h"
#include "sim/par.h"
#include "calibration/simcache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

int cs_lset_option(int id, const char *v, cs_lset_opts *o, cs_err *err)
{
    long n;
    int rc = 0;
    switch (id) {
    case CS_LSET_MINB: return cs_parse_size(v, "--min-bytes", &o->min_bytes, err);
    case CS_LSET_MAXB: return cs_parse_size(v, "--max-bytes", &o->max_bytes, err);
    case CS_LSET_COLL:
        if (cs_log_coll_from_program(v, &o->default_coll) < 0 &&
            cs_coll_lookup(v, &o->default_coll, err) < 0)
            rc = cs_err_set(err, CS_EUSAGE, "--coll", "%s", err->msg);
        return rc;
    case CS_LSET_RANKS:
        rc = cs_parse_int(v, "--ranks", 1, 1 << 20, &n, err);
        o->default_ranks = (int)n;
        return rc;
    case CS_LSET_SIZES:
        if (!strcmp(v, "odd") || !strcmp(v, "even") || !strcmp(v, "all")) {
            o->parity = v[0] == 'o' ? 1 : v[0] == 'e' ? 2 : 0;
            return 0;
        }
        return cs_err_set(err, CS_EUSAGE, "--sizes", "expected odd, even or all, got '%s'", v);
    case CS_LSET_KEEP:
        return cs_lset_keep_ranks(o, v, err);
    default:
        return 1;
    }
}

int cs_lset_keep_ranks(cs_lset_opts *o, const char *list, cs_err *err)
{
    const char *p = list;
    o->n_keep_ranks = 0;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > (1L << 24) || (*end && *end != ',') ||
            o->n_keep_ranks == (int)(sizeof o->keep_ranks / sizeof o->keep_ranks[0]))
            return cs_err_set(err, CS_EUSAGE, "--keep-ranks", "expected up to 16 rank "
                              "counts separated by commas, e.g. 8,16, got '%s'", list);
        o->keep_ranks[o->n_keep_ranks++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

const char *cs_lset_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void cs_lset_fini(cs_lset *ls)
{
    int i;
    for (i = 0; i < ls->n_logs; i++)
        cs_log_free(ls->logs[i]);
    for (i = 0; i < ls->n_env; i++) {
        free(ls->env[i].name);
        free(ls->env[i].value);
    }
    free(ls->env);
    free(ls->logs);
    free(ls->rows);
    memset(ls, 0, sizeof *ls);
}

static int add_table(cs_lset *ls, const cs_log *log, int ti, const cs_lset_opts *o,
                     const cs_topo *t, int *cap, cs_err *err)
{
    const cs_log_table *tb = &log->tables[ti];
    int i, elt = 4, nth = 0;
    cs_dtype dt;
    char where[300];
    if (log->n_tables > 1)
        snprintf(where, sizeof where, "%s:%d", log->name, tb->first_line);
    else
        snprintf(where, sizeof where, "%s", log->name);
    if (o->n_keep_ranks) {
        for (i = 0; i < o->n_keep_ranks && o->keep_ranks[i] != tb->ranks; i++)
            ;
        if (i == o->n_keep_ranks)
            return 0;
    }
    if (tb->coll == CS_LOG_COLL_UNKNOWN)
        return cs_err_set(err, CS_EINVAL, where, "the log does not name its collective "
                          "(no command line); pass --coll");
    if (tb->ranks <= 0)
        return cs_err_set(err, CS_EINVAL, where, "the log does not tell how many ranks ran "
                          "(no device list, command line or busbw); pass --ranks");
    if (tb->ranks > t->n_ranks)
        return cs_err_set(err, CS_EINVAL, where, "%d ranks ran but topology '%s' has %d (a "
                          "log of n ranks runs on the topology's first n ranks)", tb->ranks,
                          t->name, t->n_ranks);
    for (i = 0; i < tb->n_rows; i++) {
        const cs_log_row *r = &tb->rows[i];
        cs_lrow *lr;
        if (r->size_bytes > 0 && o->parity && (nth++ % 2) != o->parity - 1)
            continue;
        if (r->size_bytes == 0 || r->size_bytes < o->min_bytes ||
            (o->max_bytes && r->size_bytes > o->max_bytes) || !(r->time_us > 0))
            continue;
        if (ls->n_rows == *cap) {
            int nc = *cap ? 2 * *cap : 64;
            cs_lrow *nr = realloc(ls->rows, (size_t)nc * sizeof *nr);
            if (!nr)
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            ls->rows = nr;
            *cap = nc;
        }
        if (r->type[0] && cs_dtype_lookup(r->type, &dt, NULL) == 0)
            elt = dt.bytes;
        lr = &ls->rows[ls->n_rows++];
        memset(lr, 0, sizeof *lr);
        lr->log = log->name;
        lr->table = ti;
        lr->coll = tb->coll;
        lr->ranks = tb->ranks;
        lr->size_bytes = r->size_bytes;
        lr->elt_bytes = elt;
        lr->root = cs_coll_is_rooted(tb->coll) && r->root >= 0 && r->root < tb->ranks
                       ? r->root : 0;
        lr->measured_us = r->time_us;
        lr->measured_busbw_GBps = (double)r->size_bytes / (r->time_us * 1e3) *
                                  cs_coll_busbw_factor(tb->coll, tb->ranks);
        lr->simulated_us = NAN;
        if (tb->ranks > ls->max_ranks)
            ls->max_ranks = tb->ranks;
    }
    return 0;
}

int cs_lset_load(cs_lset *ls, char *const *paths, int n_paths, const cs_lset_opts *o,
                 const cs_topo *t, cs_err *err)
{
    cs_log_opts lo;
    int i, k, rc, cap = 0;
    memset(ls, 0, sizeof *ls);
    cs_log_opts_init(&lo);
    lo.default_coll = o->default_coll;
    lo.default_ranks = o->default_ranks;
    if (!(ls->logs = calloc((size_t)n_paths + 1, sizeof *ls->logs)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < n_paths; i++) {
        if ((rc = cs_log_parse_file(paths[i], &lo, &ls->logs[i], err)) < 0) {
            cs_lset_fini(ls);
            return rc;
        }
        ls->n_logs++;
        for (k = 0; k < ls->logs[i]->n_tables; k++)
            if ((rc = add_table(ls, ls->logs[i], k, o, t, &cap, err)) < 0) {
                cs_lset_fini(ls);
                return rc;
            }
    }
    if (ls->n_rows == 0) {
        cs_lset_fini(ls);
        return cs_err_set(err, CS_EINVAL, n_paths == 1 ? paths[0] : "logs",
                          "no rows left to compare (rows of size 0, of time 0, and sizes "
                          "outside --min-bytes / --max-bytes are skipped)");
    }
    return 0;
}

/* One row simulated, as plain data (sim/par.h). */
typedef struct lrow_out {
    double simulated_us;
    int32_t algo;             /* index in cs_algo_all() */
    int32_t proto;            /* cs_proto */
} lrow_out;

typedef struct lrow_items {
    cs_lset *ls;
    const cs_topo *t;
    const cs_nccl_params *np;
    const char *algo;
} lrow_items;

static int simulate_row(void *ctx, int i, void *out, cs_err *err)
{
    const lrow_items *li = ctx;
    const cs_lrow *r = &li->ls->rows[i];
    const cs_algo *const *all;
    lrow_out *o = out;
    int rc, n, a;
    if ((rc = cs_lset_simulate_rows(li->ls, i, i + 1, li->t, li->np, li->algo, err)) < 0)
        return rc;
    all = cs_algo_all(&n);
    for (a = 0; a < n && all[a] != r->algo_ops; a++)
        ;
    if (a == n)
        return cs_err_set(err, CS_ESTATE, r->log, "algorithm '%s' is not in the registry",
                          r->algo);
    o->simulated_us = r->simulated_us;
    o->algo = a;
    o->proto = (int32_t)r->proto;
    return 0;
}

/* Every row of ls simulated, each one once (the rows are distinct). */
static int simulate_all(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        const char *algo, cs_err *err)
{
    lrow_items li = {ls, t, np, algo};
    lrow_out *res = calloc((size_t)ls->n_rows + 1, sizeof *res);
    double *cost = malloc(((size_t)ls->n_rows + 1) * sizeof *cost);
    const cs_algo *const *all;
    cs_par_job job;
    int i, n, rc = 0;
    if (ls->par && cs_par_size() == 1) {     /* threads; under MPI the processes share */
        free(res);
        free(cost);
        return cs__lset_simulate_par(ls, t, np, algo, err);
    }
    if (!res || !cost) {
        free(res);
        free(cost);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    /* Work grows about with ranks x steps (ranks) and with the chunks of larger sizes. */
    for (i = 0; i < ls->n_rows; i++)
        cost[i] = (double)ls->rows[i].ranks * ls->rows[i].ranks *
                  (1.0 + log2(1.0 + (double)ls->rows[i].size_bytes / 65536.0));
    memset(&job, 0, sizeof job);
    job.n_items = ls->n_rows;
    job.cost = cost;
    job.out_bytes = sizeof *res;
    job.run = simulate_row;
    job.ctx = &li;
    job.to_all = 1;
    job.label = ls->progress ? NULL : "simulate rows";  /* else the caller shows it */
    if ((rc = cs_par_map(&job, res, err)) == 0) {
        all = cs_algo_all(&n);
        for (i = 0; i < ls->n_rows; i++) {
            ls->rows[i].simulated_us = res[i].simulated_us;
            ls->rows[i].algo_ops = all[res[i].algo];
            ls->rows[i].algo = all[res[i].algo]->name;
            ls->rows[i].proto = (cs_proto)res[i].proto;
        }
    }
    free(res);
    free(cost);
    return rc;
}

/* Rows that simulate alike: the same collective, ranks, size, element size and root. */
static int cmp_key(const cs_lrow *a, const cs_lrow *b)
{
    if (a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    if (a->ranks != b->ranks)
        return a->ranks < b->ranks ? -1 : 1;
    if (a->size_bytes != b->size_bytes)
        return a->size_bytes < b->size_bytes ? -1 : 1;
    if (a->elt_bytes != b->elt_bytes)
        return a->elt_bytes < b->elt_bytes ? -1 : 1;
    return a->root < b->root ? -1 : a->root > b->root;
}

/* the rows cmp_index sorts (qsort has no context; one per thread, so two sets can sort at
 * once) */
static _Thread_local const cs_lrow *g_sort_rows;

static int cmp_index(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b, c;
    if ((c = cmp_key(&g_sort_rows[i], &g_sort_rows[j])))
        return c;
    return i < j ? -1 : i > j;
}

/* Distinct rows per progress report: about 100 reports, each part still many rows. */
#define PROGRESS_PARTS 100
#define PROGRESS_MIN_ROWS 64

int cs_lset_simulate(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                     const char *algo, cs_err *err)
{
    int n = ls->n_rows, *idx = malloc(((size_t)n + 1) * sizeof *idx);
    int *of = malloc(((size_t)n + 1) * sizeof *of), i, k, nd = 0, rc = 0, step;
    cs_lrow *rows = malloc(((size_t)n + 1) * sizeof *rows);
    cs_lset u;
    if (!idx || !of || !rows) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    /* group the rows by key; each group's first row (in log order) stands for it */
    for (i = 0; i < n; i++)
        idx[i] = i;
    g_sort_rows = ls->rows;
    qsort(idx, (size_t)n, sizeof *idx, cmp_index);
    for (i = 0; i < n; i++)
        of[idx[i]] = i > 0 && !cmp_key(&ls->rows[idx[i - 1]], &ls->rows[idx[i]])
                     ? -1 - idx[i - 1] : 0;
    for (i = 0; i < n; i++) {        /* in log order: a group's first row is met first */
        if (of[i] == 0) {
            rows[nd] = ls->rows[i];
            of[i] = nd++;
        } else {
            of[i] = of[-1 - of[i]];  /* the group's earlier row already holds its index */
        }
    }
    u = *ls;
    /* parts whether or not anyone listens: under MPI every rank makes the same calls */
    step = nd / PROGRESS_PARTS;
    if (step < PROGRESS_MIN_ROWS)
        step = PROGRESS_MIN_ROWS;
    for (k = 0; k < nd && !rc; k += step) {
        u.rows = rows + k;
        u.n_rows = nd - k < step ? nd - k : step;
        rc = simulate_all(&u, t, np, algo, err);
        if (!rc && ls->progress)
            ls->progress(ls->progress_ctx, k + u.n_rows, nd);
    }
    ls->n_distinct = nd;
    for (i = 0; i < n && !rc; i++) {
        cs_lrow *r = &ls->rows[i];
        const cs_lrow *d = &rows[of[i]];
        r->simulated_us = d->simulated_us;
        r->algo = d->algo;
        r->algo_ops = d->algo_ops;
        r->proto = d->proto;
    }
out:
    free(idx);
    free(of);
    free(rows);
    return rc;
}

/* One candidate of row r: its time, or CS_EUNSUPP (from the set's cache when it has one). */
static int sim_cand(const cs_lset *ls, const cs_lrow *r, const cs_topo *t,
                    const cs_nccl_params *np, const cs_algo *ops, cs_proto pr,
                    double *time_us, cs_err *err)
{
    if (ls->cache)
        return cs_simcache_time(ls->cache, r, t, np, ops, pr, time_us, err);
    return cs_lrow_simulate(r, t, np, ops, pr, time_us, NULL, err);
}

int cs_lset_simulate_viable(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                            const char *algo, int all, double keep, cs_err *err)
{
    int i, a, p, k, rc;
    if (ls->par)
        return cs__lset_viable_par(ls, t, np, algo, all, keep, err);
    for (i = 0; i < ls->n_rows; i++) {
        cs_lrow *r = &ls->rows[i];
        const cs_algo *cand[8];
        const cs_algo *c_algo[CS_LROW_MAX_CAND];
        cs_proto c_proto[CS_LROW_MAX_CAND];
        double c_time[CS_LROW_MAX_CAND], best = INFINITY;
        int n_cand = 0, n = 0, ib = -1;
        if (!all && r->n_viable > 0) {
            for (k = 0; k < r->n_viable; k++) {
                double tk;
                if ((rc = sim_cand(ls, r, t, np, r->viable_algo[k], r->viable_proto[k], &tk,
                                   err)) < 0)
                    return rc;
                if (tk < best) {    /* ties: the earlier candidate, as NCCL mode */
                    best = tk;
                    ib = k;
                }
            }
            r->simulated_us = best;
            r->algo_ops = r->viable_algo[ib];
            r->algo = r->algo_ops->name;
            r->proto = r->viable_proto[ib];
            continue;
        }
        if (algo && strcmp(algo, "auto")) {
            if ((rc = cs_algo_lookup(algo, r->coll, &cand[0], err)) < 0)
                return rc;
            n_cand = 1;
        } else {
            n_cand = cs_nccl_params_algos(r->coll, np, cand, 8);
        }
        for (a = 0; a < n_cand; a++)
            for (p = 0; p < CS_PROTO_COUNT && n < CS_LROW_MAX_CAND; p++) {
                double tk;
                if (np->force_proto >= 0 ? p != np->force_proto : !np->proto[p].enabled)
                    continue;
                rc = sim_cand(ls, r, t, np, cand[a], (cs_proto)p, &tk, err);
                if (rc == CS_EUNSUPP)
                    continue;
                if (rc < 0)
                    return rc;
                c_algo[n] = cand[a];
                c_proto[n] = (cs_proto)p;
                c_time[n] = tk;
                if (tk < best) {
                    best = tk;
                    ib = n;
                }
                n++;
            }
        if (n == 0) {
            /* no NCCL candidate here: the full selection says what runs, or why not */
            r->n_viable = 0;
            if ((rc = cs_lset_simulate_rows(ls, i, i + 1, t, np, algo, err)) < 0)
                return rc;
            continue;
        }
        cs__lrow_choose(r, c_algo, c_proto, c_time, n, ib, keep);
    }
    return 0;
}

int cs_lset_simulate_pinned(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                            cs_err *err)
{
    return ls->par ? cs__lset_pinned_par(ls, t, np, err)
                   : cs__lset_pinned_serial(ls, t, np, err);
}

double cs_lrow_error_pct(const cs_lrow *r)
{
    return 100.0 * (r->simulated_us - r->measured_us) / r->measured_us;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int cs_lset_stats(const cs_lset *ls, uint64_t min_bytes, double *median, double *mean,
                  double *max)
{
    double *v = malloc(((size_t)ls->n_rows + 1) * sizeof *v), sum = 0;
    int i, n = 0;
    *median = *mean = *max = 0;
    if (!v)
        return 0;
    for (i = 0; i < ls->n_rows; i++)
        if (ls->rows[i].size_bytes >= min_bytes && isfinite(ls->rows[i].simulated_us))
            v[n++] = fabs(cs_lrow_error_pct(&ls->rows[i]));
    if (n > 0) {
        qsort(v, (size_t)n, sizeof *v, cmp_double);
        for (i = 0; i < n; i++)
            sum += v[i];
        *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        *mean = sum / n;
        *max = v[n - 1];
    }
    free(v);
    return n;
}

double cs_lrow_sim_busbw(const cs_lrow *r)
{
    return (double)r->size_bytes / (r->simulated_us * 1e3) *
           cs_coll_busbw_factor(r->coll, r->ranks);
}

int cs_lset_write_text(FILE *f, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np)
{
    int i, n;
    double med, mean, max;
    fprintf(f, "# collsim validate: %d log%s, %d rows on topology %s (NCCL mode, table %s)\n",
            ls->n_logs, ls->n_logs == 1 ? "" : "s", ls->n_rows, t->name, np->version);
    if (cs_lset_env_write(f, ls, "# ") < 0)
        return CS_EIO;
    fprintf(f, "# error = (simulated - measured) / measured; busbw in GB/s\n#\n");
    fprintf(f, "# %-46s %-13s %5s %12s %12s %12s %8s %9s %9s  %s\n", "log", "collective",
            "ranks", "size", "measured_us", "simulated_us", "error_%", "meas_bus",
            "sim_bus", "algorithm/protocol");
    for (i = 0; i < ls->n_rows; i++) {
        const cs_lrow *r = &ls->rows[i];
        fprintf(f, "  %-46s %-13s %5d %12llu %12.2f %12.2f %8.2f %9.2f %9.2f  %s/%s\n",
                cs_lset_basename(r->log), cs_coll_name(r->coll), r->ranks,
                (unsigned long long)r->size_bytes, r->measured_us, r->simulated_us,
                cs_lrow_error_pct(r), r->measured_busbw_GBps, cs_lrow_sim_busbw(r), r->algo,
                cs_proto_name(r->proto));
    }
    cs_lset_stats(ls, 0, &med, &mean, &max);
    fprintf(f, "# all sizes: %d rows, |error| median %.2f%%, mean %.2f%%, max %.2f%%\n",
            ls->n_rows, med, mean, max);
    n = cs_lset_stats(ls, 1u << 20, &med, &mean, &max);
    if (n > 0)
        fprintf(f, "# sizes >= 1 MiB: %d rows, |error| median %.2f%%, mean %.2f%%, max "
                "%.2f%%\n", n, med, mean, max);
    return ferror(f) ? CS_EIO : 0;
}

int cs_lset_write_json(FILE *f, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np)
{
    json_t *root = json_object(), *rows = json_array();
    double med, mean, max;
    int i, rc;
    if (!root || !rows) {
        json_decref(root);
        json_decref(rows);
        return CS_ENOMEM;
    }
    for (i = 0; i < ls->n_rows; i++) {
        const cs_lrow *r = &ls->rows[i];
        json_t *o = json_object();
        if (!o)
            break;
        json_object_set_new(o, "log", json_string(r->log));
        json_object_set_new(o, "collective", json_string(cs_coll_name(r->coll)));
        json_object_set_new(o, "ranks", json_integer(r->ranks));
        json_object_set_new(o, "size_bytes", json_integer((json_int_t)r->size_bytes));
        json_object_set_new(o, "measured_time_us", cs_json_num(r->measured_us));
        json_object_set_new(o, "simulated_time_us", cs_json_num(r->simulated_us));
        json_object_set_new(o, "error_pct", cs_json_num(cs_lrow_error_pct(r)));
        json_object_set_new(o, "measured_busbw_GBps", cs_json_num(r->measured_busbw_GBps));
        json_object_set_new(o, "simulated_busbw_GBps", cs_json_num(cs_lrow_sim_busbw(r)));
        json_object_set_new(o, "algorithm", json_string(r->algo));
        json_object_set_new(o, "protocol", json_string(cs_proto_name(r->proto)));
        json_array_append_new(rows, o);
    }
    json_object_set_new(root, "topology", json_string(t->name));
    json_object_set_new(root, "nccl_table", json_string(np->version));
    if (ls->n_env > 0)
        json_object_set_new(root, "nccl_env", cs_lset_env_json(ls));
    json_object_set_new(root, "rows", rows);
    cs_lset_stats(ls, 0, &med, &mean, &max);
    json_object_set_new(root, "median_abs_error_pct", cs_json_num(med));
    json_object_set_new(root, "mean_abs_error_pct", cs_json_num(mean));
    json_object_set_new(root, "max_abs_error_pct", cs_json_num(max));
    rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    fputc('\n', f);
    return rc < 0 || ferror(f) ? CS_EIO : 0;
}
