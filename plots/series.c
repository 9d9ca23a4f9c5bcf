/* series.c: series of sweep results for charts (plots layer): the set of series and their
 * points, closed forms beside them, converting a sweep just run, and picking series by label;
 * reading files is series_load.c. */
#include "plots/plot.h"
#include "plots/series-private.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calibration/logparse.h"
#include "sim/size.h"

void cs_series_set_fini(cs_series_set *set)
{
    int i;
    for (i = 0; i < set->n; i++) {
        free(set->items[i].label);
        free(set->items[i].pts);
        free(set->items[i].err_pct);
    }
    free(set->items);
    memset(set, 0, sizeof *set);
}

cs_series *cs_series_add(cs_series_set *set, const char *label, int is_measured)
{
    cs_series *s;
    if (set->n == set->cap) {
        int cap = set->cap ? set->cap * 2 : 8;
        cs_series *ni = realloc(set->items, (size_t)cap * sizeof *ni);
        if (!ni)
            return NULL;
        set->items = ni;
        set->cap = cap;
    }
    s = &set->items[set->n];
    memset(s, 0, sizeof *s);
    if (!(s->label = strdup(label)))
        return NULL;
    s->is_measured = is_measured;
    set->n++;
    return s;
}

int cs_series_push(cs_series *s, const cs_point *p, double err_pct)
{
    int i;
    if (s->n_pts == s->cap_pts) {
        int nc = s->cap_pts ? s->cap_pts * 2 : 32;
        cs_point *np = realloc(s->pts, (size_t)nc * sizeof *np);
        if (!np)
            return CS_ENOMEM;
        s->pts = np;
        if (s->err_pct) {
            double *ne = realloc(s->err_pct, (size_t)nc * sizeof *ne);
            if (!ne)
                return CS_ENOMEM;
            s->err_pct = ne;
        }
        s->cap_pts = nc;
    }
    if (!isnan(err_pct) && !s->err_pct) {   /* the first error: NAN for the points before */
        if (!(s->err_pct = malloc((size_t)s->cap_pts * sizeof *s->err_pct)))
            return CS_ENOMEM;
        for (i = 0; i < s->n_pts; i++)
            s->err_pct[i] = NAN;
    }
    if (s->err_pct)
        s->err_pct[s->n_pts] = err_pct;
    s->pts[s->n_pts++] = *p;
    return 0;
}

/* Drop the last series (after a failed load). */
void cs__series_pop(cs_series_set *set)
{
    set->n--;
    free(set->items[set->n].label);
    free(set->items[set->n].pts);
    free(set->items[set->n].err_pct);
}

/* File name without directory and extension. */
static void base_name(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    char *dot;
    snprintf(buf, len, "%s", b ? b + 1 : path);
    if ((dot = strrchr(buf, '.')) && dot != buf)
        *dot = '\0';
}

void cs__series_default_label(char *buf, size_t len, const char *algo, const char *topo,
                              const char *path)
{
    if (algo && *algo && topo && *topo)
        snprintf(buf, len, "%s on %s", algo, topo);
    else if (algo && *algo)
        snprintf(buf, len, "%s", algo);
    else
        base_name(path, buf, len);
}

int cs__series_check_point(const cs_point *p, const char *where, cs_err *err)
{
    if (!(p->size_bytes >= 0) || !isfinite(p->size_bytes))
        return cs_err_set(err, CS_EINVAL, where, "size_bytes: must be a number >= 0, got %g", p->size_bytes);
    if (isnan(p->time_us) && isnan(p->algbw_GBps) && isnan(p->busbw_GBps))
        return cs_err_set(err, CS_EINVAL, where, "no time_us, algbw_GBps or busbw_GBps");
    return 0;
}

/* The closed-form series beside series si: the rows' closed_form_us (where given) as
 * times, algbw and busbw from them with the factor of the simulated row. Nothing is added
 * when no row has one. */
