/* cmd_explain.c: `collsim explain COLL --algo NAME -g N -b SIZE [--topo T]` (cli layer).
 * Teaches one schedule: a table of its transfers with simulated times (through the
 * executor's observer hook), a text timeline per rank, the algorithm's closed form with the
 * numbers put in, and the simulated total beside it. */
#include "cli/cli.h"
#include "sim/exec.h"
#include "sim/report.h"
#include "sim/size.h"
#include "algorithms/coll.h"
#include "algorithms/explain.h"
#include "algorithms/nccl/rules.h"
#include "algorithms/run.h"
#include "topologies/topology.h"
#include "plots/plot.h"
#include "plots/timeline.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


typedef struct ex_opts {
    const char *coll_name, *algo, *topo, *dtype;
    const char *proto;        /* --proto, NULL if not given (NCCL mode as for run) */
    uint64_t size;            /* -b, bytes */
    const char *ranks;        /* -g: N, or a sweep A:B, A:B:+K, A:B:*F, A,B,C (NULL = all) */
    long root, chunks, servers, channels;
    int all;                  /* --all: every row and every rank */
    const char *plot;         /* --plot FILE: timeline picture (plots/), NULL if not asked */
    cs_tl_color color;        /* --color: timeline bars by step or chunk */
    char topo_buf[CS_CLI_SPEC_MAX];  /* --topo with --nodes, --calibration */
} ex_opts;

enum { E_ALGO = 1, E_RANKS, E_SIZE, E_TOPO, E_CHUNKS, E_ROOT, E_SERVERS, E_CHANNELS, E_DTYPE,
       E_ALL, E_HELP, E_PLOT, E_COLOR, E_PROTO, E_NODES, E_CAL };

const cs_opt_spec cs_explain_opts[] = {
    {"algo", 0, 1, E_ALGO}, {"ranks", 'g', 1, E_RANKS}, {"minbytes", 'b', 1, E_SIZE},
    {"topo", 0, 1, E_TOPO}, {"chunks", 0, 1, E_CHUNKS}, {"root", 'r', 1, E_ROOT},
    CS_TOPO_MOD_SPECS(E_NODES, E_CAL),
    {"servers", 0, 1, E_SERVERS}, {"channels", 0, 1, E_CHANNELS},
    {"datatype", 'd', 1, E_DTYPE}, {"all", 0, 0, E_ALL}, {"help", 'h', 0, E_HELP},
    {"plot", 0, 1, E_PLOT}, {"color", 0, 1, E_COLOR}, {"proto", 0, 1, E_PROTO},
    {NULL, 0, 0, 0},
};

static void ex_usage(void)
{
    printf("usage: collsim explain COLL --algo NAME [-g N] [-b SIZE] [--topo T] [options]\n\n"
           "Show one collective's schedule step by step: every transfer with its simulated\n"
           "start and end, a timeline per rank, the algorithm's closed form with the numbers\n"
           "put in, and the simulated total beside it.\n\n"
           "  --algo NAME|auto    algorithm (default auto; `collsim list algorithms`)\n"
           "  -g, --ranks N       ranks (default: every rank of the topology); a sweep A:B,\n"
           "                      A:B:+K, A:B:*F or A,B,C prints one line per rank count:\n"
           "                      steps, transfers, simulated time beside the closed form\n"
           "  -b SIZE             size as nccl-tests counts it (default 1M)\n"
           "  --topo PRESET|FILE  topology (default %s)\n"
           "  --nodes N           the --topo cluster resized to N nodes\n"
           "  --calibration FILE  a calibration's figures laid over --topo\n"
           "  --chunks N          pipeline chunks (default 1)\n"
           "  -r, --root R        root of rooted collectives (default 0)\n"
           "  --servers K         parameter_server servers (default 1)\n"
           "  --channels N        parallel rings/trees (default 1, or the topology's NCCL table)\n"
           "  -d, --datatype T    element type (default float)\n"
           "      --proto P       NCCL mode as in run: auto, LL, LL128, Simple, or none for\n"
           "                      the bare fabric (default: NCCL mode on GPU/NPU hardware)\n"
           "  --all               list every transfer and draw every rank\n"
           "  --plot FILE         also draw the timeline (.png, .svg or .pdf): a lane per rank\n"
           "                      with its sends, receives and reductions, busiest links below\n"
           "  --color step|chunk  colour the drawn bars by algorithm step (default) or chunk\n",
           CS_DEFAULT_PRESET);
}

