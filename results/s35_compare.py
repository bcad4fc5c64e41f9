#!/usr/bin/env python3
"""Sessions 35's and 36's comparison tables, from the committed records: for
each layer, the best TF32 launch of a group of variants (the padded fold,
split-K's balanced cut or the partial fold, the other own variants, cuDNN
and PyTorch), median ms.

  python3 results/s35_compare.py results/h100-2026-11-27-s35-fold-padded-probe.json.gz fold
  python3 results/s35_compare.py results/h100-2026-11-27-s35-balance-probe.json.gz balance
  python3 results/s35_compare.py results/h100-2026-11-27-s36-fold-inner-probe-merged.json.gz inner
"""
import collections
import gzip
import json
import sys


def group(record, mode):
    v, key = record["variant"], record.get("launch_key", "")
    if v.startswith("cudnn") or v.startswith("torch"):
        return "vendor"
    if mode == "inner" and v == "polyphase_wgmma_fold_inner_tf32":
        return "inner"
    if mode == "fold" and ("fold" in v or "fold=1" in key):
        return "fold"
    if mode == "balance" and v == "polyphase_wgmma_splitk_tf32" and "ksplit=1" in key:
        return "balance"
    return "own"


def main():
    path, mode = sys.argv[1], sys.argv[2]
    records = json.load(gzip.open(path))["records"]
    best = collections.defaultdict(dict)
    for r in records:
        if r["status"] != "ok" or r["tier"] != "tf32":
            continue
        g, t = group(r, mode), r["timing"]["median_ms"]
        if t < best[r["shape"]["name"]].get(g, (float("inf"),))[0]:
            best[r["shape"]["name"]][g] = (t, r["variant"], r.get("launch_key", ""))
    print(f"{'layer':24s} {mode:>8s} {'other own':>10s} {'vendor':>8s} {mode + '/own':>10s} {'best/vendor':>11s}  {mode}'s launch | other own's variant | vendor")
    for name, b in best.items():
        x = b.get(mode, (float("nan"), "-", "-"))
        o, v = b["own"], b["vendor"]
        fastest = min(x[0], o[0]) if x[0] == x[0] else o[0]
        print(f"{name:24s} {x[0]:8.4f} {o[0]:10.4f} {v[0]:8.4f} {x[0] / o[0]:10.2f} {v[0] / fastest:10.2f}x  "
              f"{x[2]} | {o[1]} | {v[1]}")


if __name__ == "__main__":
    main()
