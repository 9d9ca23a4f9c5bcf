/* test_plots.c: the plots layer. Axis and tick maths as plain functions (1-2-5 steps, byte
 * labels 8 B .. 8 GiB without overlaps); charts in PNG/SVG/PDF of the requested size with
 * every series' colour inside the plot area and the same SVG bytes twice; loading results;
 * timelines and Perfetto traces of ring allreduce on 4 ranks (2(p-1)p = 24 transfers);
 * topology drawings; bad inputs fail clearly and leave no file. */
#include "tests/testutil.h"
#include "plots/axis.h"
#include "plots/plot.h"
#include "plots/timeline.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"

#include <cairo.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/cs-test-plots-XXXXXX");
        if (!mkdtemp(tmpdir))
            snprintf(tmpdir, sizeof tmpdir, "/tmp");
    }
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

/* Files in the temporary directory whose names start with prefix. */
static int count_files(const char *prefix)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix)))
            n++;
    closedir(d);
    return n;
}

static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    if (len)
        *len = n;
    return buf;
}

/* PNG signature and IHDR size. */
static int png_size(const char *path, int *w, int *h)
{
    long n;
    unsigned char *b = (unsigned char *)slurp(path, &n);
    int ok = b && n > 24 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4);
    if (ok) {
        *w = (b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19];
        *h = (b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23];
    }
    free(b);
    return ok;
}

/* Root width/height of an SVG written in px. */
static int svg_size(const char *path, int *w, int *h)
{
    char *b = slurp(path, NULL), *svg;
    int ok = b && (svg = strstr(b, "<svg")) &&
             sscanf(strstr(svg, "width=\""), "width=\"%dpx\"", w) == 1 &&
             sscanf(strstr(svg, "height=\""), "height=\"%dpx\"", h) == 1;
    free(b);
    return ok;
}

static int pdf_ok(const char *path, int w, int h)
{
    long n, i;
    char *b = slurp(path, &n), want[64];
    int ok = 0;
    size_t k;
    snprintf(want, sizeof want, "/MediaBox [ 0 0 %d %d ]", w, h);
    k = strlen(want);
    for (i = 0; b && i + (long)k <= n && !ok; i++)   /* binary streams hold NULs */
        ok = !memcmp(b + i, want, k);
    ok = ok && !strncmp(b, "%PDF-", 5);
    free(b);
    return ok;
}

static int same_bytes(const char *a, const char *b)
{
    long na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && !memcmp(x, y, (size_t)na);
    free(x);
    free(y);
    return same;
}

/* Opaque pixels of exactly rgb inside rect r of a PNG. */
static long count_rgb(const char *png, const cs_plot_rect *r, const unsigned char rgb[3])
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(png);
    long n = 0;
    int x, y, stride;
    unsigned char *data;
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return -1;
    }
    cairo_surface_flush(s);
    data = cairo_image_surface_get_data(s);
    stride = cairo_image_surface_get_stride(s);
    for (y = (int)r->y + 1; y < (int)(r->y + r->h) - 1; y++)
        for (x = (int)r->x + 1; x < (int)(r->x + r->w) - 1; x++) {
            uint32_t px = *(uint32_t *)(data + y * stride + 4 * x);
            if ((px >> 24) == 0xff && ((px >> 16) & 0xff) == rgb[0] && ((px >> 8) & 0xff) == rgb[1] &&
                (px & 0xff) == rgb[2])
                n++;
        }
    cairo_surface_destroy(s);
    return n;
}

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
    cs_chart c = {"busbw against size", CS_METRIC_BUSBW, 0, s, 4};
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
    cs_chart c = {"determinism", CS_METRIC_BUSBW, 0, s, 3};
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

