/* pipelayout.c: Megatron-Core's pipeline layout string (scenarios layer). The grammar of
 * PipelineParallelLayerLayout.parse_str_to_list (megatron/core/transformer/
 * pipeline_parallel_layer_layout.py, Megatron-LM d98e8a6): commas dropped, "(...)*N"
 * unrolled, then "x*N", then split at '|'; and the checks of its validate_layer_layout.
 * Grammar errors name the character (1-based) in the string as written. */
#include "scenarios/pipelayout.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char known[] = "known: E embedding, t transformer layer, m MTP layer, L loss, "
                            "'|' between virtual stages, x*N and (...)*N repeats, ','";

static int is_layer(int c)
{
    return c == 'E' || c == 't' || c == 'm' || c == 'L';
}

/* The index of the next character after i that is not a comma (n at the end). */
static size_t skip_commas(const char *s, size_t i)
{
    while (s[i] == ',')
        i++;
    return i;
}

/* The grammar on the string as written, so that each error names its character. */
static int lex_check(const char *s, const char *where, cs_err *err)
{
    size_t i, open = 0, inner = 0;   /* open: 1 + the '(' being inside a group, else 0 */
    int prev = 0, any = 0;           /* prev: the last character ('#' a count) */
    for (i = 0; s[i]; i++) {
        int c = (unsigned char)s[i];
        if (c == ',')
            continue;
        if (is_layer(c) || c == '|') {
            prev = c, any = 1, inner += open > 0;
        } else if (c == '(') {
            if (open)
                return cs_err_set(err, CS_EINVAL, where, "nested parentheses at character %zu "
                                  "(the group at character %zu is open; Megatron unrolls "
                                  "one level)", i + 1, open);
            open = i + 1, inner = 0, prev = c;
        } else if (c == ')') {
            if (!open)
                return cs_err_set(err, CS_EINVAL, where, "unbalanced parentheses: ')' at "
                                  "character %zu has no '('", i + 1);
            if (!inner)
                return cs_err_set(err, CS_EINVAL, where, "empty parentheses at character %zu",
                                  open);
            if (s[skip_commas(s, i + 1)] != '*')
                return cs_err_set(err, CS_EINVAL, where, "')' at character %zu must be "
                                  "followed by *N (the group's repeat count)", i + 1);
            open = 0, prev = c;
        } else if (c == '*') {
            size_t j = skip_commas(s, i + 1), d = j;
            long n = 0;
            if (!is_layer(prev) && prev != '|' && prev != ')')
                return cs_err_set(err, CS_EINVAL, where, "'*' at character %zu must follow a "
                                  "layer letter, '|' or ')'", i + 1);
            while (isdigit((unsigned char)s[d]) && n <= CS_PIPE_LAYOUT_MAX_EXPANDED)
                n = n * 10 + (s[d++] - '0');
            if (d == j)
                return cs_err_set(err, CS_EINVAL, where, "'*' at character %zu: expected a "
                                  "repeat count (digits)", i + 1);
            if (n > CS_PIPE_LAYOUT_MAX_EXPANDED)
                return cs_err_set(err, CS_EINVAL, where, "repeat count at character %zu: at "
                                  "most %d", j + 1, CS_PIPE_LAYOUT_MAX_EXPANDED);
            while (isdigit((unsigned char)s[d]))
                d++;
            prev = '#', inner += open > 0, i = d - 1;
        } else if (isdigit(c)) {
            return cs_err_set(err, CS_EINVAL, where, "digit '%c' at character %zu outside a "
                              "repeat count (write x*N)", c, i + 1);
        } else if (isprint(c)) {
            return cs_err_set(err, CS_EINVAL, where, "unknown layer letter '%c' at character "
                              "%zu (%s)", c, i + 1, known);
        } else {
            return cs_err_set(err, CS_EINVAL, where, "unknown byte 0x%02x at character %zu "
                              "(%s)", c, i + 1, known);
        }
    }
    if (open)
        return cs_err_set(err, CS_EINVAL, where, "unbalanced parentheses: '(' at character "
                          "%zu is not closed", open);
    if (!any)
        return cs_err_set(err, CS_EINVAL, where, "expected a layout such as \"Et*3|(tt|)*29,"
                          "m|L\", got \"%.40s\"", s);
    return 0;
}

