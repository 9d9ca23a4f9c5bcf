/* net-private.h: the boundary between the executor and the network models (core layer,
 * private to sim/). A model moves messages between nodes and reports when each one starts
 * and when its last byte arrives. Models are ops tables: alpha_beta and fluid. */
#ifndef CS_NET_PRIVATE_H
#define CS_NET_PRIVATE_H

#include "sim/limits.h"
#include <stdint.h>
#include "sim/engine.h"
#include "sim/exec.h"
#include "sim/topo.h"

typedef struct cs_net cs_net;

#define CS_NET_MAX_CHANNELS 64
/* A message that is no connection's piece (cs_net_ops.send). */
#define CS_NET_NO_FIFO UINT64_MAX

/* Within the limits (1 PiB at 1e-6 GB/s is 1.1e24 ps) a message can still end past the
 * clock's 2^63 ps: the models stop the run with this error instead of overflowing. */
#define CS_NET_PAST_CLOCK_MSG CS_LIMIT_PAST_CLOCK_MSG

/* Callbacks into the executor; token identifies the message (job, operation). */
typedef struct cs_net_cb {
    void *ctx;
    void (*on_start)(void *ctx, uint64_t token);   /* holds its ports / starts moving */
    void (*on_done)(void *ctx, uint64_t token);    /* last byte arrived */
} cs_net_cb;

/* A rank pair's limits per transport (cs_transport_costs bw_one_GBps, bw_both_GBps), in
 * the bytes messages carry (the executor scales them as it scales the messages), GB/s; 0 =
 * none. Fluid only: every message of a pair on transport k crosses a virtual link of its
 * direction whose capacity is one_GBps[k] while the reverse direction's is idle and
 * both_GBps[k] while it carries a message too. */
typedef struct cs_net_pair {
    double one_GBps[CS_TR_COUNT];
    double both_GBps[CS_TR_COUNT];
} cs_net_pair;

typedef struct cs_net_ops {
    const char *name;
    /* cap_GBps: a channel's bandwidth cap (NCCL mode), GB/s; 0 = none. alpha_beta caps
     * every message; fluid caps the messages a rank has in flight on one channel together
     * (channel numbers taken modulo CS_NET_MAX_CHANNELS). bw_scale: every link's
     * bandwidth times this (cs_sim_opts.bw_scale, 1 = as the topology says; fluid only,
     * alpha_beta has no links). */
    int (*create)(cs_net **out, cs_engine *eng, const cs_topo *t, const cs_net_cb *cb,
                  double cap_GBps, double bw_scale, const cs_net_pair *pair, cs_err *err);
    /* Send bytes from node src to node dst (src != dst). chan_key = channel *
     * topology ranks + the sending rank, which picks the channel cap the message shares
     * (see create), or -1. fifo: the connection the message is a piece of (with src and
     * dst: messages of one (src, dst, fifo) take their bandwidth phases one at a time, in
     * the order their latencies end, as NCCL moves a connection's steps through its FIFO;
     * CS_NET_NO_FIFO = none). alpha_beta ignores it (its ports already serialise a
     * sender's messages). pair: the transport whose rank-pair limits (cs_net_pair) the
     * message is under, -1 = none. Errors stop the run. */
    int (*send)(cs_net *net, int src, int dst, uint64_t bytes, uint64_t token, int chan_key,
                uint64_t fifo, int pair, cs_err *err);
    /* Add the model's work counters (recomputes, link_visits, peak_flows) to out; NULL
     * when the model has none. */
    void (*counters)(const cs_net *net, cs_sim_counters *out);
    /* Per-dlink statistics or NULL. */
    const cs_link_stats *(*stats)(const cs_net *net);
    void (*destroy)(cs_net *net);
} cs_net_ops;

extern const cs_net_ops cs__net_alpha_beta;
extern const cs_net_ops cs__net_fluid;

#endif
