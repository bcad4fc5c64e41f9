#!/usr/bin/env python3
"""convt.nn on a GPU against PyTorch (tools/gpu-run.sh CONVT_NN=1 runs it):

  1. the 17 KernelBench problems (configs/kernelbench-l1.json), each as a
     convt.nn module beside torch's with the same weights, in tf32 and fp32:
     both outputs against a float64 forward, and both times;
  2. 100 random shapes over every parameter (dims, stride, padding,
     output_padding, dilation, groups, bias; batched and unbatched inputs);
  3. whole models with every ConvTranspose swapped (convt.swap): a DCGAN
     generator and a HiFi-GAN-style upsampler, outputs against the original
     model's, end-to-end time against PyTorch's default and with
     cudnn.benchmark; the DCGAN once more with run-time tuning (each layer
     measured by convt-bench on first use).

A module passes when its normwise error against float64 is within its
tier's tolerance (tf32 2e-3, fp32 1e-5: convt-bench's). Writes a JSON report
and prints a summary; exit 1 if anything failed.

  python3 tools/check_convt_nn.py --kb-table KB.selection.json \
      --table REALISTIC.selection.json --out report.json [--tune-dir DIR]"""
import argparse
import copy
import json
import os
import random
import statistics
import sys
import time

import torch
import torch.nn.functional as F

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(root, "python"))
import convt  # noqa: E402
import convt.nn as cnn  # noqa: E402

TOL = {"tf32": 2e-3, "fp32": 1e-5}
TORCH_OF = {1: torch.nn.ConvTranspose1d, 2: torch.nn.ConvTranspose2d, 3: torch.nn.ConvTranspose3d}
CONVT_OF = {1: cnn.ConvTranspose1d, 2: cnn.ConvTranspose2d, 3: cnn.ConvTranspose3d}
FN = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def normwise(y, ref):
    return float(torch.linalg.vector_norm((y.double() - ref).flatten()) /
                 max(float(torch.linalg.vector_norm(ref.flatten())), 1e-300))


def set_tier(tier):
    torch.backends.cuda.matmul.allow_tf32 = tier == "tf32"
    torch.backends.cudnn.allow_tf32 = tier == "tf32"


def time_ms(fn, reps=10):
    fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out)


def modules(s, tier, table):
    dims = len(s["in"])
    kw = dict(in_channels=s["cin"], out_channels=s["cout"], kernel_size=tuple(s["k"]),
              stride=tuple(s.get("stride", [1] * dims)), padding=tuple(s.get("pad", [0] * dims)),
              output_padding=tuple(s.get("out_pad", [0] * dims)), groups=s.get("groups", 1),
              bias=s.get("bias", False), dilation=tuple(s.get("dil", [1] * dims)), device="cuda")
    ref_mod = TORCH_OF[dims](**kw)
    mine = CONVT_OF[dims](**kw)
    mine.load_state_dict(ref_mod.state_dict())
    mine.convt_tier, mine.convt_table = tier, table
    return ref_mod, mine, kw


def check_shape(s, tier, table, batched=True, timing=False):
    dims = len(s["in"])
    torch.manual_seed(hash(json.dumps(s, sort_keys=True)) % 2**31)
    ref_mod, mine, kw = modules(s, tier, table)
    shape = ([s["n"]] if batched else []) + [s["cin"]] + list(s["in"])
    x = torch.randn(shape, device="cuda")
    with torch.no_grad():
        ref = FN[dims](x.double(), ref_mod.weight.double(),
                       None if ref_mod.bias is None else ref_mod.bias.double(), kw["stride"],
                       kw["padding"], kw["output_padding"], kw["groups"], kw["dilation"])
        set_tier(tier)
        y_torch = ref_mod(x)
        y = mine(x)
        torch.cuda.synchronize()
        r = {"name": s.get("name", ""), "tier": tier, "batched": batched, "path": mine.last_path,
             "err": normwise(y, ref), "torch_err": normwise(y_torch, ref)}
        if mine.last_path == "libconvt":
            # an unbatched input runs as a batch of one
            p = convt.problem([s["n"] if batched else 1, s["cin"]] + list(s["in"]),
                              tuple(mine.weight.shape), bias=mine.bias is not None,
                              stride=kw["stride"], padding=kw["padding"],
                              output_padding=kw["output_padding"], groups=kw["groups"],
                              dilation=kw["dilation"])
            plan = convt.plan_for(table, p, tier)
            r["plan"] = plan.describe()
            r["rule"] = plan.rule
        if timing:
            r["torch_ms"] = time_ms(lambda: ref_mod(x))
            r["convt_ms"] = time_ms(lambda: mine(x))
        r["ok"] = y.shape == ref.shape and r["err"] <= TOL[tier] and mine.last_path == "libconvt"
    del ref, y, y_torch, x
    torch.cuda.empty_cache()
    return r


