/* cmd_calibrate.c: `collsim calibrate LOG... --topo T --output FILE` (cli layer). Runs the
 * fit (calibration/calibrate.h), prints the fitted values with their uncertainties, the
 * residual of every size and the error summary, and writes a topology JSON that run and
 * validate accept, recording what it was fitted on. */
#include "cli/cli.h"
#include "calibration/calibrate.h"
#include "sim/size.h"
#include "topologies/topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

const cs_opt_spec cs_calibrate_opts[] = {
    {"topo", 0, 1, CS_LOGCMD_TOPO}, CS_TOPO_MOD_SPECS(CS_LOGCMD_NODES, CS_LOGCMD_CAL),
    {"output", 0, 1, CS_LOGCMD_OUTPUT},
    {"algo", 0, 1, CS_LOGCMD_ALGO}, {"proto", 0, 1, CS_LOGCMD_PROTO},
    {"fix", 0, 1, CS_LOGCMD_FIX}, {"max-iter", 0, 1, CS_LOGCMD_ITER},
    {"threads", 0, 1, CS_LOGCMD_THREADS}, {"help", 'h', 0, CS_LOGCMD_HELP},
    CS_LSET_SPECS,
    {NULL, 0, 0, 0},
};

static void usage(void)
{
    printf("usage: collsim calibrate LOG... --topo PRESET|FILE --output FILE [options]\n\n"
           "Fit the topology to measured nccl-tests, rccl-tests or hccl_test logs: bandwidth\n"
           "and latency of every link class the logs' ranks use, the launch cost, and the\n"
           "protocols' per-transfer latency and bandwidth efficiency where the data tell them\n"
           "apart (least squares on log time, simulator in the loop). A log of n ranks runs\n"
           "on the topology's first n ranks. Writes a topology JSON with an \"nccl\" object.\n\n"
           "      --topo PRESET|FILE  starting topology (required)\n"
           "      --nodes N           the --topo cluster resized to N nodes\n"
           "      --calibration FILE  a calibration's figures laid over --topo\n"
           "      --output FILE       calibrated topology JSON (required)\n"
           "      --min-bytes SIZE    fit only sizes >= SIZE\n"
           "      --sizes odd|even    only the 1st, 3rd, ... (odd) or 2nd, 4th, ... (even)\n"
           "                          size of each table, to hold out the other half\n"
           "      --keep-ranks N,...  only the tables of these rank counts\n"
           "      --max-bytes SIZE    fit only sizes <= SIZE\n"
           "      --coll COLL         collective of logs that do not name it\n"
           "      --ranks N           ranks of logs that do not tell\n"
           "      --algo NAME         algorithm (default: NCCL's choice by predicted time)\n"
           "      --proto P           auto (default), LL, LL128 or Simple\n"
           "      --fix NAME,...      hold parameters at their start (e.g. launch_us)\n"
           "      --max-iter N        iteration limit (default 100)\n"
           "      --threads N         threads simulating the candidates (default: the CPUs\n"
           "                          online, or COLLSIM_THREADS); 1 = serial. The same\n"
           "                          output for every N\n");
}

typedef cs_logcmd copts;

static int parse(int argc, char **argv, copts *o, cs_err *err)
{
    int rc = cs_logcmd_parse(argc, argv, cs_calibrate_opts, usage, o, err);
    if (rc != 0)
        return rc;
    if (o->n_logs == 0)
        return cs_err_set(err, CS_EUSAGE, NULL, "no log given (usage: collsim calibrate "
                          "LOG... --topo PRESET|FILE --output FILE)");
    if (!o->topo)
        return cs_err_set(err, CS_EUSAGE, "--topo", "missing: the topology to start from");
    if (!o->output)
        return cs_err_set(err, CS_EUSAGE, "--output", "missing: where to write the "
                          "calibrated topology");
    return 0;
}

