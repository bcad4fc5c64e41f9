set -x
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
cat /etc/os-release | head -3; which meson ninja pkg-config pkgconf nvcc python3; meson --version; nvcc --version | tail -1
ls /usr/local/cuda/include | grep -c cudnn; ls /usr/local/cuda/lib64 | grep -E 'cudnn|cublas' | head; find / -name 'cudnn.h' -not -path '/proc/*' 2>/dev/null | head; find / -name 'libcudnn.so*' -not -path '/proc/*' 2>/dev/null | head
python3 -c "import torch;print(torch.__version__, torch.backends.cudnn.version())"
ls /usr/local/cuda/include/nvtx3 | head -3
mkdir -p $OUT/golden && python3 tests/golden/make_golden.py $OUT/golden && cd $OUT && tar czf golden.tgz golden && rm -rf golden
