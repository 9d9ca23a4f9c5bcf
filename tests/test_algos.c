/* test_algos.c: the collective algorithm library. Every registered algorithm is checked by
 * looping over the registry (so algorithms added later are covered): its simulated time on
 * the alpha_beta fabric equals its closed form (p = 2 and 8, chunks 1, with and without
 * gamma), and #wrong = 0 for p = 1..33, three sizes and two roots. The textbook forms of
 * the issue are asserted by name, the openmlsys seed cases, the registry lookup, --algo
 * auto, and the list/explain commands. a = 1 us, b = 1/(100 GB/s) throughout. */
#include "tests/testutil.h"
#include "sim/exec.h"
#include "algorithms/coll.h"
#include "algorithms/explain.h"
#include "topologies/topology.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define A_S 1e-6
#define B_S (1.0 / 100e9)

static cs_topo *load_ab(int p, double reduce_GBps, const char *kind)
{
    char buf[256], red[64] = "";
    cs_topo *t = NULL;
    cs_err err;
    if (reduce_GBps > 0)
        snprintf(red, sizeof red, "\"reduce_GBps\":%g,", reduce_GBps);
    snprintf(buf, sizeof buf, "{\"kind\":\"%s\",\"ranks\":%d,%s\"link\":{\"bandwidth_GBps\":100,"
             "\"latency_us\":1}}", kind, p, red);
    if (cs_topo_load_string(buf, kind, &t, &err) < 0)
        fprintf(stderr, "load failed: %s: %s\n", err.where, err.msg);
    return t;
}

/* Build and simulate; returns seconds, or -1 if the algorithm declines the request. */
static double run_req(const cs_algo *ops, const cs_coll_req *req, const cs_topo *t, int *wrong,
                      cs_sched *keep)
{
    cs_sched s;
    cs_err err;
    cs_time t_ps = -1;
    int rc;
    *wrong = -2;
    if (ops->check && ops->check(req, NULL) < 0)
        return -1;
    rc = cs_algo_build(ops, req, &s, &err);
    if (rc < 0) {
        fprintf(stderr, "\n  %s %s p=%d: %s: %s\n", ops->name, cs_coll_name(req->coll),
                req->n_ranks, err.where, err.msg);
        CU_FAIL("build failed");
        return -1;
    }
    rc = cs_sim_once(t, &s, NULL, NULL, &t_ps, wrong, &err);
    CU_ASSERT_EQUAL(rc, 0);
    if (keep)
        *keep = s;
    else
        cs_sched_fini(&s);
    return cs_time_to_s(t_ps);
}

/* Every registered algorithm x collective on alpha_beta: simulated = cost(), for p = 2 and
 * 8, S divisible by p * chunks * 2, roots 0 and p-1. Returns how many pairs were checked. */
static int closed_form_sweep(double reduce_GBps, int chunks)
{
    static const int ps[] = {2, 8};
    int n, i, c, pi, root, checked = 0;
    const cs_algo *const *all = cs_algo_all(&n);
    for (pi = 0; pi < 2; pi++) {
        int p = ps[pi];
        cs_topo *t = load_ab(p, reduce_GBps, "alpha_beta");
        cs_ab ab;
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        cs_ab_from_topo(t, &ab);
        for (i = 0; i < n; i++)
            for (c = 0; c < CS_COLL_COUNT; c++)
                for (root = 0; root < 2; root++) {
                    cs_coll_req req;
                    const char *f;
                    double sim, cf;
                    int wrong;
                    if (!cs_algo_has(all[i], (cs_coll)c) || (root && !cs_coll_is_rooted(c)))
                        continue;
                    cs_coll_req_init(&req, (cs_coll)c, p, (uint64_t)p * chunks * 2 * 65536);
                    req.chunks = chunks;
                    req.root = root ? p - 1 : 0;
                    req.topo = t;
                    f = all[i]->formula ? all[i]->formula(&req) : NULL;
                    if ((sim = run_req(all[i], &req, t, &wrong, NULL)) < 0)
                        continue;
                    CU_ASSERT_PTR_NOT_NULL(f);
                    /* Unpipelined, p = 2^k: every algorithm owes an exact closed form. Only
                     * pipelining may make it an estimate ('~'), which is then skipped. */
                    if (chunks == 1 && f && f[0] == '~')
                        fprintf(stderr, "\n  %s %s p=%d: closed form is only an estimate",
                                all[i]->name, cs_coll_name(c), p);
                    CU_ASSERT(chunks > 1 || !f || f[0] != '~');
                    if (f && f[0] == '~')
                        continue;
                    cf = all[i]->cost(&req, &ab);
                    if (!cs_close_rel(sim, cf, 1e-6))
                        fprintf(stderr, "\n  %s %s p=%d k=%d root=%d g=%g: sim %.9g us, closed "
                                "form %.9g us", all[i]->name, cs_coll_name(c), p, chunks,
                                req.root, reduce_GBps, sim * 1e6, cf * 1e6);
                    CS_ASSERT_REL(sim, cf, 1e-6);
                    CU_ASSERT_EQUAL(wrong, 0);
                    checked++;
                }
        cs_topo_free(t);
    }
    return checked;
}

