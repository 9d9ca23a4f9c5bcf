/* mode.h: simulating a collective the way NCCL runs it (algorithms layer): every
 * (algorithm, protocol) pair NCCL would consider, each with its protocol's costs and
 * pipeline chunking (nccl.h), the fastest one kept - NCCL's selection by predicted
 * time, with the simulation as the predictor. */
#ifndef CS_NCCL_MODE_H
#define CS_NCCL_MODE_H

#include "algorithms/coll.h"
#include "algorithms/nccl/nccl.h"

/* A tree across nodes of more than a few dozen pieces a tree is not simulated whole: it
 * runs twice with fewer pieces of its true size (t1 with chunks pieces, t0 with half as
 * many), and its time is extended along the line through the two (mode.c try_one). Two
 * requests of one shape (collective, ranks, root, element) whose runs are the same
 * (channels, chunks, b1, b0) share them: cs_nccl_extrap_time gives each its own time. */
typedef struct cs_nccl_extrap {
    int on;                  /* 1: the time is extended from the two runs below */
    int whole;               /* 1 (on 0): simulated whole, and the request is the longer
                                run of the longer trees of its shape (its time is t1) */
    int channels, chunks;    /* the longer run's tree pairs and pieces a tree */
    uint64_t b1, b0;         /* the two runs' bytes (b1 > b0) */
    cs_time t1, t0;          /* their times, ps (set once they ran) */
} cs_nccl_extrap;

/* What ran. */
typedef struct cs_nccl_pick {
    const cs_algo *algo;     /* algorithm that won */
    cs_proto proto;          /* protocol that won */
    int chunks;              /* pipeline pieces per step it used */
    int channels;            /* channels it used (after NCCL's trimming) */
    double time_us;          /* its simulated time, launch cost included, us */
    int wrong;               /* #wrong of the winner, -1 if unchecked, CS_WRONG_FOLDED if
                                unchecked because one node stood for all (fold.c) */
    cs_nccl_extrap ex;       /* the winner's two runs, when its time was extended */
    int bounded;             /* candidates not simulated: their link-load bound was above the
                                best time found (pick.c) */
} cs_nccl_pick;

/* pick.wrong (and a run row's wrong) when the data check was asked for but the winner was
 * simulated on one node of many identical ones, its whole schedule too large to check. */
#define CS_WRONG_FOLDED (-2)

/* NCCL's algorithms for a collective (allreduce: ring, double_binary_tree, and with nvls
 * the nvls algorithm - NVLS on one node, NVLSTree across nodes;
 * allgather, reducescatter, broadcast, reduce, sendrecv: ring; alltoall: direct; gather,
 * scatter: linear), those registered, in preference order. Returns how many were written
 * (<= max); 0 if none is registered. */
int cs_nccl_algos(cs_coll coll, int nvls, const cs_algo **out, int max);
/* The same for np: with np->nvls, and only the algorithms np->algo_mask (NCCL_ALGO) names
 * where it names any of the collective's (point-to-point collectives: all). */
int cs_nccl_params_algos(cs_coll coll, const cs_nccl_params *np, const cs_algo **out, int max);

/* Simulate req (ranks 0..n-1 of topo; req->chunks and req->channels are set here) with
 * algorithm algo (NULL = NCCL's algorithms for the collective) under the NCCL parameters
 * np: each enabled protocol, or only np->force_proto. The data check runs on the winner
 * only, when check_data is set. Returns 0 or a negative code (CS_EUNSUPP when no
 * candidate can run the request). */
int cs_nccl_simulate(const cs_coll_req *req, const cs_topo *topo, const cs_algo *algo,
                     const cs_nccl_params *np, int check_data, cs_nccl_pick *out,
                     cs_err *err);

/* Whether algo with protocol pr (forced or not, as np says) would extend req's time (on
 * req->topo) from two shorter runs, and which (out->t1, t0 left 0), without simulating:
 * 0, or CS_EUNSUPP (the candidate cannot run). */
int cs_nccl_extrap_plan(const cs_coll_req *req, const cs_algo *algo, const cs_nccl_params *np,
                        cs_proto pr, cs_nccl_extrap *out);

/* The time of a request of bytes bytes extended along e's line (e->on), ps. */
cs_time cs_nccl_extrap_time(const cs_nccl_extrap *e, uint64_t bytes);

/* The schedule and executor costs of a pick (from cs_nccl_simulate on the same request and
 * parameters), to run it again with an observer or link statistics. s is initialised here
 * (the caller finis it). built (may be NULL) gets the request the schedule was built from
 * (NCCL's chunks and channels). Returns 0 or a negative code. */
int cs_nccl_build(const cs_coll_req *req, const cs_nccl_params *np, const cs_nccl_pick *pick,
                  cs_sched *s, cs_sim_costs *costs, cs_coll_req *built, cs_err *err);

#endif
