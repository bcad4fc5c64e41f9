#!/usr/bin/env bash
# The SASS structure of the wgmma kernels (polyphase_wgmma_*, rows_tma_tf32), without a GPU: how
# the consumers' HGMMA are grouped between WARPGROUP.DEPBAR waits. One line
# per instantiation:
#   HGMMA      wgmma instructions in the SASS
#   groups     HGMMA that close a group (flag gsb0)
#   empty      empty HGMMA (!UPT) that ptxas adds to close a group at a
#              commit it could not attach to a real one
#   arrive     WARPGROUP.ARRIVE (wgmma.fence, written or injected: C7519)
#   depbar     WARPGROUP.DEPBAR (wgmma.wait_group)
#   local      local-memory loads and stores (spills)
# A stage whose wgmma are one straight run closes one group on its last
# HGMMA, so the wait for "all but the newest group" waits for the stage
# before. Where ptxas closes a group inside the stage (a loop or branch
# among the wgmma) and adds an empty one at the commit, the same wait
# drains the stage's own wgmma: results/notes.md, "Session 9".
#
#   bash tools/wgmma-sass.sh [BUILD_DIR] [FILTER]
#
# BUILD_DIR: an sm_90a build (meson setup BUILD -Dsm=90a; default
# build-sm90a, made if missing). FILTER: a grep pattern on the mangled
# kernel names (default: all). cuobjdump: tools/find-cuobjdump.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sm90a}
filter=${2:-.}
# cuobjdump (and the nvdisasm it runs) on PATH
cuobjdump=$(bash tools/find-cuobjdump.sh)
export PATH="$(dirname "$cuobjdump"):$PATH"

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dsm=90a >&2
fi
# the kernels' instantiations (kernels/polyphase_wgmma_*.cu) as the
# library's build compiles them: their objects carry sm_90a's cubin
ninja -C "$build" >&2
objs=$(find "$build" \( -name '*polyphase_wgmma_*.cu.o' -o -name '*rows_tma_tf32.cu.o' \) | sort)
[ -n "$objs" ] || { echo "wgmma-sass: $build has no kernels/polyphase_wgmma_*.cu objects" >&2; exit 1; }
ninja -C "$build" -t commands | grep -- "kernels/polyphase_wgmma_bn" | grep -q "sm_90a" ||
  { echo "wgmma-sass: $build is not an sm_90a build (meson setup $build -Dsm=90a)" >&2; exit 1; }

for obj in $objs; do "$cuobjdump" -sass "$obj"; done | awk -v filter="$filter" '
  function report() {
    if (name != "" && name ~ filter)
      printf "%-58s HGMMA %3d  groups %2d  empty %d  arrive %2d  depbar %d  local %d\n",
             name, hgmma, groups, empty, arrive, depbar, local
  }
  /Function : / {
    report()
    name = ($3 ~ /polyphase_wgmma_kernel|rows_tma_kernel/) ? $3 : ""
    hgmma = groups = empty = arrive = depbar = local = 0
    next
  }
  name == "" { next }
  /HGMMA/ { hgmma++; if (/!UPT/) empty++; else if (/gsb0/) groups++ }
  /WARPGROUP.ARRIVE/ { arrive++ }
  /WARPGROUP.DEPBAR/ { depbar++ }
  /[^A-Z](STL|LDL)[. ]/ { local++ }
  END { report() }'
