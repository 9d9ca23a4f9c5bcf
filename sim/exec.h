/* exec.h: running schedules on a fabric (core layer). A cs_sim binds an engine to a
 * topology and a network model; any number of jobs (schedules on rank groups, with a start
 * time) run in it at once and contend for the same links. At the end each job reports its
 * finish time and #wrong from the symbolic data check. */
#ifndef CS_EXEC_H
#define CS_EXEC_H

#include <stdint.h>
#include "sim/err.h"
#include "sim/time.h"
#include "sim/topo.h"
#include "sim/sched.h"
#include "sim/engine.h"

typedef struct cs_sim cs_sim;
typedef struct cs_job cs_job;

/* What an observer is told. Times in ps. */
typedef enum cs_obs_kind {
    CS_OBS_XFER_READY,   /* dependencies done; the transfer is posted to the network */
    CS_OBS_XFER_START,   /* it holds its ports / starts crossing the route */
    CS_OBS_XFER_DONE,    /* the last byte arrived at dst */
    CS_OBS_REDUCE_DONE,  /* dst finished reducing it (only for reduces with gamma > 0) */
    CS_OBS_COMPUTE_START,
    CS_OBS_COMPUTE_DONE,
    CS_OBS_JOB_DONE      /* every operation of the job is done */
} cs_obs_kind;

typedef struct cs_obs_event {
    cs_obs_kind kind;
    cs_time t_ps;             /* when it happened */
    const cs_job *job;        /* which job */
    int job_index;            /* order in which the job was added, 0-based */
    uint32_t xfer;            /* operation index in the job's schedule */
    const cs_xfer *x;         /* that operation (NULL for JOB_DONE) */
    int src_rank, dst_rank;   /* topology ranks (group ranks mapped); -1 for an auxiliary
                                 endpoint (a switch reducing in the network) */
    int src_node, dst_node;   /* topology nodes */
} cs_obs_event;

typedef void (*cs_observer_fn)(void *ctx, const cs_obs_event *ev);

/* Per-directed-link statistics of a fluid-model run (see cs_sim_link_stats). */
typedef struct cs_link_stats {
    double bytes;             /* bytes carried in this direction */
    cs_time busy_ps;          /* time with at least one flow */
    int peak_flows;           /* most flows at once */
} cs_link_stats;

/* Deterministic work counters of a run (not timings): what the engine, the executor and
 * the network model did. Tests bound how they grow with scale (tests/test_scale.c). */
typedef struct cs_sim_counters {
    uint64_t events;          /* engine events executed (cancelled ones not counted) */
    uint64_t transfers;       /* transfers handed to the network model */
    uint64_t peak_transfers;  /* most transfers in the network at once (sent, not done) */
    uint64_t recomputes;      /* fluid model: fair-share recomputations; 0 for alpha_beta */
    uint64_t link_visits;     /* fluid model: links looked at by the recomputations (the
                                 search for connected flows and links, and each link
                                 settled or updated by progressive filling) */
    uint64_t peak_flows;      /* fluid model: most flows on the links at once */
    uint64_t peak_ops;        /* most schedule operations held at once, all jobs together
                                 (a stored schedule's are all held; a streamed one's only
                                 its window of live steps) */
    uint64_t proxy_order;     /* transfers whose time the engine's order of an instant
                                 decided: charged to a proxy thread at the same instant as
                                 another transfer on that proxy (the engine's order says which
                                 it handles first), and delivered before the proxy was done
                                 with all of them (0: no run of the instant's events in
                                 another order could give other times) */
} cs_sim_counters;

/* NCCL's transports (src/transport/p2p.cc, shm.cc, net.cc), chosen per transfer from its
 * route as NCCL chooses them per rank pair (src/graph/paths.cc): NET between ranks of
 * different groups (hosts); within a host P2P when the route stays off the CPUs (NVLink,
 * or a PCIe switch: NCCL's default P2P level PXB), SHM when it crosses a CPU (PHB or SYS,
 * or every pair of a box whose GPUs cannot DMA to each other: host-staged). A NET route
 * that crosses a CPU is host-staged (no GPUDirect RDMA: NCCL's GDR level PXB); where the
 * topology declares host memory (link class "hostmem") a host-staged route goes into it
 * and back out, so both directions share it (topologies/routing.c). */
