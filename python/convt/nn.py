"""torch.nn.ConvTranspose1d/2d/3d that run through libconvt.

Each is a subclass of torch's module with nothing added to its state: the
constructor, parameters and state_dict are torch's, and convt.swap() turns a
torch module into one by changing its class. forward() runs libconvt's plan
for the shape when it can (CUDA, float32, padding_mode "zeros", no autograd
graph to record) and PyTorch's forward otherwise; last_path says which ran
and why."""
import torch

from ._lib import ConvtError
from .functional import conv_transpose


class _Convt:
    convt_table = None  # a path or convt.Table; None: the device's default
    convt_tier = None   # "fp32", "tf32"; None: tf32 when torch.backends.cudnn.allow_tf32
    last_path = ""

    def _why_not(self, input):
        if not input.is_cuda:
            return "PyTorch: not a CUDA tensor"
        if input.dtype != torch.float32 or self.weight.dtype != torch.float32:
            return "PyTorch: not float32"
        if self.padding_mode != "zeros":
            return "PyTorch: padding_mode " + self.padding_mode
        if torch.is_grad_enabled() and (input.requires_grad or self.weight.requires_grad):
            return "PyTorch: autograd (libconvt has no backward)"
        return None

    def forward(self, input, output_size=None):
        why = self._why_not(input)
        dims = len(self.kernel_size)
        if why is None:
            batched = input.dim() == dims + 2
            x = input if batched else input.unsqueeze(0)
            output_padding = self._output_padding(x, output_size, self.stride, self.padding,
                                                  self.kernel_size, dims, self.dilation)
            tier = self.convt_tier or ("tf32" if torch.backends.cudnn.allow_tf32 else "fp32")
            try:
                y = conv_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                   output_padding, self.groups, self.dilation, tier=tier,
                                   table=self.convt_table)
                self.last_path = "libconvt"
                return y if batched else y.squeeze(0)
            except ConvtError as e:
                why = "PyTorch: libconvt cannot run it: " + str(e)
        self.last_path = why
        return super().forward(input, output_size)


class ConvTranspose1d(_Convt, torch.nn.ConvTranspose1d):
    pass


class ConvTranspose2d(_Convt, torch.nn.ConvTranspose2d):
    pass


class ConvTranspose3d(_Convt, torch.nn.ConvTranspose3d):
    pass


CONVT_OF = {torch.nn.ConvTranspose1d: ConvTranspose1d, torch.nn.ConvTranspose2d: ConvTranspose2d,
            torch.nn.ConvTranspose3d: ConvTranspose3d}
