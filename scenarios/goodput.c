/* goodput.c: the time failures take from a long run (scenarios layer). Failure rates per
 * component from a reference run's interruption counts (scenarios/failures/NAME.json, embedded),
 * scaled to the job's GPUs and nodes; checkpoint time from the model state and a storage
 * bandwidth; Young's (1974) and Daly's (2006) checkpoint intervals; the expected effective
 * training time fraction by Daly's complete model. */
#include "scenarios/budget.h"
#include "topologies/topology.h"
#include "sim/json.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

const cs_preset *cs_failure_presets(int *n);

static const char *const part_names[] = {"gpu", "hbm", "nic", "switch", "host", "software",
                                         NULL};

const char *cs_fail_part_name(cs_fail_part k)
{
    return k >= 0 && k < CS_FP_COUNT ? part_names[k] : "?";
}

/* One entry of "causes": {"cause", "component", "count", "pct"}. */
static int cause_from_json(json_t *c, const char *where, cs_fail_stats *st, cs_err *err)
{
    static const char *const keys[] = {"cause", "component", "count", "pct", NULL};
    const char *name;
    long count;
    double pct = 0;
    int k, rc;
    if (!json_is_object(c))
        return cs_err_set(err, CS_EINVAL, where, "expected a cause object");
    if ((rc = cs_json_check_keys(c, where, keys, NULL, err)) < 0 ||
        (rc = cs_json_string(c, where, "cause", 1, &name, err)) < 0 ||
        (rc = cs_json_opt_enum(c, where, "component", part_names, &k, err)) < 0 ||
        (rc = cs_json_need(c, where, "component", err)) < 0 ||
        (rc = cs_json_int(c, where, "count", 1, 0, 1000000, &count, err)) < 0 ||
        (rc = cs_json_range(c, where, "pct", 0, 0, 100, "%", &pct, err)) < 0)
        return rc;
    st->count[k] += (int)count;
    return 0;
}

static int stats_from_json(json_t *o, cs_fail_stats *st, cs_err *err)
{
    static const char *const keys[] = {"description", "source", "gpus", "gpus_per_node",
        "days", "interruptions", "planned", "unexpected", "effective_training_time", "causes",
        NULL};
    const char *src;
    json_t *causes, *c;
    long gpus, gpn, planned, unexp, all;
    size_t i;
    char w[64];
    int rc;
    if ((rc = cs_json_check_keys(o, "failures", keys, NULL, err)) < 0 ||
        (rc = cs_json_string(o, "failures", "source", 1, &src, err)) < 0 ||
        (rc = cs_json_int(o, "failures", "gpus", 1, 1, 1L << 24, &gpus, err)) < 0 ||
        (rc = cs_json_int(o, "failures", "gpus_per_node", 1, 1, 1024, &gpn, err)) < 0 ||
        (rc = cs_json_range(o, "failures", "days", 1, 1e-3, 1e5, "days", &st->days, err)) < 0 ||
        (rc = cs_json_int(o, "failures", "interruptions", 1, 0, 1L << 30, &all, err)) < 0 ||
        (rc = cs_json_int(o, "failures", "planned", 1, 0, 1L << 30, &planned, err)) < 0 ||
        (rc = cs_json_int(o, "failures", "unexpected", 1, 0, 1L << 30, &unexp, err)) < 0 ||
        (rc = cs_json_range(o, "failures", "effective_training_time", 1, 0, 1, "",
                            &st->eff_reported, err)) < 0 ||
        (rc = cs_json_array(o, "failures", "causes", 1, &causes, err)) < 0)
        return rc;
    if (planned + unexp != all)
        return cs_err_set(err, CS_EINVAL, "failures.interruptions", "must be planned + "
                          "unexpected (%ld), got %ld", planned + unexp, all);
    snprintf(st->source, sizeof st->source, "%s", src);
    st->gpus = (int)gpus;
    st->gpus_per_node = (int)gpn;
    st->planned = (int)planned;
    st->unexpected = (int)unexp;
    json_array_foreach(causes, i, c) {
        snprintf(w, sizeof w, "failures.causes[%zu]", i);
        if ((rc = cause_from_json(c, w, st, err)) < 0)
            return rc;
    }
    return 0;
}

int cs_fail_stats_preset(const char *name, cs_fail_stats *out, cs_err *err)
{
    int n, i, rc;
    const cs_preset *all = cs_failure_presets(&n);
    json_t *root;
    memset(out, 0, sizeof *out);
    for (i = 0; i < n && strcmp(all[i].name, name); i++)
        ;
    if (i == n)
        return cs_err_set(err, CS_ENOENT, "failures", "unknown failure statistics '%s' "
                          "(known: llama3-405b)", name);
    if (!(root = json_loads(all[i].json, 0, NULL)))
        return cs_err_set(err, CS_EPARSE, "failures", "preset '%s' does not parse", name);
    snprintf(out->name, sizeof out->name, "%s", name);
    rc = stats_from_json(root, out, err);
    json_decref(root);
    return rc;
}

