/* io.c: where the shared commands write (cli layer, cli.h cs_cli_io): the program's stdout
 * and stderr or the API's memory stream; the run report and its notes; and the program's
 * wrappers, which print a command's error and turn it into an exit status. */
#include "cli/cli.h"
#include "sim/report.h"
#include "algorithms/nccl/mode.h"

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

int cs_cli_report(FILE *std, const char *path, const char *format, const cs_sweep *sw, int n,
                  cs_err *err)
{
    cs_out out;
    int rc;
    if ((rc = cs_out_open(&out, std, path, err)) < 0)
        return rc;
    if ((rc = cs_report_many(out.f, format, sw, n)) < 0) {
        cs_out_abort(&out);
        return cs_err_set(err, rc, path ? path : "stdout", "cannot write the report");
    }
    return cs_out_commit(&out, err);
}

void cs_cli_run_notes(FILE *note, const cs_sweep *sw, int n, int check)
{
    int k, i, one_rank = 0;
    if (!cs_cli_writes() || !note)      /* rank 0 says it (sim/par.h) */
        return;
    /* Asked for, not run (N/A): the executor stopped the check when its state outgrew its
     * limit (sim/exec.c), or one node stood for all identical ones (a folded ring). */
    for (k = 0; k < n; k++) {
        one_rank |= sw[k].ranks == 1;
        for (i = 0; check && i < sw[k].n_rows; i++)
            if (sw[k].rows[i].wrong < 0)
                fprintf(note, "collsim run: note: data check skipped at %llu bytes on %d "
                        "ranks: %s (#wrong N/A)\n",
                        (unsigned long long)sw[k].rows[i].size_bytes, sw[k].ranks,
                        sw[k].rows[i].wrong == CS_WRONG_FOLDED ? "one node stood for all "
                        "identical ones; the whole schedule is too large to check"
                        : "its state outgrew 256 MiB");
    }
    if (one_rank)
        fprintf(note, "collsim run: note: 1 rank: nothing is communicated (times are "
                "fixed costs only, busbw is 0); give -g N or --ranks N for more ranks\n");
}
