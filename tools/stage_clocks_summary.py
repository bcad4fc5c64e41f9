#!/usr/bin/env python3
"""The stage clocks' summary (kernels/wg_stage_clocks.h, diagnostic builds):
one line per launch of a CONVT_STAGE_CLOCKS file, the medians over its
blocks of each column the launch state's release wrote per block.

    python3 tools/stage_clocks_summary.py FILE

FILE: what the probe scripts append to, a "== LABEL" line before each
launch (the label is the script's; results/h100-2026-11-27-s3*-stage-clocks*.sh
wrote it inline, the same way, for sessions 32 and 33) and the release's
"block B: ... median cycles: period P wait W ..." lines after it; in a
file without such labels (a script that ran convt-bench directly) each
release's "stage clocks: ..." header names its launch. Columns
a file's lines lack (weights, before session 32's call 9) are left out."""
import re
import statistics
import sys

COLUMNS = ["period", "wait", "issue", "fill", "flight", "empty", "weights", "mean"]
BLOCK = re.compile(r"block \d+: \d+ stages; median cycles: (.*)")


def summarise(lines):
    """[(label, {column: median over blocks}, blocks)] in the file's order."""
    out, label, rows = [], None, []
    labelled = False  # the file has "== LABEL" lines

    def flush():
        if label is not None and rows:
            cols = [c for c in COLUMNS if all(c in r for r in rows)]
            out.append((label, {c: int(statistics.median(r[c] for r in rows)) for c in cols}, len(rows)))

    for line in lines:
        if line.startswith("== "):
            flush()
            label, rows, labelled = line[3:].strip(), [], True
            continue
        if line.startswith("stage clocks:") and not labelled:
            # a file without "== LABEL" lines (a script that ran convt-bench
            # directly, session 45's stagger): each release's header names
            # its launch; under a label, the releases of its launch's runs
            # (session 32's scripts: several a label) count together
            flush()
            label, rows = line.strip(), []
            continue
        m = BLOCK.search(line)
        if m and label is not None:
            pairs = re.findall(r"(\w+) (-?\d+)", m.group(1))
            rows.append({k: int(v) for k, v in pairs})
    flush()
    return out


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: stage_clocks_summary.py FILE\n")
        return 2
    try:
        with open(argv[1]) as f:
            summary = summarise(f)
    except OSError as e:
        sys.stderr.write("stage_clocks_summary.py: %s: %s\n" % (argv[1], e.strerror))
        return 1
    for label, med, n in summary:
        cols = " ".join("%s %5d" % (c, med[c]) for c in COLUMNS if c in med)
        print("%-100s %s (%d)" % (label[:100], cols, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
