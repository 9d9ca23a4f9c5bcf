/* test_calspeed.c: issue 12, calibration speed. Candidate times memoised between the fit's
 * evaluations (calibration/simcache.c) are the simulated ones bit for bit; the counters
 * say what was simulated: a repeat, a change of the launch cost, or of another protocol's
 * figures, simulates nothing; a change of a link class simulates every candidate again;
 * a Jacobian column of one protocol's figure re-simulates exactly the rows pinned to that
 * protocol. A whole calibration with reuse gives the same fit as without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"
#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "calibration/calibrate.h"
#include "calibration/simcache.h"
#include "sim/time.h"
#include "sim/engine.h"
#include "sim/engine-private.h"
#include "sim/exec.h"
#include "topologies/topology.h"

#define A3MEGA CS_TEST_DATA "/../../calibration/a3mega-2node.json"
#define A3LOG CS_TEST_DATA "/real/nccl-h100-2n16-allreduce-gcp-a3mega.log"
#define PAIR CS_TEST_DATA "/../../calibration/rtx2080ti-pair.json"
#define PAIR_AR CS_TEST_DATA "/real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log"
#define PAIR_A2A CS_TEST_DATA "/real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log"

/* The candidate simulated directly (the path without a cache). */
static double direct(const cs_lrow *r, const cs_topo *t, const cs_nccl_params *np,
                     const cs_algo *ops, cs_proto pr)
{
    cs_nccl_params one = *np;
    cs_coll_req req;
    cs_nccl_pick pick;
    cs_err err;
    cs_coll_req_init(&req, r->coll, r->ranks, r->size_bytes);
    req.root = r->root;
    req.elt_bytes = r->elt_bytes;
    req.topo = t;
    one.force_proto = (int)pr;
    CU_ASSERT_EQUAL_FATAL(cs_nccl_simulate(&req, t, ops, &one, 0, &pick, &err), 0);
    return pick.time_us;
}

static void scale_class(cs_topo *t, const char *cls, double f)
{
    int i;
    for (i = 0; i < t->n_links; i++)
        if (!strcmp(t->links[i].cls, cls))
            t->links[i].bw_GBps *= f;
}

