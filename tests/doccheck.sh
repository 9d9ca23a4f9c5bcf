#!/bin/sh
# doccheck.sh PYTHON COLLSIM SRCDIR: tools/doccheck.py catches a planted drift, on one-line
# commands and on commands continued over lines with a backslash, and --fix repairs it.
set -u
py=$1; c=$2; src=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fails=0
check() { if [ "$2" -ne 0 ]; then echo "FAIL: $1"; fails=$((fails + 1)); fi; }
# the program's own lines: an average bus bandwidth line of a 1 MiB allreduce
avg=$("$c" run allreduce --topo dgx-h100 -b 1M -e 1M | grep '^# Avg bus bandwidth' | sed 's/ *$//')
bad="# Avg bus bandwidth    : 1.000"
for form in one two; do
    if [ $form = one ]; then
        cmd='$ build/collsim run allreduce --topo dgx-h100 -b 1M -e 1M'
    else
        cmd='$ build/collsim run allreduce --topo dgx-h100 \
      -b 1M -e 1M'
    fi
    printf '```\n%s\n%s\n```\n' "$cmd" "$avg" > "$d/good.md"
    printf '```\n%s\n%s\n```\n' "$cmd" "$bad" > "$d/bad.md"
    "$py" "$src/tools/doccheck.py" --collsim "$c" "$d/good.md" > "$d/out" 2>&1
    check "$form-line command, the program's output passes: $(cat "$d/out")" $?
    "$py" "$src/tools/doccheck.py" --collsim "$c" "$d/bad.md" > "$d/out" 2>&1
    [ $? -eq 1 ] && grep -q "prints no line '# Avg bus bandwidth    : 1.000'" "$d/out"
    check "$form-line command, a planted drift is caught: $(cat "$d/out")" $?
    "$py" "$src/tools/doccheck.py" --fix --collsim "$c" "$d/bad.md" > /dev/null 2>&1
    grep -qx "$avg" "$d/bad.md"
    check "$form-line command, --fix puts the program's line back" $?
done
echo "$fails failed"
[ "$fails" -eq 0 ]
