/* report.c: sweep results and their printers (core layer): the nccl-tests table (column
 * formats as nccl-tests' src/common.cu), JSON and CSV with the DESIGN §7 keys. */
#include "sim/report.h"

#include <jansson.h>
#include <math.h>
#include "sim/size.h"
#include <stdlib.h>
#include <string.h>

int cs_sweep_add(cs_sweep *sw, const cs_row *row)
{
    if (sw->n_rows == sw->cap_rows) {
        int cap = sw->cap_rows ? sw->cap_rows * 2 : 32;
        cs_row *nr = realloc(sw->rows, (size_t)cap * sizeof *nr);
        if (!nr)
            return CS_ENOMEM;
        sw->rows = nr;
        sw->cap_rows = cap;
    }
    sw->rows[sw->n_rows] = *row;
    cs_row_bandwidths(&sw->rows[sw->n_rows], sw->coll, sw->ranks);
    sw->n_rows++;
    return 0;
}

void cs_sweep_fini(cs_sweep *sw)
{
    free(sw->rows);
    sw->rows = NULL;
    sw->n_rows = sw->cap_rows = 0;
}

void cs_row_bandwidths(cs_row *row, cs_coll coll, int ranks)
{
    /* GB/s = bytes / (us * 1e3); nccl-tests prints 0 for a zero time. */
    row->algbw_GBps = row->time_us > 0 ? (double)row->size_bytes / (row->time_us * 1e3) : 0;
    row->busbw_GBps = row->algbw_GBps * cs_coll_busbw_factor(coll, ranks);
}

double cs_sweep_avg_busbw(const cs_sweep *sw)
{
    double sum = 0;
    int i;
    if (!sw->n_rows)
        return 0;
    for (i = 0; i < sw->n_rows; i++)
        sum += sw->rows[i].busbw_GBps;
    return sum / sw->n_rows;
}

/* nccl-tests' time format: fewer decimals as the number grows. */
static void fmt_time(char *buf, size_t n, double us)
{
    if (us >= 10000.0)
        snprintf(buf, n, "%7.0f", us);
    else if (us >= 100.0)
        snprintf(buf, n, "%7.1f", us);
    else
        snprintf(buf, n, "%7.2f", us);
}

/* The "# algorithm per size: ..." (or "# protocol: ...") line of one sweep, if it has one.
 * label: " (int8 sum)" after the key, or "". */
static void algo_line(FILE *f, const cs_sweep *sw, const char *label)
{
    int i, any_auto = 0;
    for (i = 0; i < sw->n_rows; i++)
        if (sw->rows[i].algorithm && strcmp(sw->rows[i].algorithm, sw->algorithm))
            any_auto = 1;
    if (!any_auto) {
        if (sw->n_rows && sw->rows[0].protocol)
            fprintf(f, "# protocol%s: %s\n", label, sw->rows[0].protocol);
        return;
    }
    fprintf(f, "# algorithm per size%s:", label);
    for (i = 0; i < sw->n_rows; i++) {
        if (i && sw->rows[i].algorithm == sw->rows[i - 1].algorithm &&
            sw->rows[i].protocol == sw->rows[i - 1].protocol)
            continue;
        fprintf(f, " %llu+ %s%s%s", (unsigned long long)sw->rows[i].size_bytes,
                sw->rows[i].algorithm, sw->rows[i].protocol ? "/" : "",
                sw->rows[i].protocol ? sw->rows[i].protocol : "");
    }
    fprintf(f, "\n");
}

