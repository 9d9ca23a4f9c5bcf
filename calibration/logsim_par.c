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

/* A row has at most 8 algorithms x every protocol: the serial code's limit of
 * CS_LROW_MAX_CAND supported candidates never stops it early, so every candidate is a task. */
_Static_assert(8 * CS_PROTO_COUNT <= CS_LROW_MAX_CAND, "a row's candidates fit its list");
_Static_assert(sizeof ((cs_lpar_work *)0)->per_thread ==
               CS_POOL_MAX_THREADS * sizeof(long), "a counter per thread");

/* One candidate simulation of an evaluation. */
typedef struct ltask {
    int row;                  /* row index in the set */
    int pt;                   /* -1: the set's topology and table as they are now; else
                                 point pt of a batch (cs_lset_simulate_pinned_points) */
    const cs_algo *ops;       /* algorithm */
    cs_proto pr;              /* protocol (forced) */
    int sim;                  /* 1: simulated in pass 2 */
    int rc;                   /* pass 2: 0, CS_EUNSUPP or a failure */
    double us;                /* pass 2: the time, us */
    cs_err err;               /* pass 2: the failure */
} ltask;

struct cs_lpar {
    int threads;              /* threads of an evaluation, >= 1 */
    const cs_topo *master;    /* the topology the views stand for (NULL: none yet) */
    cs_topo *view[CS_POOL_MAX_THREADS];   /* views for threads 1..threads-1, and 0 for a
                                             batch of points (owned) */
    int view_pt[CS_POOL_MAX_THREADS];     /* the point whose figures view[i] holds, -1:
                                             the topology's */
    cs_topo **pt_topo;        /* a batch's points: the topology's figures (views, owned) */
    cs_nccl_params *pt_np;    /* and the table (owned) */
    int cap_pt;               /* entries allocated in pt_topo, pt_np */
    ltask *task;              /* this evaluation's tasks (owned, reused) */
    cs_simcache_ticket *tk;   /* their cache tickets (owned, reused) */
    int *first;               /* first task of each row, n_rows + 1 entries (owned) */
    int *order;               /* the tasks simulated, largest first (owned) */
    int cap_task, cap_row;    /* entries allocated in task/tk/order, first */
    cs_lpar_work work;        /* counters */
};

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

static void drop_views(cs_lpar *p)
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
    drop_views(p);
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

