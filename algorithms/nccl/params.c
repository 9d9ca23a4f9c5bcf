/* params.c: NCCL mode parameter tables (algorithms/nccl). Constants from NVIDIA/nccl 2.30.7
 * src/graph/tuning.cc and src/include/device.h as summarised in models.md §2.4-§2.7. */
#include "algorithms/nccl/nccl.h"
#include "sim/limits.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const proto_names[CS_PROTO_COUNT] = {"LL", "LL128", "Simple"};
static const char *const tr_names[CS_TR_COUNT] = {"p2p", "shm", "net"};

const char *cs_transport_name(cs_transport t)
{
    return t >= 0 && t < CS_TR_COUNT ? tr_names[t] : "?";
}

int cs_nccl_transports_str(const cs_sim_costs *c, char *buf, size_t n)
{
    size_t len = 0;
    int i, any = 0;
    if (n)
        buf[0] = 0;
    for (i = 0; i < CS_TR_COUNT; i++) {
        const cs_transport_costs *q = &c->tr[i];
        char part[240];
        int k;
        if (!(q->lat_us > 0 || (q->bw_eff > 0 && q->bw_eff < 1) || q->msg_us > 0 ||
              q->eager_bytes || q->bw_one_GBps > 0 || q->bw_both_GBps > 0))
            continue;
        k = snprintf(part, sizeof part, "%s%s: step %g us", any ? "; " : "", tr_names[i],
                     q->lat_us);
        if (q->bw_eff > 0 && q->bw_eff < 1)
            k += snprintf(part + k, sizeof part - (size_t)k, ", copy x %g", q->bw_eff);
        if (q->msg_us > 0)
            k += snprintf(part + k, sizeof part - (size_t)k, ", proxy %g us per %llu B message",
                          q->msg_us, (unsigned long long)q->msg_bytes);
        if (q->eager_bytes)
            k += snprintf(part + k, sizeof part - (size_t)k, ", a message of at most %llu B "
                          "eager: step %g us, proxy %g us", (unsigned long long)q->eager_bytes,
                          q->eager_lat_us, q->eager_msg_us);
        if (q->bw_one_GBps > 0 || q->bw_both_GBps > 0)
            snprintf(part + k, sizeof part - (size_t)k, ", a pair one way %g GB/s, both ways "
                     "%g GB/s each (0 = the links)", q->bw_one_GBps, q->bw_both_GBps);
        if (len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s", part);
        any = 1;
    }
    return any;
}

/* The ring's protocol figures of 2.30.7 (base_us, hop_us, bw_eff, chunk_bytes,
 * channel_bytes): enabled, base_us (Ring), hop_us (NVLink ring hwLat - LL's), bw_eff,
 * chunk_bytes, channel_bytes (max threads x threadThreshold). */
#define RING_PROTOS_2_30 {                                                                   \
        {1, 6.6, 0.0, 0.5, 32768, 4096},      /* LL: 64 KiB step buffer, half of it data */  \
        {1, 14.0, 1.3, 0.92, 576000, 5120},   /* LL128: 614400 B step, 120 of 128 B data */  \
        {1, 8.4, 2.8, 1.0, 2097152, 32768},   /* Simple: 512 KiB step x 4 chunkSteps */      \
    }

/* Built-in tables, newest first. 2.19.4: the ring's figures are 2.30.7's (tuning.cc at
 * 2.19.4: baseLat Ring 6.6 / 14.0 / 8.4 us, NVLink hwLat Ring 0.6 / 1.9 / 3.4); what
 * collsim models of its own is the p2p rule of 2.13.4-2.19.4 (p2p_op_x4, nccl.h). */
static const struct {
    const char *version;
    cs_nccl_proto proto[CS_PROTO_COUNT];
    int p2p_op_x4;
} tables[] = {
    {"2.30.7", RING_PROTOS_2_30, 0},
    {"2.19.4", RING_PROTOS_2_30, 1},
};
#define N_TABLES (sizeof tables / sizeof tables[0])

const char *const *cs_nccl_versions(void)
{
    static const char *names[N_TABLES + 1];
    size_t i;
    for (i = 0; i < N_TABLES; i++)
        names[i] = tables[i].version;
    names[N_TABLES] = NULL;
    return names;
}

