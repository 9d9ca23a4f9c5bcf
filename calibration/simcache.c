/* simcache.c: memoised times of log-row candidates (calibration layer, simcache.h). An
 * open-addressing hash table of entries; an entry's key is the row's request, the
 * candidate, the id of the topology's figures (interned: every figure of the topology,
 * compared bit for bit) and the NCCL table as it reaches the candidate (bit for bit). */
#include "calibration/simcache.h"
#include "calibration/logsim.h"
#include "algorithms/nccl/mode.h"
#include "sim/time.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES (1 << 16)     /* the table is emptied when it would hold more (an entry
                                     is about 300 bytes) ... */
#define MAX_STATES 4096           /* ... or more topology states than this */

/* What a candidate's simulation reads, launch_us left out. Built in zeroed memory and
 * compared with memcmp. */
typedef struct cand_key {
    int32_t coll, ranks, root, elt_bytes;   /* the row's request */
    uint64_t bytes;
    const cs_topo *t;                       /* the topology (its structure) */
    const cs_algo *ops;                     /* the candidate */
    int32_t proto;
    int32_t topo_id;                        /* interned topology figures */
    cs_nccl_params np;                      /* the table as the candidate sees it */
} cand_key;

typedef struct entry {
    cand_key key;
    uint64_t hash;
    int rc;                   /* 0, or CS_EUNSUPP: the candidate cannot run */
    cs_time rest_ps;          /* the time less the launch cost, ps */
    cs_time launch_ps;        /* the launch cost it was simulated with, ps */
    int pending;              /* -1, or the ticket whose simulation gives rc and rest_ps
                                 (cs_simcache_ask: a batch's simulations run later) */
} entry;

/* Interned topology figures. */
typedef struct topo_state {
    double *v;                /* the figures (owned) */
    int n;                    /* entries in v */
    uint64_t hash;
} topo_state;

struct cs_simcache {
    entry *ent;               /* entries (owned) */
    int n_ent, cap_ent;
    int32_t *slot;            /* hash slots: entry index, -1 empty (owned) */
    int n_slot;               /* power of two, > 2 n_ent */
    topo_state *ts;           /* interned topology figures (owned) */
    int n_ts, cap_ts;
    const cs_topo *last_t;    /* the topology of the last lookup ... */
    int last_ts;              /* ... and its state, valid while its figures are unchanged */
    double *scratch;          /* topology figures being looked up (owned) */
    int cap_scratch;
    int verify;               /* simulate answers too and compare */
    int max_entries;          /* emptied beyond this many entries (MAX_ENTRIES) */
    long gen;                 /* times emptied: a waiting ticket's entry is gone if this
                                 changed since its ask */
    cs_simcache_stats st;     /* counters */
};

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

#define FNV0 14695981039346656037ull

int cs_simcache_new(cs_simcache **out, cs_err *err)
{
    cs_simcache *c = calloc(1, sizeof *c);
    if (!c)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    c->last_ts = -1;
    c->max_entries = MAX_ENTRIES;
    *out = c;
    return 0;
}

/* Forget every entry and topology state (the entries refer to the states). */
static void clear_all(cs_simcache *c)
{
    int i;
    free(c->ent);
    free(c->slot);
    c->ent = NULL;
    c->slot = NULL;
    c->n_ent = c->cap_ent = c->n_slot = 0;
    for (i = 0; i < c->n_ts; i++)
        free(c->ts[i].v);
    c->n_ts = 0;
    c->last_t = NULL;
    c->last_ts = -1;
    c->gen++;
}

void cs_simcache_free(cs_simcache *c)
{
    if (!c)
        return;
    clear_all(c);
    free(c->ts);
    free(c->scratch);
    free(c);
}

void cs_simcache_set_verify(cs_simcache *c, int on) { c->verify = on; }

void cs__simcache_set_max_entries(cs_simcache *c, int n)
{
    c->max_entries = n >= 1 && n <= MAX_ENTRIES ? n : MAX_ENTRIES;
}

void cs_simcache_stats_get(const cs_simcache *c, cs_simcache_stats *out)
{
    *out = c->st;
    out->topo_states = c->n_ts;
    out->entries = c->n_ent;
}

/* The id of t's figures: model, alpha-beta figures, reduce_GBps, every link's bandwidth
 * and latency (interned; -1 when out of memory). */
