/* cmd_run.c: `collsim run [COLL|all] [options]` (cli layer). Simulates a size sweep of one
 * collective with nccl-tests' flags and prints nccl-tests' table (or JSON/CSV); with a
 * range or list of rank counts (-g 2:64) or algorithms (--algo a,b), one sweep each
 * (algorithms/run.h: cs_run_grid_run). */
#include "cli/cli.h"
#include "sim/exec.h"
#include "sim/report.h"
#include "sim/size.h"
#include "sim/limits.h"
#include "sim/par.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"
#include "plots/plot.h"
#include "plots/timeline.h"
#include "algorithms/run.h"
#include "algorithms/run_multi.h"

#include <stdlib.h>
#include <string.h>

/* Everything `run` was asked for. */
typedef struct run_opts {
    const char *coll_name;     /* positional COLL, default allreduce */
    uint64_t min_bytes, max_bytes, step_bytes;  /* -b -e -i */
    long step_factor;          /* -f (0 when -i is used) */
    const char *ranks;         /* -g: N, A:B, A:B:+K, A:B:*F or A,B,C; NULL = every rank */
    const char *total;         /* --ranks: total ranks (overrides -g x -t), NULL if not given */
    long threads;              /* -t: threads per process (nccl-tests), 0 if not given */
    const char *json_file;     /* -J FILE: also write collsim's JSON there, NULL if not asked */
    const char *dtype;         /* -d */
    const char *redop;         /* -o */
    long root;                 /* -r */
    const char *topo;          /* --topo */
    const char *algo;          /* --algo NAME or a comma list */
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
    char topo_buf[CS_CLI_SPEC_MAX];  /* --topo with --nodes, --calibration */
} run_opts;

enum {
    O_MINB = 1, O_MAXB, O_FACTOR, O_STEPB, O_RANKS, O_DTYPE, O_OP, O_ROOT, O_TOPO, O_ALGO,
    O_CHUNKS, O_SERVERS, O_CHANNELS, O_CHECK, O_FORMAT, O_OUTPUT, O_IGNORED, O_HELP, O_LINKS,
    O_PROTO, O_PLOT, O_TRACE, O_THREADS, O_TOTAL, O_JSON, O_NODES, O_CAL
};

const cs_opt_spec cs_run_opts[] = {
    {"minbytes", 'b', 1, O_MINB}, {"maxbytes", 'e', 1, O_MAXB},
    {"stepfactor", 'f', 1, O_FACTOR}, {"stepbytes", 'i', 1, O_STEPB},
    {"ngpus", 'g', 1, O_RANKS}, {"nthreads", 't', 1, O_THREADS}, {"ranks", 0, 1, O_TOTAL},
    {"datatype", 'd', 1, O_DTYPE}, {"op", 'o', 1, O_OP},
    {"root", 'r', 1, O_ROOT}, {"topo", 0, 1, O_TOPO}, {"algo", 0, 1, O_ALGO},
    CS_TOPO_MOD_SPECS(O_NODES, O_CAL), {"chunks", 0, 1, O_CHUNKS}, {"servers", 0, 1, O_SERVERS},
    {"channels", 0, 1, O_CHANNELS}, {"check", 'c', 1, O_CHECK}, {"format", 0, 1, O_FORMAT},
    {"output", 0, 1, O_OUTPUT}, {"iters", 'n', 1, O_IGNORED},
    {"warmup_iters", 'w', 1, O_IGNORED}, {"help", 'h', 0, O_HELP}, {"links", 0, 0, O_LINKS},
    {"proto", 0, 1, O_PROTO}, {"plot", 0, 1, O_PLOT}, {"trace", 0, 1, O_TRACE},
    {"output_file", 'J', 1, O_JSON}, /* then nccl-tests' timing and launch flags: ignored */
    {"average", 'a', 1, O_IGNORED}, {"blocking", 'z', 1, O_IGNORED}, {"cudagraph", 'G', 1,
    O_IGNORED}, {"run_cycles", 'N', 1, O_IGNORED}, {"agg_iters", 'm', 1, O_IGNORED},
    {"parallel_init", 'p', 1, O_IGNORED}, {"report_cputime", 'C', 1, O_IGNORED}, {"timeout",
    'T', 1, O_IGNORED}, {"stream_null", 'y', 1, O_IGNORED}, {"local_register", 'R', 1, O_IGNORED},
    {NULL, 0, 0, 0},
};

