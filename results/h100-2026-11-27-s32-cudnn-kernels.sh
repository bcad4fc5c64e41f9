#!/usr/bin/env bash
# probe (session 32): which kernels cuDNN's graph engine 76 launches on the
# stride-6 k12 layers it wins (and a stride-4 k8 one it loses), their grids and times
cd "$(dirname "$0")/.."
for spec in "up1d_k12_s6_c768to384 cudnn_graph_tf32 engine=5" "bigvgan_up1 cudnn_graph_tf32 engine=5" "up1d_k8_s4_c1024to512 cudnn_graph_tf32 engine=5"; do
  set -- $spec
  python3 tools/one_launch_config.py probe/ties.json "$@" --once > /tmp/c1.json
  timeout 120 ncu --kernel-name regex:. --launch-count 70 --section LaunchStats --section SpeedOfLight \
    build-gpu/convt-bench --quiet --config /tmp/c1.json --out /tmp/c1-out.json > "$OUT/cudnn-$1.txt" 2>&1
  echo "== $1"
  python3 - "$OUT/cudnn-$1.txt" <<'PY'
import re, sys
name = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^  (\S.*?) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\)", line)
    if m:
        name = m.group(1)[:110]; grid = "x".join(m.group(i) for i in (2, 3, 4)); blk = m.group(5)
    elif name and "Duration" in line:
        if not re.match(r"(fill_uniform|sm80_xmma_gemm_f32f32_f32f32|sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32)", name):
            print("  %-110s grid %-12s block %-4s %s" % (name, grid, blk, " ".join(line.split()[1:])))
        name = None
PY
done
