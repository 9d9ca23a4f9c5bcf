/* test_timeline.c: the plots layer, part 2. Timelines and Perfetto traces of ring
 * allreduce on 4 ranks (2(p-1)p = 24 transfers of S/p, 6 steps of a + (S/p) b), topology
 * drawings of every layout, and the picture flags of run, explain, topo and validate. */
#include "tests/testutil.h"
#include "tests/plottest.h"
#include "plots/timeline.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"

#include <jansson.h>

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

/* The other commands' picture flags: run --plot/--trace, explain --plot, topo draw,
 * validate --plot. */
static void test_cli_flags(void)
{
    char cmd[2048], *out = NULL;
    trace_counts c;
    int w = 0, h = 0;
    snprintf(cmd, sizeof cmd, "%s run allreduce -b 1K -e 1M --plot %s --output %s 2>&1", CS_COLLSIM,
             tmp_path("run.svg"), tmp_path("run.txt"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT(svg_size(tmp_path("run.svg"), &w, &h) && w == CS_PLOT_DEFAULT_W && h == CS_PLOT_DEFAULT_H);
    /* ring allreduce on 4 ranks of the default node (NCCL mode: one channel asked for, and
     * Simple's 2 MiB chunk holds a whole 1 MiB block): 24 transfers, a send and a recv
     * track per rank, and the GPU-switch links the ring uses */
    snprintf(cmd, sizeof cmd, "%s run allreduce --algo ring --channels 1 --proto Simple -g 4 "
             "-b 4M -e 4M --trace %s --output %s 2>&1",
             CS_COLLSIM, tmp_path("run-trace.json"), tmp_path("run2.txt"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT_EQUAL_FATAL(count_trace(tmp_path("run-trace.json"), &c), 0);
    CU_ASSERT_EQUAL(c.send, 24);
    CU_ASSERT_EQUAL(c.recv, 24);
    CU_ASSERT_EQUAL(c.flow_s, 24);
    CU_ASSERT(c.tracks > 8);
    /* NVLS on the same 4 ranks: 4 shards of 1 MiB in 8 pieces of 128 KiB; per piece 4 sends
     * up to the switch, 1 down to the shard's GPU, 1 up again and 3 multicast: 4 x 8 x 9 =
     * 288 transfers, the switch with a lane of its own */
    snprintf(cmd, sizeof cmd, "%s run allreduce --algo nvls -g 4 -b 4M -e 4M --trace %s "
             "--output %s 2>&1", CS_COLLSIM, tmp_path("run-trace.json"), tmp_path("run2.txt"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT_EQUAL_FATAL(count_trace(tmp_path("run-trace.json"), &c), 0);
    CU_ASSERT_EQUAL(c.send, 288);
    CU_ASSERT_EQUAL(c.recv, 288);
    snprintf(cmd, sizeof cmd, "%s explain allreduce --algo ring -g 4 -b 1M --plot %s >/dev/null 2>&1",
             CS_COLLSIM, tmp_path("explain.png"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT(png_size(tmp_path("explain.png"), &w, &h) && w == CS_PLOT_DEFAULT_W && h == CS_PLOT_DEFAULT_H);
    snprintf(cmd, sizeof cmd, "%s topo draw dgx-h100 --width 640 --height 480 --output %s 2>&1",
             CS_COLLSIM, tmp_path("topo.pdf"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT(pdf_ok(tmp_path("topo.pdf"), 640, 480));
    snprintf(cmd, sizeof cmd, "%s validate %s --topo dgx-h100 --plot %s >/dev/null 2>&1", CS_COLLSIM,
             cs_test_data("real/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log"), tmp_path("validate.png"));
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    free(out);
    CU_ASSERT(png_size(tmp_path("validate.png"), &w, &h) && w == CS_PLOT_DEFAULT_W && h == CS_PLOT_DEFAULT_H);
}

int cs_test_register(void)
{
    static const cs_test_case timeline[] = {
        {"record", test_timeline_record}, {"plot", test_timeline_plot}, {"trace", test_trace},
        {"cli_flags", test_cli_flags}, {NULL, NULL},
    };
    static const cs_test_case topo[] = {
        {"draw", test_topology}, {NULL, NULL},
    };
    if (cs_test_add_suite("plot_timeline", timeline) || cs_test_add_suite("plot_topology", topo))
        return -1;
    return 0;
}
