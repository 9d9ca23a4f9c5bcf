/* env.c: NCCL's environment variables as settings (algorithms/nccl): a log's command line
 * says NCCL_ALGO=Ring or NCCL_MIN_NCHANNELS=32, and the run it measured ran so. The ones
 * that change what collsim simulates are applied to the parameters as NCCL reads them
 * (src/graph/tuning.cc: NCCL_ALGO / NCCL_PROTO lists with "^" for "all but"; src/init.cc:
 * the channel bounds; src/transport/nvls.cc: NCCL_NVLS_ENABLE; src/transport/p2p.cc and
 * shm.cc: the DISABLE switches); names, files and debug output are known to leave the time
 * alone; anything else is said to be not modelled, never dropped in silence. */
#include "algorithms/nccl/nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const applied[] = {
    "NCCL_ALGO", "NCCL_PROTO", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS",
    "NCCL_MIN_NRINGS", "NCCL_MAX_NRINGS", "NCCL_NVLS_ENABLE", "NCCL_P2P_DISABLE",
    "NCCL_SHM_DISABLE", NULL};

/* Where output goes, which interface or device names, timeouts that never fire in a
 * healthy run: no bearing on a collective's time. */
static const char *const no_effect[] = {
    "NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_TIMESTAMP_FORMAT",
    "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_DUMP_FILE", "NCCL_SOCKET_IFNAME", "NCCL_SOCKET_FAMILY",
    "NCCL_IB_GID_INDEX", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_COMM_ID", "NCCL_HOSTID",
    "NCCL_ASYNC_ERROR_HANDLING", "NCCL_SET_THREAD_NAME", "NCCL_WARN_ENABLE_DEBUG_INFO",
    "NCCL_RAS_ENABLE", NULL};

