#!/bin/sh
# bootstrap.sh: the README's first command. Installs the Debian packages collsim needs when
# they are missing (apt-get; sudo when not root), configures and builds into ./build, and runs
# the default simulation (an allreduce sweep on the built-in DGX H100 preset).
set -eu
cd "$(dirname "$0")/.."
pkgs="gcc libc6-dev meson ninja-build pkg-config python3 libgsl-dev libjansson-dev libcairo2-dev libcunit1-dev libopenmpi-dev openmpi-bin"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
[ -d build ] || meson setup build --buildtype=release
ninja -C build
./build/collsim
