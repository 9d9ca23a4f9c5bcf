/* compare.h: the chart of `collsim compare` (plots layer): one panel per figure (tokens/s,
 * MFU, time to train, cost or energy), a horizontal bar per system. To a file (PNG, SVG,
 * PDF by extension, written atomically) or to SVG text in memory (the HTML page). */
#ifndef CS_PLOTS_COMPARE_H
#define CS_PLOTS_COMPARE_H

#include <stddef.h>
#include "sim/err.h"
#include "scenarios/compare.h"

int cs_plot_compare(const cs_cmp_row *rows, int n, const char *path, cs_err *err);
/* The same chart as SVG text: *svg is malloc'd and NUL-terminated (*len bytes). */
int cs_plot_compare_svg(const cs_cmp_row *rows, int n, char **svg, size_t *len, cs_err *err);

#endif
