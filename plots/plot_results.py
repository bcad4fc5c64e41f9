#!/usr/bin/env python3
"""Pictures of convt-bench results.

    python3 plots/plot_results.py RESULTS.json [RESULTS.json ...] [--out DIR]
    python3 plots/plot_results.py --compare BASELINE.json CURRENT.json [--out DIR]

Several results files of one device are read as one run (e.g. a sweep split
over two invocations). Writes into DIR (default plots/):

  times.png       per shape, the best time of every variant (log scale),
                  grouped by precision tier, vendor records (cudnn_*, torch_*) hatched
  roofline.png    achieved GFLOP/s against arithmetic intensity (nominal
                  FLOPs / minimum bytes), with the device's measured ceilings
  launch_<variant>.png
                  per variant, each launch configuration's time relative to the
                  variant's best on each shape (a heat map: shapes x launches)
  speedup.png     per shape and tier, the selected winner's speedup over the
                  fastest vendor record of the tier (any cuDNN path or PyTorch;
                  its name on the bar), with the geometric mean; drawn from a
                  selection table (--selection, or X.selection.json beside a
                  single results file X.json: convt-bench's own rules, never
                  recomputed here)
  compare.png     (--compare) per matched record, current / baseline median,
                  with the allowance band; regressions in red

Only ok records are drawn; the figures say which files they come from.
A results file may be gzipped (X.json.gz: the committed records of
superseded runs in results/ are).
"""
import argparse
import gzip
import json
import math
import os
import sys

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    records, head = [], None
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            d = json.load(f)
        if "records" not in d:
            sys.exit(f"{p}: not a convt-bench results file (no \"records\")")
        head = head or d
        records += d["records"]
    return head, records


def is_vendor(variant):
    """cuDNN's paths and PyTorch's records: the baselines (src/tool/select.h)."""
    return variant.startswith("cudnn_") or variant.startswith("torch_")


def ok(r):
    return r.get("status") == "ok" and r.get("timing", {}).get("median_ms") is not None


def shapes_in_order(records):
    seen = []
    for r in records:
        n = r["shape"]["name"]
        if n not in seen:
            seen.append(n)
    return seen


def best_per(records, shape, variant):
    ts = [r for r in records if ok(r) and r["shape"]["name"] == shape and r["variant"] == variant]
    return min(ts, key=lambda r: r["timing"]["median_ms"]) if ts else None


def variants_in_order(records):
    seen = []
    for r in records:
        if r["variant"] not in seen:
            seen.append(r["variant"])
    return seen


def title(head, what):
    dev = head.get("device", {}).get("name", "?")
    return f"{what}: {dev}, {head.get('time', '')[:10]}"


def plot_times(head, records, out, sources):
    shapes = shapes_in_order(records)
    variants = variants_in_order(records)
    fig, axes = plt.subplots(2, 1, figsize=(max(10, 0.9 * len(shapes) + 4), 10), sharex=True)
    for ax, tier in zip(axes, ["fp32", "tf32"]):
        vs = [v for v in variants if any(r["variant"] == v and r["tier"] == tier for r in records)]
        width = 0.8 / max(1, len(vs))
        for j, v in enumerate(vs):
            xs, ys = [], []
            for i, s in enumerate(shapes):
                b = best_per(records, s, v)
                if b:
                    xs.append(i + (j - (len(vs) - 1) / 2) * width)
                    ys.append(b["timing"]["median_ms"])
            ax.bar(xs, ys, width, label=v, hatch="//" if is_vendor(v) else None,
                   edgecolor="black", linewidth=0.3)
        ax.set_yscale("log")
        ax.set_ylabel(f"{tier}: median ms (log)")
        ax.legend(fontsize=8, ncol=min(4, max(1, len(vs))))
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[-1].set_xticks(range(len(shapes)))
    axes[-1].set_xticklabels(shapes, rotation=45, ha="right", fontsize=8)
    axes[0].set_title(title(head, "Best time per variant and shape"))
    fig.text(0.01, 0.005, "source: " + ", ".join(sources), fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "times.png"), dpi=110)
    plt.close(fig)


