#!/usr/bin/env python3
"""plots/plot_results.py on the committed H100 results (gzipped, as the full
records of superseded runs are kept, and plain): every picture is written,
non-empty, and a PNG; --compare draws its report; a file that is not a
results file is refused with its name. Exit 77 (skipped) without matplotlib."""
import os
import subprocess
import sys
import tempfile

root = os.environ.get("CONVT_SOURCE_ROOT", ".")
try:
    import matplotlib  # noqa: F401
except ImportError:
    print("SKIP: matplotlib is not installed")
    sys.exit(77)

script = os.path.join(root, "plots", "plot_results.py")
r1 = os.path.join(root, "results", "h100-2026-11-22-kernelbench-l1-every-variant-1of2.json.gz")
r2 = os.path.join(root, "results", "h100-2026-11-22-kernelbench-l1-every-variant-2of2.json.gz")
old = os.path.join(root, "results", "history", "h100-2026-11-22-kernelbench-l1-all-variants-part1.json.gz")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done  # noqa: E402


with tempfile.TemporaryDirectory() as out:
    p = subprocess.run([sys.executable, script, r1, r2, "--out", out], capture_output=True, text=True)
    check("plots run", p.returncode == 0, p.stderr)
    for name in ["times.png", "roofline.png", "launch_gather.png", "launch_tiled_smem.png"]:
        path = os.path.join(out, name)
        ok = os.path.exists(path) and os.path.getsize(path) > 10000
        check(name, ok and open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "missing or not a PNG")
    p = subprocess.run([sys.executable, script, "--compare", old, r1, "--out", out], capture_output=True, text=True)
    check("compare plot", p.returncode == 0 and os.path.getsize(os.path.join(out, "compare.png")) > 10000, p.stderr)
    # speedup.png from a selection convt-bench itself makes of a committed run
    bench = os.environ.get("CONVT_BENCH")
    if bench:
        r4 = os.path.join(root, "results", "h100-2026-11-22-kernelbench-l1-session4.json")
        sel = os.path.join(out, "s4.selection.json")
        p = subprocess.run([bench, "select", r4, "--out", sel], capture_output=True, text=True)
        check("select", p.returncode == 0 and "speedup over the fastest vendor record" in p.stdout, p.stderr)
        p = subprocess.run([sys.executable, script, r4, "--selection", sel, "--out", out],
                           capture_output=True, text=True)
        path = os.path.join(out, "speedup.png")
        check("speedup.png", p.returncode == 0 and "speedup.png" in p.stdout and os.path.getsize(path) > 10000,
              p.stderr)
    bad = os.path.join(out, "bad.json")
    open(bad, "w").write('{"not": "results"}')
    p = subprocess.run([sys.executable, script, bad, "--out", out], capture_output=True, text=True)
    check("bad input refused", p.returncode != 0 and "bad.json" in p.stderr, p.stderr)

done("plots")
