/* test_views.c: the teaching views (issue 14). A chart over rank counts from one `collsim
 * run` (both algorithms drawn, times equal to their closed forms); legends that read (the
 * longest preset name uncut, wrapped at a space or set under the plot; no two texts
 * overlap); the timeline's colour key never over its caption, checked from the layout's
 * text boxes. */
#include "tests/testutil.h"
#include "tests/plottest.h"
#include "topologies/topology.h"
#include "algorithms/coll.h"
#include "plots/timeline.h"
#include "scenarios/plan.h"

#include <jansson.h>
#include <math.h>

/* Boxes overlap when they share more than a sliver (antialiasing) of area. */
static int boxes_overlap(const cs_plot_rect *a, const cs_plot_rect *b)
{
    double w = fmin(a->x + a->w, b->x + b->w) - fmax(a->x, b->x);
    double h = fmin(a->y + a->h, b->y + b->h) - fmax(a->y, b->y);
    return w > 0.5 && h > 0.5;
}

/* Every recorded text inside the page and clear of every other. */
static void assert_texts_clear(const cs_plot_texts *tx, int w, int h)
{
    int i, j;
    CU_ASSERT(tx->n > 0 && tx->n < CS_PLOT_MAX_TEXTS);
    for (i = 0; i < tx->n; i++) {
        const cs_plot_rect *r = &tx->items[i].box;
        CU_ASSERT(r->x >= 0 && r->y >= 0 && r->x + r->w <= w && r->y + r->h <= h);
        for (j = i + 1; j < tx->n; j++)
            if (boxes_overlap(r, &tx->items[j].box)) {
                fprintf(stderr, "\n  '%s' overlaps '%s'\n", tx->items[i].text, tx->items[j].text);
                CU_FAIL("two texts overlap");
            }
    }
}

/* The lines recorded for series i, joined by one space. */
static void joined_label(const cs_plot_texts *tx, int i, char *buf, size_t n, int *lines)
{
    int k;
    buf[0] = '\0';
    *lines = 0;
    for (k = 0; k < tx->n; k++)
        if (tx->items[k].owner == i) {
            if ((*lines)++)
                strncat(buf, " ", n - strlen(buf) - 1);
            strncat(buf, tx->items[k].text, n - strlen(buf) - 1);
        }
}

/* Labels built on the longest preset name, drawn at a wide and a narrow size: every label
 * reads whole (its one or two lines joined give it back, no ellipsis), in at most two
 * lines, the legend clear of the plot, and no two texts overlap. */
static void test_legend_longest_preset(void)
{
    static const char *const algos[] = {"double_binary_tree", "ring", "halving_doubling",
                                        "nccl-tests (measured)"};
    static const int sizes[][2] = {{900, 540}, {640, 400}, {420, 420}};
    const cs_preset *pr;
    const char *longest = "";
    cs_series s[4];
    cs_point pts[4 * 8];
    cs_chart c = {"allreduce: simulated algorithms and a measured run", CS_METRIC_BUSBW, 0, s, 4,
                  CS_CHART_X_SIZE, NULL, NULL};
    cs_chart_layout *lay = malloc(sizeof *lay);
    cs_err err;
    int n, i, j, z, below = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(lay);
    for (pr = cs_preset_all(&n), i = 0; i < n; i++)
        if (strlen(pr[i].name) > strlen(longest))
            longest = pr[i].name;
    CU_ASSERT(strlen(longest) >= 18);   /* pcie-rtx4090x8-p2p */
    memset(s, 0, sizeof s);
    for (i = 0; i < 4; i++) {
        s[i].label = malloc(128);
        snprintf(s[i].label, 128, "%s on %s", algos[i], longest);
        s[i].is_measured = i == 3;
        s[i].pts = pts + 8 * i;
        s[i].n_pts = 8;
        for (j = 0; j < 8; j++) {
            cs_point *p = &s[i].pts[j];
            p->size_bytes = 1024.0 * (1 << (2 * j));
            p->time_us = 5 + i + p->size_bytes / 1e5;
            p->algbw_GBps = p->size_bytes / (p->time_us * 1e3);
            p->busbw_GBps = 1.75 * p->algbw_GBps;
        }
    }
    for (z = 0; z < 3; z++) {
        int w = sizes[z][0], h = sizes[z][1];
        CU_ASSERT_EQUAL_FATAL(cs_plot_chart(&c, tmp_path("legend.png"), w, h, lay, &err), 0);
        for (i = 0; i < 4; i++) {
            char got[512];
            int lines;
            joined_label(&lay->texts, i, got, sizeof got, &lines);
            CU_ASSERT_STRING_EQUAL(got, s[i].label);
            CU_ASSERT(lines >= 1 && lines <= 2);
            CU_ASSERT(strstr(got, "\xe2\x80\xa6") == NULL);
        }
        assert_texts_clear(&lay->texts, w, h);
        CU_ASSERT(!boxes_overlap(&lay->legend, &lay->plot));
        below += lay->legend_below;
    }
    CU_ASSERT(below >= 1);   /* 420 px: the legend moved under the plot */
    for (i = 0; i < 4; i++)
        free(s[i].label);
    free(lay);
}

