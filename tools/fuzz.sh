#!/usr/bin/env bash
# tools/fuzz.sh [SECONDS]: fuzzes the sweep-file parser and the results
# readers (compare, select, merge) with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, each target SECONDS seconds (default 60).
#
#   1. installs clang and its sanitizer/libFuzzer runtime where missing
#      (Debian/Ubuntu: clang, libclang-rt-N-dev, llvm for llvm-symbolizer);
#   2. configures build-fuzz (CC=clang, -Dfuzz=true -Dcuda=disabled) and
#      builds tests/fuzz/fuzz_config and tests/fuzz/fuzz_results;
#   3. copies each target's seeds (tests/fuzz/corpus/<target>, for the config
#      parser also configs/*.json, and the reproducers of earlier findings,
#      tests/fuzz/found/<target>-*) to a temporary directory, so that the
#      repository is never written, and runs the targets side by side;
#   4. fails (exit 1) on any crash, sanitizer report, leak, timeout or
#      out-of-memory, printing the reproducer's path and its stack.
#
# Environment: FUZZ_BUILD (build-fuzz), FUZZ_TARGETS ("config results"),
# FUZZ_OUT (where reproducers and logs go; default $FUZZ_BUILD/fuzz-out),
# FUZZ_KEEP_GOING=1 (libFuzzer's fork mode: keep fuzzing after a finding,
# collecting every reproducer, instead of stopping at the first),
# FUZZ_JOBS (targets run at once; default: the number of cores, at most 2),
# FUZZ_SAVE_CORPUS=DIR (keep the grown corpus in DIR/<target>).
# A reproducer replays with: build-fuzz/tests/fuzz/fuzz_<target> FILE
# Ends with a line "fuzz tests: N passed, N failed, N skipped" (one per target).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${1:-60}
case $SECONDS_EACH in
  ''|*[!0-9]*) echo "usage: tools/fuzz.sh [SECONDS]   (each target; default 60)" >&2; exit 2 ;;
