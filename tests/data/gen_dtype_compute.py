#!/usr/bin/python3
"""Reference values for computing in float16, bfloat16, int8, uint8 and int64
(tests/js/dtype_compute.test.mjs), from PyTorch 1.13.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_dtype_compute.py
Writes tests/data/dtype_compute_ref.json:
  - cases: one op family at a time (pointwise unary/binary with tensors and numbers, comparisons,
    reductions, softmax/logSoftmax, matmul/linear, conv2d, layerNorm, losses, indexing/scatter,
    cumsum, sort/topk) in each dtype: the inputs (values exactly representable in the dtype), the
    outputs and, for floating dtypes, the gradients of sum(out * g) for a fixed g in out's dtype.
    Floating cases carry two references: `outputs`/`grads`, PyTorch's float32 computation on the
    same values with each result rounded once to the dtype (what float16/bfloat16 compute as,
    PyTorch's CPU kernels by intent and this library by construction), where an output the op's
    backward reads (tanh's, softmax's, ...) is read as the dtype holds it (rounded: the graph keeps
    the 16-bit result, as PyTorch's half kernels save their half outputs; saved_tensors_hooks round
    it), and `native`/`native_grads`,
    PyTorch 1.13's own kernel in the dtype where its CPU has one (null: "not implemented for
    'Half'"), with `native_apart`, how many ulps of the dtype PyTorch's kernel itself is from the
    first (its backward formulas round each intermediate op: layerNorm's bfloat16 gradient is tens
    of ulps away). Numbers in the functions are rounded to the dtype first, as both libraries do.
  - promote: the dtype and values of a + b for tensors of every pair of the nine dtypes, and of
    a 1-d tensor plus a 0-d tensor of every dtype (torch.result_type's rule for 0-d operands).
"""
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["float32", "int32", "bool", "float16", "bfloat16", "float64", "int64", "int8", "uint8"]
DTYPES = {n: getattr(torch, n) for n in NAMES}
TORCH_NAME = {v: k for k, v in DTYPES.items()}
TORCH_NAME[torch.int16] = "int16"
FLOATS = ["float16", "bfloat16"]
INTS = ["int8", "uint8", "int64"]

gen = torch.Generator().manual_seed(27)

# The dtype of the case being generated: numbers in the op functions are rounded to it first (as
# PyTorch's half kernels and this library both do: a number becomes a 0-d tensor of the tensor's
# dtype), so that the float32 reference sees the same operand.
CURRENT = [torch.float32]


def num(v):
    return float(torch.tensor(v, dtype=torch.float64).to(CURRENT[0]).double())


def rand(shape, lo=-1.0, hi=1.0):
    return torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo


def spec(t):
    """A tensor as the JSON the test reads: dtype, shape, values (bool as 0/1)."""
    v = t.detach()
    values = v.to(torch.float64).reshape(-1).tolist() if v.dtype.is_floating_point else v.reshape(-1).to(torch.int64).tolist()
    return {"dtype": TORCH_NAME[v.dtype], "shape": list(v.shape), "values": values}


