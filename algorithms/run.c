/* run.c: running collectives the way `collsim run` does (algorithms layer): nccl-tests'
 * size loop, one size on the bare fabric (named algorithm or auto) or in NCCL mode
 * (algorithms/nccl/mode.h), the busiest links of a size, and a sweep into a report. */
#include "algorithms/run.h"
#include "algorithms/nccl/mode.h"
#include "sim/par.h"
#include "sim/size.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* The busiest directed links of one simulated size. */
#define RUN_MAX_LINKS CS_SWEEP_MAX_LINKS
typedef struct cs_run_links {
    int n;                                  /* entries filled */
    int32_t dlink[RUN_MAX_LINKS];           /* directed link ids, busiest first */
    cs_link_stats st[RUN_MAX_LINKS];        /* their statistics */
    cs_time span_ps;                        /* duration of the collective, ps */
    uint64_t size_bytes;                    /* the size they belong to */
} cs_run_links;

void cs_run_cfg_init(cs_run_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->algo = "auto";
    cfg->chunks = 1;
    cfg->servers = 1;
    cfg->check = 1;
}

/* Utilisation of a directed link: bytes carried / (capacity x collective time). */
static double util_of(const cs_topo *t, int32_t d, const cs_link_stats *st, cs_time span_ps)
{
    double cap_bytes = t->links[cs_dlink_link(d)].bw_GBps * 1e-3 * (double)span_ps;
    return cap_bytes > 0 ? st->bytes / cap_bytes : 0;
}

/* Keep the busiest directed links of a finished simulation (st, NULL = none): by
 * utilisation, then bytes. */
static void take_links(const cs_link_stats *st, const cs_topo *t, cs_time span_ps, uint64_t S,
                       cs_run_links *out)
{
    int d, k;
    out->n = 0;
    out->span_ps = span_ps;
    out->size_bytes = S;
    if (!st)
        return;
    for (d = 0; d < 2 * t->n_links; d++) {
        double u = util_of(t, d, &st[d], span_ps);
        if (st[d].bytes <= 0)
            continue;
        for (k = out->n; k > 0; k--) {
            double uo = util_of(t, out->dlink[k - 1], &out->st[k - 1], span_ps);
            if (uo > u || (uo == u && out->st[k - 1].bytes >= st[d].bytes))
                break;
            if (k < RUN_MAX_LINKS) {
                out->st[k] = out->st[k - 1];
                out->dlink[k] = out->dlink[k - 1];
            }
        }
        if (k < RUN_MAX_LINKS) {
            out->st[k] = st[d];
            out->dlink[k] = d;
            if (out->n < RUN_MAX_LINKS)
                out->n++;
        }
    }
}

/* A table row: size S bytes (count elements) in time_us with wrong ranks, by algorithm. */
static void row_set(cs_row *row, uint64_t S, uint64_t count, double time_us, int wrong,
                    const char *algorithm)
{
    memset(row, 0, sizeof *row);
    row->size_bytes = S;
    row->count = count;
    row->time_us = time_us;
    row->wrong = wrong;
    row->algorithm = algorithm;
}

/* Simulate s alone on t with link statistics into links (S bytes per rank moved): its end
 * (*t_ps) and wrong ranks (*wrong) when asked (may be NULL). A folded schedule (one rank
 * for all, turned) has its statistics unfolded to every link. Returns 0, 1 when the fold's
 * statistics cannot be unfolded exactly (build s unfolded and run again) or a negative
 * code. */
static int run_links(const cs_topo *t, const cs_sim_opts *so, cs_sched *s, uint64_t S,
                     cs_run_links *links, cs_time *t_ps, int *wrong, cs_err *err)
{
    cs_sim *sim;
    cs_job *job;
    cs_link_stats *full = NULL;
    int rc = cs_sim_new(&sim, t, so, err);
    if (rc == 0 && (rc = cs_sim_add(sim, s, NULL, 0, &job, err)) == 0 &&
        (rc = cs_sim_run(sim, err)) == 0) {
        const cs_link_stats *st = cs_sim_link_stats(sim);
        if (t_ps)
            *t_ps = cs_job_end(job);
        if (wrong)
            *wrong = cs_job_wrong(job);
        if (st && s->one_rank && s->turns) {
            if (!(full = malloc((size_t)t->n_links * 2 * sizeof *full)))
                rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            else if ((rc = cs_sim_link_stats_unfold(t, s, st, full)) < 0)
                cs_err_set(err, rc, NULL, "out of memory");
            else
                rc = !rc;
            st = full;
        }
        if (rc == 0)
            take_links(st, t, cs_job_end(job), S, links);
    }
    free(full);
    cs_sim_free(sim);
    return rc;
}

