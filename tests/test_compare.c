/* test_compare.c: `collsim compare` (scenarios/compare.h): the --systems and --price
 * readers, a row equal to the plan evaluated alone, cost per step by hand, --search's
 * branch and bound giving the best of every restricted candidate, and the command's text,
 * JSON, CSV, chart and self-contained HTML page (rendered in headless Chromium when
 * installed). */
#include "tests/testutil.h"
#include "scenarios/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void t_parse(void)
{
    cs_cmp_system *s = NULL;
    cs_err err;
    int n = 0;
    CU_ASSERT_EQUAL_FATAL(cs_compare_parse_systems("a=dgx-h100-x2:h200,dgx-b200,mi300x", &s,
                                                   &n, &err), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_STRING_EQUAL(s[0].name, "a");
    CU_ASSERT_STRING_EQUAL(s[0].topo, "dgx-h100-x2");
    CU_ASSERT_STRING_EQUAL(s[0].gpu, "h200");
    CU_ASSERT_FALSE(s[0].gpu_default);
    CU_ASSERT_STRING_EQUAL(s[1].name, "dgx-b200");
    CU_ASSERT_STRING_EQUAL(s[1].gpu, "b200");
    CU_ASSERT(s[1].gpu_default);
    CU_ASSERT_STRING_EQUAL(s[2].gpu, "mi300x");
    CU_ASSERT_EQUAL(cs_compare_parse_prices("a=2.5,dgx-b200=4", s, n, &err), 0);
    CU_ASSERT_EQUAL(s[0].price_per_gpu_h, 2.5);
    CU_ASSERT_EQUAL(s[1].price_per_gpu_h, 4);
    CU_ASSERT_EQUAL(cs_compare_parse_prices("b=2", s, n, &err), CS_EUSAGE);
    CU_ASSERT_EQUAL(cs_compare_parse_prices("a=-1", s, n, &err), CS_EUSAGE);
    free(s);
    CU_ASSERT_EQUAL(cs_compare_parse_systems("tpu-v4", &s, &n, &err), CS_EUSAGE);
    CU_ASSERT(strstr(err.msg, "no GPU known") != NULL);
    CU_ASSERT_EQUAL(cs_compare_parse_systems("dgx-h100:h900", &s, &n, &err), CS_ENOENT);
    CU_ASSERT_EQUAL(cs_compare_parse_systems("a=,b", &s, &n, &err), CS_EUSAGE);
    CU_ASSERT_EQUAL(cs_compare_parse_systems("", &s, &n, &err), CS_EUSAGE);
}

/* The test plan (GPT 1.7B on 16 H100 of two DGX nodes) on itself and on H200s: the row is
 * the plan evaluated alone; a step costs $2 x 16 GPUs x step / 3600. */
static void t_rows(void)
{
    cs_plan p;
    cs_plan_result r;
    cs_cmp_system *s = NULL;
    cs_cmp_row rows[3];
    cs_budget_opts o;
    cs_err err;
    int n;
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_load(cs_test_data("ok/plan-small.json"), &p, &err), 0);
    cs_plan_apply_train(&p);
    CU_ASSERT_EQUAL_FATAL(cs_test_plan_eval(&p, &r), 0);
    CU_ASSERT_EQUAL_FATAL(cs_compare_parse_systems("dgx-h100-x2,x=dgx-h100-x2:h200,"
                                                   "small=dgx-h100:h100-sxm", &s, &n, &err), 0);
    s[0].price_per_gpu_h = 2;
    memset(&o, 0, sizeof o);
    CU_ASSERT_EQUAL_FATAL(cs_compare_run(&p, s, n, 0, &o, rows, &err), 0);
    CU_ASSERT(rows[0].ok && rows[1].ok);
    CS_ASSERT_REL(rows[0].step_s, r.step_time_s, 1e-12);
    CS_ASSERT_REL(rows[0].mfu_pct, r.mfu_pct, 1e-12);
    CS_ASSERT_REL(rows[0].mem_bytes, r.mem.total, 1e-12);
    CU_ASSERT(rows[0].budget.has_cost && rows[0].budget.has_energy);
    CS_ASSERT_REL(rows[0].budget.cost.per_step, 2.0 * 16 * r.step_time_s / 3600, 1e-12);
    CU_ASSERT_EQUAL(rows[0].budget.energy.nodes, 2);
    CU_ASSERT(rows[1].step_s <= rows[0].step_s);     /* same peak, faster HBM */
    CU_ASSERT_FALSE(rows[2].ok);                     /* 16 GPUs on one 8-GPU node */
    CU_ASSERT(strstr(rows[2].why, "16") != NULL);
    cs_plan_result_fini(&r);
    free(s);
    cs_plan_fini(&p);
}