static int parse(int argc, char **argv, ex_opts *o, cs_err *err)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *sp;
    const char *v;
    cs_topo_mods mods = {NULL, NULL};
    int rc, have_coll = 0;
    memset(o, 0, sizeof *o);
    o->algo = "auto";
    o->topo = CS_DEFAULT_PRESET;
    o->dtype = "float";
    o->size = 1 << 20;
    o->chunks = o->servers = 1;
    o->channels = 0;          /* not given: 1, or the topology's NCCL table */
    while ((rc = cs_opt_next(&sc, cs_explain_opts, &sp, &v, err)) > 0) {
        if (!sp) {
            if (have_coll)
                return cs_err_set(err, CS_EUSAGE, NULL, "unexpected argument '%s'", v);
            o->coll_name = v;
            have_coll = 1;
            continue;
        }
        switch (sp->id) {
        case E_ALGO: o->algo = v; break;
        case E_RANKS: o->ranks = v; break;
        case E_SIZE: rc = cs_parse_size(v, "-b", &o->size, err); break;
        case E_TOPO: o->topo = v; break;
        case E_NODES: mods.nodes = v; break;
        case E_CAL: mods.cal = v; break;
        case E_CHUNKS: rc = cs_parse_int(v, "--chunks", 1, 65535, &o->chunks, err); break;
        case E_ROOT: rc = cs_parse_int(v, "-r", 0, 1 << 20, &o->root, err); break;
        case E_SERVERS: rc = cs_parse_int(v, "--servers", 1, 1 << 20, &o->servers, err); break;
        case E_CHANNELS: rc = cs_parse_int(v, "--channels", 1, 64, &o->channels, err); break;
        case E_DTYPE: o->dtype = v; break;
        case E_ALL: o->all = 1; break;
        case E_PLOT: o->plot = v; break;
        case E_PROTO: o->proto = v; break;
        case E_COLOR:
            if ((rc = cs_tl_color_lookup(v, &o->color, err)) < 0)
                err->code = rc = CS_EUSAGE;
            break;
        case E_HELP: ex_usage(); return 1;
        default: break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (!(o->topo = cs_cli_spec(o->topo, &mods, o->topo_buf, sizeof o->topo_buf, err)))
        return CS_EUSAGE;
    if (!have_coll)
        return cs_err_set(err, CS_EUSAGE, NULL, "which collective? (usage: collsim explain "
                          "COLL --algo NAME -g N -b SIZE)");
    return cs_cli_check_plot(o->plot, err);
}

/* --plot: run the schedule again with the timeline recorder and draw it (plots/). */
static int explain_plot(const ex_opts *o, const cs_topo *t, const cs_sched *s, const char *algo,
                        int p, uint64_t S, cs_err *err)
{
    cs_timeline *tl = NULL;
    char title[256], buf[32];
    int rc;
    if (cs_timeline_new(&tl, t) < 0)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    snprintf(title, sizeof title, "%s, %s, %d ranks, %s on %s", cs_coll_name(s->coll), algo, p,
             cs_format_bytes(S, buf, sizeof buf), t->name);
    if ((rc = cs_timeline_set_title(tl, title)) < 0)
        rc = cs_err_set(err, rc, NULL, "out of memory");
    cs_timeline_set_color(tl, o->color);
    if (rc == 0 && (rc = cs_timeline_run(tl, s, NULL, err)) == 0)
        rc = cs_plot_timeline(tl, o->plot, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, err);
    cs_timeline_free(tl);
    return rc;
}

/* One rank count (want, 0 = every rank of the topology): the whole story, or with row >= 0
 * one line of a sweep over rank counts (row 0 prints the header). */
static int explain(FILE *out, const ex_opts *o, int want, int row, cs_err *err)
{
    cs_topo *t = NULL;
    cs_coll coll;
    cs_dtype dt;
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_explain_times tm;
    cs_run_cfg cfg;
    cs_run_choice ch;
    cs_nccl_params np;
    cs_sim_costs costs;
    int on = 0;
    uint64_t count, S;
    int p, rc;
    char buf[32], trb[256];
    if ((rc = cs_coll_lookup(o->coll_name, &coll, err)) < 0) {
        err->code = CS_EUSAGE;
        return rc;
    }
    if ((rc = cs_dtype_lookup(o->dtype, &dt, err)) < 0 ||
        (rc = cs_topo_open_ranks(o->topo, want, &t, err)) < 0)
        return rc;
    if ((rc = cs_run_ranks(t, want, coll, o->root, &p, err)) < 0)
        goto out;
    cs_nccl_sizes(coll, p, dt.bytes, coll == CS_COLL_BARRIER ? 0 : o->size, &count, &S);
    /* The choice run and validate make: NCCL mode where they use it. */
    if ((rc = cs_nccl_setup(o->topo, o->proto, 0, &np, &on, err)) < 0)
        goto out;
    if (on && o->channels > 0) {
        np.channels = (int)o->channels;   /* --channels over the table's and a PCIe */
        np.plan_n = 0;                    /* host's plan, as run */
    }
    cs_run_cfg_init(&cfg);
    cfg.algo = o->algo;
    cfg.chunks = (int)o->chunks;
    cfg.servers = (int)o->servers;
    cfg.channels = o->channels > 0 ? (int)o->channels : 1;
    cfg.root = cs_coll_is_rooted(coll) ? (int)o->root : 0;
    cfg.nccl = on ? &np : NULL;
    if ((rc = cs_run_choose(&cfg, t, coll, p, dt.bytes, coll == CS_COLL_BARRIER ? 0 : o->size,
                            &ch, &s, &costs, err)) < 0)
        goto out;
    ops = ch.algo;
    req = ch.req;
    if ((rc = cs_explain_run(t, &s, &costs, &tm, err)) < 0)
        goto out_sched;
    if (row >= 0) {
        if (row == 0)
            fprintf(out, "# collsim explain: %s, algorithm %s, S = %s, topology %s (%s)\n",
                   cs_coll_name(coll), o->algo, cs_format_bytes(S, buf, sizeof buf),
                   t->name, t->kind);
        cs_explain_ranks_row(out, row == 0, ops, &req, t, &s, &tm);
        goto out_sched;
    }
    fprintf(out, "# collsim explain: %s, algorithm %s%s, %d ranks, S = %s (%llu B)",
            cs_coll_name(coll),
           ops->name, strcmp(o->algo, "auto") ? "" : " (auto)", p,
           cs_format_bytes(S, buf, sizeof buf), (unsigned long long)S);
    if (cs_coll_is_rooted(coll))
        fprintf(out, ", root %d", req.root);
    fprintf(out, ", chunks %d", req.chunks);
    if (ch.protocol)
        fprintf(out, ", channels %d%s\n# NCCL mode: protocol %s, launch and protocol base %g us, "
               "%g us per transfer, bandwidth x %g", req.channels,
               /* a p2p collective's channels are each peer's (NCCL's addP2pToPlan) */
               cs_nccl_rule(coll)->pattern == CS_NCCL_PAT_P2P && strcmp(ops->name, "ring") ?
               " per peer" : "", ch.protocol, costs.launch_us, costs.xfer_lat_us, costs.bw_eff);
    if (ch.protocol && cs_nccl_transports_str(&costs, trb, sizeof trb))
        fprintf(out, "\n# transports (sim/exec.h): %s", trb);
    fprintf(out, "\n# topology %s (%s)\n# %u transfers in %d steps; #wrong = %d\n\n",
           t->name, t->kind, s.n_xfers, s.n_steps, tm.wrong);
    if (cs_algo_uses_rings(ops, coll)) {
        cs_explain_rings(out, &req, 4);
        fprintf(out, "\n");
    }
    cs_explain_table(out, &s, &tm, o->all, t->reduce_GBps > 0);
    fprintf(out, "\n");
    cs_explain_timeline(out, &s, &tm, tm.end_ps, o->all);
    fprintf(out, "\n");
    cs_explain_closed_form(out, ops, &req, t, tm.end_ps);
    /* NCCL mode's time where it is not this whole schedule's: a tree across nodes of more
     * pieces than it simulates is extended along the line of two shorter runs (mode.c). */
    if (ch.protocol && fabs(ch.time_us - cs_time_to_us(tm.end_ps)) > 5e-4)
        fprintf(out, "NCCL mode's time, as run, validate and calibrate print it: %.3f us (extended "
               "from shorter runs of the same pieces; the schedule above is simulated whole)\n",
               ch.time_us);
    rc = o->plot ? explain_plot(o, t, &s, ops->name, p, S, err) : 0;
out_sched:
    cs_explain_times_fini(&tm);
    cs_sched_fini(&s);
out:
    cs_topo_free(t);
    return rc;
}

int cs_cmd_explain_io(cs_cli_io *io, int argc, char **argv)
{
    ex_opts o;
    cs_err err;
    int rc, *ranks = NULL, n = 0, i;
    cs_err_clear(&err);
    rc = parse(argc, argv, &o, &err);
    if (rc > 0)
        return CS_EXIT_OK;
    if (rc < 0)
        return cs_cli_error(io, &err);
    if (o.ranks && (rc = cs_run_parse_ranks(o.ranks, &ranks, &n, &err)) < 0)
        return cs_cli_error(io, &err);
    if (n > 1 && o.plot)
        rc = cs_err_set(&err, CS_EUSAGE, "--plot", "draws one schedule: give one rank count");
    for (i = 0; i < (n ? n : 1) && rc == 0; i++)
        rc = explain(io->out, &o, n ? ranks[i] : 0, n > 1 ? i : -1, &err);
    free(ranks);
    return rc < 0 ? cs_cli_error(io, &err) : CS_EXIT_OK;
}
