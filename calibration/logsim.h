/* logsim.h: measured logs against the simulator (calibration layer): the rows of several
 * logs as one set, simulating every row on the first n ranks of a topology, error
 * statistics, the validate report, and writing a calibrated topology. */
#ifndef CS_LOGSIM_H
#define CS_LOGSIM_H

#include <stdint.h>
#include <stdio.h>
#include "sim/err.h"
#include "calibration/logparse.h"
#include "algorithms/nccl/nccl.h"
#include "sim/topo.h"
#include "algorithms/coll.h"

/* One measured row. */
#define CS_LROW_MAX_CAND 24    /* (algorithm, protocol) candidates of a row, at most */

typedef struct cs_lrow {
    const char *log;          /* path of its log (borrowed from the set) */
    int table;                /* table index in that log */
    cs_coll coll;             /* collective */
    int ranks;                /* ranks (simulated on topology ranks 0..ranks-1) */
    uint64_t size_bytes;      /* S as nccl-tests prints it, bytes */
    int elt_bytes;            /* element size of its data type, bytes */
    int root;                 /* root for rooted collectives, else 0 */
    double measured_us;       /* measured time (out-of-place, else in-place), us */
    double measured_busbw_GBps;   /* busbw of the measured time, GB/s */
    double simulated_us;      /* simulated time, us (after cs_lset_simulate) */
    const char *algo;         /* algorithm that ran (static string) */
    cs_proto proto;           /* protocol that ran */
    const cs_algo *algo_ops;  /* that algorithm's ops table (after cs_lset_simulate) */
    int n_viable;             /* candidates kept by cs_lset_simulate_viable (0 = all) */
    const cs_algo *viable_algo[CS_LROW_MAX_CAND];   /* their algorithms */
    cs_proto viable_proto[CS_LROW_MAX_CAND];        /* and protocols */
} cs_lrow;

/* One NCCL setting the logs state (logenv.c). */
typedef struct cs_lenv {
    char *name, *value;       /* NCCL_ALGO, Ring (owned) */
    cs_nccl_env_kind kind;    /* applied, no effect on time, or not modelled */
    int overridden;           /* applied kind, but a command-line option (--algo, --proto)
                                 said otherwise and won */
    char note[96];            /* what it changed, e.g. "16 -> 32 channels" */
} cs_lenv;

/* The rows of several logs. */
typedef struct cs_lset {
    cs_log **logs;            /* parsed logs (owned) */
    int n_logs;
    cs_lrow *rows;            /* rows kept (owned) */
    int n_rows;
    int max_ranks;            /* most ranks of any row */
    struct cs_simcache *cache;   /* when set (borrowed), cs_lset_simulate_viable and
                                    cs_lset_simulate_pinned take candidate times from it
                                    (calibration/simcache.h): the same times, fewer runs */
    struct cs_lpar *par;      /* when set (borrowed), cs_lset_simulate, _viable and _pinned
                                 simulate on its threads (cs_lpar): the same results */
    /* when set, cs_lset_simulate reports its progress after each part of the distinct rows:
     * done of total distinct (collective, ranks, size) rows simulated (ctx: progress_ctx) */
    void (*progress)(void *ctx, int done, int total);
    void *progress_ctx;
    int n_distinct;           /* distinct rows the last cs_lset_simulate simulated */
    cs_lenv *env;             /* the NCCL settings of the logs' runs (cs_lset_env_apply;
                                 owned), in the order first seen */
    int n_env;
} cs_lset;

/* Threads for a set's simulations (logsim_par.c): an evaluation's candidate simulations
 * (pure functions of row, topology, table, algorithm and protocol) run on them, the cache
 * asked and filled in the serial order, the fastest picked in it: the same bits for any
 * thread count. Each thread but the caller's simulates on its own view of the topology
 * (sim/topo.h), kept between evaluations while the topology is the same pointer; free
 * the cs_lpar before the topology. Under MPI each process has its own threads, and
 * cs_lset_simulate spreads its rows over the processes instead. */
typedef struct cs_lpar cs_lpar;

#define CS_LPAR_SPANS 7            /* makespans kept: 1, 2, 4, ..., 64 threads */

