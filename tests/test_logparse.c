/* test_logparse.c: the log readers (calibration/logparse.h). One test per published log in
 * tests/data/real/ asserting the row, rank and node counts that its MANIFEST entry implies
 * (rows counted by hand from the file), the shapes the readers accept (MPI labels, NCCL
 * chatter, several tables, N/A, old 12-column tables, JSON, hccl_test), and the messages for
 * bad logs (tests/data/bad/log-*). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/testutil.h"
#include "calibration/logparse.h"

/* What a published log must parse to. tables > 1 repeats ranks/nodes per table below. */
typedef struct real_case {
    const char *file;        /* under tests/data/real/ */
    cs_coll dflt;            /* default collective given by the caller */
    cs_coll coll;            /* expected collective */
    int from_log;            /* the log names it itself */
    int rows;                /* rows in all tables */
    int ranks, nodes;        /* of the first table; nodes 0 = unknown */
    double first_us, last_us;   /* time of the first and last row */
    const char *device;      /* device model, NULL = not checked */
} real_case;

static cs_log *parse_real(const real_case *c)
{
    char rel[256];
    cs_log_opts o;
    cs_log *log = NULL;
    cs_err err;
    cs_log_opts_init(&o);
    o.default_coll = c->dflt;
    snprintf(rel, sizeof rel, "real/%s", c->file);
    if (cs_log_parse_file(cs_test_data(rel), &o, &log, &err) < 0)
        fprintf(stderr, "\n  %s: %s\n", err.where, err.msg);
    return log;
}

/* Invariants of every published table: sizes never go down within a table, every row has
 * a positive time, and the printed algbw is size / time within print rounding. */
static void check_invariants(const cs_log *log)
{
    int t, i;
    for (t = 0; t < log->n_tables; t++) {
        const cs_log_table *tb = &log->tables[t];
        for (i = 0; i < tb->n_rows; i++) {
            const cs_log_row *r = &tb->rows[i];
            CU_ASSERT(r->time_us > 0);
            CU_ASSERT(r->line > 0);
            if (i > 0)
                CU_ASSERT(r->size_bytes >= tb->rows[i - 1].size_bytes);
            if (isfinite(r->oop_algbw_GBps) && r->oop_time_us > 0) {
                double a = (double)r->size_bytes / r->oop_time_us / 1e3;
                CU_ASSERT(fabs(a - r->oop_algbw_GBps) <= 0.006 + 0.002 * a);
            }
        }
    }
}

static void check_real(const real_case *c)
{
    cs_log *log = parse_real(c);
    const cs_log_table *t0, *tl;
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_EQUAL(log->format, CS_LOG_NCCL_TEXT);
    CU_ASSERT_EQUAL(cs_log_n_rows(log), c->rows);
    t0 = &log->tables[0];
    tl = &log->tables[log->n_tables - 1];
    CU_ASSERT_EQUAL(t0->coll, c->coll);
    CU_ASSERT_EQUAL(t0->coll_from_log, c->from_log);
    CU_ASSERT_EQUAL(t0->ranks, c->ranks);
    CU_ASSERT_EQUAL(t0->nodes, c->nodes);
    CS_ASSERT_REL(t0->rows[0].time_us, c->first_us, 1e-12);
    CS_ASSERT_REL(tl->rows[tl->n_rows - 1].time_us, c->last_us, 1e-12);
    if (c->device)
        CU_ASSERT_STRING_EQUAL(t0->device, c->device);
    check_invariants(log);
    cs_log_free(log);
}

#define AR CS_COLL_ALLREDUCE
#define UNK CS_LOG_COLL_UNKNOWN
#define REAL(fn, ...) \
    static void fn(void) { static const real_case c = {__VA_ARGS__}; check_real(&c); }

/* file, default, coll, from_log, rows, ranks, nodes, first time, last time, device */
REAL(t_a100_1n8, "nccl-a100-oci-1n8-allreduce-10G-nvswitch.log", UNK, AR, 1, 1, 8, 1,
     80922, 80922, "NVIDIA A100-SXM4-40GB")
