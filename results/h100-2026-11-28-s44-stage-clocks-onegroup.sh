#!/usr/bin/env bash
# probe (session 44, call 4): ping-pong's stage as one wgmma group (session
# 41's 674e752 again, as the diagnostic build's -DCONVT_WG_PING_ONE_GROUP,
# which exists only at 117ebdd: git checkout 117ebdd -- kernels/ first)
# under the stage clocks, with CONVT_WG_DIAG's switches (kernels/
# wg_stage_clocks.h): 0 all, 3 without the copies, 8 without the consumers'
# proxy fence, 11 without both. Call 1 measured the same launches with the
# stage split into groups (results/h100-2026-11-28-s44-stage-clocks-diag.txt):
# there a consumer's stage took its skeleton (513 cycles without wgmma)
# plus its wgmma at the peak, one after the other. The main build is the
# diagnostic one: CONVT_BUILD_CUDA_ARGS="['-DCONVT_WG_STAGE_CLOCKS',
# '-DCONVT_WG_PING_ONE_GROUP']".
# (Call 4 ran it with its own copy of stage_clocks_diags, since moved to
# tools/stage-clocks.sh.)
cd "$(dirname "$0")/.."
. tools/stage-clocks.sh
b=build-gpu
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-onegroup.txt"
kb=configs/kernelbench-l1.json
stage_clocks_diags $b $kb 0 3 8 11 -- kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=0
stage_clocks_diags $b $kb 0 3 8 11 -- kb61_3d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=3 kpad=64 plane=1 rows=0 seg=0 resident=0
stage_clocks_diags $b $kb 0 3 8 11 -- kb57_2d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=4 kpad=64 plane=0 rows=0 seg=0 resident=0
stage_clocks_diags $b $kb 0 3 8 11 -- kb70_3d_asymin polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=1 pingpong=1 resident=0
python3 tools/stage_clocks_summary.py "$CONVT_STAGE_CLOCKS"
