#!/usr/bin/env bash
# probe (session 33): stage clocks of the folded kernel on the 4-byte gather
# (polyphase_wgmma_fold_tf32) against the channels-last input
# (polyphase_wgmma_fold_cl_tf32) at the same launch, on the layers where the
# channels-last input lost (the k 12 sibling, vocoder_up1), tied (bigvgan_up1)
# and won (pix2pix_dec1, unet3d_deep)
cd "$(dirname "$0")/.."
build() {
  local b=$1 args=$2
  if [ ! -f $b/build.ninja ]; then
    meson setup $b -Dcuda=enabled -Dcudnn=disabled -Dtests=disabled -Dsm=90a "-Dcuda_args=$args" \
      > "$OUT/$(basename $b)-setup.log" 2>&1 || { tail -20 "$OUT/$(basename $b)-setup.log"; exit 1; }
  fi
  ninja -C $b convt-bench > "$OUT/$(basename $b)-build.log" 2>&1 || { grep -E 'error|FAILED' -A3 "$OUT/$(basename $b)-build.log" | head -40; exit 1; }
}
build /tmp/bclk "['-DCONVT_WG_STAGE_CLOCKS']" &
build /tmp/bnorm "[]" &
wait
# memcheck on the normal build first (the channels-last kernels' copies)
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bnorm/convt-bench --quiet \
  --config configs/sanitize-fold-cl.json --out "$OUT/sanitize-fold-cl.json" > "$OUT/sanitize-fold-cl.log" 2>&1
echo "memcheck sanitize-fold-cl: exit $?"; grep -E 'ERROR SUMMARY|Invalid|ok,' "$OUT/sanitize-fold-cl.log" | head -5
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-cl.txt"
run() {
  b=$1 cfg=$2; shift 2
  python3 tools/one_launch_config.py "$cfg" "$@" --once > /tmp/clk.json
  echo "== $(basename $b) $*" >> "$CONVT_STAGE_CLOCKS"
  rm -f /tmp/clk-out.json
  timeout 120 $b/convt-bench --quiet --config /tmp/clk.json --out /tmp/clk-out.json > /tmp/clk.log 2>&1
  echo "$(basename $b) $*: exit $? $(python3 -c "import json;d=json.load(open('/tmp/clk-out.json'));print([(r['status'], r.get('timing',{}).get('median_ms')) for r in d['records']])" 2>&1)" | tee -a "$CONVT_STAGE_CLOCKS"
}
b=/tmp/bclk
for v in polyphase_wgmma_fold_tf32 polyphase_wgmma_fold_cl_tf32; do
  extra=; [ $v = polyphase_wgmma_fold_tf32 ] && extra=co_block=0
  run $b probe/cl-probe.json up1d_k12_s6_c768to384 $v bn=128 bk=32 stages=4 kpad=64 persist=1 rows=0 $extra
  run $b probe/cl-probe.json vocoder_up1 $v bn=160 bk=32 stages=3 kpad=64 persist=1 rows=0 $extra
  run $b probe/cl-probe.json bigvgan_up1 $v bn=112 bk=32 stages=4 kpad=64 persist=0 rows=0 $extra
  run $b probe/cl-probe.json pix2pix_dec1 $v bn=192 bk=32 stages=3 kpad=64 persist=0 rows=0 $extra
  run $b probe/cl-probe.json unet3d_deep $v bn=128 bk=32 stages=4 kpad=64 persist=1 rows=0 $extra
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
        print('%-100s period %5d wait %5d issue %5d fill %5d flight %5d empty %5d weights %5d (%d)' % ((k[:100],) + tuple(int(x) for x in med) + (len(v),)))
PY
