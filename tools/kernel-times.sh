#!/usr/bin/env bash
# Every kernel one launch runs, and each one's duration, under Nsight
# Compute (gpu__time_duration.sum): where a variant made of several kernels
# (im2col_gemm: the merged input's copy, cuBLAS's GEMM, col2im) spends its
# time. Run by gpu-run.sh through CONVT_BEFORE on the device machine:
#
#   CONVT_BEFORE='OUT=$OUT bash tools/kernel-times.sh'
#   CONVT_TIMES_CONFIG: the config the shapes come from (default configs/unseen4.json)
#   CONVT_TIMES_SPECS="SHAPE VARIANT KNOB=V ...;..." (required)
#   CONVT_TIMES_METRICS: more metrics, comma-separated (each a row a kernel)
#   CONVT_TIMES_NCU_ARGS: more options for ncu, e.g. "--cache-control none
#     --clock-control none" (the L2 as the pipeline leaves it, the clocks
#     as they run: ncu's defaults flush the caches and lock base clocks)
#
# One report a spec, $OUT/kernel-times-SHAPE-VARIANT-KNOBS.csv (ncu's CSV:
# kernel name, grid, duration in nanoseconds), and a summary line per kernel on
# stdout. The run validates its output, so the float64 reference's kernels
# and the harness's appear too; the variant's are those between them.
set -uo pipefail
: "${CONVT_TIMES_SPECS:?CONVT_TIMES_SPECS=\"SHAPE VARIANT KNOB=V ...;...\"}"
IFS=';' read -ra list <<< "$CONVT_TIMES_SPECS"
status=0
for spec in "${list[@]}"; do
  set -- $spec
  shape=$1 variant=$2; shift 2
  python3 tools/one_launch_config.py "${CONVT_TIMES_CONFIG:-configs/unseen4.json}" "$shape" "$variant" "$@" --once \
    > /tmp/times-one.json || { status=1; continue; }
  knobs=$(echo "$*" | tr ' =' '_-')
  report="$OUT/kernel-times-$shape-$variant${knobs:+-$knobs}.csv"
  timeout 120 ncu --metrics "gpu__time_duration.sum${CONVT_TIMES_METRICS:+,$CONVT_TIMES_METRICS}" \
    ${CONVT_TIMES_NCU_ARGS:-} --print-units base --csv build-gpu/convt-bench --quiet \
    --config /tmp/times-one.json --out /tmp/times-one-out.json > "$report" 2>&1 || status=1
  echo "== $shape $variant $*"
  # "ID","Process ID","Process Name","Host Name","Kernel Name",...,"Metric Unit","Metric Value"
  python3 - "$report" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10 and r[0].isdigit()]
for r in rows:
    print(f"  {r[0]:>4} {r[-1]:>14} {r[-2]:<8} {r[-3][:44]:<44} {r[4][:80]}")
PY
done
exit $status
