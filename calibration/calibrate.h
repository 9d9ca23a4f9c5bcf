/* calibrate.h: fitting a topology to measured logs (calibration layer). The bandwidth and
 * latency of every link class the logs' ranks use, the launch cost, the protocols'
 * per-transfer latencies and bandwidth efficiencies (and reduce_GBps, channel_GBps,
 * nvls_eff where the start sets them), by least squares on log time with the simulator in
 * the loop (calibration/fit.h): a common-factor pre-fit, the full fit; parameters the logs
 * do not determine (relative uncertainty over 50%) are held at their start value and the
 * fit is run again from the start, so that holding them is the same as --fix. `collsim
 * calibrate` prints and writes the result.
 *
 * Files: calibrate.c (the model the fit calls, the rounds, cs_calib_run), calib_params.c
 * (the parameter table: a new parameter is declared in cs__calib_build_params, set in
 * cs__calib_apply, explained in cs_calib_hint), calib_prefit.c, calib_hold.c, calib_out.c
 * (the JSON). Candidate times are reused between evaluations where the figures a
 * candidate reads did not change (calibration/simcache.h): the same fit, fewer runs. */
#ifndef CS_CALIBRATE_H
#define CS_CALIBRATE_H

#include <stdint.h>
#include "sim/err.h"
#include "sim/topo.h"
#include "algorithms/nccl/nccl.h"
#include "calibration/fit.h"
#include "calibration/logsim.h"
#include "calibration/simcache.h"

/* A link class being fitted: its links and their original figures. */
typedef struct cs_calib_class {
    char name[48];            /* class name, "alpha_beta" for the alpha_beta model */
    int *links;               /* link indices (owned) */
    double *bw0, *lat0;       /* original figures per link (owned) */
    int n_links;
    int rep_bw, rep_lat;      /* the links whose figures stand for the class (the fastest,
                                 the slowest): the others keep their ratio to them */
    int p_bw, p_lat;          /* parameter indices */
} cs_calib_class;

/* Why a parameter is held at its start value. */
typedef enum cs_calib_held {
    CS_CALIB_FREE = 0,             /* fitted */
    CS_CALIB_HELD_FIX,             /* --fix */
    CS_CALIB_HELD_UNDETERMINED     /* not determined by these logs: the fit could not tell it
                                      apart, no time depends on it, or its relative
                                      uncertainty exceeds 50% */
} cs_calib_held;

#define CS_CALIB_MAX_ROUNDS 4     /* refits after the first, each trying to hold what the
                                     last one did not determine */

#define CS_CALIB_FULL_EVERY 8     /* a fit's model simulates every candidate (algorithm,
                                     protocol) of a row every 8th call ... */
#define CS_CALIB_KEEP 1.5         /* ... and in between only those within 1.5x of the
                                     fastest then */

/* A calibration in progress: the topology and table being fitted (borrowed), the rows,
 * and the parameters. */
