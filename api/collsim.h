/* collsim.h: collsim as a library (api layer, libcollsim.so): one request in as JSON, one
 * result out as JSON. The request runs the same command code as the collsim program
 * (cli/: the same option parsing, library calls and JSON), so a result is what
 * `collsim COMMAND ... --format json` prints, and an error carries the message the program
 * prints. Stable: new commands and keys may be added, none removed.
 *
 * Request (a JSON object):
 *   {"command": "run", "args": ["allreduce"], "flags": {"topo": "dgx-h100", "minbytes": "1G"}}
 *   command  run, explain, validate, calibrate, plan, plan_search (`collsim plan search`),
 *            topologies, models, gpus
 *   args     the positional arguments (strings): the collective, LOG files, PLAN.json
 *   flags    the command's long options without "--": a string or number is the value
 *            (--name=VALUE), true is a switch (--links), false and null are left out, an
 *            array is joined with commas (--algo ring,tree). '_' in a name is '-'
 *            (max_iter is --max-iter). Options that write files (output, output_file, plot,
 *            plot_breakdown, trace), format and help are refused: the result is the value.
 * Result, by command:
 *   run, validate, plan, plan_search  the command's --format json output (an object, or an
 *                                     array for several sweeps)
 *   explain     {"text": the command's output} (explain has no JSON form)
 *   calibrate   {"topology": the calibrated topology, "report": the fit report's text}
 *   topologies  {"default", "presets": [{name, kind, ranks, description}],
 *                "kinds": [{name, summary}]}
 *   models, gpus  [{name, description, "preset": the preset's JSON}]
 * Error: {"error": {"code": -7, "name": "CS_EUSAGE", "where": "-b", "message": "...",
 *         "exit_status": 2}}: code a CS_E* (sim/err.h), exit_status the program's (1 or 2).
 *
 * Calls may run in several threads at once; nothing is printed, nothing exits, no signal
 * handler is installed. The first call turns GSL's abort-on-error handler off for the
 * process (as the program's main does). Deterministic: the same request, the same bytes. */
#ifndef COLLSIM_H
#define COLLSIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Run request (NUL-terminated JSON). *result gets the result or the error object as JSON
 * text (malloc'd; free with collsim_free), or NULL when not even that could be allocated.
 * Returns 0, or the error's negative code. */
int collsim_call(const char *request, char **result);

/* Free a result of collsim_call (NULL is fine). */
void collsim_free(char *result);

/* The library's version, "0.1.0" (the program's --version). */
const char *collsim_version(void);

#ifdef __cplusplus
}
#endif

#endif
