#!/usr/bin/env bash
# Everything convt-bench needs on a GPU machine without network, in one call:
# unpack the carried Debian packages (cJSON, cmocka, which such machines lack),
# configure, build, run every test (the GPU ones included), run the
# KernelBench sweep, and leave logs and results in $OUT.
#
#   bash tools/gpu-run.sh [OUT_DIR]        (default: ./gpu-out)
#
# Fetch the packages beforehand on a machine with network:
#   mkdir -p .deps && (cd .deps && apt-get download libcjson1 libcjson-dev libcmocka0 libcmocka-dev)
# Without .git in the tree, export CONVT_GIT_REVISION so results record it
# (read at every build, so a build directory kept warm between calls records
# the revision passed to this call, not its first).
# Set CONVT_CONFIGS to run other sweeps (space-separated, default
# configs/kernelbench-l1.json; "none": no sweep; each under
# CONVT_SWEEP_TIMEOUT seconds, default 480: the sm_90a build's KernelBench
# sweep took 578 s on an H100 in session 22 (measure.prune 1.5), more than
# a device call holds beside a fresh build; on an H200 in session 47 its
# --shard 1/3 took about 400 s (kb61, kb64, kb65, kb68, kb70, kb74, kb77),
# 2/3 167 s and 3/3 34 s, so give shard 1/3 a call of its own; a sweep cut off leaves a file
# that --resume finishes: carry it in the tree, copy it to $OUT/NAME.json
# before calling this script, and pass CONVT_SWEEP_ARGS=--resume);
# CONVT_SWEEP_ARGS adds
# options to every sweep (e.g. "--devices all"), or with
# CONVT_SWEEP_ARGS_ONLY="NAME ..." to the sweeps of those config names alone
# (e.g. "--shard 1/3" for kernelbench-l1 beside a probe that runs whole: in
# session 38 the shard cut a probe to 2 of its 11 shapes); CONVT_SKIP_TESTS=1 skips
# the tests;
# CONVT_REPEAT=1 runs each sweep twice and compares the two (run-to-run
# spread; CONVT_AGAIN_ARGS replaces CONVT_SWEEP_ARGS for the second, e.g.
# "--devices all" then "--devices 0"); CONVT_CHECK_SLOWDOWN=1 runs tools/check-slowdown.sh on the GPU;
# CONVT_SANITIZE=1 first runs every config of sanitize_configs below (or
# CONVT_SANITIZE_CONFIGS) under compute-sanitizer (memcheck), before
# anything is timed; CONVT_PROFILE=1
# profiles the winning polyphase kernel on each shape of
# configs/profile-dense.json with Nsight Compute (every metric of the
# occupancy, issue, warp-stall and memory sections) into $OUT/ncu-SHAPE.txt.
# CONVT_TORCH=1 measures PyTorch's ConvTranspose on each sweep's shapes
# (tools/torch_baseline.py) right after the sweep and merges the two
# (NAME-merged.json and its selection: the fastest vendor record of each
# tier includes PyTorch's); CONVT_TORCH_ONLY="NAME ..." limits that to the
# sweeps of those config names (e.g. "realistic", not a random check's 300
# shapes). CONVT_BUNDLE=1 packs everything under $OUT but run.log into
# $OUT/bundle.tar.gz (the device tool brings back at most 8 files); the
# default, auto, does so where more than 8 files are there; 0 never. It packs
# also when a signal (the call's timeout: `timeout N bash tools/gpu-run.sh`)
# cuts the run, after ending its steps (tests/test_gpu_run_cut.py).
# CONVT_SM=90a builds for sm_90a, with the Hopper-only variants
# (polyphase_wgmma_tf32).
# CONVT_WGMMA_PROBE=1 builds and runs tools/wgmma_probe.cu first (with
# CONVT_PROBE_ONLY=1, nothing else); CONVT_SWIZZLE_PROBE=1 likewise
# tools/wgmma_swizzle_probe.cu (128-byte swizzled input operand started at a
# row shift: which descriptor base offset computes, and cycles per wgmma).
# CONVT_NN=1 checks libconvt on the GPU: the C example installed, and
# convt.nn against PyTorch (tools/check_convt_nn.py).
# CONVT_GPU_TEST_FUNCS="FILTER ..." runs test_gpu once per cmocka filter
# (e.g. "kernelbench* variants_against_cpu*"), each under
# CONVT_GPU_TEST_TIMEOUT seconds (default 400), logs in $OUT/test-gpu-*.log.
# CONVT_AB_CUDA_ARGS="-DMACRO ..." then builds a second tree with those
# cuda_args and runs the same sweeps with it (NAME-ab.json), compared with
# the default build's: one call's A/B of a compile-time switch.
# CONVT_BUILD_CUDA_ARGS="['-DMACRO', ...]" makes the main build a diagnostic
# one (its results are not results: e.g. the stage clocks' probes, which
# then need no second build of their own; a build directory kept warm keeps
# the arguments of its first call).
# CONVT_FAULTS=1 runs convt-bench-faults on tests/data/gpu-faults.json:
# planted CUDA faults beside good variants (the worker processes' test).
set -uo pipefail
set +m  # no job control: the steps' job below must not lead a process group (setsid)
unset CDPATH  # cd prints nothing
OUT=${1:-${OUT:-$PWD/gpu-out}}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)  # the steps run from the tree's root
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

