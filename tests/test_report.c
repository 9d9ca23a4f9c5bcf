/* test_report.c: busbw factors, nccl-tests size arithmetic, the table/JSON/CSV printers,
 * size parsing. */
#include "tests/testutil.h"
#include "sim/report.h"
#include "sim/size.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void test_factors(void)
{
    CS_ASSERT_REL(cs_coll_busbw_factor(CS_COLL_ALLREDUCE, 8), 14.0 / 8, 1e-15);
    CS_ASSERT_REL(cs_coll_busbw_factor(CS_COLL_ALLGATHER, 8), 7.0 / 8, 1e-15);
    CS_ASSERT_REL(cs_coll_busbw_factor(CS_COLL_REDUCESCATTER, 16), 15.0 / 16, 1e-15);
    CS_ASSERT_REL(cs_coll_busbw_factor(CS_COLL_ALLTOALL, 2), 0.5, 1e-15);
    CS_ASSERT_REL(cs_coll_busbw_factor(CS_COLL_BROADCAST, 8), 1.0, 1e-15);
    CS_ASSERT_REL(cs_coll_busbw_factor(CS_COLL_SENDRECV, 8), 1.0, 1e-15);
    CU_ASSERT_EQUAL(cs_coll_busbw_factor(CS_COLL_ALLREDUCE, 1), 0.0);
}

/* nccl-tests: allgather size 100 on 8 ranks of float: count 25 -> per-rank 3 -> rounded
 * down to a multiple of 4 elements (16 B) = 0; size 1024: 256/8 = 32 elements, S = 1024.
 * alltoall on 2 ranks, size 32: count 8, block 4, S = 32 (the 2080 Ti log's row). */
static void test_sizes(void)
{
    uint64_t c, S;
    cs_nccl_sizes(CS_COLL_ALLREDUCE, 8, 4, 1000, &c, &S);
    CU_ASSERT_EQUAL(c, 250);
    CU_ASSERT_EQUAL(S, 1000);
    cs_nccl_sizes(CS_COLL_ALLREDUCE, 8, 4, 7, &c, &S);
    CU_ASSERT_EQUAL(c, 1);
    CU_ASSERT_EQUAL(S, 4);
    cs_nccl_sizes(CS_COLL_ALLGATHER, 8, 4, 100, &c, &S);
    CU_ASSERT_EQUAL(c, 0);
    CU_ASSERT_EQUAL(S, 0);
    cs_nccl_sizes(CS_COLL_ALLGATHER, 8, 4, 1024, &c, &S);
    CU_ASSERT_EQUAL(c, 32);
    CU_ASSERT_EQUAL(S, 1024);
    cs_nccl_sizes(CS_COLL_ALLTOALL, 2, 4, 32, &c, &S);
    CU_ASSERT_EQUAL(c, 4);
    CU_ASSERT_EQUAL(S, 32);
    cs_nccl_sizes(CS_COLL_ALLTOALL, 2, 4, 8, &c, &S);
    CU_ASSERT_EQUAL(S, 0);
}

static void test_parse_size(void)
{
    uint64_t v;
    cs_err err;
    CU_ASSERT_EQUAL(cs_parse_size("8", "-b", &v, &err), 0);
    CU_ASSERT_EQUAL(v, 8);
    CU_ASSERT_EQUAL(cs_parse_size("1K", "-b", &v, &err), 0);
    CU_ASSERT_EQUAL(v, 1024);
    CU_ASSERT_EQUAL(cs_parse_size("128M", "-b", &v, &err), 0);
    CU_ASSERT_EQUAL(v, 128u << 20);
    CU_ASSERT_EQUAL(cs_parse_size("8g", "-b", &v, &err), 0);
    CU_ASSERT_EQUAL(v, 8ull << 30);
    CU_ASSERT_EQUAL(cs_parse_size("2TB", "-b", &v, &err), 0);
    CU_ASSERT_EQUAL(v, 2ull << 40);
    CU_ASSERT_EQUAL(cs_parse_size("12Q", "-b", &v, &err), CS_EUSAGE);
    CU_ASSERT_STRING_EQUAL(err.where, "-b");
    CU_ASSERT_EQUAL(cs_parse_size("-5", "-e", &v, &err), CS_EUSAGE);
    CU_ASSERT_EQUAL(cs_parse_size("", "-e", &v, &err), CS_EUSAGE);
    CU_ASSERT_EQUAL(cs_parse_size("99999999999999999999", "-e", &v, &err), CS_EUSAGE);
    CU_ASSERT_EQUAL(cs_parse_size("17179869184T", "-e", &v, &err), CS_EUSAGE);
}

static cs_sweep sample(void)
{
    cs_sweep sw;
    cs_row r;
    memset(&sw, 0, sizeof sw);
    sw.coll = CS_COLL_ALLREDUCE;
    sw.algorithm = "ring";
    sw.topology = "t";
    sw.topo_kind = "ring";
    sw.datatype = "float";
    sw.redop = "sum";
    sw.ranks = 8;
    sw.root = -1;
    sw.chunks = 1;
    memset(&r, 0, sizeof r);
    r.size_bytes = 1073741824;
    r.count = 268435456;
    r.time_us = 4000.0;                  /* algbw 268.435456 GB/s, busbw x 1.75 */
    r.algorithm = "ring";
    cs_sweep_add(&sw, &r);
    r.size_bytes = 8;
    r.count = 2;
    r.time_us = 10.0;
    cs_sweep_add(&sw, &r);
    return sw;
}

