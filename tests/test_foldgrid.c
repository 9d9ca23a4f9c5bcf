/* test_foldgrid.c: symmetric rounds on rank grids (issue 32). Where every rank of a torus or
 * hypercube does the same thing at the same times on links of its own, the dimension-by-
 * dimension schedule (algorithms/levels.c) keeps rank 0's transfers alone and the data
 * check follows rank 0, translated by grid vectors (sim/check.c). Asserted: the folded run
 * finishes at the same picosecond as every rank's, #wrong 0 both ways, and simulates
 * exactly one rank's transfers (the sum over levels of each ring's steps), so the test
 * fails if the fold stops applying; refused where it would not be exact; a translated
 * check that catches a wrong schedule; the grid translation of rank sets against a
 * rank-by-rank one. */
#include "tests/testutil.h"
#include "sim/exec.h"
#include "sim/checkset-private.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run s on t, data check on: finish time, #wrong, transfers simulated. */
static void sim_run(const cs_topo *t, const cs_sched *s, cs_time *t_ps, int *wrong,
                    uint64_t *xfers)
{
    cs_sim_counters c;
    cs_sim *sim;
    cs_job *job;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, s, NULL, 0, &job, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, &err), 0);
    *t_ps = cs_job_end(job);
    *wrong = cs_job_wrong(job);
    cs_sim_get_counters(sim, &c);
    *xfers = c.transfers;
    cs_sim_free(sim);
}

/* A run of `algo` for coll on topology json: finish time, #wrong, transfers simulated,
 * whether the schedule was folded. time_only as cs_coll_req's. */
static void grid_run(const char *json, const char *algo, cs_coll coll, uint64_t S,
                     int time_only, cs_time *t_ps, int *wrong, uint64_t *xfers, int *one)
{
    cs_topo *t = NULL;
    const cs_algo *ops;
    cs_coll_req req;
    cs_sched s;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(json, "grid", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup(algo, coll, &ops, &err), 0);
    cs_coll_req_init(&req, coll, t->n_ranks, S);
    req.time_only = time_only;
    req.topo = t;
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, &err), 0);
    *one = s.one_rank;
    sim_run(t, &s, t_ps, wrong, xfers);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* A ring run of coll with C channels and k pieces, as grid_run. */
static void ring_c_run(const char *json, cs_coll coll, uint64_t S, int C, int k,
                       int time_only, cs_time *t_ps, int *wrong, uint64_t *xfers, int *one)
{
    cs_topo *t = NULL;
    const cs_algo *ops;
    cs_coll_req req;
    cs_sched s;
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(json, "ring", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", coll, &ops, &err), 0);
    cs_coll_req_init(&req, coll, t->n_ranks, S);
    req.time_only = time_only;
    req.topo = t;
    req.channels = C;
    req.chunks = k;
    req.stream = 1;
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, &err), 0);
    *one = s.one_rank;
    sim_run(t, &s, t_ps, wrong, xfers);
    cs_sched_fini(&s);
    cs_topo_free(t);
}

/* Steps of one rank on the grid dims[0..n): a level of size d is a ring of d-1 steps, twice
 * for every level of an allreduce (reduce-scatter down, all-gather back up, or the last
 * level's ring allreduce). */
static uint64_t grid_steps(const int *dims, int n, cs_coll coll)
{
    uint64_t steps = 0;
    int l;
    for (l = 0; l < n; l++)
        steps += (uint64_t)(dims[l] - 1) * (coll == CS_COLL_ALLREDUCE ? 2 : 1);
    return steps;
}

/* Tori of 1, 2 and 3 dimensions (sizes 2 to 8, odd and even) and hypercubes, allreduce,
 * allgather and reducescatter: folded = every rank to the picosecond, #wrong 0 both ways
 * (the check follows rank 0, translated), transfers p * steps -> steps. */
