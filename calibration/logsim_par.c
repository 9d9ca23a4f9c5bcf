/* logsim_par.c: a set's model evaluations on threads (calibration layer, logsim.h
 * cs_lpar). An evaluation is many independent candidate simulations -- pure functions of
 * the row's request, the topology, the NCCL table, the algorithm and the protocol -- so it
 * runs in three passes:
 *
 *   1. serial: collect the (row, candidate) tasks in the order the serial code looks them
 *      up, and ask the set's cache for each (calibration/simcache.h, cs_simcache_ask: the
 *      same entries and counters as looking up one after another);
 *   2. parallel (sim/pool.h): simulate the tasks the cache cannot answer, largest first,
 *      each thread on its own view of the topology (sim/topo.h: its own route cache);
 *   3. serial: settle the tasks in order (the cache stores the times), and pick each row's
 *      fastest candidate exactly as the serial code (ties: the earlier candidate).
 *
 * Every time is a simulation's or the cache's, as serially, and the choices are made in
 * the same order: the results are the same bits for any thread count. A failure is the
 * serial code's first one (the passes stop where it would have stopped). */
#include "calibration/logsim-private.h"
#include "calibration/simcache.h"
#include "algorithms/nccl/mode.h"
#include "sim/par.h"
#include "sim/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert(sizeof ((cs_lpar_work *)0)->per_thread ==
               CS_POOL_MAX_THREADS * sizeof(long), "a counter per thread");

/* Pass 2's context. */
typedef struct lpass {
    cs_lpar *p;
    const cs_lset *ls;
    const cs_topo *t;         /* the master topology (thread 0's) */
    const cs_nccl_params *np;
} lpass;

int cs_lpar_new(int threads, cs_lpar **out, cs_err *err)
{
    cs_lpar *p = calloc(1, sizeof *p);
    if (!p)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    p->threads = threads < 1 ? 1 : threads > CS_POOL_MAX_THREADS ? CS_POOL_MAX_THREADS
                                                                  : threads;
    *out = p;
    return 0;
}

void cs__lpar_drop_views(cs_lpar *p)
{
    int i;
    for (i = 0; i < CS_POOL_MAX_THREADS; i++) {
        cs_topo_view_free(p->view[i]);
        p->view[i] = NULL;
    }
    for (i = 0; i < p->cap_pt; i++) {
        cs_topo_view_free(p->pt_topo[i]);
        p->pt_topo[i] = NULL;
    }
    p->master = NULL;
}

void cs_lpar_free(cs_lpar *p)
{
    if (!p)
        return;
    cs__lpar_drop_views(p);
    free(p->pt_topo);
    free(p->pt_np);
    free(p->task);
    free(p->tk);
    free(p->first);
    free(p->order);
    free(p);
}

int cs_lpar_threads(const cs_lpar *p) { return p->threads; }

void cs_lpar_work_get(const cs_lpar *p, cs_lpar_work *out) { *out = p->work; }

void cs_lpar_set_timing(cs_lpar *p, int on) { p->timing = on; }

/* Room for n tasks and rows + 1 row starts. */
int cs__lpar_reserve(cs_lpar *p, int n, int rows, cs_err *err)
{
    if (n > p->cap_task) {
        int cap = n > 2 * p->cap_task ? n : 2 * p->cap_task;
        ltask *t = realloc(p->task, (size_t)cap * sizeof *t);
        cs_simcache_ticket *k;
        int *o;
        if (t)
            p->task = t;
        k = t ? realloc(p->tk, (size_t)cap * sizeof *k) : NULL;
        if (k)
            p->tk = k;
        o = k ? realloc(p->order, (size_t)cap * sizeof *o) : NULL;
        if (!o)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        p->order = o;
        p->cap_task = cap;
    }
    if (rows + 1 > p->cap_row) {
        int *f = realloc(p->first, ((size_t)rows + 1) * sizeof *f);
        if (!f)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        p->first = f;
        p->cap_row = rows + 1;
    }
    return 0;
}

/* Append task (row, ops, pr) of point pt (-1: none) and ask the cache for it (t and np
 * as the task sees them): 0 or a failure. */
