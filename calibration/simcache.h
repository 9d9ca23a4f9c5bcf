/* simcache.h: memoised times of log-row candidates (calibration layer). A calibration
 * simulates the same (row, algorithm, protocol) again and again while only scalars change,
 * and between two evaluations most of them do not touch a given candidate: a Jacobian
 * column moves one parameter, and a protocol's per-transfer latency or efficiency moves
 * only that protocol's candidates; the point GSL evaluates first is often one evaluated
 * before. The cache keys a candidate's time by everything its simulation reads -- the row
 * (collective, ranks, bytes, root, element size), the algorithm and protocol, the
 * topology's figures (model, alpha-beta figures, reduce_GBps, every link's bandwidth and
 * latency) and the NCCL table with only this protocol's entry (and the NVLS figures only
 * for the NVLS algorithms) -- and answers a repeat without simulating.
 *
 * Launch cost analytically: the launch cost (launch_us plus the protocol's base_us, or
 * NVLS's latency) delays the job's first operation and nothing else, so every event of
 * the run moves by the same whole number of picoseconds and the time is launch_ps + a
 * rest that does not depend on it (the engine orders events by time, then by the order
 * they were scheduled; both are unchanged by a common shift, and every duration is a
 * difference of times). The key leaves launch_us out and the cache keeps the rest: a
 * column of launch_us simulates nothing. Tests check the answers against simulating
 * (cs_simcache_set_verify): the same bits.
 *
 * When a new figure enters the simulation (a topology or table field), it must enter the
 * key (simcache.c, topo_key and np_key); the whole NCCL table is in the key already. */
#ifndef CS_SIMCACHE_H
#define CS_SIMCACHE_H

#include "sim/err.h"
#include "sim/topo.h"
#include "algorithms/nccl/nccl.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/coll.h"

typedef struct cs_simcache cs_simcache;
struct cs_lrow;

/* Deterministic work counters of a cache (per process: under MPI each process has its
 * own cache and runs its own share of the Jacobian's columns). */
typedef struct cs_simcache_stats {
    long lookups;             /* candidate times asked for */
    long simulated;           /* of them, simulated (not in the cache) */
    long hits;                /* of them, answered by the cache with the same launch cost */
    long hits_launch;         /* answered by the cache with another launch cost (shifted) */
    long topo_states;         /* distinct topology figures seen */
    long entries;             /* candidate times held now */
} cs_simcache_stats;

int cs_simcache_new(cs_simcache **out, cs_err *err);
void cs_simcache_free(cs_simcache *c);
/* 1: every answer from the cache is also simulated and compared; a difference fails with
 * CS_ESTATE (for tests). */
void cs_simcache_set_verify(cs_simcache *c, int on);
void cs_simcache_stats_get(const cs_simcache *c, cs_simcache_stats *out);
/* For tests: empty the cache when it would hold more than n entries (default 65536, about
 * 20 MB; every entry and topology state is dropped then, and the cache fills again). */
void cs__simcache_set_max_entries(cs_simcache *c, int n);

/* The time (us) of row r run with algorithm ops and protocol pr (forced) on t with table
 * np, from the cache or simulated (cs_nccl_simulate). CS_EUNSUPP (err untouched) when
 * the candidate cannot run -- also remembered; other failures as cs_nccl_simulate's, the
 * message prefixed with the row's log. */
int cs_simcache_time(cs_simcache *c, const struct cs_lrow *r, const cs_topo *t,
                     const cs_nccl_params *np, const cs_algo *ops, cs_proto pr,
                     double *time_us, cs_err *err);
/* Deferred lookups, for a batch whose simulations run on threads (calibration/
 * logsim_par.c): ask for every candidate in order (cs_simcache_ask), simulate the tickets
 * that need it (how CS_SC_SIM, or verify set) into their sim_rc and sim_us, then settle
 * them in the same order (cs_simcache_settle). The answers, the entries and the counters
 * are those of cs_simcache_time called in that order. No other use of the cache between
 * the first ask and the last settle. */
typedef enum cs_simcache_how {
    CS_SC_HIT = 0,            /* answered from the cache at the ask (rc, time_us) */
    CS_SC_SIM,                /* to simulate: its entry waits for the result */
    CS_SC_PEND                /* answered by an earlier ticket's simulation (owner) */
} cs_simcache_how;

typedef struct cs_simcache_ticket {
    cs_simcache_how how;      /* how it is answered */
    int verify;               /* 1: simulate it anyway and compare (verify mode) */
    int rc;                   /* the answer: 0 or CS_EUNSUPP (set at the ask for a hit,
                                 at the settle for a pending one) */
    double time_us;           /* the answer's time when rc is 0, us */
    int owner;                /* CS_SC_PEND: index of the ticket that answers it */
    int entry;                /* CS_SC_SIM: the waiting entry ... */
    long gen;                 /* ... of this generation of the cache (emptied since: gone) */
    int64_t lps;              /* the candidate's launch cost, ps */
    int sim_rc;               /* in, before the settle: the simulation's code (0,
                                 CS_EUNSUPP or a failure) when it needed one */
    double sim_us;            /* and its time, us */
} cs_simcache_ticket;

/* Ask for candidate (ops, pr) of row r; self is the ticket's index in the caller's array.
 * 0, or CS_ENOMEM. */
int cs_simcache_ask(cs_simcache *c, const struct cs_lrow *r, const cs_topo *t,
                    const cs_nccl_params *np, const cs_algo *ops, cs_proto pr, int self,
                    cs_simcache_ticket *tk, cs_err *err);
/* Settle ticket tk[i] (every earlier ticket settled): 0 and *time_us, CS_EUNSUPP, or
 * CS_ESTATE (verify found a difference, err filled; or the ticket's own simulation
 * failed, which the caller reports). */
int cs_simcache_settle(cs_simcache *c, cs_simcache_ticket *tk, int i,
                       const struct cs_lrow *r, const cs_algo *ops, cs_proto pr,
                       double *time_us, cs_err *err);
/* After a failure between ask and settle: forget the entries still waiting (the cache
 * empties). */
void cs_simcache_abandon(cs_simcache *c);

/* The same, always simulated (no cache): what a cache miss and a set without a cache run.
 * ex (may be NULL) gets the two runs a long tree's time was extended from (mode.h). */
int cs_lrow_simulate(const struct cs_lrow *r, const cs_topo *t, const cs_nccl_params *np,
                     const cs_algo *ops, cs_proto pr, double *time_us, cs_nccl_extrap *ex,
                     cs_err *err);
/* Which two runs the same simulation would extend its time from, without running them
 * (cs_nccl_extrap_plan): 0 (ex->on 0 if none) or CS_EUNSUPP. */
int cs_lrow_extrap_plan(const struct cs_lrow *r, const cs_topo *t, const cs_nccl_params *np,
                        const cs_algo *ops, cs_proto pr, cs_nccl_extrap *ex);

#endif
