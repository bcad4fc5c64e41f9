"""convt: libconvt from Python.

    import convt
    convt.use_table("results/h100.selection.json", device=0)   # convt-bench's table
    y = convt.conv_transpose(x, w, b, stride=2, padding=1)      # NumPy (CPU) or CUDA tensors
    model = convt.swap(model)        # every nn.ConvTranspose1d/2d/3d runs through libconvt

The modules in convt.nn are torch's ConvTranspose modules (same constructor,
parameters and state_dict) whose forward runs the plan libconvt picks for the
shape, on PyTorch's current stream with workspace from PyTorch's caching
allocator, and falls back to PyTorch's own forward where libconvt cannot run
(CPU tensors, other dtypes, padding modes other than zeros, autograd)."""
from ._lib import ConvtError
from .core import Context, Plan, Table, output_shape, problem
from .functional import context, conv_transpose, plan_for, table_for, use_table

__all__ = ["ConvtError", "Context", "Plan", "Table", "context", "conv_transpose", "output_shape",
           "plan_for", "problem", "swap", "table_for", "use_table"]


def swap(model, table=None, tier=None):
    """Turns every torch.nn.ConvTranspose1d/2d/3d of model into its convt.nn
    counterpart, in place (same parameters, buffers, hooks and state_dict);
    returns model. table: a path or Table for all of them (default: the
    device's table from use_table); tier: "fp32", "tf32" or None (PyTorch's
    rule: tf32 when torch.backends.cudnn.allow_tf32)."""
    from . import nn
    for m in model.modules():
        cls = nn.CONVT_OF.get(type(m))
        if cls is not None:
            m.__class__ = cls
            m.convt_table = table
            m.convt_tier = tier
    return model
