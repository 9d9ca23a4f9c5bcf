/* cmd_validate.c: `collsim validate LOG... --topo T` (cli layer). Simulates every row of
 * measured nccl-tests / rccl-tests / hccl_test logs in NCCL mode on the topology's first n
 * ranks and prints measured against simulated time and busbw per size, the error in
 * percent, and the summary (text, or JSON with the contract keys). */
#include "cli/cli.h"
#include "calibration/logsim.h"
#include "sim/size.h"
#include "topologies/topology.h"
#include "plots/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

enum { V_TOPO = 1, V_FORMAT, V_ALGO, V_PROTO, V_OUTPUT,
       V_HELP, V_PLOT };

static const cs_opt_spec specs[] = {
    {"topo", 0, 1, V_TOPO}, {"format", 0, 1, V_FORMAT},
    {"algo", 0, 1, V_ALGO}, {"proto", 0, 1, V_PROTO}, {"output", 0, 1, V_OUTPUT},
    {"help", 'h', 0, V_HELP},
    {"plot", 0, 1, V_PLOT},
    CS_LSET_SPECS,
    {NULL, 0, 0, 0},
};

static void usage(void)
{
    printf("usage: collsim validate LOG... --topo PRESET|FILE [options]\n\n"
           "Compare measured nccl-tests, rccl-tests or hccl_test logs (text, or nccl-tests\n"
           "JSON) with the simulation in NCCL mode, size by size. A log of n ranks runs on\n"
           "the topology's first n ranks. Sizes of 0 bytes are skipped.\n\n"
           "      --topo PRESET|FILE  topology (required)\n"
           "      --format text|json  output format (default text)\n"
           "      --min-bytes SIZE    only sizes >= SIZE (K, M, G suffixes)\n"
           "      --sizes odd|even    only the 1st, 3rd, ... (odd) or 2nd, 4th, ... (even)\n"
           "                          size of each table, to hold out the other half\n"
           "      --keep-ranks N,...  only the tables of these rank counts\n"
           "      --max-bytes SIZE    only sizes <= SIZE\n"
           "      --coll COLL         collective of logs that do not name it\n"
           "      --ranks N           ranks of logs that do not tell\n"
           "      --algo NAME         algorithm (default: NCCL's choice by predicted time)\n"
           "      --proto P           auto (default), LL, LL128 or Simple\n"
           "      --output FILE       write there instead of stdout (atomically)\n"
           "      --plot FILE         also draw measured points over the simulated curves with\n"
           "                          the error per size beneath (.png, .svg or .pdf)\n");
}

/* Options shared with calibrate. */
typedef struct vopts {
    const char *topo, *format, *algo, *proto, *output;
    const char *plot;         /* --plot FILE (validate), NULL if not asked */
    cs_lset_opts ls;
    char **logs;
    int n_logs;
} vopts;

