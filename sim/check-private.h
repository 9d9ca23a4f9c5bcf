/* check-private.h: the symbolic data check (core layer, private to sim/). For every holder
 * (rank or auxiliary endpoint) and chunk it tracks the set of ranks whose contributions
 * that holder's copy has; transfers copy or union the sets; at the end the collective's
 * postcondition is checked per rank (DESIGN §3, the #wrong column). Sets are stored
 * compressed (checkset-private.h): per chunk, runs of consecutive holders whose sets follow
 * one formula, so the state of a ring stays O(ranks) instead of ranks x chunks bitsets. */
#ifndef CS_CHECK_PRIVATE_H
#define CS_CHECK_PRIVATE_H

#include <stdint.h>
#include "sim/sched.h"

typedef struct cs_check cs_check;
/* The sender's sets of one transfer's chunks, taken when it starts. */
typedef struct cs_check_snap cs_check_snap;

/* Bytes of state the check starts with for schedule s (its sets grow from there; see
 * cs__check_bytes). */
uint64_t cs__check_state_bytes(const cs_sched *s);
/* Set up the initial state of s's collective (s's chunks, ranks and root are read; its
 * operations are not). Returns 0 or CS_ENOMEM. */
int cs__check_new(cs_check **out, const cs_sched *s);
void cs__check_free(cs_check *c);
/* Copy the sender's sets of transfer x's chunks ids[0 .. x->n_chunks). Returns a snapshot
 * or NULL when out of memory. */
cs_check_snap *cs__check_snapshot(cs_check *c, const cs_xfer *x, const uint32_t *ids);
/* Apply transfer x at the receiver with its snapshot (taken back by the check here, for
 * reuse). Returns 0 or CS_ENOMEM. */
int cs__check_apply(cs_check *c, const cs_xfer *x, const uint32_t *ids, cs_check_snap *snap);
void cs__check_snap_free(cs_check_snap *snap);
/* Bytes the check holds now (sets, not snapshots). */
uint64_t cs__check_bytes(const cs_check *c);
/* Ranks failing the postcondition. */
int cs__check_wrong(cs_check *c);

#endif
