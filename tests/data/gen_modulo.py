#!/usr/bin/env python3
"""Reference values for fmod, remainder, floorDivide and div's rounding modes
(src/ops/modulo.cpp; tests/js/modulo.test.mjs), computed by PyTorch. Run with Debian's PyTorch
(1.13, CPU):

    /usr/bin/python3 tests/data/gen_modulo.py     # writes tests/data/modulo_ref.json

Each case: an id the test maps to its JS call, the inputs (float32 or int32; 'grad' marks those
differentiated), the output, and for cases with gradients a fixed upstream gradient and the
gradient of every marked input (torch.autograd.grad of sum(out * upstream)). Float32 values are
written exactly (ref_json.typed), NaN and infinities as strings. (INT32_MIN by −1 is left out:
PyTorch's CPU kernel dies of SIGFPE there; the test checks its wrap-around by hand.)
"""
import torch

from ref_json import grad_case, write

torch.manual_seed(20261125)
CASES = []
inf, nan = float("inf"), float("nan")


def case(cid, fn, inputs, grad=()):
    CASES.append(grad_case(cid, fn, inputs, grad))

OPS = {
    "fmod": torch.fmod,
    "remainder": torch.remainder,
    "floorDivide": torch.floor_divide,
    "div trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
}
# Random floats of both signs, divisors from tiny to large, b broadcast along the rows.
a = torch.randn(5, 7) * 50
b = torch.randn(7) * 3
b[0] = 1e-3
# Every pair of special values: a down the rows, b across.
sa = torch.tensor([0.0, -0.0, 5.5, -5.5, 1e30, -1e-30, inf, -inf, nan]).reshape(9, 1)
sb = torch.tensor([0.0, -0.0, 3.0, -3.0, 1e-30, 0.1, inf, -inf, nan])
ia = torch.tensor([[7, -7, 0, 2147483647, -2147483647, 13, -13, 100]], dtype=torch.int32).T
ib = torch.tensor([3, -3, 1, -1, 7, 2147483647, -2], dtype=torch.int32)
for name, fn in OPS.items():
    differentiable = name in ("fmod", "remainder")
    case(f"{name} random", fn, [a, b], grad=(0, 1) if differentiable else ())
    case(f"{name} special", fn, [sa, sb])
    case(f"{name} int32", fn, [ia, ib])
    case(f"{name} int32 by float", fn, [ia, torch.tensor(2.5)])
case("div floor grad", lambda a, b: torch.div(a, b, rounding_mode="floor"), [a, b], grad=(0, 1))
case("div trunc grad", lambda a, b: torch.div(a, b, rounding_mode="trunc"), [torch.tensor([1.0, inf, -2.0]), torch.tensor([0.5, 2.0, 0.0])], grad=(0, 1))

write("gen_modulo.py", "modulo_ref.json", {"cases": CASES})
