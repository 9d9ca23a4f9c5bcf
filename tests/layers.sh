#!/bin/sh
# layers.sh: the layout rule as a test (DESIGN §1). Every #include "x/..." of a file must name
# its own folder or a lower layer (sim < topologies < algorithms < calibration < scenarios <
# plots < cli; tests may include anything); no two headers include each other, directly or
# through others; no command file in cli/ is over 300 lines. Prints every breach and exits 1.
set -u
cd "${1:-.}" || exit 1
rank() {
    case "$1" in
    sim/*) echo 1 ;; topologies/*) echo 2 ;; algorithms/*) echo 3 ;; calibration/*) echo 4 ;;
    scenarios/*) echo 5 ;; plots/*) echo 6 ;; cli/*) echo 7 ;; *) echo 0 ;;
    esac
}
bad=0
files=$(find sim topologies algorithms calibration scenarios plots cli -name '*.[ch]' 2>/dev/null | sort)
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in $files; do
    lf=$(rank "$f")
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        li=$(rank "$inc")
        if [ "$li" -gt "$lf" ]; then
            echo "layers: $f includes $inc, a higher layer"
            bad=1
        fi
        case "$f" in *.h) echo "$f $inc" >> "$edges" ;; esac
    done
done
# Header include cycles: tsort reports a cycle on stderr.
if [ -s "$edges" ] && tsort "$edges" 2>&1 >/dev/null | grep -q .; then
    echo "layers: headers include each other in a circle:"
    tsort "$edges" 2>&1 >/dev/null | sed 's/^/  /'
    bad=1
fi
for f in cli/*.c; do
    n=$(wc -l < "$f")
    if [ "$n" -gt 300 ]; then
        echo "layers: $f has $n lines; a command file parses, calls a library and prints (<= 300)"
        bad=1
    fi
done
[ "$bad" -eq 0 ] && echo "layers: every include points down, no header circle, cli files <= 300 lines"
exit "$bad"
