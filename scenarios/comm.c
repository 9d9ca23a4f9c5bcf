/* comm.c: collective times on a plan's rank groups (scenarios layer). Every group of one
 * kind (the 8 DP groups of a TP-8 node, all TP groups, every stage boundary) runs its
 * collective at once in one cs_sim on the real topology: the same schedule is added once
 * per group with a rank map, so groups that share NICs or uplinks contend. Schedules are
 * topology-agnostic (ring, double binary tree, direct, one send): topology-aware
 * algorithms and cs_nccl_simulate assume ranks 0..n-1, which a strided group is not. In
 * NCCL mode each candidate (algorithm, protocol) runs with its protocol's costs and
 * chunking (cs_nccl_build) and the fastest is kept, as NCCL picks by predicted time;
 * NCCL's p2p rules (alltoall's chunk and channels per peer) alone see the group's real
 * ranks, group 0's (cs_coll_req.p2p_topo / p2p_map), as NCCL derives them from its paths.
 * Times are memoised by (collective, group shape, bytes) in memo.c, which decides when to
 * simulate (cs_plan_comm). cs__plan_simulate reads of the plan only its degrees, their
 * order and dp_mode (memo.c keeps just these for a pending collective). The context (the
 * topology, the NCCL table) is made in ctx.c. */
#include "scenarios/comm-private.h"
#include "algorithms/coll.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "topologies/topology.h"

#include <stdlib.h>
#include <string.h>

/* Run schedule s on every group at once with costs (per: group i runs per[i] instead, for
 * schedules that name topology nodes of their own group, NULL: s for all); the slowest
 * group's time. */
static int run_all(cs_plan_ctx *c, const cs_sched *s, const cs_sched *per,
                   const cs_sim_costs *costs, const int *members, int n_groups, int gsize,
                   double *t_s, cs_err *err)
{
    cs_sim_opts so = {0, 0, costs};
    cs_sim *sim = NULL;
    cs_job **jobs = malloc(sizeof *jobs * (size_t)n_groups);
    int rc, i;
    cs_time end = 0;
    if (!jobs)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = cs_sim_new(&sim, c->topo, &so, err)) < 0)
        goto done;
    for (i = 0; i < n_groups; i++)
        if ((rc = cs_sim_add(sim, per ? &per[i] : s, members + (size_t)i * gsize, 0, &jobs[i],
                             err)) < 0)
            goto done;
    if ((rc = cs_sim_run(sim, err)) < 0)
        goto done;
    for (i = 0; i < n_groups; i++)
        if (cs_job_end(jobs[i]) > end)
            end = cs_job_end(jobs[i]);
    *t_s = cs_time_to_s(end);
    c->sims++;
done:
    cs_sim_free(sim);
    free(jobs);
    return rc;
}

/* A schedule with auxiliary endpoints (NVLS's switch, SHARP's) names topology nodes of
 * group 0's node: every group gets its own, built on its own view. *out: n_groups
 * schedules (free with free_scheds), NULL when s has none. CS_EUNSUPP or CS_EINVAL (err
 * not filled) when a group cannot run the candidate (NVLS on a group with unequal ranks
 * per node): the candidate is not one for every group. */
static int group_scheds(const cs_plan_ctx *c, const cs_sched *s, const cs_coll_req *req0,
                        const cs_nccl_pick *pick, const int *members, int n_groups, int gsize,
                        cs_sched **out, cs_err *err)
{
    cs_sched *per;
    int i, rc = 0;
    *out = NULL;
    if (s->n_aux == 0 || n_groups < 2)
        return 0;
    if (!(per = calloc((size_t)n_groups, sizeof *per)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < n_groups; i++) {
        cs_coll_req req = *req0;
        cs_sim_costs costs;
        cs_topo v;
        if (cs_topo_group_init(&v, c->topo, members + (size_t)i * gsize, gsize) < 0) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            break;
        }
        req.topo = &v;
        req.p2p_map = members + (size_t)i * gsize;
        rc = cs_nccl_build(&req, &c->np, pick, &per[i], &costs, NULL, NULL);
        cs_topo_group_fini(&v);
        if (rc < 0) {
            if (rc != CS_EUNSUPP && rc != CS_EINVAL)
                cs_err_set(err, rc, NULL, "cannot build %s for group %d of %d ranks",
                           pick->algo->name, i, gsize);
            break;
        }
    }
    if (rc < 0) {
        while (i-- > 0)
            cs_sched_fini(&per[i]);
        free(per);
        return rc;
    }
    *out = per;
    return 0;
}

