/* nccl.h: NCCL mode parameters (algorithms/nccl): a fixed launch cost per collective and the
 * protocols LL, LL128 and Simple, each with a base latency, a per-transfer latency, a
 * bandwidth efficiency and a chunk size (models.md §2). They are data, a versioned table
 * that a topology's "nccl" object overrides, never branches in the algorithms: the
 * executor applies them through cs_sim_costs (sim/exec.h). */
#ifndef CS_NCCL_H
#define CS_NCCL_H

#include <stdint.h>
#include "sim/err.h"
#include "sim/exec.h"
#include "topologies/topology.h"

/* Most ranks of a PCIe host NCCL's ring search runs for (search.c; more: no plan). */
#define CS_NCCL_PLAN_MAX 16

/* Protocols in NCCL's order (src/include/plugin/nccl_tuner.h). */
typedef enum cs_proto {
    CS_PROTO_LL,
    CS_PROTO_LL128,
    CS_PROTO_SIMPLE,
    CS_PROTO_COUNT
} cs_proto;

/* One protocol. */
typedef struct cs_nccl_proto {
    int enabled;             /* candidate for selection (1) or not (0) */
    double base_us;          /* NCCL's base latency (Ring), paid once per collective, us */
    double hop_us;           /* latency added to every transfer on top of its route's link
                                latencies, us (the route stands for LL's wire latency) */
    double bw_eff;           /* fraction of link bandwidth carrying data, (0, 1] */
    uint64_t chunk_bytes;    /* pipeline chunk: a step's block moves in pieces of at most
                                this many bytes, bytes */
    uint64_t channel_bytes;  /* a collective of S bytes uses a channel only per this many
                                bytes: the most channels c with S >= c * channel_bytes (ring
                                LL: c * p * channel_bytes), at least 1 - NCCL's trimming of
                                channels for small messages (threads x threadThreshold) */
} cs_nccl_proto;

/* NCCL's algorithms as NCCL_ALGO names them, for cs_nccl_params.algo_mask: Ring (collsim's
 * ring and chain), Tree (double_binary_tree), NVLS and NVLSTree (nvls). */
#define CS_NCCL_ALGO_RING 1u
#define CS_NCCL_ALGO_TREE 2u
#define CS_NCCL_ALGO_NVLS 4u
/* Parse an NCCL_ALGO list ("Ring,Tree", names case-insensitive; CollNetDirect, CollNetChain
 * and PAT are known and run nothing here) into CS_NCCL_ALGO_* bits; CS_EINVAL at where
 * naming the known ones otherwise. */
int cs_nccl_algo_parse(const char *list, const char *where, unsigned *mask, cs_err *err);

