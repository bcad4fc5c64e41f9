#!/usr/bin/env bash
# probe (session 32): where a wgmma kernel's stages spend their time
# (kernels/wg_stage_clocks.h), on the class cuDNN's dgrad GEMM beats 1.7-2x
# (k 12, stride 6), a sibling we win (k 8, stride 4) and kb57
cd "$(dirname "$0")/.."
b=/tmp/bclk
if [ ! -f $b/build.ninja ]; then
  meson setup $b -Dcuda=enabled -Dcudnn=disabled -Dtests=disabled -Dsm=90a \
    -Dcuda_args=-DCONVT_WG_STAGE_CLOCKS > "$OUT/clk-setup.log" 2>&1 || { tail -20 "$OUT/clk-setup.log"; exit 1; }
fi
ninja -C $b convt-bench > "$OUT/clk-build.log" 2>&1 || { grep -E 'error|FAILED' -A3 "$OUT/clk-build.log" | head -40; exit 1; }
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks.txt"
run() {
  cfg=$1; shift
  python3 tools/one_launch_config.py "$cfg" "$@" --once > /tmp/clk.json
  echo "== $*" >> "$CONVT_STAGE_CLOCKS"
  timeout 120 $b/convt-bench --quiet --config /tmp/clk.json --out /tmp/clk-out.json > /tmp/clk.log 2>&1
  echo "$*: exit $? $(python3 -c "import json;d=json.load(open('/tmp/clk-out.json'));print([(r['status'],round(r['timing']['median_ms'],4) if r.get('timing') else None) for r in d['records']])" 2>&1)" | tee -a "$CONVT_STAGE_CLOCKS"
}
run probe/ties.json up1d_k12_s6_c768to384 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=3 kpad=64 persist=1 co_block=0 rows=0
run probe/ties.json up1d_k12_s6_c768to384 polyphase_wgmma_fold_tf32 bn=0 bk=16 stages=5 kpad=64 persist=1 co_block=0 rows=0
run probe/ties.json bigvgan_up1 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=3 kpad=64 persist=0 co_block=0 rows=0
run probe/ties.json up1d_k8_s4_c1024to512 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=3 kpad=64 persist=1 co_block=0 rows=0
run configs/kernelbench-l1.json kb57_2d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=4 kpad=64 plane=0 rows=0 seg=0
run configs/kernelbench-l1.json kb57_2d_square polyphase_wgmma_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0
cat "$CONVT_STAGE_CLOCKS"
