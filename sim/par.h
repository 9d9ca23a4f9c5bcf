/* par.h: independent work items spread over processes (core layer). The one place collsim
 * talks MPI: built with MPI (meson -Dmpi=enabled|auto and Open MPI or MPICH found) and
 * started by mpirun/srun, every process runs the same command, and cs_par_map hands the
 * items of each distributed step out from rank 0; otherwise (no MPI in the build, or a
 * plain `collsim ...`) there is one process and cs_par_map runs the items in order. The
 * results come back in item order, so the output is the same bytes either way.
 *
 * Distribution (DESIGN §9): rank 0 is the manager. It orders the items by estimated cost,
 * largest first, and hands every other rank a chunk from the front -- about 1 / (4 x
 * processes) of the work left, at least one item -- and the next chunk when half of it has
 * come back (dynamic load balancing; the chunks shrink towards the end). Rank 0 takes
 * items from the same front meanwhile, one at a time, and answers the workers between
 * them, so a 2-process run uses both cores and the last items, the smallest, end it. */
#ifndef CS_PAR_H
#define CS_PAR_H

#include <stddef.h>
#include "sim/err.h"

/* Start the process group: MPI_Init when the build has MPI and the process was started by
 * an MPI launcher (mpirun/mpiexec/srun: the environment names a process-manager rank,
 * OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK or PMI_SIZE), or when COLLSIM_MPI=1; never when
 * COLLSIM_MPI=0. Otherwise a group of one. On ranks other than 0 stdout is sent to
 * /dev/null: only rank 0 prints results. Returns 0 or CS_ESTATE with err filled. */
int cs_par_init(int *argc, char ***argv, cs_err *err);
/* End the group (MPI_Finalize when cs_par_init started MPI). Safe to call twice. */
void cs_par_fini(void);

int cs_par_rank(void);         /* this process, 0..size-1 (0 without MPI) */
int cs_par_size(void);         /* processes in the group (1 without MPI) */
/* The MPI library the build uses ("Open MPI v4.1.4"), or "built without MPI". */
const char *cs_par_describe(char *buf, size_t n);

/* One item: compute item i into out (out_bytes of zeroes on entry; plain data only, no
 * pointers: it may travel to another process). Returns 0 or a negative code with err
 * filled. ctx is the caller's: every process passes its own copy of the same state. */
typedef int (*cs_par_item_fn)(void *ctx, int i, void *out, cs_err *err);

/* A distributed step. */
typedef struct cs_par_job {
    int n_items;               /* items 0..n_items-1 */
    const double *cost;        /* estimated cost of each item (any unit, relative), NULL =
                                  all equal; orders the hand-out, never the results */
    size_t out_bytes;          /* bytes of each item's result, >= 1 */
    cs_par_item_fn run;        /* computes one item */
    void *ctx;                 /* its state */
    int to_all;                /* 1: every process receives every result (SPMD code that
                                  goes on computing with them, e.g. the fit); 0: rank 0 */
    const char *label;         /* progress line label, NULL = no progress display */
} cs_par_job;

/* Run every item of job; results[i * out_bytes ...] holds item i's result (on rank 0, or
 * on every rank with to_all). Collective: every process of the group calls it with the
 * same job -- except inside an item, where a map is this process's alone and runs its items
 * here (so a library that maps may be called from an item). With one process the items
 * run in index order and the first failure stops the step. Under MPI a failing item stops the hand-out, the items in flight finish, and every
 * process returns the failure with the lowest item index seen (its cs_err, as the item
 * filled it) -- so every rank can exit non-zero at once. Returns 0 or that code. */
int cs_par_map(const cs_par_job *job, void *results, cs_err *err);
/* For tests: with COLLSIM_FAIL_ITEM=N in the environment, item N of every step (not of a
 * map inside an item) fails with "item N failed on purpose on rank R" (CS_EINVAL). */

/* What this process did so far, for benchmarks: items it ran (of steps, not of maps inside
 * items), and the CPU time they took, s (counted only when COLLSIM_STATS=1 was in the
 * environment at cs_par_init: it costs two system calls per item; else 0). */
typedef struct cs_par_stats {
    long items;                /* items run by this process */
    double item_cpu_s;         /* their CPU time (user + system), s */
} cs_par_stats;
void cs_par_get_stats(cs_par_stats *st);

/* Progress of long steps (jobs with a label): fn is called on rank 0 after each finished
 * item with the label, items done and total, seconds since the step began and an estimate
 * of the seconds left (by cost, >= 0), and once more when the step ends, finished or
 * stopped, with left_s = -1. NULL (the default) turns it off. The command decides whether
 * and how to print. */
typedef void (*cs_par_progress_fn)(const char *label, int done, int total, double elapsed_s,
                                   double left_s);
void cs_par_set_progress(cs_par_progress_fn fn);
/* The function set (NULL when progress is off): a command with steps of its own reports
 * them the same way. */
cs_par_progress_fn cs_par_get_progress(void);

#endif
