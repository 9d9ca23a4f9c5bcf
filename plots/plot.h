/* plot.h: charts and topology drawings (plots layer, the only user of cairo). Series of
 * sweep results (collsim JSON/CSV, nccl-tests logs, or a sweep just run) become
 * bandwidth- or time-against-size charts; a cs_topo becomes a drawing of its fabric. The
 * format follows the file extension (.png, .svg, .pdf); files are written to a temporary
 * beside the target and renamed, so a failure never leaves a partial file. */
#ifndef CS_PLOT_H
#define CS_PLOT_H

#include "sim/err.h"
#include "sim/topo.h"
#include "sim/report.h"

/* Output formats, chosen by the file extension (case-insensitive). */
typedef enum cs_plot_fmt { CS_PLOT_PNG, CS_PLOT_SVG, CS_PLOT_PDF } cs_plot_fmt;

/* The format of an output path: 0, or CS_EINVAL "unknown file type" naming the known ones. */
int cs_plot_format(const char *path, cs_plot_fmt *fmt, cs_err *err);

/* Default and largest picture sizes, px (PNG, SVG) or pt (PDF). */
#define CS_PLOT_DEFAULT_W 900
#define CS_PLOT_DEFAULT_H 540
#define CS_PLOT_MIN_SIDE 200
#define CS_PLOT_MAX_SIDE 16384

/* One measured or simulated size of a sweep. */
typedef struct cs_point {
    double size_bytes;       /* S as nccl-tests prints it, bytes */
    double time_us;          /* time of one operation, microseconds (NAN if unknown) */
    double algbw_GBps;       /* S / time, GB/s (NAN if unknown) */
    double busbw_GBps;       /* algbw x the collective's factor, GB/s (NAN if unknown) */
    double ranks;            /* rank count of the run, 0 if unknown (x of a ranks chart) */
} cs_point;

/* A series: one curve of a chart. */
typedef struct cs_series {
    char *label;             /* legend text (owned) */
    int is_measured;         /* 1: measured, drawn as markers; 0: simulated, drawn as a line */
    cs_point *pts;           /* sizes in file order (owned) */
    double *err_pct;         /* per point: a model's error against it, percent, NAN where
                                none; NULL if no point has one (owned). Any series with
                                errors adds an error panel under the chart */
    int n_pts, cap_pts;
    int same_style_as;       /* 1 + index of an earlier series whose colour, dash and marker
                                this one takes (a measured set and its simulation); 0 = its
                                own, by position */
    int is_formula;          /* 1: a closed form, drawn dashed in its same_style_as series'
                                colour (the simulated series it checks) */
} cs_series;

/* A growable list of series. Zero-initialise, then cs_series_set_fini. */
typedef struct cs_series_set {
    cs_series *items;        /* series in load order (owned) */
    int n, cap;
} cs_series_set;

void cs_series_set_fini(cs_series_set *set);

/* Append an empty series (label copied) to set; NULL if memory ran out. The pointer is
 * valid until the next append. */
cs_series *cs_series_add(cs_series_set *set, const char *label, int is_measured);
/* Append a point with its error in percent (NAN for none). 0 or CS_ENOMEM. */
int cs_series_push(cs_series *s, const cs_point *p, double err_pct);

/* Append the series in a results file: collsim JSON (one sweep object or an array of
 * them, DESIGN §7), CSV (a header row of the JSON keys), or an nccl-tests/rccl-tests log
 * when the log parser is built in. The type follows the extension (.json, .csv,
 * .log/.txt/.out). label (may be NULL) replaces the label read from the file (the
 * algorithm and topology, else the file name). Returns 0, or CS_EINVAL (unknown type,
 * no rows, bad values), CS_EPARSE, CS_EIO, CS_ENOMEM with err saying where. */
int cs_series_load(cs_series_set *set, const char *path, const char *label, int is_measured,
                   cs_err *err);

/* Append a sweep as a series (simulated unless is_measured). label NULL = the algorithm and
 * topology. Returns 0 or CS_ENOMEM. */
int cs_series_from_sweep(cs_series_set *set, const cs_sweep *sw, const char *label,
                         int is_measured, cs_err *err);

/* Keep only the series whose labels are listed, in the listed order. Returns 0, or
 * CS_ENOENT "unknown series 'x' (known: ...)". */
int cs_series_select(cs_series_set *set, const char *const *labels, int n, cs_err *err);

/* Series from the same machine share a colour: a measured series whose label is that of a
 * simulated (non-formula) series takes its style (same_style_as), and the legend shows
 * the pair as one entry with both marks. */
void cs_series_pair_by_label(cs_series_set *set);

/* The series of in regrouped over rank counts at one size: one output series per label
 * (in order of first appearance), with a point per input series that has a point within
 * 2% of size_bytes and a known rank count (the nearest such point), sorted by ranks.
 * Formula series stay formula series, paired with their simulated series. Returns 0, or
 * CS_EINVAL "no point at SIZE" when nothing matched, CS_ENOMEM. out must be empty. */
/* The largest size of any point in set, bytes (0 if none). */
double cs_series_max_size(const cs_series_set *set);
int cs_series_over_ranks(const cs_series_set *in, double size_bytes, cs_series_set *out,
                         cs_err *err);

