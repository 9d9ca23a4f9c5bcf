/* cmd_run.c: `collsim run [COLL] [options]` (cli layer). Simulates a size sweep of one
 * collective with nccl-tests' flags and prints nccl-tests' table (or JSON/CSV). */
#include "cli/cli.h"
#include "sim/exec.h"
#include "sim/report.h"
#include "sim/size.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"
#include "plots/plot.h"
#include "plots/timeline.h"
#include "algorithms/run.h"

#include <stdlib.h>
#include <string.h>

/* Everything `run` was asked for. */
typedef struct run_opts {
    const char *coll_name;     /* positional COLL, default allreduce */
    uint64_t min_bytes, max_bytes, step_bytes;  /* -b -e -i */
    long step_factor;          /* -f (0 when -i is used) */
    long ranks;                /* -g, 0 = every rank of the topology */
    const char *dtype;         /* -d */
    const char *redop;         /* -o */
    long root;                 /* -r */
    const char *topo;          /* --topo */
    const char *algo;          /* --algo */
    long chunks;               /* --chunks */
    long servers;              /* --servers */
    long channels;             /* --channels */
    long check;                /* -c: 1 = data check */
    const char *format;        /* --format text|json|csv */
    const char *output;        /* --output */
    int links;                 /* --links: report the busiest links of the largest size */
    const char *proto;         /* --proto auto|LL|LL128|Simple|none, NULL if not given */
    const char *plot;          /* --plot FILE: draw the sweep (PNG/SVG/PDF), NULL if not asked */
    const char *trace;         /* --trace FILE: Perfetto trace of the one size, NULL if not asked */
} run_opts;

enum {
    O_MINB = 1, O_MAXB, O_FACTOR, O_STEPB, O_RANKS, O_DTYPE, O_OP, O_ROOT, O_TOPO, O_ALGO,
    O_CHUNKS, O_SERVERS, O_CHANNELS, O_CHECK, O_FORMAT, O_OUTPUT, O_IGNORED, O_HELP, O_LINKS,
    O_PROTO, O_PLOT, O_TRACE
};

static const cs_opt_spec run_specs[] = {
    {"minbytes", 'b', 1, O_MINB}, {"maxbytes", 'e', 1, O_MAXB},
    {"stepfactor", 'f', 1, O_FACTOR}, {"stepbytes", 'i', 1, O_STEPB},
    {"ranks", 'g', 1, O_RANKS}, {"datatype", 'd', 1, O_DTYPE}, {"op", 'o', 1, O_OP},
    {"root", 'r', 1, O_ROOT}, {"topo", 0, 1, O_TOPO}, {"algo", 0, 1, O_ALGO},
    {"chunks", 0, 1, O_CHUNKS}, {"servers", 0, 1, O_SERVERS},
    {"channels", 0, 1, O_CHANNELS}, {"check", 'c', 1, O_CHECK}, {"format", 0, 1, O_FORMAT},
    {"output", 0, 1, O_OUTPUT}, {"iters", 'n', 1, O_IGNORED},
    {"warmup_iters", 'w', 1, O_IGNORED}, {"help", 'h', 0, O_HELP}, {"links", 0, 0, O_LINKS},
    {"proto", 0, 1, O_PROTO}, {"plot", 0, 1, O_PLOT}, {"trace", 0, 1, O_TRACE},
    {NULL, 0, 0, 0},
};

