/* cmd_topo_about.c: what `collsim topo show` prints below the fabric (cli layer): a PCIe
 * host's NCCL channel plan, the file's description and sources (text, or keys of the JSON
 * object), and with --rings the ring of every channel, as NCCL mode and --algo ring run
 * them. */
#include "cli/cli.h"
#include "algorithms/explain.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

#include <jansson.h>
#include <string.h>

/* A host with a channel plan per rank count (a PCIe host whose file states no channels:
 * NCCL's ring search, algorithms/nccl/search.c; or the file's "channel_plan"), one line (or
 * "nccl_channel_plan" in json). */
static void show_plan(FILE *f, const char *spec, json_t *json)
{
    cs_nccl_params np;
    cs_err err;
    json_t *arr = NULL;
    int on, n;
    if (cs_nccl_setup(spec, NULL, 0, &np, &on, &err) < 0 || !on || np.plan_n < 2)
        return;
    if (json)
        arr = json_array();
    else
        fprintf(f, "NCCL channel plan of this host (its ring search, or the file's "
                "channel_plan), ranks: channels x GB/s:");
    for (n = 2; n <= np.plan_n; n++) {
        if (!np.plan_ch[n])
            continue;
        if (arr)
            json_array_append_new(arr, json_pack("{s:i, s:i, s:f}", "ranks", n, "channels",
                                                 (int)np.plan_ch[n], "channel_GBps",
                                                 np.plan_GBps[n]));
        else
            fprintf(f, " %d: %d x %g%s", n, np.plan_ch[n], np.plan_GBps[n],
                    n < np.plan_n ? "," : "\n");
    }
    if (arr)
        json_object_set_new(json, "nccl_channel_plan", arr);
}

void cs_topo_show_about(FILE *f, const char *spec, struct json_t *json)
{
    json_t *d = NULL, *src = NULL, *v;
    cs_err err;
    size_t i;
    show_plan(f, spec, json);
    if (cs_topo_section_get(spec, "description", &d, &err) < 0 ||
        cs_topo_section_get(spec, "sources", &src, &err) < 0) {
        json_decref(d);
        return;      /* the topology loaded, so its text parses: nothing to say */
    }
    if (json && d)
        json_object_set(json, "description", d);
    /* the topology written out whole (presets of a cluster's node and fabric put in, a
     * resize applied): the report loads back as this topology (compose.c) */
    if (json && cs_topo_definition(spec, &v, &err) == 0 && v)
        json_object_set_new(json, "definition", v);
    if (json && json_is_array(src))
        json_object_set(json, "sources", src);
    else if (json && src)
        json_object_set_new(json, "sources", json_pack("[O]", src));
    if (!json && json_is_string(d))
        fprintf(f, "description: %s\n", json_string_value(d));
    if (!json && json_is_string(src))
        fprintf(f, "sources:\n  - %s\n", json_string_value(src));
    if (!json && json_is_array(src) && json_array_size(src) > 0) {
        fprintf(f, "sources:\n");
        json_array_foreach(src, i, v)
            fprintf(f, "  - %s\n", json_string_value(v));
    }
    json_decref(d);
    json_decref(src);
}

int cs_topo_show_rings(FILE *f, const cs_topo *t, const char *spec, long channels, cs_err *err)
{
    cs_coll_req req;
    cs_nccl_params np;
    int on = 0;
    if (!channels) {   /* the topology's NCCL channel count, 1 on the bare fabric */
        if (cs_nccl_setup(spec, NULL, 0, &np, &on, err) < 0)
            return err->code;
        if (on) {
            cs_nccl_params local;   /* a PCIe host's plan for all its ranks (search.c) */
            channels = cs_nccl_with_plan(&np, t->n_ranks, &local)->channels;
        } else {
            channels = 1;
        }
    }
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, t->n_ranks, 0);
    req.topo = t;
    req.channels = (int)channels;
    cs_explain_rings(f, &req, 0);
    return 0;
}
