/* cmd_plan_logs.c: `collsim plan validate LOG...` and `collsim plan calibrate LOG...
 * --output GPU.json` (cli layer): read training logs, simulate the plans they ran
 * (scenarios/trainlog.h), print the comparison or the fit, write the calibrated GPU. */
#include "cli/cli.h"
#include "cli/cmd_plan-private.h"
#include "scenarios/trainlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L_GPU = 1, L_TOPO, L_FMT, L_OUT, L_HELP };
const cs_opt_spec cs_plan_logs_opts[] = {
    {"gpu", 0, 1, L_GPU}, {"topo", 0, 1, L_TOPO}, {"format", 0, 1, L_FMT},
    {"output", 0, 1, L_OUT}, {"help", 'h', 0, L_HELP}, {NULL, 0, 0, 0},
};

static const char usage[] =
    "usage: collsim plan validate LOG... [--gpu G --topo T] [--format text|json]\n"
    "                                    [--output FILE]\n"
    "       collsim plan calibrate LOG... --output GPU.json [--gpu G --topo T]\n"
    "                                    [--format text|json]\n\n"
    "Read training logs (Megatron-LM/NeMo: the argument dump and the iteration lines;\n"
    "torchtitan: ModelArgs, device mesh, batch and step lines with tps),\n"
    "rebuild the plan each ran and simulate it. validate prints measured against simulated\n"
    "step time and tokens/s and the error per log, and the median |error|. calibrate fits one\n"
    "scale of the GPU's compute figures (matmul and attention TFLOP/s) so that the geometric\n"
    "mean of simulated / measured is 1, reports each log's error at the scale fitted on the\n"
    "others (two logs or more) and what the logs cannot determine, and writes the GPU object\n"
    "to --output (collsim plan --gpu GPU.json reads it).\n"
    "The measured step is the median of the iteration lines after warm-up (the first line\n"
    "and iterations <= 3; torchtitan: (B / dp) s / (tps tp pp cp)). Arguments that change\n"
    "cost and are not modelled are named.\n"
    "      --gpu G            GPU preset (collsim list gpus) or a GPU.json; needed when the log\n"
    "                         does not name its GPU (Megatron's do not; torchtitan's do)\n"
    "      --topo T           topology preset or file (default: the GPU's node preset, or a\n"
    "                         cluster of them on a rail fabric for the log's world size)\n"
    "      --format text|json report format (default text)\n"
    "      --output FILE      validate: the report; calibrate: the GPU.json (required)\n";

static int run(cs_cli_io *io, int calibrate, const char *gpu, const char *topo,
               const char *fmt, const char *out, const char *const *logs, int n, cs_err *err)
{
    cs_trainlog *tl = calloc((size_t)n, sizeof *tl);
    cs_tlog_row *rows = calloc((size_t)n, sizeof *rows);
    cs_tlog_system *sys = calloc(1, sizeof *sys);
    cs_tlog_fit *fit = calloc(1, sizeof *fit);
    cs_out o = {0}, g = {0};
    int i, rc = 0, js = !strcmp(fmt, "json");
    size_t l = gpu ? strlen(gpu) : 0;
    if (!tl || !rows || !sys || !fit) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto done;
    }
    if (gpu) {
        rc = l > 5 && !strcmp(gpu + l - 5, ".json") ? cs_gpu_load(gpu, &sys->gpu, err)
                                                    : cs_gpu_preset(gpu, &sys->gpu, err);
        if (rc < 0) {
            if (rc == CS_ENOENT)
                snprintf(err->where, sizeof err->where, "--gpu");
            goto done;
        }
        sys->gpu_given = 1;
    }
    if (topo)
        snprintf(sys->topo, sizeof sys->topo, "%s", topo);
    for (i = 0; i < n && rc == 0; i++)
        rc = cs_trainlog_load(logs[i], &tl[i], err);
    if (rc < 0)
        goto done;
    rc = calibrate ? cs_tlog_calibrate(tl, n, sys, rows, fit, err)
                   : cs_tlog_validate(tl, n, sys, rows, err);
    if (rc < 0 || !cs_cli_writes())
        goto done;
    if (calibrate) {                       /* the GPU file first: the report says it */
        char desc[400];
        snprintf(desc, sizeof desc, "%s calibrated by collsim plan calibrate on %d log%s "
                 "(compute figures x %.6f)", fit->gpu.name, n, n == 1 ? "" : "s", fit->scale);
        if ((rc = cs_out_open(&g, io->out, out, err)) < 0)
            goto done;
        if ((rc = cs_gpu_print_json(g.f, &fit->gpu, desc)) < 0) {
            cs_out_abort(&g);
            rc = cs_err_set(err, rc, out, "cannot write the GPU object");
            goto done;
        }
        fit->capped = rc > 0;
        if ((rc = cs_out_commit(&g, err)) < 0)
            goto done;
    }
    if ((rc = cs_out_open(&o, io->out, calibrate ? NULL : out, err)) < 0)
        goto done;
    if (js)
        rc = cs_tlog_print_json(o.f, rows, n, calibrate ? fit : NULL, calibrate ? out : NULL);
    else
        cs_tlog_print_text(o.f, rows, n, calibrate ? fit : NULL, calibrate ? out : NULL);
    if (rc < 0) {
        cs_out_abort(&o);
        rc = cs_err_set(err, rc, out, "cannot write the report");
    } else {
        rc = cs_out_commit(&o, err);
    }
