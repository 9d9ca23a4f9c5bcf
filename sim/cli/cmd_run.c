/* cmd_run.c: `collsim run [COLL] [options]` (cli layer). Simulates a size sweep of one
 * collective with nccl-tests' flags and prints nccl-tests' table (or JSON/CSV). */
#include "sim/cli/cli.h"
#include "sim/exec.h"
#include "sim/report.h"
#include "sim/size.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"
#include "plots/plot.h"
#include "plots/timeline.h"
#include "algorithms/nccl_mode.h"
#include "sim/cli/logsim.h"

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
    const char *proto;         /* --proto auto|LL|LL128|Simple, NULL if not given */
    const cs_nccl_params *nccl;/* NCCL mode parameters, NULL when NCCL mode is off */
    const char *plot;          /* --plot FILE: draw the sweep (PNG/SVG/PDF), NULL if not asked */
    const char *trace;         /* --trace FILE: Perfetto trace of the one size, NULL if not asked */
} run_opts;

/* The busiest directed links of one simulated size (--links). */
#define RUN_MAX_LINKS 8
typedef struct run_links {
    int n;                                  /* entries filled */
    int32_t dlink[RUN_MAX_LINKS];           /* directed link ids, busiest first */
    cs_link_stats st[RUN_MAX_LINKS];        /* their statistics */
    cs_time span_ps;                        /* duration of the collective, ps */
    uint64_t size_bytes;                    /* the size they belong to */
} run_links;

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
           "      scatter, alltoall, sendrecv, barrier (nccl-tests names like all_reduce_perf too)\n\n"
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

/* nccl-tests names: all_reduce_perf, all_reduce, allreduce all mean allreduce. */
static void canon_coll(const char *in, char *out, size_t n)
{
    size_t j = 0;
    const char *suffix = strstr(in, "_perf");
    size_t len = suffix && suffix[5] == '\0' ? (size_t)(suffix - in) : strlen(in);
    for (size_t i = 0; i < len && j + 1 < n; i++)
        if (in[i] != '_')
            out[j++] = in[i];
    out[j] = '\0';
}

/* --plot needs a picture type; --trace one size and the plain model. */
static int check_picture_opts(const run_opts *o, cs_err *err)
{
    cs_plot_fmt fmt;
    if (o->plot && cs_plot_format(o->plot, &fmt, err) < 0)
        return cs_err_set(err, CS_EUSAGE, "--plot", "unknown file type '%s' (expected .png, .svg or .pdf)",
                          strrchr(o->plot, '.') ? strrchr(o->plot, '.') : "");
    if (o->trace && o->min_bytes != o->max_bytes)
        return cs_err_set(err, CS_EUSAGE, "--trace", "traces one size: give -b and -e equal");
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
    if (!o->format) {
        const char *dot = o->output ? strrchr(o->output, '.') : NULL;
        o->format = dot && !strcmp(dot, ".json") ? "json" : dot && !strcmp(dot, ".csv") ? "csv" : "text";
    }
    if (strcmp(o->format, "text") && strcmp(o->format, "json") && strcmp(o->format, "csv"))
        return cs_err_set(err, CS_EUSAGE, "--format", "unknown format '%s' (known: text, json, csv)",
                          o->format);
    return check_picture_opts(o, err);
}

/* Sizes of the sweep, nccl-tests' loop; at most max_n. */
static int sweep_sizes(const run_opts *o, uint64_t **out, int *n, cs_err *err)
{
    int cap = 64, k = 0;
    uint64_t s = o->min_bytes;
    uint64_t *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (;;) {
        if (k == 100000) {
            free(v);
            return cs_err_set(err, CS_EUSAGE, "-i", "the sweep has more than 100000 sizes");
        }
        if (k == cap) {
            uint64_t *nv = realloc(v, (size_t)(cap *= 2) * sizeof *nv);
            if (!nv) {
                free(v);
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            }
            v = nv;
        }
        v[k++] = s;
        if (o->step_factor) {
            uint64_t nx = s ? s * (uint64_t)o->step_factor : 1;
            if (s && nx / (uint64_t)o->step_factor != s)
                break;
            s = nx;
        } else {
            if (s + o->step_bytes < s)
                break;
            s += o->step_bytes;
        }
        if (s > o->max_bytes)
            break;
    }
    *out = v;
    *n = k;
    return 0;
}