int cs__lpar_add(cs_lpar *p, const cs_lset *ls, int *n, int row, int pt, const cs_algo *ops,
                 cs_proto pr, const cs_topo *t, const cs_nccl_params *np, cs_err *err)
{
    ltask *k;
    int rc;
    if (*n == p->cap_task && (rc = cs__lpar_reserve(p, *n + 1, 0, err)) < 0)
        return rc;
    k = &p->task[*n];
    k->row = row;
    k->pt = pt;
    k->ops = ops;
    k->pr = pr;
    k->sim = 1;
    k->lead = -1;
    k->rc = 0;
    k->us = 0;
    if (ls->cache) {
        if ((rc = cs_simcache_ask(ls->cache, &ls->rows[row], t, np, ops, pr, *n, &p->tk[*n],
                                  err)) < 0)
            return rc;
        k->sim = p->tk[*n].how == CS_SC_SIM || p->tk[*n].verify;
    }
    (*n)++;
    return 0;
}

/* The views of master t for threads from..threads-1, their figures t's now. */
int cs__lpar_sync_views(cs_lpar *p, const cs_topo *t, int from, int threads, cs_err *err)
{
    int i, rc;
    if (p->master != t)
        cs__lpar_drop_views(p);
    p->master = t;
    for (i = from; i < threads; i++) {
        if (!p->view[i] && (rc = cs_topo_view_new(t, &p->view[i], err)) < 0)
            return rc;
        cs_topo_view_sync(p->view[i], t);
        p->view_pt[i] = -1;
    }
    return 0;
}

/* This thread's CPU time, s. */
static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Simulate task k on thread worker. */
static void sim_task(lpass *c, int worker, ltask *k)
{
    cs_lpar *p = c->p;
    const cs_topo *t = worker ? p->view[worker] : c->t;
    const cs_nccl_params *np = c->np;
    if (k->pt >= 0) {         /* a point's figures, into this thread's view */
        if (p->view_pt[worker] != k->pt) {
            cs_topo_view_sync(p->view[worker], p->pt_topo[k->pt]);
            p->view_pt[worker] = k->pt;
        }
        t = p->view[worker];
        np = &p->pt_np[k->pt];
    }
    cs_err_clear(&k->err);
    if (p->timing)
        k->cpu_s = -thread_cpu_s();
    k->rc = cs_lrow_simulate(&c->ls->rows[k->row], t, np, k->ops, k->pr, &k->us, &k->ex,
                             &k->err);
    if (p->timing)
        k->cpu_s += thread_cpu_s();
}

static void run_task(void *ctx, int worker, int i)
{
    lpass *c = ctx;
    sim_task(c, worker, &c->p->task[c->p->order[i]]);
}

/* Whether tasks a and b are long trees of one shape with the same two runs. */
static int same_runs(const cs_lset *ls, const ltask *a, const ltask *b)
{
    const cs_lrow *x = &ls->rows[a->row], *y = &ls->rows[b->row];
    return a->pt == b->pt && a->ops == b->ops && a->pr == b->pr && x->coll == y->coll &&
           x->ranks == y->ranks && x->root == y->root && x->elt_bytes == y->elt_bytes &&
           a->ex.channels == b->ex.channels && a->ex.chunks == b->ex.chunks &&
           a->ex.b1 == b->ex.b1 && a->ex.b0 == b->ex.b0;
}

/* Long trees across nodes run the same two shorter simulations at every size of a shape
 * (mode.h cs_nccl_extrap): of tasks [0, n) to simulate, the first of a shape leads, the
 * others (lead set) wait for its runs, and so does the tree of that shape whose whole run
 * is the longer of the two. The leaders are few (one a shape and candidate). */
