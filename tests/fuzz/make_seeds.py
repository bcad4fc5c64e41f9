#!/usr/bin/env python3
"""Regenerates the committed seed corpora of the fuzz targets:

  tests/fuzz/corpus/config/   the JSON configs written inline in tests/*.c
                              (C string literals that start with '{'), the
                              SHAPE-style macros expanded, printf fields filled
  tests/fuzz/corpus/results/  small results documents cut from results/*.json
                              and tests/data/*.json: a few shapes, a few records
                              of each (own, cuDNN, PyTorch, skipped, wrong),
                              samples shortened; some with a selection table
                              ("selections", the previous-selection path) or a
                              second document ("fuzz_second": compare and merge
                              of a pair), as tests/fuzz/fuzz_results.c reads them

configs/*.json are seeds too, read where they are (tools/fuzz.sh, the unit
test fuzz_seeds). Run from anywhere: python3 tests/fuzz/make_seeds.py
"""
import glob
import hashlib
import json
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
MAX_SEED = 12000  # bytes; libFuzzer's -max_len in tools/fuzz.sh is larger


def c_unescape(s):
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append(simple.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


TOKEN = re.compile(r'"((?:[^"\\\n]|\\.)*)"|([A-Z_][A-Z0-9_]*)|(//[^\n]*|/\*.*?\*/)|(\s+)', re.S)


def inline_configs(path):
    src = open(path, encoding="utf-8").read()
    macros = {}
    for m in re.finditer(r'^#define\s+([A-Z_][A-Z0-9_]*)\s+((?:"(?:[^"\\\n]|\\.)*"\s*)+)$', src, re.M):
        macros[m.group(1)] = "".join(c_unescape(x) for x in re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(2)))
    found = []
    i = 0
    while i < len(src):
        if src[i] != '"' or (i and src[i - 1] == "'"):
            i += 1
            continue
        # a run of adjacent literals and known string macros
        parts, j, ok = [], i, False
        while True:
            m = TOKEN.match(src, j)
            if not m:
                break
            if m.group(1) is not None:
                parts.append(c_unescape(m.group(1)))
                ok = True
            elif m.group(2) is not None:
                if m.group(2) not in macros:
                    break
                parts.append(macros[m.group(2)])
            j = m.end()
        text = "".join(parts)
        i = max(j, i + 1)
        if ok and text.lstrip().startswith("{"):
            text = text.replace("%s", '["cpu_*"]').replace("%d", "1").replace("%%", "%")
            text = re.sub(r"%[-0-9.]*(?:l|ll|z)?[a-z]", "1", text)
            found.append(text)
    return found


def shorten_timing(t, samples=6, rounds=3):
    if not isinstance(t, dict):
        return t
    t = dict(t)
    for k in ("samples_ms", "round_median_ms"):
        v = t.get(k)
        if isinstance(v, list):
            v = v[:rounds]
            if v and isinstance(v[0], list):
                v = [r[:samples] for r in v]
            t[k] = v
    return t


def shorten_record(r):
    r = dict(r)
    if "timing" in r:
        r["timing"] = shorten_timing(r["timing"])
    return r


def shorten_head(d):
    d = {k: v for k, v in d.items() if k != "records"}
    drift = d.get("drift")
    if isinstance(drift, dict):
        d["drift"] = {k: (v[:4] if isinstance(v, list) else v) for k, v in drift.items()}
    cfg = d.get("config")
    if isinstance(cfg, dict):
        cfg = {k: v for k, v in cfg.items() if k in ("description", "variants", "measure", "seed")}
        d["config"] = cfg
    mf = d.get("merged_from")
    if isinstance(mf, list):
        d["merged_from"] = [{k: v for k, v in m.items() if k != "drift"} for m in mf[:3]]
    return d


def pick_records(records, shapes, per_shape):
    by_shape = {}
    for r in records:
        key = (r.get("shape") or {}).get("key", "")
        by_shape.setdefault(key, []).append(r)
    keys = sorted(by_shape)[: shapes] if shapes else []
    picked = []
    for k in keys:
        rs = by_shape[k]
        # variety first: one record of each (family, tier, status), then the rest
        seen, first, rest = set(), [], []
        for r in rs:
            v = r.get("variant", "")
            fam = "cudnn" if v.startswith("cudnn") else "torch" if v.startswith("torch") else v
            sig = (fam, r.get("tier"), r.get("status"))
            (rest if sig in seen else first).append(r)
            seen.add(sig)
        picked += (first + rest)[:per_shape]
    return [shorten_record(r) for r in picked]


