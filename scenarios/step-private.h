/* step-private.h: schedule helpers shared inside scenarios/ (not the layer's interface). */
#ifndef CS_SCENARIOS_STEP_PRIVATE_H
#define CS_SCENARIOS_STEP_PRIVATE_H

#include "scenarios/plan.h"

/* Most microbatch-chunks in flight (forward started, backward not finished) on stage
 * `stage` under a schedule with pp stages, vp chunks, m microbatches: the count the
 * step simulation's program gives (GPipe m, 1F1B min(p - stage, m), interleaved
 * (p - stage - 1) 2 + (v - 1) p + 1). Returns 0 on bad sizes or no memory. */
int cs__step_peak(cs_sched_kind schedule, int pp, int vp, int m, int stage);

#endif
