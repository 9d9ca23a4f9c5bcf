/* logparse.h: readers for measured collective benchmarks (core layer): nccl-tests and
 * rccl-tests text output in every shape seen in published logs, nccl-tests JSON (-J), and
 * Ascend hccl_test output. The result is plain data: a log holds one or more tables, each
 * with the collective, ranks, nodes, device model and its rows. Units as nccl-tests prints
 * them: bytes, microseconds, GB/s (1 GB = 1e9 bytes). */
#ifndef CS_LOGPARSE_H
#define CS_LOGPARSE_H

#include <stddef.h>
#include <stdint.h>
#include "sim/err.h"
#include "sim/sched.h"

/* Marks a collective the log does not name and the caller gave no default for. */
#define CS_LOG_COLL_UNKNOWN CS_COLL_COUNT

/* Which format a log was read as. */
typedef enum cs_log_format {
    CS_LOG_NCCL_TEXT,    /* nccl-tests / rccl-tests text tables */
    CS_LOG_NCCL_JSON,    /* nccl-tests JSON (-J) */
    CS_LOG_HCCL_TEXT     /* Ascend hccl_test text output */
} cs_log_format;

/* Where a table's rank count came from, most trusted first. */
typedef enum cs_log_src {
    CS_LOG_SRC_NONE,     /* unknown (value 0) */
    CS_LOG_SRC_DEVICES,  /* the "# Using devices" list (or JSON devices) */
    CS_LOG_SRC_CMDLINE,  /* the command line: mpirun -np / srun -n / -g, nGpus, -H, -N */
    CS_LOG_SRC_BUSBW,    /* the busbw/algbw ratio and the collective's factor */
    CS_LOG_SRC_BANNER,   /* a section banner such as "====== 2-node ======" */
    CS_LOG_SRC_DEFAULT   /* the caller's default (cs_log_opts) */
} cs_log_src;

/* One measured size. Missing values (N/A, absent columns) are NAN; wrong counts -1. */
typedef struct cs_log_row {
    uint64_t size_bytes;     /* S as the test prints it (DESIGN §3), bytes */
    uint64_t count;          /* elements as printed (per rank, nccl-tests meaning) */
    char type[16];           /* data type as printed: "float", "half", "fp32" ... */
    char redop[16];          /* reduction as printed: "sum", "none" ... ("" if absent) */
    int root;                /* root as printed, -1 when not rooted */
    double time_us;          /* the measured time: out-of-place, or in-place when the
                                out-of-place time is missing, microseconds */
    double oop_time_us;      /* out-of-place time, microseconds (NAN if missing) */
    double oop_algbw_GBps;   /* out-of-place algbw as printed, GB/s (NAN if missing) */
    double oop_busbw_GBps;   /* out-of-place busbw as printed, GB/s (NAN if missing) */
    double ip_time_us;       /* in-place time, microseconds (NAN if missing) */
    double ip_algbw_GBps;    /* in-place algbw, GB/s (NAN if missing) */
    double ip_busbw_GBps;    /* in-place busbw, GB/s (NAN if missing) */
    int oop_wrong, ip_wrong; /* #wrong as printed, -1 for N/A or missing */
    int line;                /* 1-based line of the row in the file (0 for JSON) */
} cs_log_row;

/* One table: a run of one collective on one set of ranks. */
typedef struct cs_log_table {
    cs_coll coll;            /* collective, CS_LOG_COLL_UNKNOWN if unknown */
    int coll_from_log;       /* 1 if the log named the collective, 0 if it is the default */
    int ranks;               /* ranks in the run, 0 if unknown */
    cs_log_src ranks_src;    /* where ranks came from */
    int nodes;               /* distinct hosts, 0 if unknown */
    cs_log_src nodes_src;    /* where nodes came from */
    char device[96];         /* device model of rank 0 ("NVIDIA H100 80GB HBM3"), "" if
                                unknown */
    int first_line;          /* 1-based line of the table's first row (0 for JSON) */
    int64_t ranks_claimed;   /* ranks the command line or header claims when that is more
                                than CS_LIMIT_MAX_RANKS (the parse then fails), else 0 */
    cs_log_row *rows;        /* rows in file order (owned) */
    int n_rows, cap_rows;
    char *nccl_env;          /* the NCCL settings the run states (owned), NULL if none:
                                "NAME=VALUE" lines, each name once (its last value), in the
                                order first seen: NCCL_* / RCCL_* tokens of its command line
                                (mpirun -x, env, export lines) and "NCCL INFO NAME set by
                                environment to VALUE" lines */
    int nccl_env_lost;       /* 1: the settings could not be kept (out of memory): a
                                command must refuse the table rather than run without */
} cs_log_table;

/* A parsed log file. */
typedef struct cs_log {
    char *name;              /* path or name given to the parser, for messages (owned) */
    cs_log_format format;    /* format it was read as */
    cs_log_table *tables;    /* tables in file order (owned), n_tables >= 1 */
    int n_tables, cap_tables;
} cs_log;

/* What the caller knows that a log may not say. */
typedef struct cs_log_opts {
    cs_coll default_coll;    /* collective when the log names none (CS_LOG_COLL_UNKNOWN
                                = none) */
    int default_ranks;       /* ranks when nothing in the log tells (0 = none) */
} cs_log_opts;

/* Defaults: no collective, no ranks. */
void cs_log_opts_init(cs_log_opts *o);

/* Parse a log held in memory (len bytes, need not be NUL-terminated). name is used in
 * messages ("x.log:14: expected 13 columns, got 7"). The format is detected from the
 * content. opts may be NULL. On success *out owns a log with at least one table holding at
 * least one row. Errors (err->where = "name:line" or "name"):
 *   CS_EPARSE  empty, binary, truncated or unreadable content, a row with the wrong number
 *              of columns or a non-number where a number belongs, no rows at all;
 *   CS_ENOMEM. */
int cs_log_parse_mem(const char *name, const char *buf, size_t len, const cs_log_opts *opts,
                     cs_log **out, cs_err *err);
/* Read and parse a file; CS_EIO if it cannot be read. */
int cs_log_parse_file(const char *path, const cs_log_opts *opts, cs_log **out, cs_err *err);
/* Free a log. NULL-safe. */
void cs_log_free(cs_log *log);

/* Total rows over all tables. */
int cs_log_n_rows(const cs_log *log);
/* Name of a format ("nccl-tests text") and of a source ("devices"), for reports. */
const char *cs_log_format_name(cs_log_format f);
const char *cs_log_src_name(cs_log_src s);

/* Collective from an nccl-tests / rccl-tests / hccl_test program name such as
 * "all_reduce_perf", "./build/alltoall_perf", "all_gather", "reduce_scatter_test".
 * Returns 0 and fills *out, or CS_ENOENT. */
int cs_log_coll_from_program(const char *prog, cs_coll *out);

/* Ranks from the busbw/algbw ratio of rows printed with 2 decimals (nccl-tests): the one
 * n whose busbw factor fits every row with algbw >= 1 GB/s within print rounding, or 0 if
 * none or several fit (factor 1 collectives never tell). */
int cs_log_ranks_from_busbw(cs_coll coll, const cs_log_row *rows, int n_rows);

#endif