/* One candidate looked up again and again while figures change. */
static void t_cache_answers(void)
{
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_simcache *c = NULL;
    cs_simcache_stats st;
    cs_err err;
    cs_lrow r;
    const cs_algo *ring, *nvls;
    double t1, t2, t3, t4, t5, ref;
    int on;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("nvls", CS_COLL_ALLREDUCE, &nvls, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_simcache_new(&c, &err), 0);
    memset(&r, 0, sizeof r);
    r.log = "test";
    r.coll = CS_COLL_ALLREDUCE;
    r.ranks = 16;
    r.size_bytes = 4u << 20;
    r.elt_bytes = 4;
    np.launch_us = 0;
    /* first: simulated */
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_SIMPLE, &t1, &err), 0);
    ref = direct(&r, t, &np, ring, CS_PROTO_SIMPLE);
    CU_ASSERT(t1 == ref);
    /* the same: from the cache */
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_SIMPLE, &t2, &err), 0);
    CU_ASSERT(t2 == t1);
    cs_simcache_stats_get(c, &st);
    CU_ASSERT_EQUAL(st.lookups, 2);
    CU_ASSERT_EQUAL(st.simulated, 1);
    CU_ASSERT_EQUAL(st.hits, 1);
    /* launch 7.25 us: shifted by 7.25 us exactly (base 8.4 + 0 -> 8.4 + 7.25 us, both
     * whole picoseconds), and the same as simulating */
    np.launch_us = 7.25;
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_SIMPLE, &t3, &err), 0);
    CU_ASSERT_EQUAL(cs_time_from_us(t3) - cs_time_from_us(t1), 7250000);
    CU_ASSERT(t3 == direct(&r, t, &np, ring, CS_PROTO_SIMPLE));
    /* another protocol's figures do not touch this candidate */
    np.proto[CS_PROTO_LL].hop_us = 3.0;
    np.proto[CS_PROTO_LL128].bw_eff = 0.5;
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_SIMPLE, &t4, &err), 0);
    CU_ASSERT(t4 == t3);
    cs_simcache_stats_get(c, &st);
    CU_ASSERT_EQUAL(st.simulated, 1);
    CU_ASSERT_EQUAL(st.hits, 1);          /* the repeat */
    CU_ASSERT_EQUAL(st.hits_launch, 2);   /* launch 7.25 us against the 0 simulated */
    /* a link class at half its bandwidth: simulated again, slower */
    scale_class(t, "nvlink4", 0.5);
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_SIMPLE, &t5, &err), 0);
    CU_ASSERT(t5 == direct(&r, t, &np, ring, CS_PROTO_SIMPLE));
    CU_ASSERT(t5 > t4);
    /* and back: the first figures are known again */
    scale_class(t, "nvlink4", 2.0);
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_SIMPLE, &t5, &err), 0);
    CU_ASSERT(t5 == t4);
    cs_simcache_stats_get(c, &st);
    CU_ASSERT_EQUAL(st.simulated, 2);
    CU_ASSERT_EQUAL(st.topo_states, 2);
    /* a candidate that cannot run is remembered too: NVLS runs Simple only */
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, nvls, CS_PROTO_LL, &t5, &err), CS_EUNSUPP);
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, nvls, CS_PROTO_LL, &t5, &err), CS_EUNSUPP);
    cs_simcache_stats_get(c, &st);
    CU_ASSERT_EQUAL(st.simulated, 3);
    CU_ASSERT_EQUAL(st.lookups, 8);
    CU_ASSERT_EQUAL(st.entries, 3);
    /* a full cache starts afresh: with room for 3, a 4th candidate empties it first */
    cs__simcache_set_max_entries(c, 3);
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_LL, &t5, &err), 0);
    CU_ASSERT(t5 == direct(&r, t, &np, ring, CS_PROTO_LL));
    cs_simcache_stats_get(c, &st);
    CU_ASSERT_EQUAL(st.simulated, 4);
    CU_ASSERT_EQUAL(st.entries, 1);
    CU_ASSERT_EQUAL(st.topo_states, 1);
    CU_ASSERT_EQUAL(cs_simcache_time(c, &r, t, &np, ring, CS_PROTO_SIMPLE, &t5, &err), 0);
    CU_ASSERT(t5 == t4);                   /* simulated again, the same */
    cs_simcache_stats_get(c, &st);
    CU_ASSERT_EQUAL(st.simulated, 5);
    CU_ASSERT_EQUAL(st.entries, 2);
    cs_simcache_free(c);
    cs_topo_free(t);
}

/* The rows of the A3 Mega log up to 1 MiB (18 sizes, 8 B - 1 MiB) on its start topology. */
static void a3mega_rows(cs_topo **t, cs_nccl_params *np, cs_lset *ls)
{
    cs_lset_opts lo;
    cs_err err;
    char *paths[1] = {(char *)(uintptr_t)A3LOG};
    int on;
    memset(&lo, 0, sizeof lo);
    lo.default_coll = CS_LOG_COLL_UNKNOWN;
    lo.max_bytes = 1u << 20;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(A3MEGA, t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(A3MEGA, NULL, 1, np, &on, &err), 0);
    /* the start file runs Simple only, as the run's TCPXO plugin set NCCL; these tests
     * want all three protocols */
    np->proto[CS_PROTO_LL].enabled = 1;
    np->proto[CS_PROTO_LL128].enabled = 1;
    CU_ASSERT_EQUAL_FATAL(cs_lset_load(ls, paths, 1, &lo, *t, &err), 0);
    CU_ASSERT_EQUAL(ls->n_rows, 18);
}

/* Pinned rows (a Jacobian column) with and without the cache: the same times; the count
 * of simulations is the count of rows the changed figure touches. */
static void column(cs_lset *ls, cs_simcache *c, const cs_topo *t, const cs_nccl_params *np,
                   long want_new)
{
    cs_simcache_stats a, b;
    cs_err err;
    double ref[64];
    int i;
    CU_ASSERT_FATAL(ls->n_rows <= 64);
    ls->cache = NULL;
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_pinned(ls, t, np, &err), 0);
    for (i = 0; i < ls->n_rows; i++)
        ref[i] = ls->rows[i].simulated_us;
    ls->cache = c;
    cs_simcache_stats_get(c, &a);
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_pinned(ls, t, np, &err), 0);
    cs_simcache_stats_get(c, &b);
    CU_ASSERT_EQUAL(b.simulated - a.simulated, want_new);
    CU_ASSERT_EQUAL(b.lookups - a.lookups, ls->n_rows);
    for (i = 0; i < ls->n_rows; i++)
        CU_ASSERT(ls->rows[i].simulated_us == ref[i]);
}