done:
    for (i = 0; tl && i < n; i++)
        cs_trainlog_fini(&tl[i]);
    free(tl);
    free(rows);
    free(sys);
    free(fit);
    return rc;
}

int cs__cmd_plan_logs(cs_cli_io *io, int argc, char **argv)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *o;
    const char *v, *gpu = NULL, *topo = NULL, *fmt = "text", *out = NULL, *ins[3];
    const char **logs = calloc((size_t)argc, sizeof *logs);
    int rc, n = 0, n_ins = 0, calibrate = !strcmp(argv[0], "calibrate");
    cs_err err;
    cs_err_clear(&err);
    if (!logs) {
        cs_err_set(&err, CS_ENOMEM, NULL, "out of memory");
        return cs_cli_error(io, &err);
    }
    while ((rc = cs_opt_next(&sc, cs_plan_logs_opts, &o, &v, &err)) == 1) {
        if (!o)
            logs[n++] = v;
        else if (o->id == L_HELP) {
            fputs(usage, stdout);
            free((void *)logs);
            return CS_EXIT_OK;
        } else
            *(o->id == L_GPU ? &gpu : o->id == L_TOPO ? &topo : o->id == L_FMT ? &fmt : &out) = v;
    }
    if (rc == 0 && !n)
        rc = cs_err_set(&err, CS_EUSAGE, NULL, "no log given (usage: collsim plan %s LOG...%s)",
                        argv[0], calibrate ? " --output GPU.json" : "");
    if (rc == 0 && calibrate && !out)
        rc = cs_err_set(&err, CS_EUSAGE, "--output", "missing: the GPU.json to write");
    if (rc == 0 && strcmp(fmt, "text") && strcmp(fmt, "json"))
        rc = cs_err_set(&err, CS_EUSAGE, "--format", "unknown format '%s' (known: text, json)",
                        fmt);
    if (rc == 0) {                          /* no output replaces a log, the GPU or topology */
        const char *outs[] = {"--output", out};
        const char **all = calloc((size_t)n + 3, sizeof *all);
        if (gpu)
            ins[n_ins++] = gpu;
        if (topo)
            ins[n_ins++] = topo;
        if (!all)
            rc = cs_err_set(&err, CS_ENOMEM, NULL, "out of memory");
        else {
            memcpy(all, logs, (size_t)n * sizeof *all);
            memcpy(all + n, ins, (size_t)n_ins * sizeof *all);
            rc = cs_cli_check_outputs(outs, 1, all, n + n_ins, &err);
        }
        free(all);
    }
    if (rc == 0)
        rc = run(io, calibrate, gpu, topo, fmt, out, logs, n, &err);
    free((void *)logs);
    return rc < 0 ? cs_cli_error(io, &err) : CS_EXIT_OK;
}
