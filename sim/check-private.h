/* check-private.h: the symbolic data check (core layer, private to sim/). For every rank
 * and chunk it tracks the set of ranks whose contributions that rank's copy holds, as a
 * bitset; transfers copy or union the sets; at the end the collective's postcondition is
 * checked per rank (DESIGN §3, the #wrong column). */
#ifndef CS_CHECK_PRIVATE_H
#define CS_CHECK_PRIVATE_H

#include <stdint.h>
#include "sim/sched.h"

typedef struct cs_check cs_check;

/* Bytes of state the check needs for schedule s (to decide whether to run it). */
uint64_t cs__check_state_bytes(const cs_sched *s);
/* Set up the initial state of s's collective. Returns 0 or CS_ENOMEM. */
int cs__check_new(cs_check **out, const cs_sched *s);
void cs__check_free(cs_check *c);
/* Copy the sender's sets of operation i's chunks (taken when the transfer starts).
 * Returns a malloc'd snapshot or NULL when out of memory. */
uint64_t *cs__check_snapshot(const cs_check *c, uint32_t i);
/* Apply operation i at the receiver with its snapshot (freed here). */
void cs__check_apply(cs_check *c, uint32_t i, uint64_t *snap);
/* Ranks failing the postcondition. */
int cs__check_wrong(const cs_check *c);

#endif