static void t_columns(void)
{
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_lset ls;
    cs_simcache *c = NULL;
    cs_simcache_stats st;
    cs_err err;
    int i, n_proto[CS_PROTO_COUNT] = {0, 0, 0};
    a3mega_rows(&t, &np, &ls);
    CU_ASSERT_EQUAL_FATAL(cs_simcache_new(&c, &err), 0);
    ls.cache = c;
    /* every candidate of every row: 2 algorithms x 3 protocols */
    CU_ASSERT_EQUAL_FATAL(cs_lset_simulate_viable(&ls, t, &np, NULL, 1, 1.5, &err), 0);
    cs_simcache_stats_get(c, &st);
    CU_ASSERT_EQUAL(st.lookups, 6 * ls.n_rows);
    CU_ASSERT_EQUAL(st.simulated, 6 * ls.n_rows);
    for (i = 0; i < ls.n_rows; i++)
        n_proto[ls.rows[i].proto]++;
    CU_ASSERT(n_proto[CS_PROTO_LL] > 0);
    /* the base point again: nothing simulated */
    column(&ls, c, t, &np, 0);
    /* launch_us: nothing simulated (every time shifted) */
    np.launch_us += 12.5;
    column(&ls, c, t, &np, 0);
    np.launch_us -= 12.5;
    /* one protocol's per-transfer latency: its rows only */
    np.proto[CS_PROTO_LL].hop_us += 0.5;
    column(&ls, c, t, &np, n_proto[CS_PROTO_LL]);
    np.proto[CS_PROTO_LL].hop_us -= 0.5;
    np.proto[CS_PROTO_SIMPLE].hop_us *= 1.1;
    column(&ls, c, t, &np, n_proto[CS_PROTO_SIMPLE]);
    np.proto[CS_PROTO_SIMPLE].hop_us /= 1.1;
    np.proto[CS_PROTO_LL128].bw_eff = 0.8;
    column(&ls, c, t, &np, n_proto[CS_PROTO_LL128]);
    /* a link class: every row */
    scale_class(t, "gpudirect_tcpxo", 1.25);
    column(&ls, c, t, &np, ls.n_rows);
    cs_simcache_free(c);
    cs_lset_fini(&ls);
    cs_topo_free(t);
}

/* A calibration with each reuse mode; out: the fit and its rows. */
typedef struct fit_out {
    cs_fit_param par[64];
    int n_par;
    double cost, sim[64];
    long n_evals, n_pinned;
    cs_simcache_stats reuse;
} fit_out;

