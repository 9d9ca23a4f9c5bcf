/* trace.c: Chrome/Perfetto trace-event JSON from a recorded run (plots layer). One process
 * per rank with send/recv/reduce/compute tracks, one "links" process with a track per used
 * directed link; transfers are "X" slices (ts/dur in microseconds) and "s"/"f" flow arrows
 * join each send to its receive. Slices that overlap on a track spill onto extra tracks,
 * so every track nests properly. One event per line; written atomically. */
#include "plots/timeline-private.h"
#include "plots/canvas-private.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Track kinds within a rank, in display order; links come last. */
enum { TK_SEND, TK_RECV, TK_REDUCE, TK_COMPUTE, TK_LINK };
static const char *const kind_names[] = {"send", "recv", "reduce", "compute", "link"};

/* One slice before it is written. */
typedef struct slice {
    int pid;                  /* process: rank + 1, or n_ranks + 1 for links */
    int kind;                 /* TK_* */
    int32_t dlink;            /* directed link for TK_LINK, else -1 */
    cs_time t0, t1;           /* interval, ps */
    int op;                   /* index of the recorded operation */
    int tid;                  /* track, assigned after sorting */
} slice;

typedef struct slices {
    slice *v;
    int n, cap;
} slices;

static int push(slices *s, int pid, int kind, int32_t dlink, cs_time t0, cs_time t1, int op)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 1024;
        slice *nv = realloc(s->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return CS_ENOMEM;
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n].pid = pid;
    s->v[s->n].kind = kind;
    s->v[s->n].dlink = dlink;
    s->v[s->n].t0 = t0;
    s->v[s->n].t1 = t1 > t0 ? t1 : t0;
    s->v[s->n].op = op;
    s->v[s->n].tid = 0;
    s->n++;
    return 0;
}

static int cmp_slice(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->dlink != y->dlink)
        return x->dlink < y->dlink ? -1 : 1;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

static int collect(const cs_timeline *tl, int link_pid, slices *s, cs_err *err)
{
    int i, k;
    for (i = 0; i < tl->n_ops; i++) {
        const cs_tl_op *op = &tl->ops[i];
        const int32_t *dl;
        int n, rc = 0;
        cs_time f0;
        if (op->start_ps < 0 || op->done_ps < 0)
            continue;
        if (op->op == CS_OP_COMPUTE) {
            if (push(s, op->src + 1, TK_COMPUTE, -1, op->start_ps, op->done_ps, i))
                return cs_err_set(err, CS_ENOMEM, "trace", "out of memory");
            continue;
        }
        if ((n = cs__tl_route(tl, op, &dl, err)) < 0)
            return n;
        f0 = cs__tl_flow_start(tl, op, dl, n);
        rc |= push(s, op->src + 1, TK_SEND, -1, op->start_ps, op->done_ps, i);
        rc |= push(s, op->dst + 1, TK_RECV, -1, f0, op->done_ps, i);
        if (op->reduce_done_ps >= 0)
            rc |= push(s, op->dst + 1, TK_REDUCE, -1, cs__tl_reduce_start(tl, op),
                       op->reduce_done_ps, i);
        for (k = 0; k < n; k++)
            rc |= push(s, link_pid, TK_LINK, dl[k], f0, op->done_ps, i);
        if (rc)
            return cs_err_set(err, CS_ENOMEM, "trace", "out of memory");
    }
    return 0;
}

/* Greedy interval partitioning within each (pid, kind, dlink) group: a slice goes on the
 * first of the group's tracks that is free at its start. Track ids count up per process. */
typedef struct track { int pid, tid, kind, lane; int32_t dlink; } track;

static int assign_tracks(slices *s, track **tracks_out, int *n_tracks, cs_err *err)
{
    track *tr = NULL;
    cs_time *ends = NULL;
    int n_tr = 0, cap_tr = 0, cap_e = 0, i = 0, next_tid = 1, pid = -1;
    while (i < s->n) {
        int j = i, lanes = 0, base = n_tr;
        if (s->v[i].pid != pid) {
            pid = s->v[i].pid;
            next_tid = 1;
        }
        while (j < s->n && s->v[j].pid == s->v[i].pid && s->v[j].kind == s->v[i].kind &&
               s->v[j].dlink == s->v[i].dlink)
            j++;
        for (; i < j; i++) {
            int l;
            for (l = 0; l < lanes && ends[l] > s->v[i].t0; l++)
                ;
            if (l == lanes) {
                if (lanes == cap_e) {
                    cs_time *ne = realloc(ends, (size_t)(cap_e = cap_e ? cap_e * 2 : 16) * sizeof *ne);
                    if (!ne)
                        goto nomem;
                    ends = ne;
                }
                if (n_tr == cap_tr) {
                    track *nt = realloc(tr, (size_t)(cap_tr = cap_tr ? cap_tr * 2 : 64) * sizeof *nt);
                    if (!nt)
                        goto nomem;
                    tr = nt;
                }
                tr[n_tr].pid = s->v[i].pid;
                tr[n_tr].tid = next_tid++;
                tr[n_tr].kind = s->v[i].kind;
                tr[n_tr].lane = lanes;
                tr[n_tr].dlink = s->v[i].dlink;
                n_tr++;
                lanes++;
            }
            ends[l] = s->v[i].t1;
            s->v[i].tid = tr[base + l].tid;
        }
    }
    free(ends);
    *tracks_out = tr;
    *n_tracks = n_tr;
    return 0;
nomem:
    free(ends);
    free(tr);
    return cs_err_set(err, CS_ENOMEM, "trace", "out of memory");
}

