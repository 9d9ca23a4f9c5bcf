/* search.c: searching parallel layouts (scenarios layer). The enumeration is a pure
 * function of the base plan and the GPU count (a deterministic list); evaluation takes an
 * index range and writes one result per index, so the items can be split over processes
 * (MPI, issue 13) and merged by index with the same outcome. Layouts whose memory does not
 * fit are kept with why = "needs X GB" and not timed. */
#include "scenarios/plan.h"
#include "scenarios/memo.h"
#include "sim/limits.h"
#include "sim/par.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void cs_plan_apply(cs_plan *p, const cs_plan_cand *c)
{
    if (c->pp != p->pp) {
        /* a split given for the plan's pp says nothing of another pp: the default's */
        p->n_stage_list = 0;
        p->first_stage_layers = p->last_stage_layers = 0;
    }
    if (c->pp != p->pp || c->vp != p->vp)
        p->pipeline_layout[0] = '\0';    /* a layout holds pp x vp stages: another's default */
    p->tp = c->tp;
    p->pp = c->pp;
    p->dp = c->dp;
    p->cp = c->cp;
    p->ep = c->ep;
    p->vp = c->vp;
    p->micro_batch = c->mbs;
    p->zero = c->zero;
    p->sp = c->sp;
    p->recompute = c->recompute;
    p->schedule = c->vp > 1 ? CS_PS_INTERLEAVED : CS_PS_1F1B;
}

/* A growing array of candidates. */
typedef struct cand_vec {
    cs_plan_cand *v;         /* the candidates (owned until handed out) */
    long n, cap;             /* used and allocated entries */
} cand_vec;

static int push(cand_vec *cv, const cs_plan_cand *c)
{
    if (cv->n == cv->cap) {
        long cap = cv->cap ? cv->cap * 2 : 256;
        cs_plan_cand *v = realloc(cv->v, sizeof *v * (size_t)cap);
        if (!v)
            return CS_ENOMEM;
        cv->v = v;
        cv->cap = cap;
    }
    cv->v[cv->n++] = *c;
    return 0;
}

int cs_plan_search_enum(const cs_plan *base, int gpus, cs_plan_cand **out, long *n, cs_err *err)
{
    const cs_llm *M = &base->model;
    static const int pow2[] = {1, 2, 4, 8, 16, 32, 64, 128};
    cand_vec cv = {0};
    cs_plan_cand c;
    int a, b, pp, e, vpi, mi, z, r, s;
    *out = NULL;
    *n = 0;
    if (gpus < 1)
        return cs_err_set(err, CS_EINVAL, "--gpus", "must be >= 1, got %d", gpus);
    for (a = 0; a < 4; a++) {                              /* tp: 1, 2, 4, 8 */
        int tp = pow2[a];
        if (M->heads % tp || gpus % tp || (M->kv_heads % tp && tp % M->kv_heads))
            continue;
        for (b = 0; b < 3; b++) {                          /* cp: 1, 2, 4 */
            int cp = pow2[b];
            if (M->seq_len % cp || gpus % (tp * cp) || (cp > 1 && M->seq_len < 8192))
                continue;
            for (pp = 1; pp <= M->layers; pp++) {
                int dp, m_all;
                if (M->layers % pp || gpus % (tp * cp * pp))
                    continue;
                dp = gpus / (tp * cp * pp);
                if (base->global_batch % dp)
                    continue;
                for (e = 0; e < 8; e++) {                  /* ep: powers of two */
                    int ep = pow2[e];
                    if (ep > 1 && (M->experts % ep || dp % ep))
                        continue;
                    if (ep > 1 && !M->experts)
                        break;
                    for (mi = 0; mi < 4; mi++) {           /* micro batch: 1, 2, 4, 8 */
                        int mbs = pow2[mi];
                        if ((base->global_batch / dp) % mbs)
                            continue;
                        m_all = (int)(base->global_batch / dp / mbs);
                        for (vpi = 0; vpi < 3; vpi++) {    /* vp: 1, 2, 4 */
                            int vp = pow2[vpi];
                            if (vp > 1 && (pp == 1 || M->layers % (pp * vp) || m_all % pp))
                                continue;
                            for (z = 0; z < 4; z++) {      /* ZeRO with PP: 0, 1 only */
                                if ((pp > 1 && z > 1) || (dp == 1 && z > 0))
                                    continue;
                                for (r = 0; r < 3; r++)
                                    for (s = 0; s < (tp > 1 ? 2 : 1); s++) {
                                        c = (cs_plan_cand){tp, pp, dp, cp, ep, vp, mbs, z, s,
                                                           (cs_recompute)r};
                                        if (push(&cv, &c) < 0) {
                                            free(cv.v);
                                            return cs_err_set(err, CS_ENOMEM, NULL,
                                                              "out of memory");
                                        }
                                    }
                            }
                        }
                    }
                }
            }
        }
    }
    *out = cv.v;
    *n = cv.n;
    return 0;
}

