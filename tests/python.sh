#!/bin/sh
# python.sh PYTHON COLLSIM SRCDIR BUILDDIR [SANITIZE [docs]]: the Python package's tests
# (tests/test_python.py, unittest) with PYTHONPATH=BUILDDIR/python; with "docs", the check
# that docs/python.md is what docs/python.sh writes. Skipped (exit 77) when PYTHON is
# missing. In a sanitizer build (SANITIZE not "none") the interpreter is not
# instrumented: the sanitizers' runtimes are preloaded (LD_PRELOAD) with leak detection off
# for the interpreter's own lifetime allocations; libcollsim's leaks and races are the C
# test's (tests/test_api.c, run under the sanitizers as every CUnit suite).
py=$1 collsim=$2 src=$3 build=$4 sanitize=${5:-none} what=${6:-tests}
if ! command -v "$py" >/dev/null 2>&1; then
    echo "python: skipped: $py not found (apt-get install python3)"
    exit 77
fi
if [ "$sanitize" != none ]; then
    pre=""
    for lib in libasan.so libubsan.so; do
        f=$(${CC:-cc} -print-file-name=$lib 2>/dev/null)
        [ -f "$f" ] && pre="$pre${pre:+ }$(readlink -f "$f")"
    done
    if [ -z "$pre" ]; then
        echo "python: skipped: a $sanitize build and no sanitizer runtime to preload"
        exit 77
    fi
    export LD_PRELOAD="$pre"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    echo "python: $sanitize build: LD_PRELOAD=$pre, detect_leaks=0"
fi
if [ "$what" = docs ]; then
    PYTHON=$py exec sh "$src/docs/python.sh" --check "$build"
fi
PYTHONPATH="$build/python" COLLSIM="$collsim" CS_TEST_DATA="$src/tests/data" \
MESON_BUILD_ROOT="$build" PYTHONDONTWRITEBYTECODE=1 \
    exec "$py" "$src/tests/test_python.py" -v
