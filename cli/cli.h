/* cli.h: shared pieces of the collsim command (cli layer): the command table entry, the
 * option scanner, atomic output files, and where the shared commands write (cs_cli_io).
 * Only this layer prints and picks exit codes; the API (api/) runs its commands too. */
#ifndef CS_CLI_H
#define CS_CLI_H

#include <stdio.h>
#include "sim/err.h"
#include "sim/outfile.h"
#include "calibration/logsim.h"

/* Exit statuses (DESIGN §8): 0 ok, 1 error, 2 usage. */
#define CS_EXIT_OK 0
#define CS_EXIT_ERR 1
#define CS_EXIT_USAGE 2

/* A command: `collsim NAME ...`. argv[0] is the command name. Returns an exit status. */
struct cs_opt_spec;
typedef struct cs_cmd {
    const char *name;        /* "run", "list", ... */
    const char *summary;     /* one line for `collsim help` */
    int (*fn)(int argc, char **argv);
    int is_spread;           /* 1: every MPI rank runs it and shares the work (sim/par.h);
                                0: rank 0 runs it alone, the others exit 0 at once */
    const struct cs_opt_spec *opts;  /* its options, as its parser reads them (`collsim
                                help --options NAME` lists them for shell completion); NULL:
                                --help alone */
} cs_cmd;

/* Print `error: where: what` (or `error: what`) to stderr and return the exit status for
 * the code: CS_EXIT_USAGE for CS_EUSAGE, CS_EXIT_ERR otherwise. Under MPI rank 0 prints;
 * the other ranks only return the status. */
int cs_cli_fail(const cs_err *err);

/* Whether this process writes files and prints (rank 0 of an MPI run, or the only
 * process). The others compute their share and keep quiet: cs_out_open gives them stdout,
 * which sim/par.c sent to /dev/null, and commands skip their pictures there. */
int cs_cli_writes(void);

/* sim/par.h's progress function for `collsim`: a one-line display on stderr, cleared at
 * the end. main installs it when stderr is a terminal. */
void cs_cli_progress(const char *label, int done, int total, double elapsed_s, double left_s);

/* Option scanner over argv[first..argc): long options "--name VALUE" or "--name=VALUE",
 * short "-x VALUE" or "-xVALUE". Positional arguments are returned with name NULL. */
typedef struct cs_opt_scan {
    int argc;
    char **argv;
    int i;                   /* next argv index */
} cs_opt_scan;

typedef struct cs_opt_spec {
    const char *lng;         /* long name without dashes, e.g. "minbytes" */
    char shrt;               /* short letter, 0 if none */
    int has_arg;             /* takes a value */
    int id;                  /* caller's code for a switch (0 if unused) */
} cs_opt_spec;

/* Next option: returns 1 with *spec (NULL for a positional) and *val filled, 0 at the end,
 * or CS_EUSAGE with err filled (unknown option, missing value). */
int cs_opt_next(cs_opt_scan *sc, const cs_opt_spec *specs, const cs_opt_spec **spec,
                const char **val, cs_err *err);

/* Output to a file (sim/outfile.h: temporary then rename, devices in place) or to std
 * (the command's standard output, cs_cli_io.out; for "-" or NULL); commit makes it final (and reports a failed stdout write), abort removes
 * the temporary. Where cs_cli_writes() is 0 it is stdout (/dev/null). */
typedef struct cs_out {
    FILE *f;                 /* where to write */
    int is_file;             /* 1: file is open; 0: stdout */
    cs_outfile file;         /* the file when is_file */
} cs_out;
int cs_out_open(cs_out *o, FILE *std, const char *path, cs_err *err);
int cs_out_commit(cs_out *o, cs_err *err);
void cs_out_abort(cs_out *o);

/* The command's outputs are none of its inputs (sim/outfile.h cs_outfile_not_input): outs
 * holds n_outs pairs of option and path ({"--output", path, "--plot", NULL, ...}; NULL paths
 * are not asked for), ins n_ins input paths. 0 or CS_EUSAGE, before anything is written. */
int cs_cli_check_outputs(const char *const *outs, int n_outs, const char *const *ins, int n_ins,
                         cs_err *err);

/* --plot PATH: a picture type plots/ can write (.png, .svg, .pdf), else CS_EUSAGE naming
 * the option. NULL passes. */
int cs_cli_check_plot(const char *path, cs_err *err);
/* --format when given, else by --output's suffix (.json, .csv), else "text". */
const char *cs_cli_format_of(const char *format, const char *output);

/* What every command with a topology takes beside --topo: --nodes N (the cluster resized)
 * and --calibration FILE (a calibration's figures laid over it). */
