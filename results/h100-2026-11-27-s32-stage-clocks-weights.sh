#!/usr/bin/env bash
# probe (session 32): the producer's fill split: the weights' bulk copy issued
# (thread 0's part before its own copies) against the whole fill
cd "$(dirname "$0")/.."
build() {
  local b=$1 args=$2
  if [ ! -f $b/build.ninja ]; then
    meson setup $b -Dcuda=enabled -Dcudnn=disabled -Dtests=disabled -Dsm=90a "-Dcuda_args=$args" \
      > "$OUT/$(basename $b)-setup.log" 2>&1 || { tail -20 "$OUT/$(basename $b)-setup.log"; exit 1; }
  fi
  ninja -C $b convt-bench > "$OUT/$(basename $b)-build.log" 2>&1 || { grep -E 'error|FAILED' -A3 "$OUT/$(basename $b)-build.log" | head -40; exit 1; }
}
build /tmp/bclk "['-DCONVT_WG_STAGE_CLOCKS']"
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks3.txt"
run() {
  b=$1 cfg=$2; shift 2
  python3 tools/one_launch_config.py "$cfg" "$@" --once > /tmp/clk.json
  echo "== $(basename $b) $*" >> "$CONVT_STAGE_CLOCKS"
  rm -f /tmp/clk-out.json
  timeout 120 $b/convt-bench --quiet --config /tmp/clk.json --out /tmp/clk-out.json > /tmp/clk.log 2>&1
  echo "$(basename $b) $*: exit $? $(python3 -c "import json;d=json.load(open('/tmp/clk-out.json'));print([r['status'] for r in d['records']])" 2>&1)" | tee -a "$CONVT_STAGE_CLOCKS"
}
for b in /tmp/bclk; do
  run $b configs/kernelbench-l1.json kb57_2d_square polyphase_wgmma_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0
  run $b configs/kernelbench-l1.json kb71_2d_asymin polyphase_wgmma_tf32 bn=0 bk=32 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0
  run $b configs/kernelbench-l1.json kb78_2d_padded polyphase_wgmma_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0
  run $b probe/ties.json up1d_k12_s6_c768to384 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=3 kpad=64 persist=1 co_block=0 rows=0
  run $b probe/ties.json bigvgan_up1 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=3 kpad=64 persist=0 co_block=0 rows=0
done
python3 - "$CONVT_STAGE_CLOCKS" <<'PY'
import re, sys, statistics
cur = None; acc = {}
for line in open(sys.argv[1]):
    if line.startswith('== '):
        cur = line[3:].strip(); acc.setdefault(cur, [])
    m = re.search(r'period (\d+) wait (-?\d+) issue (-?\d+) fill (-?\d+) flight (-?\d+) empty (-?\d+) weights (-?\d+)', line)
    if m and cur:
        acc[cur].append([int(x) for x in m.groups()])
for k, v in acc.items():
    if v:
        med = [statistics.median(col) for col in zip(*v)]
        print('%-120s period %5d wait %5d issue %5d fill %5d flight %5d empty %5d weights %5d (%d)' % ((k[:120],) + tuple(int(x) for x in med) + (len(v),)))
PY
