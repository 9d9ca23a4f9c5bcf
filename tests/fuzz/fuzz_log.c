/* fuzz_log.c: libFuzzer targets for the log readers, one per format (FUZZ_LOG_FORMAT:
 * 1 nccl-tests/rccl-tests text, 2 nccl-tests -J JSON, 3 hccl_test text). The reader is called
 * directly, without the binary-data check of cs_log_parse_mem, so every byte reaches it;
 * then cs_log_parse_mem runs too (format detection, rank inference, limits). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calibration/logparse.h"
#include "calibration/logparse-private.h"

#ifndef FUZZ_LOG_FORMAT
#define FUZZ_LOG_FORMAT 1
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    cs_log *log = calloc(1, sizeof *log), *parsed = NULL;
    cs_log_opts opts;
    cs_err err;
    if (!s || !log || !(log->name = strdup("fuzz"))) {
        free(s);
        cs_log_free(log);
        return 0;
    }
    memcpy(s, data, size);
    s[size] = '\0';
    cs_log_opts_init(&opts);
#if FUZZ_LOG_FORMAT == 1
    cs__log_read_nccl_text(log, s, size, &opts, &err);
#elif FUZZ_LOG_FORMAT == 2
    cs__log_read_json(log, s, size, &opts, &err);
#else
    cs__log_read_hccl_text(log, s, size, &opts, &err);
#endif
    cs_log_free(log);
    if (cs_log_parse_mem("fuzz", s, size, &opts, &parsed, &err) == 0)
        cs_log_free(parsed);
    free(s);
    return 0;
}
