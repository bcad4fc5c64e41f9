#!/usr/bin/env bash
# probe (session 44): where a ping-pong stage's ~900 cycles beyond its wgmma
# go. The main build is the diagnostic one (CONVT_BUILD_CUDA_ARGS=
# "['-DCONVT_WG_STAGE_CLOCKS']"); each launch runs once per CONVT_WG_DIAG
# value, whose bits (kernels/wg_stage_clocks.h) leave parts of a stage out:
# 1 the producer's input copies, 2 the weights' bulk copy, 4 the epilogue's
# stores, 8 the consumers' proxy fence, 16 the wgmma themselves. Outputs
# are wrong wherever a bit is set; only the stamps count.
# (Call 1 ran it with its own copy of stage_clocks_diags, since moved to
# tools/stage-clocks.sh.)
cd "$(dirname "$0")/.."
. tools/stage-clocks.sh
b=build-gpu
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-diag.txt"
kb=configs/kernelbench-l1.json
stage_clocks_diags $b $kb 0 1 3 7 15 31 4 8 -- kb57_2d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=4 kpad=64 plane=0 rows=0 seg=0 resident=0
stage_clocks_diags $b $kb 0 3 7 15 -- kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=0
stage_clocks_diags $b $kb 0 3 7 15 -- kb61_3d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=3 kpad=64 plane=1 rows=0 seg=0 resident=0
stage_clocks_diags $b $kb 0 3 7 15 -- kb57_2d_square polyphase_wgmma_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0
stage_clocks_diags $b $kb 0 3 15 -- kb57_2d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=32 stages=3 kpad=64 plane=0 rows=0 seg=0 resident=0
stage_clocks_diags $b $kb 0 7 15 -- kb70_3d_asymin polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=1 pingpong=1 resident=0
python3 tools/stage_clocks_summary.py "$CONVT_STAGE_CLOCKS"
