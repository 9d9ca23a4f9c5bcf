/* formula.c: an algorithm's closed form rendered for `collsim explain` (algorithms layer,
 * explain.h): the symbols the form uses, each defined once with its value and unit; the
 * form with every product written out ('·'); the form with every symbol replaced by its
 * value and unit. Nothing is evaluated from the text: the total printed is cost(). */
#include "algorithms/explain.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DOT "\xc2\xb7"        /* '·', a product */
#define GAMMA "\xce\xb3"      /* 'γ', reduction time per byte */
#define MU "\xc2\xb5"         /* 'µ' */

/* Symbols in the order their definitions are printed. */
enum { V_P, V_P2, V_L, V_G, V_N, V_X, V_Y, V_Z, V_S, V_A, V_B, V_GAMMA, V_C, V_K, V_KS,
       N_VARS };
static const char *const var_names[N_VARS] = {"p", "p'", "L", "g", "N", "X", "Y", "Z", "S",
                                              "a", "b", GAMMA, "C", "k", "K"};

/* A token of a closed form. */
enum { T_END, T_NUM, T_VAR, T_FUNC, T_OPEN, T_CLOSE, T_TIMES, T_OTHER };
typedef struct tok {
    int kind;                /* T_* */
    int var;                 /* V_* for T_VAR */
    const char *s;           /* its text in the form */
    size_t len;              /* its length, bytes */
} tok;

/* Next token of *f (spaces are T_OTHER, so they are kept). */
static tok next_tok(const char **f)
{
    static const char *const funcs[] = {"log2", "floor", "max", NULL};
    const char *s = *f;
    tok t = {T_OTHER, -1, s, 1};
    int i;
    if (!*s)
        return (tok){T_END, -1, s, 0};
    if (!strncmp(s, GAMMA, 2)) {
        t = (tok){T_VAR, V_GAMMA, s, 2};
    } else if (isdigit((unsigned char)*s) || *s == '.') {
        while (isdigit((unsigned char)s[t.len]) || s[t.len] == '.')
            t.len++;
        t.kind = T_NUM;
    } else if (isalpha((unsigned char)*s)) {
        for (i = 0; funcs[i]; i++)
            if (!strncmp(s, funcs[i], strlen(funcs[i]))) {
                t = (tok){T_FUNC, -1, s, strlen(funcs[i])};
                break;
            }
        if (!funcs[i]) {
            /* Every other letter is one symbol (gN is g times N); p' is one symbol. */
            t.kind = T_VAR;
            if (*s == 'p' && s[1] == '\'')
                t.len = 2;
            for (i = 0; i < N_VARS; i++)
                if (strlen(var_names[i]) == t.len && !strncmp(s, var_names[i], t.len))
                    t.var = i;
        }
    } else if (*s == '(') {
        t.kind = T_OPEN;
    } else if (*s == ')') {
        t.kind = T_CLOSE;
    } else if (*s == '*') {
        t.kind = T_TIMES;
    }
    *f = s + t.len;
    return t;
}

/* Ranks per node and nodes of the group (hierarchical's g and N; one node of p ranks when
 * the topology has no nodes), 0 when the ranks do not split into equal nodes. */
static void node_shape(const cs_coll_req *req, int *g, int *N)
{
    const cs_topo *t = req->topo;
    int k = 1, p = req->n_ranks;
    *g = p;                  /* one node unless the topology says otherwise */
    *N = 1;
    if (!t || t->n_ranks < p || t->nodes[t->ranks[0]].group < 0)
        return;
    while (k < p && t->nodes[t->ranks[k]].group == t->nodes[t->ranks[0]].group)
        k++;
    if (p % k == 0) {
        *g = k;
        *N = p / k;
    } else {
        *g = *N = 0;
    }
}

/* Value and unit of symbol v: the value alone in val, its definition line in def. Returns
 * 1 when the value carries a unit, 0 when it is a plain number, -1 when unknown here. */
