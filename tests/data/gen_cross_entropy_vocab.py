#!/usr/bin/env python3
"""Reference values for F.crossEntropy over many classes (tests/js/cross_entropy_vocab.test.mjs),
computed by PyTorch 1.13's F.cross_entropy. Run with Debian's PyTorch (CPU):

    /usr/bin/python3 tests/data/gen_cross_entropy_vocab.py   # writes tests/data/cross_entropy_vocab_ref.json

The class counts are odd around the SIMD widths (the fused kernel's tails: 1, 5, 7, 33, 1031),
in float32 and float64, with ignored rows (the default -100 and a class index), class weights,
label smoothing, the three reductions and a [N, C, d] input. Inputs are not stored: the test
rebuilds them from the same integer formulas (exact in both dtypes: multiples of 1/128), so
only the loss and the input's gradient are written. For reduction 'none' the gradient is that of
sum(loss · g) with g_r = (r + 1) / 4. float32 values are written with 9 significant digits
(they round-trip), float64 with 17; NaN as null."""
import json
import os

import torch
import torch.nn.functional as F


def logits(shape, seed, dtype):
    n = 1
    for s in shape:
        n *= s
    v = [((i * 7919 + seed * 104729) % 2001 - 1000) / 128.0 for i in range(n)]
    return torch.tensor(v, dtype=dtype).reshape(shape)


def targets(n, classes, seed):
    return torch.tensor([(r * 31 + seed) % classes for r in range(n)], dtype=torch.int64)


def weights(classes, seed, dtype):
    return torch.tensor([0.5 + ((c * 37 + seed) % 64) / 64.0 for c in range(classes)], dtype=dtype)


def fmt(t, dtype):
    digits = "%.9g" if dtype == torch.float32 else "%.17g"
    return [None if v != v else float(digits % v) for v in t.detach().reshape(-1).tolist()]  # NaN: null


CASES = []


def case(name, dtype, shape, seed, weighted=False, ignore_rows=(), ignore_index=-100, smoothing=0.0,
         reduction="mean"):
    classes = shape[1] if len(shape) > 1 else shape[0]
    x = logits(shape, seed, dtype).requires_grad_(True)
    tshape = [shape[0]] + list(shape[2:]) if len(shape) > 1 else []
    n = 1
    for s in tshape:
        n *= s
    t = targets(n, classes, seed)
    for r in ignore_rows:
        t[r] = ignore_index
    t = t.reshape(tshape)
    w = weights(classes, seed, dtype) if weighted else None
    loss = F.cross_entropy(x, t, weight=w, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=smoothing)
    if reduction == "none":
        g = torch.tensor([(r + 1) / 4.0 for r in range(loss.numel())], dtype=dtype).reshape(loss.shape)
        (loss * g).sum().backward()
    else:
        loss.backward()
    CASES.append({
        "name": name, "dtype": "float32" if dtype == torch.float32 else "float64", "shape": list(shape),
        "seed": seed, "weighted": weighted, "ignoreRows": list(ignore_rows), "ignoreIndex": ignore_index,
        "labelSmoothing": smoothing, "reduction": reduction,
        "target": [int(v) for v in t.reshape(-1).tolist()],
        "loss": fmt(loss, dtype), "lossShape": list(loss.shape), "grad": fmt(x.grad, dtype),
    })


seed = 1
for dtype in (torch.float32, torch.float64):
    tag = "f32" if dtype == torch.float32 else "f64"
    for C in (1, 5, 7, 33, 1031):
        R = 4 if C > 100 else 7
        case(f"{tag} C={C} mean", dtype, [R, C], seed)
        if C < 100:  # (the widest class count gets two cases: the file stays small)
            case(f"{tag} C={C} weights, ignored rows (-100), sum", dtype, [R, C], seed + 1, weighted=True,
                 ignore_rows=(1, 4), reduction="sum")
            case(f"{tag} C={C} none, ignored row", dtype, [R, C], seed + 2, ignore_rows=(2,), reduction="none")
        if C > 1:
            case(f"{tag} C={C} weights, ignoreIndex 0, smoothing 0.1, mean", dtype, [R, C], seed + 3,
                 weighted=True, ignore_rows=(0, 3), ignore_index=0, smoothing=0.1)
            if C < 100:
                case(f"{tag} C={C} smoothing 0.25, none", dtype, [R, C], seed + 4, smoothing=0.25, reduction="none")
        seed += 5
    case(f"{tag} [N, C, d] = [2, 33, 3], weights, smoothing 0.2, mean", dtype, [2, 33, 3], seed, weighted=True,
         ignore_rows=(4,), smoothing=0.2)
    case(f"{tag} every row ignored, mean (0/0: NaN)", dtype, [3, 7], seed + 1, ignore_rows=(0, 1, 2))
    seed += 2

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cross_entropy_vocab_ref.json")
with open(out, "w") as fh:
    json.dump({"generator": "tests/data/gen_cross_entropy_vocab.py", "torch": torch.__version__, "cases": CASES}, fh,
              separators=(",", ":"))
print(f"wrote {len(CASES)} cases to {out}")