/* The NCCL-mode parameter table. */
typedef struct cs_nccl_params {
    char version[32];        /* which default table it started from, e.g. "2.30.7" */
    double launch_us;        /* fixed cost of every collective (kernel launch, the test's
                                loop), on top of the protocol's base_us, us */
    int channels;            /* parallel rings/trees requested of the algorithms (>= 1) */
    int net_channels;        /* channels where the ranks span two or more nodes, in place of
                                channels; 0 = channels everywhere. RCCL's ring search across
                                nodes starts a ring at each NIC (rccl src/graph/search.cc,
                                localNets), where one node's rings follow its XGMI model
                                ("net_channels" in JSON) */
    double channel_GBps;     /* a channel's bandwidth cap: no transfer of a channel moves
                                data faster, GB/s; 0 = none (the links decide) */
    double tree_GBps;        /* the cap of one direction of one tree channel across nodes
                                (Simple: the reduce going up and the broadcast coming down
                                each have their own threads), GB/s; 0 = channel_GBps */
    double p2p_GBps;         /* the cap of one direction of one p2p channel (a send or a
                                receive: the p2p kernel gives each half of the channel's
                                640-thread block, src/device/sendrecv.h), GB/s; 0 = none
                                ("p2p_channel_GBps" in JSON; where no level states it,
                                cs_nccl_setup_root derives cs_nccl_p2p_cap_GBps of the GPUs'
                                generation) */
    int max_chunks;          /* most pipeline pieces per step over all of a rank's rings
                                (C channels get max_chunks / C each, at least 1; bounds
                                simulation cost) */
    int nvls;                /* the allreduce candidates include the nvls algorithm (NCCL's
                                NVLS, NVLSTree): 1 yes, 0 no, -1 (default) where the fabric
                                declares a switch that reduces (cs_nccl_setup resolves it;
                                the algorithm's check refuses fabrics without one) */
    double nvls_eff;         /* fraction of Simple's bandwidth NVLS reaches, (0, 1] (NCCL's
                                tuner: 0.85 Hopper, 0.74 Blackwell) */
    double nvls_lat_us;      /* NVLS latency per collective, in place of a protocol's base
                                and per-transfer latencies, us (NCCL: 25 on NVLink) */
    double nvls_net_lat_us;  /* NVLSTree across N nodes adds 2 floor(log2 N) times this, us
                                (NCCL 2.30.7 hwLat[NET][NVLSTree][Simple] 20.9, tuning.cc) */
    int force_proto;         /* a cs_proto to always use, or -1 to select by time */
    unsigned algo_mask;      /* NCCL_ALGO: the NCCL algorithms a collective may use,
                                CS_NCCL_ALGO_* bits; 0 = all ("algo" in JSON, e.g.
                                "Ring,Tree"; point-to-point collectives are not affected) */
    int all_channels;        /* 1: simulate every ring and tree channel; 0 (default):
                                where the channels load the links alike, two of them stand
                                for all (mode.c; equal times, C/2 times cheaper), and the
                                tree fold below - not in JSON */
    int tree_sim_pieces;     /* pieces a tree across nodes is simulated with before the time
                                is extrapolated (mode.c try_one); 0 = TREE_SIM_PIECES (64) */
    int no_bound;            /* 1: simulate every candidate; 0 (default): one whose link-load
                                bound is above the best time found is left out (pick.c; the
                                same choice and time) - not in JSON */
    int no_fold;             /* 1: simulate every node of a multi-node ring and every
                                rotation of multi-node trees; 0 (default): where every node
                                does the same, one node stands for all (fold.c; equal times,
                                N times cheaper), and where rotating the nodes' GPUs maps
                                the trees and the fabric onto themselves, one channel of each
                                rotation class (fold_tree.c; up to g times cheaper) - not in
                                JSON */
    cs_nccl_proto proto[CS_PROTO_COUNT];
    cs_transport_costs tr[CS_TR_COUNT];  /* NCCL's transports P2P, SHM, NET (sim/exec.h):
                                 step latency, copy efficiency, proxy time per message and
                                 message size, an eager size below which a message pays its
                                 own step latency and proxy time (a net plugin's eager vs
                                 rendezvous messages); zeros (the default) = none, the links
                                 and the protocol decide ("transports" in JSON) */
    unsigned char tr_off[CS_TR_COUNT];  /* 1: the transport is off, as NCCL_P2P_DISABLE=1 /
                                 NCCL_SHM_DISABLE=1 ("enabled": false in JSON, p2p and shm
                                 only). collsim picks a transport by route (sim/exec.h), so
                                 cs_nccl_setup refuses a topology where a rank pair's route
                                 would take an off transport; 0 (default): on */
    double flush_us[CS_TR_COUNT];  /* added to a transport's step latency with Simple only,
                                 us: NCCL's tuner counts a net plugin's latency twice for
                                 Simple (the receiver's flush of GPUDirect writes, tuning.cc);
                                 0 = none ("flush_us" in JSON) */
    int sm;                  /* the GPUs' compute capability x 10 (75, 89, 90, 100, 120):
                                the speeds NCCL's ring search tries (search.c); 0 = not
                                said, the speeds before Hopper ("sm" in JSON) */
    char origin[320];        /* where the settings came from, for a run's header: each level
                                of the "nccl" object and its keys, what was derived (the
                                tree cap, a PCIe host's plan) - not in JSON ("" = table) */
    int p2p_given;           /* the "nccl" object states p2p_channel_GBps - not in JSON */
    int p2p_channels;        /* NCCL's p2pnChannels on one node, as its log prints it ("32
                                p2p channels"): pow2Up of NCCL's own channel count, for a
                                preset whose "channels" is not that count; 0 (default) =
                                pow2Up(channels). Runs across nodes use net_channels' (mode.c
                                cs__nccl_planned). "p2p_channels" in JSON */
    int p2p_op_x4;           /* 1: NCCL 2.13.4-2.19.4 on one node, where a send's most
                                channels are halved while x ranks > 4 x p2pnChannels ("Avoid
                                overloading channels with 8+ operations", enqueue.cc
                                scheduleP2pTasksToPlan, removed in 2.20.3); from the
                                version's table, not in JSON */
    int tree_given;          /* the "nccl" object states tree_channel_GBps (else a cluster
                                gets NCCL's cap for its GPUs and node count) - not in JSON */
    int channels_given;      /* the "nccl" object sets channels or channel_GBps: NCCL's ring
                                search does not replace them - not in JSON */
    int plan_n;              /* NCCL's ring search on a PCIe host (search.c, run by
                                cs_nccl_setup): the first n ranks run plan_ch[n] channels
                                of plan_GBps[n] each, n = 2 .. plan_n; 0 = no plan (the
                                table's channels and channel_GBps) - not in JSON */
    unsigned char plan_ch[CS_NCCL_PLAN_MAX + 1];
    double plan_GBps[CS_NCCL_PLAN_MAX + 1];
} cs_nccl_params;

