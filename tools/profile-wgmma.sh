#!/usr/bin/env bash
# Nsight Compute on KernelBench problems for polyphase_wgmma_tf32 (or any
# variant named), one report per (shape, variant, launch) into
# $OUT/ncu-SHAPE-VARIANT-KNOBS.txt, and the wgmma kernels' SASS (HGMMA, barriers,
# the warpgroup waits) into $OUT/wgmma.sass: what limits the wgmma kernel
# where the mma.sync one is faster. Run by gpu-run.sh through CONVT_BEFORE
# (needs the sm_90a build: CONVT_SM=90a).
#
#   CONVT_PROFILE_SPECS="SHAPE VARIANT KNOB=V ...;..." (default below)
set -uo pipefail
# The default: the dense problems v10 loses to cuDNN (kb68, kb69), and kb79
# under both schedules (persist 1 and 0: its DRAM traffic and throughput).
specs=${CONVT_PROFILE_SPECS:-"kb68_3d_asymk polyphase_wgmma_tf32 bn=0 bk=16 stages=3 persist=1;kb69_2d_asym polyphase_wgmma_tf32 bn=0 bk=16 stages=3 persist=1;kb79_1d_strided_dil polyphase_wgmma_tf32 bn=64 bk=16 stages=3 persist=1;kb79_1d_strided_dil polyphase_wgmma_tf32 bn=64 bk=16 stages=3 persist=0"}
IFS=';' read -ra list <<< "$specs"
for spec in "${list[@]}"; do
  set -- $spec
  shape=$1 variant=$2; shift 2
  python3 tools/one_launch_config.py configs/kernelbench-l1.json "$shape" "$variant" "$@" --once \
    > /tmp/profile-one.json
  # the knobs in the name: two launches of one shape and variant keep two reports
  knobs=$(echo "$*" | tr ' =' '_-')
  report="$OUT/ncu-$shape-$variant${knobs:+-$knobs}.txt"
  timeout 150 ncu --kernel-name regex:polyphase_ --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section Occupancy --section SchedulerStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section SourceCounters \
    --page details build-gpu/convt-bench --quiet --config /tmp/profile-one.json \
    --out /tmp/profile-one-out.json > "$report" 2>&1
  echo "ncu $variant $* on $shape: exit $?"
  grep -E "Duration|Compute \(SM\) Throughput|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Issued Warp|No Eligible|Registers Per|Bank" "$report" | head -13
done
lib=$(ls build-gpu/libconvt.so* | head -1)
cuobjdump -sass "$lib" | awk '/Function : .*polyphase_wgmma_kernelILi256ELi16ELi1E/{f=1; print; next} /Function : /{f=0} f' > "$OUT/wgmma.sass"
echo "SASS of polyphase_wgmma_kernel<256,16,1>: $(grep -c HGMMA "$OUT/wgmma.sass") HGMMA, $(grep -c 'WARPGROUP' "$OUT/wgmma.sass") WARPGROUP, $(grep -c 'BAR.SYNC' "$OUT/wgmma.sass") BAR.SYNC, $(grep -cE 'STL|LDL' "$OUT/wgmma.sass") local"
