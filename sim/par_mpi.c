/* par_mpi.c: the MPI transport of sim/par.h (core layer, par-private.h), the only file
 * that includes mpi.h. Rank 0 manages and computes: it hands every other rank a chunk of
 * the largest items left -- about 1 / (4 x processes) of the estimated work left, at least
 * one item (guided self-scheduling, Polychronopoulos & Kuck 1987, weighted by cost) -- and
 * the next chunk when half of it has come back, or sooner so that a worker always holds
 * the next item behind the one it runs; between the chunks it runs the largest item left
 * itself, and looks at its mailbox (MPI_Iprobe, about a microsecond) after each one. Every
 * item a worker holds was taken before rank 0's current one, so it is no smaller: the
 * worker does not run dry while rank 0 computes. Everybody takes the largest first, so the
 * last items are the smallest and the ranks finish together (list scheduling: the end
 * differs by at most the last, smallest items). One thread per process
 * (MPI_THREAD_SINGLE): no hand-out thread to wake. A failure stops the hand-out and asks
 * the workers to skip what they hold queued; at the end rank 0 broadcasts the outcome
 * (and, for to_all jobs, the results) to every rank. */
#include "sim/par-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <mpi.h>

enum { TAG_ITEM = 7301, TAG_RESULT, TAG_ABORT };
#define ITEM_STOP (-1)           /* no more items */
#define ITEM_STOP_ABORTED (-2)   /* no more items, and an abort message is on its way */
#define RC_SKIPPED 1             /* result of an item skipped after an abort */
#define CHUNK_MAX 1024           /* most items in one chunk */

static int g_mpi_started;       /* this file called MPI_Init */

/* The head of a result message; the item's output or its cs_err follows. */
typedef struct res_head {
    int32_t item;                /* item index */
    int32_t rc;                  /* 0, RC_SKIPPED, or the item's negative code */
} res_head;

/* What every rank learns at the end of a step. */
typedef struct step_end {
    int rc;                      /* 0 or the failing item's code */
    cs_err err;                  /* its error */
} step_end;

/* Waiting. MPI's blocking calls poll a core at full speed, which is right while each rank
 * has a core to itself but steals the computing ranks' time where they share one (a
 * loaded machine, more ranks than cores). So: look for 100 us, then sleep between looks,
 * 10 us doubling up to 500 us -- and, in a long wait (the other ranks are descheduled, or
 * inside long items), up to 1/20 of the time waited so far (at most 10 ms): a wake-up
 * every 500 us costs about 1 % of a core, and a long wait's answer comes at most 5 % later
 * than it could. */
typedef struct waiter {
    double t0_s;                 /* when the wait began */
    long sleep_us;               /* next sleep, 0 while still looking */
} waiter;

static void waiter_init(waiter *w)
{
    w->t0_s = MPI_Wtime();
    w->sleep_us = 0;
}

static void waiter_pause(waiter *w)
{
    struct timeval tv;
    double waited_us = (MPI_Wtime() - w->t0_s) * 1e6, cap;
    if (w->sleep_us == 0) {
        if (waited_us < 100)
            return;
        w->sleep_us = 10;
    }
    tv.tv_sec = 0;
    tv.tv_usec = w->sleep_us;
    select(0, NULL, NULL, NULL, &tv);
    cap = waited_us / 20 > 10000 ? 10000 : waited_us / 20 < 500 ? 500 : waited_us / 20;
    if (w->sleep_us < cap)
        w->sleep_us = 2 * w->sleep_us < cap ? 2 * w->sleep_us : (long)cap;
}

static void wait_req(MPI_Request *r, MPI_Status *st)
{
    waiter w;
    int done = 0;
    waiter_init(&w);
    for (;;) {
        MPI_Test(r, &done, st ? st : MPI_STATUS_IGNORE);
        if (done)
            return;
        waiter_pause(&w);
    }
}

/* A blocking receive that sleeps while it waits. */
static void recv_int(int *v, int src, int tag)
{
    MPI_Request r;
    MPI_Irecv(v, 1, MPI_INT, src, tag, MPI_COMM_WORLD, &r);
    wait_req(&r, NULL);
}