/* A one-line description of the network model for the table header. */
static void model_line(const cs_topo *t, char *buf, size_t n)
{
    if (t->model == CS_MODEL_ALPHA_BETA) {
        snprintf(buf, n, "alpha_beta single-port, a = %g us, b = 1/(%g GB/s)%s", t->ab_lat_us,
                 t->ab_bw_GBps, t->reduce_GBps > 0 ? ", with reduction cost" : "");
    } else {
        snprintf(buf, n, "fluid max-min fair links, %d nodes, %d links", t->n_nodes, t->n_links);
    }
}

/* Simulate one size: fills the row. */
/* Utilisation of a directed link: bytes carried / (capacity x collective time). */
static double util_of(const cs_topo *t, int32_t d, const cs_link_stats *st, cs_time span_ps)
{
    double cap_bytes = t->links[cs_dlink_link(d)].bw_GBps * 1e-3 * (double)span_ps;
    return cap_bytes > 0 ? st->bytes / cap_bytes : 0;
}

/* Keep the busiest directed links of a finished simulation: by utilisation, then bytes. */
static void take_links(const cs_sim *sim, const cs_topo *t, cs_time span_ps, uint64_t S,
                       run_links *out)
{
    const cs_link_stats *st = cs_sim_link_stats(sim);
    int d, k;
    out->n = 0;
    out->span_ps = span_ps;
    out->size_bytes = S;
    if (!st)
        return;
    for (d = 0; d < 2 * t->n_links; d++) {
        double u = util_of(t, d, &st[d], span_ps);
        if (st[d].bytes <= 0)
            continue;
        for (k = out->n; k > 0; k--) {
            double uo = util_of(t, out->dlink[k - 1], &out->st[k - 1], span_ps);
            if (uo > u || (uo == u && out->st[k - 1].bytes >= st[d].bytes))
                break;
            if (k < RUN_MAX_LINKS) {
                out->st[k] = out->st[k - 1];
                out->dlink[k] = out->dlink[k - 1];
            }
        }
        if (k < RUN_MAX_LINKS) {
            out->st[k] = st[d];
            out->dlink[k] = d;
            if (out->n < RUN_MAX_LINKS)
                out->n++;
        }
    }
}

/* "sw0->sw1 (net, 10 GB/s): 100.0% utilised, 2.1e+09 B, peak 2 flows" */
static void link_line(const cs_topo *t, const run_links *L, int k, char *buf, size_t n)
{
    int32_t d = L->dlink[k];
    const cs_link *l = &t->links[cs_dlink_link(d)];
    snprintf(buf, n, "%s->%s (%s, %g GB/s): %.1f%% utilised, %.6g B, peak %d flows",
             t->nodes[cs_dlink_from(t, d)].name, t->nodes[cs_dlink_to(t, d)].name, l->cls,
             l->bw_GBps, 100.0 * util_of(t, d, &L->st[k], L->span_ps), L->st[k].bytes,
             L->st[k].peak_flows);
}

/* The request for one size of the sweep (S and nccl-tests' count from the size). NCCL mode
 * sets chunks and channels itself; here they are the options'. */
static void make_req(const run_opts *o, const cs_topo *t, cs_coll coll, int p, int elt,
                     uint64_t size, cs_coll_req *req, uint64_t *count, uint64_t *S)
{
    cs_nccl_sizes(coll, p, elt, size, count, S);
    cs_coll_req_init(req, coll, p, *S);
    req->root = cs_coll_is_rooted(coll) ? (int)o->root : 0;
    req->elt_bytes = elt;
    req->chunks = (int)o->chunks;
    req->servers = (int)o->servers;
    req->channels = o->channels ? (int)o->channels : 1;
    req->topo = t;
}

/* NCCL mode: NCCL's algorithms (or --algo) and protocols (or --proto), the fastest kept,
 * with launch, per-transfer latency, bandwidth efficiency and chunking from the table.
 * With sched (--links, --trace) the winner's schedule and costs are built there too. */
static int pick_nccl(const run_opts *o, const cs_topo *t, cs_coll coll, int p, int elt,
                     uint64_t size, cs_nccl_pick *pick, cs_sched *sched, cs_sim_costs *costs,
                     cs_err *err)
{
    cs_coll_req req;
    const cs_algo *ops = NULL;
    uint64_t count, S;
    int rc;
    make_req(o, t, coll, p, elt, size, &req, &count, &S);
    if (strcmp(o->algo, "auto") && (rc = cs_algo_lookup(o->algo, coll, &ops, err)) < 0)
        return rc;
    if ((rc = cs_nccl_simulate(&req, t, ops, o->nccl, (int)o->check, pick, err)) < 0)
        return rc;
    return sched ? cs_nccl_build(&req, o->nccl, pick, sched, costs, err) : 0;
}