REAL(t_a100_roce, "nccl-a100-oci-2n16-allreduce-10G-roce.log", UNK, AR, 1, 1, 16, 2,
     90330, 90330, "NVIDIA A100-SXM4-40GB")
REAL(t_a100_untuned, "nccl-a100-oci-2n16-allreduce-10G-ubuntu-untuned.log", UNK, AR, 1, 1,
     16, 2, 353220, 353220, NULL)
/* no header: 16 ranks derived from busbw/algbw = 1.875; nodes not in the log */
REAL(t_p4de, "nccl-a100-p4de-2n16-allreduce-efa.log", AR, AR, 0, 29, 16, 0, 164.3, 51406,
     "")
REAL(t_b200, "nccl-b200-gcp-a4-2n16-allgather-roce.log", UNK, CS_COLL_ALLGATHER, 1, 24, 16,
     2, 280.4, 30970, "NVIDIA B200")
REAL(t_gh200_nocxi, "nccl-gh200-2n8-allreduce-slingshot-nocxihook.log", UNK, AR, 1, 25, 8, 2,
     85.47, 43293, "NVIDIA GH200 120GB")
REAL(t_gh200, "nccl-gh200-2n8-allreduce-slingshot.log", UNK, AR, 1, 25, 8, 2, 17.93, 1916.4,
     NULL)
/* device list cut at rank 99 of 1024 (-np 1024); 8 ranks per host listed -> 128 nodes */
REAL(t_h100_1024, "nccl-h100-128n1024-allreduce-ring-ll128-ib.log", UNK, AR, 1, 5, 1024, 128,
     19355, 93457, "NVIDIA H100 80GB HBM3")
REAL(t_h100_1n8, "nccl-h100-1n8-allreduce-nvswitch-256M-2G.log", UNK, AR, 1, 4, 8, 1, 1119.8,
     7983.5, NULL)
REAL(t_h100_a3mega, "nccl-h100-2n16-allreduce-gcp-a3mega.log", UNK, AR, 1, 31, 16, 2, 135.8,
     47535, NULL)
REAL(t_h100_ib, "nccl-h100-2n16-allreduce-ib-256M-8G.log", UNK, AR, 1, 6, 16, 2, 1291.8,
     34417, NULL)
REAL(t_h100_oci, "nccl-h100-oci-2n16-allreduce-roce.log", UNK, AR, 1, 5, 16, 2, 4511.2, 69338,
     NULL)
/* "[1,0]<stdout>:" labels, two size-0 rows: 0, 0, 4, 8 ... 2 GiB */
REAL(t_h100_eks, "nccl-h100-p5-2n16-allreduce-efa-eks.log", AR, AR, 0, 32, 16, 0, 15.51,
     9197.5, NULL)
/* "0:" labels, 8 B - 16 GiB */
REAL(t_h100_p5, "nccl-h100-p5-2n16-allreduce-efa.log", AR, AR, 0, 32, 16, 0, 69.12, 66132,
     NULL)
REAL(t_2080_ar, "nccl-rtx2080ti-1n2-allreduce-pcie3-nop2p.log", UNK, AR, 1, 28, 2, 1, 12.25,
     268588, "NVIDIA GeForce RTX 2080 Ti")
/* alltoall: in-place #wrong N/A, two size-0 rows */
REAL(t_2080_a2a, "nccl-rtx2080ti-1n2-alltoall-pcie3-nop2p.log", UNK, CS_COLL_ALLTOALL, 1, 28,
     2, 1, 12.97, 116573, NULL)
REAL(t_4090_docker, "nccl-rtx4090-1n2-allreduce-pcie-docker.log", AR, AR, 0, 29, 2, 1, 8.97,
     957746, NULL)
REAL(t_4090_k8s, "nccl-rtx4090-1n2-allreduce-pcie-k8s.log", AR, AR, 0, 29, 2, 1, 10.98,
     557166, NULL)
