/* check.c: the symbolic data check behind #wrong (core layer). Contribution sets are
 * bitsets of W = ceil(p/64) words per (rank, chunk). A copy replaces the receiver's set
 * with the sender's; a reduce unions them, and an overlap means a contribution was counted
 * twice. Sending a chunk one does not hold, or double counting, marks the receiver bad. */
#include "sim/check-private.h"

#include <stdlib.h>
#include <string.h>

struct cs_check {
    const cs_sched *s;     /* the schedule (borrowed) */
    int p;                 /* ranks */
    int n_holders;         /* ranks plus auxiliary endpoints (rows of bits) */
    uint32_t n_chunks;     /* chunks */
    int w;                 /* words per set */
    uint64_t *bits;        /* sets: ((rank * n_chunks) + chunk) * w */
    uint8_t *bad;          /* per rank: received garbage or double counted */
};

static uint64_t *set_of(const cs_check *c, int rank, uint32_t chunk)
{
    return c->bits + ((size_t)rank * c->n_chunks + chunk) * (size_t)c->w;
}

static void set_add(uint64_t *set, int r) { set[r >> 6] |= 1ull << (r & 63); }

uint64_t cs__check_state_bytes(const cs_sched *s)
{
    uint64_t w = ((uint64_t)s->n_ranks + 63) / 64;
    return (uint64_t)(s->n_ranks + s->n_aux) * s->n_chunks * w * 8 + (uint64_t)s->n_ranks;
}

/* Which initial state a collective starts from. */
enum { INIT_ALL_OWN, INIT_ROOT_ALL, INIT_OWNER };

static int init_kind(cs_coll c)
{
    switch (c) {
    case CS_COLL_ALLREDUCE:
    case CS_COLL_REDUCE:
    case CS_COLL_REDUCESCATTER:
        return INIT_ALL_OWN;
    case CS_COLL_BROADCAST:
    case CS_COLL_SCATTER:
        return INIT_ROOT_ALL;
    default:
        return INIT_OWNER;
    }
}

int cs__check_new(cs_check **out, const cs_sched *s)
{
    cs_check *c = calloc(1, sizeof *c);
    uint32_t k;
    int r;
    if (!c)
        return CS_ENOMEM;
    c->s = s;
    c->p = s->n_ranks;
    c->n_chunks = s->n_chunks;
    c->n_holders = s->n_ranks + s->n_aux;
    c->w = (s->n_ranks + 63) / 64;
    c->bits = calloc((size_t)c->n_holders * c->n_chunks * (size_t)c->w + 1, sizeof *c->bits);
    c->bad = calloc((size_t)c->n_holders, 1);
    if (!c->bits || !c->bad) {
        cs__check_free(c);
        return CS_ENOMEM;
    }
    for (k = 0; k < c->n_chunks; k++) {
        int owner = s->chunks[k].owner;
        switch (init_kind(s->coll)) {
        case INIT_ALL_OWN:
            for (r = 0; r < c->p; r++)
                set_add(set_of(c, r, k), r);
            break;
        case INIT_ROOT_ALL:
            set_add(set_of(c, s->root, k), s->root);
            break;
        default:
            if (owner >= 0)
                set_add(set_of(c, owner, k), owner);
            break;
        }
    }
    *out = c;
    return 0;
}

void cs__check_free(cs_check *c)
{
    if (!c)
        return;
    free(c->bits);
    free(c->bad);
    free(c);
}

uint64_t *cs__check_snapshot(const cs_check *c, uint32_t i)
{
    const cs_xfer *x = &c->s->xfers[i];
    const uint32_t *ids = cs_sched_chunks(c->s, i);
    uint64_t *snap = malloc(((size_t)x->n_chunks * (size_t)c->w + 1) * sizeof *snap);
    uint32_t k;
    if (!snap)
        return NULL;
    for (k = 0; k < x->n_chunks; k++)
        memcpy(snap + (size_t)k * c->w, set_of(c, x->src, ids[k]), (size_t)c->w * 8);
    return snap;
}

void cs__check_apply(cs_check *c, uint32_t i, uint64_t *snap)
{
    const cs_xfer *x = &c->s->xfers[i];
    const uint32_t *ids = cs_sched_chunks(c->s, i);
    uint32_t k;
    int j;
    for (k = 0; k < x->n_chunks; k++) {
        const uint64_t *from = snap + (size_t)k * c->w;
        uint64_t *to = set_of(c, x->dst, ids[k]), any = 0, overlap = 0;
        for (j = 0; j < c->w; j++) {
            any |= from[j];
            overlap |= from[j] & to[j];
        }
        if (!any)
            c->bad[x->dst] = 1;            /* sent data it never had */
        if (x->op == CS_OP_REDUCE) {
            if (overlap)
                c->bad[x->dst] = 1;        /* a contribution counted twice */
            for (j = 0; j < c->w; j++)
                to[j] |= from[j];
        } else {
            memcpy(to, from, (size_t)c->w * 8);
        }
    }
    free(snap);
}

/* Is set exactly {r} (r >= 0) or every rank (r < 0)? */
static int set_is(const cs_check *c, const uint64_t *set, int r)
{
    int j;
    for (j = 0; j < c->w; j++) {
        uint64_t want;
        if (r >= 0) {
            want = (r >> 6) == j ? 1ull << (r & 63) : 0;
        } else {
            int lo = j * 64, n = c->p - lo;
            want = n >= 64 ? ~0ull : (1ull << n) - 1;
        }
        if (set[j] != want)
            return 0;
    }
    return 1;
}

/* Does rank r hold what the postcondition wants for chunk k? */
static int rank_ok(const cs_check *c, int r, uint32_t k)
{
    const cs_sched *s = c->s;
    const uint64_t *set = set_of(c, r, k);
    int owner = s->chunks[k].owner, dest = s->chunks[k].dest;
    switch (s->coll) {
    case CS_COLL_ALLREDUCE:
        return set_is(c, set, -1);
    case CS_COLL_REDUCE:
        return r != s->root || set_is(c, set, -1);
    case CS_COLL_REDUCESCATTER:
        return r != owner || set_is(c, set, -1);
    case CS_COLL_BROADCAST:
        return set_is(c, set, s->root);
    case CS_COLL_SCATTER:
        return r != owner || set_is(c, set, s->root);
    case CS_COLL_ALLGATHER:
    case CS_COLL_BARRIER:
        return owner < 0 || set_is(c, set, owner);
    case CS_COLL_GATHER:
        return r != s->root || owner < 0 || set_is(c, set, owner);
    case CS_COLL_ALLTOALL:
    case CS_COLL_SENDRECV:
        return r != dest || owner < 0 || set_is(c, set, owner);
    default:
        return 0;
    }
}

int cs__check_wrong(const cs_check *c)
{
    int r, wrong = 0;
    uint32_t k;
    for (r = 0; r < c->p; r++) {
        int ok = !c->bad[r];
        for (k = 0; ok && k < c->n_chunks; k++)
            ok = rank_ok(c, r, k);
        wrong += !ok;
    }
    return wrong;
}