def results_seed(doc, shapes, per_shape, offset=0):
    recs = doc.get("records") or []
    keys = sorted({(r.get("shape") or {}).get("key", "") for r in recs})
    keys = keys[offset:] + keys[:offset]
    chosen = set(keys[:shapes])
    sub = [r for r in recs if (r.get("shape") or {}).get("key", "") in chosen]
    seed = shorten_head(doc)
    seed["records"] = pick_records(sub, shapes, per_shape)
    return seed


def dump(obj):
    return json.dumps(obj, indent=None, separators=(",", ":"))


def main():
    cfg_dir = os.path.join(OUT, "config")
    res_dir = os.path.join(OUT, "results")
    for d in (cfg_dir, res_dir):
        os.makedirs(d, exist_ok=True)
        for f in glob.glob(os.path.join(d, "*")):
            os.remove(f)

    written = 0

    def write(d, text):
        nonlocal written
        name = hashlib.sha1(text.encode()).hexdigest()[:16] + ".json"
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
        written += 1

    seen = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "*.c"))):
        for text in inline_configs(path):
            if text not in seen:
                seen.add(text)
                write(cfg_dir, text)

    # results: small cuts of every committed results file
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "*.json"))) + \
        sorted(glob.glob(os.path.join(ROOT, "results", "*.json")))
    docs = {}
    for path in files:
        try:
            doc = json.load(open(path, encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict):
            continue
        docs[path] = doc
    texts = set()
    for path, doc in docs.items():
        if "records" not in doc:
            continue
        cuts = ((1, 6, 0), (2, 4, 3), (1, 12, 7)) if "tests" in path else ((1, 6, 0), (2, 4, 5))
        for shapes, per_shape, offset in cuts:
            seed = results_seed(doc, shapes, per_shape, offset)
            text = dump(seed)
            while len(text) > MAX_SEED and seed["records"]:
                seed["records"].pop()
                text = dump(seed)
            if text not in texts:
                texts.add(text)
                write(res_dir, text)
        sel_path = path[: -len(".json")] + ".selection.json"
        if sel_path in docs:
            # a results cut with its selection table: convt_select(doc, doc)
            seed = results_seed(doc, 2, 5)
            keys = {(r.get("shape") or {}).get("key") for r in seed["records"]}
            sels = [s for s in docs[sel_path].get("selections", []) if s.get("key", s.get("shape")) in keys
                    or (isinstance(s.get("shape"), dict) and s["shape"].get("key") in keys)]
            seed["selections"] = (sels or docs[sel_path].get("selections", []))[:4]
            if "rules" in docs[sel_path]:
                seed["rules"] = docs[sel_path]["rules"]
            text = dump(seed)
            if len(text) <= 2 * MAX_SEED:
                write(res_dir, text)
    # pairs: a run and its repeat (compare), a sweep and PyTorch (merge)
    def pair(a, b, shapes=1, per_shape=6):
        if a in docs and b in docs:
            seed = results_seed(docs[a], shapes, per_shape)
            keys = {(r.get("shape") or {}).get("key") for r in seed["records"]}
            second = shorten_head(docs[b])
            second["records"] = [shorten_record(r) for r in docs[b]["records"]
                                 if (r.get("shape") or {}).get("key") in keys][:per_shape]
            seed["fuzz_second"] = second
            write(res_dir, dump(seed))
    R = lambda n: os.path.join(ROOT, "results", n)
    T = lambda n: os.path.join(ROOT, "tests", "data", n)
    pair(T("convt-bench-example.json"), T("torch-baseline-example.json"))
    pair(R("h100-2026-11-23-kernelbench-l1.json"), R("h100-2026-11-23-kernelbench-l1-again.json"))
    pair(R("h100-2026-11-23-kernelbench-l1.json"), R("h100-2026-11-23-kernelbench-l1-torch.json"))
    pair(R("h100-2026-11-22-kernelbench-l1-session3.json"), R("h100-2026-11-22-kernelbench-l1-session3-again.json"))
    pair(R("h100-2026-11-23-realistic.json"), R("h100-2026-11-23-realistic-torch.json"), 2, 5)
    # a selection table alone: refused by the gate (no "records"), as main.c refuses it
    for path, doc in docs.items():
        if "selections" in doc:
            d = dict(doc)
            d["selections"] = d["selections"][:3]
            write(res_dir, dump(d))
    print(f"make_seeds: {written} seeds under {os.path.relpath(OUT, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
