/* cmd_compare.c: `collsim compare [PLAN.json] --systems A,B,... [--search] [--tokens N]
 * [--price A=P,...] [--plot F] [--html F]` (cli layer): the plan read as `collsim plan`
 * reads it, run on every system by scenarios/compare.c, printed as a table (text, JSON,
 * CSV), a chart and an HTML page through plots/. */
#include "cli/cli.h"
#include "cli/cmd_plan-private.h"
#include "scenarios/compare.h"
#include "plots/compare.h"
#include "plots/plot.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: collsim compare [PLAN.json] --systems A,B,... [--search] [--tokens N]\n"
    "                       [--price P | --price A=P,B=P,...] [--goodput] [--energy options]\n"
    "                       [--format text|json|csv] [--output FILE] [--plot FILE] [--html FILE]\n"
    "                       [the plan flags of collsim plan: --model M --tp N --pp N --dp N ...]\n\n"
    "One plan on several systems side by side: step time, tokens/s, TFLOP/s and MFU per GPU,\n"
    "memory headroom, and to train N tokens the time, GPU-hours, cost and energy. A system is\n"
    "NAME=TOPO:GPU, TOPO:GPU or TOPO (the GPU from the topology's name: dgx-h100-* h100-sxm,\n"
    "*b200* b200, ...); TOPO is a preset or file, a cluster resized with TOPO#nodes=N.\n"
    "--search runs each system at its fastest layout of the plan's GPU count (ZeRO-1 when\n"
    "dp > 1, sequence parallel with tp > 1). docs/plans.md \"Comparing systems\".\n";

/* The command's own flags, taken out of argv so the plan's scanner sees the rest. */
typedef struct cmp_flags {
    const char *systems, *html;
    int search;
} cmp_flags;

static int take_own(int argc, char **argv, char **rest, int *n_rest, cmp_flags *cf,
                    cs_err *err)
{
    int i, k = 0;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], **dst = NULL;
        size_t len = 0;
        if (!strcmp(a, "--search")) {
            cf->search = 1;
            continue;
        }
        if (!strncmp(a, "--systems", 9))
            dst = &cf->systems, len = 9;
        else if (!strncmp(a, "--html", 6))
            dst = &cf->html, len = 6;
        if (dst && (a[len] == '=' || a[len] == '\0')) {
            if (a[len] == '=')
                *dst = a + len + 1;
            else if (i + 1 < argc)
                *dst = argv[++i];
            else
                return cs_err_set(err, CS_EUSAGE, a, "missing value");
            continue;
        }
        rest[k++] = argv[i];
    }
    *n_rest = k;
    return 0;
}

/* Write the table in fmt, the chart and the page. */
static int write_all(const cs_plan *p, const cs_cmp_row *rows, int n, const cs_budget_opts *bo,
                     const char *fmt, const char *out, const char *plot, const char *html,
                     cs_err *err)
{
    cs_out o;
    int rc;
    if (plot && (rc = cs_plot_compare(rows, n, plot, err)) < 0)
        return rc;
    if (html) {
        char *svg = NULL;
        size_t len;
        if ((rc = cs_plot_compare_svg(rows, n, &svg, &len, err)) < 0 ||
            (rc = cs_out_open(&o, stdout, html, err)) < 0) {
            free(svg);
            return rc;
        }
        rc = cs_compare_print_html(o.f, p, rows, n, bo, svg);
        free(svg);
        if (rc < 0) {
            cs_out_abort(&o);
            return cs_err_set(err, rc, html, "cannot write the page");
        }
        if ((rc = cs_out_commit(&o, err)) < 0)
            return rc;
    }
    if ((rc = cs_out_open(&o, stdout, out, err)) < 0)
        return rc;
    rc = !strcmp(fmt, "json") ? cs_compare_print_json(o.f, p, rows, n, bo)
       : !strcmp(fmt, "csv") ? cs_compare_print_csv(o.f, rows, n)
       : cs_compare_print_text(o.f, p, rows, n, bo);
    if (rc < 0) {
        cs_out_abort(&o);
        return cs_err_set(err, rc, out ? out : "stdout", "cannot write the table");
    }
    return cs_out_commit(&o, err);
}

/* compare's options: its own (read by take_own before the rest) and plan's. */
const cs_opt_spec cs_compare_opts[] = {
    {"systems", 0, 1, O_SYSTEMS}, {"search", 0, 0, O_SEARCH}, {"html", 0, 1, O_HTML},
    CS_PLAN_OPT_ENTRIES,
    {NULL, 0, 0, 0},
};

