/* report.h: results of a size sweep and their printers (core layer): the nccl-tests text
 * table, JSON and CSV (DESIGN §7, contract). Printers write to a FILE the caller opened;
 * the command writes to a temporary file and renames it so no half file is ever left. */
#ifndef CS_REPORT_H
#define CS_REPORT_H

#include <stdio.h>
#include <stdint.h>
#include "sim/sched.h"

/* One size of a sweep. */
typedef struct cs_row {
    uint64_t size_bytes;     /* S as nccl-tests prints it (DESIGN §3), bytes */
    uint64_t count;          /* elements per rank as nccl-tests prints it */
    double time_us;          /* simulated time of one operation, microseconds */
    double algbw_GBps;       /* S / time, GB/s */
    double busbw_GBps;       /* algbw x nccl-tests factor, GB/s */
    int wrong;               /* #wrong, -1 when the data check was skipped (N/A) */
    const char *algorithm;   /* algorithm that ran at this size (static string) */
    const char *protocol;    /* protocol in NCCL mode, NULL otherwise (static string) */
    int channels;            /* channels used in NCCL mode, 0 otherwise */
    int has_closed_form;     /* 1: closed_form_us holds the algorithm's exact closed form */
    double closed_form_us;   /* the closed form on the alpha_beta fabric, microseconds (bare
                                fabric only, and only where the formula is exact) */
} cs_row;

/* One busy directed link of a --links report. */
typedef struct cs_link_report {
    const char *from, *to;   /* node names (borrowed from the topology) */
    const char *cls;         /* link class */
    double bw_GBps;          /* capacity per direction, GB/s */
    double bytes;            /* bytes carried in this direction */
    double busy_fraction;    /* time with at least one flow / collective time */
    double utilisation;      /* bytes / (capacity x collective time), 0..1 */
    int peak_flows;          /* most flows at once */
} cs_link_report;
#define CS_SWEEP_MAX_LINKS 8

/* A sweep: what was run and one row per size. */
typedef struct cs_sweep {
    cs_coll coll;            /* collective */
    const char *algorithm;   /* requested algorithm ("ring", "auto", ...) */
    const char *topology;    /* topology name (preset or file) */
    const char *topo_kind;   /* topology kind */
    const char *datatype;    /* "float", ... */
    const char *redop;       /* "sum", ... */
    int ranks;               /* ranks in the collective */
    int root;                /* root, -1 printed for non-rooted collectives */
    int chunks;              /* --chunks */
    int procs;               /* nccl-tests' multi-process form (mpirun -np N all_reduce_perf):
                                N processes, each of ranks / (procs x threads) GPUs; 0 when
                                the rank count was not counted that way (no header line) */
    int threads;             /* with procs: threads per process (nccl-tests -t), >= 1 */
    const char *model;       /* network model summary line for the table header */
    const char *settings;    /* where NCCL mode's settings came from (each level of the
                                topology's "nccl" object, what was derived), NULL if none */
    const char *bottleneck;  /* bottleneck link description, NULL if not computed */
    cs_link_report links[CS_SWEEP_MAX_LINKS];  /* --links: busiest links, busiest first */
    int n_links;             /* entries in links (0 = not reported) */
    uint64_t links_size_bytes; /* the size the links were measured at */
    cs_row *rows;            /* rows (owned) */
    int n_rows, cap_rows;
} cs_sweep;

/* Append a row (copied), filling algbw and busbw from size and time. 0 or CS_ENOMEM. */
int cs_sweep_add(cs_sweep *sw, const cs_row *row);
void cs_sweep_fini(cs_sweep *sw);
/* Mean busbw over all rows (nccl-tests averages out-of-place and in-place, which are
 * equal here). 0 for an empty sweep. */
double cs_sweep_avg_busbw(const cs_sweep *sw);

/* Fill algbw/busbw of a row from coll, ranks, size and time. */
void cs_row_bandwidths(cs_row *row, cs_coll coll, int ranks);

/* Printers. They return 0 or CS_EIO if writing failed. JSON and CSV rows carry
 * "closed_form_us" where a row has one (CSV: a last column when any row has one). */
int cs_report_text(FILE *f, const cs_sweep *sw);
/* One nccl-tests table of n >= 1 sweeps of the same collective, rank count and algorithm
 * (-d all, -o all), as nccl-tests prints one: the first sweep's header (an algorithm line
 * per sweep when theirs differ, labelled by type and op), one column header, every sweep's
 * rows in order, one "Out of bounds" and one "Avg bus bandwidth" line over all rows. */
int cs_report_text_table(FILE *f, const cs_sweep *const *sw, int n);
int cs_report_json(FILE *f, const cs_sweep *sw);
/* A JSON number, or null when v is not finite (json_real refuses inf and NaN, and
 * json_object_set_new would then drop the key silently). Returns a new reference. */
struct json_t *cs_json_num(double v);
/* Write one CSV field, quoted as RFC 4180 asks when it holds a comma, a double quote or a
 * line break (quotes doubled inside). */
void cs_csv_field(FILE *f, const char *s);
int cs_report_csv(FILE *f, const cs_sweep *sw);
/* Several sweeps (a sweep over rank counts or algorithms), by format "text", "json" or
 * "csv": text tables one after another; JSON the single-sweep object when n == 1, else an
 * array of them (each has its "ranks"); CSV one header, then every sweep's rows. */
int cs_report_many(FILE *f, const char *format, const cs_sweep *sw, int n);
/* cs_report_many for sweeps that come as `kinds` blocks of n / kinds, one block per data
 * type x reduction (algorithms/run_multi.h): text prints table j of sweep j of every block
 * (cs_report_text_table; a block repeating an earlier one's type and op, a collective that
 * does not reduce, is left out); JSON and CSV as cs_report_many. */
int cs_report_kinds(FILE *f, const char *format, const cs_sweep *sw, int n, int kinds);

/* Data types as nccl-tests names them: name and element size in bytes. */
typedef struct cs_dtype { const char *name; int bytes; } cs_dtype;
/* Lookup "float", "half", "bfloat16", "double", "int8", ...; CS_ENOENT with the list. */
int cs_dtype_lookup(const char *name, cs_dtype *out, cs_err *err);
/* Every data type, in nccl-tests' order (for -d all); *n gets the count. */
const cs_dtype *cs_dtype_all(int *n);
/* Reduction ops as nccl-tests names them: sum, prod, max, min, avg. */
int cs_redop_lookup(const char *name, const char **canon, cs_err *err);
/* Every reduction op, NULL-terminated (for -o all). */
const char *const *cs_redop_all(void);

/* nccl-tests size arithmetic: for a sweep value `size`, the per-rank count and the S that
 * nccl-tests prints for collective c on n ranks with elements of elt bytes
 * (allgather/reducescatter/alltoall/gather/scatter round the per-rank block down to a
 * 16-byte multiple... see models.md §1.3). */
void cs_nccl_sizes(cs_coll c, int n, int elt, uint64_t size, uint64_t *count, uint64_t *S);

#endif