/* Room for n tasks and rows + 1 row starts. */
static int reserve(cs_lpar *p, int n, int rows, cs_err *err)
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
static int add_task(cs_lpar *p, const cs_lset *ls, int *n, int row, int pt,
                    const cs_algo *ops, cs_proto pr, const cs_topo *t,
                    const cs_nccl_params *np, cs_err *err)
{
    ltask *k;
    int rc;
    if (*n == p->cap_task && (rc = reserve(p, *n + 1, 0, err)) < 0)
        return rc;
    k = &p->task[*n];
    k->row = row;
    k->pt = pt;
    k->ops = ops;
    k->pr = pr;
    k->sim = 1;
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
static int sync_views(cs_lpar *p, const cs_topo *t, int from, int threads, cs_err *err)
{
    int i, rc;
    if (p->master != t)
        drop_views(p);
    p->master = t;
    for (i = from; i < threads; i++) {
        if (!p->view[i] && (rc = cs_topo_view_new(t, &p->view[i], err)) < 0)
            return rc;
        cs_topo_view_sync(p->view[i], t);
        p->view_pt[i] = -1;
    }
    return 0;
}

static void run_task(void *ctx, int worker, int i)
{
    lpass *c = ctx;
    cs_lpar *p = c->p;
    ltask *k = &p->task[p->order[i]];
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
    k->rc = cs_lrow_simulate(&c->ls->rows[k->row], t, np, k->ops, k->pr, &k->us, &k->err);
}

/* Estimated cost of a task: the bytes (pipelined pieces) and the ranks squared. */
static double task_cost(const cs_lset *ls, const ltask *k)
{
    const cs_lrow *r = &ls->rows[k->row];
    return (double)r->ranks * r->ranks * (1.0 + (double)r->size_bytes / 1048576.0);
}

/* Pass 2: simulate tasks [0, n) that need it (points: tasks of a batch's points, and
 * thread 0 too on a view). */
static int simulate_tasks(cs_lpar *p, const cs_lset *ls, const cs_topo *t,
                          const cs_nccl_params *np, int n, int points, cs_err *err)
{
    lpass c = {p, ls, t, np};
    int i, m = 0, threads, rc;
    for (i = 0; i < n; i++)
        if (p->task[i].sim)
            p->order[m++] = i;
    if (m == 0)
        return 0;
    /* largest first (the order never changes a result) */
    for (i = 1; i < m && task_cost(ls, &p->task[p->order[i - 1]]) >=
                             task_cost(ls, &p->task[p->order[i]]); i++)
        ;
    if (i < m) {
        int *tmp = malloc((size_t)m * sizeof *tmp), j;
        double *cost = malloc((size_t)m * sizeof *cost);
        if (!tmp || !cost) {
            free(tmp);
            free(cost);
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        }
        /* insertion sort by cost, largest first, ties in task order (m is small: the
         * tasks of one evaluation) */
        for (i = 0; i < m; i++) {
            double ci = task_cost(ls, &p->task[p->order[i]]);
            for (j = i; j > 0 && cost[j - 1] < ci; j--) {
                cost[j] = cost[j - 1];
                tmp[j] = tmp[j - 1];
            }
            cost[j] = ci;
            tmp[j] = p->order[i];
        }
        memcpy(p->order, tmp, (size_t)m * sizeof *tmp);
        free(tmp);
        free(cost);
    }
    threads = p->threads < m ? p->threads : m;
    if ((rc = sync_views(p, t, points ? 0 : 1, threads, err)) < 0)
        return rc;
    cs_pool_run(threads, m, NULL, run_task, &c, p->work.per_thread);
    p->work.tasks += m;
    p->work.evaluations++;
    return 0;
}

/* Pass 3: the answer of task i: 0 and *us, CS_EUNSUPP, or the failure (err filled). */
static int answer(cs_lpar *p, cs_lset *ls, int i, double *us, cs_err *err)
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
static int fail(cs_lset *ls, int rc)
{
    if (ls->cache)
        cs_simcache_abandon(ls->cache);
    return rc;
}

/* Row i from tasks [from, to) with every candidate (cs_lset_simulate_viable, all). */
static int settle_all(cs_lpar *p, cs_lset *ls, int i, int from, int to, const cs_topo *t,
                      const cs_nccl_params *np, const char *algo, double keep, cs_err *err)
{
    cs_lrow *r = &ls->rows[i];
    const cs_algo *c_algo[CS_LROW_MAX_CAND];
    cs_proto c_proto[CS_LROW_MAX_CAND];
    double c_time[CS_LROW_MAX_CAND], best = INFINITY;
    int n = 0, ib = -1, k, rc;
    for (k = from; k < to; k++) {
        double tk;
        rc = answer(p, ls, k, &tk, err);
        if (rc == CS_EUNSUPP)
            continue;
        if (rc < 0)
            return rc;
        c_algo[n] = p->task[k].ops;
        c_proto[n] = p->task[k].pr;
        c_time[n] = tk;
        if (tk < best) {      /* ties: the earlier candidate, as NCCL mode */
            best = tk;
            ib = n;
        }
        n++;
    }
    if (n == 0) {
        /* no NCCL candidate here: the full selection says what runs, or why not */
        r->n_viable = 0;
        return cs_lset_simulate_rows(ls, i, i + 1, t, np, algo, err);
    }
    r->simulated_us = best;
    r->algo_ops = c_algo[ib];
    r->algo = r->algo_ops->name;
    r->proto = c_proto[ib];
    for (k = 0, r->n_viable = 0; k < n; k++)
        if (c_time[k] <= keep * best) {
            r->viable_algo[r->n_viable] = c_algo[k];
            r->viable_proto[r->n_viable++] = c_proto[k];
        }
    return 0;
}

int cs__lset_viable_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        const char *algo, int all, double keep, cs_err *err)
{
    cs_lpar *p = ls->par;
    cs_err stop_err;
    int i, a, q, k, n = 0, rows = ls->n_rows, rc, stop_rc = 0;
    if ((rc = reserve(p, 8 * ls->n_rows, ls->n_rows, err)) < 0)
        return rc;
    /* pass 1 */
    for (i = 0; i < ls->n_rows; i++) {
        cs_lrow *r = &ls->rows[i];
        const cs_algo *cand[8];
        int n_cand;
        p->first[i] = n;
        if (!all && r->n_viable > 0) {
            for (k = 0; k < r->n_viable && stop_rc == 0; k++)
                stop_rc = add_task(p, ls, &n, i, -1, r->viable_algo[k], r->viable_proto[k], t,
                                   np, &stop_err);
        } else {
            if (algo && strcmp(algo, "auto")) {
                stop_rc = cs_algo_lookup(algo, r->coll, &cand[0], &stop_err);
                n_cand = 1;
            } else {
                n_cand = cs_nccl_algos(r->coll, np->nvls, cand, 8);
            }
            for (a = 0; a < n_cand && stop_rc == 0; a++)
                for (q = 0; q < CS_PROTO_COUNT && stop_rc == 0; q++)
                    if (np->force_proto >= 0 ? q == np->force_proto : np->proto[q].enabled)
                        stop_rc = add_task(p, ls, &n, i, -1, cand[a], (cs_proto)q, t, np,
                                           &stop_err);
        }
        if (stop_rc < 0) {
            rows = i;            /* the serial code stops in row i */
            break;
        }
    }
    p->first[rows] = n;
    /* pass 2 */
    if ((rc = simulate_tasks(p, ls, t, np, n, 0, err)) < 0)
        return fail(ls, rc);
    /* pass 3 */
    for (i = 0; i < rows; i++) {
        cs_lrow *r = &ls->rows[i];
        double best = INFINITY;
        int ib = -1;
        if (all || r->n_viable == 0) {
            if ((rc = settle_all(p, ls, i, p->first[i], p->first[i + 1], t, np, algo, keep,
                                 err)) < 0)
                return fail(ls, rc);
            continue;
        }
        for (k = p->first[i]; k < p->first[i + 1]; k++) {
            double tk;
            if ((rc = answer(p, ls, k, &tk, err)) < 0)
                return fail(ls, rc);
            if (tk < best) {
                best = tk;
                ib = k - p->first[i];
            }
        }
        r->simulated_us = best;
        r->algo_ops = r->viable_algo[ib];
        r->algo = r->algo_ops->name;
        r->proto = r->viable_proto[ib];
    }
    if (stop_rc < 0) {
        if (err)
            *err = stop_err;
        return fail(ls, stop_rc);
    }
    return 0;
}

