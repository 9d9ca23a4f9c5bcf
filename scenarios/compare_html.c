/* compare_html.c: `collsim compare --html`: one self-contained HTML page (scenarios layer):
 * the table, the chart as inline SVG, the assumptions and the sources of every figure; no
 * script, no style sheet or font fetched from anywhere. */
#include "scenarios/compare.h"

#include <math.h>
#include <string.h>

/* Text with &, <, >, " escaped. */
static void esc(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
}

static void cell_num(FILE *f, double v, int decimals)
{
    fputs("<td>", f);
    if (isnan(v) || v <= 0)
        fputs("&ndash;", f);
    else
        fprintf(f, "%.*f", decimals, v);
    fputs("</td>", f);
}

int cs_compare_print_html(FILE *f, const cs_plan *base, const cs_cmp_row *rows, int n,
                          const cs_budget_opts *o, const char *svg)
{
    int i, gpus = base->tp * base->pp * base->dp * base->cp;
    const char *sv;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>collsim "
          "compare: ", f);
    esc(f, base->model.name);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:80em}"
          "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 8px;"
          "text-align:right}td:first-child,th:first-child{text-align:left}"
          ".note{color:#555;font-size:90%}</style></head><body>\n<h1>Before buying: ", f);
    esc(f, base->model.name);
    fprintf(f, " on %d GPUs</h1>\n<p>Global batch %ld sequences of %d tokens, %s. ", gpus,
            base->global_batch, base->model.seq_len, cs_pdtype_name(base->dtype));
    if (o->tokens > 0) {
        char tk[32];
        cs_budget_tokens_str(o->tokens, tk, sizeof tk);
        fprintf(f, "Time, GPU-hours, cost and energy to train %s tokens%s.", tk,
                o->want_goodput ? ", failures included (Llama 3's rates)" : ", failure-free");
    }
    fputs("</p>\n<table>\n<tr><th>system</th><th>GPU</th><th>layout</th><th>step (s)</th>"
          "<th>tokens/s</th><th>TFLOP/s per GPU</th><th>MFU %</th><th>memory GB</th>"
          "<th>headroom GB</th><th>days</th><th>GPU-hours</th><th>cost $</th>"
          "<th>J/token</th><th>MWh</th></tr>\n", f);
    for (i = 0; i < n; i++) {
        const cs_cmp_row *r = &rows[i];
        const cs_plan_cand *c = &r->layout;
        double t = r->budget.has_goodput && r->budget.goodput.wall_s > 0
                   ? r->budget.goodput.wall_s : r->budget.has_cost ? r->budget.cost.train_s : 0;
        double price = r->budget.has_cost ? r->budget.cost.price_per_gpu_h : 0;
        fputs("<tr><td>", f);
        esc(f, r->sys.name);
        fputs("</td><td>", f);
        esc(f, r->sys.gpu);
        if (!r->ok) {
            fputs("</td><td colspan=\"12\">not run: ", f);
            esc(f, r->why);
            fputs("</td></tr>\n", f);
            continue;
        }
        fprintf(f, "</td><td>tp %d, pp %d, dp %d, cp %d, vp %d, micro batch %d, ZeRO %d%s%s</td>",
                c->tp, c->pp, c->dp, c->cp, c->vp, c->mbs, c->zero, c->sp ? ", SP" : "",
                c->recompute == CS_RC_FULL ? ", full recompute"
                : c->recompute ? ", selective recompute" : "");
        cell_num(f, r->step_s, 3);
        cell_num(f, r->tokens_per_s, 0);
        cell_num(f, r->model_tflops_per_gpu, 1);
        cell_num(f, r->mfu_pct, 1);
        cell_num(f, r->mem_bytes / 1e9, 1);
        fprintf(f, "<td>%.1f%s</td>", (r->capacity_bytes - r->mem_bytes) / 1e9,
                r->fits ? "" : " (does not fit)");
        cell_num(f, t / 86400, 2);
        cell_num(f, r->gpus * t / 3600, 0);
        cell_num(f, price > 0 ? r->gpus * t / 3600 * price : NAN, 0);
        cell_num(f, r->budget.energy.per_token_J, 3);
        cell_num(f, r->budget.energy.system_kW * t / 3.6e6, 1);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    if (svg && (sv = strstr(svg, "<svg")))      /* inline: the XML declaration dropped */
        fprintf(f, "<figure>%s</figure>\n", sv);
    fputs("<h2>Assumptions and sources</h2>\n<ul class=\"note\">\n", f);
    fputs("<li>Step time, throughput, MFU and memory: collsim's step simulation of the plan on "
          "each system (docs/plans.md).</li>\n", f);
    fputs("<li>Prices: user-given (--price).</li>\n", f);
    fputs("<li>Energy: a GPU draws idle + (TDP &minus; idle) &times; load, load 1 in tensor-"
          "bound compute, 0.5 in memory-bound, 0.1 waiting (collsim's assumptions); node "
          "power besides the GPUs: ", f);
    if (o->node_W > 0)
        fprintf(f, "%.0f W (user-given)", o->node_W);
    else
        esc(f, CS_NODE_W_SOURCE);
    fprintf(f, "; PUE %.2f.</li>\n", o->pue > 0 ? o->pue : 1.0);
    for (i = 0; i < n; i++) {
        int j, seen = 0;
        for (j = 0; j < i; j++)
            seen |= !strcmp(rows[j].sys.gpu, rows[i].sys.gpu);
        if (seen || !rows[i].ok)
            continue;
        fputs("<li>", f);
        esc(f, rows[i].sys.gpu);
        fputs(" board power: ", f);
        esc(f, rows[i].budget.energy.gpu_source);
        fputs("</li>\n", f);
    }
    if (o->want_goodput && n > 0 && rows[0].ok) {
        fputs("<li>Failures: ", f);
        esc(f, rows[0].budget.fail.source);
        fputs("; checkpoint bandwidth and restart time as in docs/plans.md.</li>\n", f);
    }
    fputs("</ul>\n<p class=\"note\">Written by collsim compare.</p>\n</body></html>\n", f);
    return ferror(f) ? CS_EIO : 0;
}
