/* main.c: the collsim command (cli layer). Dispatches to one cmd_*.c per command through
 * a static table; `collsim` alone runs the default allreduce sweep. */
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "cli/cli.h"

static int cmd_help(int argc, char **argv);

/* Display order of `collsim help`. */
static const cs_cmd commands[] = {
    {"run", "simulate a size sweep of one collective (nccl-tests table)", cs_cmd_run},
    {"calibrate", "fit a topology to measured logs (GSL least squares, simulator in the loop)", cs_cmd_calibrate},
    {"validate", "compare measured nccl-tests/rccl-tests/hccl_test logs with the simulation", cs_cmd_validate},
    {"list", "list the algorithms, collectives and topologies with summaries", cs_cmd_list},
    {"explain", "one collective step by step: transfers, timeline, closed form", cs_cmd_explain},
    {"topo", "show a topology (nodes, links by class, bisection), check it, or draw it", cs_cmd_topo},
    {"plan", "simulate a training plan (DP/TP/PP/ZeRO/EP/CP) step, or search layouts", cs_cmd_plan},
    {"plot", "draw saved results (JSON, CSV, nccl-tests logs) as a PNG/SVG/PDF chart", cs_cmd_plot},
    {"help", "show the commands", cmd_help},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static int cmd_help(int argc, char **argv)
{
    size_t i;
    printf("usage: collsim [COMMAND] [options]\n\ncommands:\n");
    for (i = 0; i < N_COMMANDS; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    printf("\n`collsim` alone runs `collsim run`: an allreduce sweep on the default preset.\n"
           "`collsim COMMAND --help` describes a command.\n");
    return CS_EXIT_OK;
}

int main(int argc, char **argv)
{
    size_t i;
    gsl_set_error_handler_off();
    if (argc < 2 || argv[1][0] == '-')
        return cs_cmd_run(argc, argv);     /* `collsim -b 8 ...` is `collsim run -b 8 ...` */
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return cmd_help(argc, argv);
    for (i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    {
        char known[512] = "";
        cs_err err;
        for (i = 0; i < N_COMMANDS; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, commands[i].name, sizeof known - strlen(known) - 1);
        }
        cs_err_set(&err, CS_EUSAGE, NULL, "unknown command '%s' (known: %s)", argv[1], known);
        return cs_cli_fail(&err);
    }
}