/* NCCL's channel plan for ranks 0..n-1 of a host without NVLink, as its ring search finds
 * it (search.c): the rings it can place at the highest speed of its table, each ring's
 * hops charged on the PCI and CPU links their routes cross. */
typedef struct cs_nccl_plan {
    int rings;               /* rings found (NCCL's graph channels) */
    double ring_GBps;        /* each ring's speed, GB/s of data */
    int channels;            /* channels run: the rings doubled (connect.cc) */
    double channel_GBps;     /* each channel's share of its ring, as the links carry it
                                (6/5 of the data through an Intel root complex) */
    int intel_phb;           /* 1: some hop crossed an Intel root complex (the 6/5) */
} cs_nccl_plan;

/* The plan for ranks 0..n-1 of t (PCIe, CPU and host-memory links only; the links'
 * figures are NCCL's, as a topology file gives them) with GPUs of compute capability sm
 * (x 10; 0 = before Hopper). 0, or CS_EUNSUPP where the ranks' routes cross another kind of
 * link (NVLink, a network) or no ring fits. */
int cs_nccl_search_ring(const cs_topo *t, int n, int sm, cs_nccl_plan *out);
/* np->plan_* for every rank count 2 .. min(t->n_ranks, CS_NCCL_PLAN_MAX) of t where
 * cs_nccl_search_ring finds a plan (np->plan_n 0 if none does). */
void cs_nccl_plan_fill(cs_nccl_params *np, const cs_topo *t);
/* np as a request of n ranks sees it: with the plan's channels and channel_GBps where np
 * has a plan for n (copied into *local, which is returned), else np itself. */
const cs_nccl_params *cs_nccl_with_plan(const cs_nccl_params *np, int n,
                                        cs_nccl_params *local);

/* Default table for NCCL 2.30.7 (models.md §2.4, §2.5, §2.7): base latencies of Ring
 * LL 6.6 / LL128 14.0 / Simple 8.4 us; per-transfer latency NVLink ring hwLat minus LL's
 * (0 / 1.3 / 2.8 us); efficiency LL 0.5 (8 data bytes per 16-byte line), LL128 0.92
 * (NCCL's 120/128 figure), Simple 1; chunks LL 32 KiB, LL128 576000 B (one step of the
 * default buffers), Simple 2 MiB (ring allreduce chunkSteps x stepSize); launch 0; one
 * channel, no channel cap; channel_bytes LL 512 x 8, LL128 640 x 8, Simple 512 x 64
 * (threads x threadThreshold, models.md §2.3). */
void cs_nccl_params_default(cs_nccl_params *p);

