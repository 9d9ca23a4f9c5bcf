/* explain.c: one schedule taught step by step (algorithms layer, explain.h): its
 * transfers with simulated times (through the executor's observer hook), a text timeline
 * per rank, and the algorithm's closed form with the numbers put in. */
#include "algorithms/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EX_COLS 64            /* timeline width, characters */
#define EX_MAX_ROWS 200       /* table rows shown without all */
#define EX_MAX_LANES 64       /* ranks drawn without all */

static void observe(void *ctx, const cs_obs_event *ev)
{
    cs_explain_times *tm = ctx;
    switch (ev->kind) {
    case CS_OBS_XFER_START: case CS_OBS_COMPUTE_START: tm->start[ev->xfer] = ev->t_ps; break;
    case CS_OBS_XFER_DONE: case CS_OBS_COMPUTE_DONE: tm->done[ev->xfer] = ev->t_ps; break;
    case CS_OBS_REDUCE_DONE: tm->reduced[ev->xfer] = ev->t_ps; break;
    default: break;
    }
}

/* Chunk ids as ranges: "0-3,7". */
static void chunk_text(const cs_sched *s, uint32_t i, char *buf, size_t n)
{
    const uint32_t *ids = cs_sched_chunks(s, i);
    uint32_t k = 0, m = s->xfers[i].n_chunks;
    buf[0] = '\0';
    while (k < m && strlen(buf) + 24 < n) {
        uint32_t j = k;
        char part[32];
        while (j + 1 < m && ids[j + 1] == ids[j] + 1)
            j++;
        if (j > k)
            snprintf(part, sizeof part, "%s%u-%u", k ? "," : "", ids[k], ids[j]);
        else
            snprintf(part, sizeof part, "%s%u", k ? "," : "", ids[k]);
        strcat(buf, part);
        k = j + 1;
    }
    if (k < m)
        strcat(buf, ",...");
}

/* What by_start sorts: set and read by the sorting thread only (qsort has no context). */
static _Thread_local const cs_sched *sort_sched;
static _Thread_local const cs_explain_times *sort_tm;
static int by_start(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    if (sort_tm->start[i] != sort_tm->start[j])
        return sort_tm->start[i] < sort_tm->start[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

void cs_explain_table(FILE *f, const cs_sched *s, const cs_explain_times *tm, int all, int has_gamma)
{
    uint32_t *ord = malloc((s->n_xfers + 1) * sizeof *ord), i, n = 0, shown = 0;
    char chunks[64], bytes[32];
    if (!ord)
        return;
    for (i = 0; i < s->n_xfers; i++)
        if (s->xfers[i].op != CS_OP_COMPUTE)
            ord[n++] = i;
    sort_sched = s;
    sort_tm = tm;
    qsort(ord, n, sizeof *ord, by_start);
    fprintf(f, "%5s %11s %11s %s%5s -> %-4s %-14s %12s  %s\n", "step", "start_us", "end_us",
           has_gamma ? " reduced_us " : "", "src", "dst", "chunks", "bytes", "op");
    for (i = 0; i < n && (all || shown < EX_MAX_ROWS); i++, shown++) {
        const cs_xfer *x = &s->xfers[ord[i]];
        char red[24] = "";
        chunk_text(s, ord[i], chunks, sizeof chunks);
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)x->bytes);
        if (has_gamma)
            snprintf(red, sizeof red, "%11.3f ", tm->reduced[ord[i]] >= 0
                     ? cs_time_to_us(tm->reduced[ord[i]]) : cs_time_to_us(tm->done[ord[i]]));
        fprintf(f, "%5d %11.3f %11.3f %s%5d -> %-4d %-14s %12s  %s\n", x->step,
               cs_time_to_us(tm->start[ord[i]]), cs_time_to_us(tm->done[ord[i]]), red, x->src,
               x->dst, chunks, bytes, x->op == CS_OP_REDUCE ? "reduce" : "copy");
    }
    if (i < n)
        fprintf(f, "... %u more transfers (--all lists them)\n", n - i);
    free(ord);
}

