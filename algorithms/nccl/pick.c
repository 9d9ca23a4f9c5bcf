/* pick.c: NCCL mode's choice (algorithms layer): every algorithm x protocol NCCL would
 * consider is simulated (mode.c) and the fastest kept, ties to the earlier algorithm and
 * protocol, so the choice is deterministic. Rings and trees of a few ranks are first
 * bounded below by their link loads (sim/bound.h: no link carries more than its capacity)
 * and run in the order of their bounds; one whose bound is above the best time found is
 * not simulated: it cannot win, and the choice and its time are the same. */
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/mode-private.h"
#include "sim/bound.h"
#include "sim/exec.h"

#include <stdlib.h>

extern const cs_algo cs_algo_ring;
extern const cs_algo cs_algo_double_binary_tree;

/* Most ranks whose whole schedule is built for a bound (larger requests fold instead). */
#define BOUND_MAX_RANKS 16
/* Most candidates: 8 algorithms x the protocols. */
#define MAX_CAND (8 * CS_PROTO_COUNT)

typedef struct cand {
    const cs_algo *algo;
    cs_proto pr;
    double lb_us;            /* the time is at least this (0: no bound), us */
} cand;

/* A lower bound of candidate c's time, us: the link loads of its whole schedule, where that
 * schedule is what runs (rings and trees simulated in full or by exact folds, not a tree
 * extended from two shorter runs), else 0. np0: the parameters before planning. */
static double bound_us(const cs_coll_req *req, const cs_topo *topo, const cs_nccl_params *np0,
                       const cand *c, double **scratch)
{
    cs_nccl_extrap ex;
    cs_nccl_pick pk = {0};
    cs_sim_costs costs;
    cs_sched s;
    cs_err e;
    double lb = 0;
    if (req->n_ranks > BOUND_MAX_RANKS || topo->model != CS_MODEL_FLUID || !req->topo ||
        (c->algo != &cs_algo_ring && c->algo != &cs_algo_double_binary_tree) ||
        cs_nccl_extrap_plan(req, c->algo, np0, c->pr, &ex) < 0 || ex.on)
        return 0;
    if (!*scratch && !(*scratch = calloc(2 * (size_t)topo->n_links + 1, sizeof **scratch)))
        return 0;
    pk.algo = c->algo;
    pk.proto = c->pr;
    if (cs_nccl_build(req, np0, &pk, &s, &costs, NULL, NULL) < 0)
        return 0;
    if (cs_sched_link_bound(topo, &s, NULL, costs.bw_eff > 0 ? 1 / costs.bw_eff : 1, *scratch,
                            &lb, &e) < 0)
        lb = 0;
    cs_sched_fini(&s);
    return lb * 1e6;
}

int cs_nccl_simulate(const cs_coll_req *req, const cs_topo *topo, const cs_algo *algo,
                     const cs_nccl_params *np0, int check_data, cs_nccl_pick *out,
                     cs_err *err)
{
    const cs_algo *algos[8];
    cand c[MAX_CAND];
    int n_algo, n = 0, order[MAX_CAND], a, p, i, j, rc, found = 0, best_i = 0;
    cs_nccl_pick best;
    cs_nccl_params local;
    const cs_nccl_params *np = cs__nccl_planned(np0, req, &local);
    double *scratch = NULL;
    out->bounded = 0;
    if (algo) {
        algos[0] = algo;
        n_algo = 1;
    } else if ((n_algo = cs_nccl_params_algos(req->coll, np, algos, 8)) == 0) {
        /* A collective NCCL has no algorithm for here: every registered one competes. */
        const cs_algo *const *all = cs_algo_all(&i);
        for (j = 0; j < i && n_algo < 8; j++)
            if (cs_algo_has(all[j], req->coll))
                algos[n_algo++] = all[j];
    }
    for (a = 0; a < n_algo; a++)
        for (p = 0; p < CS_PROTO_COUNT; p++)
            if (np->force_proto >= 0 ? p == np->force_proto : np->proto[p].enabled) {
                c[n].algo = algos[a];
                c[n].pr = (cs_proto)p;
                c[n].lb_us = 0;
                order[n] = n;
                n++;
            }
    for (i = 0; i < n && n > 1 && !np->no_bound; i++)
        c[i].lb_us = bound_us(req, topo, np0, &c[i], &scratch);
    free(scratch);
    for (i = 1; i < n; i++) {           /* by bound, ties in candidate order */
        int k = order[i];
        for (j = i; j > 0 && c[order[j - 1]].lb_us > c[k].lb_us; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    for (i = 0; i < n; i++) {
        const cand *x = &c[order[i]];
        cs_nccl_pick pick;
        /* a margin for the folds' rounding (within a byte's time a step) */
        if (found && x->lb_us * (1 - 1e-6) > best.time_us) {
            out->bounded++;
            continue;
        }
        rc = cs__nccl_try_one(req, topo, x->algo, np, x->pr, 0, &pick, err);
        if (rc == CS_EUNSUPP)
            continue;
        if (rc < 0)
            return rc;
        if (!found || pick.time_us < best.time_us ||
            (pick.time_us == best.time_us && order[i] < best_i)) {
            best = pick;
            best_i = order[i];
            found = 1;
        }
    }
    if (!found && algo) {
        /* The one algorithm asked for cannot run: say why, in its own words. */
        cs_coll_req r2;
        cs_sim_costs c2;
        int pr = np->force_proto >= 0 ? np->force_proto : CS_PROTO_SIMPLE;
        if ((rc = cs__nccl_prepare(req, algo, np, (cs_proto)pr, &r2, &c2, NULL, err)) < 0)
            return rc;
    }
    if (!found)
        return cs_err_set(err, CS_EUNSUPP, "--algo", "no algorithm can run %s on %d ranks in "
                          "NCCL mode", cs_coll_name(req->coll), req->n_ranks);
    if (check_data &&
        (rc = cs__nccl_try_one(req, topo, best.algo, np, best.proto, 1, &best, err)) < 0)
        return rc;
    best.bounded = out->bounded;
    *out = best;
    return 0;
}
