#!/usr/bin/env bash
# Shows that `convt-bench compare` catches a real slowdown and passes noise:
# runs configs/ci.json twice with the normal build and once with a build whose
# cpu_gather busy-waits DELAY_US per launch (meson -Dplanted_delay_us), then
#   normal vs normal  -> must pass (exit 0)
#   normal vs slowed  -> must fail (exit 1), naming the cpu_gather records
# The planted delay exists in cpu_gather only, so this runs on the CPU backend.
# Timing-dependent: on a busy or shared CPU, run-to-run variation can exceed
# the noise a single run records (seen on a 2-core VM: +9.0% against 5.8%
# allowed), so it is a tool for a quiet machine, not part of CI.
# Usage: tools/check-slowdown.sh [DELAY_US, default 20000]
set -uo pipefail
cd "$(dirname "$0")/.."
delay=${1:-20000}
shift || true
source tools/setup.sh || exit 1
set +e  # setup.sh runs with -e; the checks below read exit statuses themselves
if [ ! -f build-slow/build.ninja ]; then
  meson setup build-slow -Dplanted_delay_us="$delay" >/dev/null || exit 1
else
  meson configure build-slow -Dplanted_delay_us="$delay" >/dev/null || exit 1
fi
ninja -C build-slow >/dev/null || exit 1
out=$(mktemp -d)
for run in a b; do
  build/convt-bench --quiet --config configs/ci.json --out "$out/normal-$run.json" --backend cpu >/dev/null
done
build-slow/convt-bench --quiet --config configs/ci.json --out "$out/slowed.json" --backend cpu >/dev/null
build/convt-bench compare "$out/normal-a.json" "$out/normal-b.json" > "$out/same.txt"
same=$?
build/convt-bench compare "$out/normal-a.json" "$out/slowed.json" > "$out/slow.txt"
slow=$?
echo "normal vs normal: exit $same (want 0): $(tail -1 "$out/same.txt")"
echo "normal vs slowed by ${delay} us: exit $slow (want 1): $(tail -1 "$out/slow.txt")"
grep REGRESSION "$out/slow.txt" | head -8
[ $same = 0 ] && [ $slow = 1 ]