static int topo_key(cs_simcache *c, const cs_topo *t)
{
    int n = 4 + 2 * t->n_links, i;
    uint64_t h;
    if (n > c->cap_scratch) {
        double *v = realloc(c->scratch, (size_t)n * sizeof *v);
        if (!v)
            return -1;
        c->scratch = v;
        c->cap_scratch = n;
    }
    c->scratch[0] = (double)t->model;
    c->scratch[1] = t->ab_bw_GBps;
    c->scratch[2] = t->ab_lat_us;
    c->scratch[3] = t->reduce_GBps;
    for (i = 0; i < t->n_links; i++) {
        c->scratch[4 + 2 * i] = t->links[i].bw_GBps;
        c->scratch[5 + 2 * i] = t->links[i].lat_us;
    }
    /* The last state first: a model evaluation looks it up once per candidate. */
    if (c->last_t == t && c->last_ts >= 0 && c->ts[c->last_ts].n == n &&
        !memcmp(c->ts[c->last_ts].v, c->scratch, (size_t)n * sizeof *c->scratch))
        return c->last_ts;
    h = fnv(c->scratch, (size_t)n * sizeof *c->scratch, FNV0);
    for (i = c->n_ts - 1; i >= 0; i--)
        if (c->ts[i].hash == h && c->ts[i].n == n &&
            !memcmp(c->ts[i].v, c->scratch, (size_t)n * sizeof *c->scratch))
            break;
    if (i < 0) {
        if (c->n_ts >= MAX_STATES)
            clear_all(c);
        if (c->n_ts == c->cap_ts) {
            int cap = c->cap_ts ? 2 * c->cap_ts : 64;
            topo_state *nt = realloc(c->ts, (size_t)cap * sizeof *nt);
            if (!nt)
                return -1;
            c->ts = nt;
            c->cap_ts = cap;
        }
        if (!(c->ts[c->n_ts].v = malloc((size_t)n * sizeof *c->scratch)))
            return -1;
        memcpy(c->ts[c->n_ts].v, c->scratch, (size_t)n * sizeof *c->scratch);
        c->ts[c->n_ts].n = n;
        c->ts[c->n_ts].hash = h;
        i = c->n_ts++;
    }
    c->last_t = t;
    c->last_ts = i;
    return i;
}

/* The NVLS algorithms read the NVLS figures (mode.c's is_nvls). */
static int is_nvls(const cs_algo *ops)
{
    return !strcmp(ops->name, "in_network") || !strcmp(ops->name, "nvls");
}

/* The key of candidate (ops, pr) of row r: the table with launch_us out, the protocol
 * forced, the other protocols' entries and (but for NVLS) the NVLS figures cleared. */
static void make_key(cand_key *k, const cs_lrow *r, const cs_topo *t,
                     const cs_nccl_params *np, const cs_algo *ops, cs_proto pr, int topo_id)
{
    int q;
    memset(k, 0, sizeof *k);
    k->coll = (int32_t)r->coll;
    k->ranks = r->ranks;
    k->root = r->root;
    k->elt_bytes = r->elt_bytes;
    k->bytes = r->size_bytes;
    k->t = t;
    k->ops = ops;
    k->proto = (int32_t)pr;
    k->topo_id = topo_id;
    memcpy(&k->np, np, sizeof k->np);
    k->np.launch_us = 0;
    k->np.force_proto = (int)pr;
    for (q = 0; q < CS_PROTO_COUNT; q++)
        if (q != (int)pr)
            memset(&k->np.proto[q], 0, sizeof k->np.proto[q]);
    if (!is_nvls(ops)) {
        k->np.nvls_eff = 0;
        k->np.nvls_lat_us = 0;
    }
}

/* The launch cost of candidate (ops, pr) in ps, as the executor rounds it. */
static cs_time launch_ps(const cs_nccl_params *np, const cs_algo *ops, cs_proto pr)
{
    cs_sim_costs costs;
    memset(&costs, 0, sizeof costs);
    cs_nccl_costs(np, pr, is_nvls(ops), &costs);
    return cs_time_from_us(costs.launch_us);
}

/* Simulate candidate (ops, pr) of r: 0 and the time, CS_EUNSUPP, or another failure. */
/* Row r's request on t, and np with protocol pr forced, as a candidate runs them. */
static void row_req(const cs_lrow *r, const cs_topo *t, const cs_nccl_params *np, cs_proto pr,
                    cs_coll_req *req, cs_nccl_params *one)
{
    *one = *np;
    cs_coll_req_init(req, r->coll, r->ranks, r->size_bytes);
    req->root = r->root;
    req->elt_bytes = r->elt_bytes;
    req->topo = t;
    one->force_proto = (int)pr;
}

int cs_lrow_simulate(const cs_lrow *r, const cs_topo *t, const cs_nccl_params *np,
                     const cs_algo *ops, cs_proto pr, double *time_us, cs_nccl_extrap *ex,
                     cs_err *err)
{
    cs_nccl_params one;
    cs_coll_req req;
    cs_nccl_pick pick;
    int rc;
    row_req(r, t, np, pr, &req, &one);
    if ((rc = cs_nccl_simulate(&req, t, ops, &one, 0, &pick, NULL)) < 0) {
        if (rc == CS_EUNSUPP)
            return rc;
        /* run it again for the message */
        rc = cs_nccl_simulate(&req, t, ops, &one, 0, &pick, err);
        cs_err_prefix(err, r->log);
        return rc < 0 ? rc : CS_ESTATE;
    }
    *time_us = pick.time_us;
    if (ex)
        *ex = pick.ex;
    return 0;
}

