#!/bin/sh
# bootstrap.sh: the README's first command. Installs the Debian packages collsim needs when
# they are missing (apt-get; sudo when not root), configures and builds into ./build, and runs
# the default simulation (an allreduce sweep on the built-in DGX H100 preset).
set -eu
cd "$(dirname "$0")/.."
pkgs="gcc libc6-dev meson ninja-build pkg-config python3 libgsl-dev libjansson-dev libcairo2-dev libcunit1-dev help2man libopenmpi-dev openmpi-bin"
# apt_wait CMD...: run an apt-get command; while another apt or dpkg (often
# unattended-upgrades on a fresh machine) holds the package lock, say so and retry every
# 5 s for up to 5 minutes instead of failing.
apt_wait() {
    waited=0
    while :; do
        if out=$("$@" 2>&1); then
            [ -n "$out" ] && printf '%s\n' "$out"
            return 0
        fi
        case $out in
        *"Could not get lock"*|*"Unable to acquire the dpkg frontend lock"*|*"Unable to lock directory"*)
            if [ "$waited" -ge 300 ]; then
                printf '%s\n' "$out" >&2
                echo "gave up after ${waited} s waiting for the apt lock" >&2
                return 1
            fi
            [ "$waited" -eq 0 ] && echo "waiting for the apt/dpkg lock (another package manager is running, e.g. unattended-upgrades); retrying every 5 s for up to 5 min"
            sleep 5
            waited=$((waited + 5)) ;;
        *)
            printf '%s\n' "$out" >&2
            return 1 ;;
        esac
    done
}
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    apt_wait $sudo apt-get update -qq
    apt_wait $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi
[ -d build ] || meson setup build --buildtype=release
ninja -C build
./build/collsim
