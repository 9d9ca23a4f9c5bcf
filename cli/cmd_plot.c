/* cmd_plot.c: `collsim plot FILE... --output OUT` (cli layer). Reads saved results (collsim
 * JSON or CSV, nccl-tests/rccl-tests logs) and draws bandwidth or time against size, one
 * series per file (or per sweep in a file), or against rank count at one size (--x ranks);
 * PNG, SVG or PDF by the output's extension. */
#include "cli/cli.h"
#include "sim/size.h"
#include "plots/plot.h"

#include <stdlib.h>
#include <string.h>

#define PLOT_MAX_INPUTS 256

enum { O_OUTPUT = 1, O_METRIC, O_TITLE, O_LABEL, O_MEASURED, O_SERIES, O_WIDTH, O_HEIGHT, O_XLABEL, O_YLABEL,
       O_LOGY, O_HELP, O_X, O_SIZE };

const cs_opt_spec cs_plot_opts[] = {
    {"output", 'o', 1, O_OUTPUT}, {"metric", 'm', 1, O_METRIC}, {"title", 0, 1, O_TITLE},
    {"label", 0, 1, O_LABEL}, {"measured", 0, 1, O_MEASURED}, {"series", 0, 1, O_SERIES},
    {"width", 0, 1, O_WIDTH}, {"height", 0, 1, O_HEIGHT}, {"log-y", 0, 0, O_LOGY},
    {"help", 'h', 0, O_HELP}, {"x", 0, 1, O_X}, {"size", 0, 1, O_SIZE},
    {"xlabel", 0, 1, O_XLABEL}, {"ylabel", 0, 1, O_YLABEL}, {NULL, 0, 0, 0},
};

static void plot_usage(void)
{
    printf("usage: collsim plot FILE... --output OUT.png|.svg|.pdf [options]\n\n"
           "Draw saved sweep results against message size: one series per file (collsim\n"
           "--format json or csv output; nccl-tests/rccl-tests logs .log/.txt/.out are drawn\n"
           "as measured points). Simulated series are lines, measured ones markers.\n\n"
           "  -o, --output FILE      picture to write (format by extension; required)\n"
           "  -m, --metric M         busbw (default), algbw, or time (log-log); time is\n"
           "                         the default with --x ranks\n"
           "      --x size|ranks     across: message size (default) or rank count at one\n"
           "                         size, one series per label (algorithm or file)\n"
           "      --size SIZE        the size of --x ranks (default: the largest)\n"
           "      --log-y            log10 bandwidth axis\n"
           "      --title TEXT       title above the chart\n"
           "      --xlabel TEXT      name of the x axis (default: message size, or ranks)\n"
           "      --ylabel TEXT      name of the y axis (default: by the metric)\n"
           "      --label NAME       legend name of the next file, in order (repeatable)\n"
           "      --measured FILE    a results file to draw as measured points (repeatable)\n"
           "      --series NAME      draw only the series with this label, in this order\n"
           "                         (repeatable)\n"
           "      --width W          picture width, px (default %d)\n"
           "      --height H         picture height, px (default %d)\n",
           CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H);
}

/* What `plot` was asked for. */
typedef struct plot_opts {
    const char *files[PLOT_MAX_INPUTS];   /* inputs in command-line order */
    int measured[PLOT_MAX_INPUTS];        /* 1 if given with --measured */
    int n_files;
    const char *labels[PLOT_MAX_INPUTS];  /* --label values in order */
    int n_labels;
    const char *series[PLOT_MAX_INPUTS];  /* --series values in order */
    int n_series;
    const char *output;                   /* --output */
    const char *title;                    /* --title, NULL for none */
    const char *x_label, *y_label;        /* --xlabel, --ylabel, NULL = by quantity */
    cs_metric metric;                     /* --metric */
    int log_y;                            /* --log-y */
    int have_metric;                      /* --metric given */
    cs_chart_x x;                         /* --x */
    uint64_t size;                        /* --size, 0 = the largest */
    long width, height;                   /* --width, --height, px */
} plot_opts;

static int add_file(plot_opts *o, const char *path, int measured, cs_err *err)
{
    if (o->n_files == PLOT_MAX_INPUTS)
        return cs_err_set(err, CS_EUSAGE, path, "more than %d input files", PLOT_MAX_INPUTS);
    o->files[o->n_files] = path;
    o->measured[o->n_files++] = measured;
    return 0;
}

