/* coll.h: the collective algorithm registry (algorithms layer). Each algorithm family is a
 * const ops table in its own file, listed in registry.c in display order. An algorithm
 * turns a request into a schedule (sim/sched.h) and carries its closed-form cost on the
 * alpha_beta fabric, which tests use as an oracle for every registered algorithm. */
#ifndef CS_COLL_H
#define CS_COLL_H

#include <stdint.h>
#include "sim/err.h"
#include "sim/sched.h"
#include "sim/topo.h"

/* A collective request. */
typedef struct cs_coll_req {
    cs_coll coll;            /* which collective */
    int n_ranks;             /* p, ranks in the group (>= 1) */
    uint64_t bytes;          /* S as defined in DESIGN §3, bytes */
    int root;                /* root group rank for rooted collectives (0 otherwise) */
    int elt_bytes;           /* element size, bytes (blocks stay element-aligned when possible) */
    int chunks;              /* pipeline chunks per step (>= 1; 1 = textbook) */
    int servers;             /* parameter_server: server ranks K (>= 1) */
    int channels;            /* parallel rings/trees sharing the links (>= 1) */
    const cs_topo *topo;     /* topology the group runs on (ranks 0..n-1 of it), or NULL;
                                topology-aware algorithms read its structure */
    const cs_topo *p2p_topo; /* read only by NCCL mode's p2p rules (algorithms/nccl
                                rules.h cs_nccl_p2p_setup, for alltoall, sendrecv, gather,
                                scatter): the topology the group really runs on when topo
                                is NULL because the group is not ranks 0..n-1 of it (a
                                plan's strided groups); NULL = the rules see topo */
    const int *p2p_map;      /* with p2p_topo: group rank i is its rank p2p_map[i] (n_ranks
                                entries, the caller's); NULL = ranks 0..n-1 */
    int stream;              /* the caller only runs the schedule once for its time and
                                #wrong: a builder may stream it (sched.h: steps produced
                                as the run goes). 0 = the whole schedule up front (explain,
                                timelines, traces, NCCL mode) */
    int time_only;           /* the caller reads only the finish time (CS_REQ_TIME), or
                                it and #wrong (CS_REQ_TIME_WRONG), not the operations or
                                link statistics: a builder may simulate one rank for all
                                where every rank provably does the same thing at the same
                                times (symmetric rounds, sched.h one_rank), with
                                CS_REQ_TIME_WRONG only where the data check can follow
                                that rank (sched.h turns). 0 = never */
} cs_coll_req;

#define CS_REQ_TIME 1
#define CS_REQ_TIME_WRONG 2
/* The time, #wrong and every link's statistics: a builder may fold only where the data
 * check follows the rank (turns); the caller unfolds the link statistics (exec.h
 * cs_sim_link_stats_unfold) or, where that is not exact, builds and runs again unfolded. */
#define CS_REQ_LINKS 3

/* Fill a request with defaults: elt 4, chunks 1, servers 1, channels 1, root 0, no topo
 * (nor p2p_topo). */
void cs_coll_req_init(cs_coll_req *req, cs_coll coll, int n_ranks, uint64_t bytes);

/* Parameters of the alpha-beta-gamma closed forms, SI units. */
typedef struct cs_ab {
    double a_s;              /* alpha: per-message latency, seconds */
    double b_s_per_B;        /* beta: seconds per byte (1 / bandwidth) */
    double g_s_per_B;        /* gamma: seconds per byte reduced (0 = free) */
} cs_ab;

/* An algorithm family's ops table. */
typedef struct cs_algo {
    const char *name;        /* --algo name, e.g. "ring" (contract) */
    const char *summary;     /* one line for `collsim list algorithms` */
    uint32_t colls;          /* bit (1u << cs_coll) for each collective it implements */
    /* Can it run this request (e.g. a needed topology shape)? NULL = always.
     * Returns 0 or CS_EUNSUPP with err saying why. */
    int (*check)(const cs_coll_req *req, cs_err *err);
    /* Build the schedule into s (initialised here; the caller finis it, also on error). */
    int (*build)(const cs_coll_req *req, cs_sched *s, cs_err *err);
    /* Closed-form time on the alpha_beta fabric (single port), seconds; NAN if the
     * algorithm has none for this request. */
    double (*cost)(const cs_coll_req *req, const cs_ab *ab);
    /* The closed form as text for `explain`, e.g. "2(p-1)(a + S/p*b)"; NULL if none. A
     * leading '~' marks cost as an estimate for this request (auto then simulates). */
    const char *(*formula)(const cs_coll_req *req);
} cs_algo;

