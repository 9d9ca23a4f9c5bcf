/* test_logenv.c: the NCCL settings a log states (calibration/logparse_env.c), applied as NCCL
 * reads them (algorithms/nccl/env.c) by validate and calibrate (calibration/logenv.c). */
#include "testutil.h"
#include "calibration/logsim.h"
#include "topologies/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_log *parse_str(const char *text, cs_err *err)
{
    cs_log_opts o;
    cs_log *log = NULL;
    cs_log_opts_init(&o);
    o.default_coll = CS_COLL_ALLREDUCE;
    if (cs_log_parse_mem("inline.log", text, strlen(text), &o, &log, err) < 0)
        return NULL;
    return log;
}

#define ROWS                                                                                 \
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"   \
    "     time   algbw   busbw #wrong\n"                                                     \
    "     1048576        262144     float     sum      -1    100.0   10.49   19.66      0"   \
    "    100.0   10.49   19.66      0\n"

/* Every way a run states a setting: an export line before the command, mpirun -x with a
 * quoted value holding commas, an env prefix, a value given twice (the last wins, in the
 * place first seen), NCCL_DEBUG=INFO's echo; then a second run of the file with srun's
 * --export list, which starts afresh. */
static void t_parse(void)
{
    const char *text =
        "export NCCL_PROTO=Simple\n"
        "mpirun -np 16 -x NCCL_ALGO=Tree -x NCCL_IB_HCA=\"=mlx5_0,mlx5_1\" -x NCCL_PROTO=LL128 "
        "NCCL_MIN_NCHANNELS=4 ./build/all_reduce_perf -b 1M -e 1M -g 1\n"
        "host:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n"
        "host:1:1 [0] NCCL INFO 1048576 Bytes -> Algo 1 proto 2 time 3.5\n" ROWS
        "srun -N 2 --export=ALL,NCCL_ALGO=Ring,NCCL_CROSS_NIC=1 all_reduce_perf -b 1M -e 1M\n"
        ROWS;
    cs_err err;
    cs_log *log = parse_str(text, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_EQUAL_FATAL(log->n_tables, 2);
    CU_ASSERT_STRING_EQUAL(log->tables[0].nccl_env,
                           "NCCL_PROTO=LL128\nNCCL_ALGO=Tree\nNCCL_IB_HCA==mlx5_0,mlx5_1\n"
                           "NCCL_MIN_NCHANNELS=4\nNCCL_NVLS_ENABLE=0\n");
    CU_ASSERT_STRING_EQUAL(log->tables[1].nccl_env, "NCCL_ALGO=Ring\nNCCL_CROSS_NIC=1\n");
    cs_log_free(log);
    /* a log that states nothing has no settings */
    CU_ASSERT_PTR_NOT_NULL_FATAL(log = parse_str("./all_reduce_perf -g 2\n" ROWS, &err));
    CU_ASSERT_PTR_NULL(log->tables[0].nccl_env);
    cs_log_free(log);
}

/* Each applied variable on the defaults of a 2-node H100 preset (16 channels, NVLS on). */
static void t_apply(void)
{
    cs_nccl_params np;
    cs_topo *t = NULL;
    cs_err err;
    char note[96];
    int on;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL(np.channels, 16);
    CU_ASSERT_EQUAL(np.nvls, 1);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_MIN_NCHANNELS", "32", note, sizeof note,
                                      &err), 0);
    CU_ASSERT_EQUAL(np.channels, 32);
    CU_ASSERT_STRING_EQUAL(note, "16 -> 32 channels");
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_MAX_NCHANNELS", "8", note, sizeof note,
                                      &err), 0);
    CU_ASSERT_EQUAL(np.channels, 8);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_MIN_NCHANNELS", "1000", note, sizeof note,
                                      &err), 0);
    CU_ASSERT_EQUAL(np.channels, 64);                 /* NCCL's MAXCHANNELS */
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_ALGO", "^tree", note, sizeof note, &err), 0);
    CU_ASSERT_EQUAL(np.algo_mask, CS_NCCL_ALGO_RING | CS_NCCL_ALGO_NVLS);
    CU_ASSERT_STRING_EQUAL(note, "algorithms Ring NVLS");
    /* NCCL 2.24's per-collective form: read, said not modelled, the mask left alone */
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_ALGO", "allreduce:tree;allgather:ring",
                                      note, sizeof note, &err), 1);
    CU_ASSERT_EQUAL(np.algo_mask, CS_NCCL_ALGO_RING | CS_NCCL_ALGO_NVLS);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_PROTO", "^LL128", note, sizeof note, &err),
                    0);
    CU_ASSERT(np.proto[CS_PROTO_LL].enabled && np.proto[CS_PROTO_SIMPLE].enabled &&
              !np.proto[CS_PROTO_LL128].enabled);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_PROTO", "ll128", note, sizeof note, &err),
                    0);
    CU_ASSERT(!np.proto[CS_PROTO_LL].enabled && !np.proto[CS_PROTO_SIMPLE].enabled &&
              np.proto[CS_PROTO_LL128].enabled);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_NVLS_ENABLE", "0", note, sizeof note,
                                      &err), 0);
    CU_ASSERT_EQUAL(np.nvls, 0);
    /* what NCCL would not take */
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_PROTO", "LL,Fast", note, sizeof note,
                                      &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "NCCL_PROTO");
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_PROTO", "^LL,LL128,Simple", note,
                                      sizeof note, &err), CS_EINVAL);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_MIN_NCHANNELS", "0", note, sizeof note,
                                      &err), CS_EINVAL);
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_NVLS_ENABLE", "yes", note, sizeof note,
                                      &err), CS_EINVAL);
    /* P2P off where the node's GPUs are joined by NVLink: refused, with the way out */
    CU_ASSERT_EQUAL(cs_nccl_env_apply(&np, t, "NCCL_P2P_DISABLE", "1", note, sizeof note,
                                      &err), CS_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "=1 in the log turns P2P off, but ranks 0 and 1"));
    CU_ASSERT_EQUAL(cs_nccl_env_kind_of("NCCL_DEBUG"), CS_NCCL_ENV_NO_EFFECT);
    CU_ASSERT_EQUAL(cs_nccl_env_kind_of("NCCL_IB_QPS_PER_CONNECTION"),
                    CS_NCCL_ENV_NOT_MODELLED);
    cs_topo_free(t);
}

