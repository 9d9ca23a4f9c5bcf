/* test_api.c: issue 31, libcollsim (api/collsim.h). A request's result is the program's
 * --format json output on the same input (run, validate, plan, plan search), calibrate's
 * topology and report and explain's text are the program's; errors come back as values
 * with the program's message and exit status; several threads calling at once get the
 * bytes one thread gets (and, in the sanitizer build, nothing leaks or races). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "tests/testutil.h"
#include "api/collsim.h"

/* collsim_call's result as JSON (NULL on a parse failure); *rc its return. */
static json_t *call(const char *req, int *rc)
{
    char *out = NULL;
    json_t *j;
    *rc = collsim_call(req, &out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    j = json_loads(out, 0, NULL);
    collsim_free(out);
    return j;
}

/* The program's stdout for args, parsed as JSON. */
static json_t *program_json(const char *args)
{
    char cmd[8192], *out = NULL;
    json_t *j;
    snprintf(cmd, sizeof cmd, "%s %s", CS_COLLSIM, args);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    j = out ? json_loads(out, 0, NULL) : NULL;
    free(out);
    return j;
}

/* The request req gives what `collsim args` prints. */
static void same_as_program(const char *req, const char *args)
{
    int rc;
    json_t *a = call(req, &rc), *b = program_json(args);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(a);
    CU_ASSERT_PTR_NOT_NULL(b);
    CU_ASSERT(a && b && json_equal(a, b));
    json_decref(a);
    json_decref(b);
}

static void t_commands(void)
{
    char req[4096], args[4096], log[1024], plan[1024];
    snprintf(log, sizeof log, "%s",
             cs_test_data("real/nccl-h100-1n8-allreduce-nvswitch-256M-2G.log"));
    snprintf(plan, sizeof plan, "%s", cs_test_data("ok/plan-small.json"));
    same_as_program("{\"command\": \"run\", \"args\": [\"allreduce\"], \"flags\": {\"topo\": "
                    "\"dgx-h100\", \"minbytes\": \"1G\", \"maxbytes\": \"1G\"}}",
                    "run allreduce --topo dgx-h100 -b 1G -e 1G --format json");
    same_as_program("{\"command\": \"run\", \"args\": [\"allgather\"], \"flags\": {\"ngpus\": "
                    "\"2:8\", \"algo\": [\"ring\", \"auto\"], \"minbytes\": 1024, "
                    "\"maxbytes\": \"1M\", \"stepfactor\": 4, \"check\": 0}}",
                    "run allgather -g 2:8 --algo ring,auto -b 1K -e 1M -f 4 -c 0 --format json");
    snprintf(req, sizeof req, "{\"command\": \"validate\", \"args\": [\"%s\"], \"flags\": "
             "{\"topo\": \"dgx-h100\"}}", log);
    snprintf(args, sizeof args, "validate %s --topo dgx-h100 --format json", log);
    same_as_program(req, args);
    snprintf(req, sizeof req, "{\"command\": \"plan\", \"args\": [\"%s\"]}", plan);
    snprintf(args, sizeof args, "plan %s --format json", plan);
    same_as_program(req, args);
    snprintf(req, sizeof req, "{\"command\": \"plan_search\", \"args\": [\"%s\"], \"flags\": "
             "{\"gpus\": 8}}", plan);
    snprintf(args, sizeof args, "plan search %s --gpus 8 --format json", plan);
    same_as_program(req, args);
}

/* explain: the program's text; calibrate: its topology, then its report. */
static void t_text(void)
{
    char req[4096], cmd[4096], *out = NULL, log[1024], start[1024];
    json_t *j, *topo;
    json_error_t je;
    int rc;
    snprintf(log, sizeof log, "%s", cs_test_data("ok/log-nccl.json"));     /* one buffer */
    snprintf(start, sizeof start, "%s", cs_test_data("ok/cal-start.json"));
    j = call("{\"command\": \"explain\", \"args\": [\"allreduce\"], \"flags\": {\"algo\": "
             "\"ring\", \"ranks\": 4, \"minbytes\": \"1M\"}}", &rc);
    snprintf(cmd, sizeof cmd, "%s explain allreduce --algo ring -g 4 -b 1M", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(out && j && !strcmp(json_string_value(json_object_get(j, "text")), out));
    json_decref(j);
    free(out);
    snprintf(req, sizeof req, "{\"command\": \"calibrate\", \"args\": [\"%s\"], \"flags\": "
             "{\"topo\": \"%s\", \"max_iter\": 20}}", log, start);
    j = call(req, &rc);
    snprintf(cmd, sizeof cmd, "%s calibrate %s --topo %s --max-iter 20 --output -", CS_COLLSIM,
             log, start);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 0);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    topo = json_loads(out, JSON_DISABLE_EOF_CHECK, &je);
    CU_ASSERT(j && topo && json_equal(json_object_get(j, "topology"), topo));
    CU_ASSERT(j && !strcmp(json_string_value(json_object_get(j, "report")),
                           out + je.position + 1));
    json_decref(topo);
    json_decref(j);
    free(out);
}

/* An error: its code, where and message, and the program's stderr line. */
static void error_is(const char *req, int code, const char *where, const char *msg_part)
{
    int rc;
    json_t *j = call(req, &rc), *e = json_object_get(j, "error");
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_PTR_NOT_NULL(e);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "code")), code);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "exit_status")),
                    code == -7 ? 2 : 1);
    CU_ASSERT(e && !strcmp(json_string_value(json_object_get(e, "where")), where));
    CU_ASSERT(e && strstr(json_string_value(json_object_get(e, "message")), msg_part));
    if (!e || !strstr(json_string_value(json_object_get(e, "message")), msg_part))
        fprintf(stderr, "\n  %s: got %s\n", req, json_string_value(json_object_get(e,
                "message")));
    json_decref(j);
}

