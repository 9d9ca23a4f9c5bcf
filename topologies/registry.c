/* registry.c: the topology kinds in display order (topologies layer). A kind is a const ops
 * table defined in its own kind_*.c file; adding one means one line here and one in
 * meson.build. */
#include "topologies/topology.h"

#include <stdio.h>
#include <string.h>

extern const cs_topo_kind cs_topo_kind_alpha_beta;
extern const cs_topo_kind cs_topo_kind_ring;
extern const cs_topo_kind cs_topo_kind_fully_connected;
extern const cs_topo_kind cs_topo_kind_switch;
extern const cs_topo_kind cs_topo_kind_graph;
extern const cs_topo_kind cs_topo_kind_torus;
extern const cs_topo_kind cs_topo_kind_mesh;
extern const cs_topo_kind cs_topo_kind_hypercube;
extern const cs_topo_kind cs_topo_kind_tree;
extern const cs_topo_kind cs_topo_kind_fat_tree;
extern const cs_topo_kind cs_topo_kind_pcie;
extern const cs_topo_kind cs_topo_kind_node;
extern const cs_topo_kind cs_topo_kind_cluster;

static const cs_topo_kind *const kinds[] = {
    &cs_topo_kind_alpha_beta,
    &cs_topo_kind_ring,
    &cs_topo_kind_fully_connected,
    &cs_topo_kind_switch,
    &cs_topo_kind_torus,
    &cs_topo_kind_mesh,
    &cs_topo_kind_hypercube,
    &cs_topo_kind_tree,
    &cs_topo_kind_fat_tree,
    &cs_topo_kind_pcie,
    &cs_topo_kind_node,
    &cs_topo_kind_cluster,
    &cs_topo_kind_graph,
};
#define N_KINDS ((int)(sizeof kinds / sizeof kinds[0]))

const cs_topo_kind *const *cs_topo_kind_all(int *n)
{
    *n = N_KINDS;
    return kinds;
}

int cs_topo_kind_lookup(const char *name, const cs_topo_kind **out, cs_err *err)
{
    char known[512] = "";
    int i;
    for (i = 0; i < N_KINDS; i++) {
        if (!strcmp(kinds[i]->name, name)) {
            *out = kinds[i];
            return 0;
        }
    }
    for (i = 0; i < N_KINDS; i++) {
        size_t len = strlen(known);
        snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", kinds[i]->name);
    }
    *out = NULL;
    return cs_err_set(err, CS_ENOENT, "kind", "unknown topology kind '%s' (known: %s)", name,
                      known);
}