static int var_value(int v, const cs_coll_req *req, const cs_ab *ab, char *val, size_t nv,
                     char *def, size_t nd)
{
    int p = req->n_ranks, g, N, dim = v - V_X, unit = 0;
    const cs_topo *t = req->topo;
    node_shape(req, &g, &N);
    switch (v) {
    case V_P: snprintf(val, nv, "%d", p);
        snprintf(def, nd, "p = %d ranks", p); break;
    case V_P2: snprintf(val, nv, "%d", 1 << cs_floor_log2(p));
        snprintf(def, nd, "p' = %s, the largest power of two <= %d", val, p); break;
    case V_L: snprintf(val, nv, "%d", cs_ceil_log2(p));
        snprintf(def, nd, "L = %s = ceil(log2(%d)) rounds", val, p); break;
    case V_G: case V_N:
        if (g == 0)
            return -1;
        snprintf(val, nv, "%d", v == V_G ? g : N);
        snprintf(def, nd, v == V_G ? "g = %d ranks per node" : "N = %d nodes", v == V_G ? g : N);
        break;
    case V_X: case V_Y: case V_Z:
        if (!t || t->n_dims <= dim)
            return -1;
        snprintf(val, nv, "%d", t->dims[dim]);
        snprintf(def, nd, "%s = %d ranks along dimension %d", var_names[v], t->dims[dim], dim);
        break;
    case V_S: snprintf(val, nv, "%llu B", (unsigned long long)req->bytes);
        snprintf(def, nd, "S = %s", val); unit = 1; break;
    case V_A: snprintf(val, nv, "%.6g " MU "s", ab->a_s * 1e6);
        snprintf(def, nd, "a = %s per message (latency)", val); unit = 1; break;
    case V_B: snprintf(val, nv, "%.6g " MU "s/B", ab->b_s_per_B * 1e6);
        snprintf(def, nd, "b = %s = 1/(%.6g GB/s)", val,
                 ab->b_s_per_B > 0 ? 1e-9 / ab->b_s_per_B : 0); unit = 1; break;
    case V_GAMMA: snprintf(val, nv, "%.6g " MU "s/B", ab->g_s_per_B * 1e6);
        snprintf(def, nd, GAMMA " = %s to reduce a byte%s", val,
                 ab->g_s_per_B > 0 ? "" : " (free)"); unit = 1; break;
    case V_C: snprintf(val, nv, "%d", req->channels);
        snprintf(def, nd, "C = %d channel%s", req->channels, req->channels == 1 ? "" : "s");
        break;
    case V_K: snprintf(val, nv, "%d", req->chunks);
        snprintf(def, nd, "k = %d piece%s per step", req->chunks, req->chunks == 1 ? "" : "s");
        break;
    case V_KS: snprintf(val, nv, "%d", req->servers);
        snprintf(def, nd, "K = %d", req->servers); break;
    default:
        return -1;
    }
    return unit;
}

/* Does a value start here: a number, a symbol, a function or '('? Ends one: a number, a
 * symbol or ')'? Between the two a product is implied ("2(p-1)", "gN"). */
static int starts_value(int kind) { return kind == T_NUM || kind == T_VAR || kind == T_FUNC ||
                                           kind == T_OPEN; }
static int ends_value(int kind) { return kind == T_NUM || kind == T_VAR || kind == T_CLOSE; }

/* Append len bytes of s to out (n bytes, *o used), never past the end. */
static void put(char *out, size_t n, size_t *o, const char *s, size_t len)
{
    if (*o + 1 >= n)
        return;
    if (len > n - 1 - *o)
        len = n - 1 - *o;
    memcpy(out + *o, s, len);
    *o += len;
    out[*o] = '\0';
}

/* Does symbol v's value carry a unit (bytes, us, us per byte)? */
static int has_unit(int v) { return v == V_S || v == V_A || v == V_B || v == V_GAMMA; }

/* A product sign in both forms: '·', spaced in the numbers where a unit stands beside it. */
static void times(cs_formula_text *ft, size_t *of, size_t *op, int spaced)
{
    put(ft->form, sizeof ft->form, of, DOT, strlen(DOT));
    put(ft->put, sizeof ft->put, op, spaced ? " " DOT " " : DOT, strlen(DOT) + (spaced ? 2 : 0));
}

int cs_formula_render(const cs_algo *ops, const cs_coll_req *req, const cs_ab *ab,
                      cs_formula_text *ft, cs_err *err)
{
    const char *f = ops->formula ? ops->formula(req) : NULL, *s;
    size_t of = 0, op = 0;
    int used[N_VARS] = {0}, prev = T_OTHER, prev_unit = 0, v;
    tok t, nx;
    memset(ft, 0, sizeof *ft);
    ft->total_s = ops->cost ? ops->cost(req, ab) : NAN;
    if (!f)
        return cs_err_set(err, CS_EUNSUPP, ops->name, "has no closed form");
    if (*f == '~') {
        ft->is_estimate = 1;
        f++;
    }
    /* One pass writes both forms: a product sign wherever one is implied or written ('·',
     * spaced where a value with a unit stands beside it), each symbol's value and unit. */
    for (s = f, t = next_tok(&s); t.kind != T_END; t = nx) {
        char val[64], def[160];
        int unit = 0;
        nx = next_tok(&s);
        if (t.kind == T_VAR) {
            if (t.var < 0 || (unit = var_value(t.var, req, ab, val, sizeof val, def,
                                               sizeof def)) < 0)
                return cs_err_set(err, CS_EINVAL, ops->name, "closed form '%s': symbol '%.*s' "
                                  "has no value for this request", f, (int)t.len, t.s);
            used[t.var] = 1;
        }
        if (ends_value(prev) && starts_value(t.kind))     /* an implied product */
            times(ft, &of, &op, prev_unit || unit);
        if (t.kind == T_TIMES) {
            times(ft, &of, &op, prev_unit || (nx.kind == T_VAR && has_unit(nx.var)));
        } else {
            put(ft->form, sizeof ft->form, &of, t.s, t.len);
            if (t.kind == T_VAR)
                put(ft->put, sizeof ft->put, &op, val, strlen(val));
            else
                put(ft->put, sizeof ft->put, &op, t.s, t.len);
        }
        prev = t.kind;
        prev_unit = t.kind == T_VAR && unit;
    }
    /* The definitions, in a fixed order, of the symbols used. */
    for (v = 0; v < N_VARS; v++) {
        char val[64], def[160];
        size_t o = strlen(ft->vars);
        if (!used[v] || var_value(v, req, ab, val, sizeof val, def, sizeof def) < 0)
            continue;
        snprintf(ft->vars + o, sizeof ft->vars - o, "%s%s", o ? "\n" : "", def);
    }
    return 0;
}