int cs__series_add_closed_form(cs_series_set *set, int si, const double *closed, cs_err *err)
{
    char lab[300];
    cs_series *f;
    int j, any = 0, fi;
    for (j = 0; j < set->items[si].n_pts; j++)
        any |= isfinite(closed[j]);
    if (!any)
        return 0;
    snprintf(lab, sizeof lab, "%s (closed form)", set->items[si].label);
    if (!(f = cs_series_add(set, lab, 0)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    fi = set->n - 1;
    f->is_formula = 1;
    f->same_style_as = si + 1;
    for (j = 0; j < set->items[si].n_pts; j++) {
        cs_point p = set->items[si].pts[j];
        double factor = p.algbw_GBps > 0 ? p.busbw_GBps / p.algbw_GBps : 1;
        if (!isfinite(closed[j]) || !(closed[j] > 0))
            continue;
        p.time_us = closed[j];
        p.algbw_GBps = p.size_bytes / (p.time_us * 1e3);
        p.busbw_GBps = p.algbw_GBps * factor;
        if (cs_series_push(&set->items[fi], &p, NAN))
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    return 0;
}

/* A series about to be read with n rows: added to set under label (*si its index), with
 * room for the rows' closed-form times (*closed, freed by cs__series_end). where names the
 * source in an out-of-memory error (may be NULL). Returns 0 or CS_ENOMEM. */
int cs__series_begin(cs_series_set *set, const char *label, int is_measured, size_t n,
                      const char *where, double **closed, int *si, cs_err *err)
{
    if (!(*closed = malloc((n ? n : 1) * sizeof **closed)))
        return cs_err_set(err, CS_ENOMEM, where, "out of memory");
    if (!cs_series_add(set, label, is_measured)) {
        free(*closed);
        return cs_err_set(err, CS_ENOMEM, where, "out of memory");
    }
    *si = set->n - 1;
    return 0;
}

/* The end of series si, read with result rc: its closed-form series beside it (simulated
 * series), closed freed; after an error every series added since set had n0 goes. */
int cs__series_end(cs_series_set *set, int si, int n0, int is_measured, double *closed,
                   int rc, cs_err *err)
{
    if (!rc && !is_measured)
        rc = cs__series_add_closed_form(set, si, closed, err);
    free(closed);
    if (rc)
        while (set->n > n0)
            cs__series_pop(set);
    return rc;
}

int cs_series_from_sweep(cs_series_set *set, const cs_sweep *sw, const char *label,
                         int is_measured, cs_err *err)
{
    char lab[300];
    cs_series *s;
    double *closed;
    int i, si, n0 = set->n, rc = 0;
    cs__series_default_label(lab, sizeof lab, sw->algorithm, sw->topology, "sweep");
    if ((rc = cs__series_begin(set, label ? label : lab, is_measured, (size_t)sw->n_rows, NULL,
                           &closed, &si, err)))
        return rc;
    s = &set->items[si];
    for (i = 0; i < sw->n_rows && !rc; i++) {
        const cs_row *r = &sw->rows[i];
        cs_point p;
        p.size_bytes = (double)r->size_bytes;
        p.time_us = r->time_us;
        p.algbw_GBps = r->algbw_GBps;
        p.busbw_GBps = r->busbw_GBps;
        p.ranks = sw->ranks;
        closed[s->n_pts] = r->has_closed_form ? r->closed_form_us : NAN;
        if (cs_series_push(s, &p, NAN))   /* size 0 (barrier) too: a ranks chart draws it */
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    return cs__series_end(set, si, n0, is_measured, closed, rc, err);
}

void cs_series_pair_by_label(cs_series_set *set)
{
    int i, j;
    for (i = 0; i < set->n; i++) {
        cs_series *m = &set->items[i];
        if (!m->is_measured || m->same_style_as)
            continue;
        for (j = 0; j < i; j++)
            if (!set->items[j].is_measured && !set->items[j].is_formula &&
                !strcmp(set->items[j].label, m->label)) {
                m->same_style_as = j + 1;
                break;
            }
    }
}

/* The index of the point of s nearest to size (in log), within 2%; -1 if none. */
static int point_at(const cs_series *s, double size)
{
    int j, best = -1;
    double bd = 0;
    for (j = 0; j < s->n_pts; j++) {
        double d = size > 0 && s->pts[j].size_bytes > 0 ? fabs(log(s->pts[j].size_bytes / size))
                   : s->pts[j].size_bytes == size ? 0 : INFINITY;
        if (s->pts[j].ranks >= 1 && d <= log(1.02) &&
            (best < 0 || d < bd)) {
            best = j;
            bd = d;
        }
    }
    return best;
}

double cs_series_max_size(const cs_series_set *set)
{
    double m = 0;
    int i, j;
    for (i = 0; i < set->n; i++)
        for (j = 0; j < set->items[i].n_pts; j++)
            m = fmax(m, set->items[i].pts[j].size_bytes);
    return m;
}

static int cmp_ranks(const void *a, const void *b)
{
    const cs_point *pa = a, *pb = b;
    return (pa->ranks > pb->ranks) - (pa->ranks < pb->ranks);
}

int cs_series_over_ranks(const cs_series_set *in, double size_bytes, cs_series_set *out,
                         cs_err *err)
{
    int *group, i, g, n_pts = 0;
    if (!(group = malloc((size_t)(in->n ? in->n : 1) * sizeof *group)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < in->n; i++) {
        const cs_series *s = &in->items[i];
        int j = point_at(s, size_bytes);
        for (g = 0; g < out->n && (strcmp(out->items[g].label, s->label) ||
                                   out->items[g].is_formula != s->is_formula ||
                                   out->items[g].is_measured != s->is_measured); g++)
            ;
        if (g == out->n) {
            cs_series *o = cs_series_add(out, s->label, s->is_measured);
            int k = s->same_style_as - 1;
            if (!o) {
                free(group);
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            }
            o->is_formula = s->is_formula;
            if (k >= 0 && k < i && group[k] < g)
                o->same_style_as = group[k] + 1;
        }
        group[i] = g;
        if (j >= 0) {
            if (cs_series_push(&out->items[g], &s->pts[j], NAN)) {
                free(group);
                return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            }
            n_pts++;
        }
    }
    free(group);
    for (g = 0; g < out->n; g++)
        if (out->items[g].n_pts > 1)
            qsort(out->items[g].pts, (size_t)out->items[g].n_pts, sizeof(cs_point), cmp_ranks);
    if (n_pts == 0) {
        char buf[32];
        return cs_err_set(err, CS_EINVAL, "--size", "no point within 2%% of %.0f B (%s) that "
                          "has a rank count", size_bytes,
                          cs_format_bytes((uint64_t)size_bytes, buf, sizeof buf));
    }
    return 0;
}

int cs_series_select(cs_series_set *set, const char *const *labels, int n, cs_err *err)
{
    cs_series *picked;
    char *used;
    int i, j, k = 0;
    if (n <= 0)
        return 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < set->n && strcmp(set->items[j].label, labels[i]); j++)
            ;
        if (j == set->n) {
            char known[512] = "";
            for (j = 0; j < set->n; j++) {
                strncat(known, j ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, set->items[j].label, sizeof known - strlen(known) - 1);
            }
            return cs_err_set(err, CS_ENOENT, "--series", "unknown series '%s' (known: %s)",
                              labels[i], known);
        }
    }
    picked = calloc((size_t)n, sizeof *picked);
    used = calloc((size_t)(set->n ? set->n : 1), 1);
    if (!picked || !used) {
        free(picked);
        free(used);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < set->n && (used[j] || strcmp(set->items[j].label, labels[i])); j++)
            ;
        if (j == set->n)
            continue;   /* asked again for a label already taken */
        used[j] = 1;
        picked[k++] = set->items[j];
    }
    for (j = 0; j < set->n; j++)
        if (!used[j]) {
            free(set->items[j].label);
            free(set->items[j].pts);
            free(set->items[j].err_pct);
        }
    free(set->items);
    free(used);
    set->items = picked;
    set->n = k;
    set->cap = n;
    return 0;
}

int cs_plot_sweeps(const cs_sweep *sw, int n, const char *title, const char *path,
                   cs_err *err)
{
    cs_series_set set = {NULL, 0, 0}, over = {NULL, 0, 0};
    cs_chart chart;
    uint64_t size = 0;
    int i, j, rc = 0, many_ranks = 0;
    memset(&chart, 0, sizeof chart);
    chart.title = title;
    for (i = 0; i < n && !rc; i++) {
        many_ranks |= sw[i].ranks != sw[0].ranks;
        for (j = 0; j < sw[i].n_rows; j++)
            if (sw[i].rows[j].size_bytes > size)
                size = sw[i].rows[j].size_bytes;
        rc = cs_series_from_sweep(&set, &sw[i], sw[i].algorithm, 0, err);
    }
    if (!rc && many_ranks) {
        /* x = ranks at the largest size: the algorithms' time as ranks are added */
        rc = cs_series_over_ranks(&set, (double)size, &over, err);
        chart.x = CS_CHART_X_RANKS;
        chart.metric = CS_METRIC_TIME;
    }
    if (rc == 0) {
        cs_series_set *use = many_ranks ? &over : &set;
        chart.series = use->items;
        chart.n_series = use->n;
        rc = cs_plot_chart(&chart, path, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, NULL, err);
    }
    cs_series_set_fini(&set);
    cs_series_set_fini(&over);
    return rc;
}

int cs_plot_sweep(const cs_sweep *sw, const char *title, const char *path, cs_err *err)
{
    cs_series_set set = {NULL, 0, 0};
    cs_chart chart;
    int rc;
    memset(&chart, 0, sizeof chart);
    chart.title = title;
    if ((rc = cs_series_from_sweep(&set, sw, NULL, 0, err)) == 0) {
        chart.series = set.items;
        chart.n_series = set.n;
        rc = cs_plot_chart(&chart, path, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, NULL, err);
    }
    cs_series_set_fini(&set);
    return rc;
}