typedef enum cs_transport {
    CS_TR_P2P,
    CS_TR_SHM,
    CS_TR_NET,
    CS_TR_COUNT
} cs_transport;

/* One transport's costs; all zero means none. */
typedef struct cs_transport_costs {
    double lat_us;            /* latency of a step on a connection, us: paid by the first
                                 piece of each step between two ranks; the step's later
                                 pieces overlap it (NCCL_STEPS = 8 slots in flight per
                                 connection, so a latency does not serialise the pieces) */
    double bw_eff;            /* fraction of the route's bandwidth this transport's copies
                                 reach, (0, 1]: applied on top of the protocol's; 0 means 1 */
    double msg_us;            /* proxy time per message, us: each end's proxy thread (one
                                 per rank, serving all its connections) spends it on every
                                 message; a transfer is done when its bytes have arrived
                                 and both proxies have handled its messages; 0 = none */
    uint64_t msg_bytes;       /* bytes per message (NCCL's step: buffer / 8), bytes; a
                                 piece of l bytes is ceil(l / msg_bytes) messages; 0 = one
                                 message per piece */
    double bw_one_GBps;       /* the most data one direction of a rank pair moves over
                                 this transport while nothing moves the other way, GB/s
                                 (all its channels together); 0 = no limit but the links'
                                 (P2P and SHM only: a host-staged copy runs faster alone
                                 than beside its reverse) */
    double bw_both_GBps;      /* the same while the pair's other direction moves too, GB/s
                                 each direction; 0 = no limit */
    uint64_t eager_bytes;     /* a piece of at most this many bytes is sent eagerly (the
                                 plugin's or provider's eager size, below its rendezvous):
                                 the step it starts pays eager_lat_us in place of lat_us and
                                 its proxy eager_msg_us in place of msg_us, bytes; 0 = off,
                                 every message as lat_us and msg_us say */
    double eager_lat_us;      /* step latency of an eager step, us (with eager_bytes) */
    double eager_msg_us;      /* proxy time of an eager message, us (with eager_bytes) */
} cs_transport_costs;

/* Costs the network models do not know about, applied by the executor (NCCL mode,
 * algorithms/nccl/nccl.h): a fixed launch cost per job, a protocol's per-transfer latency and its
 * bandwidth efficiency. All zero means none, exactly as without them. */
typedef struct cs_sim_costs {
    double launch_us;         /* added once before each job's first operation, us */
    double xfer_lat_us;       /* added to every transfer before it enters the network, us */
    double bw_eff;            /* fraction of link bandwidth that carries data, (0, 1]: a
                                 transfer of l bytes loads the network like l / bw_eff
                                 bytes; 0 means 1 */
    double chan_GBps;         /* a channel's bandwidth cap: no transfer moves data faster
                                 than this, GB/s; 0 = no cap */
    int reduce_in_loop;       /* 1: a reduce's receiver reduces while the data arrive (the
                                 topology's reduce_GBps costs time only where it, not the
                                 link, is the bound); 0: for l/gamma after delivery, the
                                 alpha-beta-gamma model */
    cs_transport_costs tr[CS_TR_COUNT];  /* per transport (cs_transport), zeros = none
                                 (fluid model only: alpha_beta has no routes) */
    int split_dirs;           /* 1: a channel's reduces and its copies have their own
                                 threads, each with its own chan_GBps (NCCL's Simple tree
                                 allreduce: reduce up, broadcast down); 0: one cap */
    int fifo;                 /* 1: the transfers of one connection (job, channel, sending
                                 and receiving rank; with split_dirs also reduce or copy)
                                 take the link one at a time: a piece starts its bandwidth
                                 phase when its latency has passed and the previous piece
                                 has finished its own (NCCL sends a channel's steps in
                                 order; fluid model only); 0: pieces in flight share */
} cs_sim_costs;

/* Options of a simulation. */
typedef struct cs_sim_opts {
    int check_data;           /* run the symbolic data check (#wrong); 0 = skip (N/A) */
    uint64_t check_max_bytes; /* stop the check of a job (#wrong -1, N/A) whose state
                                 starts or grows above this many bytes (0 = default
                                 256 MiB) */
    const cs_sim_costs *costs;/* extra costs (copied by cs_sim_new), NULL = none */
} cs_sim_opts;

