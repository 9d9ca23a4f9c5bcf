/* validation.c: the picture of `collsim validate --plot` (plots layer): per table of each
 * log, the simulated busbw as a line and the measured busbw as points in the same colour,
 * the error per size in the panel beneath. */
#include "plots/plot.h"
#include "calibration/logsim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int cs_plot_validation(const cs_lset *ls, const cs_topo *t, const char *path, cs_err *err)
{
    cs_series_set set = {NULL, 0, 0};
    cs_series *sim = NULL, *meas = NULL;
    cs_chart chart;
    char label[300], title[256];
    double med = 0, mean = 0, max = 0;
    int i, rc = 0;
    for (i = 0; i < ls->n_rows && rc == 0; i++) {
        const cs_lrow *r = &ls->rows[i];
        cs_point pm, ps;
        if (i == 0 || r->log != ls->rows[i - 1].log || r->table != ls->rows[i - 1].table) {
            const char *base = strrchr(r->log, '/') ? strrchr(r->log, '/') + 1 : r->log;
            char tab[16] = "";
            int k = set.n, j;
            for (j = 0; j < ls->n_rows; j++)   /* number the tables of logs that have several */
                if (ls->rows[j].log == r->log && ls->rows[j].table != r->table)
                    snprintf(tab, sizeof tab, " [%d]", r->table + 1);
            snprintf(label, sizeof label, "%s%s simulated", base, tab);
            if (!(sim = cs_series_add(&set, label, 0)))
                break;
            snprintf(label, sizeof label, "%s%s measured", base, tab);
            if (!(meas = cs_series_add(&set, label, 1)))
                break;
            sim = &set.items[k];
            meas->same_style_as = k + 1;
        }
        pm.size_bytes = ps.size_bytes = (double)r->size_bytes;
        pm.ranks = ps.ranks = r->ranks;
        pm.time_us = r->measured_us;
        ps.time_us = r->simulated_us;
        pm.algbw_GBps = pm.size_bytes / (pm.time_us * 1e3);
        ps.algbw_GBps = ps.size_bytes / (ps.time_us * 1e3);
        pm.busbw_GBps = r->measured_busbw_GBps;
        ps.busbw_GBps = cs_lrow_sim_busbw(r);
        if ((rc = cs_series_push(sim, &ps, NAN)) == 0)
            rc = cs_series_push(meas, &pm, cs_lrow_error_pct(r));
    }
    if (rc || i < ls->n_rows) {
        cs_series_set_fini(&set);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    cs_lset_stats(ls, 0, &med, &mean, &max);
    snprintf(title, sizeof title, "validate on %s: |error| median %.1f%%, max %.1f%%", t->name, med, max);
    memset(&chart, 0, sizeof chart);
    chart.title = title;
    chart.series = set.items;
    chart.n_series = set.n;
    rc = cs_plot_chart(&chart, path, CS_PLOT_DEFAULT_W, CS_PLOT_DEFAULT_H, NULL, err);
    cs_series_set_fini(&set);
    return rc;
}
