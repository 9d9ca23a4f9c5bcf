/* plan_draw.c: the pipeline schedule picture and the breakdown bar of a training plan
 * (plots layer). Lanes are stages; a compute task is one bar split into its parts
 * (recompute, compute, blocking TP/CP/EP comm) from the plan's per-chunk costs. */
#include "plots/canvas-private.h"
#include "plots/plan.h"
#include "plots/axis.h"

#include <stdio.h>
#include <string.h>

#define FONT_PX 12.0

/* Colours of the breakdown parts (Okabe-Ito), white for idle. */
static cs__rgb part_rgb(int i)
{
    static const cs__rgb c[10] = {
        {0.00, 0.45, 0.70},  /* forward: blue */
        {0.84, 0.37, 0.00},  /* backward: vermillion */
        {0.80, 0.47, 0.65},  /* recompute: reddish purple */
        {0.35, 0.35, 0.35},  /* optimizer: grey */
        {0.93, 0.93, 0.93},  /* bubble: light grey */
        {0.90, 0.62, 0.00},  /* tp: orange */
        {0.34, 0.71, 0.91},  /* cp: sky blue */
        {0.94, 0.89, 0.26},  /* ep: yellow */
        {0.00, 0.62, 0.45},  /* pp: bluish green */
        {0.55, 0.20, 0.55},  /* dp: purple */
    };
    return c[i];
}

static void box(cairo_t *cr, double x0, double x1, double y, double h, cs__rgb c)
{
    if (x1 - x0 < 0.5)
        x1 = x0 + 0.5;
    cs__set_rgb(cr, c);
    cairo_rectangle(cr, x0, y, x1 - x0, h);
    cairo_fill(cr);
}

static void legend(cairo_t *cr, double x, double y, const int *parts, int n)
{
    int i;
    cs__font(cr, FONT_PX, 0);
    for (i = 0; i < n; i++) {
        box(cr, x, x + 12, y - 10, 12, part_rgb(parts[i]));
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_set_line_width(cr, 0.5);
        cairo_rectangle(cr, x, y - 10, 12, 12);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cs__text(cr, x + 16, y, 0, 1, cs_plan_breakdown_names[parts[i]]);
        x += 24 + cs__text_w(cr, cs_plan_breakdown_names[parts[i]]);
    }
}

int cs_plot_plan_pipeline(const cs_plan *p, const cs_plan_result *r, const char *path, int w,
                          int h, cs_err *err)
{
    const cs_step_costs *c = &r->costs;
    static const int parts[] = {0, 1, 2, 5, 6, 7, 8, 9, 3};
    cs__canvas cv;
    cairo_t *cr;
    double x0 = 80, x1, y0 = 50, lane_h, span = r->step.step_s, tick;
    long i;
    int rc, s, k;
    char title[256];
    if (!r->step.tasks || r->step.n_tasks == 0 || span <= 0)
        return cs_err_set(err, CS_EINVAL, path, "no step to draw");
    if (!w)
        w = 1400;
    if (!h)
        h = (int)(110 + 46 * (c->pp < 64 ? c->pp : 64));
    if ((rc = cs__canvas_open(&cv, path, w, h, err)))
        return rc;
    cr = cv.cr;
    x1 = w - 20;
    lane_h = (h - y0 - 60) / c->pp;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cs__font(cr, FONT_PX + 2, 1);
    snprintf(title, sizeof title, "%s: tp %d pp %d dp %d vp %d, %d microbatches, %s - step %.3f s",
             p->model.name, p->tp, p->pp, p->dp, c->vp, c->m,
             c->schedule == CS_PS_GPIPE ? "GPipe" : c->schedule == CS_PS_INTERLEAVED
             ? "interleaved 1F1B" : "1F1B", span);
    cs__text(cr, x0, 22, 0, 1, title);
    cs__font(cr, FONT_PX, 0);
    for (s = 0; s < c->pp; s++) {
        char lab[32];
        snprintf(lab, sizeof lab, "stage %d", s);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cs__text(cr, x0 - 8, y0 + (s + 0.5) * lane_h, 1, 0.5, lab);
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_set_line_width(cr, 0.5);
        cairo_rectangle(cr, x0, y0 + s * lane_h + 1, x1 - x0, lane_h - 2);
        cairo_stroke(cr);
    }
    for (i = 0; i < r->step.n_tasks; i++) {
        const cs_step_task *t = &r->step.tasks[i];
        double xa = x0 + (x1 - x0) * t->start_s / span, xb = x0 + (x1 - x0) * t->end_s / span;
        double y = y0 + t->stage * lane_h + 2, hh = lane_h * 0.62 - 2;
        if (t->stage >= 64)
            continue;
        if (t->stream == 1) {
            box(cr, xa, xb, y + lane_h * 0.62, lane_h * 0.14, part_rgb(8));
        } else if (t->stream == 2) {
            box(cr, xa, xb, y + lane_h * 0.78, lane_h * 0.14, part_rgb(9));
        } else if (t->kind == CS_T_OPT) {
            box(cr, xa, xb, y, hh, part_rgb(3));
        } else {
            /* split the bar into its parts in proportion to the per-chunk costs */
            double seg[5], tot = 0, x = xa;
            int col[5], n = 0, j;
            if (t->kind == CS_T_FWD) {
                seg[n] = c->t_fwd; col[n++] = 0;
                seg[n] = c->t_tp_fwd; col[n++] = 5;
                seg[n] = c->t_cp_fwd; col[n++] = 6;
                seg[n] = c->t_ep_fwd; col[n++] = 7;
            } else {
                seg[n] = c->t_recomp; col[n++] = 2;
                seg[n] = c->t_bwd; col[n++] = 1;
                seg[n] = c->t_tp_bwd; col[n++] = 5;
                seg[n] = c->t_cp_bwd; col[n++] = 6;
                seg[n] = c->t_ep_bwd; col[n++] = 7;
            }
            for (j = 0; j < n; j++)
                tot += seg[j];
            for (j = 0; j < n; j++) {
                double wseg = tot > 0 ? (xb - xa) * seg[j] / tot : (j == 0 ? xb - xa : 0);
                if (wseg > 0)
                    box(cr, x, x + wseg, y, hh, part_rgb(col[j]));
                x += wseg;
            }
            if (xb - xa > 3) {
                cairo_set_source_rgb(cr, 1, 1, 1);
                cairo_set_line_width(cr, 0.6);
                cairo_move_to(cr, cs__crisp(xa), y);
                cairo_line_to(cr, cs__crisp(xa), y + hh);
                cairo_stroke(cr);
            }
        }
    }
    /* time axis: round ticks (a 1-2-5 step, about 8 of them over the step) from 0, each
     * with its unit ("5 s", "200 ms"); the step's own end is in the title */
    cairo_set_source_rgb(cr, 0, 0, 0);
    tick = cs_axis_nice_ceil(span / 8);
    for (k = 0; k * tick <= span * (1 + 1e-9); k++) {
        double x = x0 + (x1 - x0) * (k * tick / span);
        char lab[32];
        cs_axis_format(CS_AXIS_FMT_TIME_US, k * tick * 1e6, tick * 1e6, lab, sizeof lab);
        cairo_move_to(cr, cs__crisp(x), y0 + c->pp * lane_h);
        cairo_line_to(cr, cs__crisp(x), y0 + c->pp * lane_h + 4);
        cairo_stroke(cr);
        cs__text(cr, x, y0 + c->pp * lane_h + 16, 0.5, 1, lab);
    }
    legend(cr, x0, h - 12, parts, (int)(sizeof parts / sizeof parts[0]));
    return cs__canvas_close(&cv, err);
}

