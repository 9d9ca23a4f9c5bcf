/* test_limits.c: the limits of figures and counts, checked arithmetic, the memory budget,
 * sizes with K..P suffixes (G = GB = GiB = 2^30), CSV quoting and the output-file writer. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/limits.h"
#include "sim/outfile.h"
#include "sim/report.h"
#include "sim/size.h"
#include "algorithms/coll.h"
#include "testutil.h"

static void test_ranges(void)
{
    cs_err err;
    CU_ASSERT_EQUAL(cs_limit_check(1e-6, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS, "GB/s",
                                   "bw", &err), 0);
    CU_ASSERT_EQUAL(cs_limit_check(1e6, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS, "GB/s",
                                   "bw", &err), 0);
    CU_ASSERT_EQUAL(cs_limit_check(5e-324, CS_LIMIT_BW_MIN_GBPS, CS_LIMIT_BW_MAX_GBPS, "GB/s",
                                   "links[0].bandwidth_GBps", &err), CS_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.where, "links[0].bandwidth_GBps");
    CU_ASSERT_STRING_EQUAL(err.msg, "must be between 1e-06 and 1e+06 GB/s, got 4.94066e-324");
    CU_ASSERT_EQUAL(cs_limit_check(0.0 / 0.0, 0, CS_LIMIT_LAT_MAX_US, "us", "lat", &err),
                    CS_EINVAL);
}

static void test_checked(void)
{
    uint64_t u;
    int64_t i;
    CU_ASSERT_EQUAL(cs_mul_u64(1ULL << 32, 1ULL << 31, &u), 0);
    CU_ASSERT_EQUAL(u, 1ULL << 63);
    CU_ASSERT_EQUAL(cs_mul_u64(1ULL << 32, 1ULL << 32, &u), 1);
    CU_ASSERT_EQUAL(cs_add_u64(UINT64_MAX, 1, &u), 1);
    CU_ASSERT_EQUAL(cs_mul_i64(INT64_MAX, 2, &i), 1);
    CU_ASSERT_EQUAL(cs_add_i64(INT64_MAX, 1, &i), 1);
    CU_ASSERT_EQUAL(cs_mul_sat(2000000000, 2), 4000000000LL);
    CU_ASSERT_EQUAL(cs_mul_sat(INT64_MAX / 2, 3), INT64_MAX);
    CU_ASSERT_EQUAL(cs_add_sat(INT64_MAX, 5), INT64_MAX);
}

static void test_budget(void)
{
    cs_err err;
    cs_coll_req req;
    cs_sched s;
    const cs_algo *ring;
    uint64_t def = cs_budget_get();
    CU_ASSERT(def >= (64ULL << 20));            /* half the physical memory */
    cs_budget_set(1 << 20);
    CU_ASSERT_EQUAL(cs_budget_get(), 1u << 20);
    CU_ASSERT_EQUAL(cs_budget_check(1 << 20, "x", "it", &err), 0);
    CU_ASSERT_EQUAL(cs_budget_check((1 << 20) + 1, "dims", "a grid", &err), CS_ELIMIT);
    CU_ASSERT_STRING_EQUAL(err.where, "dims");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a grid needs about 1 MiB, more than the memory "
                                           "budget of 1 MiB"));
    /* a schedule stops growing at the budget: ring allreduce on 2048 ranks, 64 KiB */
    CU_ASSERT_EQUAL(cs_algo_lookup("ring", CS_COLL_ALLREDUCE, &ring, &err), 0);
    cs_coll_req_init(&req, CS_COLL_ALLREDUCE, 2048, 1 << 30);
    cs_budget_set(64 << 10);
    cs_err_clear(&err);
    CU_ASSERT_EQUAL(cs_algo_build(ring, &req, &s, &err), CS_ELIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the schedule with its simulation state needs more than the memory budget"));
    cs_budget_set(0);
    CU_ASSERT_EQUAL(cs_budget_get(), def);
}

