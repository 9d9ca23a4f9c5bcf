/* test_threads.c: issue 12, a calibration's model evaluations on threads (calibration/
 * logsim_par.c, sim/pool.c, topology views). A sequence of evaluations -- every candidate,
 * the viable ones after a bandwidth change, pinned rows after a launch and a protocol
 * change, the full selection, pinned rows at three points at once (the Jacobian's
 * columns) -- gives the serial code's times bit for bit, the same
 * choices and the same cache counters for 1, 2 and 3 threads, with and without the cache,
 * in verify mode, with a cache that empties in the middle of a batch, and with rows that
 * repeat (answered by another task's simulation), and with long trees across nodes whose
 * times extend the same two shorter runs (answered by the first such row's runs). The
 * threads' work counters (simulations, and long trees answered by another row's runs) add
 * up to the simulations the cache counted, or to the candidates the sequence asks for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "calibration/calibrate.h"
#include "calibration/simcache.h"
#include "sim/pool.h"
#include "topologies/topology.h"

#define A3MEGA CS_TEST_DATA "/../../calibration/a3mega-2node.json"
#define A3LOG CS_TEST_DATA "/real/nccl-h100-2n16-allreduce-gcp-a3mega.log"
#define P5LOG CS_TEST_DATA "/real/nccl-h100-p5-2n16-allreduce-efa.log"
#define PAIR CS_TEST_DATA "/../../calibration/rtx2080ti-pair.json"
#define PAIR_AR CS_TEST_DATA "/real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log"

#define MAXR 64
#define STEPS 6

/* The rows after one evaluation. */
typedef struct snap {
    double us[MAXR];
    const cs_algo *ops[MAXR];
    cs_proto pr[MAXR];
    int n_viable[MAXR];
    const cs_algo *va[MAXR][CS_LROW_MAX_CAND];
    cs_proto vp[MAXR][CS_LROW_MAX_CAND];
} snap;

/* A sequence's results. */
typedef struct run_out {
    snap s[STEPS];
    double pts[3 * MAXR];     /* step 7: three points at once */
    int n_rows;
    int n_distinct;           /* distinct rows step 6 (cs_lset_simulate) simulated */
    cs_simcache_stats st;     /* the cache's counters at the end (zero without) */
    cs_lpar_work w;           /* the threads' counters (zero for the serial code) */
} run_out;

/* How a sequence runs. */
typedef struct run_how {
    const char *topo, *log;   /* start topology and log */
    int copies;               /* the log given this many times (its rows repeat) */
    cs_coll coll;             /* collective of a log that does not name it */
    uint64_t max_bytes;       /* rows up to this size */
    int threads;              /* 0: the serial code (no cs_lpar) */
    int cache;                /* 0 none, 1 cache, 2 cache in verify mode */
    int max_entries;          /* 0, or the cache's room (empties when full) */
    uint64_t min_bytes;       /* rows from this size */
    int start_protos;         /* 1: the start's protocols (else all three) */
} run_how;

static void take(const cs_lset *ls, snap *s)
{
    int i;
    memset(s, 0, sizeof *s);
    for (i = 0; i < ls->n_rows; i++) {
        const cs_lrow *r = &ls->rows[i];
        s->us[i] = r->simulated_us;
        s->ops[i] = r->algo_ops;
        s->pr[i] = r->proto;
        s->n_viable[i] = r->n_viable;
        memcpy(s->va[i], r->viable_algo, sizeof s->va[i]);
        memcpy(s->vp[i], r->viable_proto, sizeof s->vp[i]);
    }
}

static void scale_links(cs_topo *t, double f)
{
    int i;
    for (i = 0; i < t->n_links; i++)
        t->links[i].bw_GBps *= f;
}

/* Step 7's points, each from the one before: every link 5% faster; the launch cost 1 us
 * more; the links back and LL's hop 0.25 us more (the last point's links are not the
 * first's). */
typedef struct pts_ctx {
    cs_topo *t;
    cs_nccl_params *np;
} pts_ctx;

static void set_pt(void *ctx, int j)
{
    pts_ctx *c = ctx;
    if (j == 0)
        scale_links(c->t, 1.05);
    if (j == 1)
        c->np->launch_us += 1.0;
    if (j == 2) {
        scale_links(c->t, 1.0 / 1.05);
        c->np->proto[CS_PROTO_LL].hop_us += 0.25;
    }
}

