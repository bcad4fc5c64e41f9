#!/usr/bin/env bash
# probe (session 41): the stage clocks of the row fold (ping-pong and not) on kb78, kb71 and kb70,
# whole gather and a quarter of it (CONVT_WG_GATHER_QUARTER: wrong outputs), same call,
# against ping-pong on kb78 (session 39 measured it the same way)
cd "$(dirname "$0")/.."
build() {
  local b=$1 args=$2
  if [ ! -f $b/build.ninja ]; then
    meson setup $b -Dcuda=enabled -Dcudnn=disabled -Dtests=disabled -Dsm=90a "-Dcuda_args=$args" \
      > "$OUT/$(basename $b)-setup.log" 2>&1 || { tail -20 "$OUT/$(basename $b)-setup.log"; exit 1; }
  fi
  ninja -C $b convt-bench > "$OUT/$(basename $b)-build.log" 2>&1 || { grep -E 'error|FAILED' -A3 "$OUT/$(basename $b)-build.log" | head -40; exit 1; }
}
rm -rf /tmp/bclkq
build /tmp/bclk "['-DCONVT_WG_STAGE_CLOCKS']" &
build /tmp/bclkq "['-DCONVT_WG_STAGE_CLOCKS','-DCONVT_WG_GATHER_QUARTER']" &
wait
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-rowfold.txt"
run() {
  b=$1 cfg=$2; shift 2
  python3 tools/one_launch_config.py "$cfg" "$@" --once > /tmp/clk.json
  echo "== $(basename $b) $*" >> "$CONVT_STAGE_CLOCKS"
  rm -f /tmp/clk-out.json
  timeout 120 $b/convt-bench --quiet --config /tmp/clk.json --out /tmp/clk-out.json > /tmp/clk.log 2>&1
  echo "$(basename $b) $*: exit $? $(python3 -c "import json;d=json.load(open('/tmp/clk-out.json'));print([r['status'] for r in d['records']])" 2>&1)" | tee -a "$CONVT_STAGE_CLOCKS"
}
for b in /tmp/bclk /tmp/bclkq; do
  run $b configs/kernelbench-l1.json kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=0
  run $b configs/kernelbench-l1.json kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=0 resident=0
  run $b configs/kernelbench-l1.json kb78_2d_padded polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=4 kpad=64 plane=0 rows=0 seg=0 resident=0
  run $b configs/kernelbench-l1.json kb71_2d_asymin polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=1
  run $b configs/kernelbench-l1.json kb70_3d_asymin polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 rows=0 plane=1 pingpong=1 resident=0
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
        print('%-150s period %5d wait %5d issue %5d fill %5d flight %5d empty %5d  (%d block-launches)' % ((k[:150],) + tuple(int(x) for x in med) + (len(v),)))
PY
