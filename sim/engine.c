/* engine.c: 4-ary min-heap event queue with (time, sequence) order packed in one 128-bit
 * key, generation-checked event ids and lazy cancellation (core layer). Events scheduled
 * in key order (a ring step's hundreds of flows starting, then ending, at one time) skip
 * the heap: they queue in a sorted FIFO beside it, and the earlier of the two heads runs
 * next, so the order is the one heap's. */
#include "sim/engine.h"
#include "sim/engine-private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One heap entry, 16 bytes: an unsigned 128-bit key, the fire time (ps, >= 0) in the high
 * 64 bits over the sequence number (high SEQ_BITS of the low word) and the slot index (low
 * SLOT_BITS). One integer compare orders entries by (time, sequence); the slot bits never
 * decide, sequence numbers being unique. */
__extension__ typedef unsigned __int128 heap_ent;

#define SLOT_BITS 28
#define SEQ_BITS (64 - SLOT_BITS)
#define SLOT_MASK ((1ull << SLOT_BITS) - 1)
/* Heap arity: the 4 children of i are 4i+1 .. 4i+4, one 64-byte cache line (see heap_alloc):
 * half the levels of a binary heap, and the children compared in one line. */
#define ARITY 4

static inline heap_ent ent_make(cs_time t_ps, uint64_t seq, uint32_t slot)
{
    return ((heap_ent)(uint64_t)t_ps << 64) | (seq << SLOT_BITS) | slot;
}
static inline cs_time ent_time(heap_ent e) { return (cs_time)(uint64_t)(e >> 64); }
static inline uint32_t ent_slot(heap_ent e) { return (uint32_t)((uint64_t)e & SLOT_MASK); }

/* A slot holds one pending event's callback; freed slots form a free list. */
typedef struct slot {
    cs_event_fn fn;    /* NULL when the event was cancelled or the slot is free */
    void *arg;         /* callback argument */
    uint64_t data;     /* callback integer argument */
    uint32_t gen;      /* generation, bumped whenever the slot is released */
    uint32_t next_free;/* next free slot when on the free list */
    uint32_t pos;      /* index of its entry in the heap, NO_POS when in the FIFO */
} slot;

struct cs_engine {
    cs_time now_ps;        /* current time, ps */
    uint64_t seq;          /* next sequence number (< seq_limit) */
    uint64_t seq_limit;    /* sequence numbers are renumbered on reaching it (2^SEQ_BITS) */
    heap_ent *heap;        /* 4-ary min-heap on the key (time, seq); inside heap_mem */
    void *heap_mem;        /* its allocation */
    uint32_t n_heap, cap_heap;
    heap_ent *fifo;        /* entries scheduled in key order: a ring buffer sorted by key */
    uint32_t fifo_head, n_fifo, cap_fifo;  /* first entry, entries, capacity (power of 2) */
    slot *slots;           /* event slots */
    uint32_t n_slots, cap_slots;
    uint32_t free_head;    /* first free slot, UINT32_MAX if none */
    uint64_t n_executed;   /* events run */
    uint64_t n_live;       /* pending, not cancelled */
    uint64_t n_dead;       /* cancelled entries still in the heap */
    int batch;             /* in a batch whose moves leave the heap order to its end */
    int batch_dirty;       /* a move in the batch rewrote a heap entry's key */
    uint64_t n_heapified;  /* batches that restored the heap at their end */
    uint64_t n_batch_moves;/* moves made in such batches */
    int failed;            /* a callback called cs_engine_fail */
    cs_err fail;           /* that failure */
};

#define NO_SLOT UINT32_MAX
#define NO_POS UINT32_MAX

int cs_engine_new(cs_engine **out)
{
    cs_engine *e = calloc(1, sizeof *e);
    if (!e)
        return CS_ENOMEM;
    e->free_head = NO_SLOT;
    e->seq_limit = 1ull << SEQ_BITS;
    *out = e;
    return 0;
}

void cs_engine_free(cs_engine *eng)
{
    if (!eng)
        return;
    free(eng->heap_mem);
    free(eng->fifo);
    free(eng->slots);
    free(eng);
}

