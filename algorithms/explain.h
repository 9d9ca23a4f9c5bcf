/* explain.h: one schedule taught step by step (algorithms layer): its transfers with
 * simulated times, a text timeline per rank, and the algorithm's closed form with every
 * number put in beside the simulated total. `collsim explain` prints these. */
#ifndef CS_EXPLAIN_H
#define CS_EXPLAIN_H

#include <stdio.h>
#include "sim/exec.h"
#include "algorithms/coll.h"

/* Times of every operation of a run, ps (-1 = never happened). */
typedef struct cs_explain_times {
    cs_time *start, *done, *reduced;  /* per operation (owned) */
    cs_time end_ps;                   /* when the schedule finished, ps */
    int wrong;                        /* #wrong of the run (-1 unchecked) */
} cs_explain_times;

/* Run s alone on ranks 0..n-1 of t (costs may be NULL) and record every operation's times. */
int cs_explain_run(const cs_topo *t, const cs_sched *s, const cs_sim_costs *costs,
                   cs_explain_times *tm, cs_err *err);
void cs_explain_times_fini(cs_explain_times *tm);

/* The transfers by start time (the first 200 unless all), with a reduced_us column when
 * has_gamma. */
void cs_explain_table(FILE *f, const cs_sched *s, const cs_explain_times *tm, int all,
                      int has_gamma);
/* A text timeline per rank (tx and rx lanes, the first 64 ranks unless all). */
void cs_explain_timeline(FILE *f, const cs_sched *s, const cs_explain_times *tm, cs_time end,
                         int all);
/* The closed form of ops for req on t with the numbers put in, and the simulated time. */
void cs_explain_closed_form(FILE *out, const cs_algo *ops, const cs_coll_req *req,
                            const cs_topo *t, cs_time sim_end);
/* One line of `explain -g A:B` (a sweep over rank counts): ranks, the algorithm that ran,
 * steps, transfers, simulated and closed-form times (us; '~' marks an estimate), #wrong, and
 * the closed form, symbols and then numbers; with header, the column titles first (and a
 * note off the alpha_beta fabric, where closed forms are estimates). */
void cs_explain_ranks_row(FILE *out, int header, const cs_algo *ops, const cs_coll_req *req,
                          const cs_topo *t, const cs_sched *s, const cs_explain_times *tm);
/* Put the numbers into a closed form: identifiers p, p', L, S, a, b, g, k, K, C become
 * their values (a in us, b and g in us per byte, S in bytes); log2, floor stay. */
void cs_formula_substitute(const char *f, const cs_coll_req *req, const cs_ab *ab, char *out,
                           size_t n);

#endif