/* 32 series: colours cycle, dashes and markers change, the legend takes two columns. */
static void test_chart_many(void)
{
    cs_series s[32];
    cs_point *pts = malloc(32 * 31 * sizeof *pts);
    cs_chart c = {"32 series", CS_METRIC_BUSBW, 0, s, 32};
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
    cs_chart c = {NULL, CS_METRIC_TIME, 0, s, 1};
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

/* ---- timelines and traces: ring allreduce, p = 4, S = 4 MiB, a = 1 us, B = 100 GB/s ---- */

#define P 4
#define S_BYTES (4u << 20)

static cs_topo *load_topo(const char *kind, int p)
{
    char buf[256];
    cs_topo *t = NULL;
    cs_err err;
    snprintf(buf, sizeof buf, "{\"kind\":\"%s\",\"ranks\":%d,\"link\":{\"bandwidth_GBps\":100,"
             "\"latency_us\":1}}", kind, p);
    if (cs_topo_load_string(buf, kind, &t, &err) < 0)
        fprintf(stderr, "\n  load %s failed: %s: %s\n", kind, err.where, err.msg);
    return t;
}

/* Record ring allreduce on topology t. */
static cs_timeline *record_ring(const cs_topo *t, int p, uint64_t S, cs_time *t_ps)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_timeline *tl = NULL;
    cs_err err;
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, p, S);
    if (cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, &err) < 0 ||
        cs_algo_build(ops, &req, &s, &err) < 0)
        return NULL;
    if (cs_timeline_new(&tl, t) == 0 && cs_timeline_run(tl, &s, t_ps, &err) != 0) {
        fprintf(stderr, "\n  run failed: %s: %s\n", err.where, err.msg);
        cs_timeline_free(tl);
        tl = NULL;
    }
    cs_sched_fini(&s);
    return tl;
}

/* 2(p-1) steps of a + (S/p) b = 6 x (1 + 10.48576) us; 24 transfers of 1 MiB. */
static void test_timeline_record(void)
{
    cs_topo *t = load_topo("alpha_beta", P);
    cs_time t_ps = 0;
    cs_timeline *tl;
    const cs_tl_op *ops;
    int n = 0, i, steps[6] = {0};
    int32_t ids[4];
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    tl = record_ring(t, P, S_BYTES, &t_ps);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
    CS_ASSERT_REL(cs_time_to_us(t_ps), 6 * (1 + 1048576 / 1e5), 1e-9);
    CU_ASSERT_EQUAL(cs_timeline_end(tl), t_ps);
    ops = cs_timeline_ops(tl, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2 * (P - 1) * P);
    for (i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(ops[i].bytes, S_BYTES / P);
        CU_ASSERT(ops[i].ready_ps >= 0 && ops[i].start_ps >= ops[i].ready_ps);
        CS_ASSERT_REL(cs_time_to_us(ops[i].done_ps - ops[i].start_ps), 1 + 1048576 / 1e5, 1e-9);
        CU_ASSERT_EQUAL(ops[i].dst, (ops[i].src + 1) % P);
        CU_ASSERT_EQUAL(ops[i].reduce_done_ps, -1);
        if (ops[i].step >= 0 && ops[i].step < 6)
            steps[ops[i].step]++;
    }
    for (i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(steps[i], P);   /* every rank sends once per step */
    CU_ASSERT_EQUAL(cs_timeline_busiest_links(tl, 4, ids, &err), 0);   /* no links */
    cs_timeline_free(tl);
    cs_topo_free(t);
}

static void test_timeline_plot(void)
{
    cs_topo *t = load_topo("ring", P);
    cs_timeline *tl;
    cs_plot_rect all = {0, 0, 800, 500};
    cs_err err;
    int w = 0, h = 0, i;
    int32_t ids[8];
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    tl = record_ring(t, P, S_BYTES, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
    /* The ring uses each link one way: 4 busy directed links. */
    CU_ASSERT_EQUAL(cs_timeline_busiest_links(tl, 8, ids, &err), P);
    CU_ASSERT_EQUAL(cs_timeline_set_title(tl, "ring allreduce, 4 ranks, 4 MiB"), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plot_timeline(tl, tmp_path("tl.png"), 800, 500, &err), 0);
    CU_ASSERT(png_size(tmp_path("tl.png"), &w, &h) && w == 800 && h == 500);
    for (i = 0; i < 2 * (P - 1); i++) {   /* a colour per step */
        unsigned char rgb[3];
        cs_plot_series_rgb(i, rgb);
        CU_ASSERT(count_rgb(tmp_path("tl.png"), &all, rgb) >= 20);
    }
    cs_timeline_set_color(tl, CS_TL_COLOR_CHUNK);
    cs_timeline_set_link_lanes(tl, 0);
    CU_ASSERT_EQUAL(cs_plot_timeline(tl, tmp_path("tl1.svg"), 700, 400, &err), 0);
    CU_ASSERT_EQUAL(cs_plot_timeline(tl, tmp_path("tl2.svg"), 700, 400, &err), 0);
    CU_ASSERT(svg_size(tmp_path("tl1.svg"), &w, &h) && w == 700 && h == 400);
    CU_ASSERT(same_bytes(tmp_path("tl1.svg"), tmp_path("tl2.svg")));
    CU_ASSERT_EQUAL(cs_plot_timeline(tl, tmp_path("tl.pdf"), 700, 400, &err), 0);
    CU_ASSERT(pdf_ok(tmp_path("tl.pdf"), 700, 400));
    CU_ASSERT_EQUAL(cs_plot_timeline(tl, "/nonexistent-dir/tl.png", 700, 400, &err), CS_EIO);
    cs_timeline_free(tl);
    cs_topo_free(t);
}

/* Count trace events by phase and category, and distinct (pid, tid) tracks of slices. */
typedef struct trace_counts {
    int send, recv, link, flow_s, flow_f, tracks, thread_names, bad_slices;
    double end_us;
} trace_counts;

static int count_trace(const char *path, trace_counts *c)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je), *evs, *ev;
    size_t i, j;
    long seen[256][2];
    int n_seen = 0;
    memset(c, 0, sizeof *c);
    if (!root) {
        fprintf(stderr, "\n  %s:%d: %s\n", path, je.line, je.text);
        return -1;
    }
    evs = json_object_get(root, "traceEvents");
    json_array_foreach(evs, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        long pid = (long)json_integer_value(json_object_get(ev, "pid"));
        long tid = (long)json_integer_value(json_object_get(ev, "tid"));
        if (!ph)
            continue;
        if (!strcmp(ph, "M") && !strcmp(json_string_value(json_object_get(ev, "name")), "thread_name"))
            c->thread_names++;
        if (!strcmp(ph, "s"))
            c->flow_s++;
        if (!strcmp(ph, "f"))
            c->flow_f++;
        if (strcmp(ph, "X") || !cat)
            continue;
        if (!json_is_number(json_object_get(ev, "ts")) || json_number_value(json_object_get(ev, "dur")) < 0 ||
            !json_is_integer(json_object_get(json_object_get(ev, "args"), "bytes")))
            c->bad_slices++;
        c->send += !strcmp(cat, "send");
        c->recv += !strcmp(cat, "recv");
        c->link += !strcmp(cat, "link");
        for (j = 0; j < (size_t)n_seen && (seen[j][0] != pid || seen[j][1] != tid); j++)
            ;
        if (j == (size_t)n_seen && n_seen < 256) {
            seen[n_seen][0] = pid;
            seen[n_seen++][1] = tid;
        }
    }
    c->tracks = n_seen;
    c->end_us = json_number_value(json_object_get(json_object_get(root, "otherData"), "end_us"));
    json_decref(root);
    return 0;
}