static void test_registry_closed_forms(void)
{
    /* ~20 algorithms over 2 rank counts: far more than a handful must have been checked. */
    CU_ASSERT(closed_form_sweep(0, 1) >= 60);
}

static void test_registry_gamma(void)
{
    CU_ASSERT(closed_form_sweep(50, 1) >= 60);    /* g = 2 b: reductions dominate */
    CU_ASSERT(closed_form_sweep(400, 1) >= 60);   /* g = b / 4 */
}

static void test_registry_chunks(void) { CU_ASSERT(closed_form_sweep(0, 4) >= 40); }

/* The textbook forms of the issue, by name (L = ceil(log2 p), lg = log2 p). */
typedef struct form_case {
    const char *algo;
    cs_coll coll;
    int chunks;
    double (*t)(double p, double S, double k);
} form_case;

static double lg(double p) { return log2(p); }
static double L_(double p) { return ceil(log2(p)); }
#define T1(S) (A_S + (S) * B_S)
static double f_lin(double p, double S, double k) { return (p - 1) * T1(S); }
static double f_bino(double p, double S, double k) { return L_(p) * T1(S); }
static double f_chain(double p, double S, double k) { return (p - 2 + k) * T1(S / k); }
static double f_sag(double p, double S, double k)
{ return (lg(p) + p - 1) * A_S + 2 * (p - 1) / p * S * B_S; }
static double f_rab_red(double p, double S, double k)
{ return 2 * lg(p) * A_S + 2 * (p - 1) / p * S * B_S; }
static double f_ring_ar(double p, double S, double k) { return 2 * (p - 1) * T1(S / p); }
static double f_redbc(double p, double S, double k) { return 2 * L_(p) * T1(S); }
static double f_rd_ar(double p, double S, double k) { return lg(p) * T1(S); }
static double f_ps1(double p, double S, double k) { return 2 * (p - 1) * T1(S); }
static double f_ring_ag(double p, double S, double k) { return (p - 1) * T1(S / p); }
static double f_log_ag(double p, double S, double k)
{ return L_(p) * A_S + (p - 1) / p * S * B_S; }
static double f_rh(double p, double S, double k) { return lg(p) * A_S + (p - 1) / p * S * B_S; }
static double f_bruck_a2a(double p, double S, double k) { return lg(p) * T1(S / 2); }
static double f_barrier(double p, double S, double k) { return L_(p) * A_S; }

