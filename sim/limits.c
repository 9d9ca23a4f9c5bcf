/* limits.c: range checks of figures and the process-wide memory budget (core layer). */
#include "sim/limits.h"
#include "sim/size.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

static uint64_t budget_bytes;   /* 0 = not set: half the physical memory */

int cs_limit_check(double v, double lo, double hi, const char *unit, const char *where,
                   cs_err *err)
{
    if (v >= lo && v <= hi)
        return 0;
    return cs_err_set(err, CS_EINVAL, where, "must be between %g and %g%s%s, got %g", lo, hi,
                      unit[0] ? " " : "", unit, v);
}

int cs_limit_check_or0(double v, double lo, double hi, const char *unit,
                       const char *zero_means, const char *where, cs_err *err)
{
    if (v == 0 || (v >= lo && v <= hi))
        return 0;
    return cs_err_set(err, CS_EINVAL, where, "must be 0 (%s) or between %g and %g%s%s, got "
                      "%g", zero_means, lo, hi, unit[0] ? " " : "", unit, v);
}

static uint64_t half_physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 1ULL << 32;           /* unknown: 4 GiB */
    return (uint64_t)pages / 2 * (uint64_t)page;
}

void cs_budget_set(uint64_t bytes) { budget_bytes = bytes; }

uint64_t cs_budget_get(void) { return budget_bytes ? budget_bytes : half_physical(); }

int cs_budget_check(uint64_t need_bytes, const char *where, const char *what, cs_err *err)
{
    char need[32], have[32];
    uint64_t budget = cs_budget_get();
    if (need_bytes <= budget)
        return 0;
    if (need_bytes == UINT64_MAX)     /* grew past the budget, size unknown */
        return cs_err_set(err, CS_ELIMIT, where, "%s needs more than the memory budget of %s "
                          "(raise it with --max-memory; the default is half the physical "
                          "memory)", what, cs_format_bytes(budget, have, sizeof have));
    return cs_err_set(err, CS_ELIMIT, where, "%s needs about %s, more than the memory budget "
                      "of %s (raise it with --max-memory; the default is half the physical "
                      "memory)", what, cs_format_bytes(need_bytes, need, sizeof need),
                      cs_format_bytes(budget, have, sizeof have));
}
