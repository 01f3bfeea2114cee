#!/usr/bin/env python3
"""Reference values for the conv/pool ops (tests/native/nn_conv_test.cpp, nn_pool_test.cpp).

Run with PyTorch installed (1.13 was used):  /usr/bin/python3 tests/data/gen_conv_pool.py
Writes tests/data/conv_pool_ref.json. Each case names a JS op and its attrs exactly as
callOp receives them, the inputs, a fixed upstream gradient, and PyTorch's output and
gradients with respect to every input (null where an input is absent). Inputs are rounded to
4 decimals so the decimal text is the exact float32 value both sides use; PyTorch computes in
float64 from those float32 values, so the references carry no float32 rounding of their own.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(20240611)


def values(shape, lo=-1.0, hi=1.0, ints=None):
    """Float64 values with at most 4 decimals: their shortest text is parsed by both sides
    (strtod, then a cast to float32) into the same float32 values."""
    if ints is not None:
        t = torch.randint(0, ints, shape).to(torch.float64)
    else:
        t = torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo
        t = torch.round(t * 1e4) / 1e4
    return t


def run(op, attrs, xs):
    """The PyTorch call for a JS op name and its attrs."""
    a = attrs
    if op in ("conv1d", "conv2d"):
        f = F.conv1d if op == "conv1d" else F.conv2d
        return f(xs[0], xs[1], xs[2], stride=a.get("stride", 1), padding=a.get("padding", 0),
                 dilation=a.get("dilation", 1), groups=a.get("groups", 1))
    if op == "convTranspose2d":
        return F.conv_transpose2d(xs[0], xs[1], xs[2], stride=a.get("stride", 1), padding=a.get("padding", 0),
                                  output_padding=a.get("outputPadding", 0), groups=a.get("groups", 1),
                                  dilation=a.get("dilation", 1))
    if op in ("maxPool1d", "maxPool2d"):
        f = F.max_pool1d if op == "maxPool1d" else F.max_pool2d
        return f(xs[0], a["kernelSize"], stride=a.get("stride"), padding=a.get("padding", 0),
                 dilation=a.get("dilation", 1), ceil_mode=a.get("ceilMode", False))
    if op in ("avgPool1d", "avgPool2d"):
        f = F.avg_pool1d if op == "avgPool1d" else F.avg_pool2d
        return f(xs[0], a["kernelSize"], stride=a.get("stride"), padding=a.get("padding", 0),
                 ceil_mode=a.get("ceilMode", False), count_include_pad=a.get("countIncludePad", True))
    if op == "adaptiveAvgPool2d":
        return F.adaptive_avg_pool2d(xs[0], a["outputSize"])
    raise ValueError(op)


def tensor_json(t, digits=None):
    """digits=None: the values as they are (shortest repr); else rounded to that many digits."""
    if t is None:
        return None
    flat = t.detach().reshape(-1).tolist()
    if digits is not None:
        flat = [float(("%." + str(digits) + "g") % v) for v in flat]
    return {"shape": list(t.shape), "data": flat}


def case(name, op, attrs, shapes, ints=None):
    """shapes: one per input (None for an absent bias)."""
    texts = [None if s is None else values(s, ints=ints) for s in shapes]
    xs = [None if t is None else t.float().double().requires_grad_(True) for t in texts]
    out = run(op, attrs, xs)
    gy_text = values(list(out.shape))
    gy = gy_text.float().double()
    out.backward(gy)
    return {
        "name": name,
        "op": op,
        "attrs": attrs,
        "inputs": [tensor_json(t) for t in texts],
        "grad_output": tensor_json(gy_text),
        "output": tensor_json(out, 10),
        "grads": [None if x is None else tensor_json(x.grad, 10) for x in xs],
    }


cases = [
    # ---- conv2d
    case("conv2d stride 2, padding 1, bias", "conv2d", {"stride": 2, "padding": 1},
         [[2, 3, 7, 6], [4, 3, 3, 3], [4]]),
    case("conv2d dilation 2, rectangular kernel, per-dim stride/padding, no bias", "conv2d",
         {"stride": [1, 2], "padding": [2, 1], "dilation": 2}, [[1, 2, 8, 7], [3, 2, 3, 2], None]),
    case("conv2d groups 2", "conv2d", {"padding": 1, "groups": 2}, [[2, 4, 5, 5], [6, 2, 3, 3], [6]]),
    case("conv2d depthwise stride 2", "conv2d", {"stride": 2, "padding": [1, 0], "groups": 4},
         [[1, 4, 6, 7], [4, 1, 3, 3], [4]]),
    case("conv2d same, even kernel (asymmetric padding)", "conv2d", {"padding": "same"},
         [[1, 2, 6, 5], [3, 2, 4, 2], [3]]),
    case("conv2d same with dilation [1, 2]", "conv2d", {"padding": "same", "dilation": [1, 2]},
         [[2, 2, 5, 6], [2, 2, 2, 3], None]),
    case("conv2d valid, unbatched, stride [2, 1]", "conv2d", {"padding": "valid", "stride": [2, 1]},
         [[3, 6, 5], [2, 3, 2, 3], [2]]),
    case("conv2d pointwise 1x1", "conv2d", {}, [[2, 3, 4, 4], [5, 3, 1, 1], [5]]),
    # ---- conv1d
    case("conv1d stride 2, padding 1, dilation 2, groups 2", "conv1d",
         {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, [[2, 4, 11], [6, 2, 3], [6]]),
    case("conv1d same, even kernel", "conv1d", {"padding": "same"}, [[1, 3, 9], [2, 3, 4], None]),
    case("conv1d unbatched stride 3", "conv1d", {"stride": [3]}, [[3, 8], [2, 3, 3], [2]]),
    # ---- conv_transpose2d
    case("convTranspose2d stride 2, padding 1, outputPadding 1, groups 2", "convTranspose2d",
         {"stride": 2, "padding": 1, "outputPadding": 1, "groups": 2}, [[2, 4, 4, 3], [4, 3, 3, 3], [6]]),
    case("convTranspose2d dilation 2, per-dim stride/padding/outputPadding, no bias", "convTranspose2d",
         {"stride": [2, 1], "padding": [1, 0], "outputPadding": [1, 0], "dilation": 2},
         [[1, 3, 3, 4], [3, 2, 3, 2], None]),
    case("convTranspose2d outputPadding >= stride but < dilation", "convTranspose2d",
         {"dilation": 2, "outputPadding": 1}, [[1, 2, 4, 4], [2, 3, 2, 2], [3]]),
    case("convTranspose2d unbatched pointwise", "convTranspose2d", {}, [[3, 4, 5], [3, 2, 1, 1], [2]]),
    # ---- max pools
    case("maxPool2d k3 s2 p1 ceilMode", "maxPool2d", {"kernelSize": 3, "stride": 2, "padding": 1, "ceilMode": True},
         [[2, 3, 7, 8]]),
    case("maxPool2d dilation 2, rectangular kernel", "maxPool2d",
         {"kernelSize": [2, 3], "stride": [1, 2], "padding": [1, 1], "dilation": 2}, [[1, 2, 7, 9]]),
    case("maxPool2d ties (first max wins)", "maxPool2d", {"kernelSize": 2, "stride": 1}, [[1, 2, 5, 6]], ints=3),
    case("maxPool2d unbatched, default stride", "maxPool2d", {"kernelSize": 2}, [[3, 5, 7]]),
    case("maxPool1d k3 s2 p1 ceilMode", "maxPool1d", {"kernelSize": 3, "stride": 2, "padding": 1, "ceilMode": True},
         [[2, 3, 10]]),
    case("maxPool1d unbatched dilation 2, ties", "maxPool1d", {"kernelSize": [3], "stride": 1, "dilation": 2},
         [[2, 9]], ints=2),
    # ---- avg pools
    case("avgPool2d k3 s2 p1 ceilMode (window past the padded edge)", "avgPool2d",
         {"kernelSize": 3, "stride": 2, "padding": 1, "ceilMode": True}, [[1, 2, 8, 7]]),
    case("avgPool2d k3 s2 p1 ceilMode countIncludePad false", "avgPool2d",
         {"kernelSize": 3, "stride": 2, "padding": 1, "ceilMode": True, "countIncludePad": False}, [[1, 2, 8, 7]]),
    case("avgPool2d k2 default stride, odd sizes", "avgPool2d", {"kernelSize": 2}, [[2, 2, 5, 7]]),
    case("avgPool2d rectangular, countIncludePad false", "avgPool2d",
         {"kernelSize": [3, 2], "stride": [2, 3], "padding": [1, 1], "countIncludePad": False}, [[1, 1, 6, 8]]),
    case("avgPool1d k3 s2 p1 ceilMode countIncludePad false", "avgPool1d",
         {"kernelSize": 3, "stride": 2, "padding": 1, "ceilMode": True, "countIncludePad": False}, [[2, 2, 10]]),
    case("avgPool1d unbatched k4 s3 p2 ceilMode", "avgPool1d",
         {"kernelSize": 4, "stride": 3, "padding": 2, "ceilMode": True}, [[1, 9]]),
    # ---- adaptive
    case("adaptiveAvgPool2d [3, 4] from 7x10", "adaptiveAvgPool2d", {"outputSize": [3, 4]}, [[2, 2, 7, 10]]),
    case("adaptiveAvgPool2d [4, 5] from 3x3 (upsampling)", "adaptiveAvgPool2d", {"outputSize": [4, 5]},
         [[1, 3, 3, 3]]),
    case("adaptiveAvgPool2d 4 from 5x6, unbatched", "adaptiveAvgPool2d", {"outputSize": 4}, [[2, 5, 6]]),
    case("adaptiveAvgPool2d global [1, 1]", "adaptiveAvgPool2d", {"outputSize": [1, 1]}, [[2, 3, 4, 5]]),
]

out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conv_pool_ref.json")
with open(out_path, "w") as f:
    # One case per line: readable diffs when a case is added or changed.
    f.write('{"generator":%s,\n"cases":[\n' % json.dumps("tests/data/gen_conv_pool.py, PyTorch " + torch.__version__))
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print("wrote", out_path, len(cases), "cases")