static const form_case forms[] = {
    {"linear", CS_COLL_BROADCAST, 1, f_lin},
    {"binomial", CS_COLL_BROADCAST, 1, f_bino},
    {"ring", CS_COLL_BROADCAST, 1, f_chain},
    {"ring", CS_COLL_BROADCAST, 4, f_chain},
    {"scatter_allgather", CS_COLL_BROADCAST, 1, f_sag},
    {"linear", CS_COLL_REDUCE, 1, f_lin},
    {"binomial", CS_COLL_REDUCE, 1, f_bino},
    {"ring", CS_COLL_REDUCE, 4, f_chain},
    {"reducescatter_gather", CS_COLL_REDUCE, 1, f_rab_red},
    {"ring", CS_COLL_ALLREDUCE, 1, f_ring_ar},
    {"direct", CS_COLL_ALLREDUCE, 1, f_ring_ar},
    {"reduce_broadcast", CS_COLL_ALLREDUCE, 1, f_redbc},
    {"recursive_doubling", CS_COLL_ALLREDUCE, 1, f_rd_ar},
    {"halving_doubling", CS_COLL_ALLREDUCE, 1, f_rab_red},
    {"parameter_server", CS_COLL_ALLREDUCE, 1, f_ps1},
    {"ring", CS_COLL_ALLGATHER, 1, f_ring_ag},
    {"direct", CS_COLL_ALLGATHER, 1, f_ring_ag},
    {"recursive_doubling", CS_COLL_ALLGATHER, 1, f_log_ag},
    {"bruck", CS_COLL_ALLGATHER, 1, f_log_ag},
    {"ring", CS_COLL_REDUCESCATTER, 1, f_ring_ag},
    {"pairwise", CS_COLL_REDUCESCATTER, 1, f_ring_ag},
    {"direct", CS_COLL_REDUCESCATTER, 1, f_ring_ag},
    {"recursive_halving", CS_COLL_REDUCESCATTER, 1, f_rh},
    {"linear", CS_COLL_GATHER, 1, f_ring_ag},
    {"linear", CS_COLL_SCATTER, 1, f_ring_ag},
    {"binomial", CS_COLL_GATHER, 1, f_rh},
    {"binomial", CS_COLL_SCATTER, 1, f_rh},
    {"pairwise", CS_COLL_ALLTOALL, 1, f_ring_ag},
    {"direct", CS_COLL_ALLTOALL, 1, f_ring_ag},
    {"bruck", CS_COLL_ALLTOALL, 1, f_bruck_a2a},
    {"dissemination", CS_COLL_BARRIER, 1, f_barrier},
};

static void test_textbook_forms(void)
{
    static const int ps[] = {2, 8};
    size_t i;
    int pi;
    for (pi = 0; pi < 2; pi++) {
        int p = ps[pi];
        cs_topo *t = load_ab(p, 0, "alpha_beta");
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
            const cs_algo *ops;
            cs_coll_req req;
            uint64_t S = (uint64_t)p * 8 * 1048576;     /* divisible by p * chunks */
            double sim, want;
            int wrong;
            CU_ASSERT_EQUAL_FATAL(cs_algo_lookup(forms[i].algo, forms[i].coll, &ops, NULL), 0);
            cs_coll_req_init(&req, forms[i].coll, p, forms[i].coll == CS_COLL_BARRIER ? 0 : S);
            req.chunks = forms[i].chunks;
            req.root = cs_coll_is_rooted(forms[i].coll) ? p - 1 : 0;
            sim = run_req(ops, &req, t, &wrong, NULL);
            want = forms[i].t(p, (double)req.bytes, forms[i].chunks);
            if (!cs_close_rel(sim, want, 1e-6))
                fprintf(stderr, "\n  %s %s p=%d", forms[i].algo, cs_coll_name(forms[i].coll), p);
            CS_ASSERT_REL(sim, want, 1e-6);
            CU_ASSERT_EQUAL(wrong, 0);
        }
        cs_topo_free(t);
    }
}

/* With gamma: pipelined chain reduce (p-1)(t + g) + (k-1) max(t, g) with t = a + S/k b,
 * g = S/k g; linear reduce a + S b + (p-1) S g when reducing is slower than the wire;
 * Rabenseifner 2 lg p a + 2(p-1)/p S b + (p-1)/p S g; ring allreduce adds (p-1)/p S g. */