static void test_sizes(void)
{
    uint64_t v;
    cs_err err;
    const char *g[] = {"1G", "1GB", "1GiB", "1g", "1gib", "1Gb"};
    size_t i;
    for (i = 0; i < sizeof g / sizeof g[0]; i++) {
        CU_ASSERT_EQUAL(cs_parse_size(g[i], "-b", &v, &err), 0);
        CU_ASSERT_EQUAL(v, 1ULL << 30);
    }
    CU_ASSERT_EQUAL(cs_parse_size("1P", "-e", &v, &err), 0);
    CU_ASSERT_EQUAL(v, CS_LIMIT_MAX_BYTES);
    CU_ASSERT_EQUAL(cs_parse_size("1125899906842625", "-e", &v, &err), CS_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is too large (at most 1P = 2^50 bytes)"));
    CU_ASSERT_EQUAL(cs_parse_size("18446744073709551616", "-e", &v, &err), CS_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is too large"));
    CU_ASSERT_EQUAL(cs_parse_size("1iB", "-e", &v, &err), CS_EUSAGE);
    CU_ASSERT_EQUAL(cs_parse_size("1KiBB", "-e", &v, &err), CS_EUSAGE);
}

static char *csv_of(const char *field)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_csv_field(f, field);
    fclose(f);
    return buf;
}

static void test_csv_quoting(void)
{
    char *s;
    CU_ASSERT_STRING_EQUAL(s = csv_of("plain"), "plain");
    free(s);
    CU_ASSERT_STRING_EQUAL(s = csv_of("a,b"), "\"a,b\"");
    free(s);
    CU_ASSERT_STRING_EQUAL(s = csv_of("say \"hi\""), "\"say \"\"hi\"\"\"");
    free(s);
    CU_ASSERT_STRING_EQUAL(s = csv_of("two\nlines"), "\"two\nlines\"");
    free(s);
    CU_ASSERT_STRING_EQUAL(s = csv_of(""), "");
    free(s);
}

static void test_outfile(void)
{
    char dir[] = "/tmp/cs_outfile_XXXXXX", path[128], link[128], buf[64];
    cs_outfile o;
    cs_err err;
    struct stat st;
    FILE *f;
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    /* new file, then an abort leaves the old bytes and no temporary */
    CU_ASSERT_EQUAL(cs_outfile_open(&o, path, &err), 0);
    fputs("one", o.f);
    CU_ASSERT_EQUAL(cs_outfile_commit(&o, &err), 0);
    chmod(path, 0640);
    CU_ASSERT_EQUAL(cs_outfile_open(&o, path, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(o.tmp);
    fputs("two", o.f);
    cs_outfile_abort(&o);
    f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof buf, f));
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "one");
    /* a rewrite keeps the mode */
    CU_ASSERT_EQUAL(cs_outfile_open(&o, path, &err), 0);
    fputs("three", o.f);
    CU_ASSERT_EQUAL(cs_outfile_commit(&o, &err), 0);
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
    /* through a symlink: the link stays */
    snprintf(link, sizeof link, "%s/link.txt", dir);
    CU_ASSERT_EQUAL(symlink("out.txt", link), 0);
    CU_ASSERT_EQUAL(cs_outfile_open(&o, link, &err), 0);
    CU_ASSERT_STRING_EQUAL(o.path, path);
    fputs("four", o.f);
    CU_ASSERT_EQUAL(cs_outfile_commit(&o, &err), 0);
    CU_ASSERT_EQUAL(lstat(link, &st), 0);
    CU_ASSERT(S_ISLNK(st.st_mode));
    /* devices in place, directories and empty names refused */
    CU_ASSERT_EQUAL(cs_outfile_open(&o, "/dev/null", &err), 0);
    CU_ASSERT(o.in_place && o.tmp == NULL);
    CU_ASSERT_EQUAL(cs_outfile_commit(&o, &err), 0);
    CU_ASSERT_EQUAL(cs_outfile_open(&o, "/dev/full", &err), 0);
    fputs("x", o.f);
    CU_ASSERT_EQUAL(cs_outfile_commit(&o, &err), CS_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "No space left on device"));
    CU_ASSERT_EQUAL(cs_outfile_open(&o, dir, &err), CS_EINVAL);
    CU_ASSERT_EQUAL(cs_outfile_open(&o, "", &err), CS_EINVAL);
    unlink(link);
    unlink(path);
    rmdir(dir);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"figure ranges", test_ranges},
        {"checked arithmetic", test_checked},
        {"memory budget", test_budget},
        {"sizes", test_sizes},
        {"csv quoting", test_csv_quoting},
        {"output files", test_outfile},
        {NULL, NULL},
    };
    return cs_test_add_suite("limits", cases);
}
