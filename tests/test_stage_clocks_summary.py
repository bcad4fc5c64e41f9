#!/usr/bin/env python3
"""tools/stage_clocks_summary.py on the committed stage clocks of sessions
32, 33 and 45: each launch's medians over its 8 blocks are the figures
results/notes.md quotes (with the weights column, from a file before it
existed, and from one without labels); a missing file and a wrong call are
refused."""
import os
import subprocess
import sys

root = os.environ.get("CONVT_SOURCE_ROOT", ".")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tools"))
from checks import check, done  # noqa: E402
import stage_clocks_summary as scs  # noqa: E402


def load(name):
    with open(os.path.join(root, "results", name)) as f:
        return scs.summarise(f)


s33 = load("h100-2026-11-27-s33-stage-clocks-cl.txt")
check("s33 launches", len(s33) == 10, len(s33))
check("s33 blocks", all(n == 8 for _, _, n in s33), [n for _, _, n in s33])
k12_gather, k12_cl = s33[0][1], s33[5][1]
check("k12 gather", (k12_gather["period"], k12_gather["fill"], k12_gather["weights"]) == (2135, 1958, 234), k12_gather)
check("k12 channels last", (k12_cl["period"], k12_cl["fill"]) == (1944, 1546), k12_cl)
check("bigvgan label", "bigvgan_up1 polyphase_wgmma_fold_cl_tf32" in s33[7][0], s33[7][0])
check("bigvgan channels last", s33[7][1]["period"] == 1818, s33[7][1])

s32 = load("h100-2026-11-27-s32-stage-clocks.txt")  # before the weights column
pair = [m for label, m, _ in s32 if label.startswith("kb57_2d_square polyphase_wgmma_tf32")]
check("kb57 pair", pair and (pair[0]["period"], pair[0]["fill"]) == (2823, 2696), pair)
check("no weights column", all("weights" not in m for _, m, _ in s32), s32[0][1])

# a file without "== LABEL" lines (session 45's stagger runs): each
# release's header is its launch; kb57's winner at staggers 0, 26000, 52000
s45 = load("h100-2026-11-28-s45-stagger-clocks.txt")
check("s45 launches", len(s45) == 45, len(s45))
kb57 = [s45[i] for i in (0, 15, 30)]
check("s45 kb57 labels", all("cin 64 cout 64; bn 256 nseg 2" in l and f"stagger {s}" in l
                             for (l, _, _), s in zip(kb57, (0, 26000, 52000))), [l for l, _, _ in kb57])
check("s45 kb57 means", [m["mean"] for _, m, _ in kb57] == [3983, 3740, 3980], [m for _, m, _ in kb57])

tool = os.path.join(root, "tools", "stage_clocks_summary.py")
p = subprocess.run([sys.executable, tool, os.path.join(root, "results", "no-such-file.txt")],
                   capture_output=True, text=True)
check("missing file", p.returncode == 1 and "no-such-file.txt" in p.stderr, p.stderr)
p = subprocess.run([sys.executable, tool], capture_output=True, text=True)
check("usage", p.returncode == 2 and "usage" in p.stderr, p.stderr)
done("stage clocks summary")