# The device tool brings back at most 8 files: with more under $OUT, all
# but run.log (which the caller's redirection may still be writing) go
# into bundle.tar.gz. Session 33 lost two calls' logs to the limit. The
# archive is in place before anything is removed.
bundle_out() {
  local nfiles tmp
  nfiles=$(find "$OUT" -type f ! -name bundle.tar.gz | wc -l)
  if [ "${CONVT_BUNDLE:-auto}" = 1 ] || { [ "${CONVT_BUNDLE:-auto}" = auto ] && [ "$nfiles" -gt 8 ]; }; then
    tmp=$(mktemp /tmp/convt-bundle.XXXXXX) || return
    if (cd "$OUT" && tar czf "$tmp" --exclude=./bundle.tar.gz --exclude=./run.log . &&
          chmod 644 "$tmp" && mv "$tmp" bundle.tar.gz &&
          find . -mindepth 1 -maxdepth 1 ! -name run.log ! -name bundle.tar.gz -exec rm -rf {} +); then
      echo "bundle.tar.gz: every file under $OUT ($nfiles) but run.log; tar xzf it"
    else
      rm -f "$tmp"
    fi
  fi
}

# The live processes of session $1 but pid $2, from /proc: pkill -s
# without procps, which minimal images lack (a cut run would wait forever).
session_pids() {
  local sid=$1 skip=${2:-} f s
  for f in /proc/[0-9]*/stat; do
    { read -r s < "$f"; } 2>/dev/null || continue
    set -- ${s##*) }  # state ppid pgrp session ...
    [ "$1" != Z ] && [ "$4" = "$sid" ] && [ "${f//[^0-9]/}" != "$skip" ] && echo "${f//[^0-9]/}"
  done
}
kill_session() {  # kill_session SIGNAL SESSION: every process of it but the caller
  local p self=$BASHPID
  for p in $(session_pids "$2" "$self"); do kill -"$1" "$p" 2>/dev/null; done
}

# A call's limit (`timeout N bash tools/gpu-run.sh`, or the device tool's)
# ends this script by SIGTERM, and bash runs a trap only once its foreground
# command has returned, which a sweep may not do for minutes. So the steps
# run in a child, the same script with CONVT_GPU_RUN_STEPS set, as the
# leader of a session of their own (setsid), and this parent waits for it:
# on TERM or INT it ends every process of that session (kill_session: each
# `timeout` of a step leads a process group of its own, so the session, not
# a group, holds them all; convt-bench writes its results file whole on
# TERM, the partial sweep that --resume finishes), then packs what the
# steps left. Packing
# ignores further signals, so that a second TERM cannot cut the archive
# half made. In session 49 a call cut by its timeout came back without its
# bundle: 8 files of 13, run.log and a profile's report lost.
if [ -z "${CONVT_GPU_RUN_STEPS:-}" ]; then
  steps=""
  end_steps() {
    trap '' TERM INT
    if [ -n "$steps" ]; then
      kill_session TERM "$steps"
      for _ in 1 2 3 4 5 6 7 8 9 10; do
        [ -n "$(session_pids "$steps")" ] || break
        sleep 1
      done
      kill_session KILL "$steps"
      wait "$steps" 2>/dev/null
    fi
    echo "gpu-run.sh: cut by a signal; the steps were ended, what they left is packed"
    bundle_out
    exit 124
  }
  trap end_steps TERM INT
  CONVT_GPU_RUN_STEPS=1 setsid bash "$here/tools/$(basename "$0")" "$OUT" &
  steps=$!
  wait "$steps"
  status=$?
  trap '' TERM INT
  bundle_out
  exit $status
fi
# The steps' own watchdog: if the parent above dies without ending them (a
# SIGKILL), nothing else would, since they left its process group.
(
  trap 'exit 0' TERM
  while kill -0 "$PPID" 2>/dev/null; do sleep 2; done
  kill_session KILL $$
) > /dev/null 2>&1 &
watchdog=$!
trap 'kill "$watchdog" 2>/dev/null' EXIT

deps=/tmp/convt-deps
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p "$deps"
  for f in .deps/*.deb; do dpkg -x "$f" "$deps"; done
  export PKG_CONFIG_PATH="$deps/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export PKG_CONFIG_SYSROOT_DIR="$deps"
  export CPATH="$deps/usr/include${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -1
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

# cuDNN: by default the one PyTorch ships (its nvidia-cudnn wheel), where
# PyTorch is installed, so that our cuDNN variants and tools/torch_baseline.py
# measure the same library; CONVT_CUDNN=system takes the toolkit's. On the
# H100 (2026-11-23) the system's cuDNN 9.14 faulted (illegal instruction or
# address) in seven TF32 engine configurations of the graph API on small 3-D
# dilated strided shapes; the wheel's 9.19 is what PyTorch runs.
cudnn_opt=""
if [ "${CONVT_CUDNN:-torch}" = torch ]; then
  wheel=$(python3 -c 'import os, nvidia.cudnn as c; print(os.path.dirname(c.__file__) if c.__file__ else list(c.__path__)[0])' 2>/dev/null)
  if [ -n "$wheel" ] && [ -f "$wheel/include/cudnn.h" ]; then
    mkdir -p /tmp/cudnn/lib
    ln -sfn "$wheel/include" /tmp/cudnn/include
    for f in "$wheel"/lib/libcudnn*.so*; do ln -sf "$f" /tmp/cudnn/lib/; done
    [ -e /tmp/cudnn/lib/libcudnn.so ] || ln -sf "$(ls "$wheel"/lib/libcudnn.so.* | head -1)" /tmp/cudnn/lib/libcudnn.so
    export LD_LIBRARY_PATH="/tmp/cudnn/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    cudnn_opt="-Dcudnn_dir=/tmp/cudnn"
    echo "cuDNN: PyTorch's wheel, $wheel" | tee -a "$OUT/device.txt"
  else
    echo "cuDNN: the system's (no PyTorch cuDNN wheel found)" | tee -a "$OUT/device.txt"
  fi
fi

# A standalone probe, tools/NAME.cu, built for sm_90a and run: its output in
# $OUT/NAME.log (underscores as dashes), the binary in /tmp/NAME
run_probe() {
  local name=$1 log="$OUT/${1//_/-}.log"
  nvcc -gencode arch=compute_90a,code=sm_90a -O2 -lineinfo "tools/$name.cu" -o "/tmp/$name" > "$log" 2>&1 &&
    "/tmp/$name" >> "$log" 2>&1
  echo "${name//_/ }: exit $?"; grep -v C7519 "$log"
}
if [ "${CONVT_WGMMA_PROBE:-0}" = 1 ]; then
  # priority 4's first step: TF32 warpgroup MMA on its own
  run_probe wgmma_probe
  cuobjdump -sass /tmp/wgmma_probe > "$OUT/wgmma-probe.sass" 2>&1
  echo "SASS: $(grep -c HGMMA "$OUT/wgmma-probe.sass") HGMMA, $(grep -cE 'STL|LDL' "$OUT/wgmma-probe.sass") local loads/stores"
  grep -m3 HGMMA "$OUT/wgmma-probe.sass"
fi
[ "${CONVT_SWIZZLE_PROBE:-0}" = 1 ] && run_probe wgmma_swizzle_probe
if [ "${CONVT_WGMMA_PROBE:-0}${CONVT_SWIZZLE_PROBE:-0}" != 00 ] && [ "${CONVT_PROBE_ONLY:-0}" = 1 ]; then
  exit 0
fi

build=build-gpu
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dcuda=enabled -Dcudnn=enabled -Dtests=enabled -Dsm="${CONVT_SM:-90}" $cudnn_opt \
    ${CONVT_BUILD_CUDA_ARGS:+"-Dcuda_args=$CONVT_BUILD_CUDA_ARGS"} > "$OUT/setup.log" 2>&1 \
    || { tail -40 "$OUT/setup.log"; exit 1; }
fi
ninja -C "$build" > "$OUT/build.log" 2>&1 || { grep -E 'error|FAILED' -A3 "$OUT/build.log" | head -60; exit 1; }
grep -E 'warning' "$OUT/build.log" | head -20

status=0
# the exit status $1 of step $2, printed; anything but 0 fails the call
check_rc() {
  echo "$2: exit $1"
  [ "$1" = 0 ] || status=1
}
# memcheck's configs, one for each kernel family
sanitize_configs="configs/sanitize-polyphase.json configs/sanitize-direct-grouped.json
  configs/sanitize-periods.json configs/sanitize-rowmma.json configs/sanitize-fft.json
  configs/sanitize-fold.json configs/sanitize-plane.json configs/sanitize-splitk.json
  configs/sanitize-wide.json configs/sanitize-cluster.json configs/sanitize-rows.json
  configs/sanitize-colsum.json configs/sanitize-rows-tma.json configs/sanitize-pingpong.json
  configs/sanitize-segments.json configs/sanitize-fold-inplace.json
  configs/sanitize-fold-padded.json configs/sanitize-fold-inner.json
  configs/sanitize-splitk-fold-inner.json configs/sanitize-resident.json
  configs/sanitize-rowfold.json configs/sanitize-pair.json configs/sanitize-split3-width.json
  configs/sanitize-fold-3xtf32.json configs/sanitize-splitk-3xtf32.json
  configs/sanitize-fold-posm-3xtf32.json"
if [ "${CONVT_SANITIZE:-0}" = 1 ]; then
  for cfg in ${CONVT_SANITIZE_CONFIGS:-$sanitize_configs}; do
    name=$(basename "$cfg" .json)
    timeout ${CONVT_SANITIZE_TIMEOUT:-240} compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$build/convt-bench" --quiet --config "$cfg" --out "$OUT/$name.json" > "$OUT/$name.log" 2>&1
    check_rc $? "compute-sanitizer memcheck, $cfg"
    grep -E 'ERROR SUMMARY|Invalid|runs:|ok,' "$OUT/$name.log" | head -12
  done
fi
if [ "${CONVT_PROFILE:-0}" = 1 ]; then
  # shape, variant and launch: each problem's winner in the KernelBench (or
  # realistic) run
  for spec in "kb65_2d_asymk polyphase_igemm_tf32 5 16 3" "kb69_2d_asym polyphase_igemm_tf32 6 16 3" \
              "kb58_3d_asym polyphase_igemm_3xtf32 8 16 3" "kb79_1d_strided_dil polyphase_igemm_tf32 7 32 3" \
              "vocoder_up2 polyphase_igemm_tf32 6 32 3"; do
    set -- $spec
    python3 tools/one_launch_config.py configs/profile-dense.json "$1" "$2" tile="$3" bk="$4" \
      stages="$5" > /tmp/profile-one.json
    timeout ${CONVT_PROFILE_TIMEOUT:-120} ncu --kernel-name regex:polyphase_kernel --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats \
      --page raw "$build/convt-bench" --quiet --config /tmp/profile-one.json \
      --out /tmp/profile-one-out.json > "$OUT/ncu-$1.txt" 2>&1
    echo "ncu $1 ($2 tile $3 bk $4): exit $?"
  done
fi
if [ -n "${CONVT_BEFORE:-}" ]; then
  # a command of the caller's between the build and the sweeps; the sweeps
  # run only if it succeeds (e.g. a check that a risky set-up is safe)
  bash -c "$CONVT_BEFORE" || { echo "CONVT_BEFORE failed: no sweep runs"; exit 1; }
fi
# CONVT_SWEEP_ARGS for the sweep of config name $1: all of them, or with
# CONVT_SWEEP_ARGS_ONLY only those it names
sweep_args_for() {
  if [ -n "${CONVT_SWEEP_ARGS_ONLY:-}" ] && [[ " $CONVT_SWEEP_ARGS_ONLY " != *" $1 "* ]]; then
    echo ""
  else
    echo "${CONVT_SWEEP_ARGS:-}"
  fi
}
configs=${CONVT_CONFIGS:-configs/kernelbench-l1.json}
[ "$configs" = none ] && configs=""
for cfg in $configs; do
  name=$(basename "$cfg" .json)
  sweep_args=$(sweep_args_for "$name")
  timeout ${CONVT_SWEEP_TIMEOUT:-480} "$build/convt-bench" --config "$cfg" --out "$OUT/$name.json" \
    $sweep_args > "$OUT/$name.log" 2>&1
  check_rc $? "convt-bench --config $cfg"
  grep -vE '^\[' "$OUT/$name.log" | tail -45
  if [ "${CONVT_TORCH:-0}" = 1 ] && { [ -z "${CONVT_TORCH_ONLY:-}" ] || [[ " $CONVT_TORCH_ONLY " == *" $name "* ]]; }; then
    PYTHONUNBUFFERED=1 timeout ${CONVT_TORCH_TIMEOUT:-300} python3 tools/torch_baseline.py "$cfg" \
      --out "$OUT/$name-torch.json" > "$OUT/$name-torch.log" 2>&1 || status=1
    tail -8 "$OUT/$name-torch.log"
    "$build/convt-bench" merge "$OUT/$name.json" "$OUT/$name-torch.json" \
      --out "$OUT/$name-merged.json" > "$OUT/$name-merged.txt" 2>&1 || status=1
    tail -50 "$OUT/$name-merged.txt"
  fi
  if [ "${CONVT_REPEAT:-0}" = 1 ]; then
    # the same sweep again, and compare's verdict on the pair: run-to-run spread
    timeout ${CONVT_SWEEP_TIMEOUT:-480} "$build/convt-bench" --quiet --config "$cfg" \
      --out "$OUT/$name-again.json" ${CONVT_AGAIN_ARGS-$sweep_args} \
      > "$OUT/$name-again.log" 2>&1 || status=1
    "$build/convt-bench" compare "$OUT/$name.json" "$OUT/$name-again.json" > "$OUT/$name-compare.txt"
    echo "compare $name vs again: exit $?"
    grep -E 'REGRESSION|not judged' "$OUT/$name-compare.txt" | head -10
    grep -E ' winners: ' "$OUT/$name-compare.txt"
    tail -3 "$OUT/$name-compare.txt"
  fi
done
if [ -n "${CONVT_AB_CUDA_ARGS:-}" ] && [ -n "$configs" ]; then
  # A/B of a compile-time switch on one warm GPU: a second build whose CUDA
  # code is compiled with these arguments (e.g. a diagnostic macro that
  # restores the old behaviour, -DCONVT_WG_ISSUER_THREAD0), the same sweeps
  # again into NAME-ab.json, and compare's verdict on them (A = the
  # arguments' build, B = the default build)
  ab=build-gpu-ab
  ab_args=$(printf "'%s'," $CONVT_AB_CUDA_ARGS)
  if [ ! -f "$ab/build.ninja" ]; then
    meson setup "$ab" -Dcuda=enabled -Dcudnn=enabled -Dtests=disabled -Dsm="${CONVT_SM:-90}" $cudnn_opt \
      "-Dcuda_args=[${ab_args%,}]" > "$OUT/setup-ab.log" 2>&1 || { tail -20 "$OUT/setup-ab.log"; exit 1; }
  else
    meson configure "$ab" "-Dcuda_args=[${ab_args%,}]" > "$OUT/setup-ab.log" 2>&1
  fi
  ninja -C "$ab" convt-bench > "$OUT/build-ab.log" 2>&1 || { grep -E 'error|FAILED' -A3 "$OUT/build-ab.log" | head -40; exit 1; }
  for cfg in $configs; do
    name=$(basename "$cfg" .json)
    timeout ${CONVT_SWEEP_TIMEOUT:-480} "$ab/convt-bench" --quiet --config "$cfg" --out "$OUT/$name-ab.json" \
      $(sweep_args_for "$name") > "$OUT/$name-ab.log" 2>&1
    check_rc $? "convt-bench --config $cfg, built with $CONVT_AB_CUDA_ARGS"
    "$build/convt-bench" compare "$OUT/$name-ab.json" "$OUT/$name.json" > "$OUT/$name-ab-compare.txt"
    echo "compare $name: $CONVT_AB_CUDA_ARGS (A) vs the default build (B): exit $?"
    tail -3 "$OUT/$name-ab-compare.txt"
  done
fi
if [ "${CONVT_FAULTS:-0}" = 1 ]; then
  # planted CUDA faults (an illegal address, a kernel that never ends) beside
  # good variants: the sweep must finish, only the planted runs failed
  ninja -C "$build" convt-bench-faults >> "$OUT/build.log" 2>&1
  timeout 300 "$build/convt-bench-faults" --config tests/data/gpu-faults.json $(sweep_args_for gpu-faults) \
    --out "$OUT/gpu-faults.json" > "$OUT/gpu-faults.log" 2>&1
  echo "convt-bench-faults on tests/data/gpu-faults.json: exit $? (1 expected)"
  grep -vE '^\[' "$OUT/gpu-faults.log" | grep -E 'worker|ok,' | head -12
  python3 - "$OUT/gpu-faults.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["records"]:
    print(f'{r["shape"]["name"]:5} {r["variant"]:30} {r["status"]:7} {r.get("reason", "")[:150]}')
PY
fi
if [ "${CONVT_NN:-0}" = 1 ]; then
  # libconvt on the GPU: the C example against the installed library (a
  # fresh destdir prefix), then convt.nn against PyTorch
  # (tools/check_convt_nn.py: 17 KernelBench problems, 100 random shapes,
  # two whole models, run-time tuning), on the committed H100 tables
  dest=/tmp/convt-dest; rm -rf "$dest"
  meson install -C "$build" --no-rebuild --destdir "$dest" > "$OUT/install.log" 2>&1
  lib=$(dirname "$(find "$dest" -name libconvt.so | head -1)")
  cuda_root=$(dirname "$(dirname "$(command -v nvcc)")")
  cc -std=c11 -DWITH_CUDA examples/dispatch/run_plan.c -I"$dest/usr/local/include" \
    -I"$cuda_root/include" -L"$lib" -lconvt -L"$cuda_root/lib64" -lcudart -Wl,-rpath,"$lib" \
    -o /tmp/run_plan > "$OUT/run_plan.log" 2>&1
  for table in results/h100-2026-11-23-kernelbench-l1-merged.selection.json \
               results/h100-2026-11-23-realistic-merged.selection.json; do
    /tmp/run_plan "$table" 0 >> "$OUT/run_plan.log" 2>&1; echo "run_plan $table: exit $?" | tee -a "$OUT/run_plan.log"
  done
  tail -8 "$OUT/run_plan.log"
  printf '%s\n' '{"variants": ["polyphase*", "direct_grouped", "cudnn_fp32", "cudnn_tf32"],' \
    ' "measure": {"max_time_s": 0.2, "rounds": 2}}' > /tmp/tune-base.json
  CONVT_LIBRARY="$build/libconvt.so" CONVT_BENCH="$build/convt-bench" CONVT_TUNE_CONFIG=/tmp/tune-base.json \
    PYTHONUNBUFFERED=1 timeout ${CONVT_NN_TIMEOUT:-420} python3 tools/check_convt_nn.py \
    --kb-table results/h100-2026-11-23-kernelbench-l1-merged.selection.json \
    --table results/h100-2026-11-23-realistic-merged.selection.json \
    --out "$OUT/convt-nn.json" --tune-dir "$OUT/tune" > "$OUT/convt-nn.log" 2>&1 || status=1
  tail -60 "$OUT/convt-nn.log"
fi
if [ "${CONVT_CHECK_SLOWDOWN:-0}" = 1 ]; then
  # compare must catch a gather slowed by a planted delay, and pass noise
  CONVT_NO_SETUP=1 CONVT_BUILD=$build CONVT_OUT="$OUT/slowdown" \
    timeout 300 bash tools/check-slowdown.sh "${CONVT_DELAY_US:-5}" cuda || status=1
fi
if [ -n "${CONVT_GPU_TEST_FUNCS:-}" ]; then
  # test_gpu's functions one by one (cmocka filters, e.g. "kernelbench*
  # variants_against_cpu*"), each under CONVT_GPU_TEST_TIMEOUT seconds: the
  # whole program runs past one device call, and a function cut off by the
  # limit fails instead of hiding the rest
  # (through meson test, which gives test_gpu its environment)
  for f in $CONVT_GPU_TEST_FUNCS; do
    log="$OUT/test-gpu-$(echo "$f" | tr -cd 'A-Za-z0-9_-').log"
    CONVT_GPU_TEST_FILTER="$f" timeout ${CONVT_GPU_TEST_TIMEOUT:-400} \
      meson test -C "$build" --suite gpu --verbose --timeout-multiplier 0 > "$log" 2>&1
    check_rc $? "test_gpu $f"
    grep -vE '^\[ *[0-9]+/' "$log" | grep -E 'runs ok|passed on|PASSED|FAILED|SIGTERM|: (wrong|failed):' | head -8
  done
fi
if [ "${CONVT_SKIP_TESTS:-0}" != 1 ]; then
  timeout ${CONVT_TEST_TIMEOUT:-420} meson test -C "$build" --print-errorlogs --num-processes 4 \
    > "$OUT/tests.log" 2>&1 || status=1
  grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped):' "$OUT/tests.log"
  grep -E 'runs ok|SKIP' "$build/meson-logs/testlog.txt" | head
  cp "$build/meson-logs/testlog.txt" "$OUT/testlog.txt" 2>/dev/null
fi

nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader >> "$OUT/device.txt" 2>&1
exit $status  # the parent packs $OUT (bundle_out)
