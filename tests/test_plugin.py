#!/usr/bin/env python3
"""convt-bench --plugin: examples/plugin's kernels are validated, timed and
selected like built-in ones (my_direct ok on every shape, my_wrong reported
`wrong`, records naming their plugin); a plugin whose kernel crashes costs
its own records (SIGSEGV) and nothing else; plugins that are not what they
claim are refused before anything runs, exit 2, with the reason: a missing
file, a shared object with no entry, another ABI, a variant name in use."""
import json
import os
import subprocess
import sys
import tempfile

root = os.environ.get("CONVT_SOURCE_ROOT", ".")
bench = os.environ.get("CONVT_BENCH", "build/convt-bench")
mine = os.environ["CONVT_PLUGIN"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done  # noqa: E402


tmp = tempfile.mkdtemp(prefix="convt-plugin-")
cfg = json.load(open(os.path.join(root, "examples", "plugin", "sweep.json")))
cfg["measure"] = {"max_time_s": 0.05, "rounds": 2}
path = os.path.join(tmp, "sweep.json")
json.dump(cfg, open(path, "w"))


# Under AddressSanitizer (.ci/run's sanitizer build) a SIGSEGV is caught and
# turned into an abort; the planted crash must reach the orchestrator as the
# signal it is.
env = dict(os.environ)
env["ASAN_OPTIONS"] = ":".join(x for x in (env.get("ASAN_OPTIONS", ""), "handle_segv=0") if x)


def run(*args):
    out = os.path.join(tmp, "r.json")
    r = subprocess.run([bench, "--config", path, "--out", out, "--backend", "cpu", "--quiet",
                        *args], capture_output=True, text=True, env=env)
    doc = json.load(open(out)) if os.path.exists(out) and r.returncode in (0, 1) else None
    if os.path.exists(out):
        os.unlink(out)
    return r, doc


r, doc = run("--plugin", mine)
check("exit 1 (a wrong run)", r.returncode == 1, r.stderr[-800:])
if doc:
    recs = doc["records"]
    direct = [x for x in recs if x["variant"] == "my_direct"]
    wrong = [x for x in recs if x["variant"] == "my_wrong"]
    check("my_direct on every shape", len(direct) == 3 and all(x["status"] == "ok" for x in direct),
          str([x["status"] for x in direct]))
    check("my_wrong reported wrong", len(wrong) == 3 and all(x["status"] == "wrong" for x in wrong),
          str([x["status"] for x in wrong]))
    check("records name their plugin", all(x.get("plugin") == mine for x in direct + wrong))
    check("the file lists the plugin", doc.get("plugins") == [mine], str(doc.get("plugins")))
    check("built-ins still run", any(x["variant"] == "cpu_gather" and x["status"] == "ok"
                                     for x in recs))

# A plugin's kernel runs the shape its user named: on an input of one
# position the built-in variants run the equivalent of a wider stride
# (convt_problem_for, "ran_as"), the plugin's the shape as written.
one = dict(cfg, variants=["my_direct", "cpu_gather"],
           shapes=[{"name": "latent", "n": 2, "cin": 6, "cout": 4, "in": [1, 1], "k": [4, 4]}])
json.dump(one, open(path, "w"))
r, doc = run("--plugin", mine)
check("one position: exit 0", r.returncode == 0, r.stderr[-800:])
if doc:
    by = {x["variant"]: x for x in doc["records"]}
    check("one position: both ok", all(by.get(v, {}).get("status") == "ok"
                                       for v in ("my_direct", "cpu_gather")), str(by.keys()))
    check("the plugin ran the shape as written", "ran_as" not in by.get("my_direct", {}))
    check("the built-in ran its equivalent",
          by.get("cpu_gather", {}).get("ran_as", {}).get("stride") == [4, 4],
          str(by.get("cpu_gather", {}).get("ran_as")))

cfg["variants"] = ["bad_*", "cpu_gather"]
json.dump(cfg, open(path, "w"))
r, doc = run("--plugin", os.environ["CONVT_PLUGIN_CRASH"])
check("a crashing plugin: exit 1", r.returncode == 1, r.stderr[-800:])
if doc:
    crashed = [x for x in doc["records"] if x["variant"] == "bad_crash"]
    check("each crash costs its record", len(crashed) == 3 and
          all(x["status"] == "failed" and "SIGSEGV" in x["reason"] for x in crashed),
          str([(x["status"], x.get("reason", "")[:80]) for x in crashed]))
    check("the rest ok", all(x["status"] == "ok" for x in doc["records"]
                             if x["variant"] == "cpu_gather"))

for name, plugin, says in [
        ("missing file", os.path.join(tmp, "nothere.so"), "cannot open shared object"),
        ("no entry", os.environ["CONVT_LIBRARY"], "exports no convt_plugin_entry"),
        ("another ABI", os.environ["CONVT_PLUGIN_BAD_ABI"], "built against variant ABI"),
        ("a name in use", os.environ["CONVT_PLUGIN_COLLIDE"], "a variant named cpu_gather exists")]:
    r, _ = run("--plugin", plugin)
    check(name + ": exit 2", r.returncode == 2, f"{r.returncode}: {r.stderr[-300:]}")
    check(name + ": the reason", says in r.stderr, r.stderr[-300:])

done("plugin")
