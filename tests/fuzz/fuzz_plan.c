/* fuzz_plan.c: libFuzzer target for the plan loader (scenarios/load.c).
 * First byte 0: the rest is a plan file (JSON), parsed with no directory (a model given as
 * a config.json path is read relative to the working folder), then checked against a
 * 16-rank and a 1024-rank topology and, when it passes, its model states, activation
 * bytes and FLOPs computed. First byte 1: the rest is a Megatron-LM argument string
 * (`plan --megatron`), read into the plan of tests/data/ok/plan-small.json's shape. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/plan.h"
#include "sim/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use(const cs_plan *p)
{
    cs_err err;
    cs_plan_memory m;
    volatile double sink;
    if (cs_plan_check(p, 16, &err) < 0 && cs_plan_check(p, 1024, &err) < 0)
        return;
    cs_plan_model_states(p, &m);
    sink = m.total + cs_plan_layer_act_bytes(p) + cs_model_params(&p->model)
         + cs_model_hw_flops_step(&p->model, p->global_batch, p->recompute);
    (void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;
    cs_plan p;
    cs_err err;
    if (size < 1)
        return 0;
    if (!(s = malloc(size)))
        return 0;
    cs_budget_set(64u << 20);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    cs_plan_init(&p);
    if (data[0] == 0) {
        if (cs_plan_parse(s, "fuzz", &p, &err) == 0)
            use(&p);
    } else {
        char ignored[256];
        static const char base[] = "{\"model\": \"gpt-1.7b\", \"parallel\": {\"tp\": 2, "
            "\"pp\": 2, \"dp\": 4}, \"system\": {\"topo\": \"dgx-h100-x2\", \"gpu\": \"h100-sxm\"}}";
        if (cs_plan_parse(base, "base", &p, &err) == 0
            && cs_plan_megatron(s, &p, ignored, sizeof ignored, &err) == 0)
            use(&p);
    }
    cs_plan_fini(&p);
    free(s);
    return 0;
}
