/* test_par.c: the work distributor (sim/par.h) in one process -- items in index order,
 * results in their slots, the first failure stops the step with its error, a map inside an
 * item, progress, the test hook -- and its users: several sweeps at once give the rows of
 * one sweep each (algorithms/run.h), `run all`'s collectives. The same commands under
 * mpirun are tests/mpi.sh. */
#include "tests/testutil.h"
#include "sim/par.h"
#include "algorithms/run.h"
#include "topologies/topology.h"

#include <stdlib.h>
#include <string.h>

typedef struct sq_ctx {
    int calls[16];           /* which items ran, in order */
    int n_calls;
    int fail_at;             /* item that fails, -1 none */
    int nested;              /* run a map of 3 items inside each item */
} sq_ctx;

static int inner_item(void *ctx, int i, void *out, cs_err *err)
{
    *(int *)out = 10 * (i + 1);
    return 0;
}

/* Item i: i squared (and, nested, plus the sum 10 + 20 + 30 of an inner map). */
static int square_item(void *ctx, int i, void *out, cs_err *err)
{
    sq_ctx *c = ctx;
    long *o = out;
    c->calls[c->n_calls++] = i;
    if (i == c->fail_at)
        return cs_err_set(err, CS_EINVAL, "item", "item %d cannot", i);
    *o = (long)i * i;
    if (c->nested) {
        int in[3], rc;
        cs_par_job job = {3, NULL, sizeof(int), inner_item, NULL, 0, "inner"};
        if ((rc = cs_par_map(&job, in, err)) < 0)
            return rc;
        *o += in[0] + in[1] + in[2];
    }
    return 0;
}

/* Costs order the hand-out under MPI, never the results: one process runs 0..n-1. */
static void test_order(void)
{
    static const double cost[6] = {1, 5, 3, 9, 2, 7};
    sq_ctx c;
    long res[6];
    cs_par_job job = {6, cost, sizeof(long), square_item, &c, 1, NULL};
    cs_err err;
    int i;
    memset(&c, 0, sizeof c);
    c.fail_at = -1;
    CU_ASSERT_EQUAL(cs_par_rank(), 0);
    CU_ASSERT_EQUAL(cs_par_size(), 1);
    CU_ASSERT_EQUAL(cs_par_map(&job, res, &err), 0);
    CU_ASSERT_EQUAL(c.n_calls, 6);
    for (i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(c.calls[i], i);
        CU_ASSERT_EQUAL(res[i], (long)i * i);
    }
    job.n_items = 0;                          /* nothing to do is not an error */
    CU_ASSERT_EQUAL(cs_par_map(&job, res, &err), 0);
}

/* Item 2 fails: items 3.. never run, the error is item 2's. */
static void test_failure(void)
{
    sq_ctx c;
    long res[5];
    cs_par_job job = {5, NULL, sizeof(long), square_item, &c, 0, NULL};
    cs_err err;
    memset(&c, 0, sizeof c);
    c.fail_at = 2;
    cs_err_clear(&err);
    CU_ASSERT_EQUAL(cs_par_map(&job, res, &err), CS_EINVAL);
    CU_ASSERT_EQUAL(c.n_calls, 3);
    CU_ASSERT_STRING_EQUAL(err.where, "item");
    CU_ASSERT_STRING_EQUAL(err.msg, "item 2 cannot");
}