static void t_torus_fold(void)
{
    /* levels, then their sizes */
    static const int dims[][4] = {{1, 4}, {2, 2, 2}, {2, 3, 5}, {2, 4, 4}, {2, 8, 3},
                                  {3, 2, 3, 4}, {3, 3, 3, 3}};
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER,
                                    CS_COLL_REDUCESCATTER};
    int i, b, l, n_cases = (int)(sizeof dims / sizeof dims[0]);
    for (i = 0; i < n_cases + 2; i++) {
        char json[200], *at = json;
        int cube = i >= n_cases, n = cube ? 3 + 2 * (i - n_cases) : dims[i][0], p = 1;
        int d[8] = {0};
        for (l = 0; l < n; l++)
            p *= d[l] = cube ? 2 : dims[i][1 + l];
        if (cube) {
            snprintf(json, sizeof json, "{\"kind\":\"hypercube\",\"ranks\":%d,\"link\":"
                     "{\"bandwidth_GBps\":50,\"latency_us\":0.5}}", p);
        } else {
            at += snprintf(at, sizeof json, "{\"kind\":\"torus\",\"dims\":[");
            for (l = 0; l < n; l++)
                at += snprintf(at, (size_t)(json + sizeof json - at), "%s%d", l ? "," : "",
                               d[l]);
            snprintf(at, (size_t)(json + sizeof json - at), "],\"link\":{\"bandwidth_GBps\":"
                     "50,\"latency_us\":0.5}}");
        }
        for (b = 0; b < 3; b++) {
            uint64_t S = (uint64_t)p * 3000, x0, x1, steps = grid_steps(d, n, colls[b]);
            cs_time t0, t1;
            int w0, w1, one0, one1;
            grid_run(json, "torus", colls[b], S, 0, &t0, &w0, &x0, &one0);
            grid_run(json, "torus", colls[b], S, CS_REQ_TIME_WRONG, &t1, &w1, &x1, &one1);
            if (t0 != t1 || w1 != 0 || x1 != steps)
                fprintf(stderr, "\n  %s %s: all ranks %lld ps, one rank %lld ps, #wrong %d, "
                        "transfers %llu\n", json, cs_coll_name(colls[b]), (long long)t0,
                        (long long)t1, w1, (unsigned long long)x1);
            CU_ASSERT_EQUAL(one0, 0);
            CU_ASSERT_EQUAL(one1, 1);
            CU_ASSERT_EQUAL(t0, t1);
            CU_ASSERT(t0 > 0);
            CU_ASSERT_EQUAL(w0, 0);
            CU_ASSERT_EQUAL(w1, 0);
            CU_ASSERT_EQUAL(x0, (uint64_t)p * steps);
            CU_ASSERT_EQUAL(x1, steps);
        }
    }
}

/* Where the fold would not be exact it is refused and every rank runs: a mesh (the last
 * rank's neighbour is across the whole row, routes differ), a buffer not divisible by the
 * ranks (unequal blocks), a caller that reads the operations (time_only 0, above). */
static void t_torus_refused(void)
{
    static const char *const mesh = "{\"kind\":\"mesh\",\"dims\":[4,4],\"link\":"
                                    "{\"bandwidth_GBps\":50,\"latency_us\":0.5}}";
    static const char *const torus = "{\"kind\":\"torus\",\"dims\":[4,4],\"link\":"
                                     "{\"bandwidth_GBps\":50,\"latency_us\":0.5}}";
    cs_time t_ps;
    uint64_t x;
    int w, one;
    grid_run(mesh, "torus", CS_COLL_ALLREDUCE, 16 * 3000, CS_REQ_TIME_WRONG, &t_ps, &w, &x,
             &one);
    CU_ASSERT_EQUAL(one, 0);
    CU_ASSERT_EQUAL(x, 16 * 12);
    CU_ASSERT_EQUAL(w, 0);
    grid_run(torus, "torus", CS_COLL_ALLREDUCE, 16 * 3000 + 1, CS_REQ_TIME_WRONG, &t_ps, &w,
             &x, &one);
    CU_ASSERT_EQUAL(one, 0);
    CU_ASSERT_EQUAL(x, 16 * 12);
    CU_ASSERT_EQUAL(w, 0);
}

/* A translated allreduce by hand on a 3 x 2 grid: rank 0 reduce-scatters along level 0 to
 * rank 1 (blocks 2-t-1 .. of 2 ranks' worth: blocks are digit-0-major, chunk 2j + y), then
 * runs a ring allreduce along level 1 to rank 3, then all-gathers back to rank 1. Right:
 * #wrong 0; the level-1 ring cut short: every rank (6); the first level-0 block sent twice
 * (double counting): 6. */