typedef struct cs_topo_mods {
    const char *nodes;        /* --nodes N, NULL if not given */
    const char *cal;          /* --calibration FILE, NULL if not given */
} cs_topo_mods;
/* The two options' table entries, with the caller's ids. */
#define CS_TOPO_MOD_SPECS(nodes_id, cal_id) {"nodes", 0, 1, (nodes_id)}, \
    {"calibration", 0, 1, (cal_id)}
/* topo with the options applied, as cs_topo_spec_root reads it ("SPEC#nodes=N",
 * "SPEC#calibration=FILE"), written into buf (n bytes, the caller's, so calls in several
 * threads do not meet); topo itself when neither is given. NULL with err filled
 * (CS_EUSAGE) when N is not a count or the spec does not fit. */
#define CS_CLI_SPEC_MAX 8192
const char *cs_cli_spec(const char *topo, const cs_topo_mods *m, char *buf, size_t n,
                        cs_err *err);
/* The same on a plan's system.topo (a preset or file); an inline topology is CS_EUSAGE. */
struct cs_plan;
int cs_cli_plan_spec(struct cs_plan *p, const cs_topo_mods *m, cs_err *err);

/* The options of the commands that read logs (validate, calibrate): one table of ids, one
 * scanner; each command lists the options it takes in its own cs_opt_spec table. */
enum { CS_LOGCMD_TOPO = 900, CS_LOGCMD_FORMAT, CS_LOGCMD_ALGO, CS_LOGCMD_PROTO,
       CS_LOGCMD_OUTPUT, CS_LOGCMD_PLOT, CS_LOGCMD_FIX, CS_LOGCMD_ITER, CS_LOGCMD_HELP,
       CS_LOGCMD_THREADS, CS_LOGCMD_NODES, CS_LOGCMD_CAL };
typedef struct cs_logcmd {
    const char *topo;         /* --topo (with --nodes applied) */
    const char *format;       /* --format (validate), default "text" */
    const char *algo;         /* --algo, NULL = NCCL's choice */
    const char *proto;        /* --proto, NULL if not given */
    const char *output;       /* --output, NULL = stdout */
    const char *plot;         /* --plot FILE (validate), NULL if not asked */
    const char *fix;          /* --fix a,b (calibrate) */
    long max_iter;            /* --max-iter (calibrate), default 100 */
    int threads;              /* --threads N, 0 if not given (sim/pool.h's default) */
    cs_lset_opts ls;          /* which rows of the logs to take */
    char **logs;              /* the LOG... arguments (owned array, borrowed strings) */
    int n_logs;
    char topo_buf[CS_CLI_SPEC_MAX];  /* --topo resized by --nodes (topo points here) */
} cs_logcmd;
/* Scan argv with specs into o (logs included); usage() is printed for --help, which returns
 * 1. Returns 0, 1, or CS_EUSAGE/CS_ENOMEM with err filled. Free o->logs afterwards. */
int cs_logcmd_parse(int argc, char **argv, const cs_opt_spec *specs, void (*usage)(void),
                    cs_logcmd *o, cs_err *err);

/* The flags of a run's cost, energy and goodput (scenarios/budget.h), shared by plan and
 * compare: put CS_CLI_BUDGET_SPECS in the command's table and pass those ids to
 * cs_cli_budget_opt (budget.c). */
enum { CS_BUD_PRICE = 950, CS_BUD_TOKENS, CS_BUD_ENERGY, CS_BUD_GRID, CS_BUD_NODE_W, CS_BUD_PUE,
       CS_BUD_GOODPUT, CS_BUD_CKPT, CS_BUD_RESTART, CS_BUD_STRAGGLER,
       CS_BUD_LOSE, CS_BUD_FAILURES };
#define CS_CLI_BUDGET_SPECS                                                                 \
    {"price", 0, 1, CS_BUD_PRICE}, {"tokens", 0, 1, CS_BUD_TOKENS},                        \
    {"energy", 0, 0, CS_BUD_ENERGY}, {"grid-gCO2-per-kWh", 0, 1, CS_BUD_GRID},             \
    {"node-W", 0, 1, CS_BUD_NODE_W}, {"pue", 0, 1, CS_BUD_PUE},                            \
    {"goodput", 0, 0, CS_BUD_GOODPUT}, {"ckpt-GBps", 0, 1, CS_BUD_CKPT},                   \
    {"restart-s", 0, 1, CS_BUD_RESTART}, {"straggler", 0, 1, CS_BUD_STRAGGLER},  \
    {"lose-nodes", 0, 1, CS_BUD_LOSE}, {"failures", 0, 1, CS_BUD_FAILURES}
/* Is id one of those? */
#define CS_CLI_IS_BUDGET(id) ((id) >= CS_BUD_PRICE && (id) <= CS_BUD_FAILURES)
struct cs_budget_opts;
/* Apply budget flag id with value v (NULL for a switch) to o; --price takes one number
 * (price_list NULL) or, for compare, "P" or "NAME=P,..." kept in *price_list (borrowed).
 * 0 or CS_EUSAGE naming the flag. */