int cs_plan_search_eval(cs_plan_ctx *ctx, const cs_plan *base, const cs_plan_cand *cands,
                        long lo, long hi, cs_plan_cand_result *results,
                        cs_plan_search_cb cb, void *cb_ctx, cs_err *err)
{
    long i;
    for (i = lo; i < hi; i++) {
        cs_plan_cand_result *res = &results[i - lo];
        cs_plan p = *base;      /* shallow: topo_json stays borrowed from base */
        cs_plan_memory mem;
        cs_err e2;
        int rc;
        memset(res, 0, sizeof *res);
        res->c = cands[i];
        cs_plan_apply(&p, &cands[i]);
        if (cs_plan_check(&p, cs_plan_ctx_ranks(ctx), &e2) < 0) {
            snprintf(res->why, sizeof res->why, "%.60s: %.30s", e2.where, e2.msg);
        } else {
            cs_plan_memory_of(&p, &mem);
            res->mem_bytes = mem.total;
            res->ok = 1;
            res->fits = mem.total <= p.gpu.hbm_GB * 1e9 * (1 - p.memory_margin);
            if (!res->fits) {
                snprintf(res->why, sizeof res->why, "needs %.1f GB", mem.total / 1e9);
            } else {
                cs_plan_result r;
                if ((rc = cs_plan_eval(ctx, &p, CS_PLAN_STEP_ONLY, &r, &e2)) < 0) {
                    if (rc == CS_ENOMEM)
                        return cs_err_set(err, rc, NULL, "out of memory");
                    /* a layout the plan cannot run (a limit): dropped, with why */
                    res->ok = 0;
                    snprintf(res->why, sizeof res->why, "%.60s: %.30s", e2.where, e2.msg);
                } else {
                    res->step_time_s = r.step_time_s;
                    res->tokens_per_s = r.tokens_per_s;
                    res->mfu_pct = r.mfu_pct;
                    cs_plan_result_fini(&r);
                }
            }
        }
        if (cb)
            cb(cb_ctx, i, res);
    }
    return 0;
}

/* The search as work items (sim/par.h), in three steps (memo.h):
 * 1. collect: every process walks every candidate with its context collecting, which notes
 *    the distinct collectives the fitting layouts issue (cheap: no simulation, the same list
 *    on every process);
 * 2. those collectives are the items of a first map, largest first; every process gets
 *    every time and puts it in its memo;
 * 3. the candidates are the items of a second map, evaluated from the shared memo (step
 *    simulations only).
 * Each collective is so simulated once in all, whatever the number of processes. */
typedef struct search_items {
    cs_plan_ctx *ctx;
    const cs_plan *base;
    const cs_plan_cand *cands;
    long evaluated;          /* candidates evaluated by this process */
    long pending_run;        /* collectives simulated by this process as items */
} search_items;