/* 1 if sweeps a and b print the same algorithm line (-1: out of memory). */
static int same_algo_line(const cs_sweep *a, const cs_sweep *b)
{
    char *ta = NULL, *tb = NULL;
    size_t na = 0, nb = 0;
    FILE *fa = open_memstream(&ta, &na), *fb = open_memstream(&tb, &nb);
    int same = -1;
    if (fa && fb) {
        algo_line(fa, a, "");
        algo_line(fb, b, "");
        if (fclose(fa) == 0 && fclose(fb) == 0)
            same = na == nb && !memcmp(ta, tb, na);
        fa = fb = NULL;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    free(ta);
    free(tb);
    return same;
}

/* The header lines above the columns: what ran (the first sweep's), and each sweep's
 * algorithm line (one unlabelled line when they all say the same). */
static int text_header(FILE *f, const cs_sweep *const *sws, int n)
{
    const cs_sweep *sw = sws[0];
    int i, k, same = 1;
    fprintf(f, "# collsim: %s, %d ranks, algorithm %s, topology %s (%s)\n",
            cs_coll_name(sw->coll), sw->ranks, sw->algorithm, sw->topology, sw->topo_kind);
    if (sw->procs > 0)
        fprintf(f, "# ranks as nccl-tests counts them: %d processes (mpirun -np) x %d GPUs "
                "(-g) x %d threads (-t) = %d\n", sw->procs,
                sw->ranks / (sw->procs * sw->threads), sw->threads, sw->ranks);
    if (sw->model)
        fprintf(f, "# model: %s\n", sw->model);
    if (sw->settings && sw->settings[0])
        fprintf(f, "# nccl settings: %s\n", sw->settings);
    if (sw->bottleneck)
        fprintf(f, "# bottleneck: %s\n", sw->bottleneck);
    if (sw->n_links > 0) {
        char human[32];
        fprintf(f, "# busiest links at %llu B (%s) (bytes carried, utilisation, time busy, "
                "peak flows):\n", (unsigned long long)sw->links_size_bytes,
                cs_format_bytes(sw->links_size_bytes, human, sizeof human));
        for (i = 0; i < sw->n_links; i++) {
            const cs_link_report *l = &sw->links[i];
            char name[160], hb[32];
            uint64_t bytes = (uint64_t)llround(l->bytes);
            snprintf(name, sizeof name, "%s->%s", l->from, l->to);
            fprintf(f, "#   %-24s %-8s %8g GB/s  %12llu B (%9s)  %5.1f%% utilised  %5.1f%% busy  "
                    "peak %d flows\n", name, l->cls, l->bw_GBps, (unsigned long long)bytes,
                    cs_format_bytes(bytes, hb, sizeof hb), 100 * l->utilisation,
                    100 * l->busy_fraction, l->peak_flows);
        }
    }
    for (k = 1; k < n && same == 1; k++)
        same = same_algo_line(sw, sws[k]);
    if (same < 0)
        return CS_ENOMEM;
    for (k = 0; k < (same ? 1 : n); k++) {
        char label[64];
        snprintf(label, sizeof label, same ? "" : " (%s %s)", sws[k]->datatype, sws[k]->redop);
        algo_line(f, sws[k], label);
    }
    fprintf(f, "#\n");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
            "in-place          \n", "", "", "", "", "");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n",
            "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
            "time", "algbw", "busbw", "#wrong");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
            "(GB/s)", "");
    return 0;
}

int cs_report_text_table(FILE *f, const cs_sweep *const *sws, int n)
{
    int i, k, rc, wrong = 0, checked = 1, rows = 0;
    char tbuf[32], wbuf[16];
    double sum = 0;
    if (n < 1)
        return 0;
    if ((rc = text_header(f, sws, n)) < 0)
        return rc;
    for (k = 0; k < n; k++) {
        const cs_sweep *sw = sws[k];
        for (i = 0; i < sw->n_rows; i++) {
            const cs_row *r = &sw->rows[i];
            fmt_time(tbuf, sizeof tbuf, r->time_us);
            if (r->wrong < 0)
                snprintf(wbuf, sizeof wbuf, "%5s", "N/A");
            else
                snprintf(wbuf, sizeof wbuf, "%5d", r->wrong);
            /* Out-of-place and in-place are the same operation in the simulator. */
            fprintf(f, "%12llu  %12llu  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %5s  %7s  %6.2f  "
                    "%6.2f  %5s\n", (unsigned long long)r->size_bytes,
                    (unsigned long long)r->count, sw->datatype, sw->redop, sw->root, tbuf,
                    r->algbw_GBps, r->busbw_GBps, wbuf, tbuf, r->algbw_GBps, r->busbw_GBps,
                    wbuf);
            if (r->wrong < 0)
                checked = 0;
            else
                wrong += r->wrong;
            sum += r->busbw_GBps;
            rows++;
        }
    }
    if (checked)
        fprintf(f, "# Out of bounds values : %d %s\n", wrong, wrong ? "FAILED" : "OK");
    else
        fprintf(f, "# Out of bounds values : data check skipped (N/A)\n");
    /* nccl-tests' footer: the mean busbw over every row of the table (one sweep: the
     * sweep's mean, cs_sweep_avg_busbw, summed in the same order) */
    fprintf(f, "# Avg bus bandwidth    : %g \n#\n", rows ? sum / rows : 0.0);
    return ferror(f) ? CS_EIO : 0;
}

int cs_report_text(FILE *f, const cs_sweep *sw)
{
    return cs_report_text_table(f, &sw, 1);
}