static void t_torus_check(void)
{
    cs_topo *t = NULL;
    cs_err err;
    int v, wrong;
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string("{\"kind\":\"torus\",\"dims\":[3,2],\"link\":"
                                              "{\"bandwidth_GBps\":1,\"latency_us\":1}}",
                                              "torus", &t, &err), 0);
    for (v = 0; v < 3; v++) {
        /* (destination, first chunk, chunks, op) of rank 0's steps */
        static const int steps[][4] = {
            {1, 4, 2, CS_OP_REDUCE}, {1, 2, 2, CS_OP_REDUCE},      /* level 0: blocks -1, -2 */
            {3, 0, 1, CS_OP_REDUCE}, {3, 1, 1, CS_OP_COPY},        /* level 1 in x = 0 */
            {1, 0, 2, CS_OP_COPY}, {1, 4, 2, CS_OP_COPY},          /* level 0 back */
        };
        cs_sched s;
        int64_t prev = -1;
        int k, n = 0;
        CU_ASSERT_EQUAL_FATAL(cs_sched_init(&s, CS_COLL_ALLREDUCE, 6, 0, 600), 0);
        for (k = 0; k < 6; k++)      /* block j of digits (x, y) = 2x + y belongs to x + 3y */
            CU_ASSERT(cs_sched_chunk(&s, 100, k / 2 + 3 * (k % 2), -1) >= 0);
        s.one_rank = s.turns = 1;
        s.turn_levels = 2;
        s.turn_dims[0] = 3;
        s.turn_dims[1] = 2;
        for (k = 0; k < 6; k++) {
            uint32_t dep = (uint32_t)prev;
            int first = v == 2 && k == 1 ? 4 : steps[k][1];
            if (v == 1 && k == 3)
                continue;
            prev = cs_sched_xfer_range(&s, 0, steps[k][0], (cs_op)steps[k][3], (uint32_t)first,
                                       (uint32_t)steps[k][2], &dep, prev >= 0, n++);
            CU_ASSERT_FATAL(prev >= 0);
        }
        CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &wrong, &err), 0);
        CU_ASSERT_EQUAL(wrong, v ? 6 : 0);
        cs_sched_fini(&s);
    }
    cs_topo_free(t);
}

/* cs__ivs_shift against moving every rank by hand, on grids 4 x 3 x 5 and 7 x 2, along
 * every level both ways, for every interval [a, b) and for pairs of intervals. */
static void t_shift_sets(void)
{
    static const int grids[][4] = {{3, 4, 3, 5}, {2, 7, 2}};
    int gi;
    ivs in = {0}, out = {0};
    for (gi = 0; gi < 2; gi++) {
        int n = grids[gi][0], p = 1, l, dir, a, b, c;
        for (l = 0; l < n; l++)
            p *= grids[gi][1 + l];
        for (l = 0; l < n; l++)
            for (dir = -1; dir <= 1; dir += 2)
                for (a = 0; a < p; a++)
                    for (b = a + 1; b <= p; b++)
                        for (c = 0; c < 2; c++) {
                            int stride = 1, d = grids[gi][1 + l], r, i, ok = 1;
                            unsigned char want[64] = {0}, got[64] = {0};
                            if (c && b + 1 >= p)
                                continue;
                            for (i = 0; i < l; i++)
                                stride *= grids[gi][1 + i];
                            CU_ASSERT_EQUAL_FATAL(cs__ivs_reserve(&in, 2), 0);
                            in.iv[0] = a;                  /* [a, b), and [b+1, p) with c */
                            in.iv[1] = b;
                            in.iv[2] = b + 1;
                            in.iv[3] = p;
                            in.n = 1 + c;
                            for (i = 0; i < in.n; i++)
                                for (r = in.iv[2 * i]; r < in.iv[2 * i + 1]; r++) {
                                    int dg = r / stride % d;
                                    want[r + (((dg + dir) % d + d) % d - dg) * stride] = 1;
                                }
                            CU_ASSERT_EQUAL_FATAL(cs__ivs_shift(&in, stride, d, dir, &out), 0);
                            for (i = 0; i < out.n; i++) {
                                ok = ok && out.iv[2 * i] < out.iv[2 * i + 1] &&
                                     (i == 0 || out.iv[2 * i] > out.iv[2 * i - 1]);
                                for (r = out.iv[2 * i]; r < out.iv[2 * i + 1]; r++)
                                    got[r] = 1;
                            }
                            CU_ASSERT(ok);             /* sorted, disjoint, not touching */
                            CU_ASSERT(!memcmp(want, got, sizeof want));
                        }
    }
    free(in.iv);
    free(out.iv);
}

/* Ring allreduce, allgather and reducescatter with C channels (even ones forwards, odd ones
 * backwards) on the ring kind: each directed link carries the channels of one rank, so
 * rank 0's transfers on all channels stand for all (one level of p, turned both ways).
 * Folded = every rank to the picosecond, #wrong 0 both ways, transfers C k steps p ->
 * C k steps, p = 2..64, C = 2..4, k = 1 and 3. */
