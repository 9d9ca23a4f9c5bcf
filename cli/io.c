/* io.c: where the shared commands write (cli layer, cli.h cs_cli_io): the program's stdout
 * and stderr or the API's memory stream, and the program's wrappers, which print a command's
 * error and turn it into an exit status. */
#include "cli/cli.h"

#include <string.h>

void cs_cli_io_std(cs_cli_io *io)
{
    io->out = stdout;
    io->note = stderr;
    cs_err_clear(&io->err);
}

int cs_cli_status(cs_cli_io *io, int rc)
{
    return rc < 0 ? cs_cli_fail(&io->err) : CS_EXIT_OK;
}

int cs_cli_error(cs_cli_io *io, const cs_err *err)
{
    if (err != &io->err)
        io->err = *err;
    if (io->err.code >= 0)
        io->err.code = CS_EINVAL;
    return io->err.code;
}

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