/* the same host as the docker pair (bus ids 0x1a/0x1b) with two more GPUs, 0x3d/0x3e */
REAL(t_4090_d4, "nccl-rtx4090-1n4-allreduce-pcie-docker.log", AR, AR, 0, 29, 4, 1, 18.90,
     1246110, NULL)
REAL(t_4090_k4, "nccl-rtx4090-1n4-allreduce-pcie-k8s.log", AR, AR, 0, 29, 4, 1, 20.46,
     1242243, NULL)
REAL(t_4090_1n8, "nccl-rtx4090-1n8-allreduce-pcie-nop2p.log", UNK, AR, 1, 25, 8, 1, 38.83,
     16253, "NVIDIA GeForce RTX 4090")
REAL(t_5090, "nccl-rtx5090-1n8-allreduce-pcie5-p2p-patched.log", UNK, AR, 1, 25, 8, 1, 25.47,
     5355.16, NULL)
REAL(t_6000d_ar, "nccl-rtx6000d-2n16-allreduce-p2pshm-disabled-net.log", UNK, AR, 1, 24, 16,
     2, 63.73, 435186, "NVIDIA Graphics Device")
/* MPI warnings between the header and the rows */
REAL(t_6000d_a2a, "nccl-rtx6000d-2n16-alltoall-spcx-roce.log", UNK, CS_COLL_ALLTOALL, 1, 24,
     16, 2, 55.66, 224292, "NVIDIA RTX 6000D")
/* " 0:" labels, no device list: 32 ranks from busbw/algbw = 1.9375 */
REAL(t_mi250x, "rccl-mi250x-4n32-allreduce-ss11.log", AR, AR, 0, 17, 32, 0, 78.91, 89585, NULL)
REAL(t_mi300x, "rccl-mi300x-1n8-allreduce.log", UNK, AR, 1, 31, 8, 1, 19.28, 47617,
     "AMD Instinct MI300X")
REAL(t_mi300xvf, "rccl-mi300xvf-1n8-allreduce-azure.log", AR, AR, 0, 25, 8, 1, 45.92, 801.4,
     "AMD Instinct MI300X VF")
REAL(t_mi350x, "rccl-mi350x-1n8-allreduce-amddoc.log", AR, AR, 0, 31, 8, 1, 58.63, 41644,
     "AMD Instinct MI350X")

/* Third batch (tests/data/real/MANIFEST-batch3.md). Several tables of one collective at other
 * rank counts (blocks of 1, 2, 16, 32 GB300 trays; 1 and 2 B300 nodes; 1, 2, 4 MI355X
 * nodes), partial as published (only the largest sizes). */
REAL(t_a100_sendrecv, "nccl-a100-1n8-sendrecv-nvlink-g8.log", UNK, CS_COLL_SENDRECV, 1, 4, 8,
     1, 1211.2, 5503.4, NULL)
/* "[1,0]<stdout>:" labels, old 12-column table (no root column) */
REAL(t_p4d_299, "nccl-a100-p4d-2n16-allreduce-efa-eks-nccl299.log", AR, AR, 0, 30, 16, 2,
     179.1, 183834, "A100-SXM4-40GB")
/* no device list, 16 ranks from busbw/algbw; nodes 1 by the reader's rule "a command (here
 * the "Collective test starting" line) without a launcher is one process on one host": the
 * run had 2 nodes (dstack's mpirun, not in the log) - a known miss of that rule */
REAL(t_b200_lambda, "nccl-b200-lambda1cc-2n16-allreduce-ib-dstack.log", UNK, AR, 1, 29, 16,
     1, 36.50, 5784.75, NULL)
REAL(t_b300_ar, "nccl-b300-oci-1-2node-allreduce-roce.log", UNK, AR, 1, 3, 8, 1, 18006, 42007,
     NULL)
REAL(t_b300_a2a, "nccl-b300-oci-1-2node-alltoall-roce.log", UNK, CS_COLL_ALLTOALL, 1, 2, 8, 0,
     11126, 44498, NULL)
REAL(t_gb300, "nccl-gb300-oci-1-32node-allreduce-mnnvl-roce.log", UNK, AR, 1, 8, 4, 1, 18920,
     46170, "NVIDIA GB300")
