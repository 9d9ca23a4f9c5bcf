/* cost.c: the money a plan's step and a training run cost (scenarios layer): a price per
 * GPU-hour (user-given) times the GPUs and the time; per step, per million tokens and to
 * train N tokens (failure-free; goodput.c stretches the time by the failures). */
#include "scenarios/budget.h"

#include <string.h>

void cs_cost_of(const cs_plan_result *r, double price_per_gpu_h, double tokens, cs_cost *out)
{
    double tok_step = r->tokens_per_s * r->step_time_s;   /* B x s */
    memset(out, 0, sizeof *out);
    out->price_per_gpu_h = price_per_gpu_h;
    out->per_step = price_per_gpu_h * r->gpus * r->step_time_s / 3600.0;
    out->per_million_tokens = tok_step > 0 ? out->per_step / tok_step * 1e6 : 0;
    if (tokens > 0 && tok_step > 0) {
        out->tokens = tokens;
        out->steps = tokens / tok_step;
        out->train_s = out->steps * r->step_time_s;
        out->gpu_hours = r->gpus * out->train_s / 3600.0;
        out->total = out->gpu_hours * price_per_gpu_h;
    }
}
