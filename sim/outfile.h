/* outfile.h: output files that never hurt what is already there (core layer). The one
 * implementation behind `--output`, `--plot`, `--trace` and every chart: the bytes go to a
 * temporary file created with mkstemp (O_EXCL: no symlink is followed) in the target's
 * directory and renamed over the target only when all went well, and only when the target
 * is a regular file or absent. Rules (docs/limits.md, "Output files"):
 *   - a device node, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written in place;
 *   - a symlink is written through: its target is replaced, the link stays a link;
 *   - an existing file keeps its permission bits (a new one gets 0666 & ~umask);
 *   - a directory is an error;
 *   - SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the temporaries still open, then the
 *     signal takes its default action. */
#ifndef CS_OUTFILE_H
#define CS_OUTFILE_H

#include <stdio.h>
#include "sim/err.h"

typedef struct cs_outfile {
    FILE *f;                 /* where to write */
    char *path;              /* the file finally written: the target, symlinks resolved
                                (owned) */
    char *tmp;               /* temporary path, NULL when writing in place (owned) */
    int in_place;            /* 1 for a device node, FIFO or socket */
} cs_outfile;

/* Refuse an output that is one of the command's inputs: 0 when path (written for option
 * opt) is not the same file as any of inputs[0..n) (NULL entries skipped), compared by
 * st_dev and st_ino, so also through symlinks and hard links; CS_EUSAGE naming opt and both
 * paths when it is. Only an existing regular file can be an input lost this way: a path
 * that does not exist, "-", a device or a pipe passes. */
int cs_outfile_not_input(const char *path, const char *opt, const char *const *inputs, int n,
                         cs_err *err);
/* Open for writing. CS_EINVAL for an empty name or a directory, CS_EIO naming path and the
 * system's reason, CS_ENOMEM. On failure nothing is left behind and o is cleared. */
int cs_outfile_open(cs_outfile *o, const char *path, cs_err *err);
/* Flush and close; rename the temporary into place. A write error (ENOSPC on /dev/full)
 * is CS_EIO and the target stays as it was. Always releases o. */
int cs_outfile_commit(cs_outfile *o, cs_err *err);
/* Close and remove the temporary (the target is untouched). NULL-safe, idempotent. */
void cs_outfile_abort(cs_outfile *o);

#endif
