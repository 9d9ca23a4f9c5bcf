/* err.c: the error record (core layer). */
#include "sim/err.h"

#include <stdio.h>
#include <string.h>

void cs_err_clear(cs_err *err)
{
    if (!err)
        return;
    err->code = 0;
    err->where[0] = '\0';
    err->msg[0] = '\0';
}

int cs_err_vset(cs_err *err, int code, const char *where, const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->where, sizeof err->where, "%s", where ? where : "");
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int cs_err_set(cs_err *err, int code, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cs_err_vset(err, code, where, fmt, ap);
    va_end(ap);
    return code;
}

void cs_err_prefix(cs_err *err, const char *outer)
{
    char tmp[2 * sizeof err->where + 4];
    if (!err || !outer || !*outer)
        return;
    if (err->where[0])
        snprintf(tmp, sizeof tmp, "%s: %s", outer, err->where);
    else
        snprintf(tmp, sizeof tmp, "%s", outer);
    tmp[sizeof err->where - 1] = '\0';
    memcpy(err->where, tmp, sizeof err->where);
}

const char *cs_err_name(int code)
{
    switch (code) {
    case CS_OK: return "CS_OK";
    case CS_ENOMEM: return "CS_ENOMEM";
    case CS_EINVAL: return "CS_EINVAL";
    case CS_EIO: return "CS_EIO";
    case CS_EPARSE: return "CS_EPARSE";
    case CS_ENOENT: return "CS_ENOENT";
    case CS_EUNSUPP: return "CS_EUNSUPP";
    case CS_EUSAGE: return "CS_EUSAGE";
    case CS_ESTATE: return "CS_ESTATE";
    case CS_ELIMIT: return "CS_ELIMIT";
    default: return "CS_E?";
    }
}
