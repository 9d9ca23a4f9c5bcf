/* logparse-private.h: pieces shared by the log readers (calibration layer, logparse*.c only):
 * what a run's preamble says (command line, device list), line splitting, tokens, and
 * building tables. */
#ifndef CS_LOGPARSE_PRIVATE_H
#define CS_LOGPARSE_PRIVATE_H

#include <stddef.h>
#include "calibration/logparse.h"

#define CS__LOG_MAX_TOKENS 64

/* What the lines before a table said about the run. Zero means unknown. */
typedef struct cs__log_meta {
    int has_coll;            /* the log named the collective */
    cs_coll coll;            /* that collective */
    int has_cmd;             /* a command line naming the test program was seen */
    int has_launcher;        /* the command line had mpirun/srun/...: ranks = processes */
    int np;                  /* processes from the launcher (-np, -n, --ntasks) */
    int gpus;                /* GPUs per process from the command line (-g) */
    int threads;             /* threads per process from the command line (-t) */
    int hdr_gpus;            /* nGpus of the "# nThread T nGpus G" line */
    int hdr_threads;         /* nThread of that line */
    int cmd_nodes;           /* nodes from the launcher (srun -N, -H host list, --nodes) */
    int cmd_ppn;             /* processes per node (-npernode, --ntasks-per-node, -H h:k,
                                hccl_test -p) */
    int banner_nodes;        /* nodes from a "====== N-node ======" banner */
    int dev_ranks;           /* highest rank in the device list + 1 */
    int dev_lines;           /* device lines seen */
    char **hosts;            /* distinct host names of the device list (owned) */
    int *host_ranks;         /* device lines per host */
    int n_hosts, cap_hosts;
    char device[96];         /* device model of the lowest rank listed */
    int device_rank;         /* that rank (INT_MAX before the first) */
    char dtype[16];          /* hccl_test -d data type, "" if none */
    char redop[16];          /* hccl_test -o reduction, "" if none */
    char *env;               /* NCCL settings stated so far (owned; cs_log_table.nccl_env) */
    int env_lost;            /* out of memory while keeping them */
} cs__log_meta;

void cs__log_meta_init(cs__log_meta *m);
void cs__log_meta_fini(cs__log_meta *m);
/* Forget everything (a new run starts). */
void cs__log_meta_reset(cs__log_meta *m);
/* Record one device of the list: rank, host and model (model may be NULL). */
int cs__log_meta_device(cs__log_meta *m, int rank, const char *host, const char *model);
/* Read a (joined) command line: the program name gives the collective, launcher options
 * before it the processes and nodes, test options after it -g and -t (or hccl_test's -d,
 * -o, -p). Returns 1 if it named a test program, 0 if it is not a command line, CS_ENOMEM. */
int cs__log_meta_command(cs__log_meta *m, const char *line);

/* The NCCL settings of a line (logparse_env.c): every NCCL_NAME=VALUE or RCCL_NAME=VALUE
 * token (a launcher's -x, an env or export prefix; quotes around the value dropped) is
 * recorded, a name given again taking its new value (m NULL: only counted). Returns the
 * number found. */
int cs__log_meta_env_line(cs__log_meta *m, const char *line);
/* "... NCCL INFO NCCL_NAME set by environment to VALUE": recorded; 1 if the line is one. */
int cs__log_meta_env_info(cs__log_meta *m, const char *line);

/* The collective of a test program name (a path is allowed; logparse.c). strict: a name
 * without a _perf/_test suffix counts only when unambiguous (has an underscore or is
 * "alltoall"). Returns 0 or CS_ENOENT. */
int cs__log_coll_from_program(const char *prog, int strict, cs_coll *out);

/* Split s (modified in place) at whitespace and at any character of extra_seps (may be
 * NULL); returns the token count (at most max). */
int cs__log_split(char *s, const char *extra_seps, char **tok, int max);

/* Tokens cs__log_split would find in s, without a cap and without changing s. */
int cs__log_count(const char *s, const char *extra_seps);

/* Numbers of a row: strict decimal integer / real, or "N/A" (returns 1 with NAN / -1). */
int cs__log_uint(const char *s, uint64_t *out);
int cs__log_int(const char *s, long *out);
int cs__log_real(const char *s, double *out);   /* accepts N/A as NAN */

/* A new empty table at the end of log (returned), or NULL on allocation failure. */
cs_log_table *cs__log_add_table(cs_log *log, const cs_log_opts *opts);
/* Append a row (copied). 0 or CS_ENOMEM. */
int cs__log_add_row(cs_log_table *t, const cs_log_row *row);
/* A row with every measurement missing (NAN, wrong -1). */
void cs__log_row_init(cs_log_row *r);
/* Fill a table's collective, ranks, nodes and device from what the run said. */
void cs__log_table_finish(cs_log_table *t, const cs__log_meta *m, const cs_log_opts *opts);

/* The readers. They append tables to log and return 0 or a negative code with err set
 * (where = "name:line"). buf is NUL-terminated text of len bytes. */
int cs__log_read_nccl_text(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                           cs_err *err);
int cs__log_read_hccl_text(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                           cs_err *err);
int cs__log_read_json(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                      cs_err *err);

#endif
