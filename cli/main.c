/* main.c: the collsim command (cli layer). Dispatches to one cmd_*.c per command through
 * a static table; `collsim` alone runs the default allreduce sweep. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "sim/par.h"

static int cmd_help(int argc, char **argv);

/* Display order of `collsim help`. The last field: the command's work is spread over MPI
 * ranks (sim/par.h); the others run on rank 0 alone. */
static const cs_cmd commands[] = {
    {"run", "simulate a size sweep of one collective (nccl-tests table)", cs_cmd_run, 1},
    {"calibrate", "fit a topology to measured logs (GSL least squares, simulator in the loop)", cs_cmd_calibrate, 1},
    {"validate", "compare measured nccl-tests/rccl-tests/hccl_test logs with the simulation", cs_cmd_validate, 1},
    {"list", "list the algorithms, collectives and topologies with summaries", cs_cmd_list, 0},
    {"explain", "one collective step by step: transfers, timeline, closed form", cs_cmd_explain, 0},
    {"topo", "show a topology (nodes, links by class, bisection), check it, or draw it", cs_cmd_topo, 0},
    {"plan", "simulate a training plan (DP/TP/PP/ZeRO/EP/CP) step, or search layouts", cs_cmd_plan, 1},
    {"plot", "draw saved results (JSON, CSV, nccl-tests logs) as a PNG/SVG/PDF chart", cs_cmd_plot, 0},
    {"help", "show the commands", cmd_help, 0},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static int cmd_help(int argc, char **argv)
{
    char eng[160];
    size_t i;
    printf("usage: collsim [COMMAND] [options]\n\ncommands:\n");
    for (i = 0; i < N_COMMANDS; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    printf("\n`collsim` alone runs `collsim run`: an allreduce sweep on the default preset.\n"
           "`collsim COMMAND --help` describes a command.\n"
           "Work distribution (mpirun -np N collsim run|validate|calibrate|plan search): %s.\n",
           cs_par_describe(eng, sizeof eng));
    return CS_EXIT_OK;
}

/* Run a command. Under MPI (sim/par.h) a spread command runs on every rank; any other
 * runs on rank 0 while the rest exit 0. A failure ends the process without MPI_Finalize,
 * which would wait for ranks that may still be working: the launcher ends them. */
static int dispatch(const cs_cmd *c, int argc, char **argv)
{
    int status = CS_EXIT_OK;
    if (c->is_spread || cs_par_rank() == 0)
        status = c->fn(argc, argv);
    if (status == CS_EXIT_OK)
        cs_par_fini();
    return status;
}

int main(int argc, char **argv)
{
    size_t i;
    cs_err err;
    gsl_set_error_handler_off();
    cs_err_clear(&err);
    if (cs_par_init(&argc, &argv, &err) < 0)
        return cs_cli_fail(&err);
    /* Progress when stderr is a terminal; under mpirun the ranks' stderr is a pipe, so
     * COLLSIM_PROGRESS=1 asks for it there (and 0 turns it off anywhere). */
    if (getenv("COLLSIM_PROGRESS") ? !strcmp(getenv("COLLSIM_PROGRESS"), "1")
                                   : isatty(STDERR_FILENO))
        cs_par_set_progress(cs_cli_progress);
    if (argc < 2 || argv[1][0] == '-')
        return dispatch(&commands[0], argc, argv);  /* `collsim -b 8` is `collsim run -b 8` */
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return dispatch(&commands[N_COMMANDS - 1], argc, argv);
    for (i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return dispatch(&commands[i], argc - 1, argv + 1);
    {
        char known[512] = "";
        for (i = 0; i < N_COMMANDS; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, commands[i].name, sizeof known - strlen(known) - 1);
        }
        cs_err_set(&err, CS_EUSAGE, NULL, "unknown command '%s' (known: %s)", argv[1], known);
        return cs_cli_fail(&err);       /* every rank fails alike: no MPI_Finalize */
    }
}