/* One sweep as a JSON object (DESIGN §7 keys), NULL when memory ran out. */
static json_t *sweep_json(const cs_sweep *sw)
{
    json_t *root = json_object(), *rows = json_array();
    int i;
    if (!root || !rows) {
        json_decref(root);
        json_decref(rows);
        return NULL;
    }
    json_object_set_new(root, "collective", json_string(cs_coll_name(sw->coll)));
    json_object_set_new(root, "algorithm", json_string(sw->algorithm));
    json_object_set_new(root, "ranks", json_integer(sw->ranks));
    json_object_set_new(root, "topology", json_string(sw->topology));
    json_object_set_new(root, "topology_kind", json_string(sw->topo_kind));
    json_object_set_new(root, "datatype", json_string(sw->datatype));
    json_object_set_new(root, "redop", json_string(sw->redop));
    json_object_set_new(root, "root", json_integer(sw->root));
    json_object_set_new(root, "chunks", json_integer(sw->chunks));
    if (sw->settings && sw->settings[0])
        json_object_set_new(root, "nccl_settings", json_string(sw->settings));
    if (sw->bottleneck)
        json_object_set_new(root, "bottleneck", json_string(sw->bottleneck));
    if (sw->n_links > 0) {
        json_t *arr = json_array();
        for (i = 0; i < sw->n_links; i++) {
            const cs_link_report *l = &sw->links[i];
            json_t *o = json_object();
            json_object_set_new(o, "from", json_string(l->from));
            json_object_set_new(o, "to", json_string(l->to));
            json_object_set_new(o, "class", json_string(l->cls));
            json_object_set_new(o, "bandwidth_GBps", json_real(l->bw_GBps));
            json_object_set_new(o, "bytes", json_integer((json_int_t)llround(l->bytes)));
            json_object_set_new(o, "busy_fraction", json_real(l->busy_fraction));
            json_object_set_new(o, "utilisation", json_real(l->utilisation));
            json_object_set_new(o, "peak_flows", json_integer(l->peak_flows));
            json_array_append_new(arr, o);
        }
        json_object_set_new(root, "links_size_bytes", json_integer((json_int_t)sw->links_size_bytes));
        json_object_set_new(root, "links", arr);
    }
    for (i = 0; i < sw->n_rows; i++) {
        const cs_row *r = &sw->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "size_bytes", json_integer((json_int_t)r->size_bytes));
        json_object_set_new(o, "count", json_integer((json_int_t)r->count));
        json_object_set_new(o, "time_us", json_real(r->time_us));
        json_object_set_new(o, "algbw_GBps", json_real(r->algbw_GBps));
        json_object_set_new(o, "busbw_GBps", json_real(r->busbw_GBps));
        json_object_set_new(o, "wrong", r->wrong < 0 ? json_null() : json_integer(r->wrong));
        json_object_set_new(o, "algorithm", json_string(r->algorithm ? r->algorithm : sw->algorithm));
        if (r->protocol)
            json_object_set_new(o, "protocol", json_string(r->protocol));
        if (r->channels > 0)
            json_object_set_new(o, "channels", json_integer(r->channels));
        if (r->has_closed_form)
            json_object_set_new(o, "closed_form_us", json_real(r->closed_form_us));
        json_array_append_new(rows, o);
    }
    json_object_set_new(root, "results", rows);
    json_object_set_new(root, "avg_busbw_GBps", json_real(cs_sweep_avg_busbw(sw)));
    return root;
}

/* Dump root (stolen) with full precision. */
static int dump_json(FILE *f, json_t *root)
{
    int rc;
    if (!root)
        return CS_ENOMEM;
    rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    fputc('\n', f);
    json_decref(root);
    return rc || ferror(f) ? CS_EIO : 0;
}

