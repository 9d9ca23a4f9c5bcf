/* outfile.c: temporary-then-rename output files, written in place for devices and pipes,
 * through symlinks, keeping the target's mode, cleaned up on fatal signals (core layer). */
#include "sim/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ signal clean-up */

/* Temporaries open right now: the handler unlinks them (unlink is async-signal-safe).
 * Slots are claimed and released with the signals blocked, so the handler never sees a
 * half-written entry. */
#define MAX_LIVE 16
static char *volatile live[MAX_LIVE];
static int handlers_installed;
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_FATAL ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))

static void on_fatal_signal(int sig)
{
    int i;
    for (i = 0; i < MAX_LIVE; i++)
        if (live[i])
            unlink(live[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void block_fatal(sigset_t *old)
{
    sigset_t set;
    int i;
    sigemptyset(&set);
    for (i = 0; i < N_FATAL; i++)
        sigaddset(&set, fatal_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void install_handlers(void)
{
    int i;
    if (handlers_installed)
        return;
    handlers_installed = 1;
    for (i = 0; i < N_FATAL; i++) {
        struct sigaction sa, old;
        /* a signal the parent set to be ignored (nohup) stays ignored */
        if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

static void live_set(const char *tmp, int add)
{
    sigset_t old;
    int i;
    block_fatal(&old);
    if (add)
        install_handlers();
    for (i = 0; i < MAX_LIVE; i++) {
        if (add && !live[i]) {
            live[i] = (char *)(size_t)tmp;    /* read by the handler only */
            break;
        }
        if (!add && live[i] == tmp) {
            live[i] = NULL;
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ------------------------------------------------------------ the target */

/* Follow symlinks to the file that will be written: *out is malloc'd. A dangling link gives
 * its (relative-to-the-link) target, so the link keeps pointing at the new file. */
static int resolve(const char *path, char **out, cs_err *err)
{
    char *cur = strdup(path);
    int hops;
    if (!cur)
        return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    for (hops = 0; hops < 40; hops++) {
        struct stat st;
        char buf[4096], *next;
        ssize_t n;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            *out = cur;
            return 0;
        }
        if ((n = readlink(cur, buf, sizeof buf - 1)) < 0 || n == (ssize_t)sizeof buf - 1) {
            int e = n < 0 ? errno : ENAMETOOLONG;     /* a target that may be cut short */
            free(cur);
            return cs_err_set(err, CS_EIO, path, "cannot write: %s", strerror(e));
        }
        buf[n] = '\0';
        if (buf[0] == '/' || !strchr(cur, '/')) {
            next = strdup(buf);
        } else {
            size_t dir = (size_t)(strrchr(cur, '/') - cur) + 1;
            if ((next = malloc(dir + (size_t)n + 1))) {
                memcpy(next, cur, dir);
                memcpy(next + dir, buf, (size_t)n + 1);
            }
        }
        free(cur);
        if (!(cur = next))
            return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    }
    free(cur);
    return cs_err_set(err, CS_EIO, path, "cannot write: %s", strerror(ELOOP));
}

int cs_outfile_not_input(const char *path, const char *opt, const char *const *inputs, int n,
                         cs_err *err)
{
    struct stat so, si;
    int i;
    if (!path || !strcmp(path, "-") || stat(path, &so) != 0 || !S_ISREG(so.st_mode))
        return 0;
    for (i = 0; i < n; i++)
        if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev &&
            si.st_ino == so.st_ino)
            return cs_err_set(err, CS_EUSAGE, opt, "'%s' is an input of the command ('%s'): "
                              "writing there would replace it; choose another file", path,
                              inputs[i]);
    return 0;
}

int cs_outfile_open(cs_outfile *o, const char *path, cs_err *err)
{
    struct stat st;
    int fd, rc, exists;
    mode_t mode;
    sigset_t held;
    memset(o, 0, sizeof *o);
    if (!path || !*path)
        return cs_err_set(err, CS_EINVAL, "output", "empty file name, expected a path");
    if ((rc = resolve(path, &o->path, err)) < 0)
        return rc;
    exists = stat(o->path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        cs_outfile_abort(o);
        return cs_err_set(err, CS_EINVAL, path, "is a directory, expected a file name");
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device node, FIFO or socket: write to it, never replace it */
        o->in_place = 1;
        fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            cs_outfile_abort(o);
            return cs_err_set(err, CS_EIO, path, "cannot write: %s", strerror(e));
        }
        return 0;
    }
    if (!(o->tmp = malloc(strlen(o->path) + 12))) {
        cs_outfile_abort(o);
        return cs_err_set(err, CS_ENOMEM, path, "out of memory");
    }
    strcpy(o->tmp, o->path);
    strcat(o->tmp, ".tmp.XXXXXX");
    /* no fatal signal between creating the temporary and registering it for removal: one
     * arriving there would leave it behind (tests/output.sh kills as soon as it appears) */
    block_fatal(&held);
    if ((fd = mkstemp(o->tmp)) < 0) {           /* O_CREAT | O_EXCL, mode 0600 */
        int e = errno;
        sigprocmask(SIG_SETMASK, &held, NULL);
        free(o->tmp);
        o->tmp = NULL;
        cs_outfile_abort(o);
        return cs_err_set(err, CS_EIO, path, "cannot write: %s", strerror(e));
    }
    live_set(o->tmp, 1);
    sigprocmask(SIG_SETMASK, &held, NULL);
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        cs_outfile_abort(o);
        return cs_err_set(err, CS_EIO, path, "cannot write: %s", strerror(e));
    }
    return 0;
}

int cs_outfile_commit(cs_outfile *o, cs_err *err)
{
    int bad = ferror(o->f) != 0, e = bad && errno ? errno : EIO;
    struct stat st;
    if (fflush(o->f) != 0) {
        bad = 1;
        e = errno;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    /* Test hook (tests/output.sh): hold the finished temporary this many seconds before
     * the rename, so a signal is sure to arrive while it exists, however loaded the machine. */
    if (!bad && o->tmp && getenv("COLLSIM_TEST_HOLD_OUTPUT_S")) {
        long sec = strtol(getenv("COLLSIM_TEST_HOLD_OUTPUT_S"), NULL, 10);
        unsigned left = sec > 0 && sec <= 600 ? (unsigned)sec : 0;
        while (left > 0)
            left = sleep(left);
    }
    /* the target may have changed meanwhile: never rename over anything but a file */
    if (!bad && o->tmp && lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        bad = 1;
        e = EEXIST;
    }
    if (!bad && o->tmp && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        int rc = cs_err_set(err, CS_EIO, o->path, "cannot write: %s", strerror(e));
        cs_outfile_abort(o);
        return rc;
    }
    if (o->tmp)
        live_set(o->tmp, 0);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return 0;
}

void cs_outfile_abort(cs_outfile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        live_set(o->tmp, 0);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
