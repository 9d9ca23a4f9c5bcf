/* par_item.c: running one work item and counting progress (core layer, par-private.h): the
 * item runner both the group of one (par.c) and the transports (par_mpi.c) use, its depth
 * (a map inside an item runs its items here, in order), the process's item counts, and the
 * progress function. Below par.c and the transports: calls come in, none go back. */
#include "sim/par-private.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>   /* <time.h> would be sim/time.h here */

static int g_rank = 0;
/* Items running in this process. Atomic, as are the counts below under their lock: threads
 * of one process (the library API, api/collsim.h) may run commands at once. */
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

void cs__par_item_setup(int rank, int timing)
{
    g_rank = rank;
    g_timing = timing;
}

int cs__par_depth(void) { return g_depth; }

double cs__par_now_s(void) { return now_s(); }

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