static void run_usage(void)
{
    printf("usage: collsim run [COLL] [options]\n\n"
           "Simulate a size sweep of one collective and print nccl-tests' table.\n"
           "COLL: allreduce (default), allgather, reducescatter, broadcast, reduce, gather,\n"
           "      scatter, alltoall, sendrecv, barrier (nccl-tests names like all_reduce_perf too),\n"
           "      or all: every one of them in that order, one table each\n\n"
           "  -b, --minbytes SIZE     smallest size (default 8; K, M, G, T suffixes)\n"
           "  -e, --maxbytes SIZE     largest size (default 128M)\n"
           "  -f, --stepfactor F      multiply the size by F each step (default 2)\n"
           "  -i, --stepbytes SIZE    add SIZE each step instead\n"
           "  -g, --ranks N           ranks (default: every rank of the topology)\n"
           "  -d, --datatype T        float (default), half, bfloat16, double, int8, ...\n"
           "  -o, --op OP             sum (default), prod, max, min, avg\n"
           "  -r, --root R            root of broadcast/reduce/gather/scatter (default 0)\n"
           "  -c, --check 0|1         symbolic data check for #wrong (default 1)\n"
           "  -n, -w                  accepted for nccl-tests compatibility, ignored\n"
           "      --topo PRESET|FILE  topology (default %s; `collsim list topologies`)\n"
           "      --algo NAME|auto    algorithm (default auto; `collsim list algorithms`)\n"
           "      --chunks N          pipeline chunks per step (default 1 = textbook)\n"
           "      --servers K         parameter_server: server ranks (default 1)\n"
           "      --channels N        parallel rings/trees (default 1, or the topology's NCCL\n"
           "                          table)\n"
           "      --format text|json|csv   output format (default text, or by --output suffix)\n"
           "      --output FILE       write there instead of stdout (atomically)\n"
           "      --proto P           NCCL mode: auto (by time), LL, LL128 or Simple; none for\n"
           "                          the bare fabric (default: NCCL mode only if the topology\n"
           "                          has an \"nccl\" object, as the H100/B200 presets do)\n"
           "      --links             report the busiest links of the largest size and name\n"
           "                          the bottleneck (link-level fabrics)\n"
           "      --plot FILE         also draw the sweep (.png, .svg or .pdf)\n"
           "      --trace FILE        one size (-b = -e): write a Perfetto/Chrome trace (JSON)\n",
           CS_DEFAULT_PRESET);
}

/* --plot needs a picture type; --trace one size and the plain model. */
static int check_picture_opts(const run_opts *o, cs_err *err)
{
    if (cs_cli_check_plot(o->plot, err) < 0)
        return CS_EUSAGE;
    if (o->trace && o->min_bytes != o->max_bytes)
        return cs_err_set(err, CS_EUSAGE, "--trace", "traces one size: give -b and -e equal");
    if ((o->plot || o->trace) && !strcmp(o->coll_name, "all"))
        return cs_err_set(err, CS_EUSAGE, o->plot ? "--plot" : "--trace", "draws one "
                          "collective, not all");
    return 0;
}

