/* limits.h: the ranges collsim accepts for every physical figure and count, checked
 * arithmetic on sizes and rank counts, and the memory budget (core layer).
 * docs/limits.md is the user-facing table; keep the two in step. */
#ifndef CS_LIMITS_H
#define CS_LIMITS_H

#include <stdint.h>
#include "sim/err.h"

/* Figures of links and reductions: a bandwidth outside [1e-6, 1e6] GB/s or a latency
 * outside [0, 1e6] us is a typo or a unit mistake, and beyond them picosecond times
 * overflow int64 for the largest sizes. */
#define CS_LIMIT_BW_MIN_GBPS 1e-6        /* GB/s (1 kB/s) */
#define CS_LIMIT_BW_MAX_GBPS 1e6         /* GB/s (1 PB/s) */
#define CS_LIMIT_LAT_MAX_US 1e6          /* us (1 s) */
/* Efficiencies (the fraction of a link's bandwidth that carries data): below 1e-3 a
 * transfer moves 1000 bytes on the wire for one of data, a typo rather than a protocol. */
#define CS_LIMIT_EFF_MIN 1e-3
/* A GPU's peak compute per dtype (1 GFLOP/s to 1 EFLOP/s), TFLOP/s. */
#define CS_LIMIT_TFLOPS_MIN 1e-3
#define CS_LIMIT_TFLOPS_MAX 1e6
/* Counts. */
#define CS_LIMIT_MAX_RANKS (1L << 22)    /* ranks of one topology or log (4,194,304) */
#define CS_LIMIT_MAX_NODES (1L << 24)    /* nodes (endpoints and switches) of a topology */
#define CS_LIMIT_MAX_LINKS (1L << 25)    /* links of a topology */
/* Sizes: a collective's size S, a log row's size, -b/-e (1 PiB). */
#define CS_LIMIT_MAX_BYTES (1ULL << 50)
/* What a run whose clock would pass 2^63 ps says (the engine, the networks, and NCCL
 * mode's trees extended from shorter runs). */
#define CS_LIMIT_PAST_CLOCK_MSG "a transfer would end after 2^63 ps (106 days) of simulated " \
    "time: the sizes are too large for the bandwidths (docs/limits.md)"
/* Measured times in logs, us (11.6 days). */
#define CS_LIMIT_TIME_MAX_US 1e12

/* Fill err with `must be between LO and HI (UNIT), got V` for a figure out of range and
 * return CS_EINVAL; 0 when lo <= v <= hi. where names the key or option. */
int cs_limit_check(double v, double lo, double hi, const char *unit, const char *where,
                   cs_err *err);

/* As cs_limit_check, and 0 also passes: a figure where 0 means what zero_means says
 * ("no cap", "none"): `must be 0 (ZERO_MEANS) or between LO and HI UNIT, got V`. */
int cs_limit_check_or0(double v, double lo, double hi, const char *unit,
                       const char *zero_means, const char *where, cs_err *err);

/* Checked arithmetic: *out = a * b (or a + b); 0, or 1 when the result does not fit. */
static inline int cs_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{ return __builtin_mul_overflow(a, b, out); }
static inline int cs_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{ return __builtin_add_overflow(a, b, out); }
static inline int cs_mul_i64(int64_t a, int64_t b, int64_t *out)
{ return __builtin_mul_overflow(a, b, out); }
static inline int cs_add_i64(int64_t a, int64_t b, int64_t *out)
{ return __builtin_add_overflow(a, b, out); }
/* a * b for counts, saturated at INT64_MAX (a, b >= 0): for "more than the limit" tests. */
static inline int64_t cs_mul_sat(int64_t a, int64_t b)
{ int64_t r; return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r; }
static inline int64_t cs_add_sat(int64_t a, int64_t b)
{ int64_t r; return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r; }

/* Memory budget: large structures (topologies, schedules) estimate their size first and
 * refuse beyond the budget with a clear error instead of meeting the allocator's failure
 * or the OOM killer. The budget is process-wide (it mirrors --max-memory, a property of the
 * process, not of one simulation). 0 restores the default: half the physical memory. */
void cs_budget_set(uint64_t bytes);
uint64_t cs_budget_get(void);
/* 0 when need_bytes fits the budget, else CS_ELIMIT with err saying
 * `WHAT needs about N GiB, more than the memory budget of M GiB (--max-memory)`;
 * need_bytes UINT64_MAX: the size is unknown, only that it grew past the budget. */
int cs_budget_check(uint64_t need_bytes, const char *where, const char *what, cs_err *err);

#endif
