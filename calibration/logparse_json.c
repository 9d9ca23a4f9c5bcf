/* logparse_json.c: the nccl-tests JSON reader (core layer).
 *
 * Assumed format (nccl-tests -J; no published sample was at hand, so the reader is
 * tolerant): a run object, or an array of run objects. A run has a "results" (or "rows")
 * array and optionally the program or collective ("collective", "test", "name",
 * "program": "all_reduce_perf" or "allreduce"), the rank count ("nranks", "nRanks",
 * "ranks", "world_size") and a "devices" array of {"rank", "hostname"|"host",
 * "name"|"device"|"model"}. A result has "size" (or "size_bytes"), "count", "type"
 * (or "datatype"), "redop" (or "op"), "root", and its measurements either nested as
 * "out_of_place"/"in_place" (also "outOfPlace"/"inPlace") objects of
 * {"time", "algbw", "busbw", "wrong"} or flat at the result's top level ("time" or
 * "time_us", "algbw" or "algbw_GBps", "busbw" or "busbw_GBps", "wrong"). Numbers may be
 * null or "N/A". collsim's own --format json output reads back the same way. */
#include "calibration/logparse.h"
#include "calibration/logparse-private.h"
#include "sim/limits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

/* The first of several alternative keys that is present. */
static json_t *get_any(json_t *obj, const char *const *keys)
{
    json_t *v;
    for (; *keys; keys++)
        if ((v = json_object_get(obj, *keys)))
            return v;
    return NULL;
}

static int json_err(cs_err *err, const char *name, const char *path, const char *what)
{
    char where[512];
    snprintf(where, sizeof where, "%.200s: %.300s", name, path);
    return cs_err_set(err, CS_EPARSE, where, "%s", what);
}

/* A measurement: number, null, "N/A" or absent -> NAN. Returns 0 or -1 for a bad type. */
static int get_real(json_t *obj, const char *const *keys, double *out)
{
    json_t *v = obj ? get_any(obj, keys) : NULL;
    *out = NAN;
    if (!v || json_is_null(v))
        return 0;
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return *out >= 0 ? 0 : -1;
    }
    if (json_is_string(v) && (!strcmp(json_string_value(v), "N/A") ||
                              !strcmp(json_string_value(v), "n/a")))
        return 0;
    return -1;
}

static void get_str(json_t *obj, const char *const *keys, char *out, size_t len)
{
    json_t *v = get_any(obj, keys);
    if (v && json_is_string(v))
        snprintf(out, len, "%s", json_string_value(v));
}

static const char *const k_time[] = {"time", "time_us", NULL};
static const char *const k_algbw[] = {"algbw", "algbw_GBps", NULL};
static const char *const k_busbw[] = {"busbw", "busbw_GBps", NULL};
static const char *const k_wrong[] = {"wrong", "#wrong", NULL};
static const char *const k_oop[] = {"out_of_place", "outOfPlace", "oop", NULL};
static const char *const k_ip[] = {"in_place", "inPlace", "ip", NULL};

/* One half of a result: nested object, or (out-of-place only) the result itself. */
static int read_half(json_t *res, int in_place, double *t, double *a, double *b, int *w)
{
    json_t *h = get_any(res, in_place ? k_ip : k_oop), *wv;
    if (!h && !in_place)
        h = res;
    if (!h || !json_is_object(h)) {
        *t = *a = *b = NAN;
        *w = -1;
        return 0;
    }
    if (get_real(h, k_time, t) < 0 || get_real(h, k_algbw, a) < 0 || get_real(h, k_busbw, b) < 0)
        return -1;
    wv = get_any(h, k_wrong);
    *w = wv && json_is_integer(wv) ? (int)json_integer_value(wv) : -1;
    return 0;
}

static int read_result(cs_log *log, json_t *res, const char *path, cs_log_row *row, cs_err *err)
{
    static const char *const k_size[] = {"size", "size_bytes", NULL};
    static const char *const k_type[] = {"type", "datatype", NULL};
    static const char *const k_redop[] = {"redop", "op", NULL};
    char p[512];
    json_t *v;
    cs__log_row_init(row);
    if (!json_is_object(res))
        return json_err(err, log->name, path, "expected an object");
    v = get_any(res, k_size);
    if (!v || !json_is_integer(v) || json_integer_value(v) < 0) {
        snprintf(p, sizeof p, "%s.size", path);
        return json_err(err, log->name, p, "expected a whole number of bytes");
    }
    if ((uint64_t)json_integer_value(v) > CS_LIMIT_MAX_BYTES) {
        char msg[160];
        snprintf(p, sizeof p, "%s.size", path);
        snprintf(msg, sizeof msg, "must be at most %llu bytes (1 PiB), got %lld",
                 (unsigned long long)CS_LIMIT_MAX_BYTES, (long long)json_integer_value(v));
        return json_err(err, log->name, p, msg);
    }
    row->size_bytes = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(res, "count")) && json_is_integer(v) && json_integer_value(v) >= 0)
        row->count = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(res, "root")) && json_is_integer(v))
        row->root = (int)json_integer_value(v);
    get_str(res, k_type, row->type, sizeof row->type);
    get_str(res, k_redop, row->redop, sizeof row->redop);
    if (read_half(res, 0, &row->oop_time_us, &row->oop_algbw_GBps, &row->oop_busbw_GBps,
                  &row->oop_wrong) < 0 ||
        read_half(res, 1, &row->ip_time_us, &row->ip_algbw_GBps, &row->ip_busbw_GBps,
                  &row->ip_wrong) < 0) {
        snprintf(p, sizeof p, "%s", path);
        return json_err(err, log->name, p, "time, algbw and busbw must be numbers >= 0, "
                        "null or \"N/A\"");
    }
    if (row->oop_time_us > CS_LIMIT_TIME_MAX_US || row->ip_time_us > CS_LIMIT_TIME_MAX_US) {
        char msg[160];
        snprintf(msg, sizeof msg, "time must be at most %g us, got %g", CS_LIMIT_TIME_MAX_US,
                 row->oop_time_us > CS_LIMIT_TIME_MAX_US ? row->oop_time_us : row->ip_time_us);
        return json_err(err, log->name, path, msg);
    }
    row->time_us = isfinite(row->oop_time_us) ? row->oop_time_us : row->ip_time_us;
    if (!isfinite(row->time_us))
        return json_err(err, log->name, path, "no time: expected \"time\" in the result or "
                        "in its \"out_of_place\" or \"in_place\" object");
    return 0;
}

