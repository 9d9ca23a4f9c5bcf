/* pipelayout.h: Megatron-Core's pipeline layout string (scenarios layer): what each virtual
 * pipeline stage holds, as --pipeline-model-parallel-layout / TransformerConfig's
 * pipeline_model_parallel_layout write it ("Et*3|(tt|)*29,m|L"), parsed into transformer
 * layers per virtual stage (megatron/core/transformer/pipeline_parallel_layer_layout.py). */
#ifndef CS_PIPELAYOUT_H
#define CS_PIPELAYOUT_H

#include "sim/err.h"

/* Most characters a layout may unroll to (its repeats expanded). */
#define CS_PIPE_LAYOUT_MAX_EXPANDED (1 << 20)

/* A parsed layout. Virtual stage i (in the string's order) is pipeline stage i % pp, model
 * chunk i / pp, as in Megatron. */
typedef struct cs_pipe_layout {
    int n_stages;            /* virtual stages ('|'-separated parts, empty ones included) */
    int *layers;             /* transformer layers ('t') of each virtual stage (owned) */
    int n_layers;            /* 't' in all */
    int n_embed, n_loss;     /* 'E' and 'L' in all */
    int n_mtp;               /* 'm' (multi-token prediction layers) in all */
    int embed_stage;         /* virtual stage of the first 'E' (-1: none) */
    int loss_stage;          /* virtual stage of the last 'L' (-1: none) */
    int mtp_stage;           /* virtual stage of the first 'm' (-1: none) */
    int mtp_split;           /* 1: the 'm' are not all in one virtual stage */
    int embed_first;         /* 1: 'E' is the first layer of the unrolled layout */
    int loss_last;           /* 1: 'L' is the last layer of the unrolled layout */
    int t_after_mtp;         /* 1: a 't' comes after an 'm' */
} cs_pipe_layout;

/* Parses the grammar of s: letters E (embedding), t (transformer layer), m (MTP layer), L
 * (loss); '|' between virtual stages; "x*N" repeats the one character before it; "(...)*N"
 * repeats a group (one level, as Megatron's regular expressions unroll); ',' is cosmetic.
 * Refuses, with where and the character's position: unknown characters, unbalanced or
 * nested parentheses, a group without *N, '*' without a count or not after a letter, '|'
 * or ')', a layout that unrolls to more than CS_PIPE_LAYOUT_MAX_EXPANDED characters.
 * Fills *out (cs_pipe_layout_fini frees it). Returns 0, CS_EINVAL or CS_ENOMEM. */
int cs_pipe_layout_parse(const char *s, const char *where, cs_pipe_layout *out, cs_err *err);
void cs_pipe_layout_fini(cs_pipe_layout *l);

/* Megatron's validate_layer_layout for pp x vp stages of a model with `layers` transformer
 * layers and `mtp` MTP layers, and collsim's placement (embedding on the first virtual
 * stage, the loss and the MTP modules on the last): the stage count is pp x vp, one E,
 * first, in virtual stage 0; one L, last, in the last virtual stage; as many t as layers;
 * as many m as mtp, after every t, in the loss's stage. Returns 0 or CS_EINVAL. */
int cs_pipe_layout_check(const cs_pipe_layout *l, int pp, int vp, int layers, int mtp,
                         const char *where, cs_err *err);

#endif
