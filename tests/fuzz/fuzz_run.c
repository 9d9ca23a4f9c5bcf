/* fuzz_run.c: libFuzzer target for a whole run on a small fuzzed topology. Input: 5 control
 * bytes, then the topology JSON. Control: [0] collective, [1] algorithm (index into the
 * registry; one that does not implement the collective falls back to auto), [2] ranks
 * (1..32, at most the topology's), [3] size exponent, [4] bits 0-1 chunks - 1, bits 2-6
 * the root (of a rooted collective), bit 7 NCCL mode: the topology's "nccl" object read (cs_nccl_setup_root, as
 * `run` does) and the collective simulated as NCCL runs it (cs_nccl_simulate), the
 * algorithm of [1] then NCCL's own choice when it is not one of NCCL's.
 * Physical sense, abort() on a violation so that libFuzzer reports it: the simulated time
 * is finite and >= 0, the data check finds no wrong element for a correct algorithm, and
 * the time is not below the links' bound (sim/bound.h: the most bytes a directed link
 * carries over its bandwidth), so busbw never exceeds what the topology's links allow. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/coll.h"
#include "algorithms/nccl/mode.h"
#include "algorithms/nccl/nccl.h"
#include "sim/bound.h"
#include "sim/exec.h"
#include "sim/limits.h"
#include "topologies/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* t_s (seconds) is below the link bound of s on t: a transfer moved faster than its links
 * allow. 1 ppm and 1 ns of slack for the integer picoseconds of the clock. */
static void bound_check(const cs_topo *t, const cs_sched *s, double t_s)
{
    cs_err err;
    double lb;
    if (cs_sched_link_bound(t, s, NULL, 1, NULL, &lb, &err) == 0 &&
        t_s < lb * (1 - 1e-6) - 1e-9)
        abort();
}

static void run_plain(const cs_topo *t, const cs_algo *ops, const cs_coll_req *req)
{
    cs_sched s;
    cs_err err;
    cs_time t_ps;
    int wrong;
    if (cs_algo_build(ops, req, &s, &err) < 0)
        return;
    if (cs_sim_once(t, &s, NULL, NULL, &t_ps, &wrong, &err) == 0) {
        if (t_ps < 0 || wrong > 0)
            abort();              /* time runs forward; the registry's algorithms are correct */
        bound_check(t, &s, (double)t_ps * 1e-12);
    }
    cs_sched_fini(&s);
}

static void run_nccl(const char *json, const cs_topo *t, const cs_algo *ops,
                     cs_coll_req *req)
{
    json_t *root = json_loads(json, JSON_DECODE_ANY, NULL);
    cs_nccl_params np;
    cs_nccl_pick pick;
    cs_sim_costs costs;
    cs_coll_req built;
    cs_sched s;
    cs_err err;
    int on;
    if (!root)
        return;
    if (cs_nccl_setup_root(root, "fuzz", NULL, 1, &np, &on, &err) == 0 &&
        (cs_nccl_simulate(req, t, ops, &np, 1, &pick, &err) == 0 ||
         (ops && cs_nccl_simulate(req, t, NULL, &np, 1, &pick, &err) == 0))) {
        if (!isfinite(pick.time_us) || pick.time_us < 0)
            abort();
        if (pick.wrong > 0)
            abort();              /* NCCL's algorithms are correct */
        if (!pick.ex.on && pick.wrong != CS_WRONG_FOLDED &&
            cs_nccl_build(req, &np, &pick, &s, &costs, &built, &err) == 0) {
            bound_check(t, &s, pick.time_us * 1e-6);
            cs_sched_fini(&s);
        }
    }
    json_decref(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cs_topo *t = NULL;
    cs_coll_req req;
    cs_err err;
    const cs_algo *const *all, *ops = NULL;
    char *json;
    int n_algos, n;
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
    /* the root of a rooted collective; 0 otherwise, as the request's contract says */
    req.root = cs_coll_is_rooted(req.coll) ? ((data[4] >> 2) & 31) % n : 0;
    req.topo = t;
    all = cs_algo_all(&n_algos);
    if (n_algos > 0 && cs_algo_has(all[data[1] % n_algos], req.coll))
        ops = all[data[1] % n_algos];
    if (data[4] & 0x80)
        run_nccl(json, t, ops, &req);
    else if (ops || cs_algo_auto(&req, t, &ops, NULL, &err) == 0)
        run_plain(t, ops, &req);
    cs_topo_free(t);
    free(json);
    return 0;
}
