/* pool.h: threads for independent tasks within one process (core layer). A call runs a
 * list of tasks on T threads -- the caller and T - 1 threads started for the call and
 * joined before it returns -- each thread taking the next task of the list until none is
 * left. Which thread runs a task never changes its result: a task writes only its own
 * output, and the caller reads the outputs in task order afterwards, so the output bytes
 * are the same for every T. Under MPI (sim/par.h) each process has its own threads.
 *
 * The thread count of a command: --threads N, else COLLSIM_THREADS=N in the environment,
 * else the CPUs online (sysconf(_SC_NPROCESSORS_ONLN)) divided among the processes of
 * an MPI run on the node, at most CS_POOL_MAX_THREADS. */
#ifndef CS_POOL_H
#define CS_POOL_H

#include "sim/err.h"

#define CS_POOL_MAX_THREADS 64    /* threads of one call, at most */

/* Task `item` run by thread `worker` (0 = the caller, 1..T-1 the others). */
typedef void (*cs_pool_fn)(void *ctx, int worker, int item);

/* Run fn for the items order[0..n) in that order (NULL = 0, 1, ..., n - 1; put the
 * largest first for balance) on `threads` threads (clamped to [1, CS_POOL_MAX_THREADS]
 * and to n). per_worker (may be NULL, threads entries) gets += the items each thread
 * ran: a work counter, their sum is n. A thread that cannot be started leaves its share
 * to the others. Returns the threads that ran (>= 1). */
int cs_pool_run(int threads, int n, const int *order, cs_pool_fn fn, void *ctx,
                long *per_worker);

/* The default thread count: COLLSIM_THREADS when set to a number >= 1, else the CPUs
 * online divided by the MPI processes on this node (OMPI_COMM_WORLD_LOCAL_SIZE or
 * MPI_LOCALNRANKS when set), at least 1, at most CS_POOL_MAX_THREADS. */
int cs_pool_default_threads(void);

/* A thread count given on the command line ("--threads"): 0 or CS_EUSAGE. */
int cs_pool_parse_threads(const char *v, const char *opt, int *out, cs_err *err);

#endif
