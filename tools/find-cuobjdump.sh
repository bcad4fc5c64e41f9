#!/usr/bin/env bash
# Prints the path of a cuobjdump that can disassemble (nvdisasm beside it or
# on PATH): the CUDA Toolkit's where it has one, else PyPI's
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels, fetched once and
# unpacked under ~/.cache/convt-bench/cuobjdump (the toolkit of CI and of
# this project's workstation image lacks it). For tools/wgmma-sass.sh and
# tools/sass-digest.sh.
set -euo pipefail
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
cuobjdump=$(command -v cuobjdump || true)
if [ -z "$cuobjdump" ]; then
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/convt-bench/cuobjdump
  cuobjdump=$(find "$cache" -name cuobjdump -type f 2>/dev/null | head -1 || true)
  if [ -z "$cuobjdump" ]; then
    # cuobjdump -sass runs nvdisasm: both wheels, unpacked side by side
    echo "find-cuobjdump: fetching cuobjdump and nvdisasm (PyPI: nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)" >&2
    mkdir -p "$cache"
    for wheel in nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm; do
      python3 -m pip download --quiet --no-deps "$wheel" -d "$cache" >&2
      python3 -m zipfile -e "$(ls "$cache"/"${wheel//-/_}"-*.whl | head -1)" "$cache/x"
    done
    cuobjdump=$(find "$cache/x" -name cuobjdump -type f | head -1)
    chmod +x "$cuobjdump" "$(dirname "$cuobjdump")/nvdisasm"
  fi
fi
echo "$cuobjdump"