static void run_seq(const run_how *h, run_out *out)
{
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_lset ls;
    cs_lset_opts lo;
    cs_simcache *c = NULL;
    cs_lpar *par = NULL;
    cs_err err;
    char *paths[4];
    int on, i, k = 0;
    memset(out, 0, sizeof *out);
    memset(&lo, 0, sizeof lo);
    lo.default_coll = h->coll;
    lo.max_bytes = h->max_bytes;
    lo.min_bytes = h->min_bytes;
    for (i = 0; i < h->copies; i++)
        paths[i] = (char *)(uintptr_t)h->log;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(h->topo, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(h->topo, NULL, 1, &np, &on, &err), 0);
    if (!h->start_protos) {
        np.proto[CS_PROTO_LL].enabled = 1;  /* three protocols, whatever the start says */
        np.proto[CS_PROTO_LL128].enabled = 1;
    }
    CU_ASSERT_EQUAL_FATAL(cs_lset_load(&ls, paths, h->copies, &lo, t, &err), 0);
    CU_ASSERT_FATAL(ls.n_rows <= MAXR);
    out->n_rows = ls.n_rows;
    if (h->cache) {
        CU_ASSERT_EQUAL_FATAL(cs_simcache_new(&c, &err), 0);
        cs_simcache_set_verify(c, h->cache == 2);
        if (h->max_entries)
            cs__simcache_set_max_entries(c, h->max_entries);
        ls.cache = c;
    }
    if (h->threads) {
        CU_ASSERT_EQUAL_FATAL(cs_lpar_new(h->threads, &par, &err), 0);
        CU_ASSERT_EQUAL(cs_lpar_threads(par), h->threads);
        ls.par = par;
    }
    /* 1. every candidate */
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_viable(&ls, t, &np, NULL, 1, 1.5, &err), 0);
    take(&ls, &out->s[k++]);
    /* 2. the viable ones, every link 10% faster */
    scale_links(t, 1.1);
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_viable(&ls, t, &np, NULL, 0, 1.5, &err), 0);
    take(&ls, &out->s[k++]);
    /* 3. pinned, another launch cost (the cache shifts its times) */
    np.launch_us += 3.0;
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_pinned(&ls, t, &np, &err), 0);
    take(&ls, &out->s[k++]);
    /* 4. pinned, LL's per-transfer latency */
    np.proto[CS_PROTO_LL].hop_us += 0.5;
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_pinned(&ls, t, &np, &err), 0);
    take(&ls, &out->s[k++]);
    /* 5. the viable ones at the first figures again (the cache knows them) */
    scale_links(t, 1.0 / 1.1);
    np.launch_us -= 3.0;
    np.proto[CS_PROTO_LL].hop_us -= 0.5;
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_viable(&ls, t, &np, NULL, 0, 1.5, &err), 0);
    take(&ls, &out->s[k++]);
    /* 6. NCCL's full selection (cs_lset_simulate: its rows on the threads) */
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate(&ls, t, &np, NULL, &err), 0);
    out->n_distinct = ls.n_distinct;
    take(&ls, &out->s[k++]);
    /* 7. pinned at three points at once (the Jacobian's columns) */
    {
        pts_ctx pc = {t, &np};
        CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_pinned_points(&ls, t, &np, 3, set_pt, &pc,
                                                             out->pts, &err), 0);
        CU_ASSERT(ls.rows[0].simulated_us == out->pts[2 * ls.n_rows]);   /* the last */
    }
    if (c)
        cs_simcache_stats_get(c, &out->st);
    if (par)
        cs_lpar_work_get(par, &out->w);
    ls.cache = NULL;
    ls.par = NULL;
    cs_simcache_free(c);
    cs_lpar_free(par);
    cs_lset_fini(&ls);
    cs_topo_free(t);
}

/* Candidates asked for by the sequence without a cache: step 1 every candidate (cand per
 * row), steps 2 and 5 the viable ones of step 1, steps 3 and 4 one task per row, step 6
 * one per distinct row, step 7 three per row. */
