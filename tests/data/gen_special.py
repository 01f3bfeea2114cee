#!/usr/bin/env python3
"""Reference values for PyTorch's special functions (npm/src/special/special.ts, tests/js/special.test.mjs),
computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_special.py   # writes tests/data/special_ref.json

The case format is gen_ops_compose.py's (ref_json.grad_case). Cases with special values (NaN,
±inf, ±0, ±1 for erfinv, the poles of lgamma/digamma/polygamma) compare values only; the
gradient cases use values where the derivative is finite.
"""
import torch

from ref_json import grad_case, write

torch.manual_seed(20261125)
CASES = []
inf, nan = float("inf"), float("nan")


def case(cid, fn, inputs, grad=()):
    CASES.append(grad_case(cid, fn, inputs, grad))


t = lambda *v: torch.tensor(v, dtype=torch.float32)
u = lambda lo, hi, *shape: lo + (hi - lo) * torch.rand(*shape)
S = torch.special

case("erfinv", torch.erfinv, [u(-0.99, 0.99, 3, 4)], grad=(0,))
case("erfinv special", torch.erfinv, [t(1, -1, 1.5, -1.5, 0, -0.0, nan, inf, 0.7, -0.7, 0.999999, 1e-30)])
case("erfc", torch.erfc, [3 * torch.randn(2, 5)], grad=(0,))
case("erfc special", torch.erfc, [t(inf, -inf, nan, 0, -0.0, 10, -10, 30, 9.5, 1e-30)])
case("lgamma", torch.lgamma, [u(-4.5, 6, 12)], grad=(0,))
case("lgamma special", torch.lgamma, [t(0, -0.0, -1, -2, -100, 1, 2, 0.5, -2.5, inf, -inf, nan, 1e-30, 1e20, 3e38)])
case("lgamma int32", torch.lgamma, [torch.tensor([[1, 2, 5], [0, -3, 10]], dtype=torch.int32)])
# (the gradient case stays off the poles, where ψ is huge and the central values float-sensitive)
case("digamma", torch.digamma, [torch.cat([u(0.05, 12, 8), u(-3.9, -3.1, 2), u(-0.9, -0.1, 2)])], grad=(0,))
case("digamma special", torch.digamma, [t(0, -0.0, -1, -2, -2.5, 1, 10, 1.4616321, inf, -inf, nan, 1e-8, 1e18, -1e-8)])
case("digamma bool", torch.digamma, [torch.tensor([True, False])])
case("polygamma 0", lambda x: torch.polygamma(0, x), [u(0.1, 6, 6)], grad=(0,))
case("polygamma 1", lambda x: torch.polygamma(1, x), [torch.cat([u(0.1, 6, 6), u(-2.9, -2.1, 2)])], grad=(0,))
case("polygamma 2", lambda x: torch.polygamma(2, x), [u(0.2, 8, 6)], grad=(0,))
case("polygamma 3", lambda x: torch.polygamma(3, x), [torch.cat([u(0.3, 8, 4), u(-1.8, -1.2, 2)])], grad=(0,))
case("polygamma 10", lambda x: torch.polygamma(10, x), [t(1, 2, 3.5, 10, 50)])
# (n = 1 at the negative integers is left out: PyTorch's float trigamma gives finite values such as
# 1.29e15 at −1, an artifact of float32 sin(π·x) not being 0 there; the pole is +inf here)
case("polygamma 1 special", lambda x: torch.polygamma(1, x), [t(0, -0.0, 1, inf, nan, 1e-8, 1e10)])
case("polygamma 2 special", lambda x: torch.polygamma(2, x), [t(0, -1, -2, inf, -inf, nan, 1e-3, -0.5)])
case("polygamma int32", lambda x: torch.polygamma(2, x), [torch.tensor([1, 2, 3], dtype=torch.int32)])
case("i0", torch.i0, [4 * torch.randn(3, 4)], grad=(0,))
case("i0 branches", torch.i0, [t(0, -0.0, 8, -8, 8.0001, 7.9999, 20, -20, 80, 100, 1000, inf, -inf, nan)], grad=())
case("i0 grad near 0 and 8", torch.i0, [t(0, 1e-3, -1e-3, 8, -8, 9)], grad=(0,))
case("i0 bool", torch.i0, [torch.tensor([True, False])])
case("special.gammaln", S.gammaln, [u(0.1, 10, 5)], grad=(0,))
case("special.psi", S.psi, [u(0.1, 10, 5)], grad=(0,))
case("special.expit", S.expit, [4 * torch.randn(5)], grad=(0,))
case("special.ndtr", S.ndtr, [torch.cat([3 * torch.randn(6), t(0, 10, -10, -30, inf, -inf)])])
case("special.ndtr grad", S.ndtr, [3 * torch.randn(6)], grad=(0,))
case("special.entr", S.entr, [t(0, -1, 2, 0.5, 1, inf, -inf, nan, 1e-30)])
case("special.entr grad", S.entr, [u(0.05, 3, 6)], grad=(0,))
case("special.log1p", S.log1p, [u(-0.9, 3, 5)], grad=(0,))
case("special.expm1", S.expm1, [u(-3, 3, 5)], grad=(0,))
case("special.exp2", S.exp2, [u(-3, 3, 5)], grad=(0,))
case("special.logit", lambda x: S.logit(x, eps=1e-3), [torch.cat([torch.rand(5), t(0, 1)])], grad=(0,))
case("special.xlogy", S.xlogy, [t(0, 1, 2, 0, 3), t(0, 2, 0.5, -1, 4)])
# (PyTorch's gradient near 0 cancels catastrophically in float32: values only there; sg.sinc's gradient
# near 0 is checked against its closed form in ops_compose.test.mjs)
case("special.sinc", S.sinc, [t(0, 0.5, -1.5, 2.25, 1e-4)])
case("special.sinc grad", S.sinc, [t(0.5, -1.5, 2.25, 0.3)], grad=(0,))
case("special.logsumexp", lambda x: S.logsumexp(x, 1), [torch.randn(3, 4)], grad=(0,))

write("gen_special.py", "special_ref.json", {"cases": CASES})