static void print_report(FILE *f, const cs_calib *c, const copts *o)
{
    int i, n;
    double med, mean, max;
    fprintf(f, "# collsim calibrate: %d log%s, %d rows, topology %s, NCCL table %s\n",
           c->ls->n_logs, c->ls->n_logs == 1 ? "" : "s", c->ls->n_rows, c->t->name,
           c->np->version);
    cs_lset_env_write(f, c->ls, "# ");
    if (c->plan_ranks > 0)
        fprintf(f, "# NCCL's channel plan for %d ranks of this PCIe host (its ring search): %d "
               "channels of %g GB/s, fitted as channel_GBps\n", c->plan_ranks,
               c->np->channels, c->start[c->p_chan]);
    fprintf(f, "# fit: %d of %d parameters free, %d iterations (%s) in round %d, rms of log(sim/meas) "
           "%.4f -> %.4f\n", c->fr.n_free, c->n_par, c->fr.n_iter,
           c->fr.converged ? "converged" : "iteration limit", c->n_rounds,
           sqrt(c->fr.cost0 / c->ls->n_rows), c->fr.rms_log);
    fprintf(f, "# work: %ld model evaluations (all candidates every %dth, those within %gx of the "
           "fastest between), %ld with the kept candidate only (finite differences)\n#\n",
           c->n_evals, CS_CALIB_FULL_EVERY, CS_CALIB_KEEP, c->n_pinned);
    fprintf(f, "# %-26s %12s %12s %12s\n", "parameter", "start", "fitted", "+- 1 sigma");
    for (i = 0; i < c->n_par; i++) {
        const cs_fit_param *p = &c->par[i];
        if (c->held[i] == CS_CALIB_HELD_UNDETERMINED)
            fprintf(f, "  %-26s %12.6g %12.6g   not determined: held at its start value\n"
                    "  %-26s %12s %12s   (to determine it: %s)\n", p->name, c->start[i], p->value,
                    "", "", "", cs_calib_hint(c, i));
        else if (c->held[i] == CS_CALIB_HELD_FIX)
            fprintf(f, "  %-26s %12.6g %12.6g   held (--fix)\n", p->name, c->start[i], p->value);
        else if (p->is_fixed)
            fprintf(f, "  %-26s %12.6g %12.6g   not determined alone: it moves with others the "
                    "logs cannot tell it from (they rule out its start value)\n", p->name,
                    c->start[i], p->value);
        else if (cs_calib_at_bound(p))
            fprintf(f, "  %-26s %12.6g %12.6g   at its %s bound: the logs push it out of range%s\n",
                   p->name, c->start[i], p->value, cs_calib_at_bound(p) < 0 ? "lower" : "upper",
                   i == c->p_gamma && cs_calib_at_bound(p) > 0 ? " (no reduction cost)" : "");
        else if (c->uncertain[i])
            fprintf(f, "  %-26s %12.6g %12.6g %12.3g   poorly determined: 1 sigma is over half the "
                    "value (the logs rule out its start value)\n", p->name, c->start[i], p->value,
                    p->sigma);
        else if (!isfinite(p->sigma))
            fprintf(f, "  %-26s %12.6g %12.6g   not determined: no simulated time depends on it\n",
                   p->name, c->start[i], p->value);
        else
            fprintf(f, "  %-26s %12.6g %12.6g %12.3g\n", p->name, c->start[i], p->value, p->sigma);
    }
    if (cs_calib_dir_note(c))
        fprintf(f, "# %s\n", cs_calib_dir_note(c));
    fprintf(f, "#\n# residuals per size: error = (simulated - measured) / measured\n");
    fprintf(f, "# %-46s %-13s %5s %12s %12s %12s %8s  %s\n", "log", "collective", "ranks", "size",
           "measured_us", "simulated_us", "error_%", "algorithm/protocol");
    for (i = 0; i < c->ls->n_rows; i++) {
        const cs_lrow *r = &c->ls->rows[i];
        fprintf(f, "  %-46s %-13s %5d %12llu %12.2f %12.2f %8.2f  %s/%s\n",
               cs_lset_basename(r->log), cs_coll_name(r->coll), r->ranks,
               (unsigned long long)r->size_bytes, r->measured_us, r->simulated_us,
               cs_lrow_error_pct(r), r->algo, cs_proto_name(r->proto));
    }
    cs_lset_stats(c->ls, 0, &med, &mean, &max);
    fprintf(f, "# all sizes: %d rows, |error| median %.2f%%, mean %.2f%%, max %.2f%%\n",
           c->ls->n_rows, med, mean, max);
    n = cs_lset_stats(c->ls, 1u << 20, &med, &mean, &max);
    if (n > 0)
        fprintf(f, "# sizes >= 1 MiB: %d rows, |error| median %.2f%%, mean %.2f%%, max %.2f%%\n",
               n, med, mean, max);
    fprintf(f, "# wrote %s\n", o->output);
}

