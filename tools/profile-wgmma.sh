#!/usr/bin/env bash
# Nsight Compute on one KernelBench problem (kb65, default KB65) for
# polyphase_wgmma_tf32 and polyphase_igemm_tf32 at their best launches of
# the H100 runs, one report each into $OUT/ncu-<variant>.txt: what limits
# the wgmma kernel where the mma.sync one is faster. Run by gpu-run.sh
# through CONVT_BEFORE (needs the sm_90a build: CONVT_SM=90a).
set -uo pipefail
shape=${1:-kb65_2d_asymk}
for spec in "polyphase_wgmma_tf32 bn=64 stages=3" "polyphase_igemm_tf32 tile=5 bk=16 stages=3"; do
  set -- $spec
  variant=$1; shift
  python3 - "$shape" "$variant" "$@" > /tmp/profile-one.json <<'PY'
import json, sys
shape, variant, *knobs = sys.argv[1:]
c = json.load(open("configs/kernelbench-l1.json"))
c["shapes"] = [s for s in c["shapes"] if s["name"] == shape]
c["variants"] = [variant]
c["launch"] = {variant: {k: int(v) for k, v in (kv.split("=") for kv in knobs)}}
c["measure"] = {"warmup": 0, "min_samples": 1, "max_samples": 1, "rounds": 1, "cache": "warm"}
print(json.dumps(c))
PY
  timeout 150 ncu --kernel-name regex:polyphase --launch-count 1 --section SpeedOfLight \
    --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats --page details \
    build-gpu/convt-bench --quiet --config /tmp/profile-one.json --out /tmp/profile-one-out.json \
    > "$OUT/ncu-$variant.txt" 2>&1
  echo "ncu $variant on $shape: exit $?"
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy|No Eligible|Issued Warp|Stall" "$OUT/ncu-$variant.txt" | head -14
done
