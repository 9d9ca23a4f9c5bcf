/* cmd_topo.c: `collsim topo show|check PRESET|FILE` (cli layer). show prints a topology's
 * nodes, links by class, ranks and bisection bandwidth (text or JSON); check lists every
 * problem of a topology file, each as `error: where: what`, instead of stopping at the
 * first. */
#include "cli/cli.h"
#include "sim/size.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_FORMAT = 1, T_OUTPUT, T_HELP, T_RANKS, T_RINGS, T_CHANNELS, T_NODES, T_CAL };

static const char usage[] =
    "usage: collsim topo show PRESET|FILE [-g N] [--nodes N] [--calibration FILE]\n"
    "                         [--format text|json] [--output FILE] [--rings [--channels C]]\n"
    "       collsim topo check PRESET|FILE\n"
    "       collsim topo draw PRESET|FILE --output OUT.png|.svg|.pdf [--width W --height H]\n\n"
    "show: nodes by type, links by class (bandwidth and latency per direction), the ranks,\n"
    "and the bisection bandwidth (most that the first half of the ranks can send to the\n"
    "second half at once, GB/s per direction), the description and sources. --rings: the\n"
    "ring of each channel as NCCL mode and --algo ring run them (C channels; default the\n"
    "topology's NCCL channel count, 1 on the bare fabric).\n"
    "check: every problem of the topology (syntax, keys, values, unknown or duplicate\n"
    "names, self-links, ranks that are not endpoints or cannot be reached, routes that are\n"
    "not paths), one `where: what` line each on stdout, and exit 1 if there is any.\n"
    "draw: a picture of the fabric (see `collsim topo draw --help`).\n"
    "-g N: the rank count of a file that leaves \"ranks\" to the command (alpha_beta, ring,\n"
    "switch, fully_connected); check checks such a file at 2 ranks.\n";

/* Links of one class. */
typedef struct class_row {
    const char *cls;         /* class name (borrowed from the topology) */
    int n;                   /* links */
    double bw_min, bw_max;   /* per-direction bandwidth range, GB/s */
    double lat_min, lat_max; /* latency range, us */
} class_row;

/* Group links by class in order of first appearance; returns the row count or -1. */
static int class_rows(const cs_topo *t, class_row **out)
{
    class_row *rows = calloc((size_t)t->n_links + 1, sizeof *rows);
    int i, j, n = 0;
    if (!rows)
        return -1;
    for (i = 0; i < t->n_links; i++) {
        const cs_link *l = &t->links[i];
        for (j = 0; j < n && strcmp(rows[j].cls, l->cls); j++)
            ;
        if (j == n) {
            rows[n++] = (class_row){l->cls, 0, l->bw_GBps, l->bw_GBps, l->lat_us, l->lat_us};
        }
        rows[j].n++;
        if (l->bw_GBps < rows[j].bw_min) rows[j].bw_min = l->bw_GBps;
        if (l->bw_GBps > rows[j].bw_max) rows[j].bw_max = l->bw_GBps;
        if (l->lat_us < rows[j].lat_min) rows[j].lat_min = l->lat_us;
        if (l->lat_us > rows[j].lat_max) rows[j].lat_max = l->lat_us;
    }
    *out = rows;
    return n;
}

static void range(FILE *f, double lo, double hi)
{
    char buf[64];
    if (lo == hi)
        snprintf(buf, sizeof buf, "%g", lo);
    else
        snprintf(buf, sizeof buf, "%g-%g", lo, hi);
    fprintf(f, " %14s", buf);
}

