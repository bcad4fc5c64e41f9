#!/usr/bin/env python3
"""tools/ncu_stall_sites.py on source pages written here in Nsight Compute's
CSV form (a preamble line, quoted numbers with thousands separators,
predicated instructions): the samples per opcode add up to the total, the
instructions come out in order of samples, the excess-wavefront columns are
reported, and a page without the columns it needs is refused with a reason.
Ends with "ncu_stall_sites: N passed, N failed, N skipped"."""
import csv
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("CONVT_SOURCE_ROOT") or os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "ncu_stall_sites.py")

SASS = [
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R15+URZ], R14 ;",
    "@!P0 BRA 0xb600 ;",
    "HGMMA.64x256x8.F32.TF32 R24, gdesc[UR16], R24 ;",
    "WARPGROUP.DEPBAR.LE gsb0, 0x1 ;",
    "@P1 LDGSTS.E [R51], desc[UR26][R8.64], P1 ;",
    "IMAD.IADD R154, R20, 0x1, -R155 ;",
    "WARPGROUP.ARRIVE ;",
]
OPCODE = ["SYNCS.PHASECHK", "BRA", "HGMMA", "WARPGROUP.DEPBAR", "LDGSTS", "IMAD",
          "WARPGROUP.ARRIVE"]


def write_page(path, rows, header=("Address", "Source", "Warp Stall Sampling (All Samples)",
                                   "Warp Stall Sampling (Not-issued Samples)",
                                   "L1 Wavefronts Shared Excessive")):
    with open(path, "w", newline="") as f:
        f.write('"Kernel Name","polyphase_wgmma_kernel"\n')
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(header)
        w.writerows(rows)


def run(path, top=None):
    args = [sys.executable, SCRIPT, path] + ([str(top)] if top else [])
    return subprocess.run(args, capture_output=True, text=True)


class StallSites(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "src.csv")

    def tearDown(self):
        self.dir.cleanup()

    def random_page(self, seed):
        rng = random.Random(seed)
        rows, samples, per_op, excess = [], [], {}, []
        for i in range(200):
            k = rng.randrange(len(SASS))
            n = rng.choice([0, rng.randrange(1, 100), rng.randrange(1000, 2_000_000)])
            e = rng.choice([0, 0, rng.randrange(1, 10_000_000)])
            rows.append([hex(0x7f0000 + 16 * i), "        " + SASS[k], f"{n:,}", f"{n // 2:,}", f"{e:,}"])
            samples.append(n)
            excess.append(e)
            per_op[OPCODE[k]] = per_op.get(OPCODE[k], 0) + n
        return rows, samples, per_op, excess

    def test_totals_order_and_opcodes(self):
        for seed in range(5):
            rows, samples, per_op, excess = self.random_page(seed)
            write_page(self.path, rows)
            out = run(self.path, 15)
            self.assertEqual(out.returncode, 0, out.stderr)
            total = sum(samples)
            self.assertIn(f"200 instructions, {total} samples", out.stdout)
            # every opcode with samples, with its sum
            listed = dict((m.group(1), int(m.group(2))) for m in
                          re.finditer(r"^  (\S+)\s+(\d+)\s+[\d.]+%$", out.stdout, re.M))
            for op, n in per_op.items():
                if n:
                    self.assertEqual(listed.get(op), n, op)
            # the instructions, most samples first, addresses as given
            part = out.stdout.split("instructions with the most samples:")[1].split("\n\n")[0]
            got = [int(line.split()[1]) for line in part.strip().splitlines()[1:]]
            self.assertEqual(got, sorted(samples, reverse=True)[:15])
            # the excess column: its total and its largest instruction
            self.assertIn(f"L1 Wavefronts Shared Excessive: {sum(excess)} in all", out.stdout)
            worst = max(range(len(rows)), key=lambda i: excess[i])
            tail = out.stdout.split("L1 Wavefronts Shared Excessive:")[1].splitlines()[1]
            self.assertIn(rows[worst][0], tail)

    def test_refuses_pages_it_cannot_read(self):
        write_page(self.path, [["0x10", "BRA 0x0 ;", "5", "1", "0"]],
                   header=("Address", "Source", "Executed Instructions", "x", "y"))
        out = run(self.path)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no warp stall sampling column", out.stderr)
        write_page(self.path, [["0x10", "BRA 0x0 ;", "0", "0", "0"]])
        out = run(self.path)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no samples", out.stderr)
        with open(self.path, "w") as f:
            f.write("==PROF== error: no kernel was profiled\n")
        out = run(self.path)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no table with Address and Source", out.stderr)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"ncu_stall_sites: {result.testsRun - failed - len(result.skipped)} passed, "
          f"{failed} failed, {len(result.skipped)} skipped")
    sys.exit(1 if failed else 0)