/* Versions with a built-in table ("2.30.7"), NULL-terminated. */
const char *const *cs_nccl_versions(void);
/* Fill p with the table of a version; CS_ENOENT listing the known ones otherwise. */
int cs_nccl_params_version(const char *version, cs_nccl_params *p, cs_err *err);

/* "LL", "LL128", "Simple"; lookup is case-insensitive ("simple" works), CS_ENOENT with the
 * known names otherwise. */
const char *cs_proto_name(cs_proto p);
int cs_proto_lookup(const char *name, cs_proto *out, cs_err *err);

/* Names of the transports in JSON ("p2p", "shm", "net"), by cs_transport. */
const char *cs_transport_name(cs_transport t);
/* The transport costs of c in words, for explain ("net: step 40 us, proxy 40 us per
 * 2097152 B message"; transports without costs left out, "; " between them) into buf
 * (truncated to n). Returns 1 if some transport has costs, 0 (buf "") if none. */
int cs_nccl_transports_str(const cs_sim_costs *c, char *buf, size_t n);

/* Check ranges: launch >= 0, channels >= 1, max_chunks >= 1, per protocol base/hop >= 0,
 * per transport lat_us, msg_us, eager_lat_us, eager_msg_us >= 0 and bw_eff in [0, 1] (0 = 1),
 * bw_eff in (0, 1], chunk_bytes >= 1, at least one protocol enabled, a forced protocol
 * enabled. where names the object in messages ("nccl"). */
int cs_nccl_params_check(const cs_nccl_params *p, const char *where, cs_err *err);

/* The executor costs of running protocol pr: launch + base as the job's launch cost,
 * hop_us per transfer, bw_eff, the channel cap, the transports' costs (the same for every
 * protocol: a NET step is a message whatever the protocol). With nvls set, those of NVLS instead (it
 * runs Simple only): launch + nvls_lat_us, no per-transfer latency, Simple's bw_eff x
 * nvls_eff. Reductions always run inside the receive loop (reduce_in_loop). */
void cs_nccl_costs(const cs_nccl_params *p, cs_proto pr, int nvls, cs_sim_costs *out);

/* LL's bus bandwidth across nodes, GB/s (NCCL's llMaxBws, Intel hosts: 39 on 2 nodes, 20.4
 * on more, src/graph/tuning.cc): LL's network buffers are in host memory on both sides
 * (src/transport/net.cc), so the GPUs write and poll its lines over PCIe. */
double cs_nccl_ll_max_GBps(int nodes);

/* Channels a collective of bytes bytes uses with protocol pr (NCCL's trimming, models.md
 * §2.3): the most c <= p->channels with bytes >= c * channel_bytes (times ring_ranks for
 * a ring with LL; pass 1 otherwise), at least 1. */
int cs_nccl_channels(const cs_nccl_params *p, cs_proto pr, uint64_t bytes, int ring_ranks);

/* Pipeline pieces per step for a step block of block_bytes with protocol pr:
 * ceil(block / chunk_bytes), between 1 and max_chunks. */
int cs_nccl_chunks(const cs_nccl_params *p, cs_proto pr, uint64_t block_bytes);

/* A topology's "nccl" object read over the default table ("version" picks the table; see
 * load.c for the keys). Errors name the JSON path, e.g.
 * "nccl.protocols.LL.bw_eff: must be in (0, 1], got 2". */
int cs_nccl_params_from_json(struct json_t *nccl, cs_nccl_params *out, cs_err *err);
/* NCCL-mode parameters of a preset or file: its "nccl" object over the default table.
 * *present says whether the topology has such an object; without one *out holds the
 * defaults. */
int cs_nccl_open(const char *spec, cs_nccl_params *out, int *present, cs_err *err);
/* The "nccl" section for cs_topo_check, so `topo check` lists its problems too. */
extern const cs_topo_section cs_nccl_section;
/* The sections algorithms read, NULL-terminated: pass to cs_topo_check. */
extern const cs_topo_section *const cs_nccl_sections[];

