#!/usr/bin/env python3
"""PyTorch's own ConvTranspose1d/2d/3d on the shapes of a convt-bench sweep
config, measured the way convt-bench measures its variants and written as a
convt-bench results file (schema 2), so that `convt-bench merge` can join it
with a convt-bench run of the same config on the same GPU.

Synopsis: tools/torch_baseline.py CONFIG --out FILE [--shapes NAME,...]
            [--variants NAME,...] [--device cuda:N] [--seed N] [--no-hold]
            [--dry-run] [--quiet]

What runs
  Three variants per shape, each one record (launch {}, launch_key "-",
  deterministic false: cuDNN makes no promise):
    torch_fp32            tier fp32: cuDNN conv and cuBLAS matmul TF32 off,
                          cudnn.benchmark off (cuDNN's heuristic choice)
    torch_tf32            tier tf32: TF32 on (PyTorch's default for cuDNN
                          convolutions), cudnn.benchmark off
    torch_tf32_benchmark  tier tf32: TF32 on, cudnn.benchmark on; cuDNN's
                          autotuning runs in the first call, which is timed
                          with the wall clock and recorded as prepare_ms
  The module is nn.ConvTranspose{1,2,3}d(cin, cout, k, stride, padding,
  output_padding, groups, bias, dilation), float32 on the GPU, called under
  torch.no_grad(). TF32 is set with the fp32_precision API where PyTorch has
  it (2.9 and later: torch.backends.cudnn.conv.fp32_precision and
  torch.backends.cuda.matmul.fp32_precision, "ieee" or "tf32"; mixing it with
  the legacy allow_tf32 flags makes PyTorch raise), else with
  torch.backends.cudnn.allow_tf32 and torch.backends.cuda.matmul.allow_tf32.
  Each variant runs on a thread of its own: PyTorch keeps cuDNN's chosen
  plans per thread and per (shape, TF32, determinism), not per benchmark
  flag, so on one thread torch_tf32_benchmark would reuse torch_tf32's
  heuristic plan (or the other way round) and never autotune. The record's
  "detail" names the convolution backend PyTorch picks (e.g. CudnnTranspose).

Inputs (seeding)
  x, weight and bias are uniform in [-1, 1), drawn on the GPU by
  torch.Generator(device).manual_seed(s) with
  s = mix64(mix64(mix64(seed) ^ shape_index) ^ tensor), tensor 1 = x,
  2 = weight, 3 = bias, mix64 = splitmix64's finaliser: convt-bench's own
  derivation for trial 0, but drawn by PyTorch's generator, so the values
  differ from convt-bench's. shape_index counts the config's shapes (shapes,
  then sweeps, then random) from 0, before --shapes selects some.

Validation (per tier, like convt-bench's)
  The reference is the same convolution in float64 on the GPU
  (torch.nn.functional.conv_transpose{d}d on x, weight, bias in float64), and
  the magnitude of each output the same convolution of |x|, |weight|, |bias|
  (the sum of the magnitudes of the element's terms). Element i passes when
  |y_i - ref_i| <= atol + rtol * mag_i; the output passes when every element
  passes, none is NaN or infinite, and ||y - ref|| / ||ref|| <= normwise.
  Tolerances come from the config's validation.tolerance, defaults fp32 rtol
  1e-5, atol 1e-6, normwise 1e-5; tf32 rtol 2e-3, atol 1e-6, normwise 2e-3.
  One trial (validation.trials is not honoured); reference "gpu_f64_torch".
  Status: ok; wrong (with the error figures); failed (PyTorch raised, e.g.
  out of memory: recorded, the cache emptied, the sweep goes on); skipped
  (the shape's tensors and float64 reference clearly do not fit in free
  memory).

Timing (convt-bench's measure.c, as far as Python allows)
  CUDA events around each sample; for cache "cold" a buffer of twice the L2
  size is written before every sample, outside the events. The stream is
  held by torch.cuda._sleep (a spinning kernel of a calibrated length) while
  the sample's launches and its stop event are enqueued, so the events
  bracket GPU work only (method "cuda_events_torch_held"); a sample whose
  enqueueing outlasted 80% of the hold is thrown away and the hold
  lengthened; when three longer holds in a row (or one of 200 ms) do not
  suffice (a call that waits for the GPU inside, as some cuDNN algorithms
  do), the run is timed unheld from then on (method "cuda_events_torch": its
  samples include the host's time in the calls), as with --no-hold.
  convt-bench does the same with a hold released by a flag.
  Samples come in measure.rounds rounds (default 4): every variant of a
  shape gets round r before any gets round r+1, and between rounds x, weight
  and bias move to newly allocated memory (the output comes from PyTorch's
  caching allocator). Each round: warm-up (measure.warmup launches in the
  first round, one in later ones), then samples until its share of
  min_samples and min_time_s is reached and its own noise (IQR / 1.349 /
  median of its last 64 samples) is at most target_noise, or its share of
  max_samples or max_time_s is spent. A launch shorter than
  measure.batch_below_us (median of 5 probe launches; 3 at or above the
  line decide it) is timed in batches of back-to-back launches (a power of
  two, at most 128, about 200 us a sample)
  and each sample divided by the batch: samples_ms hold per-launch times and
  launches_per_sample the batch. The statistics are convt-bench's: median
  over all samples; noise = sqrt(noise_within^2 + noise_between^2), within =
  IQR of the samples' deviations from their round's median / 1.349 /
  median, between = stddev of the round medians / median. No clock probe
  runs, so there is no noise_drift (convt-bench adds one to its records).
  Ceilings (for floor_ms): a 1 GiB device-to-device copy (read + write
  bytes, median of 7) and torch.mm of 8192x8192 float32, TF32 off (fp32) and
  on (tf32), median of 5, measured in the same process.

Output
  A convt-bench results document (schema 2, tool "convt-bench
  torch_baseline"), rewritten atomically (temporary file + rename) after
  every shape; one progress line per record on stderr; a table on stdout.

Options
  --out FILE         the results file (required unless --dry-run)
  --shapes A,B       only the shapes with these names
  --variants A,B     only these variants (default: all three)
  --device cuda:N    the GPU (default cuda:0)
  --seed N           replaces the config's seed
  --no-hold          time without holding the stream (host time included)
  --dry-run          print the shapes with their keys and exit (no PyTorch)
  --quiet            no progress lines

Exit status: 0 every record ok or skipped; 1 some record failed or wrong;
2 bad command line or config (nothing ran); 3 cannot run: PyTorch missing or
without CUDA, no such device, results not writable, or the CUDA context lost.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

TOOL = "convt-bench torch_baseline"
SCHEMA = 3  # convt-bench's CONVT_RESULTS_SCHEMA (src/tool/results.h)
PROG = "torch_baseline"

EXIT_OK, EXIT_BAD_RUNS, EXIT_USAGE, EXIT_FATAL = 0, 1, 2, 3

# (name, tier, tf32, cudnn.benchmark)
VARIANTS = (
    ("torch_fp32", "fp32", False, False),
    ("torch_tf32", "tf32", True, False),
    ("torch_tf32_benchmark", "tf32", True, True),
)
VARIANT_NAMES = tuple(v[0] for v in VARIANTS)

MAX_SHAPES = 100000
MAX_ROUNDS = 16
MAX_ELEMS = 1 << 40
M64 = (1 << 64) - 1

# ----------------------------------------------------------------------------
# seeds (src/lib/hostdevice.h convt_mix64, src/tool/driver.c tensor_seed)


def mix64(z: int) -> int:
    """splitmix64's finaliser, as convt_mix64."""
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def tensor_seed(seed: int, shape_index: int, tensor: int, trial: int = 0) -> int:
    """convt-bench's seed of (config seed, shape, trial, tensor): 1 x, 2 w, 3 b."""
    return mix64(mix64(mix64(seed & M64) ^ shape_index) ^ ((trial * 31 + tensor) & M64))


# ----------------------------------------------------------------------------
# the problem (src/lib/problem.c)


@dataclass
class Problem:
    name: str
    dims: int
    n: int
    cin: int
    cout: int
    groups: int = 1
    bias: bool = False
    in_: tuple = ()
    k: tuple = ()
    stride: tuple = ()
    pad: tuple = ()
    out_pad: tuple = ()
    dil: tuple = ()


def problem_default(dims: int) -> Problem:
    return Problem(name="", dims=dims, n=0, cin=0, cout=0, groups=1, bias=False,
                   in_=(0,) * dims, k=(0,) * dims, stride=(1,) * dims, pad=(0,) * dims,
                   out_pad=(0,) * dims, dil=(1,) * dims)


def out_size(p: Problem, d: int) -> int:
    return ((p.in_[d] - 1) * p.stride[d] - 2 * p.pad[d] + p.dil[d] * (p.k[d] - 1) +
            p.out_pad[d] + 1)


def _prod(v) -> int:
    r = 1
    for x in v:
        r *= x
    return r


def out_dims(p: Problem) -> tuple:
    return tuple(out_size(p, d) for d in range(p.dims))


def x_elems(p: Problem) -> int:
    return p.n * p.cin * _prod(p.in_)


