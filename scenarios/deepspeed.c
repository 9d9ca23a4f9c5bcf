/* deepspeed.c: DeepSpeed's ds_config.json as a plan (scenarios layer): the batch triple,
 * ZeRO's stage, offload and stage-3 prefetch limits, bf16/fp16 and the optimizer, read the
 * way DeepSpeed reads them and refused where it refuses them, each error naming the key;
 * every other key is named in the ignored list (docs/plans.md "Inputs"). */
#include "scenarios/plan.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* v as JSON text for a message ("64.0", "\"2\"", "true"), cut to fit buf. */
static const char *ds_show(const json_t *v, char *buf, size_t n)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(buf, n, "%s", s ? s : "?");
    free(s);
    return buf;
}

/* A batch figure of the config: an integer in 1..hi, or absent or "auto" (Hugging Face's
 * integration fills those in). 1 and *out set when given, 0 when not, or the error. */
static int ds_count(const json_t *root, const char *key, long hi, long *out, cs_err *err)
{
    const json_t *v = json_object_get(root, key);
    char got[48];
    if (!v || (json_is_string(v) && !strcmp(json_string_value(v), "auto")))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > hi)
        return cs_err_set(err, CS_EINVAL, key, "expected an integer in 1..%ld or \"auto\", got "
                          "%s", hi, ds_show(v, got, sizeof got));
    *out = (long)json_integer_value(v);
    return 1;
}

/* zero_optimization: {"stage": 0..3, "offload_optimizer": {"device": "cpu"|"nvme"|"none"}},
 * or DeepSpeed's deprecated true/false (stage 1 / 0). */
