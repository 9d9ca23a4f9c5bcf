/* par.c: independent work items spread over processes (core layer, par.h): the group's
 * rank and size, the order of the hand-out (largest estimated cost first), running items
 * in order in a group of one. The transport is par_mpi.c or par_one.c; both run items and
 * count progress through par_item.c. */
#include "sim/par-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = 0, g_size = 1, g_started = 0;
int cs_par_init(int *argc, char ***argv, cs_err *err)
{
    int rc;
    if (g_started)
        return 0;
    if ((rc = cs__par_start(argc, argv, &g_rank, &g_size, err)) < 0)
        return rc;
    g_started = 1;
    cs__par_item_setup(g_rank, getenv("COLLSIM_STATS") && !strcmp(getenv("COLLSIM_STATS"), "1"));
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
    cs__par_item_setup(0, 0);
}

int cs_par_rank(void) { return g_rank; }
int cs_par_size(void) { return g_size; }

const char *cs_par_describe(char *buf, size_t n)
{
    return cs__par_engine(buf, n);
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
    pg.t0_s = cs__par_now_s();
    for (i = 0; i < job->n_items; i++)
        pg.total_cost += job->cost ? job->cost[i] : 1.0;
    if (g_size == 1 || cs__par_depth() > 0) {
        if (cs__par_depth() > 0)
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
    if (pg.label && cs_par_get_progress())
        cs_par_get_progress()(pg.label, pg.done, pg.total, cs__par_now_s() - pg.t0_s, -1);
    return rc;
}