/* "sw0->sw1 (net, 10 GB/s): 100.0% utilised, 2147483648 B (2 GiB), peak 2 flows": bytes
 * as an exact integer with the binary unit beside it. */
static void link_line(const cs_topo *t, const cs_run_links *L, int k, char *buf, size_t n)
{
    int32_t d = L->dlink[k];
    const cs_link *l = &t->links[cs_dlink_link(d)];
    char human[32];
    uint64_t bytes = (uint64_t)llround(L->st[k].bytes);
    snprintf(buf, n, "%s->%s (%s, %g GB/s): %.1f%% utilised, %llu B (%s), peak %d flows",
             t->nodes[cs_dlink_from(t, d)].name, t->nodes[cs_dlink_to(t, d)].name, l->cls,
             l->bw_GBps, 100.0 * util_of(t, d, &L->st[k], L->span_ps),
             (unsigned long long)bytes, cs_format_bytes(bytes, human, sizeof human),
             L->st[k].peak_flows);
}

/* The request for one size of the sweep (S and nccl-tests' count from the size). NCCL mode
 * sets chunks and channels itself; here they are the options'. */
static void make_req(const cs_run_cfg *o, const cs_topo *t, cs_coll coll, int p, int elt,
                     uint64_t size, cs_coll_req *req, uint64_t *count, uint64_t *S)
{
    cs_nccl_sizes(coll, p, elt, size, count, S);
    cs_coll_req_init(req, coll, p, *S);
    req->root = cs_coll_is_rooted(coll) ? o->root : 0;
    req->elt_bytes = elt;
    req->chunks = o->chunks;
    req->servers = o->servers;
    req->channels = o->channels ? o->channels : 1;
    req->topo = t;
}

/* NCCL mode: NCCL's algorithms (or --algo) and protocols (or --proto), the fastest kept,
 * with launch, per-transfer latency, bandwidth efficiency and chunking from the table.
 * With sched (--links, --trace) the winner's schedule and costs are built there too. */
static int pick_nccl(const cs_run_cfg *o, const cs_topo *t, cs_coll coll, int p, int elt,
                     uint64_t size, cs_nccl_pick *pick, cs_sched *sched, cs_sim_costs *costs,
                     cs_coll_req *built, cs_err *err)
{
    cs_coll_req req;
    const cs_algo *ops = NULL;
    uint64_t count, S;
    int rc;
    make_req(o, t, coll, p, elt, size, &req, &count, &S);
    if (strcmp(o->algo, "auto") && (rc = cs_algo_lookup(o->algo, coll, &ops, err)) < 0)
        return rc;
    if ((rc = cs_nccl_simulate(&req, t, ops, o->nccl, o->check, pick, err)) < 0)
        return rc;
    return sched ? cs_nccl_build(&req, o->nccl, pick, sched, costs, built, err) : 0;
}

static int run_size_nccl(const cs_run_cfg *o, const cs_topo *t, cs_coll coll, int p, int elt,
                         uint64_t size, cs_row *row, cs_run_links *links, cs_err *err)
{
    cs_nccl_pick pick;
    cs_sched s;
    cs_sim_costs costs;
    uint64_t count, S;
    int rc;
    cs_nccl_sizes(coll, p, elt, size, &count, &S);
    if ((rc = pick_nccl(o, t, coll, p, elt, size, &pick, links ? &s : NULL, &costs, NULL,
                        err)) < 0)
        return rc;
    if (links) {
        /* The winner again, for its link statistics. */
        cs_sim_opts so = {0, 0, &costs};
        rc = run_links(t, &so, &s, S, links, NULL, NULL, err);
        cs_sched_fini(&s);
        if (rc < 0)
            return rc;
    }
    row_set(row, S, count, pick.time_us, pick.wrong, pick.algo->name);
    row->protocol = cs_proto_name(pick.proto);
    row->channels = pick.channels;
    return 0;
}

