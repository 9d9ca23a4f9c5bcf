/* time.h: simulated time (core layer). Time is an integer count of picoseconds, so every
 * run of the same input orders events identically and prints the same bytes. */
#ifndef CS_TIME_H
#define CS_TIME_H

#include <stdint.h>
#include <math.h>

typedef int64_t cs_time;            /* picoseconds since the start of the simulation */

#define CS_TIME_MAX INT64_MAX
#define CS_PS_PER_US 1000000.0
#define CS_PS_PER_S 1e12

/* Microseconds (double) to picoseconds, rounded to the nearest picosecond. */
static inline cs_time cs_time_from_us(double us) { return (cs_time)llround(us * CS_PS_PER_US); }
static inline cs_time cs_time_from_s(double s) { return (cs_time)llround(s * CS_PS_PER_S); }
static inline double cs_time_to_us(cs_time t) { return (double)t / CS_PS_PER_US; }
static inline double cs_time_to_s(cs_time t) { return (double)t / CS_PS_PER_S; }

/* Time to move bytes at bw_GBps (1 GB/s = 1e9 bytes/s), in picoseconds, rounded to nearest.
 * bytes / (GB/s * 1e9) s = bytes * 1000 / GBps ps. */
static inline cs_time cs_time_for_bytes(double bytes, double bw_GBps)
{
    return (cs_time)llround(bytes * 1000.0 / bw_GBps);
}

#endif