# Each floating case: name, the registry op it exercises, input makers (shape, lo, hi) or
# ('int', values, shape), and the function (the JS test has the same function under `name`).
def floating_cases():
    F = torch.nn.functional
    x35 = ((3, 5), -2.0, 2.0)
    pos35 = ((3, 5), 0.25, 3.0)
    row5 = ((5,), -2.0, 2.0)
    cases = []
    for op in ["exp", "tanh", "sigmoid", "relu", "sin", "abs", "neg", "square"]:
        cases.append((op, op, [x35], lambda a, op=op: getattr(torch, op)(a)))
    for op in ["log", "sqrt", "rsqrt", "reciprocal"]:
        cases.append((op, op, [pos35], lambda a, op=op: getattr(torch, op)(a)))
    cases += [
        ("gelu", "gelu", [x35], lambda a: F.gelu(a)),
        ("silu", "silu", [x35], lambda a: F.silu(a)),
        ("add", "add", [x35, row5], lambda a, b: a + b),
        ("sub", "sub", [x35, row5], lambda a, b: a - b),
        ("mul", "mul", [x35, row5], lambda a, b: a * b),
        ("div", "div", [x35, ((5,), 0.5, 2.0)], lambda a, b: a / b),
        ("pow", "pow", [pos35, ((5,), -1.5, 1.5)], lambda a, b: a ** b),
        ("maximum", "maximum", [x35, row5], lambda a, b: torch.maximum(a, b)),
        ("add a number", "add", [x35], lambda a: a + num(0.1)),
        ("mul by a number", "mul", [x35], lambda a: a * num(2.7)),
        ("lt", "lt", [x35, row5], lambda a, b: a < b),
        ("eq a number", "eq", [x35], lambda a: a == 0.5),
        ("sum", "sum", [((4, 50), -2.0, 2.0)], lambda a: a.sum()),
        ("mean over a dim", "mean", [((4, 50), -2.0, 2.0)], lambda a: a.mean(1)),
        ("max over a dim", "max", [x35], lambda a: a.max(1).values),
        ("var over a dim", "var", [x35], lambda a: a.var(1)),
        ("logsumexp", "logsumexp", [x35], lambda a: torch.logsumexp(a, 1)),
        ("prod over a dim", "prod", [((3, 4), 0.5, 1.5)], lambda a: a.prod(1)),
        ("softmax", "softmax", [x35], lambda a: torch.softmax(a, -1)),
        ("logSoftmax", "logSoftmax", [x35], lambda a: torch.log_softmax(a, -1)),
        ("matmul", "matmul", [((3, 8), -1.0, 1.0), ((8, 5), -1.0, 1.0)], lambda a, b: a @ b),
        ("linear", "linear", [((3, 8), -1.0, 1.0), ((5, 8), -1.0, 1.0), ((5,), -1.0, 1.0)], lambda a, w, b: F.linear(a, w, b)),
        ("conv2d", "conv2d", [((1, 2, 5, 5), -1.0, 1.0), ((3, 2, 3, 3), -1.0, 1.0), ((3,), -1.0, 1.0)],
         lambda a, w, b: F.conv2d(a, w, b, padding=1)),
        ("layerNorm", "layerNorm", [x35, row5, row5], lambda a, w, b: F.layer_norm(a, [5], w, b)),
        ("mseLoss", "mseLoss", [x35, x35], lambda a, b: F.mse_loss(a, b)),
        ("crossEntropy", "crossEntropy", [((4, 5), -2.0, 2.0), ("int", [1, 4, 0, 2], (4,))], lambda a, t: F.cross_entropy(a, t)),
        ("gather", "gather", [x35, ("int", [0, 4, 2, 1, 1, 3], (3, 2))], lambda a, i: a.gather(1, i)),
        ("scatterAdd", "scatterAdd", [x35, ("int", [0, 4, 0, 1, 1, 3], (3, 2)), ((3, 2), -1.0, 1.0)],
         lambda a, i, s: a.scatter_add(1, i, s)),
        ("maskedFill", "maskedFill", [x35], lambda a: a.masked_fill(a > 0.5, num(-0.3))),
        ("where", "where", [x35, x35], lambda a, b: torch.where(a > 0, a, b)),
        ("cumsum", "cumsum", [x35], lambda a: torch.cumsum(a, 1)),
        ("sort", "sort", [x35], lambda a: list(torch.sort(a, 1, descending=True))),
        # Distinct values: among ties PyTorch's choice of index (and so of gradient) is unspecified.
        ("topk", "topk", [("values", [(k * 7 % 15) / 4 - 1.75 for k in range(15)], (3, 5))], lambda a: list(torch.topk(a, 2, 1))),
        ("argmax", "argmax", [x35], lambda a: torch.argmax(a, 1)),
    ]
    return cases


def later_cases():
    """Cases added after floating_cases (generated after all of those, in both dtypes, so that
    their inputs, drawn from one generator stream, stay as they were)."""
    F = torch.nn.functional
    x35 = ((3, 5), -2.0, 2.0)
    return [
        ("groupNorm", "groupNorm", [((2, 4, 3), -2.0, 2.0), ((4,), -1.0, 1.0), ((4,), -1.0, 1.0)],
         lambda a, w, b: F.group_norm(a, 2, w, b)),
        # Ops whose backward reads their output (PyTorch's: expm1, sqrt...) or, as PyTorch's, their
        # input only (elu, selu, erfinv): held between forward and backward in the dtype.
        ("elu", "elu", [((3, 5), -6.0, 2.0)], lambda a: F.elu(a)),
        ("selu", "selu", [((3, 5), -6.0, 2.0)], lambda a: F.selu(a)),
        ("expm1", "expm1", [((3, 5), -6.0, 2.0)], lambda a: torch.expm1(a)),
        ("erfinv", "erfinv", [((3, 5), -0.99, 0.99)], lambda a: torch.erfinv(a)),
        ("std over a dim", "std", [x35], lambda a: a.std(1)),
        ("amax over a dim", "amax", [x35], lambda a: a.amax(1)),
        # Training mode: the running statistics (made here, updated in place) are no inputs of the graph.
        ("batchNorm training", "batchNorm", [((4, 3, 5), -2.0, 2.0), ((3,), 0.5, 1.5), ((3,), -1.0, 1.0)],
         lambda a, w, b: F.batch_norm(a, torch.zeros(3, dtype=a.dtype), torch.ones(3, dtype=a.dtype), w, b, training=True)),
    ]


