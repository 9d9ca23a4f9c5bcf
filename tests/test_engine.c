/* test_engine.c: the event engine: (time, sequence) order, cancellation and stale ids,
 * failures raised inside callbacks. */
#include "tests/testutil.h"
#include "sim/engine.h"
#include "sim/engine-private.h"

#include <string.h>

typedef struct rec {
    int order[16];            /* data values in the order callbacks ran */
    cs_time when[16];         /* engine time when each ran */
    int n;
} rec;

static void note(cs_engine *eng, void *arg, uint64_t data)
{
    rec *r = arg;
    r->when[r->n] = cs_engine_now(eng);
    r->order[r->n++] = (int)data;
}

static void test_order(void)
{
    cs_engine *e;
    rec r = {{0}, {0}, 0};
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    cs_engine_at(e, 30, note, &r, 3);
    cs_engine_at(e, 10, note, &r, 1);
    cs_engine_at(e, 20, note, &r, 2);
    cs_engine_at(e, 10, note, &r, 4);      /* same time as 1, scheduled later: runs after */
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    CU_ASSERT_EQUAL(r.n, 4);
    CU_ASSERT_EQUAL(r.order[0], 1);
    CU_ASSERT_EQUAL(r.order[1], 4);
    CU_ASSERT_EQUAL(r.order[2], 2);
    CU_ASSERT_EQUAL(r.order[3], 3);
    CU_ASSERT_EQUAL(r.when[3], 30);
    CU_ASSERT_EQUAL(cs_engine_now(e), 30);
    CU_ASSERT_EQUAL(cs_engine_n_executed(e), 4);
    cs_engine_free(e);
}

static void test_cancel(void)
{
    cs_engine *e;
    rec r = {{0}, {0}, 0};
    cs_event_id a, b;
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    a = cs_engine_at(e, 5, note, &r, 1);
    b = cs_engine_at(e, 6, note, &r, 2);
    CU_ASSERT_NOT_EQUAL(a, 0);
    CU_ASSERT_EQUAL(cs_engine_cancel(e, a), 0);
    CU_ASSERT_EQUAL(cs_engine_cancel(e, a), CS_ENOENT);   /* stale: already cancelled */
    CU_ASSERT_EQUAL(cs_engine_n_pending(e), 1);
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    CU_ASSERT_EQUAL(r.n, 1);
    CU_ASSERT_EQUAL(r.order[0], 2);
    CU_ASSERT_EQUAL(cs_engine_cancel(e, b), CS_ENOENT);   /* stale: already ran */
    CU_ASSERT_EQUAL(cs_engine_cancel(e, 0), CS_ENOENT);
    /* A reused slot gets a new generation: the old handle stays stale. */
    cs_engine_at(e, 7, note, &r, 3);
    CU_ASSERT_EQUAL(cs_engine_cancel(e, a), CS_ENOENT);
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    CU_ASSERT_EQUAL(r.n, 2);
    cs_engine_free(e);
}

static void failing(cs_engine *eng, void *arg, uint64_t data)
{
    cs_engine_fail(eng, CS_EINVAL, "here", "broke at step %d", (int)data);
}

static void test_fail(void)
{
    cs_engine *e;
    rec r = {{0}, {0}, 0};
    cs_err err;
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    cs_engine_at(e, 1, note, &r, 1);
    cs_engine_at(e, 2, failing, NULL, 7);
    cs_engine_at(e, 3, note, &r, 3);      /* never runs: the run stopped */
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "here");
    CU_ASSERT_STRING_EQUAL(err.msg, "broke at step 7");
    CU_ASSERT_EQUAL(r.n, 1);
    cs_engine_free(e);
}

/* Chain of events each scheduling the next: counts and final time are exact. */
static void chain(cs_engine *eng, void *arg, uint64_t data)
{
    if (data > 0)
        cs_engine_after(eng, 3, chain, arg, data - 1);
}

static void test_chain_many(void)
{
    cs_engine *e;
    int i;
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    for (i = 0; i < 100; i++)
        cs_engine_at(e, i, chain, NULL, 999);
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    CU_ASSERT_EQUAL(cs_engine_n_executed(e), 100 * 1000);
    CU_ASSERT_EQUAL(cs_engine_now(e), 99 + 999 * 3);
    cs_engine_free(e);
}

/* Cancel-and-reschedule, as the fluid network does at every share change: 100 live events
 * rescheduled 1000 times each leave 100 000 cancelled entries, which the heap drops once
 * they outnumber the live ones; the survivors still run in time order, each exactly once. */
static void test_compaction(void)
{
    cs_engine *e;
    cs_event_id ids[100];
    rec r = {{0}, {0}, 0};
    int i, k;
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    for (i = 0; i < 100; i++)
        ids[i] = cs_engine_at(e, 1000 + i, chain, NULL, 0);
    for (k = 0; k < 1000; k++)
        for (i = 0; i < 100; i++) {
            CU_ASSERT_EQUAL(cs_engine_cancel(e, ids[i]), 0);
            ids[i] = cs_engine_at(e, 1000 + i + k, chain, NULL, 0);
        }
    CU_ASSERT_EQUAL(cs_engine_n_pending(e), 100);
    cs_engine_at(e, 5000, note, &r, 9);
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    CU_ASSERT_EQUAL(cs_engine_n_executed(e), 101);
    CU_ASSERT_EQUAL(r.n, 1);
    CU_ASSERT_EQUAL(cs_engine_now(e), 5000);
    cs_engine_free(e);
}

/* Sequence numbers are renumbered when they run out (every 2^36 events; every 5 here):
 * the order stays (time, scheduling order). Events 0..15 at times 3 - i % 4 run as
 * time 0: 3, 7, 11, 15; time 1: 2, 6, 10, 14; ... and ones scheduled while running (data
 * 100 + k at time 3) after every earlier one at time 3. */
typedef struct seqrec {
    int order[40];            /* data values in run order */
    int n;
} seqrec;

static void seq_note(cs_engine *eng, void *arg, uint64_t data)
{
    seqrec *r = arg;
    r->order[r->n++] = (int)data;
    if (data < 4)
        cs_engine_at(eng, 3, seq_note, arg, 100 + data);
}

static void test_renumber(void)
{
    static const int want[] = {3, 7, 11, 15, 2, 6, 10, 14, 1, 5, 9, 13,
                               0, 4, 8, 12, 103, 102, 101, 100};
    cs_engine *e;
    seqrec r = {{0}, 0};
    int i;
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    cs__engine_set_seq_limit(e, 5);
    for (i = 0; i < 16; i++)
        cs_engine_at(e, 3 - i % 4, seq_note, &r, (uint64_t)i);
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(r.n, 20);
    for (i = 0; i < 20; i++)
        CU_ASSERT_EQUAL(r.order[i], want[i]);
    cs_engine_free(e);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"order by time then sequence", test_order},
        {"cancel and stale ids", test_cancel},
        {"failure inside a callback stops the run", test_fail},
        {"100k chained events", test_chain_many},
        {"heap drops cancelled events", test_compaction},
        {"sequence numbers renumbered when they run out", test_renumber},
        {NULL, NULL},
    };
    return cs_test_add_suite("engine", cases);
}
