#!/usr/bin/env python3
"""Golden outputs for the float64 CPU reference, computed by PyTorch.

Run where PyTorch is installed (the GPU machine has it):
    python3 tests/golden/make_golden.py tests/golden
Writes, per case, <case>.x.npy, <case>.w.npy, [<case>.b.npy] (float32, the
values the harness feeds its kernels) and <case>.y.npy (float64: PyTorch's
conv_transpose on the same values upcast to float64), plus cases.json listing
every case's parameters in the sweep-config shape format.

The cases are fixed, small, and chosen so that each parameter is exercised
alone and in combination with the others (stride > kernel, dilation with
stride, output_padding, every group count up to depthwise, bias, N=1).
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

CASES = [
    # name, dims, n, cin, cout, k, stride, pad, out_pad, dil, groups, bias, in
    ("c1d_plain", 1, 2, 3, 4, [3], [1], [0], [0], [1], 1, False, [7]),
    ("c1d_stride2", 1, 2, 3, 4, [3], [2], [0], [0], [1], 1, False, [6]),
    ("c1d_stride_gt_k", 1, 1, 2, 3, [2], [5], [0], [0], [1], 1, True, [5]),
    ("c1d_pad", 1, 2, 4, 2, [5], [1], [2], [0], [1], 1, False, [8]),
    ("c1d_outpad", 1, 2, 3, 3, [3], [3], [1], [2], [1], 1, False, [5]),
    ("c1d_dil", 1, 2, 3, 4, [3], [1], [0], [0], [3], 1, False, [9]),
    ("c1d_dil_stride", 1, 2, 4, 4, [3], [2], [1], [1], [2], 1, True, [7]),
    ("c1d_groups2", 1, 2, 4, 6, [3], [2], [1], [0], [1], 2, False, [6]),
    ("c1d_depthwise", 1, 2, 4, 4, [3], [2], [1], [1], [1], 4, True, [6]),
    ("c1d_bias", 1, 3, 2, 5, [4], [1], [0], [0], [1], 1, True, [6]),
    ("c1d_n1_k1", 1, 1, 5, 3, [1], [1], [0], [0], [1], 1, False, [4]),
    ("c1d_outpad_lt_dil", 1, 2, 2, 2, [3], [1], [0], [1], [2], 1, False, [5]),
    ("c2d_plain", 2, 2, 3, 4, [3, 3], [1, 1], [0, 0], [0, 0], [1, 1], 1, False, [5, 6]),
    ("c2d_asym_k", 2, 2, 3, 2, [3, 5], [1, 1], [1, 2], [0, 0], [1, 1], 1, True, [5, 7]),
    ("c2d_stride", 2, 2, 2, 3, [3, 3], [2, 3], [1, 0], [1, 2], [1, 1], 1, False, [4, 5]),
    ("c2d_dil", 2, 1, 3, 3, [3, 2], [1, 1], [0, 1], [0, 0], [2, 3], 1, False, [5, 5]),
    ("c2d_all", 2, 2, 4, 6, [3, 5], [2, 3], [1, 2], [1, 0], [2, 1], 2, True, [4, 6]),
    ("c2d_depthwise", 2, 2, 3, 3, [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], 3, True, [4, 5]),
    ("c2d_groups_mult", 2, 1, 4, 8, [2, 2], [2, 2], [0, 0], [0, 0], [1, 1], 4, False, [3, 3]),
    ("c2d_stride_gt_k", 2, 2, 2, 2, [2, 3], [4, 5], [0, 1], [3, 2], [1, 1], 1, True, [3, 3]),
    ("c3d_plain", 3, 1, 2, 3, [2, 3, 2], [1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1], 1, False, [3, 4, 3]),
    ("c3d_stride_pad", 3, 2, 2, 2, [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 0, 1], [1, 1, 1], 1, True, [3, 3, 4]),
    ("c3d_dil_groups", 3, 1, 4, 4, [3, 2, 3], [1, 2, 2], [1, 0, 2], [0, 1, 1], [2, 1, 2], 2, False, [3, 4, 4]),
    ("c3d_depthwise_bias", 3, 2, 2, 2, [2, 2, 2], [2, 1, 3], [0, 0, 1], [1, 0, 2], [1, 2, 1], 2, True, [3, 3, 3]),
    ("c3d_kb72_like", 3, 1, 4, 4, [3, 5, 7], [2, 2, 2], [1, 2, 3], [1, 1, 1], [1, 1, 1], 2, False, [3, 4, 5]),
]

KEYS = ["name", "dims", "n", "cin", "cout", "k", "stride", "pad", "out_pad", "dil", "groups", "bias", "in"]


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(20261122)
    listing = []
    for case in CASES:
        p = dict(zip(KEYS, case))
        x = rng.uniform(-1, 1, size=[p["n"], p["cin"]] + p["in"]).astype(np.float32)
        w = rng.uniform(-1, 1, size=[p["cin"], p["cout"] // p["groups"]] + p["k"]).astype(np.float32)
        b = rng.uniform(-1, 1, size=[p["cout"]]).astype(np.float32) if p["bias"] else None
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[p["dims"]]
        y = fn(torch.from_numpy(x).double(), torch.from_numpy(w).double(),
               None if b is None else torch.from_numpy(b).double(),
               stride=p["stride"], padding=p["pad"], output_padding=p["out_pad"],
               groups=p["groups"], dilation=p["dil"]).numpy()
        base = os.path.join(outdir, p["name"])
        np.save(base + ".x.npy", x)
        np.save(base + ".w.npy", w)
        if b is not None:
            np.save(base + ".b.npy", b)
        np.save(base + ".y.npy", y.astype(np.float64))
        p["output"] = list(y.shape)
        listing.append(p)
    with open(os.path.join(outdir, "cases.json"), "w") as f:
        json.dump({"generator": "tests/golden/make_golden.py", "torch": torch.__version__,
                   "cases": listing}, f, indent=1)
    print(f"wrote {len(listing)} golden cases to {outdir}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/golden")