def make_input(m, dtype):
    if m[0] == "int":
        return torch.tensor(m[1], dtype=torch.int64).reshape(m[2])
    if m[0] == "values":
        return torch.tensor(m[1], dtype=torch.float64).reshape(m[2]).to(dtype)
    shape, lo, hi = m
    return rand(shape, lo, hi).to(dtype)


def as_list(out):
    return out if isinstance(out, list) else [out]


def run_case(fn, inputs, dtype, grads_of, saved_outputs_in=None):
    """Forward (and backward, with grads_of giving each floating output's g) in `dtype`. With
    saved_outputs_in, a tensor the graph saved that is one of the outputs is read back by the
    backward rounded to that dtype (and widened again), every other saved tensor as it is."""
    leaves = [t.detach().clone().requires_grad_(t.dtype.is_floating_point) for t in inputs]
    out_ptrs = set()

    def unpack(t):
        if saved_outputs_in is not None and t.is_floating_point() and t.data_ptr() in out_ptrs:
            return t.to(saved_outputs_in).to(t.dtype)
        return t

    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        outs = as_list(fn(*leaves))
    out_ptrs.update(o.data_ptr() for o in outs)
    grads = None
    floats = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    if floats:
        gs = grads_of(floats)
        torch.autograd.backward(floats, [g.to(o.dtype) for o, g in zip(floats, gs)])
        grads = [l.grad if l.grad is not None else None for l in leaves if l.dtype.is_floating_point]
    return outs, grads


def ulps(dtype, a, b):
    """The largest distance between a and b in units in the last place of `dtype` (NaN = NaN)."""
    a, b = a.double(), b.double()
    mant, min_exp = (10, -14) if dtype == torch.float16 else (7, -126)
    m = torch.maximum(a.abs(), b.abs())
    e = torch.clamp(torch.floor(torch.log2(torch.where(m == 0, torch.full_like(m, 2.0 ** min_exp), m))), min=min_exp)
    d = (a - b).abs() / torch.pow(2.0, e - mant)
    d = torch.where(torch.isnan(a) & torch.isnan(b), torch.zeros_like(d), d)
    return float(d.max()) if d.numel() else 0.0


def floating_entry(name, op, makers, fn, dname):
    dtype = DTYPES[dname]
    CURRENT[0] = dtype
    inputs = [make_input(m, dtype) for m in makers]
    gcache = {}

    def grads_of(outs):
        if "g" not in gcache:
            gcache["g"] = [rand(o.shape).to(dtype) for o in outs]
        return gcache["g"]

    # The defined semantics: float32 on the same values, each result rounded once to the dtype.
    wide = [t.float() if t.dtype == dtype else t for t in inputs]
    outs32, grads32 = run_case(fn, wide, torch.float32, grads_of, saved_outputs_in=dtype)
    rounded = [o.to(dtype) if o.dtype.is_floating_point else o for o in outs32]
    rounded_grads = [g.to(dtype) if g is not None else None for g in grads32] if grads32 is not None else None
    # PyTorch's own kernel in the dtype, where 1.13's CPU has one ("not implemented for 'Half'"
    # otherwise), forward and backward.
    native = native_grads = None
    try:
        native, native_grads = run_case(fn, inputs, dtype, grads_of)
    except RuntimeError as e:
        if "not implemented" not in str(e):
            raise
    apart = None
    if native is not None:
        apart = max([0.0] + [ulps(dtype, a, b) for a, b in zip(native, rounded) if a.dtype.is_floating_point] +
                    [ulps(dtype, a, b) for a, b in zip(native_grads or [], rounded_grads or []) if a is not None])
    return {
        "name": name, "op": op, "dtype": dname,
        "inputs": [spec(t) for t in inputs],
        "g": [spec(g) for g in gcache.get("g", [])],
        "outputs": [spec(o) for o in rounded],
        "grads": [spec(g) if g is not None else None for g in rounded_grads] if rounded_grads is not None else None,
        "native": [spec(o) for o in native] if native is not None else None,
        "native_grads": [spec(g) if g is not None else None for g in native_grads] if native_grads is not None else None,
        # how far PyTorch's half kernel itself is from float32-rounded-once (ulps of the dtype)
        "native_apart": apart,
    }


