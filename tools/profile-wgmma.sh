#!/usr/bin/env bash
# Nsight Compute on KernelBench problems for polyphase_wgmma_tf32 beside
# polyphase_igemm_tf32, one report per (shape, variant) into
# $OUT/ncu-SHAPE-VARIANT.txt, and the wgmma kernels' SASS (HGMMA, barriers,
# the warpgroup waits) into $OUT/wgmma.sass: what limits the wgmma kernel
# where the mma.sync one is faster. Run by gpu-run.sh through CONVT_BEFORE
# (needs the sm_90a build: CONVT_SM=90a).
#
#   CONVT_PROFILE_SPECS="SHAPE VARIANT KNOB=V ...;..." (default below)
set -uo pipefail
specs=${CONVT_PROFILE_SPECS:-"kb64_1d polyphase_wgmma_tf32 bn=256 bk=16 stages=3;kb64_1d polyphase_igemm_tf32 tile=6 bk=32 stages=3;kb65_2d_asymk polyphase_wgmma_tf32 bn=192 bk=16 stages=3"}
IFS=';' read -ra list <<< "$specs"
for spec in "${list[@]}"; do
  set -- $spec
  shape=$1 variant=$2; shift 2
  python3 tools/one_launch_config.py configs/kernelbench-l1.json "$shape" "$variant" "$@" --once \
    > /tmp/profile-one.json
  report="$OUT/ncu-$shape-$variant.txt"
  timeout 150 ncu --kernel-name regex:polyphase_ --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section Occupancy --section SchedulerStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section SourceCounters \
    --page details build-gpu/convt-bench --quiet --config /tmp/profile-one.json \
    --out /tmp/profile-one-out.json > "$report" 2>&1
  echo "ncu $variant $* on $shape: exit $?"
  grep -E "Duration|Compute \(SM\) Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Issued Warp|No Eligible|Registers Per|Bank" "$report" | head -12
done
lib=$(ls build-gpu/libconvt.so* | head -1)
cuobjdump -sass "$lib" | awk '/Function : .*polyphase_wgmma_kernelILi256ELi16ELi1E/{f=1; print; next} /Function : /{f=0} f' > "$OUT/wgmma.sass"
echo "SASS of polyphase_wgmma_kernel<256,16,1>: $(grep -c HGMMA "$OUT/wgmma.sass") HGMMA, $(grep -c 'WARPGROUP' "$OUT/wgmma.sass") WARPGROUP, $(grep -c 'BAR.SYNC' "$OUT/wgmma.sass") BAR.SYNC, $(grep -cE 'STL|LDL' "$OUT/wgmma.sass") local"