def plot_roofline(head, records, out, sources):
    ceil = head.get("ceilings", {})
    bw, f32, t32 = ceil.get("copy_gbps", 0), ceil.get("fp32_gflops", 0), ceil.get("tf32_gflops", 0)
    fig, ax = plt.subplots(figsize=(9, 6.5))
    variants = variants_in_order(records)
    markers = "osD^v<>ph*"
    for j, v in enumerate(variants):
        pts = []
        for s in shapes_in_order(records):
            b = best_per(records, s, v)
            if b and b.get("gflops"):
                ai = b["shape"]["gflop"] / b["shape"]["min_gb"]
                pts.append((ai, b["gflops"]))
        if pts:
            ax.scatter(*zip(*pts), label=v, marker=markers[j % len(markers)], s=28)
    if bw > 0:
        xs = [10 ** (k / 20) for k in range(0, 100)]
        for peak, name, style in [(f32, "fp32 GEMM", "-"), (t32, "TF32 GEMM", "--")]:
            if peak > 0:
                ax.plot(xs, [min(peak, bw * x) for x in xs], style, color="gray",
                        label=f"{name} {peak / 1e3:.0f} TFLOP/s, copy {bw:.0f} GB/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity: nominal FLOPs / minimum bytes")
    ax.set_ylabel("achieved GFLOP/s (nominal FLOPs / median time)")
    ax.set_title(title(head, "Roofline, best launch per variant and shape"))
    ax.legend(fontsize=7)
    ax.grid(which="both", alpha=0.3)
    fig.text(0.01, 0.005, "source: " + ", ".join(sources), fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "roofline.png"), dpi=110)
    plt.close(fig)


def plot_launches(head, records, out, sources):
    written = []
    for v in variants_in_order(records):
        recs = [r for r in records if r["variant"] == v and ok(r)]
        launches = []
        for r in recs:
            if r["launch_key"] not in launches:
                launches.append(r["launch_key"])
        if len(launches) < 2:
            continue
        shapes = shapes_in_order(recs)
        grid = []
        for s in shapes:
            best = best_per(records, s, v)["timing"]["median_ms"]
            row = []
            for lk in launches:
                m = [r["timing"]["median_ms"] for r in recs if r["shape"]["name"] == s and r["launch_key"] == lk]
                row.append(m[0] / best if m else float("nan"))
            grid.append(row)
        fig, ax = plt.subplots(figsize=(1.1 * len(launches) + 4, 0.35 * len(shapes) + 2.5))
        im = ax.imshow(grid, aspect="auto", cmap="viridis_r", vmin=1,
                       vmax=max(1.01, min(4, max(x for row in grid for x in row if x == x))))
        ax.set_xticks(range(len(launches)))
        ax.set_xticklabels(launches, rotation=40, ha="right", fontsize=7)
        ax.set_yticks(range(len(shapes)))
        ax.set_yticklabels(shapes, fontsize=7)
        for i, row in enumerate(grid):
            for k, x in enumerate(row):
                if x == x:
                    ax.text(k, i, f"{x:.2f}", ha="center", va="center", fontsize=6,
                            color="white" if x > 1.5 else "black")
        fig.colorbar(im, label="time / best launch of the shape")
        ax.set_title(title(head, f"{v}: launch configurations"), fontsize=9)
        fig.text(0.01, 0.005, "source: " + ", ".join(sources), fontsize=6)
        fig.tight_layout()
        name = f"launch_{v}.png"
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        written.append(name)
    return written