def w_elems(p: Problem) -> int:
    return p.cin * (p.cout // p.groups) * _prod(p.k)


def b_elems(p: Problem) -> int:
    return p.cout if p.bias else 0


def y_elems(p: Problem) -> int:
    return p.n * p.cout * _prod(out_dims(p))


def flops(p: Problem) -> float:
    """Nominal FLOPs 2*N*C_in*(C_out/groups)*prod(K)*prod(L_in), in convt_flops's order."""
    return (2.0 * float(p.n) * float(p.cin) * float(p.cout // p.groups) * float(_prod(p.k)) *
            float(_prod(p.in_)))


def min_bytes(p: Problem) -> float:
    """4*(x + w + b + y): each tensor touched once (convt_min_bytes)."""
    return 4.0 * (float(x_elems(p)) + float(w_elems(p)) + float(b_elems(p)) + float(y_elems(p)))


def problem_check(p: Problem) -> Optional[str]:
    """None when p obeys PyTorch's rules, else convt_problem_check's sentence."""
    if p.dims < 1 or p.dims > 3:
        return f"dims = {p.dims} must be 1, 2 or 3"
    if p.n < 1:
        return f"n = {p.n} must be at least 1"
    if p.cin < 1:
        return f"cin = {p.cin} must be at least 1"
    if p.cout < 1:
        return f"cout = {p.cout} must be at least 1"
    if p.groups < 1:
        return f"groups = {p.groups} must be at least 1"
    if p.cin % p.groups:
        return f"groups = {p.groups} must divide cin = {p.cin}"
    if p.cout % p.groups:
        return f"groups = {p.groups} must divide cout = {p.cout}"
    lim = 1 << 30
    for d in range(p.dims):
        if p.in_[d] < 1:
            return f"in[{d}] = {p.in_[d]} must be at least 1"
        if p.k[d] < 1:
            return f"k[{d}] = {p.k[d]} must be at least 1"
        if p.stride[d] < 1:
            return f"stride[{d}] = {p.stride[d]} must be at least 1"
        if p.dil[d] < 1:
            return f"dil[{d}] = {p.dil[d]} must be at least 1"
        if p.pad[d] < 0:
            return f"pad[{d}] = {p.pad[d]} must not be negative"
        if p.out_pad[d] < 0:
            return f"out_pad[{d}] = {p.out_pad[d]} must not be negative"
        if p.out_pad[d] >= p.stride[d] and p.out_pad[d] >= p.dil[d]:
            return (f"out_pad[{d}] = {p.out_pad[d]} must be smaller than stride[{d}] = "
                    f"{p.stride[d]} or dil[{d}] = {p.dil[d]}")
        if p.in_[d] > lim or p.k[d] > lim or p.stride[d] > lim or p.dil[d] > lim or p.pad[d] > lim:
            return f"dimension {d} has a size above 2^30 (in, k, stride, dil or pad)"
        if out_size(p, d) < 1:
            return (f"output size along dimension {d} is {out_size(p, d)} (from in[{d}], stride, "
                    f"pad, dil, k, out_pad); it must be at least 1")
    pad3 = lambda v: tuple(v) + (1,) * (3 - p.dims)  # noqa: E731
    xs = (p.n, p.cin) + pad3(p.in_)
    ys = (p.n, p.cout) + pad3(out_dims(p))
    ws = (p.cin, p.cout // p.groups) + pad3(p.k)
    for what, f in (("input", xs), ("output", ys), ("weight", ws)):
        r = 1
        for v in f:
            if v > MAX_ELEMS // r:
                return f"the {what} has more than 2^40 elements"
            r *= v
    return None


def problem_key(p: Problem) -> str:
    """convt_problem_key: e.g. 2d_n8_ci64_co64_g1_k3x3_s1x1_p0x0_op0x0_d1x1_in1024x1024_nb."""
    def part(tag, v):
        return "_" + tag + "x".join(str(int(x)) for x in v)
    return (f"{p.dims}d_n{p.n}_ci{p.cin}_co{p.cout}_g{p.groups}" + part("k", p.k) +
            part("s", p.stride) + part("p", p.pad) + part("op", p.out_pad) + part("d", p.dil) +
            part("in", p.in_) + ("_b" if p.bias else "_nb"))


def problem_to_json(p: Problem) -> dict:
    """convt_problem_to_json: the shape in the config's vocabulary plus key and output."""
    return {
        "name": p.name,
        "key": problem_key(p),
        "dims": p.dims,
        "n": p.n,
        "cin": p.cin,
        "cout": p.cout,
        "groups": p.groups,
        "bias": bool(p.bias),
        "in": list(p.in_),
        "k": list(p.k),
        "stride": list(p.stride),
        "pad": list(p.pad),
        "out_pad": list(p.out_pad),
        "dil": list(p.dil),
        "output": [p.n, p.cout] + list(out_dims(p)),
        "gflop": flops(p) / 1e9,
        "min_gb": min_bytes(p) / 1e9,
    }


# ----------------------------------------------------------------------------
# the config (src/tool/sweep_config.c): the parts this tool uses, with the same
# defaults, checks and messages ("FILE: JSON path: what")


class ConfigError(Exception):
    pass


class _Obj(dict):
    """A JSON object that remembers its keys in order, duplicates included."""
    keys_in_order: list


def _object_pairs(pairs):
    o = _Obj(pairs)
    o.keys_in_order = [k for k, _ in pairs]
    return o


def _obj_keys(o: dict) -> list:
    return getattr(o, "keys_in_order", list(o.keys()))


def _bad_constant(name):
    raise ValueError(f"{name} is not JSON")


_MISSING = object()
_SHAPE_KEYS = ("name", "dims", "n", "cin", "cout", "groups", "bias", "in", "k", "stride", "pad",
               "out_pad", "dil")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _describe(v) -> str:
    if v is _MISSING:
        return "nothing"
    if isinstance(v, str):
        return f'the string "{v[:40]}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if _is_number(v):
        try:
            return format(float(v), ".17g")
        except OverflowError:
            return str(v)
    if v is None:
        return "null"
    if isinstance(v, list):
        return "an array"
    return "an object"


def _cjson_print(v) -> str:
    """cJSON_PrintUnformatted of a value (sweep labels)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if _is_number(v):
        d = float(v)
        if math.isnan(d) or math.isinf(d):
            return "null"
        vi = 2147483647 if d >= 2147483647 else -2147483648 if d <= -2147483648 else int(d)
        if d == float(vi):
            return str(vi)
        s = "%1.15g" % d
        return s if float(s) == d else "%1.17g" % d
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(_cjson_print(x) for x in v) + "]"
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _cjson_print(x)
                          for k, x in v.items()) + "}"


def _c_truncate(s: str, size: int) -> str:
    """What snprintf into a char[size] keeps of s."""
    b = s.encode()
    return b[:size - 1].decode(errors="ignore") if len(b) >= size else s


class _Walker:
    def __init__(self, file: str):
        self.file = file
        self.path = ""

    def fail(self, what: str):
        raise ConfigError(f"{self.file}: {self.path or '(top level)'}: {what}")

    def expected(self, v, what: str):
        self.fail(f"expected {what}, got {_describe(v)}")

    def push_key(self, key: str) -> str:
        saved = self.path
        self.path = f"{saved}.{key}" if saved else key
        return saved

    def push_index(self, i: int) -> str:
        saved = self.path
        self.path = f"{saved}[{i}]"
        return saved

    def pop(self, saved: str):
        self.path = saved

    def check_keys(self, obj: dict, allowed):
        keys = _obj_keys(obj)
        for i, k in enumerate(keys):
            if k not in allowed:
                self.fail(f'unknown key "{k}" (allowed here: {", ".join(allowed)})')
            if k in keys[:i]:
                self.fail(f'key "{k}" appears twice')

    def as_int(self, v, lo: int, hi: Optional[int]) -> int:
        what = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi}]"
        if not _is_number(v):
            self.expected(v, what)
        try:
            f = float(v)
        except OverflowError:
            self.expected(v, what)
        if (math.isnan(f) or f != math.floor(f) or f < lo or (hi is not None and f > hi) or
                abs(f) > 9007199254740992.0):
            self.expected(v, what)
        return int(f)

    def get_int(self, obj: dict, key: str, lo: int, hi: Optional[int], default):
        if key not in obj:
            return default
        s = self.push_key(key)
        r = self.as_int(obj[key], lo, hi)
        self.pop(s)
        return r

    def get_double(self, obj: dict, key: str, lo: float, hi: float, lo_open: bool, default):
        if key not in obj:
            return default
        s = self.push_key(key)
        v = obj[key]
        ok = _is_number(v) and (float(v) > lo if lo_open else float(v) >= lo) and float(v) <= hi
        if not ok:
            self.expected(v, f"a number {'>' if lo_open else '>='} {lo:g} and <= {hi:g}")
        self.pop(s)
        return float(v)

    def get_seed(self, obj: dict, key: str, default):
        """A seed as convt-bench reads it: an integer up to 2**53 - 1, or a
        decimal string for the full 64 bits."""
        if key not in obj:
            return default
        s = self.push_key(key)
        v = obj[key]
        if isinstance(v, str) and v.isdigit() and (v == "0" or v[0] != "0") and int(v) < 2**64:
            r = int(v)
        else:
            r = self.as_int(v, 0, 2**53 - 1)
        self.pop(s)
        return r

    def get_string(self, obj: dict, key: str, default):
        if key not in obj:
            return default
        s = self.push_key(key)
        v = obj[key]
        if not isinstance(v, str) or not v:
            self.expected(v, "a non-empty string")
        self.pop(s)
        return v

    def get_object(self, obj: dict, key: str):
        if key not in obj:
            return None
        v = obj[key]
        if not isinstance(v, dict):
            s = self.push_key(key)
            self.expected(v, "an object")
            self.pop(s)
        return v

    def require(self, obj: dict, key: str):
        if key not in obj:
            self.fail(f'missing required key "{key}"')


def _get_per_dim(w: _Walker, obj: dict, key: str, dims: int, lo: int, default: tuple) -> tuple:
    if key not in obj:
        return default
    v = obj[key]
    s = w.push_key(key)
    if isinstance(v, list):
        if len(v) != dims:
            w.fail(f"expected {dims} value{'' if dims == 1 else 's'} (one per spatial dimension), "
                   f"got {len(v)}")
        out = []
        for i, c in enumerate(v):
            s2 = w.push_index(i)
            out.append(w.as_int(c, lo, None))
            w.pop(s2)
        r = tuple(out)
    elif _is_number(v):
        r = (w.as_int(v, lo, None),) * dims
    else:
        w.expected(v, f"an integer or an array of {dims} integers")
    w.pop(s)
    return r


def parse_shape(w: _Walker, obj, default_name: str) -> Problem:
    """parse_shape of sweep_config.c."""
    if not isinstance(obj, dict):
        w.expected(obj, "a shape object")
    w.check_keys(obj, _SHAPE_KEYS)
    for k in ("n", "cin", "cout", "in", "k"):
        w.require(obj, k)
    in_v = obj.get("in")
    dims = len(in_v) if isinstance(in_v, list) else 0
    if "dims" in obj:
        s = w.push_key("dims")
        given = w.as_int(obj["dims"], 1, 3)
        w.pop(s)
        if dims and dims != given:
            w.push_key("in")
            w.fail(f"has {dims} values but dims is {given}")
        dims = given
    elif not dims or dims > 3:
        w.push_key("in")
        w.expected(in_v, 'an array of 1 to 3 sizes (or give "dims")')
    p = problem_default(dims)
    p.name = _c_truncate(w.get_string(obj, "name", default_name), 64)
    if "bias" in obj:
        if not isinstance(obj["bias"], bool):
            w.push_key("bias")
            w.expected(obj["bias"], "true or false")
        p.bias = obj["bias"]
    p.n = w.get_int(obj, "n", 1, None, p.n)
    p.cin = w.get_int(obj, "cin", 1, None, p.cin)
    p.cout = w.get_int(obj, "cout", 1, None, p.cout)
    p.groups = w.get_int(obj, "groups", 1, None, p.groups)
    p.in_ = _get_per_dim(w, obj, "in", dims, 1, p.in_)
    p.k = _get_per_dim(w, obj, "k", dims, 1, p.k)
    p.stride = _get_per_dim(w, obj, "stride", dims, 1, p.stride)
    p.pad = _get_per_dim(w, obj, "pad", dims, 0, p.pad)
    p.out_pad = _get_per_dim(w, obj, "out_pad", dims, 0, p.out_pad)
    p.dil = _get_per_dim(w, obj, "dil", dims, 1, p.dil)
    why = problem_check(p)
    if why:
        w.fail(why)
    return p


def _add_shape(w: _Walker, shapes: list, p: Problem):
    if len(shapes) >= MAX_SHAPES:
        w.fail(f"the config expands to more than {MAX_SHAPES} shapes")
    shapes.append(p)


def _parse_sweep(w: _Walker, sw, shapes: list):
    if not isinstance(sw, dict):
        w.expected(sw, 'a sweep object with "base" and "axes"')
    w.check_keys(sw, ("name", "base", "axes"))
    w.require(sw, "base")
    w.require(sw, "axes")
    name = w.get_string(sw, "name", "sweep")
    base = w.get_object(sw, "base")
    axes = w.get_object(sw, "axes")
    names, values = [], []
    s = w.push_key("axes")
    for a in _obj_keys(axes):
        s2 = w.push_key(a)
        v = axes[a]
        if a not in _SHAPE_KEYS[2:]:
            w.fail("not a shape parameter an axis can vary (use n, cin, cout, groups, bias, in, "
                   "k, stride, pad, out_pad or dil)")
        elif not isinstance(v, list) or not v:
            w.expected(v, "a non-empty array of values")
        elif len(names) == 16:
            w.fail("more than 16 axes")
        w.pop(s2)
        names.append(a)
        values.append(v)
    w.pop(s)
    w.check_keys(axes, _SHAPE_KEYS)
    at = [0] * len(names)
    while True:
        keys = [k for k in _obj_keys(base) if k not in names and k != "name"]
        shape = _Obj((k, base[k]) for k in keys)
        labels = []
        for i, a in enumerate(names):
            shape[a] = values[i][at[i]]
            keys.append(a)
            labels.append(f"{a}={_cjson_print(values[i][at[i]])}")
        shape.keys_in_order = keys
        label = _c_truncate(", ".join(labels), 256)
        sname = _c_truncate(f"{name}[{label}]", 64)
        saved = w.path
        w.path = f"{saved} ({label})"
        _add_shape(w, shapes, parse_shape(w, shape, sname))
        w.path = saved
        i = len(names) - 1
        while i >= 0:
            at[i] += 1
            if at[i] < len(values[i]):
                break
            at[i] = 0
            i -= 1
        if i < 0:
            return


def random_problem(seed: int, i: int, dims_mask: int = 7, max_output_elems: int = 1 << 20,
                   max_channels: int = 16) -> Problem:
    """convt_random_problem (src/lib/shape_random.c), bit for bit."""
    state = mix64(seed & M64) ^ mix64((i * 0x9E3779B97F4A7C15 + 1) & M64)

    def pick(lo, hi):
        nonlocal state
        state = mix64(state)
        return lo + state % (hi - lo + 1)

    attempt = 0
    while True:
        while True:
            dims = pick(1, 3)
            if dims_mask & (1 << (dims - 1)):
                break
        p = problem_default(dims)
        p.n = pick(1, 3)
        cmax = max_channels if max_channels > 0 else 16
        if pick(0, 4) == 0:
            p.cin = pick(1, cmax)
            p.cout = p.cin * pick(1, 2)
            if p.cout > cmax:
                p.cout = p.cin
            p.groups = p.cin
        else:
            p.cin = pick(1, cmax)
            p.cout = pick(1, cmax)
            options = [g for g in range(1, min(p.cin, p.cout) + 1)
                       if p.cin % g == 0 and p.cout % g == 0][:64]
            p.groups = options[pick(0, len(options) - 1)]
        p.bias = bool(pick(0, 1))
        max_in = 40 if dims == 1 else 12 if dims == 2 else 6
        in_, k, stride, dil, pad, out_pad = [], [], [], [], [], []
        for _ in range(dims):
            in_.append(pick(1, max_in))
            k.append(pick(1, 3 if dims == 3 else 5))
            stride.append(pick(1, 4))
            dil.append(pick(1, 3))
            reach = dil[-1] * (k[-1] - 1)
            pad.append(pick(0, reach // 2 + 1))
            op_limit = max(stride[-1], dil[-1]) - 1
            out_pad.append(pick(0, op_limit) if op_limit > 0 and pick(0, 2) == 0 else 0)
        p.in_, p.k, p.stride, p.dil = tuple(in_), tuple(k), tuple(stride), tuple(dil)
        p.pad, p.out_pad = tuple(pad), tuple(out_pad)
        ok = problem_check(p) is None
        if ok and not (max_output_elems > 0 and y_elems(p) > max_output_elems and attempt < 1000):
            p.name = f"random{i}"
            return p
        attempt += 1


def _parse_random(w: _Walker, obj, shapes: list):
    s = w.push_key("random")
    if not isinstance(obj, dict):
        w.expected(obj, "an object")
    w.check_keys(obj, ("count", "seed", "dims", "max_output_elems", "max_channels"))
    w.require(obj, "count")
    count = w.get_int(obj, "count", 1, MAX_SHAPES, 0)
    seed = w.get_seed(obj, "seed", 1)
    max_out = w.get_int(obj, "max_output_elems", 1, None, 1 << 20)
    max_ch = w.get_int(obj, "max_channels", 1, 4096, 16)
    mask = 7
    if "dims" in obj:
        dims = obj["dims"]
        s2 = w.push_key("dims")
        if not isinstance(dims, list) or not dims:
            w.expected(dims, "a non-empty array of 1, 2 or 3")
        mask = 0
        for i, c in enumerate(dims):
            s3 = w.push_index(i)
            mask |= 1 << (w.as_int(c, 1, 3) - 1)
            w.pop(s3)
        w.pop(s2)
    for i in range(count):
        _add_shape(w, shapes, random_problem(seed, i, mask, max_out, max_ch))
    w.pop(s)


@dataclass
class MeasureSettings:
    """convt_measure_settings with convt_config_init's defaults."""
    warmup: int = 3
    min_samples: int = 5
    max_samples: int = 200
    min_time_s: float = 0.0
    max_time_s: float = 1.0
    target_noise: float = 0.005
    cold_cache: bool = True
    hang_timeout_s: float = 120.0
    batch_below_us: float = 20.0
    rounds: int = 4
    # Read and checked as convt-bench does; it prunes nothing here: each
    # PyTorch variant has one launch per shape, and prune compares the
    # launches of one variant only.
    prune: float = 0.0


def _parse_measure(w: _Walker, obj) -> MeasureSettings:
    m = MeasureSettings()
    s = w.push_key("measure")
    if not isinstance(obj, dict):
        w.expected(obj, "an object")
    m.warmup = w.get_int(obj, "warmup", 0, 10000, m.warmup)
    m.min_samples = w.get_int(obj, "min_samples", 1, 100000, m.min_samples)
    m.max_samples = w.get_int(obj, "max_samples", 1, 1000000, m.max_samples)
    m.min_time_s = w.get_double(obj, "min_time_s", 0, 3600, False, m.min_time_s)
    m.max_time_s = w.get_double(obj, "max_time_s", 0, 3600, True, m.max_time_s)
    m.target_noise = w.get_double(obj, "target_noise", 0, 1, True, m.target_noise)
    m.hang_timeout_s = w.get_double(obj, "hang_timeout_s", 0, 86400, True, m.hang_timeout_s)
    m.batch_below_us = w.get_double(obj, "batch_below_us", 0, 1e6, False, m.batch_below_us)
    m.rounds = w.get_int(obj, "rounds", 1, MAX_ROUNDS, m.rounds)
    m.prune = w.get_double(obj, "prune", 0, 1e6, False, m.prune)
    cache = w.get_string(obj, "cache", None)
    # in convt-bench's order, so that a file with several errors reads the same
    if m.prune != 0 and m.prune < 1:
        w.push_key("prune")
        w.fail(f"expected 0 (off) or a factor >= 1, got {m.prune:g}: below 1 every launch, "
               "the fastest too, would stop after its first round")
    if m.prune > 0 and m.rounds < 2:
        w.push_key("prune")
        w.fail(f"prunes after the first round, and rounds = {m.rounds} leaves none after it; "
               "set rounds >= 2 or drop prune")
    if m.max_samples < m.min_samples:
        w.push_key("max_samples")
        w.fail(f"{m.max_samples} is below min_samples = {m.min_samples}")
    if cache is not None:
        if cache not in ("cold", "warm"):
            w.push_key("cache")
            w.fail(f'expected "cold" or "warm", got "{cache}"')
        m.cold_cache = cache == "cold"
    w.pop(s)
    return m


DEFAULT_TOLERANCE = {
    "fp32": {"rtol": 1e-5, "atol": 1e-6, "normwise": 1e-5},
    "tf32": {"rtol": 2e-3, "atol": 1e-6, "normwise": 2e-3},
}


def _parse_validation(w: _Walker, obj) -> dict:
    tol = {t: dict(v) for t, v in DEFAULT_TOLERANCE.items()}
    s = w.push_key("validation")
    if not isinstance(obj, dict):
        w.expected(obj, "an object")
    t = w.get_object(obj, "tolerance")
    if t is not None:
        s2 = w.push_key("tolerance")
        w.check_keys(t, ("fp32", "tf32"))
        for tier in _obj_keys(t):
            s3 = w.push_key(tier)
            tt = t[tier]
            if not isinstance(tt, dict):
                w.expected(tt, "an object")
            w.check_keys(tt, ("rtol", "atol", "normwise"))
            tol[tier]["rtol"] = w.get_double(tt, "rtol", 0, 1, False, tol[tier]["rtol"])
            tol[tier]["atol"] = w.get_double(tt, "atol", 0, 1e30, False, tol[tier]["atol"])
            tol[tier]["normwise"] = w.get_double(tt, "normwise", 0, 1, False,
                                                 tol[tier]["normwise"])
            w.pop(s3)
        w.pop(s2)
    w.pop(s)
    return tol


@dataclass
class Config:
    path: str
    json: Any
    seed: int
    measure: MeasureSettings
    tolerance: dict
    shapes: list


def parse_config(text: str, path: str) -> Config:
    """The config as convt-bench reads it, as far as this tool uses it. Keys it
    does not use are ignored (convt-bench checks them); every shape is checked
    as convt-bench checks it. Raises ConfigError("FILE: PATH: what")."""
    if not text.strip(" \t\r\n"):
        raise ConfigError(f"{path}: the file is empty; expected a JSON object")
    try:
        root = json.loads(text, object_pairs_hook=_object_pairs, parse_constant=_bad_constant)
    except ValueError as e:
        line, col = getattr(e, "lineno", 1), getattr(e, "colno", 1)
        near = text[getattr(e, "pos", 0):][:20].splitlines()[0] if text else ""
        raise ConfigError(f'{path}:{line}:{col}: not valid JSON, near "{near}"') from None
    w = _Walker(path)
    if not isinstance(root, dict):
        w.expected(root, "a JSON object at the top level")
    seed = w.get_seed(root, "seed", 1)
    measure = MeasureSettings()
    if "measure" in root:
        measure = _parse_measure(w, root["measure"])
    tolerance = {t: dict(v) for t, v in DEFAULT_TOLERANCE.items()}
    if "validation" in root:
        tolerance = _parse_validation(w, root["validation"])
    shapes: list = []
    if "shapes" in root:
        s = w.push_key("shapes")
        arr = root["shapes"]
        if not isinstance(arr, list):
            w.expected(arr, "an array of shape objects")
        for i, c in enumerate(arr):
            s2 = w.push_index(i)
            _add_shape(w, shapes, parse_shape(w, c, f"shape{i}"))
            w.pop(s2)
        w.pop(s)
    if "sweeps" in root:
        s = w.push_key("sweeps")
        arr = root["sweeps"]
        if not isinstance(arr, list):
            w.expected(arr, "an array of sweep objects")
        for i, c in enumerate(arr):
            s2 = w.push_index(i)
            _parse_sweep(w, c, shapes)
            w.pop(s2)
        w.pop(s)
    if "random" in root:
        _parse_random(w, root["random"], shapes)
    if not shapes:
        w.fail('no shapes: give "shapes", "sweeps" or "random" (a non-empty list)')
    return Config(path=path, json=root, seed=seed, measure=measure, tolerance=tolerance,
                  shapes=shapes)


def load_config(path: str) -> Config:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    return parse_config(text, path)


# ----------------------------------------------------------------------------
# statistics (src/tool/measure.c), pure functions of lists of floats


def median_sorted(v) -> float:
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def quantile_sorted(v, q: float) -> float:
    """Linear interpolation between order statistics (NumPy's default)."""
    n = len(v)
    pos = q * (n - 1)
    lo = int(pos)
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) if lo + 1 < n else v[lo]


def robust_sigma_sorted(v) -> float:
    """Interquartile range / 1.349: the stddev for Gaussian noise."""
    return (quantile_sorted(v, 0.75) - quantile_sorted(v, 0.25)) / 1.349


def _moments(v) -> tuple:
    """(mean, sample stddev, min, max), summed in the order given (as measure.c)."""
    total = 0.0
    for x in v:
        total += x
    mean = total / len(v)
    ss = 0.0
    for x in v:
        ss += (x - mean) * (x - mean)
    sd = math.sqrt(ss / (len(v) - 1)) if len(v) > 1 else 0.0
    return mean, sd, min(v), max(v)


def noise_total(within: float, between: float, drift: float = 0.0) -> float:
    return math.sqrt(within * within + between * between + drift * drift)


def timing_from_samples(samples) -> dict:
    """One round's statistics (convt_timing_from_samples): noise = noise_within."""
    n = len(samples)
    if n == 0:
        nan, inf = float("nan"), float("inf")
        return {"samples": 0, "median_ms": nan, "min_ms": nan, "max_ms": nan, "mean_ms": nan,
                "stddev_ms": nan, "noise": inf, "noise_within": inf, "noise_between": 0.0}
    v = sorted(samples)
    mean, sd, lo, hi = _moments(v)
    med = median_sorted(v)
    noise = robust_sigma_sorted(v) / med if med > 0 else 0.0
    return {"samples": n, "median_ms": med, "min_ms": lo, "max_ms": hi, "mean_ms": mean,
            "stddev_ms": sd, "noise": noise, "noise_within": noise, "noise_between": 0.0}


def timing_from_rounds(rounds) -> dict:
    """convt_sampling_finish's statistics of per-launch samples by round:
    median over all; noise_within = IQR of each sample's deviation from its
    round's median / 1.349 / median; noise_between = stddev of the round
    medians / median; noise = sqrt(within^2 + between^2)."""
    rounds = [list(r) for r in rounds]
    if any(len(r) == 0 for r in rounds):
        raise ValueError("every round has at least one sample")
    allv = [x for r in rounds for x in r]
    if not allv:
        t = timing_from_samples([])
        t.update(rounds=0, round_median_ms=[])
        return t
    medians, dev, msum = [], [], 0.0
    for r in rounds:
        m = median_sorted(sorted(r))
        medians.append(m)
        msum += m
        dev.extend(x - m for x in r)
    allv.sort()
    mean, sd, lo, hi = _moments(allv)
    med = median_sorted(allv)
    dev.sort()
    within = robust_sigma_sorted(dev) / med if med > 0 else 0.0
    between = 0.0
    if len(rounds) > 1:
        rmean = msum / len(rounds)
        ss = 0.0
        for m in medians:
            ss += (m - rmean) * (m - rmean)
        between = math.sqrt(ss / (len(rounds) - 1))
    nb = between / med if med > 0 else 0.0
    return {"samples": len(allv), "median_ms": med, "min_ms": lo, "max_ms": hi, "mean_ms": mean,
            "stddev_ms": sd, "noise": noise_total(within, nb), "noise_within": within,
            "noise_between": nb, "rounds": len(rounds), "round_median_ms": medians}


BATCH_SAMPLE_US, BATCH_MAX, BATCH_PROBES = 200, 128, 5


def batch_size(probe_ms, batch_below_us: float) -> int:
    """Launches per sample from the probe launches' times (probe_batch): 1, or
    for a median under batch_below_us the power of two that makes a sample
    last about 200 us, at most 128."""
    if batch_below_us <= 0 or not probe_ms:
        return 1
    us = median_sorted(sorted(probe_ms)) * 1e3
    b = 1
    if us < batch_below_us:
        want = BATCH_SAMPLE_US / (us if us > 0.1 else 0.1)
        while b < want and b < BATCH_MAX:
            b *= 2
    return b


def _share_up(total: int, rounds: int) -> int:
    return (total + rounds - 1) // rounds


def round_sample_limits(s: MeasureSettings) -> tuple:
    """(min_n, max_n) samples of one round: its shares of min_samples and
    max_samples, rounded up, max_n never under min_n."""
    r = max(s.rounds, 1)
    min_n, max_n = _share_up(s.min_samples, r), _share_up(s.max_samples, r)
    return min_n, max(max_n, min_n)


def round_should_stop(mine, spent_s: float, min_n: int, min_time_s: float, max_time_s: float,
                      target_noise: float) -> bool:
    """After a sample: stop once the round's share of min_samples and
    min_time_s is met and either its share of max_time_s is spent or the
    noise of its last 64 samples is at most the target (convt_measure_round)."""
    n = len(mine)
    if n < min_n or spent_s < min_time_s:
        return False
    if spent_s >= max_time_s:
        return True
    k = min(n, 64)
    return timing_from_samples(mine[n - k:])["noise"] <= target_noise


@dataclass
class Sampling:
    """The samples of one run across its rounds (convt_sampling)."""
    settings: MeasureSettings
    rounds: list = field(default_factory=list)  # per-launch ms, one list per round
    batch: int = 0        # 0: not probed yet
    held: bool = True     # false once a hold gave up: later samples unheld too
    spent_s: float = 0.0

    @property
    def n(self) -> int:
        return sum(len(r) for r in self.rounds)

    @property
    def cap(self) -> int:
        return max(self.settings.rounds, 1) * round_sample_limits(self.settings)[1]


def measure_round(acc: Sampling, launch: Callable[[], Any],
                  sample: Callable[[int, bool], Optional[float]],
                  synchronize: Callable[[], Any], clock: Callable[[], float] = time.perf_counter):
    """One round, as convt_measure_round: warm-up (settings.warmup launches in
    the first round, one in later ones), the batch probe in the first round,
    then samples until round_should_stop or the round's share of max_samples.
    sample(launches, held) times `launches` launches (cache flushed first when
    cold) and returns ms, or None when a hold gave up (the sample is thrown
    away and the run is timed unheld from then on)."""
    s = acc.settings
    rounds = max(s.rounds, 1)
    if len(acc.rounds) >= rounds:
        raise RuntimeError(f"a round more than measure.rounds = {rounds}")
    start = clock()
    warmup = s.warmup if not acc.rounds else (1 if s.warmup > 0 else 0)
    for _ in range(warmup):
        launch()
    synchronize()
    if acc.batch == 0:
        acc.batch = 1
        if s.batch_below_us > 0:
            probes, tries = [], 0
            while len(probes) < BATCH_PROBES and tries < BATCH_PROBES + 2:
                tries += 1
                ms = sample(1, acc.held)
                if ms is None:
                    acc.held = False
                    continue
                probes.append(ms)
                # more than half at or above the line: the median is too,
                # and the rest could not change the decision (as measure.c)
                if sum(p * 1e3 >= s.batch_below_us for p in probes) > BATCH_PROBES // 2:
                    break
            if not probes:
                raise RuntimeError("could not time a sample")
            acc.batch = batch_size(probes, s.batch_below_us)
    min_n, max_n = round_sample_limits(s)
    max_n = min(max_n, acc.cap - acc.n)
    min_time, max_time = s.min_time_s / rounds, s.max_time_s / rounds
    mine: list = []
    while len(mine) < max_n:
        ms = sample(acc.batch, acc.held)
        if ms is None:
            if not acc.held:
                raise RuntimeError("could not time a sample")
            acc.held = False
            continue
        mine.append(ms / acc.batch)
        if round_should_stop(mine, clock() - start, min_n, min_time, max_time, s.target_noise):
            break
    acc.rounds.append(mine)
    acc.spent_s += clock() - start


def run_rounds(live: list, rounds: int, run_round: Callable[[Any, int], Optional[str]],
               move: Callable[[int], bool]) -> int:
    """Interleaves the rounds as convt-bench's driver: every live entry gets
    round r before any gets round r+1, and before each round after the first
    move(r) moves the buffers (True when it did). run_round(entry, r) returns
    None, or a reason: the entry then drops out of later rounds. Returns the
    placements the rounds ran on (1 + successful moves)."""
    placements = 1
    for r in range(rounds):
        if r > 0 and move(r):
            placements += 1
        for e in list(live):
            if run_round(e, r) is not None:
                live.remove(e)
    return placements


def timing_record(acc: Sampling, placements: int, method: str) -> dict:
    """The record's "timing" object, as convt_results_add writes it."""
    t = timing_from_rounds(acc.rounds)
    return {
        "samples": t["samples"],
        "median_ms": _finite(t["median_ms"]),
        "min_ms": _finite(t["min_ms"]),
        "max_ms": _finite(t["max_ms"]),
        "mean_ms": _finite(t["mean_ms"]),
        "stddev_ms": _finite(t["stddev_ms"]),
        "noise": _finite(t["noise"]),
        "noise_within": _finite(t["noise_within"]),
        "noise_between": _finite(t["noise_between"]),
        "rounds": t["rounds"],
        "round_median_ms": t["round_median_ms"],
        "samples_ms": [list(r) for r in acc.rounds],
        "placements": placements,
        "target_met": bool(t["noise"] <= acc.settings.target_noise),
        "spent_s": acc.spent_s,
        "cache": "cold" if acc.settings.cold_cache else "warm",
        "method": method,
        "launches_per_sample": acc.batch if acc.batch > 0 else 1,
    }


def _finite(v):
    """JSON has no NaN or infinity: null instead (add_finite)."""
    return v if isinstance(v, (int, float)) and math.isfinite(v) else None


# ----------------------------------------------------------------------------
# validation verdict (src/lib/validate.c, validate_core.h)


@dataclass
class ErrorStats:
    count: int = 0
    nonfinite: int = 0
    bad: int = 0
    err_sq: float = 0.0
    ref_sq: float = 0.0
    max_abs_err: float = 0.0
    worst_ratio: float = 0.0
    worst_index: int = -1
    worst_y: float = 0.0
    worst_ref: float = 0.0


def _worse(a: ErrorStats, b: ErrorStats) -> bool:
    """convt_stats_worse: any nonfinite beats any finite; then the larger
    ratio; among equals the smaller index."""
    if a.worst_index < 0:
        return False
    if b.worst_index < 0:
        return True
    if (a.nonfinite > 0) != (b.nonfinite > 0):
        return a.nonfinite > 0
    if a.nonfinite > 0:
        return a.worst_index < b.worst_index
    if a.worst_ratio != b.worst_ratio:
        return a.worst_ratio > b.worst_ratio
    return a.worst_index < b.worst_index


def merge_stats(into: ErrorStats, part: ErrorStats) -> ErrorStats:
    """convt_stats_merge, in place; returns into."""
    if _worse(part, into):
        into.worst_ratio, into.worst_index = part.worst_ratio, part.worst_index
        into.worst_y, into.worst_ref = part.worst_y, part.worst_ref
    into.count += part.count
    into.nonfinite += part.nonfinite
    into.bad += part.bad
    into.err_sq += part.err_sq
    into.ref_sq += part.ref_sq
    into.max_abs_err = max(into.max_abs_err, part.max_abs_err)
    return into


def compare_lists(y, ref, mag, rtol: float, atol: float) -> ErrorStats:
    """convt_compare_host on Python sequences (y as float32 values)."""
    s = ErrorStats()
    for i, (yi, ri, mi) in enumerate(zip(y, ref, mag)):
        one = ErrorStats(count=1, ref_sq=ri * ri, worst_index=i, worst_y=yi, worst_ref=ri)
        if not math.isfinite(yi):
            one.nonfinite = 1
            one.worst_ratio = float("inf")
        else:
            err = abs(yi - ri)
            one.err_sq = err * err
            one.max_abs_err = err
            den = atol + rtol * mi
            one.worst_ratio = err / den if den else (float("inf") if err else float("nan"))
            one.bad = int(one.worst_ratio > 1.0)
        merge_stats(s, one)
    return s


def normwise_error(s: ErrorStats) -> float:
    if s.nonfinite:
        return float("inf")
    if s.ref_sq == 0.0:
        return 0.0 if s.err_sq == 0.0 else float("inf")
    return math.sqrt(s.err_sq / s.ref_sq)


def error_passes(s: ErrorStats, tol: dict) -> bool:
    return s.count > 0 and s.nonfinite == 0 and s.bad == 0 and normwise_error(s) <= tol["normwise"]


def _g(v: float, prec: int) -> str:
    return "%.*g" % (prec, v)


def error_describe(s: ErrorStats, tol: dict) -> str:
    """convt_error_describe: why a comparison failed (or "within tolerance")."""
    if s.count == 0:
        return "nothing was compared"
    if s.nonfinite:
        return (f"{s.nonfinite} of {s.count} outputs are NaN or infinite (never written, or "
                f"overflowed); first at flat index {s.worst_index} (reference {_g(s.worst_ref, 6)})")
    if s.bad:
        return (f"{s.bad} of {s.count} outputs outside atol {tol['atol']:.1e} + rtol "
                f"{tol['rtol']:.1e} x magnitude; worst at flat index {s.worst_index}: got "
                f"{_g(s.worst_y, 9)}, reference {_g(s.worst_ref, 9)} ({_g(s.worst_ratio, 3)} x "
                f"tolerance); normwise error {normwise_error(s):.3e}")
    if not error_passes(s, tol):
        return f"normwise error {normwise_error(s):.3e} exceeds {tol['normwise']:.1e}"
    return (f"within tolerance: normwise {normwise_error(s):.3e}, worst "
            f"{_g(s.worst_ratio, 3)} x tolerance")


def validation_record(s: ErrorStats, tol: dict, reference: str = "gpu_f64_torch") -> dict:
    """The record's "validation" object, as convt_results_add writes it."""
    return {
        "reference": reference,
        "trials": 1,
        "normwise_rel_err": _finite(normwise_error(s)),
        "max_abs_err": _finite(s.max_abs_err),
        "worst_ratio": _finite(s.worst_ratio),
        "worst_index": s.worst_index,
        "bad": s.bad,
        "nonfinite": s.nonfinite,
        "compared": s.count,
        "rtol": tol["rtol"],
        "atol": tol["atol"],
        "normwise_tol": tol["normwise"],
    }


# ----------------------------------------------------------------------------
# records and the document (src/tool/results.c)


def floor_ms(p: Problem, tier: str, ceilings: dict) -> float:
    """max(bytes / copy rate, FLOPs / GEMM rate of the tier) (convt_floor_ms)."""
    copy = ceilings.get("copy_gbps") or 0
    gemm = ceilings.get(f"{tier}_gflops") or 0
    mem = min_bytes(p) / (copy * 1e6) if copy > 0 else 0
    flop = flops(p) / (gemm * 1e6) if gemm > 0 else 0
    return mem if mem > flop else flop


def build_record(p: Problem, variant: str, tier: str, status: str, ceilings: dict,
                 reason: str = "", detail: str = "", validation: Optional[dict] = None,
                 prepare_ms: float = 0.0, timing: Optional[dict] = None) -> dict:
    """One record with the fields and order of convt_results_add."""
    o: dict = {
        "shape": problem_to_json(p),
        "variant": variant,
        "tier": tier,
        "deterministic": False,
        "launch": {},
        "launch_key": "-",
        "status": status,
    }
    if reason:
        o["reason"] = reason
    if detail:
        o["detail"] = detail
    if validation is not None:
        o["validation"] = validation
    if prepare_ms > 0:
        o["prepare_ms"] = prepare_ms
    o["workspace_bytes"] = 0  # cuDNN's workspace comes from PyTorch's allocator, unseen here
    if timing is not None:
        o["timing"] = timing
        med = timing.get("median_ms")
        if med and med > 0:
            sec = med * 1e-3
            fl = floor_ms(p, tier, ceilings)
            o["gflops"] = _finite(flops(p) / sec / 1e9)
            o["gbps"] = _finite(min_bytes(p) / sec / 1e9)
            o["floor_ms"] = _finite(fl)
            o["floor_fraction"] = _finite(fl / med)
        else:
            o["gflops"] = o["gbps"] = o["floor_fraction"] = None
            o["floor_ms"] = _finite(floor_ms(p, tier, ceilings))
    return o


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def git_revision(root: str) -> str:
    """CONVT_GIT_REVISION where set, else `git describe --always --dirty=+` of
    the checkout, else unknown: the rule meson.build follows for convt-bench.
    A tree copied to a GPU machine may carry an older .git than its files (the
    PyTorch records of de9f265 said 57cc6cf+ that way)."""
    env = os.environ.get("CONVT_GIT_REVISION")
    if env:
        return env
    try:
        r = subprocess.run(["git", "describe", "--always", "--dirty=+"], cwd=root,
                           capture_output=True, text=True, timeout=20)
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


def results_head(cfg: Config, version: str, revision: str, device: dict, ceilings: dict) -> dict:
    """The document's head, in convt_results_create's order."""
    return {
        "tool": TOOL,
        "schema": SCHEMA,
        "version": version,
        "git_revision": revision,
        "time": utc_now(),
        "host": socket.gethostname(),
        "backend": "cuda",
        "device": device,
        "ceilings": ceilings,
        "config_path": cfg.path,
        "config": cfg.json,
        "seed": str(cfg.seed),
        "records": [],
    }


def write_atomic(doc: dict, path: str):
    """Temporary file, fsync, rename (convt_results_write); raises OSError."""
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def progress_line(si: int, n_shapes: int, rec: dict) -> str:
    """convt-bench's progress line for one record."""
    width = 4 if n_shapes >= 100 else 3
    head = (f"[{si + 1:>{width}}/{n_shapes}] {rec['shape']['name'][:24]:<24} "
            f"{rec['variant']:<14} {rec['launch_key']:<18} {rec['status']:<7}")
    if rec["status"] == "ok":
        t = rec["timing"]
        err = (rec.get("validation") or {}).get("normwise_rel_err")
        return (f"{head} {t['median_ms']:10.4f} ms  noise {100 * t['noise']:.2f}%"
                f"{'' if t['target_met'] else ' (target not met)'}  "
                f"err {err if err is not None else float('inf'):.1e}")
    return f"{head} {rec.get('reason', '')}"


def summary_table(records: list) -> str:
    lines = [f"{'shape':<28} {'variant':<21} {'status':<7} {'median ms':>11} {'noise':>7} "
             f"{'normwise err':>12}"]
    for r in records:
        t = r.get("timing") or {}
        v = r.get("validation") or {}
        med = t.get("median_ms")
        noise = t.get("noise")
        err = v.get("normwise_rel_err")
        lines.append(f"{r['shape']['name'][:28]:<28} {r['variant']:<21} {r['status']:<7} "
                     f"{(f'{med:.4f}' if med is not None else '-'):>11} "
                     f"{(f'{100 * noise:.2f}%' if noise is not None else '-'):>7} "
                     f"{(f'{err:.2e}' if err is not None else '-'):>12}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# PyTorch: everything below imports torch only when called

HOLD_START_MS, HOLD_MAX_MS, HOLD_MARGIN, HOLD_RETRIES = 0.2, 200.0, 0.8, 3


def set_precision(torch, tf32: bool, benchmark: bool):
    """TF32 for cuDNN convolutions and cuBLAS matmuls, and cudnn.benchmark."""
    cudnn = torch.backends.cudnn
    matmul = torch.backends.cuda.matmul
    conv = getattr(cudnn, "conv", None)
    if conv is not None and hasattr(conv, "fp32_precision") and hasattr(matmul, "fp32_precision"):
        conv.fp32_precision = "tf32" if tf32 else "ieee"
        matmul.fp32_precision = "tf32" if tf32 else "ieee"
    else:
        cudnn.allow_tf32 = tf32
        matmul.allow_tf32 = tf32
    cudnn.benchmark = benchmark
    cudnn.deterministic = False


class Worker:
    """A thread of its own for one variant (PyTorch caches cuDNN plans per
    thread); call(fn) runs fn there under torch.no_grad() and returns its
    result or raises its exception."""

    def __init__(self, torch, device, name: str):
        import queue
        import threading
        self.torch, self.device = torch, device
        self.jobs: Any = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self):
        torch = self.torch
        torch.cuda.set_device(self.device)
        with torch.no_grad():
            while True:
                job = self.jobs.get()
                if job is None:
                    return
                fn, box, done = job
                try:
                    box["result"] = fn()
                except BaseException as e:  # noqa: BLE001: handed to the caller
                    box["error"] = e
                done.set()

    def call(self, fn):
        import threading
        box: dict = {}
        done = threading.Event()
        self.jobs.put((fn, box, done))
        done.wait()
        if "error" in box:
            raise box["error"]
        return box.get("result")

    def stop(self):
        self.jobs.put(None)
        self.thread.join()


class CudaSampler:
    """time_sample for PyTorch: the L2 flushed (cold cache), the stream held
    by a spinning kernel while the launches are enqueued, CUDA events around
    the launches."""

    def __init__(self, torch, flush_buf, cold: bool, cycles_per_ms: Optional[float]):
        self.torch = torch
        self.flush_buf = flush_buf
        self.cold = cold
        self.cycles_per_ms = cycles_per_ms
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.hold_ms = HOLD_START_MS
        self.stamp = 0

    def sample(self, launch, launches: int, held: bool) -> Optional[float]:
        torch = self.torch
        held = held and self.cycles_per_ms is not None
        for attempt in range(HOLD_RETRIES + 1):
            if self.cold:
                self.stamp = (self.stamp + 1) & 0xFF
                self.flush_buf.fill_(self.stamp)
            if held:
                torch.cuda._sleep(int(self.hold_ms * self.cycles_per_ms))
                t0 = time.perf_counter()
            self.start.record()
            for _ in range(launches):
                launch()
            self.stop.record()
            if held:
                enqueue_ms = (time.perf_counter() - t0) * 1e3
            self.stop.synchronize()
            ms = self.start.elapsed_time(self.stop)
            if not held or enqueue_ms <= HOLD_MARGIN * self.hold_ms:
                return ms
            # The hold may have ended before everything was enqueued: the
            # sample could hold host time. Throw it away, hold longer. A call
            # that waits for the GPU inside (some cuDNN algorithms do) outlasts
            # any hold: after HOLD_RETRIES longer holds, or past HOLD_MAX_MS,
            # the caller times the run unheld.
            if self.hold_ms >= HOLD_MAX_MS:
                break
            self.hold_ms = min(HOLD_MAX_MS, max(2 * self.hold_ms, 2 * enqueue_ms))
        return None


def _median(v):
    return median_sorted(sorted(v))


def calibrate_sleep(torch) -> Optional[float]:
    """Cycles of torch.cuda._sleep per ms, from the fastest of three
    (conservative: a faster clock later would shorten the hold)."""
    if not hasattr(torch.cuda, "_sleep"):
        return None
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    cycles = 2_000_000
    times = []
    for i in range(4):
        s.record()
        torch.cuda._sleep(cycles)
        e.record()
        e.synchronize()
        if i:
            times.append(s.elapsed_time(e))
    best = min(times)
    return cycles / best if best > 0 else None


def measure_ceilings(torch, device) -> dict:
    """Copy bandwidth and GEMM rates, as the CUDA backend measures them."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def timed(fn, reps):
        out = []
        for rep in range(-2, reps):
            s.record()
            fn()
            e.record()
            e.synchronize()
            if rep >= 0:
                out.append(s.elapsed_time(e))
        return _median(out)

    nbytes = 1 << 30
    a = torch.empty(nbytes // 4, device=device).uniform_(-1, 1)
    b = torch.empty_like(a)
    copy_gbps = 2.0 * nbytes / (timed(lambda: b.copy_(a), 7) * 1e6)
    a = b = None  # free before the GEMMs
    n = 8192
    g = torch.Generator(device=device)
    g.manual_seed(11)
    A = torch.empty(n, n, device=device).uniform_(-1, 1, generator=g)
    B = torch.empty(n, n, device=device).uniform_(-1, 1, generator=g)
    C = torch.empty(n, n, device=device)
    rates = {}
    for tier, tf32 in (("fp32", False), ("tf32", True)):
        set_precision(torch, tf32, False)
        ms = timed(lambda: torch.mm(A, B, out=C), 5)
        rates[tier] = 2.0 * n * n * n / (ms * 1e6)
    A = B = C = None
    torch.cuda.empty_cache()
    return {
        "copy_gbps": copy_gbps,
        "fp32_gflops": rates["fp32"],
        "tf32_gflops": rates["tf32"],
        "method": ("torch: Tensor.copy_ device-to-device of 1 GiB (median of 7, read+write "
                   f"bytes); torch.mm {n}x{n}x{n} float32 with TF32 off (fp32) and on (tf32), "
                   "median of 5, random operands"),
    }


def _lib_version(kind: str) -> Optional[int]:
    """cuDriverGetVersion, or cudaRuntimeGetVersion of the libcudart PyTorch loaded."""
    import ctypes
    try:
        v = ctypes.c_int(0)
        if kind == "driver":
            rc = ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(v))
        else:
            with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
                paths = sorted({ln.split()[-1] for ln in f if "libcudart" in ln})
            if not paths:
                return None
            rc = ctypes.CDLL(paths[0]).cudaRuntimeGetVersion(ctypes.byref(v))
        return v.value if rc == 0 and v.value > 0 else None
    except (OSError, AttributeError, IndexError):
        return None


def device_info(torch, device) -> dict:
    props = torch.cuda.get_device_properties(device)
    d: dict = {
        "name": torch.cuda.get_device_name(device),
        "compute_capability": f"{props.major}.{props.minor}",
        "sm_count": props.multi_processor_count,
    }
    for key, attr, scale in (("sm_clock_mhz", "clock_rate", 1e-3),
                             ("mem_clock_mhz", "memory_clock_rate", 1e-3),
                             ("mem_bus_bits", "memory_bus_width", 1),
                             ("l2_bytes", "L2_cache_size", 1),
                             ("smem_per_block_optin", "shared_memory_per_block_optin", 1)):
        v = getattr(props, attr, None)
        if isinstance(v, int) and v > 0:
            d[key] = int(v * scale) if scale != 1 else v
    driver, runtime = _lib_version("driver"), _lib_version("runtime")
    if driver:
        d["driver_version"] = driver
    if runtime is None and torch.version.cuda:
        major, _, minor = torch.version.cuda.partition(".")
        runtime = int(major) * 1000 + int(minor or 0) * 10
    if runtime:
        d["runtime_version"] = runtime
    d["cudnn_version"] = torch.backends.cudnn.version()
    d["torch_version"] = torch.__version__
    d["memory_bytes"] = props.total_memory
    return d


def _conv_backend(torch, p: Problem, m, x) -> str:
    try:
        b = torch._C._select_conv_backend(x, m.weight, m.bias, list(p.stride), list(p.pad),
                                          list(p.dil), True, list(p.out_pad), p.groups, None)
        return "torch conv backend " + str(b).split(".")[-1]
    except Exception:  # noqa: BLE001: a private API; the detail is optional
        return ""


def shape_need_bytes(p: Problem) -> float:
    """Device memory one shape needs at its peak (validation): x, w, b in
    float32 and float64, the float32 output, the float64 reference and
    magnitudes, and the comparison's chunk temporaries."""
    xwb = x_elems(p) + w_elems(p) + b_elems(p)
    y = y_elems(p)
    return 4.0 * xwb + 8.0 * xwb + 4.0 * y + 16.0 * y + 40.0 * min(y, COMPARE_CHUNK)


COMPARE_CHUNK = 1 << 24


def compare_torch(torch, y, ref, mag, tol: dict) -> ErrorStats:
    """The comparison of compare_lists, on the GPU in chunks."""
    yf, rf, mf = y.reshape(-1), ref.reshape(-1), mag.reshape(-1)
    total = ErrorStats()
    count = yf.numel()
    for start in range(0, count, COMPARE_CHUNK):
        yc = yf[start:start + COMPARE_CHUNK].double()
        rc = rf[start:start + COMPARE_CHUNK]
        mc = mf[start:start + COMPARE_CHUNK]
        fin = torch.isfinite(yc)
        part = ErrorStats(count=yc.numel())
        part.nonfinite = int((~fin).sum().item())
        part.ref_sq = float((rc * rc).sum().item())
        err = torch.where(fin, (yc - rc).abs(), torch.zeros_like(yc))
        part.err_sq = float((err * err).sum().item())
        part.max_abs_err = float(err.max().item())
        ratio = err / (tol["atol"] + tol["rtol"] * mc)
        part.bad = int((ratio > 1.0).sum().item())
        if part.nonfinite:
            i = int(torch.nonzero(~fin)[0, 0].item())
            part.worst_ratio = float("inf")
        else:
            i = int(torch.argmax(ratio).item())  # the first of equal maxima
            part.worst_ratio = float(ratio[i].item())
        part.worst_index = start + i
        part.worst_y = float(yc[i].item())
        part.worst_ref = float(rc[i].item())
        merge_stats(total, part)
        del yc, fin, err, ratio
    return total


class ContextLost(Exception):
    pass


def _context_alive(torch) -> bool:
    try:
        torch.cuda.synchronize()
        return True
    except Exception:  # noqa: BLE001
        return False


def _error_text(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return (f"{type(e).__name__}: {s[0]}" if s else type(e).__name__)[:900]


class Runner:
    def __init__(self, torch, device, cfg: Config, variants: list, hold: bool, quiet: bool):
        self.torch, self.device, self.cfg, self.quiet = torch, device, cfg, quiet
        self.variants = [v for v in VARIANTS if v[0] in variants]
        self.workers = {v[0]: Worker(torch, device, v[0]) for v in self.variants}
        self.cycles_per_ms = None
        self.hold = hold
        props = torch.cuda.get_device_properties(device)
        self.flush_buf = None
        if cfg.measure.cold_cache:
            self.flush_buf = torch.empty(2 * props.L2_cache_size, dtype=torch.uint8, device=device)

    def close(self):
        for w in self.workers.values():
            w.stop()

    def _gen(self, si: int, tensor: int):
        g = self.torch.Generator(device=self.device)
        g.manual_seed(tensor_seed(self.cfg.seed, si, tensor))
        return g

    def _inputs(self, p: Problem, si: int, m=None):
        """x (and, given the module, new weight and bias storage) drawn from the seeds."""
        torch = self.torch
        x = torch.empty((p.n, p.cin) + tuple(p.in_), device=self.device)
        x.uniform_(-1, 1, generator=self._gen(si, 1))
        if m is not None:
            w = torch.empty_like(m.weight).uniform_(-1, 1, generator=self._gen(si, 2))
            b = None
            if p.bias:
                b = torch.empty_like(m.bias).uniform_(-1, 1, generator=self._gen(si, 3))
            return x, w, b
        return x

    def _module(self, p: Problem, si: int):
        torch = self.torch
        cls = {1: torch.nn.ConvTranspose1d, 2: torch.nn.ConvTranspose2d,
               3: torch.nn.ConvTranspose3d}[p.dims]
        m = cls(p.cin, p.cout, tuple(p.k), stride=tuple(p.stride), padding=tuple(p.pad),
                output_padding=tuple(p.out_pad), groups=p.groups, bias=p.bias,
                dilation=tuple(p.dil), device=self.device, dtype=torch.float32)
        m.requires_grad_(False)
        m.weight.uniform_(-1, 1, generator=self._gen(si, 2))
        if p.bias:
            m.bias.uniform_(-1, 1, generator=self._gen(si, 3))
        return m

    def _reference(self, p: Problem, m, x):
        torch = self.torch
        F = torch.nn.functional
        conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[p.dims]
        set_precision(torch, False, False)
        args = dict(stride=tuple(p.stride), padding=tuple(p.pad),
                    output_padding=tuple(p.out_pad), groups=p.groups, dilation=tuple(p.dil))
        xd, wd = x.double(), m.weight.double()
        bd = m.bias.double() if p.bias else None
        ref = conv(xd, wd, bd, **args)
        xd.abs_()
        wd.abs_()
        if bd is not None:
            bd.abs_()
        mag = conv(xd, wd, bd, **args)
        del xd, wd, bd
        torch.cuda.synchronize(self.device)
        return ref, mag

    def run_shape(self, si: int, p: Problem, ceilings: dict) -> list:
        """The records of one shape, in VARIANTS order."""
        torch = self.torch
        cfg = self.cfg
        st = {v[0]: {"status": None, "reason": "", "validation": None, "prepare_ms": 0.0,
                     "acc": None, "sampler": None} for v in self.variants}
        detail = ""

        def finish_all(status, reason):
            for s in st.values():
                if s["status"] is None:
                    s["status"], s["reason"] = status, reason

        def records():
            out = []
            for name, tier, _, _ in self.variants:
                s = st[name]
                timing = None
                if s["status"] == "ok":
                    method = ("cuda_events_torch_held" if s["acc"].held and self.cycles_per_ms
                              and self.hold else "cuda_events_torch")
                    timing = timing_record(s["acc"], placements, method)
                out.append(build_record(p, name, tier, s["status"], ceilings, s["reason"],
                                        detail, s["validation"], s["prepare_ms"], timing))
            return out

        placements = 1
        free, _ = torch.cuda.mem_get_info(self.device)
        need = shape_need_bytes(p)
        if need > 0.92 * free:
            finish_all("skipped", f"the shape needs {need / 2**30:.2f} GiB (inputs, output, "
                                  f"float64 reference), {free / 2**30:.2f} GiB free")
            return records()
        state: dict = {}
        try:
            state["m"] = self._module(p, si)
            state["x"] = self._inputs(p, si)
        except Exception as e:  # noqa: BLE001
            self._after_error(e)
            finish_all("failed", "allocating the shape's tensors: " + _error_text(e))
            state.clear()
            torch.cuda.empty_cache()
            return records()
        detail = _conv_backend(torch, p, state["m"], state["x"])
        expected = (p.n, p.cout) + out_dims(p)
        try:
            ref, mag = self._reference(p, state["m"], state["x"])
        except Exception as e:  # noqa: BLE001
            self._after_error(e)
            finish_all("failed", "reference: " + _error_text(e))
            state.clear()
            torch.cuda.empty_cache()
            return records()

        def launch():
            return state["m"](state["x"])

        # prepare (first call, wall clock) and validation, each on its own thread
        for name, tier, tf32, bench in self.variants:
            s = st[name]

            def first_calls(tf32=tf32, bench=bench):
                set_precision(torch, tf32, bench)
                torch.cuda.synchronize(self.device)
                t0 = time.perf_counter()
                launch()
                torch.cuda.synchronize(self.device)
                prep = (time.perf_counter() - t0) * 1e3
                y = launch()
                torch.cuda.synchronize(self.device)
                return prep, y

            try:
                prep, y = self.workers[name].call(first_calls)
                if bench:
                    s["prepare_ms"] = prep
                if tuple(y.shape) != expected:
                    s["status"] = "wrong"
                    s["reason"] = f"output shape {tuple(y.shape)}, expected {expected}"
                    continue
                tol = cfg.tolerance[tier]
                es = compare_torch(torch, y, ref, mag, tol)
                del y
                s["validation"] = validation_record(es, tol)
                if not error_passes(es, tol):
                    s["status"], s["reason"] = "wrong", error_describe(es, tol)
            except ContextLost:
                raise
            except Exception as e:  # noqa: BLE001
                self._after_error(e)
                s["status"], s["reason"] = "failed", _error_text(e)
                torch.cuda.empty_cache()
        del ref, mag
        torch.cuda.empty_cache()

        # timing: round r of every live variant before round r + 1
        live = []
        for name, tier, tf32, bench in self.variants:
            s = st[name]
            if s["status"] is None:
                s["acc"] = Sampling(cfg.measure)
                s["sampler"] = CudaSampler(torch, self.flush_buf, cfg.measure.cold_cache,
                                           self.cycles_per_ms if self.hold else None)
                live.append((name, tf32, bench))

        def move(r):
            try:
                x, w, b = self._inputs(p, si, state["m"])  # new memory while the old is held
                state["x"] = x
                state["m"].weight.data = w
                if b is not None:
                    state["m"].bias.data = b
                torch.cuda.synchronize(self.device)
                return True
            except Exception as e:  # noqa: BLE001
                self._after_error(e)
                if not self.quiet:
                    print(f"{PROG}: {p.name}: round {r + 1} runs on the same buffers as round "
                          f"{r}: moving them failed: {_error_text(e)}", file=sys.stderr)
                return False

        def run_round(entry, r):
            name, tf32, bench = entry
            s = st[name]

            def job():
                set_precision(torch, tf32, bench)
                sampler = s["sampler"]
                measure_round(s["acc"], launch, lambda k, held: sampler.sample(launch, k, held),
                              lambda: torch.cuda.synchronize(self.device))

            try:
                self.workers[name].call(job)
                return None
            except ContextLost:
                raise
            except Exception as e:  # noqa: BLE001
                self._after_error(e)
                s["status"], s["reason"] = "failed", "while timing: " + _error_text(e)
                torch.cuda.empty_cache()
                return s["reason"]

        if live:
            placements = run_rounds(live, max(cfg.measure.rounds, 1), run_round, move)
        for name, _, _ in live:
            st[name]["status"] = "ok"
        state.clear()
        torch.cuda.empty_cache()
        return records()

    def _after_error(self, e: BaseException):
        """A raised error that left the CUDA context unusable ends the sweep."""
        if not _context_alive(self.torch):
            raise ContextLost(_error_text(e)) from e


def run(cfg: Config, shapes: list, args) -> int:
    try:
        import torch
    except Exception as e:  # noqa: BLE001: any failure to import is "no PyTorch"
        print(f"{PROG}: PyTorch is not available ({type(e).__name__}: {e}); this tool needs "
              "PyTorch with CUDA (pip install torch)", file=sys.stderr)
        return EXIT_FATAL
    if not torch.cuda.is_available():
        print(f"{PROG}: PyTorch {torch.__version__} sees no CUDA device", file=sys.stderr)
        return EXIT_FATAL
    try:
        device = torch.device(args.device)
        if device.type != "cuda":
            raise ValueError("not a CUDA device")
    except (RuntimeError, ValueError) as e:
        print(f"{PROG}: --device {args.device}: {e}; expected cuda or cuda:N", file=sys.stderr)
        return EXIT_USAGE
    if device.index is None:
        device = torch.device("cuda", 0)
    if device.index >= torch.cuda.device_count():
        print(f"{PROG}: --device {args.device}: PyTorch sees {torch.cuda.device_count()} "
              "CUDA device(s)", file=sys.stderr)
        return EXIT_FATAL
    torch.cuda.set_device(device)
    if not torch.backends.cudnn.is_available():
        print(f"{PROG}: warning: cuDNN is not available to PyTorch; its convolutions run "
              "without it", file=sys.stderr)
    quiet = args.quiet
    if not quiet:
        print(f"{PROG}: measuring the device's ceilings (copy bandwidth, GEMM rates)",
              file=sys.stderr)
    try:
        ceilings = measure_ceilings(torch, device)
        if not quiet:
            print(f"{PROG}: copy {ceilings['copy_gbps']:.0f} GB/s, fp32 "
                  f"{ceilings['fp32_gflops']:.1f} GFLOP/s, tf32 {ceilings['tf32_gflops']:.1f} "
                  "GFLOP/s", file=sys.stderr)
    except Exception as e:  # noqa: BLE001
        print(f"{PROG}: warning: measuring ceilings failed: {_error_text(e)}", file=sys.stderr)
        if not _context_alive(torch):
            return EXIT_FATAL
        torch.cuda.empty_cache()
        ceilings = {"copy_gbps": 0, "fp32_gflops": 0, "tf32_gflops": 0,
                    "method": "not measured: " + _error_text(e)}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cudnn_v = torch.backends.cudnn.version()
    version = f"torch {torch.__version__}, cudnn {cudnn_v}"
    doc = results_head(cfg, version, git_revision(root), device_info(torch, device), ceilings)
    try:
        write_atomic(doc, args.out)
    except OSError as e:
        print(f"{PROG}: {args.out}: cannot write: {e.strerror or e}", file=sys.stderr)
        return EXIT_FATAL
    runner = Runner(torch, device, cfg, args.variants, not args.no_hold, quiet)
    if runner.hold:
        runner.cycles_per_ms = calibrate_sleep(torch)
        if runner.cycles_per_ms is None and not quiet:
            print(f"{PROG}: warning: torch.cuda._sleep is missing: timing unheld (host time "
                  "included)", file=sys.stderr)
    counts = {"ok": 0, "skipped": 0, "failed": 0, "wrong": 0}
    index_of = {id(p): i for i, p in enumerate(cfg.shapes)}
    rc = EXIT_OK
    try:
        for k, p in enumerate(shapes):
            si = index_of[id(p)]
            try:
                recs = runner.run_shape(si, p, ceilings)
            except ContextLost as e:
                print(f"{PROG}: {p.name}: the CUDA context was lost ({e}); PyTorch cannot reset "
                      f"it; the results so far are in {args.out}", file=sys.stderr)
                rc = EXIT_FATAL
                break
            for r in recs:
                doc["records"].append(r)
                counts[r["status"]] += 1
                if not quiet:
                    print(progress_line(k, len(shapes), r), file=sys.stderr)
            try:
                write_atomic(doc, args.out)
            except OSError as e:
                print(f"{PROG}: {args.out}: cannot write: {e.strerror or e}", file=sys.stderr)
                return EXIT_FATAL
    finally:
        runner.close()
    print()
    print(summary_table(doc["records"]))
    print(f"\nresults: {args.out}")
    print(f"{PROG}: {counts['ok']} ok, {counts['skipped']} skipped, {counts['failed']} failed, "
          f"{counts['wrong']} wrong", file=sys.stderr)
    if rc == EXIT_OK and (counts["failed"] or counts["wrong"]):
        rc = EXIT_BAD_RUNS
    return rc


# ----------------------------------------------------------------------------
# the command line


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{PROG}: {message}; try '{self.prog} --help'", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def parse_args(argv):
    ap = _Parser(prog="tools/torch_baseline.py", description=__doc__,
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 usage="tools/torch_baseline.py CONFIG --out FILE [options]")
    ap.add_argument("config", metavar="CONFIG", help="a convt-bench sweep config (JSON)")
    ap.add_argument("--out", metavar="FILE", help="the results file to write")
    ap.add_argument("--shapes", metavar="NAME,...", help="only these shapes (by name)")
    ap.add_argument("--variants", metavar="NAME,...", help="only these variants")
    ap.add_argument("--device", default="cuda:0", metavar="cuda:N", help="the GPU")
    ap.add_argument("--seed", type=int, metavar="N", help="replaces the config's seed")
    ap.add_argument("--no-hold", action="store_true", help="time without holding the stream")
    ap.add_argument("--dry-run", action="store_true", help="list the shapes and keys, run nothing")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return EXIT_USAGE
    if args.seed is not None:
        if args.seed < 0:
            print(f"{PROG}: --seed: expected an integer >= 0", file=sys.stderr)
            return EXIT_USAGE
        cfg.seed = args.seed
    shapes = cfg.shapes
    if args.shapes:
        wanted = [s for s in args.shapes.split(",") if s]
        names = {p.name for p in cfg.shapes}
        unknown = [s for s in wanted if s not in names]
        if unknown:
            print(f"{PROG}: --shapes: no shape named {', '.join(unknown)} in {cfg.path} (its "
                  f"shapes: {', '.join(p.name for p in cfg.shapes)})", file=sys.stderr)
            return EXIT_USAGE
        shapes = [p for p in cfg.shapes if p.name in wanted]
    args.variants = [v for v in (args.variants or ",".join(VARIANT_NAMES)).split(",") if v]
    bad = [v for v in args.variants if v not in VARIANT_NAMES]
    if bad or not args.variants:
        print(f"{PROG}: --variants: unknown {', '.join(bad) or '(none given)'} (known: "
              f"{', '.join(VARIANT_NAMES)})", file=sys.stderr)
        return EXIT_USAGE
    if args.dry_run:
        for p in shapes:
            print(f"{p.name}  ({problem_key(p)})  {flops(p) / 1e9:.3f} GFLOP, "
                  f"{min_bytes(p) / 1e9:.3f} GB")
            for name, tier, _, _ in VARIANTS:
                if name in args.variants:
                    print(f"  {name:<21} {tier:<5} -")
        return EXIT_OK
    if not args.out:
        print(f"{PROG}: --out FILE is required; try 'tools/torch_baseline.py --help'",
              file=sys.stderr)
        return EXIT_USAGE
    return run(cfg, shapes, args)


if __name__ == "__main__":
    sys.exit(main())