static long asked(const run_out *o, int cand)
{
    long n = 0;
    int i;
    for (i = 0; i < o->n_rows; i++)
        n += cand + 2 * o->s[0].n_viable[i] + 5;
    return n + o->n_distinct;     /* step 6: each distinct row once */
}

static long work_sum(const cs_lpar_work *w)
{
    long n = 0;
    int i;
    for (i = 0; i < CS_POOL_MAX_THREADS; i++)
        n += w->per_thread[i];
    return n;
}

/* The sequence on 1, 2 and 3 threads gives the serial code's rows and counters. */
static void same_as_serial(run_how h, int cand)
{
    static run_out ref, got;
    int n, k;
    h.threads = 0;
    run_seq(&h, &ref);
    for (n = 1; n <= 3; n++) {
        h.threads = n;
        run_seq(&h, &got);
        CU_ASSERT_EQUAL(got.n_rows, ref.n_rows);
        for (k = 0; k < STEPS; k++)       /* bit for bit: times, choices, viable lists */
            CU_ASSERT(memcmp(&got.s[k], &ref.s[k], sizeof ref.s[k]) == 0);
        CU_ASSERT(memcmp(got.pts, ref.pts, sizeof ref.pts) == 0);
        CU_ASSERT(memcmp(&got.st, &ref.st, sizeof ref.st) == 0);
        /* every simulation ran on exactly one thread, only threads 0..n-1 ran any */
        CU_ASSERT_EQUAL(work_sum(&got.w), got.w.tasks);
        for (k = n; k < CS_POOL_MAX_THREADS; k++)
            CU_ASSERT_EQUAL(got.w.per_thread[k], 0);
        if (!h.cache)
            CU_ASSERT_EQUAL(got.w.tasks + got.w.shared, asked(&ref, cand));
        if (h.cache == 1)       /* the cache's misses, and step 6's distinct rows */
            CU_ASSERT_EQUAL(got.w.tasks + got.w.shared, got.st.simulated + got.n_distinct);
        if (h.cache == 2)       /* verify: the answers from the cache are simulated too */
            CU_ASSERT_EQUAL(got.w.tasks + got.w.shared, got.st.lookups + got.n_distinct);
    }
    if (h.cache)
        CU_ASSERT_EQUAL(ref.st.lookups, ref.st.simulated + ref.st.hits + ref.st.hits_launch);
}

static const run_how A3 = {A3MEGA, A3LOG, 1, CS_LOG_COLL_UNKNOWN, 256u << 10, 0, 1, 0, 0, 0};

static void t_a3_cache(void) { same_as_serial(A3, 6); }

static void t_a3_nocache(void)
{
    run_how h = A3;
    h.cache = 0;
    same_as_serial(h, 6);
}

static void t_a3_verify(void)
{
    run_how h = A3;
    h.cache = 2;
    same_as_serial(h, 6);
}

/* The log twice: every candidate is asked twice in one batch, the second answered by the
 * first one's simulation; a cache of 40 entries empties in the middle of the batches. */
static void t_a3_repeats(void)
{
    run_how h = A3;
    static run_out o;
    h.copies = 2;
    h.max_bytes = 64u << 10;
    same_as_serial(h, 6);
    h.threads = 2;
    run_seq(&h, &o);
    CU_ASSERT(o.st.hits >= 6 * o.n_rows / 2);  /* step 1: every repeat answered */
    h.max_entries = 40;
    same_as_serial(h, 6);
}

/* A3 Mega's five largest sizes, 512 MiB - 8 GiB, on its start (Simple only): the trees'
 * rows from 2 GiB extend two shorter runs, the same at every size (mode.h cs_nccl_extrap),
 * which the threads run once per evaluation. Serial and threads: the same bits. */
static const run_how A3BIG = {A3MEGA, A3LOG, 1, CS_LOG_COLL_UNKNOWN, 0, 0, 1, 0, 512u << 20, 1};

