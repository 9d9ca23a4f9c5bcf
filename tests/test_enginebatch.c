/* test_enginebatch.c: many moves at once (cs_engine_batch_begin/end, as the fluid model's
 * recompute makes them). Events run in the order of their keys (time, then the order they
 * were scheduled or moved), with the heap put in order once at the batch's end or sifted
 * move by move: the expected orders are derived from that rule in the comments, and an
 * engine without a batch must give the same. */
#include "tests/testutil.h"
#include "sim/engine.h"
#include "sim/engine-private.h"

#include <string.h>

#define N 64

typedef struct rec {
    int order[N];             /* data values in the order callbacks ran */
    cs_time when[N];
    int n;
} rec;

static void note(cs_engine *eng, void *arg, uint64_t data)
{
    rec *r = arg;
    r->when[r->n] = cs_engine_now(eng);
    r->order[r->n++] = (int)data;
}

/* N events, data i at time 1000 - i: event 0 is the first and goes to the FIFO, every
 * later one is earlier than the FIFO's tail and goes to the heap. Then events i = N-1 down
 * to 1 move to time (i mod 8) * 10, inside a batch of `hint` moves when batch is set (2:
 * the batch is not ended before the run). */
static void run_moves(int batch, uint32_t hint, int n_moves, rec *r, uint64_t *heapified,
                      uint64_t *moves)
{
    cs_engine *e;
    cs_event_id id[N];
    int i, k;
    memset(r, 0, sizeof *r);
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    for (i = 0; i < N; i++)
        id[i] = cs_engine_at(e, 1000 - i, note, r, (uint64_t)i);
    if (batch)
        cs_engine_batch_begin(e, hint);
    for (i = N - 1, k = 0; i >= 1 && k < n_moves; i--, k++)
        CU_ASSERT_NOT_EQUAL(id[i] = cs_engine_move(e, id[i], (i % 8) * 10), 0);
    if (batch == 1)
        cs_engine_batch_end(e);        /* batch 2: left open, for cs_engine_run to end */
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    cs__engine_batch_counts(e, heapified, moves);
    cs_engine_free(e);
}

static void t_batch_order(void)
{
    rec a, b;
    uint64_t h, m;
    int g, i, k = 0;
    run_moves(1, N - 1, N - 1, &b, &h, &m);
    /* 63 moves of 63 heap entries (>= a quarter): one batch, ordered once at its end. */
    CU_ASSERT_EQUAL(h, 1);
    CU_ASSERT_EQUAL(m, N - 1);
    CU_ASSERT_EQUAL_FATAL(b.n, N);
    /* By time 0, 10, .. 70 (i mod 8); at one time in the order moved, i falling; then
     * event 0, never moved, at 1000. */
    for (g = 0; g < 8; g++)
        for (i = N - 1; i >= 1; i--)
            if (i % 8 == g) {
                CU_ASSERT_EQUAL(b.order[k], i);
                CU_ASSERT_EQUAL(b.when[k], g * 10);
                k++;
            }
    CU_ASSERT_EQUAL(k, N - 1);
    CU_ASSERT_EQUAL(b.order[N - 1], 0);
    CU_ASSERT_EQUAL(b.when[N - 1], 1000);
    /* The same without a batch. */
    run_moves(0, 0, N - 1, &a, &h, &m);
    CU_ASSERT_EQUAL(h, 0);
    CU_ASSERT_EQUAL(m, 0);
    CU_ASSERT_EQUAL(memcmp(a.order, b.order, sizeof a.order), 0);
    CU_ASSERT_EQUAL(memcmp(a.when, b.when, sizeof a.when), 0);
    /* A batch left open is ended by the run before its first event: the same. */
    run_moves(2, N - 1, N - 1, &b, &h, &m);
    CU_ASSERT_EQUAL(h, 1);
    CU_ASSERT_EQUAL(memcmp(a.order, b.order, sizeof a.order), 0);
}

static void t_batch_small(void)
{
    rec a, b;
    uint64_t h, m;
    int i;
    /* 3 moves announced among 64 pending (3 x 4 < 64): sifted one by one, no batch. */
    run_moves(1, 3, 3, &b, &h, &m);
    CU_ASSERT_EQUAL(h, 0);
    CU_ASSERT_EQUAL(m, 0);
    /* Events 63, 62, 61 moved to 70, 60, 50 (i mod 8 = 7, 6, 5): they run first, 61 at
     * 50, 62 at 60, 63 at 70; then the rest by time 1000 - i, i.e. i falling from 60. */
    CU_ASSERT_EQUAL_FATAL(b.n, N);
    CU_ASSERT_EQUAL(b.order[0], 61);
    CU_ASSERT_EQUAL(b.order[1], 62);
    CU_ASSERT_EQUAL(b.order[2], 63);
    for (i = 3; i < N; i++)
        CU_ASSERT_EQUAL(b.order[i], 60 - (i - 3));
    run_moves(0, 0, 3, &a, &h, &m);
    CU_ASSERT_EQUAL(memcmp(a.order, b.order, sizeof a.order), 0);
    /* The same 3 moves announced as 16 (16 x 4 >= 64): a batch, the same order. */
    run_moves(1, 16, 3, &b, &h, &m);
    CU_ASSERT_EQUAL(h, 1);
    CU_ASSERT_EQUAL(m, 3);
    CU_ASSERT_EQUAL(memcmp(a.order, b.order, sizeof a.order), 0);
}

/* Events scheduled and cancelled among a batch's moves (the fluid model schedules a new
 * flow's end in the same loop) keep the key order too. */
static void t_batch_mixed(void)
{
    rec r;
    cs_engine *e;
    cs_event_id id[8];
    int i;
    uint64_t h, m;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(cs_engine_new(&e), 0);
    for (i = 0; i < 8; i++)            /* 0 in the FIFO at 100, 1..7 in the heap at 100 - i */
        id[i] = cs_engine_at(e, 100 - i, note, &r, (uint64_t)i);
    cs_engine_batch_begin(e, 8);
    id[7] = cs_engine_move(e, id[7], 200);         /* 7: to 200 */
    cs_engine_at(e, 5, note, &r, 8);               /* 8: new, at 5 */
    CU_ASSERT_EQUAL(cs_engine_cancel(e, id[3]), 0);   /* 3: gone */
    id[1] = cs_engine_move(e, id[1], 5);           /* 1: to 5, after 8 */
    id[0] = cs_engine_move(e, id[0], 1);           /* 0 (FIFO): cancel + schedule at 1 */
    cs_engine_batch_end(e);
    cs__engine_batch_counts(e, &h, &m);
    CU_ASSERT_EQUAL(h, 1);
    CU_ASSERT_EQUAL(m, 2);                         /* 7 and 1; 0 was in the FIFO */
    CU_ASSERT_EQUAL(cs_engine_run(e, CS_TIME_MAX, NULL), 0);
    /* 0 at 1; 8 then 1 at 5; 6, 5, 4, 2 at 94, 95, 96, 98; 7 at 200. */
    {
        static const int want[] = {0, 8, 1, 6, 5, 4, 2, 7};
        CU_ASSERT_EQUAL_FATAL(r.n, 8);
        for (i = 0; i < 8; i++)
            CU_ASSERT_EQUAL(r.order[i], want[i]);
    }
    cs_engine_free(e);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"a batch of moves runs events in the order moving one by one does", t_batch_order},
        {"a few moves are sifted one by one; announced as many, batched: same order",
         t_batch_small},
        {"events scheduled and cancelled inside a batch keep their order", t_batch_mixed},
        {NULL, NULL}};
    return cs_test_add_suite("enginebatch", cases);
}
