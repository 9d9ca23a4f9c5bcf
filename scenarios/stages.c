/* stages.c: the pipeline split (scenarios layer): how many transformer layers each virtual
 * stage holds. Megatron-Core's layout string (parallel.pipeline_layout, pipelayout.c), an
 * explicit list (parallel.pipeline_layers), Megatron-Core's uneven first and last stages and
 * its embedding/loss accounting (transformer_block.py get_num_layers_to_build and
 * TransformerConfig's checks), the even split, and collsim's default for layers that do not
 * divide. Every refusal names the key or flag. */
#include "scenarios/plan.h"
#include "scenarios/pipelayout.h"

#include <stdlib.h>
#include <string.h>

/* Layers per stage (pp entries) into st; returns the rule's name or NULL with err set. */
static const char *per_stage(const cs_plan *p, int v, int *st, cs_err *err)
{
    int L = p->model.layers, pp = p->pp, s, given = 0, left = L;
    static const char *const ff = "--decoder-first-pipeline-num-layers",
                             *lf = "--decoder-last-pipeline-num-layers";
    const char *megatron = p->first_stage_layers || p->last_stage_layers ? "" : NULL;
    if (p->n_stage_list) {
        if (megatron || p->embed_in_split || p->loss_in_split)
            return cs_err_set(err, CS_EINVAL, "parallel.pipeline_layers", "give the list or "
                              "Megatron's first/last stage layers or embedding/loss accounting, "
                              "not both"), NULL;
        if (p->n_stage_list != pp)
            return cs_err_set(err, CS_EINVAL, "parallel.pipeline_layers", "has %d entries, "
                              "one per pipeline stage is needed (pp %d)", p->n_stage_list,
                              pp), NULL;
        for (s = 0; s < pp; s++) {
            if (p->stage_list[s] < 1) {
                char w[64];
                snprintf(w, sizeof w, "parallel.pipeline_layers[%d]", s);
                return cs_err_set(err, CS_EINVAL, w, "must be >= 1, got %d",
                                  p->stage_list[s]), NULL;
            }
            st[s] = p->stage_list[s];
            left -= st[s];
        }
        if (left)
            return cs_err_set(err, CS_EINVAL, "parallel.pipeline_layers", "the stages hold %d "
                              "layers, the model has %d", L - left, L), NULL;
        return "parallel.pipeline_layers";
    }
    if (megatron) {
        /* Megatron-Core: the given first/last stages, the other layers evenly over the
         * stages left ("the left over layers must be divisible by left over stages") */
        const char *w = p->first_stage_layers ? ff : lf;
        int mid, n_mid = pp;
        if (p->embed_in_split || p->loss_in_split)
            return cs_err_set(err, CS_EINVAL, w, "cannot be combined with "
                              "--account-for-embedding/loss-in-pipeline-split (as Megatron)"),
                   NULL;
        if (pp < 2)
            return cs_err_set(err, CS_EINVAL, w, "needs pp > 1, got pp %d", pp), NULL;
        if (p->first_stage_layers)
            left -= p->first_stage_layers, n_mid--, given++;
        if (p->last_stage_layers)
            left -= p->last_stage_layers, n_mid--, given++;
        if (n_mid == 0 && left)
            return cs_err_set(err, CS_EINVAL, w, "the first and last stages hold %d layers, "
                              "the model has %d", L - left, L), NULL;
        if (n_mid > 0 && (left < n_mid || left % n_mid))
            return cs_err_set(err, CS_EINVAL, w, "the other %d layers must split evenly over "
                              "the other %d stages, at least one each (Megatron: the left over "
                              "layers must be divisible by left over stages)", left, n_mid),
                   NULL;
        mid = n_mid > 0 ? left / n_mid : 0;
        for (s = 0; s < pp; s++)
            st[s] = mid;
        if (p->first_stage_layers)
            st[0] = p->first_stage_layers;
        if (p->last_stage_layers)
            st[pp - 1] = p->last_stage_layers;
        for (s = 0; s < pp; s++)
            if (st[s] % v)
                return cs_err_set(err, CS_EINVAL, s == 0 && p->first_stage_layers ? ff
                                  : s == pp - 1 && p->last_stage_layers ? lf : w,
                                  "stage %d's %d layers must be divisible by vp (%d) "
                                  "(Megatron-Core)", s, st[s], v), NULL;
        (void)given;
        return "--decoder-first/last-pipeline-num-layers";
    }
    if (p->embed_in_split || p->loss_in_split) {
        /* Megatron-Core: the embedding and the loss take one layer's place each */
        int n = L + p->embed_in_split + p->loss_in_split;
        const char *w = p->embed_in_split ? "--account-for-embedding-in-pipeline-split"
                                          : "--account-for-loss-in-pipeline-split";
        if (n % pp || (n / pp) % v)
            return cs_err_set(err, CS_EINVAL, w, "layers + embedding + loss (%d) must be "
                              "divisible by pp x vp (%d x %d) (Megatron-Core)", n, pp, v),
                   NULL;
        for (s = 0; s < pp; s++)
            st[s] = n / pp;
        return "--account-for-embedding/loss-in-pipeline-split";
    }
    if (L % ((long)pp * v) == 0) {
        for (s = 0; s < pp; s++)
            st[s] = L / pp;
        return "even";
    }
    if (v > 1)
        return cs_err_set(err, CS_EINVAL, "parallel.pp", "layers (%d) must be divisible by pp "
                          "x vp (%d x %d) with interleaving, or give parallel.pipeline_layers "
                          "(each a multiple of vp) or parallel.pipeline_layout", L, pp, v), NULL;
    if (L < pp)
        return cs_err_set(err, CS_EINVAL, "parallel.pp", "more stages (%d) than layers (%d)",
                          pp, L), NULL;
    {
        /* most even: r stages get one more; the middle stages first, the last of them
         * first (they stash fewer microbatches in 1F1B), then the first stage */
        int q = L / pp, r = L % pp, mids = pp - 2 < r ? pp - 2 : r;
        for (s = 0; s < pp; s++)
            st[s] = q;
        for (s = 0; s < mids; s++)
            st[pp - 2 - s]++;
        if (r > mids)
            st[0]++;
        return "balanced";
    }
}

