/* step.c: one training step as a discrete-event simulation over pipeline stages
 * (scenarios layer). Each stage has three in-order streams, as CUDA streams: compute
 * (forward/backward/recompute of one model chunk for one microbatch, with its blocking
 * TP/CP/EP collectives, and the optimizer), pipeline sends, and data-parallel
 * communication (gradient buckets, ZeRO gathers). A task starts when its stream is free
 * and its dependencies are done: a forward needs the previous virtual stage's send, a
 * backward the next one's, a bucket the piece of backward that produced its gradients.
 * Schedules (GPipe, 1F1B, interleaved 1F1B) are per-stage programs (Narayanan et al.
 * SC'21 §2.2; Megatron-LM's schedules.py order); bubbles and exposed communication come
 * out of the simulation: whenever the compute stream idles, the wait is charged to the
 * communication it waited for, or to the pipeline bubble. */
#include "scenarios/plan.h"
#include "scenarios/step-private.h"

#include <stdlib.h>
#include <string.h>

enum { ST_COMP, ST_PP_F, ST_PP_B, ST_DP, ST_H2D, ST_D2H, ST_N };

/* Most ZeRO-3 gathers in flight ahead of the computing layer. */
#define MAX_PREFETCH 64

/* A task while simulating. */
typedef struct task {
    double dur;              /* duration, s */
    double start, end;       /* when it ran, s */
    int32_t deps[4];         /* tasks it waits for (-1 = none) */
    int32_t pred;            /* previous task on its stream, -1 if first */
    int32_t stage;           /* pipeline stage */
    int8_t kind;             /* cs_task_kind (FWD/BWD/OPT for compute tasks) */
    int8_t stream;           /* ST_* */
    int16_t chunk;           /* model chunk, -1 if none */
    int32_t mb;              /* microbatch, -1 if none */
    int32_t n_wait;          /* unfinished predecessors (simulation) */
} task;

typedef struct builder {
    task *t;                 /* tasks */
    long n, cap;
    int32_t last[ST_N];      /* last task of each stream of the current stage */
} builder;

static long add(builder *b, int stage, int stream, int kind, int chunk, int mb, double dur)
{
    task *x;
    if (b->n == b->cap) {
        long cap = b->cap ? b->cap * 2 : 1024;
        task *t = realloc(b->t, sizeof *t * (size_t)cap);
        if (!t)
            return -1;
        b->t = t;
        b->cap = cap;
    }
    x = &b->t[b->n];
    memset(x, 0, sizeof *x);
    x->dur = dur;
    x->deps[0] = x->deps[1] = x->deps[2] = x->deps[3] = -1;
    x->pred = b->last[stream];
    x->stage = stage;
    x->kind = (int8_t)kind;
    x->stream = (int8_t)stream;
    x->chunk = (int16_t)chunk;
    x->mb = mb;
    b->last[stream] = (int32_t)b->n;
    return b->n++;
}

static void dep(builder *b, long t, long d)
{
    int i;
    if (t < 0 || d < 0)
        return;
    for (i = 0; i < 4; i++)
        if (b->t[t].deps[i] < 0) {
            b->t[t].deps[i] = (int32_t)d;
            return;
        }
}

/* The program of stage s: op k is forward (is_b 0) or backward (1) of (chunk, mb), in
 * Megatron's order. n_ops = 2 m v. */
