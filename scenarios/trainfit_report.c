/* trainfit_report.c: the reports of `collsim plan validate` and `plan calibrate` (scenarios
 * layer): per log the plan rebuilt, what was measured and simulated, the error, what the
 * reader ignored or assumed; the summary; for calibrate the scale, the held-out errors and
 * what the logs cannot determine. Text (comment lines over a table) or JSON. */
#include "scenarios/trainlog.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const rc_names[] = {"none", "selective", "full"};
static const char *const sched_names[] = {"1f1b", "gpipe", "interleaved"};

static double median_abs_err(const cs_tlog_row *rows, int n)
{
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v), m;
    int i, j;
    if (!v)
        return NAN;
    for (i = 0; i < n; i++) {          /* insertion sort of |error|: n is small */
        double x = fabs(rows[i].err_pct);
        for (j = i; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    free(v);
    return m;
}

/* What one log and one fit cannot tell, in sentences (into buf). */
static void not_determined(const cs_tlog_fit *fit, char *buf, size_t n)
{
    buf[0] = '\0';
    if (fit->n_logs < 2)
        snprintf(buf, n, "one log: no held-out error (the fit matches it by construction); ");
    snprintf(buf + strlen(buf), n - strlen(buf), "%s", fit->one_shape
             ? "the logs share one model, sequence length and dtype: GEMM and attention "
               "efficiency cannot be told apart (one scale moves both); "
             : "one scale for GEMM and attention together (a fit of each needs more logs); ");
    snprintf(buf + strlen(buf), n - strlen(buf), "memory-bound kernels, kernel launch cost "
             "and communication are not fitted");
}

static void print_log_text(FILE *f, const cs_tlog_row *row)
{
    const cs_trainlog *t = row->log;
    const cs_plan *p = &t->plan;
    fprintf(f, "# %s: %s log, %d GPUs on %s, topology %s\n", t->name,
            cs_tlog_format_name(t->format), t->world_size, row->gpu, row->topo);
    fprintf(f, "#   plan: %d layers, hidden %d, heads %d (kv %d), ffn %d, seq %d, vocab %d%s; "
            "tp %d pp %d dp %d cp %d ep %d vp %d; mbs %d gbs %ld; %s; recompute %s; sp %s; "
            "zero %d; schedule %s; flash attention %s\n", p->model.layers, p->model.hidden,
            p->model.heads, p->model.kv_heads, p->model.ffn_hidden, p->model.seq_len,
            p->model.vocab, p->model.experts ? " (MoE)" : "", p->tp, p->pp, p->dp, p->cp,
            p->ep, p->vp, p->micro_batch, p->global_batch, cs_pdtype_name(p->dtype),
            rc_names[p->recompute], p->sp ? "on" : "off", p->zero, sched_names[p->schedule],
            p->flash_attention ? "on" : "off");
    fprintf(f, "#   measured: median of %d iteration line%s from iteration %d (%d read; the "
            "first and iterations <= %d are warm-up)", t->n_used, t->n_used == 1 ? "" : "s",
            t->first_used, t->n_lines, CS_TLOG_WARMUP_ITERS);
    if (t->tflops_per_gpu > 0)
        fprintf(f, ", printed %.1f TFLOP/s per GPU", t->tflops_per_gpu);
    if (t->peak_mem_bytes > 0)
        fprintf(f, ", %s %.2f GB", t->mem_stat[0] ? t->mem_stat : "max allocated",
                t->peak_mem_bytes / 1e9);
    fprintf(f, "\n#   ignored (changes cost, not modelled): %s\n", t->ignored[0] ? t->ignored
                                                                            : "none");
    if (t->assumed[0])
        fprintf(f, "#   assumed: %s\n", t->assumed);
}

void cs_tlog_print_text(FILE *f, const cs_tlog_row *rows, int n, const cs_tlog_fit *fit,
                        const char *output)
{
    int i;
    char nd[768];
    fprintf(f, "# collsim plan %s: %d log%s\n", fit ? "calibrate" : "validate", n,
            n == 1 ? "" : "s");
    for (i = 0; i < n; i++)
        print_log_text(f, &rows[i]);
    if (fit)
        fprintf(f, "# compute figures x %.6f (the scale where the geometric mean of "
                "simulated / measured is 1; bisection on ln scale)\n", fit->scale);
    fprintf(f, "%-40s %12s %12s %9s %14s %14s %8s%s\n", "log", "measured_s", "simulated_s",
            "error_%", "measured_tok/s", "simulated_tok/s", "sim_mfu%",
            fit && n >= 2 ? "  heldout_error_%" : "");
    for (i = 0; i < n; i++) {
        const cs_tlog_row *r = &rows[i];
        fprintf(f, "%-40s %12.4f %12.4f %+9.2f %14.1f %14.1f %8.2f", r->log->name,
                r->log->step_s, r->sim_step_s, r->err_pct, r->log->tokens_per_s,
                r->sim_tokens_per_s, r->sim_mfu_pct);
        if (fit && n >= 2)
            fprintf(f, "  %+15.2f", r->heldout_err_pct);
        fputc('\n', f);
    }
    fprintf(f, "# median |error|: %.2f%% over %d log%s%s\n", median_abs_err(rows, n), n,
            n == 1 ? "" : "s", fit ? " (fitted)" : "");
    if (!fit)
        return;
    if (n >= 2)
        fprintf(f, "# held out (each log at the scale fitted on the others): median |error| "
                "%.2f%%\n", fit->heldout_median_abs_err_pct);
    not_determined(fit, nd, sizeof nd);
    fprintf(f, "# not determined: %s\n", nd);
    if (output)
        fprintf(f, "# wrote %s: gpu '%s' with calibrated.scale %.6f%s\n", output,
                fit->gpu.name, fit->gpu.calib_scale, fit->capped ? " (matmul figures over "
                "the dense peak written as the peak)" : "");
}

/* A comma-separated list as a JSON array of strings. */
static json_t *list_json(const char *s, const char *sep)
{
    json_t *a = json_array();
    const char *p = s;
    size_t ls = strlen(sep);
    while (a && *p) {
        const char *e = strstr(p, sep);
        size_t l = e ? (size_t)(e - p) : strlen(p);
        json_array_append_new(a, json_stringn(p, l));
        p += l + (e ? ls : 0);
    }
    return a;
}

static json_t *row_json(const cs_tlog_row *r, int fitted)
{
    const cs_trainlog *t = r->log;
    const cs_plan *p = &t->plan;
    json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:s, s:b}", "log", t->name, "format",
                          cs_tlog_format_name(t->format), "gpus", t->world_size, "gpu", r->gpu,
                          "topology", r->topo, "topology_default", r->topo_default);
    if (!o)
        return NULL;
    json_object_set_new(o, "plan", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, "
        "s:i, s:i, s:i, s:i, s:i, s:I, s:s, s:s, s:b, s:i, s:s, s:b}", "layers",
        p->model.layers, "hidden", p->model.hidden, "heads", p->model.heads, "kv_heads",
        p->model.kv_heads, "ffn_hidden", p->model.ffn_hidden, "seq_len", p->model.seq_len,
        "vocab", p->model.vocab, "experts", p->model.experts, "tp", p->tp, "pp", p->pp, "dp",
        p->dp, "cp", p->cp, "ep", p->ep, "micro_batch", p->micro_batch, "global_batch",
        (json_int_t)p->global_batch, "dtype", cs_pdtype_name(p->dtype), "recompute",
        rc_names[p->recompute], "sequence_parallel", p->sp, "zero", p->zero, "schedule",
        sched_names[p->schedule], "flash_attention", p->flash_attention));
    json_object_set_new(o, "iterations", json_pack("{s:i, s:i, s:i}", "lines", t->n_lines,
                        "used", t->n_used, "first_used", t->first_used));
    json_object_set_new(o, "measured", json_pack("{s:f, s:f}", "step_time_s", t->step_s,
                        "tokens_per_s", t->tokens_per_s));
    if (t->tflops_per_gpu > 0)
        json_object_set_new(json_object_get(o, "measured"), "tflops_per_gpu",
                            json_real(t->tflops_per_gpu));
    if (t->peak_mem_bytes > 0)
        json_object_set_new(json_object_get(o, "measured"), "peak_memory_bytes",
                            json_real(t->peak_mem_bytes));
    if (t->peak_mem_bytes > 0 && t->mem_stat[0])
        json_object_set_new(json_object_get(o, "measured"), "peak_memory_statistic",
                            json_string(t->mem_stat));
    json_object_set_new(o, "simulated", json_pack("{s:f, s:f, s:f}", "step_time_s",
                        r->sim_step_s, "tokens_per_s", r->sim_tokens_per_s, "mfu_pct",
                        r->sim_mfu_pct));
    json_object_set_new(o, "error_pct", json_real(r->err_pct));
    if (fitted)
        json_object_set_new(o, "heldout", json_pack("{s:f, s:f}", "error_pct",
                            r->heldout_err_pct, "scale", r->heldout_scale));
    json_object_set_new(o, "ignored", list_json(t->ignored, ", "));
    json_object_set_new(o, "assumed", list_json(t->assumed, "; "));
    return o;
}

