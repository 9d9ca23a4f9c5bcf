/* run.h: running collectives the way `collsim run` does (algorithms layer): nccl-tests'
 * size loop, one size simulated with a named or automatic algorithm on the bare fabric or
 * in NCCL mode, a whole sweep into a report (sim/report.h) with the busiest links of its
 * largest size, and the schedule a size runs (for timelines and traces). The commands
 * (run, explain, plot) and training plans call these, so they print the same numbers. */
#ifndef CS_RUN_H
#define CS_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "sim/err.h"
#include "sim/exec.h"
#include "sim/report.h"
#include "sim/sched.h"
#include "sim/topo.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/nccl.h"

/* How to run a collective. */
typedef struct cs_run_cfg {
    const char *algo;            /* registered algorithm name, or "auto" */
    int chunks;                  /* pipeline chunks per step (bare fabric; NCCL mode sets
                                    its own), >= 1 */
    int servers;                 /* parameter_server: server ranks, >= 1 */
    int channels;                /* parallel rings/trees on the bare fabric (0 = 1) */
    int root;                    /* root for rooted collectives */
    int check;                   /* run the symbolic data check (#wrong) */
    const cs_nccl_params *nccl;  /* NCCL mode parameters, NULL = the bare fabric */
} cs_run_cfg;

/* Defaults: auto, 1 chunk, 1 server, 1 channel, root 0, data check on, bare fabric. */
void cs_run_cfg_init(cs_run_cfg *cfg);

/* nccl-tests' size loop from min_bytes to max_bytes: times step_factor each step, or plus
 * step_bytes when step_factor is 0; stops before overflowing. *out is malloc'd. CS_EUSAGE
 * past 100000 sizes. */
int cs_run_sizes(uint64_t min_bytes, uint64_t max_bytes, long step_factor,
                 uint64_t step_bytes, uint64_t **out, int *n, cs_err *err);

/* The ranks a command runs on: ranks (-g; 0 = every rank of t) into *p, refusing more than
 * t has (-g) and a root outside 0..p-1 for rooted collectives (-r), as usage errors. */
int cs_run_ranks(const cs_topo *t, long ranks, cs_coll coll, long root, int *p, cs_err *err);

/* One line describing the network model (and NCCL mode when np is not NULL, with a PCIe
 * host's channel plan at `ranks` ranks) for a report's header. */
void cs_run_model_line(const cs_topo *t, const cs_nccl_params *np, int ranks, char *buf,
                       size_t n);

/* Simulate one size of coll on topology ranks 0..p-1 (elt: element size in bytes; size as
 * nccl-tests' -b, turned into S and count as nccl-tests does). Fills row (algorithm,
 * protocol, channels, time, #wrong). */
int cs_run_size(const cs_run_cfg *cfg, const cs_topo *t, cs_coll coll, int p, int elt,
                uint64_t size, cs_row *row, cs_err *err);

/* Simulate every size into sw (whose header fields the caller sets: coll, ranks, ...). With
 * links set, also the busiest directed links of the largest size (sw->links, n_links,
 * links_size_bytes) and the bottleneck line, written into bottleneck (bn bytes) that
 * sw->bottleneck then points to. The sizes are independent work items: under MPI they are
 * spread over the ranks (sim/par.h), and every rank gets the same rows. Collective: every
 * rank of an MPI run calls it with the same arguments. */
int cs_run_sweep(const cs_run_cfg *cfg, const cs_topo *t, int p, int elt,
                 const uint64_t *sizes, int n_sizes, int links, cs_sweep *sw,
                 char *bottleneck, size_t bn, cs_err *err);

/* One sweep of several run at once (cs_run_sweeps). */
typedef struct cs_run_task {
    const cs_run_cfg *cfg;       /* how to run it (borrowed) */
    const cs_topo *t;            /* on this topology's ranks 0..p-1 (borrowed) */
    int p;                       /* ranks */
    int elt;                     /* element size, bytes */
    cs_sweep *sw;                /* header set by the caller (coll, ...); rows appended */
    const uint64_t *sizes;       /* its sizes (borrowed); a barrier runs size 0 alone */
    int n_sizes;
    int links;                   /* as cs_run_sweep's links */
    char *bottleneck;            /* as cs_run_sweep's, bn bytes */
    size_t bn;
} cs_run_task;

/* cs_run_sweep of several sweeps (every collective of `collsim run all`, the rank counts
 * and algorithms of a grid) as one set of work items, so the ranks of an MPI run balance
 * the load across all of them. Collective, as cs_run_sweep. */
int cs_run_sweeps(cs_run_task *tasks, int n_tasks, cs_err *err);

/* The collectives of `collsim run all`, in the order its tables print (nccl-tests' tests
 * first, then barrier); *n gets the count. */
const cs_coll *cs_run_all_colls(int *n);

/* Fill the header of a sweep the way `collsim run` prints it: collective, requested
 * algorithm, topology name and kind, datatype, redop ("none" unless the collective
 * reduces), ranks, root (-1 unless rooted), chunks and the model line (all borrowed). */