int cs_fail_stats_load(const char *spec, cs_fail_stats *out, cs_err *err)
{
    json_error_t je;
    json_t *root;
    const char *base;
    char where[300];
    int n, i, rc;
    const cs_preset *all = cs_failure_presets(&n);
    for (i = 0; i < n; i++)
        if (!strcmp(all[i].name, spec))
            return cs_fail_stats_preset(spec, out, err);
    memset(out, 0, sizeof *out);
    if (!(root = json_load_file(spec, 0, &je))) {
        if (je.line < 0)
            return cs_err_set(err, CS_EIO, spec, "cannot read: %s (known presets: "
                              "llama3-405b)", je.text);
        snprintf(where, sizeof where, "%s:%d:%d", spec, je.line, je.column);
        return cs_err_set(err, CS_EPARSE, where, "%s", je.text);
    }
    base = strrchr(spec, '/');
    snprintf(out->name, sizeof out->name, "%s", base ? base + 1 : spec);
    rc = json_is_object(root) ? stats_from_json(root, out, err)
       : cs_err_set(err, CS_EINVAL, "failures", "expected an object");
    json_decref(root);
    if (rc < 0)
        cs_err_prefix(err, spec);
    return rc;
}

double cs_ckpt_young_s(double delta_s, double m_s)
{
    return sqrt(2 * delta_s * m_s);
}

/* Daly 2006, eq. 37: sqrt(2δM) [1 + (1/3) sqrt(δ/2M) + (1/9)(δ/2M)] - δ for δ < 2M, else M. */
double cs_ckpt_daly_s(double delta_s, double m_s)
{
    double x = delta_s / (2 * m_s);
    if (delta_s >= 2 * m_s)
        return m_s;
    return sqrt(2 * delta_s * m_s) * (1 + sqrt(x) / 3 + x / 9) - delta_s;
}

double cs_ckpt_fraction(double tau_s, double delta_s, double r_s, double m_s)
{
    if (tau_s <= 0 || m_s <= 0)
        return 0;
    return tau_s / (m_s * exp(r_s / m_s) * expm1((tau_s + delta_s) / m_s));
}

double cs_plan_state_bytes(const cs_plan *p, const cs_plan_result *r)
{
    int mixed = p->dtype != CS_DT_FP32;
    double w = mixed ? 2 : 4, k = p->optimizer_sgd ? (mixed ? 8 : 4) : (mixed ? 12 : 8);
    return r->params * (w + k);
}

void cs_goodput_of(const cs_fail_stats *st, int gpus, int nodes, double state_bytes,
                   double step_s, double tokens_per_step, const cs_budget_opts *o,
                   cs_goodput *out)
{
    double hours = st->days * 24, attributed = 0, per_h = 0, ref_nodes, lost;
    int k;
    memset(out, 0, sizeof *out);
    ref_nodes = (double)st->gpus / st->gpus_per_node;
    for (k = 0; k < CS_FP_COUNT; k++)
        attributed += st->count[k];
    /* each component's share of the unexpected interruptions (the unattributed rest spread
     * alike), per GPU-hour, except the host's per node-hour */
    for (k = 0; k < CS_FP_COUNT && attributed > 0; k++) {
        double n = st->unexpected * st->count[k] / attributed;
        out->part_per_h[k] = k == CS_FP_HOST ? n / (ref_nodes * hours) * nodes
                                             : n / (st->gpus * hours) * gpus;
        per_h += out->part_per_h[k];
    }
    out->interrupt_per_h = per_h;
    out->planned_per_h = st->planned / (ref_nodes * hours) * nodes;
    out->mtbf_s = per_h > 0 ? 3600 / per_h : INFINITY;
    out->state_bytes = state_bytes;
    out->ckpt_GBps_user = o->ckpt_GBps > 0;
    out->ckpt_GBps = o->ckpt_GBps > 0 ? o->ckpt_GBps : CS_CKPT_GBPS_PER_GPU * gpus;
    out->ckpt_write_s = state_bytes / (out->ckpt_GBps * 1e9);
    out->ckpt_load_s = out->ckpt_write_s;
    out->restart_user = o->restart_s > 0;
    out->restart_s = (o->restart_s > 0 ? o->restart_s : CS_RESTART_S_DEFAULT) + out->ckpt_load_s;
    if (per_h > 0) {
        out->young_s = cs_ckpt_young_s(out->ckpt_write_s, out->mtbf_s);
        out->daly_s = cs_ckpt_daly_s(out->ckpt_write_s, out->mtbf_s);
        out->fraction = cs_ckpt_fraction(out->daly_s, out->ckpt_write_s, out->restart_s,
                                         out->mtbf_s);
    } else {
        out->young_s = out->daly_s = INFINITY;
        out->fraction = 1;
    }
    /* planned interruptions: a restart each, no work lost (a checkpoint is taken first) */
    lost = out->planned_per_h * out->restart_s / 3600;
    out->fraction *= lost < 1 ? 1 - lost : 0;
    if (o->tokens > 0 && tokens_per_step > 0 && out->fraction > 0) {
        out->tokens = o->tokens;
        out->wall_s = o->tokens / tokens_per_step * step_s / out->fraction;
        out->gpu_hours = gpus * out->wall_s / 3600;
    }
}