/* The algorithm's closed form beside the simulated time, where it is exact: the bare
 * alpha_beta fabric and a formula without the '~' of an estimate. */
static void closed_form(const cs_algo *ops, const cs_coll_req *req, const cs_topo *t,
                        cs_row *row)
{
    const char *f = ops->formula ? ops->formula(req) : NULL;
    cs_ab ab;
    double c;
    if (t->model != CS_MODEL_ALPHA_BETA || !ops->cost || !f || f[0] == '~')
        return;
    cs_ab_from_topo(t, &ab);
    c = ops->cost(req, &ab);
    if (isfinite(c)) {
        row->has_closed_form = 1;
        row->closed_form_us = c * 1e6;
    }
}

static int run_size_links(const cs_run_cfg *o, const cs_topo *t, cs_coll coll, int p, int elt,
                    uint64_t size, cs_row *row, cs_run_links *links, cs_err *err)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_sim_opts so = {o->check, 0, NULL};
    cs_time t_ps;
    int wrong, rc;
    uint64_t count, S;
    if (o->nccl)
        return run_size_nccl(o, t, coll, p, elt, size, row, links, err);
    make_req(o, t, coll, p, elt, size, &req, &count, &S);
    req.stream = 1;     /* run once for its time, #wrong and link statistics */
    req.time_only = links ? CS_REQ_LINKS : o->check ? CS_REQ_TIME_WRONG : CS_REQ_TIME;
    if (!strcmp(o->algo, "auto"))
        rc = cs_algo_auto(&req, t, &ops, NULL, err);
    else
        rc = cs_algo_lookup(o->algo, coll, &ops, err);
    if (rc < 0)
        return rc;
    rc = cs_algo_build(ops, &req, &s, err);
    if (rc < 0)
        return rc;
    if (links && (rc = run_links(t, &so, &s, S, links, &t_ps, &wrong, err)) == 1) {
        cs_sched_fini(&s);              /* the fold's links not exact: every rank runs */
        req.time_only = 0;
        if ((rc = cs_algo_build(ops, &req, &s, err)) < 0)
            return rc;
        rc = run_links(t, &so, &s, S, links, &t_ps, &wrong, err);
    } else if (!links)
        rc = cs_sim_once(t, &s, NULL, &so, &t_ps, &wrong, err);
    cs_sched_fini(&s);
    if (rc < 0)
        return rc;
    row_set(row, S, count, cs_time_to_us(t_ps), wrong, ops->name);
    closed_form(ops, &req, t, row);
    return 0;
}

int cs_run_sizes(uint64_t min_bytes, uint64_t max_bytes, long step_factor,
                 uint64_t step_bytes, uint64_t **out, int *n, cs_err *err)
{
    int cap = 64, k = 0;
    uint64_t s = min_bytes;
    uint64_t *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (;;) {
        if (k == 100000) {
            free(v);
            return cs_err_set(err, CS_EUSAGE, "-i", "the sweep has more than 100000 sizes");
        }
        if (k == cap) {
            uint64_t *nv = realloc(v, (size_t)(cap *= 2) * sizeof *nv);
            if (!nv) {
                free(v);
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            }
            v = nv;
        }
        v[k++] = s;
        if (step_factor) {
            uint64_t nx = s ? s * (uint64_t)step_factor : 1;
            if (s && nx / (uint64_t)step_factor != s)
                break;
            s = nx;
        } else {
            if (s + step_bytes < s)
                break;
            s += step_bytes;
        }
        if (s > max_bytes)
            break;
    }
    *out = v;
    *n = k;
    return 0;
}

