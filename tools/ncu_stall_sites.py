#!/usr/bin/env python3
"""Where a kernel's warps wait, per SASS instruction, from an Nsight Compute
report's warp-state samples: which instructions hold the most samples, and
the samples summed per opcode (an mbarrier wait, a wgmma wait, a copy...);
then, for each "Excessive" column of the source page (shared-memory
wavefronts beyond the ideal: bank conflicts, misaligned operand fetches),
the instructions that cause the most.

    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > SRC.csv
    python3 tools/ncu_stall_sites.py SRC.csv [TOP]

The report must hold the SourceCounters section (tools/profile-wgmma.sh
collects it). A producer warp waiting for a free buffer and a consumer warp
waiting for a full one both wait in SYNCS (mbarrier try_wait); the
addresses tell them apart against the kernel's SASS (tools/wgmma-sass.sh
or $OUT/wgmma.sass of profile-wgmma.sh)."""
import csv
import sys
from collections import defaultdict


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def opcode(sass):
    """HGMMA, LDGSTS, SYNCS.PHASECHK (an mbarrier wait), WARPGROUP.DEPBAR...:
    the mnemonic without its predicate and, but for SYNCS and WARPGROUP,
    without its modifiers."""
    words = sass.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    if not words:
        return "?"
    parts = words[0].rstrip(";").split(".")
    return ".".join(parts[:2]) if parts[0] in ("SYNCS", "WARPGROUP") else parts[0]


def pick(header, *wanted):
    """The first column whose name contains every word of one of `wanted`."""
    lowered = [h.lower() for h in header]
    for words in wanted:
        for i, h in enumerate(lowered):
            if all(w in h for w in words):
                return i
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.reader(f))
    # ncu may print lines (the kernel's name, notes) before the table
    start = next((i for i, r in enumerate(rows) if pick(r, ("address",)) is not None
                  and pick(r, ("source",)) is not None), None)
    if start is None:
        sys.exit(f"{sys.argv[1]}: no table with Address and Source columns "
                 f"(first lines: {rows[:3]})")
    header, body = rows[start], [r for r in rows[start + 1:] if len(r) == len(rows[start])]
    addr = pick(header, ("address",))
    src = pick(header, ("source",))
    samples = pick(header, ("warp stall sampling", "all"), ("stall", "sampling"), ("samples",))
    if samples is None:
        sys.exit(f"{sys.argv[1]}: no warp stall sampling column; columns: {header}")
    not_issued = pick(header, ("warp stall sampling", "not-issued"), ("not issued",))
    total = sum(number(r[samples]) or 0 for r in body)
    if total <= 0:
        sys.exit(f"{sys.argv[1]}: no samples in column {header[samples]!r}")
    print(f"{len(body)} instructions, {total:.0f} samples ({header[samples]})")

    by_op = defaultdict(float)
    for r in body:
        by_op[opcode(r[src])] += number(r[samples]) or 0
    print("\nsamples per opcode:")
    for op, n in sorted(by_op.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {op:28s} {n:10.0f}  {100 * n / total:5.1f}%")

    print(f"\nthe {top} instructions with the most samples:")
    print(f"  {'address':>8s} {'samples':>9s} {'%':>6s} {'not issued':>10s}  source")
    body.sort(key=lambda r: -(number(r[samples]) or 0))
    for r in body[:top]:
        n = number(r[samples]) or 0
        ni = number(r[not_issued]) if not_issued is not None else None
        print(f"  {r[addr]:>8s} {n:9.0f} {100 * n / total:6.1f} "
              f"{'' if ni is None else f'{ni:10.0f}'}  {r[src].strip()[:90]}")
    excessive(header, body, addr, src)


def excessive(header, body, addr, src, top=10):
    """Per column of excess work (e.g. L1 Wavefronts Shared Excessive: bank
    conflicts, or misaligned operand fetches), the instructions with most."""
    for i, h in enumerate(header):
        if "excessive" not in h.lower():
            continue
        total = sum(number(r[i]) or 0 for r in body)
        if total <= 0:
            continue
        print(f"\n{h}: {total:.0f} in all; the {top} instructions with the most:")
        for r in sorted(body, key=lambda r: -(number(r[i]) or 0))[:top]:
            n = number(r[i]) or 0
            print(f"  {r[addr]:>8s} {n:12.0f} {100 * n / total:6.1f}%  {r[src].strip()[:90]}")


if __name__ == "__main__":
    main()