void cs_run_header(cs_sweep *sw, cs_coll coll, const char *algo, const cs_topo *t,
                   const char *datatype, const char *redop, int ranks, int root, int chunks,
                   const char *model);

/* What one size runs. */
typedef struct cs_run_choice {
    const cs_algo *algo;         /* the algorithm (NCCL mode: the winner) */
    const char *protocol;        /* NCCL mode: "LL", "LL128" or "Simple"; NULL when bare */
    cs_coll_req req;             /* the request its schedule was built from (chunks,
                                    channels as NCCL mode set them) */
    double time_us;              /* NCCL mode: the winner's simulated time, us; NAN bare */
} cs_run_choice;

/* cs_run_schedule, also saying what was chosen: the same choice run and validate make, so
 * explain shows the schedule whose time they print. */
int cs_run_choose(const cs_run_cfg *cfg, const cs_topo *t, cs_coll coll, int p, int elt,
                  uint64_t size, cs_run_choice *ch, cs_sched *s, cs_sim_costs *costs,
                  cs_err *err);

/* The schedule and executor costs of the algorithm one size runs (the winner in NCCL mode;
 * zero costs on the bare fabric), to run again with an observer. s is initialised here
 * (the caller finis it on success). */
int cs_run_schedule(const cs_run_cfg *cfg, const cs_topo *t, cs_coll coll, int p, int elt,
                    uint64_t size, cs_sched *s, cs_sim_costs *costs, cs_err *err);

/* Rank counts of -g: "N"; "A:B" doubling from A up to B (2:64 = 2, 4, ..., 64); "A:B:+K"
 * adding K; "A:B:*F" multiplying by F; a list "A,B,C". *out is malloc'd (*n entries, in
 * the given order). CS_EUSAGE (where "-g") for anything else, counts outside
 * [1, 2^20] or more than 4096 of them. */
int cs_run_parse_ranks(const char *spec, int **out, int *n, cs_err *err);
/* A comma list of names ("ring,parameter_server") into *out (n strings, all owned; free
 * with cs_run_names_free). CS_EUSAGE for an empty name (where "--algo"). */
int cs_run_parse_names(const char *spec, char ***out, int *n, cs_err *err);
void cs_run_names_free(char **names, int n);

/* A grid of size sweeps: one per (rank count, collective, algorithm), in that order. */
typedef struct cs_run_grid_req {
    const char *topo;             /* preset or file; a file of a kind that takes its rank
                                     count from the command may leave "ranks" out */
    const int *ranks;             /* rank counts (borrowed); NULL/0 = every rank of the
                                     topology */
    int n_ranks;                  /* entries in ranks */
    const char *const *algos;     /* algorithm names or "auto" (borrowed) */
    int n_algos;                  /* entries in algos, >= 1 */
    cs_coll coll;                 /* collective (when n_colls is 0) */
    const cs_coll *colls;         /* or several, one sweep each (`run all`; borrowed) */
    int n_colls;                  /* entries in colls, 0 = coll alone */
    const char *dtype;            /* datatype name for the reports (borrowed) */
    int elt;                      /* its element size, bytes */
    const char *redop;            /* reduction name (borrowed) */
    const uint64_t *sizes;        /* sizes as nccl-tests' -b loop gives them (borrowed) */
    int n_sizes;                  /* entries in sizes */
    int links;                    /* report the busiest links of the largest size */
    const char *proto;            /* --proto (NCCL mode, cs_nccl_setup), NULL if not given */
    cs_run_cfg cfg;               /* everything else (its algo is replaced per sweep; its
                                     nccl is set from the topology and proto, with
                                     cfg.channels > 0 over the table's channels) */
} cs_run_grid_req;

struct cs_run_grid_keep;
/* The sweeps of a grid, with the topologies and strings their reports borrow. */
typedef struct cs_run_grid {
    cs_sweep *sweeps;             /* n sweeps, rank counts outermost (owned) */
    int n;                        /* sweeps run */
    struct cs_run_grid_keep *keep;/* per sweep: model and bottleneck lines (owned) */
    cs_topo **topos;              /* one topology per rank count (owned) */
    int n_topos;                  /* topologies opened */
    cs_nccl_params nccl;          /* NCCL mode's table when nccl_on */
    int nccl_on;                  /* the sweeps ran in NCCL mode */
} cs_run_grid;

/* COLL of `collsim run` into rq: a collective (nccl-tests program names too) or "all",
 * every collective of cs_run_all_colls (rq->coll then allreduce, for -o). CS_EUSAGE for an
 * unknown name. */
int cs_run_grid_colls(cs_run_grid_req *rq, const char *name, cs_err *err);

/* Run the grid, every size of every sweep one work item (cs_run_sweeps). Errors: as
 * cs_run_sweep, and CS_EUSAGE for a rank count above what a
 * topology that fixes its count has ("-g") or a root outside the ranks ("-r"). On error
 * nothing is left to free. */
int cs_run_grid_run(const cs_run_grid_req *rq, cs_run_grid *g, cs_err *err);
void cs_run_grid_fini(cs_run_grid *g);

#endif