static void test_gamma_forms(void)
{
    int p = 8, k = 4, wrong;
    double G = 1.0 / 50e9, S = 8.0 * 4 * 1048576;
    cs_topo *t = load_ab(p, 50, "alpha_beta");
    const cs_algo *ops;
    cs_coll_req req;
    double tc = A_S + S / k * B_S, gc = S / k * G;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_REDUCE, p, (uint64_t)S);
    req.chunks = k;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_REDUCE, &ops, NULL), 0);
    CS_ASSERT_REL(run_req(ops, &req, t, &wrong, NULL),
                  (p - 1) * (tc + gc) + (k - 1) * fmax(tc, gc), 1e-6);
    CU_ASSERT_EQUAL(wrong, 0);
    req.chunks = 1;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("linear", CS_COLL_REDUCE, &ops, NULL), 0);
    CS_ASSERT_REL(run_req(ops, &req, t, &wrong, NULL), A_S + S * B_S + (p - 1) * S * G, 1e-6);
    req.coll = CS_COLL_ALLREDUCE;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("halving_doubling", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CS_ASSERT_REL(run_req(ops, &req, t, &wrong, NULL),
                  2 * 3 * A_S + 2.0 * (p - 1) / p * S * B_S + (p - 1.0) / p * S * G, 1e-6);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CS_ASSERT_REL(run_req(ops, &req, t, &wrong, NULL),
                  2 * (p - 1) * (A_S + S / p * B_S) + (p - 1.0) / p * S * G, 1e-6);
    cs_topo_free(t);
}

/* #wrong = 0 for every algorithm x collective, p = 1..33, sizes 0, 7p+3 (not divisible by
 * p) and 1 MiB, roots 0 and p-1; on alpha_beta, and for p <= 9 also on a switch (link-level
 * fabric, where some algorithms post differently) and with gamma. */
static void wrong_sweep(const char *kind, double reduce_GBps, int pmax)
{
    int n, i, c, p, si, root;
    const cs_algo *const *all = cs_algo_all(&n);
    for (p = 1; p <= pmax; p++) {
        cs_topo *t = load_ab(p, reduce_GBps, kind);
        uint64_t sizes[3] = {0, (uint64_t)7 * p + 3, 1 << 20};
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (i = 0; i < n; i++)
            for (c = 0; c < CS_COLL_COUNT; c++)
                for (si = 0; si < 3; si++)
                    for (root = 0; root < 2; root++) {
                        cs_coll_req req;
                        int wrong;
                        if (!cs_algo_has(all[i], (cs_coll)c) || (root && !cs_coll_is_rooted(c)))
                            continue;
                        cs_coll_req_init(&req, (cs_coll)c, p, sizes[si]);
                        req.root = root ? p - 1 : 0;
                        req.topo = t;
                        if (run_req(all[i], &req, t, &wrong, NULL) < 0)
                            continue;
                        if (wrong != 0)
                            fprintf(stderr, "\n  %s %s on %s p=%d S=%llu root=%d: #wrong %d",
                                    all[i]->name, cs_coll_name(c), kind, p,
                                    (unsigned long long)sizes[si], req.root, wrong);
                        CU_ASSERT_EQUAL(wrong, 0);
                    }
        cs_topo_free(t);
    }
}

static void test_wrong_ab(void) { wrong_sweep("alpha_beta", 0, 33); }
static void test_wrong_switch(void) { wrong_sweep("switch", 0, 9); }
static void test_wrong_gamma(void) { wrong_sweep("alpha_beta", 50, 9); }

/* A collective without a root ignores req->root: every algorithm of allreduce, allgather,
 * reducescatter, alltoall, ... with root 3 on p = 5, 6, 7, 12, 20 ranks (some not a power
 * of two, where Rabenseifner folds ranks 2r beyond p' = 2^floor(log2 p) in and out) moves
 * the right data (#wrong 0) in the time it takes with root 0. Round three's fuzz_run found
 * halving_doubling folding in around the root and out around 0 (#wrong 20 at p = 20). */