int cs_cli_budget_opt(struct cs_budget_opts *o, int id, const char *v, const char **price_list,
                      cs_err *err);

/* Write a report of n sweeps in format ("text", "json", "csv") to path (NULL or "-" =
 * std) through cs_out; the sweeps come as `kinds` blocks, one per data type x reduction
 * (sim/report.h cs_report_kinds: one text table for each). 0 or the error. */
struct cs_sweep;
int cs_cli_report(FILE *std, const char *path, const char *format, const struct cs_sweep *sw,
                  int n, int kinds, cs_err *err);
/* `collsim run --help` (cmd_run_print.c). */
void cs_cli_run_usage(void);
/* `collsim run` notes to note (stderr; NULL: none): sizes whose data check was skipped, a
 * 1-rank run. */
void cs_cli_run_notes(FILE *note, const struct cs_sweep *sw, int n, int check);

/* Where a command writes and how it fails, so the same command serves the collsim program
 * and the library API (api/collsim.h): the program gives stdout and stderr and prints the
 * error; the API gives a memory stream, no notes, and returns the error as a value. */
typedef struct cs_cli_io {
    FILE *out;               /* the command's standard output (results, reports) */
    FILE *note;              /* its notes, stderr in the program; NULL: dropped */
    cs_err err;              /* the error of a call that returned < 0 */
} cs_cli_io;
/* io for the program: stdout, stderr, no error. */
void cs_cli_io_std(cs_cli_io *io);
/* The exit status of a command that returned rc through io: the error printed when rc < 0
 * (cs_cli_fail), else CS_EXIT_OK. */
int cs_cli_status(cs_cli_io *io, int rc);
/* A shared command's failure: err copied into io->err; returns its code (< 0; CS_EINVAL
 * when err holds none). */
int cs_cli_error(cs_cli_io *io, const cs_err *err);
/* The commands the API shares with the program: the same parsing, library calls and output
 * as `collsim NAME ARGS...` (argv[0] is the name), written to io->out (notes to io->note).
 * 0 ok (also after --help printed the usage on stdout: the API never passes --help), or
 * < 0 with io->err filled. They print nothing else and never exit. cs_cmd_NAME is the
 * program's wrapper of each (io.c). */
int cs_cmd_run_io(cs_cli_io *io, int argc, char **argv);
int cs_cmd_validate_io(cs_cli_io *io, int argc, char **argv);
int cs_cmd_calibrate_io(cs_cli_io *io, int argc, char **argv);
int cs_cmd_explain_io(cs_cli_io *io, int argc, char **argv);
int cs_cmd_plan_io(cs_cli_io *io, int argc, char **argv);

/* Each command's option table (its parser's, in its cmd_*.c); plan search reads plan's. */
extern const cs_opt_spec cs_run_opts[], cs_validate_opts[], cs_calibrate_opts[],
    cs_explain_opts[], cs_topo_opts[], cs_topo_draw_opts[], cs_plan_opts[], cs_plan_logs_opts[], cs_plot_opts[],
    cs_compare_opts[];

/* Commands, one file each (cmd_*.c). */
int cs_cmd_run(int argc, char **argv);
/* `collsim all_reduce_perf ...` (any nccl-tests program): `run` with nccl-tests' rank count
 * under mpirun -np N, N x -g x -t ranks (-g 1 when not given), said in the header. */
int cs_cmd_run_nccl_tests(int argc, char **argv);
int cs_cmd_validate(int argc, char **argv);
int cs_cmd_calibrate(int argc, char **argv);
int cs_cmd_plot(int argc, char **argv);
int cs_cmd_list(int argc, char **argv);
int cs_cmd_topo(int argc, char **argv);
int cs_cmd_topo_draw(int argc, char **argv);   /* `collsim topo draw`, called by cs_cmd_topo */
int cs_cmd_topo_check(const char *spec);         /* `collsim topo check`, called by cs_cmd_topo */
/* topo show's additions (cmd_topo_about.c): the description and sources of spec, printed
 * to f or (json not NULL) set as keys of the JSON object; the ring of each of `channels`
 * channels on t (0: the topology's NCCL channel count, 1 on the bare fabric). */
struct json_t;
void cs_topo_show_about(FILE *f, const char *spec, struct json_t *json);
int cs_topo_show_rings(FILE *f, const cs_topo *t, const char *spec, long channels, cs_err *err);
int cs_cmd_explain(int argc, char **argv);
int cs_cmd_plan(int argc, char **argv);
int cs_cmd_compare(int argc, char **argv);

#endif