int cs_lrow_extrap_plan(const cs_lrow *r, const cs_topo *t, const cs_nccl_params *np,
                        const cs_algo *ops, cs_proto pr, cs_nccl_extrap *ex)
{
    cs_nccl_params one;
    cs_coll_req req;
    row_req(r, t, np, pr, &req, &one);
    return cs_nccl_extrap_plan(&req, ops, &one, pr, ex);
}

static int find(const cs_simcache *c, const cand_key *k, uint64_t h)
{
    uint32_t m = (uint32_t)c->n_slot - 1, i;
    if (!c->n_slot)
        return -1;
    for (i = (uint32_t)h & m; c->slot[i] >= 0; i = (i + 1) & m) {
        const entry *e = &c->ent[c->slot[i]];
        if (e->hash == h && !memcmp(&e->key, k, sizeof *k))
            return c->slot[i];
    }
    return -1;
}

/* Room for one more entry (the table doubled): 0, 1 when it holds max_entries, or
 * CS_ENOMEM. */
static int reserve(cs_simcache *c)
{
    int i;
    if (c->n_ent >= c->max_entries)
        return 1;
    if (c->n_ent == c->cap_ent) {
        int cap = c->cap_ent ? 2 * c->cap_ent : 256;
        entry *ne = realloc(c->ent, (size_t)cap * sizeof *ne);
        if (!ne)
            return CS_ENOMEM;
        c->ent = ne;
        c->cap_ent = cap;
    }
    if (2 * (c->n_ent + 1) > c->n_slot) {
        int ns = c->n_slot ? 2 * c->n_slot : 1024;
        int32_t *sl = malloc((size_t)ns * sizeof *sl);
        if (!sl)
            return CS_ENOMEM;
        for (i = 0; i < ns; i++)
            sl[i] = -1;
        free(c->slot);
        c->slot = sl;
        c->n_slot = ns;
        for (i = 0; i < c->n_ent; i++) {
            uint32_t j, m = (uint32_t)ns - 1;
            for (j = (uint32_t)c->ent[i].hash & m; sl[j] >= 0; j = (j + 1) & m)
                ;
            sl[j] = i;
        }
    }
    return 0;
}

static int insert(cs_simcache *c, const cand_key *k, uint64_t h, int rc, cs_time rest,
                  cs_time lps, int pending)
{
    uint32_t j, m;
    entry *e;
    int rc_r = reserve(c);
    if (rc_r != 0)
        return rc_r;             /* full (1) or out of memory */
    e = &c->ent[c->n_ent];
    memcpy(&e->key, k, sizeof *k);
    e->hash = h;
    e->rc = rc;
    e->rest_ps = rest;
    e->launch_ps = lps;
    e->pending = pending;
    m = (uint32_t)c->n_slot - 1;
    for (j = (uint32_t)h & m; c->slot[j] >= 0; j = (j + 1) & m)
        ;
    c->slot[j] = c->n_ent++;
    return 0;
}

