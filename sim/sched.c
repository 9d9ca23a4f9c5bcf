/* sched.c: collectives table and schedule building (core layer). */
#include "sim/sched.h"
#include "sim/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The collectives table (contract names, DESIGN §3), in cs_coll order. */
static const struct {
    const char *name;
    const char *summary;
    int rooted;
} colls[CS_COLL_COUNT] = {
    {"allreduce", "every rank ends with the element-wise reduction of all ranks' buffers", 0},
    {"allgather", "every rank ends with every rank's block (S = total output)", 0},
    {"reducescatter", "rank i ends with block i reduced over all ranks (S = total input)", 0},
    {"broadcast", "the root's buffer is copied to every rank", 1},
    {"reduce", "the root ends with the reduction of all ranks' buffers", 1},
    {"gather", "the root ends with every rank's block (S = total)", 1},
    {"scatter", "rank i ends with block i of the root's buffer (S = total)", 1},
    {"alltoall", "rank i sends block j of its buffer to rank j (S = per-rank buffer)", 0},
    {"sendrecv", "ring shift: rank r sends to r+1 and receives from r-1", 0},
    {"barrier", "no rank leaves before every rank has arrived (0 bytes)", 0},
};

const char *cs_coll_name(cs_coll c) { return (unsigned)c < CS_COLL_COUNT ? colls[c].name : "?"; }
const char *cs_coll_summary(cs_coll c) { return (unsigned)c < CS_COLL_COUNT ? colls[c].summary : "?"; }
int cs_coll_is_rooted(cs_coll c) { return (unsigned)c < CS_COLL_COUNT && colls[c].rooted; }

int cs_coll_lookup(const char *name, cs_coll *out, cs_err *err)
{
    char known[256] = "";
    int i;
    for (i = 0; i < CS_COLL_COUNT; i++)
        if (!strcmp(name, colls[i].name)) {
            *out = (cs_coll)i;
            return 0;
        }
    for (i = 0; i < CS_COLL_COUNT; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, colls[i].name, sizeof known - strlen(known) - 1);
    }
    return cs_err_set(err, CS_ENOENT, NULL, "unknown collective '%s' (known: %s)", name, known);
}

double cs_coll_busbw_factor(cs_coll c, int n)
{
    switch (c) {
    case CS_COLL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case CS_COLL_ALLGATHER:
    case CS_COLL_REDUCESCATTER:
    case CS_COLL_ALLTOALL:
    case CS_COLL_GATHER:
    case CS_COLL_SCATTER:
        return (double)(n - 1) / n;
    default:
        return 1.0;
    }
}

int cs_sched_init(cs_sched *s, cs_coll coll, int n_ranks, int root, uint64_t bytes)
{
    memset(s, 0, sizeof *s);
    if (n_ranks < 1 || (unsigned)coll >= CS_COLL_COUNT)
        return CS_EINVAL;
    if (root < 0 || root >= n_ranks)
        return CS_EINVAL;
    s->coll = coll;
    s->n_ranks = n_ranks;
    s->root = root;
    s->bytes = bytes;
    s->algo = "?";
    return 0;
}

/* A streamed schedule's generator and where it stands. */
struct cs_sched_stream {
    cs_sched *self;               /* the schedule it produces into (the one it was set on) */
    const cs_sched_gen_ops *ops;  /* the algorithm's generator */
    void *ctx;                    /* its context (owned) */
    int n_steps;                  /* steps in all */
    int next;                     /* next step to produce */
    int producing;                /* step being produced now, -1 between steps */
};

void cs_sched_fini(cs_sched *s)
{
    if (!s)
        return;
    if (s->stream) {
        if (s->stream->ops->free)
            s->stream->ops->free(s->stream->ctx);
        free(s->stream);
    }
    free(s->chunks);
    free(s->xfers);
    free(s->chunk_ids);
    free(s->deps);
    memset(s, 0, sizeof *s);
}

/* Bytes the schedule's arrays take, with array `which` (pointer to its capacity) counted
 * at capacity ncap instead. */
static uint64_t sched_bytes(const cs_sched *s, const uint32_t *which, uint32_t ncap)
{
    uint64_t b = 0;
    b += (uint64_t)(which == &s->cap_chunks ? ncap : s->cap_chunks) * sizeof *s->chunks;
    b += (uint64_t)(which == &s->cap_xfers ? ncap : s->cap_xfers) * sizeof *s->xfers;
    b += (uint64_t)(which == &s->cap_chunk_ids ? ncap : s->cap_chunk_ids) * sizeof *s->chunk_ids;
    b += (uint64_t)(which == &s->cap_deps ? ncap : s->cap_deps) * sizeof *s->deps;
    return b;
}

/* Grow an array of s to hold at least need elements: CS_ENOMEM, or CS_ELIMIT when the
 * schedule would pass half the memory budget (sim/limits.h; the executor's per-operation
 * state takes about as much again). */