static char *print(int (*fn)(FILE *, const cs_sweep *), const cs_sweep *sw)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(fn(f, sw), 0);
    fclose(f);
    return buf;
}

static void test_text(void)
{
    cs_sweep sw = sample();
    char *txt = print(cs_report_text, &sw);
    CS_ASSERT_REL(sw.rows[0].algbw_GBps, 268.435456, 1e-12);
    CS_ASSERT_REL(sw.rows[0].busbw_GBps, 268.435456 * 1.75, 1e-12);
    /* nccl-tests row layout: %12 size, %12 count, %8 type, %6 redop, %6 root, time, ... */
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "  1073741824     268435456     float     sum      -1"
                                       "   4000.0  268.44  469.76      0   4000.0  268.44  469.76      0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "#       size         count      type   redop    root"
                                       "     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "# Avg bus bandwidth    : "));
    free(txt);
    cs_sweep_fini(&sw);
}

static void test_json_csv(void)
{
    cs_sweep sw = sample();
    char *js = print(cs_report_json, &sw), *csv;
    json_error_t e;
    json_t *root = json_loads(js, 0, &e), *row;
    static const char *const keys[] = {"collective", "algorithm", "ranks", "topology",
                                       "datatype", "results", "avg_busbw_GBps"};
    static const char *const row_keys[] = {"size_bytes", "count", "time_us", "algbw_GBps",
                                           "busbw_GBps", "wrong"};
    size_t i;
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CU_ASSERT_PTR_NOT_NULL(json_object_get(root, keys[i]));
    row = json_array_get(json_object_get(root, "results"), 0);
    for (i = 0; i < sizeof row_keys / sizeof row_keys[0]; i++)
        CU_ASSERT_PTR_NOT_NULL(json_object_get(row, row_keys[i]));
    CS_ASSERT_REL(json_number_value(json_object_get(row, "busbw_GBps")), 268.435456 * 1.75, 1e-15);
    CS_ASSERT_REL(json_number_value(json_object_get(root, "avg_busbw_GBps")),
                  (268.435456 * 1.75 + 0.0008 * 1.75) / 2, 1e-12);
    json_decref(root);
    free(js);
    csv = print(cs_report_csv, &sw);
    CU_ASSERT_EQUAL(strncmp(csv, "collective,algorithm,ranks,topology,datatype,size_bytes,count,"
                                 "time_us,algbw_GBps,busbw_GBps,wrong\n", 96), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "allreduce,ring,8,t,float,1073741824,268435456,4000,"));
    free(csv);
    cs_sweep_fini(&sw);
}

/* Several sweeps: JSON keeps the single-sweep object for one and is an array for two (each
 * with its ranks); CSV has one header, every sweep's rows, and closed_form_us last when a
 * row carries one (4000 us here; the 8-byte row has none: an empty field). Text is the
 * tables one after another. */
static void test_many(void)
{
    cs_sweep sw[2];
    char *buf = NULL, *p;
    size_t len = 0;
    FILE *f;
    json_error_t e;
    json_t *root;
    int n = 0;
    sw[0] = sample();
    sw[1] = sample();
    sw[1].ranks = 16;
    sw[1].rows[0].has_closed_form = 1;
    sw[1].rows[0].closed_form_us = 4000;
    f = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(cs_report_many(f, "json", sw, 1), 0);
    fclose(f);
    root = json_loads(buf, 0, &e);
    CU_ASSERT(json_is_object(root));
    json_decref(root);
    free(buf);
    f = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(cs_report_many(f, "json", sw, 2), 0);
    fclose(f);
    root = json_loads(buf, 0, &e);
    CU_ASSERT_FATAL(json_is_array(root) && json_array_size(root) == 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(root, 1), "ranks")), 16);
    CU_ASSERT_EQUAL(json_real_value(json_object_get(json_array_get(json_object_get(
        json_array_get(root, 1), "results"), 0), "closed_form_us")), 4000);
    CU_ASSERT_PTR_NULL(json_object_get(json_array_get(json_object_get(
        json_array_get(root, 0), "results"), 0), "closed_form_us"));
    json_decref(root);
    free(buf);
    f = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(cs_report_many(f, "csv", sw, 2), 0);
    fclose(f);
    CU_ASSERT_EQUAL(strncmp(buf, "collective,algorithm,ranks,topology,datatype,size_bytes,count,"
                                 "time_us,algbw_GBps,busbw_GBps,wrong,closed_form_us\n", 111), 0);
    for (p = buf; (p = strchr(p, '\n')); p++)
        n++;
    CU_ASSERT_EQUAL(n, 5);   /* a header and 2 x 2 rows */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "allreduce,ring,16,t,float,1073741824,268435456,4000,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",0,4000\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",0,\n"));
    free(buf);
    f = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(cs_report_many(f, "text", sw, 2), 0);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "# collsim: allreduce, 8 ranks"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "# collsim: allreduce, 16 ranks"));
    free(buf);
    cs_sweep_fini(&sw[0]);
    cs_sweep_fini(&sw[1]);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"busbw factors", test_factors},
        {"nccl-tests sizes", test_sizes},
        {"size parsing", test_parse_size},
        {"text table", test_text},
        {"json and csv", test_json_csv},
        {"several sweeps", test_many},
        {NULL, NULL},
    };
    return cs_test_add_suite("report", cases);
}