static int share_runs(cs_lpar *p, const cs_lset *ls, const cs_topo *t,
                      const cs_nccl_params *np, int n, cs_err *err)
{
    int i, j, pass, n_lead = 0, *lead = NULL;
    for (i = 0; i < n; i++) {
        ltask *k = &p->task[i];
        k->lead = -1;
        if (!k->sim || cs_lrow_extrap_plan(&ls->rows[k->row], k->pt >= 0 ? p->pt_topo[k->pt] : t,
                                           k->pt >= 0 ? &p->pt_np[k->pt] : np, k->ops, k->pr,
                                           &k->ex) < 0)
            memset(&k->ex, 0, sizeof k->ex);
    }
    for (pass = 0; pass < 2; pass++)     /* the extended trees, then the whole ones */
        for (i = 0; i < n; i++) {
            ltask *k = &p->task[i];
            if (pass ? !k->ex.whole : !k->ex.on)
                continue;
            for (j = 0; j < n_lead && !same_runs(ls, &p->task[lead[j]], k); j++)
                ;
            if (j < n_lead) {
                k->lead = lead[j];
                continue;
            }
            if (pass)                    /* no leader: simulated whole, as always */
                continue;
            if (!(n_lead & (n_lead - 1))) {    /* 0, 1, 2, 4 ...: room doubled */
                int *nl = realloc(lead, (size_t)(n_lead ? 2 * n_lead : 4) * sizeof *nl);
                if (!nl) {
                    free(lead);
                    return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
                }
                lead = nl;
            }
            lead[n_lead++] = i;
        }
    free(lead);
    return 0;
}

/* After pass 2: each follower's time on its leader's line (the bits the simulation would
 * give: the same two runs, the same formula; a whole tree's is the longer run's, t1), or
 * simulated here where the leader did not give that line. */
static void follow(lpass *c, int n)
{
    cs_lpar *p = c->p;
    int i;
    for (i = 0; i < n; i++) {
        ltask *k = &p->task[i];
        const ltask *L;
        if (k->lead < 0)
            continue;
        L = &p->task[k->lead];
        if (L->rc == 0 && L->ex.on && L->ex.channels == k->ex.channels &&
            L->ex.chunks == k->ex.chunks && L->ex.b1 == k->ex.b1 && L->ex.b0 == k->ex.b0) {
            k->rc = 0;
            k->us = cs_time_to_us(cs_nccl_extrap_time(&L->ex, c->ls->rows[k->row].size_bytes));
            k->cpu_s = 0;
            cs_err_clear(&k->err);
            p->work.shared++;
        } else {
            sim_task(c, 0, k);
            p->work.tasks++;
            p->work.per_thread[0]++;
        }
    }
}

/* Estimated cost of a task: the bytes (pipelined pieces) and the ranks squared. */
static double task_cost(const cs_lset *ls, const ltask *k)
{
    const cs_lrow *r = &ls->rows[k->row];
    return (double)r->ranks * r->ranks * (1.0 + (double)r->size_bytes / 1048576.0);
}

/* A task's estimated cost, for sorting. */
typedef struct by_cost {
    double cost;
    int task;
} by_cost;

/* Largest first, ties in task order. */
static int cmp_cost(const void *a, const void *b)
{
    const by_cost *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return (x->task > y->task) - (x->task < y->task);
}

/* Timing (cs_lpar_set_timing): the pass's CPU time, and its makespan on T threads that
 * take the tasks in order, each the next when free (list scheduling: the pool's rule on
 * idle cores), T = 1, 2, 4 ... */
static void account(cs_lpar *p, int m)
{
    double free_at[CS_POOL_MAX_THREADS];
    int k, i, j, T;
    for (i = 0; i < m; i++)
        p->work.cpu_s += p->task[p->order[i]].cpu_s;
    for (k = 0, T = 1; k < CS_LPAR_SPANS; k++, T *= 2) {
        double span = 0;
        for (j = 0; j < T; j++)
            free_at[j] = 0;
        for (i = 0; i < m; i++) {
            int b = 0;
            for (j = 1; j < T; j++)
                if (free_at[j] < free_at[b])
                    b = j;
            free_at[b] += p->task[p->order[i]].cpu_s;
            if (free_at[b] > span)
                span = free_at[b];
        }
        p->work.span_s[k] += span;
    }
}

/* Pass 2: simulate tasks [0, n) that need it (points: tasks of a batch's points, and
 * thread 0 too on a view). */
