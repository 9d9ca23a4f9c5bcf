/* logparse_env.c: the NCCL settings a run states about itself (calibration layer, the log
 * readers): NCCL_* and RCCL_* variables as a launcher passes them (mpirun -x NAME=VALUE,
 * srun --export, an env or export prefix) and as NCCL_DEBUG=INFO echoes them ("NCCL INFO
 * NCCL_ALGO set by environment to Ring"). Kept as "NAME=VALUE" lines, each name once;
 * which of them change what is simulated is algorithms/nccl/env.c's business. */
#include "calibration/logparse-private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ENV_NAME_MAX 64

/* Set name = value in m->env ("NAME=VALUE\n" lines): replace the line of that name or
 * append one. */
static void env_set(cs__log_meta *m, const char *name, size_t nl, const char *val, size_t vl)
{
    size_t old = m->env ? strlen(m->env) : 0, cut = 0, cut_len = 0;
    const char *p = m->env;
    char *n;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        if (len > nl && !strncmp(p, name, nl) && p[nl] == '=') {
            cut = (size_t)(p - m->env);
            cut_len = len;
            break;
        }
        p += len;
    }
    if (!(n = malloc(old - cut_len + nl + vl + 3))) {
        m->env_lost = 1;
        return;
    }
    /* the old lines but the replaced one, in their order, then this one at the place
     * the name was first seen */
    memcpy(n, m->env ? m->env : "", cut_len ? cut : old);
    if (cut_len) {
        size_t at = cut;
        memcpy(n + at, name, nl);
        n[at + nl] = '=';
        memcpy(n + at + nl + 1, val, vl);
        n[at + nl + 1 + vl] = '\n';
        memcpy(n + at + nl + vl + 2, m->env + cut + cut_len, old - cut - cut_len + 1);
    } else {
        memcpy(n + old, name, nl);
        n[old + nl] = '=';
        memcpy(n + old + nl + 1, val, vl);
        n[old + nl + 1 + vl] = '\n';
        n[old + nl + vl + 2] = '\0';
    }
    free(m->env);
    m->env = n;
}

/* A variable name NCCL or RCCL reads: NCCL_ or RCCL_ and then capitals, digits and '_'.
 * Returns its length, 0 if s does not start with one. */
static size_t env_name(const char *s)
{
    size_t i;
    if (strncmp(s, "NCCL_", 5) && strncmp(s, "RCCL_", 5))
        return 0;
    for (i = 5; isupper((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_';
         i++)
        ;
    return i > 5 && i <= ENV_NAME_MAX ? i : 0;
}

/* A value as the shell would pass it: one pair of quotes around it dropped. */
static void env_value(const char *v, size_t len, const char **out, size_t *out_len)
{
    if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
        v++;
        len -= 2;
    }
    *out = v;
    *out_len = len;
}

int cs__log_meta_env_line(cs__log_meta *m, const char *line)
{
    const char *p = line;
    int found = 0;
    while (*p) {
        size_t nl, vl, len;
        const char *v, *s, *next;
        while (*p && (isspace((unsigned char)*p) || *p == '"' || *p == '\'' || *p == ','))
            p++;                      /* a token starts */
        if (!strncmp(p, "--export=", 9) || !strncmp(p, "--env=", 6))
            p = strchr(p, '=') + 1;   /* srun --export=ALL,NCCL_X=1,... */
        if ((nl = env_name(p)) > 0 && p[nl] == '=') {
            s = p + nl + 1;
            len = strcspn(s, " \t");
            /* a list of settings goes on after a comma: NCCL_X=1,NCCL_Y=2 */
            for (next = s; (next = strchr(next, ',')) && next < s + len; next++)
                if (env_name(next + 1))
                    break;
            if (next && next < s + len)
                len = (size_t)(next - s);
            env_value(s, len, &v, &vl);
            if (m)
                env_set(m, p, nl, v, vl);
            found++;
            p = s + len;
            continue;
        }
        while (*p && !isspace((unsigned char)*p) && *p != ',')
            p++;
    }
    return found;
}

int cs__log_meta_env_info(cs__log_meta *m, const char *line)
{
    static const char key[] = " set by environment to ";
    const char *p = strstr(line, "NCCL INFO "), *s, *v;
    size_t nl, vl;
    if (!p)
        return 0;
    p += 10;
    if (!(nl = env_name(p)) || strncmp(p + nl, key, sizeof key - 1))
        return 0;
    s = p + nl + sizeof key - 1;
    env_value(s, strcspn(s, " \t\r\n"), &v, &vl);
    if (vl > 0 && v[vl - 1] == '.')
        vl--;                         /* some versions end the sentence */
    if (vl == 0)
        return 0;
    env_set(m, p, nl, v, vl);
    return 1;
}