static int run_size_nccl(const run_opts *o, const cs_topo *t, cs_coll coll, int p, int elt,
                         uint64_t size, cs_row *row, run_links *links, cs_err *err)
{
    cs_nccl_pick pick;
    cs_sched s;
    cs_sim_costs costs;
    uint64_t count, S;
    int rc;
    cs_nccl_sizes(coll, p, elt, size, &count, &S);
    if ((rc = pick_nccl(o, t, coll, p, elt, size, &pick, links ? &s : NULL, &costs, err)) < 0)
        return rc;
    if (links) {
        /* The winner again, for its link statistics. */
        cs_sim_opts so = {0, 0, &costs};
        cs_sim *sim;
        cs_job *job;
        rc = cs_sim_new(&sim, t, &so, err);
        if (rc == 0 && (rc = cs_sim_add(sim, &s, NULL, 0, &job, err)) == 0 &&
            (rc = cs_sim_run(sim, err)) == 0)
            take_links(sim, t, cs_job_end(job), S, links);
        cs_sim_free(sim);
        cs_sched_fini(&s);
        if (rc < 0)
            return rc;
    }
    memset(row, 0, sizeof *row);
    row->size_bytes = S;
    row->count = count;
    row->time_us = pick.time_us;
    row->wrong = pick.wrong;
    row->algorithm = pick.algo->name;
    row->protocol = cs_proto_name(pick.proto);
    row->channels = pick.channels;
    return 0;
}

static int run_size(const run_opts *o, const cs_topo *t, cs_coll coll, int p, int elt,
                    uint64_t size, cs_row *row, run_links *links, cs_err *err)
{
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_sim_opts so = {(int)o->check, 0, NULL};
    cs_time t_ps;
    int wrong, rc;
    uint64_t count, S;
    if (o->nccl)
        return run_size_nccl(o, t, coll, p, elt, size, row, links, err);
    make_req(o, t, coll, p, elt, size, &req, &count, &S);
    if (!strcmp(o->algo, "auto"))
        rc = cs_algo_auto(&req, t, &ops, NULL, err);
    else
        rc = cs_algo_lookup(o->algo, coll, &ops, err);
    if (rc < 0)
        return rc;
    rc = cs_algo_build(ops, &req, &s, err);
    if (rc < 0)
        return rc;
    if (links) {
        cs_sim *sim;
        cs_job *job;
        rc = cs_sim_new(&sim, t, &so, err);
        if (rc == 0 && (rc = cs_sim_add(sim, &s, NULL, 0, &job, err)) == 0 &&
            (rc = cs_sim_run(sim, err)) == 0) {
            t_ps = cs_job_end(job);
            wrong = cs_job_wrong(job);
            take_links(sim, t, t_ps, S, links);
        }
        cs_sim_free(sim);
    } else {
        rc = cs_sim_once(t, &s, NULL, &so, &t_ps, &wrong, err);
    }
    cs_sched_fini(&s);
    if (rc < 0)
        return rc;
    memset(row, 0, sizeof *row);
    row->size_bytes = S;
    row->count = count;
    row->time_us = cs_time_to_us(t_ps);
    row->wrong = wrong;
    row->algorithm = ops->name;
    return 0;
}

/* --plot: the sweep as a chart; --trace: the one size run again with the recorder, written
 * as Perfetto trace JSON. Both files are written atomically by plots/. */
