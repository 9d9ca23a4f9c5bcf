/* bench_engine.c: engine throughput benchmark (run by `meson test --benchmark`, never a
 * pass/fail timing). Keeps `pending` events in the queue; each event schedules the next at a
 * pseudo-random later time, until `total` events have run. Prints events per second. */
#include "sim/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t left;

static void tick(cs_engine *eng, void *arg, uint64_t data)
{
    uint64_t x = data * 6364136223846793005ull + 1442695040888963407ull;  /* LCG */
    if (left > 0) {
        left--;
        cs_engine_after(eng, (cs_time)(x >> 44) + 1, tick, arg, x);
    }
}

int main(int argc, char **argv)
{
    uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
    uint64_t pending = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000ull, i;
    struct timespec a, b;
    double s;
    cs_engine *eng;
    if (cs_engine_new(&eng))
        return 1;
    left = total - pending;
    for (i = 0; i < pending; i++)
        cs_engine_at(eng, (cs_time)i, tick, NULL, i + 1);
    clock_gettime(CLOCK_MONOTONIC, &a);
    if (cs_engine_run(eng, CS_TIME_MAX, NULL))
        return 1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("engine: %llu events, %llu pending, %.3f s, %.2f million events/s\n",
           (unsigned long long)cs_engine_n_executed(eng), (unsigned long long)pending, s,
           (double)cs_engine_n_executed(eng) / s / 1e6);
    cs_engine_free(eng);
    return 0;
}