def int_cases():
    return [
        ("add", "add", lambda a, b: a + b),
        ("sub", "sub", lambda a, b: a - b),
        ("mul", "mul", lambda a, b: a * b),
        ("add a number", "add", lambda a, b: a + 3),
        ("maximum", "maximum", lambda a, b: torch.maximum(a, b)),
        ("bitwiseAnd", "bitwiseAnd", lambda a, b: a & b),
        ("bitwiseXor", "bitwiseXor", lambda a, b: a ^ b),
        ("remainder", "remainder", lambda a, b: torch.remainder(a, b)),
        ("floorDivide", "floorDivide", lambda a, b: torch.div(a, b, rounding_mode="floor")),
        ("lt", "lt", lambda a, b: a < b),
        ("eq", "eq", lambda a, b: a == b),
        ("sum", "sum", lambda a, b: a.sum()),
        ("cumsum", "cumsum", lambda a, b: torch.cumsum(a, 0)),
        ("max", "max", lambda a, b: a.max()),
        ("sort", "sort", lambda a, b: list(torch.sort(a, stable=True))),
        ("topk", "topk", lambda a, b: list(torch.topk(a, 3))),
        ("argmax", "argmax", lambda a, b: torch.argmax(a)),
        ("where", "where", lambda a, b: torch.where(a > b, a, b)),
        ("div", "div", lambda a, b: a / b),
    ]


INT_VALUES = {
    # Wrapping on the store: 100 + 100 and 100 * 3 leave int8; 200 + 100 leaves uint8.
    "int8": ([100, -100, 7, -128, 127, 0, 55, -3], [100, -100, -9, 1, 2, 5, 3, 4]),
    "uint8": ([200, 100, 7, 0, 255, 13, 55, 3], [100, 200, 9, 1, 2, 5, 3, 4]),
    "int64": ([1000000, -1000000, 7, -123456789, 987654321, 0, 55, -3], [30000, -7, -9, 1, 2, 5, 3, 4]),
}


def main():
    cases = []
    for dname in FLOATS:
        for name, op, makers, fn in floating_cases():
            cases.append(floating_entry(name, op, makers, fn, dname))
    for dname in FLOATS:
        for name, op, makers, fn in later_cases():
            cases.append(floating_entry(name, op, makers, fn, dname))
    for dname in INTS:
        dtype = DTYPES[dname]
        av, bv = INT_VALUES[dname]
        a, b = torch.tensor(av, dtype=dtype), torch.tensor(bv, dtype=dtype)
        for name, op, fn in int_cases():
            if dname == "int64" and name == "mul":
                # 1000000 * 30000 leaves int32: int64 products are computed only within ±46340
                # (README), so this case multiplies values inside that bound.
                fn = lambda a, b: (a % 40000) * b  # noqa: E731
                name = "mul (values within the int32-exact bound)"
            outs = as_list(fn(a, b))
            cases.append({"name": name, "op": op, "dtype": dname, "inputs": [spec(a), spec(b)],
                          "outputs": [spec(o) for o in outs], "g": [], "grads": None,
                          "native": None, "native_grads": None, "native_apart": None})

    promote = []
    for an in NAMES:
        for bn in NAMES:
            a = torch.tensor([1, 0, 3], dtype=DTYPES[an]) if an == "bool" else torch.tensor([1.5, -2, 3], dtype=torch.float64).to(DTYPES[an])
            b = torch.tensor([1, 1, 0], dtype=DTYPES[bn]) if bn == "bool" else torch.tensor([2.25, 1, -4], dtype=torch.float64).to(DTYPES[bn])
            z = torch.tensor(2.5 if DTYPES[bn].is_floating_point else (1 if bn == "bool" else 2), dtype=DTYPES[bn])
            r, rz = a + b, a + z
            promote.append({"a": spec(a), "b": spec(b), "sum": spec(r), "zero_dim": spec(z), "sum_zero_dim": spec(rz)})

    out = {"cases": cases, "promote": promote}
    with open(os.path.join(HERE, "dtype_compute_ref.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
    for c in cases:
        if c["native_apart"]:
            print(f"{c['dtype']} {c['name']}: PyTorch's own kernel is {c['native_apart']:g} ulps from float32 rounded once")
    print(sum(c["native"] is None for c in cases if c["grads"] is not None), "floating cases without a PyTorch kernel in the dtype")


if __name__ == "__main__":
    main()