static int run_pictures(const run_opts *o, const cs_topo *t, cs_coll coll, int p, int elt,
                        const cs_sweep *sw, cs_err *err)
{
    int rc = 0;
    if (o->plot) {
        cs_series_set set = {NULL, 0, 0};
        cs_chart chart;
        char title[256];
        snprintf(title, sizeof title, "%s, %d ranks, %s", cs_coll_name(coll), p, t->name);
        memset(&chart, 0, sizeof chart);
        chart.title = title;
        if ((rc = cs_series_from_sweep(&set, sw, NULL, 0, err)) == 0) {
            chart.series = set.items;
            chart.n_series = set.n;
            rc = cs_plot_chart(&chart, o->plot, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, NULL, err);
        }
        cs_series_set_fini(&set);
    }
    if (rc == 0 && o->trace) {
        cs_coll_req req;
        const cs_algo *ops;
        cs_sched s;
        cs_timeline *tl = NULL;
        uint64_t count, S;
        if (o->nccl) {
            cs_nccl_pick pick;
            cs_sim_costs costs;
            if ((rc = pick_nccl(o, t, coll, p, elt, o->min_bytes, &pick, &s, &costs, err)) < 0)
                return rc;
            if ((rc = cs_timeline_new(&tl, t)) < 0) {
                cs_err_set(err, rc, NULL, "out of memory");
            } else {
                cs_timeline_set_costs(tl, &costs);
                if ((rc = cs_timeline_run(tl, &s, NULL, err)) == 0)
                    rc = cs_trace_write(tl, o->trace, err);
            }
            cs_timeline_free(tl);
            cs_sched_fini(&s);
            return rc;
        }
        make_req(o, t, coll, p, elt, o->min_bytes, &req, &count, &S);
        rc = !strcmp(o->algo, "auto") ? cs_algo_auto(&req, t, &ops, NULL, err)
                                      : cs_algo_lookup(o->algo, coll, &ops, err);
        if (rc < 0 || (rc = cs_algo_build(ops, &req, &s, err)) < 0)
            return rc;
        if ((rc = cs_timeline_new(&tl, t)) < 0)
            cs_err_set(err, rc, NULL, "out of memory");
        else if ((rc = cs_timeline_run(tl, &s, NULL, err)) == 0)
            rc = cs_trace_write(tl, o->trace, err);
        cs_timeline_free(tl);
        cs_sched_fini(&s);
    }
    return rc;
}