def random_shape(rng, i):
    dims = rng.choice([1, 2, 3])
    groups = rng.choice([1, 1, 2, 4])
    cin = groups * rng.randint(1, 6)
    cout = groups * rng.randint(1, 6)
    if rng.random() < 0.15:
        groups, cout = cin, cin  # depthwise
    size = {1: (8, 200), 2: (3, 40), 3: (2, 12)}[dims]
    s = {"name": f"rand{i}", "n": rng.randint(1, 4), "cin": cin, "cout": cout, "groups": groups,
         "bias": rng.random() < 0.5, "in": [], "k": [], "stride": [], "pad": [], "out_pad": [],
         "dil": []}
    for _ in range(dims):
        k, st, dl = rng.randint(1, 5), rng.randint(1, 4), rng.randint(1, 3)
        L = rng.randint(*size)
        pad = rng.randint(0, (dl * (k - 1)) // 2)
        op = rng.randint(0, max(st, dl) - 1)
        out = (L - 1) * st - 2 * pad + dl * (k - 1) + op + 1
        if out < 1:
            pad = 0
        s["in"].append(L), s["k"].append(k), s["stride"].append(st)
        s["pad"].append(pad), s["out_pad"].append(op), s["dil"].append(dl)
    return s


class DCGANGenerator(torch.nn.Module):
    def __init__(self, nz=100, ngf=64, nc=3):
        super().__init__()
        c = [nz, ngf * 8, ngf * 4, ngf * 2, ngf]
        layers = []
        for i in range(4):
            layers += [torch.nn.ConvTranspose2d(c[i], c[i + 1], 4, 1 if i == 0 else 2,
                                                0 if i == 0 else 1, bias=False),
                       torch.nn.BatchNorm2d(c[i + 1]), torch.nn.ReLU(True)]
        layers += [torch.nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), torch.nn.Tanh()]
        self.main = torch.nn.Sequential(*layers)

    def forward(self, z):
        return self.main(z)