static void show_text(FILE *f, const cs_topo *t, const class_row *rows, int n_rows, double bis)
{
    static const cs_node_type types[] = {CS_NODE_GPU, CS_NODE_NPU, CS_NODE_CPU, CS_NODE_NIC,
                                         CS_NODE_SWITCH};
    int i, j, half = t->n_ranks / 2;
    fprintf(f, "topology: %s (kind %s, %s model)\n", t->name, t->kind,
            t->model == CS_MODEL_ALPHA_BETA ? "alpha_beta" : "fluid");
    fprintf(f, "nodes: %d (", t->n_nodes);
    for (i = 0; i < 5; i++) {
        int c = 0;
        for (j = 0; j < t->n_nodes; j++)
            c += t->nodes[j].type == types[i];
        fprintf(f, "%s%s %d", i ? ", " : "", cs_node_type_name(types[i]), c);
    }
    fprintf(f, ")\nranks: %d:", t->n_ranks);
    for (i = 0; i < t->n_ranks; i++) {
        if (t->n_ranks > 16 && i == 8) {
            fprintf(f, " ... (%d more)", t->n_ranks - 12);
            i = t->n_ranks - 4;
        }
        fprintf(f, " %s", t->nodes[t->ranks[i]].name);
    }
    fprintf(f, "\n");
    if (t->model == CS_MODEL_ALPHA_BETA) {
        fprintf(f, "alpha_beta: bandwidth %g GB/s, latency %g us per message, one send and one "
                "receive per rank at a time\n", t->ab_bw_GBps, t->ab_lat_us);
    } else {
        fprintf(f, "links: %d full duplex, by class (figures per direction):\n", t->n_links);
        fprintf(f, "  %-12s %6s %14s %14s\n", "class", "links", "GB/s", "latency_us");
        for (i = 0; i < n_rows; i++) {
            fprintf(f, "  %-12s %6d", rows[i].cls, rows[i].n);
            range(f, rows[i].bw_min, rows[i].bw_max);
            range(f, rows[i].lat_min, rows[i].lat_max);
            fprintf(f, "\n");
        }
    }
    if (t->reduce_GBps > 0)
        fprintf(f, "reduce_GBps: %g\n", t->reduce_GBps);
    if (t->n_ranks >= 2)
        fprintf(f, "bisection bandwidth: %g GB/s per direction (ranks 0-%d to %d-%d)\n", bis,
                half - 1, half, 2 * half - 1);
    cs_topo_show_about(f, t->name, NULL);
}

static int show_json(FILE *f, const cs_topo *t, const class_row *rows, int n_rows, double bis)
{
    json_t *o = json_object(), *ranks = json_array(), *classes = json_array(), *nodes;
    int i, rc;
    for (i = 0; i < t->n_ranks; i++)
        json_array_append_new(ranks, json_string(t->nodes[t->ranks[i]].name));
    for (i = 0; i < n_rows; i++)
        json_array_append_new(classes, json_pack("{s:s, s:i, s:f, s:f, s:f, s:f}",
            "class", rows[i].cls, "links", rows[i].n, "bandwidth_GBps_min", rows[i].bw_min,
            "bandwidth_GBps_max", rows[i].bw_max, "latency_us_min", rows[i].lat_min,
            "latency_us_max", rows[i].lat_max));
    nodes = json_object();
    for (i = 0; i < t->n_nodes; i++) {
        const char *ty = cs_node_type_name(t->nodes[i].type);
        json_object_set_new(nodes, ty, json_integer(json_integer_value(
            json_object_get(nodes, ty)) + 1));
    }
    json_object_set_new(o, "topology", json_string(t->name));
    json_object_set_new(o, "kind", json_string(t->kind));
    json_object_set_new(o, "model", json_string(t->model == CS_MODEL_ALPHA_BETA ?
                                                "alpha_beta" : "fluid"));
    json_object_set_new(o, "n_nodes", json_integer(t->n_nodes));
    json_object_set_new(o, "nodes_by_type", nodes);
    json_object_set_new(o, "n_links", json_integer(t->n_links));
    json_object_set_new(o, "links_by_class", classes);
    json_object_set_new(o, "ranks", ranks);
    json_object_set_new(o, "bisection_GBps", json_real(bis));
    if (t->model == CS_MODEL_ALPHA_BETA) {
        json_object_set_new(o, "bandwidth_GBps", json_real(t->ab_bw_GBps));
        json_object_set_new(o, "latency_us", json_real(t->ab_lat_us));
    }
    cs_topo_show_about(NULL, t->name, o);
    rc = json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    fputc('\n', f);
    json_decref(o);
    return rc;
}

