/* sched.h: collectives and schedules (core layer). A schedule is a DAG of operations on
 * the ranks of one group: transfers {src, dst, chunks, copy|reduce} and compute tasks,
 * each starting when its dependencies are done. Data semantics ride along: a transfer
 * names the data chunks it carries, and the executor checks the collective's
 * postcondition symbolically at the end (the #wrong column, DESIGN §3). */
#ifndef CS_SCHED_H
#define CS_SCHED_H

#include <stdint.h>
#include <stddef.h>
#include "sim/err.h"
#include "sim/time.h"

/* Collectives (contract: nccl-tests names without _perf). Display order. */
typedef enum cs_coll {
    CS_COLL_ALLREDUCE,
    CS_COLL_ALLGATHER,
    CS_COLL_REDUCESCATTER,
    CS_COLL_BROADCAST,
    CS_COLL_REDUCE,
    CS_COLL_GATHER,
    CS_COLL_SCATTER,
    CS_COLL_ALLTOALL,
    CS_COLL_SENDRECV,
    CS_COLL_BARRIER,
    CS_COLL_COUNT
} cs_coll;

/* "allreduce", ... */
const char *cs_coll_name(cs_coll c);
/* One-line summary for `collsim list collectives`. */
const char *cs_coll_summary(cs_coll c);
/* Lookup by name; CS_ENOENT with the known names in err otherwise. */
int cs_coll_lookup(const char *name, cs_coll *out, cs_err *err);
/* The same, also taking nccl-tests' names: all_reduce_perf, all_reduce and allreduce all
 * mean allreduce (underscores and a final _perf are dropped). */
int cs_coll_lookup_program(const char *name, cs_coll *out, cs_err *err);
/* True for broadcast, reduce, gather, scatter (they have a root). */
int cs_coll_is_rooted(cs_coll c);
/* nccl-tests busbw factor for n ranks: allreduce 2(n-1)/n; allgather, reducescatter,
 * alltoall, gather, scatter (n-1)/n; others 1 (DESIGN §3). n = 1 gives 0 for the (n-1)
 * forms, as nccl-tests prints. */
double cs_coll_busbw_factor(cs_coll c, int n);

/* Operation kinds. */
typedef enum cs_op {
    CS_OP_COPY,      /* dst's copy of each chunk becomes src's */
    CS_OP_REDUCE,    /* dst's copy of each chunk is combined with src's (costs gamma) */
    CS_OP_COMPUTE    /* rank src is busy for dur_ps; no data moves */
} cs_op;

/* A data chunk: a piece of the collective's buffers. The collective and these fields fix
 * the symbolic initial state and postcondition:
 *   allreduce, reduce, reducescatter: every rank starts with its own contribution to every
 *     chunk; allreduce wants every chunk fully reduced everywhere, reduce at the root,
 *     reducescatter at rank `owner` of the chunk.
 *   broadcast, scatter: the root starts with every chunk; broadcast wants it everywhere,
 *     scatter at `owner`.
 *   allgather, gather, barrier: rank `owner` starts with the chunk; allgather and barrier
 *     want it everywhere, gather at the root.
 *   alltoall, sendrecv: rank `owner` starts with the chunk; `dest` must end with it. */
typedef struct cs_chunk {
    uint64_t bytes;  /* size, bytes */
    int32_t owner;   /* rank the data belongs to or starts at (see above), -1 if none */
    int32_t dest;    /* destination rank for alltoall/sendrecv, -1 otherwise */
} cs_chunk;

/* One operation of the DAG. Indices point into the schedule's arrays. */
typedef struct cs_xfer {
    int32_t src, dst;      /* group ranks; for CS_OP_COMPUTE src == dst == the busy rank */
    uint8_t op;            /* cs_op */
    uint8_t channel;       /* channel (parallel ring/tree) it belongs to, for reports */
    uint16_t pipe;         /* pipeline chunk index within its step, for explain/plots */
    int32_t step;          /* algorithm step (0-based), for explain/plots; -1 if none */
    uint64_t bytes;        /* bytes moved = sum of its chunks' bytes */
    cs_time dur_ps;        /* CS_OP_COMPUTE only: how long the rank is busy */
    uint32_t chunk_off;    /* its chunk ids: chunk_ids[chunk_off .. chunk_off+n_chunks) */
    uint32_t n_chunks;
    uint32_t dep_off;      /* its dependencies: deps[dep_off .. dep_off+n_deps) */
    uint32_t n_deps;
} cs_xfer;

