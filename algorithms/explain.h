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
/* The closed form of ops for req on t: its symbols defined, the form, the form with the
 * numbers put in, cost()'s total, and the simulated time beside it. */
void cs_explain_closed_form(FILE *out, const cs_algo *ops, const cs_coll_req *req,
                            const cs_topo *t, cs_time sim_end);
/* The rings of req's channels (the ring plan the ring algorithm and NCCL mode run), one
 * line per channel with the topology's node names in ring order, the first max_channels
 * of them (0 = all); rings of more than 16 ranks show their first 12 and last 2. */
void cs_explain_rings(FILE *f, const cs_coll_req *req, int max_channels);

/* A closed form rendered for explain (UTF-8: '·' products, 'µs', 'γ'). */
typedef struct cs_formula_text {
    char vars[1024];         /* each symbol the form uses, defined once with its value and
                                unit, one per line ("p = 4 ranks\nS = 67108864 B\n...") */
    char form[512];          /* the form with every product written out:
                                "2·(p-1)·(C·k·a + S/p·b) + (p-1)/p·S·γ" */
    char put[1024];          /* every symbol replaced by its value and unit:
                                "2·(4-1)·(1·1 · 1 µs + 67108864 B/4 · 1e-05 µs/B) + ..." */
    double total_s;          /* cost() for the request, seconds (NAN: none); the form is
                                never evaluated from its text */
    int is_estimate;         /* the form is an estimate for this request ('~') */
} cs_formula_text;

/* Render ops's closed form for req with ab's figures. Symbols: p ranks, p' = 2^floor(log2
 * p), L = ceil(log2 p), S bytes, a latency, b time per byte, γ reduction time per byte, C
 * channels, k pieces per step, K servers, g ranks per node and N nodes (node-major
 * groups), X Y Z the grid's dimensions; log2, floor and max are functions. Returns 0, or
 * CS_EUNSUPP when ops has no form, CS_EINVAL when the form uses a symbol with no value
 * for this request. */
int cs_formula_render(const cs_algo *ops, const cs_coll_req *req, const cs_ab *ab,
                      cs_formula_text *ft, cs_err *err);

/* One line of `explain -g A:B` (a sweep over rank counts): ranks, the algorithm that ran,
 * steps, transfers, simulated and closed-form times (us; '~' marks an estimate), #wrong, and
 * the closed form, symbols and then numbers; with header, the column titles first (and a
 * note off the alpha_beta fabric, where closed forms are estimates). */
void cs_explain_ranks_row(FILE *out, int header, const cs_algo *ops, const cs_coll_req *req,
                          const cs_topo *t, const cs_sched *s, const cs_explain_times *tm);
#endif
