/* testutil.c: helpers shared by the test executables. */
#include "tests/testutil.h"
#include "topologies/topology.h"
#include "scenarios/plan.h"
#include "algorithms/nccl/nccl.h"
#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int cs_test_add_suite(const char *name, const cs_test_case *cases)
{
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    if (!s)
        return -1;
    for (; cases->name; cases++)
        if (!CU_add_test(s, cases->name, cases->fn))
            return -1;
    return 0;
}

int cs_close_rel(double got, double want, double rel)
{
    double scale = fabs(want) > 1e-300 ? fabs(want) : 1e-300;
    if (isnan(got) || isnan(want))
        return 0;
    return fabs(got - want) <= rel * scale;
}

const char *cs_test_json_file(const char *text, char *buf, size_t n)
{
    FILE *f;
    int fd;
    snprintf(buf, n, "/tmp/cs_test_json_XXXXXX");
    fd = mkstemp(buf);
    CU_ASSERT_FATAL(fd >= 0);
    f = fdopen(fd, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
    return buf;
}

const char *cs_test_data(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", CS_TEST_DATA, rel);
    return buf;
}

int cs_test_sh(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    int st;
    if (!p || !buf) {
        free(buf);
        if (p)
            pclose(p);
        return -1;
    }
    for (;;) {
        size_t n;
        if (cap - len < 1024) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                break;
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len - 1, p);
        if (n == 0)
            break;
        len += n;
    }
    buf[len] = '\0';
    st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

cs_topo *cs_test_topo(const char *json)
{
    cs_topo *t = NULL;
    cs_err err;
    int rc = cs_topo_load_string(json, "test", &t, &err);
    if (rc < 0)
        fprintf(stderr, "\n  load failed: %s: %s: %s\n", cs_err_name(rc), err.where, err.msg);
    return t;
}

cs_topo *cs_test_pcie3_pair(int p2p)
{
    char json[512];
    snprintf(json, sizeof json, "{\"kind\": \"pcie\", \"sockets\": 1, \"switches_per_socket\": 1, "
             "\"gpus_per_switch\": 2, \"p2p\": %s, \"link\": {\"class\": \"pcie3\", "
             "\"bandwidth_GBps\": 12, \"latency_us\": 1}, \"uplink\": {\"class\": \"pcie3\", "
             "\"bandwidth_GBps\": 12, \"latency_us\": 1}}", p2p ? "true" : "false");
    return cs_test_topo(json);
}

int cs_test_plan_eval(cs_plan *p, cs_plan_result *r)
{
    cs_plan_ctx *ctx = NULL;
    cs_err err;
    int rc;
    memset(r, 0, sizeof *r);
    if ((rc = cs_plan_check(p, 0, &err)) < 0 || (rc = cs_plan_ctx_new(&ctx, p, &err)) < 0 ||
        (rc = cs_plan_eval(ctx, p, 0, r, &err)) < 0)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    cs_plan_ctx_free(ctx);
    return rc;
}

int cs_test_nccl_json(const char *text, struct cs_nccl_params *p, cs_err *err)
{
    json_t *v = json_loads(text, 0, NULL);
    int rc;
    if (!v)
        return -100;
    rc = cs_nccl_params_from_json(v, p, err);
    json_decref(v);
    return rc;
}