/* One run object -> one table. */
static int read_run(cs_log *log, json_t *run, const char *path, const cs_log_opts *opts,
                    cs_err *err)
{
    static const char *const k_coll[] = {"collective", "test", "program", "name", NULL};
    static const char *const k_ranks[] = {"nranks", "nRanks", "ranks", "world_size", NULL};
    static const char *const k_res[] = {"results", "rows", NULL};
    static const char *const k_host[] = {"hostname", "host", NULL};
    static const char *const k_model[] = {"name", "device", "model", NULL};
    static const char *const k_devs[] = {"devices", NULL};
    cs__log_meta m;
    cs_log_table *t;
    json_t *v, *res, *d, *devs;
    size_t i;
    char p[400];
    int rc = 0;
    if (!json_is_object(run))
        return json_err(err, log->name, path, "expected an object with a \"results\" array");
    res = get_any(run, k_res);
    if (!res || !json_is_array(res)) {
        snprintf(p, sizeof p, "%s%sresults", path, *path ? "." : "");
        return json_err(err, log->name, p, "expected an array of results");
    }
    cs__log_meta_init(&m);
    if ((v = get_any(run, k_coll)) && json_is_string(v)) {
        cs_coll c;
        if (cs_log_coll_from_program(json_string_value(v), &c) == 0 ||
            cs_coll_lookup(json_string_value(v), &c, NULL) == 0) {
            m.has_coll = 1;
            m.coll = c;
        }
    }
    if ((v = get_any(run, k_ranks)) && json_is_integer(v) && json_integer_value(v) > 0) {
        if (json_integer_value(v) > CS_LIMIT_MAX_RANKS) {
            char msg[160];
            snprintf(p, sizeof p, "%s%snranks", path, *path ? "." : "");
            snprintf(msg, sizeof msg, "must be between 1 and %ld, got %lld", CS_LIMIT_MAX_RANKS,
                     (long long)json_integer_value(v));
            cs__log_meta_fini(&m);
            return json_err(err, log->name, p, msg);
        }
        m.has_launcher = 1;
        m.np = (int)json_integer_value(v);
    }
    devs = get_any(run, k_devs);
    json_array_foreach(devs, i, d) {
        json_t *rk = json_object_get(d, "rank");
        char host[128] = "", model[96] = "";
        if (!json_is_object(d))
            continue;
        if (rk && json_is_integer(rk) &&
            (json_integer_value(rk) < 0 || json_integer_value(rk) >= CS_LIMIT_MAX_RANKS)) {
            char msg[160];
            snprintf(p, sizeof p, "%s%sdevices[%zu].rank", path, *path ? "." : "", i);
            snprintf(msg, sizeof msg, "must be between 0 and %ld, got %lld",
                     CS_LIMIT_MAX_RANKS - 1, (long long)json_integer_value(rk));
            cs__log_meta_fini(&m);
            return json_err(err, log->name, p, msg);
        }
        get_str(d, k_host, host, sizeof host);
        get_str(d, k_model, model, sizeof model);
        if (cs__log_meta_device(&m, rk && json_is_integer(rk) ? (int)json_integer_value(rk)
                                                              : (int)i, host, model) < 0) {
            cs__log_meta_fini(&m);
            return cs_err_set(err, CS_ENOMEM, log->name, "out of memory");
        }
    }
    if (!(t = cs__log_add_table(log, opts))) {
        cs__log_meta_fini(&m);
        return cs_err_set(err, CS_ENOMEM, log->name, "out of memory");
    }
    for (i = 0; i < json_array_size(res) && rc == 0; i++) {
        cs_log_row row;
        snprintf(p, sizeof p, "%s%sresults[%zu]", path, *path ? "." : "", i);
        if ((rc = read_result(log, json_array_get(res, i), p, &row, err)) == 0 &&
            cs__log_add_row(t, &row) < 0)
            rc = cs_err_set(err, CS_ENOMEM, log->name, "out of memory");
    }
    if (rc == 0)
        cs__log_table_finish(t, &m, opts);
    cs__log_meta_fini(&m);
    return rc;
}

int cs__log_read_json(cs_log *log, const char *buf, size_t len, const cs_log_opts *opts,
                      cs_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    int rc = 0;
    if (!root) {
        char where[400];
        snprintf(where, sizeof where, "%s:%d:%d", log->name, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    if (json_is_array(root)) {
        size_t i;
        char p[64];
        for (i = 0; i < json_array_size(root) && rc == 0; i++) {
            snprintf(p, sizeof p, "[%zu]", i);
            rc = read_run(log, json_array_get(root, i), p, opts, err);
        }
    } else {
        rc = read_run(log, root, "", opts, err);
    }
    json_decref(root);
    return rc;
}
