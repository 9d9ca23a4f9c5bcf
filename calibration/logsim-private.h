/* logsim-private.h: the threaded passes of logsim.c (calibration layer, not for other
 * layers), and the serial rows under them (logsim_row.c): logsim_par.c (the machinery: tasks, the parallel pass, cs_lset_simulate's rows)
 * and logsim_batch.c (cs_lset_simulate_viable, _pinned, _pinned_points) run a set's
 * simulations on its threads (cs_lset.par), with the same results. */
#ifndef CS_LOGSIM_PRIVATE_H
#define CS_LOGSIM_PRIVATE_H

#include "calibration/logsim.h"
#include "algorithms/nccl/mode.h"
#include "calibration/simcache.h"
#include "sim/pool.h"

int cs__lset_simulate_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                          const char *algo, cs_err *err);
int cs__lset_viable_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        const char *algo, int all, double keep, cs_err *err);
int cs__lset_pinned_par(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                        cs_err *err);

/* logsim_row.c, under logsim.c and the threaded passes. Rows from..to-1 each simulated
 * with NCCL's pick (cs_lset_simulate_rows in logsim.h); every row's kept candidate again, one
 * after another (from the set's cache where it has one). */
int cs__lset_pinned_serial(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                           cs_err *err);
/* Row r's choice among its n candidates
 * (times c_time, the fastest ib, ties already given to the earlier): time, algorithm,
 * protocol, and the viable list (those within keep of the fastest). */
void cs__lrow_choose(cs_lrow *r, const cs_algo *const *c_algo, const cs_proto *c_proto,
                     const double *c_time, int n, int ib, double keep);
/* Row r's kept candidate simulated directly on t with np (the failure with its message,
 * prefixed with the log): 0 and r->simulated_us, or the failure. */
int cs__lrow_pinned_direct(cs_lrow *r, const cs_topo *t, const cs_nccl_params *np,
                           cs_err *err);

/* The machinery of logsim_par.c that logsim_batch.c's evaluations use. */

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
    double cpu_s;             /* pass 2: its CPU time, s (when timing) */
    int lead;                 /* pass 2: -1, or the task whose two runs this long tree's
                                 time extends (the same runs: mode.h cs_nccl_extrap) */
    cs_nccl_extrap ex;        /* pass 2: the two runs (planned; a leader's after it ran) */
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
    int timing;               /* 1: time the tasks (cs_lpar_set_timing) */
};

/* Room for n tasks and rows + 1 row starts: 0 or CS_ENOMEM. */
int cs__lpar_reserve(cs_lpar *p, int n, int rows, cs_err *err);
/* Append task (row, ops, pr) of point pt (-1: none) and ask the set's cache for it (t and
 * np as the task sees them): 0 or a failure. */
int cs__lpar_add(cs_lpar *p, const cs_lset *ls, int *n, int row, int pt, const cs_algo *ops,
                 cs_proto pr, const cs_topo *t, const cs_nccl_params *np, cs_err *err);
/* Forget the views (and the points' figures). */
void cs__lpar_drop_views(cs_lpar *p);
/* The views of master t for threads from..threads-1, their figures t's now. */
int cs__lpar_sync_views(cs_lpar *p, const cs_topo *t, int from, int threads, cs_err *err);
/* Pass 2: simulate tasks [0, n) that need it, largest first (points: tasks of a batch's
 * points, thread 0 too on a view). 0 or a failure of the pass itself (the tasks' own
 * results are in them). */
int cs__lpar_run(cs_lpar *p, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                 int n, int points, cs_err *err);
/* Pass 3: the answer of task i (every task before it answered): 0 and *us, CS_EUNSUPP, or
 * the failure (err filled). */
int cs__lpar_answer(cs_lpar *p, cs_lset *ls, int i, double *us, cs_err *err);
/* A failure after the asks: the cache forgets what still waits; returns rc. */
int cs__lpar_fail(cs_lset *ls, int rc);

#endif
