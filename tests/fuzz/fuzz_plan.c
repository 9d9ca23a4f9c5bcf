/* fuzz_plan.c: libFuzzer target for the plan's inputs (scenarios layer). Byte 0 (mod 4)
 * picks the reader, the rest is its input:
 *   0  a plan file (JSON), parsed with no directory (a model given as a config.json path
 *      is read relative to the working folder);
 *   1  a Megatron-LM argument string (`plan --megatron`), read into the base plan below;
 *   2  a Hugging Face config.json (scenarios/hf.c), written to a scratch file and named as
 *      the base plan's "model" (the plan's own path to it);
 *   3  a DeepSpeed config (`plan --deepspeed`, scenarios/deepspeed.c), written to a scratch
 *      file and read into the base plan.
 * A plan that reads is checked against a 16-rank and a 1024-rank topology and, when it
 * passes, its model states, activation bytes and FLOPs computed: each must be a finite
 * number >= 0 (parameters > 0), else abort() so that libFuzzer reports it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenarios/plan.h"
#include "sim/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char base[] = "{\"model\": \"gpt-1.7b\", \"parallel\": {\"tp\": 2, \"pp\": 2, "
    "\"dp\": 4}, \"system\": {\"topo\": \"dgx-h100-x2\", \"gpu\": \"h100-sxm\"}}";

static char scratch[64];          /* this process's scratch file for modes 2 and 3 */

static void drop_scratch(void)
{
    unlink(scratch);
}

static int write_scratch(const char *s, size_t n)
{
    FILE *f;
    if (!scratch[0]) {
        snprintf(scratch, sizeof scratch, "/tmp/fuzz_plan-%ld.json", (long)getpid());
        atexit(drop_scratch);
    }
    if (!(f = fopen(scratch, "wb")))
        return -1;
    if (fwrite(s, 1, n, f) != n) {
        fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}

static void sane(double x, int positive)
{
    if (!isfinite(x) || x < 0 || (positive && x <= 0))
        abort();                  /* a figure outside physical sense */
}

static void use(const cs_plan *p)
{
    cs_err err;
    cs_plan_memory m;
    if (cs_plan_check(p, 16, &err) < 0 && cs_plan_check(p, 1024, &err) < 0)
        return;
    cs_plan_model_states(p, &m);
    sane(m.weights, 0);
    sane(m.gradients, 0);
    sane(m.optimizer, 0);
    sane(m.activations, 0);
    sane(m.other, 0);
    sane(m.total, 0);
    sane(cs_plan_layer_act_bytes(p), 0);
    sane(cs_model_params(&p->model), 1);
    sane(cs_model_hw_flops_step(&p->model, p->global_batch, p->recompute), 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s, ignored[256], plan[160];
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
    switch (data[0] & 3) {
    case 0:
        if (cs_plan_parse(s, "fuzz", &p, &err) == 0)
            use(&p);
        break;
    case 1:
        if (cs_plan_parse(base, "base", &p, &err) == 0
            && cs_plan_megatron(s, &p, ignored, sizeof ignored, &err) == 0)
            use(&p);
        break;
    case 2:
        if (write_scratch(s, size - 1) < 0)
            break;
        snprintf(plan, sizeof plan, "{\"model\": \"%s\", \"system\": {\"topo\": "
                 "\"dgx-h100-x2\", \"gpu\": \"h100-sxm\"}}", scratch);
        if (cs_plan_parse(plan, "fuzz", &p, &err) == 0)
            use(&p);
        break;
    default:
        if (write_scratch(s, size - 1) == 0 && cs_plan_parse(base, "base", &p, &err) == 0
            && cs_plan_deepspeed(scratch, &p, ignored, sizeof ignored, &err) == 0) {
            if (!memchr(ignored, '\0', sizeof ignored))
                abort();                    /* the ignored list ends inside its buffer */
            use(&p);
        }
        break;
    }
    cs_plan_fini(&p);
    free(s);
    return 0;
}
