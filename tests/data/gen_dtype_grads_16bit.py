#!/usr/bin/python3
"""Reference gradients in float16 and bfloat16 of the differentiable ops that npm/README's Backend
support table lists in those dtypes on webgpu (tests/js/dtype_grads_16bit.test.mjs runs them on
every device; tests/js/backend_grad_completeness.test.mjs requires a case here for each such op
and dtype), from PyTorch 1.13.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_dtype_grads_16bit.py
Writes tests/data/dtype_grads_16bit_ref.json: { cases: [{ name, op, dtype, inputs, g, outputs,
grads }] } with the semantics of gen_dtype_compute.py (whose case machinery this reuses): the
inputs hold values exact in the dtype, `outputs` and `grads` (of sum(out * g) for a fixed g) are
PyTorch's float32 computation on those values with each result rounded once to the dtype, an
output that the op's backward reads (softmax's) read back as the dtype holds it.
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_dtype_compute as dc  # noqa: E402  (its module level only defines; main() is not run)

# A stream of its own: dtype_compute_ref.json's inputs come from seed 27.
dc.gen.manual_seed(2811)


def cases():
    F = torch.nn.functional
    x35 = ((3, 5), -2.0, 2.0)
    row5 = ((5,), -2.0, 2.0)
    return [
        ("add", "add", [x35, row5], lambda a, b: a + b),
        ("sub", "sub", [x35, row5], lambda a, b: a - b),
        ("mul", "mul", [x35, row5], lambda a, b: a * b),
        ("square", "square", [x35], lambda a: torch.square(a)),
        ("sum over a dim", "sum", [((6, 7), -2.0, 2.0)], lambda a: a.sum(1)),
        ("sum", "sum", [((6, 7), -2.0, 2.0)], lambda a: a.sum()),
        ("cumsum", "cumsum", [x35], lambda a: torch.cumsum(a, 1)),
        ("softmax", "softmax", [x35], lambda a: torch.softmax(a, -1)),
        ("matmul", "matmul", [((3, 8), -1.0, 1.0), ((8, 5), -1.0, 1.0)], lambda a, b: a @ b),
        ("linear", "linear", [((3, 8), -1.0, 1.0), ((5, 8), -1.0, 1.0), ((5,), -1.0, 1.0)], lambda a, w, b: F.linear(a, w, b)),
        ("layerNorm", "layerNorm", [x35, row5, row5], lambda a, w, b: F.layer_norm(a, [5], w, b)),
        ("gather", "gather", [x35, ("int", [0, 4, 2, 1, 1, 3], (3, 2))], lambda a, i: a.gather(1, i)),
        # A repeated index: its rows' gradients are summed.
        ("indexSelect", "indexSelect", [((4, 5), -2.0, 2.0), ("int", [3, 0, 3, 1], (4,))], lambda a, i: a.index_select(0, i)),
        ("maskedFill", "maskedFill", [x35], lambda a: a.masked_fill(a > 0.5, dc.num(-0.3))),
        ("where", "where", [x35, x35], lambda a, b: torch.where(a > 0, a, b)),
        ("sort", "sort", [x35], lambda a: list(torch.sort(a, 1, descending=True))),
        ("cat", "cat", [((2, 5), -2.0, 2.0), x35], lambda a, b: torch.cat([a, b], 0)),
        ("stack", "stack", [x35, x35], lambda a, b: torch.stack([a, b], 1)),
        ("flip", "flip", [x35], lambda a: torch.flip(a, [1])),
        # Reflect: the edge's neighbours are read twice, their gradients summed.
        ("pad reflect", "pad", [((1, 3, 5), -2.0, 2.0)], lambda a: F.pad(a, [2, 1], mode="reflect")),
        ("pad constant", "pad", [((1, 3, 5), -2.0, 2.0)], lambda a: F.pad(a, [1, 2], value=dc.num(0.5))),
    ]


def main():
    out = []
    for dname in dc.FLOATS:
        for name, op, makers, fn in cases():
            e = dc.floating_entry(name, op, makers, fn, dname)
            # PyTorch's own half kernels are dtype_compute's subject; here the defined semantics only.
            out.append({k: e[k] for k in ("name", "op", "dtype", "inputs", "g", "outputs", "grads")})
    with open(os.path.join(HERE, "dtype_grads_16bit_ref.json"), "w") as f:
        json.dump({"cases": out}, f, separators=(",", ":"))
    print(len(out), "cases")


if __name__ == "__main__":
    main()
