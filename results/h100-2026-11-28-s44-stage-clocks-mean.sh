#!/usr/bin/env bash
# probe (session 44, call 6): the stage clocks' mean period, tile changes
# included, beside their median (kernels/wg_stage_clocks_report.cuh). Call
# 5 found one wgmma group 11.6% shorter a stage by the median and no faster
# by the kernel's time; kb78's row fold (8353 tiles of 8 stages on 132
# blocks at 0.895 ms, 1980 MHz) takes about 3500 cycles a stage of the
# block against a median of 2711 for consumer 0's (call 1). CONVT_WG_DIAG
# 4 (no epilogue) on two launches: does the change of tile shrink without
# the stores? The main build is the diagnostic one:
# CONVT_BUILD_CUDA_ARGS="['-DCONVT_WG_STAGE_CLOCKS']".
cd "$(dirname "$0")/.."
. tools/stage-clocks.sh
b=build-gpu
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-mean.txt"
kb=configs/kernelbench-l1.json
stage_clocks_diags $b $kb 0 4 -- kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=0
stage_clocks_diags $b $kb 0 4 -- kb57_2d_square polyphase_wgmma_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0
stage_clocks_diags $b $kb 0 -- kb57_2d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=4 kpad=64 plane=0 rows=0 seg=0 resident=0
stage_clocks_diags $b $kb 0 -- kb61_3d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=3 kpad=64 plane=1 rows=0 seg=0 resident=0
stage_clocks_diags $b $kb 0 -- kb70_3d_asymin polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=1 pingpong=1 resident=0
python3 tools/stage_clocks_summary.py "$CONVT_STAGE_CLOCKS"
