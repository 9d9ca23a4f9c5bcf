#!/bin/sh
# mkman.sh COLLSIM OUT: the collsim(1) man page from the help texts, with help2man: the
# synopsis and options from `collsim --help`, then one section per command from
# `collsim help COMMAND`. Run by meson at build time.
set -eu
collsim=$1
out=$2
inc=$(mktemp)
trap 'rm -f "$inc"' EXIT
{
    echo "[DESCRIPTION]"
    echo "collsim is a discrete-event simulator of collective communication (allreduce,"
    echo "allgather, ...) on GPU/NPU fabrics; it prints nccl-tests style tables."
    for c in $("$collsim" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
        [ "$c" = help ] && continue
        echo "[COMMAND $c]"
        "$collsim" help "$c" | sed -e 's/\\/\\\\/g' -e 's/^\./\\\&./' -e 's/^$/.PP/' \
            -e 's/^\(  *-.*\)$/.br\n\1/'
    done
    echo "[SEE ALSO]"
    echo "docs/limits.md in the collsim sources: the ranges of figures, --max-memory, output files."
} >"$inc"
help2man --no-info --name="simulate collective communication (nccl-tests compatible)" \
    --section=1 --include="$inc" --output="$out" "$collsim"
