#!/usr/bin/env bash
# probe (session 33): each kernel of one launch of the folded kernel on the
# 4-byte gather and on the channels-last input (up1d_k12_s6_c768to384, where
# the channels-last launch is 7% slower though its stages are 9% shorter;
# pix2pix_dec1, where it is 26% faster): durations under Nsight Compute
cd "$(dirname "$0")/.."
for spec in "up1d_k12_s6_c768to384 polyphase_wgmma_fold_tf32 bn=128 bk=32 stages=4 kpad=64 persist=1 co_block=0 rows=0" \
            "up1d_k12_s6_c768to384 polyphase_wgmma_fold_cl_tf32 bn=128 bk=32 stages=4 kpad=64 persist=1 rows=0" \
            "pix2pix_dec1 polyphase_wgmma_fold_tf32 bn=192 bk=32 stages=3 kpad=64 persist=0 co_block=0 rows=0" \
            "pix2pix_dec1 polyphase_wgmma_fold_cl_tf32 bn=192 bk=32 stages=3 kpad=64 persist=0 rows=0"; do
  set -- $spec
  python3 tools/one_launch_config.py probe/cl-probe.json $spec --once > /tmp/one.json
  echo "== $spec"
  timeout 120 ncu --kernel-name "regex:pack_weights|input_channels_last|polyphase_wgmma" --section SpeedOfLight \
    build-gpu/convt-bench --quiet --config /tmp/one.json --out /tmp/one-out.json 2>&1 |
    grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)" | head -40
done