int cs_cmd_calibrate_io(cs_cli_io *io, int argc, char **argv)
{
    copts o;
    cs_err err;
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_lset ls;
    cs_calib c;
    cs_calib_opts co;
    char desc[1024], *text = NULL;
    cs_out out;
    int rc, on;
    double med, mean, max;
    cs_err_clear(&err);
    memset(&ls, 0, sizeof ls);
    memset(&c, 0, sizeof c);
    rc = parse(argc, argv, &o, &err);
    if (rc != 0) {
        free(o.logs);
        return rc > 0 ? CS_EXIT_OK : cs_cli_error(io, &err);
    }
    memset(&co, 0, sizeof co);
    co.topo_spec = o.topo;
    co.algo = o.algo;
    co.fix = o.fix;
    co.max_iter = (int)o.max_iter;
    co.ls = &o.ls;
    co.logs = o.logs;
    co.n_logs = o.n_logs;
    co.threads = o.threads;
    if ((rc = cs_topo_open(o.topo, &t, &err)) < 0 ||
        (rc = cs_nccl_setup(o.topo, o.proto, 1, &np, &on, &err)) < 0 ||
        (rc = cs_lset_load(&ls, o.logs, o.n_logs, &o.ls, t, &err)) < 0 ||
        (rc = cs_lset_env_apply(&ls, t, &np, o.algo, o.proto, &err)) < 0 ||
        (rc = cs_calib_run(&c, t, &np, &ls, &co, &err)) < 0)
        goto fail;
    cs_lset_stats(&ls, 0, &med, &mean, &max);
    snprintf(desc, sizeof desc, "Calibrated by `collsim calibrate` on %d log%s (%d rows) "
             "from %s: |time error| median %.2f%%, max %.2f%% (see nccl.calibration).",
             o.n_logs, o.n_logs == 1 ? "" : "s", ls.n_rows, o.topo, med, max);
    if ((rc = cs_calib_topology_json(o.topo, t, cs_calib_nccl_json(&c, &co), desc, &text,
                                     &err)) < 0 ||
        (rc = cs_out_open(&out, io->out, o.output, &err)) < 0)
        goto fail;
    fputs(text, out.f);
    fputc('\n', out.f);
    if (ferror(out.f)) {
        cs_out_abort(&out);
        rc = cs_err_set(&err, CS_EIO, o.output, "cannot write");
        goto fail;
    }
    if ((rc = cs_out_commit(&out, &err)) < 0)
        goto fail;
    print_report(io->out, &c, &o);
    free(text);
    cs_calib_fini(&c);
    cs_lset_fini(&ls);
    cs_topo_free(t);
    free(o.logs);
    return CS_EXIT_OK;
fail:
    free(text);
    cs_calib_fini(&c);
    cs_lset_fini(&ls);
    cs_topo_free(t);
    free(o.logs);
    return cs_cli_error(io, &err);
}
