/* common.c: shared pieces of the collsim command (cli layer): error printing, the option
 * scanner and atomic output files. */
#include "cli/cli.h"
#include "sim/report.h"
#include "sim/size.h"
#include "plots/plot.h"
#include "sim/par.h"
#include "sim/pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

int cs_cli_fail(const cs_err *err)
{
    /* Under MPI every rank runs the same command on the same input, and a failing work
     * item's error reaches every rank (sim/par.h): rank 0 says it once for all. */
    if (cs_par_rank() != 0)
        return err->code == CS_EUSAGE ? CS_EXIT_USAGE : CS_EXIT_ERR;
    if (err->code == CS_ENOMEM && !strcmp(err->msg, "out of memory"))
        /* the bare words say nothing about what to do: say it */
        fprintf(stderr, "error: %s%sout of memory (the system refused an allocation; a "
                "smaller run, or --max-memory SIZE to refuse large ones up front with an "
                "estimate)\n", err->where, err->where[0] ? ": " : "");
    else if (err->where[0])
        fprintf(stderr, "error: %s: %s\n", err->where, err->msg);
    else
        fprintf(stderr, "error: %s\n", err->msg);
    return err->code == CS_EUSAGE ? CS_EXIT_USAGE : CS_EXIT_ERR;
}

int cs_opt_next(cs_opt_scan *sc, const cs_opt_spec *specs, const cs_opt_spec **spec,
                const char **val, cs_err *err)
{
    const char *a;
    const cs_opt_spec *s;
    if (sc->i >= sc->argc)
        return 0;
    a = sc->argv[sc->i++];
    *val = NULL;
    *spec = NULL;
    if (a[0] != '-' || a[1] == '\0' || (a[1] >= '0' && a[1] <= '9')) {
        *val = a;                           /* positional (or a negative number) */
        return 1;
    }
    if (a[1] == '-') {
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        for (s = specs; s->lng; s++)
            if (strlen(s->lng) == len && !strncmp(s->lng, name, len))
                break;
        if (!s->lng)
            return cs_err_set(err, CS_EUSAGE, NULL, "unknown option '--%.*s' (see --help)",
                              (int)len, name);
        *spec = s;
        if (!s->has_arg) {
            if (eq)
                return cs_err_set(err, CS_EUSAGE, a, "option takes no value");
            return 1;
        }
        if (eq) {
            *val = eq + 1;
        } else {
            if (sc->i >= sc->argc)
                return cs_err_set(err, CS_EUSAGE, a, "missing value");
            *val = sc->argv[sc->i++];
        }
        return 1;
    }
    for (s = specs; s->lng; s++)
        if (s->shrt && s->shrt == a[1])
            break;
    if (!s->lng)
        return cs_err_set(err, CS_EUSAGE, NULL, "unknown option '%s' (see --help)", a);
    *spec = s;
    if (!s->has_arg) {
        if (a[2])
            return cs_err_set(err, CS_EUSAGE, NULL, "unknown option '%s' (see --help)", a);
        return 1;
    }
    if (a[2]) {
        *val = a + 2;
    } else {
        if (sc->i >= sc->argc)
            return cs_err_set(err, CS_EUSAGE, a, "missing value");
        *val = sc->argv[sc->i++];
    }
    return 1;
}

int cs_out_open(cs_out *o, FILE *std, const char *path, cs_err *err)
{
    memset(o, 0, sizeof *o);
    if (!path || !strcmp(path, "-") || !cs_cli_writes()) {
        o->f = std;
        return 0;
    }
    if (cs_outfile_open(&o->file, path, err) < 0)
        return err->code;
    o->f = o->file.f;
    o->is_file = 1;
    return 0;
}

int cs_out_commit(cs_out *o, cs_err *err)
{
    if (!o->is_file) {
        if (fflush(o->f) != 0 || ferror(o->f))
            return cs_err_set(err, CS_EIO, "stdout", "write failed: %s",
                              strerror(errno ? errno : EIO));
        return 0;
    }
    o->f = NULL;
    o->is_file = 0;
    return cs_outfile_commit(&o->file, err);
}

void cs_out_abort(cs_out *o)
{
    if (o->is_file)
        cs_outfile_abort(&o->file);
    memset(o, 0, sizeof *o);
}

int cs_cli_writes(void)
{
    return cs_par_rank() == 0;
}

/* The progress line: after a second of work, at most four times a second, rank 0 only
 * (sim/par.c calls it there), and only when stderr is a terminal (main installs it). */