static void fill(cs_nccl_params *p, size_t k)
{
    memset(p, 0, sizeof *p);
    snprintf(p->version, sizeof p->version, "%s", tables[k].version);
    p->launch_us = 0.0;
    p->channels = 1;
    p->max_chunks = 8;
    p->force_proto = -1;
    p->all_channels = 0;
    p->no_fold = 0;
    p->nvls = -1;
    p->nvls_eff = 0.85;
    p->nvls_lat_us = 25.0;
    p->nvls_net_lat_us = 20.9;
    memcpy(p->proto, tables[k].proto, sizeof p->proto);
    p->p2p_op_x4 = tables[k].p2p_op_x4;
}

void cs_nccl_params_default(cs_nccl_params *p)
{
    fill(p, 0);
}

int cs_nccl_params_version(const char *version, cs_nccl_params *p, cs_err *err)
{
    size_t i;
    char known[256] = "";
    for (i = 0; i < N_TABLES; i++) {
        if (!strcmp(tables[i].version, version)) {
            fill(p, i);
            return 0;
        }
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 tables[i].version);
    }
    return cs_err_set(err, CS_ENOENT, "nccl.version", "no built-in table for NCCL '%s' "
                      "(known: %s)", version, known);
}

const char *cs_proto_name(cs_proto p)
{
    return (unsigned)p < CS_PROTO_COUNT ? proto_names[p] : "?";
}

int cs_proto_lookup(const char *name, cs_proto *out, cs_err *err)
{
    int i;
    for (i = 0; i < CS_PROTO_COUNT; i++)
        if (!strcasecmp(name, proto_names[i])) {
            *out = (cs_proto)i;
            return 0;
        }
    return cs_err_set(err, CS_ENOENT, "--proto", "unknown protocol '%s' (known: LL, LL128, "
                      "Simple, auto, none)", name);
}

/* The figure at WHERE.key within [lo, hi] (0 also passes when zero_means is not NULL). */
static int fig(double v, const char *where, const char *key, double lo, double hi,
               const char *unit, const char *zero_means, cs_err *err)
{
    char w[160];
    snprintf(w, sizeof w, "%s.%s", where, key);
    return zero_means ? cs_limit_check_or0(v, lo, hi, unit, zero_means, w, err)
                      : cs_limit_check(v, lo, hi, unit, w, err);
}

/* Latencies within [0, 1 s], bandwidth caps 0 (none) or within the links' range, and
 * efficiencies within [1e-3, 1] (sim/limits.h, docs/limits.md): beyond them a figure is a
 * typo, and picosecond times overflow or a cap of 1e-300 GB/s reads as none. */
