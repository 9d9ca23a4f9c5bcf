/* fuzz_options.c: libFuzzer target for the size and number parsers and the option scanner.
 * The input is split at newlines into arguments; each is parsed as a size, an integer and a
 * number, and the list is scanned as a command line with run-like options. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const cs_opt_spec specs[] = {
        {"minbytes", 'b', 1, 0}, {"maxbytes", 'e', 1, 0}, {"ngpus", 'g', 1, 0},
        {"check", 'c', 1, 0}, {"links", 0, 0, 1}, {"output", 'o', 1, 0}, {NULL, 0, 0, 0}};
    static char run[] = "run";
    char *s = malloc(size + 1), **argv, *p;
    int argc = 0, i;
    cs_opt_scan sc;
    const cs_opt_spec *spec;
    const char *val;
    cs_err err;
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    argv = malloc((size + 2) * sizeof *argv);
    if (!argv) {
        free(s);
        return 0;
    }
    argv[argc++] = run;
    for (p = s; p; ) {
        char *nl = memchr(p, '\n', (size_t)(s + size - p));
        if (nl)
            *nl = '\0';
        argv[argc++] = p;
        p = nl ? nl + 1 : NULL;
    }
    for (i = 1; i < argc; i++) {
        uint64_t b;
        long l;
        double d;
        char buf[32];
        if (cs_parse_size(argv[i], "-b", &b, &err) == 0)
            cs_format_bytes(b, buf, sizeof buf);
        cs_parse_int(argv[i], "-g", 1, 1L << 22, &l, &err);
        cs_parse_double(argv[i], "-x", 0, &d, &err);
    }
    sc.argc = argc;
    sc.argv = argv;
    sc.i = 1;
    while (cs_opt_next(&sc, specs, &spec, &val, &err) == 1)
        ;
    free(argv);
    free(s);
    return 0;
}
