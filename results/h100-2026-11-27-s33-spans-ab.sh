#!/usr/bin/env bash
# probe (session 33): memcheck with the repack's stretches by cp.async
# forced everywhere, then the same sweep with pack_weights_stages and with
# pack_weights_spans (the default for 1M floats or more), A, B, A, B
cd "$(dirname "$0")/.."
[ "${SKIP_MEMCHECK:-0}" = 1 ] || CONVT_WG_PACK_SPANS=always timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/convt-bench --quiet \
  --config configs/sanitize-fold.json --out "$OUT/spans-sanitize-fold.json" > "$OUT/spans-sanitize-fold.log" 2>&1
echo "spans memcheck sanitize-fold: exit $?"; grep -E 'ERROR SUMMARY|Invalid|ok,' "$OUT/spans-sanitize-fold.log" | head -4
for round in 1 2; do
  for mode in never default; do
    CONVT_WG_PACK_SPANS=$mode timeout 100 build-gpu/convt-bench --quiet --config probe/spans-ab.json \
      --out "$OUT/spans-ab-$mode-$round.json" > "$OUT/spans-ab-$mode-$round.log" 2>&1
    echo "spans-ab $mode round $round: exit $? $(tail -1 "$OUT/spans-ab-$mode-$round.log")"
  done
done
python3 - "$OUT" <<'PY'
import json, sys, glob, collections
best = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/spans-ab-*[0-9].json')):
    mode = f.split('spans-ab-')[1].rsplit('.', 1)[0]
    for r in json.load(open(f))['records']:
        if r['status'] == 'ok':
            t = r['timing']['median_ms']; s = r['shape']['name']
            best[s][mode] = min(best[s].get(mode, 9e9), t)
for s, b in best.items():
    print('%-24s ' % s + '  '.join('%s %.4f' % (m, b[m]) for m in sorted(b)))
PY