int cs_nccl_params_check(const cs_nccl_params *p, const char *where, cs_err *err)
{
    const double L = CS_LIMIT_LAT_MAX_US, B0 = CS_LIMIT_BW_MIN_GBPS, B1 = CS_LIMIT_BW_MAX_GBPS,
                 E = CS_LIMIT_EFF_MIN;
    char w[128];
    int i, rc, any = 0;
    if ((rc = fig(p->launch_us, where, "launch_us", 0, L, "us", NULL, err)) < 0)
        return rc;
    if (p->nvls < -1 || p->nvls > 1)
        return cs_err_set(err, CS_EINVAL, where, "nvls: must be -1 (as the fabric), 0 or 1, "
                          "got %d", p->nvls);
    if ((rc = fig(p->nvls_eff, where, "nvls_eff", E, 1, "", NULL, err)) < 0 ||
        (rc = fig(p->nvls_lat_us, where, "nvls_lat_us", 0, L, "us", NULL, err)) < 0 ||
        (rc = fig(p->nvls_net_lat_us, where, "nvls_net_lat_us", 0, L, "us", NULL, err)) < 0 ||
        (rc = fig(p->channel_GBps, where, "channel_GBps", B0, B1, "GB/s", "no cap", err)) < 0 ||
        (rc = fig(p->tree_GBps, where, "tree_channel_GBps", B0, B1, "GB/s", "channel_GBps",
                  err)) < 0 ||
        (rc = fig(p->p2p_GBps, where, "p2p_channel_GBps", B0, B1, "GB/s", "no cap", err)) < 0)
        return rc;
    if (p->channels < 1 || p->max_chunks < 1)
        return cs_err_set(err, CS_EINVAL, where, "channels and max_chunks must be >= 1, got "
                          "%d and %d", p->channels, p->max_chunks);
    for (i = 0; i < CS_PROTO_COUNT; i++) {
        const cs_nccl_proto *q = &p->proto[i];
        snprintf(w, sizeof w, "%s.protocols.%s", where, proto_names[i]);
        if ((rc = fig(q->base_us, w, "base_us", 0, L, "us", NULL, err)) < 0 ||
            (rc = fig(q->hop_us, w, "hop_us", 0, L, "us", NULL, err)) < 0 ||
            (rc = fig(q->bw_eff, w, "bw_eff", E, 1, "", NULL, err)) < 0)
            return rc;
        if (q->chunk_bytes < 1 || q->channel_bytes < 1)
            return cs_err_set(err, CS_EINVAL, w, "chunk_bytes and channel_bytes must be >= 1, "
                              "got %llu and %llu", (unsigned long long)q->chunk_bytes,
                              (unsigned long long)q->channel_bytes);
        any |= q->enabled;
    }
    if (!any)
        return cs_err_set(err, CS_EINVAL, where, "no protocol is enabled");
    for (i = 0; i < CS_TR_COUNT; i++) {
        const cs_transport_costs *t = &p->tr[i];
        snprintf(w, sizeof w, "%s.transports.%s", where, tr_names[i]);
        if ((rc = fig(t->lat_us, w, "lat_us", 0, L, "us", NULL, err)) < 0 ||
            (rc = fig(p->flush_us[i], w, "flush_us", 0, L, "us", NULL, err)) < 0 ||
            (rc = fig(t->msg_us, w, "msg_us", 0, L, "us", NULL, err)) < 0 ||
            (rc = fig(t->eager_lat_us, w, "eager_lat_us", 0, L, "us", NULL, err)) < 0 ||
            (rc = fig(t->eager_msg_us, w, "eager_msg_us", 0, L, "us", NULL, err)) < 0 ||
            (rc = fig(t->bw_eff, w, "bw_eff", E, 1, "", "none", err)) < 0 ||
            (rc = fig(t->bw_one_GBps, w, "bw_one_GBps", B0, B1, "GB/s", "none", err)) < 0 ||
            (rc = fig(t->bw_both_GBps, w, "bw_both_GBps", B0, B1, "GB/s", "none", err)) < 0)
            return rc;
    }
    if (p->force_proto >= 0 && (p->force_proto >= CS_PROTO_COUNT ||
                                !p->proto[p->force_proto].enabled))
        return cs_err_set(err, CS_EINVAL, where, "protocol %s is forced but disabled",
                          cs_proto_name((cs_proto)p->force_proto));
    return 0;
}

void cs_nccl_costs(const cs_nccl_params *p, cs_proto pr, int nvls, cs_sim_costs *out)
{
    int i;
    memset(out, 0, sizeof *out);
    memcpy(out->tr, p->tr, sizeof out->tr);
    for (i = 0; i < CS_TR_COUNT && !nvls && pr == CS_PROTO_SIMPLE; i++)
        out->tr[i].lat_us += p->flush_us[i];
    out->launch_us = p->launch_us + (nvls ? p->nvls_lat_us : p->proto[pr].base_us);
    out->xfer_lat_us = nvls ? 0.0 : p->proto[pr].hop_us;
    out->bw_eff = p->proto[pr].bw_eff;   /* NVLS: nvls_eff on its NVLink legs (mode.c) */
    out->chan_GBps = p->channel_GBps;
    out->reduce_in_loop = 1;     /* NCCL reduces inside its receive/copy loop */
    out->fifo = 1;               /* and sends a connection's steps in order (one FIFO) */
}

int cs_nccl_channels(const cs_nccl_params *p, cs_proto pr, uint64_t bytes, int ring_ranks)
{
    uint64_t thr = p->proto[pr].channel_bytes;
    int nc = p->channels;
    if (pr == CS_PROTO_LL && ring_ranks > 1)
        thr *= (uint64_t)ring_ranks;
    while (nc > 1 && bytes < (uint64_t)nc * thr)
        nc--;
    return nc;
}

int cs_nccl_chunks(const cs_nccl_params *p, cs_proto pr, uint64_t block_bytes)
{
    uint64_t c = p->proto[pr].chunk_bytes, k = c ? (block_bytes + c - 1) / c : 1;
    if (k < 1)
        k = 1;
    if (k > (uint64_t)p->max_chunks)
        k = (uint64_t)p->max_chunks;
    return (int)k;
}

double cs_nccl_ll_max_GBps(int nodes)
{
    return nodes <= 2 ? 39.0 : 20.4;
}
