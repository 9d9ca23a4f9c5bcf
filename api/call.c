/* call.c: collsim_call (api layer, collsim.h): a JSON request becomes the argv of the
 * command the program runs (cli.h cs_cmd_NAME_io), run into a memory stream; its output
 * becomes the JSON result, its error a JSON error. Nothing here simulates: the commands do. */
#include "api/collsim.h"
#include "api/api-private.h"
#include "cli/cli.h"

#include <gsl/gsl_errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CS_VERSION
#define CS_VERSION "unknown"    /* meson passes the project version */
#endif

/* What a command's output is as a result. */
enum { SHAPE_JSON, SHAPE_TEXT, SHAPE_CALIB };

/* A request's "command": the program's words, its function, what it prints; or a list. */
typedef struct api_cmd {
    const char *name;         /* "run", "plan_search", ... */
    const char *word, *sub;   /* `collsim WORD [SUB]`: "plan", "search" */
    int (*fn)(cs_cli_io *io, int argc, char **argv);
    int shape;                /* SHAPE_* of its output */
    const char *extra;        /* the option the API adds: JSON out, calibrate's report to io */
    int (*list)(json_t **out, cs_err *err);   /* a listing instead of a command */
} api_cmd;

static const api_cmd api_cmds[] = {
    {"run", "run", NULL, cs_cmd_run_io, SHAPE_JSON, "--format=json", NULL},
    {"explain", "explain", NULL, cs_cmd_explain_io, SHAPE_TEXT, NULL, NULL},
    {"validate", "validate", NULL, cs_cmd_validate_io, SHAPE_JSON, "--format=json", NULL},
    {"calibrate", "calibrate", NULL, cs_cmd_calibrate_io, SHAPE_CALIB, "--output=-", NULL},
    {"plan", "plan", NULL, cs_cmd_plan_io, SHAPE_JSON, "--format=json", NULL},
    {"plan_search", "plan", "search", cs_cmd_plan_io, SHAPE_JSON, "--format=json", NULL},
    {"topologies", NULL, NULL, NULL, SHAPE_JSON, NULL, cs__api_topologies},
    {"models", NULL, NULL, NULL, SHAPE_JSON, NULL, cs__api_models},
    {"gpus", NULL, NULL, NULL, SHAPE_JSON, NULL, cs__api_gpus},
};
#define N_API_CMDS ((int)(sizeof api_cmds / sizeof api_cmds[0]))

/* Options the API refuses: the result is the value, not a file or the help text. */
static const char *const refused[] = {"help", "format", "output", "output-file", "plot",
                                      "plot-breakdown", "trace", NULL};

static pthread_once_t gsl_once = PTHREAD_ONCE_INIT;
static void gsl_off(void) { gsl_set_error_handler_off(); }

const char *collsim_version(void) { return CS_VERSION; }

void collsim_free(char *result) { free(result); }

/* The argv of a request: the command word, SUB, args, flags, the extra option; every
 * string owned (argv_free). */
typedef struct api_argv {
    char **v;                 /* argv, NULL-terminated */
    int n;                    /* argc */
} api_argv;