int cs__lset_pinned_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        cs_err *err)
{
    cs_lpar *p = ls->par;
    cs_nccl_params one = *np;
    int i, n = 0, rows = ls->n_rows, rc, stop_rc = 0;
    if ((rc = reserve(p, ls->n_rows, ls->n_rows, err)) < 0)
        return rc;
    for (i = 0; i < ls->n_rows && stop_rc == 0; i++) {
        if (!ls->rows[i].algo_ops) {
            rows = i;
            stop_rc = CS_ESTATE;
            break;
        }
        if ((stop_rc = add_task(p, ls, &n, i, -1, ls->rows[i].algo_ops, ls->rows[i].proto, t, np,
                                err)) < 0)
            rows = i;
    }
    if (stop_rc < 0 && stop_rc != CS_ESTATE)
        return fail(ls, stop_rc);       /* out of memory */
    if ((rc = simulate_tasks(p, ls, t, np, n, 0, err)) < 0)
        return fail(ls, rc);
    for (i = 0; i < rows; i++) {
        cs_lrow *r = &ls->rows[i];
        cs_coll_req req;
        cs_nccl_pick pick;
        rc = answer(p, ls, i, &r->simulated_us, err);
        if (rc == 0)
            continue;
        if (rc != CS_EUNSUPP)
            return fail(ls, rc);
        /* as the serial code: the candidate simulated with the message */
        cs_coll_req_init(&req, r->coll, r->ranks, r->size_bytes);
        req.root = r->root;
        req.elt_bytes = r->elt_bytes;
        req.topo = t;
        one.force_proto = (int)r->proto;
        if ((rc = cs_nccl_simulate(&req, t, r->algo_ops, &one, 0, &pick, err)) < 0) {
            cs_err_prefix(err, r->log);
            return fail(ls, rc);
        }
        r->simulated_us = pick.time_us;
    }
    if (stop_rc < 0)
        return fail(ls, cs_err_set(err, CS_ESTATE, ls->rows[rows].log, "row pinned before "
                                   "it was simulated"));
    return 0;
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
    if ((rc = sync_views(p, t, 1, threads, err)) < 0)
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

/* Room for n points' figures and tables. */
static int reserve_points(cs_lpar *p, int n, const cs_topo *t, cs_err *err)
{
    int i, rc;
    if (n > p->cap_pt) {
        cs_topo **pt = realloc(p->pt_topo, (size_t)n * sizeof *pt);
        cs_nccl_params *pn;
        if (!pt)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        p->pt_topo = pt;
        for (i = p->cap_pt; i < n; i++)
            pt[i] = NULL;
        if (!(pn = realloc(p->pt_np, (size_t)n * sizeof *pn)))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        p->pt_np = pn;
        p->cap_pt = n;
    }
    if (p->master != t)
        drop_views(p);
    p->master = t;
    for (i = 0; i < n; i++)
        if (!p->pt_topo[i] && (rc = cs_topo_view_new(t, &p->pt_topo[i], err)) < 0)
            return rc;
    return 0;
}

int cs_lset_simulate_pinned_points(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                                   int n_pts, cs_lset_point_fn set, void *ctx, double *pred,
                                   cs_err *err)
{
    cs_lpar *p = ls->par;
    int i, j, n = 0, rc, rows = ls->n_rows;
    for (i = 0; i < rows && ls->rows[i].algo_ops; i++)
        ;
    if (!p || i < rows || n_pts < 1) {
        /* one point after another (and the serial code's failure for a row not chosen) */
        for (j = 0; j < n_pts; j++) {
            set(ctx, j);
            if ((rc = cs_lset_simulate_pinned(ls, t, np, err)) < 0)
                return rc;
            for (i = 0; i < rows; i++)
                pred[(size_t)j * (size_t)rows + (size_t)i] = ls->rows[i].simulated_us;
        }
        return 0;
    }
    if ((rc = reserve(p, n_pts * rows, rows, err)) < 0 ||
        (rc = reserve_points(p, n_pts, t, err)) < 0)
        return rc;
    /* pass 1: each point's figures kept, its rows asked for in the serial order */
    for (j = 0; j < n_pts; j++) {
        set(ctx, j);
        cs_topo_view_sync(p->pt_topo[j], t);
        p->pt_np[j] = *np;
        for (i = 0; i < rows; i++)
            if ((rc = add_task(p, ls, &n, i, j, ls->rows[i].algo_ops, ls->rows[i].proto, t,
                               np, err)) < 0)
                return fail(ls, rc);
    }
    if ((rc = simulate_tasks(p, ls, t, np, n, 1, err)) < 0)
        return fail(ls, rc);
    /* pass 3: in the serial order */
    for (j = 0, n = 0; j < n_pts; j++)
        for (i = 0; i < rows; i++, n++) {
            cs_lrow *r = &ls->rows[i];
            cs_nccl_params one = p->pt_np[j];
            cs_coll_req req;
            cs_nccl_pick pick;
            rc = answer(p, ls, n, &r->simulated_us, err);
            if (rc == 0) {
                pred[(size_t)j * (size_t)rows + (size_t)i] = r->simulated_us;
                continue;
            }
            if (rc != CS_EUNSUPP)
                return fail(ls, rc);
            /* as the serial code: the candidate simulated at this point, for the message */
            cs_coll_req_init(&req, r->coll, r->ranks, r->size_bytes);
            req.root = r->root;
            req.elt_bytes = r->elt_bytes;
            req.topo = p->pt_topo[j];
            one.force_proto = (int)r->proto;
            if ((rc = cs_nccl_simulate(&req, p->pt_topo[j], r->algo_ops, &one, 0, &pick,
                                       err)) < 0) {
                cs_err_prefix(err, r->log);
                return fail(ls, rc);
            }
            r->simulated_us = pick.time_us;
            pred[(size_t)j * (size_t)rows + (size_t)i] = r->simulated_us;
        }
    return 0;
}
