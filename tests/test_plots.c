/* test_plots.c: the plots layer, part 1. Axis and tick maths as plain functions (1-2-5
 * steps, byte labels 8 B .. 8 GiB without overlaps); charts in PNG/SVG/PDF of the requested
 * size with every series' colour inside the plot area, the error panel, and the same SVG
 * bytes twice; loading results (JSON, CSV, logs) and picking series; `collsim plot`; bad
 * inputs fail clearly and leave no file. Timelines, traces and drawings: test_timeline.c. */
#include "tests/testutil.h"
#include "tests/plottest.h"
#include "plots/axis.h"

#include <math.h>

/* ---- axis maths ---- */

static double fixed20(void *ctx, const char *s)
{
    (void)ctx;
    (void)s;
    return 20;
}

static int n_major(const cs_axis *ax)
{
    int i, n = 0;
    for (i = 0; i < ax->n_ticks; i++)
        n += ax->ticks[i].is_major;
    return n;
}

static const cs_tick *major(const cs_axis *ax, int k)
{
    int i;
    for (i = 0; i < ax->n_ticks; i++)
        if (ax->ticks[i].is_major && k-- == 0)
            return &ax->ticks[i];
    return NULL;
}

static void test_nice(void)
{
    CS_ASSERT_REL(cs_axis_nice_ceil(0.7), 1, 1e-12);
    CS_ASSERT_REL(cs_axis_nice_ceil(1), 1, 1e-12);
    CS_ASSERT_REL(cs_axis_nice_ceil(1.1), 2, 1e-12);
    CS_ASSERT_REL(cs_axis_nice_ceil(2.5), 5, 1e-12);
    CS_ASSERT_REL(cs_axis_nice_ceil(7), 10, 1e-12);
    CS_ASSERT_REL(cs_axis_nice_ceil(0.03), 0.05, 1e-12);
    CS_ASSERT_REL(cs_axis_nice_ceil(120), 200, 1e-12);
}

/* 0..97 on 300 px with 20 px labels and 9 px gaps: step 5 puts ticks 15 px apart (too
 * close), step 10 puts them 30 px apart (>= 20 + 9): 0, 10, ..., 100. */
static void test_linear(void)
{
    cs_axis ax;
    cs_axis_fit fit = {300, 9, fixed20, NULL};
    CU_ASSERT_EQUAL_FATAL(cs_axis_linear(&ax, 0, 97, CS_AXIS_FMT_NUMBER, &fit), 0);
    CU_ASSERT_EQUAL(ax.n_ticks, 11);
    CS_ASSERT_REL(ax.lo, 0, 1e-12);
    CS_ASSERT_REL(ax.hi, 100, 1e-12);
    CU_ASSERT_STRING_EQUAL(ax.ticks[5].label, "50");
    CU_ASSERT(cs_axis_labels_fit(&ax, &fit));
    CS_ASSERT_REL(cs_axis_pos(&ax, 25), 0.25, 1e-12);
    /* Decimals follow the step: 0..0.97 -> 0.0, 0.1, ..., 1.0. */
    CU_ASSERT_EQUAL_FATAL(cs_axis_linear(&ax, 0, 0.97, CS_AXIS_FMT_NUMBER, &fit), 0);
    CU_ASSERT_EQUAL(ax.n_ticks, 11);
    CU_ASSERT_STRING_EQUAL(ax.ticks[3].label, "0.3");
    CU_ASSERT_STRING_EQUAL(ax.ticks[10].label, "1.0");
    /* 60 px: only 3 labels fit (30 px apart): step 50 over 0..100. */
    fit.len_px = 60;
    CU_ASSERT_EQUAL_FATAL(cs_axis_linear(&ax, 0, 97, CS_AXIS_FMT_NUMBER, &fit), 0);
    CU_ASSERT_EQUAL(ax.n_ticks, 3);
    CU_ASSERT_STRING_EQUAL(ax.ticks[1].label, "50");
    /* An empty range is widened. */
    CU_ASSERT_EQUAL(cs_axis_linear(&ax, 0, 0, CS_AXIS_FMT_NUMBER, &fit), 0);
    CU_ASSERT(ax.hi > ax.lo);
    CU_ASSERT_EQUAL(cs_axis_linear(&ax, 1, NAN, CS_AXIS_FMT_NUMBER, &fit), CS_EINVAL);
}

