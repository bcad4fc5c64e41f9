"""Contexts, tables and plans: thin, owning wrappers of libconvt's objects."""
import ctypes
import os
import threading

from ._lib import Err, Problem, TIERS, check, lib

ANY_DEVICE = 1  # CONVT_TABLE_ANY_DEVICE


def _tuple(v, dims, what):
    t = tuple(int(x) for x in v) if isinstance(v, (tuple, list)) else (int(v),) * dims
    if len(t) != dims:
        raise ValueError(f"{what}: {len(t)} values for {dims} spatial dimensions")
    return t


def problem(x_shape, w_shape, *, bias, stride=1, padding=0, output_padding=0, groups=1,
            dilation=1, name="") -> Problem:
    """The convt_problem of torch.nn.functional.conv_transpose{1,2,3}d's arguments:
    x [N, C_in, L...], weight [C_in, C_out/groups, K...]."""
    dims = len(x_shape) - 2
    if dims not in (1, 2, 3) or len(w_shape) != dims + 2:
        raise ValueError(f"input of shape {tuple(x_shape)} and weight of shape {tuple(w_shape)} "
                         "are not a 1-, 2- or 3-d transposed convolution")
    p = Problem()
    p.name = name.encode()[:63]
    p.dims = dims
    p.n, p.cin = int(x_shape[0]), int(x_shape[1])
    if int(w_shape[0]) != p.cin:
        raise ValueError(f"weight has {w_shape[0]} input channels, the input {p.cin}")
    p.groups = int(groups)
    p.cout = int(w_shape[1]) * p.groups
    p.bias = bool(bias)
    fields = (("in_", x_shape[2:]), ("k", w_shape[2:]), ("stride", stride), ("pad", padding),
              ("out_pad", output_padding), ("dil", dilation))
    for field, value in fields:
        arr = getattr(p, field)
        for d, v in enumerate(_tuple(value, dims, field)):
            arr[d] = v
    return p


def output_shape(p: Problem):
    """[N, C_out, L_out...]: libconvt's own arithmetic (convt_out_size)."""
    return (p.n, p.cout) + tuple(lib.convt_out_size(ctypes.byref(p), d) for d in range(p.dims))


def problem_key(p: Problem) -> str:
    """libconvt's canonical key of the shape (convt_problem_key)."""
    buf = ctypes.create_string_buffer(256)
    lib.convt_problem_key(ctypes.byref(p), buf, len(buf))
    return buf.value.decode()


class Context:
    """A libconvt context: device >= 0 a CUDA device, -1 the CPU."""

    def __init__(self, device=-1):
        self._h = ctypes.c_void_p()
        err = Err()
        check(lib.convt_ctx_create(int(device), ctypes.byref(self._h), ctypes.byref(err)), err)
        self.device = device
        self.lock = threading.Lock()

    @property
    def device_name(self):
        return lib.convt_ctx_device_name(self._h).decode()

    def load_plugin(self, path):
        err = Err()
        check(lib.convt_ctx_load_plugin(self._h, str(path).encode(), ctypes.byref(err)), err)

    def table(self, path=None, any_device=False):
        """The selection table at path (None: an empty one; plans use the heuristic)."""
        return Table(self, path, any_device)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.convt_ctx_destroy(self._h)
            self._h = None


class Table:
    def __init__(self, ctx, path=None, any_device=False):
        self.ctx = ctx  # the context outlives its tables
        self._h = ctypes.c_void_p()
        err = Err()
        if path is None:
            rc = lib.convt_table_empty(ctx._h, ctypes.byref(self._h), ctypes.byref(err))
        else:
            rc = lib.convt_table_load(ctx._h, str(path).encode(), ANY_DEVICE if any_device else 0,
                                      ctypes.byref(self._h), ctypes.byref(err))
        check(rc, err)

    def describe(self):
        buf = ctypes.create_string_buffer(1024)
        lib.convt_table_describe(self._h, buf, len(buf))
        return buf.value.decode()

    def enable_tuning(self, path):
        """Shapes the table lacks are measured by convt-bench on first use and
        written to path."""
        err = Err()
        arg = None if path is None else os.fsencode(path)  # None: tuning off
        check(lib.convt_table_enable_tuning(self._h, arg, ctypes.byref(err)), err)

    def plan(self, p: Problem, tier="tf32"):
        return Plan(self, p, tier)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.convt_table_destroy(self._h)
            self._h = None


class Plan:
    def __init__(self, table, p: Problem, tier):
        if tier not in TIERS:
            raise ValueError(f"tier: expected one of {sorted(TIERS)}, got {tier!r}")
        self.table = table
        self.problem = p
        self.tier = tier
        self._h = ctypes.c_void_p()
        err = Err()
        check(lib.convt_plan_create(table.ctx._h, table._h, ctypes.byref(p), TIERS[tier],
                                    ctypes.byref(self._h), ctypes.byref(err)), err)

    @property
    def variant(self):
        return lib.convt_plan_variant(self._h).decode()

    @property
    def rule(self):
        return lib.convt_plan_rule(self._h).decode()

    def describe(self):
        buf = ctypes.create_string_buffer(1024)
        lib.convt_plan_describe(self._h, buf, len(buf))
        return buf.value.decode()

    @property
    def workspace_size(self):
        return lib.convt_plan_workspace_size(self._h)

    def execute(self, x, w, b, y, workspace=0, stream=0):
        """Pointers (ints) in the context's memory; enqueued on stream."""
        err = Err()
        check(lib.convt_execute(self._h, x, w, b or None, y, workspace or None, stream or None,
                                ctypes.byref(err)), err)

    def __del__(self):
        # at interpreter exit, finalizers run in any order: a context
        # destroyed first has freed its plans already
        if getattr(self, "_h", None) and getattr(self.table.ctx, "_h", None):
            lib.convt_plan_destroy(self._h)
        self._h = None
