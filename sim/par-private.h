/* par-private.h: the two transports behind sim/par.h (core layer): par_mpi.c (MPI) and
 * par_one.c (a group of one, the build without MPI). par.c holds what both share: the
 * order of the hand-out, running one item, progress. */
#ifndef CS_PAR_PRIVATE_H
#define CS_PAR_PRIVATE_H

#include "sim/par.h"

/* Progress of one step (rank 0). */
typedef struct cs__par_prog {
    const char *label;         /* NULL: no display */
    int total, done;           /* items */
    const double *cost;        /* per item, NULL = equal */
    double total_cost, done_cost;
    double t0_s;               /* wall clock at the start, s */
} cs__par_prog;

/* Transport: start the group (*rank, *size; a group of one when MPI is not to be used),
 * stop it, name it. */
int cs__par_start(int *argc, char ***argv, int *rank, int *size, cs_err *err);
void cs__par_stop(void);
const char *cs__par_engine(char *buf, size_t n);

/* Transport: run job over a group of more than one. order: item indices by cost, largest
 * first. Same contract as cs_par_map. */
int cs__par_map_group(const cs_par_job *job, const int *order, void *results,
                      cs__par_prog *pg, cs_err *err);

/* par_item.c: this process's rank and whether items are timed (COLLSIM_STATS=1), set
 * by cs_par_init; items running now (> 0 inside an item); wall clock, s. */
void cs__par_item_setup(int rank, int timing);
int cs__par_depth(void);
double cs__par_now_s(void);
/* Run item i into out (zeroed first). */
int cs__par_run_item(const cs_par_job *job, int i, void *out, cs_err *err);
/* One more item done (rank 0): calls the progress function. */
void cs__par_tick(cs__par_prog *pg, int i);

#endif