/* 3 us .. 40 ms spans the decades 1 us .. 100 ms: with room, every decade is labelled
 * (6 labels) with minor ticks 2..9 (5 x 8); on 100 px (20 px a decade, labels need 30 + 10)
 * every second decade: 1 us, 100 us, 10 ms. */
static void test_log10(void)
{
    cs_axis ax;
    cs_axis_fit fit = {1000, 10, fixed20, NULL};
    CU_ASSERT_EQUAL_FATAL(cs_axis_log10(&ax, 3, 40000, CS_AXIS_FMT_TIME_US, &fit), 0);
    CS_ASSERT_REL(ax.lo, 1, 1e-12);
    CS_ASSERT_REL(ax.hi, 1e5, 1e-12);
    CU_ASSERT_EQUAL(n_major(&ax), 6);
    CU_ASSERT_EQUAL(ax.n_ticks, 6 + 40);
    CU_ASSERT_STRING_EQUAL(major(&ax, 0)->label, "1 \xc2\xb5s");
    CU_ASSERT_STRING_EQUAL(major(&ax, 3)->label, "1 ms");
    CU_ASSERT_STRING_EQUAL(major(&ax, 5)->label, "100 ms");
    CS_ASSERT_REL(cs_axis_pos(&ax, 100), 0.4, 1e-12);
    fit.len_px = 100;
    fit.extent = NULL;   /* 7 px a character: "100 µs" is 6 chars = 42 px */
    CU_ASSERT_EQUAL_FATAL(cs_axis_log10(&ax, 3, 40000, CS_AXIS_FMT_TIME_US, &fit), 0);
    CU_ASSERT(cs_axis_labels_fit(&ax, &fit));
    CU_ASSERT(n_major(&ax) >= 2);
    /* Short ranges get 1-2-5 labels. */
    fit.len_px = 1000;
    CU_ASSERT_EQUAL_FATAL(cs_axis_log10(&ax, 1, 100, CS_AXIS_FMT_NUMBER, &fit), 0);
    CU_ASSERT_EQUAL(n_major(&ax), 7);   /* 1 2 5 10 20 50 100 */
    CU_ASSERT_STRING_EQUAL(major(&ax, 4)->label, "20");
    CU_ASSERT_EQUAL(cs_axis_log10(&ax, 0, 10, CS_AXIS_FMT_NUMBER, &fit), CS_EINVAL);
}

/* 8 B .. 8 GiB (2^3 .. 2^33) on 300 px at 7 px a character with 10 px gaps: 10 px per
 * octave. Every 5th octave fails (8 KiB next to 256 KiB needs (35 + 49)/2 + 10 = 52 px >
 * 50); every 6th fits and lands on both ends: 8 B, 512 B, 32 KiB, 2 MiB, 128 MiB, 8 GiB. */
static void test_bytes(void)
{
    cs_axis ax;
    cs_axis_fit fit = {300, 10, NULL, NULL};
    int w;
    CU_ASSERT_EQUAL_FATAL(cs_axis_log2_bytes(&ax, 8, 8.0 * (1 << 30), &fit), 0);
    CU_ASSERT_EQUAL(ax.n_ticks, 31);
    CU_ASSERT_EQUAL(n_major(&ax), 6);
    CU_ASSERT_STRING_EQUAL(major(&ax, 0)->label, "8 B");
    CU_ASSERT_STRING_EQUAL(major(&ax, 1)->label, "512 B");
    CU_ASSERT_STRING_EQUAL(major(&ax, 2)->label, "32 KiB");
    CU_ASSERT_STRING_EQUAL(major(&ax, 5)->label, "8 GiB");
    /* No overlap and both ends labelled at any width from 150 to 2000 px. */
    for (w = 150; w <= 2000; w += 50) {
        fit.len_px = w;
        CU_ASSERT_EQUAL(cs_axis_log2_bytes(&ax, 8, 8.0 * (1 << 30), &fit), 0);
        CU_ASSERT(cs_axis_labels_fit(&ax, &fit));
        CU_ASSERT_STRING_EQUAL(major(&ax, 0)->label, "8 B");
        CU_ASSERT_STRING_EQUAL(major(&ax, n_major(&ax) - 1)->label, "8 GiB");
    }
    /* Wide enough for every power of two. */
    fit.len_px = 3000;
    CU_ASSERT_EQUAL(cs_axis_log2_bytes(&ax, 8, 8.0 * (1 << 30), &fit), 0);
    CU_ASSERT_EQUAL(n_major(&ax), 31);
    CU_ASSERT_STRING_EQUAL(major(&ax, 7)->label, "1 KiB");
    /* One size sits in the middle of a two-octave axis: 512 KiB .. 2 MiB. */
    CU_ASSERT_EQUAL(cs_axis_log2_bytes(&ax, 1 << 20, 1 << 20, &fit), 0);
    CS_ASSERT_REL(ax.lo, 1 << 19, 1e-12);
    CS_ASSERT_REL(ax.hi, 1 << 21, 1e-12);
    CS_ASSERT_REL(cs_axis_pos(&ax, 1 << 20), 0.5, 1e-12);
    CU_ASSERT_EQUAL(cs_axis_log2_bytes(&ax, 0, 8, &fit), CS_EINVAL);
}

