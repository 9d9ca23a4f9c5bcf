/* engine.h: the discrete-event engine (core layer). A 4-ary min-heap of events ordered by
 * (time, sequence number): equal times run in the order they were scheduled, so runs are
 * deterministic. Several engines may live in one process (no globals). */
#ifndef CS_ENGINE_H
#define CS_ENGINE_H

#include <stdint.h>
#include "sim/err.h"
#include "sim/time.h"

typedef struct cs_engine cs_engine;

/* Handle of a scheduled event: slot index in the low 32 bits, the slot's generation in the
 * high 32 bits, so a handle to an event that already ran or was cancelled is detected as
 * stale. 0 is never a valid id. */
typedef uint64_t cs_event_id;

/* An event callback. It may schedule or cancel events, and may stop the run with
 * cs_engine_fail(); it must not free the engine. */
typedef void (*cs_event_fn)(cs_engine *eng, void *arg, uint64_t data);

/* Create an empty engine at time 0. Returns 0 or CS_ENOMEM. */
int cs_engine_new(cs_engine **out);
/* Free an engine and every pending event (their args are not touched). NULL-safe. */
void cs_engine_free(cs_engine *eng);

/* Current simulated time, ps. */
cs_time cs_engine_now(const cs_engine *eng);

/* Schedule fn(eng, arg, data) at absolute time t_ps (>= now). Returns the event id, or 0 if
 * memory ran out (the engine then fails the run with CS_ENOMEM). */
cs_event_id cs_engine_at(cs_engine *eng, cs_time t_ps, cs_event_fn fn, void *arg, uint64_t data);
/* Same, dt_ps from now. */
cs_event_id cs_engine_after(cs_engine *eng, cs_time dt_ps, cs_event_fn fn, void *arg, uint64_t data);

/* Cancel a pending event (lazy: the heap entry is skipped when it surfaces).
 * Returns 0, or CS_ENOENT if the id is stale (already ran, cancelled, or never existed). */
int cs_engine_cancel(cs_engine *eng, cs_event_id id);

/* Move a pending event to time t_ps (>= now): exactly cs_engine_cancel(id) and then
 * cs_engine_at(t_ps, the same callback) -- the event takes the sequence number a new one
 * would, so every run goes in the same order -- but in place, leaving no cancelled entry
 * behind (a fluid network moves its flows' ends at every share change). Returns the new
 * id (id is stale from then on), or 0 if id is stale or memory ran out. */
cs_event_id cs_engine_move(cs_engine *eng, cs_event_id id, cs_time t_ps);

/* Many moves at once (a fluid network's recompute moves every flow whose share changed:
 * on a 16-rank tree about 200 of the 500-odd pending events at a time). Between
 * cs_engine_batch_begin(eng, n), n the moves expected, and cs_engine_batch_end(eng), a move
 * only rewrites its entry's key (time, and the sequence number it would get anyway) and the
 * heap order is restored once at the end (Floyd, O(heap)) -- where n is at least a quarter
 * of the pending entries; fewer are sifted one by one as outside a batch. The order events
 * run in is the same either way: it is the keys' order, and the keys are the same. No
 * event may run inside a batch (begin and end in one callback; cs_engine_run ends one left
 * open before it runs the next event). */
void cs_engine_batch_begin(cs_engine *eng, uint32_t n);
void cs_engine_batch_end(cs_engine *eng);

/* Run events in order until none is left, until_ps is passed (CS_TIME_MAX for no limit), or
 * a callback calls cs_engine_fail(). Returns 0, or the failure's code with err filled. */
int cs_engine_run(cs_engine *eng, cs_time until_ps, cs_err *err);

/* From inside a callback: stop the run with an error; cs_engine_run returns it. The first
 * failure wins. */
void cs_engine_fail(cs_engine *eng, int code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Events executed so far (cancelled ones not counted) and events pending. */
uint64_t cs_engine_n_executed(const cs_engine *eng);
uint64_t cs_engine_n_pending(const cs_engine *eng);

#endif