int cs_simcache_time(cs_simcache *c, const cs_lrow *r, const cs_topo *t,
                     const cs_nccl_params *np, const cs_algo *ops, cs_proto pr,
                     double *time_us, cs_err *err)
{
    cand_key k;
    cs_time lps = launch_ps(np, ops, pr);
    uint64_t h;
    int id = topo_key(c, t), at, rc;
    double sim_us = 0;
    if (id < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    c->st.lookups++;
    make_key(&k, r, t, np, ops, pr, id);
    h = fnv(&k, sizeof k, FNV0);
    if ((at = find(c, &k, h)) >= 0) {
        const entry *e = &c->ent[at];
        if (e->rc == 0)
            *time_us = cs_time_to_us(e->rest_ps + lps);
        if (e->launch_ps == lps)
            c->st.hits++;
        else
            c->st.hits_launch++;
        if (c->verify) {
            rc = cs_lrow_simulate(r, t, np, ops, pr, &sim_us, NULL, err);
            if (rc != e->rc || (rc == 0 && sim_us != *time_us))
                return cs_err_set(err, CS_ESTATE, r->log, "cached time of %s/%s at %llu "
                                  "bytes differs from the simulated one (%.6f vs %.6f us)",
                                  ops->name, cs_proto_name(pr),
                                  (unsigned long long)r->size_bytes, *time_us, sim_us);
        }
        return e->rc;
    }
    c->st.simulated++;
    rc = cs_lrow_simulate(r, t, np, ops, pr, &sim_us, NULL, err);
    if (rc < 0 && rc != CS_EUNSUPP)
        return rc;
    at = insert(c, &k, h, rc, rc == 0 ? llround(sim_us * CS_PS_PER_US) - lps : 0, lps, -1);
    if (at == 1) {
        /* full: start afresh (the key's topology state may be gone with the rest) */
        clear_all(c);
        if ((id = topo_key(c, t)) < 0)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        make_key(&k, r, t, np, ops, pr, id);
        at = insert(c, &k, fnv(&k, sizeof k, FNV0), rc,
                    rc == 0 ? llround(sim_us * CS_PS_PER_US) - lps : 0, lps, -1);
    }
    if (at < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if (rc == 0)
        *time_us = sim_us;
    return rc;
}

/* The deferred lookups (simcache.h): cs_simcache_time's steps with the simulation taken
 * out. A miss inserts an entry at once that waits for its ticket's simulation, so that a
 * later ask of the same key counts a hit (as it would after cs_simcache_time) and is
 * answered from that simulation when settled. */
int cs_simcache_ask(cs_simcache *c, const cs_lrow *r, const cs_topo *t,
                    const cs_nccl_params *np, const cs_algo *ops, cs_proto pr, int self,
                    cs_simcache_ticket *tk, cs_err *err)
{
    cand_key k;
    cs_time lps = launch_ps(np, ops, pr);
    uint64_t h;
    int id = topo_key(c, t), at;
    if (id < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    memset(tk, 0, sizeof *tk);
    tk->lps = lps;
    tk->owner = -1;
    c->st.lookups++;
    make_key(&k, r, t, np, ops, pr, id);
    h = fnv(&k, sizeof k, FNV0);
    if ((at = find(c, &k, h)) >= 0) {
        const entry *e = &c->ent[at];
        if (e->launch_ps == lps)
            c->st.hits++;
        else
            c->st.hits_launch++;
        tk->verify = c->verify;
        if (e->pending >= 0) {
            tk->how = CS_SC_PEND;
            tk->owner = e->pending;
        } else {
            tk->how = CS_SC_HIT;
            tk->rc = e->rc;
            if (e->rc == 0)
                tk->time_us = cs_time_to_us(e->rest_ps + lps);
        }
        return 0;
    }
    c->st.simulated++;
    tk->how = CS_SC_SIM;
    at = insert(c, &k, h, 0, 0, lps, self);
    if (at == 1) {
        /* full: start afresh, as cs_simcache_time */
        clear_all(c);
        if ((id = topo_key(c, t)) < 0)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        make_key(&k, r, t, np, ops, pr, id);
        at = insert(c, &k, fnv(&k, sizeof k, FNV0), 0, 0, lps, self);
    }
    if (at < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    tk->entry = c->n_ent - 1;
    tk->gen = c->gen;
    return 0;
}

int cs_simcache_settle(cs_simcache *c, cs_simcache_ticket *tk, int i, const cs_lrow *r,
                       const cs_algo *ops, cs_proto pr, double *time_us, cs_err *err)
{
    cs_simcache_ticket *k = &tk[i];
    int rc;
    if (k->how == CS_SC_SIM) {
        if (k->sim_rc < 0 && k->sim_rc != CS_EUNSUPP)
            return CS_ESTATE;       /* the caller reports the simulation's failure */
        if (k->gen == c->gen && k->entry < c->n_ent && c->ent[k->entry].pending == i) {
            entry *e = &c->ent[k->entry];
            e->rc = k->sim_rc;
            e->rest_ps = k->sim_rc == 0 ? llround(k->sim_us * CS_PS_PER_US) - k->lps : 0;
            e->pending = -1;
        }
        if (k->sim_rc == 0)
            *time_us = k->sim_us;
        return k->sim_rc;
    }
    if (k->how == CS_SC_PEND) {
        /* the entry as its owner's settle filled it */
        const cs_simcache_ticket *o = &tk[k->owner];
        k->rc = o->sim_rc;
        if (o->sim_rc == 0)
            k->time_us = cs_time_to_us(llround(o->sim_us * CS_PS_PER_US) - o->lps + k->lps);
    }
    if (k->rc == 0)
        *time_us = k->time_us;
    if (k->verify) {
        rc = k->sim_rc;
        if (rc != k->rc || (rc == 0 && k->sim_us != k->time_us))
            return cs_err_set(err, CS_ESTATE, r->log, "cached time of %s/%s at %llu "
                              "bytes differs from the simulated one (%.6f vs %.6f us)",
                              ops->name, cs_proto_name(pr),
                              (unsigned long long)r->size_bytes, k->time_us, k->sim_us);
    }
    return k->rc;
}

void cs_simcache_abandon(cs_simcache *c)
{
    int i;
    for (i = 0; i < c->n_ent && c->ent[i].pending < 0; i++)
        ;
    if (i < c->n_ent)
        clear_all(c);
}