static void test_format(void)
{
    char b[32];
    cs_axis_format(CS_AXIS_FMT_TIME_US, 0.1, 0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "100 ns");
    cs_axis_format(CS_AXIS_FMT_TIME_US, 1500, 0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "1.5 ms");
    cs_axis_format(CS_AXIS_FMT_TIME_US, 2e6, 0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "2 s");
    cs_axis_format(CS_AXIS_FMT_BYTES, 1536, 0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "1.5 KiB");
    cs_axis_format(CS_AXIS_FMT_BYTES, 8.0 * (1 << 30), 0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "8 GiB");
    cs_axis_format(CS_AXIS_FMT_NUMBER, 2.5, 0.5, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "2.5");
    cs_axis_format(CS_AXIS_FMT_NUMBER, -1e-17, 0.1, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "0.0");
}

/* ---- charts ---- */

/* n simulated series (one measured every third) over 8 B .. 8 GiB. */
static void make_series(cs_series *s, cs_point *pts, int n, int n_pts)
{
    int i, j;
    memset(s, 0, (size_t)n * sizeof *s);
    for (i = 0; i < n; i++) {
        s[i].label = malloc(32);
        snprintf(s[i].label, 32, "series %d", i);
        s[i].is_measured = i % 3 == 2;
        s[i].pts = pts + i * n_pts;
        s[i].n_pts = n_pts;
        for (j = 0; j < n_pts; j++) {
            cs_point *p = &s[i].pts[j];
            p->size_bytes = 8.0 * (double)(1ull << j);
            /* a + S/B with a per-series latency and bandwidth, so the curves separate */
            p->time_us = 2.0 * (i + 1) + p->size_bytes / (1e3 * (40.0 + 25.0 * i));
            p->algbw_GBps = p->size_bytes / (p->time_us * 1e3);
            p->busbw_GBps = p->algbw_GBps * 1.75;
        }
    }
}

static void free_labels(cs_series *s, int n)
{
    int i;
    for (i = 0; i < n; i++)
        free(s[i].label);
}

static void test_chart_png(void)
{
    cs_series s[4];
    cs_point pts[4 * 31];
    cs_chart c = {"busbw against size", CS_METRIC_BUSBW, 0, s, 4, CS_CHART_X_SIZE, NULL, NULL};
    cs_chart_layout lay;
    cs_err err;
    int w = 0, h = 0, i;
    const char *path = tmp_path("chart.png");
    make_series(s, pts, 4, 31);
    CU_ASSERT_EQUAL_FATAL(cs_plot_chart(&c, path, 640, 400, &lay, &err), 0);
    CU_ASSERT(png_size(path, &w, &h));
    CU_ASSERT_EQUAL(w, 640);
    CU_ASSERT_EQUAL(h, 400);
    /* The legend stays outside the plot area, and every series' colour is inside it. */
    CU_ASSERT(lay.legend.x >= lay.plot.x + lay.plot.w);
    for (i = 0; i < 4; i++) {
        unsigned char rgb[3];
        long n;
        cs_plot_series_rgb(i, rgb);
        n = count_rgb(path, &lay.plot, rgb);
        if (n < 10)
            fprintf(stderr, "\n  series %d: %ld pixels of #%02x%02x%02x\n", i, n, rgb[0], rgb[1], rgb[2]);
        CU_ASSERT(n >= 10);
    }
    /* time (log-log) and algbw on a log axis at another size */
    c.metric = CS_METRIC_TIME;
    CU_ASSERT_EQUAL(cs_plot_chart(&c, path, 500, 700, &lay, &err), 0);
    CU_ASSERT(png_size(path, &w, &h) && w == 500 && h == 700);
    for (i = 0; i < 4; i++) {
        unsigned char rgb[3];
        cs_plot_series_rgb(i, rgb);
        CU_ASSERT(count_rgb(path, &lay.plot, rgb) >= 10);
    }
    c.metric = CS_METRIC_ALGBW;
    c.log_y = 1;
    CU_ASSERT_EQUAL(cs_plot_chart(&c, path, 900, 540, NULL, &err), 0);
    free_labels(s, 4);
}

