/* axis.c: axis and tick maths (plots layer, no cairo). Linear axes step through the 1-2-5
 * family, log10 axes through whole decades, the byte axis through powers of two; each
 * grows its step until neighbouring labels leave gap_px between them. */
#include "plots/axis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/err.h"

static const double nice_m[] = {1.0, 2.0, 5.0};

double cs_axis_nice_ceil(double x)
{
    double e, m;
    int i;
    if (!(x > 0) || !isfinite(x))
        return 1.0;
    e = floor(log10(x));
    m = x / pow(10.0, e);
    for (i = 0; i < 3; i++)
        if (m <= nice_m[i] * (1 + 1e-9))
            return nice_m[i] * pow(10.0, e);
    return pow(10.0, e + 1);
}

static double default_extent(void *ctx, const char *label)
{
    (void)ctx;
    return 7.0 * (double)strlen(label);
}

static double extent(const cs_axis_fit *fit, const char *label)
{
    return fit->extent ? fit->extent(fit->ctx, label) : default_extent(NULL, label);
}

double cs_axis_pos(const cs_axis *ax, double v)
{
    if (ax->is_log) {
        if (!(v > 0))
            return NAN;
        return (log(v) - log(ax->lo)) / (log(ax->hi) - log(ax->lo));
    }
    return (v - ax->lo) / (ax->hi - ax->lo);
}

int cs_axis_labels_fit(const cs_axis *ax, const cs_axis_fit *fit)
{
    double prev_pos = 0, prev_ext = 0;
    int i, have_prev = 0;
    for (i = 0; i < ax->n_ticks; i++) {
        const cs_tick *t = &ax->ticks[i];
        double pos, ext;
        if (!t->is_major)
            continue;
        pos = cs_axis_pos(ax, t->v) * fit->len_px;
        ext = extent(fit, t->label);
        if (have_prev && pos - prev_pos < (prev_ext + ext) / 2 + fit->gap_px)
            return 0;
        prev_pos = pos;
        prev_ext = ext;
        have_prev = 1;
    }
    return 1;
}

static void format_bytes(double v, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (u < 6 && v >= 1024.0 * (1 - 1e-12)) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%.3g %s", v, units[u]);
}

static void format_time_us(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (v == 0)
        snprintf(buf, len, "0");
    else if (a >= 1e6 * (1 - 1e-12))
        snprintf(buf, len, "%g s", v / 1e6);
    else if (a >= 1e3 * (1 - 1e-12))
        snprintf(buf, len, "%g ms", v / 1e3);
    else if (a >= 1.0 - 1e-12)
        snprintf(buf, len, "%g \xc2\xb5s", v);
    else if (a >= 1e-3 * (1 - 1e-12))
        snprintf(buf, len, "%g ns", v * 1e3);
    else
        snprintf(buf, len, "%g ps", v * 1e6);
}

void cs_axis_format(cs_axis_fmt fmt, double v, double step, char *buf, size_t len)
{
    if (fmt == CS_AXIS_FMT_BYTES) {
        format_bytes(v, buf, len);
    } else if (fmt == CS_AXIS_FMT_TIME_US) {
        format_time_us(v, buf, len);
    } else if (step > 0) {
        int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        if (fabs(v) < step * 1e-9)
            v = 0;   /* no "-0" */
        snprintf(buf, len, "%.*f", dec, v);
    } else {
        snprintf(buf, len, "%g", v);
    }
}

static void add_tick(cs_axis *ax, double v, int major, double step)
{
    cs_tick *t;
    if (ax->n_ticks >= CS_AXIS_MAX_TICKS)
        return;
    t = &ax->ticks[ax->n_ticks++];
    t->v = v;
    t->is_major = major;
    t->label[0] = '\0';
    if (major)
        cs_axis_format(ax->fmt, v, step, t->label, sizeof t->label);
}

static int check_fit(const cs_axis_fit *fit)
{
    if (!fit || !(fit->len_px > 0) || !isfinite(fit->len_px) || !(fit->gap_px >= 0))
        return CS_EINVAL;
    return 0;
}

int cs_axis_linear(cs_axis *ax, double lo, double hi, cs_axis_fmt fmt, const cs_axis_fit *fit)
{
    double e, step = 0;
    int mi = 0, iter;
    if (!isfinite(lo) || !isfinite(hi) || lo > hi || check_fit(fit))
        return CS_EINVAL;
    if (hi == lo) {
        double d = lo == 0 ? 1.0 : fabs(lo) * 0.1;
        if (lo != 0)
            lo -= d;
        hi += d;
    }
    /* Start from the finest step that keeps the ticks within the array, as (m, e). */
    step = cs_axis_nice_ceil((hi - lo) / (CS_AXIS_MAX_TICKS - 2));
    e = floor(log10(step) + 1e-9);
    for (mi = 0; mi < 2 && nice_m[mi] * pow(10.0, e) < step * (1 - 1e-9); mi++)
        ;
    memset(ax, 0, sizeof *ax);
    for (iter = 0; iter < 400; iter++) {
        double k0, k1, k;
        step = nice_m[mi] * pow(10.0, e);
        k0 = floor(lo / step + 1e-9);
        k1 = ceil(hi / step - 1e-9);
        if (k1 - k0 + 1 <= CS_AXIS_MAX_TICKS) {
            ax->is_log = 0;
            ax->fmt = fmt;
            ax->lo = k0 * step;
            ax->hi = k1 * step;
            ax->n_ticks = 0;
            for (k = k0; k <= k1; k++)
                add_tick(ax, k * step, 1, step);
            if (k1 - k0 <= 1 || cs_axis_labels_fit(ax, fit))
                return 0;
        }
        if (++mi == 3) {
            mi = 0;
            e += 1;
        }
    }
    return 0;
}