static int topo_show(const char *spec, long ranks, const char *format, const char *output,
                     int rings, long channels)
{
    cs_topo *t;
    class_row *rows = NULL;
    cs_out out;
    cs_err err;
    double bis = 0;
    int n_rows, rc;
    if (strcmp(format, "text") && strcmp(format, "json")) {
        cs_err_set(&err, CS_EUSAGE, "--format", "unknown format '%s' (known: text, json)", format);
        return cs_cli_fail(&err);
    }
    if ((rc = cs_topo_open_ranks(spec, (int)ranks, &t, &err)) < 0)
        return cs_cli_fail(&err);
    if ((rc = cs_topo_bisection_GBps(t, &bis, &err)) < 0 ||
        (n_rows = class_rows(t, &rows)) < 0) {
        if (rc >= 0)
            cs_err_set(&err, CS_ENOMEM, NULL, "out of memory");
        cs_topo_free(t);
        return cs_cli_fail(&err);
    }
    if ((rc = cs_out_open(&out, stdout, output, &err)) == 0) {
        if (!strcmp(format, "json") && show_json(out.f, t, rows, n_rows, bis) < 0) {
            cs_out_abort(&out);
            rc = cs_err_set(&err, CS_EIO, output, "cannot write the JSON");
        } else {
            if (strcmp(format, "json"))
                show_text(out.f, t, rows, n_rows, bis);   /* with the about lines */
            if (rings && (rc = cs_topo_show_rings(out.f, t, spec, channels, &err)) < 0)
                cs_out_abort(&out);
            else
                rc = cs_out_commit(&out, &err);
        }
    }
    free(rows);
    cs_topo_free(t);
    return rc < 0 ? cs_cli_fail(&err) : CS_EXIT_OK;
}

const cs_opt_spec cs_topo_opts[] = {
    {"format", 0, 1, T_FORMAT}, {"output", 0, 1, T_OUTPUT}, {"help", 'h', 0, T_HELP},
    {"ranks", 'g', 1, T_RANKS}, {"rings", 0, 0, T_RINGS}, {"channels", 0, 1, T_CHANNELS},
    CS_TOPO_MOD_SPECS(T_NODES, T_CAL), {NULL, 0, 0, 0},
};

int cs_cmd_topo(int argc, char **argv)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *spec;
    const char *val, *what = NULL, *topo = NULL, *format = "text", *output = NULL;
    cs_topo_mods mods = {NULL, NULL};
    cs_err err;
    char spec_buf[CS_CLI_SPEC_MAX];
    long ranks = 0, channels = 0;
    int rc, rings = 0;
    if (argc > 1 && !strcmp(argv[1], "draw"))
        return cs_cmd_topo_draw(argc - 1, argv + 1);   /* cmd_topo_draw.c */
    while ((rc = cs_opt_next(&sc, cs_topo_opts, &spec, &val, &err)) == 1) {
        if (!spec) {
            if (!what)
                what = val;
            else if (!topo)
                topo = val;
            else {
                cs_err_set(&err, CS_EUSAGE, NULL, "unexpected argument '%s'", val);
                return cs_cli_fail(&err);
            }
        } else if (spec->id == T_HELP) {
            fputs(usage, stdout);
            return CS_EXIT_OK;
        } else if (spec->id == T_RANKS || spec->id == T_CHANNELS) {
            if (spec->id == T_RANKS ? cs_parse_int(val, "-g", 1, 1 << 20, &ranks, &err) < 0 :
                cs_parse_int(val, "--channels", 1, 64, &channels, &err) < 0)
                return cs_cli_fail(&err);
        } else if (spec->id == T_RINGS) {
            rings = 1;
        } else {
            *(spec->id == T_NODES ? &mods.nodes : spec->id == T_CAL ? &mods.cal
              : spec->id == T_FORMAT ? &format : &output) = val;
        }
    }
    if (rc < 0)
        return cs_cli_fail(&err);
    if (!what || (strcmp(what, "show") && strcmp(what, "check"))) {
        cs_err_set(&err, CS_EUSAGE, NULL, what ? "unknown topo command '%s' (known: show, check, draw)"
                   : "expected show, check or draw%s (usage: collsim topo show|check|draw PRESET|FILE)",
                   what ? what : "");
        return cs_cli_fail(&err);
    }
    if (!topo) {
        cs_err_set(&err, CS_EUSAGE, NULL, "topo %s: expected a preset name or a file", what);
        return cs_cli_fail(&err);
    }
    if (topo && !(topo = cs_cli_spec(topo, &mods, spec_buf, sizeof spec_buf, &err)))
        return cs_cli_fail(&err);
    if ((channels && !rings) || (rings && (strcmp(what, "show") || strcmp(format, "text")))) {
        cs_err_set(&err, CS_EUSAGE, rings ? "--rings" : "--channels", rings ? "only used with "
                   "show --format text" : "only used with --rings");
        return cs_cli_fail(&err);
    }
    if (!strcmp(what, "check")) {
        if (output || strcmp(format, "text")) {
            cs_err_set(&err, CS_EUSAGE, output ? "--output" : "--format", "only used with show");
            return cs_cli_fail(&err);
        }
        return cs_cmd_topo_check(topo);      /* cmd_topo_check.c */
    }
    return topo_show(topo, ranks, format, output, rings, channels);
}
