/* timeline.c: the run recorder behind timelines and traces (plots layer). The executor's
 * observer (sim/exec.h) reports ready, start, done and reduce-done per operation; this keeps
 * one cs_tl_op per operation and derives per-link utilisation from the routes. */
#include "plots/timeline-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs_timeline_new(cs_timeline **out, const cs_topo *topo)
{
    cs_timeline *tl = calloc(1, sizeof *tl);
    *out = NULL;
    if (!tl)
        return CS_ENOMEM;
    tl->topo = topo;
    tl->color_by = CS_TL_COLOR_STEP;
    tl->link_lanes = 4;
    *out = tl;
    return 0;
}

void cs_timeline_free(cs_timeline *tl)
{
    int j;
    if (!tl)
        return;
    for (j = 0; j < tl->n_jobs; j++)
        free(tl->job_ops[j]);
    free(tl->job_ops);
    free(tl->job_n);
    free(tl->ops);
    free(tl->title);
    free(tl);
}

/* The slot of (job, xfer) in ops, creating the job map and the record as needed; -1 if
 * memory ran out. */
static int op_slot(cs_timeline *tl, const cs_obs_event *ev)
{
    int j = ev->job_index;
    int32_t *map;
    cs_tl_op *op;
    const cs_sched *s = cs_job_sched(ev->job);
    if (j >= tl->n_jobs) {
        int32_t **nj = realloc(tl->job_ops, (size_t)(j + 1) * sizeof *nj);
        uint32_t *nn;
        if (!nj)
            return -1;
        tl->job_ops = nj;
        if (!(nn = realloc(tl->job_n, (size_t)(j + 1) * sizeof *nn)))
            return -1;
        tl->job_n = nn;
        for (; tl->n_jobs <= j; tl->n_jobs++) {
            tl->job_ops[tl->n_jobs] = NULL;
            tl->job_n[tl->n_jobs] = 0;
        }
    }
    if (!tl->job_ops[j]) {
        uint32_t i;
        if (!(tl->job_ops[j] = malloc((size_t)(s->n_xfers ? s->n_xfers : 1) * sizeof(int32_t))))
            return -1;
        for (i = 0; i < s->n_xfers; i++)
            tl->job_ops[j][i] = -1;
        tl->job_n[j] = s->n_xfers;
    }
    map = tl->job_ops[j];
    if (ev->xfer >= tl->job_n[j])
        return -1;
    if (map[ev->xfer] >= 0)
        return map[ev->xfer];
    if (tl->n_ops == tl->cap_ops) {
        int cap = tl->cap_ops ? tl->cap_ops * 2 : 256;
        cs_tl_op *no = realloc(tl->ops, (size_t)cap * sizeof *no);
        if (!no)
            return -1;
        tl->ops = no;
        tl->cap_ops = cap;
    }
    op = &tl->ops[tl->n_ops];
    memset(op, 0, sizeof *op);
    op->src = ev->src_rank >= 0 ? ev->src_rank : tl->topo->n_ranks + (ev->x->src - s->n_ranks);
    op->dst = ev->dst_rank >= 0 ? ev->dst_rank : tl->topo->n_ranks + (ev->x->dst - s->n_ranks);
    op->src_node = ev->src_node;
    op->dst_node = ev->dst_node;
    op->step = ev->x->step;
    op->chunk = ev->x->n_chunks ? (int32_t)cs_sched_chunks(s, ev->xfer)[0] : -1;
    op->job = j;
    op->xfer = ev->xfer;
    op->pipe = ev->x->pipe;
    op->op = ev->x->op;
    op->channel = ev->x->channel;
    op->bytes = ev->x->op == CS_OP_COMPUTE ? 0 : ev->x->bytes;
    op->ready_ps = op->start_ps = op->done_ps = op->reduce_done_ps = -1;
    map[ev->xfer] = tl->n_ops;
    return tl->n_ops++;
}

void cs_timeline_observer(void *ctx, const cs_obs_event *ev)
{
    cs_timeline *tl = ctx;
    cs_tl_op *op;
    int k;
    if (tl->status || ev->kind == CS_OBS_JOB_DONE || !ev->x)
        return;
    if ((k = op_slot(tl, ev)) < 0) {
        tl->status = CS_ENOMEM;
        return;
    }
    op = &tl->ops[k];
    switch (ev->kind) {
    case CS_OBS_XFER_READY:
        op->ready_ps = ev->t_ps;
        break;
    case CS_OBS_XFER_START:
    case CS_OBS_COMPUTE_START:
        op->start_ps = ev->t_ps;
        if (op->ready_ps < 0)
            op->ready_ps = ev->t_ps;
        break;
    case CS_OBS_XFER_DONE:
    case CS_OBS_COMPUTE_DONE:
        op->done_ps = ev->t_ps;
        break;
    case CS_OBS_REDUCE_DONE:
        op->reduce_done_ps = ev->t_ps;
        break;
    default:
        break;
    }
}

