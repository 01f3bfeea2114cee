#!/usr/bin/env python3
"""Reference values for F.conv3d, F.convTranspose3d, F.maxPool3d, F.avgPool3d, F.adaptiveAvgPool3d, F.adaptiveMaxPool3d
and their modules (npm/src/nn/conv3d.ts, pool3d.ts, conv.ts; tests/js/conv3d.test.mjs), computed by PyTorch.
Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_conv3d.py   # writes tests/data/conv3d_ref.json

The case format is gen_ops_compose.py's (ref_json.grad_case): values of every output, and the
gradients of sum(out_k * upstream_k) for the inputs marked.
"""
import torch
import torch.nn.functional as F

from ref_json import Cases, nan, randn as f, write

CASES = Cases(20261125)
case = CASES.case


def distinct(*shape):
    """Distinct values (one maximum per window), shuffled."""
    n = 1
    for s in shape:
        n *= s
    return torch.randperm(n).float().reshape(*shape) / 10 - n / 20


def ties(*shape):
    """Few distinct values: every window has ties, so the first maximum matters."""
    return torch.randint(0, 3, shape).float()


# ---- conv3d: values and the gradients of input, weight and bias ----
case("conv3d", lambda x, w, b: F.conv3d(x, w, b), [f(2, 2, 5, 6, 7), f(4, 2, 3, 2, 3), f(4)], grad=(0, 1, 2))
case("conv3d stride padding dilation groups", lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 3), padding=(1, 2, 0), dilation=(2, 1, 2), groups=2),
     [f(1, 4, 7, 6, 8), f(6, 2, 3, 3, 2), f(6)], grad=(0, 1, 2))
case("conv3d depthwise", lambda x, w: F.conv3d(x, w, None, padding=1, groups=3), [f(1, 3, 4, 5, 5), f(6, 1, 2, 3, 3)], grad=(0, 1))
case("conv3d same even kernel", lambda x, w, b: F.conv3d(x, w, b, padding="same", dilation=(1, 2, 1)), [f(2, 2, 5, 4, 6), f(3, 2, 2, 3, 4), f(3)], grad=(0, 1, 2))
case("conv3d valid unbatched stride", lambda x, w, b: F.conv3d(x, w, b, stride=2, padding="valid"), [f(3, 4, 5, 6), f(2, 3, 2, 2, 2), f(2)], grad=(0, 1, 2))
case("conv3d kD 1", lambda x, w: F.conv3d(x, w, None, stride=(2, 1, 1), padding=(0, 1, 1)), [f(1, 3, 5, 4, 4), f(4, 3, 1, 3, 3)], grad=(0, 1))
case("conv3d odd sizes", lambda x, w, b: F.conv3d(x, w, b, stride=(3, 2, 1), padding=(2, 0, 1)), [f(1, 2, 9, 5, 4), f(3, 2, 4, 1, 2), f(3)], grad=(0, 1, 2))
case("conv3d groups 2 stride 2 dilation 2", lambda x, w: F.conv3d(x, w, None, stride=2, dilation=2, padding=2, groups=2),
     [f(2, 2, 6, 7, 5), f(4, 1, 2, 2, 3)], grad=(0, 1))


def conv3d_module(mode, **kw):
    def run(x, w, b):
        m = torch.nn.Conv3d(w.shape[1] * kw.get("groups", 1), w.shape[0], tuple(w.shape[2:]), padding_mode=mode, **kw)
        with torch.no_grad():
            m.weight.copy_(w)
            m.bias.copy_(b)
        return m(x)
    return run


case("Conv3d replicate", conv3d_module("replicate", padding=(1, 2, 1), stride=(1, 2, 1)), [f(2, 2, 4, 5, 4), f(3, 2, 3, 3, 2), f(3)], grad=(0,))
case("Conv3d reflect same", conv3d_module("reflect", padding="same"), [f(1, 2, 4, 5, 4), f(2, 2, 2, 3, 3), f(2)], grad=(0,))

# ---- convTranspose3d: values and the gradients of input, weight and bias ----
case("convTranspose3d", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 0), dilation=(1, 2, 1)),
     [f(2, 4, 3, 4, 3), f(4, 3, 2, 3, 2), f(3)], grad=(0, 1, 2))
case("convTranspose3d groups unbatched", lambda x, w: F.conv_transpose3d(x, w, None, stride=2, padding=(0, 1, 0), output_padding=(1, 1, 0), groups=2),
     [f(4, 3, 3, 2), f(4, 2, 3, 2, 2)], grad=(0, 1))
# outputPadding >= stride (allowed when below the dilation), and a padding that crops into the taps.
case("convTranspose3d outputPadding below dilation", lambda x, w, b: F.conv_transpose3d(x, w, b, dilation=(3, 2, 1), padding=(2, 1, 0), output_padding=(2, 1, 0)),
     [f(1, 2, 3, 3, 2), f(2, 3, 2, 2, 3), f(3)], grad=(0, 1, 2))
case("convTranspose3d depthwise stride 3", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(3, 1, 2), output_padding=(2, 0, 1), groups=3),
     [f(1, 3, 2, 3, 3), f(3, 1, 2, 2, 2), f(3)], grad=(0, 1, 2))


def conv_transpose3d_module(x, w, b):
    m = torch.nn.ConvTranspose3d(4, 6, (2, 2, 3), stride=(1, 2, 1), padding=(0, 1, 1), groups=2)
    with torch.no_grad():
        m.weight.copy_(w)
        m.bias.copy_(b)
    return m(x)


