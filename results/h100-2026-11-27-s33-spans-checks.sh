#!/usr/bin/env bash
# probe (session 33): pack_weights_spans forced on every launch whose
# stretches fit (CONVT_WG_PACK_SPANS=always), checked before anything is
# timed: memcheck on the folded, channels-last and ping-pong sanitize
# configs (the stretches' reads of w), then the channels-last check
# (the copy's and the repack's programmatic launches) and the 3xTF32
# check (two parts, unfolded) on random shapes
cd "$(dirname "$0")/.."
export CONVT_WG_PACK_SPANS=always
for cfg in configs/sanitize-fold.json configs/sanitize-fold-cl.json configs/sanitize-pingpong.json; do
  name=$(basename $cfg .json)
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/convt-bench --quiet \
    --config $cfg --out "$OUT/spans-$name.json" > "$OUT/spans-$name.log" 2>&1
  echo "spans memcheck $cfg: exit $?"; grep -E 'ERROR SUMMARY|Invalid|ok,' "$OUT/spans-$name.log" | head -4
done
for cfg in configs/fold-cl-check.json configs/wgmma-3xtf32-check.json; do
  name=$(basename $cfg .json)
  timeout 200 build-gpu/convt-bench --quiet --config $cfg --out "$OUT/spans-$name.json" > "$OUT/spans-$name.log" 2>&1
  echo "spans $cfg: exit $?"; tail -1 "$OUT/spans-$name.log"
done
