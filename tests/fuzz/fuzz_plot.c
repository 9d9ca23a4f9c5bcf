/* fuzz_plot.c: libFuzzer target for plot's results reader (cs_series_load): the first byte
 * picks CSV or JSON, the rest is the file. The reader takes a path, so the bytes go to a
 * scratch file named by extension. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plots/plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char csv[64], json[64];
    cs_series_set set;
    cs_err err;
    const char *path;
    FILE *f;
    if (!csv[0]) {
        snprintf(csv, sizeof csv, "/tmp/fuzz_plot.%ld.csv", (long)getpid());
        snprintf(json, sizeof json, "/tmp/fuzz_plot.%ld.json", (long)getpid());
    }
    if (size < 1)
        return 0;
    path = data[0] & 1 ? json : csv;
    if (!(f = fopen(path, "wb")))
        return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    memset(&set, 0, sizeof set);
    cs_series_load(&set, path, NULL, data[0] & 2, &err);
    cs_series_set_fini(&set);
    unlink(path);
    return 0;
}