/* Work counters of a cs_lpar (deterministic but for the timing). */
typedef struct cs_lpar_work {
    long evaluations;         /* passes that simulated something */
    long tasks;               /* simulations run in them (candidates, or rows of
                                 cs_lset_simulate) */
    long shared;              /* candidates not simulated: long trees whose time extends
                                 the two runs another row of the pass made (mode.h) */
    long per_thread[64];      /* of them, run by thread i (0 = the caller); the sum is
                                 tasks (CS_POOL_MAX_THREADS entries) */
    double cpu_s;             /* with timing: the candidate simulations' CPU time, s
                                 (cs_lset_simulate's rows not counted) */
    double span_s[CS_LPAR_SPANS];   /* with timing: the passes' summed makespans on 1, 2,
                                 4, ... threads taking the tasks in the pool's order on
                                 idle cores (from each task's CPU time), s: the wall
                                 time the passes would take there */
} cs_lpar_work;

/* threads: 1 .. CS_POOL_MAX_THREADS (clamped). */
int cs_lpar_new(int threads, cs_lpar **out, cs_err *err);
void cs_lpar_free(cs_lpar *p);
int cs_lpar_threads(const cs_lpar *p);
void cs_lpar_work_get(const cs_lpar *p, cs_lpar_work *out);
/* 1: time every candidate simulation (a thread CPU clock around it) for cpu_s and
 * span_s: benchmarks (COLLSIM_CALIB_STATS=1). */
void cs_lpar_set_timing(cs_lpar *p, int on);

/* Which rows to take and what to assume when a log does not say. */
typedef struct cs_lset_opts {
    cs_coll default_coll;     /* --coll, CS_LOG_COLL_UNKNOWN if not given */
    int default_ranks;        /* --ranks, 0 if not given */
    uint64_t min_bytes;       /* keep rows with size >= this */
    uint64_t max_bytes;       /* and <= this (0 = no limit) */
    int parity;               /* 0: every size; 1: the 1st, 3rd, 5th... nonzero size of
                                 each table; 2: the 2nd, 4th... (--sizes odd|even) */
    int keep_ranks[16];       /* only tables of these rank counts (--keep-ranks) */
    int n_keep_ranks;         /* 0 = every table */
} cs_lset_opts;

/* Parse "--keep-ranks 8,16" into o. */
int cs_lset_keep_ranks(cs_lset_opts *o, const char *list, cs_err *err);

/* The log-selection options calibrate and validate share: their ids for cs_opt_spec, the
 * spec entries to put in a command's table, and the handler. */
enum { CS_LSET_MINB = 1000, CS_LSET_MAXB, CS_LSET_COLL, CS_LSET_RANKS, CS_LSET_SIZES,
       CS_LSET_KEEP };
#define CS_LSET_SPECS                                                                     \
    {"min-bytes", 0, 1, CS_LSET_MINB}, {"max-bytes", 0, 1, CS_LSET_MAXB},                 \
    {"coll", 0, 1, CS_LSET_COLL}, {"ranks", 0, 1, CS_LSET_RANKS},                         \
    {"sizes", 0, 1, CS_LSET_SIZES}, {"keep-ranks", 0, 1, CS_LSET_KEEP}
/* Apply option id with value v to o: 0 done, 1 not one of these ids, or a negative code
 * (usage error) with err filled. */
int cs_lset_option(int id, const char *v, cs_lset_opts *o, cs_err *err);

/* Parse the logs and keep their rows with size > 0 in range. Fails naming the log when a
 * table's collective or ranks are unknown (pass --coll / --ranks), when it needs more
 * ranks than the topology has, or when no row is left. */
int cs_lset_load(cs_lset *ls, char *const *paths, int n_paths, const cs_lset_opts *o,
                 const cs_topo *t, cs_err *err);
void cs_lset_fini(cs_lset *ls);

/* The NCCL settings the logs' runs state (their command lines: NCCL_ALGO=Ring, ...), applied
 * to np on t as NCCL reads them (cs_nccl_env_apply), and kept in ls->env for the report:
 * each applied, or said to leave the time alone, or not modelled. algo_opt and proto_opt
 * are the command's --algo and --proto (NULL or "auto" if not given): where given they win
 * over NCCL_ALGO / NCCL_PROTO. Tables of the set that state different values of a setting
 * collsim applies are refused (one setting at a time: validate them apart), as is a table
 * whose settings were lost. 0 or a negative code with err set. */