static int ds_zero(const json_t *z, cs_plan *p, cs_err *err)
{
    const json_t *v, *o;
    char got[48];
    if (json_is_boolean(z)) {
        p->zero = json_is_true(z);
        return 0;
    }
    if (!json_is_object(z))
        return cs_err_set(err, CS_EINVAL, "zero_optimization", "expected an object such as "
                          "{\"stage\": 3}, got %s", ds_show(z, got, sizeof got));
    if ((v = json_object_get(z, "stage"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 3)
            return cs_err_set(err, CS_EINVAL, "zero_optimization.stage", "expected 0, 1, 2 or "
                              "3, got %s", ds_show(v, got, sizeof got));
        p->zero = (int)json_integer_value(v);
        p->zero_deepspeed = 1;
    }
    if ((o = json_object_get(z, "offload_optimizer"))) {
        v = json_object_get(o, "device");
        if (!json_is_object(o) || !json_is_string(v))
            return cs_err_set(err, CS_EINVAL, "zero_optimization.offload_optimizer", "expected "
                              "an object such as {\"device\": \"cpu\"}, got %s",
                              ds_show(o, got, sizeof got));
        p->offload_optimizer = strcmp(json_string_value(v), "none") != 0;
    }
    if ((o = json_object_get(z, "offload_param"))) {
        v = json_object_get(o, "device");
        if (!json_is_object(o) || !json_is_string(v))
            return cs_err_set(err, CS_EINVAL, "zero_optimization.offload_param", "expected "
                              "an object such as {\"device\": \"cpu\"}, got %s",
                              ds_show(o, got, sizeof got));
        p->offload_params = strcmp(json_string_value(v), "none") != 0;
    }
    /* ZeRO-3's prefetch (parameters gathered ahead) and live-parameter limit: counts of
     * parameters, positive numbers (DeepSpeed's "auto" leaves the defaults) */
    {
        static const char *const k3[2] = {"stage3_prefetch_bucket_size",
                                          "stage3_max_live_parameters"};
        int i;
        for (i = 0; i < 2; i++) {
            if (!(v = json_object_get(z, k3[i])) ||
                (json_is_string(v) && !strcmp(json_string_value(v), "auto")))
                continue;
            if (!json_is_number(v) || json_number_value(v) < 1)
                return cs_err_set(err, CS_EINVAL, "zero_optimization", "%s: expected a "
                                  "number of parameters >= 1 or \"auto\", got %s", k3[i],
                                  ds_show(v, got, sizeof got));
            *(i ? &p->max_live_params : &p->prefetch_params) = json_number_value(v);
        }
    }
    return 0;
}

/* "bf16" / "fp16": {"enabled": true | false | "auto"}; 1 when enabled. */
static int ds_precision(const json_t *root, const char *key, int *on, cs_err *err)
{
    const json_t *o = json_object_get(root, key), *e;
    char got[48], where[32];
    *on = 0;
    if (!o)
        return 0;
    e = json_object_get(o, "enabled");
    snprintf(where, sizeof where, "%s", key);
    if (!json_is_object(o))
        return cs_err_set(err, CS_EINVAL, where, "expected an object such as {\"enabled\": "
                          "true}, got %s", ds_show(o, got, sizeof got));
    if (e && !json_is_boolean(e) && !(json_is_string(e) && !strcmp(json_string_value(e), "auto")))
        return cs_err_set(err, CS_EINVAL, where, "enabled: expected true, false or \"auto\", "
                          "got %s", ds_show(e, got, sizeof got));
    *on = json_is_true(e);
    return 0;
}

/* The batch triple as DeepSpeed completes and asserts it (runtime/config.py,
 * _set_batch_related_parameters and _batch_assertion) with the plan's dp as its data-parallel
 * world: two given derive the third by integer division, one given takes 1 accumulation
 * step, and train_batch_size must equal micro x accumulation x dp. Only the accumulation
 * steps given: the plan's micro batch. */
static int ds_batch(const json_t *root, cs_plan *p, cs_err *err)
{
    long tb = 0, mb = 0, gas = 0, dp = p->dp;
    int has_tb, has_mb, has_gas;
    if ((has_tb = ds_count(root, "train_batch_size", 1L << 40, &tb, err)) < 0 ||
        (has_mb = ds_count(root, "train_micro_batch_size_per_gpu", 1L << 20, &mb, err)) < 0 ||
        (has_gas = ds_count(root, "gradient_accumulation_steps", 1L << 16, &gas, err)) < 0)
        return has_tb < 0 ? has_tb : has_mb < 0 ? has_mb : has_gas;
    if (!has_tb && !has_mb && !has_gas)
        return 0;
    if (!has_mb && !has_tb)
        mb = p->micro_batch, has_mb = 1;
    if (has_tb && has_mb && !has_gas)
        gas = tb / mb / dp;
    else if (has_tb && has_gas && !has_mb)
        mb = tb / dp / gas;
    else if (has_mb && has_gas && !has_tb)
        tb = mb * gas * dp;
    else if (!has_gas) {
        gas = 1;
        if (has_tb)
            mb = tb / dp;
        else
            tb = mb * dp;
    }
    if (mb < 1 || gas < 1 || tb != mb * gas * dp)
        return cs_err_set(err, CS_EINVAL, "train_batch_size", "%ld is not "
                          "train_micro_batch_size_per_gpu x gradient_accumulation_steps x dp = "
                          "%ld x %ld x %ld = %ld (DeepSpeed refuses it)", tb, mb, gas, dp,
                          mb * gas * dp);
    if (tb > (1L << 40) || mb > (1L << 20))      /* products of counts <= 2^20, 2^16, 2^24 */
        return cs_err_set(err, CS_EINVAL, tb > (1L << 40) ? "train_batch_size"
                          : "train_micro_batch_size_per_gpu", "%ld is over %s", tb > (1L << 40)
                          ? tb : mb, tb > (1L << 40) ? "2^40" : "2^20");
    p->global_batch = tb;
    p->micro_batch = (int)mb;
    return 0;
}

/* Add name to the comma-separated list ig (size n); when it is full, end it with ", ..."
 * once so that a cut list says it is cut. */
static void ds_note(char *ig, size_t n, const char *name)
{
    size_t l = strlen(ig);
    if (!n || (l >= 5 && !strcmp(ig + l - 5, ", ...")))
        return;
    if (l + strlen(name) + 8 >= n) {
        if (l + 6 < n)
            strcat(ig, l ? ", ..." : "...");
        return;
    }
    if (l)
        strcat(ig, ", ");
    strcat(ig, name);
}

/* Name every key of object o (at prefix) that is not in known (NULL-terminated). */
static void ds_unread(json_t *o, const char *prefix, const char *const *known, char *ig,
                      size_t n)
{
    const char *k;
    json_t *v;
    char name[160];
    if (!json_is_object(o))
        return;
    json_object_foreach(o, k, v) {
        int i, hit = 0;
        for (i = 0; known[i] && !hit; i++)
            hit = !strcmp(k, known[i]);
        if (hit)
            continue;
        snprintf(name, sizeof name, "%s%s%.100s", prefix, prefix[0] ? "." : "", k);
        ds_note(ig, n, name);
    }
}

/* The keys of the config this reader does not use, named (nothing is ignored in silence). */
static void ds_ignored(json_t *root, char *ig, size_t n)
{
    static const char *const top[] = {"train_batch_size", "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps", "zero_optimization", "bf16", "fp16", "optimizer", NULL};
    static const char *const zero[] = {"stage", "offload_optimizer", "offload_param",
        "stage3_prefetch_bucket_size", "stage3_max_live_parameters", NULL};
    static const char *const dev[] = {"device", NULL}, *const en[] = {"enabled", NULL},
                             *const opt[] = {"type", NULL};
    json_t *z = json_object_get(root, "zero_optimization");
    ig[0] = '\0';
    ds_unread(root, "", top, ig, n);
    ds_unread(z, "zero_optimization", zero, ig, n);
    if (json_is_object(z)) {
        ds_unread(json_object_get(z, "offload_optimizer"), "zero_optimization.offload_optimizer",
                  dev, ig, n);
        ds_unread(json_object_get(z, "offload_param"), "zero_optimization.offload_param", dev,
                  ig, n);
    }
    ds_unread(json_object_get(root, "bf16"), "bf16", en, ig, n);
    ds_unread(json_object_get(root, "fp16"), "fp16", en, ig, n);
    ds_unread(json_object_get(root, "optimizer"), "optimizer", opt, ig, n);
}

/* "optimizer": {"type": ...}: Adam and AdamW (any case, DeepSpeed's names) are the plan's
 * Adam; SGD its SGD; another type is named in the ignored list (the plan keeps Adam's
 * states). */
static int ds_optimizer(const json_t *root, cs_plan *p, char *ig, size_t n, cs_err *err)
{
    const json_t *o = json_object_get(root, "optimizer"), *t;
    char got[48], name[96];
    if (!o)
        return 0;
    t = json_object_get(o, "type");
    if (!json_is_object(o) || !json_is_string(t))
        return cs_err_set(err, CS_EINVAL, "optimizer", "expected an object such as {\"type\": "
                          "\"AdamW\"}, got %s", ds_show(o, got, sizeof got));
    if (!strcasecmp(json_string_value(t), "adam") || !strcasecmp(json_string_value(t), "adamw"))
        p->optimizer_sgd = 0;
    else if (!strcasecmp(json_string_value(t), "sgd"))
        p->optimizer_sgd = 1;
    else {
        snprintf(name, sizeof name, "optimizer.type=%.60s", json_string_value(t));
        ds_note(ig, n, name);
    }
    return 0;
}

int cs_plan_deepspeed(const char *path, cs_plan *p, char *ignored, size_t n_ignored,
                      cs_err *err)
{
    json_error_t je;
    json_t *root, *z;
    struct stat st;
    char where[1100];
    int rc, bf16, fp16;
    if (ignored && n_ignored)
        ignored[0] = '\0';
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cs_err_set(err, CS_EIO, path, "is a directory, expected a DeepSpeed config file "
                          "(ds_config.json)");
    if (!(root = json_load_file(path, 0, &je))) {
        if (je.line < 0 || access(path, R_OK) != 0)
            return cs_err_set(err, CS_EIO, path, "cannot read: %s", je.text);
        snprintf(where, sizeof where, "%s:%d:%d", path, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    if (!json_is_object(root))
        rc = cs_err_set(err, CS_EINVAL, "", "a DeepSpeed config is a JSON object, got %s",
                        json_is_array(root) ? "an array" : "a scalar");
    else if (ds_ignored(root, ignored, n_ignored), (rc = ds_batch(root, p, err)) == 0 &&
             (rc = ds_optimizer(root, p, ignored, n_ignored, err)) == 0 &&
             (!(z = json_object_get(root, "zero_optimization")) ||
              (rc = ds_zero(z, p, err)) == 0) &&
             (rc = ds_precision(root, "bf16", &bf16, err)) == 0 &&
             (rc = ds_precision(root, "fp16", &fp16, err)) == 0) {
        if (bf16)
            p->dtype = CS_DT_BF16;
        else if (fp16)
            p->dtype = CS_DT_FP16;
    }
    json_decref(root);
    if (rc < 0)
        cs_err_prefix(err, path);
    return rc;
}
