/* test_json.c: the strict JSON readers of sim/json.h, both wordings. The key readers (topology
 * and NCCL files) name types bare ("got string"), refuse 3.0 as an integer and take a
 * required flag; the optional readers (plan, model and GPU files) name types with their
 * article ("got a string"), take 3.0 and keep *out when the key is absent. Every error
 * names the value's JSON path. */
#include <CUnit/CUnit.h>
#include <string.h>
#include <jansson.h>

#include "sim/json.h"
#include "testutil.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = cs_json_loadb(text, strlen(text), 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    return v;
}

/* The error record holds where and msg exactly. */
static void err_is(const cs_err *err, const char *where, const char *msg)
{
    CU_ASSERT_STRING_EQUAL(err->where, where);
    CU_ASSERT_STRING_EQUAL(err->msg, msg);
}

static void test_paths_and_types(void)
{
    char p[CS_JPATH_MAX];
    json_t *o = parse("\xEF\xBB\xBF{\"a\": [1, \"s\", true, null, {}, 2.5]}");  /* BOM skipped */
    json_t *a = json_object_get(o, "a");
    cs_jpath_key(p, sizeof p, "", "a");
    CU_ASSERT_STRING_EQUAL(p, "a");
    cs_jpath_key(p, sizeof p, NULL, "a");
    CU_ASSERT_STRING_EQUAL(p, "a");
    cs_jpath_key(p, sizeof p, "links[3]", "bandwidth_GBps");
    CU_ASSERT_STRING_EQUAL(p, "links[3].bandwidth_GBps");
    cs_jpath_idx(p, sizeof p, "links", 3);
    CU_ASSERT_STRING_EQUAL(p, "links[3]");
    CU_ASSERT_STRING_EQUAL(cs_json_type_name(json_array_get(a, 0)), "number");
    CU_ASSERT_STRING_EQUAL(cs_json_type_name(json_array_get(a, 5)), "number");
    CU_ASSERT_STRING_EQUAL(cs_json_type_name(json_array_get(a, 1)), "string");
    CU_ASSERT_STRING_EQUAL(cs_json_type_name(json_array_get(a, 2)), "boolean");
    CU_ASSERT_STRING_EQUAL(cs_json_type_name(json_array_get(a, 3)), "null");
    CU_ASSERT_STRING_EQUAL(cs_json_type_name(NULL), "nothing");
    CU_ASSERT_STRING_EQUAL(cs_json_type_a(json_array_get(a, 4)), "an object");
    CU_ASSERT_STRING_EQUAL(cs_json_type_a(a), "an array");
    CU_ASSERT_STRING_EQUAL(cs_json_type_a(json_array_get(a, 1)), "a string");
    CU_ASSERT_STRING_EQUAL(cs_json_type_a(json_array_get(a, 3)), "null");
    json_decref(o);
}