/* A map inside an item runs there: item i gives i^2 + 60. */
static void test_nested(void)
{
    sq_ctx c;
    long res[4];
    cs_par_job job = {4, NULL, sizeof(long), square_item, &c, 1, NULL};
    cs_err err;
    int i;
    memset(&c, 0, sizeof c);
    c.fail_at = -1;
    c.nested = 1;
    CU_ASSERT_EQUAL(cs_par_map(&job, res, &err), 0);
    for (i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(res[i], (long)i * i + 60);
}

/* Progress: one call per item with done = 1..n, then the end (left -1); by cost, after
 * items of cost 1 and 3 out of 1 + 3 + 4 the estimate is elapsed x 4 / 4. */
static int g_calls, g_last_done, g_ended;
static double g_frac;
static void progress(const char *label, int done, int total, double elapsed_s, double left_s)
{
    CU_ASSERT_STRING_EQUAL(label, "squares");
    CU_ASSERT_EQUAL(total, 3);
    if (left_s < 0) {
        g_ended++;
        return;
    }
    g_calls++;
    CU_ASSERT_EQUAL(done, g_last_done + 1);
    g_last_done = done;
    if (done == 2 && elapsed_s > 0)
        g_frac = left_s / elapsed_s;
}

static void test_progress(void)
{
    static const double cost[3] = {1, 3, 4};
    sq_ctx c;
    long res[3];
    cs_par_job job = {3, cost, sizeof(long), square_item, &c, 0, "squares"};
    cs_err err;
    memset(&c, 0, sizeof c);
    c.fail_at = -1;
    c.nested = 1;                             /* the inner map ("inner") shows nothing */
    cs_par_set_progress(progress);
    CU_ASSERT_EQUAL(cs_par_map(&job, res, &err), 0);
    cs_par_set_progress(NULL);
    CU_ASSERT_EQUAL(g_calls, 3);
    CU_ASSERT_EQUAL(g_ended, 1);
    if (g_frac > 0)
        CS_ASSERT_REL(g_frac, 1.0, 1e-9);
}

/* COLLSIM_FAIL_ITEM=1: item 1 fails with the hook's message, naming rank 0. */
static void test_fail_hook(void)
{
    sq_ctx c;
    long res[3];
    cs_par_job job = {3, NULL, sizeof(long), square_item, &c, 0, NULL};
    cs_err err;
    memset(&c, 0, sizeof c);
    c.fail_at = -1;
    setenv("COLLSIM_FAIL_ITEM", "1", 1);
    CU_ASSERT_EQUAL(cs_par_map(&job, res, &err), CS_EINVAL);
    unsetenv("COLLSIM_FAIL_ITEM");
    CU_ASSERT_STRING_EQUAL(err.msg, "item 1 failed on purpose on rank 0");
    CU_ASSERT_EQUAL(c.n_calls, 1);
}

/* cs_run_sweeps over allreduce and a barrier gives each the rows cs_run_sweep gives it:
 * the barrier one row of 0 bytes whatever the sizes. */
static void test_sweeps(void)
{
    cs_topo *t = NULL;
    cs_run_cfg cfg;
    cs_sweep a, b, one;
    cs_run_task tk[2];
    cs_err err;
    uint64_t sizes[3] = {1024, 1 << 20, 64 << 20};
    char bn[2][256], bn1[256];
    int i;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&one, 0, sizeof one);
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    cs_run_cfg_init(&cfg);
    cs_run_header(&a, CS_COLL_ALLREDUCE, "auto", t, "float", "sum", 16, 0, 1, "m");
    cs_run_header(&b, CS_COLL_BARRIER, "auto", t, "float", "sum", 16, 0, 1, "m");
    cs_run_header(&one, CS_COLL_ALLREDUCE, "auto", t, "float", "sum", 16, 0, 1, "m");
    CU_ASSERT_STRING_EQUAL(b.redop, "none");
    CU_ASSERT_EQUAL(b.root, -1);
    tk[0] = (cs_run_task){&cfg, t, 16, 4, &a, sizes, 3, 1, bn[0], sizeof bn[0]};
    tk[1] = (cs_run_task){&cfg, t, 16, 4, &b, sizes, 3, 0, bn[1], sizeof bn[1]};
    CU_ASSERT_EQUAL(cs_run_sweeps(tk, 2, &err), 0);
    CU_ASSERT_EQUAL(cs_run_sweep(&cfg, t, 16, 4, sizes, 3, 1, &one, bn1, sizeof bn1, &err), 0);
    CU_ASSERT_EQUAL_FATAL(a.n_rows, 3);
    CU_ASSERT_EQUAL_FATAL(one.n_rows, 3);
    for (i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(a.rows[i].time_us, one.rows[i].time_us);
        CU_ASSERT_PTR_EQUAL(a.rows[i].algorithm, one.rows[i].algorithm);
    }
    CU_ASSERT(a.n_links > 0);
    CU_ASSERT_EQUAL(a.n_links, one.n_links);
    CU_ASSERT_STRING_EQUAL(a.bottleneck, one.bottleneck);
    CU_ASSERT_EQUAL_FATAL(b.n_rows, 1);
    CU_ASSERT_EQUAL(b.rows[0].size_bytes, 0);
    cs_sweep_fini(&a);
    cs_sweep_fini(&b);
    cs_sweep_fini(&one);
    cs_topo_free(t);
}

/* `run all`: nccl-tests' order, barrier last. */
static void test_all_colls(void)
{
    int n;
    const cs_coll *c = cs_run_all_colls(&n);
    CU_ASSERT_EQUAL_FATAL(n, 10);
    CU_ASSERT_EQUAL(c[0], CS_COLL_ALLREDUCE);
    CU_ASSERT_EQUAL(c[1], CS_COLL_ALLGATHER);
    CU_ASSERT_EQUAL(c[2], CS_COLL_REDUCESCATTER);
    CU_ASSERT_EQUAL(c[7], CS_COLL_ALLTOALL);
    CU_ASSERT_EQUAL(c[8], CS_COLL_SENDRECV);
    CU_ASSERT_EQUAL(c[9], CS_COLL_BARRIER);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"one process runs items in order", test_order},
        {"the first failure stops the step", test_failure},
        {"a map inside an item", test_nested},
        {"progress by cost", test_progress},
        {"COLLSIM_FAIL_ITEM", test_fail_hook},
        {"several sweeps at once", test_sweeps},
        {"run all's collectives", test_all_colls},
        {NULL, NULL},
    };
    return cs_test_add_suite("par", cases);
}
