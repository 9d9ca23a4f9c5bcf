/* size.h: parsing sizes and numbers from the command line (core layer). */
#ifndef CS_SIZE_H
#define CS_SIZE_H

#include <stdint.h>
#include "sim/err.h"

/* Largest size accepted anywhere (sim/limits.h CS_LIMIT_MAX_BYTES, 1 PiB). */
#define CS_SIZE_MAX (1ULL << 50)

/* Parse "8", "1K", "128M", "1G", "2T", "1P" (powers of 1024, as nccl-tests: G = GB = GiB =
 * 2^30; lowercase accepted, an optional trailing "B" or "iB" too), at most CS_SIZE_MAX.
 * Fills *out and returns 0, or CS_EUSAGE with err saying what was expected; `where` names
 * the flag. */
int cs_parse_size(const char *s, const char *where, uint64_t *out, cs_err *err);
/* Parse an integer in [lo, hi]. */
int cs_parse_int(const char *s, const char *where, long lo, long hi, long *out, cs_err *err);
/* Parse a finite double > lo_excl. */
int cs_parse_double(const char *s, const char *where, double lo_excl, double *out, cs_err *err);
/* Format bytes as "8 B", "1 KiB", "1.5 MiB" ... into buf (for comments and plots). */
const char *cs_format_bytes(uint64_t bytes, char *buf, int len);

#endif
