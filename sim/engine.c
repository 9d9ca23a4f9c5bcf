/* engine.c: binary min-heap event queue with (time, sequence) order, generation-checked
 * event ids and lazy cancellation (core layer). */
#include "sim/engine.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One heap entry. The callback lives in the slot, the heap holds only ordering keys. */
typedef struct heap_ent {
    cs_time t_ps;      /* when the event fires, ps */
    uint64_t seq;      /* scheduling order, breaks time ties */
    uint32_t slot;     /* index into slots[] */
} heap_ent;

/* A slot holds one pending event's callback; freed slots form a free list. */
typedef struct slot {
    cs_event_fn fn;    /* NULL when the event was cancelled or the slot is free */
    void *arg;         /* callback argument */
    uint64_t data;     /* callback integer argument */
    uint32_t gen;      /* generation, bumped whenever the slot is released */
    uint32_t next_free;/* next free slot when on the free list */
} slot;

struct cs_engine {
    cs_time now_ps;        /* current time, ps */
    uint64_t seq;          /* next sequence number */
    heap_ent *heap;        /* min-heap on (t_ps, seq) */
    uint32_t n_heap, cap_heap;
    slot *slots;           /* event slots */
    uint32_t n_slots, cap_slots;
    uint32_t free_head;    /* first free slot, UINT32_MAX if none */
    uint64_t n_executed;   /* events run */
    uint64_t n_live;       /* pending, not cancelled */
    uint64_t n_dead;       /* cancelled entries still in the heap */
    int failed;            /* a callback called cs_engine_fail */
    cs_err fail;           /* that failure */
};

#define NO_SLOT UINT32_MAX

int cs_engine_new(cs_engine **out)
{
    cs_engine *e = calloc(1, sizeof *e);
    if (!e)
        return CS_ENOMEM;
    e->free_head = NO_SLOT;
    *out = e;
    return 0;
}

void cs_engine_free(cs_engine *eng)
{
    if (!eng)
        return;
    free(eng->heap);
    free(eng->slots);
    free(eng);
}

cs_time cs_engine_now(const cs_engine *eng) { return eng->now_ps; }
uint64_t cs_engine_n_executed(const cs_engine *eng) { return eng->n_executed; }
uint64_t cs_engine_n_pending(const cs_engine *eng) { return eng->n_live; }

static inline int ent_less(const heap_ent *a, const heap_ent *b)
{
    return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->seq < b->seq);
}