/* The i-th entry of the FIFO. */
static inline heap_ent *fifo_at(const cs_engine *eng, uint32_t i)
{
    return &eng->fifo[(eng->fifo_head + i) & (eng->cap_fifo - 1)];
}

/* Double the FIFO's capacity (entries keep their order, from index 0). */
static int fifo_grow(cs_engine *eng)
{
    uint32_t cap = eng->cap_fifo ? eng->cap_fifo * 2 : 256, i;
    heap_ent *nf;
    if (eng->cap_fifo > UINT32_MAX / 4 || !(nf = malloc((size_t)cap * sizeof *nf)))
        return CS_ENOMEM;
    for (i = 0; i < eng->n_fifo; i++)
        nf[i] = *fifo_at(eng, i);
    free(eng->fifo);
    eng->fifo = nf;
    eng->fifo_head = 0;
    eng->cap_fifo = cap;
    return 0;
}

void cs__engine_set_seq_limit(cs_engine *eng, uint64_t limit)
{
    eng->seq_limit = limit >= 1 && limit <= (1ull << SEQ_BITS) ? limit : 1ull << SEQ_BITS;
}

cs_time cs_engine_now(const cs_engine *eng) { return eng->now_ps; }
uint64_t cs_engine_n_executed(const cs_engine *eng) { return eng->n_executed; }
uint64_t cs_engine_n_pending(const cs_engine *eng) { return eng->n_live; }

/* Grow the heap to cap entries, placed so that entry 1 (and so every group of siblings
 * 4i+1 .. 4i+4) starts a 64-byte line. Returns 0 or CS_ENOMEM. */
static int heap_alloc(cs_engine *eng, uint32_t cap)
{
    char *mem = malloc((size_t)cap * sizeof(heap_ent) + 128), *base;
    if (!mem)
        return CS_ENOMEM;
    base = mem + (64 - (uintptr_t)mem % 64) % 64 + 64 - sizeof(heap_ent);
    if (eng->n_heap)
        memcpy(base, eng->heap, (size_t)eng->n_heap * sizeof(heap_ent));
    free(eng->heap_mem);
    eng->heap_mem = mem;
    eng->heap = (heap_ent *)(void *)base;
    eng->cap_heap = cap;
    return 0;
}

/* Sifts keep every entry's slot told where the entry is (slot.pos), for cs_engine_move. */
static void sift_up(cs_engine *eng, uint32_t i)
{
    heap_ent *h = eng->heap, x = h[i];
    while (i > 0) {
        uint32_t p = (i - 1) / ARITY;
        if (!(x < h[p]))
            break;
        h[i] = h[p];
        eng->slots[ent_slot(h[i])].pos = i;
        i = p;
    }
    h[i] = x;
    eng->slots[ent_slot(x)].pos = i;
}

static void sift_down(cs_engine *eng, uint32_t n, uint32_t i)
{
    heap_ent *h = eng->heap, x = h[i];
    for (;;) {
        uint32_t c = ARITY * i + 1, m = c, k;
        if (c >= n)
            break;
        if (c + ARITY <= n) {
            /* A full group: the smallest of four without data-dependent branches. */
            uint32_t m01 = h[c + 1] < h[c] ? c + 1 : c;
            uint32_t m23 = h[c + 3] < h[c + 2] ? c + 3 : c + 2;
            m = h[m23] < h[m01] ? m23 : m01;
        } else {
            for (k = c + 1; k < n; k++)
                if (h[k] < h[m])
                    m = k;
        }
        if (!(h[m] < x))
            break;
        h[i] = h[m];
        eng->slots[ent_slot(h[i])].pos = i;
        i = m;
    }
    h[i] = x;
    eng->slots[ent_slot(x)].pos = i;
}

static int ent_cmp(const void *a, const void *b)
{
    heap_ent x = *(const heap_ent *)a, y = *(const heap_ent *)b;
    return x < y ? -1 : x > y;
}

/* Sequence numbers ran out (2^SEQ_BITS events scheduled): number the pending entries
 * afresh 0, 1, ... in their (time, sequence) order. Order is kept, so a sorted array is
 * still the heap, and later events get larger numbers again. The FIFO's entries join the
 * heap (which has room: cs_engine_at grows it first). */
