/* pool.c: threads for independent tasks within one process (core layer, pool.h). The
 * threads of a call take the next item with one atomic increment; nothing else is
 * shared between them but what the tasks share read-only. */
#include "sim/pool.h"
#include "sim/size.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* One call's shared state. */
typedef struct pool_call {
    atomic_int next;          /* index in order of the next item to take */
    int n;                    /* items */
    const int *order;         /* items in the order taken (NULL = 0..n-1) */
    cs_pool_fn fn;            /* the task */
    void *ctx;                /* its state */
} pool_call;

/* One thread of a call. */
typedef struct pool_worker {
    pool_call *call;          /* the call (shared) */
    int index;                /* worker number, 0 = the caller */
    long ran;                 /* items it ran */
} pool_worker;

static void *work(void *arg)
{
    pool_worker *w = arg;
    pool_call *c = w->call;
    int k;
    while ((k = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed)) < c->n) {
        c->fn(c->ctx, w->index, c->order ? c->order[k] : k);
        w->ran++;
    }
    return NULL;
}

int cs_pool_run(int threads, int n, const int *order, cs_pool_fn fn, void *ctx,
                long *per_worker)
{
    pool_worker w[CS_POOL_MAX_THREADS];
    pthread_t tid[CS_POOL_MAX_THREADS];
    int started[CS_POOL_MAX_THREADS];
    pool_call call;
    int i, ran = 1;
    if (threads > CS_POOL_MAX_THREADS)
        threads = CS_POOL_MAX_THREADS;
    if (threads > n)
        threads = n;
    if (threads < 1)
        threads = 1;
    atomic_init(&call.next, 0);
    call.n = n;
    call.order = order;
    call.fn = fn;
    call.ctx = ctx;
    for (i = 0; i < threads; i++) {
        w[i].call = &call;
        w[i].index = i;
        w[i].ran = 0;
        started[i] = 0;
    }
    /* pthread_create and pthread_join order the memory: what the caller wrote before is
     * seen by the threads, and what they wrote is seen by the caller after the join. */
    for (i = 1; i < threads; i++)
        if (pthread_create(&tid[i], NULL, work, &w[i]) == 0) {
            started[i] = 1;
            ran++;
        }
    work(&w[0]);
    for (i = 1; i < threads; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    if (per_worker)
        for (i = 0; i < threads; i++)
            per_worker[i] += w[i].ran;
    return ran;
}

/* A positive whole number from the environment variable name, else 0. */
static long env_count(const char *name)
{
    const char *e = getenv(name);
    char *end;
    long v;
    if (!e || !*e)
        return 0;
    v = strtol(e, &end, 10);
    return *end || v < 1 ? 0 : v;
}

int cs_pool_default_threads(void)
{
    long n = env_count("COLLSIM_THREADS"), local;
    if (n < 1) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
        /* processes of an MPI run on this node share its CPUs */
        if ((local = env_count("OMPI_COMM_WORLD_LOCAL_SIZE")) < 1)
            local = env_count("MPI_LOCALNRANKS");
        if (local > 1)
            n = n / local > 1 ? n / local : 1;
    }
    return n > CS_POOL_MAX_THREADS ? CS_POOL_MAX_THREADS : (int)n;
}

int cs_pool_parse_threads(const char *v, const char *opt, int *out, cs_err *err)
{
    long n;
    int rc = cs_parse_int(v, opt, 1, CS_POOL_MAX_THREADS, &n, err);
    if (rc == 0)
        *out = (int)n;
    return rc;
}
