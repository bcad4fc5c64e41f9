#!/usr/bin/env bash
# Nsight Compute on KernelBench problems for polyphase_wgmma_tf32 (or any
# variant named), one report per (shape, variant, launch) into
# $OUT/ncu-SHAPE-VARIANT-KNOBS.txt, where its warps wait per SASS instruction
# into $OUT/ncu-SHAPE-VARIANT-KNOBS-stalls.txt (tools/ncu_stall_sites.py; the
# source page itself as -source.csv.gz), and the wgmma kernels' SASS (HGMMA, barriers,
# the warpgroup waits) into $OUT/wgmma.sass: what limits the wgmma kernel
# where the mma.sync one is faster. Run by gpu-run.sh through CONVT_BEFORE
# (needs the sm_90a build: CONVT_SM=90a).
#
#   CONVT_PROFILE_SPECS="SHAPE VARIANT KNOB=V ...;..." (default below)
#   CONVT_PROFILE_CONFIG: the config the shapes come from (default
#     configs/kernelbench-l1.json); CONVT_PROFILE_KERNEL: a regex on the
#     kernel names to profile (default polyphase_), e.g. direct_grouped.
#     The first launch it matches is profiled, the harness's own kernels
#     included: session 53's regex
#     `polyphase_wgmma_kernel|xmma|cutlass|dgrad|sm90` caught the device
#     ceilings' cuBLAS SGEMM (sm80_xmma_gemm_*, time_gemm in
#     src/lib/backend_cuda.cu) on all three specs.
#     Each spec's line below names the kernel profiled.
set -uo pipefail
# The default: the dense problems v10 loses to cuDNN (kb68, kb69) or stays
# 3x above the floor on (kb57), at the widths the sweep picks.
specs=${CONVT_PROFILE_SPECS:-"kb68_3d_asymk polyphase_wgmma_tf32 bn=256 bk=16 stages=3 persist=1;kb69_2d_asym polyphase_wgmma_tf32 bn=256 bk=16 stages=3 persist=1;kb57_2d_square polyphase_wgmma_tf32 bn=256 bk=16 stages=3 persist=1"}
IFS=';' read -ra list <<< "$specs"
for spec in "${list[@]}"; do
  set -- $spec
  shape=$1 variant=$2; shift 2
  python3 tools/one_launch_config.py "${CONVT_PROFILE_CONFIG:-configs/kernelbench-l1.json}" "$shape" "$variant" "$@" --once \
    > /tmp/profile-one.json
  # the knobs in the name: two launches of one shape and variant keep two reports
  knobs=$(echo "$*" | tr ' =' '_-')
  report="$OUT/ncu-$shape-$variant${knobs:+-$knobs}.txt"
  rep=/tmp/profile-one
  timeout 150 ncu --kernel-name "regex:${CONVT_PROFILE_KERNEL:-polyphase_}" --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section Occupancy --section SchedulerStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section SourceCounters \
    -f -o "$rep" build-gpu/convt-bench --quiet --config /tmp/profile-one.json \
    --out /tmp/profile-one-out.json > "$report" 2>&1
  status=$?
  ncu -i "$rep.ncu-rep" --page details >> "$report" 2>&1
  # where the warps wait, per SASS instruction (tools/ncu_stall_sites.py)
  ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > /tmp/profile-one-src.csv 2>&1
  python3 tools/ncu_stall_sites.py /tmp/profile-one-src.csv 30 > "${report%.txt}-stalls.txt" 2>&1 ||
    head -c 4000 /tmp/profile-one-src.csv >> "${report%.txt}-stalls.txt"
  gzip -c /tmp/profile-one-src.csv > "${report%.txt}-source.csv.gz"
  echo "ncu $variant $* on $shape: exit $status"
  grep -m1 '==PROF== Profiling' "$report" | cut -c1-160
  head -12 "${report%.txt}-stalls.txt"
  grep -E "Duration|Compute \(SM\) Throughput|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Issued Warp|No Eligible|Registers Per|Bank" "$report" | head -13
done
lib=$(ls build-gpu/libconvt.so* | head -1)
# the kernels of width 256 and bk 16 (both nseg; unfolded and folded by a
# power of two, not split), the widths of the default specs: the stall
# sites' addresses refer to them
cuobjdump -sass "$lib" | awk '/Function : .*polyphase_wgmma_kernelILi256ELi16ELi[12]ELb0ELi0ELb[01]ELi1ELb0ELb0E/{f=1; print; next} /Function : /{f=0} f' > "$OUT/wgmma.sass"
echo "SASS of polyphase_wgmma_kernel<256,16,1 and 2>: $(grep -c HGMMA "$OUT/wgmma.sass") HGMMA, $(grep -c 'WARPGROUP' "$OUT/wgmma.sass") WARPGROUP, $(grep -c 'BAR.SYNC' "$OUT/wgmma.sass") BAR.SYNC, $(grep -cE 'STL|LDL' "$OUT/wgmma.sass") local"