void cs_run_model_line(const cs_topo *t, const cs_nccl_params *np, int ranks, char *buf,
                       size_t n)
{
    if (t->model == CS_MODEL_ALPHA_BETA) {
        snprintf(buf, n, "alpha_beta single-port, a = %g us, b = 1/(%g GB/s)%s", t->ab_lat_us,
                 t->ab_bw_GBps, t->reduce_GBps > 0 ? ", with reduction cost" : "");
    } else {
        snprintf(buf, n, "fluid max-min fair links, %d nodes, %d links", t->n_nodes, t->n_links);
    }
    if (np && ranks >= 2 && ranks <= np->plan_n && np->plan_ch[ranks]) {
        /* a PCIe host's channels: NCCL's ring search, per rank count (search.c) */
        int r = ranks;
        cs_nccl_params local;
        const cs_nccl_params *q = cs_nccl_with_plan(np, r, &local);
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "; NCCL mode (table %s, launch %g us, protocol %s, "
                 "channels from NCCL's channel plan for this host: %d of %g GB/s at %d "
                 "ranks, fewer for small sizes)", np->version, np->launch_us,
                 np->force_proto >= 0 ? cs_proto_name((cs_proto)np->force_proto) : "by time",
                 q->channels, q->channel_GBps, r);
    } else if (np) {
        char cap[96] = "";
        size_t len = strlen(buf);
        if (np->channel_GBps > 0)
            snprintf(cap, sizeof cap, ", at most %g GB/s each", np->channel_GBps);
        if (np->tree_GBps > 0)
            snprintf(cap + strlen(cap), sizeof cap - strlen(cap),
                     ", trees across nodes %g GB/s a direction", np->tree_GBps);
        snprintf(buf + len, n - len,
                 "; NCCL mode (table %s, launch %g us, protocol %s, %d channel%s%s)",
                 np->version, np->launch_us,
                 np->force_proto >= 0 ? cs_proto_name((cs_proto)np->force_proto) : "by time",
                 np->channels, np->channels > 1 ? "s, fewer for small sizes" : "", cap);
    }
}

int cs_run_ranks(const cs_topo *t, long ranks, cs_coll coll, long root, int *p, cs_err *err)
{
    *p = ranks ? (int)ranks : t->n_ranks;
    if (*p > t->n_ranks)
        return cs_err_set(err, CS_EUSAGE, "-g", "%d ranks requested but topology '%s' has %d",
                          *p, t->name, t->n_ranks);
    if (cs_coll_is_rooted(coll) && root >= *p)
        return cs_err_set(err, CS_EUSAGE, "-r", "root must be between 0 and %d, got %ld",
                          *p - 1, root);
    return 0;
}

int cs_run_size(const cs_run_cfg *cfg, const cs_topo *t, cs_coll coll, int p, int elt,
                uint64_t size, cs_row *row, cs_err *err)
{
    return run_size_links(cfg, t, coll, p, elt, size, row, NULL, err);
}

/* One item of a distributed sweep, a size of one sweep, as plain data (sim/par.h): the
 * row with its two static strings as indices (a pointer means nothing in another
 * process), and the busiest links. */
typedef struct run_out {
    cs_row row;                   /* algorithm and protocol NULL here */
    int32_t algo;                 /* index in cs_algo_all() */
    int32_t proto;                /* cs_proto, -1 on the bare fabric */
    cs_run_links links;           /* the busiest links (the last size, with links) */
} run_out;

typedef struct run_items {
    const cs_run_task *tasks;
    int *task_of, *size_of;       /* item -> its sweep, its size index */
} run_items;

/* A barrier has no size: it runs once, at 0 bytes. */
static const uint64_t no_bytes[1] = {0};
static const uint64_t *task_sizes(const cs_run_task *tk, int *n)
{
    *n = tk->sw->coll == CS_COLL_BARRIER ? 1 : tk->n_sizes;
    return tk->sw->coll == CS_COLL_BARRIER ? no_bytes : tk->sizes;
}

