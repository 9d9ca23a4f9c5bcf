/* programs.c: the program's wrappers over the shared commands (cli layer, cli.h): each runs
 * cs_cmd_NAME_io on stdout and stderr (io.c) and prints its error as an exit status. Above
 * the cmd_*.c files: it calls them, they never call it. */
#include "cli/cli.h"

/* cs_cmd_NAME(argc, argv): cs_cmd_NAME_io on stdout and stderr, the error printed. */
#define CS_CLI_PROGRAM(name)                                                              \
    int cs_cmd_##name(int argc, char **argv)                                              \
    {                                                                                     \
        cs_cli_io io;                                                                     \
        cs_cli_io_std(&io);                                                               \
        return cs_cli_status(&io, cs_cmd_##name##_io(&io, argc, argv));                   \
    }
CS_CLI_PROGRAM(run)
CS_CLI_PROGRAM(validate)
CS_CLI_PROGRAM(calibrate)
CS_CLI_PROGRAM(explain)
CS_CLI_PROGRAM(plan)