static void test_unrooted_root_ignored(void)
{
    static const int ps[] = {5, 6, 7, 12, 20};
    int n, i, c, pi, checked = 0;
    const cs_algo *const *all = cs_algo_all(&n);
    for (pi = 0; pi < 5; pi++) {
        int p = ps[pi];
        cs_topo *t = load_ab(p, 50, "alpha_beta");
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (i = 0; i < n; i++)
            for (c = 0; c < CS_COLL_COUNT; c++) {
                cs_coll_req req;
                int wrong0, wrong3;
                double t0, t3;
                if (!cs_algo_has(all[i], (cs_coll)c) || cs_coll_is_rooted((cs_coll)c))
                    continue;
                cs_coll_req_init(&req, (cs_coll)c, p, (uint64_t)7 * p + 3);
                req.topo = t;
                if ((t0 = run_req(all[i], &req, t, &wrong0, NULL)) < 0)
                    continue;
                req.root = 3;
                t3 = run_req(all[i], &req, t, &wrong3, NULL);
                if (wrong3 != 0 || !cs_close_rel(t3, t0, 1e-12))
                    fprintf(stderr, "\n  %s %s p=%d root 3: #wrong %d, %g vs %g s", all[i]->name,
                            cs_coll_name((cs_coll)c), p, wrong3, t3, t0);
                CU_ASSERT_EQUAL(wrong0, 0);
                CU_ASSERT_EQUAL(wrong3, 0);
                CS_ASSERT_REL(t3, t0, 1e-12);
                checked++;
            }
        cs_topo_free(t);
    }
    CU_ASSERT(checked >= 5 * 10);
}

/* openmlsys: naive broadcast (a + b l)(p-1), divide and conquer (a + b l) log p. */
static void test_openmlsys_broadcast(void)
{
    static const int ps[] = {2, 4, 8, 16, 32};
    double l = 4.0 * 1048576;
    int i, wrong;
    for (i = 0; i < 5; i++) {
        int p = ps[i];
        cs_topo *t = load_ab(p, 0, "alpha_beta");
        const cs_algo *lin, *bino;
        cs_coll_req req;
        cs_coll_req_init(&req, CS_COLL_BROADCAST, p, (uint64_t)l);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("linear", CS_COLL_BROADCAST, &lin, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("binomial", CS_COLL_BROADCAST, &bino, NULL), 0);
        CS_ASSERT_REL(run_req(lin, &req, t, &wrong, NULL), (A_S + B_S * l) * (p - 1), 1e-6);
        CS_ASSERT_REL(run_req(bino, &req, t, &wrong, NULL), (A_S + B_S * l) * log2(p), 1e-6);
        cs_topo_free(t);
    }
}

/* Bytes rank r sends in a schedule. */
static uint64_t sent_by(const cs_sched *s, int r)
{
    uint64_t b = 0;
    uint32_t i;
    for (i = 0; i < s->n_xfers; i++)
        if (s->xfers[i].op != CS_OP_COMPUTE && s->xfers[i].src == r)
            b += s->xfers[i].bytes;
    return b;
}

/* openmlsys: the parameter server's time grows linearly with the workers (each one adds
 * 2(a + S b)) and its server moves 2(p-1) S; ring allreduce sends 2(p-1)/p S per rank, at
 * most 2 S whatever p. */
static void test_openmlsys_ps_vs_ring(void)
{
    static const int ps[] = {2, 4, 8, 16, 32};
    uint64_t S = 32 * 1048576;
    double prev = 0;
    int i, r, wrong;
    for (i = 0; i < 5; i++) {
        int p = ps[i];
        cs_topo *t = load_ab(p, 0, "alpha_beta");
        const cs_algo *psv, *ring;
        cs_coll_req req;
        cs_sched s;
        double tp;
        cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, S);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("parameter_server", CS_COLL_ALLREDUCE, &psv, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, NULL), 0);
        tp = run_req(psv, &req, t, &wrong, &s);
        CS_ASSERT_REL(tp, 2 * (p - 1) * (A_S + S * B_S), 1e-6);
        if (i > 0)   /* linear: the time per added worker is constant */
            CS_ASSERT_REL((tp - prev) / (p - ps[i - 1]), 2 * (A_S + S * B_S), 1e-6);
        prev = tp;
        CU_ASSERT_EQUAL(sent_by(&s, 0), (uint64_t)(p - 1) * S);     /* the server */
        for (r = 1; r < p; r++)
            CU_ASSERT_EQUAL(sent_by(&s, r), S);
        cs_sched_fini(&s);
        run_req(ring, &req, t, &wrong, &s);
        for (r = 0; r < p; r++) {
            CU_ASSERT_EQUAL(sent_by(&s, r), 2 * (uint64_t)(p - 1) * S / p);
            CU_ASSERT(sent_by(&s, r) < 2 * S);
        }
        cs_sched_fini(&s);
        cs_topo_free(t);
    }
}

