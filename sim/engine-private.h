/* engine-private.h: engine internals that tests reach (core layer, private to sim/ and its
 * tests). */
#ifndef CS_ENGINE_PRIVATE_H
#define CS_ENGINE_PRIVATE_H

#include <stdint.h>
#include "sim/engine.h"

/* Renumber the pending events' sequence numbers once limit of them have been handed out
 * (default 2^36, where the packed heap key runs out of sequence bits); a test lowers it to
 * run the renumbering. limit >= 1. */
void cs__engine_set_seq_limit(cs_engine *eng, uint64_t limit);

/* Batches that restored the heap once at their end (cs_engine_batch_end), and moves
 * made inside such batches: a deterministic count for tests. */
void cs__engine_batch_counts(const cs_engine *eng, uint64_t *heapified, uint64_t *moves);

#endif