/* --search: the branch and bound's layout has the least step of every restricted
 * candidate (ZeRO-1 when dp > 1, SP with tp > 1) evaluated in full by the plan search. */
static void t_search_exact(void)
{
    cs_plan p;
    cs_plan_ctx *ctx = NULL;
    cs_plan_cand *c = NULL;
    cs_plan_cand_result *res;
    cs_cmp_system *s = NULL;
    cs_cmp_row row;
    cs_budget_opts o;
    cs_err err;
    long n, i, k = 0;
    int ns;
    double best = 1e300;
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_load(cs_test_data("ok/plan-small.json"), &p, &err), 0);
    cs_plan_apply_train(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_search_enum(&p, 16, &c, &n, &err), 0);
    for (i = 0; i < n; i++)
        if (c[i].zero == (c[i].dp > 1) && c[i].sp == (c[i].tp > 1))
            c[k++] = c[i];
    res = calloc((size_t)k, sizeof *res);
    CU_ASSERT_EQUAL_FATAL(cs_plan_search_run(ctx, &p, c, k, res, NULL, &err), 0);
    for (i = 0; i < k; i++)
        if (res[i].ok && res[i].fits && res[i].step_time_s < best)
            best = res[i].step_time_s;
    CU_ASSERT_EQUAL_FATAL(cs_compare_parse_systems("dgx-h100-x2", &s, &ns, &err), 0);
    memset(&o, 0, sizeof o);
    CU_ASSERT_EQUAL_FATAL(cs_compare_run(&p, s, 1, 1, &o, &row, &err), 0);
    CU_ASSERT_FATAL(row.ok);
    CS_ASSERT_REL(row.step_s, best, 1e-12);
    CU_ASSERT(row.n_searched > 0 && row.n_searched < k);
    fprintf(stderr, "\n  search: %ld of %ld candidates evaluated in full\n", row.n_searched, k);
    free(res);
    free(c);
    free(s);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
}

/* Elastic: the test plan (16 GPUs on 2 nodes) losing a node runs on the 8 left, at the
 * layout the fast search finds for 8 GPUs; losing both leaves nothing. Llama-3-70B with
 * global batch 1024 on 128 nodes losing one: dp divides 1024 (a power of two), tp and cp
 * are powers of two and pp divides the 80 layers, so a count is 2^a or 5 x 2^a; the
 * largest whole number of nodes at most 1016 GPUs is 640 = 5 x 128. */
