/* testutil.h: helpers shared by the test executables. */
#ifndef CS_TESTUTIL_H
#define CS_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <math.h>

#include "sim/topo.h"

/* Defined by each test_<area>.c: add its suites to the CUnit registry; 0 on success. */
int cs_test_register(void);

/* Add a suite with tests {name, fn}, NULL-terminated. Returns 0 or -1. */
typedef struct cs_test_case { const char *name; CU_TestFunc fn; } cs_test_case;
int cs_test_add_suite(const char *name, const cs_test_case *cases);

/* Relative closeness: |got - want| <= rel * max(|want|, tiny). */
int cs_close_rel(double got, double want, double rel);
#define CS_ASSERT_REL(got, want, rel) do {                                              \
        double g_ = (got), w_ = (want);                                                 \
        if (!cs_close_rel(g_, w_, (rel)))                                               \
            fprintf(stderr, "\n  %s:%d: got %.12g want %.12g (rel %.3g)\n",             \
                    __FILE__, __LINE__, g_, w_, fabs(g_ - w_) / fmax(fabs(w_), 1e-300)); \
        CU_ASSERT(cs_close_rel(g_, w_, (rel)));                                         \
    } while (0)

/* A topology from JSON text ("test" in its errors); NULL on failure, with the error printed
 * for the test log. */
cs_topo *cs_test_topo(const char *json);

/* Two GPUs under one PCIe switch, 12 GB/s (pcie3) and 1 us per link, switch uplink the
 * same; p2p 1: GPU -> switch -> GPU (2 links), 0: staged through the host (SHM). */
cs_topo *cs_test_pcie3_pair(int p2p);

/* Write text to a new temporary file (name in buf, n bytes; the caller unlinks it) and
 * return buf: a topology file for calls that take a path (cs_nccl_setup). */
const char *cs_test_json_file(const char *text, char *buf, size_t n);

/* Path of a test data file: CS_TEST_DATA "/" rel, in a static buffer. */
const char *cs_test_data(const char *rel);

/* Run a shell command, capture stdout (and stderr if merge) into a malloc'd string;
 * returns the exit status (or -1). */
int cs_test_sh(const char *cmd, char **out);

/* Check plan p, open its system and evaluate it into r (scenarios/plan.h), printing the
 * error where one comes; returns 0 or the negative code. */
struct cs_plan;
struct cs_plan_result;
int cs_test_plan_eval(struct cs_plan *p, struct cs_plan_result *r);
/* An "nccl" object's text read into p (cs_nccl_params_from_json): its code, or -100 when
 * the text is not JSON. */
struct cs_nccl_params;
int cs_test_nccl_json(const char *text, struct cs_nccl_params *p, cs_err *err);

#endif