static void sift_up(heap_ent *h, uint32_t i)
{
    heap_ent x = h[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!ent_less(&x, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static void sift_down(heap_ent *h, uint32_t n, uint32_t i)
{
    heap_ent x = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ent_less(&h[c + 1], &h[c]))
            c++;
        if (!ent_less(&h[c], &x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static void fail_nomem(cs_engine *eng)
{
    if (!eng->failed) {
        eng->failed = 1;
        cs_err_set(&eng->fail, CS_ENOMEM, "engine", "out of memory scheduling an event");
    }
}

cs_event_id cs_engine_at(cs_engine *eng, cs_time t_ps, cs_event_fn fn, void *arg, uint64_t data)
{
    uint32_t s;
    if (t_ps < eng->now_ps)
        t_ps = eng->now_ps;     /* never schedule into the past */
    if (eng->free_head != NO_SLOT) {
        s = eng->free_head;
        eng->free_head = eng->slots[s].next_free;
    } else {
        if (eng->n_slots == eng->cap_slots) {
            uint32_t cap = eng->cap_slots ? eng->cap_slots * 2 : 256;
            slot *ns = realloc(eng->slots, (size_t)cap * sizeof *ns);
            if (!ns) {
                fail_nomem(eng);
                return 0;
            }
            eng->slots = ns;
            eng->cap_slots = cap;
        }
        s = eng->n_slots++;
        eng->slots[s].gen = 1;
    }
    if (eng->n_heap == eng->cap_heap) {
        uint32_t cap = eng->cap_heap ? eng->cap_heap * 2 : 256;
        heap_ent *nh = realloc(eng->heap, (size_t)cap * sizeof *nh);
        if (!nh) {
            eng->slots[s].next_free = eng->free_head;
            eng->free_head = s;
            fail_nomem(eng);
            return 0;
        }
        eng->heap = nh;
        eng->cap_heap = cap;
    }
    eng->slots[s].fn = fn;
    eng->slots[s].arg = arg;
    eng->slots[s].data = data;
    eng->heap[eng->n_heap] = (heap_ent){t_ps, eng->seq++, s};
    sift_up(eng->heap, eng->n_heap++);
    eng->n_live++;
    return ((uint64_t)eng->slots[s].gen << 32) | s;
}

cs_event_id cs_engine_after(cs_engine *eng, cs_time dt_ps, cs_event_fn fn, void *arg, uint64_t data)
{
    return cs_engine_at(eng, eng->now_ps + dt_ps, fn, arg, data);
}

static void release_slot(cs_engine *eng, uint32_t s);

/* Remove cancelled entries from the heap and restore the heap order (Floyd, O(n)). */
static void compact(cs_engine *eng)
{
    uint32_t i, n = 0;
    for (i = 0; i < eng->n_heap; i++) {
        if (eng->slots[eng->heap[i].slot].fn)
            eng->heap[n++] = eng->heap[i];
        else
            release_slot(eng, eng->heap[i].slot);
    }
    eng->n_heap = n;
    eng->n_dead = 0;
    for (i = n / 2; i-- > 0;)
        sift_down(eng->heap, n, i);
}

int cs_engine_cancel(cs_engine *eng, cs_event_id id)
{
    uint32_t s = (uint32_t)id, gen = (uint32_t)(id >> 32);
    if (id == 0 || s >= eng->n_slots || eng->slots[s].gen != gen || !eng->slots[s].fn)
        return CS_ENOENT;
    /* The heap entry stays; it is skipped and its slot released when it surfaces. Bumping
     * the generation now makes the handle stale at once. */
    eng->slots[s].fn = NULL;
    eng->slots[s].gen++;
    eng->n_live--;
    /* A fluid network reschedules many flows' ends at every share change: drop the dead
     * entries once they outnumber the live ones, so the heap stays O(live). */
    if (++eng->n_dead > 4096 && eng->n_dead > eng->n_live)
        compact(eng);
    return 0;
}

static void release_slot(cs_engine *eng, uint32_t s)
{
    eng->slots[s].fn = NULL;
    eng->slots[s].next_free = eng->free_head;
    eng->free_head = s;
}

int cs_engine_run(cs_engine *eng, cs_time until_ps, cs_err *err)
{
    while (eng->n_heap > 0 && !eng->failed) {
        heap_ent top = eng->heap[0];
        slot *sl;
        cs_event_fn fn;
        if (top.t_ps > until_ps)
            break;
        eng->heap[0] = eng->heap[--eng->n_heap];
        if (eng->n_heap)
            sift_down(eng->heap, eng->n_heap, 0);
        sl = &eng->slots[top.slot];
        fn = sl->fn;
        if (!fn) {                 /* cancelled: its generation was bumped by cancel */
            release_slot(eng, top.slot);
            eng->n_dead--;
            continue;
        }
        eng->now_ps = top.t_ps;
        {
            void *arg = sl->arg;
            uint64_t data = sl->data;
            sl->gen++;             /* the handle goes stale before the callback runs */
            release_slot(eng, top.slot);
            eng->n_live--;
            eng->n_executed++;
            fn(eng, arg, data);
        }
    }
    if (eng->failed) {
        if (err)
            *err = eng->fail;
        return eng->fail.code;
    }
    return 0;
}

void cs_engine_fail(cs_engine *eng, int code, const char *where, const char *fmt, ...)
{
    va_list ap;
    if (eng->failed)
        return;
    eng->failed = 1;
    va_start(ap, fmt);
    cs_err_vset(&eng->fail, code, where, fmt, ap);
    va_end(ap);
}
