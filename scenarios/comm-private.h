/* comm-private.h: what comm.c (collective simulations on a plan's rank groups) and memo.c
 * (the memo of their times, shareable between processes) share (scenarios layer). */
#ifndef CS_COMM_PRIVATE_H
#define CS_COMM_PRIVATE_H

#include "scenarios/plan.h"
#include "algorithms/nccl/mode.h"

/* Groups longer than this run one step of the ring, not every algorithm in full (comm.c,
 * long_ring). */
#define CS_RING_FULL_MAX 16

/* The memo key of a collective: coll, group kind, group shape, bytes (comm.c, key_of). */
#define CS__KEY_WORDS 6

/* One memoised collective. */
typedef struct cs__memo_ent {
    uint64_t key[CS__KEY_WORDS]; /* the key; key[5] != 0 marks a used slot */
    double t_s;                  /* its time, s (state 0) */
    int state;                   /* 0: t_s is known; 1: pending (noted while collecting, to be
                                    simulated); 2: its simulation failed: fails[fail] */
    int fail;                    /* index into cs_plan_ctx.fails (state 2) */
} cs__memo_ent;

/* A collective noted while collecting: what simulating it needs. */
typedef struct cs__pending {
    uint64_t key[CS__KEY_WORDS]; /* its memo key */
    int tp, pp, dp, cp, ep, etp; /* the layout's degrees (they fix the rank groups) */
    int order[CS_DIM_COUNT];     /* the layout's dimension order */
    cs_dp_mode dp_mode;          /* how DP reduces (fixes the DP algorithm) */
    cs_group g;                  /* group kind */
    cs_coll coll;                /* collective */
    uint64_t bytes;              /* its size, bytes (DESIGN §3 meaning of S) */
} cs__pending;

struct cs_plan_ctx {
    cs_topo *topo;               /* the system's fabric (owned) */
    struct json_t *root;         /* a cluster's definition, to build more of it (ctx.c: the
                                    plan's servers built), or NULL: topo is built whole */
    char *root_name;             /* its name (a preset's, the spec, "system.topo") */
    int per_node, all_nodes;     /* root's ranks a server and servers */
    int built_nodes;             /* servers built, ranks 0..built_nodes x per_node - 1 */
    cs_nccl_params np;           /* NCCL-mode parameters */
    int nccl_on;                 /* NCCL mode */
    cs__memo_ent *memo;          /* open-addressing table, cap a power of two */
    long n_memo, cap_memo;       /* used and allocated slots */
    long sims;                   /* simulations run (cs_sim runs: algorithms x protocols) */
    long bounded;                /* candidates not simulated: their link-load bound was
                                    above the best time found (comm.c) */
    double *bound_load;          /* 2 x topo->n_links zeros for sim/bound.h (comm.c makes
                                    it, memo.c frees it), NULL until then */
    long simulated;              /* collectives simulated (memo misses computed here) */
    int collecting;              /* 1: note misses as pending instead of simulating them */
    cs__pending *pend;           /* the pending collectives, in the order first noted */
    long n_pend, cap_pend;       /* used and allocated entries */
    cs_err *fails;               /* errors of failed simulations (memo state 2) */
    long n_fails, cap_fails;     /* used and allocated entries */
    double host_Bps;             /* a GPU's share of its host link, B/s (0: not yet found;
                                    offload.c finds it once, when a plan offloads) */
};

/* The memo key of coll of bytes on groups g of p. */
void cs__plan_key(const cs_plan *p, cs_group g, cs_coll coll, uint64_t bytes,
                  uint64_t key[CS__KEY_WORDS]);
/* Member ranks of every group of kind g (groups.c): *n_groups groups of *gsize ranks,
 * group-major (malloc'd in *out). For CS_G_PP, pairs (r, r + stride of pp) for every rank
 * not on the last stage. Returns 0 or CS_ENOMEM. */
int cs__plan_groups(const cs_plan *p, cs_group g, int **out, int *n_groups, int *gsize);
/* Keep the groups that matter for the slowest time at the front of members (groups.c):
 * *n_groups shrinks. */
int cs__plan_reduce_groups(const cs_topo *t, cs_coll coll, int *members, int *n_groups,
                           int gsize, cs_err *err);
/* Simulate coll of bytes on every group g of p at once (no memo): *t_s, the slowest. */
int cs__plan_simulate(cs_plan_ctx *c, const cs_plan *p, cs_group g, cs_coll coll,
                      uint64_t bytes, double *t_s, cs_err *err);
/* The cs_sim runs (algorithm x protocol candidates) cs__plan_simulate tries for coll on
 * groups of gsize ranks of kind g (an upper bound: a candidate that cannot build is
 * skipped). */
int cs__plan_sim_runs(const cs_plan_ctx *c, const cs_plan *p, cs_group g, cs_coll coll,
                      int gsize);
/* Free the memo's storage (cs_plan_ctx_free). */
void cs__plan_memo_fini(cs_plan_ctx *c);

#endif