static int search_item(void *ctx, int i, void *out, cs_err *err)
{
    search_items *s = ctx;
    s->evaluated++;
    return cs_plan_search_eval(s->ctx, s->base, s->cands, i, (long)i + 1, out, NULL, NULL, err);
}

static int pending_item(void *ctx, int i, void *out, cs_err *err)
{
    search_items *s = ctx;
    s->pending_run++;
    return cs_plan_pending_run(s->ctx, i, out, err);
}

/* Step 1: note the collectives of every candidate that fits (as cs_plan_search_eval would
 * ask for them), without simulating anything. */
static int collect(cs_plan_ctx *ctx, const cs_plan *base, const cs_plan_cand *cands, long n,
                   cs_err *err)
{
    long i;
    int rc = 0;
    cs_plan_ctx_collect(ctx, 1);
    for (i = 0; i < n && rc == 0; i++) {
        cs_plan p = *base;      /* shallow: topo_json stays borrowed from base */
        cs_plan_memory mem;
        cs_plan_result r;
        cs_err e2;
        cs_plan_apply(&p, &cands[i]);
        if (cs_plan_check(&p, cs_plan_ctx_ranks(ctx), &e2) < 0)
            continue;
        cs_plan_memory_of(&p, &mem);
        if (mem.total > p.gpu.hbm_GB * 1e9 * (1 - p.memory_margin))
            continue;
        /* a layout the plan cannot run fails again, with its message, in step 3 */
        if (cs_plan_eval(ctx, &p, CS_PLAN_STEP_ONLY, &r, &e2) == CS_ENOMEM)
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        cs_plan_result_fini(&r);
    }
    cs_plan_ctx_collect(ctx, 0);
    return rc;
}

/* Step 2: simulate the pending collectives as work items; every process settles them all. */
static int run_pending(search_items *s, cs_err *err)
{
    long n = cs_plan_pending_count(s->ctx), i;
    cs_plan_pending_out *out = NULL;
    double *cost = NULL;
    cs_par_job job;
    int rc;
    if (n == 0)
        return 0;
    if (n > 0x7fffffff)
        return cs_err_set(err, CS_EINVAL, "search", "%ld collectives, at most %d", n,
                          0x7fffffff);
    out = calloc((size_t)n, sizeof *out);
    cost = malloc(sizeof *cost * (size_t)n);
    if (!out || !cost) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (i = 0; i < n; i++)
        cost[i] = cs_plan_pending_cost(s->ctx, i);
    memset(&job, 0, sizeof job);
    job.n_items = (int)n;
    job.cost = cost;
    job.out_bytes = sizeof *out;
    job.run = pending_item;
    job.ctx = s;
    job.to_all = 1;
    job.label = "plan search: collectives";
    if ((rc = cs_par_map(&job, out, err)) == 0)
        rc = cs_plan_pending_settle(s->ctx, out, err);
done:
    free(out);
    free(cost);
    return rc;
}

int cs_plan_search_run(cs_plan_ctx *ctx, const cs_plan *base, const cs_plan_cand *cands,
                       long n, cs_plan_cand_result *results, cs_plan_search_stats *st,
                       cs_err *err)
{
    search_items s = {ctx, base, cands, 0, 0};
    long sims0 = cs_plan_ctx_sims(ctx), simulated0 = cs_plan_ctx_simulated(ctx);
    cs_par_job job;
    int rc;
    if (st)
        memset(st, 0, sizeof *st);
    if (n > 0x7fffffff)
        return cs_err_set(err, CS_EINVAL, "search", "%ld candidates, at most %d", n, 0x7fffffff);
    if ((rc = collect(ctx, base, cands, n, err)) < 0)
        return rc;
    if (st)
        st->collectives = cs_plan_pending_count(ctx);
    if ((rc = run_pending(&s, err)) < 0)
        return rc;
    /* Candidates cost about the same now (no collective left to simulate): equal costs,
     * handed out in enumeration order. */
    memset(&job, 0, sizeof job);
    job.n_items = (int)n;
    job.cost = NULL;
    job.out_bytes = sizeof *results;
    job.run = search_item;
    job.ctx = &s;
    job.to_all = 1;
    job.label = "plan search";
    rc = cs_par_map(&job, results, err);
    if (st) {
        st->evaluated = s.evaluated;
        st->pending_run = s.pending_run;
        st->simulated = cs_plan_ctx_simulated(ctx) - simulated0;
        st->sims = cs_plan_ctx_sims(ctx) - sims0;
    }
    return rc;
}