/* One lane: the step digit where a rank is sending (tx) or receiving (rx). */
void cs_explain_timeline(FILE *f, const cs_sched *s, const cs_explain_times *tm, cs_time end, int all)
{
    int p = s->n_ranks, r, lanes = all || p <= EX_MAX_LANES ? p : EX_MAX_LANES, side;
    char (*row)[EX_COLS + 1] = malloc((size_t)lanes * 2 * sizeof *row);
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    uint32_t i;
    if (!row || end <= 0) {
        free(row);
        return;
    }
    for (r = 0; r < 2 * lanes; r++) {
        memset(row[r], '.', EX_COLS);
        row[r][EX_COLS] = '\0';
    }
    for (i = 0; i < s->n_xfers; i++) {
        const cs_xfer *x = &s->xfers[i];
        int c0, c1, c;
        if (x->op == CS_OP_COMPUTE || tm->start[i] < 0 || tm->done[i] <= tm->start[i])
            continue;
        c0 = (int)lround((double)tm->start[i] / (double)end * EX_COLS);
        c1 = (int)lround((double)tm->done[i] / (double)end * EX_COLS);
        if (c1 <= c0)
            c1 = c0 + 1;
        for (side = 0; side < 2; side++) {
            int rank = side ? x->dst : x->src;
            if (rank >= lanes)
                continue;
            for (c = c0; c < c1 && c < EX_COLS; c++) {
                char *cell = &row[2 * rank + side][c];
                char ch = digits[(x->step < 0 ? 0 : x->step) % 36];
                *cell = *cell == '.' || *cell == ch ? ch : '*';
            }
        }
    }
    fprintf(f, "timeline: %d columns = %.3f us; a digit is the step a rank is sending (tx) or\n"
           "receiving (rx) in (last digit, then a-z), '*' more than one, '.' idle\n",
           EX_COLS, cs_time_to_us(end));
    for (r = 0; r < lanes; r++) {
        fprintf(f, "rank %-4d tx |%s|\n", r, row[2 * r]);
        fprintf(f, "          rx |%s|\n", row[2 * r + 1]);
    }
    if (lanes < p)
        fprintf(f, "... %d more ranks (--all draws them)\n", p - lanes);
    free(row);
}

void cs_explain_rings(FILE *f, const cs_coll_req *req, int max_channels)
{
    const cs_topo *t = req->topo;
    int C = req->channels, p = req->n_ranks, c, q, shown;
    cs_ring_plan pl;
    cs_ring_plan_init(&pl, req);
    shown = max_channels > 0 && max_channels < C ? max_channels : C;
    fprintf(f, "rings (%d channel%s; each line the ranks in ring order, back to the first):\n",
            C, C == 1 ? "" : "s");
    for (c = 0; c < shown; c++) {
        fprintf(f, "  channel %-3d", c);
        for (q = 0; q < p; q++) {
            int r = cs_ring_plan_rank(&pl, c, q);
            if (p > 16 && q == 12) {
                fprintf(f, " ... (%d more)", p - 14);
                q = p - 2;
                r = cs_ring_plan_rank(&pl, c, q);
            }
            if (t && r < t->n_ranks)
                fprintf(f, " %s", t->nodes[t->ranks[r]].name);
            else
                fprintf(f, " %d", r);
        }
        fprintf(f, "\n");
    }
    if (shown < C)
        fprintf(f, "  ... %d more channels\n", C - shown);
    cs_ring_plan_fini(&pl);
}

