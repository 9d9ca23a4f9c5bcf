/* io.c: where the shared commands write (cli layer, cli.h cs_cli_io): the program's stdout
 * and stderr or the API's memory stream, a command's error kept and turned into an exit
 * status. The commands call it; the program's wrappers over them are in programs.c. */
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