static int env_is(const char *name, const char *v)
{
    const char *e = getenv(name);
    return e && !strcmp(e, v);
}

/* Started by an MPI launcher: Open MPI's mpirun, a PMIx or PMI process manager (srun,
 * MPICH's hydra). COLLSIM_MPI=1 or 0 overrides. */
static int launched(void)
{
    if (env_is("COLLSIM_MPI", "0"))
        return 0;
    return env_is("COLLSIM_MPI", "1") || getenv("OMPI_COMM_WORLD_SIZE") ||
           getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("PMI_SIZE");
}

int cs__par_start(int *argc, char ***argv, int *rank, int *size, cs_err *err)
{
    int inited = 0;
    *rank = 0;
    *size = 1;
    if (!launched())
        return 0;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init(argc, argv) != MPI_SUCCESS)
            return cs_err_set(err, CS_ESTATE, "MPI_Init", "cannot start MPI");
        g_mpi_started = 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

void cs__par_stop(void)
{
    int done = 0;
    if (!g_mpi_started)
        return;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
    g_mpi_started = 0;
}

const char *cs__par_engine(char *buf, size_t n)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[strcspn(v, ",\n")] = 0;            /* "Open MPI v4.1.4" */
    snprintf(buf, n, "%s", v);
    return buf;
}

static void send_stop(int w, int why)
{
    MPI_Send(&why, 1, MPI_INT, w, TAG_ITEM, MPI_COMM_WORLD);
}

/* A worker: run the chunks of items rank 0 sends until it says stop. Each result goes back
 * with a non-blocking send from a ring of buffers: a send completes only once rank 0 takes
 * it, and rank 0 may be inside a long item of its own, so the worker goes on with the next
 * item and waits only when every buffer of the ring is still on its way (up to 64, at most
 * 8 MiB of them). */
