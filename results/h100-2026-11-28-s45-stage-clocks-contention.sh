#!/usr/bin/env bash
# probe (session 45, call 3): is the epilogue's 30% on kb57 (session 44,
# call 6: the mean stage 4345 -> 3021 cycles without the stores) its own
# phase, or the stores' competition with the producer's 4-byte copies for
# the load-store path? The rings of call 1 overlapped the stores with the
# other warpgroup's wgmma and gained nothing at bk 16. Stage clocks' means
# with CONVT_WG_DIAG 0 (all on), 1 (no input copies), 4 (no epilogue), 5
# (neither). Prediction: a phase of its own gives diag1 - diag5 about
# diag0 - diag4 (1324 cycles a stage on kb57); competition gives much
# less. The main build is the diagnostic one:
# CONVT_BUILD_CUDA_ARGS="['-DCONVT_WG_STAGE_CLOCKS']".
cd "$(dirname "$0")/.."
. tools/stage-clocks.sh
b=build-gpu
export CONVT_STAGE_CLOCKS="$OUT/stage-clocks-contention.txt"
kb=configs/kernelbench-l1.json
stage_clocks_diags $b $kb 0 1 4 5 -- kb57_2d_square polyphase_wgmma_tf32 bn=0 bk=16 stages=3 kpad=64 persist=1 pos_m=0 plane=0 rows=0
stage_clocks_diags $b $kb 0 1 4 5 -- kb78_2d_padded polyphase_wgmma_rowfold_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 rows=0 plane=0 pingpong=1 resident=0
stage_clocks_diags $b $kb 0 1 4 5 -- kb61_3d_square polyphase_wgmma_pingpong_tf32 bn=0 bk=16 stages=3 kpad=64 plane=1 rows=0 seg=0 resident=0
python3 tools/stage_clocks_summary.py "$CONVT_STAGE_CLOCKS"