static void test_chart_svg_pdf(void)
{
    cs_series s[3];
    cs_point pts[3 * 20];
    cs_chart c = {"determinism", CS_METRIC_BUSBW, 0, s, 3, CS_CHART_X_SIZE, NULL, NULL};
    cs_err err;
    int w = 0, h = 0;
    const char *a = tmp_path("a.svg"), *b = tmp_path("b.svg"), *pdf = tmp_path("c.pdf");
    make_series(s, pts, 3, 20);
    CU_ASSERT_EQUAL_FATAL(cs_plot_chart(&c, a, 800, 450, NULL, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plot_chart(&c, b, 800, 450, NULL, &err), 0);
    CU_ASSERT(svg_size(a, &w, &h));
    CU_ASSERT_EQUAL(w, 800);
    CU_ASSERT_EQUAL(h, 450);
    CU_ASSERT(same_bytes(a, b));
    CU_ASSERT_EQUAL(cs_plot_chart(&c, pdf, 612, 396, NULL, &err), 0);
    CU_ASSERT(pdf_ok(pdf, 612, 396));
    free_labels(s, 3);
}

/* Measured points with the model's error per size: an error panel under the plot holds
 * the measured series' colour; the simulated line stays in the plot above it. */
static void test_chart_errors(void)
{
    cs_series_set set = {NULL, 0, 0};
    cs_series *m, *sim;
    cs_chart c = {"validate", CS_METRIC_BUSBW, 0, NULL, 0, CS_CHART_X_SIZE, NULL, NULL};
    cs_chart_layout lay;
    cs_err err;
    unsigned char rgb[3];
    int j, w, h;
    CU_ASSERT_PTR_NOT_NULL_FATAL(sim = cs_series_add(&set, "simulated", 0));
    for (j = 0; j < 20; j++) {
        cs_point p = {8.0 * (1 << j), 0, 0, 0, 0};
        p.time_us = 5 + p.size_bytes / 1e5;
        p.algbw_GBps = p.size_bytes / (p.time_us * 1e3);
        p.busbw_GBps = p.algbw_GBps;
        CU_ASSERT_EQUAL(cs_series_push(sim, &p, NAN), 0);
    }
    CU_ASSERT_PTR_NULL(sim->err_pct);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m = cs_series_add(&set, "measured", 1));
    for (j = 0; j < 20; j += 2) {
        cs_point p = set.items[0].pts[j];
        p.busbw_GBps *= 1.1;
        CU_ASSERT_EQUAL(cs_series_push(m, &p, j ? -10.0 + j : NAN), 0);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(m->err_pct);
    CU_ASSERT(isnan(m->err_pct[0]));
    CS_ASSERT_REL(m->err_pct[1], -8, 1e-12);
    c.series = set.items;
    c.n_series = set.n;
    CU_ASSERT_EQUAL_FATAL(cs_plot_chart(&c, tmp_path("err.png"), 700, 520, &lay, &err), 0);
    CU_ASSERT(png_size(tmp_path("err.png"), &w, &h) && w == 700 && h == 520);
    CU_ASSERT(lay.error.h > 40);
    CU_ASSERT(lay.error.y >= lay.plot.y + lay.plot.h);
    cs_plot_series_rgb(1, rgb);
    CU_ASSERT(count_rgb(tmp_path("err.png"), &lay.error, rgb) >= 10);
    cs_plot_series_rgb(0, rgb);
    CU_ASSERT(count_rgb(tmp_path("err.png"), &lay.plot, rgb) >= 10);
    CU_ASSERT_EQUAL(count_rgb(tmp_path("err.png"), &lay.error, rgb), 0);
    cs_series_set_fini(&set);
}

/* 32 series: colours cycle, dashes and markers change, the legend takes two columns. */
static void test_chart_many(void)
{
    cs_series s[32];
    cs_point *pts = malloc(32 * 31 * sizeof *pts);
    cs_chart c = {"32 series", CS_METRIC_BUSBW, 0, s, 32, CS_CHART_X_SIZE, NULL, NULL};
    cs_chart_layout lay;
    cs_err err;
    int w, h;
    make_series(s, pts, 32, 31);
    CU_ASSERT_EQUAL(cs_plot_chart(&c, tmp_path("many.png"), 900, 540, &lay, &err), 0);
    CU_ASSERT(png_size(tmp_path("many.png"), &w, &h) && w == 900 && h == 540);
    CU_ASSERT(lay.plot.w > 300);
    free_labels(s, 32);
    free(pts);
}

static void test_chart_bad(void)
{
    cs_series s[1];
    cs_point pts[4];
    cs_chart c = {NULL, CS_METRIC_TIME, 0, s, 1, CS_CHART_X_SIZE, NULL, NULL};
    cs_err err;
    int j;
    make_series(s, pts, 1, 4);
    /* unwritable: a missing directory; nothing is left behind */
    CU_ASSERT_EQUAL(cs_plot_chart(&c, "/nonexistent-dir/x.png", 640, 400, NULL, &err), CS_EIO);
    CU_ASSERT_STRING_EQUAL(err.where, "/nonexistent-dir/x.png");
    CU_ASSERT(strstr(err.msg, "cannot write") != NULL);
    /* unknown type */
    CU_ASSERT_EQUAL(cs_plot_chart(&c, tmp_path("bad.jpg"), 640, 400, NULL, &err), CS_EINVAL);
    CU_ASSERT(strstr(err.msg, "unknown file type '.jpg'") != NULL);
    /* bad size */
    CU_ASSERT_EQUAL(cs_plot_chart(&c, tmp_path("bad.png"), 10, 400, NULL, &err), CS_EINVAL);
    /* nothing drawable: no time is positive */
    for (j = 0; j < 4; j++)
        pts[j].time_us = 0;
    CU_ASSERT_EQUAL(cs_plot_chart(&c, tmp_path("bad.png"), 640, 400, NULL, &err), CS_EINVAL);
    CU_ASSERT(strstr(err.msg, "no point to draw") != NULL);
    c.n_series = 0;
    CU_ASSERT_EQUAL(cs_plot_chart(&c, tmp_path("bad.png"), 640, 400, NULL, &err), CS_EINVAL);
    CU_ASSERT_EQUAL(count_files("bad."), 0);
    free_labels(s, 1);
}

/* ---- loading series ---- */

static void test_series_load(void)
{
    cs_series_set set = {NULL, 0, 0};
    cs_err err;
    const char *const pick[] = {"csv", "ring on dgx-h100"};
    const char *const nope[] = {"nvls"};
    CU_ASSERT_EQUAL_FATAL(cs_series_load(&set, cs_test_data("ok/plot-ring.json"), NULL, 0, &err), 0);
    CU_ASSERT_EQUAL_FATAL(set.n, 1);
    CU_ASSERT_STRING_EQUAL(set.items[0].label, "ring on dgx-h100");
    CU_ASSERT_EQUAL(set.items[0].n_pts, 6);   /* 1 KiB .. 1 MiB by 4 */
    CS_ASSERT_REL(set.items[0].pts[1].size_bytes, 4096, 1e-12);
    CU_ASSERT_EQUAL(set.items[0].is_measured, 0);
    CU_ASSERT_EQUAL_FATAL(cs_series_load(&set, cs_test_data("ok/plot-ring4.csv"), "csv", 0, &err), 0);
    CU_ASSERT_EQUAL_FATAL(set.n, 2);
    CU_ASSERT_STRING_EQUAL(set.items[1].label, "csv");
    CU_ASSERT_EQUAL(set.items[1].n_pts, 6);
    CS_ASSERT_REL(set.items[1].pts[0].time_us, 12.00414, 1e-12);
    CU_ASSERT_EQUAL_FATAL(cs_series_load(&set, cs_test_data("real/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log"),
                                         NULL, 0, &err), 0);
    CU_ASSERT_EQUAL(set.n, 3);
    CU_ASSERT_EQUAL(set.items[2].is_measured, 1);   /* logs are measurements */
    CU_ASSERT(set.items[2].n_pts >= 4);
    /* bad inputs: nothing is appended */
    CU_ASSERT_EQUAL(cs_series_load(&set, cs_test_data("bad/plot-empty-results.json"), NULL, 0, &err), CS_EINVAL);
    CU_ASSERT(strstr(err.where, "plot-empty-results.json: results") != NULL);
    CU_ASSERT_STRING_EQUAL(err.msg, "empty, expected at least one size");
    CU_ASSERT_EQUAL(cs_series_load(&set, "results.xyz", NULL, 0, &err), CS_EINVAL);
    CU_ASSERT(strstr(err.msg, "unknown file type '.xyz'") != NULL);
    CU_ASSERT_EQUAL(cs_series_load(&set, cs_test_data("bad/plot-csv-badnum.csv"), NULL, 0, &err), CS_EINVAL);
    CU_ASSERT_EQUAL(set.n, 3);
    /* selection by label, in the asked order; an unknown label names the known ones */
    CU_ASSERT_EQUAL(cs_series_select(&set, nope, 1, &err), CS_ENOENT);
    CU_ASSERT(strstr(err.msg, "unknown series 'nvls' (known: ring on dgx-h100, csv, nccl-h100") != NULL);
    CU_ASSERT_EQUAL_FATAL(cs_series_select(&set, pick, 2, &err), 0);
    CU_ASSERT_EQUAL_FATAL(set.n, 2);
    CU_ASSERT_STRING_EQUAL(set.items[0].label, "csv");
    CU_ASSERT_STRING_EQUAL(set.items[1].label, "ring on dgx-h100");
    cs_series_set_fini(&set);
}

/* A JSON array of sweeps gives one series each. */
static void test_series_array(void)
{
    const char *path = tmp_path("two.json");
    FILE *f = fopen(path, "w");
    cs_series_set set = {NULL, 0, 0};
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("[{\"algorithm\":\"ring\",\"topology\":\"t\",\"results\":[{\"size_bytes\":8,\"time_us\":1}]},"
          " {\"algorithm\":\"tree\",\"topology\":\"t\",\"results\":[{\"size_bytes\":8,\"time_us\":2,"
          "\"busbw_GBps\":0.5}]}]", f);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(cs_series_load(&set, path, NULL, 1, &err), 0);
    CU_ASSERT_EQUAL_FATAL(set.n, 2);
    CU_ASSERT_STRING_EQUAL(set.items[1].label, "tree on t");
    CU_ASSERT(isnan(set.items[0].pts[0].busbw_GBps));
    CS_ASSERT_REL(set.items[1].pts[0].busbw_GBps, 0.5, 1e-12);
    CU_ASSERT_EQUAL(set.items[1].is_measured, 1);
    cs_series_set_fini(&set);
}

/* ---- the command ---- */

static void test_cli(void)
{
    char cmd[2048], *out = NULL;
    int w = 0, h = 0;
    snprintf(cmd, sizeof cmd, "%s plot %s %s --label ring8 --label ring4 --output %s --width 700 "
             "--height 420 --title 'two sweeps' 2>&1", CS_COLLSIM, cs_test_data("ok/plot-ring.json"),
             cs_test_data("ok/plot-ring4.csv"), tmp_path("cli1.svg"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "%s plot %s %s --label ring8 --label ring4 --output %s --width 700 "
             "--height 420 --title 'two sweeps' 2>&1", CS_COLLSIM, cs_test_data("ok/plot-ring.json"),
             cs_test_data("ok/plot-ring4.csv"), tmp_path("cli2.svg"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT(svg_size(tmp_path("cli1.svg"), &w, &h) && w == 700 && h == 420);
    CU_ASSERT(same_bytes(tmp_path("cli1.svg"), tmp_path("cli2.svg")));
    snprintf(cmd, sizeof cmd, "%s plot %s --measured %s --metric time --output %s 2>&1", CS_COLLSIM,
             cs_test_data("ok/plot-ring.json"), cs_test_data("real/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log"),
             tmp_path("cli.png"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT(png_size(tmp_path("cli.png"), &w, &h) && w == CS_PLOT_DEFAULT_W && h == CS_PLOT_DEFAULT_H);
}

int cs_test_register(void)
{
    static const cs_test_case axis[] = {
        {"nice", test_nice}, {"linear", test_linear}, {"log10", test_log10},
        {"bytes", test_bytes}, {"format", test_format}, {NULL, NULL},
    };
    static const cs_test_case chart[] = {
        {"png", test_chart_png}, {"svg_pdf", test_chart_svg_pdf}, {"many", test_chart_many},
        {"errors", test_chart_errors}, {"bad", test_chart_bad}, {"series_load", test_series_load},
        {"series_array", test_series_array}, {"cli", test_cli}, {NULL, NULL},
    };
    if (cs_test_add_suite("plot_axis", axis) || cs_test_add_suite("plot_chart", chart))
        return -1;
    return 0;
}