static void free_scheds(cs_sched *per, int n)
{
    int i;
    for (i = 0; per && i < n; i++)
        cs_sched_fini(&per[i]);
    free(per);
}

/* A ring collective on many ranks: 2(n-1) (allreduce) or n-1 (all-gather, reduce-scatter)
 * identical steps in which every rank sends its S/n block to the next one. One such step
 * (a sendrecv shift of the block, every group at once) is simulated and multiplied by the
 * step count; the launch and base latency are paid once (NCCL's own ring model, tuning.cc).
 * In NCCL mode each channel shifts its S/(n C) on its own ring (cs_ring_plan of the group's
 * view: NCCL's channels enter each node at a different GPU and so leave it by a different
 * NIC), every channel of every group in one simulation. This keeps a 1024-rank ring at
 * n C transfers instead of 2 n^2 C. */
static int long_ring(cs_plan_ctx *c, const cs_topo *view, cs_coll coll, int n, uint64_t bytes,
                     cs_proto pr, const int *members, int n_groups, double *t_s, cs_err *err)
{
    const cs_algo *shift;
    cs_coll_req req;
    cs_ring_plan pl;
    cs_sched s;
    cs_sim_costs costs;
    double launch_s = 0, step = 0;
    uint64_t block;
    int rc, steps = coll == CS_COLL_ALLREDUCE ? 2 * (n - 1) : n - 1, ch = 1, g, k, q;
    int *maps;
    memset(&costs, 0, sizeof costs);                  /* no extra costs unless NCCL mode */
    if ((rc = cs_algo_lookup("ring", CS_COLL_SENDRECV, &shift, err)) < 0)
        return rc;
    if (c->nccl_on) {
        cs_nccl_costs(&c->np, pr, 0, &costs);
        launch_s = costs.launch_us * 1e-6;
        costs.launch_us = 0;
        ch = cs_nccl_channels(&c->np, pr, bytes, n);
    }
    block = bytes / (uint64_t)n / (uint64_t)ch > 0 ? bytes / (uint64_t)n / (uint64_t)ch : 1;
    if (!(maps = malloc(sizeof *maps * (size_t)n * (size_t)ch * (size_t)n_groups)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    cs_coll_req_init(&req, coll, n, bytes);
    req.topo = view;
    req.channels = ch;
    cs_ring_plan_init(&pl, &req);
    for (g = 0; g < n_groups; g++)
        for (k = 0; k < ch; k++)
            for (q = 0; q < n; q++)
                maps[((size_t)g * ch + k) * n + q] = members[(size_t)g * n +
                                                            cs_ring_plan_rank(&pl, k, q)];
    cs_ring_plan_fini(&pl);
    cs_coll_req_init(&req, CS_COLL_SENDRECV, n, block);
    req.elt_bytes = 2;
    if ((rc = cs_algo_build(shift, &req, &s, err)) == 0) {
        rc = run_all(c, &s, NULL, &costs, maps, n_groups * ch, n, &step, err);
        cs_sched_fini(&s);
    }
    free(maps);
    *t_s = launch_s + steps * step;
    return rc;
}

/* The algorithm the plan's dp_mode uses for DP allreduce (NULL = NCCL's candidates). */
static const char *dp_algo(const cs_plan *p, cs_group g, cs_coll coll)
{
    if (coll != CS_COLL_ALLREDUCE || (g != CS_G_DP && g != CS_G_EDP))
        return NULL;
    if (p->dp_mode == CS_DPM_PS)
        return "parameter_server";
    if (p->dp_mode == CS_DPM_DATAPARALLEL)
        return "reduce_broadcast";
    return NULL;
}

/* One sendrecv transfer 0 -> 1 of bytes. */
static int p2p_sched(cs_sched *s, uint64_t bytes, cs_err *err)
{
    int64_t ch;
    uint32_t id;
    if (cs_sched_init(s, CS_COLL_SENDRECV, 2, 0, bytes) < 0 ||
        (ch = cs_sched_chunk(s, bytes, 0, 1)) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    id = (uint32_t)ch;
    s->algo = "send";
    if (cs_sched_xfer(s, 0, 1, CS_OP_COPY, &id, 1, NULL, 0, 0) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    return 0;
}

int cs__plan_sim_runs(const cs_plan_ctx *c, const cs_plan *p, cs_group g, cs_coll coll,
                      int gsize)
{
    const cs_algo *cand[8];
    int n_alg, n_pr = 0, pr, n_nvls;
    if (g == CS_G_PP)
        return 1;
    if (dp_algo(p, g, coll) || !c->nccl_on)
        n_alg = 1;
    else if (gsize > CS_RING_FULL_MAX && coll == CS_COLL_ALLREDUCE)
        n_alg = 1;              /* the ring stands for NCCL on long groups */
    else
        n_alg = cs_nccl_params_algos(coll, &c->np, cand, 8);
    if (!c->nccl_on)
        return n_alg;
    for (pr = 0; pr < CS_PROTO_COUNT; pr++)
        n_pr += c->np.force_proto >= 0 ? pr == c->np.force_proto : c->np.proto[pr].enabled;
    /* NVLS runs Simple only (one run, where Simple is on) */
    n_nvls = n_alg > 1 && !strcmp(cand[n_alg - 1]->name, "nvls");
    return (n_alg - n_nvls > 0 ? n_alg - n_nvls : 1) * (n_pr > 0 ? n_pr : 1) + n_nvls;
}

/* A candidate (algorithm, protocol) built and bounded, waiting to be simulated. */
typedef struct cand_run {
    cs_sched s;              /* its schedule on group 0 */
    cs_sched *per;           /* one per group (schedules naming nodes of their own group),
                                or NULL: s on every group */
    cs_sim_costs costs;      /* its protocol's costs */
    double lb_s;             /* its time is at least this (link loads, sim/bound.h), s */
} cand_run;

/* Order the candidates by bound, ties by build order (insertion sort: at most 24). */
static void sort_by_bound(int *order, const cand_run *runs, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        int k = order[i];
        for (j = i; j > 0 && runs[order[j - 1]].lb_s > runs[k].lb_s; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
}

int cs__plan_simulate(cs_plan_ctx *c, const cs_plan *p, cs_group g, cs_coll coll,
                      uint64_t bytes, double *t_s, cs_err *err)
{
    cs_topo view;
    cand_run runs[8 * CS_PROTO_COUNT];
    int order[8 * CS_PROTO_COUNT], n_runs = 0;
    int *members = NULL, n_groups, gsize, rc, a, pr, n_cand, found = 0, has_view = 0;
    const cs_algo *cand[8];
    const char *force = dp_algo(p, g, coll);
    double best = 0;
    if ((rc = cs__plan_groups(p, g, &members, &n_groups, &gsize)) < 0)
        return cs_err_set(err, rc, NULL, "out of memory");
    if (gsize < 2 || n_groups == 0 || bytes == 0) {
        free(members);
        *t_s = 0;
        return 0;
    }
    if ((rc = cs__plan_reduce_groups(c->topo, coll, members, &n_groups, gsize, err)) < 0) {
        free(members);
        return rc;
    }
    if (g == CS_G_PP) {
        cs_sched s;
        cs_sim_costs costs;
        memset(&costs, 0, sizeof costs);
        if (c->nccl_on)
            cs_nccl_costs(&c->np, CS_PROTO_SIMPLE, 0, &costs);
        if ((rc = p2p_sched(&s, bytes, err)) == 0)
            rc = run_all(c, &s, NULL, &costs, members, n_groups, gsize, t_s, err);
        cs_sched_fini(&s);
        free(members);
        return rc;
    }
    /* In NCCL mode the group's collective sees the topology as `collsim run` on the group's
     * GPUs would (channels' rings, trees, NVLink domains): group 0's view, which the others
     * repeat elsewhere (the memo key). */
    if (c->nccl_on) {
        if (cs_topo_group_init(&view, c->topo, members, gsize) < 0) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            goto done;
        }
        has_view = 1;
    }
    if (force) {
        if ((rc = cs_algo_lookup(force, coll, &cand[0], err)) < 0)
            goto done;
        n_cand = 1;
    } else if (c->nccl_on) {
        n_cand = cs_nccl_params_algos(coll, &c->np, cand, 8);
    } else {
        const char *nm = coll == CS_COLL_ALLTOALL ? "direct" : "ring";
        if ((rc = cs_algo_lookup(nm, coll, &cand[0], err)) < 0)
            goto done;
        n_cand = 1;
    }
    /* Every candidate is built first and bounded by its link loads (sim/bound.h); they run
     * in the order of their bounds, and one whose bound is above the best time found is
     * not simulated: it cannot be the fastest, and the time kept is the same. */
    for (a = 0; a < n_cand; a++)
        for (pr = 0; pr < (c->nccl_on ? CS_PROTO_COUNT : 1); pr++) {
            cs_coll_req req;
            cand_run *x = &runs[n_runs];
            double t = 0;
            memset(x, 0, sizeof *x);
            cs_coll_req_init(&req, coll, gsize, bytes);
            req.elt_bytes = 2;
            if (gsize > CS_RING_FULL_MAX && !force && strcmp(cand[a]->name, "ring") &&
                coll == CS_COLL_ALLREDUCE)
                continue;        /* long groups: the ring (bandwidth-optimal) stands for NCCL */
            if (gsize > CS_RING_FULL_MAX && !strcmp(cand[a]->name, "ring") &&
                (coll == CS_COLL_ALLREDUCE || coll == CS_COLL_ALLGATHER ||
                 coll == CS_COLL_REDUCESCATTER)) {
                if (c->nccl_on && (c->np.force_proto >= 0 ? pr != c->np.force_proto
                                                         : !c->np.proto[pr].enabled))
                    continue;
                if ((rc = long_ring(c, has_view ? &view : NULL, coll, gsize, bytes, (cs_proto)pr,
                                    members, n_groups, &t, err)) < 0)
                    goto done;
                if (!found || t < best)
                    best = t;
                found = 1;
                continue;
            }
            if (c->nccl_on) {
                cs_nccl_pick pick;
                if (c->np.force_proto >= 0 ? pr != c->np.force_proto : !c->np.proto[pr].enabled)
                    continue;
                memset(&pick, 0, sizeof pick);
                pick.algo = cand[a];
                pick.proto = (cs_proto)pr;
                /* NCCL's p2p rules (alltoall) see group 0's real ranks: every group has
                 * the same shape (the memo key), the others repeat it elsewhere */
                req.p2p_topo = c->topo;
                req.p2p_map = members;
                req.topo = &view;
                rc = cs_nccl_build(&req, &c->np, &pick, &x->s, &x->costs, NULL, NULL);
            } else {
                rc = cs_algo_build(cand[a], &req, &x->s, NULL);
            }
            if (rc == CS_EUNSUPP || rc == CS_EINVAL)
                continue;
            if (rc < 0) {
                rc = cs_err_set(err, rc, NULL, "cannot build %s for %d ranks",
                                cs_coll_name(coll), gsize);
                goto done;
            }
            if (c->nccl_on) {
                cs_nccl_pick pick;
                memset(&pick, 0, sizeof pick);
                pick.algo = cand[a];
                pick.proto = (cs_proto)pr;
                rc = group_scheds(c, &x->s, &req, &pick, members, n_groups, gsize, &x->per,
                                  err);
            }
            if (rc == CS_EUNSUPP || rc == CS_EINVAL) {   /* not on every group: skipped */
                cs_sched_fini(&x->s);
                continue;
            }
            n_runs++;
            if (rc < 0)
                goto done;
        }
    for (a = 0; a < n_runs && n_runs > 1; a++) {
        cand_run *x = &runs[a];
        if (!c->bound_load && c->topo->n_links > 0 &&
            !(c->bound_load = calloc(2 * (size_t)c->topo->n_links, sizeof *c->bound_load))) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            goto done;
        }
        if ((rc = cs_sched_link_bound(c->topo, x->per ? &x->per[0] : &x->s, members,
                                      x->costs.bw_eff > 0 ? 1 / x->costs.bw_eff : 1,
                                      c->bound_load, &x->lb_s, err)) < 0)
            goto done;
    }
    for (a = 0; a < n_runs; a++)
        order[a] = a;
    sort_by_bound(order, runs, n_runs);
    for (a = 0; a < n_runs; a++) {
        cand_run *x = &runs[order[a]];
        double t = 0;
        /* a margin for the picosecond rounding of the simulated time */
        if (found && x->lb_s * (1 - 1e-9) > best) {
            c->bounded++;
            continue;
        }
        if ((rc = run_all(c, &x->s, x->per, &x->costs, members, n_groups, gsize, &t,
                          err)) < 0)
            goto done;
        if (!found || t < best)
            best = t;
        found = 1;
    }
    if (!found) {
        rc = cs_err_set(err, CS_EUNSUPP, NULL, "no algorithm runs %s on groups of %d ranks",
                        cs_coll_name(coll), gsize);
        goto done;
    }
    *t_s = best;
    rc = 0;
done:
    for (a = 0; a < n_runs; a++) {
        free_scheds(runs[a].per, n_groups);
        cs_sched_fini(&runs[a].s);
    }
    if (has_view)
        cs_topo_group_fini(&view);
    free(members);
    return rc;
}
