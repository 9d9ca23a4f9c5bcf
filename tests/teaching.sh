#!/bin/sh
# teaching.sh: the lesson is the program's output. Runs docs/teaching.sh into a temporary
# directory (it fails itself when a claim of the lesson no longer holds) and fails when
# docs/teaching.md or a picture docs/img/teach-*.png differs from what it wrote there, or a
# checked-in teach-*.png is one it no longer writes. The pictures are compared byte for byte:
# two runs of the same build write the same bytes (cairo is deterministic here).
# usage: teaching.sh COLLSIM SOURCE_ROOT
set -u
collsim=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sh "$root/docs/teaching.sh" "$collsim" "$work" >/dev/null || exit 1
bad=0
if ! cmp -s "$work/teaching.md" "$root/docs/teaching.md"; then
    echo "teaching: docs/teaching.md is not what docs/teaching.sh writes:"
    diff -u "$root/docs/teaching.md" "$work/teaching.md" | head -40
    bad=1
fi
for f in "$work"/img/teach-*.png; do
    name=img/$(basename "$f")
    if ! cmp -s "$f" "$root/docs/$name"; then
        echo "teaching: docs/$name is not the picture docs/teaching.sh draws"
        bad=1
    fi
done
for f in "$root"/docs/img/teach-*.png; do
    [ -f "$work/img/$(basename "$f")" ] && continue
    echo "teaching: docs/img/$(basename "$f") is no longer drawn by docs/teaching.sh"
    bad=1
done
if [ "$bad" -ne 0 ]; then
    echo "teaching: run \`sh docs/teaching.sh\` and commit docs/teaching.md and docs/img/teach-*.png"
    exit 1
fi
echo "teaching: docs/teaching.md and its $(ls "$work"/img/teach-*.png | wc -l) pictures are what" \
    "docs/teaching.sh writes"
