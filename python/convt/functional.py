"""conv_transpose through libconvt on NumPy arrays (the CPU) or CUDA tensors,
with one context and one table per device, and the plans cached per shape."""
import os
import threading

import numpy as np

from .core import Context, Table, output_shape, problem, problem_key

_lock = threading.Lock()
_contexts = {}
_tables = {}          # device -> its default Table (use_table)
_tables_by_path = {}  # (device, real path) -> Table: a table named per call
_plans = {}


def context(device=-1):
    with _lock:
        if device not in _contexts:
            _contexts[device] = Context(device)
        return _contexts[device]


def use_table(path, device=-1, any_device=False, tune=None):
    """Makes the selection table at path the device's default (device -1: the
    CPU); with tune, a path: shapes it lacks are measured on first use and the
    table is written there."""
    t = path if isinstance(path, Table) else context(device).table(path, any_device)
    if tune:
        t.enable_tuning(tune)
    with _lock:
        _tables[device] = t
    return t


def table_for(device=-1):
    """The device's default table: use_table's, else an empty one (the heuristic)."""
    ctx = context(device)
    with _lock:
        if device not in _tables:
            _tables[device] = ctx.table(None)
        return _tables[device]


def plan_for(table, p, tier):
    # id(table) stays unique while the cached plan lives: the plan holds its table
    key = (id(table), tier, problem_key(p))
    with _lock:
        plan = _plans.get(key)
    if plan is None:
        plan = table.plan(p, tier)
        with _lock:
            plan = _plans.setdefault(key, plan)
    return plan


def _table(table, device):
    """A Table, a path (loaded once per device and path; the device's default
    stays as it is), or None (the device's default)."""
    if table is None:
        return table_for(device)
    if isinstance(table, Table):
        return table
    key = (device, os.path.realpath(table))
    with _lock:
        t = _tables_by_path.get(key)
    if t is None:
        t = context(device).table(table)
        with _lock:
            t = _tables_by_path.setdefault(key, t)
    return t


def _check_operands(x_shape, w_shape, b_shape, groups):
    """What the C side cannot check from pointers: the bias has one value per
    output channel."""
    cout = int(w_shape[1]) * int(groups) if len(w_shape) > 1 else 0
    if b_shape is not None and tuple(b_shape) != (cout,):
        raise ValueError(f"bias of shape {tuple(b_shape)}: expected ({cout},), one value per "
                         "output channel")


def conv_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                   dilation=1, *, tier="tf32", table=None):
    """torch.nn.functional.conv_transpose{1,2,3}d's arguments. NumPy float32
    arrays run on the CPU context and return a NumPy array; CUDA float32
    tensors run on their device (PyTorch's current stream) and return a tensor."""
    if isinstance(x, np.ndarray):
        x = np.ascontiguousarray(x, dtype=np.float32)
        w = np.ascontiguousarray(weight, dtype=np.float32)
        b = None if bias is None else np.ascontiguousarray(bias, dtype=np.float32)
        _check_operands(x.shape, w.shape, None if b is None else b.shape, groups)
        p = problem(x.shape, w.shape, bias=b is not None, stride=stride, padding=padding,
                    output_padding=output_padding, groups=groups, dilation=dilation)
        plan = plan_for(_table(table, -1), p, tier)
        y = np.empty(output_shape(p), dtype=np.float32)
        ws = np.empty(max(plan.workspace_size, 1), dtype=np.uint8)
        plan.execute(x.ctypes.data, w.ctypes.data, 0 if b is None else b.ctypes.data,
                     y.ctypes.data, ws.ctypes.data if plan.workspace_size else 0, 0)
        return y
    import torch
    if not (isinstance(x, torch.Tensor) and x.is_cuda and x.dtype == torch.float32):
        raise TypeError("convt.conv_transpose: NumPy arrays or CUDA float32 tensors")
    device = x.device.index if x.device.index is not None else torch.cuda.current_device()
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dtype != torch.float32 or t.device != x.device):
            raise TypeError(f"convt.conv_transpose: {name} must be float32 on {x.device}, "
                            f"not {t.dtype} on {t.device}")
    x = x.contiguous()
    w = weight.contiguous()
    b = None if bias is None else bias.contiguous()
    _check_operands(x.shape, w.shape, None if b is None else b.shape, groups)
    p = problem(x.shape, w.shape, bias=b is not None, stride=stride, padding=padding,
                output_padding=output_padding, groups=groups, dilation=dilation)
    plan = plan_for(_table(table, device), p, tier)
    y = torch.empty(output_shape(p), dtype=torch.float32, device=x.device)
    ws = plan.workspace_size
    work = torch.empty(ws, dtype=torch.uint8, device=x.device) if ws else None
    stream = torch.cuda.current_stream(x.device).cuda_stream
    plan.execute(x.data_ptr(), w.data_ptr(), 0 if b is None else b.data_ptr(), y.data_ptr(),
                 0 if work is None else work.data_ptr(), stream)
    return y