static int cmp(const void *a, const void *b)
{
    const cs_plan_cand_result *x = a, *y = b;
    int gx = x->ok && x->fits, gy = y->ok && y->fits;
    if (gx != gy)
        return gy - gx;
    if (gx && x->step_time_s != y->step_time_s)
        return x->step_time_s < y->step_time_s ? -1 : 1;
    return memcmp(&x->c, &y->c, sizeof x->c);
}

void cs_plan_search_rank(cs_plan_cand_result *r, long n)
{
    qsort(r, (size_t)n, sizeof *r, cmp);
}

int cs_plan_search_print_json(FILE *f, const cs_plan *p, int gpus,
                              const cs_plan_cand_result *r, long n)
{
    static const char *const rcn[] = {"none", "selective", "full"};
    json_t *root = json_object(), *arr = json_array();
    long i;
    int rc;
    for (i = 0; i < n; i++) {
        json_t *o = json_object();
        const cs_plan_cand *c = &r[i].c;
        json_object_set_new(o, "tp", json_integer(c->tp));
        json_object_set_new(o, "pp", json_integer(c->pp));
        json_object_set_new(o, "dp", json_integer(c->dp));
        json_object_set_new(o, "cp", json_integer(c->cp));
        json_object_set_new(o, "ep", json_integer(c->ep));
        json_object_set_new(o, "vp", json_integer(c->vp));
        json_object_set_new(o, "micro_batch", json_integer(c->mbs));
        json_object_set_new(o, "zero", json_integer(c->zero));
        json_object_set_new(o, "sequence_parallel", json_boolean(c->sp));
        json_object_set_new(o, "recompute", json_string(rcn[c->recompute]));
        json_object_set_new(o, "fits", json_boolean(r[i].ok && r[i].fits));
        json_object_set_new(o, "step_time_s", r[i].ok && r[i].fits ? json_real(r[i].step_time_s)
                                                                   : json_null());
        json_object_set_new(o, "tokens_per_s", json_real(r[i].tokens_per_s));
        json_object_set_new(o, "mfu_pct", json_real(r[i].mfu_pct));
        json_object_set_new(o, "memory_bytes", json_real(r[i].mem_bytes));
        if (r[i].why[0])
            json_object_set_new(o, "why", json_string(r[i].why));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "model", json_string(p->model.name));
    json_object_set_new(root, "gpus", json_integer(gpus));
    json_object_set_new(root, "candidates", arr);
    rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    fputc('\n', f);
    json_decref(root);
    return rc < 0 ? CS_EIO : 0;
}

static void print_cand(FILE *f, const cs_plan_cand_result *r, int csv)
{
    const cs_plan_cand *c = &r->c;
    static const char *const rcn[] = {"none", "selective", "full"};
    if (csv)
        fprintf(f, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%d,%.9g,%.9g,%.6g,%.9g,%s\n", c->tp, c->pp,
                c->dp, c->cp, c->ep, c->vp, c->mbs, c->zero, c->sp, rcn[c->recompute], r->ok,
                r->fits, r->step_time_s, r->tokens_per_s, r->mfu_pct, r->mem_bytes, r->why);
    else
        fprintf(f, "%4d %3d %4d %3d %3d %3d %4d %4d %3s %-9s %10.4f %12.0f %6.1f %8.1f\n",
                c->tp, c->pp, c->dp, c->cp, c->ep, c->vp, c->mbs, c->zero, c->sp ? "on" : "off",
                rcn[c->recompute], r->step_time_s, r->tokens_per_s, r->mfu_pct,
                r->mem_bytes / 1e9);
}