int cs_plot_plan_breakdown(const cs_plan *p, const cs_plan_result *r, const char *path, int w,
                           int h, cs_err *err)
{
    cs__canvas cv;
    cairo_t *cr;
    double x0 = 60, x1, y = 60, bh = 60, tot = 0, x;
    int rc, i, parts[10], n = 0;
    char title[256];
    if (r->step_time_s <= 0)
        return cs_err_set(err, CS_EINVAL, path, "no step to draw");
    if (!w)
        w = 900;
    if (!h)
        h = 220;
    if ((rc = cs__canvas_open(&cv, path, w, h, err)))
        return rc;
    cr = cv.cr;
    x1 = w - 40;
    for (i = 0; i < 10; i++)
        tot += r->breakdown_s[i];
    cairo_set_source_rgb(cr, 0, 0, 0);
    cs__font(cr, FONT_PX + 2, 1);
    snprintf(title, sizeof title, "%s on %d GPUs: step %.3f s, MFU %.1f%% (stage %d)",
             p->model.name, r->gpus, r->step_time_s, r->mfu_pct, r->step.report_stage);
    cs__text(cr, x0, 30, 0, 1, title);
    x = x0;
    cs__font(cr, FONT_PX, 0);
    for (i = 0; i < 10; i++) {
        double wseg = tot > 0 ? (x1 - x0) * r->breakdown_s[i] / tot : 0;
        if (r->breakdown_s[i] <= 0)
            continue;
        parts[n++] = i;
        box(cr, x, x + wseg, y, bh, part_rgb(i));
        if (wseg > 50) {
            char lab[32];
            snprintf(lab, sizeof lab, "%.0f%%", 100 * r->breakdown_s[i] / tot);
            cairo_set_source_rgb(cr, i == 3 ? 1 : 0, i == 3 ? 1 : 0, i == 3 ? 1 : 0);
            cs__text(cr, x + wseg / 2, y + bh / 2, 0.5, 0.5, lab);
        }
        x += wseg;
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, cs__crisp(x0), cs__crisp(y), x1 - x0, bh);
    cairo_stroke(cr);
    legend(cr, x0, y + bh + 40, parts, n < 6 ? n : 6);
    if (n > 6)
        legend(cr, x0, y + bh + 62, parts + 6, n - 6);
    return cs__canvas_close(&cv, err);
}
