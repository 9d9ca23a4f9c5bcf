/* exec-private.h: the executor's state, shared by its files (core layer, private to sim/):
 * exec.c (jobs, posting, completion), exec_window.c (the operations a job holds) and
 * exec_transport.c (NCCL's transports: which one a transfer takes, its proxy's time). */
#ifndef CS_EXEC_PRIVATE_H
#define CS_EXEC_PRIVATE_H

#include "sim/exec.h"
#include "sim/check-private.h"
#include "sim/net-private.h"

/* Executor state of one operation. */
typedef struct ex_op {
    uint32_t pending;         /* dependencies not done yet; EX_DONE once it is done */
    uint32_t succ_head;       /* its dependents: a list in the job's edge pool, in operation */
    uint32_t succ_tail;       /* order (EX_NONE = empty) */
} ex_op;

/* One dependent in a successor list. */
typedef struct ex_edge {
    uint32_t op;              /* the dependent operation's id */
    uint32_t next;            /* next edge of the list, or of the free list; EX_NONE = end */
} ex_edge;

#define EX_DONE UINT32_MAX
#define EX_NONE UINT32_MAX
/* Transfers charged to one proxy at one instant that are followed one by one (more are
 * counted in cs_sim_counters.proxy_order at once). */
#define EX_TIE_MAX 8

struct cs_job {
    cs_sim *sim;              /* owner */
    int index;                /* order of cs_sim_add, 0-based */
    const cs_sched *s;        /* the schedule (borrowed; streamed, its window moves) */
    int *map;                 /* topology rank of each group rank (owned) */
    cs_time start_ps, end_ps; /* when it starts and when its last operation finished */
    /* Per-operation state of the operations held: ids base .. base+n_ops-1 at index id -
     * base, as in the schedule's window (all of a stored schedule). */
    uint32_t base;            /* id of ops[0] (follows s->base) */
    uint32_t n_ops, cap_ops;  /* operations held; capacity of ops, snap, sent_ps, proxy_ps */
    ex_op *ops;               /* their state */
    cs_check_snap **snap;     /* per operation in flight: sender's data sets (check only) */
    ex_edge *edges;           /* successor lists of all held operations */
    uint32_t n_edges, cap_edges;
    uint32_t free_edge;       /* free list of edges, EX_NONE = empty */
    uint32_t lo;              /* streamed: operations below it are done and may be dropped */
    uint32_t n_done;          /* operations done */
    int done;                 /* every operation done */
    cs_check *check;          /* data check state, NULL when skipped */
    int wrong;                /* #wrong after the run, -1 if unchecked */
    cs_time *sent_ps;         /* per operation held: when it entered the network, ps
                                 (owned; only with a reduction cost in the receive loop) */
    cs_time *proxy_ps;        /* per operation held: when its sender's proxy has handled its
                                 messages, ps (owned; only with a transport's msg_us) */
    cs_time *tie_ps;          /* per operation held: 0, or when the proxy is done with every
                                 transfer charged at the same instant as it (owned; with
                                 proxy_ps) */
};

struct cs_sim {
    cs_engine *eng;           /* owned */
    const cs_topo *t;         /* borrowed */
    const cs_net_ops *nops;   /* network model */
    cs_net *net;              /* its state, created on first run */
    cs_sim_opts opts;
    cs_job **jobs;            /* owned */
    int n_jobs, cap_jobs;
    cs_observer_fn obs;       /* observer, may be NULL */
    void *obs_ctx;
    cs_time *compute_free;    /* per topology rank: when its compute resource is free, ps */
    cs_time *reduce_free;     /* per topology rank: when its reducer is free, ps */
    double reduce_ps_per_byte;/* 1/gamma in ps per byte, 0 = free */
    int reduce_in_loop;       /* cs_sim_costs: reduce while receiving (1) or after (0) */
    cs_time launch_ps;        /* cs_sim_costs: added before each job starts, ps */
    cs_time xfer_lat_ps;      /* cs_sim_costs: added before each transfer is sent, ps */
    double bytes_scale;       /* cs_sim_costs: 1 / bw_eff (1 = none) */
    double bw_scale;          /* link bandwidths count times this (cs_sim_once_scaled; 1) */
    double cap_GBps;          /* cs_sim_costs: per-transfer cap on the wire, GB/s (0 none) */
    int split_dirs;           /* cs_sim_costs: reduces and copies of a channel capped apart */
    int fifo;                 /* cs_sim_costs: a connection's pieces one at a time */
    cs_transport_costs tr[CS_TR_COUNT];  /* cs_sim_costs: per transport */
    int use_tr;               /* some transport cost is set (fluid model only) */
    int use_proxy;            /* some transport has a proxy time per message */
    int use_pair;             /* some transport has a rank pair's limit (fluid model only) */
    cs_time *proxy_free;      /* per topology rank: when its proxy thread is free, ps */
    cs_time *proxy_last;      /* per topology rank: when its proxy was last charged, ps */
    uint64_t *proxy_grp;      /* per topology rank, EX_TIE_MAX each: the transfers (tokens,
                                 cs__ex_token) charged to its proxy at proxy_last */
    int *proxy_grp_n;         /* per topology rank: how many were (may exceed EX_TIE_MAX) */
    int *proxy_of;            /* per topology rank: whose proxy serves it (owned copy of
                                 cs_sim_set_proxies'), NULL = its own */
    uint64_t proxy_order;     /* cs_sim_counters.proxy_order */
    uint64_t n_sent;          /* transfers handed to the network */
    uint64_t n_in_net;        /* of those, not done yet */
    uint64_t peak_in_net;     /* most of them at once */
    uint64_t n_held;          /* schedule operations held by all jobs now */
    uint64_t peak_held;       /* most of them at once */
};

/* Topology node of group rank g of a job (auxiliary endpoints are nodes themselves). */
static inline int cs__ex_node_of(const cs_job *job, int g)
{
    const cs_sched *s = job->s;
    return g < s->n_ranks ? job->sim->t->ranks[job->map[g]] : s->aux_node[g - s->n_ranks];
}

/* The network's token of operation i of a job: job index, operation id. */
static inline uint64_t cs__ex_token(const cs_job *job, uint32_t i)
{
    return ((uint64_t)job->index << 32) | i;
}

/* Topology rank of group rank g, -1 for an auxiliary endpoint. */
static inline int cs__ex_rank_of(const cs_job *job, int g)
{
    return g < job->s->n_ranks ? job->map[g] : -1;
}

/* Take operations n_ops .. cs_sched_n_ops(s)-1 of the job's schedule in (exec_window.c).
 * Returns 0 or CS_ENOMEM. */
int cs__ex_absorb(cs_job *job);
/* Streamed: drop the operations that are done and can no longer be depended on. */
void cs__ex_shrink(cs_job *job);

/* The transport of transfer x of job (exec_transport.c): a cs_transport, or -1 where none
 * applies. */
int cs__ex_transport_of(const cs_job *job, const cs_xfer *x);
/* Charge the sending rank's proxy with the messages of transfer i (x) on transport tr (-1
 * or a transport without msg_us: nothing); returns when the proxy is done with them, ps (0
 * when nothing was charged), and keeps the job's tie_ps of the instant's transfers. */
cs_time cs__ex_proxy(cs_job *job, uint32_t i, const cs_xfer *x, int tr);

#endif