int cs_plan_search_print_table(FILE *f, const cs_plan *p, int gpus, int top, int csv,
                               const cs_plan_cand_result *r, long n)
{
    long i, kept = 0;
    for (i = 0; i < n; i++)
        kept += r[i].ok && r[i].fits;
    if (csv) {
        fprintf(f, "tp,pp,dp,cp,ep,vp,micro_batch,zero,sp,recompute,ok,fits,step_time_s,"
                "tokens_per_s,mfu_pct,memory_bytes,why\n");
        for (i = 0; i < n; i++)
            print_cand(f, &r[i], 1);
        return ferror(f) ? CS_EIO : 0;
    }
    fprintf(f, "# plan search: %s on %d x %s, global batch %ld: %ld candidates, %ld fit "
            "(top %d by step time)\n", p->model.name, gpus, p->gpu.name, p->global_batch, n,
            kept, top);
    fprintf(f, "#  tp  pp   dp  cp  ep  vp  mbs zero  sp recompute  step_s     tokens/s   MFU%%"
            "   mem_GB\n");
    for (i = 0; i < n && i < top && r[i].ok && r[i].fits; i++)
        print_cand(f, &r[i], 0);
    return ferror(f) ? CS_EIO : 0;
}

/* Bytes of schedule and simulation state per transfer of a collective: a ring allreduce on
 * 1,024 ranks (2 x 1,023 transfers a rank) peaks at 56 MB in `collsim run allreduce --algo
 * ring -g 1024 --topo dgx-h100-x128`, about 24 B a transfer; 64 B leaves room for NCCL's
 * channels and chunks. */
#define SEARCH_BYTES_PER_TRANSFER 64.0

int cs_plan_search_check_memory(const cs_plan *base, int gpus, const cs_plan_cand *cands,
                                long n, cs_err *err)
{
    double worst = 0, need, budget = (double)cs_budget_get();
    const char *what = "";
    int ranks = 0;
    long i;
    (void)base;
    for (i = 0; i < n; i++) {
        const cs_plan_cand *c = &cands[i];
        /* every group of one kind runs at once: gpus ranks in all, each sending 2(p - 1)
         * messages in a ring allreduce over p ranks, p - 1 in an alltoall */
        struct { const char *what; int p; double per_rank; } g[4] = {
            {"DP allreduce", c->dp, 2.0 * (c->dp - 1)}, {"TP allreduce", c->tp, 2.0 * (c->tp - 1)},
            {"CP allgather", c->cp, 2.0 * (c->cp - 1)}, {"EP alltoall", c->ep, c->ep - 1.0}};
        int k;
        for (k = 0; k < 4; k++) {
            double b = (double)gpus * g[k].per_rank * SEARCH_BYTES_PER_TRANSFER;
            if (b > worst) {
                worst = b;
                what = g[k].what;
                ranks = g[k].p;
            }
        }
    }
    need = worst + (double)n * (sizeof(cs_plan_cand) + sizeof(cs_plan_cand_result));
    if (need <= budget)
        return 0;
    return cs_err_set(err, CS_ELIMIT, "--gpus", "a search over %d GPUs needs about %.0f MiB "
                      "(its largest collective, a %s over %d ranks with every group at once, "
                      "and %ld candidates), more than the memory budget of %.0f MiB: search "
                      "fewer GPUs (--gpus) or raise the budget (--max-memory SIZE)", gpus,
                      need / 1048576.0, what, ranks, n, budget / 1048576.0);
}