/* Every name of the contract table is registered for its collective; "ring" finds the
 * pipelined chain for broadcast/reduce and the ring for allreduce; unknown names list the
 * known ones; every entry describes itself. */
static void test_registry_names(void)
{
    static const struct { cs_coll c; const char *names; } want[] = {
        {CS_COLL_BROADCAST, "linear binomial ring scatter_allgather"},
        {CS_COLL_REDUCE, "linear binomial ring reducescatter_gather"},
        {CS_COLL_ALLREDUCE, "ring reduce_broadcast recursive_doubling halving_doubling "
                            "double_binary_tree direct parameter_server"},
        {CS_COLL_ALLGATHER, "ring recursive_doubling bruck direct gather_broadcast"},
        {CS_COLL_REDUCESCATTER, "ring recursive_halving pairwise direct"},
        {CS_COLL_GATHER, "linear binomial"},
        {CS_COLL_SCATTER, "linear binomial"},
        {CS_COLL_ALLTOALL, "pairwise bruck direct"},
        {CS_COLL_BARRIER, "dissemination"},
    };
    size_t i;
    int n, j;
    const cs_algo *a, *b, *const *all = cs_algo_all(&n);
    cs_err err;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        char names[256], *tok, *save;
        snprintf(names, sizeof names, "%s", want[i].names);
        for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            const cs_algo *ops = NULL;
            if (cs_algo_lookup(tok, want[i].c, &ops, NULL) != 0)
                fprintf(stderr, "\n  missing %s for %s", tok, cs_coll_name(want[i].c));
            CU_ASSERT_PTR_NOT_NULL(ops);
        }
    }
    CU_ASSERT_EQUAL(cs_algo_lookup("ring", CS_COLL_BROADCAST, &a, NULL), 0);
    CU_ASSERT_EQUAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &b, NULL), 0);
    CU_ASSERT(a != b && cs_algo_has(a, CS_COLL_BROADCAST) && cs_algo_has(b, CS_COLL_ALLREDUCE));
    CU_ASSERT_EQUAL(cs_algo_lookup("rign", CS_COLL_ALLREDUCE, &a, &err), CS_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown allreduce algorithm 'rign' (known: ring,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "halving_doubling"));
    CU_ASSERT_EQUAL(cs_algo_lookup("halving_doubling", CS_COLL_ALLGATHER, &a, &err), CS_EUSAGE);
    CU_ASSERT_PTR_NULL(strstr(err.msg, "halving_doubling,"));
    for (j = 0; j < n; j++) {
        CU_ASSERT(all[j]->name && all[j]->summary && all[j]->summary[0]);
        CU_ASSERT(all[j]->colls != 0 && all[j]->build && all[j]->cost && all[j]->formula);
    }
}

/* parameter_server declines more servers than ranks, saying why. */
static void test_ps_check(void)
{
    const cs_algo *ops;
    cs_coll_req req;
    cs_sched s;
    cs_err err;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4, 1024);
    req.servers = 5;
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("parameter_server", CS_COLL_ALLREDUCE, &ops, NULL), 0);
    CU_ASSERT_EQUAL(cs_algo_build(ops, &req, &s, &err), CS_EUNSUPP);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1 to 4 servers on 4 ranks, got 5"));
}

/* auto on alpha_beta picks the algorithm with the lowest closed form: recursive doubling
 * (3 a) for 8 B on 8 ranks, halving_doubling (6 a + 2(p-1)/p S b) for 1 GiB. */
