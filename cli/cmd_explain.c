/* cmd_explain.c: `collsim explain COLL --algo NAME -g N -b SIZE [--topo T]` (cli layer).
 * Teaches one schedule: a table of its transfers with simulated times (through the
 * executor's observer hook), a text timeline per rank, the algorithm's closed form with the
 * numbers put in, and the simulated total beside it. */
#include "cli/cli.h"
#include "sim/exec.h"
#include "sim/report.h"
#include "sim/size.h"
#include "algorithms/coll.h"
#include "algorithms/run.h"
#include "topologies/topology.h"
#include "plots/plot.h"
#include "plots/timeline.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EX_COLS 64            /* timeline width, characters */
#define EX_MAX_ROWS 200       /* table rows shown without --all */
#define EX_MAX_LANES 64       /* ranks drawn without --all */

typedef struct ex_opts {
    const char *coll_name, *algo, *topo, *dtype;
    const char *proto;        /* --proto, NULL if not given (NCCL mode as for run) */
    uint64_t size;            /* -b, bytes */
    long ranks, root, chunks, servers, channels;
    int all;                  /* --all: every row and every rank */
    const char *plot;         /* --plot FILE: timeline picture (plots/), NULL if not asked */
    cs_tl_color color;        /* --color: timeline bars by step or chunk */
} ex_opts;

/* Times of every operation, ps (-1 = never happened). */
typedef struct ex_times {
    cs_time *start, *done, *reduced;
} ex_times;

enum { E_ALGO = 1, E_RANKS, E_SIZE, E_TOPO, E_CHUNKS, E_ROOT, E_SERVERS, E_CHANNELS, E_DTYPE,
       E_ALL, E_HELP, E_PLOT, E_COLOR, E_PROTO };

