/* memo.h: the memo of collective times as shared work (scenarios layer, issue 13). A plan
 * search asks for the same collectives from many layouts (same group shape and bytes), and
 * the memo of a cs_plan_ctx answers each once. Spread over processes, each process would
 * fill its own memo and simulate the shared collectives again. So a search first collects:
 * it evaluates every candidate with the context collecting, which notes each collective
 * not yet memoised as pending (once) and answers 0 s without simulating it, and stops each
 * evaluation before its step simulation (cs_plan_eval). The pending collectives are then
 * independent work items (cs_plan_pending_run, any process, in any order), their outcomes
 * go into every process's memo (cs_plan_pending_settle), and the candidates are evaluated
 * from the shared memo: every collective is simulated once in all. */
#ifndef CS_MEMO_H
#define CS_MEMO_H

#include "scenarios/plan.h"

/* Collecting on (1) or off (0). While on, cs_plan_comm never simulates. */
void cs_plan_ctx_collect(cs_plan_ctx *c, int on);
int cs_plan_ctx_collecting(const cs_plan_ctx *c);

/* Collectives pending (noted while collecting and not settled yet). */
long cs_plan_pending_count(const cs_plan_ctx *c);
/* Estimated cost of pending collective i, relative (ranks in its groups x the algorithm and
 * protocol candidates it tries); orders the hand-out, largest first. */
double cs_plan_pending_cost(const cs_plan_ctx *c, long i);

/* The outcome of one pending collective: plain data, it may travel between processes. */
typedef struct cs_plan_pending_out {
    double t_s;              /* its time, s (rc == 0) */
    int rc;                  /* 0 or the simulation's negative code */
    int sims;                /* cs_sim runs it took */
    int bounded;             /* candidates its link-load bound spared (comm.c) */
    cs_err err;              /* the simulation's error (rc < 0) */
} cs_plan_pending_out;

/* Simulate pending collective i into *out (a failed simulation is an outcome, rc < 0,
 * not an error). Does not touch the memo. Returns 0, or CS_ENOMEM with err filled. */
int cs_plan_pending_run(cs_plan_ctx *c, long i, cs_plan_pending_out *out, cs_err *err);
/* Put the outcomes of every pending collective (out[0 .. count)) into the memo and empty
 * the pending list. Returns 0 or CS_ENOMEM. */
int cs_plan_pending_settle(cs_plan_ctx *c, const cs_plan_pending_out *out, cs_err *err);

/* Collectives simulated by this process (memo misses computed here, or pending ones run
 * here); cs_plan_ctx_sims counts the cs_sim runs they took. */
long cs_plan_ctx_simulated(const cs_plan_ctx *c);

/* Candidates (algorithm x protocol) not simulated because their link-load bound was above
 * the best time found (comm.c, sim/bound.h): with cs_plan_ctx_sims, every candidate. */
long cs_plan_ctx_bounded(const cs_plan_ctx *c);

#endif