/* Most auxiliary endpoints of a schedule. */
#define CS_SCHED_MAX_AUX 128
/* Most levels of a turned schedule's rank grid (turn_levels). */
#define CS_SCHED_MAX_LEVELS 8

typedef struct cs_sched cs_sched;
typedef struct cs_sched_stream cs_sched_stream;

/* An algorithm's step generator, for a streamed schedule (cs_sched_set_gen). step(ctx, t)
 * appends the operations of step t to the schedule the generator was set on, with
 * cs_sched_xfer & co. and step = t; it is called for t = 0, 1, ... n_steps-1 in order, and
 * the executor calls it for step t+1 when the first operation of step t is posted, so
 * before any operation of step t is done. Contract (checked as operations are added): an
 * operation of step t depends only on operations of steps t-1 and t; only step 0 has
 * operations without dependencies; every step has at least one operation. Returns 0 or
 * a negative code. free(ctx) releases the context (NULL = nothing to free). */
typedef struct cs_sched_gen_ops {
    int (*step)(void *ctx, int t);
    void (*free)(void *ctx);
} cs_sched_gen_ops;

/* A schedule for one collective on n_ranks group ranks. Owns its arrays.
 *
 * Stored (the default): every operation is in xfers, ids 0 .. n_xfers-1.
 * Streamed (cs_sched_set_gen): the operations are produced step by step as the run goes
 * and dropped once done, so xfers holds a window: ids base .. base+n_xfers-1 (operation id
 * i is xfers[i - base]); chunks are all there from the start. A streamed schedule is run
 * once (cs_sim_add) and is the run's to move; it suits callers that only want the
 * finish time and #wrong, not those that read the operations (explain, timelines, traces,
 * NCCL mode's post-processing). */
struct cs_sched {
    cs_coll coll;          /* which collective (fixes the data check) */
    int n_ranks;           /* ranks in the group */
    int root;              /* root rank for rooted collectives, else 0 */
    uint64_t bytes;        /* S as in DESIGN §3 (per-rank buffer or total), bytes */
    const char *algo;      /* algorithm name (static string), for reports */
    cs_chunk *chunks;      /* data chunks */
    uint32_t n_chunks, cap_chunks;
    cs_xfer *xfers;        /* operations, in creation order */
    uint32_t n_xfers, cap_xfers;
    uint32_t *chunk_ids;   /* chunk lists of all transfers */
    uint32_t n_chunk_ids, cap_chunk_ids;
    uint32_t *deps;        /* dependency lists of all operations */
    uint32_t n_deps, cap_deps;
    int n_steps;           /* number of algorithm steps (max step + 1) */
    int n_aux;             /* auxiliary endpoints: group ranks n_ranks .. n_ranks+n_aux-1
                              are topology nodes (a switch reducing in the network), not ranks */
    int aux_node[CS_SCHED_MAX_AUX];  /* topology node index of each auxiliary endpoint */
    uint32_t base;         /* id of xfers[0]: 0 when stored; streamed, operations below
                              it were dropped */
    cs_sched_stream *stream;  /* the step generator of a streamed schedule (owned), NULL
                                 when stored */
    int one_rank;          /* symmetric rounds: only one rank's operations are here,
                              standing for every rank's, which would run the same at the
                              same times; the finish time is the whole collective's, but
                              the data check does not apply (#wrong N/A) and links carry
                              one rank's traffic */
    int turns;             /* one_rank only: ring position q is rank q and its operations
                              are rank 0's turned by q (ranks and blocks + q mod n_ranks,
                              chunk ids + q * n_chunks/n_ranks): rank 0 sends only to rank
                              1, and the data check follows rank 0 alone (#wrong 0 or
                              n_ranks) */
    int turn_levels;       /* turns: the ranks are a grid of turn_levels levels of sizes
                              turn_dims (rank = i0 + d0*(i1 + d1*(...))), blocks indexed
                              with digit 0 most significant (chunk id = block * chunks per
                              block + piece), and every operation is rank 0's translated by
                              a grid vector: rank 0 sends only to its +1 neighbour of some
                              level; 0 = one level of n_ranks (a ring). Also set
                              without turns by a grid schedule: the data check's sets
                              may then wrap inside the grid's rows */
    int turn_dims[CS_SCHED_MAX_LEVELS];
    uint32_t turn_per_block;  /* turns: chunks per block (pieces); blocks past n_ranks
                                 (several channels) are further copies of the grid's:
                                 block b's digits are those of b mod n_ranks. 0 =
                                 n_chunks / n_ranks. Rank 0 may send to its -1 neighbour
                                 too (a ring run backwards) */
    uint32_t turn_dirs;    /* turns: where rank 0 sends, bit 2l: to +e_l (its +1 neighbour
                              on level l), bit 2l+1: to -e_l (for unfolding link
                              statistics, exec.h cs_sim_link_stats_unfold); 0 = unknown */
};