static void t_errors(void)
{
    char cmd[512], *out = NULL;
    error_is("{\"command\": \"run\", \"flags\": {\"topo\": \"nope\"}}", -5, "nope",
             "no such preset or file (known presets: ");
    snprintf(cmd, sizeof cmd, "%s run --topo nope 2>&1", CS_COLLSIM);
    CU_ASSERT_EQUAL(cs_test_sh(cmd, &out), 1);
    CU_ASSERT(out && strstr(out, "error: nope: no such preset or file (known presets: "));
    free(out);
    error_is("{\"command\": \"run\", \"flags\": {\"minbytes\": \"x\"}}", -7, "-b", "'x'");
    error_is("{\"command\": \"run\", \"flags\": {\"bogus\": 1}}", -7, "",
             "unknown option '--bogus'");
    error_is("{\"command\": \"run\", \"flags\": {\"output\": \"x.json\"}}", -7, "--output",
             "not taken by the library");
    error_is("{\"command\": \"run\", \"args\": [\"--help\"]}", -7, "args",
             "looks like an option");
    error_is("{\"command\": \"frobnicate\"}", -7, "command", "unknown command 'frobnicate'");
    error_is("{\"command\": ", -4, "request", "1:");
    error_is("{\"command\": \"run\", \"flags\": {\"topo\": {\"kind\": \"ring\"}}}", -7,
             "flags", "pass a file");
}

static void t_lists(void)
{
    int rc;
    json_t *j = call("{\"command\": \"topologies\"}", &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(json_array_size(json_object_get(j, "presets")) > 10);
    CU_ASSERT(json_array_size(json_object_get(j, "kinds")) > 4);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "default")), "dgx-h100");
    json_decref(j);
    j = call("{\"command\": \"models\"}", &rc);
    CU_ASSERT(rc == 0 && json_array_size(j) > 3);
    CU_ASSERT(json_is_object(json_object_get(json_array_get(j, 0), "preset")));
    json_decref(j);
    j = call("{\"command\": \"gpus\"}", &rc);
    CU_ASSERT(rc == 0 && json_array_size(j) > 3);
    json_decref(j);
}

/* Threads: each calls the same requests; every result is byte for byte one thread's. */
#define N_THREADS 4
static const char *const thread_reqs[] = {
    "{\"command\": \"run\", \"args\": [\"allreduce\"], \"flags\": {\"minbytes\": \"1K\", "
    "\"maxbytes\": \"64M\", \"stepfactor\": 8}}",
    "{\"command\": \"run\", \"args\": [\"alltoall\"], \"flags\": {\"topo\": \"dgx-h100-x2\", "
    "\"minbytes\": \"1M\", \"maxbytes\": \"1M\", \"nodes\": 4}}",
    "{\"command\": \"explain\", \"args\": [\"allreduce\"], \"flags\": {\"ranks\": \"2:8\"}}",
    "{\"command\": \"run\", \"flags\": {\"topo\": \"nope\"}}",
    "{\"command\": \"models\"}",
    "{\"command\": \"plan\", \"args\": [\"" CS_TEST_DATA "/ok/plan-small.json\"]}",
    "{\"command\": \"plan_search\", \"args\": [\"" CS_TEST_DATA "/ok/plan-small.json\"], "
    "\"flags\": {\"gpus\": 4}}",
    "{\"command\": \"validate\", \"args\": [\"" CS_TEST_DATA "/real/nccl-h100-1n8-allreduce-"
    "nvswitch-256M-2G.log\"], \"flags\": {\"topo\": \"dgx-h100\"}}",
    "{\"command\": \"calibrate\", \"args\": [\"" CS_TEST_DATA "/ok/log-nccl.json\"], "
    "\"flags\": {\"topo\": \"" CS_TEST_DATA "/ok/cal-start.json\", \"max_iter\": 5, "
    "\"threads\": 2}}",
};
#define N_REQS ((int)(sizeof thread_reqs / sizeof thread_reqs[0]))

typedef struct worker { char *out[N_REQS]; } worker;

static void *work(void *arg)
{
    worker *w = arg;
    int i;
    for (i = 0; i < N_REQS; i++)
        collsim_call(thread_reqs[i], &w->out[i]);
    return NULL;
}

static void t_threads(void)
{
    worker one, many[N_THREADS];
    pthread_t th[N_THREADS];
    int i, k;
    memset(many, 0, sizeof many);
    work(&one);
    for (k = 0; k < N_THREADS; k++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[k], NULL, work, &many[k]), 0);
    for (k = 0; k < N_THREADS; k++)
        pthread_join(th[k], NULL);
    for (i = 0; i < N_REQS; i++) {
        CU_ASSERT_PTR_NOT_NULL(one.out[i]);
        for (k = 0; k < N_THREADS; k++)
            CU_ASSERT(one.out[i] && many[k].out[i] && !strcmp(one.out[i], many[k].out[i]));
    }
    for (i = 0; i < N_REQS; i++) {
        collsim_free(one.out[i]);
        for (k = 0; k < N_THREADS; k++)
            collsim_free(many[k].out[i]);
    }
    CU_ASSERT_STRING_EQUAL(collsim_version(), "0.1.0");
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"api: run, validate, plan, plan search = the program's --format json", t_commands},
        {"api: explain's text, calibrate's topology and report = the program's", t_text},
        {"api: errors as values: code, where, message, exit status", t_errors},
        {"api: topologies, models, gpus", t_lists},
        {"api: four threads at once (run, explain, plan, search, validate, calibrate, an "
         "error, a list), every result one thread's bytes", t_threads},
        {NULL, NULL}};
    return cs_test_add_suite("api", cases);
}