/* What a chart shows against size. */
typedef enum cs_metric {
    CS_METRIC_BUSBW,         /* bus bandwidth, GB/s (default) */
    CS_METRIC_ALGBW,         /* algorithm bandwidth, GB/s */
    CS_METRIC_TIME           /* time of one operation, log-log */
} cs_metric;

/* "busbw", "algbw", "time" and lookup (CS_ENOENT listing them). */
const char *cs_metric_name(cs_metric m);
int cs_metric_lookup(const char *name, cs_metric *out, cs_err *err);

/* What a chart has across. */
typedef enum cs_chart_x {
    CS_CHART_X_SIZE,         /* message size, log2 byte axis (default) */
    CS_CHART_X_RANKS         /* rank count: log2 when every count is a power of two, else
                                linear */
} cs_chart_x;

/* A chart of series against message size (or rank count). */
typedef struct cs_chart {
    const char *title;       /* title above the plot, NULL for none */
    cs_metric metric;        /* y quantity */
    int log_y;               /* 1: log10 bandwidth axis (time is always log) */
    const cs_series *series; /* the series (borrowed) */
    int n_series;
    cs_chart_x x;            /* x quantity */
    const char *x_label;     /* name of the x axis, NULL = by quantity ("message size") */
    const char *y_label;     /* name of the y axis, NULL = by metric ("busbw (GB/s)") */
} cs_chart;

/* A rectangle on the page, px from the top left. */
typedef struct cs_plot_rect {
    double x, y, w, h;
} cs_plot_rect;

/* A line of text as drawn: its box and its string (for tests that check that no two
 * texts overlap and that no label was cut). */
#define CS_PLOT_MAX_TEXTS 160
typedef struct cs_plot_text {
    cs_plot_rect box;        /* ink box: advance width x (ascent + descent), px */
    int owner;               /* legend: the series index; -1 title, -2 other text */
    char text[160];          /* the string (cut at 159 bytes) */
} cs_plot_text;
typedef struct cs_plot_texts {
    cs_plot_text items[CS_PLOT_MAX_TEXTS];   /* in drawing order (the first ones kept) */
    int n;                   /* entries filled */
} cs_plot_texts;

/* Where a chart put things (for tests and callers that annotate). */
typedef struct cs_chart_layout {
    cs_plot_rect plot;       /* the plot area, inside the axes */
    cs_plot_rect legend;     /* the legend box (outside the plot area), w = 0 if none */
    cs_plot_rect error;      /* the error panel under the plot, h = 0 if none */
    int legend_below;        /* 1: the legend sits under the plot (labels too long for the
                                side); 0: right of it */
    cs_plot_texts texts;     /* the title and every legend line: a label that does not fit
                                wraps at a space onto a second line, never cut mid-word */
} cs_chart_layout;

/* RGB (0..255 each) of series i as drawn: the palette (Okabe-Ito) cycles, dashes and
 * marker shapes change on each cycle. */
void cs_plot_series_rgb(int i, unsigned char rgb[3]);

/* Draw a chart into path (format from the extension), w x h. layout (may be NULL) gets the
 * rectangles used. Returns 0, or CS_EINVAL (no series, no drawable point, bad size),
 * CS_EIO (cannot write; no file is left), CS_ENOMEM. */
int cs_plot_chart(const cs_chart *c, const char *path, int w, int h, cs_chart_layout *layout,
                  cs_err *err);

/* Draw a topology: rings as a circle, tori as a grid, switched fabrics in tiers with the
 * GPUs of each node in a box, links coloured by class with a legend of class, bandwidth
 * and latency (links also labelled with their bandwidth where there is room). */
int cs_plot_topology(const cs_topo *t, const char *path, int w, int h, cs_err *err);

/* `collsim validate --plot`: per table of each log of ls (simulated on t), the simulated
 * busbw as a line and the measured busbw as points in the same colour, the error per size
 * beneath; written atomically to path (.png, .svg, .pdf). */
struct cs_lset;
int cs_plot_validation(const struct cs_lset *ls, const cs_topo *t, const char *path,
                       cs_err *err);

/* `collsim run --plot`: the sweep's rows as one series under title, written to path. */
int cs_plot_sweep(const cs_sweep *sw, const char *title, const char *path, cs_err *err);
/* `collsim run --plot` of several sweeps: one series per sweep, and beside each the
 * algorithm's closed form (dashed, same colour) where its rows carry one. When the sweeps
 * cover more than one rank count the chart is time against ranks at the largest size,
 * one series per algorithm; else busbw against size. */
int cs_plot_sweeps(const cs_sweep *sw, int n, const char *title, const char *path,
                   cs_err *err);

/* The pictures of a run (run_pictures.c): plot (NULL: none) draws g's sweeps, trace (NULL:
 * none) the Perfetto trace of its one size min_bytes (max_bytes titles a chart over rank
 * counts); cfg and elt (bytes of an element) as the run had them. Returns 0 or a negative
 * code (CS_EUSAGE: a trace of several runs). */
struct cs_run_cfg;
struct cs_run_grid;
int cs_plot_run(const char *plot, const char *trace, uint64_t min_bytes, uint64_t max_bytes,
                const struct cs_run_cfg *cfg, const struct cs_run_grid *g, int elt,
                cs_err *err);

#endif