/* Start an empty schedule. Returns 0 or CS_EINVAL (n_ranks < 1, root out of range). */
int cs_sched_init(cs_sched *s, cs_coll coll, int n_ranks, int root, uint64_t bytes);
/* Free the arrays (the struct itself is the caller's). NULL-safe. */
void cs_sched_fini(cs_sched *s);

/* Add an auxiliary endpoint: topology node `node` (e.g. a switch that reduces in the
 * network, as NVLink SHARP or InfiniBand SHARP). Transfers address it as group rank
 * n_ranks + k; it holds data like a rank but is not part of the postcondition, and it
 * needs a link-level fabric. Returns that group rank or CS_EINVAL when full. */
int cs_sched_add_aux(cs_sched *s, int node);

/* Add a data chunk; returns its id (>= 0) or CS_ENOMEM. */
int64_t cs_sched_chunk(cs_sched *s, uint64_t bytes, int owner, int dest);

/* Add a transfer src -> dst carrying the listed chunks, after the listed operations.
 * Returns the new operation's id (>= 0) or a negative code (bad rank, bad chunk, bad dep,
 * src == dst). */
int64_t cs_sched_xfer(cs_sched *s, int src, int dst, cs_op op,
                      const uint32_t *chunks, uint32_t n_chunks,
                      const uint32_t *deps, uint32_t n_deps, int step);
/* Same, carrying the contiguous chunk ids [lo, lo + n). */
int64_t cs_sched_xfer_range(cs_sched *s, int src, int dst, cs_op op, uint32_t lo, uint32_t n,
                            const uint32_t *deps, uint32_t n_deps, int step);
/* Add a compute task: rank busy for dur_ps after the listed operations. */
int64_t cs_sched_compute(cs_sched *s, int rank, cs_time dur_ps,
                         const uint32_t *deps, uint32_t n_deps, int step);

/* Operation id i (stored: xfers[i]; streamed: it must be in the window). */
static inline const cs_xfer *cs_sched_op(const cs_sched *s, uint32_t i)
{ return &s->xfers[i - s->base]; }
/* Dependencies of operation i (pointer into s->deps; moves when the schedule grows).
 * (An operation without dependencies may have no array at all: never add to NULL.) */
static inline const uint32_t *cs_sched_deps(const cs_sched *s, uint32_t i)
{ return s->deps ? s->deps + cs_sched_op(s, i)->dep_off : s->deps; }
static inline const uint32_t *cs_sched_chunks(const cs_sched *s, uint32_t i)
{ return s->chunk_ids ? s->chunk_ids + cs_sched_op(s, i)->chunk_off : s->chunk_ids; }
/* Operations produced so far: ids 0 .. cs_sched_n_ops()-1 (stored: n_xfers). */
static inline uint32_t cs_sched_n_ops(const cs_sched *s) { return s->base + s->n_xfers; }

/* Make s a streamed schedule of n_steps steps produced by ops (ctx owned from here on:
 * freed by cs_sched_fini, also when this fails). Call it after the chunks are added and
 * before any operation. Returns 0, CS_EINVAL (operations already added, n_steps < 1) or
 * CS_ENOMEM. */
int cs_sched_set_gen(cs_sched *s, const cs_sched_gen_ops *ops, void *ctx, int n_steps);
/* Streamed schedules only: the next step to produce (n_steps once all are). */
int cs_sched_next_step(const cs_sched *s);
/* Produce the next step (its operations are appended to the window). Returns the
 * number of operations it added (>= 1) or a negative code: the generator's, or CS_ESTATE
 * when the step broke the contract above or every step was produced. */
int64_t cs_sched_produce(const cs_sched *s, cs_err *err);
/* Drop operations base .. below-1 from the window (the executor is done with them; they
 * must belong to steps before the last produced one). */
void cs_sched_drop(const cs_sched *s, uint32_t below);

/* Total bytes sent by all transfers (a count tests can derive by hand). */
uint64_t cs_sched_total_bytes(const cs_sched *s);

/* Split `bytes` into n nearly equal parts: part i gets bytes/n, plus one for i < bytes%n.
 * Used everywhere a buffer is cut into blocks, so sizes not divisible by n are exact. */
static inline uint64_t cs_split(uint64_t bytes, uint64_t n, uint64_t i)
{ return bytes / n + (i < bytes % n ? 1 : 0); }

#endif