/* No output is the --topo file; --plot is a picture type; --trace one size, plain model. */
static int check_picture_opts(const run_opts *o, cs_err *err)
{
    const char *outs[] = {"--output", o->output, "-J", o->json_file, "--plot", o->plot,
                          "--trace", o->trace};
    if (cs_cli_check_outputs(outs, 4, &o->topo, 1, err) < 0 ||
        cs_cli_check_plot(o->plot, err) < 0)
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
    cs_topo_mods mods = {NULL, NULL};
    int rc, have_f = 0, have_coll = 0;
    memset(o, 0, sizeof *o);  /* channels 0: not given (1, or the topology's NCCL table) */
    o->coll_name = "allreduce";
    o->min_bytes = 8;
    o->max_bytes = 128ull << 20;
    o->step_factor = 2;
    o->dtype = "float";
    o->redop = "sum";
    o->topo = CS_DEFAULT_PRESET;
    o->algo = "auto";
    o->chunks = o->servers = 1;
    o->check = 1;
    while ((rc = cs_opt_next(&sc, cs_run_opts, &sp, &v, err)) > 0) {
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
        case O_RANKS: o->ranks = v; break;
        case O_THREADS: rc = cs_parse_int(v, "-t", 1, CS_LIMIT_MAX_RANKS, &o->threads, err); break;
        case O_TOTAL: o->total = v; break;
        case O_JSON: o->json_file = v; break;
        case O_DTYPE: o->dtype = v; break;
        case O_OP: o->redop = v; break;
        case O_ROOT: rc = cs_parse_int(v, "-r", 0, 1 << 20, &o->root, err); break;
        case O_TOPO: o->topo = v; break;
        case O_NODES: case O_CAL: *(sp->id == O_NODES ? &mods.nodes : &mods.cal) = v; break;
        case O_ALGO: o->algo = v; break;
        case O_CHUNKS: rc = cs_parse_int(v, "--chunks", 1, 65535, &o->chunks, err); break;
        case O_SERVERS: rc = cs_parse_int(v, "--servers", 1, 1 << 20, &o->servers, err); break;
        case O_CHANNELS: rc = cs_parse_int(v, "--channels", 1, 64, &o->channels, err); break;
        case O_CHECK: rc = cs_parse_int(v, "-c", 0, 1, &o->check, err); break;
        case O_FORMAT: o->format = v; break;
        case O_OUTPUT: o->output = v; break;
        case O_HELP: cs_cli_run_usage(); return 1;
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
    if (!(o->topo = cs_cli_spec(o->topo, &mods, o->topo_buf, sizeof o->topo_buf, err)))
        return CS_EUSAGE;
    if (o->step_bytes && have_f)
        return cs_err_set(err, CS_EUSAGE, "-i", "give either -f or -i, not both");
    o->step_factor = o->step_bytes ? 0 : o->step_factor;
    if (o->max_bytes < o->min_bytes)
        return cs_err_set(err, CS_EUSAGE, "-e", "maxbytes %llu is smaller than minbytes %llu",
                          (unsigned long long)o->max_bytes, (unsigned long long)o->min_bytes);
    o->format = cs_cli_format_of(o->format, o->output);
    if (strcmp(o->format, "text") && strcmp(o->format, "json") && strcmp(o->format, "csv"))
        return cs_err_set(err, CS_EUSAGE, "--format", "unknown format '%s' (known: text, json, csv)",
                          o->format);
    return check_picture_opts(o, err);
}

/* `run` on argv; procs > 1: nccl-tests' rank count under `mpirun -np procs` (-g per process,
 * said in the header). */
static int run_main(cs_cli_io *io, int argc, char **argv, int procs)
{
    run_opts o;
    cs_run_grid_req rq;
    cs_run_multi m;
    cs_err err;                        /* io->err on failure (cs_cli_error) */
    cs_dtype one_dt;
    const cs_dtype *dts = &one_dt;
    const char *one_op[2] = {NULL, NULL};
    const char *const *ops = one_op;
    uint64_t *sizes = NULL;
    char **algos = NULL;
    int *ranks = NULL, n_sizes = 0, n_ranks = 0, n_algos = 0, n_dts = 1, n_ops = 1, rc, k;
    cs_err_clear(&err);
    memset(&rq, 0, sizeof rq);
    memset(&m, 0, sizeof m);
    if ((rc = parse_args(argc, argv, &o, &err)) != 0)
        return rc > 0 ? CS_EXIT_OK : cs_cli_error(io, &err);
    if ((rc = cs_run_grid_colls(&rq, o.coll_name, &err)) < 0)
        return cs_cli_error(io, &err);
    if ((rc = cs_run_dtypes(o.dtype, &one_dt, &dts, &n_dts, &err)) < 0 ||
        (rc = cs_run_redops(rq.coll, o.redop, one_op, &ops, &n_ops, &err)) < 0 ||
        (rc = cs_run_rank_counts(o.total, o.ranks, o.threads, o.total ? 1 : procs, &ranks,
                                 &n_ranks, &err)) < 0 ||
        (rc = cs_run_parse_names(o.algo, &algos, &n_algos, &err)) < 0)
        goto fail;
    cs_run_cfg_init(&rq.cfg);
    rq.cfg.chunks = (int)o.chunks, rq.cfg.servers = (int)o.servers;
    rq.cfg.channels = (int)o.channels, rq.cfg.root = (int)o.root, rq.cfg.check = (int)o.check;
    if (rq.coll == CS_COLL_BARRIER && !rq.n_colls)
        o.min_bytes = o.max_bytes = 0;
    if ((rc = cs_run_sizes(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes, &sizes,
                           &n_sizes, &err)) < 0)
        goto fail;
    rq.topo = o.topo, rq.ranks = ranks, rq.n_ranks = n_ranks;
    rq.algos = (const char *const *)algos, rq.n_algos = n_algos;
    rq.sizes = sizes, rq.n_sizes = n_sizes, rq.links = o.links, rq.proto = o.proto;
    if ((rc = cs_run_multi_run(&rq, dts, n_dts, ops, n_ops, &m, &err)) < 0)
        goto fail;
    for (k = 0; procs > 1 && !o.total && k < m.n; k++)
        m.sweeps[k].procs = procs, m.sweeps[k].threads = o.threads ? (int)o.threads : 1;
    cs_cli_run_notes(io->note, m.sweeps, m.n, (int)o.check);
    if ((o.plot || o.trace) && cs_cli_writes() &&
        (rc = cs_plot_run(o.plot, o.trace, o.min_bytes, o.max_bytes, &rq.cfg, &m.grids[0],
                          dts[0].bytes, &err)) < 0)
        goto fail;
    /* the report, then -J FILE: collsim's JSON beside it, as nccl-tests -J writes its own */
    if ((rc = cs_cli_report(io->out, o.output, o.format, m.sweeps, m.n, m.n_grids,
                            &err)) == 0 && o.json_file)
        rc = cs_cli_report(io->out, o.json_file, "json", m.sweeps, m.n, m.n_grids, &err);
fail:
    free(sizes);
    free(ranks);
    cs_run_names_free(algos, n_algos);
    cs_run_multi_fini(&m);
    return rc < 0 ? cs_cli_error(io, &err) : CS_EXIT_OK;
}

int cs_cmd_run_io(cs_cli_io *io, int argc, char **argv)
{
    return run_main(io, argc, argv, 1);
}

int cs_cmd_run_nccl_tests(int argc, char **argv)
{
    cs_cli_io io;
    cs_cli_io_std(&io);
    return cs_cli_status(&io, run_main(&io, argc, argv, cs_par_size()));
}