static void test_auto(void)
{
    cs_topo *t = load_ab(8, 0, "alpha_beta");
    const cs_algo *ops;
    cs_coll_req req;
    double ts;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 8, 8);
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_algo_auto(&req, t, &ops, &ts, NULL), 0);
    CU_ASSERT_STRING_EQUAL(ops->name, "recursive_doubling");
    CS_ASSERT_REL(ts, 3 * (A_S + 8 * B_S), 1e-9);
    req.bytes = 1ull << 30;
    CU_ASSERT_EQUAL_FATAL(cs_algo_auto(&req, t, &ops, &ts, NULL), 0);
    CU_ASSERT_STRING_EQUAL(ops->name, "halving_doubling");
    req.coll = CS_COLL_BARRIER;
    req.bytes = 0;
    CU_ASSERT_EQUAL_FATAL(cs_algo_auto(&req, t, &ops, &ts, NULL), 0);
    CU_ASSERT_STRING_EQUAL(ops->name, "dissemination");
    cs_topo_free(t);
}

/* Every registered algorithm's closed form renders for every collective it implements:
 * each symbol has a value for the request (p = 8 on alpha_beta; hierarchical and nvls on
 * dgx-h100-x2, g = 8, N = 2; torus on the 4x4x4 tpu-v4; in_network on one dgx-h100), the total is cost() itself, and
 * no product is left implicit (no digit or ')' right before '(' or a letter). Two forms
 * exactly: ring allreduce of S = 64 MiB on 4 ranks, a = 1 us, b = 1e-5 us/B (the total
 * 2 x 3 x (1 + 167.77216) = 1012.63296 us); hierarchical allreduce of 1 MiB on 2 x 8. */