case("ConvTranspose3d", conv_transpose3d_module, [f(2, 4, 3, 3, 4), f(4, 3, 2, 2, 3), f(6)], grad=(0,))

# ---- maxPool3d: first maximum in (d, h, w) order; NaN as ATen's loop ----
case("maxPool3d", lambda x: F.max_pool3d(x, 2, return_indices=True), [distinct(1, 3, 5, 6, 7)], grad=(0,))
case("maxPool3d stride padding dilation ceil", lambda x: F.max_pool3d(x, (3, 2, 3), stride=(2, 1, 2), padding=(1, 1, 0), dilation=(1, 2, 1), ceil_mode=True, return_indices=True),
     [distinct(1, 2, 6, 7, 8)], grad=(0,))
# D = 5, k = 3, s = 3, p = 1: ceilMode's last window would start in the right padding and is dropped.
case("maxPool3d ceil dropped window", lambda x: F.max_pool3d(x, 3, stride=3, padding=1, ceil_mode=True, return_indices=True), [distinct(1, 2, 5, 5, 7)], grad=(0,))
case("maxPool3d ties", lambda x: F.max_pool3d(x, 2, stride=1, return_indices=True), [ties(2, 2, 4, 5, 4)], grad=(0,))
case("maxPool3d ties padding ceil", lambda x: F.max_pool3d(x, (2, 3, 2), stride=(2, 2, 1), padding=(1, 1, 0), ceil_mode=True, return_indices=True), [ties(1, 3, 5, 5, 4)], grad=(0,))
case("MaxPool3d ties gradient", lambda x: torch.nn.MaxPool3d(2, stride=1, padding=1)(x), [ties(1, 2, 4, 4, 5)], grad=(0,))
nan_in = f(1, 2, 4, 4, 4)
nan_in[0, 0, 0, 0, 1] = nan
nan_in[0, 0, 1, 1, 0] = nan
nan_in[0, 1, 2, 3, 3] = nan
nan_in[0, 1, 3, 2, 2] = nan
case("maxPool3d nan", lambda x: F.max_pool3d(x, 2), [nan_in], grad=(0,))
case("maxPool3d nan overlapping", lambda x: F.max_pool3d(x, 3, stride=1, padding=1), [nan_in], grad=(0,))
case("MaxPool3d unbatched", lambda x: torch.nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), return_indices=True)(x), [distinct(3, 4, 5, 6)], grad=(0,))

# ---- avgPool3d: PyTorch's divisor at the edges ----
# D = 5 (k 3, s 2, p 1): the last window ends in the padding; H = 6 (k 3, s 2, p 1, ceil): it runs past the padded
# input (pool size 2 with countIncludePad); W = 7 (k 2, s 3, p 1, ceil): the window that would start in the padding is dropped.
edge = dict(kernel_size=(3, 3, 2), stride=(2, 2, 3), padding=(1, 1, 1), ceil_mode=True)
case("avgPool3d", lambda x: F.avg_pool3d(x, 2), [f(2, 3, 4, 6, 5)], grad=(0,))
case("avgPool3d edges countIncludePad", lambda x: F.avg_pool3d(x, **edge), [f(1, 2, 5, 6, 7)], grad=(0,))
case("avgPool3d edges countIncludePad false", lambda x: F.avg_pool3d(x, **edge, count_include_pad=False), [f(1, 2, 5, 6, 7)], grad=(0,))
case("avgPool3d edges divisorOverride", lambda x: F.avg_pool3d(x, **edge, divisor_override=5), [f(1, 2, 5, 6, 7)], grad=(0,))
case("avgPool3d divisorOverride countIncludePad false", lambda x: F.avg_pool3d(x, 3, stride=2, padding=1, count_include_pad=False, divisor_override=4), [f(1, 2, 5, 5, 6)], grad=(0,))
case("avgPool3d no ceil padding", lambda x: F.avg_pool3d(x, (2, 3, 3), stride=(1, 2, 2), padding=(1, 1, 0), count_include_pad=False), [f(1, 2, 4, 7, 6)], grad=(0,))
case("AvgPool3d unbatched", lambda x: torch.nn.AvgPool3d(2, stride=(1, 2, 1))(x), [f(3, 4, 5, 6)], grad=(0,))

# ---- adaptive pools: windows [floor(o*in/out), ceil((o+1)*in/out)), overlapping when not divisible ----
case("adaptiveAvgPool3d", lambda x: F.adaptive_avg_pool3d(x, (3, 4, 4)), [f(1, 3, 5, 7, 6)], grad=(0,))
case("adaptiveAvgPool3d keep unbatched", lambda x: torch.nn.AdaptiveAvgPool3d((None, 2, None))(x), [f(2, 4, 5, 3)], grad=(0,))
case("adaptiveAvgPool3d larger than input", lambda x: F.adaptive_avg_pool3d(x, 3), [f(1, 2, 2, 3, 2)], grad=(0,))
case("adaptiveMaxPool3d", lambda x: F.adaptive_max_pool3d(x, (3, 4, 2), return_indices=True), [distinct(1, 2, 5, 7, 6)], grad=(0,))
case("adaptiveMaxPool3d ties keep", lambda x: torch.nn.AdaptiveMaxPool3d((2, None, 3), return_indices=True)(x), [ties(1, 3, 5, 4, 7)], grad=(0,))
case("adaptiveMaxPool3d larger unbatched", lambda x: F.adaptive_max_pool3d(x, (3, 2, 3), return_indices=True), [distinct(2, 2, 3, 2)], grad=(0,))

write("gen_conv3d.py", "conv3d_ref.json", {"cases": CASES})