static int parse_args(int argc, char **argv, plot_opts *o, cs_err *err)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *sp;
    const char *v;
    int rc;
    cs_plot_fmt fmt;
    memset(o, 0, sizeof *o);
    o->width = CS_PLOT_DEFAULT_W;
    o->height = CS_PLOT_DEFAULT_H;
    while ((rc = cs_opt_next(&sc, cs_plot_opts, &sp, &v, err)) > 0) {
        if (!sp) {
            rc = add_file(o, v, 0, err);
        } else {
            switch (sp->id) {
            case O_OUTPUT: o->output = v; break;
            case O_METRIC:
                if ((rc = cs_metric_lookup(v, &o->metric, err)) < 0)
                    err->code = rc = CS_EUSAGE;
                o->have_metric = 1;
                break;
            case O_X:
                if (strcmp(v, "size") && strcmp(v, "ranks"))
                    return cs_err_set(err, CS_EUSAGE, "--x", "expected size or ranks, got '%s'", v);
                o->x = strcmp(v, "ranks") ? CS_CHART_X_SIZE : CS_CHART_X_RANKS;
                break;
            case O_SIZE: rc = cs_parse_size(v, "--size", &o->size, err); break;
            case O_TITLE: o->title = v; break;
            case O_XLABEL: o->x_label = v; break;
            case O_YLABEL: o->y_label = v; break;
            case O_LABEL:
                if (o->n_labels == PLOT_MAX_INPUTS)
                    return cs_err_set(err, CS_EUSAGE, "--label", "given more than %d times", PLOT_MAX_INPUTS);
                o->labels[o->n_labels++] = v;
                break;
            case O_MEASURED: rc = add_file(o, v, 1, err); break;
            case O_SERIES:
                if (o->n_series == PLOT_MAX_INPUTS)
                    return cs_err_set(err, CS_EUSAGE, "--series", "given more than %d times", PLOT_MAX_INPUTS);
                o->series[o->n_series++] = v;
                break;
            case O_WIDTH:
                rc = cs_parse_int(v, "--width", CS_PLOT_MIN_SIDE, CS_PLOT_MAX_SIDE, &o->width, err);
                break;
            case O_HEIGHT:
                rc = cs_parse_int(v, "--height", CS_PLOT_MIN_SIDE, CS_PLOT_MAX_SIDE, &o->height, err);
                break;
            case O_LOGY: o->log_y = 1; break;
            case O_HELP: plot_usage(); return 1;
            default: break;
            }
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (o->n_files == 0)
        return cs_err_set(err, CS_EUSAGE, NULL, "no results file given (usage: collsim plot FILE... --output OUT.png)");
    if (!o->output)
        return cs_err_set(err, CS_EUSAGE, "--output", "missing: give the picture to write (.png, .svg or .pdf)");
    if (o->size && o->x != CS_CHART_X_RANKS)
        return cs_err_set(err, CS_EUSAGE, "--size", "picks the size of --x ranks");
    if (o->x == CS_CHART_X_RANKS && !o->have_metric)
        o->metric = CS_METRIC_TIME;
    if (o->n_labels > o->n_files)
        return cs_err_set(err, CS_EUSAGE, "--label", "%d labels for %d files", o->n_labels, o->n_files);
    if (cs_plot_format(o->output, &fmt, err) < 0) {
        err->code = CS_EUSAGE;
        return CS_EUSAGE;
    }
    {
        const char *outs[] = {"--output", o->output};
        return cs_cli_check_outputs(outs, 1, o->files, o->n_files, err);
    }
}

int cs_cmd_plot(int argc, char **argv)
{
    plot_opts o;
    cs_err err;
    cs_series_set set = {NULL, 0, 0}, over = {NULL, 0, 0};
    cs_chart chart;
    int rc, i;
    cs_err_clear(&err);
    rc = parse_args(argc, argv, &o, &err);
    if (rc > 0)
        return CS_EXIT_OK;
    if (rc < 0)
        return cs_cli_fail(&err);
    for (i = 0; i < o.n_files && rc == 0; i++)
        rc = cs_series_load(&set, o.files[i], i < o.n_labels ? o.labels[i] : NULL, o.measured[i], &err);
    if (rc == 0)
        rc = cs_series_select(&set, o.series, o.n_series, &err);
    cs_series_pair_by_label(&set);
    if (rc == 0 && o.x == CS_CHART_X_RANKS)
        rc = cs_series_over_ranks(&set, o.size ? (double)o.size : cs_series_max_size(&set),
                                  &over, &err);
    if (rc == 0) {
        const cs_series_set *use = o.x == CS_CHART_X_RANKS ? &over : &set;
        memset(&chart, 0, sizeof chart);
        chart.title = o.title;
        chart.x_label = o.x_label, chart.y_label = o.y_label;
        chart.metric = o.metric;
        chart.log_y = o.log_y;
        chart.series = use->items;
        chart.n_series = use->n;
        chart.x = o.x;
        rc = cs_plot_chart(&chart, o.output, (int)o.width, (int)o.height, NULL, &err);
    }
    cs_series_set_fini(&set);
    cs_series_set_fini(&over);
    return rc ? cs_cli_fail(&err) : CS_EXIT_OK;
}
