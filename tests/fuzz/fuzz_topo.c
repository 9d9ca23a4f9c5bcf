/* fuzz_topo.c: libFuzzer target for the topology loader (every kind, presets as seeds).
 * A topology that loads is routed between a few rank pairs and its bisection computed; its
 * "nccl" object (at the top, or a cluster's node and fabric levels) is read as `run` reads
 * it (cs_nccl_setup_root: the layers merged, each checked, the limits applied), with NCCL
 * mode on so that a hardware kind's defaults are filled in as well. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/nccl/nccl.h"
#include "sim/limits.h"
#include "topologies/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void nccl_object(const char *s)
{
    json_t *root = json_loads(s, JSON_DECODE_ANY, NULL);
    cs_nccl_params np;
    cs_err err;
    int on;
    if (!root)
        return;
    cs_nccl_setup_root(root, "fuzz", NULL, 1, &np, &on, &err);
    json_decref(root);
}

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
        nccl_object(s);
    }
    free(s);
    return 0;
}
