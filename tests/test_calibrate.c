/* test_calibrate.c: `collsim calibrate` and `collsim validate` end to end. Round trip: logs
 * that collsim writes from known figures (tests/data/ok/cal-truth.json: 20 GB/s, 5 us per
 * link, launch 12 us), with 2% noise added, calibrate a topology that starts 2-3x off
 * (cal-start.json) back to those figures within 3%. Also the validate JSON contract. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "calibration/logparse.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

/* Deterministic noise: a 64-bit LCG (Knuth's MMIX constants), uniform in [-1, 1). */
static double noise(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

/* Simulate the truth on g ranks and write it as an nccl-tests log with noise. */
static int make_log(const char *dir, int g, uint64_t *seed)
{
    char cmd[2048], json[512], logp[512];
    cs_log *log = NULL;
    cs_err err;
    FILE *f;
    int i, rc;
    snprintf(json, sizeof json, "%s/g%d.json", dir, g);
    snprintf(logp, sizeof logp, "%s/g%d.log", dir, g);
    snprintf(cmd, sizeof cmd, "%s run --topo %s -g %d -b 8 -e 256M -f 2 --format json "
             "--output %s 2>&1", CS_COLLSIM, cs_test_data("ok/cal-truth.json"), g, json);
    if ((rc = cs_test_sh(cmd, NULL)) != 0)
        return -1;
    if (cs_log_parse_file(json, NULL, &log, &err) < 0 || !(f = fopen(logp, "w"))) {
        cs_log_free(log);
        return -1;
    }
    fprintf(f, "./build/all_reduce_perf -b 8 -e 256M -f 2 -g %d\n", g);
    fprintf(f, "#       size         count      type   redop    root     time   algbw   busbw "
            "#wrong     time   algbw   busbw #wrong\n");
    for (i = 0; i < log->tables[0].n_rows; i++) {
        const cs_log_row *r = &log->tables[0].rows[i];
        double t = r->time_us * (1.0 + 0.02 * noise(seed));
        double a = (double)r->size_bytes / t / 1e3, b = a * 2.0 * (g - 1) / g;
        fprintf(f, "%12llu  %12llu  float  sum  -1  %10.2f  %7.2f  %7.2f  0  %10.2f  %7.2f  "
                "%7.2f  0\n", (unsigned long long)r->size_bytes,
                (unsigned long long)r->count, t, a, b, t, a, b);
    }
    fclose(f);
    cs_log_free(log);
    remove(json);
    return 0;
}

static void t_round_trip(void)
{
    char dir[] = "/tmp/collsim-cal-XXXXXX", cmd[4096], out[600], *text = NULL;
    uint64_t seed = 12345;
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_err err;
    int present, rc, i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    CU_ASSERT_EQUAL_FATAL(make_log(dir, 2, &seed), 0);
    CU_ASSERT_EQUAL_FATAL(make_log(dir, 8, &seed), 0);
    snprintf(out, sizeof out, "%s/fit.json", dir);
    /* Simple's per-transfer latency and the links' latency only ever add up on one route:
     * hold the former at its true value, fit the rest. */
    snprintf(cmd, sizeof cmd, "%s calibrate %s/g2.log %s/g8.log --topo %s --fix Simple.hop_us "
             "--output %s 2>&1", CS_COLLSIM, dir, dir, cs_test_data("ok/cal-start.json"), out);
    rc = cs_test_sh(cmd, &text);
    if (rc != 0)
        fprintf(stderr, "\n%s\n", text);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "roce100.bandwidth_GBps"));
    free(text);
    CU_ASSERT_EQUAL_FATAL(cs_topo_load_file(out, &t, &err), 0);
    for (i = 0; i < t->n_links; i++) {
        CS_ASSERT_REL(t->links[i].bw_GBps, 20.0, 0.03);
        CS_ASSERT_REL(t->links[i].lat_us, 5.0, 0.03);
    }
    CU_ASSERT_EQUAL(cs_nccl_open(out, &np, &present, &err), 0);
    CU_ASSERT_EQUAL(present, 1);
    CS_ASSERT_REL(np.launch_us, 12.0, 0.03);
    CU_ASSERT_EQUAL(np.force_proto, CS_PROTO_SIMPLE);
    cs_topo_free(t);

    /* The calibrated topology reproduces the noisy logs to about the noise. */
    snprintf(cmd, sizeof cmd, "%s validate %s/g2.log %s/g8.log --topo %s --format json 2>&1",
             CS_COLLSIM, dir, dir, out);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &text), 0);
    {
        json_error_t je;
        json_t *v = json_loads(text, 0, &je);
        CU_ASSERT_PTR_NOT_NULL(v);
        if (v) {
            CU_ASSERT(json_real_value(json_object_get(v, "median_abs_error_pct")) < 2.0);
            CU_ASSERT_EQUAL(json_array_size(json_object_get(v, "rows")), 2 * 26);
        }
        json_decref(v);
    }
    free(text);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cs_test_sh(cmd, NULL);
}

