/* cmd_topo_draw.c: `collsim topo draw PRESET|FILE --output FILE` (cli layer), the drawing
 * subcommand of `collsim topo`: the fabric laid out by its shape, links coloured by class
 * and labelled with bandwidth; PNG, SVG or PDF by the output's extension. */
#include "cli/cli.h"
#include "sim/size.h"
#include "plots/plot.h"
#include "topologies/topology.h"

#include <string.h>

enum { O_OUTPUT = 1, O_WIDTH, O_HEIGHT, O_HELP, O_RANKS };

const cs_opt_spec cs_topo_draw_opts[] = {
    {"output", 'o', 1, O_OUTPUT}, {"width", 0, 1, O_WIDTH}, {"height", 0, 1, O_HEIGHT},
    {"help", 'h', 0, O_HELP}, {"ranks", 'g', 1, O_RANKS}, {NULL, 0, 0, 0},
};

static void draw_usage(void)
{
    printf("usage: collsim topo draw PRESET|FILE --output OUT.png|.svg|.pdf [options]\n\n"
           "Draw a topology: rings as a circle, tori and meshes as a grid, switched fabrics in\n"
           "tiers above boxes holding each node's GPUs; links coloured by class and labelled\n"
           "with their bandwidth (GB/s).\n\n"
           "  -o, --output FILE      picture to write (format by extension; required)\n"
           "      --width W          width, px (default %d)\n"
           "      --height H         height, px (default %d)\n"
           "  -g, --ranks N          rank count of a file that leaves \"ranks\" to the command\n",
           CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H);
}

/* argv[0] is "draw". */
int cs_cmd_topo_draw(int argc, char **argv)
{
    cs_opt_scan sc = {argc, argv, 1};
    const cs_opt_spec *sp;
    const char *v, *spec = NULL, *output = NULL;
    long w = CS_PLOT_DEFAULT_W, h = CS_PLOT_DEFAULT_H, ranks = 0;
    cs_topo *t = NULL;
    cs_plot_fmt fmt;
    cs_err err;
    int rc;
    cs_err_clear(&err);
    while ((rc = cs_opt_next(&sc, cs_topo_draw_opts, &sp, &v, &err)) > 0) {
        if (!sp) {
            if (spec) {
                cs_err_set(&err, CS_EUSAGE, NULL, "unexpected argument '%s' (the topology was "
                           "already given as '%s')", v, spec);
                return cs_cli_fail(&err);
            }
            spec = v;
            continue;
        }
        switch (sp->id) {
        case O_OUTPUT: output = v; break;
        case O_WIDTH: rc = cs_parse_int(v, "--width", CS_PLOT_MIN_SIDE, CS_PLOT_MAX_SIDE, &w, &err); break;
        case O_HEIGHT: rc = cs_parse_int(v, "--height", CS_PLOT_MIN_SIDE, CS_PLOT_MAX_SIDE, &h, &err); break;
        case O_HELP: draw_usage(); return CS_EXIT_OK;
        case O_RANKS: rc = cs_parse_int(v, "-g", 1, 1 << 20, &ranks, &err); break;
        default: break;
        }
        if (rc < 0)
            return cs_cli_fail(&err);
    }
    if (rc < 0)
        return cs_cli_fail(&err);
    if (!spec)
        cs_err_set(&err, CS_EUSAGE, NULL, "no topology given (usage: collsim topo draw "
                   "PRESET|FILE --output OUT.png)");
    else if (!output)
        cs_err_set(&err, CS_EUSAGE, "--output", "missing: give the picture to write (.png, .svg or .pdf)");
    else if (cs_plot_format(output, &fmt, &err) < 0)
        err.code = CS_EUSAGE;
    if (err.code)
        return cs_cli_fail(&err);
    if ((rc = cs_topo_open_ranks(spec, (int)ranks, &t, &err)) < 0)
        return cs_cli_fail(&err);
    rc = cs_plot_topology(t, output, (int)w, (int)h, &err);
    cs_topo_free(t);
    return rc < 0 ? cs_cli_fail(&err) : CS_EXIT_OK;
}