int cs_timeline_check(const cs_timeline *tl, cs_err *err)
{
    if (tl->status)
        return cs_err_set(err, tl->status, "timeline", "out of memory while recording the run");
    return 0;
}

void cs_timeline_set_costs(cs_timeline *tl, const cs_sim_costs *costs)
{
    tl->has_costs = costs != NULL;
    if (costs)
        tl->costs = *costs;
}

int cs_timeline_run(cs_timeline *tl, const cs_sched *s, cs_time *t_ps, cs_err *err)
{
    cs_sim *sim = NULL;
    cs_job *job = NULL;
    cs_sim_opts so = {1, 0, tl->has_costs ? &tl->costs : NULL};
    int rc = cs_sim_new(&sim, tl->topo, &so, err);
    if (!rc)
        rc = cs_sim_add(sim, s, NULL, 0, &job, err);
    if (!rc) {
        cs_sim_set_observer(sim, cs_timeline_observer, tl);
        rc = cs_sim_run(sim, err);
    }
    if (!rc && t_ps)
        *t_ps = cs_job_end(job);
    cs_sim_free(sim);
    return rc ? rc : cs_timeline_check(tl, err);
}

const cs_tl_op *cs_timeline_ops(const cs_timeline *tl, int *n)
{
    *n = tl->n_ops;
    return tl->ops;
}

const cs_topo *cs_timeline_topo(const cs_timeline *tl)
{
    return tl->topo;
}

cs_time cs_timeline_end(const cs_timeline *tl)
{
    cs_time end = 0;
    int i;
    for (i = 0; i < tl->n_ops; i++) {
        if (tl->ops[i].done_ps > end)
            end = tl->ops[i].done_ps;
        if (tl->ops[i].reduce_done_ps > end)
            end = tl->ops[i].reduce_done_ps;
    }
    return end;
}

int cs_timeline_set_title(cs_timeline *tl, const char *title)
{
    char *t = NULL;
    if (title && !(t = strdup(title)))
        return CS_ENOMEM;
    free(tl->title);
    tl->title = t;
    return 0;
}

void cs_timeline_set_color(cs_timeline *tl, cs_tl_color by)
{
    tl->color_by = by;
}

void cs_timeline_set_link_lanes(cs_timeline *tl, int n)
{
    tl->link_lanes = n < 0 ? 0 : n;
}

int cs_tl_color_lookup(const char *name, cs_tl_color *out, cs_err *err)
{
    if (!strcmp(name, "step"))
        return *out = CS_TL_COLOR_STEP, 0;
    if (!strcmp(name, "chunk"))
        return *out = CS_TL_COLOR_CHUNK, 0;
    return cs_err_set(err, CS_ENOENT, "--color", "unknown colouring '%s' (known: step, chunk)", name);
}

int cs__tl_route(const cs_timeline *tl, const cs_tl_op *op, const int32_t **dlinks, cs_err *err)
{
    const cs_topo *t = tl->topo;
    *dlinks = NULL;
    if (t->model == CS_MODEL_ALPHA_BETA || op->op == CS_OP_COMPUTE || op->src == op->dst)
        return 0;
    if (op->src_node < 0 || op->src_node >= t->n_nodes || op->dst_node < 0 ||
        op->dst_node >= t->n_nodes)
        return cs_err_set(err, CS_EINVAL, "timeline", "node %d or %d outside the topology's %d "
                          "nodes", op->src_node, op->dst_node, t->n_nodes);
    return cs_topo_route(t, op->src_node, op->dst_node, dlinks, err);
}

cs_time cs__tl_flow_start(const cs_timeline *tl, const cs_tl_op *op, const int32_t *dl, int n)
{
    cs_time t = op->start_ps + cs_time_from_us(cs_topo_route_lat_us(tl->topo, dl, n));
    return t < op->done_ps ? t : op->done_ps;
}

cs_time cs__tl_reduce_start(const cs_timeline *tl, const cs_tl_op *op)
{
    cs_time t;
    if (op->reduce_done_ps < 0)
        return -1;
    t = tl->topo->reduce_GBps > 0 ? op->reduce_done_ps -
        cs_time_for_bytes((double)op->bytes, tl->topo->reduce_GBps) : op->reduce_done_ps;
    return t > op->done_ps ? t : op->done_ps;
}

void cs__tl_dlink_name(const cs_topo *t, int32_t dlink, char *buf, size_t len)
{
    const cs_link *l = &t->links[cs_dlink_link(dlink)];
    snprintf(buf, len, "%s\xe2\x86\x92%s %s", t->nodes[cs_dlink_from(t, dlink)].name,
             t->nodes[cs_dlink_to(t, dlink)].name, l->cls ? l->cls : "");
}

