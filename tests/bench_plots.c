/* bench_plots.c: drawing speed of the plots layer (`meson test --benchmark`). Times a
 * 32-series sweep chart (31 sizes each, 8 B .. 8 GiB) in PNG and SVG, and the timeline and
 * trace of ring allreduce on 64 ranks of a ring fabric (2 x 63 x 64 = 8064 transfers).
 * usage: bench_plots [OUTDIR] (default /tmp); prints one line per measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plots/plot.h"
#include "plots/timeline.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best of reps runs of fn, seconds. */
#define BEST_OF(reps, best, stmt) do {                                   \
        int r_;                                                          \
        best = 1e30;                                                     \
        for (r_ = 0; r_ < (reps); r_++) {                                \
            double t0_ = now_s(), dt_;                                   \
            stmt;                                                        \
            dt_ = now_s() - t0_;                                         \
            if (dt_ < best)                                              \
                best = dt_;                                              \
        }                                                                \
    } while (0)

static int bench_chart(const char *dir)
{
    enum { N = 32, PTS = 31 };
    cs_series s[N];
    cs_point *pts = malloc(N * PTS * sizeof *pts);
    cs_chart c;
    cs_err err;
    char path[512], label[N][32];
    double best;
    int i, j, rc = 0;
    if (!pts)
        return 1;
    memset(s, 0, sizeof s);
    for (i = 0; i < N; i++) {
        snprintf(label[i], sizeof label[i], "series %d", i);
        s[i].label = label[i];
        s[i].is_measured = i % 4 == 3;
        s[i].pts = pts + i * PTS;
        s[i].n_pts = PTS;
        for (j = 0; j < PTS; j++) {
            cs_point *p = &s[i].pts[j];
            p->size_bytes = 8.0 * (double)(1ull << j);
            p->time_us = 2.0 + i + p->size_bytes / (1e3 * (20.0 + 12.0 * i));
            p->algbw_GBps = p->size_bytes / (p->time_us * 1e3);
            p->busbw_GBps = p->algbw_GBps * 1.75;
        }
    }
    memset(&c, 0, sizeof c);
    c.title = "32 series";
    c.series = s;
    c.n_series = N;
    snprintf(path, sizeof path, "%s/bench-chart-32.png", dir);
    BEST_OF(5, best, rc |= cs_plot_chart(&c, path, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, NULL, &err));
    printf("chart 32 series x 31 sizes, PNG %dx%d: %.1f ms\n", CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, best * 1e3);
    snprintf(path, sizeof path, "%s/bench-chart-32.svg", dir);
    BEST_OF(5, best, rc |= cs_plot_chart(&c, path, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, NULL, &err));
    printf("chart 32 series x 31 sizes, SVG: %.1f ms\n", best * 1e3);
    free(pts);
    if (rc)
        fprintf(stderr, "error: %s: %s\n", err.where, err.msg);
    return rc != 0;
}

static int bench_timeline(const char *dir)
{
    const char *json = "{\"kind\":\"ring\",\"ranks\":64,\"link\":{\"bandwidth_GBps\":100,\"latency_us\":1}}";
    cs_topo *t = NULL;
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_timeline *tl = NULL;
    cs_err err;
    char path[512];
    double best, t0;
    int rc, n;
    if ((rc = cs_topo_load_string(json, "ring64", &t, &err)) < 0)
        goto out;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 64, 64u << 20);
    if ((rc = cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, &err)) < 0 ||
        (rc = cs_algo_build(ops, &req, &s, &err)) < 0)
        goto out;
    t0 = now_s();
    if ((rc = cs_timeline_new(&tl, t)) == 0)
        rc = cs_timeline_run(tl, &s, NULL, &err);
    cs_sched_fini(&s);
    if (rc)
        goto out;
    cs_timeline_ops(tl, &n);
    printf("record ring allreduce 64 ranks, 64 MiB (%d transfers): %.1f ms\n", n, (now_s() - t0) * 1e3);
    cs_timeline_set_title(tl, "ring allreduce, 64 ranks, 64 MiB");
    snprintf(path, sizeof path, "%s/bench-timeline-64.png", dir);
    BEST_OF(3, best, rc |= cs_plot_timeline(tl, path, 1200, 800, &err));
    printf("timeline 64 ranks + 4 link lanes, PNG 1200x800: %.1f ms\n", best * 1e3);
    snprintf(path, sizeof path, "%s/bench-timeline-64.svg", dir);
    BEST_OF(3, best, rc |= cs_plot_timeline(tl, path, 1200, 800, &err));
    printf("timeline 64 ranks + 4 link lanes, SVG 1200x800: %.1f ms\n", best * 1e3);
    snprintf(path, sizeof path, "%s/bench-trace-64.json", dir);
    BEST_OF(3, best, rc |= cs_trace_write(tl, path, &err));
    printf("trace 64 ranks (8064 transfers, 64 links): %.1f ms\n", best * 1e3);
out:
    if (rc)
        fprintf(stderr, "error: %s: %s\n", err.where, err.msg);
    cs_timeline_free(tl);
    cs_topo_free(t);
    return rc != 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    return bench_chart(dir) | bench_timeline(dir);
}