int cs__lpar_run(cs_lpar *p, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                 int n, int points, cs_err *err)
{
    lpass c = {p, ls, t, np};
    int i, m = 0, threads, rc;
    if ((rc = share_runs(p, ls, t, np, n, err)) < 0)
        return rc;
    for (i = 0; i < n; i++)
        if (p->task[i].sim && p->task[i].lead < 0)
            p->order[m++] = i;
    if (m == 0)
        return 0;
    /* largest first (the order never changes a result) */
    for (i = 1; i < m && task_cost(ls, &p->task[p->order[i - 1]]) >=
                             task_cost(ls, &p->task[p->order[i]]); i++)
        ;
    if (i < m) {
        by_cost *bc = malloc((size_t)m * sizeof *bc);
        if (!bc)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        for (i = 0; i < m; i++) {
            bc[i].cost = task_cost(ls, &p->task[p->order[i]]);
            bc[i].task = p->order[i];
        }
        qsort(bc, (size_t)m, sizeof *bc, cmp_cost);
        for (i = 0; i < m; i++)
            p->order[i] = bc[i].task;
        free(bc);
    }
    threads = p->threads < m ? p->threads : m;
    if ((rc = cs__lpar_sync_views(p, t, points ? 0 : 1, threads, err)) < 0)
        return rc;
    cs_pool_run(threads, m, NULL, run_task, &c, p->work.per_thread);
    p->work.tasks += m;
    p->work.evaluations++;
    if (p->timing)
        account(p, m);
    follow(&c, n);
    return 0;
}

/* Pass 3: the answer of task i: 0 and *us, CS_EUNSUPP, or the failure (err filled). */
int cs__lpar_answer(cs_lpar *p, cs_lset *ls, int i, double *us, cs_err *err)
{
    ltask *k = &p->task[i];
    int rc;
    if (!ls->cache) {
        if (k->rc < 0 && k->rc != CS_EUNSUPP && err)
            *err = k->err;
        if (k->rc == 0)
            *us = k->us;
        return k->rc;
    }
    if (k->sim) {
        p->tk[i].sim_rc = k->rc;
        p->tk[i].sim_us = k->us;
    }
    if (p->tk[i].how == CS_SC_SIM && k->rc < 0 && k->rc != CS_EUNSUPP) {
        if (err)
            *err = k->err;
        return k->rc;
    }
    rc = cs_simcache_settle(ls->cache, p->tk, i, &ls->rows[k->row], k->ops, k->pr, us, err);
    return rc;
}

/* A failure after the asks: the cache forgets what still waits. */
int cs__lpar_fail(cs_lset *ls, int rc)
{
    if (ls->cache)
        cs_simcache_abandon(ls->cache);
    return rc;
}

/* cs_lset_simulate's rows on threads: each row written by one thread, the failure of the
 * first failing row returned (the serial code stops there). */
typedef struct lrows {
    cs_lpar *p;
    cs_lset *ls;
    const cs_topo *t;         /* the master topology (thread 0's) */
    const cs_nccl_params *np;
    const char *algo;
    int *rc;                  /* per row */
    cs_err *err;              /* per row */
} lrows;

static void run_row(void *ctx, int worker, int i)
{
    lrows *c = ctx;
    cs_err_clear(&c->err[i]);
    c->rc[i] = cs_lset_simulate_rows(c->ls, i, i + 1, worker ? c->p->view[worker] : c->t,
                                     c->np, c->algo, &c->err[i]);
}

int cs__lset_simulate_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                          const char *algo, cs_err *err)
{
    cs_lpar *p = ls->par;
    lrows c = {p, ls, t, np, algo, NULL, NULL};
    int i, rc = 0, threads = p->threads < ls->n_rows ? p->threads : ls->n_rows;
    int *order = malloc(((size_t)ls->n_rows + 1) * sizeof *order);
    c.rc = malloc(((size_t)ls->n_rows + 1) * sizeof *c.rc);
    c.err = malloc(((size_t)ls->n_rows + 1) * sizeof *c.err);
    if (!order || !c.rc || !c.err) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    /* the rows of the set come by log and size: the last of each table is its largest */
    for (i = 0; i < ls->n_rows; i++)
        order[i] = ls->n_rows - 1 - i;
    if ((rc = cs__lpar_sync_views(p, t, 1, threads, err)) < 0)
        goto out;
    cs_pool_run(threads, ls->n_rows, order, run_row, &c, p->work.per_thread);
    p->work.tasks += ls->n_rows;
    p->work.evaluations++;
    for (i = 0; i < ls->n_rows && c.rc[i] == 0; i++)
        ;
    if (i < ls->n_rows) {
        rc = c.rc[i];
        if (err)
            *err = c.err[i];
    }
out:
    free(order);
    free(c.rc);
    free(c.err);
    return rc;
}