static int grow(cs_sched *s, void **p, uint32_t *cap, uint32_t need, size_t elt)
{
    uint32_t ncap;
    void *np;
    if (need <= *cap)
        return 0;
    ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > UINT32_MAX / 2)
            return CS_ENOMEM;
        ncap *= 2;
    }
    if (sched_bytes(s, cap, ncap) > cs_budget_get() / 2)
        return CS_ELIMIT;
    np = realloc(*p, (size_t)ncap * elt);
    if (!np)
        return CS_ENOMEM;
    *p = np;
    *cap = ncap;
    return 0;
}

int cs_sched_add_aux(cs_sched *s, int node)
{
    if (s->n_aux == CS_SCHED_MAX_AUX || node < 0)
        return CS_EINVAL;
    s->aux_node[s->n_aux] = node;
    return s->n_ranks + s->n_aux++;
}

int64_t cs_sched_chunk(cs_sched *s, uint64_t bytes, int owner, int dest)
{
    int rc;
    if ((rc = grow(s, (void **)&s->chunks, &s->cap_chunks, s->n_chunks + 1, sizeof *s->chunks)))
        return rc;
    if (owner >= s->n_ranks || dest >= s->n_ranks)
        return CS_EINVAL;
    s->chunks[s->n_chunks] = (cs_chunk){bytes, owner, dest};
    return s->n_chunks++;
}

/* Append an operation with its deps; chunks are filled by the caller. */
static int64_t add_op(cs_sched *s, int src, int dst, cs_op op, uint32_t n_chunks,
                      const uint32_t *deps, uint32_t n_deps, int step)
{
    cs_xfer *x;
    uint32_t i, id = s->base + s->n_xfers;
    int rc;
    if (id == UINT32_MAX)
        return CS_ENOMEM;               /* ids are 32-bit */
    if (src < 0 || src >= s->n_ranks + s->n_aux || dst < 0 || dst >= s->n_ranks + s->n_aux)
        return CS_EINVAL;
    if (op == CS_OP_COMPUTE && src >= s->n_ranks)
        return CS_EINVAL;
    if (op != CS_OP_COMPUTE && src == dst)
        return CS_EINVAL;
    for (i = 0; i < n_deps; i++)
        if (deps[i] >= id || deps[i] < s->base)
            return CS_EINVAL;           /* deps point backwards: the DAG is acyclic */
    if (s->stream) {
        /* The generator's contract (sched.h): this step, deps in this step or the one
         * before, no free-standing operation after step 0. */
        if (step != s->stream->producing || (n_deps == 0 && step != 0))
            return CS_EINVAL;
        for (i = 0; i < n_deps; i++)
            if (cs_sched_op(s, deps[i])->step < step - 1)
                return CS_EINVAL;
    }
    if ((rc = grow(s, (void **)&s->xfers, &s->cap_xfers, s->n_xfers + 1, sizeof *s->xfers)) ||
        (rc = grow(s, (void **)&s->deps, &s->cap_deps, s->n_deps + n_deps, sizeof *s->deps)) ||
        (rc = grow(s, (void **)&s->chunk_ids, &s->cap_chunk_ids, s->n_chunk_ids + n_chunks,
                   sizeof *s->chunk_ids)))
        return rc;
    x = &s->xfers[s->n_xfers];
    memset(x, 0, sizeof *x);
    x->src = src;
    x->dst = dst;
    x->op = (uint8_t)op;
    x->step = step;
    x->chunk_off = s->n_chunk_ids;
    x->n_chunks = n_chunks;
    x->dep_off = s->n_deps;
    x->n_deps = n_deps;
    if (n_deps)
        memcpy(s->deps + s->n_deps, deps, n_deps * sizeof *deps);
    s->n_deps += n_deps;
    if (step + 1 > s->n_steps)
        s->n_steps = step + 1;
    s->n_xfers++;
    return id;
}

int64_t cs_sched_xfer(cs_sched *s, int src, int dst, cs_op op,
                      const uint32_t *chunks, uint32_t n_chunks,
                      const uint32_t *deps, uint32_t n_deps, int step)
{
    int64_t id;
    uint32_t i;
    uint64_t bytes = 0;
    if (op == CS_OP_COMPUTE)
        return CS_EINVAL;
    for (i = 0; i < n_chunks; i++) {
        if (chunks[i] >= s->n_chunks)
            return CS_EINVAL;
        bytes += s->chunks[chunks[i]].bytes;
    }
    id = add_op(s, src, dst, op, n_chunks, deps, n_deps, step);
    if (id < 0)
        return id;
    memcpy(s->chunk_ids + s->n_chunk_ids, chunks, n_chunks * sizeof *chunks);
    s->n_chunk_ids += n_chunks;
    s->xfers[id - s->base].bytes = bytes;
    return id;
}