static int g_progress_shown;
void cs_cli_progress(const char *label, int done, int total, double elapsed_s, double left_s)
{
    static double last_s = -1;
    if (left_s < 0) {
        if (g_progress_shown)
            fputs("\r\033[K", stderr);
        g_progress_shown = 0;
        last_s = -1;
        return;
    }
    if (elapsed_s < 1.0 || (last_s >= 0 && elapsed_s - last_s < 0.25 && done < total))
        return;
    last_s = elapsed_s;
    fprintf(stderr, "\r%s: %d/%d done, %.0f s elapsed, about %.0f s left\033[K", label, done,
            total, elapsed_s, left_s);
    fflush(stderr);
    g_progress_shown = 1;
}

int cs_cli_check_outputs(const char *const *outs, int n_outs, const char *const *ins, int n_ins,
                         cs_err *err)
{
    int i, rc;
    for (i = 0; i < n_outs; i++)
        if ((rc = cs_outfile_not_input(outs[2 * i + 1], outs[2 * i], ins, n_ins, err)) < 0)
            return rc;
    return 0;
}

int cs_cli_check_plot(const char *path, cs_err *err)
{
    cs_plot_fmt fmt;
    if (path && cs_plot_format(path, &fmt, err) < 0)
        return cs_err_set(err, CS_EUSAGE, "--plot", "unknown file type '%s' (expected .png, "
                          ".svg or .pdf)", strrchr(path, '.') ? strrchr(path, '.') : "");
    return 0;
}

const char *cs_cli_format_of(const char *format, const char *output)
{
    const char *dot = output ? strrchr(output, '.') : NULL;
    if (format)
        return format;
    return dot && !strcmp(dot, ".json") ? "json" : dot && !strcmp(dot, ".csv") ? "csv" : "text";
}

int cs_logcmd_parse(int argc, char **argv, const cs_opt_spec *specs, void (*usage)(void),
                    cs_logcmd *o, cs_err *err)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *sp;
    const char *v;
    cs_topo_mods mods = {NULL, NULL};
    int rc;
    memset(o, 0, sizeof *o);
    o->format = "text";
    o->max_iter = 100;
    o->ls.default_coll = CS_LOG_COLL_UNKNOWN;
    if (!(o->logs = calloc((size_t)argc + 1, sizeof *o->logs)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    while ((rc = cs_opt_next(&sc, specs, &sp, &v, err)) > 0) {
        if (!sp) {
            o->logs[o->n_logs++] = (char *)(uintptr_t)v;
            continue;
        }
        switch (sp->id) {
        case CS_LOGCMD_TOPO: o->topo = v; break;
        case CS_LOGCMD_NODES: mods.nodes = v; break;
        case CS_LOGCMD_CAL: mods.cal = v; break;
        case CS_LOGCMD_FORMAT: o->format = v; break;
        case CS_LOGCMD_ALGO: o->algo = v; break;
        case CS_LOGCMD_PROTO: o->proto = v; break;
        case CS_LOGCMD_OUTPUT: o->output = v; break;
        case CS_LOGCMD_PLOT: o->plot = v; break;
        case CS_LOGCMD_FIX: o->fix = v; break;
        case CS_LOGCMD_ITER: rc = cs_parse_int(v, "--max-iter", 1, 100000, &o->max_iter, err); break;
        case CS_LOGCMD_HELP: usage(); return 1;
        case CS_LOGCMD_THREADS: rc = cs_pool_parse_threads(v, "--threads", &o->threads, err); break;
        default: rc = cs_lset_option(sp->id, v, &o->ls, err); break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc == 0) {
        /* neither the report nor the picture may replace a log or the topology file: the
         * topology rides in the logs' array's spare last slot for the check */
        const char *outs[] = {"--output", o->output, "--plot", o->plot};
        o->logs[o->n_logs] = (char *)(uintptr_t)o->topo;
        rc = cs_cli_check_outputs(outs, 2, (const char *const *)o->logs, o->n_logs + 1, err);
        o->logs[o->n_logs] = NULL;
    }
    if (rc == 0 && (mods.nodes || mods.cal)) {
        if (!o->topo)
            return cs_err_set(err, CS_EUSAGE, mods.nodes ? "--nodes" : "--calibration",
                              "applies to the --topo topology: give --topo too");
        if (!(o->topo = cs_cli_spec(o->topo, &mods, o->topo_buf, sizeof o->topo_buf,
                                    err)))
            return CS_EUSAGE;
    }
    return rc;
}