/* Floor modulo for exponents (anchors decades at multiples of d, also below zero). */
static int mod_floor(int a, int d)
{
    int r = a % d;
    return r < 0 ? r + d : r;
}

int cs_axis_log10(cs_axis *ax, double lo, double hi, cs_axis_fmt fmt, const cs_axis_fit *fit)
{
    static const int decade_steps[] = {1, 2, 3, 4, 5, 6, 10, 20, 50, 100};
    int e_lo, e_hi, decades, e, m, si;
    if (!(lo > 0) || !(hi > 0) || !isfinite(lo) || !isfinite(hi) || lo > hi || check_fit(fit))
        return CS_EINVAL;
    e_lo = (int)floor(log10(lo) + 1e-9);
    e_hi = (int)ceil(log10(hi) - 1e-9);
    if (e_hi <= e_lo)
        e_hi = e_lo + 1;
    decades = e_hi - e_lo;
    memset(ax, 0, sizeof *ax);
    ax->is_log = 1;
    ax->fmt = fmt;
    ax->lo = pow(10.0, e_lo);
    ax->hi = pow(10.0, e_hi);
    /* 1-2-5 within each decade, for short ranges. */
    if (decades <= 4) {
        for (e = e_lo; e <= e_hi; e++)
            for (m = 1; m <= 9 && (e < e_hi || m == 1); m++)
                add_tick(ax, m * pow(10.0, e), m == 1 || m == 2 || m == 5, 0);
        if (cs_axis_labels_fit(ax, fit))
            return 0;
    }
    for (si = 0; si < (int)(sizeof decade_steps / sizeof decade_steps[0]); si++) {
        int d = decade_steps[si];
        int with_minor = d == 1 && decades <= 8;
        if (decades / d + 1 > CS_AXIS_MAX_TICKS || (!with_minor && decades + 1 > CS_AXIS_MAX_TICKS))
            continue;
        ax->n_ticks = 0;
        for (e = e_lo; e <= e_hi; e++) {
            add_tick(ax, pow(10.0, e), mod_floor(e, d) == 0, 0);
            if (with_minor && e < e_hi)
                for (m = 2; m <= 9; m++)
                    add_tick(ax, m * pow(10.0, e), 0, 0);
        }
        if (cs_axis_labels_fit(ax, fit))
            return 0;
    }
    return 0;   /* too short for any labelled step: the coarsest is kept */
}

/* Byte-axis ticks every k-th power of two from e_lo. */
static void bytes_ticks(cs_axis *ax, int e_lo, int e_hi, int k)
{
    int e;
    ax->n_ticks = 0;
    for (e = e_lo; e <= e_hi; e++)
        add_tick(ax, ldexp(1.0, e), (e - e_lo) % k == 0, 0);
}

int cs_axis_log2_bytes(cs_axis *ax, double lo, double hi, const cs_axis_fit *fit)
{
    return cs_axis_log2(ax, lo, hi, CS_AXIS_FMT_BYTES, fit);
}

int cs_axis_log2(cs_axis *ax, double lo, double hi, cs_axis_fmt fmt, const cs_axis_fit *fit)
{
    int e_lo, e_hi, span, k, k_fit = 0, k_div = 0, k_use;
    if (!(lo >= 1) || !(hi >= 1) || !isfinite(lo) || !isfinite(hi) || lo > hi || check_fit(fit))
        return CS_EINVAL;
    e_lo = (int)floor(log2(lo) + 1e-9);
    e_hi = (int)ceil(log2(hi) - 1e-9);
    if (e_hi <= e_lo) {   /* one size: centre it on a two-octave axis */
        e_lo = e_lo > 0 ? e_lo - 1 : 0;
        e_hi = e_lo + 2;
    }
    if (e_hi > 62 || e_hi - e_lo + 1 > CS_AXIS_MAX_TICKS)
        return CS_EINVAL;
    span = e_hi - e_lo;
    memset(ax, 0, sizeof *ax);
    ax->is_log = 1;
    ax->fmt = fmt;
    ax->lo = ldexp(1.0, e_lo);
    ax->hi = ldexp(1.0, e_hi);
    for (k = 1; k <= span && !(k_fit && k_div); k++) {
        bytes_ticks(ax, e_lo, e_hi, k);
        if (!cs_axis_labels_fit(ax, fit))
            continue;
        if (!k_fit)
            k_fit = k;
        if (span % k == 0 && (k < span || span == 1))
            k_div = k;
        if (k_fit && k > 2 * k_fit)
            break;
    }
    if (k_div && k_div <= 2 * k_fit)
        k_use = k_div;
    else
        k_use = k_fit ? k_fit : span;
    bytes_ticks(ax, e_lo, e_hi, k_use);
    return 0;
}
