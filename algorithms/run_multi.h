/* run_multi.h: what `collsim run` adds to a grid of sweeps for nccl-tests' command line
 * (algorithms layer): rank counts from -g (GPUs per process) x -t (threads per process) or
 * a total, and every data type x reduction (-d all, -o all) as one list of sweeps. */
#ifndef CS_RUN_MULTI_H
#define CS_RUN_MULTI_H

#include "algorithms/run.h"
#include "sim/report.h"

/* Rank counts: total (--ranks) as given, else each count of per_proc (-g, a sweep spec as
 * cs_run_parse_ranks reads it, NULL = 1) times threads (-t, 0 = 1) times procs (the
 * processes of nccl-tests' `mpirun -np N`, <= 1 = one), as nccl-tests counts ranks.
 * Neither given and procs <= 1: *ranks NULL, *n 0 (every rank of the topology).
 * CS_EUSAGE naming --ranks, -g or -t; a product above CS_LIMIT_MAX_RANKS is refused. */
int cs_run_rank_counts(const char *total, const char *per_proc, long threads, int procs,
                       int **ranks, int *n, cs_err *err);

/* -d NAME or all: *dts points at one (filled into *one) or at every data type, *n their
 * count. -o NAME or all: every reduction for allreduce, reduce and reducescatter, else
 * the one named ("all" = sum: the others do not reduce); one_op is a 2-slot array. Errors:
 * CS_EUSAGE for an unknown name, with the known ones. */
int cs_run_dtypes(const char *name, cs_dtype *one, const cs_dtype **dts, int *n, cs_err *err);
int cs_run_redops(cs_coll coll, const char *name, const char **one_op,
                  const char *const **ops, int *n, cs_err *err);

/* The grids of every data type x reduction, and their sweeps side by side (borrowed from
 * the grids, in data type then reduction order). */
typedef struct cs_run_multi {
    cs_run_grid *grids;      /* n_grids grids (owned) */
    int n_grids;
    cs_sweep *sweeps;        /* n shallow copies of the grids' sweeps (array owned) */
    int n;
} cs_run_multi;

/* Run rq for each of dts[0..n_dts) x ops[0..n_ops) (rq's dtype, elt and redop are set per
 * grid). Errors as cs_run_grid_run; on error nothing is left to free. */
int cs_run_multi_run(cs_run_grid_req *rq, const cs_dtype *dts, int n_dts,
                     const char *const *ops, int n_ops, cs_run_multi *m, cs_err *err);
void cs_run_multi_fini(cs_run_multi *m);
/* True if some sweep of m runs on exactly `ranks` ranks (1: say nothing is communicated). */
int cs_run_multi_ranks(const cs_run_multi *m, int ranks);

#endif