static void program(const cs_step_costs *c, int s, int *is_b, int *chunk, int *mb)
{
    int p = c->pp, v = c->vp, m = c->m, total = m * v, k = 0, f = 0, bw = 0, warm, i;
    if (c->schedule == CS_PS_GPIPE) {
        for (i = 0; i < m; i++, k++) {
            is_b[k] = 0; chunk[k] = 0; mb[k] = i;
        }
        for (i = 0; i < m; i++, k++) {
            is_b[k] = 1; chunk[k] = 0; mb[k] = i;
        }
        return;
    }
    /* 1F1B (v = 1) and interleaved 1F1B: warm-up forwards, steady one-forward-one-backward,
     * cool-down backwards. Step j of either direction runs chunk (j / p) % v (reversed for
     * backward) of microbatch (j / (p v)) p + j % p. */
    warm = v > 1 ? (p - s - 1) * 2 + (v - 1) * p : p - s - 1;
    if (warm > total)
        warm = total;
    for (i = 0; i < total * 2; i++) {
        int do_b;
        if (f < warm)
            do_b = 0;
        else if (f == total)
            do_b = 1;
        else
            do_b = (f - warm) > bw;     /* steady state alternates F, B */
        if (!do_b) {
            is_b[k] = 0;
            chunk[k] = (f / p) % v;
            mb[k] = (f / (p * v)) * p + f % p;
            f++;
        } else {
            is_b[k] = 1;
            chunk[k] = v - 1 - (bw / p) % v;
            mb[k] = (bw / (p * v)) * p + bw % p;
            bw++;
        }
        k++;
    }
}

int cs__step_peak(cs_sched_kind schedule, int pp, int vp, int m, int stage)
{
    long warm, total = (long)m * vp;
    if (pp < 1 || vp < 1 || m < 1 || stage < 0 || stage >= pp)
        return 0;
    /* GPipe: every forward before the first backward */
    if (schedule == CS_PS_GPIPE)
        return m;
    /* program(): the warm-up forwards, then one forward more before the first backward,
     * and from there a backward after every forward (the cool-down only frees) */
    warm = vp > 1 ? (long)(pp - stage - 1) * 2 + (long)(vp - 1) * pp : pp - stage - 1;
    return warm >= total ? (int)total : (int)(warm + 1);
}

const char *cs_task_kind_name(cs_task_kind k)
{
    static const char *const n[CS_T_COUNT] = {"forward", "backward", "recompute", "optimizer",
                                              "tp", "cp", "ep", "pp", "dp"};
    return n[k];
}

void cs_step_result_fini(cs_step_result *r)
{
    if (!r)
        return;
    free(r->tasks);
    r->tasks = NULL;
    r->n_tasks = 0;
}

/* The compute factor of stage st: slow_factor on the straggler's stage, else 1. */
static double slow(const cs_step_costs *c, int st)
{
    return c->slow_factor > 1 && st == c->slow_stage ? c->slow_factor : 1;
}

/* Forward and backward op durations of virtual stage vs (compute + blocking comm). */
static double op_dur(const cs_step_costs *c, int vs, int is_b)
{
    int last = c->pp * c->vp - 1;
    double d, k = c->chunk_layers ? c->chunk_layers[vs] : 1;   /* per-layer times: x layers */
    double f = slow(c, vs % c->pp);                  /* a straggler's compute: x factor */
    if (!is_b) {
        d = k * (f * c->t_fwd + c->t_tp_fwd + c->t_cp_fwd + c->t_ep_fwd);
        if (vs == 0)
            d += f * c->t_first_extra;
        if (vs == last)
            d += f * c->t_last_extra;
    } else {
        d = k * (f * (c->t_recomp + c->t_bwd) + c->t_tp_bwd + c->t_cp_bwd + c->t_ep_bwd);
        if (vs == 0)
            d += f * c->t_first_extra_bwd;
        if (vs == last)
            d += f * c->t_last_extra_bwd;
    }
    return d;
}

/* The pieces op (vs, is_b, mb) runs in: its layers with ZeRO-3 or activation offload (each
 * layer gathered or its stash moved on its own), the gradient buckets of the last
 * microbatch's backward, the parameter buckets of the first forward after a ZeRO-1/2
 * overlapped gather, else 1. */
static int op_split(const cs_step_costs *c, int vs, int is_b, int mb, int layered,
                    const int32_t *gather_first, int n_g)
{
    if (layered)
        return c->chunk_layers ? (c->chunk_layers[vs] > 0 ? c->chunk_layers[vs] : 1)
             : c->n_pieces > 0 ? c->n_pieces : 1;
    if (is_b && c->n_buckets > 0 && c->overlap_grad && mb == c->m - 1)
        return c->n_buckets;
    return !is_b && mb == 0 && gather_first[vs] >= 0 ? n_g : 1;
}

