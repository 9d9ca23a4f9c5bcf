/* size.c: parsing sizes and numbers from the command line (core layer). */
#include "sim/size.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs_parse_size(const char *s, const char *where, uint64_t *out, cs_err *err)
{
    char *end;
    unsigned long long v;
    uint64_t mult = 1;
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        goto bad;
    errno = 0;
    v = strtoull(p, &end, 10);
    if (errno == ERANGE)
        goto too_large;
    switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1ull << 10; end++; break;
    case 'M': mult = 1ull << 20; end++; break;
    case 'G': mult = 1ull << 30; end++; break;
    case 'T': mult = 1ull << 40; end++; break;
    case 'P': mult = 1ull << 50; end++; break;
    default: break;
    }
    /* "1G", "1GB" and "1GiB" are all 2^30 bytes, as nccl-tests reads them */
    if (mult > 1 && (end[0] == 'i' || end[0] == 'I') && toupper((unsigned char)end[1]) == 'B')
        end += 2;
    else if (toupper((unsigned char)*end) == 'B')
        end++;
    if (*end != '\0')
        goto bad;
    if (v > CS_SIZE_MAX / mult)
        goto too_large;
    *out = (uint64_t)v * mult;
    return 0;
too_large:
    return cs_err_set(err, CS_EUSAGE, where, "size '%s' is too large (at most 1P = 2^50 "
                      "bytes)", s);
bad:
    return cs_err_set(err, CS_EUSAGE, where, "bad size '%s' (expected a number of bytes with "
                      "an optional K, M, G, T or P suffix, e.g. 8, 128M, 1G, 1GiB; G, GB and "
                      "GiB all mean 2^30)", s);
}

int cs_parse_int(const char *s, const char *where, long lo, long hi, long *out, cs_err *err)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0')
        return cs_err_set(err, CS_EUSAGE, where, "expected an integer, got '%s'", s);
    if (v < lo || v > hi)
        return cs_err_set(err, CS_EUSAGE, where, "must be between %ld and %ld, got %ld", lo, hi, v);
    *out = v;
    return 0;
}

int cs_parse_double(const char *s, const char *where, double lo_excl, double *out, cs_err *err)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v))
        return cs_err_set(err, CS_EUSAGE, where, "expected a number, got '%s'", s);
    if (!(v > lo_excl))
        return cs_err_set(err, CS_EUSAGE, where, "must be > %g, got %g", lo_excl, v);
    *out = v;
    return 0;
}

const char *cs_format_bytes(uint64_t bytes, char *buf, int len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u == 0 || v == floor(v))
        snprintf(buf, (size_t)len, "%.0f %s", v, units[u]);
    else
        snprintf(buf, (size_t)len, "%.3g %s", v, units[u]);
    return buf;
}