int cs_cmd_compare(int argc, char **argv)
{
    cmp_flags cf = {NULL, NULL, 0};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    const char *v, *file = NULL, *fmt = NULL, *out = NULL, *plot = NULL, *prices = NULL;
    const cs_opt_spec *o;
    cs_opt_scan sc;
    cs_budget_opts bo;
    cs_cmp_system *sys = NULL;
    cs_cmp_row *rows = NULL;
    cs_plan p;
    cs_err err;
    int rc, n_rest = 0, n_sys = 0, pass;
    cs_err_clear(&err);
    cs_plan_init(&p);
    memset(&bo, 0, sizeof bo);
    if (!rest) {
        rc = cs_err_set(&err, CS_ENOMEM, NULL, "out of memory");
        goto fail;
    }
    if ((rc = take_own(argc, argv, rest, &n_rest, &cf, &err)) < 0)
        goto fail;
    sc = (cs_opt_scan){n_rest, rest, 1};
    while ((rc = cs_opt_next(&sc, cs_plan_opts, &o, &v, &err)) == 1) {
        if (!o && file) {
            rc = cs_err_set(&err, CS_EUSAGE, NULL, "unexpected argument '%s'", v);
            break;
        } else if (!o) {
            file = v;
        } else if (o->id == O_HELP) {
            fputs(usage, stdout);
            rc = 0;
            goto done;
        } else if (o->id == O_NODES || o->id == O_CAL) {
            rc = cs_err_set(&err, CS_EUSAGE, o->id == O_NODES ? "--nodes" : "--calibration",
                            "give each system's size or calibration in --systems "
                            "(NAME=TOPO#nodes=N#calibration=FILE:GPU)");
            break;
        } else if (o->id == O_FMT || o->id == O_OUT || o->id == O_PLOT) {
            *(o->id == O_FMT ? &fmt : o->id == O_OUT ? &out : &plot) = v;
        } else if (CS_CLI_IS_BUDGET(o->id) &&
                   (rc = cs_cli_budget_opt(&bo, o->id, v, &prices, &err)) < 0) {
            break;
        }
    }
    if (rc < 0)
        goto fail;
    fmt = cs_cli_format_of(fmt, out);
    if (strcmp(fmt, "text") && strcmp(fmt, "json") && strcmp(fmt, "csv")) {
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "--format: unknown format '%s' (known: text, "
                        "json, csv)", fmt);
        goto fail;
    }
    if (!cf.systems) {
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "compare needs --systems A,B,... (see --help)");
        goto fail;
    }
    if ((rc = cs_compare_parse_systems(cf.systems, &sys, &n_sys, &err)) < 0 ||
        (prices && (rc = cs_compare_parse_prices(prices, sys, n_sys, &err)) < 0))
        goto fail;
    if (file && (rc = cs_plan_load(file, &p, &err)) < 0)
        goto fail;
    for (pass = 0; pass < 4; pass++)
        if ((rc = cs__plan_apply(&p, stderr, n_rest, rest, pass, &err)) < 0)
            goto fail;
    cs_plan_apply_train(&p);
    {
        /* no output replaces the plan or a system's topology file */
        const char *outs[] = {"--output", out, "--plot", plot, "--html", cf.html}, *ins[65];
        int n_ins = 0, i;
        cs_plot_fmt pf;
        if (file)
            ins[n_ins++] = file;
        for (i = 0; i < n_sys && n_ins < 65; i++)
            ins[n_ins++] = sys[i].topo;
        if ((rc = cs_cli_check_outputs(outs, 3, ins, n_ins, &err)) < 0 ||
            (plot && (rc = cs_plot_format(plot, &pf, &err)) < 0))
            goto fail;
    }
    if (!p.model.layers) {
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "no model: give a PLAN.json or --model");
        goto fail;
    }
    if (!(rows = calloc((size_t)n_sys, sizeof *rows))) {
        rc = cs_err_set(&err, CS_ENOMEM, NULL, "out of memory");
        goto fail;
    }
    if ((rc = cs_compare_run(&p, sys, n_sys, cf.search, &bo, rows, &err)) < 0)
        goto fail;
    if (cs_cli_writes() &&
        (rc = write_all(&p, rows, n_sys, &bo, fmt, out, plot, cf.html, &err)) < 0)
        goto fail;
done:
    free(rows);
    free(sys);
    free(rest);
    cs_plan_fini(&p);
    return CS_EXIT_OK;
fail:
    free(rows);
    free(sys);
    free(rest);
    cs_plan_fini(&p);
    return cs_cli_fail(&err);
}