static int parse(int argc, char **argv, vopts *o, cs_err *err)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *sp;
    const char *v;
    int rc;
    memset(o, 0, sizeof *o);
    o->format = "text";
    o->ls.default_coll = CS_LOG_COLL_UNKNOWN;
    if (!(o->logs = calloc((size_t)argc + 1, sizeof *o->logs)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    while ((rc = cs_opt_next(&sc, specs, &sp, &v, err)) > 0) {
        if (!sp) {
            o->logs[o->n_logs++] = (char *)(uintptr_t)v;
            continue;
        }
        switch (sp->id) {
        case V_TOPO: o->topo = v; break;
        case V_FORMAT: o->format = v; break;
        case V_ALGO: o->algo = v; break;
        case V_PROTO: o->proto = v; break;
        case V_OUTPUT: o->output = v; break;
        case V_PLOT: o->plot = v; break;
        case V_HELP: usage(); return 1;
        default:
            rc = cs_lset_option(sp->id, v, &o->ls, err);
            break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (o->n_logs == 0)
        return cs_err_set(err, CS_EUSAGE, NULL, "no log given (usage: collsim validate "
                          "LOG... --topo PRESET|FILE)");
    if (!o->topo)
        return cs_err_set(err, CS_EUSAGE, "--topo", "missing: the topology to validate");
    if (strcmp(o->format, "text") && strcmp(o->format, "json"))
        return cs_err_set(err, CS_EUSAGE, "--format", "unknown format '%s' (known: text, "
                          "json)", o->format);
    if (o->plot) {
        cs_plot_fmt fmt;
        if (cs_plot_format(o->plot, &fmt, err) < 0)
            return cs_err_set(err, CS_EUSAGE, "--plot", "unknown file type '%s' (expected .png, "
                              ".svg or .pdf)", strrchr(o->plot, '.') ? strrchr(o->plot, '.') : "");
    }
    return 0;
}

static double sim_busbw(const cs_lrow *r)
{
    return (double)r->size_bytes / (r->simulated_us * 1e3) *
           cs_coll_busbw_factor(r->coll, r->ranks);
}

static int write_text(FILE *f, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np)
{
    int i, n;
    double med, mean, max;
    fprintf(f, "# collsim validate: %d log%s, %d rows on topology %s (NCCL mode, table %s)\n",
            ls->n_logs, ls->n_logs == 1 ? "" : "s", ls->n_rows, t->name, np->version);
    fprintf(f, "# error = (simulated - measured) / measured; busbw in GB/s\n#\n");
    fprintf(f, "# %-46s %-13s %5s %12s %12s %12s %8s %9s %9s  %s\n", "log", "collective",
            "ranks", "size", "measured_us", "simulated_us", "error_%", "meas_bus",
            "sim_bus", "algorithm/protocol");
    for (i = 0; i < ls->n_rows; i++) {
        const cs_lrow *r = &ls->rows[i];
        fprintf(f, "  %-46s %-13s %5d %12llu %12.2f %12.2f %8.2f %9.2f %9.2f  %s/%s\n",
                cs_cli_basename(r->log), cs_coll_name(r->coll), r->ranks,
                (unsigned long long)r->size_bytes, r->measured_us, r->simulated_us,
                cs_lrow_error_pct(r), r->measured_busbw_GBps, sim_busbw(r), r->algo,
                cs_proto_name(r->proto));
    }
    cs_lset_stats(ls, 0, &med, &mean, &max);
    fprintf(f, "# all sizes: %d rows, |error| median %.2f%%, mean %.2f%%, max %.2f%%\n",
            ls->n_rows, med, mean, max);
    n = cs_lset_stats(ls, 1u << 20, &med, &mean, &max);
    if (n > 0)
        fprintf(f, "# sizes >= 1 MiB: %d rows, |error| median %.2f%%, mean %.2f%%, max "
                "%.2f%%\n", n, med, mean, max);
    return ferror(f) ? CS_EIO : 0;
}

static int write_json(FILE *f, const cs_lset *ls, const cs_topo *t, const cs_nccl_params *np)
{
    json_t *root = json_object(), *rows = json_array();
    double med, mean, max;
    int i, rc;
    if (!root || !rows) {
        json_decref(root);
        json_decref(rows);
        return CS_ENOMEM;
    }
    for (i = 0; i < ls->n_rows; i++) {
        const cs_lrow *r = &ls->rows[i];
        json_t *o = json_object();
        if (!o)
            break;
        json_object_set_new(o, "log", json_string(r->log));
        json_object_set_new(o, "collective", json_string(cs_coll_name(r->coll)));
        json_object_set_new(o, "ranks", json_integer(r->ranks));
        json_object_set_new(o, "size_bytes", json_integer((json_int_t)r->size_bytes));
        json_object_set_new(o, "measured_time_us", json_real(r->measured_us));
        json_object_set_new(o, "simulated_time_us", json_real(r->simulated_us));
        json_object_set_new(o, "error_pct", json_real(cs_lrow_error_pct(r)));
        json_object_set_new(o, "measured_busbw_GBps", json_real(r->measured_busbw_GBps));
        json_object_set_new(o, "simulated_busbw_GBps", json_real(sim_busbw(r)));
        json_object_set_new(o, "algorithm", json_string(r->algo));
        json_object_set_new(o, "protocol", json_string(cs_proto_name(r->proto)));
        json_array_append_new(rows, o);
    }
    json_object_set_new(root, "topology", json_string(t->name));
    json_object_set_new(root, "nccl_table", json_string(np->version));
    json_object_set_new(root, "rows", rows);
    cs_lset_stats(ls, 0, &med, &mean, &max);
    json_object_set_new(root, "median_abs_error_pct", json_real(med));
    json_object_set_new(root, "mean_abs_error_pct", json_real(mean));
    json_object_set_new(root, "max_abs_error_pct", json_real(max));
    rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    fputc('\n', f);
    return rc < 0 || ferror(f) ? CS_EIO : 0;
}

/* --plot: per table of each log, the simulated busbw as a line and the measured busbw as
 * points in the same colour, the error per size in the panel beneath (plots/). */
static int validate_plot(const cs_lset *ls, const cs_topo *t, const char *path, cs_err *err)
{
    cs_series_set set = {NULL, 0, 0};
    cs_series *sim = NULL, *meas = NULL;
    cs_chart chart;
    char label[300], title[256];
    double med = 0, mean = 0, max = 0;
    int i, rc = 0;
    for (i = 0; i < ls->n_rows && rc == 0; i++) {
        const cs_lrow *r = &ls->rows[i];
        cs_point pm, ps;
        if (i == 0 || r->log != ls->rows[i - 1].log || r->table != ls->rows[i - 1].table) {
            const char *base = strrchr(r->log, '/') ? strrchr(r->log, '/') + 1 : r->log;
            char tab[16] = "";
            int k = set.n, j;
            for (j = 0; j < ls->n_rows; j++)   /* number the tables of logs that have several */
                if (ls->rows[j].log == r->log && ls->rows[j].table != r->table)
                    snprintf(tab, sizeof tab, " [%d]", r->table + 1);
            snprintf(label, sizeof label, "%s%s simulated", base, tab);
            if (!(sim = cs_series_add(&set, label, 0)))
                break;
            snprintf(label, sizeof label, "%s%s measured", base, tab);
            if (!(meas = cs_series_add(&set, label, 1)))
                break;
            sim = &set.items[k];
            meas->same_style_as = k + 1;
        }
        pm.size_bytes = ps.size_bytes = (double)r->size_bytes;
        pm.time_us = r->measured_us;
        ps.time_us = r->simulated_us;
        pm.algbw_GBps = pm.size_bytes / (pm.time_us * 1e3);
        ps.algbw_GBps = ps.size_bytes / (ps.time_us * 1e3);
        pm.busbw_GBps = r->measured_busbw_GBps;
        ps.busbw_GBps = sim_busbw(r);
        if ((rc = cs_series_push(sim, &ps, NAN)) == 0)
            rc = cs_series_push(meas, &pm, cs_lrow_error_pct(r));
    }
    if (rc || i < ls->n_rows) {
        cs_series_set_fini(&set);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    cs_lset_stats(ls, 0, &med, &mean, &max);
    snprintf(title, sizeof title, "validate on %s: |error| median %.1f%%, max %.1f%%", t->name, med, max);
    memset(&chart, 0, sizeof chart);
    chart.title = title;
    chart.series = set.items;
    chart.n_series = set.n;
    rc = cs_plot_chart(&chart, path, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, NULL, err);
    cs_series_set_fini(&set);
    return rc;
}

int cs_cmd_validate(int argc, char **argv)
{
    vopts o;
    cs_err err;
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_lset ls;
    cs_out out;
    int rc, on;
    cs_err_clear(&err);
    memset(&ls, 0, sizeof ls);
    rc = parse(argc, argv, &o, &err);
    if (rc != 0) {
        free(o.logs);
        return rc > 0 ? CS_EXIT_OK : cs_cli_fail(&err);
    }
    if ((rc = cs_topo_open(o.topo, &t, &err)) < 0 ||
        (rc = cs_nccl_setup(o.topo, o.proto, 1, &np, &on, &err)) < 0 ||
        (rc = cs_lset_load(&ls, o.logs, o.n_logs, &o.ls, t, &err)) < 0 ||
        (rc = cs_lset_simulate(&ls, t, &np, o.algo, &err)) < 0 ||
        (o.plot && (rc = validate_plot(&ls, t, o.plot, &err)) < 0) ||
        (rc = cs_out_open(&out, o.output, &err)) < 0)
        goto fail;
    rc = !strcmp(o.format, "json") ? write_json(out.f, &ls, t, &np)
                                   : write_text(out.f, &ls, t, &np);
    if (rc < 0) {
        cs_out_abort(&out);
        cs_err_set(&err, rc, o.output, "cannot write the report");
        goto fail;
    }
    if ((rc = cs_out_commit(&out, &err)) < 0)
        goto fail;
    cs_lset_fini(&ls);
    cs_topo_free(t);
    free(o.logs);
    return CS_EXIT_OK;
fail:
    cs_lset_fini(&ls);
    cs_topo_free(t);
    free(o.logs);
    return cs_cli_fail(&err);
}
