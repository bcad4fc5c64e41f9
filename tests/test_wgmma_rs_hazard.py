#!/usr/bin/env python3
"""tools/wgmma_rs_hazard.py on hand-written SASS of the three shapes session
34 met: two register sets behind a branch that ptxas gave the same
registers (a hazard, found through the loop's back edge), the two sets
written out one after the other (none), and a write after a wait for every
group (none); a store's address register is no write, a kernel without
register-A wgmma is not listed, and a file with a hazard exits 1."""
import os
import subprocess
import sys
import tempfile

root = os.environ.get("CONVT_SOURCE_ROOT", ".")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tools"))
from checks import check, done  # noqa: E402
import wgmma_rs_hazard as h  # noqa: E402

HGMMA = "HGMMA.64x128x8.F32.TF32 R24, R{}, gdesc[UR16], R24{}"


def sass(name, lines):
    out = [f"        Function : {name}"]
    for addr, text in lines:
        out.append(f"        /*{addr:04x}*/                   {text} ;   /* 0x0 */")
    return "\n".join(out) + "\n"


# the first form: both branches load into R88.. while the other's group runs
branches = sass("two_sets_one_register_file", [
    (0x00, "MOV R1, c[0x0][0x28]"),
    (0x10, "WARPGROUP.DEPBAR.LE gsb0, 0x1"),
    (0x20, "@!P1 BRA 0x80"),
    (0x30, "LDS R88, [R10]"),
    (0x40, "WARPGROUP.ARRIVE"),
    (0x50, HGMMA.format(88, ", gsb0")),
    (0x60, "BRA 0xb0"),
    (0x80, "LDS R89, [R11]"),
    (0x90, HGMMA.format(88, ", gsb0")),
    (0xb0, "ISETP.NE.AND P0, PT, R5, RZ, PT"),
    (0xc0, "@P0 BRA 0x10"),
    (0xd0, "EXIT"),
])
# the final form: the sets written out in turn, each loaded after the group
# two before (its last reader) is done; a store through R88 writes nothing
pairs = sass("two_sets_in_turn", [
    (0x10, "WARPGROUP.DEPBAR.LE gsb0, 0x1"),
    (0x20, "LDS R88, [R10]"),
    (0x30, HGMMA.format(88, ", gsb0")),
    (0x40, "WARPGROUP.DEPBAR.LE gsb0, 0x1"),
    (0x50, "LDS R104, [R10]"),
    (0x58, "STS [R88], R5"),
    (0x60, HGMMA.format(104, ", gsb0")),
    (0x70, "@P0 BRA 0x10"),
    (0x80, "WARPGROUP.DEPBAR.LE gsb0, 0x0"),
    (0x90, "MOV R88, RZ"),
    (0xa0, "EXIT"),
])
shared = sass("shared_memory_operands", [
    (0x10, "HGMMA.64x128x8.F32.TF32 R24, gdesc[UR16], R24, gsb0"),
    (0x20, "MOV R24, RZ"),
    (0x30, "EXIT"),
])


def analyse(text):
    return [(name, h.analyse(insns)) for name, insns in h.kernels(text)]


(name, found), = analyse(branches)
check("branches: a hazard", len(found) >= 1, found)
check("branches: the loop's next load", found and found[0][0] == 0x30 and found[0][3] == [88], found)
(name, found), = analyse(pairs)
check("pairs: none", found == [], found)
(name, found), = analyse(shared)
check("shared-memory operands: none", found == [], found)

with tempfile.TemporaryDirectory() as d:
    bad, good = os.path.join(d, "bad.sass"), os.path.join(d, "good.sass")
    with open(bad, "w") as f:
        f.write(branches + shared)
    with open(good, "w") as f:
        f.write(pairs + shared)
    tool = os.path.join(root, "tools", "wgmma_rs_hazard.py")
    r = subprocess.run([sys.executable, tool, bad], capture_output=True, text=True)
    check("bad: exit 1", r.returncode == 1, r.returncode)
    check("bad: listed with its hazard", "two_sets_one_register_file HGMMA-RS 2 hazards" in r.stdout, r.stdout)
    check("bad: no line for shared-memory operands", "shared_memory_operands" not in r.stdout, r.stdout)
    r = subprocess.run([sys.executable, tool, good], capture_output=True, text=True)
    check("good: exit 0", r.returncode == 0, r.returncode)
    check("good: no hazard", "two_sets_in_turn HGMMA-RS 2 hazards 0" in r.stdout, r.stdout)
    r = subprocess.run([sys.executable, tool], capture_output=True, text=True)
    check("no file: usage, exit 2", r.returncode == 2 and "wgmma_rs_hazard" in r.stderr, r.returncode)
done("wgmma register-A hazards")