/* Create a simulation on a finished topology (borrowed; it must outlive the sim).
 * opts may be NULL (check on, default limit). Returns 0 or a negative code. */
int cs_sim_new(cs_sim **out, const cs_topo *topo, const cs_sim_opts *opts, cs_err *err);
void cs_sim_free(cs_sim *sim);

/* Add a job: schedule s (borrowed, must outlive the run) on topology ranks
 * rank_map[0..s->n_ranks) (copied; NULL = identity), starting at start_ps.
 * A streamed schedule (sched.h) is consumed: its step 0 is produced here, the rest as
 * the run goes, and its window moves; it can be added once (CS_ESTATE otherwise).
 * Returns 0 or a negative code (rank out of range, duplicate rank in the map). */
int cs_sim_add(cs_sim *sim, const cs_sched *s, const int *rank_map, cs_time start_ps,
               cs_job **out, cs_err *err);

/* Share proxy threads (cs_transport_costs.msg_us): proxy_of[r] is the topology rank whose
 * proxy handles rank r's messages (copied; NULL = each its own, the default). A folded
 * simulation (algorithms/nccl/fold_tree.c) gives ranks that stand for one another one
 * proxy. Call before cs_sim_run. Returns 0, CS_EINVAL (a rank out of range) or CS_ENOMEM. */
int cs_sim_set_proxies(cs_sim *sim, const int *proxy_of, cs_err *err);

/* Observe every transfer and compute event of the run (one observer; NULL to clear). */
void cs_sim_set_observer(cs_sim *sim, cs_observer_fn fn, void *ctx);

/* Run all jobs to completion. Returns 0, or a negative code: CS_ESTATE if some job can
 * never finish (a dependency cycle), or an error raised by the network. */
int cs_sim_run(cs_sim *sim, cs_err *err);

/* After the run: when the job finished (ps; its start time if it has no operations), and
 * its #wrong: ranks whose final data fails the postcondition, or -1 if not checked. */
cs_time cs_job_end(const cs_job *job);
cs_time cs_job_start(const cs_job *job);
int cs_job_wrong(const cs_job *job);
const cs_sched *cs_job_sched(const cs_job *job);

/* The engine (for events added by scenarios) and counters. */
cs_engine *cs_sim_engine(cs_sim *sim);
/* Directed-link statistics (fluid model only; NULL for alpha_beta): array of
 * 2 * topo->n_links entries indexed by dlink id. Valid until the sim is freed. */
const cs_link_stats *cs_sim_link_stats(const cs_sim *sim);

/* Every rank's link statistics from a folded run's (st, of a turned schedule s: sched.h
 * one_rank, turns and turn_dirs) into full (2 * t->n_links entries): each link's are those
 * of the rank-0 link it is the translate of. Returns 1 when exact (every link the image of
 * at most one rank-0 link under one translation, alike in bandwidth), 0 when not (full is
 * then unspecified: run the schedule unfolded), or CS_ENOMEM. */
int cs_sim_link_stats_unfold(const cs_topo *t, const cs_sched *s, const cs_link_stats *st,
                             cs_link_stats *full);

/* The run's work counters so far (all zero before cs_sim_run). */
void cs_sim_get_counters(const cs_sim *sim, cs_sim_counters *out);

/* Convenience: run one schedule on ranks 0..n-1 (or rank_map) of topo alone; fills the
 * finish time (ps, start 0) and #wrong (-1 if unchecked). */
int cs_sim_once(const cs_topo *topo, const cs_sched *s, const int *rank_map,
                const cs_sim_opts *opts, cs_time *t_ps, int *wrong, cs_err *err);
/* The same with every link's bandwidth counted as the topology's times bw_scale > 0
 * (fluid model; NCCL mode's twin channels: m of C channels on m/C of the fabric). The
 * network model scales the capacities it copies; the topology is not touched, so that
 * threads can share it (sim/pool.h). bw_scale 1 is cs_sim_once. */
int cs_sim_once_scaled(const cs_topo *topo, const cs_sched *s, const int *rank_map,
                       const cs_sim_opts *opts, double bw_scale, cs_time *t_ps, int *wrong,
                       cs_err *err);

#endif
