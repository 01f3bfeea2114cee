#!/usr/bin/env python3
"""Reference values for sg.linalg (inv, det, slogdet, logdet, solve, cholesky; src/ops/linalg.cpp,
tests/js/linalg.test.mjs), computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg.py     # writes tests/data/linalg_ref.json

Each case (ref_json.grad_case): an id whose first word names the JS call, the inputs ('grad' marks
those differentiated), every output, and a random upstream gradient per output with the gradients
of sum(out_k * upstream_k). Matrices are random plus a multiple of I (well-conditioned), batched,
broadcast and 1x1 among them.

One case is not PyTorch's float32 first derivative: det's gradient at a singular matrix. There
PyTorch 1.13 returns zeros (its backward perturbs LU's zero pivot and solves against det * I,
which is 0), while its SVD formula (taken when the gradient is differentiated again) gives the
cofactor matrix, the true derivative of the polynomial det. The case holds the latter, computed
in float64 with create_graph=True and rounded to float32.
"""
import torch

from ref_json import grad_case, typed, write

torch.manual_seed(20261126)
CASES = []


def case(cid, fn, inputs, grad=(0,)):
    CASES.append(grad_case(cid, fn, inputs, grad))


def well_conditioned(*shape):
    """Random matrices plus n * I: eigenvalues kept away from 0 (condition numbers of a few)."""
    n = shape[-1]
    return torch.randn(*shape) + n * torch.eye(n)


def spd(*shape):
    """Symmetric positive-definite: M Mᵀ + n I."""
    n = shape[-1]
    m = torch.randn(*shape)
    return m @ m.transpose(-2, -1) + n * torch.eye(n)


# inv
case("inv 4x4", torch.linalg.inv, [well_conditioned(4, 4)])
case("inv batched", torch.linalg.inv, [well_conditioned(2, 3, 3, 3)])
case("inv 1x1", torch.linalg.inv, [torch.tensor([[-2.5]])])

# det (a random 4x4 has either sign; the batch holds a permutation with det −1)
case("det 4x4", torch.linalg.det, [well_conditioned(4, 4)])
case("det batched", torch.linalg.det, [torch.stack([well_conditioned(3, 3), torch.eye(3)[[1, 0, 2]], torch.randn(3, 3)])])
case("det 1x1", torch.linalg.det, [torch.tensor([[0.75]])])
case("det plain", torch.linalg.det, [torch.randn(5, 5)])

# slogdet / logdet: a negative and a positive determinant
neg = well_conditioned(3, 3)
neg[0] = -neg[0]
case("slogdet 3x3", torch.linalg.slogdet, [neg])
case("slogdet batched", torch.linalg.slogdet, [torch.stack([neg, well_conditioned(3, 3), spd(3, 3)])])
case("logdet spd", torch.logdet, [spd(4, 4)])
case("logdet batched", torch.logdet, [torch.stack([spd(3, 3), neg, spd(3, 3)])])
case("slogdet singular", torch.linalg.slogdet, [torch.tensor([[1.0, 2.0], [2.0, 4.0]])], grad=())
case("logdet singular", torch.logdet, [torch.tensor([[1.0, 2.0], [2.0, 4.0]])], grad=())

# solve: matrix B, vectors (1-D broadcast, batched), broadcast batch dims, 1x1
case("solve matrix", torch.linalg.solve, [well_conditioned(4, 4), torch.randn(4, 2)], grad=(0, 1))
case("solve vector", torch.linalg.solve, [well_conditioned(3, 3), torch.randn(3)], grad=(0, 1))
case("solve vector broadcast", torch.linalg.solve, [well_conditioned(2, 3, 3), torch.randn(3)], grad=(0, 1))
case("solve batched vectors", torch.linalg.solve, [well_conditioned(2, 3, 3), torch.randn(2, 3)], grad=(0, 1))
case("solve broadcast batch", torch.linalg.solve, [well_conditioned(2, 1, 3, 3), torch.randn(4, 3, 2)], grad=(0, 1))
case("solve 1x1", torch.linalg.solve, [torch.tensor([[4.0]]), torch.tensor([[2.0, -1.0]])], grad=(0, 1))

# cholesky: lower and upper, batched (A symmetric: torch reads one triangle)
case("cholesky 4x4", torch.linalg.cholesky, [spd(4, 4)])
case("cholesky upper", lambda a: torch.linalg.cholesky(a, upper=True), [spd(4, 4)])
case("cholesky batched", torch.linalg.cholesky, [spd(2, 3, 3)])
case("cholesky 1x1", torch.linalg.cholesky, [torch.tensor([[9.0]])])

# det at singular matrices: value by float32 PyTorch, gradient by its SVD formula in float64.
for cid, m in [("det singular rank 2", [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),
               ("det singular rank 1", [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]])]:
    a = torch.tensor(m)
    entry = grad_case(cid, torch.linalg.det, [a], grad=())
    a64 = a.double().requires_grad_(True)
    (g,) = torch.autograd.grad(torch.linalg.det(a64), a64, create_graph=True)
    entry["inputs"][0]["grad"] = True
    entry["upstream"] = [typed(torch.tensor(1.0))]
    entry["grads"] = [typed(g.float())]
    CASES.append(entry)

write("gen_linalg.py", "linalg_ref.json", {"cases": CASES})