static void t_channels_fold(void)
{
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_ALLGATHER,
                                    CS_COLL_REDUCESCATTER};
    static const int ps[] = {2, 3, 8, 64};
    int b, i, C, k;
    for (b = 0; b < 3; b++)
        for (i = 0; i < 4; i++)
            for (C = 2; C <= 4; C++)
                for (k = 1; k <= 3; k += 2) {
                    uint64_t p = (uint64_t)ps[i], S = p * (uint64_t)C * 12000, x0, x1;
                    uint64_t steps = colls[b] == CS_COLL_ALLREDUCE ? 2 * (p - 1) : p - 1;
                    char json[160];
                    cs_time t0, t1;
                    int w0, w1, one0, one1;
                    snprintf(json, sizeof json, "{\"kind\":\"ring\",\"ranks\":%d,\"link\":"
                             "{\"bandwidth_GBps\":100,\"latency_us\":1}}", ps[i]);
                    ring_c_run(json, colls[b], S, C, k, 0, &t0, &w0, &x0, &one0);
                    ring_c_run(json, colls[b], S, C, k, CS_REQ_TIME_WRONG, &t1, &w1, &x1,
                               &one1);
                    if (t0 != t1 || w1 != 0)
                        fprintf(stderr, "\n  ring %s p=%d C=%d k=%d: all ranks %lld ps, one "
                                "rank %lld ps #wrong %d\n", cs_coll_name(colls[b]), ps[i], C,
                                k, (long long)t0, (long long)t1, w1);
                    CU_ASSERT_EQUAL(one0, 0);
                    CU_ASSERT_EQUAL(one1, 1);
                    CU_ASSERT_EQUAL(t0, t1);
                    CU_ASSERT_EQUAL(w0, 0);
                    CU_ASSERT_EQUAL(w1, 0);
                    CU_ASSERT_EQUAL(x0, (uint64_t)C * (uint64_t)k * steps * p);
                    CU_ASSERT_EQUAL(x1, (uint64_t)C * (uint64_t)k * steps);
                }
}

/* Several channels refused where rank 0's transfers would not load resources as every
 * rank's do: alpha_beta (rank 1's receive port takes channel 0 from rank 0 and channel 1
 * from rank 2), a switch (its downlink to rank 1 carries rank 0's channel 0 and rank 2's
 * channel 1), a reducer per rank (reduce_GBps), unequal channel slices; one channel on the
 * switch folds. */
static void t_channels_refused(void)
{
    static const char *const js[] = {
        "{\"kind\":\"alpha_beta\",\"ranks\":8,\"link\":{\"bandwidth_GBps\":100,"
        "\"latency_us\":1}}",
        "{\"kind\":\"switch\",\"ranks\":8,\"link\":{\"bandwidth_GBps\":100,"
        "\"latency_us\":1}}",
        "{\"kind\":\"ring\",\"ranks\":8,\"reduce_GBps\":500,\"link\":"
        "{\"bandwidth_GBps\":100,\"latency_us\":1}}",
        "{\"kind\":\"ring\",\"ranks\":8,\"link\":{\"bandwidth_GBps\":100,"
        "\"latency_us\":1}}",
    };
    int i, w, one;
    uint64_t x;
    cs_time t_ps;
    for (i = 0; i < 4; i++) {
        ring_c_run(js[i], CS_COLL_ALLREDUCE, i == 3 ? 8 * 2 * 1000 + 8 : 8 * 2 * 1000, 2, 1,
                   CS_REQ_TIME_WRONG, &t_ps, &w, &x, &one);
        CU_ASSERT_EQUAL(one, 0);
        CU_ASSERT_EQUAL(x, 2 * 14 * 8);
        CU_ASSERT_EQUAL(w, 0);
    }
    ring_c_run(js[1], CS_COLL_ALLREDUCE, 8 * 1000, 1, 1, CS_REQ_TIME_WRONG, &t_ps, &w, &x, &one);
    CU_ASSERT_EQUAL(one, 1);
    CU_ASSERT_EQUAL(x, 14);
}

/* Link statistics of a run of ring (C channels, k pieces) or torus on json: every rank
 * (time_only 0) or folded and unfolded (CS_REQ_LINKS) into *out (2 * n_links entries,
 * malloc'd); transfers simulated. Returns whether it was folded. */