json_t *cs_json_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void cs_csv_field(FILE *f, const char *s)
{
    if (!s)
        s = "";
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int cs_report_json(FILE *f, const cs_sweep *sw)
{
    return dump_json(f, sweep_json(sw));
}

static int any_closed_form(const cs_sweep *sw, int n)
{
    int k, i;
    for (k = 0; k < n; k++)
        for (i = 0; i < sw[k].n_rows; i++)
            if (sw[k].rows[i].has_closed_form)
                return 1;
    return 0;
}

static void csv_header(FILE *f, int closed)
{
    fprintf(f, "collective,algorithm,ranks,topology,datatype,size_bytes,count,time_us,"
            "algbw_GBps,busbw_GBps,wrong%s\n", closed ? ",closed_form_us" : "");
}

static void csv_rows(FILE *f, const cs_sweep *sw, int closed)
{
    int i;
    for (i = 0; i < sw->n_rows; i++) {
        const cs_row *r = &sw->rows[i];
        cs_csv_field(f, cs_coll_name(sw->coll));
        fputc(',', f);
        cs_csv_field(f, r->algorithm ? r->algorithm : sw->algorithm);
        fprintf(f, ",%d,", sw->ranks);
        cs_csv_field(f, sw->topology);
        fputc(',', f);
        cs_csv_field(f, sw->datatype);
        fprintf(f, ",%llu,%llu,%.17g,%.17g,%.17g,", (unsigned long long)r->size_bytes,
                (unsigned long long)r->count, r->time_us, r->algbw_GBps, r->busbw_GBps);
        if (r->wrong >= 0)
            fprintf(f, "%d", r->wrong);
        if (closed && r->has_closed_form)
            fprintf(f, ",%.17g", r->closed_form_us);
        else if (closed)
            fprintf(f, ",");
        fprintf(f, "\n");
    }
}

int cs_report_csv(FILE *f, const cs_sweep *sw)
{
    int closed = any_closed_form(sw, 1);
    csv_header(f, closed);
    csv_rows(f, sw, closed);
    return ferror(f) ? CS_EIO : 0;
}

int cs_report_many(FILE *f, const char *format, const cs_sweep *sw, int n)
{
    int k, rc = 0;
    if (!strcmp(format, "json")) {
        json_t *arr;
        if (n == 1)
            return cs_report_json(f, sw);
        if (!(arr = json_array()))
            return CS_ENOMEM;
        for (k = 0; k < n; k++) {
            json_t *o = sweep_json(&sw[k]);
            if (!o || json_array_append_new(arr, o) < 0) {
                json_decref(arr);
                return CS_ENOMEM;
            }
        }
        return dump_json(f, arr);
    }
    if (!strcmp(format, "csv")) {
        int closed = any_closed_form(sw, n);
        csv_header(f, closed);
        for (k = 0; k < n; k++)
            csv_rows(f, &sw[k], closed);
        return ferror(f) ? CS_EIO : 0;
    }
    for (k = 0; k < n && rc == 0; k++)
        rc = cs_report_text(f, &sw[k]);
    return rc;
}

int cs_report_kinds(FILE *f, const char *format, const cs_sweep *sw, int n, int kinds)
{
    const cs_sweep **tab;
    int per, j, g, m, d, rc = 0;
    if (kinds <= 1 || n % kinds || strcmp(format, "text"))
        return cs_report_many(f, format, sw, n);
    per = n / kinds;
    if (!(tab = malloc((size_t)kinds * sizeof *tab)))
        return CS_ENOMEM;
    for (j = 0; j < per && rc == 0; j++) {
        for (g = m = 0; g < kinds; g++) {
            const cs_sweep *s = &sw[g * per + j];
            /* a collective that does not reduce runs once per type, whatever -o said */
            for (d = 0; d < m && (strcmp(tab[d]->datatype, s->datatype) ||
                                  strcmp(tab[d]->redop, s->redop)); d++)
                ;
            if (d == m)
                tab[m++] = s;
        }
        rc = cs_report_text_table(f, tab, m);
    }
    free(tab);
    return rc;
}

static const cs_dtype dtypes[] = {
    {"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8},
    {"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2}, {"fp8_e4m3", 1},
    {"fp8_e5m2", 1},
};

int cs_dtype_lookup(const char *name, cs_dtype *out, cs_err *err)
{
    char known[256] = "";
    size_t i;
    for (i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (!strcmp(name, dtypes[i].name)) {
            *out = dtypes[i];
            return 0;
        }
    for (i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, dtypes[i].name, sizeof known - strlen(known) - 1);
    }
    return cs_err_set(err, CS_EUSAGE, "-d", "unknown datatype '%s' (known: %s)", name, known);
}

const cs_dtype *cs_dtype_all(int *n)
{
    *n = (int)(sizeof dtypes / sizeof dtypes[0]);
    return dtypes;
}

static const char *const redops[] = {"sum", "prod", "max", "min", "avg", NULL};

const char *const *cs_redop_all(void)
{
    return redops;
}

int cs_redop_lookup(const char *name, const char **canon, cs_err *err)
{
    const char *const *ops = redops;
    size_t i;
    for (i = 0; i < 5; i++)
        if (!strcmp(name, ops[i])) {
            *canon = ops[i];
            return 0;
        }
    return cs_err_set(err, CS_EUSAGE, "-o", "unknown reduction '%s' (known: sum, prod, max, "
                      "min, avg)", name);
}

void cs_nccl_sizes(cs_coll c, int n, int elt, uint64_t size, uint64_t *count, uint64_t *S)
{
    uint64_t cnt = size / (uint64_t)elt, base;
    switch (c) {
    case CS_COLL_ALLGATHER:
    case CS_COLL_REDUCESCATTER:
    case CS_COLL_ALLTOALL:
    case CS_COLL_GATHER:
    case CS_COLL_SCATTER:
        /* Per-rank block, rounded down to a 16-byte multiple (nccl-tests *GetCollByteCount). */
        base = (cnt / (uint64_t)n) & ~(uint64_t)(16 / elt > 0 ? 16 / elt - 1 : 0);
        *count = base;
        *S = base * (uint64_t)n * (uint64_t)elt;
        break;
    case CS_COLL_BARRIER:
        *count = 0;
        *S = 0;
        break;
    default:
        *count = cnt;
        *S = cnt * (uint64_t)elt;
        break;
    }
}