class Upsampler(torch.nn.Module):
    """HiFi-GAN-style: mel frames to a waveform, upsampling 8x8x2x2 = 256."""

    def __init__(self, mels=80, ch=512):
        super().__init__()
        self.pre = torch.nn.Conv1d(mels, ch, 7, padding=3)
        ups = []
        for i, (k, st) in enumerate([(16, 8), (16, 8), (4, 2), (4, 2)]):
            ups += [torch.nn.LeakyReLU(0.1),
                    torch.nn.ConvTranspose1d(ch >> i, ch >> (i + 1), k, st, padding=(k - st) // 2)]
        self.ups = torch.nn.Sequential(*ups)
        self.post = torch.nn.Conv1d(ch >> 4, 1, 7, padding=3)

    def forward(self, x):
        return torch.tanh(self.post(self.ups(self.pre(x))))


def check_model(name, model, x, tier, table, tune_dir=None):
    set_tier(tier)
    model = model.cuda().eval()
    mine = convt.swap(copy.deepcopy(model), table=table, tier=tier)
    out = {"model": name, "tier": tier}
    with torch.no_grad():
        ref = model.double()(x.double())
        model.float()
        y_torch = model(x)
        t0 = time.time()
        y = mine(x)
        torch.cuda.synchronize()
        out["first_call_s"] = time.time() - t0
        paths = [m.last_path for m in mine.modules() if isinstance(m, cnn._Convt)]
        out["paths"] = paths
        out["err"] = normwise(y, ref)
        out["torch_err"] = normwise(y_torch, ref)
        out["vs_torch"] = normwise(y, y_torch.double())
        torch.backends.cudnn.benchmark = False
        out["torch_ms"] = time_ms(lambda: model(x), 20)
        torch.backends.cudnn.benchmark = True
        out["torch_benchmark_ms"] = time_ms(lambda: model(x), 20)
        torch.backends.cudnn.benchmark = False
        out["convt_ms"] = time_ms(lambda: mine(x), 20)
    out["ok"] = out["err"] <= TOL[tier] * 5 and all(p == "libconvt" for p in paths)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb-table", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tune-dir")
    a = ap.parse_args()
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    kb_table = convt.context(0).table(a.kb_table)
    table = convt.use_table(a.table, device=0)
    report["tables"] = [kb_table.describe(), table.describe()]
    print("\n".join(report["tables"]), flush=True)

    kb = json.load(open(os.path.join(root, "configs", "kernelbench-l1.json")))["shapes"]
    report["kernelbench"] = []
    for s in kb:
        for tier in ("tf32", "fp32"):
            r = check_shape(s, tier, kb_table, timing=True)
            report["kernelbench"].append(r)
            print(f"{r['name']:22} {tier} {'ok  ' if r['ok'] else 'FAIL'} err {r['err']:.1e} "
                  f"(torch {r['torch_err']:.1e}) convt {r.get('convt_ms', 0):8.3f} ms torch "
                  f"{r.get('torch_ms', 0):8.3f} ms  {r.get('plan', r['path'])}", flush=True)

    rng = random.Random(2026)
    report["random"] = []
    for i in range(100):
        s = random_shape(rng, i)
        tier = ("tf32", "fp32")[i % 2]
        r = check_shape(s, tier, table, batched=i % 10 != 9)
        r["shape"] = s
        report["random"].append(r)
        if not r["ok"]:
            print(f"random {i} {tier} FAIL err {r['err']:.1e} {r['path']} {json.dumps(s)}",
                  flush=True)
    rules = {}
    for r in report["random"]:
        rules[r.get("rule", "-")] = rules.get(r.get("rule", "-"), 0) + 1
    print(f"random shapes: {sum(r['ok'] for r in report['random'])} of 100 ok; rules {rules}",
          flush=True)

    report["models"] = []
    torch.manual_seed(0)
    dcgan, z = DCGANGenerator(), torch.randn(64, 100, 1, 1, device="cuda")
    up, mel = Upsampler(), torch.randn(4, 80, 200, device="cuda")
    for name, model, x in [("dcgan_generator", dcgan, z), ("hifigan_upsampler", up, mel)]:
        for tier in ("tf32", "fp32"):
            r = check_model(name, copy.deepcopy(model), x, tier, table)
            report["models"].append(r)
            print(f"{name} {tier}: {'ok' if r['ok'] else 'FAIL'} err {r['err']:.1e} (torch "
                  f"{r['torch_err']:.1e}, vs torch {r['vs_torch']:.1e}); convt {r['convt_ms']:.3f} "
                  f"ms, torch {r['torch_ms']:.3f} ms, torch benchmark {r['torch_benchmark_ms']:.3f} "
                  f"ms", flush=True)
    if a.tune_dir:
        os.makedirs(a.tune_dir, exist_ok=True)
        tuned = convt.context(0).table(a.table)
        tuned.enable_tuning(os.path.join(a.tune_dir, "tuned.selection.json"))
        r = check_model("dcgan_generator_tuned", copy.deepcopy(dcgan), z, "tf32", tuned)
        report["models"].append(r)
        print(f"dcgan tuned tf32: {'ok' if r['ok'] else 'FAIL'} first call {r['first_call_s']:.1f} s "
              f"(tuning); convt {r['convt_ms']:.3f} ms, torch {r['torch_ms']:.3f} ms, torch "
              f"benchmark {r['torch_benchmark_ms']:.3f} ms", flush=True)
    json.dump(report, open(a.out, "w"), indent=1)
    bad = [r for r in report["kernelbench"] + report["random"] + report["models"] if not r["ok"]]
    print(f"convt.nn: {len(bad)} failed of {len(report['kernelbench']) + 100 + len(report['models'])}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
