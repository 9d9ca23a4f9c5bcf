/* logenv.c: the NCCL settings of the runs a set of logs measured (calibration layer): taken
 * from each table (cs_log_table.nccl_env), refused where the tables disagree on one that
 * changes the simulation, applied to the NCCL parameters (algorithms/nccl/env.c), and
 * reported setting by setting: applied, overridden by an option, no effect on time, or not
 * modelled. */
#include "calibration/logsim.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The value a table's "NAME=VALUE" lines give name, copied into buf; NULL if none. */
static const char *value_of(const char *env, const char *name, char *buf, size_t n)
{
    size_t nl = strlen(name);
    const char *p = env;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > nl && !strncmp(p, name, nl) && p[nl] == '=') {
            snprintf(buf, n, "%.*s", (int)(len - nl - 1), p + nl + 1);
            return buf;
        }
        p += len + (e != NULL);
    }
    return NULL;
}

/* Add name=value to ls->env unless it is there. */
static int add(cs_lset *ls, const char *line, size_t len, cs_err *err)
{
    const char *eq = memchr(line, '=', len);
    cs_lenv *nv, *e;
    int i;
    if (!eq)
        return 0;
    for (i = 0; i < ls->n_env; i++)
        if (strlen(ls->env[i].name) == (size_t)(eq - line) &&
            !strncmp(ls->env[i].name, line, (size_t)(eq - line)))
            return 0;
    if (!(nv = realloc(ls->env, ((size_t)ls->n_env + 1) * sizeof *nv)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    ls->env = nv;
    e = &ls->env[ls->n_env];
    memset(e, 0, sizeof *e);
    e->name = strndup(line, (size_t)(eq - line));
    e->value = strndup(eq + 1, len - (size_t)(eq - line) - 1);
    if (!e->name || !e->value) {
        free(e->name);
        free(e->value);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    e->kind = cs_nccl_env_kind_of(e->name);
    ls->n_env++;
    return 0;
}

/* The table a row came from. */
static const cs_log_table *table_of(const cs_lset *ls, const cs_lrow *r)
{
    int k;
    for (k = 0; k < ls->n_logs; k++)
        if (ls->logs[k]->name == r->log)
            return &ls->logs[k]->tables[r->table];
    return NULL;
}

int cs_lset_env_apply(cs_lset *ls, const cs_topo *t, cs_nccl_params *np, const char *algo_opt,
                      const char *proto_opt, cs_err *err)
{
    const cs_log_table *first = NULL, *prev = NULL;
    const char *first_log = NULL;
    int i, k, rc;
    char a[256], b[256];
    /* every setting of every table with rows, in order */
    for (i = 0; i < ls->n_rows; i++) {
        const cs_log_table *tb = table_of(ls, &ls->rows[i]);
        const char *p;
        if (!tb || tb == prev)
            continue;
        prev = tb;
        if (tb->nccl_env_lost)
            return cs_err_set(err, CS_ENOMEM, ls->rows[i].log, "out of memory keeping the "
                              "run's NCCL settings");
        if (!first) {
            first = tb;
            first_log = ls->rows[i].log;
        }
        for (p = tb->nccl_env; p && *p;) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if ((rc = add(ls, p, len, err)) < 0)
                return rc;
            p += len + (e != NULL);
        }
    }
    /* a setting collsim applies must be the same in every table (absent = NCCL's default) */
    prev = NULL;
    for (i = 0; i < ls->n_rows; i++) {
        const cs_log_table *tb = table_of(ls, &ls->rows[i]);
        if (!tb || tb == prev || tb == first)
            continue;
        prev = tb;
        for (k = 0; k < ls->n_env; k++) {
            const char *va, *vb;
            if (ls->env[k].kind != CS_NCCL_ENV_APPLIED)
                continue;
            va = value_of(first->nccl_env, ls->env[k].name, a, sizeof a);
            vb = value_of(tb->nccl_env, ls->env[k].name, b, sizeof b);
            if ((va == NULL) != (vb == NULL) || (va && strcmp(va, vb)))
                return cs_err_set(err, CS_EINVAL, ls->rows[i].log, "its run states %s=%s where "
                                  "%s's states %s=%s: collsim runs one NCCL setting at a "
                                  "time, give these logs to separate commands",
                                  ls->env[k].name, vb ? vb : "(not set)", first_log,
                                  ls->env[k].name, va ? va : "(not set)");
        }
    }
    for (k = 0; k < ls->n_env; k++) {
        cs_lenv *e = &ls->env[k];
        int opt = !strcmp(e->name, "NCCL_ALGO") ? algo_opt && strcmp(algo_opt, "auto")
                  : !strcmp(e->name, "NCCL_PROTO") ? proto_opt && strcmp(proto_opt, "auto")
                                                   : 0;
        if (e->kind != CS_NCCL_ENV_APPLIED)
            continue;
        if (opt) {
            e->overridden = 1;
            snprintf(e->note, sizeof e->note, "%s given", !strcmp(e->name, "NCCL_ALGO")
                                                            ? "--algo" : "--proto");
            continue;
        }
        if ((rc = cs_nccl_env_apply(np, t, e->name, e->value, e->note, sizeof e->note,
                                    err)) < 0) {
            cs_err_prefix(err, first_log);
            return rc;
        }
        if (rc == 1)
            e->kind = CS_NCCL_ENV_NOT_MODELLED;     /* read, but a form not modelled */
    }
    return 0;
}

static const char *use_name(const cs_lenv *e)
{
    return e->overridden ? "overridden"
           : e->kind == CS_NCCL_ENV_APPLIED ? "applied"
           : e->kind == CS_NCCL_ENV_NO_EFFECT ? "no effect on time"
                                                : "not modelled";
}

int cs_lset_env_write(FILE *f, const cs_lset *ls, const char *prefix)
{
    static const char *const uses[] = {"applied", "overridden", "no effect on time",
                                       "not modelled"};
    int u, k, n;
    for (u = 0; u < 4; u++) {
        for (n = 0, k = 0; k < ls->n_env; k++) {
            const cs_lenv *e = &ls->env[k];
            if (strcmp(use_name(e), uses[u]))
                continue;
            if (n++)
                fputs(", ", f);
            else
                fprintf(f, "%sNCCL settings of the logs, %s: ", prefix, uses[u]);
            fprintf(f, "%s=%s", e->name, e->value);
            if (e->note[0])
                fprintf(f, " (%s)", e->note);
        }
        if (n)
            fputc('\n', f);
    }
    return ferror(f) ? CS_EIO : 0;
}

json_t *cs_lset_env_json(const cs_lset *ls)
{
    json_t *a = json_array();
    int k;
    for (k = 0; a && k < ls->n_env; k++) {
        json_t *o = json_object();
        if (!o || json_array_append_new(a, o) < 0) {
            json_decref(a);
            return NULL;
        }
        json_object_set_new(o, "name", json_string(ls->env[k].name));
        json_object_set_new(o, "value", json_string(ls->env[k].value));
        json_object_set_new(o, "use", json_string(use_name(&ls->env[k])));
        json_object_set_new(o, "note", json_string(ls->env[k].note));
    }
    return a;
}