/* validate --format json: the contract keys, one row per nonzero size (28 for the 2080 Ti
 * allreduce log, 8 B - 1 GiB), error_pct = 100 (sim - meas) / meas. */
static void t_validate_json(void)
{
    static const char *const keys[] = {"log", "collective", "ranks", "size_bytes",
                                       "measured_time_us", "simulated_time_us", "error_pct",
                                       NULL};
    char cmd[2048], *text = NULL;
    json_error_t je;
    json_t *v, *rows, *r;
    size_t i;
    int k;
    snprintf(cmd, sizeof cmd, "%s validate %s --topo dgx-h100 --format json",
             CS_COLLSIM, cs_test_data("real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log"));
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, &text), 0);
    v = json_loads(text, 0, &je);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    rows = json_object_get(v, "rows");
    CU_ASSERT_EQUAL(json_array_size(rows), 28);
    json_array_foreach(rows, i, r) {
        double m, s, e;
        for (k = 0; keys[k]; k++)
            CU_ASSERT_PTR_NOT_NULL(json_object_get(r, keys[k]));
        m = json_real_value(json_object_get(r, "measured_time_us"));
        s = json_real_value(json_object_get(r, "simulated_time_us"));
        e = json_real_value(json_object_get(r, "error_pct"));
        CS_ASSERT_REL(e, 100.0 * (s - m) / m, 1e-9);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "collective")), "allreduce");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(r, "ranks")), 2);
    }
    CU_ASSERT(json_is_number(json_object_get(v, "median_abs_error_pct")));
    CU_ASSERT(json_is_number(json_object_get(v, "mean_abs_error_pct")));
    CU_ASSERT(json_is_number(json_object_get(v, "max_abs_error_pct")));
    json_decref(v);

    /* --min-bytes 1M keeps the 11 sizes 1 MiB .. 1 GiB */
    snprintf(cmd, sizeof cmd, "%s validate %s --topo dgx-h100 --format json --min-bytes 1M",
             CS_COLLSIM, cs_test_data("real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log"));
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, &text), 0);
    v = json_loads(text, 0, &je);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(v, "rows")), 11);
    json_decref(v);
}

/* The "parameters" object of a calibrated topology's nccl.calibration. */
static json_t *fitted_params(const char *path, json_t **root)
{
    json_error_t je;
    *root = json_load_file(path, 0, &je);
    return json_object_get(json_object_get(json_object_get(*root, "nccl"), "calibration"),
                           "parameters");
}

/* A channel cap of 1000 GB/s on 8 GB/s links changes no time: its residual surface is flat.
 * calibrate reports it as not determined, with the measurement that would determine it, and
 * leaves it at exactly 1000. Holding every parameter so reported with --fix gives the same
 * fit to the solver's tolerance (calibrate refits warm from its first round, --fix cold). */
static void t_held_flat(void)
{
    char dir[] = "/tmp/collsim-held-XXXXXX", cmd[4096], out[600], out2[600], fix[1024] = "";
    uint64_t seed = 777;
    json_t *r1 = NULL, *r2 = NULL, *p1, *p2, *v;
    const char *name;
    int rc;
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    CU_ASSERT_EQUAL_FATAL(make_log(dir, 2, &seed), 0);
    CU_ASSERT_EQUAL_FATAL(make_log(dir, 8, &seed), 0);
    snprintf(out, sizeof out, "%s/fit.json", dir);
    snprintf(out2, sizeof out2, "%s/fix.json", dir);
    snprintf(cmd, sizeof cmd, "%s calibrate %s/g2.log %s/g8.log --topo %s --output %s "
             ">/dev/null 2>&1", CS_COLLSIM, dir, dir, cs_test_data("ok/cal-start-cap.json"), out);
    rc = cs_test_sh(cmd, NULL);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    p1 = fitted_params(out, &r1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p1);
    v = json_object_get(p1, "channel_GBps");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(v, "held")),
                           "not determined by these logs");
    CU_ASSERT_PTR_NOT_NULL(json_string_value(json_object_get(v, "determined_by")));
    CU_ASSERT_EQUAL(json_real_value(json_object_get(v, "value")), 1000.0);
    CU_ASSERT_EQUAL(json_real_value(json_object_get(json_object_get(r1, "nccl"),
                                                    "channel_GBps")), 1000.0);
    /* the links, which every time depends on, are fitted */
    CU_ASSERT_PTR_NULL(json_object_get(json_object_get(p1, "roce100.bandwidth_GBps"), "held"));
    json_object_foreach(p1, name, v)
        if (json_object_get(v, "held"))
            snprintf(fix + strlen(fix), sizeof fix - strlen(fix), "%s%s", fix[0] ? "," : "",
                     name);
    snprintf(cmd, sizeof cmd, "%s calibrate %s/g2.log %s/g8.log --topo %s --fix %s --output %s "
             ">/dev/null 2>&1", CS_COLLSIM, dir, dir, cs_test_data("ok/cal-start-cap.json"), fix,
             out2);
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, NULL), 0);
    p2 = fitted_params(out2, &r2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
    json_object_foreach(p1, name, v) {
        json_t *w = json_object_get(p2, name);
        CU_ASSERT_PTR_NOT_NULL(w);
        if (w)
            CS_ASSERT_REL(json_real_value(json_object_get(w, "value")),
                          json_real_value(json_object_get(v, "value")), 1e-4);
        CU_ASSERT_EQUAL(json_object_get(v, "held") != NULL, json_object_get(w, "held") != NULL);
    }
    json_decref(r1);
    json_decref(r2);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cs_test_sh(cmd, NULL);
}