static int run_item(void *ctx, int i, void *out, cs_err *err)
{
    const run_items *r = ctx;
    const cs_run_task *tk = &r->tasks[r->task_of[i]];
    const cs_algo *const *all;
    run_out *o = out;
    cs_row row;
    int k = r->size_of[i], n, a, rc, n_sizes;
    const uint64_t *sizes = task_sizes(tk, &n_sizes);
    if ((rc = run_size_links(tk->cfg, tk->t, tk->sw->coll, tk->p, tk->elt, sizes[k], &row,
                             tk->links && k == n_sizes - 1 ? &o->links : NULL, err)) < 0)
        return rc;
    o->row = row;
    o->row.algorithm = o->row.protocol = NULL;
    o->proto = -1;
    for (a = 0; a < CS_PROTO_COUNT; a++)
        if (row.protocol && !strcmp(row.protocol, cs_proto_name((cs_proto)a)))
            o->proto = a;
    all = cs_algo_all(&n);
    for (a = 0; a < n && all[a]->name != row.algorithm; a++)
        ;
    if (a == n)      /* every algorithm that runs is registered (algorithms/registry.c) */
        return cs_err_set(err, CS_ESTATE, NULL, "algorithm '%s' is not in the registry",
                          row.algorithm ? row.algorithm : "(none)");
    o->algo = a;
    return 0;
}

/* Simulation work grows with the size until NCCL-style chunking saturates: about one unit
 * per doubling past 64 KiB (measured on dgx-h100, 8 B - 1 GiB: 0.01 - 0.07 s). */
static double size_cost(uint64_t S)
{
    return 1.0 + log2(1.0 + (double)S / 65536.0);
}

/* The busiest links of a sweep's largest size into its report. */
static void put_links(const cs_topo *t, const cs_run_links *L, cs_run_task *tk)
{
    cs_sweep *sw = tk->sw;
    int i;
    if (t->model == CS_MODEL_ALPHA_BETA) {
        sw->bottleneck = "none: alpha_beta has no links (single-port model)";
    } else if (L->n > 0) {
        link_line(t, L, 0, tk->bottleneck, tk->bn);
        sw->bottleneck = tk->bottleneck;
    }
    sw->n_links = L->n;
    for (i = 0; i < L->n && i < CS_SWEEP_MAX_LINKS; i++) {
        int32_t d = L->dlink[i];
        const cs_link *l = &t->links[cs_dlink_link(d)];
        cs_link_report *lr = &sw->links[i];
        lr->from = t->nodes[cs_dlink_from(t, d)].name;
        lr->to = t->nodes[cs_dlink_to(t, d)].name;
        lr->cls = l->cls;
        lr->bw_GBps = l->bw_GBps;
        lr->bytes = L->st[i].bytes;
        lr->busy_fraction = L->span_ps > 0 ? (double)L->st[i].busy_ps / (double)L->span_ps : 0;
        lr->utilisation = util_of(t, d, &L->st[i], L->span_ps);
        lr->peak_flows = L->st[i].peak_flows;
    }
    sw->links_size_bytes = L->size_bytes;
}

int cs_run_sweeps(cs_run_task *tasks, int n_tasks, cs_err *err)
{
    run_items r = {tasks, NULL, NULL};
    cs_par_job job;
    run_out *res = NULL;
    double *cost = NULL;
    const cs_algo *const *all;
    int i, k, m, n = 0, n_algos, rc = 0;
    for (k = 0; k < n_tasks; k++) {
        task_sizes(&tasks[k], &m);
        n += m;
    }
    all = cs_algo_all(&n_algos);
    r.task_of = malloc(((size_t)n + 1) * sizeof *r.task_of);
    r.size_of = malloc(((size_t)n + 1) * sizeof *r.size_of);
    cost = malloc(((size_t)n + 1) * sizeof *cost);
    res = calloc((size_t)n + 1, sizeof *res);
    if (!r.task_of || !r.size_of || !cost || !res) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (k = 0, n = 0; k < n_tasks; k++) {
        const uint64_t *sizes = task_sizes(&tasks[k], &m);
        for (i = 0; i < m; i++, n++) {
            r.task_of[n] = k;
            r.size_of[n] = i;
            cost[n] = size_cost(sizes[i]) * (double)tasks[k].p;
        }
    }
    memset(&job, 0, sizeof job);
    job.n_items = n;
    job.cost = cost;
    job.out_bytes = sizeof *res;
    job.run = run_item;
    job.ctx = &r;
    job.to_all = 1;
    job.label = "run";
    if ((rc = cs_par_map(&job, res, err)) < 0)
        goto out;
    for (i = 0; i < n; i++) {
        cs_run_task *tk = &tasks[r.task_of[i]];
        const run_out *o = &res[i];
        cs_row row = o->row;
        row.algorithm = o->algo >= 0 && o->algo < n_algos ? all[o->algo]->name : NULL;
        row.protocol = o->proto >= 0 ? cs_proto_name((cs_proto)o->proto) : NULL;
        if ((rc = cs_sweep_add(tk->sw, &row)) < 0) {
            cs_err_set(err, rc, NULL, "out of memory");
            goto out;
        }
        task_sizes(tk, &m);
        if (tk->links && r.size_of[i] == m - 1)
            put_links(tk->t, &o->links, tk);
    }
out:
    free(r.task_of);
    free(r.size_of);
    free(cost);
    free(res);
    return rc;
}