typedef struct cs_calib {
    cs_topo *t;               /* topology being fitted (borrowed, changed in place) */
    cs_nccl_params *np;       /* NCCL table being fitted (borrowed, changed in place) */
    cs_lset *ls;              /* measured rows (borrowed; simulated_us updated) */
    const char *algo;         /* --algo, NULL = NCCL's choice */
    cs_calib_class *cls;     /* link classes being fitted (owned) */
    int n_cls;                /* entries in cls */
    cs_fit_param par[64];     /* parameters, fitted values after cs_calib_run */
    double start[64];         /* their values in the start topology (held ones keep them) */
    double fit_start[64];     /* where a fit starts them: start within the bounds (a zero
                                 latency starts at 0.05 us, a zero launch cost at 1 us) */
    cs_calib_held held[64];   /* held at the start value, and why */
    int n_rounds;             /* fits run (1 + CS_CALIB_MAX_ROUNDS at most) */
    long n_evals;             /* simulations of every row with every candidate */
    long n_pinned;            /* simulations of every row with its kept candidate only */
    int uncertain[64];        /* fitted, relative uncertainty over 50%, but the logs reject
                                 its start value (holding it there worsens the fit) */
    int n_par;                /* entries in par */
    cs_fit_result fr;         /* the least-squares result */
    int p_launch, p_hop[CS_PROTO_COUNT], p_eff[CS_PROTO_COUNT];   /* -1: not fitted */
    int p_gamma;              /* reduce_GBps, -1 when no log reduces */
    int p_chan;               /* channel_GBps, -1 unless the start table sets a cap */
    int p_tree;               /* tree_channel_GBps, -1 unless the start table sets it */
    int p_nvls;               /* nvls_eff, -1 unless the start table enables NVLS */
    int p_tr_lat[CS_TR_COUNT];/* transports' lat_us, -1 unless the start table sets it */
    int p_tr_msg[CS_TR_COUNT];/* transports' msg_us, -1 unless the start table sets it */
    int p_tr_one[CS_TR_COUNT];/* transports' bw_one_GBps, -1 unless the start table sets it */
    int p_tr_both[CS_TR_COUNT];/* transports' bw_both_GBps, likewise */
    double gamma0;            /* the topology's reduce_GBps before the fit (0 = free) */
    int plan_ranks;           /* > 0: the rows' one rank count, whose PCIe channel plan
                                 (NCCL's ring search, algorithms/nccl/search.c) became the
                                 table's channels and channel_GBps, fitted as any cap */
    cs_simcache *cache;       /* candidate times memoised during the fit (owned, freed at
                                 the end of cs_calib_run) */
    cs_simcache_stats reuse;  /* its counters at the end of the fit (zero without reuse):
                                 this process's, under MPI each process has its own */
} cs_calib;

/* Reuse of simulations between the fit's evaluations (calibration/simcache.h). With the
 * default, the environment may choose: COLLSIM_CALIB_REUSE=off (or 0) or verify.
 * COLLSIM_CALIB_STATS=1 prints the cache's counters to stderr at the end of the fit (one
 * line per process). */
typedef enum cs_calib_reuse {
    CS_CALIB_REUSE_ON = 0,         /* default: candidate times memoised */
    CS_CALIB_REUSE_OFF,            /* every candidate simulated every time (the reference) */
    CS_CALIB_REUSE_VERIFY          /* memoised, and every answer checked against a
                                      simulation (a difference fails with CS_ESTATE) */
} cs_calib_reuse;

/* What a calibration was asked for. */
typedef struct cs_calib_opts {
    const char *topo_spec;    /* the start topology as given (preset or file) */
    const char *algo;         /* algorithm, NULL = NCCL's choice */
    const char *fix;          /* --fix list "a,b", NULL = none */
    int max_iter;             /* iteration limit */
    const cs_lset_opts *ls;   /* which rows were taken */
    char *const *logs;        /* log paths */
    int n_logs;
    cs_calib_reuse reuse;     /* reuse of simulations (0 = on) */
    int threads;              /* threads simulating candidates in this process (logsim.h
                                 cs_lpar; 0 = cs_pool_default_threads, 1 = serial): the
                                 same result for every count */
} cs_calib_opts;

/* Fit t and np to the rows of ls (all borrowed; c is initialised here and keeps pointers to
 * them). On success t and np hold the fitted values and ls the simulated times at them.
 * cs_calib_fini(c) afterwards, also on failure. */
int cs_calib_run(cs_calib *c, cs_topo *t, cs_nccl_params *np, cs_lset *ls,
                 const cs_calib_opts *o, cs_err *err);
void cs_calib_fini(cs_calib *c);

/* Which extra measurement would determine parameter i (a sentence, static storage). */
const char *cs_calib_hint(const cs_calib *c, int i);
/* Where the start sets a rank pair's one-direction or both-directions limit (transports
 * p2p/shm bw_one_GBps, bw_both_GBps) and the logs' rows all move both directions at once
 * (allreduce, allgather, reducescatter, alltoall, sendrecv) or all one (broadcast, reduce,
 * gather, scatter): the sentence saying which collectives the logs cannot speak for and
 * how uncertain those predictions are; NULL otherwise. Static storage. */
const char *cs_calib_dir_note(const cs_calib *c);

/* A fitted value pinned at a bound: -1 lower, 1 upper, 0 inside (or held). */
int cs_calib_at_bound(const cs_fit_param *p);

/* The "nccl" object of the calibrated topology, with what it was fitted on (a new jansson
 * reference). */
struct json_t;
struct json_t *cs_calib_nccl_json(const cs_calib *c, const cs_calib_opts *o);

#endif
