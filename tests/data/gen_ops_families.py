#!/usr/bin/env python3
"""Reference values for rounding, trigonometry, hardtanh, the logical ops, scans, sorting, scatter,
triangles and diagonals, einsum, rearranging and indexing (src/ops/ops.h; replayed by
tests/native/ops_pytorch_ref_test.cpp and tests/js/ops_families.test.mjs), computed by PyTorch.
Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_ops_families.py     # writes tests/data/ops_families_ref.json

Each case: the op's JS name, its inputs (float32 values, int32, or bool as 0/1; 'grad' marks
those differentiated), the attrs as passed to callOp, every output, and for cases with
gradients a fixed upstream gradient per float output and the gradient of every marked input
(torch.autograd.grad of Σ outₖ·upstreamₖ). The inputs are float32 numbers; PyTorch computes in
float64 from them, so the references are the exact results that a float32 implementation should
round to (the tests allow a few float32 roundings). Floats are written with 17 significant
digits; NaN and ±inf as the strings "nan", "inf", "-inf" (JSON has no such numbers).
"""
import json
import math
import os

import torch
import torch.nn.functional as F

torch.manual_seed(20261126)
CASES = []


def num(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float("%.17g" % v)


def enc(t):
    d = t.detach()
    if d.dtype == torch.bool:
        return {"shape": list(d.shape), "dtype": "bool", "data": [int(v) for v in d.reshape(-1).tolist()]}
    if d.dtype in (torch.int64, torch.int32):
        return {"shape": list(d.shape), "dtype": "int32", "data": [int(v) for v in d.reshape(-1).tolist()]}
    return {"shape": list(d.shape), "dtype": "float32", "data": [num(v) for v in d.double().reshape(-1).tolist()]}


def f32(t):
    """t rounded to float32 and held in float64: the exact numbers the tests feed in."""
    return t.float().double()


def case(name, op, fn, inputs, attrs, grad=()):
    """fn(*inputs) is the PyTorch computation (a tensor or a tuple of tensors); float inputs are
    float64 holding float32 values; inputs[i] for i in `grad` are differentiated."""
    inputs = [t.detach().clone() for t in inputs]
    for i in grad:
        inputs[i].requires_grad_(True)
    enc_in = []
    for i, t in enumerate(inputs):
        e = enc(t)
        e["grad"] = i in grad
        enc_in.append(e)
    out = fn(*inputs)
    outs = list(out) if isinstance(out, tuple) else [out]
    entry = {"name": name, "op": op, "inputs": enc_in, "attrs": attrs, "outputs": [enc(o) for o in outs]}
    if grad:
        gos = [f32(torch.randn(o.shape, dtype=torch.float64)) if o.is_floating_point() else None for o in outs]
        total = sum((o * g).sum() for o, g in zip(outs, gos) if g is not None)
        gs = torch.autograd.grad(total, [inputs[i] for i in grad], allow_unused=True)
        grads = [None] * len(inputs)
        for i, g in zip(grad, gs):
            grads[i] = enc(torch.zeros_like(inputs[i]) if g is None else g)
        entry["grad_outputs"] = [None if g is None else enc(g) for g in gos]
        entry["grads"] = grads
    CASES.append(entry)


def U(*shape, lo=-2.0, hi=2.0):
    return f32(torch.rand(*shape, dtype=torch.float64) * (hi - lo) + lo)


def T(values):
    return f32(torch.tensor(values, dtype=torch.float64))


def I(values):
    return torch.tensor(values, dtype=torch.int64)


def B(values):
    return torch.tensor(values, dtype=torch.bool)


# ------------------------------------------------------------------ elementwise math
def elementwise():
    halves = T([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.49, 0.51, 3.7, -3.7, 0.0, 1e7 + 1])
    for op, fn in [("floor", torch.floor), ("ceil", torch.ceil), ("round", torch.round), ("trunc", torch.trunc)]:
        case(op, op, fn, [halves], {}, grad=(0,))
        case(op + " of int32", op, fn, [I([-3, 0, 7])], {})
    case("tan", "tan", torch.tan, [U(3, 4, lo=-1.4, hi=1.4)], {}, grad=(0,))
    case("atan", "atan", torch.atan, [U(3, 4, lo=-5, hi=5)], {}, grad=(0,))
    case("asin", "asin", torch.asin, [U(3, 4, lo=-0.95, hi=0.95)], {}, grad=(0,))
    case("acos", "acos", torch.acos, [U(3, 4, lo=-0.95, hi=0.95)], {}, grad=(0,))
    case("sinh", "sinh", torch.sinh, [U(3, 4, lo=-4, hi=4)], {}, grad=(0,))
    case("cosh", "cosh", torch.cosh, [U(3, 4, lo=-4, hi=4)], {}, grad=(0,))
    case("asin outside [-1, 1] is NaN", "asin", torch.asin, [T([-1.5, 1.0, 2.0])], {})
    case("tan of int32", "tan", torch.tan, [I([0, 1, -2])], {})
    case("atan2 broadcast", "atan2", torch.atan2, [U(3, 1, 4), U(2, 4)], {}, grad=(0, 1))
    case("atan2 signs and zeros", "atan2", torch.atan2, [T([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.0]),
                                                         T([1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 0.0])], {})
    x = T([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    case("hardtanh: gradient 0 at the bounds", "hardtanh", F.hardtanh, [x], {}, grad=(0,))
    case("hardtanh [-0.5, 2]", "hardtanh", lambda t: F.hardtanh(t, -0.5, 2.0), [x],
         {"minVal": -0.5, "maxVal": 2.0}, grad=(0,))
    case("relu6 as hardtanh [0, 6]", "hardtanh", F.relu6, [T([-1.0, 0.0, 3.0, 6.0, 7.0])],
         {"minVal": 0.0, "maxVal": 6.0}, grad=(0,))


# ------------------------------------------------------------------ logical
def logical():
    a = T([0.0, 1.0, float("nan"), -2.0, 0.0, 3.0])
    b = T([0.0, 0.0, 1.0, 5.0, -0.0, 0.0])
    case("logicalAnd float with NaN", "logicalAnd", torch.logical_and, [a, b], {})
    case("logicalOr int/bool broadcast", "logicalOr", torch.logical_or, [I([[0], [3]]), B([True, False, False])], {})
    case("logicalXor", "logicalXor", torch.logical_xor, [a, b], {})
    case("logicalNot", "logicalNot", torch.logical_not, [a], {})
    case("logicalNot int32", "logicalNot", torch.logical_not, [I([0, 4, -1])], {})
    m = T([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    case("any all dims", "any", torch.any, [m], {})
    case("any dim 1", "any", lambda t: torch.any(t, 1), [m], {"dim": 1})
    case("all dim 0 keepdim", "all", lambda t: torch.all(t, 0, keepdim=True), [T([[1.0, 0.0], [2.0, 3.0]])],
         {"dim": 0, "keepdim": True})
    case("all of an empty tensor is true", "all", torch.all, [torch.zeros(0, dtype=torch.float64)], {})
    case("any of an empty tensor is false", "any", torch.any, [torch.zeros(0, dtype=torch.float64)], {})


# ------------------------------------------------------------------ scans
def scans():
    case("cumsum dim 1", "cumsum", lambda t: torch.cumsum(t, 1), [U(2, 5, 3)], {"dim": 1}, grad=(0,))
    case("cumsum dim -1", "cumsum", lambda t: torch.cumsum(t, -1), [U(3, 7)], {"dim": -1}, grad=(0,))
    case("cumsum int32", "cumsum", lambda t: torch.cumsum(t, 0), [I([3, -1, 4, 1, -5])], {"dim": 0})
    case("cumsum bool", "cumsum", lambda t: torch.cumsum(t, 0), [B([True, False, True])], {"dim": 0})
    case("cumprod dim 0", "cumprod", lambda t: torch.cumprod(t, 0), [U(4, 3, lo=0.5, hi=1.5)], {"dim": 0},
         grad=(0,))
    case("cumprod with zeros", "cumprod", lambda t: torch.cumprod(t, 1),
         [T([[2.0, 0.0, 3.0, 0.5], [0.0, 0.0, 2.0, 1.0], [1.5, -2.0, 0.0, 4.0]])], {"dim": 1}, grad=(0,))
    case("cumprod int32", "cumprod", lambda t: torch.cumprod(t, 0), [I([2, -3, 4])], {"dim": 0})


# ------------------------------------------------------------------ sorting
def sorting():
    ties = T([[3.0, 1.0, 2.0, 1.0, 3.0, 0.5], [float("nan"), 2.0, float("nan"), -1.0, 2.0, 0.0]])
    stable = lambda desc: (lambda t: torch.sort(t, dim=1, descending=desc, stable=True))
    case("sort ascending, ties and NaN", "sort", stable(False), [ties], {"dim": 1}, grad=(0,))
    case("sort descending, ties and NaN", "sort", stable(True), [ties], {"dim": 1, "descending": True}, grad=(0,))
    case("sort dim 0", "sort", lambda t: torch.sort(t, dim=0, stable=True), [U(5, 3)], {"dim": 0}, grad=(0,))
    case("sort int32", "sort", lambda t: torch.sort(t, stable=True), [I([[4, -1, 4, 0], [2, 2, 1, 3]])], {})
    case("argsort descending", "argsort", lambda t: torch.argsort(t, dim=-1, descending=True),
         [U(3, 6)], {"descending": True})
    distinct = U(3, 7)
    case("topk largest", "topk", lambda t: torch.topk(t, 3, dim=1), [distinct], {"k": 3, "dim": 1}, grad=(0,))
    case("topk smallest dim 0", "topk", lambda t: torch.topk(t, 2, dim=0, largest=False), [distinct],
         {"k": 2, "dim": 0, "largest": False}, grad=(0,))


# ------------------------------------------------------------------ scatter
def scattering():
    x = U(3, 4)
    idx = I([[2, 0, 1, 2], [0, 1, 2, 0]])
    case("scatter dim 0", "scatter", lambda t, i, s: t.scatter(0, i, s), [x, idx, U(2, 4)], {"dim": 0},
         grad=(0, 2))
    idx1 = I([[3, 0], [1, 1], [2, 0]])
    case("scatterAdd dim 1, repeated indices", "scatterAdd", lambda t, i, s: t.scatter_add(1, i, s),
         [x, idx1, U(3, 2)], {"dim": 1}, grad=(0, 2))
    case("scatterAdd int32", "scatterAdd", lambda t, i, s: t.scatter_add(0, i, s),
         [I([1, 2, 3]), I([0, 2, 0]), I([10, 20, 30])], {"dim": 0})
    case("scatter bool", "scatter", lambda t, i, s: t.scatter(0, i, s), [B([False, False, True]), I([1]), B([True])],
         {"dim": 0})


# ------------------------------------------------------------------ matrices and einsum
def matrices():
    m = U(2, 4, 5)
    for k in (0, 2, -1, -7, 9):
        case("tril diagonal %d" % k, "tril", lambda t, k=k: torch.tril(t, k), [m], {"diagonal": k}, grad=(0,))
        case("triu diagonal %d" % k, "triu", lambda t, k=k: torch.triu(t, k), [m], {"diagonal": k}, grad=(0,))
    case("tril int32", "tril", torch.tril, [I([[1, 2, 3], [4, 5, 6]])], {})
    v = U(3)
    for k in (0, 2, -1):
        case("diag of a vector, %d" % k, "diag", lambda t, k=k: torch.diag(t, k), [v], {"diagonal": k}, grad=(0,))
    a = U(3, 4)
    for k in (0, 1, -2, 3):
        case("diag of a matrix, %d" % k, "diag", lambda t, k=k: torch.diag(t, k), [a], {"diagonal": k}, grad=(0,))
    case("outer", "outer", torch.outer, [U(3), U(4)], {}, grad=(0, 1))
    forms = [
        ("ij,jk->ik", [(3, 4), (4, 5)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
        ("i,j->ij", [(3,), (4,)]),
        ("i,i->", [(5,), (5,)]),
        ("ij->ji", [(3, 4)]),
        ("ii->i", [(4, 4)]),
        ("ii", [(4, 4)]),
        ("ij,kj", [(3, 4), (2, 4)]),
        ("...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 2)]),
        ("bn,anm,bm->ba", [(2, 3), (5, 3, 4), (2, 4)]),
        ("ijk->", [(2, 3, 4)]),
        ("i,i->i", [(1,), (3,)]),
        ("bij,bkj->bik", [(1, 2, 3), (4, 5, 3)]),
    ]
    for eq, shapes in forms:
        ins = [U(*s) for s in shapes]
        case("einsum " + eq, "einsum", lambda *t, eq=eq: torch.einsum(eq, *t), ins, {"equation": eq},
             grad=tuple(range(len(ins))))


# ------------------------------------------------------------------ rearranging and indexing
def rearranging():
    x = U(2, 3, 4)
    case("flip dims [0, 2]", "flip", lambda t: torch.flip(t, [0, 2]), [x], {"dims": [0, 2]}, grad=(0,))
    case("flip int32 dim -1", "flip", lambda t: torch.flip(t, [-1]), [I([[1, 2, 3], [4, 5, 6]])], {"dims": [-1]})
    case("roll flattened", "roll", lambda t: torch.roll(t, 5), [x], {"shifts": [5]}, grad=(0,))
    case("roll two dims", "roll", lambda t: torch.roll(t, (1, -3), (0, 2)), [x], {"shifts": [1, -3], "dims": [0, 2]},
         grad=(0,))
    case("roll by more than the size", "roll", lambda t: torch.roll(t, 7, 1), [x], {"shifts": [7], "dims": [1]})
    case("repeat with a new leading dim", "repeat", lambda t: t.repeat(2, 1, 3), [U(2, 3)], {"repeats": [2, 1, 3]},
         grad=(0,))
    case("repeat int32", "repeat", lambda t: t.repeat(2, 2), [I([[1, 2], [3, 4]])], {"repeats": [2, 2]})
    case("tile with fewer counts", "tile", lambda t: torch.tile(t, (2,)), [U(2, 3)], {"repeats": [2]}, grad=(0,))
    case("tile with more counts", "tile", lambda t: torch.tile(t, (2, 1, 2)), [U(2, 3)], {"repeats": [2, 1, 2]},
         grad=(0,))
    case("select dim 1 index -1", "select", lambda t: t.select(1, -1), [x], {"dim": 1, "index": -1}, grad=(0,))
    case("select dim 0", "select", lambda t: t.select(0, 1), [x], {"dim": 0, "index": 1}, grad=(0,))
    # x[:, -1, :T] and friends; items are [kind, a, b, step] (kind 0 all, 1 position, 2 range, 3 '...').
    big = 2 ** 53 - 1
    case("index [:, -1, :3]", "index", lambda t: t[:, -1, :3], [x], {"items": [0, 0, 0, 1, 1, -1, 0, 1, 2, 0, 3, 1]},
         grad=(0,))
    case("index [..., 1::2]", "index", lambda t: t[..., 1::2], [x], {"items": [3, 0, 0, 1, 2, 1, big, 2]}, grad=(0,))
    case("index [1, -2:]", "index", lambda t: t[1, -2:], [x], {"items": [1, 1, 0, 1, 2, -2, big, 1]}, grad=(0,))
    case("index [-5:10, ..., 0]", "index", lambda t: t[-5:10, ..., 0], [x],
         {"items": [2, -5, 10, 1, 3, 0, 0, 1, 1, 0, 0, 1]}, grad=(0,))


def main():
    elementwise()
    logical()
    scans()
    sorting()
    scattering()
    matrices()
    rearranging()
    out = {"generator": "tests/data/gen_ops_families.py", "torch": torch.__version__, "cases": CASES}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops_families_ref.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote %d cases to %s" % (len(CASES), path))


if __name__ == "__main__":
    main()
