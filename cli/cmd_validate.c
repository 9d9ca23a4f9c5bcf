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
    return cs_cli_check_plot(o->plot, err);
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
        (o.plot && (rc = cs_plot_validation(&ls, t, o.plot, &err)) < 0) ||
        (rc = cs_out_open(&out, o.output, &err)) < 0)
        goto fail;
    rc = !strcmp(o.format, "json") ? cs_lset_write_json(out.f, &ls, t, &np)
                                   : cs_lset_write_text(out.f, &ls, t, &np);
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
