#!/usr/bin/env python3
"""The Python package convt (python/convt, ctypes over libconvt) on NumPy
arrays and the CPU backend:
  - every golden case of tests/golden (PyTorch's float64 outputs, every
    parameter) through convt.conv_transpose in fp32, within its tolerance;
  - a table written by convt-bench on the CPU: exact rows for its shapes, the
    nearest for a shape of the same class, the heuristic otherwise;
  - a table of another device is refused with the reason, and used with
    any_device; bad arguments raise, naming what is wrong;
  - run-time tuning: a shape an empty table lacks is measured by convt-bench
    on first use ("tuned"), and the table written holds its exact row;
  - a plugin (CONVT_PLUGIN, examples/plugin's my_kernels.so, when given)
    loads into a context and its variant runs from a table's row.
Runs with CONVT_LIBRARY naming libconvt.so (meson sets it) and CONVT_BENCH
the convt-bench binary. Exit 77 (skipped) without NumPy."""
import json
import os
import subprocess
import sys
import tempfile

root = os.environ.get("CONVT_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(root, "python"))
try:
    import numpy as np
except ImportError:
    print("SKIP: NumPy is not installed")
    sys.exit(77)
import convt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done  # noqa: E402


def normwise(y, ref):
    return float(np.linalg.norm((y.astype(np.float64) - ref).ravel()) /
                 max(np.linalg.norm(ref.ravel()), 1e-300))


# ---- golden cases -------------------------------------------------------------
golden = os.path.join(root, "tests", "golden")
cases = json.load(open(os.path.join(golden, "cases.json")))["cases"]
for c in cases:
    x = np.load(os.path.join(golden, c["name"] + ".x.npy"))
    w = np.load(os.path.join(golden, c["name"] + ".w.npy"))
    b = np.load(os.path.join(golden, c["name"] + ".b.npy")) if c["bias"] else None
    ref = np.load(os.path.join(golden, c["name"] + ".y.npy"))
    y = convt.conv_transpose(x, w, b, stride=c["stride"], padding=c["pad"],
                             output_padding=c["out_pad"], groups=c["groups"],
                             dilation=c["dil"], tier="fp32")
    check(c["name"] + " shape", y.shape == ref.shape, f"{y.shape} vs {ref.shape}")
    if y.shape == ref.shape:
        err = normwise(y, ref)
        check(c["name"] + " values", err <= 1e-5, f"normwise error {err:.2e}")
check("golden cases", len(cases) >= 25, f"only {len(cases)}")

# ---- a table written by convt-bench -------------------------------------------
bench = os.environ.get("CONVT_BENCH", os.path.join(root, "build", "convt-bench"))
tmp = tempfile.mkdtemp(prefix="convt-py-")
cfg = os.path.join(tmp, "sweep.json")
json.dump({"variants": ["cpu_gather", "cpu_scatter"], "measure": {"max_time_s": 0.05},
           "shapes": [{"name": "s1", "n": 2, "cin": 6, "cout": 4, "in": [30], "k": [4],
                       "stride": [2], "pad": [1]},
                      {"name": "s2", "n": 1, "cin": 4, "cout": 4, "in": [9, 8], "k": [3, 3],
                       "groups": 2, "bias": True}]}, open(cfg, "w"))
out = os.path.join(tmp, "r.json")
r = subprocess.run([bench, "--config", cfg, "--out", out, "--backend", "cpu", "--quiet"],
                   capture_output=True, text=True)
check("convt-bench wrote a table", r.returncode == 0, r.stderr[-500:])
table = convt.use_table(os.path.join(tmp, "r.selection.json"), device=-1)
# CPU variants are fp32: one row per shape, which serves tf32 plans too
check("table rows", "2 rows used, 0 left out" in table.describe(), table.describe())
rng = np.random.default_rng(7)
x = rng.standard_normal((2, 6, 30), dtype=np.float32)
w = rng.standard_normal((6, 4, 4), dtype=np.float32)
p = convt.problem(x.shape, w.shape, bias=False, stride=2, padding=1)
plan = convt.plan_for(table, p, "tf32")
check("exact rule", plan.rule == "exact", plan.describe())
p2 = convt.problem((2, 6, 45), w.shape, bias=False, stride=2, padding=1)
check("nearest rule", convt.plan_for(table, p2, "tf32").rule == "nearest",
      convt.plan_for(table, p2, "tf32").describe())
p3 = convt.problem((2, 6, 30), (6, 4, 5), bias=False, stride=3)
check("heuristic rule", convt.plan_for(table, p3, "tf32").rule == "heuristic",
      convt.plan_for(table, p3, "tf32").describe())
y = convt.conv_transpose(x, w, None, stride=2, padding=1)
check("output through the table", y.shape == (2, 4, 60), str(y.shape))

foreign = os.path.join(tmp, "foreign.json")
t = json.load(open(os.path.join(tmp, "r.selection.json")))
t["device"] = "NVIDIA H100 80GB HBM3"
json.dump(t, open(foreign, "w"))
try:
    convt.context(-1).table(foreign)
    check("foreign table refused", False, "accepted")
except convt.ConvtError as e:
    check("foreign table refused", "measured on NVIDIA H100" in str(e), str(e))
check("foreign table with any_device",
      "rows used" in convt.context(-1).table(foreign, any_device=True).describe())
for bad, kwargs in [("output_padding too large", {"stride": 2, "output_padding": 2}),
                    ("groups not dividing", {"groups": 4})]:
    try:
        convt.conv_transpose(x, w, None, **kwargs)
        check(bad, False, "accepted")
    except (convt.ConvtError, ValueError) as e:
        check(bad, len(str(e)) > 10, str(e))

# ---- run-time tuning -------------------------------------------------------------
tuned_path = os.path.join(tmp, "tuned.selection.json")
ctx = convt.Context(-1)
tt = ctx.table(None)
tt.enable_tuning(tuned_path)
pt = convt.problem((1, 5, 21), (5, 3, 3), bias=True, stride=2, padding=1)
os.environ["CONVT_BENCH"] = bench
plan = tt.plan(pt, "fp32")
check("tuned rule", plan.rule == "tuned", plan.describe())
check("tuning wrote the table", os.path.exists(tuned_path))
if os.path.exists(tuned_path):
    again = convt.Context(-1).table(tuned_path).plan(pt, "fp32")
    check("the written table has the exact row", again.rule == "exact", again.describe())
    # tf32 is served by the fp32 row just measured: no second run, no second row
    rows_before = len(json.load(open(tuned_path))["selections"])
    reloaded = convt.Context(-1).table(tuned_path)
    reloaded.enable_tuning(tuned_path)
    tf = reloaded.plan(pt, "tf32")
    check("tf32 from the fp32 row", tf.rule == "exact", tf.describe())
    check("no duplicate rows", len(json.load(open(tuned_path))["selections"]) == rows_before)
    reloaded.enable_tuning(None)  # off again

# ---- per-call tables and operand checks -----------------------------------------
ta, tb = os.path.join(tmp, "ta.json"), os.path.join(tmp, "tb.json")
base = json.load(open(os.path.join(tmp, "r.selection.json")))
for path, variant in ((ta, "cpu_gather"), (tb, "cpu_scatter")):
    t2 = json.loads(json.dumps(base))
    for s in t2["selections"]:
        s["variant"], s["launch"] = variant, {"threads": 1}
    json.dump(t2, open(path, "w"))
convt.conv_transpose(x, w, None, stride=2, padding=1, table=ta)
convt.conv_transpose(x, w, None, stride=2, padding=1, table=tb)
check("a table named per call is that table",
      convt.plan_for(convt.functional._table(tb, -1), p, "tf32").variant == "cpu_scatter")
try:
    convt.conv_transpose(x, w, np.ones(1, dtype=np.float32), stride=2, padding=1)
    check("a bias of the wrong length is refused", False, "accepted")
except ValueError as e:
    check("a bias of the wrong length is refused", "one value per output channel" in str(e), str(e))

# ---- a plugin ----------------------------------------------------------------
plugin = os.environ.get("CONVT_PLUGIN")
if plugin:
    ctx = convt.Context(-1)
    ctx.load_plugin(plugin)
    t["device"] = ctx.device_name
    for s in t["selections"]:
        s["variant"], s["launch"] = "my_direct", {}
    mine = os.path.join(tmp, "mine.json")
    json.dump(t, open(mine, "w"))
    table = ctx.table(mine)
    plan = table.plan(p, "fp32")
    check("plugin variant dispatched", plan.variant == "my_direct", plan.describe())

done("python")