static const cs_opt_spec ex_specs[] = {
    {"algo", 0, 1, E_ALGO}, {"ranks", 'g', 1, E_RANKS}, {"minbytes", 'b', 1, E_SIZE},
    {"topo", 0, 1, E_TOPO}, {"chunks", 0, 1, E_CHUNKS}, {"root", 'r', 1, E_ROOT},
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
           "  -g, --ranks N       ranks (default: every rank of the topology)\n"
           "  -b SIZE             size as nccl-tests counts it (default 1M)\n"
           "  --topo PRESET|FILE  topology (default %s)\n"
           "  --chunks N          pipeline chunks (default 1)\n"
           "  -r, --root R        root of rooted collectives (default 0)\n"
           "  --servers K         parameter_server servers (default 1)\n"
           "  --channels N        parallel rings/trees (default 1)\n"
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
    int rc, have_coll = 0;
    memset(o, 0, sizeof *o);
    o->algo = "auto";
    o->topo = CS_DEFAULT_PRESET;
    o->dtype = "float";
    o->size = 1 << 20;
    o->chunks = o->servers = o->channels = 1;
    while ((rc = cs_opt_next(&sc, ex_specs, &sp, &v, err)) > 0) {
        if (!sp) {
            if (have_coll)
                return cs_err_set(err, CS_EUSAGE, NULL, "unexpected argument '%s'", v);
            o->coll_name = v;
            have_coll = 1;
            continue;
        }
        switch (sp->id) {
        case E_ALGO: o->algo = v; break;
        case E_RANKS: rc = cs_parse_int(v, "-g", 1, 1 << 20, &o->ranks, err); break;
        case E_SIZE: rc = cs_parse_size(v, "-b", &o->size, err); break;
        case E_TOPO: o->topo = v; break;
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
    if (!have_coll)
        return cs_err_set(err, CS_EUSAGE, NULL, "which collective? (usage: collsim explain "
                          "COLL --algo NAME -g N -b SIZE)");
    if (o->plot) {
        cs_plot_fmt fmt;
        if (cs_plot_format(o->plot, &fmt, err) < 0)
            return cs_err_set(err, CS_EUSAGE, "--plot", "unknown file type '%s' (expected .png, "
                              ".svg or .pdf)", strrchr(o->plot, '.') ? strrchr(o->plot, '.') : "");
    }
    return 0;
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

static void observe(void *ctx, const cs_obs_event *ev)
{
    ex_times *tm = ctx;
    switch (ev->kind) {
    case CS_OBS_XFER_START: case CS_OBS_COMPUTE_START: tm->start[ev->xfer] = ev->t_ps; break;
    case CS_OBS_XFER_DONE: case CS_OBS_COMPUTE_DONE: tm->done[ev->xfer] = ev->t_ps; break;
    case CS_OBS_REDUCE_DONE: tm->reduced[ev->xfer] = ev->t_ps; break;
    default: break;
    }
}

/* Chunk ids as ranges: "0-3,7". */
static void chunk_text(const cs_sched *s, uint32_t i, char *buf, size_t n)
{
    const uint32_t *ids = cs_sched_chunks(s, i);
    uint32_t k = 0, m = s->xfers[i].n_chunks;
    buf[0] = '\0';
    while (k < m && strlen(buf) + 24 < n) {
        uint32_t j = k;
        char part[32];
        while (j + 1 < m && ids[j + 1] == ids[j] + 1)
            j++;
        if (j > k)
            snprintf(part, sizeof part, "%s%u-%u", k ? "," : "", ids[k], ids[j]);
        else
            snprintf(part, sizeof part, "%s%u", k ? "," : "", ids[k]);
        strcat(buf, part);
        k = j + 1;
    }
    if (k < m)
        strcat(buf, ",...");
}

static const cs_sched *sort_sched;
static const ex_times *sort_tm;
static int by_start(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    if (sort_tm->start[i] != sort_tm->start[j])
        return sort_tm->start[i] < sort_tm->start[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

static void print_table(const cs_sched *s, const ex_times *tm, int all, int has_gamma)
{
    uint32_t *ord = malloc((s->n_xfers + 1) * sizeof *ord), i, n = 0, shown = 0;
    char chunks[64], bytes[32];
    if (!ord)
        return;
    for (i = 0; i < s->n_xfers; i++)
        if (s->xfers[i].op != CS_OP_COMPUTE)
            ord[n++] = i;
    sort_sched = s;
    sort_tm = tm;
    qsort(ord, n, sizeof *ord, by_start);
    printf("%5s %11s %11s %s%5s -> %-4s %-14s %12s  %s\n", "step", "start_us", "end_us",
           has_gamma ? " reduced_us " : "", "src", "dst", "chunks", "bytes", "op");
    for (i = 0; i < n && (all || shown < EX_MAX_ROWS); i++, shown++) {
        const cs_xfer *x = &s->xfers[ord[i]];
        char red[24] = "";
        chunk_text(s, ord[i], chunks, sizeof chunks);
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)x->bytes);
        if (has_gamma)
            snprintf(red, sizeof red, "%11.3f ", tm->reduced[ord[i]] >= 0
                     ? cs_time_to_us(tm->reduced[ord[i]]) : cs_time_to_us(tm->done[ord[i]]));
        printf("%5d %11.3f %11.3f %s%5d -> %-4d %-14s %12s  %s\n", x->step,
               cs_time_to_us(tm->start[ord[i]]), cs_time_to_us(tm->done[ord[i]]), red, x->src,
               x->dst, chunks, bytes, x->op == CS_OP_REDUCE ? "reduce" : "copy");
    }
    if (i < n)
        printf("... %u more transfers (--all lists them)\n", n - i);
    free(ord);
}

/* One lane: the step digit where a rank is sending (tx) or receiving (rx). */
static void print_timeline(const cs_sched *s, const ex_times *tm, cs_time end, int all)
{
    int p = s->n_ranks, r, lanes = all || p <= EX_MAX_LANES ? p : EX_MAX_LANES, side;
    char (*row)[EX_COLS + 1] = malloc((size_t)lanes * 2 * sizeof *row);
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    uint32_t i;
    if (!row || end <= 0) {
        free(row);
        return;
    }
    for (r = 0; r < 2 * lanes; r++) {
        memset(row[r], '.', EX_COLS);
        row[r][EX_COLS] = '\0';
    }
    for (i = 0; i < s->n_xfers; i++) {
        const cs_xfer *x = &s->xfers[i];
        int c0, c1, c;
        if (x->op == CS_OP_COMPUTE || tm->start[i] < 0 || tm->done[i] <= tm->start[i])
            continue;
        c0 = (int)lround((double)tm->start[i] / (double)end * EX_COLS);
        c1 = (int)lround((double)tm->done[i] / (double)end * EX_COLS);
        if (c1 <= c0)
            c1 = c0 + 1;
        for (side = 0; side < 2; side++) {
            int rank = side ? x->dst : x->src;
            if (rank >= lanes)
                continue;
            for (c = c0; c < c1 && c < EX_COLS; c++) {
                char *cell = &row[2 * rank + side][c];
                char ch = digits[(x->step < 0 ? 0 : x->step) % 36];
                *cell = *cell == '.' || *cell == ch ? ch : '*';
            }
        }
    }
    printf("timeline: %d columns = %.3f us; a digit is the step a rank is sending (tx) or\n"
           "receiving (rx) in (last digit, then a-z), '*' more than one, '.' idle\n",
           EX_COLS, cs_time_to_us(end));
    for (r = 0; r < lanes; r++) {
        printf("rank %-4d tx |%s|\n", r, row[2 * r]);
        printf("          rx |%s|\n", row[2 * r + 1]);
    }
    if (lanes < p)
        printf("... %d more ranks (--all draws them)\n", p - lanes);
    free(row);
}

/* Put the numbers into a closed form: identifiers p, p', L, S, a, b, g, k, K, C become
 * their values (a in us, b and g in us per byte, S in bytes); log2, floor stay. */
static void substitute(const char *f, const cs_coll_req *req, const cs_ab *ab, char *out,
                       size_t n)
{
    size_t o = 0;
    int p = req->n_ranks;
    while (*f && o + 32 < n) {
        if (isalpha((unsigned char)*f)) {
            char tok[32], val[40];
            size_t t = 0;
            while ((isalnum((unsigned char)*f) || *f == '_') && t + 1 < sizeof tok)
                tok[t++] = *f++;
            tok[t] = '\0';
            val[0] = '\0';
            if (!strcmp(tok, "p") && *f == '\'') {
                f++;
                snprintf(val, sizeof val, "%d", 1 << cs_floor_log2(p));
            } else if (!strcmp(tok, "p")) {
                snprintf(val, sizeof val, "%d", p);
            } else if (!strcmp(tok, "L")) {
                snprintf(val, sizeof val, "%d", cs_ceil_log2(p));
            } else if (!strcmp(tok, "S")) {
                snprintf(val, sizeof val, "%llu", (unsigned long long)req->bytes);
            } else if (!strcmp(tok, "a")) {
                snprintf(val, sizeof val, "%.6g", ab->a_s * 1e6);
            } else if (!strcmp(tok, "b")) {
                snprintf(val, sizeof val, "%.6g", ab->b_s_per_B * 1e6);
            } else if (!strcmp(tok, "g")) {
                snprintf(val, sizeof val, "%.6g", ab->g_s_per_B * 1e6);
            } else if (!strcmp(tok, "k")) {
                snprintf(val, sizeof val, "%d", req->chunks);
            } else if (!strcmp(tok, "K")) {
                snprintf(val, sizeof val, "%d", req->servers);
            } else if (!strcmp(tok, "C")) {
                snprintf(val, sizeof val, "%d", req->channels);
            } else {
                snprintf(val, sizeof val, "%s", tok);
            }
            o += (size_t)snprintf(out + o, n - o, "%s", val);
        } else {
            out[o++] = *f++;
        }
    }
    out[o] = '\0';
}

static void print_closed_form(const cs_algo *ops, const cs_coll_req *req, const cs_topo *t,
                              cs_time sim_end)
{
    cs_ab ab;
    const char *f = ops->formula ? ops->formula(req) : NULL;
    double cf;
    char put[1024];
    int estimate = f && f[0] == '~';
    cs_ab_from_topo(t, &ab);
    cf = ops->cost ? ops->cost(req, &ab) : NAN;
    printf("closed form (a = %.6g us, b = %.6g us/B = 1/(%.6g GB/s), g = %.6g us/B; S in bytes):\n",
           ab.a_s * 1e6, ab.b_s_per_B * 1e6, ab.b_s_per_B > 0 ? 1e-9 / ab.b_s_per_B : 0,
           ab.g_s_per_B * 1e6);
    if (!f || isnan(cf)) {
        printf("  %s has no closed form for this request\n", ops->name);
    } else {
        if (estimate)
            f++;
        substitute(f, req, &ab, put, sizeof put);
        printf("  %s\n  = %s\n  = %.3f us%s\n", f, put, cf * 1e6,
               estimate ? "  (an estimate for this request: the textbook form assumes a power"
                          " of two, no pipelining)" : "");
    }
    if (t->model != CS_MODEL_ALPHA_BETA)
        printf("  (an estimate: the form is for the single-port alpha_beta fabric; a and b are\n"
               "  the route rank 0 -> rank 1 of this %s topology, which has real links)\n",
               t->kind);
    printf("simulated: %.3f us", cs_time_to_us(sim_end));
    if (f && !isnan(cf) && cf > 0)
        printf("  (closed form %+.3f%%)", 100.0 * (cf * 1e6 - cs_time_to_us(sim_end)) /
               fmax(cs_time_to_us(sim_end), 1e-12));
    printf("\n");
}

static int explain(const ex_opts *o, cs_err *err)
{
    cs_topo *t = NULL;
    cs_coll coll;
    cs_dtype dt;
    cs_coll_req req;
    const cs_algo *ops;
    cs_sched s;
    cs_sim *sim = NULL;
    cs_run_cfg cfg;
    cs_run_choice ch;
    cs_nccl_params np;
    cs_sim_costs costs;
    cs_sim_opts so = {1, 0, &costs};
    int on = 0;
    cs_job *job;
    ex_times tm = {NULL, NULL, NULL};
    uint64_t count, S;
    int p, rc, wrong;
    uint32_t i;
    char buf[32];
    if ((rc = cs_coll_lookup(o->coll_name, &coll, err)) < 0) {
        err->code = CS_EUSAGE;
        return rc;
    }
    if ((rc = cs_dtype_lookup(o->dtype, &dt, err)) < 0 || (rc = cs_topo_open(o->topo, &t, err)) < 0)
        return rc;
    p = o->ranks ? (int)o->ranks : t->n_ranks;
    if (p > t->n_ranks) {
        rc = cs_err_set(err, CS_EUSAGE, "-g", "%d ranks requested but topology '%s' has %d", p,
                        t->name, t->n_ranks);
        goto out;
    }
    cs_nccl_sizes(coll, p, dt.bytes, coll == CS_COLL_BARRIER ? 0 : o->size, &count, &S);
    if (cs_coll_is_rooted(coll) && o->root >= p) {
        rc = cs_err_set(err, CS_EUSAGE, "-r", "root must be between 0 and %d, got %ld", p - 1,
                        o->root);
        goto out;
    }
    /* The choice run and validate make: NCCL mode where they use it. */
    if ((rc = cs_nccl_setup(o->topo, o->proto, 0, &np, &on, err)) < 0)
        goto out;
    cs_run_cfg_init(&cfg);
    cfg.algo = o->algo;
    cfg.chunks = (int)o->chunks;
    cfg.servers = (int)o->servers;
    cfg.channels = (int)o->channels;
    cfg.root = cs_coll_is_rooted(coll) ? (int)o->root : 0;
    cfg.nccl = on ? &np : NULL;
    if ((rc = cs_run_choose(&cfg, t, coll, p, dt.bytes, coll == CS_COLL_BARRIER ? 0 : o->size,
                            &ch, &s, &costs, err)) < 0)
        goto out;
    ops = ch.algo;
    req = ch.req;
    tm.start = malloc((s.n_xfers + 1) * sizeof *tm.start);
    tm.done = malloc((s.n_xfers + 1) * sizeof *tm.done);
    tm.reduced = malloc((s.n_xfers + 1) * sizeof *tm.reduced);
    if (!tm.start || !tm.done || !tm.reduced) {
        rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        goto out_sched;
    }
    for (i = 0; i < s.n_xfers; i++)
        tm.start[i] = tm.done[i] = tm.reduced[i] = -1;
    if ((rc = cs_sim_new(&sim, t, &so, err)) < 0)
        goto out_sched;
    cs_sim_set_observer(sim, observe, &tm);
    if ((rc = cs_sim_add(sim, &s, NULL, 0, &job, err)) < 0 || (rc = cs_sim_run(sim, err)) < 0)
        goto out_sched;
    wrong = cs_job_wrong(job);
    printf("# collsim explain: %s, algorithm %s%s, %d ranks, S = %s (%llu B)", cs_coll_name(coll),
           ops->name, strcmp(o->algo, "auto") ? "" : " (auto)", p,
           cs_format_bytes(S, buf, sizeof buf), (unsigned long long)S);
    if (cs_coll_is_rooted(coll))
        printf(", root %d", req.root);
    printf(", chunks %d", req.chunks);
    if (ch.protocol)
        printf(", channels %d\n# NCCL mode: protocol %s, launch and protocol base %g us, "
               "%g us per transfer, bandwidth x %g", req.channels, ch.protocol, costs.launch_us,
               costs.xfer_lat_us, costs.bw_eff);
    printf("\n# topology %s (%s)\n# %u transfers in %d steps; #wrong = %d\n\n",
           t->name, t->kind, s.n_xfers, s.n_steps, wrong);
    print_table(&s, &tm, o->all, t->reduce_GBps > 0);
    printf("\n");
    print_timeline(&s, &tm, cs_job_end(job), o->all);
    printf("\n");
    print_closed_form(ops, &req, t, cs_job_end(job));
    rc = o->plot ? explain_plot(o, t, &s, ops->name, p, S, err) : 0;
out_sched:
    cs_sim_free(sim);
    cs_sched_fini(&s);
out:
    free(tm.start);
    free(tm.done);
    free(tm.reduced);
    cs_topo_free(t);
    return rc;
}

int cs_cmd_explain(int argc, char **argv)
{
    ex_opts o;
    cs_err err;
    int rc;
    cs_err_clear(&err);
    rc = parse(argc, argv, &o, &err);
    if (rc > 0)
        return CS_EXIT_OK;
    if (rc < 0 || (rc = explain(&o, &err)) < 0)
        return cs_cli_fail(&err);
    return CS_EXIT_OK;
}