int cs_lset_env_apply(cs_lset *ls, const cs_topo *t, cs_nccl_params *np, const char *algo_opt,
                      const char *proto_opt, cs_err *err);
/* The settings as report lines, each starting with prefix: "applied: NCCL_ALGO=Ring
 * (algorithms Ring), ...", "no effect on time: ...", "not modelled: ..." (none: nothing). */
int cs_lset_env_write(FILE *f, const cs_lset *ls, const char *prefix);
struct json_t;
/* The same as a JSON array of {"name", "value", "use", "note"} (new reference; NULL on
 * out of memory). */
struct json_t *cs_lset_env_json(const cs_lset *ls);

/* Simulate every row in NCCL mode (np) with the algorithm named algo for each row's
 * collective (NULL or "auto" = NCCL's choice by time). Rows of the same collective, ranks,
 * size, element size and root are simulated once (ls->n_distinct of them) and share the
 * result. The distinct rows are independent work items: under MPI they are spread over the
 * ranks (sim/par.h) and every rank gets every simulated time. Collective: every rank calls
 * it with the same arguments. */
int cs_lset_simulate(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                     const char *algo, cs_err *err);
/* The same for rows [from, to) only. */
int cs_lset_simulate_rows(cs_lset *ls, int from, int to, const cs_topo *t,
                          const cs_nccl_params *np, const char *algo, cs_err *err);
/* Simulate every row with the algorithm and protocol that the last cs_lset_simulate picked
 * for it, no other candidate: the time of the same choice at other parameter values (the
 * fit's finite differences, where the fastest candidate does not change). */
int cs_lset_simulate_pinned(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                            cs_err *err);

/* Puts point j of a batch into the topology and table given with it (the caller's). */
typedef void (*cs_lset_point_fn)(void *ctx, int j);
/* cs_lset_simulate_pinned at n points: for each j, set(ctx, j), then every row's kept
 * candidate; pred[j * n_rows + i] gets row i's time at point j. The same times and the
 * same cache lookups in the same order as n calls one after another -- which is what it
 * does without threads; with them (ls->par) the simulations of all points run together,
 * each thread on its own view with the point's figures (the Jacobian's columns in one
 * process). Leaves t and np at the last point and the rows' simulated_us at its times. */
int cs_lset_simulate_pinned_points(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                                   int n, cs_lset_point_fn set, void *ctx, double *pred,
                                   cs_err *err);

/* Simulate every row with NCCL's choice, like cs_lset_simulate, but only among the
 * candidates (algorithm, protocol) within a factor keep of the fastest at the last call
 * with all = 1, which simulates every candidate and sets that list (keep >= 1; a row with
 * no list is simulated in full). The fit's trial points, where the fastest candidate
 * changes only among near ones; the times of the candidates simulated are exact. */
int cs_lset_simulate_viable(cs_lset *ls, const cs_topo *t, const cs_nccl_params *np,
                            const char *algo, int all, double keep, cs_err *err);

/* |simulated / measured - 1| in percent over the rows with size >= min_bytes: median, mean,
 * max. Returns the number of rows counted (0: all outputs 0). */
int cs_lset_stats(const cs_lset *ls, uint64_t min_bytes, double *median, double *mean,
                  double *max);

/* Signed error of a row in percent: 100 (simulated - measured) / measured. */
double cs_lrow_error_pct(const cs_lrow *r);

/* A calibrated topology as JSON text (*out, malloc'd): the JSON of spec (preset or file)
 * with every link spec set to the figures t now has for its class, "nccl" set to the object
 * given (ownership taken) and description_add appended to the description; an explicit
 * "graph" of t when that JSON cannot carry the figures. Checked by loading it back. */
struct json_t;
int cs_calib_topology_json(const char *spec, const cs_topo *t, struct json_t *nccl,
                           const char *description_add, char **out, cs_err *err);

/* File name part of a path, for tables. */
const char *cs_lset_basename(const char *path);

/* busbw of a row's simulated time, GB/s. */
double cs_lrow_sim_busbw(const cs_lrow *r);
/* `collsim validate`'s report of simulated rows: the text table with the error summary, or
 * JSON (rows, median/mean/max |error|). 0 or CS_EIO / CS_ENOMEM. */
int cs_lset_write_text(FILE *f, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np);
int cs_lset_write_json(FILE *f, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np);

#endif