/* A rate change on a link: at t_ps the summed rate changes by d (bytes/ps). */
typedef struct rate_ev { cs_time t_ps; double d; } rate_ev;

static int cmp_rate_ev(const void *a, const void *b)
{
    const rate_ev *x = a, *y = b;
    if (x->t_ps != y->t_ps)
        return x->t_ps < y->t_ps ? -1 : 1;
    return (x->d > y->d) - (x->d < y->d);   /* ends (negative) first */
}

int cs__tl_link_util(const cs_timeline *tl, int32_t dlink, cs_time **t_out, double **u_out,
                     int *n_out, cs_err *err)
{
    const cs_topo *t = tl->topo;
    double cap = t->links[cs_dlink_link(dlink)].bw_GBps / 1000.0;   /* bytes per ps */
    rate_ev *ev = NULL;
    int n_ev = 0, cap_ev = 0, i, k, rc = 0;
    cs_time *tt;
    double *uu, sum = 0;
    *t_out = NULL;
    *u_out = NULL;
    *n_out = 0;
    for (i = 0; i < tl->n_ops; i++) {
        const cs_tl_op *op = &tl->ops[i];
        const int32_t *dl;
        int n = cs__tl_route(tl, op, &dl, err);
        cs_time f0;
        if (n < 0) {
            free(ev);
            return n;
        }
        for (k = 0; k < n && dl[k] != dlink; k++)
            ;
        if (k == n || op->done_ps < 0 || op->start_ps < 0)
            continue;
        f0 = cs__tl_flow_start(tl, op, dl, n);
        if (op->done_ps <= f0)
            continue;
        if (n_ev + 2 > cap_ev) {
            rate_ev *ne;
            cap_ev = cap_ev ? cap_ev * 2 : 64;
            if (!(ne = realloc(ev, (size_t)cap_ev * sizeof *ne))) {
                free(ev);
                return cs_err_set(err, CS_ENOMEM, "timeline", "out of memory");
            }
            ev = ne;
        }
        ev[n_ev].t_ps = f0;
        ev[n_ev++].d = (double)op->bytes / (double)(op->done_ps - f0);
        ev[n_ev].t_ps = op->done_ps;
        ev[n_ev++].d = -(double)op->bytes / (double)(op->done_ps - f0);
    }
    if (n_ev == 0) {
        free(ev);
        return 0;
    }
    qsort(ev, (size_t)n_ev, sizeof *ev, cmp_rate_ev);
    tt = malloc((size_t)n_ev * sizeof *tt);
    uu = malloc((size_t)n_ev * sizeof *uu);
    if (!tt || !uu) {
        free(tt);
        free(uu);
        free(ev);
        return cs_err_set(err, CS_ENOMEM, "timeline", "out of memory");
    }
    for (i = 0, k = 0; i < n_ev; i++) {
        sum += ev[i].d;
        if (i + 1 < n_ev && ev[i + 1].t_ps == ev[i].t_ps)
            continue;   /* one point per distinct time */
        tt[k] = ev[i].t_ps;
        uu[k++] = sum > 1e-12 * cap ? sum / cap : 0;
    }
    free(ev);
    *t_out = tt;
    *u_out = uu;
    *n_out = k;
    return rc;
}

/* Busy time at full rate (bytes / bandwidth) per directed link, for ranking: the links that
 * limit a run, not merely the ones that carry the most. */
int cs_timeline_busiest_links(const cs_timeline *tl, int n, int32_t *ids, cs_err *err)
{
    const cs_topo *t = tl->topo;
    int n_dl = 2 * t->n_links, i, k, m = 0;
    double *bytes;
    if (n <= 0 || t->model == CS_MODEL_ALPHA_BETA || n_dl == 0)
        return 0;
    if (!(bytes = calloc((size_t)n_dl, sizeof *bytes)))
        return cs_err_set(err, CS_ENOMEM, "timeline", "out of memory");
    for (i = 0; i < tl->n_ops; i++) {
        const int32_t *dl;
        int nr = cs__tl_route(tl, &tl->ops[i], &dl, err);
        if (nr < 0) {
            free(bytes);
            return nr;
        }
        for (k = 0; k < nr; k++)
            bytes[dl[k]] += (double)tl->ops[i].bytes / t->links[cs_dlink_link(dl[k])].bw_GBps;
    }
    /* Selection of the n largest, ties to the lower id: n is small. */
    for (m = 0; m < n; m++) {
        int best = -1;
        for (i = 0; i < n_dl; i++)
            if (bytes[i] > 0 && (best < 0 || bytes[i] > bytes[best]))
                best = i;
        if (best < 0)
            break;
        ids[m] = best;
        bytes[best] = -1;
    }
    free(bytes);
    return m;
}