esac
BUILD=${FUZZ_BUILD:-build-fuzz}
TARGETS=${FUZZ_TARGETS:-config results}
OUT=${FUZZ_OUT:-$BUILD/fuzz-out}
cores=$(nproc 2>/dev/null || echo 1)
JOBS=${FUZZ_JOBS:-$(( cores >= 2 ? 2 : 1 ))}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  echo "fuzz: installing $*" >&2
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# ---- 1. tools ------------------------------------------------------------------
fuzzer_links() {
  local dir
  dir=$(mktemp -d) || return 1
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$dir/t.c"
  clang -fsanitize=fuzzer,address,undefined "$dir/t.c" -o "$dir/t" >/dev/null 2>&1
  local rc=$?
  rm -rf "$dir"
  return $rc
}
need=()
command -v meson >/dev/null || need+=(meson)
command -v ninja >/dev/null || need+=(ninja-build)
command -v pkg-config >/dev/null || need+=(pkgconf)
pkg-config --exists libcjson 2>/dev/null || need+=(libcjson-dev)
command -v clang >/dev/null || need+=(clang)
if [ ${#need[@]} -gt 0 ]; then
  apt_install "${need[@]}" || exit 1
fi
if ! fuzzer_links; then
  # Debian 12 ships libFuzzer and the sanitizer runtimes in libclang-rt-N-dev,
  # which clang only recommends
  v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)
  apt_install "libclang-rt-$v-dev" || exit 1
  fuzzer_links || { echo "fuzz: clang cannot link -fsanitize=fuzzer,address,undefined" >&2; exit 1; }
fi
# llvm-symbolizer (package llvm) gives the stacks file:line
command -v llvm-symbolizer >/dev/null || apt_install llvm ||
  echo "fuzz: no llvm-symbolizer: stacks without file:line" >&2
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer >/dev/null; then
  export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
fi

# ---- 2. build ------------------------------------------------------------------
if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang meson setup "$BUILD" -Dfuzz=true -Dcuda=disabled -Dtests=disabled \
    --buildtype=debugoptimized >&2 || exit 1
else
  meson configure "$BUILD" -Dfuzz=true -Dcuda=disabled -Dtests=disabled >&2 || exit 1
fi
bins=()
for t in $TARGETS; do bins+=("tests/fuzz/fuzz_$t"); done
ninja -C "$BUILD" "${bins[@]}" >&2 || { echo "fuzz: the build failed" >&2; exit 1; }

# ---- 3. fuzz -------------------------------------------------------------------
# UB is fatal (also compiled in: -fno-sanitize-recover=undefined); leaks count.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:print_summary=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:print_summary=1}
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/convt-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

run_target() {  # target: runs it, writes $OUT/<target>.log and .rc
  local t=$1 corpus="$work/$1"
  mkdir -p "$corpus" "$OUT/$t"
  cp "$ROOT/tests/fuzz/corpus/$t"/* "$corpus/" 2>/dev/null
  [ "$t" = config ] && cp "$ROOT"/configs/*.json "$corpus/" 2>/dev/null
  # The reproducers of earlier findings: each replayed alone first (libFuzzer
  # checks a seed for leaks only when it runs it as a file), so an open one
  # fails every run, not only the runs that happen to find it again; then
  # they seed the fuzzing, where a fixed one keeps guarding.
  local f
  : >"$OUT/$t.replay"
  for f in "$ROOT/tests/fuzz/found/$t"-*; do
    [ -f "$f" ] || continue
    cp "$f" "$corpus/"
    if ! timeout 120 "$ROOT/$BUILD/tests/fuzz/fuzz_$t" "$f" >"$OUT/$t.replay.log" 2>&1; then
      echo "$f" >>"$OUT/$t.replay"
    fi
  done
  local args=(-max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=25 -rss_limit_mb=2048
              -print_final_stats=1 -artifact_prefix="$OUT/$t/")
  [ -f "$ROOT/tests/fuzz/$t.dict" ] && args+=(-dict="$ROOT/tests/fuzz/$t.dict")
  if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
    args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  # -max_total_time ends it; the outer timeout only guards against a stuck process
  timeout -k 10 $((SECONDS_EACH + 300)) \
    "$ROOT/$BUILD/tests/fuzz/fuzz_$t" "${args[@]}" "$corpus" >"$OUT/$t.log" 2>&1
  echo $? >"$OUT/$t.rc"
  if [ -n "${FUZZ_SAVE_CORPUS:-}" ]; then  # the grown corpus, e.g. to seed a longer run
    mkdir -p "$FUZZ_SAVE_CORPUS/$t" && cp "$corpus"/* "$FUZZ_SAVE_CORPUS/$t/" 2>/dev/null
  fi
}

echo "fuzz: ${TARGETS// /, }: ${SECONDS_EACH} s each, $JOBS at a time; logs in $OUT" >&2
running=0
for t in $TARGETS; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

# ---- 4. verdict ----------------------------------------------------------------
passed=0 failed=0
for t in $TARGETS; do
  rc=$(cat "$OUT/$t.rc" 2>/dev/null || echo 1)
  stats=$(grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$OUT/$t.log" | tr '\n' ' ')
  cov=$(grep -E '^#[0-9]+.*(DONE|cov:)' "$OUT/$t.log" | tail -n1 | grep -o 'cov: [0-9]* ft: [0-9]*')
  repros=$( (cat "$OUT/$t.replay" 2>/dev/null
             find "$OUT/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
               -o -name 'oom-*' \) 2>/dev/null | sort) )
  if [ "$rc" = 0 ] && [ -z "$repros" ] && ! grep -qE 'ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:' "$OUT/$t.log"; then
    echo "fuzz: fuzz_$t: ok (${stats:-no stats}${cov:+, $cov})"
    passed=$((passed + 1))
    continue
  fi
  failed=$((failed + 1))
  echo "fuzz: fuzz_$t: FAILED (libFuzzer exit $rc); log: $OUT/$t.log"
  grep -E 'ERROR: |runtime error:|^SUMMARY:' "$OUT/$t.log" | sort | uniq -c | sort -rn | head -n 10
  for r in $repros; do
    case $r in "$ROOT"/tests/fuzz/found/*) echo "fuzz: a known finding still fails: $r" ;; esac
    echo "fuzz: reproducer: $r"
    echo "fuzz:   replay:   $BUILD/tests/fuzz/fuzz_$t $r"
    # the stack again, unwound through the (uninstrumented) libcjson too
    ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" \
      timeout 120 "$ROOT/$BUILD/tests/fuzz/fuzz_$t" "$r" 2>&1 |
      sed -n '/^=\+$/,$p; /runtime error:/,/^$/p' |
      grep -vE '^INFO:|^Running:|^Executed|in fuzzer::|libc_start|in _start |in main ' | head -n 60
  done
  [ -n "$repros" ] || tail -n 40 "$OUT/$t.log"
done
echo "fuzz tests: $passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