def plot_speedup(sel_path, out):
    with open(sel_path) as f:
        sel = json.load(f)
    if "selections" not in sel:
        sys.exit(f"{sel_path}: not a convt-bench selection table (no \"selections\")")
    tiers = [t for t in ("fp32", "tf32") if any(r.get("tier") == t and r.get("speedup") for r in sel["selections"])]
    if not tiers:
        return False
    fig, axes = plt.subplots(len(tiers), 1, figsize=(11, 4.2 * len(tiers)), squeeze=False)
    for ax, tier in zip(axes[:, 0], tiers):
        rows = [r for r in sel["selections"] if r.get("tier") == tier and r.get("speedup")]
        xs = range(len(rows))
        ys = [r["speedup"] for r in rows]
        ax.bar(list(xs), ys, color=["tab:green" if y >= 1 else "tab:red" for y in ys])
        for x, r in zip(xs, rows):
            ax.text(x, r["speedup"], f"{r['speedup']:.2f}x\nvs {r['baseline']['variant']}",
                    ha="center", va="bottom", fontsize=5.5)
        geo = math.exp(sum(math.log(y) for y in ys) / len(ys))
        ax.axhline(1, color="black", linewidth=0.8)
        ax.axhline(geo, color="tab:blue", linestyle="--", linewidth=0.8, label=f"geometric mean {geo:.2f}x")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["name"] for r in rows], rotation=40, ha="right", fontsize=7)
        ax.set_ylabel(f"{tier}: fastest vendor ms / winner ms")
        ax.set_yscale("log")
        fmt = matplotlib.ticker.FormatStrFormatter("%.1fx")
        ax.yaxis.set_major_formatter(fmt)
        ax.yaxis.set_minor_formatter(fmt)
        ax.tick_params(axis="y", which="minor", labelsize=6)
        ax.legend(fontsize=7)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0, 0].set_title(f"Winner against the fastest vendor record of the tier: {sel.get('device', '?')}, "
                         f"{sel.get('results_time', '')[:10]}", fontsize=9)
    fig.text(0.01, 0.005, "source: " + os.path.basename(sel_path), fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "speedup.png"), dpi=110)
    plt.close(fig)
    return True


def plot_compare(base_path, cur_path, out, threshold):
    _, base = load([base_path])
    head, cur = load([cur_path])
    key = lambda r: (r["shape"]["key"], r["variant"], r["launch_key"], r["tier"])
    b = {key(r): r for r in base if ok(r)}
    rows = []
    for r in cur:
        k = key(r)
        if ok(r) and k in b:
            ratio = r["timing"]["median_ms"] / b[k]["timing"]["median_ms"]
            allow = max(threshold, (r["timing"].get("noise") or 0) + (b[k]["timing"].get("noise") or 0))
            rows.append((f"{r['shape']['name']} {r['variant']} {r['launch_key']}", ratio, allow))
    if not rows:
        sys.exit("no matched ok records to compare")
    fig, ax = plt.subplots(figsize=(9, 0.22 * len(rows) + 2))
    ys = range(len(rows))
    colors = ["tab:red" if ratio - 1 > allow else "tab:green" if 1 - ratio > allow else "tab:gray"
              for _, ratio, allow in rows]
    ax.barh(list(ys), [ratio - 1 for _, ratio, _ in rows], color=colors)
    for y, (_, _, allow) in zip(ys, rows):
        ax.plot([-allow, allow], [y, y], color="black", linewidth=0.6)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([n for n, _, _ in rows], fontsize=6)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("current / baseline - 1 (black: allowance, max(threshold, noise of both runs))")
    ax.set_title(f"compare: {os.path.basename(cur_path)} vs {os.path.basename(base_path)}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "compare.png"), dpi=110)
    plt.close(fig)
    return sum(c == "tab:red" for c in colors)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="*", help="results JSON files of one device")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--compare", nargs=2, metavar=("BASELINE", "CURRENT"))
    ap.add_argument("--threshold", type=float, default=5.0, help="percent, for --compare")
    ap.add_argument("--selection", help="selection table for speedup.png (default: X.selection.json "
                    "beside a single results file X.json)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.compare:
        red = plot_compare(*a.compare, a.out, a.threshold / 100)
        print(f"wrote {os.path.join(a.out, 'compare.png')} ({red} regressions drawn in red)")
        return
    if not a.results:
        ap.error("give results files, or --compare BASELINE CURRENT")
    head, records = load(a.results)
    if not any(ok(r) for r in records):
        sys.exit("no ok records to draw")
    sources = [os.path.basename(p) for p in a.results]
    plot_times(head, records, a.out, sources)
    plot_roofline(head, records, a.out, sources)
    launches = plot_launches(head, records, a.out, sources)
    sel = a.selection
    if not sel and len(a.results) == 1 and a.results[0].endswith(".json"):
        beside = a.results[0][:-len(".json")] + ".selection.json"
        sel = beside if os.path.exists(beside) else None
    speedup = ["speedup.png"] if sel and plot_speedup(sel, a.out) else []
    print("wrote", ", ".join(["times.png", "roofline.png"] + launches + speedup), "to", a.out)


if __name__ == "__main__":
    main()