int cs_run_sweep(const cs_run_cfg *cfg, const cs_topo *t, int p, int elt,
                 const uint64_t *sizes, int n_sizes, int links, cs_sweep *sw,
                 char *bottleneck, size_t bn, cs_err *err)
{
    cs_run_task tk = {cfg, t, p, elt, sw, sizes, n_sizes, links, bottleneck, bn};
    return cs_run_sweeps(&tk, 1, err);
}

/* nccl-tests' tests in the order of its README, then barrier (no nccl-tests binary). */
static const cs_coll all_colls[] = {
    CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER, CS_COLL_REDUCESCATTER, CS_COLL_BROADCAST,
    CS_COLL_REDUCE, CS_COLL_GATHER, CS_COLL_SCATTER, CS_COLL_ALLTOALL, CS_COLL_SENDRECV,
    CS_COLL_BARRIER,
};

const cs_coll *cs_run_all_colls(int *n)
{
    *n = (int)(sizeof all_colls / sizeof all_colls[0]);
    return all_colls;
}

void cs_run_header(cs_sweep *sw, cs_coll coll, const char *algo, const cs_topo *t,
                   const char *datatype, const char *redop, int ranks, int root, int chunks,
                   const char *model)
{
    sw->coll = coll;
    sw->algorithm = algo;
    sw->topology = t->name;
    sw->topo_kind = t->kind;
    sw->datatype = datatype;
    sw->redop = (coll == CS_COLL_ALLREDUCE || coll == CS_COLL_REDUCE ||
                 coll == CS_COLL_REDUCESCATTER) ? redop : "none";
    sw->ranks = ranks;
    sw->root = cs_coll_is_rooted(coll) ? root : -1;
    sw->chunks = chunks;
    sw->model = model;
}

int cs_run_choose(const cs_run_cfg *cfg, const cs_topo *t, cs_coll coll, int p, int elt,
                  uint64_t size, cs_run_choice *ch, cs_sched *s, cs_sim_costs *costs,
                  cs_err *err)
{
    uint64_t count, S;
    int rc;
    memset(costs, 0, sizeof *costs);
    memset(ch, 0, sizeof *ch);
    ch->time_us = NAN;
    if (cfg->nccl) {
        cs_nccl_pick pick;
        if ((rc = pick_nccl(cfg, t, coll, p, elt, size, &pick, s, costs, &ch->req, err)) < 0)
            return rc;
        ch->algo = pick.algo;
        ch->protocol = cs_proto_name(pick.proto);
        ch->time_us = pick.time_us;
        return 0;
    }
    make_req(cfg, t, coll, p, elt, size, &ch->req, &count, &S);
    rc = !strcmp(cfg->algo, "auto") ? cs_algo_auto(&ch->req, t, &ch->algo, NULL, err)
                                    : cs_algo_lookup(cfg->algo, coll, &ch->algo, err);
    return rc < 0 ? rc : cs_algo_build(ch->algo, &ch->req, s, err);
}

int cs_run_schedule(const cs_run_cfg *cfg, const cs_topo *t, cs_coll coll, int p, int elt,
                    uint64_t size, cs_sched *s, cs_sim_costs *costs, cs_err *err)
{
    cs_run_choice ch;
    return cs_run_choose(cfg, t, coll, p, elt, size, &ch, s, costs, err);
}
