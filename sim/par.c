/* par.c: independent work items spread over processes (core layer, par.h): the group's
 * rank and size, the order of the hand-out (largest estimated cost first), running items
 * in order in a group of one, and progress. The transport is par_mpi.c or par_one.c. */
#include "sim/par-private.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>   /* <time.h> would be sim/time.h here */

static int g_rank = 0, g_size = 1, g_started = 0;
/* Items running in this process (a map inside an item runs its items here, in order: it is
 * not collective). Atomic, as are the counts below under their lock: threads of one process
 * (the library API, api/collsim.h) may run commands at once. */
static atomic_int g_depth = 0;
static cs_par_progress_fn g_progress = NULL;
static int g_timing = 0;         /* COLLSIM_STATS=1: time the items */
static cs_par_stats g_stats;     /* this process's items (under g_stats_lock) */
static pthread_mutex_t g_stats_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

int cs_par_init(int *argc, char ***argv, cs_err *err)
{
    int rc;
    if (g_started)
        return 0;
    if ((rc = cs__par_start(argc, argv, &g_rank, &g_size, err)) < 0)
        return rc;
    g_started = 1;
    g_timing = getenv("COLLSIM_STATS") && !strcmp(getenv("COLLSIM_STATS"), "1");
    /* One copy of the results: the other ranks compute, rank 0 prints. */
    if (g_rank != 0 && !freopen("/dev/null", "w", stdout))
        return cs_err_set(err, CS_EIO, "/dev/null", "cannot send rank %d's output there",
                          g_rank);
    return 0;
}

void cs_par_fini(void)
{
    if (!g_started)
        return;
    cs__par_stop();
    g_started = 0;
    g_rank = 0;
    g_size = 1;
}

int cs_par_rank(void) { return g_rank; }
int cs_par_size(void) { return g_size; }

const char *cs_par_describe(char *buf, size_t n)
{
    return cs__par_engine(buf, n);
}

void cs_par_set_progress(cs_par_progress_fn fn) { g_progress = fn; }
cs_par_progress_fn cs_par_get_progress(void) { return g_progress; }

void cs_par_get_stats(cs_par_stats *st)
{
    pthread_mutex_lock(&g_stats_lock);
    *st = g_stats;
    pthread_mutex_unlock(&g_stats_lock);
}

/* CPU time of this process so far, s. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

int cs__par_run_item(const cs_par_job *job, int i, void *out, cs_err *err)
{
    const char *fail = getenv("COLLSIM_FAIL_ITEM");
    int rc;
    memset(out, 0, job->out_bytes);
    /* The test hook of tests/mpi.sh: item N of the first step that has it fails. */
    if (fail && g_depth == 0 && atoi(fail) == i)
        return cs_err_set(err, CS_EINVAL, "COLLSIM_FAIL_ITEM", "item %d failed on purpose "
                          "on rank %d", i, g_rank);
    if (g_depth == 0) {
        double t0 = g_timing ? cpu_s() : 0;
        g_depth++;
        rc = job->run(job->ctx, i, out, err);
        g_depth--;
        pthread_mutex_lock(&g_stats_lock);
        g_stats.items++;
        if (g_timing)
            g_stats.item_cpu_s += cpu_s() - t0;
        pthread_mutex_unlock(&g_stats_lock);
        return rc;
    }
    g_depth++;
    rc = job->run(job->ctx, i, out, err);
    g_depth--;
    return rc;
}

void cs__par_tick(cs__par_prog *pg, int i)
{
    double el, left = -1;
    pg->done++;
    pg->done_cost += pg->cost ? pg->cost[i] : 1.0;
    if (!pg->label || !g_progress)
        return;
    el = now_s() - pg->t0_s;
    if (pg->done_cost > 0)
        left = el * (pg->total_cost - pg->done_cost) / pg->done_cost;
    g_progress(pg->label, pg->done, pg->total, el, left < 0 ? 0 : left);
}

/* Largest cost first; equal costs in index order, so the hand-out is reproducible. The
 * costs being sorted: set and read by the sorting thread only. */
static _Thread_local const double *g_sort_cost;
static int by_cost(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    double ci = g_sort_cost[i], cj = g_sort_cost[j];
    if (ci != cj)
        return ci > cj ? -1 : 1;
    return (i > j) - (i < j);
}

int cs_par_map(const cs_par_job *job, void *results, cs_err *err)
{
    cs__par_prog pg;
    unsigned char *res = results;
    int *order, i, rc = 0;
    if (job->n_items <= 0)
        return 0;
    memset(&pg, 0, sizeof pg);
    pg.label = g_rank == 0 ? job->label : NULL;
    pg.total = job->n_items;
    pg.cost = job->cost;
    pg.t0_s = now_s();
    for (i = 0; i < job->n_items; i++)
        pg.total_cost += job->cost ? job->cost[i] : 1.0;
    if (g_size == 1 || g_depth > 0) {
        if (g_depth > 0)
            pg.label = NULL;
        for (i = 0; i < job->n_items && rc == 0; i++)
            if ((rc = cs__par_run_item(job, i, res + (size_t)i * job->out_bytes, err)) == 0)
                cs__par_tick(&pg, i);
    } else {
        if (!(order = malloc((size_t)job->n_items * sizeof *order)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        for (i = 0; i < job->n_items; i++)
            order[i] = i;
        if (job->cost) {
            g_sort_cost = job->cost;
            qsort(order, (size_t)job->n_items, sizeof *order, by_cost);
        }
        rc = cs__par_map_group(job, order, results, &pg, err);
        free(order);
    }
    if (pg.label && g_progress)
        g_progress(pg.label, pg.done, pg.total, now_s() - pg.t0_s, -1);
    return rc;
}