static void argv_free(api_argv *a)
{
    int i;
    for (i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

static int argv_add(api_argv *a, const char *s, cs_err *err)
{
    if (!(a->v[a->n] = strdup(s)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    a->v[++a->n] = NULL;
    return 0;
}

/* One flag value as text: a string, an integer, a real at full precision. */
static int value_text(const json_t *v, char *buf, size_t n)
{
    if (json_is_string(v))
        return snprintf(buf, n, "%s", json_string_value(v)) < (int)n ? 0 : -1;
    if (json_is_integer(v))
        return snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < (int)n ? 0 : -1;
    if (json_is_real(v))
        return snprintf(buf, n, "%.17g", json_real_value(v)) < (int)n ? 0 : -1;
    return -1;
}

/* --name=VALUE for one flag (name with '_' as '-'); true: --name; false, null: nothing. */
static int add_flag(api_argv *a, const char *key, const json_t *v, cs_err *err)
{
    char name[128], opt[8192];
    size_t i, len = strlen(key), at;
    int k;
    if (len == 0 || len >= sizeof name)
        return cs_err_set(err, CS_EUSAGE, "flags", "bad option name '%s'", key);
    for (i = 0; i <= len; i++)
        name[i] = key[i] == '_' ? '-' : key[i];
    for (k = 0; refused[k]; k++)
        if (!strcmp(name, refused[k])) {
            snprintf(opt, sizeof opt, "--%s", name);
            return cs_err_set(err, CS_EUSAGE, opt, "not taken by the library: the result is "
                              "returned as a value (write files with the collsim command)");
        }
    if (json_is_false(v) || json_is_null(v))
        return 0;
    at = (size_t)snprintf(opt, sizeof opt, "--%s", name);
    if (json_is_true(v))
        return argv_add(a, opt, err);
    opt[at++] = '=';
    if (json_is_array(v)) {
        size_t j;
        json_t *x;
        json_array_foreach(v, j, x) {
            if (j && at + 1 < sizeof opt)
                opt[at++] = ',';
            if (at >= sizeof opt || value_text(x, opt + at, sizeof opt - at) < 0)
                return cs_err_set(err, CS_EUSAGE, "flags", "%s: a list of strings and "
                                  "numbers expected", key);
            at += strlen(opt + at);
        }
        opt[at] = '\0';
    } else if (value_text(v, opt + at, sizeof opt - at) < 0) {
        return cs_err_set(err, CS_EUSAGE, "flags", "%s: a string, number, boolean or list "
                          "expected (a topology or plan as a dict: pass a file)", key);
    }
    return argv_add(a, opt, err);
}

/* The command's argv from the request. */
static int build_argv(const api_cmd *c, const json_t *req, api_argv *a, cs_err *err)
{
    json_t *args = json_object_get(req, "args"), *flags = json_object_get(req, "flags");
    const char *key;
    json_t *v;
    size_t i, n = 4 + json_array_size(args) + json_object_size(flags);
    int rc;
    if ((args && !json_is_array(args)) || (flags && !json_is_object(flags)))
        return cs_err_set(err, CS_EUSAGE, args && !json_is_array(args) ? "args" : "flags",
                          "%s expected", args && !json_is_array(args) ? "a list" : "an object");
    if (!(a->v = calloc(n + 1, sizeof *a->v)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if ((rc = argv_add(a, c->word, err)) < 0 || (c->sub && (rc = argv_add(a, c->sub, err)) < 0))
        return rc;
    json_array_foreach(args, i, v) {
        if (!json_is_string(v))
            return cs_err_set(err, CS_EUSAGE, "args", "strings expected, got a %s at %zu",
                              json_is_number(v) ? "number" : "non-string", i);
        if (json_string_value(v)[0] == '-' && json_string_value(v)[1])
            return cs_err_set(err, CS_EUSAGE, "args", "'%s' looks like an option: give "
                              "options as flags", json_string_value(v));
        if ((rc = argv_add(a, json_string_value(v), err)) < 0)
            return rc;
    }
    json_object_foreach(flags, key, v)
        if ((rc = add_flag(a, key, v, err)) < 0)
            return rc;
    return c->extra ? argv_add(a, c->extra, err) : 0;
}

/* The result of a command's output text (len bytes) in its shape. */
static int shape_output(const api_cmd *c, const char *text, size_t len, json_t **out,
                        cs_err *err)
{
    json_error_t je;
    json_t *topo;
    if (c->shape == SHAPE_TEXT) {
        *out = json_pack("{s:s%}", "text", text, len);
    } else if (c->shape == SHAPE_JSON) {
        if (!(*out = json_loadb(text, len, 0, &je)))
            return cs_err_set(err, CS_EINVAL, c->name, "the command's output is not JSON: %s",
                              je.text);
    } else {
        /* calibrate --output -: the topology, then the report */
        if (!(topo = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &je)))
            return cs_err_set(err, CS_EINVAL, c->name, "the calibrated topology is not "
                              "JSON: %s", je.text);
        while (je.position < (int)len && text[je.position] == '\n')
            je.position++;
        *out = json_pack("{s:o, s:s%}", "topology", topo, "report", text + je.position,
                         len - (size_t)je.position);
    }
    return *out ? 0 : cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
}

/* Run the request into *out. */
static int call(const char *request, json_t **out, cs_err *err)
{
    json_error_t je;
    json_t *req;
    const char *name;
    const api_cmd *c = NULL;
    api_argv a = {NULL, 0};
    cs_cli_io io;
    char *text = NULL;
    size_t len = 0;
    int i, rc;
    if (!request)
        return cs_err_set(err, CS_EUSAGE, "request", "NULL");
    if (!(req = json_loads(request, 0, &je)))
        return cs_err_set(err, CS_EPARSE, "request", "%d:%d: %s", je.line, je.column, je.text);
    name = json_string_value(json_object_get(req, "command"));
    for (i = 0; name && i < N_API_CMDS; i++)
        if (!strcmp(name, api_cmds[i].name))
            c = &api_cmds[i];
    if (!c) {
        rc = cs_err_set(err, CS_EUSAGE, "command", "unknown command '%s' (known: run, explain, "
                        "validate, calibrate, plan, plan_search, topologies, models, gpus)",
                        name ? name : "");
    } else if (c->list) {
        rc = c->list(out, err);
    } else if ((rc = build_argv(c, req, &a, err)) == 0) {
        cs_err_clear(&io.err);
        io.note = NULL;
        if (!(io.out = open_memstream(&text, &len))) {
            rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        } else {
            rc = c->fn(&io, a.n, a.v);
            if (fclose(io.out) != 0 && rc >= 0)
                rc = cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
            else if (rc < 0)
                *err = io.err;
            else
                rc = shape_output(c, text ? text : "", len, out, err);
        }
    }
    free(text);
    argv_free(&a);
    json_decref(req);
    return rc;
}

int collsim_call(const char *request, char **result)
{
    cs_err err;
    json_t *out = NULL;
    int rc;
    pthread_once(&gsl_once, gsl_off);
    cs_err_clear(&err);
    if ((rc = call(request, &out, &err)) < 0) {
        json_decref(out);
        if (err.code >= 0)
            err.code = rc;
        out = json_pack("{s:{s:i, s:s, s:s, s:s, s:i}}", "error", "code", err.code, "name",
                        cs_err_name(err.code), "where", err.where, "message", err.msg,
                        "exit_status", err.code == CS_EUSAGE ? CS_EXIT_USAGE : CS_EXIT_ERR);
    }
    *result = out ? json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(out);
    if (!*result && rc == 0)
        rc = CS_ENOMEM;
    return rc;
}
