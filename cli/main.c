/* main.c: the collsim command (cli layer). Dispatches to one cmd_*.c per command through
 * a static table; `collsim` alone runs the default allreduce sweep. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "sim/par.h"
#include "sim/limits.h"
#include "sim/size.h"
#include "calibration/logparse.h"

#ifndef CS_VERSION
#define CS_VERSION "unknown"    /* meson passes the project version */
#endif

static int cmd_help(int argc, char **argv);

/* Display order of `collsim help`. The last field: the command's work is spread over MPI
 * ranks (sim/par.h); the others run on rank 0 alone. */
static const cs_cmd commands[] = {
    {"run", "simulate a size sweep of one collective (nccl-tests table)", cs_cmd_run, 1,
     cs_run_opts},
    {"calibrate", "fit a topology to measured logs (GSL least squares, simulator in the loop)",
     cs_cmd_calibrate, 1, cs_calibrate_opts},
    {"validate", "compare measured nccl-tests/rccl-tests/hccl_test logs with the simulation",
     cs_cmd_validate, 1, cs_validate_opts},
    {"list", "list the algorithms, collectives and topologies with summaries", cs_cmd_list, 0,
     NULL},
    {"explain", "one collective step by step: transfers, timeline, closed form", cs_cmd_explain,
     0, cs_explain_opts},
    {"topo", "show a topology (nodes, links by class, bisection), check it, or draw it",
     cs_cmd_topo, 0, cs_topo_opts},
    {"plan", "simulate a training plan (DP/TP/PP/ZeRO/EP/CP) step, or search layouts",
     cs_cmd_plan, 1, cs_plan_opts},
    {"compare", "one plan on several systems: time, cost, energy and failures side by side",
     cs_cmd_compare, 1, cs_compare_opts},
    {"plot", "draw saved results (JSON, CSV, nccl-tests logs) as a PNG/SVG/PDF chart",
     cs_cmd_plot, 0, cs_plot_opts},
    {"help", "show the commands", cmd_help, 0, NULL},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* `collsim help --options [CMD [SUB]]`: CMD's options as its parser reads them, one a line
 * ("--name", "--name ARG" when it takes a value, the same for "-x" short forms), then those
 * of every command; without CMD, the commands. For shell completion (tools/collsim.bash). */
static int print_options(int argc, char **argv)
{
    const cs_opt_spec *o;
    size_t i;
    cs_err err;
    for (i = 0; argc < 3 && i < N_COMMANDS; i++)
        printf("%s\n", commands[i].name);
    if (argc < 3)
        return CS_EXIT_OK;
    for (i = 0; i < N_COMMANDS && strcmp(argv[2], commands[i].name); i++)
        ;
    if (i == N_COMMANDS) {
        cs_err_set(&err, CS_EUSAGE, "--options", "no command '%s' (see collsim help)", argv[2]);
        return cs_cli_fail(&err);
    }
    o = argc >= 4 && !strcmp(argv[2], "topo") && !strcmp(argv[3], "draw") ? cs_topo_draw_opts
        : argc >= 4 && !strcmp(argv[2], "plan") && (!strcmp(argv[3], "validate") ||
                                                    !strcmp(argv[3], "calibrate"))
        ? cs_plan_logs_opts : commands[i].opts;
    for (; o && o->lng; o++) {
        printf("--%s%s\n", o->lng, o->has_arg ? " ARG" : "");
        if (o->shrt)
            printf("-%c%s\n", o->shrt, o->has_arg ? " ARG" : "");
    }
    if (!commands[i].opts)
        printf("--help\n-h\n");
    printf("--max-memory ARG\n");
    return CS_EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
    char eng[160];
    size_t i;
    if (argc >= 2 && !strcmp(argv[1], "--options"))
        return print_options(argc, argv);
    if (argc >= 2) {
        /* `collsim help CMD` is `collsim CMD --help` */
        static char help_opt[] = "--help";
        char *sub[3];
        for (i = 0; i < N_COMMANDS; i++)
            if (!strcmp(argv[1], commands[i].name) && commands[i].fn != cmd_help) {
                sub[0] = argv[1];
                sub[1] = help_opt;
                sub[2] = NULL;
                return commands[i].fn(2, sub);
            }
        if (strcmp(argv[1], "help")) {
            cs_err err;
            cs_err_set(&err, CS_EUSAGE, NULL, "no help for '%s': not a command (see collsim "
                       "help)", argv[1]);
            return cs_cli_fail(&err);
        }
    }
    printf("usage: collsim [COMMAND] [options]\n\ncommands:\n");
    for (i = 0; i < N_COMMANDS; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    printf("\n`collsim` alone runs `collsim run`: an allreduce sweep on the default preset.\n"
           "`collsim help COMMAND` or `collsim COMMAND --help` describes a command;\n"
           "`collsim help --options COMMAND` lists its options (shell completion).\n"
           "`collsim all_reduce_perf ...` (any nccl-tests program name or a path ending in one)\n"
           "is `collsim run allreduce ...`; under `mpirun -np N` it simulates N x -g x -t ranks\n"
           "as nccl-tests counts them.\n\n"
           "options of every command:\n"
           "      --max-memory SIZE   memory budget for topologies and schedules (default half\n"
           "                          the physical memory); see docs/limits.md\n"
           "  -h, --help              this help (or a command's)\n"
           "      --version           print the version and exit\n\n"
           "Sizes take K, M, G, T, P suffixes as powers of 1024, as nccl-tests: 1G = 1GB =\n"
           "1GiB = 2^30 bytes. Exit status: 0 ok, 1 error, 2 usage error.\n"
           "Work distribution (mpirun -np N collsim run|validate|calibrate|plan search): %s.\n",
           cs_par_describe(eng, sizeof eng));
    return CS_EXIT_OK;
}

/* `collsim all_reduce_perf ...`: an nccl-tests program name, or a path ending in one
 * (./build/all_reduce_perf, pasted from an nccl-tests command line), runs `collsim run
 * COLL ...` with nccl-tests' rank count (cs_cmd_run_nccl_tests). Returns the exit status,
 * or -1 when argv[1] is no such name. */
static int run_alias(int argc, char **argv)
{
    char **sub, name[32];
    cs_coll coll;
    const char *prog = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
    size_t len = strlen(prog);
    int i, rc;
    if (len < 6 || strcmp(prog + len - 5, "_perf") || cs_log_coll_from_program(prog, &coll) < 0)
        return -1;
    if (!(sub = malloc(((size_t)argc + 2) * sizeof *sub))) {
        cs_err err;
        cs_err_set(&err, CS_ENOMEM, NULL, "out of memory");
        return cs_cli_fail(&err);
    }
    snprintf(name, sizeof name, "%s", cs_coll_name(coll));
    sub[0] = (char *)(size_t)"run";
    sub[1] = name;
    for (i = 2; i < argc; i++)
        sub[i] = argv[i];
    sub[argc] = NULL;
    rc = cs_cmd_run_nccl_tests(argc, sub);
    free(sub);
    return rc;
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
 * pipe) fails: every command's stdout is checked here, once. Under MPI a success ends
 * with MPI_Finalize; a failure ends the process without it, since MPI_Finalize would wait
 * for ranks that may still be working: the launcher ends them. */
static int finish(int status)
{
    cs_err err;
    errno = 0;
    if (status == CS_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        cs_err_set(&err, CS_EIO, "stdout", "write failed: %s", strerror(errno ? errno : EIO));
        return cs_cli_fail(&err);
    }
    if (status == CS_EXIT_OK)
        cs_par_fini();
    return status;
}

/* Run a command: under MPI (sim/par.h) a spread command runs on every rank, any other on
 * rank 0 while the rest exit 0. */
static int dispatch(const cs_cmd *c, int argc, char **argv)
{
    return c->is_spread || cs_par_rank() == 0 ? c->fn(argc, argv) : CS_EXIT_OK;
}

int main(int argc, char **argv)
{
    size_t i;
    int rc;
    cs_err perr;
    gsl_set_error_handler_off();
    cs_err_clear(&perr);
    if (cs_par_init(&argc, &argv, &perr) < 0)
        return cs_cli_fail(&perr);
    /* Progress when stderr is a terminal; under mpirun the ranks' stderr is a pipe, so
     * COLLSIM_PROGRESS=1 asks for it there (and 0 turns it off anywhere). */
    if (getenv("COLLSIM_PROGRESS") ? !strcmp(getenv("COLLSIM_PROGRESS"), "1")
                                   : isatty(STDERR_FILENO))
        cs_par_set_progress(cs_cli_progress);
    if ((rc = take_max_memory(&argc, argv)) != 0)
        return rc;
    if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
        printf("collsim %s\n", CS_VERSION);
        return finish(CS_EXIT_OK);
    }
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return finish(cmd_help(1, argv));
    if (argc < 2 || argv[1][0] == '-')
        return finish(dispatch(&commands[0], argc, argv));  /* `collsim -b 8`: run -b 8 */
    if ((rc = run_alias(argc, argv)) >= 0)
        return finish(rc);
    for (i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return finish(dispatch(&commands[i], argc - 1, argv + 1));
    /* not a command: say so, with the known ones (usage error, exit 2) */
    {
        char known[512] = "";
        cs_err err;
        for (i = 0; i < N_COMMANDS; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, commands[i].name, sizeof known - strlen(known) - 1);
        }
        cs_err_set(&err, CS_EUSAGE, NULL, "unknown command '%s' (known: %s)", argv[1], known);
        return cs_cli_fail(&err);       /* every rank fails alike: no MPI_Finalize */
    }
}
