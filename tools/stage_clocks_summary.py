#!/usr/bin/env python3
"""Medians of a stage-clock log (a build with -DCONVT_WG_STAGE_CLOCKS, its
CONVT_STAGE_CLOCKS file as tools/stage-clocks.sh's stage_clocks_run writes
it): one line per launch ("== LABEL" opens one), each column the median
over the launch's blocks of the per-block medians kernels/wg_stage_clocks.h
reports (SM cycles).

    python3 tools/stage_clocks_summary.py FILE [--width N] [--weights]

--width: the label's column (default 150); --weights: also the weights'
issue (the producer's bulk copy), reported since session 32."""
import argparse
import re
import statistics

FIELDS = ["period", "wait", "issue", "fill", "flight", "empty"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--width", type=int, default=150)
    ap.add_argument("--weights", action="store_true")
    args = ap.parse_args()
    fields = FIELDS + (["weights"] if args.weights else [])
    pattern = re.compile(" ".join(r"%s (-?\d+)" % f for f in fields))
    label, blocks = None, {}
    with open(args.file) as f:
        for line in f:
            if line.startswith("== "):
                label = line[3:].strip()
                blocks.setdefault(label, [])
            m = pattern.search(line)
            if m and label:
                blocks[label].append([int(x) for x in m.groups()])
    for label, rows in blocks.items():
        if rows:
            med = [int(statistics.median(col)) for col in zip(*rows)]
            cols = " ".join("%s %5d" % (f, v) for f, v in zip(fields, med))
            print("%-*s %s  (%d block-launches)" % (args.width, label[: args.width], cols, len(rows)))


if __name__ == "__main__":
    main()