static int parse_args(int argc, char **argv, run_opts *o, cs_err *err)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *sp;
    const char *v;
    int rc, have_f = 0, have_coll = 0;
    memset(o, 0, sizeof *o);
    o->coll_name = "allreduce";
    o->min_bytes = 8;
    o->max_bytes = 128ull << 20;
    o->step_factor = 2;
    o->dtype = "float";
    o->redop = "sum";
    o->topo = CS_DEFAULT_PRESET;
    o->algo = "auto";
    o->chunks = 1;
    o->servers = 1;
    o->channels = 0;          /* not given: 1, or the topology's NCCL table */
    o->check = 1;
    while ((rc = cs_opt_next(&sc, run_specs, &sp, &v, err)) > 0) {
        if (!sp) {
            if (have_coll)
                return cs_err_set(err, CS_EUSAGE, NULL, "unexpected argument '%s' (the "
                                  "collective was already given as '%s')", v, o->coll_name);
            o->coll_name = v;
            have_coll = 1;
            continue;
        }
        switch (sp->id) {
        case O_MINB: rc = cs_parse_size(v, "-b", &o->min_bytes, err); break;
        case O_MAXB: rc = cs_parse_size(v, "-e", &o->max_bytes, err); break;
        case O_FACTOR: rc = cs_parse_int(v, "-f", 2, 1 << 20, &o->step_factor, err); have_f = 1; break;
        case O_STEPB:
            rc = cs_parse_size(v, "-i", &o->step_bytes, err);
            if (rc == 0 && o->step_bytes == 0)
                rc = cs_err_set(err, CS_EUSAGE, "-i", "must be > 0");
            break;
        case O_RANKS: rc = cs_parse_int(v, "-g", 1, 1 << 20, &o->ranks, err); break;
        case O_DTYPE: o->dtype = v; break;
        case O_OP: o->redop = v; break;
        case O_ROOT: rc = cs_parse_int(v, "-r", 0, 1 << 20, &o->root, err); break;
        case O_TOPO: o->topo = v; break;
        case O_ALGO: o->algo = v; break;
        case O_CHUNKS: rc = cs_parse_int(v, "--chunks", 1, 65535, &o->chunks, err); break;
        case O_SERVERS: rc = cs_parse_int(v, "--servers", 1, 1 << 20, &o->servers, err); break;
        case O_CHANNELS: rc = cs_parse_int(v, "--channels", 1, 64, &o->channels, err); break;
        case O_CHECK: rc = cs_parse_int(v, "-c", 0, 1, &o->check, err); break;
        case O_FORMAT: o->format = v; break;
        case O_OUTPUT: o->output = v; break;
        case O_HELP: run_usage(); return 1;
        case O_LINKS: o->links = 1; break;
        case O_PROTO: o->proto = v; break;
        case O_PLOT: o->plot = v; break;
        case O_TRACE: o->trace = v; break;
        default: break;                      /* -n, -w: nothing to repeat in a simulation */
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (o->step_bytes && have_f)
        return cs_err_set(err, CS_EUSAGE, "-i", "give either -f or -i, not both");
    if (o->step_bytes)
        o->step_factor = 0;
    if (o->max_bytes < o->min_bytes)
        return cs_err_set(err, CS_EUSAGE, "-e", "maxbytes %llu is smaller than minbytes %llu",
                          (unsigned long long)o->max_bytes, (unsigned long long)o->min_bytes);
    o->format = cs_cli_format_of(o->format, o->output);
    if (strcmp(o->format, "text") && strcmp(o->format, "json") && strcmp(o->format, "csv"))
        return cs_err_set(err, CS_EUSAGE, "--format", "unknown format '%s' (known: text, json, csv)",
                          o->format);
    return check_picture_opts(o, err);
}

/* --plot: the sweep as a chart; --trace: the one size run again with the recorder, written
 * as Perfetto trace JSON. Both files are written atomically by plots/. */
static int run_pictures(const run_opts *o, const cs_run_cfg *cfg, const cs_topo *t,
                        cs_coll coll, int p, int elt, const cs_sweep *sw, cs_err *err)
{
    char title[256];
    cs_sched s;
    cs_sim_costs costs;
    int rc = 0;
    snprintf(title, sizeof title, "%s, %d ranks, %s", cs_coll_name(coll), p, t->name);
    if (o->plot && (rc = cs_plot_sweep(sw, title, o->plot, err)) < 0)
        return rc;
    if (!o->trace)
        return 0;
    if ((rc = cs_run_schedule(cfg, t, coll, p, elt, o->min_bytes, &s, &costs, err)) < 0)
        return rc;
    rc = cs_trace_schedule(t, &s, &costs, o->trace, err);
    cs_sched_fini(&s);
    return rc;
}

/* Print the sweeps (sim/report.h: one table each, a JSON array with `all`). */
static int write_report(const run_opts *o, cs_sweep *sw, int n, int all, cs_err *err)
{
    cs_out out;
    int rc;
    if ((rc = cs_out_open(&out, o->output, err)) < 0)
        return rc;
    if ((rc = cs_report_sweeps(out.f, o->format, sw, n, all)) < 0) {
        cs_out_abort(&out);
        return cs_err_set(err, rc, o->output, "cannot write the report");
    }
    return cs_out_commit(&out, err);
}

int cs_cmd_run(int argc, char **argv)
{
    run_opts o;
    cs_run_cfg cfg;
    cs_err err;
    cs_topo *t = NULL;
    cs_coll one;
    const cs_coll *colls = &one;
    cs_dtype dt;
    const char *redop;
    cs_sweep sw[16];
    cs_run_task tasks[16];
    uint64_t *sizes = NULL;
    int n_sizes = 0, rc, p, k, n_colls = 1, all, nccl_on = 0;
    char model[256], bottleneck[16][256];
    cs_nccl_params np;
    cs_err_clear(&err);
    memset(sw, 0, sizeof sw);
    rc = parse_args(argc, argv, &o, &err);
    if (rc > 0)
        return CS_EXIT_OK;
    if (rc < 0)
        return cs_cli_fail(&err);
    /* `run all`: every collective, one table each, as nccl-tests' scripts run them */
    if ((all = !strcmp(o.coll_name, "all")) != 0)
        colls = cs_run_all_colls(&n_colls);
    else if ((rc = cs_coll_lookup_program(o.coll_name, &one, &err)) < 0) {
        err.code = CS_EUSAGE;
        return cs_cli_fail(&err);
    }
    if (cs_dtype_lookup(o.dtype, &dt, &err) < 0 || cs_redop_lookup(o.redop, &redop, &err) < 0)
        return cs_cli_fail(&err);
    if ((rc = cs_topo_open(o.topo, &t, &err)) < 0) {
        cs_err_prefix(&err, NULL);
        return cs_cli_fail(&err);
    }
    if ((rc = cs_nccl_setup(o.topo, o.proto, 0, &np, &nccl_on, &err)) < 0)
        goto out;
    if (nccl_on && o.channels > 0)
        np.channels = (int)o.channels;   /* --channels over the table's */
    cs_run_cfg_init(&cfg);
    cfg.algo = o.algo;
    cfg.chunks = (int)o.chunks;
    cfg.servers = (int)o.servers;
    cfg.channels = (int)o.channels;
    cfg.root = (int)o.root;
    cfg.check = (int)o.check;
    cfg.nccl = nccl_on ? &np : NULL;
    p = o.ranks ? (int)o.ranks : t->n_ranks;
    if (p > t->n_ranks) {
        rc = cs_err_set(&err, CS_EUSAGE, "-g", "%d ranks requested but topology '%s' has %d",
                        p, t->name, t->n_ranks);
        goto out;
    }
    if ((all || cs_coll_is_rooted(one)) && o.root >= p) {
        rc = cs_err_set(&err, CS_EUSAGE, "-r", "root must be between 0 and %d, got %ld", p - 1,
                        o.root);
        goto out;
    }
    if (!all && one == CS_COLL_BARRIER)
        o.min_bytes = o.max_bytes = 0;
    if ((rc = cs_run_sizes(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes, &sizes,
                           &n_sizes, &err)) < 0)
        goto out;
    cs_run_model_line(t, cfg.nccl, model, sizeof model);
    for (k = 0; k < n_colls; k++) {
        cs_run_header(&sw[k], colls[k], o.algo, t, dt.name, redop, p, (int)o.root,
                      (int)o.chunks, model);
        cs_run_task_set(&tasks[k], &sw[k], sizes, n_sizes, o.links, bottleneck[k],
                        sizeof bottleneck[k]);
    }
    if ((rc = cs_run_sweeps(&cfg, t, p, dt.bytes, tasks, n_colls, &err)) < 0)
        goto out;
    if ((o.plot || o.trace) && cs_cli_writes() &&
        (rc = run_pictures(&o, &cfg, t, one, p, dt.bytes, &sw[0], &err)) < 0)
        goto out;
    rc = write_report(&o, sw, n_colls, all, &err);
out:
    rc = rc < 0 ? cs_cli_fail(&err) : CS_EXIT_OK;
    free(sizes);
    for (k = 0; k < n_colls; k++)
        cs_sweep_fini(&sw[k]);
    cs_topo_free(t);
    return rc;
}