static double us(cs_time t)
{
    return cs_time_to_us(t);
}

/* t1 - t0 in us without overflowing int64 (times are bounded by sim/limits.h, but a trace
 * must never be the place where that assumption turns into undefined behaviour). */
static double dur_us(cs_time t0, cs_time t1)
{
    cs_time d;
    if (__builtin_sub_overflow(t1, t0, &d))
        return cs_time_to_us(t1) - cs_time_to_us(t0);
    return us(d);
}

/* Write one event (stolen) as a line; returns 0 or CS_EIO/CS_ENOMEM. */
static int emit(FILE *f, json_t *ev, int *first)
{
    int rc;
    if (!ev)
        return CS_ENOMEM;
    fputs(*first ? "\n" : ",\n", f);
    *first = 0;
    rc = json_dumpf(ev, f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(ev);
    return rc ? CS_EIO : 0;
}

static json_t *meta(const char *what, int pid, int tid, const char *key, json_t *val)
{
    json_t *ev = json_pack("{s:s,s:s,s:i}", "name", what, "ph", "M", "pid", pid);
    if (ev && tid >= 0)
        json_object_set_new(ev, "tid", json_integer(tid));
    if (ev)
        json_object_set_new(ev, "args", json_pack("{s:o}", key, val));
    else
        json_decref(val);
    return ev;
}

static int write_meta(FILE *f, const cs_timeline *tl, const track *tr, int n_tr, int link_pid,
                      int *first)
{
    char name[200], dn[160];
    int i, rc = 0, last_pid = -1;
    for (i = 0; i < n_tr && !rc; i++) {
        const track *t = &tr[i];
        if (t->pid != last_pid) {
            last_pid = t->pid;
            if (t->pid == link_pid)
                snprintf(name, sizeof name, "links");
            else
                snprintf(name, sizeof name, "rank %d", t->pid - 1);
            rc = emit(f, meta("process_name", t->pid, -1, "name", json_string(name)), first);
            if (!rc)
                rc = emit(f, meta("process_sort_index", t->pid, -1, "sort_index",
                                  json_integer(t->pid)), first);
        }
        if (t->kind == TK_LINK) {
            cs__tl_dlink_name(tl->topo, t->dlink, dn, sizeof dn);
            snprintf(name, sizeof name, t->lane ? "%s #%d" : "%s", dn, t->lane + 1);
        } else {
            snprintf(name, sizeof name, t->lane ? "%s %d" : "%s", kind_names[t->kind], t->lane + 1);
        }
        if (!rc)
            rc = emit(f, meta("thread_name", t->pid, t->tid, "name", json_string(name)), first);
        if (!rc)
            rc = emit(f, meta("thread_sort_index", t->pid, t->tid, "sort_index",
                              json_integer(t->tid)), first);
    }
    return rc;
}

static json_t *slice_event(const cs_timeline *tl, const slice *sl)
{
    const cs_tl_op *op = &tl->ops[sl->op];
    char name[48];
    json_t *args, *ev;
    if (sl->kind == TK_COMPUTE)
        snprintf(name, sizeof name, "compute");
    else if (op->step >= 0)
        snprintf(name, sizeof name, "step %d", op->step);
    else
        snprintf(name, sizeof name, "%s", op->op == CS_OP_REDUCE ? "reduce" : "copy");
    args = json_pack("{s:I,s:i,s:i,s:i,s:s,s:i,s:i}", "bytes", (json_int_t)op->bytes,
                     "chunk", op->chunk, "step", op->step, "pipe", op->pipe,
                     "op", op->op == CS_OP_REDUCE ? "reduce" : op->op == CS_OP_COMPUTE ? "compute" : "copy",
                     "job", op->job, "xfer", (int)op->xfer);
    if (args && sl->kind != TK_COMPUTE) {
        json_object_set_new(args, "src", json_integer(op->src));
        json_object_set_new(args, "dst", json_integer(op->dst));
        json_object_set_new(args, "peer", json_integer(sl->kind == TK_RECV || sl->kind == TK_REDUCE
                                                       ? op->src : op->dst));
    }
    ev = json_pack("{s:s,s:s,s:s,s:i,s:i,s:f,s:f,s:o}", "name", name, "cat", kind_names[sl->kind],
                   "ph", "X", "pid", sl->pid, "tid", sl->tid, "ts", us(sl->t0),
                   "dur", dur_us(sl->t0, sl->t1), "args", args);
    return ev;
}

/* Flow arrows: from the send slice's start to the recv slice's start. */
static int write_flows(FILE *f, const cs_timeline *tl, const slices *s, int *first)
{
    int *send_tid = malloc((size_t)tl->n_ops * sizeof(int)), *recv_tid = malloc((size_t)tl->n_ops * sizeof(int));
    cs_time *recv_t = malloc((size_t)tl->n_ops * sizeof(cs_time));
    int i, rc = 0;
    if (!send_tid || !recv_tid || !recv_t) {
        rc = CS_ENOMEM;
        goto out;
    }
    for (i = 0; i < tl->n_ops; i++)
        send_tid[i] = recv_tid[i] = 0;
    for (i = 0; i < s->n; i++) {
        if (s->v[i].kind == TK_SEND)
            send_tid[s->v[i].op] = s->v[i].tid;
        else if (s->v[i].kind == TK_RECV) {
            recv_tid[s->v[i].op] = s->v[i].tid;
            recv_t[s->v[i].op] = s->v[i].t0;
        }
    }
    for (i = 0; i < tl->n_ops && !rc; i++) {
        const cs_tl_op *op = &tl->ops[i];
        if (!send_tid[i] || !recv_tid[i])
            continue;
        rc = emit(f, json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:f}", "name", "transfer", "cat", "flow",
                               "ph", "s", "id", i + 1, "pid", op->src + 1, "tid", send_tid[i],
                               "ts", us(op->start_ps)), first);
        if (!rc)
            rc = emit(f, json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:f}", "name", "transfer", "cat",
                                   "flow", "ph", "f", "bp", "e", "id", i + 1, "pid", op->dst + 1,
                                   "tid", recv_tid[i], "ts", us(recv_t[i])), first);
    }