int cs_plan_step(const cs_step_costs *c, int keep_tasks, cs_step_result *out, cs_err *err)
{
    int p = c->pp, v = c->vp, m = c->m, nv = p * v, s, k, n_ops = 2 * m * v;
    long nf = (long)nv * m, i, head = 0, tail = 0, *queue = NULL, *succ_off = NULL;
    int32_t *succ = NULL, *f_send = NULL, *b_send = NULL, *f_task = NULL, *b_first = NULL;
    int32_t *gather_first = NULL, *opt_task = NULL;
    int *is_b = NULL, *chunk = NULL, *mb = NULL, zero3 = c->t_gather > 0;
    int act_off = c->t_act_out > 0 || c->t_act_in > 0, layered = zero3 || act_off;
    /* Megatron's 1F1B and interleaved schedules block on every pipeline send: its
     * p2p_communication.py batches the isend/irecv, waits on them and calls
     * torch.cuda.synchronize() (Megatron-LM e36cdd7, 2022-07-26, lines 132-136; Megatron-Core
     * keeps the wait and the sync, batch_p2p_sync, unless --overlap-p2p-communication). So
     * a send runs on the sender's compute stream: its next op starts when the send is done.
     * Not modelled: the rendezvous (a send also waits for its receiver to post the recv). */
    int st_pf = c->schedule == CS_PS_GPIPE ? ST_PP_F : ST_COMP;
    int st_pb = c->schedule == CS_PS_GPIPE ? ST_PP_B : ST_COMP;
    int depth = !c->overlap_gather || c->prefetch < 0 ? 0 : c->prefetch > MAX_PREFETCH
              ? MAX_PREFETCH : c->prefetch > 0 ? c->prefetch : 1;
    int n_g = c->n_buckets > 0 ? c->n_buckets : 1;    /* ZeRO-1/2 gather buckets per chunk */
    builder b = {0};
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (p < 1 || v < 1 || m < 1 || c->n_buckets < 0)
        return cs_err_set(err, CS_EINVAL, "step", "stages, chunks and microbatches must be >= 1");
    f_send = malloc(sizeof *f_send * (size_t)nf);
    b_send = malloc(sizeof *b_send * (size_t)nf);
    f_task = malloc(sizeof *f_task * (size_t)nf);
    b_first = malloc(sizeof *b_first * (size_t)nf);
    gather_first = malloc(sizeof *gather_first * (size_t)nv);
    opt_task = malloc(sizeof *opt_task * (size_t)p);
    is_b = malloc(sizeof *is_b * (size_t)n_ops);
    chunk = malloc(sizeof *chunk * (size_t)n_ops);
    mb = malloc(sizeof *mb * (size_t)n_ops);
    if (!f_send || !b_send || !f_task || !b_first || !gather_first || !opt_task || !is_b ||
        !chunk || !mb)
        goto nomem;
    for (i = 0; i < nf; i++)
        f_send[i] = b_send[i] = f_task[i] = b_first[i] = -1;
    for (i = 0; i < nv; i++)
        gather_first[i] = -1;

    /* Pass 1: every stage's tasks in stream order. */
    for (s = 0; s < p; s++) {
        int inflight = 0, peak = 0, qh = 0, qn = 0;
        long last_comp = -1, n_piece = 0, n_total = 0, issued = 0;
        int32_t queue_g[MAX_PREFETCH], hist[MAX_PREFETCH + 2];
        for (k = 0; k < ST_N; k++)
            b.last[k] = -1;
        /* ZeRO-1/2 with overlapped parameter gather (Megatron's overlap-param-gather): each
         * chunk's updated parameters are gathered at the start of the step bucket by bucket,
         * and the chunk's first forward runs piece by piece behind them. */
        if (c->t_dp_tail > 0 && c->overlap_gather)
            for (k = 0; k < v; k++) {
                int jb;
                for (jb = 0; jb < n_g; jb++) {
                    long gt = add(&b, s, ST_DP, CS_T_DP, k, -1, c->t_dp_tail / v / n_g);
                    if (gt < 0)
                        goto nomem;
                    if (jb == 0)
                        gather_first[k * p + s] = (int32_t)gt;
                }
            }
        program(c, s, is_b, chunk, mb);
        for (k = 0; k < n_ops; k++)
            n_total += op_split(c, chunk[k] * p + s, is_b[k], mb[k], layered, gather_first, n_g);
        for (k = 0; k < n_ops; k++) {
            int vs = chunk[k] * p + s, j, split;
            long idx = (long)vs * m + mb[k], g = -1, t0, t1;
            double d = op_dur(c, vs, is_b[k]);
            /* ZeRO-3 runs an op layer by layer, each layer's parameters gathered first:
             * prefetched `depth` layers ahead on the DP stream, in order (one stream: the
             * gathers never overlap each other), each into the buffer the layer depth + 1
             * before it freed; without overlap issued when the compute stream gets there.
             * A backward is also cut into bucket-producing pieces. */
            split = op_split(c, vs, is_b[k], mb[k], layered, gather_first, n_g);
            t1 = -1;
            for (j = 0; j < split; j++, n_piece++) {
                long h2d = -1;
                if (zero3 && qn == 0) {
                    if ((g = add(&b, s, ST_DP, CS_T_DP, chunk[k], mb[k], c->t_gather)) < 0)
                        goto nomem;
                    if (!depth)
                        dep(&b, g, last_comp);
                    issued++;
                } else if (zero3) {
                    g = queue_g[qh];
                    qh = (qh + 1) % MAX_PREFETCH;
                    qn--;
                }
                /* activation offload: the stash of this layer comes back before its
                 * backward, fetched one layer ahead */
                if (act_off && is_b[k]) {
                    if ((h2d = add(&b, s, ST_H2D, CS_T_DP, chunk[k], mb[k], c->t_act_in)) < 0)
                        goto nomem;
                    if (n_piece >= 2)
                        dep(&b, h2d, hist[(n_piece - 2) % (MAX_PREFETCH + 2)]);
                }
                if ((t0 = add(&b, s, ST_COMP, is_b[k] ? CS_T_BWD : CS_T_FWD, chunk[k], mb[k],
                              d / split)) < 0)
                    goto nomem;
                dep(&b, t0, g);
                dep(&b, t0, h2d);
                hist[n_piece % (MAX_PREFETCH + 2)] = (int32_t)t0;
                if (act_off && !is_b[k]) {
                    long d2h = add(&b, s, ST_D2H, CS_T_DP, chunk[k], mb[k], c->t_act_out);
                    if (d2h < 0)
                        goto nomem;
                    dep(&b, d2h, t0);
                }
                /* prefetch: the gathers of the next layers go out now, layer i's once
                 * layer i - depth - 1 has freed its buffer */
                while (zero3 && depth > 0 && qn < depth && issued < n_total) {
                    long ng = add(&b, s, ST_DP, CS_T_DP, chunk[k], mb[k], c->t_gather);
                    if (ng < 0)
                        goto nomem;
                    if (issued - depth - 1 >= 0)
                        dep(&b, ng, hist[(issued - depth - 1) % (MAX_PREFETCH + 2)]);
                    queue_g[(qh + qn) % MAX_PREFETCH] = (int32_t)ng;
                    qn++;
                    issued++;
                }
                if (!is_b[k] && mb[k] == 0 && gather_first[vs] >= 0)
                    dep(&b, t0, gather_first[vs] + j);      /* its bucket of parameters */
                if (j == 0 && !is_b[k]) {
                    f_task[idx] = (int32_t)t0;
                } else if (j == 0) {
                    b_first[idx] = (int32_t)t0;
                }
                /* every piece of the last microbatch's backward posts its bucket, also
                 * when the gradients fit one bucket (one piece); ZeRO-3 every
                 * microbatch's */
                if (is_b[k] && (zero3 || mb[k] == m - 1) && c->n_buckets > 0 && c->overlap_grad &&
                    (zero3 || !act_off || j == split - 1)) {
                    long bk = add(&b, s, ST_DP, CS_T_DP, chunk[k], mb[k],
                                  zero3 || !act_off ? c->t_bucket : c->t_bucket * c->n_buckets);
                    if (bk < 0)
                        goto nomem;
                    dep(&b, bk, t0);
                }
                last_comp = t1 = t0;
            }
            if (!is_b[k]) {
                if (vs < nv - 1 && p > 1) {
                    if ((t0 = add(&b, s, st_pf, CS_T_PP, chunk[k], mb[k], c->t_pp)) < 0)
                        goto nomem;
                    dep(&b, t0, t1);
                    f_send[idx] = (int32_t)t0;
                }
                inflight++;
                if (inflight > peak)
                    peak = inflight;
                continue;
            }
            last_comp = t1;
            inflight--;
            if (vs > 0 && p > 1) {
                long sd = add(&b, s, st_pb, CS_T_PP, chunk[k], mb[k], c->t_pp);
                if (sd < 0)
                    goto nomem;
                dep(&b, sd, t1);
                b_send[idx] = (int32_t)sd;
            }
        }
        /* gradient buckets that did not overlap backward go after it */
        if (c->n_buckets > 0 && !c->overlap_grad)
            for (k = 0; k < v * c->n_buckets; k++) {
                long bk = add(&b, s, ST_DP, CS_T_DP, k / c->n_buckets, -1, c->t_bucket);
                if (bk < 0)
                    goto nomem;
                dep(&b, bk, last_comp);
            }
        {
            long o = add(&b, s, ST_COMP, CS_T_OPT, -1, -1, slow(c, s) * c->t_opt);
            if (o < 0)
                goto nomem;
            dep(&b, o, b.last[ST_DP]);
            opt_task[s] = (int32_t)o;
            if (c->t_dp_tail > 0 && !c->overlap_gather) {
                long ag = add(&b, s, ST_DP, CS_T_DP, -1, -1, c->t_dp_tail);
                if (ag < 0)
                    goto nomem;
                dep(&b, ag, o);
            }
        }
        if (peak > out->peak_inflight) {
            out->peak_inflight = peak;
            out->peak_stage = s;
        }
    }
    /* Pass 2: cross-stage dependencies. The previous virtual stage of vs is vs - 1 (on
     * stage (vs - 1) % p: interleaving wraps from the last stage back to the first). */
    for (i = 0; i < nf; i++) {
        int vs = (int)(i / m);
        if (vs > 0)
            dep(&b, f_task[i], p > 1 ? f_send[i - m] : f_task[i - m]);
        if (vs < nv - 1)
            dep(&b, b_first[i], p > 1 ? b_send[i + m] : -1);
        if (vs < nv - 1 && p == 1) {
            /* one stage: chunk vs + 1's backward precedes vs's in program order already */
        }
    }

    /* Simulate: Kahn's algorithm over stream order and dependencies; a task starts when
     * its stream predecessor and its dependencies are done. */
    succ_off = calloc((size_t)b.n + 1, sizeof *succ_off);
    queue = malloc(sizeof *queue * (size_t)b.n);
    if (!succ_off || !queue)
        goto nomem;
    for (i = 0; i < b.n; i++) {
        task *x = &b.t[i];
        int j;
        if (x->pred >= 0)
            succ_off[x->pred + 1]++, x->n_wait++;
        for (j = 0; j < 4; j++)
            if (x->deps[j] >= 0)
                succ_off[x->deps[j] + 1]++, x->n_wait++;
    }
    for (i = 0; i < b.n; i++)
        succ_off[i + 1] += succ_off[i];
    if (!(succ = malloc(sizeof *succ * (size_t)(succ_off[b.n] + 1))))
        goto nomem;
    {
        long *fill = queue;          /* reuse as fill cursor before the run */
        for (i = 0; i < b.n; i++)
            fill[i] = succ_off[i];
        for (i = 0; i < b.n; i++) {
            task *x = &b.t[i];
            int j;
            if (x->pred >= 0)
                succ[fill[x->pred]++] = (int32_t)i;
            for (j = 0; j < 4; j++)
                if (x->deps[j] >= 0)
                    succ[fill[x->deps[j]]++] = (int32_t)i;
        }
    }
    for (i = 0; i < b.n; i++)
        if (b.t[i].n_wait == 0)
            queue[tail++] = i;
    while (head < tail) {
        task *x = &b.t[queue[head++]];
        long e;
        double st = 0;
        int j;
        if (x->pred >= 0)
            st = b.t[x->pred].end;
        for (j = 0; j < 4; j++)
            if (x->deps[j] >= 0 && b.t[x->deps[j]].end > st)
                st = b.t[x->deps[j]].end;
        x->start = st;
        x->end = st + x->dur;
        if (x->end > out->step_s)
            out->step_s = x->end;
        for (e = succ_off[x - b.t]; e < succ_off[x - b.t + 1]; e++)
            if (--b.t[succ[e]].n_wait == 0)
                queue[tail++] = succ[e];
    }
    if (tail != b.n) {
        rc = cs_err_set(err, CS_ESTATE, "step", "the schedule deadlocks (%ld of %ld tasks ran)",
                        tail, b.n);
        goto done;
    }

    /* Breakdown of stage 0: busy time by kind; idle gaps charged to what the task waited
     * for (pipeline sends, DP communication) up to that task's duration, the rest bubble. */
    {
        double prev = 0, last_dp = 0;
        out->report_stage = 0;
        for (i = 0; i < b.n; i++) {
            task *x = &b.t[i];
            double gap;
            int j;
            long why = -1;
            if (x->stage != 0)
                continue;
            if (x->stream == ST_DP && x->end > last_dp)
                last_dp = x->end;
            if (x->stream != ST_COMP)
                continue;
            if (x->kind == CS_T_PP)         /* a blocking send: the stage waits for it */
                out->pp_exposed_s += x->dur;
            gap = x->start - prev;
            for (j = 0; j < 4; j++)
                if (x->deps[j] >= 0 && b.t[x->deps[j]].end >= x->start - 1e-15 &&
                    (b.t[x->deps[j]].stream != ST_COMP || b.t[x->deps[j]].kind == CS_T_PP))
                    why = x->deps[j];
            if (gap > 0) {
                double charged = 0;
                /* a wait on a pipeline send is exposed p2p up to the send's own
                 * duration (the rest is the sender still computing: bubble); a wait on
                 * DP communication is exposed DP in full (buckets queue back to back) */
                if (why >= 0 && b.t[why].kind == CS_T_PP) {
                    charged = gap < b.t[why].dur ? gap : b.t[why].dur;
                    out->pp_exposed_s += charged;
                } else if (why >= 0) {
                    charged = gap;
                    out->dp_exposed_s += charged;
                }
                out->bubble_s += gap - charged;
            }
            prev = x->end;
        }
        /* after the compute stream: DP still running (ZeRO gather) is exposed DP */
        if (last_dp > prev) {
            out->dp_exposed_s += last_dp - prev;
            prev = last_dp;
        }
        out->bubble_s += out->step_s - prev;
    }
    if (keep_tasks) {
        if (!(out->tasks = malloc(sizeof *out->tasks * (size_t)b.n)))
            goto nomem;
        for (i = 0; i < b.n; i++) {
            cs_step_task *o = &out->tasks[i];
            o->stage = b.t[i].stage;
            o->kind = b.t[i].kind;
            o->stream = (int8_t)(b.t[i].kind == CS_T_PP ? 1 : b.t[i].stream == ST_COMP ? 0
                               : b.t[i].stream == ST_DP ? 2 : 1);
            o->chunk = b.t[i].chunk;
            o->mb = b.t[i].mb;
            o->start_s = b.t[i].start;
            o->end_s = b.t[i].end;
        }
        out->n_tasks = b.n;
    }
    goto done;
nomem:
    rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
done:
    free(b.t);
    free(succ_off);
    free(succ);
    free(queue);
    free(f_send);
    free(b_send);
    free(f_task);
    free(b_first);
    free(gather_first);
    free(opt_task);
    free(is_b);
    free(chunk);
    free(mb);
    if (rc < 0)
        cs_step_result_fini(out);
    return rc;
}