int cs_tlog_print_json(FILE *f, const cs_tlog_row *rows, int n, const cs_tlog_fit *fit,
                       const char *output)
{
    json_t *root = json_object(), *arr = json_array();
    char nd[768];
    int i, rc;
    if (!root || !arr) {
        json_decref(root);
        json_decref(arr);
        return CS_ENOMEM;
    }
    json_object_set_new(root, "command", json_string(fit ? "plan calibrate" : "plan validate"));
    for (i = 0; i < n; i++)
        json_array_append_new(arr, row_json(&rows[i], fit && n >= 2));
    json_object_set_new(root, "logs", arr);
    json_object_set_new(root, "median_abs_error_pct", json_real(median_abs_err(rows, n)));
    if (fit) {
        json_t *o = json_pack("{s:f, s:s, s:f}", "scale", fit->scale, "method",
                              "geometric mean of simulated/measured = 1 (least squares in "
                              "log space for step times proportional to 1/scale), bisection",
                              "median_abs_error_pct", fit->median_abs_err_pct);
        not_determined(fit, nd, sizeof nd);
        json_object_set_new(o, "heldout_median_abs_error_pct", n >= 2
                            ? json_real(fit->heldout_median_abs_err_pct) : json_null());
        json_object_set_new(o, "not_determined", list_json(nd, "; "));
        json_object_set_new(o, "gpu", json_string(fit->gpu.name));
        json_object_set_new(o, "output", output ? json_string(output) : json_null());
        json_object_set_new(o, "capped_at_peak", json_boolean(fit->capped));
        json_object_set_new(root, "fit", o);
    }
    rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    return rc < 0 || fputc('\n', f) == EOF ? CS_EIO : 0;
}