static void worker(const cs_par_job *job, size_t cap)
{
    int n_buf = (int)((8u << 20) / cap), chunk[CHUNK_MAX], k = 0, aborted = 0, n, j, flag, dummy;
    unsigned char *pool;
    MPI_Request *req;
    n_buf = n_buf < 2 ? 2 : n_buf > 64 ? 64 : n_buf;
    pool = malloc((size_t)n_buf * cap);
    req = malloc((size_t)n_buf * sizeof *req);
    for (j = 0; req && j < n_buf; j++)
        req[j] = MPI_REQUEST_NULL;
    for (;;) {
        MPI_Request r;
        MPI_Status st;
        MPI_Irecv(chunk, CHUNK_MAX, MPI_INT, 0, TAG_ITEM, MPI_COMM_WORLD, &r);
        wait_req(&r, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        if (n < 1 || chunk[0] < 0) {
            if (n >= 1 && chunk[0] == ITEM_STOP_ABORTED)
                recv_int(&dummy, 0, TAG_ABORT);
            break;
        }
        for (j = 0; j < n; j++) {
            unsigned char *b;
            res_head h;
            cs_err e;
            size_t len = sizeof h;
            if (!aborted) {
                MPI_Iprobe(0, TAG_ABORT, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                aborted = flag;
            }
            h.item = chunk[j];
            cs_err_clear(&e);
            if (!pool || !req) {
                unsigned char msg[sizeof h + sizeof e];
                h.rc = cs_err_set(&e, CS_ENOMEM, NULL, "out of memory");
                memcpy(msg, &h, sizeof h);
                memcpy(msg + sizeof h, &e, sizeof e);
                MPI_Send(msg, (int)sizeof msg, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
                continue;
            }
            wait_req(&req[k], NULL);
            b = pool + (size_t)k * cap;
            if (aborted) {
                h.rc = RC_SKIPPED;
            } else if ((h.rc = cs__par_run_item(job, chunk[j], b + sizeof h, &e)) < 0) {
                if (!e.code)
                    e.code = h.rc;
                memcpy(b + sizeof h, &e, sizeof e);
                len += sizeof e;
            } else {
                h.rc = 0;
                len += job->out_bytes;
            }
            memcpy(b, &h, sizeof h);
            MPI_Isend(b, (int)len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &req[k]);
            k = (k + 1) % n_buf;
        }
    }
    for (j = 0; req && j < n_buf; j++)
        wait_req(&req[j], NULL);
    free(pool);
    free(req);
}

/* Rank 0's bookkeeping of a step. */
typedef struct mgr {
    const cs_par_job *job;
    unsigned char *results;
    cs__par_prog *pg;
    int *outstanding;            /* items sent to each rank and not yet answered */
    int *abort_sent;             /* an abort message went to that rank */
    int *last_chunk;             /* items in the chunk last sent to each rank */
    int aborts_sent;             /* the abort messages went out */
    const int *order;            /* items by cost, largest first */
    int head, tail;              /* order[head..tail] are not handed out yet (taken from
                                    the head, the largest, by everybody) */
    double left_cost;            /* their estimated cost */
    int n_ranks;
    int failed;                  /* an item failed: hand out nothing more */
    step_end end;                /* the failure with the lowest item index */
    int fail_item;
} mgr;

/* A failed item: keep the lowest index, stop handing out. */
static void record(mgr *m, int item, int rc, const cs_err *e)
{
    if (item < m->fail_item) {
        m->fail_item = item;
        m->end.rc = rc;
        m->end.err = *e;
    }
    m->failed = 1;
}

/* After a failure: ask the workers to skip what they hold queued. */
static void send_aborts(mgr *m)
{
    int w, one = 1;
    for (w = 1; w < m->n_ranks; w++)
        if (m->outstanding[w] > 0) {
            MPI_Send(&one, 1, MPI_INT, w, TAG_ABORT, MPI_COMM_WORLD);
            m->abort_sent[w] = 1;
        }
    m->aborts_sent = 1;
}

static double cost_of(const cs_par_job *job, int i)
{
    return job->cost ? job->cost[i] : 1.0;
}

/* Hand worker w the next chunk from the front: items until their cost reaches the work
 * left / (4 x processes), at least one. */
static void send_chunk(mgr *m, int w)
{
    int chunk[CHUNK_MAX], n = 0;
    double want, got = 0;
    want = m->left_cost / (4.0 * m->n_ranks);
    while (m->head <= m->tail && n < CHUNK_MAX && (n == 0 || got < want)) {
        int i = m->order[m->head++];
        chunk[n++] = i;
        got += cost_of(m->job, i);
    }
    m->left_cost -= got;
    m->outstanding[w] += n;
    m->last_chunk[w] = n;
    MPI_Send(chunk, n, MPI_INT, w, TAG_ITEM, MPI_COMM_WORLD);
}

/* Rank 0's own share: the largest item left, run here. */
static void run_local(mgr *m)
{
    const cs_par_job *job = m->job;
    cs_err e;
    int i = m->order[m->head++], rc;
    m->left_cost -= cost_of(job, i);
    cs_err_clear(&e);
    rc = cs__par_run_item(job, i, m->results + (size_t)i * job->out_bytes, &e);
    if (rc < 0) {
        if (!e.code)
            e.code = rc;
        record(m, i, rc, &e);
    } else {
        cs__par_tick(m->pg, i);
    }
}

/* One result from worker w (in buf); then its next chunk, or stop when nothing is left
 * for it and it holds nothing. Returns 1 when w was told to stop. */
static int take_result(mgr *m, int w, const unsigned char *buf)
{
    const cs_par_job *job = m->job;
    const res_head *h = (const res_head *)buf;
    int more, stop;
    m->outstanding[w]--;
    if (h->rc == 0) {
        memcpy(m->results + (size_t)h->item * job->out_bytes, buf + sizeof *h, job->out_bytes);
        cs__par_tick(m->pg, h->item);
    } else if (h->rc < 0) {
        cs_err e;
        memcpy(&e, buf + sizeof *h, sizeof e);
        record(m, h->item, h->rc, &e);
    }
    /* refill at half a chunk, and always before the worker runs out: it keeps one item
     * queued behind the one it runs, so it never waits while rank 0 is inside an item */
    more = !m->failed && m->head <= m->tail &&
           (m->outstanding[w] <= m->last_chunk[w] / 2 || m->outstanding[w] <= 1);
    stop = m->outstanding[w] == 0 && (m->failed || m->head > m->tail);
    if (m->failed && !m->aborts_sent)
        send_aborts(m);
    if (more)
        send_chunk(m, w);
    else if (stop)
        send_stop(w, m->abort_sent[w] ? ITEM_STOP_ABORTED : ITEM_STOP);
    return stop;
}

/* Take every result waiting in rank 0's mailbox; with wait, sleep-poll until one comes.
 * Returns the workers told to stop. */
static int take_results(mgr *m, size_t cap, unsigned char *buf, int wait)
{
    int stopped = 0;
    waiter wt;
    waiter_init(&wt);
    for (;;) {
        MPI_Status st;
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            if (!wait)
                return stopped;
            waiter_pause(&wt);
            continue;
        }
        MPI_Recv(buf, (int)cap, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        stopped += take_result(m, st.MPI_SOURCE, buf);
        wait = 0;                           /* one came: take the others waiting, no more */
    }
}

static void manager(mgr *m, size_t cap, unsigned char *buf)
{
    const cs_par_job *job = m->job;
    int active = 0, w, i;
    m->head = 0;
    m->tail = job->n_items - 1;
    for (i = 0; i < job->n_items; i++)
        m->left_cost += cost_of(job, i);
    for (w = 1; w < m->n_ranks; w++) {
        if (m->head <= m->tail) {
            send_chunk(m, w);
            active++;
        } else {
            send_stop(w, ITEM_STOP);
        }
    }
    /* Rank 0 runs the largest item left while there is one, answering the workers after
     * each; then it only answers, until every worker has been told to stop. */
    while (active > 0 || (!m->failed && m->head <= m->tail)) {
        int local = !m->failed && m->head <= m->tail;
        if (local)
            run_local(m);
        if (m->failed && !m->aborts_sent)
            send_aborts(m);                /* a failure in rank 0's own item */
        if (active > 0)
            active -= take_results(m, cap, buf, !local);
    }
}

/* MPI counts are ints: broadcast in pieces of at most 1 GiB. */
static void bcast_bytes(void *p, size_t n)
{
    unsigned char *c = p;
    while (n > 0) {
        int k = n > (1u << 30) ? 1 << 30 : (int)n;
        MPI_Request r;
        MPI_Ibcast(c, k, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
        wait_req(&r, NULL);
        c += k;
        n -= (size_t)k;
    }
}

int cs__par_map_group(const cs_par_job *job, const int *order, void *results,
                      cs__par_prog *pg, cs_err *err)
{
    /* a message: the head, then the output or a cs_err; a multiple of 16 bytes, so every
     * buffer of a worker's ring starts aligned for the output's doubles */
    size_t cap = (sizeof(res_head) + (job->out_bytes > sizeof(cs_err) ? job->out_bytes
                                                                      : sizeof(cs_err)) + 15) &
                 ~(size_t)15;
    step_end end;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(&end, 0, sizeof end);
    if (rank == 0) {
        mgr m;
        unsigned char *buf = malloc(cap);
        memset(&m, 0, sizeof m);
        m.job = job;
        m.results = results;
        m.pg = pg;
        m.n_ranks = size;
        m.fail_item = 0x7fffffff;   /* no failure yet (<limits.h> is sim/limits.h here) */
        m.outstanding = calloc((size_t)size, sizeof *m.outstanding);
        m.abort_sent = calloc((size_t)size, sizeof *m.abort_sent);
        m.last_chunk = calloc((size_t)size, sizeof *m.last_chunk);
        m.order = order;
        if (!buf || !m.outstanding || !m.abort_sent || !m.last_chunk) {
            /* Cannot manage: the workers cannot be told apart from a hang, so end it. */
            fprintf(stderr, "error: par: out of memory on rank 0\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        manager(&m, cap, buf);
        end = m.end;
        free(buf);
        free(m.outstanding);
        free(m.abort_sent);
        free(m.last_chunk);
    } else {
        worker(job, cap);
    }
    bcast_bytes(&end, sizeof end);
    if (end.rc < 0) {
        if (err)
            *err = end.err;
        return end.rc;
    }
    if (job->to_all)
        bcast_bytes(results, (size_t)job->n_items * job->out_bytes);
    return 0;
}
