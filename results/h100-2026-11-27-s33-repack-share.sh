#!/usr/bin/env bash
# probe (session 33; NOT RUN: no device time was left): the weight repack's share of a launch on the layers of
# many weights (the folded vocoder class): each kernel's duration under
# Nsight Compute, the wgmma variants at the launches that won or tied
cd "$(dirname "$0")/.."
for spec in "bigvgan_up1 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=4 kpad=64 persist=0 co_block=0 rows=0" \
            "bigvgan_up1 polyphase_wgmma_splitk_tf32 bn=0 bk=16 stages=4 kpad=64 persist=1 fold=1 ksplit=2 co_block=256 plane=0 rows=0" \
            "up1d_k8_s4_c1024to512 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=4 kpad=64 persist=0 co_block=0 rows=0" \
            "vocoder_up1 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=3 kpad=64 persist=1 co_block=0 rows=0" \
            "univnet_up1 polyphase_wgmma_fold_tf32 bn=0 bk=32 stages=3 kpad=64 persist=1 co_block=0 rows=0"; do
  python3 tools/one_launch_config.py probe/cl-probe.json $spec --once > /tmp/one.json
  echo "== $spec"
  timeout 100 ncu --kernel-name "regex:pack_weights|fill_|polyphase_wgmma" --section SpeedOfLight \
    build-gpu/convt-bench --quiet --config /tmp/one.json --out /tmp/one-out.json 2>&1 |
    grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput" | head -9
done
