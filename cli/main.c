/* main.c: the collsim command (cli layer). Dispatches to one cmd_*.c per command through
 * a static table; `collsim` alone runs the default allreduce sweep. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "sim/limits.h"
#include "sim/size.h"

static int cmd_help(int argc, char **argv);

/* Display order of `collsim help`. */
static const cs_cmd commands[] = {
    {"run", "simulate a size sweep of one collective (nccl-tests table)", cs_cmd_run},
    {"calibrate", "fit a topology to measured logs (GSL least squares, simulator in the loop)", cs_cmd_calibrate},
    {"validate", "compare measured nccl-tests/rccl-tests/hccl_test logs with the simulation", cs_cmd_validate},
    {"list", "list the algorithms, collectives and topologies with summaries", cs_cmd_list},
    {"explain", "one collective step by step: transfers, timeline, closed form", cs_cmd_explain},
    {"topo", "show a topology (nodes, links by class, bisection), check it, or draw it", cs_cmd_topo},
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

/* --max-memory SIZE (or =SIZE) anywhere on the command line: the memory budget of every
 * command (sim/limits.h). It is taken out of argv before the command sees it. Returns 0, or
 * the usage exit status after printing the error. */
static int take_max_memory(int *argc, char **argv)
{
    int i, j;
    for (i = 1; i < *argc; i++) {
        const char *v = NULL;
        int used = 1;
        uint64_t bytes;
        cs_err err;
        if (!strcmp(argv[i], "--"))
            break;
        if (!strncmp(argv[i], "--max-memory=", 13)) {
            v = argv[i] + 13;
        } else if (!strcmp(argv[i], "--max-memory")) {
            if (i + 1 >= *argc) {
                cs_err_set(&err, CS_EUSAGE, "--max-memory", "missing value");
                return cs_cli_fail(&err);
            }
            v = argv[i + 1];
            used = 2;
        } else {
            continue;
        }
        if (cs_parse_size(v, "--max-memory", &bytes, &err) < 0)
            return cs_cli_fail(&err);
        if (bytes == 0) {
            cs_err_set(&err, CS_EUSAGE, "--max-memory", "must be > 0, got '%s'", v);
            return cs_cli_fail(&err);
        }
        cs_budget_set(bytes);
        for (j = i; j + used <= *argc; j++)
            argv[j] = argv[j + used];
        *argc -= used;
        i--;
    }
    return 0;
}

/* A command that succeeded but whose output could not be written (`> /dev/full`, a closed
 * pipe) fails: every command's stdout is checked here, once. */
static int finish(int status)
{
    cs_err err;
    errno = 0;
    if (status == CS_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        cs_err_set(&err, CS_EIO, "stdout", "write failed: %s", strerror(errno ? errno : EIO));
        return cs_cli_fail(&err);
    }
    return status;
}

int main(int argc, char **argv)
{
    size_t i;
    int rc;
    gsl_set_error_handler_off();
    if ((rc = take_max_memory(&argc, argv)) != 0)
        return rc;
    if (argc < 2 || argv[1][0] == '-')
        return finish(cs_cmd_run(argc, argv));   /* `collsim -b 8` is `collsim run -b 8` */
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return finish(cmd_help(argc, argv));
    for (i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return finish(commands[i].fn(argc - 1, argv + 1));
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