/* The 1,024-GPU log of tests/data/real through validate's set: its Ring, LL128, 32 channels
 * and NVLS off applied; four settings without effect, four not modelled, all listed; --algo
 * wins over NCCL_ALGO. */
static void t_real(void)
{
    static const char *const path = "real/nccl-h100-128n1024-allreduce-ring-ll128-ib.log";
    char buf[512], *paths[1] = {buf};
    cs_lset ls;
    cs_lset_opts o;
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_err err;
    int on, k, n[3] = {0, 0, 0};
    memset(&o, 0, sizeof o);
    o.default_coll = CS_LOG_COLL_UNKNOWN;
    snprintf(buf, sizeof buf, "%s", cs_test_data(path));
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x128", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x128", NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_lset_load(&ls, paths, 1, &o, t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_lset_env_apply(&ls, t, &np, "ring", NULL, &err), 0);
    CU_ASSERT_EQUAL(ls.n_env, 13);
    for (k = 0; k < ls.n_env; k++)
        n[ls.env[k].kind]++;
    CU_ASSERT_EQUAL(n[CS_NCCL_ENV_APPLIED], 4);
    CU_ASSERT_EQUAL(n[CS_NCCL_ENV_NO_EFFECT], 5);
    CU_ASSERT_EQUAL(n[CS_NCCL_ENV_NOT_MODELLED], 4);
    CU_ASSERT_STRING_EQUAL(ls.env[0].name, "NCCL_SOCKET_NTHREADS");
    for (k = 0; k < ls.n_env && strcmp(ls.env[k].name, "NCCL_ALGO"); k++)
        ;
    CU_ASSERT(k < ls.n_env && ls.env[k].overridden);
    CU_ASSERT_EQUAL(np.algo_mask, 0u);             /* --algo ring given: NCCL_ALGO not used */
    CU_ASSERT_EQUAL(np.channels, 32);
    CU_ASSERT_EQUAL(np.nvls, 0);
    CU_ASSERT(np.proto[CS_PROTO_LL128].enabled && !np.proto[CS_PROTO_LL].enabled &&
              !np.proto[CS_PROTO_SIMPLE].enabled);
    cs_lset_fini(&ls);
    cs_topo_free(t);
}

/* Two logs that ran different settings are not one validation. */
static void t_disagree(void)
{
    static const char *const a = "mpirun -np 16 -x NCCL_ALGO=Ring ./all_reduce_perf -g 1\n" ROWS;
    static const char *const b = "mpirun -np 16 ./all_reduce_perf -g 1\n" ROWS;
    char pa[] = "/tmp/collsim-logenv-a.XXXXXX", pb[] = "/tmp/collsim-logenv-b.XXXXXX";
    char *paths[2] = {pa, pb};
    FILE *f;
    int fa = mkstemp(pa), fb = mkstemp(pb), on;
    cs_lset ls;
    cs_lset_opts o;
    cs_topo *t = NULL;
    cs_nccl_params np;
    cs_err err;
    CU_ASSERT_FATAL(fa >= 0 && fb >= 0);
    f = fdopen(fa, "w");
    fputs(a, f);
    fclose(f);
    f = fdopen(fb, "w");
    fputs(b, f);
    fclose(f);
    memset(&o, 0, sizeof o);
    o.default_coll = CS_LOG_COLL_UNKNOWN;
    CU_ASSERT_EQUAL_FATAL(cs_topo_open("dgx-h100-x2", &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_nccl_setup("dgx-h100-x2", NULL, 1, &np, &on, &err), 0);
    CU_ASSERT_EQUAL_FATAL(cs_lset_load(&ls, paths, 2, &o, t, &err), 0);
    CU_ASSERT_EQUAL(cs_lset_env_apply(&ls, t, &np, NULL, NULL, &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, pb);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "states NCCL_ALGO=(not set) where"));
    cs_lset_fini(&ls);
    cs_topo_free(t);
    remove(pa);
    remove(pb);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"parse", t_parse}, {"apply", t_apply}, {"real", t_real}, {"disagree", t_disagree},
        {NULL, NULL}};
    return cs_test_add_suite("logenv", cases);
}
