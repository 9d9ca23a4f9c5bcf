/* fuzz_topo.c: libFuzzer target for the topology loader (every kind, presets as seeds).
 * A topology that loads is routed between a few rank pairs and its bisection computed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/limits.h"
#include "topologies/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    cs_topo *t = NULL;
    cs_err err;
    if (!s)
        return 0;
    cs_budget_set(64u << 20);     /* huge shapes are refused, not slow units */
    memcpy(s, data, size);
    s[size] = '\0';
    if (cs_topo_load_string(s, "fuzz", &t, &err) == 0) {
        const int32_t *dl;
        double bw;
        int i;
        for (i = 1; i < t->n_ranks && i < 8; i++)
            if (cs_topo_route(t, t->ranks[0], t->ranks[i], &dl, &err) < 0)
                break;
        if (t->n_ranks <= 4096)
            cs_topo_bisection_GBps(t, &bw, &err);
        cs_topo_free(t);
    }
    free(s);
    return 0;
}