static void calibrate(char **logs, int n_logs, const char *topo, uint64_t max_bytes,
                      cs_calib_reuse mode, fit_out *out)
{
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_lset ls;
    cs_lset_opts lo;
    cs_calib c;
    cs_calib_opts co;
    cs_err err;
    int on, i;
    memset(&lo, 0, sizeof lo);
    lo.default_coll = CS_LOG_COLL_UNKNOWN;
    lo.max_bytes = max_bytes;
    memset(&co, 0, sizeof co);
    co.topo_spec = topo;
    co.max_iter = 100;
    co.ls = &lo;
    co.logs = logs;
    co.n_logs = n_logs;
    co.reuse = mode;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(topo, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup(topo, NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_lset_load(&ls, logs, n_logs, &lo, t, &err), 0);
    i = cs_calib_run(&c, t, &np, &ls, &co, &err);
    if (i)
        fprintf(stderr, "\n  calibrate: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(i, 0);
    CU_ASSERT_FATAL(ls.n_rows <= 64);
    memcpy(out->par, c.par, sizeof out->par);
    out->n_par = c.n_par;
    out->cost = c.fr.cost;
    for (i = 0; i < ls.n_rows; i++)
        out->sim[i] = ls.rows[i].simulated_us;
    out->n_evals = c.n_evals;
    out->n_pinned = c.n_pinned;
    out->reuse = c.reuse;
    CU_ASSERT(ls.cache == NULL);
    cs_calib_fini(&c);
    cs_lset_fini(&ls);
    cs_topo_free(t);
}

static void same_fit(char **logs, int n_logs, const char *topo, uint64_t max_bytes,
                     const char *what)
{
    static fit_out off, on, ver;
    int i;
    calibrate(logs, n_logs, topo, max_bytes, CS_CALIB_REUSE_OFF, &off);
    calibrate(logs, n_logs, topo, max_bytes, CS_CALIB_REUSE_ON, &on);
    calibrate(logs, n_logs, topo, max_bytes, CS_CALIB_REUSE_VERIFY, &ver);
    CU_ASSERT_EQUAL(off.reuse.lookups, 0);
    CU_ASSERT_EQUAL(on.n_par, off.n_par);
    for (i = 0; i < off.n_par; i++) {
        CU_ASSERT(on.par[i].value == off.par[i].value);
        CU_ASSERT(on.par[i].sigma == off.par[i].sigma ||
                  (on.par[i].sigma != on.par[i].sigma && off.par[i].sigma != off.par[i].sigma));
        CU_ASSERT_EQUAL(on.par[i].is_fixed, off.par[i].is_fixed);
    }
    CU_ASSERT(on.cost == off.cost);
    for (i = 0; i < 64; i++)
        CU_ASSERT(on.sim[i] == off.sim[i] || (on.sim[i] != on.sim[i] && off.sim[i] != off.sim[i]));
    CU_ASSERT_EQUAL(on.n_evals, off.n_evals);
    CU_ASSERT_EQUAL(on.n_pinned, off.n_pinned);
    /* every lookup is either simulated or answered, and the cache answered some */
    CU_ASSERT_EQUAL(on.reuse.lookups, on.reuse.simulated + on.reuse.hits + on.reuse.hits_launch);
    CU_ASSERT(on.reuse.hits > 0);
    CU_ASSERT(on.reuse.simulated < on.reuse.lookups);
    CU_ASSERT(ver.cost == off.cost);
    fprintf(stderr, "\n  %s: %ld candidate times, %ld simulated, %ld cached (%ld shifted by "
            "the launch cost)\n", what, on.reuse.lookups, on.reuse.simulated, on.reuse.hits +
            on.reuse.hits_launch, on.reuse.hits_launch);
}

static void t_calibrate_same(void)
{
    char *pair[2] = {(char *)(uintptr_t)PAIR_AR, (char *)(uintptr_t)PAIR_A2A};
    char *a3[1] = {(char *)(uintptr_t)A3LOG};
    same_fit(pair, 2, PAIR, 0, "2080 Ti pair, all_reduce + alltoall");
    same_fit(a3, 1, A3MEGA, 1u << 20, "A3 Mega 16 ranks, 8 B - 1 MiB");
}

/* The engine's in-place move runs events in the order cancel + schedule would. */
typedef struct order { int seen[64]; int n; } order;

static void note(cs_engine *e, void *arg, uint64_t data)
{
    order *o = arg;
    (void)e;
    if (o->n < 64)
        o->seen[o->n++] = (int)data;
}

/* Events 0..n-1 at times t0[], then event k moved to t1[k] (or cancelled and scheduled
 * anew): the order they run in. */
static void run_moves(int move, uint64_t seq_limit, order *o)
{
    static const cs_time t0[8] = {50, 10, 10, 30, 20, 60, 60, 40};
    static const cs_time t1[8] = {10, 60, 10, 5, 20, 60, 30, 40};
    cs_event_id id[8];
    cs_engine *e;
    int k;
    memset(o, 0, sizeof *o);
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    if (seq_limit)
        cs__engine_set_seq_limit(e, seq_limit);
    for (k = 0; k < 8; k++)
        id[k] = cs_engine_at(e, t0[k], note, o, (uint64_t)k);
    for (k = 0; k < 8; k++) {
        cs_event_id nid;
        if (move) {
            nid = cs_engine_move(e, id[k], t1[k]);
        } else {
            CU_ASSERT_EQUAL(cs_engine_cancel(e, id[k]), 0);
            nid = cs_engine_at(e, t1[k], note, o, (uint64_t)k);
        }
        CU_ASSERT(nid != 0);
        CU_ASSERT_EQUAL(cs_engine_cancel(e, id[k]), CS_ENOENT);   /* stale */
        id[k] = nid;
    }
    CU_ASSERT_EQUAL(cs_engine_move(e, 0, 5), 0);
    CU_ASSERT_EQUAL(cs_engine_n_pending(e), 8);
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    CU_ASSERT_EQUAL(cs_engine_n_executed(e), 8);
    CU_ASSERT_EQUAL(cs_engine_move(e, id[0], 100), 0);    /* ran: stale */
    cs_engine_free(e);
}

static void t_engine_move(void)
{
    /* by (time, order of the last scheduling): 3 (5), 0 (10, moved first), 2 (10),
     * 4 (20), 6 (30), 7 (40), 1 (60), 5 (60) */
    static const int want[8] = {3, 0, 2, 4, 6, 7, 1, 5};
    order a, b;
    uint64_t lim[3] = {0, 5, 11};
    int i, k;
    for (i = 0; i < 3; i++) {
        run_moves(1, lim[i], &a);
        run_moves(0, lim[i], &b);
        CU_ASSERT_EQUAL(a.n, 8);
        CU_ASSERT_EQUAL(b.n, 8);
        for (k = 0; k < 8; k++) {
            CU_ASSERT_EQUAL(a.seen[k], want[k]);
            CU_ASSERT_EQUAL(b.seen[k], want[k]);
        }
    }
}

/* Flows on the same links are one group in the fluid model: k copies 0 -> 2 and one copy
 * 1 -> 2 of 1e6 B each on a 3-rank switch (100 GB/s, 0.5 us links) start together after
 * 1 us and share sw -> 2 at 100 / (k + 1) GB/s: all end at 1 + (k + 1) 1e6 B / 100 GB/s =
 * 1 + 10 (k + 1) us. Two recomputes. At the start: the 3 seed links (0->sw, sw->2, 1->sw),
 * the 2 links of each group's first flow (2 groups: 4), the filling's 3 links, the popped
 * link sw->2 and the 2 links of each group it fixes (4): 15 link visits. At the end, a link
 * a flow leaves empty is not seeded: 1->sw is not (its one flow), 0->sw and sw->2 are (k >=
 * 2 flows on them, whatever the order of the ends); they are empty by the recomputation,
 * each a component of its own: 4. 19 in all, whatever k (flow by flow, the search and the
 * filling would each visit the 2 links of every flow: 4k + 15; with every link seeded at
 * the end, 21). */
static void t_fluid_groups(void)
{
    static const int ks[2] = {3, 7};
    int i, k;
    for (i = 0; i < 2; i++) {
        cs_topo *t = NULL;
        cs_sched s;
        cs_sim *sim = NULL;
        cs_job *job = NULL;
        cs_sim_counters cnt;
        cs_err err;
        int64_t c;
        CU_ASSERT_EQUAL_FATAL(cs_topo_load_string("{\"kind\":\"switch\",\"ranks\":3,\"link\":"
                                                  "{\"bandwidth_GBps\":100,\"latency_us\":0.5}}",
                                                  "test", &t, &err), 0);
        cs_sched_init(&s, CS_COLL_SENDRECV, 3, 0, 0);
        for (k = 0; k < ks[i]; k++) {
            c = cs_sched_chunk(&s, 1000000, 0, 2);
            cs_sched_xfer_range(&s, 0, 2, CS_OP_COPY, (uint32_t)c, 1, NULL, 0, 0);
        }
        c = cs_sched_chunk(&s, 1000000, 1, 2);
        cs_sched_xfer_range(&s, 1, 2, CS_OP_COPY, (uint32_t)c, 1, NULL, 0, 0);
        CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_sim_add(sim, &s, NULL, 0, &job, &err), 0);
        CU_ASSERT_EQUAL_FATAL(cs_sim_run(sim, &err), 0);
        CS_ASSERT_REL(cs_time_to_us(cs_job_end(job)), 1.0 + 10.0 * (ks[i] + 1), 1e-12);
        cs_sim_get_counters(sim, &cnt);
        CU_ASSERT_EQUAL(cnt.recomputes, 2);
        CU_ASSERT_EQUAL(cnt.link_visits, 19);
        CU_ASSERT_EQUAL(cnt.peak_flows, (uint64_t)ks[i] + 1);
        cs_sim_free(sim);
        cs_sched_fini(&s);
        cs_topo_free(t);
    }
}

int cs_test_register(void)
{
    static const cs_test_case cal[] = {
        {"a cached time is the simulated one; what a change re-simulates", t_cache_answers},
        {"a Jacobian column re-simulates the rows its parameter touches", t_columns},
        {"a calibration with reuse fits the same as without", t_calibrate_same},
        {"an event moved in place runs where cancel and schedule put it", t_engine_move},
        {"flows on the same links are filled as one group", t_fluid_groups},
        {NULL, NULL}};
    return cs_test_add_suite("calspeed", cal);
}
