/* lists.c: the presets as data (api layer): `collsim list topologies|models|gpus` as JSON
 * values, read from the same embedded tables the command lists. */
#include "api/api-private.h"
#include "topologies/topology.h"
#include "scenarios/plan.h"

/* The preset's "description" as a JSON string ("" when it has none); its JSON in *doc
 * (new reference) when doc is not NULL. */
static json_t *about(const cs_preset *p, json_t **doc, cs_err *err)
{
    json_error_t je;
    json_t *root = json_loads(p->json, 0, &je), *d;
    if (!root) {
        cs_err_set(err, CS_EPARSE, p->name, "embedded preset: %s", je.text);
        return NULL;
    }
    d = json_object_get(root, "description");
    d = json_is_string(d) ? json_incref(d) : json_string("");
    if (doc)
        *doc = json_incref(root);
    json_decref(root);
    if (!d)
        cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    return d;
}

int cs__api_topologies(json_t **out, cs_err *err)
{
    int i, n;
    const cs_preset *pr = cs_preset_all(&n);
    const cs_topo_kind *const *kinds;
    json_t *presets = json_array(), *kl = json_array();
    *out = json_pack("{s:s, s:o, s:o}", "default", CS_DEFAULT_PRESET, "presets", presets,
                     "kinds", kl);
    if (!*out)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < n; i++) {
        cs_topo *t = NULL;
        json_t *d = about(&pr[i], NULL, err);
        if (!d || cs_topo_open(pr[i].name, &t, err) < 0) {
            json_decref(d);
            json_decref(*out);
            *out = NULL;
            return err->code;
        }
        json_array_append_new(presets, json_pack("{s:s, s:s, s:i, s:o}", "name", pr[i].name,
                                                 "kind", t->kind, "ranks", t->n_ranks,
                                                 "description", d));
        cs_topo_free(t);
    }
    kinds = cs_topo_kind_all(&n);
    for (i = 0; i < n; i++)
        json_array_append_new(kl, json_pack("{s:s, s:s}", "name", kinds[i]->name, "summary",
                                            kinds[i]->summary));
    return 0;
}

/* [{name, description, preset}] of an embedded table. */
static int presets(const cs_preset *all, int n, json_t **out, cs_err *err)
{
    int i;
    if (!(*out = json_array()))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (i = 0; i < n; i++) {
        json_t *doc = NULL, *d = about(&all[i], &doc, err);
        if (!d) {
            json_decref(*out);
            *out = NULL;
            return err->code;
        }
        json_array_append_new(*out, json_pack("{s:s, s:o, s:o}", "name", all[i].name,
                                              "description", d, "preset", doc));
    }
    return 0;
}

int cs__api_models(json_t **out, cs_err *err)
{
    int n;
    const cs_preset *all = cs_model_presets(&n);
    return presets(all, n, out, err);
}

int cs__api_gpus(json_t **out, cs_err *err)
{
    int n;
    const cs_preset *all = cs_gpu_presets(&n);
    return presets(all, n, out, err);
}
