/* fuzz_run.c: libFuzzer target for a whole run on a small fuzzed topology. Input: 5 control
 * bytes, then the topology JSON. Control: [0] collective, [1] algorithm (index into the
 * registry; one that does not implement the collective falls back to auto), [2] ranks
 * (1..32, at most the topology's), [3] size exponent and [4] chunks/root. The schedule is
 * built and simulated with the data check on; #wrong must be 0 for a correct algorithm. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/coll.h"
#include "sim/exec.h"
#include "sim/limits.h"
#include "topologies/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cs_topo *t = NULL;
    cs_coll_req req;
    cs_sched s;
    cs_err err;
    const cs_algo *const *all, *ops = NULL;
    char *json;
    int n_algos, n, wrong;
    cs_time t_ps;
    if (size < 5)
        return 0;
    cs_budget_set(64u << 20);
    if (!(json = malloc(size - 5 + 1)))
        return 0;
    memcpy(json, data + 5, size - 5);
    json[size - 5] = '\0';
    if (cs_topo_load_string(json, "fuzz", &t, &err) < 0) {
        free(json);
        return 0;
    }
    n = 1 + data[2] % 32;
    if (n > t->n_ranks)
        n = t->n_ranks;
    cs_coll_req_init(&req, (cs_coll)(data[0] % CS_COLL_COUNT), n,
                     ((uint64_t)1 << (data[3] % 31)) + (data[3] >> 5));
    req.chunks = 1 + (data[4] & 3);
    req.root = (data[4] >> 2) % n;
    req.topo = t;
    all = cs_algo_all(&n_algos);
    if (n_algos > 0 && cs_algo_has(all[data[1] % n_algos], req.coll))
        ops = all[data[1] % n_algos];
    else if (cs_algo_auto(&req, t, &ops, NULL, &err) < 0)
        ops = NULL;
    if (ops && cs_algo_build(ops, &req, &s, &err) == 0) {
        if (cs_sim_once(t, &s, NULL, NULL, &t_ps, &wrong, &err) == 0 && t_ps < 0)
            abort();              /* time runs forward */
        cs_sched_fini(&s);
    }
    cs_topo_free(t);
    free(json);
    return 0;
}
