/* axis.h: axis and tick maths for charts (plots layer). Plain functions without cairo: a
 * range and the room on the page go in, tick values and their labels come out. Steps
 * follow 1-2-5 on linear and log10 axes and whole powers of two on the byte axis, and the
 * step grows until no two neighbouring labels overlap at the given length. */
#ifndef CS_AXIS_H
#define CS_AXIS_H

#include <stddef.h>

#define CS_AXIS_MAX_TICKS 128   /* ticks (major and minor) an axis holds at most */

/* How tick labels read. */
typedef enum cs_axis_fmt {
    CS_AXIS_FMT_NUMBER,   /* plain decimal: "0", "2.5", "100" */
    CS_AXIS_FMT_BYTES,    /* binary byte units: "8 B", "64 KiB", "8 GiB" */
    CS_AXIS_FMT_TIME_US   /* value in microseconds, printed with a unit: "100 ns", "1 ms" */
} cs_axis_fmt;

/* One tick. */
typedef struct cs_tick {
    double v;             /* value in data units (bytes, GB/s, microseconds) */
    int is_major;         /* 1: labelled tick with a grid line; 0: minor, unlabelled */
    char label[24];       /* text of a major tick, "" for a minor one */
} cs_tick;

/* An axis: its range and ticks, lo at position 0 and hi at position 1. */
typedef struct cs_axis {
    double lo, hi;        /* range in data units, lo < hi (both > 0 on log axes) */
    int is_log;           /* 1: position is linear in log(v); 0: linear in v */
    cs_axis_fmt fmt;      /* label format */
    cs_tick ticks[CS_AXIS_MAX_TICKS];   /* in increasing order of value */
    int n_ticks;
} cs_axis;

/* Extent of a label along its axis, px: its width on a horizontal axis, its height on a
 * vertical one. ctx is passed through. */
typedef double (*cs_axis_extent_fn)(void *ctx, const char *label);

/* The room an axis has on the page. */
typedef struct cs_axis_fit {
    double len_px;             /* length of the axis on the page, px (> 0) */
    double gap_px;             /* least free space between two neighbouring labels, px */
    cs_axis_extent_fn extent;  /* label extent; NULL = 7 px per character */
    void *ctx;                 /* passed to extent */
} cs_axis_fit;

/* Nice number of the 1-2-5 family: the smallest m * 10^e >= x (m in 1, 2, 5, 10), x > 0. */
double cs_axis_nice_ceil(double x);

/* Linear axis over [lo, hi] (lo == hi is widened) with the finest 1-2-5 step whose
 * labels fit; the range is widened to whole steps. Returns 0, or CS_EINVAL for a
 * non-finite range or a bad fit. */
int cs_axis_linear(cs_axis *ax, double lo, double hi, cs_axis_fmt fmt, const cs_axis_fit *fit);

/* Log10 axis over whole decades covering [lo, hi] (lo > 0): labels at 1, 2, 5 x 10^e when
 * they fit, else every decade, or every 2nd, 3rd, 5th... decade; unlabelled minor ticks
 * in between. Returns 0 or CS_EINVAL (lo <= 0, non-finite, lo > hi). */
int cs_axis_log10(cs_axis *ax, double lo, double hi, cs_axis_fmt fmt, const cs_axis_fit *fit);

/* Log2 byte axis over whole powers of two covering [lo, hi] (lo > 0), labelled in byte
 * units. Major ticks every k-th power of two counted from the lowest, with the smallest k
 * whose labels fit (preferring a k that also lands on the highest, so a sweep from 8 B to
 * 8 GiB is labelled at both ends); minor ticks at the other powers of two. Returns 0 or
 * CS_EINVAL. */
int cs_axis_log2_bytes(cs_axis *ax, double lo, double hi, const cs_axis_fit *fit);
/* The same powers-of-two axis with labels in another format (rank counts: "2", "64"). */
int cs_axis_log2(cs_axis *ax, double lo, double hi, cs_axis_fmt fmt, const cs_axis_fit *fit);

/* Position of v along the axis: 0 at lo, 1 at hi (outside for values out of range; NAN
 * for v <= 0 on a log axis). */
double cs_axis_pos(const cs_axis *ax, double v);

/* 1 if no two neighbouring major labels overlap (each centred on its tick), else 0. */
int cs_axis_labels_fit(const cs_axis *ax, const cs_axis_fit *fit);

/* Format v as a label. step is the distance to the next major tick (it fixes the decimals
 * of CS_AXIS_FMT_NUMBER; 0 = as few as needed). */
void cs_axis_format(cs_axis_fmt fmt, double v, double step, char *buf, size_t len);

#endif
