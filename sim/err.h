/* err.h: error codes and the caller-supplied error record (core layer).
 * Library code never prints or exits: it returns a negative CS_E* code and fills a cs_err
 * with where the problem is (file:line:column or a JSON path) and what it is. */
#ifndef CS_ERR_H
#define CS_ERR_H

#include <stdarg.h>

/* Error codes: 0 is success, every failure is negative. */
enum {
    CS_OK = 0,
    CS_ENOMEM = -1,   /* allocation failed */
    CS_EINVAL = -2,   /* bad value: out of range, wrong type, inconsistent */
    CS_EIO = -3,      /* a file could not be read or written */
    CS_EPARSE = -4,   /* syntax error in an input file */
    CS_ENOENT = -5,   /* unknown name (collective, algorithm, preset, node...) */
    CS_EUNSUPP = -6,  /* valid request this algorithm/topology cannot do */
    CS_EUSAGE = -7,   /* command-line usage error (exit status 2) */
    CS_ESTATE = -8,   /* the simulation reached an impossible state (deadlock, ...) */
    CS_ELIMIT = -9    /* the request exceeds a limit: memory budget, rank count, size */
};

/* An error record. where: a location such as "topo.json:3:14", "links[3].bandwidth_GBps"
 * or "-b"; empty when none applies. msg: lowercase, no final period, what failed and the
 * bad value with what was expected. */
typedef struct cs_err {
    int code;           /* the CS_E* code, 0 when no error was set */
    char where[256];    /* location of the problem, may be empty */
    char msg[768];      /* what went wrong */
} cs_err;

/* Clear an error record (err may be NULL). */
void cs_err_clear(cs_err *err);

/* Fill err (may be NULL) and return code, so an error path is one line:
 *   return cs_err_set(err, CS_EINVAL, "links[3].bandwidth_GBps", "must be > 0, got %g", bw);
 * where may be NULL. */
int cs_err_set(cs_err *err, int code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int cs_err_vset(cs_err *err, int code, const char *where, const char *fmt, va_list ap);

/* Prefix err->where with "outer" (joined by ": ") so a caller can add context. */
void cs_err_prefix(cs_err *err, const char *outer);

/* Name of an error code ("CS_EINVAL"), for tests and logs. */
const char *cs_err_name(int code);

#endif
