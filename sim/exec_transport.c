/* exec_transport.c: NCCL's transports in the executor (core layer, sim/exec.h
 * cs_transport_costs): which of P2P, SHM and NET a transfer takes, from its route, as NCCL
 * chooses per rank pair (src/graph/paths.cc), and the time the sending rank's proxy thread
 * spends on its messages (src/proxy.cc, src/transport/net.cc); a rank's proxy may be
 * another's (cs_sim_set_proxies: ranks a folded simulation merges). */
#include "sim/exec-private.h"

/* The transport NCCL uses between topology nodes sn and dn (exec.h): NET across groups,
 * SHM where the route crosses a CPU, P2P otherwise. -1 for an auxiliary endpoint (a
 * reducing switch: NVLS/SHARP have their own costs) or a route that cannot be had (the
 * network reports it when the transfer is sent). */
int cs__ex_transport_of(const cs_job *job, const cs_xfer *x)
{
    const cs_topo *t = job->sim->t;
    int sn = cs__ex_node_of(job, x->src), dn = cs__ex_node_of(job, x->dst), gs, gd, k, n;
    const int32_t *dl;
    cs_err err;
    if (cs__ex_rank_of(job, x->src) < 0 || cs__ex_rank_of(job, x->dst) < 0)
        return -1;
    gs = t->nodes[sn].group;
    gd = t->nodes[dn].group;
    if (gs >= 0 && gd >= 0 && gs != gd)
        return CS_TR_NET;
    cs_err_clear(&err);
    if ((n = cs_topo_route(t, sn, dn, &dl, &err)) < 0)
        return -1;
    for (k = 0; k + 1 < n; k++)
        if (t->nodes[cs_dlink_to(t, dl[k])].type == CS_NODE_CPU)
            return CS_TR_SHM;
    return CS_TR_P2P;
}

cs_time cs__ex_proxy(cs_job *job, uint32_t i, const cs_xfer *x, int tr)
{
    cs_sim *sim = job->sim;
    const cs_transport_costs *q;
    uint64_t m, *grp;
    int r, n, k;
    cs_time now, t0;
    double msg_us;
    job->tie_ps[i - job->base] = 0;
    if (tr < 0 || x->src >= job->s->n_ranks)
        return 0;
    /* The sender's proxy handles the transfer's messages, in the order they come; an eager
     * piece (exec.h eager_bytes) is one message of eager_msg_us. */
    q = &sim->tr[tr];
    msg_us = q->eager_bytes && x->bytes <= q->eager_bytes ? q->eager_msg_us : q->msg_us;
    if (!(msg_us > 0))
        return 0;
    m = q->msg_bytes ? (x->bytes + q->msg_bytes - 1) / q->msg_bytes : 1;
    r = job->map[x->src];
    if (sim->proxy_of)
        r = sim->proxy_of[r];
    now = cs_engine_now(sim->eng);
    t0 = sim->proxy_free[r] > now ? sim->proxy_free[r] : now;
    if (!((double)(m ? m : 1) * (double)cs_time_from_us(msg_us) <
          (double)(CS_TIME_MAX - t0) - 1)) {
        cs_engine_fail(sim->eng, CS_ELIMIT, NULL, CS_NET_PAST_CLOCK_MSG);
        return 0;
    }
    sim->proxy_free[r] = t0 + (cs_time)(m ? m : 1) * cs_time_from_us(msg_us);
    /* The transfers charged at one instant: the engine's order says which the proxy takes
     * first. Each of them is marked with when the proxy is done with all (job tie_ps); one
     * delivered before that had its time set by the order (net_done counts it). */
    if (sim->proxy_last[r] != now) {
        sim->proxy_last[r] = now;
        sim->proxy_grp_n[r] = 0;
    }
    grp = sim->proxy_grp + (size_t)r * EX_TIE_MAX;
    n = sim->proxy_grp_n[r]++;
    if (n < EX_TIE_MAX)
        grp[n] = cs__ex_token(job, i);
    if (n >= EX_TIE_MAX)
        sim->proxy_order++;           /* too many at once to follow: counted now */
    for (k = 0; n > 0 && k <= n && k < EX_TIE_MAX; k++) {
        cs_job *o = sim->jobs[grp[k] >> 32];
        o->tie_ps[(uint32_t)grp[k] - o->base] = sim->proxy_free[r];
    }
    return sim->proxy_free[r];
}
