/* par_mpi.c: the MPI transport of sim/par.h (core layer, par-private.h), the only file
 * that includes mpi.h. Rank 0 manages: it sends every other rank two items (one to run,
 * one queued in its mailbox), sends the next largest item for each result that comes
 * back, and runs the cheapest items left itself between two looks at its mailbox. A
 * failure stops the hand-out and asks the workers to skip what they hold queued; at the
 * end rank 0 broadcasts the outcome (and, for to_all jobs, the results) to every rank. */
#include "sim/par-private.h"

#include <limits.h>
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
#define QUEUE_DEPTH 2            /* items a worker holds: one running, one queued */

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
 * 10 us doubling up to 500 us. */
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
    if (w->sleep_us == 0) {
        if (MPI_Wtime() - w->t0_s < 100e-6)
            return;
        w->sleep_us = 10;
    }
    tv.tv_sec = 0;
    tv.tv_usec = w->sleep_us;
    select(0, NULL, NULL, NULL, &tv);
    if (w->sleep_us < 500)
        w->sleep_us *= 2;
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

static void send_item(int w, int item)
{
    MPI_Send(&item, 1, MPI_INT, w, TAG_ITEM, MPI_COMM_WORLD);
}

/* A worker: run the items rank 0 sends until it says stop; each result goes back with a
 * non-blocking send from one of two buffers, so the next item starts at once. */
static void worker(const cs_par_job *job, size_t cap)
{
    unsigned char *buf[2];
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int k = 0, aborted = 0, item, flag, dummy;
    buf[0] = malloc(cap);
    buf[1] = malloc(cap);
    for (;;) {
        res_head *h;
        size_t len = sizeof *h;
        recv_int(&item, 0, TAG_ITEM);
        if (item < 0) {
            if (item == ITEM_STOP_ABORTED)
                recv_int(&dummy, 0, TAG_ABORT);
            break;
        }
        if (!aborted) {
            MPI_Iprobe(0, TAG_ABORT, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            aborted = flag;
        }
        wait_req(&req[k], NULL);
        h = (res_head *)buf[k];
        h->item = item;
        if (!buf[0] || !buf[1]) {
            cs_err e;
            h->rc = cs_err_set(&e, CS_ENOMEM, NULL, "out of memory");
            memcpy(buf[k] + sizeof *h, &e, sizeof e);
            len += sizeof e;
        } else if (aborted) {
            h->rc = RC_SKIPPED;
        } else {
            cs_err e;
            cs_err_clear(&e);
            h->rc = cs__par_run_item(job, item, buf[k] + sizeof *h, &e);
            if (h->rc < 0) {
                if (!e.code)
                    e.code = h->rc;
                memcpy(buf[k] + sizeof *h, &e, sizeof e);
                len += sizeof e;
            } else {
                h->rc = 0;
                len += job->out_bytes;
            }
        }
        MPI_Isend(buf[k], (int)len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &req[k]);
        k ^= 1;
    }
    wait_req(&req[0], NULL);
    wait_req(&req[1], NULL);
    free(buf[0]);
    free(buf[1]);
}

/* Rank 0's bookkeeping of a step. */
typedef struct mgr {
    const cs_par_job *job;
    unsigned char *results;
    cs__par_prog *pg;
    int *outstanding;            /* items sent to each rank and not yet answered */
    int *abort_sent;             /* an abort message went to that rank */
    int n_ranks;
    int failed;                  /* an item failed: hand out nothing more */
    step_end end;                /* the failure with the lowest item index */
    int fail_item;
} mgr;

static void record(mgr *m, int item, int rc, const cs_err *e)
{
    int w;
    if (rc >= 0)
        return;
    if (item < m->fail_item) {
        m->fail_item = item;
        m->end.rc = rc;
        m->end.err = *e;
    }
    if (m->failed)
        return;
    m->failed = 1;
    for (w = 1; w < m->n_ranks; w++)
        if (m->outstanding[w] > 0) {
            int one = 1;
            MPI_Send(&one, 1, MPI_INT, w, TAG_ABORT, MPI_COMM_WORLD);
            m->abort_sent[w] = 1;
        }
}

static void manager(mgr *m, const int *order, size_t cap, unsigned char *buf)
{
    const cs_par_job *job = m->job;
    int head = 0, tail = job->n_items - 1, active = 0, w, d;
    for (d = 0; d < QUEUE_DEPTH; d++)
        for (w = 1; w < m->n_ranks; w++)
            if (head <= tail) {
                send_item(w, order[head++]);
                m->outstanding[w]++;
            }
    for (w = 1; w < m->n_ranks; w++) {
        if (m->outstanding[w] == 0)
            send_item(w, ITEM_STOP);
        else
            active++;
    }
    while (active > 0 || (!m->failed && head <= tail)) {
        MPI_Status st;
        int flag = 0;
        if (active > 0) {
            waiter wt;
            waiter_init(&wt);
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
            while (!flag && (m->failed || head > tail)) {   /* nothing to run here */
                waiter_pause(&wt);
                MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
            }
        }
        if (flag) {
            const res_head *h = (const res_head *)buf;
            w = st.MPI_SOURCE;
            MPI_Recv(buf, (int)cap, MPI_BYTE, w, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            m->outstanding[w]--;
            if (h->rc == 0) {
                memcpy(m->results + (size_t)h->item * job->out_bytes, buf + sizeof *h,
                       job->out_bytes);
                cs__par_tick(m->pg, h->item);
            } else if (h->rc < 0) {
                cs_err e;
                memcpy(&e, buf + sizeof *h, sizeof e);
                record(m, h->item, h->rc, &e);
            }
            if (!m->failed && head <= tail) {
                send_item(w, order[head++]);
                m->outstanding[w]++;
            } else if (m->outstanding[w] == 0) {
                send_item(w, m->abort_sent[w] ? ITEM_STOP_ABORTED : ITEM_STOP);
                active--;
            }
            continue;                /* answer every waiting worker before working */
        }
        {
            int i = order[tail--], rc;
            cs_err e;
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
    size_t cap = sizeof(res_head) + (job->out_bytes > sizeof(cs_err) ? job->out_bytes
                                                                     : sizeof(cs_err));
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
        m.fail_item = INT_MAX;
        m.outstanding = calloc((size_t)size, sizeof *m.outstanding);
        m.abort_sent = calloc((size_t)size, sizeof *m.abort_sent);
        if (!buf || !m.outstanding || !m.abort_sent) {
            /* Cannot manage: the workers cannot be told apart from a hang, so end it. */
            fprintf(stderr, "error: par: out of memory on rank 0\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        manager(&m, order, cap, buf);
        end = m.end;
        free(buf);
        free(m.outstanding);
        free(m.abort_sent);
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