static int links_run(const char *json, const char *algo, cs_coll coll, uint64_t S, int C,
                     int k, int time_only, cs_link_stats **out, int *n_dlinks, uint64_t *xfers)
{
    cs_topo *t = NULL;
    const cs_algo *ops;
    cs_coll_req req;
    cs_sim_counters c;
    cs_sched s;
    cs_sim *sim;
    cs_err err;
    int one;
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(json, "links", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup(algo, coll, &ops, &err), 0);
    cs_coll_req_init(&req, coll, t->n_ranks, S);
    req.time_only = time_only;
    req.topo = t;
    req.channels = C;
    req.chunks = k;
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, &err), 0);
    one = s.one_rank;
    *n_dlinks = 2 * t->n_links;
    *out = malloc((size_t)*n_dlinks * sizeof **out);
    CU_ASSERT_FATAL(*out != NULL);
    CU_ASSERT_EQUAL_FATAL(cs_sim_new(&sim, t, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_add(sim, &s, NULL, 0, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_sim_run(sim, &err), 0);
    if (one) {
        CU_ASSERT_EQUAL(cs_sim_link_stats_unfold(t, &s, cs_sim_link_stats(sim), *out), 1);
    } else {
        memcpy(*out, cs_sim_link_stats(sim), (size_t)*n_dlinks * sizeof **out);
    }
    cs_sim_get_counters(sim, &c);
    *xfers = c.transfers;
    cs_sim_free(sim);
    cs_sched_fini(&s);
    cs_topo_free(t);
    return one;
}

/* --links from a fold: every directed link's bytes, busy time and peak flows unfolded from
 * rank 0's run equal every rank's run exactly (ring kind p = 5 and 16 with 1, 2 and 4
 * channels and 1 or 3 pieces; tori 4 x 4 and 3 x 5 x 2; a hypercube), with one rank's
 * transfers simulated; a switch with rank 0 sending both ways is not unfoldable (its
 * downlink to rank 1 would carry rank 0's and rank 2's flows): 0, run unfolded. */
static void t_links_unfold(void)
{
    static const char *const js[] = {
        "{\"kind\":\"ring\",\"ranks\":5,\"link\":{\"bandwidth_GBps\":100,\"latency_us\":1}}",
        "{\"kind\":\"ring\",\"ranks\":16,\"link\":{\"bandwidth_GBps\":100,\"latency_us\":1}}",
        "{\"kind\":\"torus\",\"dims\":[4,4],\"link\":{\"bandwidth_GBps\":50,"
        "\"latency_us\":0.5}}",
        "{\"kind\":\"torus\",\"dims\":[3,5,2],\"link\":{\"bandwidth_GBps\":50,"
        "\"latency_us\":0.5}}",
        "{\"kind\":\"hypercube\",\"ranks\":16,\"link\":{\"bandwidth_GBps\":50,"
        "\"latency_us\":0.5}}",
    };
    int i, C, k, n = 0;
    for (i = 0; i < 5; i++)
        for (C = 1; C <= (i < 2 ? 4 : 1); C *= 2)
            for (k = 1; k <= (i < 2 ? 3 : 1); k += 2) {
                cs_link_stats *a, *b;
                uint64_t xa, xb, p = i == 2 || i == 4 ? 16 : i == 3 ? 30 : i ? 16 : 5;
                uint64_t S = p * (uint64_t)C * 6000;
                const char *algo = i < 2 ? "ring" : "torus";
                int na, nb, d, same = 1;
                CU_ASSERT_EQUAL(links_run(js[i], algo, CS_COLL_ALLREDUCE, S, C, k, 0, &a, &na,
                                          &xa), 0);
                CU_ASSERT_EQUAL(links_run(js[i], algo, CS_COLL_ALLREDUCE, S, C, k, CS_REQ_LINKS,
                                          &b, &nb, &xb), 1);
                CU_ASSERT_EQUAL(xa, xb * p);
                for (d = 0; d < na; d++) {
                    same = same && a[d].bytes == b[d].bytes && a[d].busy_ps == b[d].busy_ps &&
                           a[d].peak_flows == b[d].peak_flows;
                    n += a[d].bytes > 0;
                }
                CU_ASSERT(same);
                free(a);
                free(b);
            }
    CU_ASSERT(n > 0);
    {
        cs_topo *t = NULL;
        cs_sched s;
        cs_link_stats st[64], full[64];
        cs_err err;
        CU_ASSERT_EQUAL_FATAL(cs_topo_load_string("{\"kind\":\"switch\",\"ranks\":8,\"link\":"
                                                  "{\"bandwidth_GBps\":1,\"latency_us\":1}}",
                                                  "sw", &t, &err), 0);
        CU_ASSERT_FATAL(2 * t->n_links <= 64);
        memset(st, 0, sizeof st);
        CU_ASSERT_EQUAL_FATAL(cs_sched_init(&s, CS_COLL_ALLREDUCE, 8, 0, 800), 0);
        s.one_rank = s.turns = 1;
        s.turn_dirs = 1;                  /* rank 0 to rank 1 only: each link one rank's */
        CU_ASSERT_EQUAL(cs_sim_link_stats_unfold(t, &s, st, full), 1);
        s.turn_dirs = 3;                  /* and to rank 7 */
        CU_ASSERT_EQUAL(cs_sim_link_stats_unfold(t, &s, st, full), 0);
        cs_sched_fini(&s);
        cs_topo_free(t);
    }
}

/* The data check off the fold (a mesh runs every rank) keeps sets that wrap inside a grid
 * row as one formula per run (checkset.c, rows of the schedule's grid): #wrong is the same
 * as without the grid, right schedules and schedules with one transfer's reduce turned
 * into a copy or back (every 7th transfer in turn), on meshes 4 x 4, 3 x 5 and 2 x 3 x 4,
 * allreduce, reducescatter and allgather. */
static void t_row_runs(void)
{
    static const char *const js[] = {
        "{\"kind\":\"mesh\",\"dims\":[4,4],\"link\":{\"bandwidth_GBps\":1,\"latency_us\":1}}",
        "{\"kind\":\"mesh\",\"dims\":[3,5],\"link\":{\"bandwidth_GBps\":1,\"latency_us\":1}}",
        "{\"kind\":\"mesh\",\"dims\":[2,3,4],\"link\":{\"bandwidth_GBps\":1,"
        "\"latency_us\":1}}",
    };
    static const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_REDUCESCATTER,
                                    CS_COLL_ALLGATHER};
    int i, b, n_wrong = 0;
    for (i = 0; i < 3; i++)
        for (b = 0; b < 3; b++) {
            cs_topo *t = NULL;
            const cs_algo *ops;
            cs_coll_req req;
            cs_sched s;
            cs_err err;
            uint32_t x;
            CU_ASSERT_EQUAL_FATAL(cs_topo_load_string(js[i], "mesh", &t, &err), 0);
            CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("torus", colls[b], &ops, &err), 0);
            cs_coll_req_init(&req, colls[b], t->n_ranks, (uint64_t)t->n_ranks * 100);
            req.topo = t;
            CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, &err), 0);
            CU_ASSERT_FATAL(s.turn_levels == (i == 2 ? 3 : 2) && !s.one_rank);
            for (x = 0; x <= s.n_xfers; x += 7) {
                int w[2], k, levels = s.turn_levels;
                cs_xfer *op = x < s.n_xfers ? &s.xfers[x] : NULL;
                if (op)
                    op->op = op->op == CS_OP_REDUCE ? CS_OP_COPY : CS_OP_REDUCE;
                for (k = 0; k < 2; k++) {
                    s.turn_levels = k ? 0 : levels;       /* with and without the grid */
                    CU_ASSERT_EQUAL(cs_sim_once(t, &s, NULL, NULL, NULL, &w[k], &err), 0);
                }
                s.turn_levels = levels;
                CU_ASSERT_EQUAL(w[0], w[1]);
                CU_ASSERT(op || w[0] == 0);
                n_wrong += w[0] > 0;
                if (op)
                    op->op = op->op == CS_OP_REDUCE ? CS_OP_COPY : CS_OP_REDUCE;
            }
            cs_sched_fini(&s);
            cs_topo_free(t);
        }
    CU_ASSERT(n_wrong > 20);                  /* the changes were seen */
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"grid fold: one rank's transfers, same finish time and #wrong", t_torus_fold},
        {"grid fold refused: mesh, unequal blocks", t_torus_refused},
        {"grid fold: the data check follows rank 0 translated", t_torus_check},
        {"grid translation of rank sets, rank by rank", t_shift_sets},
        {"ring fold with several channels: same finish time and #wrong", t_channels_fold},
        {"ring fold with several channels refused where inexact", t_channels_refused},
        {"link statistics unfolded from a fold = every rank's", t_links_unfold},
        {"data check off the fold: rows of the grid, same #wrong", t_row_runs},
        {NULL, NULL},
    };
    return cs_test_add_suite("foldgrid", cases);
}