static void test_key_readers(void)
{
    static const char *const keys[] = {"n", "x", "s", NULL}, *const also[] = {"b", NULL};
    json_t *o = parse("{\"n\": 3.0, \"x\": -5, \"s\": \"\", \"b\": [], \"q\": 1}");
    cs_err err;
    double d = 7;
    long n = 7;
    json_t *v = NULL;
    const char *s = NULL;
    int flag = 0;
    CU_ASSERT_EQUAL(cs_json_check_keys(o, "links[0]", keys, also, &err), CS_EINVAL);
    err_is(&err, "links[0].q", "unknown key 'q' (known: n, x, s, b)");
    CU_ASSERT_EQUAL(cs_json_int(o, "", "n", 1, 0, 10, &n, &err), CS_EINVAL);
    err_is(&err, "n", "expected an integer, got 3");
    CU_ASSERT_EQUAL(n, 7);
    CU_ASSERT_EQUAL(cs_json_int(o, "", "x", 1, 0, 10, &n, &err), CS_EINVAL);
    err_is(&err, "x", "must be >= 0, got -5");
    CU_ASSERT_EQUAL(cs_json_int(o, "", "s", 1, 0, 10, &n, &err), CS_EINVAL);
    err_is(&err, "s", "expected an integer, got string");
    CU_ASSERT_EQUAL(cs_json_positive(o, "", "x", 1, &d, &err), CS_EINVAL);
    err_is(&err, "x", "must be > 0, got -5");
    CU_ASSERT_EQUAL(cs_json_nonneg(o, "", "x", 1, &d, &err), CS_EINVAL);
    err_is(&err, "x", "must be >= 0, got -5");
    CU_ASSERT_EQUAL(cs_json_number(o, "", "n", 1, &d, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 3.0, 0);
    CU_ASSERT_EQUAL(cs_json_number(o, "link", "missing", 1, &d, &err), CS_EINVAL);
    err_is(&err, "link.missing", "missing required key (expected a number)");
    CU_ASSERT_EQUAL(cs_json_number(o, "link", "missing", 0, &d, &err), 0);   /* default kept */
    CU_ASSERT_DOUBLE_EQUAL(d, 3.0, 0);
    CU_ASSERT_EQUAL(cs_json_range(o, "", "x", 1, 1e-6, 1e6, "GB/s", &d, &err), CS_EINVAL);
    err_is(&err, "x", "must be between 1e-06 and 1e+06 GB/s, got -5");
    CU_ASSERT_EQUAL(cs_json_string(o, "", "s", 1, &s, &err), CS_EINVAL);
    err_is(&err, "s", "expected a non-empty string, got \"\"");
    CU_ASSERT_EQUAL(cs_json_bool(o, "", "s", 1, &flag, &err), CS_EINVAL);
    err_is(&err, "s", "expected true or false, got string");
    CU_ASSERT_EQUAL(cs_json_array(o, "", "b", 1, &v, &err), 0);
    CU_ASSERT_PTR_EQUAL(v, json_object_get(o, "b"));
    CU_ASSERT_EQUAL(cs_json_object(o, "", "b", 1, &v, &err), CS_EINVAL);
    CU_ASSERT_PTR_NULL(v);
    err_is(&err, "b", "expected an object, got array");
    CU_ASSERT_EQUAL(cs_json_array(o, "", "n", 1, &v, &err), CS_EINVAL);
    err_is(&err, "n", "expected an array, got number");
    CU_ASSERT_EQUAL(cs_json_object(o, "", "none", 1, &v, &err), CS_EINVAL);
    err_is(&err, "none", "missing required key (expected an object)");
    json_decref(o);
}

static void test_optional_readers(void)
{
    static const char *const names[] = {"bf16", "fp16", "fp32", NULL};
    json_t *o = parse("{\"n\": 3.0, \"f\": 2.5, \"big\": 1e300, \"s\": \"fp7\", \"t\": \"fp32\", "
                      "\"z\": 0, \"b\": \"yes\", \"nul\": null}");
    cs_err err;
    long n = 7;
    int i = 9, b = 0;
    double d = 4;
    /* absent keys keep *out */
    CU_ASSERT_EQUAL(cs_json_opt_int(o, "train", "absent", 1, 10, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 7);
    CU_ASSERT_EQUAL(cs_json_need(o, "train", "absent", &err), CS_EINVAL);
    err_is(&err, "train.absent", "missing required key");
    /* 3.0 is the integer 3; 2.5 is not an integer */
    CU_ASSERT_EQUAL(cs_json_opt_int(o, "train", "n", 1, 10, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(cs_json_opt_intv(o, "train", "f", 1, 10, &i, &err), CS_EINVAL);
    err_is(&err, "train.f", "expected an integer, got 2.5");
    CU_ASSERT_EQUAL(i, 9);
    CU_ASSERT_EQUAL(cs_json_opt_int(o, "train", "big", 1, 1L << 40, &n, &err), CS_EINVAL);
    err_is(&err, "train.big", "must be <= 1099511627776, got 1e+300");
    CU_ASSERT_EQUAL(cs_json_opt_int(o, "train", "s", 1, 10, &n, &err), CS_EINVAL);
    err_is(&err, "train.s", "expected an integer, got a string");
    CU_ASSERT_EQUAL(cs_json_opt_int(o, "", "nul", 1, 10, &n, &err), CS_EINVAL);
    err_is(&err, "nul", "expected an integer, got null");
    /* numbers: > 0, or >= 0 with nonneg */
    CU_ASSERT_EQUAL(cs_json_opt_num(o, "gpu", "z", 0, &d, &err), CS_EINVAL);
    err_is(&err, "gpu.z", "must be > 0, got 0");
    CU_ASSERT_EQUAL(cs_json_opt_num(o, "gpu", "z", 1, &d, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 0, 0);
    CU_ASSERT_EQUAL(cs_json_opt_num(o, "gpu", "b", 1, &d, &err), CS_EINVAL);
    err_is(&err, "gpu.b", "expected a number, got a string");
    CU_ASSERT_EQUAL(cs_json_opt_bool(o, "parallel", "b", &b, &err), CS_EINVAL);
    err_is(&err, "parallel.b", "expected true or false, got a string");
    /* names */
    CU_ASSERT_EQUAL(cs_json_opt_enum(o, "train", "t", names, &i, &err), 0);
    CU_ASSERT_EQUAL(i, 2);
    CU_ASSERT_EQUAL(cs_json_opt_enum(o, "train", "s", names, &i, &err), CS_EINVAL);
    err_is(&err, "train.s", "unknown value 'fp7' (known: bf16, fp16, fp32)");
    CU_ASSERT_EQUAL(cs_json_opt_enum(o, "train", "n", names, &i, &err), CS_EINVAL);
    err_is(&err, "train.n", "expected a string, got a number");
    json_decref(o);
}

int cs_test_register(void)
{
    static const cs_test_case cases[] = {
        {"paths and type names", test_paths_and_types},
        {"key readers (bare wording)", test_key_readers},
        {"optional readers (plan wording)", test_optional_readers},
        {NULL, NULL},
    };
    return cs_test_add_suite("json", cases);
}