/* Megatron-Core's layout string: the transformer layers of every virtual stage as written
 * (TransformerConfig refuses it with the first/last stage layers or the embedding/loss
 * accounting, arguments.py with --num-layers-per-virtual-pipeline-stage). *out NULL when
 * every virtual stage holds the same. */
static int from_layout(const cs_plan *p, int v, int **out, cs_err *err)
{
    static const char *const w = "parallel.pipeline_layout";
    cs_pipe_layout l;
    int rc, s, uneven = 0;
    if (p->n_stage_list)
        return cs_err_set(err, CS_EINVAL, w, "give the layout or parallel.pipeline_layers, "
                          "not both");
    if (p->first_stage_layers || p->last_stage_layers || p->embed_in_split || p->loss_in_split)
        return cs_err_set(err, CS_EINVAL, w, "cannot be combined with --decoder-first/last-"
                          "pipeline-num-layers or --account-for-embedding/loss-in-pipeline-"
                          "split (Megatron: the layout cannot be set with other pipeline "
                          "layout arguments)");
    if ((rc = cs_pipe_layout_parse(p->pipeline_layout, w, &l, err)) < 0)
        return rc;
    if ((rc = cs_pipe_layout_check(&l, p->pp, v, p->model.layers, p->model.mtp_layers, w,
                                   err)) < 0) {
        cs_pipe_layout_fini(&l);
        return rc;
    }
    for (s = 1; s < l.n_stages; s++)
        uneven |= l.layers[s] != l.layers[0];
    if (uneven)
        *out = l.layers, l.layers = NULL;
    cs_pipe_layout_fini(&l);
    return 0;
}

int cs_plan_stage_layers(const cs_plan *p, int **out, const char **from, cs_err *err)
{
    int v = p->schedule == CS_PS_GPIPE ? 1 : p->vp, pp = p->pp, s, c, *st, *vs, uneven = 0;
    const char *rule;
    *out = NULL;
    if (pp < 1 || v < 1)
        return cs_err_set(err, CS_EINVAL, "parallel.pp", "pp x vp (%d x %d) out of range", pp,
                          v);
    if (p->pipeline_layout[0]) {
        int rc = from_layout(p, v, out, err);
        if (rc == 0 && from)
            *from = "parallel.pipeline_layout";
        return rc;
    }
    /* a stage holds a layer at least (the embedding's and loss's places aside) */
    if ((long)pp * v > p->model.layers + 2L)
        return cs_err_set(err, CS_EINVAL, "parallel.pp", "more %s (%ld) than layers (%d)",
                          v > 1 ? "virtual stages" : "stages", (long)pp * v, p->model.layers);
    if (!(st = malloc(sizeof *st * (size_t)pp)))
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    if (!(rule = per_stage(p, v, st, err))) {
        free(st);
        return CS_EINVAL;
    }
    for (s = 0; s < pp && p->n_stage_list; s++)
        if (st[s] % v) {
            char w[64];
            snprintf(w, sizeof w, "parallel.pipeline_layers[%d]", s);
            free(st);
            return cs_err_set(err, CS_EINVAL, w, "%d layers do not split into vp (%d) equal "
                              "model chunks (interleaving splits each stage evenly, as "
                              "Megatron-Core)", p->stage_list[s], v);
        }
    if (from)
        *from = rule;
    if (!(vs = malloc(sizeof *vs * (size_t)pp * (size_t)v))) {
        free(st);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    for (c = 0; c < v; c++)
        for (s = 0; s < pp; s++)
            vs[c * pp + s] = st[s] / v;
    free(st);
    /* the embedding's and the loss's places come off the first and last virtual stages */
    if (p->embed_in_split)
        vs[0]--;
    if (p->loss_in_split)
        vs[pp * v - 1]--;
    if (vs[0] < 0 || vs[pp * v - 1] < 0) {
        free(vs);
        return cs_err_set(err, CS_EINVAL, "--account-for-embedding-in-pipeline-split", "not "
                          "enough layers in the first or last virtual stage (Megatron-Core)");
    }
    for (s = 1; s < pp * v; s++)
        uneven |= vs[s] != vs[0];
    if (!uneven) {
        free(vs);
        return 0;
    }
    *out = vs;
    return 0;
}