/* alpha_beta: 24 transfers = 24 send and 24 recv slices, 24 flow arrows, one send and one
 * recv track per rank (8); on the ring fabric 4 link tracks more with 6 slices each. */
static void test_trace(void)
{
    cs_topo *ab = load_topo("alpha_beta", P), *ring = load_topo("ring", P);
    cs_timeline *tl;
    trace_counts c;
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(ab);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ring);
    tl = record_ring(ab, P, S_BYTES, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
    CU_ASSERT_EQUAL_FATAL(cs_trace_write(tl, tmp_path("ab.json"), &err), 0);
    CU_ASSERT_EQUAL_FATAL(count_trace(tmp_path("ab.json"), &c), 0);
    CU_ASSERT_EQUAL(c.send, 24);
    CU_ASSERT_EQUAL(c.recv, 24);
    CU_ASSERT_EQUAL(c.link, 0);
    CU_ASSERT_EQUAL(c.flow_s, 24);
    CU_ASSERT_EQUAL(c.flow_f, 24);
    CU_ASSERT_EQUAL(c.tracks, 2 * P);
    CU_ASSERT_EQUAL(c.thread_names, 2 * P);
    CU_ASSERT_EQUAL(c.bad_slices, 0);
    CS_ASSERT_REL(c.end_us, 6 * (1 + 1048576 / 1e5), 1e-9);
    CU_ASSERT_EQUAL(cs_trace_write(tl, "/nonexistent-dir/t.json", &err), CS_EIO);
    cs_timeline_free(tl);

    tl = record_ring(ring, P, S_BYTES, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
    CU_ASSERT_EQUAL_FATAL(cs_trace_write(tl, tmp_path("ring.json"), &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_trace_write(tl, tmp_path("ring2.json"), &err), 0);
    CU_ASSERT(same_bytes(tmp_path("ring.json"), tmp_path("ring2.json")));
    CU_ASSERT_EQUAL_FATAL(count_trace(tmp_path("ring.json"), &c), 0);
    CU_ASSERT_EQUAL(c.send, 24);
    CU_ASSERT_EQUAL(c.link, 24);
    CU_ASSERT_EQUAL(c.tracks, 2 * P + P);
    cs_timeline_free(tl);
    cs_topo_free(ab);
    cs_topo_free(ring);
}

/* ---- topology drawings ---- */

static void draw_one(cs_topo *t, const char *name)
{
    char file[64];
    int w = 0, h = 0;
    cs_err err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    snprintf(file, sizeof file, "topo-%s.png", name);
    if (cs_plot_topology(t, tmp_path(file), 720, 480, &err) != 0)
        fprintf(stderr, "\n  draw %s: %s: %s\n", name, err.where, err.msg);
    CU_ASSERT(png_size(tmp_path(file), &w, &h) && w == 720 && h == 480);
    cs_topo_free(t);
}

static void test_topology(void)
{
    cs_topo *t = NULL;
    cs_err err;
    int w, h;
    draw_one(load_topo("alpha_beta", 8), "ab");
    draw_one(load_topo("ring", 8), "ring");
    draw_one(load_topo("fully_connected", 6), "fc");
    draw_one(load_topo("switch", 8), "switch");
    CU_ASSERT_EQUAL(cs_topo_open("dgx-h100", &t, &err), 0);
    draw_one(t, "dgx");
    CU_ASSERT_EQUAL(cs_topo_load_file(cs_test_data("ok/two-switches.json"), &t, &err), 0);
    draw_one(t, "two-switches");
    if (cs_topo_load_string("{\"kind\":\"torus\",\"dims\":[4,4],\"link\":{\"bandwidth_GBps\":100,"
                            "\"latency_us\":1}}", "torus", &t, &err) == 0)
        draw_one(t, "torus");
    /* SVG twice: the same bytes; PDF header. */
    t = load_topo("ring", 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(cs_plot_topology(t, tmp_path("t1.svg"), 600, 600, &err), 0);
    CU_ASSERT_EQUAL(cs_plot_topology(t, tmp_path("t2.svg"), 600, 600, &err), 0);
    CU_ASSERT(svg_size(tmp_path("t1.svg"), &w, &h) && w == 600 && h == 600);
    CU_ASSERT(same_bytes(tmp_path("t1.svg"), tmp_path("t2.svg")));
    CU_ASSERT_EQUAL(cs_plot_topology(t, tmp_path("t.pdf"), 600, 600, &err), 0);
    CU_ASSERT(pdf_ok(tmp_path("t.pdf"), 600, 600));
    CU_ASSERT_EQUAL(cs_plot_topology(t, tmp_path("t.gif"), 600, 600, &err), CS_EINVAL);
    cs_topo_free(t);
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

/* Remove the temporary files (suite cleanup). */
static int cleanup(void)
{
    DIR *d;
    struct dirent *e;
    char p[1024];
    if (!tmpdir[0] || !strcmp(tmpdir, "/tmp") || !(d = opendir(tmpdir)))
        return 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(tmpdir);
    tmpdir[0] = '\0';
    return 0;
}

int cs_test_register(void)
{
    static const cs_test_case axis[] = {
        {"nice", test_nice}, {"linear", test_linear}, {"log10", test_log10},
        {"bytes", test_bytes}, {"format", test_format}, {NULL, NULL},
    };
    static const cs_test_case chart[] = {
        {"png", test_chart_png}, {"svg_pdf", test_chart_svg_pdf}, {"many", test_chart_many},
        {"bad", test_chart_bad}, {"series_load", test_series_load},
        {"series_array", test_series_array}, {"cli", test_cli}, {NULL, NULL},
    };
    static const cs_test_case timeline[] = {
        {"record", test_timeline_record}, {"plot", test_timeline_plot}, {"trace", test_trace},
        {NULL, NULL},
    };
    static const cs_test_case topo[] = {
        {"draw", test_topology}, {NULL, NULL},
    };
    CU_pSuite s;
    if (cs_test_add_suite("plot_axis", axis) || cs_test_add_suite("plot_chart", chart) ||
        cs_test_add_suite("plot_timeline", timeline) || cs_test_add_suite("plot_topology", topo))
        return -1;
    s = CU_add_suite("plot_cleanup", NULL, cleanup);
    return s && CU_add_test(s, "noop", test_nice) ? 0 : -1;
}