/* Ring allreduce on 9 ranks: 16 steps, so the colour key (16 swatches) no longer shares its
 * line with the caption; at 900 and 560 px every text of the header stays clear. */
static void test_timeline_header(void)
{
    static const int widths[] = {900, 560, 1600};
    cs_topo *t = NULL;
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_timeline *tl = NULL;
    cs_plot_texts *tx = malloc(sizeof *tx);
    cs_err err;
    int z, k, caption;
    CU_ASSERT_PTR_NOT_NULL_FATAL(tx);
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_string("{\"kind\":\"ring\",\"ranks\":9,\"link\":"
                          "{\"bandwidth_GBps\":100,\"latency_us\":1}}", "ring9", &t, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 9, 9u << 20);
    CU_ASSERT_EQUAL_FATAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ops, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_algo_build(ops, &req, &s, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_timeline_new(&tl, t), 0);
    CU_ASSERT_EQUAL_FATAL(cs_timeline_run(tl, &s, NULL, &err), 0);
    CU_ASSERT_EQUAL(cs_timeline_set_title(tl, "allreduce, ring, 9 ranks, 9 MiB on ring9"), 0);
    for (z = 0; z < 3; z++) {
        CU_ASSERT_EQUAL(cs_plot_timeline_layout(tl, tmp_path("tl9.png"), widths[z], 540, tx,
                                                &err), 0);
        for (k = 0, caption = 0; k < tx->n; k++)
            caption += strstr(tx->items[k].text, "rows in each lane") != NULL;
        CU_ASSERT_EQUAL(caption, 1);
        /* title, key label, 16 step numbers (a bar from 0 to 15 where they do not fit), caption */
        CU_ASSERT(tx->n >= (widths[z] >= 900 ? 2 + 16 + 1 : 2 + 2 + 1));
        assert_texts_clear(tx, widths[z], 540);
    }
    cs_timeline_free(tl);
    cs_sched_fini(&s);
    cs_topo_free(t);
    free(tx);
}

/* The command: allreduce of 64 MiB on an alpha_beta file without a rank count
 * (a = 1 us, b = 1/(100 GB/s)), -g 2:64, ring and parameter_server, one command, picture
 * and JSON. The JSON holds 6 rank counts x 2 algorithms whose times are ring
 * 2(p-1)(a + S/p b) and one server 2(p-1)(a + S b) within 1e-6; the picture has both
 * algorithms' colours. */
static void test_ranks_chart_cli(void)
{
    char cmd[2048], *out = NULL;
    json_t *root;
    json_error_t je;
    cs_plot_rect all = {0, 0, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H};
    const double a = 1, b = 1e-5, S = 67108864;
    size_t i;
    int c;
    snprintf(cmd, sizeof cmd, "%s run allreduce -g 2:64 --topo %s --algo ring,parameter_server "
             "-b 64M -e 64M --plot %s --format json --output %s 2>&1", CS_COLLSIM,
             cs_test_data("ok/ab-any.json"), tmp_path("ranks.png"), tmp_path("ranks.json"));
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, &out), 0);
    free(out);
    for (c = 0; c < 2; c++) {
        unsigned char rgb[3];
        cs_plot_series_rgb(c, rgb);
        CU_ASSERT(count_rgb(tmp_path("ranks.png"), &all, rgb) >= 100);
    }
    root = json_load_file(tmp_path("ranks.json"), 0, &je);
    CU_ASSERT_FATAL(json_is_array(root));
    CU_ASSERT_EQUAL(json_array_size(root), 12);
    for (i = 0; i < json_array_size(root); i++) {
        json_t *sw = json_array_get(root, i), *row;
        double p = (double)json_integer_value(json_object_get(sw, "ranks")), want, got;
        const char *algo = json_string_value(json_object_get(sw, "algorithm"));
        CU_ASSERT_EQUAL(p, 2 << (i / 2));
        CU_ASSERT_FATAL(algo != NULL);
        row = json_array_get(json_object_get(sw, "results"), 0);
        got = json_real_value(json_object_get(row, "time_us"));
        want = !strcmp(algo, "ring") ? 2 * (p - 1) * (a + S / p * b) : 2 * (p - 1) * (a + S * b);
        CU_ASSERT(fabs(got - want) <= 1e-6 * want);
        CU_ASSERT(fabs(json_real_value(json_object_get(row, "closed_form_us")) - want) <= 1e-6 * want);
    }
    json_decref(root);
}

