#!/usr/bin/env bash
# probe (session 45, call 4): do the blocks' epilogues wait on the DRAM's
# write rate because they fall together? Call 3 found kb57's epilogue 805
# cycles a stage with the producer's copies off (a tile pair's 128 KB in
# about 9700 cycles: 13.6 B a cycle an SM, 3.5 TB/s over 132 SMs, the
# HBM's rate), and every block's tiles take the same stages, so the blocks
# stay in step. CONVT_WG_STAGGER (the stage clocks' diagnostic build)
# starts the odd blocks' producers later: 0; about half a kb57 tile pair
# (26000 cycles); a whole one (52000, back in step on
# kb57: a control). Prediction: if the epilogues fall together on the
# DRAM, kb57 at 26000 is 5 to 15% faster than at 0 and 52000 is not.
# The main build is the diagnostic one:
# CONVT_BUILD_CUDA_ARGS="['-DCONVT_WG_STAGE_CLOCKS']".
cd "$(dirname "$0")/.."
cfg=results/h100-2026-11-28-s45-stagger-probe.config.json
export CONVT_STAGE_CLOCKS="$OUT/stagger-clocks.txt"
for s in 0 26000 52000; do
  CONVT_WG_STAGGER=$s timeout 110 build-gpu/convt-bench --quiet --config $cfg --out "$OUT/stagger-$s.json" \
    > "$OUT/stagger-$s.log" 2>&1
  echo "stagger $s: exit $?"
  python3 - "$OUT/stagger-$s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["records"]:
    if r["status"] in ("ok", "wrong"):
        print(f'  {r["shape"]["name"]:16} {r["variant"]:30} {r["launch_key"]:70} {r["status"]} {r["timing"]["median_ms"]:.4f} noise {r["timing"].get("noise", 0):.3f}')
PY
done
