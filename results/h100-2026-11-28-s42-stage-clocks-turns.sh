#!/usr/bin/env bash
# probe (session 42): the stage clocks of polyphase_wgmma_3xtf32 on kb69 with
# the consumers side by side (turns 0) and in turn (turns 1), same call, one
# diagnostic build (-DCONVT_WG_STAGE_CLOCKS); session 39 measured turns 0's
# period at 2651 cycles (bn 128, bk 8). (The call ran this script before
# its helpers moved to tools/stage-clocks.sh; its labels then lacked the
# build's name, "bclk".)
cd "$(dirname "$0")/.."
. tools/stage-clocks.sh
b=/tmp/bclk
stage_clocks_build $b "['-DCONVT_WG_STAGE_CLOCKS']" || exit 1
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-turns.txt"
for t in 0 1; do
  for bn in 128 0; do
    stage_clocks_run $b configs/kernelbench-l1.json kb69_2d_asym polyphase_wgmma_3xtf32 bn=$bn bk=8 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0 turns=$t
  done
done
python3 tools/stage_clocks_summary.py "$CONVT_STAGE_CLOCKS"