static void test_formula_render(void)
{
    static const char *const specs[] = {"alpha_beta", "dgx-h100-x2", "tpu-v4", "dgx-h100"};
    cs_topo *topos[4];
    int n, i, c, k, rendered = 0;
    const cs_algo *const *all = cs_algo_all(&n);
    const cs_algo *ops;
    cs_formula_text ft;
    cs_coll_req req;
    cs_err err;
    cs_ab ab;
    topos[0] = load_ab(8, 10, "alpha_beta");
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(specs[1], &topos[1], &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(specs[2], &topos[2], &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open(specs[3], &topos[3], &err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(topos[0]);
    for (i = 0; i < n; i++)
        for (c = 0; c < CS_COLL_COUNT; c++) {
            const char *q;
            if (!cs_algo_has(all[i], (cs_coll)c))
                continue;
            for (k = 0; k < 4; k++) {
                cs_coll_req_init(&req, (cs_coll)c, topos[k]->n_ranks, 1u << 20);
                req.topo = topos[k];
                if (!all[i]->check || all[i]->check(&req, NULL) == 0)
                    break;
            }
            CU_ASSERT_FATAL(k < 4);
            cs_ab_from_topo(topos[k], &ab);
            if (cs_formula_render(all[i], &req, &ab, &ft, &err) < 0)
                fprintf(stderr, "\n  %s %s: %s\n", all[i]->name, cs_coll_name((cs_coll)c),
                        err.msg);
            else
                rendered++;
            CU_ASSERT(ft.form[0] && ft.put[0] && ft.vars[0]);
            if (!isnan(ft.total_s))
                CU_ASSERT_EQUAL(ft.total_s, all[i]->cost(&req, &ab));
            for (q = ft.form; *q; q++)
                if (*q == '(' || isalpha((unsigned char)*q))
                    CU_ASSERT(q == ft.form || !(isdigit((unsigned char)q[-1]) || q[-1] == ')') ||
                              (q >= ft.form + 4 && !strncmp(q - 4, "log2", 4)));
        }
    CU_ASSERT(rendered >= 30);

    cs_topo_free(topos[0]);
    topos[0] = load_ab(4, 0, "alpha_beta");
    CU_ASSERT_PTR_NOT_NULL_FATAL(topos[0]);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 4, 64u << 20);
    req.topo = topos[0];
    cs_ab_from_topo(topos[0], &ab);
    CU_ASSERT_EQUAL_FATAL(cs_formula_render(ops, &req, &ab, &ft, &err), 0);
    CU_ASSERT_STRING_EQUAL(ft.form, "2·(p-1)·(C·k·a + S/p·b)"
                           " + (p-1)/p·S·γ");
    CU_ASSERT_STRING_EQUAL(ft.put, "2·(4-1)·(1·1 · 1 µs + "
                           "67108864 B/4 · 1e-05 µs/B) + (4-1)/4 · 67108864 B"
                           " · 0 µs/B");
    CU_ASSERT_PTR_NOT_NULL(strstr(ft.vars, "p = 4 ranks\nS = 67108864 B\na = 1 µs"));
    CU_ASSERT_DOUBLE_EQUAL(ft.total_s * 1e6, 2 * 3 * (1 + 16777216 * 1e-5), 1e-9);

    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("hierarchical", CS_COLL_ALLREDUCE, &ops, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 16, 1u << 20);
    req.topo = topos[1];
    cs_ab_from_topo(topos[1], &ab);
    CU_ASSERT_EQUAL_FATAL(cs_formula_render(ops, &req, &ab, &ft, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(ft.form, "2·(N-1)·(a + S/(g·N)·b)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ft.put, "2·(8-1)·("));
    CU_ASSERT_PTR_NOT_NULL(strstr(ft.put, "2·(2-1)·("));
    CU_ASSERT_PTR_NOT_NULL(strstr(ft.put, "1048576 B/(8·2)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ft.vars, "g = 8 ranks per node\nN = 2 nodes"));
    for (k = 0; k < 4; k++)
        cs_topo_free(topos[k]);
}

/* The commands: list names every algorithm; explain shows the closed form and the
 * simulated total, equal on alpha_beta; run --algo auto names the algorithm per row. */
static void test_commands(void)
{
    char cmd[1024], *out = NULL;
    int n, i;
    const cs_algo *const *all = cs_algo_all(&n);
    snprintf(cmd, sizeof cmd, "%s list algorithms", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    for (i = 0; out && i < n; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(out, all[i]->name));
    free(out);
    snprintf(cmd, sizeof cmd, "%s explain allreduce --algo ring -g 4 -b 1M --topo %s",
             CS_COLLSIM, cs_test_data("ok/algo-ab4.json"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "  t = 2·(p-1)·("));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "    = 2·(4-1)·("));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "    = 21.729 µs\n"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "simulated: 21.729 us  (closed form +0.000%)"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "rank 3    tx |"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s run allreduce --algo auto -b 8 -e 1G -f 1024 --topo %s "
             "--format json", CS_COLLSIM, cs_test_data("ok/algo-ab4.json"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"recursive_doubling\""));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"halving_doubling\""));
    free(out);
}

int cs_test_register(void)
{
    static const cs_test_case closed[] = {
        {"every registered algorithm = its closed form (p 2, 8)", test_registry_closed_forms},
        {"every closed form renders, products explicit", test_formula_render},
        {"the same with gamma", test_registry_gamma},
        {"the same with --chunks 4", test_registry_chunks},
        {"textbook forms by name", test_textbook_forms},
        {"gamma forms", test_gamma_forms},
        {"a root on an unrooted collective changes nothing", test_unrooted_root_ignored},
        {NULL, NULL}};
    static const cs_test_case wrong[] = {
        {"#wrong 0, p 1..33, alpha_beta", test_wrong_ab},
        {"#wrong 0, p 1..9, switch", test_wrong_switch},
        {"#wrong 0, p 1..9, gamma", test_wrong_gamma},
        {NULL, NULL}};
    static const cs_test_case misc[] = {
        {"openmlsys broadcast", test_openmlsys_broadcast},
        {"openmlsys parameter server vs ring", test_openmlsys_ps_vs_ring},
        {"registry names and lookup", test_registry_names},
        {"parameter_server check", test_ps_check},
        {"auto", test_auto},
        {"list, explain, run --algo auto", test_commands},
        {NULL, NULL}};
    if (cs_test_add_suite("algos_closed", closed) || cs_test_add_suite("algos_wrong", wrong) ||
        cs_test_add_suite("algos_misc", misc))
        return -1;
    return 0;
}