#define CS_COLL_BIT(c) (1u << (c))

/* Every registered algorithm in display order; *n gets the count. */
const cs_algo *const *cs_algo_all(int *n);
/* Lookup an algorithm by name for a collective. The name is an --algo value: CS_EUSAGE
 * (exit 2, as an unknown collective) lists the algorithms known for that collective:
 * "unknown allreduce algorithm 'rign' (known: ring, ..., auto)". */
int cs_algo_lookup(const char *name, cs_coll coll, const cs_algo **out, cs_err *err);
/* Check and build: cs_sched_init + ops->build, with s->algo set to ops->name. On failure s
 * is left finalised (nothing to free). */
int cs_algo_build(const cs_algo *ops, const cs_coll_req *req, cs_sched *s, cs_err *err);
/* Does ops run c on the rings of cs_ring_plan (one per channel)? */
int cs_algo_uses_rings(const cs_algo *ops, cs_coll c);
/* Does ops implement coll? */
static inline int cs_algo_has(const cs_algo *ops, cs_coll c) { return (ops->colls >> c) & 1u; }

/* --algo auto: the registered algorithm with the lowest predicted time for this request on
 * topo (closed form on alpha_beta fabrics, a simulation otherwise); ties go to the first in
 * display order. Fills *out and, if t_s is not NULL, the predicted time in seconds.
 * CS_EUNSUPP if no algorithm can run the request. */
int cs_algo_auto(const cs_coll_req *req, const cs_topo *topo, const cs_algo **out,
                 double *t_s, cs_err *err);

/* alpha-beta parameters of a topology: for alpha_beta kinds its link; otherwise the
 * slowest link class of the rank-to-rank routes' bottleneck and the route latency. */
void cs_ab_from_topo(const cs_topo *t, cs_ab *ab);

/* Shared helpers for builders. */
/* ceil(log2 p) and floor(log2 p) for p >= 1. */
int cs_ceil_log2(int p);
int cs_floor_log2(int p);

/* Ranks per node when ranks 0..p-1 of req->topo form two or more equal, contiguous nodes
 * of at least two ranks each (cs_node.group), else 0. */
int cs_node_size(const cs_coll_req *req);
/* A switch that ranks r0..r0+n-1 of t all link to directly and that can reduce (the
 * topology declares it: "nvls" on an NVSwitch, "sharp" on an InfiniBand switch; the first
 * in node order), or -1: where NVLink SHARP / InfiniBand SHARP can reduce. A plain switch
 * only forwards, so it never counts. */
int cs_switch_of(const cs_topo *t, int r0, int n);

/* The rank at position q of ring channel c (p ranks; g ranks per node, 0 = one group):
 * even channels go r -> r+1, odd ones r -> r-1; with g > 0 the order inside each node is
 * rotated so that channel c enters every node at local rank c mod g (going forward), c + 1
 * (going backward). The ring algorithm's channels, shared with NCCL mode's symmetric-channel
 * shortcut. */
int cs_ring_channel_rank(int c, int p, int g, int q);

/* The rings of a request's channels: on multi-node groups the rotations above; on one group
 * of ranks joined by direct links (xGMI/NVLink meshes, the DGX-1 cube-mesh) up to
 * CS_RING_MAX_CYCLES edge-disjoint Hamiltonian cycles over those links (depth-first, lowest
 * rank first, like NCCL's search.cc), channel pair c/2 on cycle (c/2) mod n_cyc, odd channels
 * backwards; on one server of PCIe switches and CPU sockets without direct links, one cycle
 * that follows the PCIe tree (nearest rank next: each switch uplink and CPU link crossed
 * once each way). Identity order where nothing better is found. */
#define CS_RING_MAX_CYCLES 8
#define CS_RING_MESH_MAX 64
typedef struct cs_ring_plan {
    int p;                   /* ranks */
    int g;                   /* ranks per node for rotations, 0 = none */
    int n_cyc;               /* mesh cycles found (0 = use rotations / identity) */
    int *cyc;                /* [k * p + q]: rank at position q of cycle k (owned) */
} cs_ring_plan;
void cs_ring_plan_init(cs_ring_plan *pl, const cs_coll_req *req);
void cs_ring_plan_fini(cs_ring_plan *pl);
int cs_ring_plan_rank(const cs_ring_plan *pl, int c, int q);

#endif
