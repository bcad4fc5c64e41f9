#!/usr/bin/env bash
# Shows that `convt-bench compare` catches a real slowdown and passes noise:
# runs a config twice with the normal build and once with a build whose
# gather variants wait DELAY_US per launch (meson -Dplanted_delay_us: on the
# CPU cpu_gather busy-waits; on a GPU a one-thread kernel spins before
# gather's kernel), then
#   normal vs normal  -> must pass (exit 0)
#   normal vs slowed  -> must fail (exit 1), naming the gather records
# Timing-dependent: on a busy or shared CPU, run-to-run variation can exceed
# the noise a single run records (seen on a 2-core VM: +9.0% against 5.8%
# allowed), so it is a tool for a quiet machine, not part of CI.
#
# Usage: tools/check-slowdown.sh [DELAY_US [BACKEND]]
#   DELAY_US  default 20000 on the CPU, 5 on cuda
#   BACKEND   cpu (default) or cuda
# Environment: CONVT_BUILD (the normal build tree, default build; configured
# here if missing), CONVT_CONFIG (default configs/ci.json), CONVT_OUT (where
# the three results files and the two reports go, default a temporary folder),
# CONVT_NO_SETUP=1 (do not run tools/setup.sh: a machine without network
# that has the build tools already, e.g. tools/gpu-run.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
backend=${2:-cpu}
default_delay=20000
[ "$backend" = cuda ] && default_delay=5
delay=${1:-$default_delay}
build=${CONVT_BUILD:-build}
config=${CONVT_CONFIG:-configs/ci.json}
if [ "${CONVT_NO_SETUP:-0}" != 1 ]; then
  source tools/setup.sh || exit 1
  set +e  # setup.sh runs with -e; the checks below read exit statuses themselves
fi
# the slowed build takes the normal build's options, plus the delay
if [ ! -f build-slow/build.ninja ]; then
  opts=()
  [ "$backend" = cuda ] && opts=(-Dcuda=enabled -Dcudnn=enabled)
  meson setup build-slow "${opts[@]}" -Dtests=disabled -Dplanted_delay_us="$delay" >/dev/null || exit 1
else
  meson configure build-slow -Dplanted_delay_us="$delay" >/dev/null || exit 1
fi
ninja -C build-slow convt-bench >/dev/null || exit 1
out=${CONVT_OUT:-$(mktemp -d)}
mkdir -p "$out"
for run in a b; do
  "$build/convt-bench" --quiet --config "$config" --out "$out/normal-$run.json" --backend "$backend" >/dev/null
done
build-slow/convt-bench --quiet --config "$config" --out "$out/slowed.json" --backend "$backend" >/dev/null
"$build/convt-bench" compare "$out/normal-a.json" "$out/normal-b.json" > "$out/same.txt"
same=$?
"$build/convt-bench" compare "$out/normal-a.json" "$out/slowed.json" > "$out/slow.txt"
slow=$?
echo "normal vs normal: exit $same (want 0): $(tail -1 "$out/same.txt")"
grep -E 'REGRESSION|not judged' "$out/same.txt" | head -8
echo "normal vs slowed by ${delay} us: exit $slow (want 1): $(tail -1 "$out/slow.txt")"
grep -E 'REGRESSION' "$out/slow.txt" | head -12
[ $same = 0 ] && [ $slow = 1 ]