void cs_explain_closed_form(FILE *out, const cs_algo *ops, const cs_coll_req *req, const cs_topo *t,
                              cs_time sim_end)
{
    cs_ab ab;
    cs_formula_text ft;
    cs_err err;
    const char *v;
    double sim_us = cs_time_to_us(sim_end);
    cs_ab_from_topo(t, &ab);
    fprintf(out, "closed form of %s on the single-port alpha_beta fabric:\n", ops->name);
    if (cs_formula_render(ops, req, &ab, &ft, &err) < 0) {
        fprintf(out, "  %s: %s\n", err.where, err.msg);
    } else {
        for (v = ft.vars; *v; ) {
            size_t len = strcspn(v, "\n");
            fprintf(out, "  %.*s\n", (int)len, v);
            v += len + (v[len] == '\n');
        }
        fprintf(out, "  t = %s\n    = %s\n", ft.form, ft.put);
        if (isnan(ft.total_s))
            fprintf(out, "  (no exact total for this request: the form is a sketch)\n");
        else
            fprintf(out, "    = %.3f \xc2\xb5s%s\n", ft.total_s * 1e6, ft.is_estimate ?
                    "  (an estimate for this request: the textbook form assumes a power of two,"
                    " no pipelining)" : "");
    }
    if (t->model != CS_MODEL_ALPHA_BETA)
        fprintf(out, "  (an estimate: the form is for the single-port alpha_beta fabric; a and b are\n"
               "  the route rank 0 -> rank 1 of this %s topology, which has real links)\n",
               t->kind);
    fprintf(out, "simulated: %.3f us", sim_us);
    if (!isnan(ft.total_s) && ft.total_s > 0)
        fprintf(out, "  (closed form %+.3f%%)", 100.0 * (ft.total_s * 1e6 - sim_us) /
               fmax(sim_us, 1e-12));
    fprintf(out, "\n");
}

void cs_explain_ranks_row(FILE *out, int header, const cs_algo *ops, const cs_coll_req *req,
                          const cs_topo *t, const cs_sched *s, const cs_explain_times *tm)
{
    cs_ab ab;
    cs_formula_text ft;
    cs_err err;
    double sim = cs_time_to_us(tm->end_ps);
    char cfs[32] = "-";
    int has_form;
    cs_ab_from_topo(t, &ab);
    has_form = cs_formula_render(ops, req, &ab, &ft, &err) == 0 && isfinite(ft.total_s);
    if (header && t->model != CS_MODEL_ALPHA_BETA)
        fprintf(out, "# closed forms are estimates here: they are for the single-port alpha_beta "
                "fabric (a, b of the route rank 0 -> rank 1)\n");
    if (header)
        fprintf(out, "%6s %-20s %6s %10s %14s %14s %6s  %s\n", "ranks", "algorithm", "steps",
                "transfers", "simulated_us", "closed_us", "#wrong", "closed form, then with the "
                "numbers put in ('~': an estimate)");
    if (has_form)
        snprintf(cfs, sizeof cfs, "%s%.3f", ft.is_estimate ? "~" : "", ft.total_s * 1e6);
    fprintf(out, "%6d %-20s %6d %10u %14.3f %14s %6d  %s%s%s\n", req->n_ranks, ops->name,
            s->n_steps, s->n_xfers, sim, cfs, tm->wrong, has_form ? ft.form : "",
            has_form ? " = " : "", has_form ? ft.put : "(none)");
}

int cs_explain_run(const cs_topo *t, const cs_sched *s, const cs_sim_costs *costs,
                   cs_explain_times *tm, cs_err *err)
{
    cs_sim_opts so = {1, 0, costs};
    cs_sim *sim = NULL;
    cs_job *job;
    uint32_t i;
    int rc;
    memset(tm, 0, sizeof *tm);
    tm->start = malloc((s->n_xfers + 1) * sizeof *tm->start);
    tm->done = malloc((s->n_xfers + 1) * sizeof *tm->done);
    tm->reduced = malloc((s->n_xfers + 1) * sizeof *tm->reduced);
    if (!tm->start || !tm->done || !tm->reduced)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < s->n_xfers; i++)
        tm->start[i] = tm->done[i] = tm->reduced[i] = -1;
    if ((rc = cs_sim_new(&sim, t, &so, err)) < 0)
        return rc;
    cs_sim_set_observer(sim, observe, tm);
    if ((rc = cs_sim_add(sim, s, NULL, 0, &job, err)) == 0 && (rc = cs_sim_run(sim, err)) == 0) {
        tm->end_ps = cs_job_end(job);
        tm->wrong = cs_job_wrong(job);
    }
    cs_sim_free(sim);
    return rc;
}

void cs_explain_times_fini(cs_explain_times *tm)
{
    free(tm->start);
    free(tm->done);
    free(tm->reduced);
    memset(tm, 0, sizeof *tm);
}