/* Hold each undetermined parameter alone, not only the least determined. The 2080 Ti pair's
 * two logs (allreduce, alltoall: both directions at once) from the start with the pair's
 * one-way and both-ways SHM limits (calibration/rtx2080ti-pair.dirs.json): the free fit
 * lowers pcie3.bandwidth_GBps 12 -> 10.1 +- 49 and pcie3.latency_us 1 -> 0.006 +- 0.087.
 * The latency's start the logs reject (the launch cost takes its place); the bandwidth's
 * start they do not (a fit with it held at 12 is as good: rms 0.070 against 0.065), so it
 * goes back to 12 and is reported not determined. Then a broadcast, which only
 * bw_one_GBps and the links bound, runs at min(bw_one 10, 12 x SHM's 5/6 = 10) = 10.00
 * GB/s busbw at 1 GiB (the box measured 11.1; with the link at 10.1 it was 8.45). */
static void t_held_each_alone(void)
{
    char dir[] = "/tmp/collsim-hold1-XXXXXX", cmd[4096], out[600], *txt = NULL, *row;
    const char *held;
    json_t *r = NULL, *p, *bw, *lat;
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/fit.json", dir);
    /* cs_test_data returns one buffer: one call per snprintf */
    snprintf(cmd, sizeof cmd, "%s calibrate %s ", CS_COLLSIM,
             cs_test_data("real/nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log"));
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s --topo %s --output %s "
             ">/dev/null 2>&1", cs_test_data("real/nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log"),
             CS_TEST_DATA "/../../calibration/rtx2080ti-pair.dirs.json", out);
    CU_ASSERT_EQUAL_FATAL(cs_test_sh(cmd, NULL), 0);
    p = fitted_params(out, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    bw = json_object_get(p, "pcie3.bandwidth_GBps");
    lat = json_object_get(p, "pcie3.latency_us");
    held = json_string_value(json_object_get(bw, "held"));
    CU_ASSERT(held && !strcmp(held, "not determined by these logs"));
    CU_ASSERT_EQUAL(json_real_value(json_object_get(bw, "value")), 12.0);
    CU_ASSERT(json_real_value(json_object_get(lat, "value")) < 0.5);   /* start 1 ruled out */
    snprintf(cmd, sizeof cmd, "%s run broadcast -b 1G -e 1G -g 2 --topo %s", CS_COLLSIM, out);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &txt), 0);
    row = txt ? strstr(txt, "  1073741824 ") : NULL;
    CU_ASSERT_PTR_NOT_NULL(row);
    if (row) {
        double t, algbw, busbw;
        CU_ASSERT_EQUAL(sscanf(row, "%*s %*s %*s %*s %*s %lf %lf %lf", &t, &algbw, &busbw), 3);
        CU_ASSERT_DOUBLE_EQUAL(busbw, 10.00, 0.005);
    }
    free(txt);
    json_decref(r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cs_test_sh(cmd, NULL);
}

int cs_test_register(void)
{
    static const cs_test_case cal[] = {
        {"round_trip", t_round_trip}, {"held_flat", t_held_flat},
        {"validate_json", t_validate_json}, {"held_each_alone", t_held_each_alone},
        {NULL, NULL}};
    return cs_test_add_suite("calibrate", cal);
}