int cs_cmd_run(int argc, char **argv)
{
    run_opts o;
    cs_err err;
    cs_topo *t = NULL;
    cs_coll coll;
    cs_dtype dt;
    const char *redop;
    cs_sweep sw;
    cs_out out;
    uint64_t *sizes = NULL;
    int n_sizes = 0, i, rc, p;
    char cname[64], model[256], bottleneck[256];
    run_links links;
    cs_nccl_params np;
    int nccl_on = 0;

    cs_err_clear(&err);
    memset(&sw, 0, sizeof sw);
    memset(&links, 0, sizeof links);
    rc = parse_args(argc, argv, &o, &err);
    if (rc > 0)
        return CS_EXIT_OK;
    if (rc < 0)
        return cs_cli_fail(&err);
    canon_coll(o.coll_name, cname, sizeof cname);
    if ((rc = cs_coll_lookup(cname, &coll, &err)) < 0) {
        err.code = CS_EUSAGE;
        return cs_cli_fail(&err);
    }
    if (cs_dtype_lookup(o.dtype, &dt, &err) < 0 || cs_redop_lookup(o.redop, &redop, &err) < 0)
        return cs_cli_fail(&err);
    if ((rc = cs_topo_open(o.topo, &t, &err)) < 0) {
        cs_err_prefix(&err, NULL);
        return cs_cli_fail(&err);
    }
    if ((rc = cs_cli_nccl_setup(o.topo, o.proto, 0, &np, &nccl_on, &err)) < 0) {
        cs_topo_free(t);
        return cs_cli_fail(&err);
    }
    if (nccl_on) {
        if (o.channels > 0)
            np.channels = (int)o.channels;   /* --channels over the table's */
        o.nccl = &np;
    }
    p = o.ranks ? (int)o.ranks : t->n_ranks;
    if (p > t->n_ranks) {
        cs_err_set(&err, CS_EUSAGE, "-g", "%d ranks requested but topology '%s' has %d", p,
                   t->name, t->n_ranks);
        cs_topo_free(t);
        return cs_cli_fail(&err);
    }
    if (cs_coll_is_rooted(coll) && o.root >= p) {
        cs_err_set(&err, CS_EUSAGE, "-r", "root must be between 0 and %d, got %ld", p - 1, o.root);
        cs_topo_free(t);
        return cs_cli_fail(&err);
    }
    if (coll == CS_COLL_BARRIER)
        o.min_bytes = o.max_bytes = 0;
    if ((rc = sweep_sizes(&o, &sizes, &n_sizes, &err)) < 0) {
        cs_topo_free(t);
        return cs_cli_fail(&err);
    }
    model_line(t, model, sizeof model);
    if (o.nccl) {
        char cap[48] = "";
        if (np.channel_GBps > 0)
            snprintf(cap, sizeof cap, ", at most %g GB/s each", np.channel_GBps);
        snprintf(model + strlen(model), sizeof model - strlen(model),
                 "; NCCL mode (table %s, launch %g us, protocol %s, %d channel%s%s)",
                 np.version, np.launch_us,
                 np.force_proto >= 0 ? cs_proto_name((cs_proto)np.force_proto) : "by time",
                 np.channels, np.channels > 1 ? "s, fewer for small sizes" : "", cap);
    }
    sw.coll = coll;
    sw.algorithm = o.algo;
    sw.topology = t->name;
    sw.topo_kind = t->kind;
    sw.datatype = dt.name;
    sw.redop = (coll == CS_COLL_ALLREDUCE || coll == CS_COLL_REDUCE ||
                coll == CS_COLL_REDUCESCATTER) ? redop : "none";
    sw.ranks = p;
    sw.root = cs_coll_is_rooted(coll) ? (int)o.root : -1;
    sw.chunks = (int)o.chunks;
    sw.model = model;
    for (i = 0; i < n_sizes; i++) {
        cs_row row;
        int last = i == n_sizes - 1;
        if ((rc = run_size(&o, t, coll, p, dt.bytes, sizes[i], &row,
                           o.links && last ? &links : NULL, &err)) < 0 ||
            (rc = cs_sweep_add(&sw, &row)) < 0) {
            if (rc == CS_ENOMEM && !err.code)
                cs_err_set(&err, rc, NULL, "out of memory");
            goto fail;
        }
        /* Asked for but not run: the executor stopped the check when its state outgrew
         * its limit (sim/exec.c); the table prints N/A, and this says why. */
        if (o.check && row.wrong < 0)
            fprintf(stderr, "collsim run: note: data check skipped at %llu bytes: its state "
                    "outgrew 256 MiB (#wrong N/A)\n", (unsigned long long)row.size_bytes);
    }
    if (o.links) {
        if (t->model == CS_MODEL_ALPHA_BETA) {
            sw.bottleneck = "none: alpha_beta has no links (single-port model)";
        } else if (links.n > 0) {
            link_line(t, &links, 0, bottleneck, sizeof bottleneck);
            sw.bottleneck = bottleneck;
        }
        sw.n_links = links.n;
        for (i = 0; i < links.n && i < CS_SWEEP_MAX_LINKS; i++) {
            int32_t d = links.dlink[i];
            const cs_link *l = &t->links[cs_dlink_link(d)];
            cs_link_report *lr = &sw.links[i];
            lr->from = t->nodes[cs_dlink_from(t, d)].name;
            lr->to = t->nodes[cs_dlink_to(t, d)].name;
            lr->cls = l->cls;
            lr->bw_GBps = l->bw_GBps;
            lr->bytes = links.st[i].bytes;
            lr->busy_fraction = links.span_ps > 0 ? (double)links.st[i].busy_ps / (double)links.span_ps : 0;
            lr->utilisation = util_of(t, d, &links.st[i], links.span_ps);
            lr->peak_flows = links.st[i].peak_flows;
        }
        sw.links_size_bytes = links.size_bytes;
    }
    if ((o.plot || o.trace) && (rc = run_pictures(&o, t, coll, p, dt.bytes, &sw, &err)) < 0)
        goto fail;
    if ((rc = cs_out_open(&out, o.output, &err)) < 0)
        goto fail;
    if (!strcmp(o.format, "json"))
        rc = cs_report_json(out.f, &sw);
    else if (!strcmp(o.format, "csv"))
        rc = cs_report_csv(out.f, &sw);
    else
        rc = cs_report_text(out.f, &sw);
    if (rc < 0) {
        cs_out_abort(&out);
        cs_err_set(&err, rc, o.output, "cannot write the report");
        goto fail;
    }
    if ((rc = cs_out_commit(&out, &err)) < 0)
        goto fail;
    free(sizes);
    cs_sweep_fini(&sw);
    cs_topo_free(t);
    return CS_EXIT_OK;
fail:
    free(sizes);
    cs_sweep_fini(&sw);
    cs_topo_free(t);
    return cs_cli_fail(&err);
}
