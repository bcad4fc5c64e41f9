#!/usr/bin/env python3
"""measure.prune on real runs: tests/plugin_paced.c's launches cost 1x and
10x; with prune = 3 the 10x launch stops after its first round, recorded
`pruned` with that round's timing and the reason, validated like every
run; the 1x launch gets every round and is the one selected; the built-in
variants' launches are judged within their own variant only; where the
fast launch then fails in a later round, the pruned one gets its other
rounds (the variant keeps a record to select); without prune both
launches get every round, and a bad prune is refused."""
import json
import os
import subprocess
import sys
import tempfile

root = os.environ.get("CONVT_SOURCE_ROOT", ".")
bench = os.environ.get("CONVT_BENCH", "build/convt-bench")
paced = os.environ["CONVT_PLUGIN_PACED"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done  # noqa: E402

tmp = tempfile.mkdtemp(prefix="convt-prune-")
cfg = json.load(open(os.path.join(root, "examples", "plugin", "sweep.json")))
cfg["variants"] = ["paced_reference", "cpu_gather"]
cfg["launch"] = {"cpu_gather": {"threads": [1]}}


def run(measure):
    cfg["measure"] = measure
    path = os.path.join(tmp, "sweep.json")
    json.dump(cfg, open(path, "w"))
    out = os.path.join(tmp, "r.json")
    r = subprocess.run([bench, "--config", path, "--out", out, "--backend", "cpu", "--quiet",
                        "--plugin", paced], capture_output=True, text=True)
    doc = json.load(open(out)) if os.path.exists(out) and r.returncode in (0, 1) else None
    sel = None
    if doc:
        sel = json.load(open(out[:-len(".json")] + ".selection.json"))
    for f in os.listdir(tmp):
        if f.startswith("r."):
            os.unlink(os.path.join(tmp, f))
    return r, doc, sel


def by_repeat(doc, repeat):
    return [x for x in doc["records"]
            if x["variant"] == "paced_reference" and x["launch"]["repeat"] == repeat]


r, doc, sel = run({"max_time_s": 0.2, "rounds": 3, "prune": 3})
check("exit 0", r.returncode == 0, r.stderr[-800:])
check("the summary counts the pruned", "3 pruned" in r.stdout, r.stdout)
if doc:
    slow, fast = by_repeat(doc, 10), by_repeat(doc, 1)
    check("the 10x launch pruned on every shape", len(slow) == 3 and
          all(x["status"] == "pruned" for x in slow), str([x["status"] for x in slow]))
    check("a pruned run was validated", all(x.get("validation", {}).get("bad") == 0 for x in slow))
    check("a pruned run keeps its one round", all(
        x["timing"]["rounds"] == 1 and len(x["timing"]["samples_ms"]) == 1 for x in slow))
    check("the reason says why", all("measure.prune = 3" in x["reason"] and
                                     "paced_reference" in x["reason"] for x in slow),
          slow[0].get("reason", "") if slow else "")
    check("the 1x launch gets every round", len(fast) == 3 and all(
        x["status"] == "ok" and x["timing"]["rounds"] == 3 for x in fast))
    check("pruned means more than 3x slower", all(
        s["timing"]["median_ms"] > 3 * f["timing"]["round_median_ms"][0]
        for s, f in zip(slow, fast)))
    gather = [x for x in doc["records"] if x["variant"] == "cpu_gather"]
    check("a variant with one launch is never pruned, however slow against others",
          all(x["status"] == "ok" for x in gather), str([x["status"] for x in gather]))
if sel:
    picks = json.dumps(sel)
    check("the selection never picks a pruned launch", "repeat=10" not in picks, picks[:400])

# paced_fragile: its fast launch fails in round 2 (the output moved); the
# slow one, pruned after round 1, must get rounds 2 and 3 and be selected
cfg["variants"] = ["paced_fragile"]
r, doc, sel = run({"max_time_s": 0.2, "rounds": 3, "prune": 3})
check("fragile: exit 1 (a failed run)", r.returncode == 1, r.stderr[-800:])
if doc:
    recs = {x["launch"]["repeat"]: x for x in doc["records"] if x["shape"]["name"] == "p1d"}
    fast, slow = recs.get(1, {}), recs.get(10, {})
    check("fragile: the fast launch failed while timing", fast.get("status") == "failed" and
          "output moved" in fast.get("reason", ""), str(fast.get("reason")))
    check("fragile: the slow launch got every round instead of staying pruned",
          slow.get("status") == "ok" and slow.get("timing", {}).get("rounds") == 3 and
          slow.get("timing", {}).get("placements") == 3, json.dumps(slow.get("timing", {}))[:300])
    check("fragile: nothing left pruned", all(x["status"] != "pruned" for x in doc["records"]))
if sel:
    check("fragile: the slow launch is selected", "repeat=10" in json.dumps(sel), json.dumps(sel)[:400])
cfg["variants"] = ["paced_reference", "cpu_gather"]

r, doc, _ = run({"max_time_s": 0.2, "rounds": 2})
check("without prune: exit 0", r.returncode == 0, r.stderr[-800:])
if doc:
    check("without prune every launch gets every round", all(
        x["status"] == "ok" and x["timing"]["rounds"] == 2 for x in doc["records"]))
    check("without prune the summary line is as before", "pruned" not in r.stdout, r.stdout)

for measure, says in [({"prune": 0.5}, "measure.prune: expected 0 (off) or a factor >= 1"),
                      ({"prune": 2, "rounds": 1}, "rounds = 1 leaves none after it")]:
    r, _, _ = run(measure)
    check(f"{measure}: exit 2", r.returncode == 2, f"{r.returncode}: {r.stderr[-300:]}")
    check(f"{measure}: the reason", says in r.stderr, r.stderr[-300:])

done("prune")