/* NCCL mode of a command on topology spec: the topology's "nccl" object over the default
 * table; proto is the --proto value ("auto", "LL", "LL128", "Simple", "none") or NULL.
 * NCCL mode is on (*on = 1) for hardware kinds (node, cluster, pcie: every GPU/NPU
 * preset), when the topology has an "nccl" object, when --proto is given (but not "none",
 * the bare fabric), or when always_on is set (calibrate, validate: the logs are NCCL runs;
 * "none" is then a usage error). np->nvls comes out 0 or 1: as the fabric declares unless
 * the object says; "nvls": true where no switch reduces is CS_EINVAL. */
int cs_nccl_setup(const char *topo_spec, const char *proto, int always_on,
                  cs_nccl_params *np, int *on, cs_err *err);
/* The same for a parsed topology root (a plan's inline topology; root gains "ranks" when
 * its kind takes them from the caller); name says which in errors. A cluster's "nccl"
 * object is layered: its node's, then its fabric's, then its own (compose.c). Where no
 * level states tree_channel_GBps, a cluster gets cs_nccl_tree_cap_GBps of its GPUs'
 * generation ("sm", else the NVLink class) and its node count. */
int cs_nccl_setup_root(struct json_t *root, const char *name, const char *proto,
                       int always_on, cs_nccl_params *np, int *on, cs_err *err);
/* A transport stated off (tr_off: NCCL_P2P_DISABLE, NCCL_SHM_DISABLE) against t's routes,
 * which pick the transport: CS_EINVAL naming the first pair of one host that would take
 * it, with how to write the host instead; name is the topology's, for the message. */
int cs_nccl_check_transports(const cs_topo *t, const cs_nccl_params *np, const char *name,
                             cs_err *err);

/* NCCL's environment variables (env.c), as a log's command line states them. Which ones
 * collsim applies (cs_nccl_env_apply), which leave the time alone, which it does not model. */
typedef enum cs_nccl_env_kind {
    CS_NCCL_ENV_APPLIED,      /* changes the parameters as NCCL reads it */
    CS_NCCL_ENV_NO_EFFECT,    /* names, files, debug output: no bearing on the time */
    CS_NCCL_ENV_NOT_MODELLED  /* may change the time; collsim has no figure for it */
} cs_nccl_env_kind;
cs_nccl_env_kind cs_nccl_env_kind_of(const char *name);
/* Apply one variable (kind APPLIED) to np on topology t: NCCL_ALGO, NCCL_PROTO (lists and
 * "^" exclusions as NCCL reads them), NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS, NCCL_NVLS_ENABLE,
 * NCCL_P2P_DISABLE, NCCL_SHM_DISABLE. note (n bytes) says what changed ("16 -> 32 channels",
 * "no switch reduces here: no change"). Returns 0; 1 for a form collsim does not model
 * (NCCL_ALGO's per-collective "allreduce:ring;..."), np unchanged; or CS_EINVAL with err at
 * the name for a value NCCL would not take or a setting the topology cannot run. */
int cs_nccl_env_apply(cs_nccl_params *np, const cs_topo *t, const char *name,
                      const char *value, char *note, size_t n, cs_err *err);

/* NCCL's cap of one direction of one tree channel across nodes, GB/s: perChMaxTreeBws of
 * the generation (sm: compute capability x 10) and node count, times 0.5 (tuning.cc); 0
 * for an unknown generation (no cap). */
double cs_nccl_tree_cap_GBps(int sm, int nodes);

/* NCCL's p2p channel, one direction, GB/s: the tree cap of one node
 * (cs_nccl_tree_cap_GBps(sm, 1), half of perChMaxTreeBws' one-node figure). A p2p channel
 * is the same block as a tree channel (NCCL_MAX_NTHREADS = 640 threads, enqueue.cc:1135
 * and 2112) split the same way in two halves that each move one direction (sendrecv.h:
 * 10 warps send, 9 receive; all_reduce.h runTreeSplit: nthreads / 2 each); the block's
 * copy rate does not depend on the node count, so the one-node column. 0 for an unknown
 * generation (no cap). Ampere: 12 GB/s, Hopper 19.35, Blackwell 35, Volta 13.25. */
double cs_nccl_p2p_cap_GBps(int sm);

#endif