static void t_a3_long_trees(void)
{
    run_how h = A3BIG;
    same_as_serial(h, 2);
    h.cache = 0;
    same_as_serial(h, 2);
    /* One evaluation of every candidate (ring, tree) on 2 threads, by hand: 16 trees (8
     * channels of tree pairs) of 1 MiB pieces (Simple's step: 8 MiB / 8) are 32, 64, 128,
     * 256 and 512 pieces a tree at 512 MiB ... 8 GiB; from 64 pieces a tree runs 64 and
     * 32 (mode.c TREE_SIM_PIECES): 2 GiB's tree runs them, 4 and 8 GiB's extend its line
     * and 1 GiB's is its 64-piece run. 10 candidates, 3 not simulated. */
    {
        cs_topo *t = NULL;
        cs_nccl_params np;
        cs_lset ls;
        cs_lset_opts lo;
        cs_lpar *par = NULL;
        cs_lpar_work w;
        cs_err err;
        char *paths[1] = {(char *)(uintptr_t)A3LOG};
        int on, i;
        memset(&lo, 0, sizeof lo);
        lo.default_coll = CS_LOG_COLL_UNKNOWN;
        lo.min_bytes = 512u << 20;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(A3MEGA, &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(A3MEGA, NULL, 1, &np, &on, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_lset_load(&ls, paths, 1, &lo, t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(ls.n_rows, 5);
        CU_ASSERT_EQUAL_FATAL(cs_lpar_new(2, &par, &err), 0);
        ls.par = par;
        CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_viable(&ls, t, &np, NULL, 1, 1.5, &err), 0);
        cs_lpar_work_get(par, &w);
        CU_ASSERT_EQUAL(w.tasks, 7);
        CU_ASSERT_EQUAL(w.shared, 3);
        /* each row's time is its fastest candidate's, simulated alone */
        for (i = 0; i < ls.n_rows; i++) {
            const cs_lrow *r = &ls.rows[i];
            double ring_us, tree_us;
            const cs_algo *ring, *tree;
            CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", r->coll, &ring, &err), 0);
            CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("double_binary_tree", r->coll, &tree, &err), 0);
            CU_ASSERT_EQUAL_FATAL(cs_lrow_simulate(r, t, &np, ring, CS_PROTO_SIMPLE, &ring_us,
                                                   NULL, &err), 0);
            CU_ASSERT_EQUAL_FATAL(cs_lrow_simulate(r, t, &np, tree, CS_PROTO_SIMPLE, &tree_us,
                                                   NULL, &err), 0);
            CU_ASSERT(r->simulated_us == (ring_us < tree_us ? ring_us : tree_us));
        }
        ls.par = NULL;
        cs_lpar_free(par);
        cs_lset_fini(&ls);
        cs_topo_free(t);
    }
}

/* validate's rows (issue 30): the A3 Mega log three times over, 15 rows, simulates its 5
 * distinct (collective, ranks, size) rows once each, serially and on 2 threads; every copy
 * gets the time of the log alone, and the progress is told once, 5 of 5 (64 rows a part). */
static int g_calls, g_done, g_total;
static void count_progress(void *ctx, int done, int total)
{
    (void)ctx;
    g_calls++;
    g_done = done;
    g_total = total;
}

static void t_distinct_rows(void)
{
    int threads;
    for (threads = 1; threads <= 2; threads++) {
        cs_topo *t = NULL;
        cs_nccl_params np;
        cs_lset one, ls;
        cs_lset_opts lo;
        cs_lpar *par = NULL;
        cs_err err;
        char *paths[3] = {(char *)(uintptr_t)A3LOG, (char *)(uintptr_t)A3LOG,
                          (char *)(uintptr_t)A3LOG};
        int on, i;
        memset(&lo, 0, sizeof lo);
        memset(&one, 0, sizeof one);
        memset(&ls, 0, sizeof ls);
        lo.default_coll = CS_LOG_COLL_UNKNOWN;
        lo.min_bytes = 512u << 20;
        CU_ASSERT_EQUAL_FATAL(cs_topo_open(A3MEGA, &t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(A3MEGA, NULL, 1, &np, &on, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_lset_load(&one, paths, 1, &lo, t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_lset_simulate(&one, t, &np, NULL, &err), 0);
        CU_ASSERT_EQUAL(one.n_distinct, 5);
        CU_ASSERT_EQUAL_FATAL(cs_lset_load(&ls, paths, 3, &lo, t, &err), 0);
        CU_ASSERT_EQUAL_FATAL(ls.n_rows, 15);
        if (threads > 1) {
            CU_ASSERT_EQUAL_FATAL(cs_lpar_new(threads, &par, &err), 0);
            ls.par = par;
        }
        g_calls = g_done = g_total = 0;
        ls.progress = count_progress;
        CU_ASSERT_EQUAL_FATAL(cs_lset_simulate(&ls, t, &np, NULL, &err), 0);
        CU_ASSERT_EQUAL(ls.n_distinct, 5);
        CU_ASSERT_EQUAL(g_calls, 1);
        CU_ASSERT_EQUAL(g_done, 5);
        CU_ASSERT_EQUAL(g_total, 5);
        for (i = 0; i < ls.n_rows; i++) {
            CU_ASSERT(ls.rows[i].simulated_us == one.rows[i % 5].simulated_us);
            CU_ASSERT(ls.rows[i].algo_ops == one.rows[i % 5].algo_ops);
            CU_ASSERT(ls.rows[i].proto == one.rows[i % 5].proto);
        }
        ls.par = NULL;
        cs_lpar_free(par);
        cs_lset_fini(&ls);
        cs_lset_fini(&one);
        cs_topo_free(t);
    }
}

/* AWS p5 on the dgx-h100-x2 preset: a cluster kind whose route_fn keeps state (routing
 * under the lock, views with their own route caches), NVLS among the candidates, twin
 * ring channels simulated on scaled capacities (cs_sim_once_scaled). */
static void t_p5(void)
{
    run_how h = {"dgx-h100-x2", P5LOG, 1, CS_COLL_ALLREDUCE, 1u << 20, 0, 1, 0, 0, 0};
    same_as_serial(h, 0);
}

/* A whole calibration on 1 and 3 threads: the same fit, bit for bit. */
static void fit(int threads, cs_calib *c, double *sim, int *n_rows)
{
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_lset ls;
    cs_lset_opts lo;
    cs_calib_opts co;
    cs_err err;
    char *logs[1] = {(char *)(uintptr_t)PAIR_AR};
    int on, i;
    memset(&lo, 0, sizeof lo);
    lo.default_coll = CS_LOG_COLL_UNKNOWN;
    memset(&co, 0, sizeof co);
    co.topo_spec = PAIR;
    co.max_iter = 100;
    co.ls = &lo;
    co.logs = logs;
    co.n_logs = 1;
    co.threads = threads;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(PAIR, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(PAIR, NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_lset_load(&ls, logs, 1, &lo, t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_calib_run(c, t, &np, &ls, &co, &err), 0);
    CU_ASSERT(ls.par == NULL);
    CU_ASSERT_FATAL(ls.n_rows <= MAXR);
    for (i = 0; i < ls.n_rows; i++)
        sim[i] = ls.rows[i].simulated_us;
    *n_rows = ls.n_rows;
    cs_calib_fini(c);
    cs_lset_fini(&ls);
    cs_topo_free(t);
}

static void t_calibrate(void)
{
    static cs_calib a, b;
    double sa[MAXR], sb[MAXR];
    int na, nb, i;
    fit(1, &a, sa, &na);
    fit(3, &b, sb, &nb);
    CU_ASSERT_EQUAL_FATAL(na, nb);
    CU_ASSERT(memcmp(sa, sb, (size_t)na * sizeof *sa) == 0);
    CU_ASSERT_EQUAL(a.n_par, b.n_par);
    for (i = 0; i < a.n_par; i++) {
        CU_ASSERT(memcmp(&a.par[i].value, &b.par[i].value, sizeof(double)) == 0);
        CU_ASSERT(memcmp(&a.par[i].sigma, &b.par[i].sigma, sizeof(double)) == 0);
    }
    CU_ASSERT(memcmp(&a.fr.cost, &b.fr.cost, sizeof(double)) == 0);
    CU_ASSERT_EQUAL(a.n_evals, b.n_evals);
    /* the pair's file states no channels: NCCL's plan for its 2 ranks (2 channels of 3
     * GB/s, test_search.c) became the table's, and its cap a parameter */
    CU_ASSERT_EQUAL(a.plan_ranks, 2);
    CU_ASSERT(a.p_chan >= 0 && a.start[a.p_chan] == 3.0);
    CU_ASSERT_EQUAL(a.n_pinned, b.n_pinned);
    CU_ASSERT(memcmp(&a.reuse, &b.reuse, sizeof a.reuse) == 0);
}

/* The pool: every item once, the counters add up, more threads than items is fine. */
typedef struct pool_ctx {
    int ran[100];
    int by[100];
} pool_ctx;

static void count_item(void *ctx, int worker, int item)
{
    pool_ctx *c = ctx;
    c->ran[item]++;
    c->by[item] = worker;
}

static void t_pool(void)
{
    static const int threads[] = {1, 2, 3, 7, 200};
    pool_ctx c;
    long per[CS_POOL_MAX_THREADS];
    int order[100], i, k, n, ran;
    for (i = 0; i < 100; i++)
        order[i] = 99 - i;
    for (k = 0; k < 5; k++) {
        memset(&c, 0, sizeof c);
        memset(per, 0, sizeof per);
        ran = cs_pool_run(threads[k], 100, order, count_item, &c, per);
        CU_ASSERT(ran >= 1 && ran <= (threads[k] < CS_POOL_MAX_THREADS ? threads[k]
                                                                      : CS_POOL_MAX_THREADS));
        for (i = 0, n = 0; i < 100; i++) {
            CU_ASSERT_EQUAL(c.ran[i], 1);
            CU_ASSERT(c.by[i] >= 0 && c.by[i] < ran);
        }
        for (i = 0; i < CS_POOL_MAX_THREADS; i++)
            n += (int)per[i];
        CU_ASSERT_EQUAL(n, 100);
    }
    /* no items: nothing runs */
    memset(per, 0, sizeof per);
    CU_ASSERT_EQUAL(cs_pool_run(4, 0, NULL, count_item, &c, per), 1);
    CU_ASSERT_EQUAL(per[0], 0);
}

/* A view routes as its topology (the same dlinks for every rank pair) from its own cache,
 * and takes the topology's figures when synced. */
static void t_view(void)
{
    cs_topo *t = NULL, *v = NULL;
    cs_err err;
    int i, j, k;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_topo_view_new(t, &v, &err), 0);
    CU_ASSERT(v->cache != t->cache);
    CU_ASSERT(v->links != t->links);
    for (i = 0; i < t->n_ranks; i++)
        for (j = 0; j < t->n_ranks; j++) {
            const int32_t *a, *b;
            int na = cs_topo_route(t, t->ranks[i], t->ranks[j], &a, &err);
            int nb = cs_topo_route(v, v->ranks[i], v->ranks[j], &b, &err);
            CU_ASSERT_EQUAL(na, nb);
            CU_ASSERT(i == j || a != b);        /* each from its own cache */
            for (k = 0; k < na && k < nb; k++)
                CU_ASSERT_EQUAL(a[k], b[k]);
        }
    t->reduce_GBps = 123.5;
    t->links[3].bw_GBps = 7.25;
    CU_ASSERT(v->reduce_GBps != 123.5);
    CU_ASSERT(v->links[3].bw_GBps != 7.25);
    cs_topo_view_sync(v, t);
    CU_ASSERT(v->reduce_GBps == 123.5);
    CU_ASSERT(v->links[3].bw_GBps == 7.25);
    cs_topo_view_free(v);
    cs_topo_free(t);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"threads: every candidate, viable, pinned, full selection as serial (cache)",
         t_a3_cache},
        {"threads: the same without a cache", t_a3_nocache},
        {"threads: the same in verify mode", t_a3_verify},
        {"threads: repeated rows, a cache that empties mid-batch", t_a3_repeats},
        {"threads: long trees extend one pair of runs per evaluation (A3 Mega 512 MiB-8 GiB)",
         t_a3_long_trees},
        {"validate: each distinct row simulated once, serially and on threads",
         t_distinct_rows},
        {"threads: p5 on dgx-h100-x2 (route_fn, NVLS, twin channels)", t_p5},
        {"threads: a calibration on 1 and 3 threads fits the same bits", t_calibrate},
        {"pool: every item once, per-thread counts add up", t_pool},
        {"topology view: same routes, own cache, synced figures", t_view},
        {NULL, NULL}};
    return cs_test_add_suite("threads", cases);
}
