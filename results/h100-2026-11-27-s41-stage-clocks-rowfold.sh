#!/usr/bin/env bash
# probe (session 41): the stage clocks of the row fold (ping-pong and not) on kb78, kb71 and kb70,
# whole gather and a quarter of it (CONVT_WG_GATHER_QUARTER: wrong outputs), same call,
# against ping-pong on kb78 (session 39 measured it the same way). (Session 41's call 8 ran
# this script before its helpers moved to tools/stage-clocks.sh, session 42.)
cd "$(dirname "$0")/.."
. tools/stage-clocks.sh
rm -rf /tmp/bclkq
stage_clocks_build /tmp/bclk "['-DCONVT_WG_STAGE_CLOCKS']" &
stage_clocks_build /tmp/bclkq "['-DCONVT_WG_STAGE_CLOCKS','-DCONVT_WG_GATHER_QUARTER']" &
wait
[ -x /tmp/bclk/convt-bench ] && [ -x /tmp/bclkq/convt-bench ] || exit 1
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-rowfold.txt"
for b in /tmp/bclk /tmp/bclkq; do
  stage_clocks_run $b configs/kernelbench-l1.json kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=0
  stage_clocks_run $b configs/kernelbench-l1.json kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=0 resident=0
  stage_clocks_run $b configs/kernelbench-l1.json kb78_2d_padded polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=4 kpad=64 plane=0 rows=0 seg=0 resident=0
  stage_clocks_run $b configs/kernelbench-l1.json kb71_2d_asymin polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=1
  stage_clocks_run $b configs/kernelbench-l1.json kb70_3d_asymin polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 rows=0 plane=1 pingpong=1 resident=0
done
python3 tools/stage_clocks_summary.py "$CONVT_STAGE_CLOCKS"
