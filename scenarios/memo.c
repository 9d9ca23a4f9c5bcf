/* memo.c: the memo of collective times of a cs_plan_ctx (scenarios layer): an
 * open-addressing table by (collective, group shape, bytes) in front of comm.c's
 * simulations, and the collecting mode that turns its misses into independent work items
 * (memo.h). */
#include "scenarios/comm-private.h"
#include "scenarios/memo.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const uint64_t key[CS__KEY_WORDS])
{
    uint64_t h = 1469598103934665603ull;
    int i;
    for (i = 0; i < CS__KEY_WORDS; i++) {
        h ^= key[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

/* The slot of key: *found = 1 when it holds key, 0 when it is the free slot to fill (the
 * table has room for one more). NULL when out of memory. */
static cs__memo_ent *memo_find(cs_plan_ctx *c, const uint64_t key[CS__KEY_WORDS], int *found)
{
    long i, mask;
    if (c->n_memo * 2 >= c->cap_memo) {
        long cap = c->cap_memo ? c->cap_memo * 2 : 256, j;
        cs__memo_ent *m = calloc((size_t)cap, sizeof *m);
        if (!m)
            return NULL;
        for (j = 0; j < c->cap_memo; j++)
            if (c->memo[j].key[5]) {
                long k = (long)(hash_key(c->memo[j].key) & (uint64_t)(cap - 1));
                while (m[k].key[5])
                    k = (k + 1) & (cap - 1);
                m[k] = c->memo[j];
            }
        free(c->memo);
        c->memo = m;
        c->cap_memo = cap;
    }
    mask = c->cap_memo - 1;
    i = (long)(hash_key(key) & (uint64_t)mask);
    while (c->memo[i].key[5]) {
        if (!memcmp(c->memo[i].key, key, sizeof c->memo[i].key)) {
            *found = 1;
            return &c->memo[i];
        }
        i = (i + 1) & mask;
    }
    *found = 0;
    return &c->memo[i];
}

/* Note a collective as pending (collecting). */
static int note(cs_plan_ctx *c, const uint64_t key[CS__KEY_WORDS], const cs_plan *p,
                cs_group g, cs_coll coll, uint64_t bytes)
{
    cs__pending *q;
    int d;
    if (c->n_pend == c->cap_pend) {
        long cap = c->cap_pend ? 2 * c->cap_pend : 256;
        cs__pending *v = realloc(c->pend, sizeof *v * (size_t)cap);
        if (!v)
            return CS_ENOMEM;
        c->pend = v;
        c->cap_pend = cap;
    }
    q = &c->pend[c->n_pend++];
    memset(q, 0, sizeof *q);
    memcpy(q->key, key, sizeof q->key);
    q->tp = p->tp;
    q->pp = p->pp;
    q->dp = p->dp;
    q->cp = p->cp;
    q->ep = p->ep;
    q->etp = p->etp;
    for (d = 0; d < CS_DIM_COUNT; d++)
        q->order[d] = p->order[d];
    q->dp_mode = p->dp_mode;
    q->g = g;
    q->coll = coll;
    q->bytes = bytes;
    return 0;
}

int cs_plan_comm(cs_plan_ctx *c, const cs_plan *p, cs_group g, cs_coll coll, uint64_t bytes,
                 double *t_s, cs_err *err)
{
    uint64_t key[CS__KEY_WORDS];
    int found, rc;
    cs__memo_ent *e;
    *t_s = 0;
    cs__plan_key(p, g, coll, bytes, key);
    if (!(e = memo_find(c, key, &found)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if (found && e->state == 0) {
        *t_s = e->t_s;
        return 0;
    }
    if (found && e->state == 2) {
        if (err)
            *err = c->fails[e->fail];
        return c->fails[e->fail].code;
    }
    if (c->collecting) {
        if (found)                  /* pending already */
            return 0;
        if (note(c, key, p, g, coll, bytes) < 0)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        memcpy(e->key, key, sizeof key);
        e->state = 1;
        c->n_memo++;
        return 0;
    }
    /* a miss (or a pending collective never settled): simulate it here */
    if ((rc = cs__plan_simulate(c, p, g, coll, bytes, t_s, err)) < 0)
        return rc;                  /* not memoised: the next plan asks again */
    c->simulated++;
    /* the table has not grown in between: simulating does not touch it */
    if (!found) {
        memcpy(e->key, key, sizeof key);
        c->n_memo++;
    }
    e->t_s = *t_s;
    e->state = 0;
    return 0;
}

void cs_plan_ctx_collect(cs_plan_ctx *c, int on) { c->collecting = on != 0; }
int cs_plan_ctx_collecting(const cs_plan_ctx *c) { return c->collecting; }
long cs_plan_pending_count(const cs_plan_ctx *c) { return c->n_pend; }
long cs_plan_ctx_simulated(const cs_plan_ctx *c) { return c->simulated; }
long cs_plan_ctx_bounded(const cs_plan_ctx *c) { return c->bounded; }

/* The plan a pending collective was noted from, as far as simulating it reads: the
 * degrees, their order and the DP mode. */
static void pending_plan(const cs__pending *q, cs_plan *p)
{
    int d;
    memset(p, 0, sizeof *p);
    p->tp = q->tp;
    p->pp = q->pp;
    p->dp = q->dp;
    p->cp = q->cp;
    p->ep = q->ep;
    p->etp = q->etp;
    for (d = 0; d < CS_DIM_COUNT; d++)
        p->order[d] = q->order[d];
    p->dp_mode = q->dp_mode;
}

double cs_plan_pending_cost(const cs_plan_ctx *c, long i)
{
    const cs__pending *q = &c->pend[i];
    cs_plan p;
    int n;
    pending_plan(q, &p);
    n = cs_plan_group_size(&p, q->g);
    /* from the CPU times of the collectives of Mixtral 8x7B searches on 1,024 GPUs: up to
     * CS_RING_FULL_MAX ranks every algorithm runs in full and the time grows about as n^2
     * (A100 cluster: 2 ranks 0.3 ms, 16 ranks 18 ms); longer rings run one step (0.4-4
     * ms); each algorithm x protocol is one run (H100 cluster, 16 ranks: 52 ms with 3
     * runs, 157 ms for allreduce's 6, ring and tree) */
    return (n <= CS_RING_FULL_MAX ? (double)n * n : 8.0 + n / 32.0) *
           cs__plan_sim_runs(c, &p, q->g, q->coll, n);
}

int cs_plan_pending_run(cs_plan_ctx *c, long i, cs_plan_pending_out *out, cs_err *err)
{
    cs_plan p;
    long sims = c->sims, bounded = c->bounded;
    int rc;
    memset(out, 0, sizeof *out);
    if (i < 0 || i >= c->n_pend)
        return cs_err_set(err, CS_EINVAL, "memo", "pending collective %ld of %ld", i, c->n_pend);
    pending_plan(&c->pend[i], &p);
    cs_err_clear(&out->err);
    rc = cs__plan_simulate(c, &p, c->pend[i].g, c->pend[i].coll, c->pend[i].bytes, &out->t_s,
                           &out->err);
    out->sims = (int)(c->sims - sims);
    out->bounded = (int)(c->bounded - bounded);
    c->simulated++;
    if (rc == CS_ENOMEM) {
        *err = out->err;
        return rc;
    }
    if (rc < 0) {
        out->rc = rc;
        out->t_s = 0;
        if (!out->err.code)
            out->err.code = rc;
    }
    return 0;
}

int cs_plan_pending_settle(cs_plan_ctx *c, const cs_plan_pending_out *out, cs_err *err)
{
    long i;
    for (i = 0; i < c->n_pend; i++) {
        int found;
        cs__memo_ent *e = memo_find(c, c->pend[i].key, &found);
        if (!e)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        if (!found) {
            memcpy(e->key, c->pend[i].key, sizeof e->key);
            c->n_memo++;
        }
        if (out[i].rc < 0) {
            if (c->n_fails == c->cap_fails) {
                long cap = c->cap_fails ? 2 * c->cap_fails : 8;
                cs_err *v = realloc(c->fails, sizeof *v * (size_t)cap);
                if (!v)
                    return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
                c->fails = v;
                c->cap_fails = cap;
            }
            c->fails[c->n_fails] = out[i].err;
            c->fails[c->n_fails].code = out[i].rc;
            e->state = 2;
            e->fail = (int)c->n_fails++;
        } else {
            e->state = 0;
            e->t_s = out[i].t_s;
        }
    }
    c->n_pend = 0;
    return 0;
}

void cs__plan_memo_fini(cs_plan_ctx *c)
{
    free(c->memo);
    free(c->pend);
    free(c->fails);
    free(c->bound_load);
    c->bound_load = NULL;
    c->memo = NULL;
    c->pend = NULL;
    c->fails = NULL;
    c->n_memo = c->cap_memo = c->n_pend = c->cap_pend = c->n_fails = c->cap_fails = 0;
}
