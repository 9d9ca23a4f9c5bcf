/* cmd_topo_about.c: what `collsim topo show` prints below the fabric (cli layer): the
 * file's description and sources (text, or keys of the JSON object), and with --rings the
 * ring of every channel, as NCCL mode and --algo ring run them. */
#include "cli/cli.h"
#include "algorithms/explain.h"
#include "algorithms/nccl/nccl.h"
#include "topologies/topology.h"

#include <jansson.h>
#include <string.h>

void cs_topo_show_about(FILE *f, const char *spec, struct json_t *json)
{
    json_t *d = NULL, *src = NULL, *v;
    cs_err err;
    size_t i;
    if (cs_topo_section_get(spec, "description", &d, &err) < 0 ||
        cs_topo_section_get(spec, "sources", &src, &err) < 0) {
        json_decref(d);
        return;      /* the topology loaded, so its text parses: nothing to say */
    }
    if (json && d)
        json_object_set(json, "description", d);
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
