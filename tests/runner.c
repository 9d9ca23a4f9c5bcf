/* runner.c: the only main of the test executables. Each test_<area>.c defines
 * cs_test_register(); this turns GSL's abort handler off, registers the area's suites, runs
 * all of them or the one named in argv[1], and exits non-zero on any failure. */
#include <stdio.h>
#include <string.h>
#include <CUnit/Basic.h>
#include <gsl/gsl_errno.h>

#include "tests/testutil.h"

int main(int argc, char **argv)
{
    unsigned failed;
    gsl_set_error_handler_off();
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if (cs_test_register() != 0) {
        fprintf(stderr, "test registration failed: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (argc > 1) {
        CU_pSuite s = CU_get_suite(argv[1]);
        if (!s) {
            fprintf(stderr, "no suite named '%s'\n", argv[1]);
            CU_cleanup_registry();
            return 2;
        }
        CU_basic_run_suite(s);
    } else {
        CU_basic_run_tests();
    }
    /* Read the result before cleaning up: cleanup resets the counters. */
    failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    if (CU_get_run_summary()->nTestsRun == 0)
        failed++;
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
