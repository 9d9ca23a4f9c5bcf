/* exec_window.c: the operations a job holds (core layer): a stored schedule's all, a
 * streamed one's window of live steps, with their pending dependency counts and successor
 * lists (exec-private.h). */
#include "sim/exec-private.h"

#include <stdlib.h>
#include <string.h>

/* Take operations n_ops .. cs_sched_n_ops(s)-1 of the schedule in: their pending counts,
 * and each appended to its dependencies' successor lists (so the lists stay in operation
 * order). Returns 0 or CS_ENOMEM. */
int cs__ex_absorb(cs_job *job)
{
    const cs_sched *s = job->s;
    uint32_t id, end = cs_sched_n_ops(s), need = end - job->base, k;
    if (need > job->cap_ops) {
        uint32_t cap = job->cap_ops ? job->cap_ops : 64;
        ex_op *no;
        while (cap < need)
            cap = cap > UINT32_MAX / 2 ? need : cap * 2;
        if (!(no = realloc(job->ops, (size_t)cap * sizeof *no)))
            return CS_ENOMEM;
        job->ops = no;
        if (job->snap) {
            cs_check_snap **ns = realloc(job->snap, (size_t)cap * sizeof *ns);
            if (!ns)
                return CS_ENOMEM;
            memset(ns + job->cap_ops, 0, (size_t)(cap - job->cap_ops) * sizeof *ns);
            job->snap = ns;
        }
        if (job->sent_ps) {
            cs_time *nt = realloc(job->sent_ps, (size_t)cap * sizeof *nt);
            if (!nt)
                return CS_ENOMEM;
            job->sent_ps = nt;
        }
        if (job->proxy_ps) {
            cs_time *nt = realloc(job->proxy_ps, (size_t)cap * sizeof *nt);
            if (!nt)
                return CS_ENOMEM;
            job->proxy_ps = nt;
            if (!(nt = realloc(job->tie_ps, (size_t)cap * sizeof *nt)))
                return CS_ENOMEM;
            job->tie_ps = nt;
        }
        job->cap_ops = cap;
    }
    for (id = job->base + job->n_ops; id < end; id++) {
        const cs_xfer *x = cs_sched_op(s, id);
        const uint32_t *d = cs_sched_deps(s, id);
        ex_op *o = &job->ops[id - job->base];
        o->pending = x->n_deps;
        o->succ_head = o->succ_tail = EX_NONE;
        for (k = 0; k < x->n_deps; k++) {
            ex_op *dep = &job->ops[d[k] - job->base];
            uint32_t e = job->free_edge;
            if (e != EX_NONE) {
                job->free_edge = job->edges[e].next;
            } else {
                if (job->n_edges == job->cap_edges) {
                    uint32_t cap = job->cap_edges ? job->cap_edges * 2 : 64;
                    ex_edge *ne;
                    if (job->cap_edges > UINT32_MAX / 4 ||
                        !(ne = realloc(job->edges, (size_t)cap * sizeof *ne)))
                        return CS_ENOMEM;
                    job->edges = ne;
                    job->cap_edges = cap;
                }
                e = job->n_edges++;
            }
            job->edges[e] = (ex_edge){id, EX_NONE};
            if (dep->succ_tail == EX_NONE)
                dep->succ_head = e;
            else
                job->edges[dep->succ_tail].next = e;
            dep->succ_tail = e;
        }
    }
    job->sim->n_held += end - job->base - job->n_ops;
    if (job->sim->n_held > job->sim->peak_held)
        job->sim->peak_held = job->sim->n_held;
    job->n_ops = end - job->base;
    return 0;
}

/* Streamed: drop the operations that are done and that no operation still to be produced
 * can depend on (those of steps before the last produced one), once they are at least
 * half of the window, so that moving the window costs O(1) per operation. */
void cs__ex_shrink(cs_job *job)
{
    const cs_sched *s = job->s;
    int last = cs_sched_next_step(s) - 1;
    uint32_t end = job->base + job->n_ops, k;
    while (job->lo < end && job->ops[job->lo - job->base].pending == EX_DONE &&
           cs_sched_op(s, job->lo)->step < last)
        job->lo++;
    k = job->lo - job->base;
    if (k < 64 || k < job->n_ops / 2)
        return;
    cs_sched_drop(s, job->lo);
    memmove(job->ops, job->ops + k, (size_t)(job->n_ops - k) * sizeof *job->ops);
    if (job->snap) {
        memmove(job->snap, job->snap + k, (size_t)(job->n_ops - k) * sizeof *job->snap);
        memset(job->snap + job->n_ops - k, 0, (size_t)k * sizeof *job->snap);
    }
    if (job->sent_ps)
        memmove(job->sent_ps, job->sent_ps + k, (size_t)(job->n_ops - k) * sizeof *job->sent_ps);
    if (job->proxy_ps) {
        memmove(job->proxy_ps, job->proxy_ps + k,
                (size_t)(job->n_ops - k) * sizeof *job->proxy_ps);
        memmove(job->tie_ps, job->tie_ps + k, (size_t)(job->n_ops - k) * sizeof *job->tie_ps);
    }
    job->n_ops -= k;
    job->base = job->lo;
    job->sim->n_held -= k;
}