static void renumber(cs_engine *eng)
{
    uint32_t i;
    for (i = 0; i < eng->n_fifo; i++)
        eng->heap[eng->n_heap++] = *fifo_at(eng, i);
    eng->n_fifo = 0;
    qsort(eng->heap, eng->n_heap, sizeof *eng->heap, ent_cmp);
    for (i = 0; i < eng->n_heap; i++) {
        eng->heap[i] = ent_make(ent_time(eng->heap[i]), i, ent_slot(eng->heap[i]));
        eng->slots[ent_slot(eng->heap[i])].pos = i;
    }
    eng->seq = eng->n_heap;
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
            slot *ns = eng->n_slots >= SLOT_MASK ? NULL    /* 2^28 events pending */
                     : realloc(eng->slots, (size_t)cap * sizeof *ns);
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
    /* Room for one more in the heap, or for every pending entry when renumbering. */
    if ((eng->n_heap == eng->cap_heap || (eng->seq >= eng->seq_limit &&
                                          eng->n_heap + eng->n_fifo >= eng->cap_heap)) &&
        heap_alloc(eng, eng->cap_heap ? eng->cap_heap * 2 : 256) < 0) {
        eng->slots[s].next_free = eng->free_head;
        eng->free_head = s;
        fail_nomem(eng);
        return 0;
    }
    if (eng->seq >= eng->seq_limit) {
        while (eng->n_heap + eng->n_fifo >= eng->cap_heap)
            if (heap_alloc(eng, eng->cap_heap * 2) < 0) {
                eng->slots[s].next_free = eng->free_head;
                eng->free_head = s;
                fail_nomem(eng);
                return 0;
            }
        renumber(eng);
    }
    eng->slots[s].fn = fn;
    eng->slots[s].arg = arg;
    eng->slots[s].data = data;
    {
        heap_ent e = ent_make(t_ps, eng->seq++, s);
        /* After everything in the FIFO: append there, else into the heap. */
        if ((eng->n_fifo == 0 || *fifo_at(eng, eng->n_fifo - 1) < e) &&
            (eng->n_fifo < eng->cap_fifo || fifo_grow(eng) == 0)) {
            *fifo_at(eng, eng->n_fifo++) = e;
            eng->slots[s].pos = NO_POS;
        } else {
            eng->heap[eng->n_heap] = e;
            sift_up(eng, eng->n_heap++);
        }
    }
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
    for (i = 0; i < eng->n_fifo; i++) {       /* the FIFO keeps its order */
        heap_ent e = *fifo_at(eng, i);
        if (eng->slots[ent_slot(e)].fn)
            *fifo_at(eng, n++) = e;
        else
            release_slot(eng, ent_slot(e));
    }
    eng->n_fifo = n;
    n = 0;
    for (i = 0; i < eng->n_heap; i++) {
        if (eng->slots[ent_slot(eng->heap[i])].fn)
            eng->heap[n++] = eng->heap[i];
        else
            release_slot(eng, ent_slot(eng->heap[i]));
    }
    eng->n_heap = n;
    eng->n_dead = 0;
    for (i = 0; i < n; i++)
        eng->slots[ent_slot(eng->heap[i])].pos = i;
    for (i = n / 2; i-- > 0;)
        sift_down(eng, n, i);
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
     * entries once they outnumber the live ones, so the heap stays O(live) -- also for a
     * few hundred live events, where dead ones popped one by one cost a sift each (a
     * 16-rank tree's pipelined pieces: 1.1 million cancels for 150,000 events). The
     * compaction is O(heap) once per (live + 64) cancels. */
    if (++eng->n_dead > 64 && eng->n_dead > eng->n_live)
        compact(eng);
    return 0;
}

cs_event_id cs_engine_move(cs_engine *eng, cs_event_id id, cs_time t_ps)
{
    uint32_t s = (uint32_t)id, gen = (uint32_t)(id >> 32), at;
    slot *sl;
    heap_ent old, e;
    if (id == 0 || s >= eng->n_slots || eng->slots[s].gen != gen || !eng->slots[s].fn)
        return 0;
    sl = &eng->slots[s];
    if (sl->pos == NO_POS || eng->seq >= eng->seq_limit) {
        /* In the FIFO (or numbers to renumber first): as cancel, then schedule. */
        cs_event_fn fn = sl->fn;
        void *arg = sl->arg;
        uint64_t data = sl->data;
        cs_engine_cancel(eng, id);
        return cs_engine_at(eng, t_ps, fn, arg, data);
    }
    if (t_ps < eng->now_ps)
        t_ps = eng->now_ps;
    at = sl->pos;
    old = eng->heap[at];
    e = ent_make(t_ps, eng->seq++, s);     /* the number a new event would get */
    eng->heap[at] = e;
    if (eng->batch) {
        eng->batch_dirty = 1;              /* ordered at the batch's end */
        eng->n_batch_moves++;
    } else if (e < old) {
        sift_up(eng, at);
    } else {
        sift_down(eng, eng->n_heap, at);
    }
    sl->gen++;                             /* the old handle is stale, as after cancel */
    return ((uint64_t)sl->gen << 32) | s;
}

/* Restore the heap order over all entries (Floyd: sift down every inner entry, the last
 * first). Any arrangement of the entries becomes a heap, so whatever the batch's moves,
 * and the sifts of events scheduled or cancelled among them, left out of order. */
static void heapify(cs_engine *eng)
{
    uint32_t n = eng->n_heap, i;
    for (i = n > 1 ? (n - 2) / ARITY + 1 : 0; i-- > 0;)
        sift_down(eng, n, i);
}

void cs_engine_batch_begin(cs_engine *eng, uint32_t n)
{
    /* Floyd costs about one sift per four entries; a move one sift. */
    eng->batch = n > 0 && (uint64_t)n * ARITY >= eng->n_heap;
    eng->batch_dirty = 0;
}

void cs_engine_batch_end(cs_engine *eng)
{
    if (eng->batch && eng->batch_dirty) {
        heapify(eng);
        eng->n_heapified++;
    }
    eng->batch = 0;
    eng->batch_dirty = 0;
}

void cs__engine_batch_counts(const cs_engine *eng, uint64_t *heapified, uint64_t *moves)
{
    *heapified = eng->n_heapified;
    *moves = eng->n_batch_moves;
}

static void release_slot(cs_engine *eng, uint32_t s)
{
    eng->slots[s].fn = NULL;
    eng->slots[s].next_free = eng->free_head;
    eng->free_head = s;
}

int cs_engine_run(cs_engine *eng, cs_time until_ps, cs_err *err)
{
    while ((eng->n_heap > 0 || eng->n_fifo > 0) && !eng->failed) {
        int from_fifo;
        heap_ent top;
        uint32_t s;
        slot *sl;
        cs_event_fn fn;
        void *arg;
        uint64_t data;
        if (eng->batch)              /* a batch left open: order the heap before a pop */
            cs_engine_batch_end(eng);
        from_fifo = eng->n_fifo > 0 &&
                    (eng->n_heap == 0 || eng->fifo[eng->fifo_head] < eng->heap[0]);
        top = from_fifo ? eng->fifo[eng->fifo_head] : eng->heap[0];
        s = ent_slot(top);
        sl = &eng->slots[s];
        fn = sl->fn;                 /* loaded before the sift, which hides its miss */
        arg = sl->arg;
        data = sl->data;
        if (ent_time(top) > until_ps)
            break;
        if (from_fifo) {
            eng->fifo_head = (eng->fifo_head + 1) & (eng->cap_fifo - 1);
            eng->n_fifo--;
        } else {
            eng->heap[0] = eng->heap[--eng->n_heap];
            if (eng->n_heap)
                sift_down(eng, eng->n_heap, 0);
        }
        if (!fn) {                   /* cancelled: its generation was bumped by cancel */
            release_slot(eng, s);
            eng->n_dead--;
            continue;
        }
        eng->now_ps = ent_time(top);
        sl->gen++;                   /* the handle goes stale before the callback runs */
        release_slot(eng, s);
        eng->n_live--;
        eng->n_executed++;
        fn(eng, arg, data);
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
