/* trainlog_util.c: helpers of the training-log readers (scenarios layer): comma lists,
 * numbers after a key on a log line, the median of the measured steps. */
#include "scenarios/trainlog-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cs__tlog_list_add(char *list, size_t n, const char *sep, const char *s)
{
    size_t l = strlen(list);
    if (l + strlen(sep) + strlen(s) + 1 >= n)
        return;
    snprintf(list + l, n - l, "%s%s", l ? sep : "", s);
}

int cs__tlog_num_after(const char *line, const char *key, int commas, double *out)
{
    const char *k = strstr(line, key);
    char buf[64], *end;
    size_t i = 0;
    double v;
    if (!k)
        return 0;
    k += strlen(key);
    if (!commas) {                               /* strtod's own syntax */
        errno = 0;
        v = strtod(k, &end);
        if (end == k || errno)
            return 0;
        *out = v;
        return 1;
    }
    while (*k == ' ')
        k++;
    for (; *k && i + 1 < sizeof buf; k++) {      /* the number, its separators dropped */
        if (*k == ',' && k[1] >= '0' && k[1] <= '9')
            continue;
        if (!strchr("0123456789.eE+-", *k))
            break;
        buf[i++] = *k;
    }
    buf[i] = '\0';
    errno = 0;
    v = strtod(buf, &end);
    if (end == buf || errno)
        return 0;
    *out = v;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cs__tlog_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