static int listed(const char *const *names, const char *name)
{
    int i;
    for (i = 0; names[i]; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

cs_nccl_env_kind cs_nccl_env_kind_of(const char *name)
{
    return listed(applied, name)     ? CS_NCCL_ENV_APPLIED
           : listed(no_effect, name) ? CS_NCCL_ENV_NO_EFFECT
                                     : CS_NCCL_ENV_NOT_MODELLED;
}

/* "0" or "1" as NCCL's integer parameters read them; -1 otherwise. */
static int flag_of(const char *v)
{
    char *end;
    long x = strtol(v, &end, 10);
    return end != v && *end == '\0' && (x == 0 || x == 1) ? (int)x : -1;
}

/* NCCL_PROTO: "LL,LL128", "^LL128" (all but), case as NCCL takes it. */
static int proto_list(cs_nccl_params *np, const char *name, const char *v, char *note,
                      size_t n, cs_err *err)
{
    int on[CS_PROTO_COUNT] = {0}, neg = v[0] == '^', p, any = 0;
    const char *s = v + neg;
    for (;;) {
        size_t len = strcspn(s, ",");
        for (p = 0; p < CS_PROTO_COUNT; p++)
            if (strlen(cs_proto_name((cs_proto)p)) == len &&
                !strncasecmp(s, cs_proto_name((cs_proto)p), len))
                break;
        if (p == CS_PROTO_COUNT)
            return cs_err_set(err, CS_EINVAL, name, "unknown protocol '%.*s' in '%s' (known: "
                              "LL, LL128, Simple)", (int)len, s, v);
        on[p] = 1;
        if (!s[len])
            break;
        s += len + 1;
    }
    for (p = 0; p < CS_PROTO_COUNT; p++) {
        np->proto[p].enabled = neg ? !on[p] : on[p];
        any |= np->proto[p].enabled;
    }
    if (!any)
        return cs_err_set(err, CS_EINVAL, name, "'%s' leaves no protocol", v);
    snprintf(note, n, "protocols%s%s%s", np->proto[CS_PROTO_LL].enabled ? " LL" : "",
             np->proto[CS_PROTO_LL128].enabled ? " LL128" : "",
             np->proto[CS_PROTO_SIMPLE].enabled ? " Simple" : "");
    return 0;
}

/* NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS (and their old names *_NRINGS): the bounds of
 * every channel count NCCL would run, NCCL's MAXCHANNELS (64) the most. */
static int channel_bound(cs_nccl_params *np, const char *name, const char *v, char *note,
                         size_t n, cs_err *err)
{
    char *end;
    long x = strtol(v, &end, 10);
    int is_min = strstr(name, "_MIN_") != NULL, before = np->channels, k;
    if (end == v || *end || x < 1 || x > 1000000)
        return cs_err_set(err, CS_EINVAL, name, "expected a positive channel count, got '%s'",
                          v);
    if (x > 64)
        x = 64;
#define BOUND(c) ((c) = is_min ? ((c) < x ? (int)x : (c)) : ((c) > x ? (int)x : (c)))
    BOUND(np->channels);
    if (np->net_channels > 0)
        BOUND(np->net_channels);
    if (np->p2p_channels > 0)
        BOUND(np->p2p_channels);
    for (k = 2; k <= np->plan_n; k++) {
        int c = np->plan_ch[k];
        BOUND(c);
        np->plan_ch[k] = (unsigned char)c;
    }
#undef BOUND
    if (before != np->channels)
        snprintf(note, n, "%d -> %d channels", before, np->channels);
    else
        snprintf(note, n, "%d channels already", np->channels);
    return 0;
}

int cs_nccl_env_apply(cs_nccl_params *np, const cs_topo *t, const char *name,
                      const char *value, char *note, size_t n, cs_err *err)
{
    int f;
    note[0] = '\0';
    if (!strcmp(name, "NCCL_ALGO")) {
        unsigned mask, all = CS_NCCL_ALGO_RING | CS_NCCL_ALGO_TREE | CS_NCCL_ALGO_NVLS;
        int neg = value[0] == '^', rc;
        if (strchr(value, ':') || strchr(value, ';')) {
            snprintf(note, n, "per-collective form: NCCL's choice kept");
            return 1;
        }
        if ((rc = cs_nccl_algo_parse(value + neg, name, &mask, err)) < 0)
            return rc;
        np->algo_mask = neg ? all & ~mask : mask;
        if (!np->algo_mask)
            return cs_err_set(err, CS_EINVAL, name, "'%s' leaves no algorithm", value);
        snprintf(note, n, "algorithms%s%s%s", np->algo_mask & CS_NCCL_ALGO_RING ? " Ring" : "",
                 np->algo_mask & CS_NCCL_ALGO_TREE ? " Tree" : "",
                 np->algo_mask & CS_NCCL_ALGO_NVLS ? " NVLS" : "");
        return 0;
    }
    if (!strcmp(name, "NCCL_PROTO"))
        return proto_list(np, name, value, note, n, err);
    if (strstr(name, "CHANNELS") || strstr(name, "NRINGS"))
        return channel_bound(np, name, value, note, n, err);
    if ((f = flag_of(value)) < 0)
        return cs_err_set(err, CS_EINVAL, name, "expected 0 or 1, got '%s'", value);
    if (!strcmp(name, "NCCL_NVLS_ENABLE")) {
        if (f && !np->nvls)
            snprintf(note, n, "no switch of this topology reduces: no NVLS to run");
        else
            snprintf(note, n, f ? "NVLS on, as the topology has it" : "NVLS off");
        if (!f)
            np->nvls = 0;
        return 0;
    }
    /* NCCL_P2P_DISABLE / NCCL_SHM_DISABLE */
    np->tr_off[!strcmp(name, "NCCL_P2P_DISABLE") ? CS_TR_P2P : CS_TR_SHM] = (unsigned char)f;
    snprintf(note, n, f ? "transport off" : "no change");
    if (f && cs_nccl_check_transports(t, np, name, err) < 0) {
        /* the topology's message, said of the log's setting */
        const char *but = strstr(err->msg, "but ");
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", but ? but + 4 : err->msg);
        return cs_err_set(err, CS_EINVAL, name, "=1 in the log turns %s off, but %s",
                          strstr(name, "P2P") ? "P2P" : "SHM", msg);
    }
    return 0;
}