REAL(t_a3high, "nccl-h100-gcp-a3high-2n16-allreduce-tcpx.log", AR, AR, 0, 14, 16, 0, 1788.7,
     179880, NULL)
REAL(t_mi355x_ar, "rccl-mi355x-oci-1n8-allreduce-xgmi.log", UNK, AR, 1, 2, 8, 1, 36956, 73913,
     "AMD Instinct MI355X")
REAL(t_mi355x_a2a, "rccl-mi355x-oci-1n8-alltoall-xgmi.log", UNK, CS_COLL_ALLTOALL, 1, 2, 8, 1,
     20837, 41593, "AMD Instinct MI355X")
REAL(t_mi355x_roce, "rccl-mi355x-oci-pollara-1-4node-allreduce-roce.log", AR, AR, 0, 6, 8, 0,
     36863, 89839, NULL)

/* Four tables of 3 rows (4, 8, 16 GiB) for 1, 2, 4 and 8 nodes of 8 GPUs: ranks from the
 * busbw/algbw ratio, nodes from the "====== N-node ======" banners. */
static void t_mi325x(void)
{
    static const real_case c = {"rccl-mi325x-1-8node-allreduce-ring-large.log", AR, AR, 0, 12,
                                8, 1, 23719, 96405, ""};
    cs_log *log;
    int i;
    check_real(&c);
    log = parse_real(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_EQUAL_FATAL(log->n_tables, 4);
    for (i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(log->tables[i].n_rows, 3);
        CU_ASSERT_EQUAL(log->tables[i].ranks, 8 << i);
        CU_ASSERT_EQUAL(log->tables[i].ranks_src, CS_LOG_SRC_BUSBW);
        CU_ASSERT_EQUAL(log->tables[i].nodes, 1 << i);
        CU_ASSERT_EQUAL(log->tables[i].nodes_src, CS_LOG_SRC_BANNER);
        CU_ASSERT_EQUAL(log->tables[i].rows[0].size_bytes, 4294967296ull);
        CU_ASSERT_EQUAL(log->tables[i].rows[2].size_bytes, 17179869184ull);
    }
    CS_ASSERT_REL(log->tables[1].rows[0].time_us, 23192, 1e-12);
    cs_log_free(log);
}

/* ---------------------------------------------------------------- shapes */

static cs_log *parse_str(const char *text, cs_coll dflt, cs_err *err)
{
    cs_log_opts o;
    cs_log *log = NULL;
    cs_log_opts_init(&o);
    o.default_coll = dflt;
    if (cs_log_parse_mem("inline.log", text, strlen(text), &o, &log, err) < 0)
        return NULL;
    return log;
}

/* log-mixed.log: an all_gather run on 4 ranks over 2 hosts with NCCL INFO/WARN lines in
 * and around the table; a sendrecv run (-g 2, one process) whose first out-of-place time is
 * N/A; a run in the old 12-column format (no root column, "error" columns) that names no
 * collective and says nGpus 8. */
static void t_mixed(void)
{
    cs_log *log = NULL;
    cs_err err;
    const cs_log_table *t;
    CU_ASSERT_EQUAL_FATAL(cs_log_parse_file(cs_test_data("ok/log-mixed.log"), NULL, &log, &err), 0);
    CU_ASSERT_EQUAL_FATAL(log->n_tables, 3);
    t = &log->tables[0];
    CU_ASSERT_EQUAL(t->coll, CS_COLL_ALLGATHER);
    CU_ASSERT_EQUAL(t->n_rows, 3);
    CU_ASSERT_EQUAL(t->ranks, 4);
    CU_ASSERT_EQUAL(t->ranks_src, CS_LOG_SRC_DEVICES);
    CU_ASSERT_EQUAL(t->nodes, 2);
    CU_ASSERT_STRING_EQUAL(t->device, "NVIDIA A100-SXM4-80GB");
    CU_ASSERT_STRING_EQUAL(t->rows[0].redop, "none");
    CU_ASSERT_EQUAL(t->rows[1].line, 17);      /* after the WARN line 16 */
    CS_ASSERT_REL(t->rows[2].ip_time_us, 14.2, 1e-12);
    t = &log->tables[1];
    CU_ASSERT_EQUAL(t->coll, CS_COLL_SENDRECV);
    CU_ASSERT_EQUAL(t->ranks, 2);
    CU_ASSERT_EQUAL(t->ranks_src, CS_LOG_SRC_CMDLINE);
    CU_ASSERT_EQUAL(t->nodes, 1);
    CU_ASSERT(isnan(t->rows[0].oop_time_us));
    CS_ASSERT_REL(t->rows[0].time_us, 6.25, 1e-12);   /* in-place stands in */
    CU_ASSERT_EQUAL(t->rows[0].oop_wrong, -1);
    CS_ASSERT_REL(t->rows[1].time_us, 6.5, 1e-12);
    t = &log->tables[2];
    CU_ASSERT_EQUAL(t->coll, CS_LOG_COLL_UNKNOWN);
    CU_ASSERT_EQUAL(t->coll_from_log, 0);
    CU_ASSERT_EQUAL(t->ranks, 8);
    CU_ASSERT_EQUAL(t->rows[0].root, -1);
    CU_ASSERT_EQUAL(t->rows[0].size_bytes, 1048576);
    CU_ASSERT_EQUAL(t->rows[0].count, 262144);
    CS_ASSERT_REL(t->rows[0].time_us, 50.97, 1e-12);
    CS_ASSERT_REL(t->rows[2].ip_busbw_GBps, 32.23, 1e-12);
    CU_ASSERT_EQUAL(t->rows[2].ip_wrong, 0);
    cs_log_free(log);
}

/* log-nccl.json: the assumed nccl-tests -J layout (see calibration/logparse_json.c). */
static void t_json(void)
{
    cs_log *log = NULL;
    cs_err err;
    const cs_log_table *t;
    CU_ASSERT_EQUAL_FATAL(cs_log_parse_file(cs_test_data("ok/log-nccl.json"), NULL, &log, &err), 0);
    CU_ASSERT_EQUAL(log->format, CS_LOG_NCCL_JSON);
    CU_ASSERT_EQUAL_FATAL(log->n_tables, 1);
    t = &log->tables[0];
    CU_ASSERT_EQUAL(t->coll, CS_COLL_ALLREDUCE);
    CU_ASSERT_EQUAL(t->n_rows, 6);             /* 1 KiB .. 1 MiB by 4 */
    CU_ASSERT_EQUAL(t->ranks, 8);
    CU_ASSERT_EQUAL(t->nodes, 2);
    CU_ASSERT_STRING_EQUAL(t->device, "NVIDIA H100 80GB HBM3");
    CU_ASSERT_EQUAL(t->rows[5].size_bytes, 1048576);
    CS_ASSERT_REL(t->rows[0].time_us, 20.01, 1e-12);   /* 20 + 1024 / 100e3, rounded */
    CS_ASSERT_REL(t->rows[0].ip_time_us, 20.21, 1e-12);
    cs_log_free(log);
}

/* collsim's own --format json reads back: flat keys, ranks given, no devices. */
static void t_json_flat(void)
{
    static const char text[] =
        "{\"collective\": \"alltoall\", \"algorithm\": \"pairwise\", \"ranks\": 4,\n"
        " \"results\": [{\"size_bytes\": 1024, \"count\": 64, \"time_us\": 3.5,\n"
        "   \"algbw_GBps\": 0.29, \"busbw_GBps\": 0.22, \"wrong\": 0},\n"
        "  {\"size_bytes\": 2048, \"count\": 128, \"time_us\": 4.5, \"wrong\": -1}]}\n";
    cs_err err;
    cs_log *log = parse_str(text, CS_LOG_COLL_UNKNOWN, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_EQUAL(log->tables[0].coll, CS_COLL_ALLTOALL);
    CU_ASSERT_EQUAL(log->tables[0].ranks, 4);
    CU_ASSERT_EQUAL(log->tables[0].n_rows, 2);
    CS_ASSERT_REL(log->tables[0].rows[1].time_us, 4.5, 1e-12);
    CU_ASSERT(isnan(log->tables[0].rows[1].ip_time_us));
    cs_log_free(log);
}

/* log-hccl.log: 16 NPUs (mpirun -n 16), 8 per server (-p 8); busbw = algbw x 2*15/16. */
static void t_hccl(void)
{
    cs_log *log = NULL;
    cs_err err;
    const cs_log_table *t;
    CU_ASSERT_EQUAL_FATAL(cs_log_parse_file(cs_test_data("ok/log-hccl.log"), NULL, &log, &err), 0);
    CU_ASSERT_EQUAL(log->format, CS_LOG_HCCL_TEXT);
    t = &log->tables[0];
    CU_ASSERT_EQUAL(t->coll, CS_COLL_ALLREDUCE);
    CU_ASSERT_EQUAL(t->n_rows, 14);            /* 8 KiB .. 64 MiB */
    CU_ASSERT_EQUAL(t->ranks, 16);
    CU_ASSERT_EQUAL(t->nodes, 2);
    CU_ASSERT_STRING_EQUAL(t->rows[0].type, "fp32");
    CU_ASSERT_STRING_EQUAL(t->rows[0].redop, "sum");
    CU_ASSERT_EQUAL(t->rows[0].count, 2048);
    CU_ASSERT_EQUAL(t->rows[0].oop_wrong, 0);
    CS_ASSERT_REL(t->rows[0].time_us, 40.41, 1e-12);
    CS_ASSERT_REL(t->rows[0].oop_busbw_GBps, 0.20272 * 30.0 / 16.0, 1e-12);
    cs_log_free(log);
}

/* CRLF line endings, srun --label prefixes, a command continued over lines. */
static void t_labels_crlf(void)
{
    static const char text[] =
        "> srun -N 2 --ntasks-per-node=4 \\\r\n"
        ">    ./build/reduce_scatter_perf -b 1M -e 2M -f 2\r\n"
        " 0: #       size         count      type   redop    root     time   algbw   busbw "
        "#wrong     time   algbw   busbw #wrong\r\n"
        " 0:      1048576         32768     float     sum      -1    52.43   20.00   17.50"
        "      0    52.40   20.01   17.51      0\r\n"
        " 0:      2097152         65536     float     sum      -1    94.37   22.22   19.45"
        "      0    94.30   22.24   19.46      0\r\n";
    cs_err err;
    cs_log *log = parse_str(text, CS_LOG_COLL_UNKNOWN, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_EQUAL(log->n_tables, 1);
    CU_ASSERT_EQUAL(log->tables[0].coll, CS_COLL_REDUCESCATTER);
    CU_ASSERT_EQUAL(log->tables[0].ranks, 8);  /* srun: 2 nodes x 4 tasks */
    CU_ASSERT_EQUAL(log->tables[0].nodes, 2);
    CU_ASSERT_EQUAL(log->tables[0].n_rows, 2);
    CS_ASSERT_REL(log->tables[0].rows[1].time_us, 94.37, 1e-12);
    cs_log_free(log);
}

static void t_ranks_from_busbw(void)
{
    cs_log_row r[2];
    int i;
    for (i = 0; i < 2; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].ip_algbw_GBps = r[i].ip_busbw_GBps = NAN;
    }
    r[0].oop_algbw_GBps = 41.78;
    r[0].oop_busbw_GBps = 78.33;               /* 41.78 x 1.875 = 78.34: 16 ranks */
    CU_ASSERT_EQUAL(cs_log_ranks_from_busbw(CS_COLL_ALLREDUCE, r, 1), 16);
    r[0].oop_algbw_GBps = 9.21;
    r[0].oop_busbw_GBps = 4.61;                /* alltoall (n-1)/n = 1/2 */
    CU_ASSERT_EQUAL(cs_log_ranks_from_busbw(CS_COLL_ALLTOALL, r, 1), 2);
    r[0].oop_algbw_GBps = 279.0;
    r[0].oop_busbw_GBps = 261.57;              /* 15/16 */
    CU_ASSERT_EQUAL(cs_log_ranks_from_busbw(CS_COLL_ALLGATHER, r, 1), 16);
    CU_ASSERT_EQUAL(cs_log_ranks_from_busbw(CS_COLL_BROADCAST, r, 1), 0);  /* factor 1 */
    r[0].oop_algbw_GBps = 0.5;                 /* too few digits to tell */
    CU_ASSERT_EQUAL(cs_log_ranks_from_busbw(CS_COLL_ALLGATHER, r, 1), 0);
    r[0].oop_algbw_GBps = 183.83;              /* 1024 ranks: 2 decimals cannot tell */
    r[0].oop_busbw_GBps = 367.29;
    CU_ASSERT_EQUAL(cs_log_ranks_from_busbw(CS_COLL_ALLREDUCE, r, 1), 0);
}

static void t_programs(void)
{
    cs_coll c;
    CU_ASSERT(cs_log_coll_from_program("./build/all_reduce_perf", &c) == 0 &&
              c == CS_COLL_ALLREDUCE);
    CU_ASSERT(cs_log_coll_from_program("/opt/nccl-tests/build/alltoall_perf", &c) == 0 &&
              c == CS_COLL_ALLTOALL);
    CU_ASSERT(cs_log_coll_from_program("reduce_scatter_test", &c) == 0 &&
              c == CS_COLL_REDUCESCATTER);
    CU_ASSERT(cs_log_coll_from_program("all_gather", &c) == 0 && c == CS_COLL_ALLGATHER);
    CU_ASSERT(cs_log_coll_from_program("sendrecv_perf", &c) == 0 && c == CS_COLL_SENDRECV);
    CU_ASSERT_EQUAL(cs_log_coll_from_program("hypercube_perf", &c), CS_ENOENT);
    CU_ASSERT_EQUAL(cs_log_coll_from_program("mpirun", &c), CS_ENOENT);
}

/* ---------------------------------------------------------------- bad logs */

static void expect_bad(const char *rel, int code, const char *where_sfx, const char *msg)
{
    cs_log *log = NULL;
    cs_err err;
    int rc = cs_log_parse_file(cs_test_data(rel), NULL, &log, &err);
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_PTR_NULL(log);
    if (rc < 0) {
        size_t lw = strlen(err.where), ls = strlen(where_sfx);
        int ok_where = lw >= ls && !strcmp(err.where + lw - ls, where_sfx);
        int ok_msg = strstr(err.msg, msg) != NULL;
        if (!ok_where || !ok_msg)
            fprintf(stderr, "\n  %s: got '%s: %s'\n", rel, err.where, err.msg);
        CU_ASSERT(ok_where);
        CU_ASSERT(ok_msg);
    }
    cs_log_free(log);
}

static void t_bad_truncated(void)
{
    expect_bad("bad/log-truncated.log", CS_EPARSE, "log-truncated.log:24",
               "expected 13 columns, got 3: the log ends inside this row (truncated)");
}

static void t_bad_empty(void)
{
    expect_bad("bad/log-empty.log", CS_EPARSE, "log-empty.log", "empty file");
}

static void t_bad_binary(void)
{
    expect_bad("bad/log-binary.log", CS_EPARSE, "log-binary.log:1",
               "binary data (byte 0x1f at offset 0)");
}

static void t_bad_wrongcols(void)
{
    expect_bad("bad/log-wrongcols.log", CS_EPARSE, "log-wrongcols.log:14",
               "expected 13 columns, got 7");
}

static void t_bad_number(void)
{
    expect_bad("bad/log-badnum.log", CS_EPARSE, "log-badnum.log:13",
               "column 6 (time): expected a number >= 0 or N/A, got '11.7x'");
}

static void t_bad_norows(void)
{
    expect_bad("bad/log-norows.log", CS_EPARSE, "log-norows.log", "no result rows found");
}

static void t_bad_json(void)
{
    expect_bad("bad/log-badjson.json", CS_EPARSE, "log-badjson.json:3:28", "expected");
    expect_bad("bad/log-jsonnosize.json", CS_EPARSE, "log-jsonnosize.json: results[1].size",
               "expected a whole number of bytes");
}

static void t_bad_missing(void)
{
    expect_bad("bad/log-does-not-exist.log", CS_EIO, "log-does-not-exist.log", "cannot open");
}

/* A row claiming the 12-column layout of its header but cut short. */
static void t_bad_header_cols(void)
{
    static const char text[] =
        "#       size         count    type   redop     time   algbw   busbw  error     time"
        "   algbw   busbw  error\n"
        "     1048576        262144   float     sum    50.97   20.57   18.00  0e+00\n"
        "# Avg bus bandwidth : 1\n";
    cs_err err;
    cs_log *log = parse_str(text, CS_COLL_ALLREDUCE, &err);
    CU_ASSERT_PTR_NULL(log);
    CU_ASSERT_STRING_EQUAL(err.where, "inline.log:2");
    CU_ASSERT_STRING_EQUAL(err.msg, "expected 12 columns, got 8");
}

int cs_test_register(void)
{
    static const cs_test_case real[] = {
        {"a100_1n8", t_a100_1n8}, {"a100_roce", t_a100_roce}, {"a100_untuned", t_a100_untuned},
        {"p4de", t_p4de}, {"b200", t_b200}, {"gh200_nocxi", t_gh200_nocxi},
        {"gh200", t_gh200}, {"h100_1024", t_h100_1024}, {"h100_1n8", t_h100_1n8},
        {"h100_a3mega", t_h100_a3mega}, {"h100_ib", t_h100_ib}, {"h100_oci", t_h100_oci},
        {"h100_eks", t_h100_eks}, {"h100_p5", t_h100_p5}, {"2080_ar", t_2080_ar},
        {"2080_a2a", t_2080_a2a}, {"4090_docker", t_4090_docker}, {"4090_k8s", t_4090_k8s},
        {"4090_d4", t_4090_d4}, {"4090_k4", t_4090_k4},
        {"4090_1n8", t_4090_1n8}, {"5090", t_5090}, {"6000d_ar", t_6000d_ar},
        {"6000d_a2a", t_6000d_a2a}, {"mi250x", t_mi250x}, {"mi300x", t_mi300x},
        {"mi300xvf", t_mi300xvf}, {"mi325x", t_mi325x}, {"mi350x", t_mi350x},
        {"a100_sendrecv", t_a100_sendrecv}, {"p4d_299", t_p4d_299},
        {"b200_lambda", t_b200_lambda}, {"b300_ar", t_b300_ar}, {"b300_a2a", t_b300_a2a},
        {"gb300", t_gb300}, {"a3high", t_a3high}, {"mi355x_ar", t_mi355x_ar},
        {"mi355x_a2a", t_mi355x_a2a}, {"mi355x_roce", t_mi355x_roce}, {NULL, NULL}};
    static const cs_test_case shapes[] = {
        {"mixed", t_mixed}, {"json", t_json}, {"json_flat", t_json_flat}, {"hccl", t_hccl},
        {"labels_crlf", t_labels_crlf}, {"ranks_from_busbw", t_ranks_from_busbw},
        {"programs", t_programs}, {NULL, NULL}};
    static const cs_test_case bad[] = {
        {"truncated", t_bad_truncated}, {"empty", t_bad_empty}, {"binary", t_bad_binary},
        {"wrong_columns", t_bad_wrongcols}, {"bad_number", t_bad_number},
        {"no_rows", t_bad_norows}, {"json", t_bad_json}, {"missing", t_bad_missing},
        {"header_columns", t_bad_header_cols}, {NULL, NULL}};
    if (cs_test_add_suite("logparse_real", real) ||
        cs_test_add_suite("logparse_shapes", shapes) || cs_test_add_suite("logparse_bad", bad))
        return -1;
    return 0;
}
