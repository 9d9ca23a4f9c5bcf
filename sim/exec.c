/* exec.c: runs schedules on a fabric (core layer). Each job is a DAG: an operation is posted
 * when its dependencies are done; transfers go to the network model, compute tasks hold
 * their rank's compute resource, and with gamma a reduce holds its receiver's reducer for
 * l/gamma after delivery (the alpha-beta-gamma model) or, with costs' reduce_in_loop (NCCL
 * mode), from when it was sent, as the kernels reduce inside the receive loop: then it
 * costs time only where the reducer, not the link, is the bound. Jobs share the engine and
 * the network, so they contend. With transport costs (cs_sim_costs.tr, NCCL mode) each
 * transfer is classed P2P, SHM or NET by its route (exec.h) and pays that transport's step
 * latency, copy efficiency and proxy time. */
#include "sim/exec-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void complete(cs_job *job, uint32_t i);

int cs_sim_new(cs_sim **out, const cs_topo *topo, const cs_sim_opts *opts, cs_err *err)
{
    cs_sim *sim = calloc(1, sizeof *sim);
    int k;
    if (!sim)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if (!topo->cache) {
        free(sim);
        return cs_err_set(err, CS_ESTATE, NULL, "topology used before cs_topo_finish");
    }
    sim->t = topo;
    sim->nops = topo->model == CS_MODEL_ALPHA_BETA ? &cs__net_alpha_beta : &cs__net_fluid;
    if (opts)
        sim->opts = *opts;
    else
        sim->opts.check_data = 1;
    if (!sim->opts.check_max_bytes)
        sim->opts.check_max_bytes = 256ull << 20;
    sim->bytes_scale = 1.0;
    sim->bw_scale = 1.0;
    if (sim->opts.costs) {
        const cs_sim_costs *c = sim->opts.costs;
        if (!(c->launch_us >= 0) || !(c->xfer_lat_us >= 0) || !(c->bw_eff >= 0) ||
            c->bw_eff > 1 || !(c->chan_GBps >= 0)) {
            free(sim);
            return cs_err_set(err, CS_EINVAL, "costs", "launch_us, xfer_lat_us and chan_GBps "
                              "must be >= 0 and bw_eff in (0, 1], got %g, %g, %g, %g",
                              c->launch_us, c->xfer_lat_us, c->chan_GBps, c->bw_eff);
        }
        sim->launch_ps = cs_time_from_us(c->launch_us);
        sim->xfer_lat_ps = cs_time_from_us(c->xfer_lat_us);
        if (c->bw_eff > 0)
            sim->bytes_scale = 1.0 / c->bw_eff;
        /* The cap is on data; on the wire a transfer carries 1/bw_eff bytes per data byte. */
        sim->cap_GBps = c->chan_GBps * sim->bytes_scale;
        sim->split_dirs = c->split_dirs != 0;
        sim->fifo = c->fifo != 0;
        sim->reduce_in_loop = c->reduce_in_loop;
        for (k = 0; k < CS_TR_COUNT; k++) {
            const cs_transport_costs *q = &c->tr[k];
            if (!(q->lat_us >= 0) || !(q->msg_us >= 0) || !(q->bw_eff >= 0) || q->bw_eff > 1 ||
                !(q->eager_lat_us >= 0) || !(q->eager_msg_us >= 0)) {
                free(sim);
                return cs_err_set(err, CS_EINVAL, "costs", "transport %d: lat_us, msg_us, "
                                  "eager_lat_us and eager_msg_us must be >= 0 and bw_eff in "
                                  "(0, 1], got %g, %g, %g, %g, %g", k, q->lat_us, q->msg_us,
                                  q->eager_lat_us, q->eager_msg_us, q->bw_eff);
            }
            sim->tr[k] = *q;
            if (topo->model == CS_MODEL_FLUID &&
                (q->lat_us > 0 || (q->bw_eff > 0 && q->bw_eff < 1) || q->msg_us > 0 ||
                 q->eager_bytes))
                sim->use_tr = 1;
            if (topo->model == CS_MODEL_FLUID &&
                (q->msg_us > 0 || (q->eager_bytes && q->eager_msg_us > 0)))
                sim->use_proxy = 1;
            if (topo->model == CS_MODEL_FLUID && (q->bw_one_GBps > 0 || q->bw_both_GBps > 0))
                sim->use_tr = sim->use_pair = 1;
        }
        sim->opts.costs = NULL;   /* copied above; the caller's struct may go away */
    }
    sim->reduce_ps_per_byte = topo->reduce_GBps > 0 ? 1000.0 / topo->reduce_GBps : 0;
    sim->compute_free = calloc((size_t)topo->n_ranks, sizeof *sim->compute_free);
    sim->reduce_free = calloc((size_t)topo->n_ranks, sizeof *sim->reduce_free);
    if (sim->use_proxy) {
        sim->proxy_free = calloc((size_t)topo->n_ranks, sizeof *sim->proxy_free);
        sim->proxy_last = malloc((size_t)topo->n_ranks * sizeof *sim->proxy_last);
        sim->proxy_grp = malloc((size_t)topo->n_ranks * EX_TIE_MAX * sizeof *sim->proxy_grp);
        sim->proxy_grp_n = calloc((size_t)topo->n_ranks, sizeof *sim->proxy_grp_n);
        if (sim->proxy_last)
            for (k = 0; k < topo->n_ranks; k++)
                sim->proxy_last[k] = -1;          /* never charged */
    }
    if (cs_engine_new(&sim->eng) || !sim->compute_free || !sim->reduce_free ||
        (sim->use_proxy && (!sim->proxy_free || !sim->proxy_last || !sim->proxy_grp ||
                            !sim->proxy_grp_n))) {
        cs_sim_free(sim);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    *out = sim;
    return 0;
}

/* Stop the data check of a job (#wrong N/A): its state outgrew check_max_bytes. */
static void drop_check(cs_job *job)
{
    uint32_t i;
    if (job->snap)
        for (i = 0; i < job->n_ops; i++)
            cs__check_snap_free(job->snap[i]);
    free(job->snap);
    job->snap = NULL;
    cs__check_free(job->check);
    job->check = NULL;
}

static void job_free(cs_job *job)
{
    if (!job)
        return;
    drop_check(job);
    free(job->map);
    free(job->ops);
    free(job->edges);
    free(job->sent_ps);
    free(job->proxy_ps);
    free(job->tie_ps);
    free(job);
}

void cs_sim_free(cs_sim *sim)
{
    int i;
    if (!sim)
        return;
    for (i = 0; i < sim->n_jobs; i++)
        job_free(sim->jobs[i]);
    free(sim->jobs);
    if (sim->net)
        sim->nops->destroy(sim->net);
    cs_engine_free(sim->eng);
    free(sim->compute_free);
    free(sim->reduce_free);
    free(sim->proxy_free);
    free(sim->proxy_last);
    free(sim->proxy_grp);
    free(sim->proxy_grp_n);
    free(sim->proxy_of);
    free(sim);
}

int cs_sim_set_proxies(cs_sim *sim, const int *proxy_of, cs_err *err)
{
    int r, n = sim->t->n_ranks;
    free(sim->proxy_of);
    sim->proxy_of = NULL;
    if (!proxy_of)
        return 0;
    for (r = 0; r < n; r++)
        if (proxy_of[r] < 0 || proxy_of[r] >= n)
            return cs_err_set(err, CS_EINVAL, "proxy_of", "rank %d's proxy is rank %d, "
                              "topology has %d", r, proxy_of[r], n);
    if (!(sim->proxy_of = malloc((size_t)n * sizeof *sim->proxy_of)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    memcpy(sim->proxy_of, proxy_of, (size_t)n * sizeof *sim->proxy_of);
    return 0;
}

void cs_sim_set_observer(cs_sim *sim, cs_observer_fn fn, void *ctx)
{
    sim->obs = fn;
    sim->obs_ctx = ctx;
}

cs_engine *cs_sim_engine(cs_sim *sim) { return sim->eng; }
cs_time cs_job_end(const cs_job *job) { return job->end_ps; }
cs_time cs_job_start(const cs_job *job) { return job->start_ps; }
int cs_job_wrong(const cs_job *job) { return job->wrong; }
const cs_sched *cs_job_sched(const cs_job *job) { return job->s; }

const cs_link_stats *cs_sim_link_stats(const cs_sim *sim)
{
    return sim->net ? sim->nops->stats(sim->net) : NULL;
}

void cs_sim_get_counters(const cs_sim *sim, cs_sim_counters *out)
{
    memset(out, 0, sizeof *out);
    out->events = cs_engine_n_executed(sim->eng);
    out->transfers = sim->n_sent;
    out->peak_transfers = sim->peak_in_net;
    out->peak_ops = sim->peak_held;
    out->proxy_order = sim->proxy_order;
    if (sim->net && sim->nops->counters)
        sim->nops->counters(sim->net, out);
}

static void observe(cs_job *job, cs_obs_kind kind, uint32_t i)
{
    cs_sim *sim = job->sim;
    cs_obs_event ev;
    if (!sim->obs)
        return;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.t_ps = cs_engine_now(sim->eng);
    ev.job = job;
    ev.job_index = job->index;
    ev.xfer = i;
    if (kind != CS_OBS_JOB_DONE) {
        ev.x = cs_sched_op(job->s, i);
        ev.src_rank = cs__ex_rank_of(job, ev.x->src);
        ev.dst_rank = cs__ex_rank_of(job, ev.x->dst);
        ev.src_node = cs__ex_node_of(job, ev.x->src);
        ev.dst_node = cs__ex_node_of(job, ev.x->dst);
    }
    sim->obs(sim->obs_ctx, &ev);
}

static void compute_done(cs_engine *eng, void *arg, uint64_t data)
{
    cs_job *job = arg;
    observe(job, CS_OBS_COMPUTE_DONE, (uint32_t)data);
    complete(job, (uint32_t)data);
}

static void compute_begin(cs_engine *eng, void *arg, uint64_t data)
{
    cs_job *job = arg;
    observe(job, CS_OBS_COMPUTE_START, (uint32_t)data);
    cs_engine_after(eng, cs_sched_op(job->s, (uint32_t)data)->dur_ps, compute_done, job, data);
}

/* Hand transfer i to the network (with the costs' bandwidth efficiencies applied). */
static void send(cs_job *job, uint32_t i)
{
    cs_sim *sim = job->sim;
    const cs_xfer *x = cs_sched_op(job->s, i);
    uint64_t bytes = x->bytes;
    double scale = sim->bytes_scale;
    cs_err err;
    int rc, chan_key, tr = sim->use_tr ? cs__ex_transport_of(job, x) : -1;
    uint64_t fifo;
    if (tr >= 0 && sim->tr[tr].bw_eff > 0)
        scale /= sim->tr[tr].bw_eff;
    if (job->proxy_ps)
        job->proxy_ps[i - job->base] = cs__ex_proxy(job, i, x, tr);
    if (scale != 1.0)
        bytes = (uint64_t)llround((double)bytes * scale);
    cs_err_clear(&err);
    /* The channel cap is shared per (channel, sending rank), or per (channel, direction,
     * sending rank) where a channel's reduces and copies have their own threads (32
     * channels of 2 directions then); a switch sending (in-network reduction) has no
     * channel of its own. */
    chan_key = sim->cap_GBps <= 0 || cs__ex_rank_of(job, x->src) < 0 ? -1
             : (sim->split_dirs ? (x->channel % (CS_NET_MAX_CHANNELS / 2)) * 2 +
                                      (x->op == CS_OP_REDUCE)
                                : x->channel % CS_NET_MAX_CHANNELS) * sim->t->n_ranks +
               cs__ex_rank_of(job, x->src);
    sim->n_sent++;
    if (job->sent_ps)
        job->sent_ps[i - job->base] = cs_engine_now(sim->eng);
    if (++sim->n_in_net > sim->peak_in_net)
        sim->peak_in_net = sim->n_in_net;
    /* The connection's FIFO key (with the two nodes): job, channel, and the thread group.
     * A switch's multicast and in-network reduction (NVLS) have no FIFO. */
    fifo = !sim->fifo || cs__ex_rank_of(job, x->src) < 0 || cs__ex_rank_of(job, x->dst) < 0
         ? CS_NET_NO_FIFO : (uint64_t)job->index << 16 | (uint64_t)x->channel << 1 |
           (uint64_t)(sim->split_dirs && x->op == CS_OP_REDUCE);
    rc = sim->nops->send(sim->net, cs__ex_node_of(job, x->src), cs__ex_node_of(job, x->dst), bytes,
                         cs__ex_token(job, i), chan_key, fifo, sim->use_pair ? tr : -1, &err);
    if (rc < 0)
        cs_engine_fail(sim->eng, rc, err.where, "%s", err.msg);
}

/* The costs' per-transfer latency has passed. */
static void send_later(cs_engine *eng, void *arg, uint64_t data)
{
    send(arg, (uint32_t)data);
}

/* Dependencies of operation i are done: start it. */
static void post(cs_job *job, uint32_t i)
{
    cs_sim *sim = job->sim;
    const cs_xfer *x = cs_sched_op(job->s, i);
    if (job->s->stream && x->step + 1 == cs_sched_next_step(job->s) &&
        x->step + 1 < job->s->n_steps) {
        /* The first operation of the last produced step: produce the next one, so that
         * its operations are known before any of this step is done. */
        cs_err err;
        int64_t rc;
        cs_err_clear(&err);
        if ((rc = cs_sched_produce(job->s, &err)) < 0 || (rc = cs__ex_absorb(job)) < 0) {
            cs_engine_fail(sim->eng, (int)rc, err.where, "%s", err.msg[0] ? err.msg
                           : "out of memory");
            return;
        }
        x = cs_sched_op(job->s, i);      /* the window may have moved in memory */
    }
    observe(job, CS_OBS_XFER_READY, i);
    if (x->op == CS_OP_COMPUTE) {
        int r = job->map[x->src];
        cs_time now = cs_engine_now(sim->eng);
        cs_time t0 = sim->compute_free[r] > now ? sim->compute_free[r] : now;
        sim->compute_free[r] = t0 + x->dur_ps;
        cs_engine_at(sim->eng, t0, compute_begin, job, i);
        return;
    }
    if (job->check && !(job->snap[i - job->base] =
                        cs__check_snapshot(job->check, x, cs_sched_chunks(job->s, i)))) {
        cs_engine_fail(sim->eng, CS_ENOMEM, NULL, "out of memory");
        return;
    }
    {
        cs_time lat = sim->xfer_lat_ps;
        int tr;
        /* A transport's step latency: once per step and connection, on its first piece
         * (the later pieces are in flight behind it, NCCL_STEPS slots deep); an eager
         * piece's own (exec.h eager_bytes). */
        if (sim->use_tr && x->pipe == 0 && (tr = cs__ex_transport_of(job, x)) >= 0)
            lat += cs_time_from_us(sim->tr[tr].eager_bytes && x->bytes <= sim->tr[tr].eager_bytes
                                   ? sim->tr[tr].eager_lat_us : sim->tr[tr].lat_us);
        if (lat > 0)
            cs_engine_after(sim->eng, lat, send_later, job, i);
        else
            send(job, i);
    }
}

/* Operation i is done: apply its data, release its dependents. */
static void complete(cs_job *job, uint32_t i)
{
    const cs_sched *s = job->s;
    const cs_xfer *x = cs_sched_op(s, i);
    uint32_t e, last;
    if (job->check && x->op != CS_OP_COMPUTE) {
        int rc = cs__check_apply(job->check, x, cs_sched_chunks(s, i), job->snap[i - job->base]);
        job->snap[i - job->base] = NULL;
        if (rc < 0) {
            cs_engine_fail(job->sim->eng, rc, NULL, "out of memory");
            return;
        }
        if (cs__check_bytes(job->check) > job->sim->opts.check_max_bytes)
            drop_check(job);
    }
    /* Posting may produce operations (new edges, a reallocated pool): walk by index. */
    for (e = job->ops[i - job->base].succ_head; e != EX_NONE; e = job->edges[e].next) {
        uint32_t j = job->edges[e].op;
        if (--job->ops[j - job->base].pending == 0)
            post(job, j);
    }
    /* Give the list back to the free list. */
    e = job->ops[i - job->base].succ_head;
    if (e != EX_NONE) {
        last = job->ops[i - job->base].succ_tail;
        job->edges[last].next = job->free_edge;
        job->free_edge = e;
    }
    job->ops[i - job->base] = (ex_op){EX_DONE, EX_NONE, EX_NONE};
    job->n_done++;
    if (s->stream)
        cs__ex_shrink(job);
    if (job->n_done == cs_sched_n_ops(s) && cs_sched_next_step(s) == s->n_steps) {
        job->done = 1;
        job->end_ps = cs_engine_now(job->sim->eng);
        observe(job, CS_OBS_JOB_DONE, 0);
    }
}

static void reduce_done(cs_engine *eng, void *arg, uint64_t data)
{
    cs_job *job = arg;
    observe(job, CS_OBS_REDUCE_DONE, (uint32_t)data);
    complete(job, (uint32_t)data);
}

static cs_job *job_of(cs_sim *sim, uint64_t token) { return sim->jobs[token >> 32]; }

static void net_started(void *ctx, uint64_t token)
{
    observe(job_of(ctx, token), CS_OBS_XFER_START, (uint32_t)token);
}

static void delivered(cs_job *job, uint32_t i);

/* The sender's proxy has handled the messages of a transfer whose bytes had arrived. */
static void proxy_done(cs_engine *eng, void *arg, uint64_t data)
{
    (void)eng;
    delivered(arg, (uint32_t)data);
}

static void net_done(void *ctx, uint64_t token)
{
    cs_sim *sim = ctx;
    cs_job *job = job_of(sim, token);
    uint32_t i = (uint32_t)token;
    sim->n_in_net--;
    /* Delivered before the proxy was done with its instant's transfers: which of them it
     * handled first (the engine's order) decided this one's time. */
    if (job->tie_ps && job->tie_ps[i - job->base] > cs_engine_now(sim->eng))
        sim->proxy_order++;
    if (job->proxy_ps && job->proxy_ps[i - job->base] > cs_engine_now(sim->eng)) {
        cs_engine_at(sim->eng, job->proxy_ps[i - job->base], proxy_done, job, i);
        return;
    }
    delivered(job, i);
}

/* Transfer i is delivered (its bytes, and its proxy's messages): reduce, complete. */
static void delivered(cs_job *job, uint32_t i)
{
    cs_sim *sim = job->sim;
    const cs_xfer *x = cs_sched_op(job->s, i);
    observe(job, CS_OBS_XFER_DONE, i);
    if (x->op == CS_OP_REDUCE && sim->reduce_ps_per_byte > 0 && x->dst < job->s->n_ranks) {
        /* The receiver reduces for l/gamma from delivery (alpha-beta-gamma), or, in the
         * receive loop (NCCL's recvReduce* primitives), from when the transfer was sent or
         * its reducer is free: done when both the last byte and the reduction are. */
        int r = job->map[x->dst];
        cs_time now = cs_engine_now(sim->eng), t0 = job->sent_ps ? job->sent_ps[i - job->base] : now;
        double red_ps = (double)x->bytes * sim->reduce_ps_per_byte;
        if (sim->reduce_free[r] > t0)
            t0 = sim->reduce_free[r];
        if (!(red_ps < (double)(CS_TIME_MAX - t0) - 1)) {
            cs_engine_fail(sim->eng, CS_ELIMIT, NULL, CS_NET_PAST_CLOCK_MSG);
            return;
        }
        sim->reduce_free[r] = t0 + (cs_time)llround(red_ps);
        if (sim->reduce_free[r] > now) {
            cs_engine_at(sim->eng, sim->reduce_free[r], reduce_done, job, i);
            return;
        }
        observe(job, CS_OBS_REDUCE_DONE, i);
    }
    complete(job, i);
}

static void job_start(cs_engine *eng, void *arg, uint64_t data)
{
    cs_job *job = arg;
    uint32_t i, end = cs_sched_n_ops(job->s);
    if (end == 0) {
        job->done = 1;
        job->end_ps = cs_engine_now(eng);
        observe(job, CS_OBS_JOB_DONE, 0);
        return;
    }
    /* Streamed, only step 0 has operations without dependencies; posting them may
     * produce step 1, which is not looked at here. */
    for (i = job->base; i < end; i++)
        if (cs_sched_op(job->s, i)->n_deps == 0)
            post(job, i);
}

int cs_sim_add(cs_sim *sim, const cs_sched *s, const int *rank_map, cs_time start_ps,
               cs_job **out, cs_err *err)
{
    cs_job *job;
    int r, rc;
    if (s->n_ranks > sim->t->n_ranks)
        return cs_err_set(err, CS_EINVAL, "-g", "%d ranks requested but topology '%s' has %d",
                          s->n_ranks, sim->t->name ? sim->t->name : "?", sim->t->n_ranks);
    for (r = 0; r < s->n_aux; r++)
        if (sim->t->model == CS_MODEL_ALPHA_BETA || s->aux_node[r] >= sim->t->n_nodes)
            return cs_err_set(err, CS_EUNSUPP, "schedule", "%s addresses topology node %d, "
                              "which this %s fabric does not have", s->algo, s->aux_node[r],
                              sim->t->kind ? sim->t->kind : "?");
    if (sim->n_jobs == sim->cap_jobs) {
        int cap = sim->cap_jobs ? sim->cap_jobs * 2 : 4;
        cs_job **nj = realloc(sim->jobs, (size_t)cap * sizeof *nj);
        if (!nj)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        sim->jobs = nj;
        sim->cap_jobs = cap;
    }
    job = calloc(1, sizeof *job);
    if (!job)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    job->sim = sim;
    job->s = s;
    job->start_ps = job->end_ps = start_ps;
    job->wrong = -1;
    job->map = malloc((size_t)s->n_ranks * sizeof *job->map);
    job->free_edge = EX_NONE;
    job->base = job->lo = s->base;
    if (sim->reduce_ps_per_byte > 0 && sim->reduce_in_loop)
        job->sent_ps = calloc(1, sizeof *job->sent_ps);    /* grown with the window */
    if (sim->use_proxy) {
        job->proxy_ps = calloc(1, sizeof *job->proxy_ps);  /* likewise */
        job->tie_ps = calloc(1, sizeof *job->tie_ps);
    }
    if (!job->map || (sim->reduce_ps_per_byte > 0 && sim->reduce_in_loop && !job->sent_ps) ||
        (sim->use_proxy && (!job->proxy_ps || !job->tie_ps))) {
        job_free(job);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    {
        /* each topology rank at most once: a bit per rank (was a scan of the ranks before,
         * n^2: 7 s for 140,000 ranks) */
        unsigned char *seen = rank_map ? calloc((size_t)sim->t->n_ranks / 8 + 1, 1) : NULL;
        if (rank_map && !seen) {
            job_free(job);
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        }
        for (r = 0; r < s->n_ranks; r++) {
            int m = rank_map ? rank_map[r] : r;
            if (m < 0 || m >= sim->t->n_ranks) {
                free(seen);
                job_free(job);
                return cs_err_set(err, CS_EINVAL, "rank map", "group rank %d maps to rank %d, "
                                  "topology has %d", r, m, sim->t->n_ranks);
            }
            if (seen && (seen[m >> 3] & (1u << (m & 7)))) {
                free(seen);
                job_free(job);
                return cs_err_set(err, CS_EINVAL, "rank map", "rank %d appears twice", m);
            }
            if (seen)
                seen[m >> 3] |= (unsigned char)(1u << (m & 7));
            job->map[r] = m;
        }
        free(seen);
    }
    if (s->stream && (s->n_xfers || cs_sched_next_step(s) > 0)) {
        job_free(job);
        return cs_err_set(err, CS_ESTATE, "schedule", "a streamed schedule runs once");
    }
    if (sim->opts.check_data && (!s->one_rank || s->turns) &&
        cs__check_state_bytes(s) <= sim->opts.check_max_bytes) {
        if (cs__check_new(&job->check, s) < 0 || !(job->snap = calloc(1, sizeof *job->snap))) {
            job_free(job);
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        }
    }
    /* A streamed schedule starts with its step 0. */
    if (s->stream && (rc = (int)cs_sched_produce(s, err)) < 0) {
        job_free(job);
        return rc;
    }
    if (cs__ex_absorb(job) < 0) {
        job_free(job);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    job->index = sim->n_jobs;
    sim->jobs[sim->n_jobs++] = job;
    if (!cs_engine_at(sim->eng, start_ps + sim->launch_ps, job_start, job, 0))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if (out)
        *out = job;
    return 0;
}

int cs_sim_run(cs_sim *sim, cs_err *err)
{
    int i, rc;
    if (!sim->net) {
        cs_net_cb cb = {sim, net_started, net_done};
        cs_net_pair pair;
        /* A pair's limits are on data: in the bytes its messages carry, as send scales them. */
        for (i = 0; i < CS_TR_COUNT; i++) {
            double w = sim->bytes_scale / (sim->tr[i].bw_eff > 0 ? sim->tr[i].bw_eff : 1);
            pair.one_GBps[i] = i == CS_TR_NET ? 0 : sim->tr[i].bw_one_GBps * w;
            pair.both_GBps[i] = i == CS_TR_NET ? 0 : sim->tr[i].bw_both_GBps * w;
        }
        rc = sim->nops->create(&sim->net, sim->eng, sim->t, &cb, sim->cap_GBps,
                               sim->bw_scale, sim->use_pair ? &pair : NULL, err);
        if (rc < 0)
            return rc;
    }
    rc = cs_engine_run(sim->eng, CS_TIME_MAX, err);
    if (rc < 0)
        return rc;
    for (i = 0; i < sim->n_jobs; i++) {
        cs_job *job = sim->jobs[i];
        if (!job->done)
            return cs_err_set(err, CS_ESTATE, NULL, "job %d (%s %s): %u of %u operations "
                              "never ran", i, cs_coll_name(job->s->coll), job->s->algo,
                              cs_sched_n_ops(job->s) - job->n_done, cs_sched_n_ops(job->s));
        if (job->check)
            job->wrong = cs__check_wrong(job->check);
    }
    return 0;
}
