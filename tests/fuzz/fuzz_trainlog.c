/* fuzz_trainlog.c: libFuzzer target for the training-log reader of plan validate and
 * calibrate (scenarios/trainlog.c): any bytes, the reader returns 0 or an error, never
 * crashes, and a log it accepts has a positive step time and a checked plan. */
#include <stdint.h>
#include <stdlib.h>

#include "scenarios/trainlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cs_trainlog t;
    cs_err err;
    if (cs_trainlog_parse((const char *)data, size, "fuzz", &t, &err) == 0) {
        if (!(t.step_s > 0) || t.n_used < 1)
            abort();
        cs_plan_check(&t.plan, 0, &err);
    }
    cs_trainlog_fini(&t);
    return 0;
}