out:
    free(send_tid);
    free(recv_tid);
    free(recv_t);
    return rc;
}

static int write_all(FILE *f, const cs_timeline *tl, slices *s, const track *tr, int n_tr,
                     int link_pid)
{
    int first = 1, rc, i;
    json_t *other;
    fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", f);
    rc = write_meta(f, tl, tr, n_tr, link_pid, &first);
    for (i = 0; i < s->n && !rc; i++)
        rc = emit(f, slice_event(tl, &s->v[i]), &first);
    if (!rc)
        rc = write_flows(f, tl, s, &first);
    if (rc)
        return rc;
    fputs("\n], \"otherData\": ", f);
    other = json_pack("{s:s,s:s,s:i,s:f}", "generator", "collsim",
                      "topology", tl->topo->name ? tl->topo->name : "",
                      "ranks", tl->topo->n_ranks, "end_us", us(cs_timeline_end(tl)));
    if (!other)
        return CS_ENOMEM;
    rc = json_dumpf(other, f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(other);
    fputs("}\n", f);
    return rc ? CS_EIO : 0;
}

int cs_trace_write(const cs_timeline *tl, const char *path, cs_err *err)
{
    slices s = {NULL, 0, 0};
    track *tr = NULL;
    cs_outfile af;
    int n_tr = 0, rc, link_pid = 0, i;
    if ((rc = cs_timeline_check(tl, err)))
        return rc;
    if (tl->n_ops == 0)
        return cs_err_set(err, CS_EINVAL, "trace", "nothing recorded to write");
    for (i = 0; i < tl->n_ops; i++) {
        if (tl->ops[i].src + 1 > link_pid)
            link_pid = tl->ops[i].src + 1;
        if (tl->ops[i].dst + 1 > link_pid)
            link_pid = tl->ops[i].dst + 1;
    }
    link_pid++;
    if ((rc = collect(tl, link_pid, &s, err)))
        goto out;
    qsort(s.v, (size_t)s.n, sizeof *s.v, cmp_slice);
    if ((rc = assign_tracks(&s, &tr, &n_tr, err)))
        goto out;
    if ((rc = cs_outfile_open(&af, path, err)))
        goto out;
    rc = write_all(af.f, tl, &s, tr, n_tr, link_pid);
    if (rc) {
        cs_outfile_abort(&af);
        rc = rc == CS_ENOMEM ? cs_err_set(err, rc, path, "out of memory writing the trace")
                             : cs_err_set(err, rc, path, "cannot write: %s",
                                          strerror(errno ? errno : EIO));
        goto out;
    }
    rc = cs_outfile_commit(&af, err);
out:
    free(s.v);
    free(tr);
    return rc;
}

int cs_trace_schedule(const cs_topo *t, const cs_sched *s, const cs_sim_costs *costs,
                      const char *path, cs_err *err)
{
    cs_timeline *tl = NULL;
    int rc;
    if ((rc = cs_timeline_new(&tl, t)) < 0)
        return cs_err_set(err, rc, NULL, "out of memory");
    if (costs)
        cs_timeline_set_costs(tl, costs);
    if ((rc = cs_timeline_run(tl, s, NULL, err)) == 0)
        rc = cs_trace_write(tl, path, err);
    cs_timeline_free(tl);
    return rc;
}