int64_t cs_sched_xfer_range(cs_sched *s, int src, int dst, cs_op op, uint32_t lo, uint32_t n,
                            const uint32_t *deps, uint32_t n_deps, int step)
{
    int64_t id;
    uint32_t i;
    uint64_t bytes = 0;
    if (op == CS_OP_COMPUTE || (uint64_t)lo + n > s->n_chunks)
        return CS_EINVAL;
    for (i = 0; i < n; i++)
        bytes += s->chunks[lo + i].bytes;
    id = add_op(s, src, dst, op, n, deps, n_deps, step);
    if (id < 0)
        return id;
    for (i = 0; i < n; i++)
        s->chunk_ids[s->n_chunk_ids + i] = lo + i;
    s->n_chunk_ids += n;
    s->xfers[id - s->base].bytes = bytes;
    return id;
}

int64_t cs_sched_compute(cs_sched *s, int rank, cs_time dur_ps,
                         const uint32_t *deps, uint32_t n_deps, int step)
{
    int64_t id;
    if (dur_ps < 0)
        return CS_EINVAL;
    id = add_op(s, rank, rank, CS_OP_COMPUTE, 0, deps, n_deps, step);
    if (id >= 0)
        s->xfers[id - s->base].dur_ps = dur_ps;
    return id;
}

int cs_sched_set_gen(cs_sched *s, const cs_sched_gen_ops *ops, void *ctx, int n_steps)
{
    cs_sched_stream *st;
    if (s->n_xfers || s->base || s->stream || n_steps < 1) {
        if (ops->free)
            ops->free(ctx);
        return CS_EINVAL;
    }
    if (!(st = calloc(1, sizeof *st))) {
        if (ops->free)
            ops->free(ctx);
        return CS_ENOMEM;
    }
    *st = (cs_sched_stream){s, ops, ctx, n_steps, 0, -1};
    s->stream = st;
    s->n_steps = n_steps;
    return 0;
}

int cs_sched_next_step(const cs_sched *s) { return s->stream ? s->stream->next : s->n_steps; }

int64_t cs_sched_produce(const cs_sched *s, cs_err *err)
{
    cs_sched_stream *st = s->stream;
    uint32_t before = cs_sched_n_ops(s);
    int rc;
    if (!st || st->next >= st->n_steps)
        return cs_err_set(err, CS_ESTATE, "schedule", "%s: no step left to produce", s->algo);
    st->producing = st->next;
    rc = st->ops->step(st->ctx, st->next);
    st->producing = -1;
    if (rc < 0)
        return cs_err_set(err, rc, "schedule", "%s: producing step %d failed (%s)", s->algo,
                          st->next, cs_err_name(rc));
    if (cs_sched_n_ops(s) == before)
        return cs_err_set(err, CS_ESTATE, "schedule", "%s: step %d has no operations",
                          s->algo, st->next);
    st->next++;
    return (int64_t)(cs_sched_n_ops(s) - before);
}

void cs_sched_drop(const cs_sched *cs, uint32_t below)
{
    cs_sched *s;
    uint32_t k, i, c0, d0;
    if (!cs->stream || below <= cs->base)
        return;
    s = cs->stream->self;
    k = below - s->base;
    if (k > s->n_xfers)
        k = s->n_xfers;
    c0 = k < s->n_xfers ? s->xfers[k].chunk_off : s->n_chunk_ids;
    d0 = k < s->n_xfers ? s->xfers[k].dep_off : s->n_deps;
    if (k)
        memmove(s->xfers, s->xfers + k, (size_t)(s->n_xfers - k) * sizeof *s->xfers);
    if (c0)
        memmove(s->chunk_ids, s->chunk_ids + c0,
                (size_t)(s->n_chunk_ids - c0) * sizeof *s->chunk_ids);
    if (d0)
        memmove(s->deps, s->deps + d0, (size_t)(s->n_deps - d0) * sizeof *s->deps);
    s->n_xfers -= k;
    s->n_chunk_ids -= c0;
    s->n_deps -= d0;
    for (i = 0; i < s->n_xfers; i++) {
        s->xfers[i].chunk_off -= c0;
        s->xfers[i].dep_off -= d0;
    }
    s->base += k;
}

uint64_t cs_sched_total_bytes(const cs_sched *s)
{
    uint64_t sum = 0;
    uint32_t i;
    for (i = 0; i < s->n_xfers; i++)
        if (s->xfers[i].op != CS_OP_COMPUTE)
            sum += s->xfers[i].bytes;
    return sum;
}

int cs_coll_lookup_program(const char *name, cs_coll *out, cs_err *err)
{
    char canon[64];
    size_t i, j = 0;
    const char *suffix = strstr(name, "_perf");
    size_t len = suffix && suffix[5] == '\0' ? (size_t)(suffix - name) : strlen(name);
    for (i = 0; i < len && j + 1 < sizeof canon; i++)
        if (name[i] != '_')
            canon[j++] = name[i];
    canon[j] = '\0';
    return cs_coll_lookup(canon, out, err);
}