static void t_elastic(void)
{
    cs_plan p, q;
    cs_plan_ctx *ctx = NULL;
    cs_plan_result r, rq;
    cs_elastic e;
    cs_err err;
    long ns;
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_load(cs_test_data("ok/plan-small.json"), &p, &err), 0);
    cs_plan_apply_train(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(ctx, &p, 0, &r, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_elastic(ctx, &p, &r, 1, &e, &err), 0);
    CU_ASSERT_FATAL(e.ok);
    CU_ASSERT_EQUAL(e.gpus_left, 8);
    CU_ASSERT_EQUAL(e.gpus_after, 8);
    CU_ASSERT_EQUAL_FATAL(cs_plan_copy(&q, &p), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_search_best(ctx, &q, 8, &ns, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(ctx, &q, 0, &rq, &err), 0);
    CS_ASSERT_REL(e.step_s, rq.step_time_s, 1e-12);
    CS_ASSERT_REL(e.slowdown_pct, 100 * (rq.step_time_s / r.step_time_s - 1), 1e-9);
    CU_ASSERT_EQUAL_FATAL(cs_plan_elastic(ctx, &p, &r, 2, &e, &err), 0);
    CU_ASSERT_FALSE(e.ok);
    cs_plan_result_fini(&rq);
    cs_plan_result_fini(&r);
    cs_plan_fini(&q);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
    cs_plan_init(&p);
    CU_ASSERT_EQUAL_FATAL(cs_plan_parse("{\"model\": \"llama3-70b\", \"train\": "
        "{\"global_batch\": 1024}, \"parallel\": {\"tp\": 8, \"pp\": 4, \"dp\": 32}, "
        "\"system\": {\"topo\": \"dgx-h100-x128\", \"gpu\": \"h100-sxm\"}}", "l70", &p,
        &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_ctx_new(&ctx, &p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_eval(ctx, &p, 0, &r, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_plan_elastic(ctx, &p, &r, 1, &e, &err), 0);
    CU_ASSERT(e.ok);
    CU_ASSERT_EQUAL(e.gpus_left, 1016);
    CU_ASSERT_EQUAL(e.gpus_after, 640);
    CU_ASSERT_EQUAL(e.layout.pp % 5, 0);
    cs_plan_result_fini(&r);
    cs_plan_ctx_free(ctx);
    cs_plan_fini(&p);
}

static int has(const char *path, const char *what)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;
    int found;
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    buf = calloc((size_t)len + 1, 1);
    found = buf && fread(buf, 1, (size_t)len, f) == (size_t)len && strstr(buf, what);
    free(buf);
    fclose(f);
    return found;
}

/* The command: text, JSON, CSV, a chart, the HTML page (self-contained: no script, no link,
 * nothing loaded), and errors with their exit codes. */
static void t_cli(void)
{
    char cmd[2048], *out = NULL, dir[] = "/tmp/cs_compare_XXXXXX", svg[256], html[256];
    const char *plan = cs_test_data("ok/plan-small.json");
    const char *sys = "--systems h100=dgx-h100-x2,h200=dgx-h100-x2:h200 --tokens 1G --price 2";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(svg, sizeof svg, "%s/c.svg", dir);
    snprintf(html, sizeof html, "%s/c.html", dir);
    snprintf(cmd, sizeof cmd, "%s compare %s %s --plot %s --html %s", CS_COLLSIM, plan, sys,
             svg, html);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT(out && strstr(out, "h200") && strstr(out, "tokens/s") && strstr(out, "cost_$"));
    free(out);
    CU_ASSERT(has(svg, "<svg"));
    CU_ASSERT(has(html, "<table>") && has(html, "<svg") && has(html, "datasheet"));
    CU_ASSERT(!has(html, "<script") && !has(html, "<link") && !has(html, "src="));
    snprintf(cmd, sizeof cmd, "%s compare %s %s --format json --goodput", CS_COLLSIM, plan, sys);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT(out && strstr(out, "\"systems\"") && strstr(out, "\"cost\"") &&
              strstr(out, "\"energy\"") && strstr(out, "\"goodput\"") &&
              strstr(out, "\"memory_headroom_bytes\""));
    free(out);
    snprintf(cmd, sizeof cmd, "%s compare %s %s --format csv", CS_COLLSIM, plan, sys);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT(out && !strncmp(out, "name,topo,gpu,ok,", 17) && strstr(out, "\nh200,"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s compare %s 2>&1", CS_COLLSIM, plan);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 2);
    CU_ASSERT(out && strstr(out, "--systems"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s compare %s --systems x=dgx-h100-x2 --price y=3 2>&1",
             CS_COLLSIM, plan);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 2);
    free(out);
    /* the page in a real browser, where one is installed */
    if (cs_test_sh("command -v chromium >/dev/null 2>&1", &out) == 0) {
        free(out);
        snprintf(cmd, sizeof cmd, "chromium --headless --no-sandbox --disable-gpu "
                 "--user-data-dir=%s/profile --dump-dom file://%s 2>/dev/null", dir, html);
        CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
        CU_ASSERT(out && strstr(out, "<table>") && strstr(out, "<svg"));
    } else {
        fprintf(stderr, "\n  skipped: chromium is not installed (the HTML page is not "
                "rendered in a browser here)\n");
    }
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"systems and prices", t_parse},
        {"rows", t_rows},
        {"search is exact", t_search_exact},
        {"elastic", t_elastic},
        {"cli", t_cli},
        {NULL, NULL}};
    return cs_test_add_suite("compare", cases);
}
