#!/usr/bin/env bash
# Installs what convt-bench needs to build on Debian/Ubuntu (if missing) and
# configures the build tree. Sourced by tools/run-default and tools/test.
# The CUDA Toolkit is used when nvcc is found (PATH or /usr/local/cuda);
# without it the build is CPU-only.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ -d /usr/local/cuda/bin ] && ! command -v nvcc >/dev/null; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

need=()
command -v meson >/dev/null || need+=(meson)
command -v ninja >/dev/null || need+=(ninja-build)
command -v pkg-config >/dev/null || need+=(pkgconf)
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)  # examples/plugin (tools/check-install.sh)
pkg-config --exists libcjson 2>/dev/null || need+=(libcjson-dev)
pkg-config --exists cmocka 2>/dev/null || need+=(libcmocka-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

# matplotlib draws plots/ (plots/plot_results.py); pip first, Debian's package
# where pip may not install into the system Python.
if ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "setup: installing matplotlib" >&2
  python3 -m pip install --quiet matplotlib >&2 2>/dev/null || {
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-matplotlib >&2
  }
fi

BUILD=${BUILD:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" >&2
fi
ninja -C "$BUILD" >&2