/* A growing character buffer, capped at CS_PIPE_LAYOUT_MAX_EXPANDED. */
typedef struct buf {
    char *s;                 /* the text (owned, NUL-terminated) */
    size_t n, cap;           /* characters used and allocated */
} buf;

/* Appends the n characters at t, k times. */
static int put(buf *b, const char *t, size_t n, long k, const char *where, cs_err *err)
{
    long i;
    if ((double)n * k > CS_PIPE_LAYOUT_MAX_EXPANDED - (double)b->n)
        return cs_err_set(err, CS_EINVAL, where, "unrolls to more than %d characters",
                          CS_PIPE_LAYOUT_MAX_EXPANDED);
    if (b->n + n * (size_t)k + 1 > b->cap) {
        size_t cap = (b->n + n * (size_t)k + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
        b->s = s, b->cap = cap;
    }
    for (i = 0; i < k; i++, b->n += n)
        memcpy(b->s + b->n, t, n);
    b->s[b->n] = '\0';
    return 0;
}

/* The count after the '*' at s[i] (lex_check saw it), *end past its digits. */
static long count_at(const char *s, size_t i, size_t *end)
{
    long n = 0;
    for (i++; isdigit((unsigned char)s[i]); i++)
        n = n * 10 + (s[i] - '0');
    *end = i;
    return n;
}

/* Megatron's two unrolling passes: groups "(...)*N", then "x*N". *out owned. */
static int unroll(const char *s, const char *where, buf *out, cs_err *err)
{
    buf a = {0}, b = {0};
    size_t i = 0, n = strlen(s), j;
    int rc = 0;
    char *flat = malloc(n + 1);
    if (!flat)
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    for (j = 0; i < n; i++)         /* commas are cosmetic */
        if (s[i] != ',')
            flat[j++] = s[i];
    flat[j] = '\0';
    for (i = 0; flat[i] && rc == 0; ) {
        if (flat[i] == '(') {
            size_t close = i + strcspn(flat + i, ")"), end;
            long k = count_at(flat, close + 1, &end);
            rc = put(&a, flat + i + 1, close - i - 1, k, where, err);
            i = end;
        } else {
            rc = put(&a, flat + i, 1, 1, where, err);
            i++;
        }
    }
    for (i = 0; rc == 0 && a.s && a.s[i]; ) {
        if (a.s[i + 1] == '*') {
            size_t end;
            long k = count_at(a.s, i + 1, &end);
            rc = put(&b, a.s + i, 1, k, where, err);
            i = end;
        } else {
            rc = put(&b, a.s + i, 1, 1, where, err);
            i++;
        }
    }
    free(flat);
    free(a.s);
    if (rc == 0 && !b.s)
        rc = put(&b, "", 0, 0, where, err);
    if (rc < 0) {
        free(b.s);
        return rc;
    }
    *out = b;
    return 0;
}

int cs_pipe_layout_parse(const char *s, const char *where, cs_pipe_layout *out, cs_err *err)
{
    buf b = {0};
    size_t i;
    int rc, st = 0, first = 0, last = 0;   /* the first and last layer letters seen */
    memset(out, 0, sizeof *out);
    out->embed_stage = out->loss_stage = out->mtp_stage = -1;
    if ((rc = lex_check(s, where, err)) < 0 || (rc = unroll(s, where, &b, err)) < 0)
        return rc;
    out->n_stages = 1;
    for (i = 0; i < b.n; i++)
        out->n_stages += b.s[i] == '|';
    if (!(out->layers = calloc((size_t)out->n_stages, sizeof *out->layers))) {
        free(b.s);
        return cs_err_set(err, CS_ENOMEM, NULL, "out of memory");
    }
    for (i = 0; i < b.n; i++) {
        int c = b.s[i];
        if (c == '|') {
            st++;
            continue;
        }
        first = first ? first : c;
        last = c;
        if (c == 't') {
            out->layers[st]++, out->n_layers++;
            out->t_after_mtp |= out->n_mtp > 0;
        } else if (c == 'E') {
            out->n_embed++;
            out->embed_stage = out->embed_stage < 0 ? st : out->embed_stage;
        } else if (c == 'L') {
            out->n_loss++, out->loss_stage = st;
        } else {
            out->n_mtp++;
            out->mtp_split |= out->mtp_stage >= 0 && out->mtp_stage != st;
            out->mtp_stage = out->mtp_stage < 0 ? st : out->mtp_stage;
        }
    }
    out->embed_first = first == 'E';
    out->loss_last = last == 'L';
    free(b.s);
    return 0;
}

void cs_pipe_layout_fini(cs_pipe_layout *l)
{
    if (!l)
        return;
    free(l->layers);
    l->layers = NULL;
}

int cs_pipe_layout_check(const cs_pipe_layout *l, int pp, int vp, int layers, int mtp,
                         const char *where, cs_err *err)
{
    int n = l->n_stages, s, held;
    if ((long)pp * vp != n)
        return cs_err_set(err, CS_EINVAL, where, "has %d virtual stages, pp x vp (%d x %d) = "
                          "%ld are needed (virtual stage i is pipeline stage i %% pp, model "
                          "chunk i / pp, as Megatron)", n, pp, vp, (long)pp * vp);
    if (l->n_embed != 1)
        return cs_err_set(err, CS_EINVAL, where, "has %d E (the embedding), exactly one is "
                          "expected (Megatron)", l->n_embed);
    if (!l->embed_first)
        return cs_err_set(err, CS_EINVAL, where, "must start with E (Megatron: the first "
                          "layer must be the embedding)");
    if (l->embed_stage != 0)
        return cs_err_set(err, CS_EINVAL, where, "E is in virtual stage %d; collsim places "
                          "the embedding on the first virtual stage (0)", l->embed_stage);
    if (l->n_loss != 1)
        return cs_err_set(err, CS_EINVAL, where, "has %d L (the loss), exactly one is "
                          "expected (Megatron)", l->n_loss);
    if (!l->loss_last)
        return cs_err_set(err, CS_EINVAL, where, "must end with L (Megatron: the last layer "
                          "must be the loss)");
    if (l->loss_stage != n - 1)
        return cs_err_set(err, CS_EINVAL, where, "L is in virtual stage %d; collsim places "
                          "the loss on the last virtual stage (%d)", l->loss_stage, n - 1);
    if (l->n_layers != layers)
        return cs_err_set(err, CS_EINVAL, where, "the virtual stages hold %d transformer "
                          "layers (t), the model has %d", l->n_layers, layers);
    if (l->n_mtp != mtp)
        return cs_err_set(err, CS_EINVAL, where, "has %d MTP layers (m), the model has %d "
                          "(mtp_layers; Megatron: the m must match mtp_num_layers)", l->n_mtp,
                          mtp);
    if (l->t_after_mtp)
        return cs_err_set(err, CS_EINVAL, where, "a transformer layer (t) follows an MTP "
                          "layer (m): Megatron places the decoder layers before the MTP");
    if (l->mtp_split)
        return cs_err_set(err, CS_EINVAL, where, "the MTP layers (m) are in more than one "
                          "virtual stage (Megatron: all in the same one)");
    if (l->n_mtp && l->mtp_stage != l->loss_stage)
        return cs_err_set(err, CS_EINVAL, where, "standalone MTP (m in virtual stage %d, L in "
                          "%d) is not modelled: collsim times the MTP modules with the loss; "
                          "put the m in the last virtual stage (as \"...|tmL\")",
                          l->mtp_stage, l->loss_stage);
    /* the step simulation times a pipeline stage per layer it holds */
    for (s = 0; s < pp; s++) {
        int c;
        for (c = 0, held = 0; c < vp; c++)
            held += l->layers[c * pp + s];
        if (!held)
            return cs_err_set(err, CS_EINVAL, where, "pipeline stage %d (virtual stage%s %d%s) "
                              "holds no transformer layer; collsim needs at least one per "
                              "pipeline stage", s, vp > 1 ? "s" : "", s,
                              vp > 1 ? ", pp + it, ..." : "");
    }
    return 0;
}