/* Regrouping over ranks at 64 KiB: "ring" at 4 and 2 ranks (file order), "tree" at 2, and
 * a measured "ring" at 4 ranks whose size is 1% off (nccl-tests' rounding): three series,
 * ring's points sorted by ranks (2 then 4, times 3 and 5 us), the measured one paired with
 * the simulated ring (same colour, one legend entry: no text of its own). */
static void test_over_ranks(void)
{
    cs_series_set in = {NULL, 0, 0}, out = {NULL, 0, 0};
    cs_point p = {65536, 5, 0, 0, 4};
    cs_series *s;
    cs_chart c;
    cs_chart_layout *lay = malloc(sizeof *lay);
    cs_err err;
    int k, own = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(lay);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s = cs_series_add(&in, "ring", 0));
    CU_ASSERT_EQUAL(cs_series_push(s, &p, NAN), 0);
    p.ranks = 2;
    p.time_us = 3;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s = cs_series_add(&in, "ring", 0));
    CU_ASSERT_EQUAL(cs_series_push(s, &p, NAN), 0);
    p.time_us = 4;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s = cs_series_add(&in, "tree", 0));
    CU_ASSERT_EQUAL(cs_series_push(s, &p, NAN), 0);
    p.size_bytes = 65536 * 1.01;
    p.ranks = 4;
    p.time_us = 6;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s = cs_series_add(&in, "ring", 1));
    CU_ASSERT_EQUAL(cs_series_push(s, &p, NAN), 0);
    cs_series_pair_by_label(&in);
    CU_ASSERT_EQUAL(in.items[3].same_style_as, 1);
    CU_ASSERT_EQUAL_FATAL(cs_series_over_ranks(&in, 65536, &out, &err), 0);
    CU_ASSERT_EQUAL_FATAL(out.n, 3);
    CU_ASSERT_STRING_EQUAL(out.items[0].label, "ring");
    CU_ASSERT_EQUAL_FATAL(out.items[0].n_pts, 2);
    CU_ASSERT(out.items[0].pts[0].ranks == 2 && out.items[0].pts[0].time_us == 3);
    CU_ASSERT(out.items[0].pts[1].ranks == 4 && out.items[0].pts[1].time_us == 5);
    CU_ASSERT(out.items[2].is_measured && out.items[2].same_style_as == 1);
    CU_ASSERT_EQUAL(cs_series_over_ranks(&in, 1 << 20, &out, &err), CS_EINVAL);
    memset(&c, 0, sizeof c);
    c.metric = CS_METRIC_TIME;
    c.x = CS_CHART_X_RANKS;
    c.series = out.items;
    c.n_series = out.n;
    CU_ASSERT_EQUAL_FATAL(cs_plot_chart(&c, tmp_path("over.png"), 600, 400, lay, &err), 0);
    for (k = 0; k < lay->texts.n; k++)
        own += lay->texts.items[k].owner == 2;
    CU_ASSERT_EQUAL(own, 0);
    assert_texts_clear(&lay->texts, 600, 400);
    cs_series_set_fini(&in);
    cs_series_set_fini(&out);
    free(lay);
}

/* A training plan on an inline alpha_beta fabric without "ranks" gets its GPU count,
 * tp x pp x dp x cp = 2 x 1 x 4 x 1 = 8 ranks; with "ranks": 4 the file fixes the count and
 * the 8 GPUs are refused ("... = 8 GPUs, the topology has 4 ranks"). */
static void test_plan_rankless(void)
{
    static const char *const fmt =
        "{\"model\": {\"layers\": 2, \"hidden\": 256, \"heads\": 4, \"seq_len\": 128, "
        "\"vocab\": 1000}, \"train\": {\"global_batch\": 8}, \"parallel\": {\"tp\": 2, "
        "\"dp\": 4}, \"system\": {\"topo\": {\"kind\": \"alpha_beta\", %s\"link\": "
        "{\"bandwidth_GBps\": 100, \"latency_us\": 1}}, \"gpu\": \"h100-sxm\"}}";
    char json[1024];
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_err err;
    snprintf(json, sizeof json, fmt, "");
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "rankless", &p, &err), 0);
    if (cs_plan_ctx_new(&ctx, &p, &err) < 0)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL(cs_plan_ctx_ranks(ctx), 8);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
    snprintf(json, sizeof json, fmt, "\"ranks\": 4, ");
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse(json, "fixed", &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL(cs_plan_ctx_ranks(ctx), 4);
    CU_ASSERT(cs_plan_check(&p, cs_plan_ctx_ranks(ctx), &err) < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the topology has 4 ranks"));
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
}

int cs_test_register(void)
{
    static const cs_test_case views[] = {
        {"legend with the longest preset name", test_legend_longest_preset},
        {"timeline header texts clear", test_timeline_header},
        {"ranks chart in one command", test_ranks_chart_cli},
        {"regrouping over ranks, a measured run paired", test_over_ranks},
        {"a plan on a fabric without ranks", test_plan_rankless},
        {NULL, NULL},
    };
    return cs_test_add_suite("views", views);
}
