#!/usr/bin/env bash
# probe (session 42): the stage clocks of polyphase_wgmma_3xtf32 on kb69 with
# the consumers side by side (turns 0) and in turn (turns 1), same call, one
# diagnostic build (-DCONVT_WG_STAGE_CLOCKS); session 39 measured turns 0's
# period at 2651 cycles (bn 128, bk 8).
cd "$(dirname "$0")/.."
b=/tmp/bclk
if [ ! -f $b/build.ninja ]; then
  meson setup $b -Dcuda=enabled -Dcudnn=disabled -Dtests=disabled -Dsm=90a "-Dcuda_args=['-DCONVT_WG_STAGE_CLOCKS']" \
    > "$OUT/bclk-setup.log" 2>&1 || { tail -20 "$OUT/bclk-setup.log"; exit 1; }
fi
ninja -C $b convt-bench > "$OUT/bclk-build.log" 2>&1 || { grep -E 'error|FAILED' -A3 "$OUT/bclk-build.log" | head -40; exit 1; }
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-turns.txt"
run() {
  python3 tools/one_launch_config.py configs/kernelbench-l1.json "$@" --once > /tmp/clk.json
  echo "== $*" >> "$CONVT_STAGE_CLOCKS"
  rm -f /tmp/clk-out.json
  timeout 120 $b/convt-bench --quiet --config /tmp/clk.json --out /tmp/clk-out.json > /tmp/clk.log 2>&1
  echo "$*: exit $? $(python3 -c "import json;d=json.load(open('/tmp/clk-out.json'));print([r['status'] for r in d['records']])" 2>&1)" | tee -a "$CONVT_STAGE_CLOCKS"
}
for t in 0 1; do
  for bn in 128 0; do
    run kb69_2d_asym polyphase_wgmma_3xtf32 bn=$bn bk=8 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0 turns=$t
  done
done
python3 - "$CONVT_STAGE_CLOCKS" <<'PY'
import re, sys, statistics
cur = None; acc = {}
for line in open(sys.argv[1]):
    if line.startswith('== '):
        cur = line[3:].strip(); acc.setdefault(cur, [])
    m = re.search(r'period (\d+) wait (-?\d+) issue (-?\d+) fill (-?\d+) flight (-?\d+) empty (-?\d+)', line)
    if m and cur:
        acc[cur].append([int(x) for x in m.groups()])
for k, v in acc.items():
    if v:
        med = [statistics.median(col) for col in zip(*v)]
        print('%-110s period %5d wait %5d issue %5d fill %5d flight %5d empty %5d  (%d block-launches)' % ((k[:110],) + tuple(int(x) for x in med) + (len(v),)))
PY
