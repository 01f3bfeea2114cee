#!/usr/bin/env python3
"""Reference values for sg.linalg's decompositions and matrix functions (svd, svdvals, eigh,
eigvalsh, qr, solveTriangular, luFactor, matrixExp, pinv, lstsq, vectorNorm, matrixNorm, norm,
matrixRank, matrixPower, cross; src/ops/linalg_decomp.cpp, npm/src/linalg/,
tests/js/linalg_decomp.test.mjs), computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg_decomp.py     # writes tests/data/linalg_decomp_ref.json

Each case: an id whose first word names the JS call (the test's CALLS table), the float32
inputs ('grad' marks those differentiated), every output, a random upstream gradient per output
and the gradients of sum(out_k * upstream_k). The inputs are float32 values; PyTorch computes on
them in float64 (as our kernels compute in double) and the results are rounded to float32, except
for the cases whose result depends on float32's eps (matrixRank's and pinv's default tolerance).

Singular and eigen vectors are unique only up to sign, so those cases output quantities that do
not depend on the signs: the values, U·diag(w)·Vh and V·diag(w)·Vᵀ for fixed w, |U|, |Vh|, |V|,
the projector U·Uᵀ; the gradients of such outputs are the same for any sign choice. QR (LAPACK's
signs), LU, the solves and the norms are unique and are compared as they are.
"""
import torch

from ref_json import typed, write

torch.manual_seed(20261129)
CASES = []


def case(cid, fn, inputs, grad=(0,), f32=False):
    """f32: PyTorch computes in float32 (a result that depends on the dtype's eps: matrix_rank)."""
    ins = [(t.clone() if f32 else t.clone().double()).requires_grad_(i in grad) if t.is_floating_point() else t.clone()
           for i, t in enumerate(inputs)]
    out = fn(*ins)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    entry = {"id": cid, "inputs": [dict(typed(t), grad=i in grad) for i, t in enumerate(inputs)],
             "outputs": [typed(o) for o in outs]}
    if grad:
        ups = [torch.randn(o.shape).double() if o.is_floating_point() else None for o in outs]
        total = sum((o * u).sum() for o, u in zip(outs, ups) if u is not None)
        gs = torch.autograd.grad(total, [ins[i] for i in grad])
        entry["upstream"] = [typed(u) if u is not None else None for u in ups]
        entry["grads"] = [typed(g) for g in gs]
    CASES.append(entry)


def distinct(m, n, *batch):
    """Random [*batch, m, n] with singular values spread apart (gradients need them distinct)."""
    k = min(m, n)
    q1, _ = torch.linalg.qr(torch.randn(*batch, m, m))
    q2, _ = torch.linalg.qr(torch.randn(*batch, n, n))
    s = torch.linspace(3.0, 0.6, k) + 0.1 * torch.rand(*batch, k)
    s = s.sort(dim=-1, descending=True).values
    core = torch.zeros(*batch, m, n)
    core[..., range(k), range(k)] = s
    return (q1 @ core @ q2.transpose(-2, -1)).float()


def sym(n, *batch):
    """A random symmetric matrix with eigenvalues spread apart."""
    q, _ = torch.linalg.qr(torch.randn(*batch, n, n))
    lam = torch.linspace(-2.0, 2.5, n) + 0.05 * torch.rand(*batch, n)
    return ((q * lam.unsqueeze(-2)) @ q.transpose(-2, -1)).float()


def well(n, *batch):
    return (torch.randn(*batch, n, n) + n * torch.eye(n)).float()


# ---- svd: invariants of (U, S, Vh); w weighs the singular pairs ----
def svd_invariants(full):
    def f(a, w):
        u, s, vh = torch.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        u, vh = u[..., :, :k], vh[..., :k, :]
        return s, (u * w.unsqueeze(-2)) @ vh, u.abs(), vh.abs()
    return f


for cid, a, full in [("svd square", distinct(4, 4), False), ("svd tall", distinct(5, 3), False),
                     ("svd wide", distinct(3, 5), False), ("svd tall full", distinct(5, 3), True),
                     ("svd wide full", distinct(2, 4), True), ("svd batched", distinct(3, 3, 2, 2), False)]:
    case(cid, svd_invariants(full), [a, torch.randn(min(a.shape[-2:]))])
case("svdvals tall", torch.linalg.svdvals, [distinct(4, 3)])
case("svdvals batched", torch.linalg.svdvals, [distinct(2, 3, 3)])
# svdvals at repeated singular values: finite (only S's term), the identity's gradient is I.
case("svdvals identity", torch.linalg.svdvals, [torch.eye(3)])

# ---- eigh / eigvalsh: A symmetric; its gradient is symmetric as PyTorch's ----
def eigh_invariants(uplo):
    def f(a, w):
        lam, v = torch.linalg.eigh(a, UPLO=uplo)
        return lam, (v * w.unsqueeze(-2)) @ v.transpose(-2, -1), v.abs()
    return f


case("eigh 4x4", eigh_invariants("L"), [sym(4), torch.randn(4)])
case("eigh upper", eigh_invariants("U"), [sym(3), torch.randn(3)])
case("eigh batched", eigh_invariants("L"), [sym(3, 2), torch.randn(3)])
case("eigvalsh 5x5", torch.linalg.eigvalsh, [sym(5)])
# Only the lower triangle is read: an upper triangle of garbage changes nothing.
lower_only = sym(3)
lower_only[0, 1], lower_only[0, 2], lower_only[1, 2] = 7.0, -9.0, 11.0
case("eigvalsh lower", torch.linalg.eigvalsh, [lower_only], grad=())

# ---- qr: unique with LAPACK's signs ----
case("qr tall", lambda a: torch.linalg.qr(a), [torch.randn(5, 3)])
case("qr square batched", lambda a: torch.linalg.qr(a), [torch.randn(2, 3, 3)])
case("qr wide", lambda a: torch.linalg.qr(a), [torch.randn(3, 5)])
case("qr complete wide", lambda a: torch.linalg.qr(a, mode="complete"), [torch.randn(2, 4)])
case("qr complete tall", lambda a: torch.linalg.qr(a, mode="complete"), [torch.randn(4, 2)], grad=())
case("qr r", lambda a: torch.linalg.qr(a, mode="r")[1], [torch.randn(4, 3)], grad=())

# ---- solveTriangular (only A's triangle is read: A is random everywhere) ----
case("solveTriangular upper", lambda a, b: torch.linalg.solve_triangular(a, b, upper=True),
     [well(4), torch.randn(4, 2)], grad=(0, 1))
case("solveTriangular lower", lambda a, b: torch.linalg.solve_triangular(a, b, upper=False),
     [well(3), torch.randn(3, 3)], grad=(0, 1))
case("solveTriangular right", lambda a, b: torch.linalg.solve_triangular(a, b, upper=True, left=False),
     [well(3), torch.randn(2, 3)], grad=(0, 1))
case("solveTriangular unitriangular", lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
     [well(3), torch.randn(3, 2)], grad=(0, 1))
case("solveTriangular broadcast", lambda a, b: torch.linalg.solve_triangular(a, b, upper=True),
     [well(3, 2, 1), torch.randn(3, 3, 2)], grad=(0, 1))

# ---- luFactor: LU and 1-based pivots (gradient of LU, square A) ----
case("luFactor 4x4", torch.linalg.lu_factor, [torch.randn(4, 4)])
case("luFactor batched", torch.linalg.lu_factor, [torch.randn(2, 3, 3)])
case("luFactor tall", torch.linalg.lu_factor, [torch.randn(4, 3)], grad=())
case("luFactor wide", torch.linalg.lu_factor, [torch.randn(2, 4)], grad=())

# ---- matrixExp ----
case("matrixExp 3x3", torch.linalg.matrix_exp, [torch.randn(3, 3)])
case("matrixExp large norm", torch.linalg.matrix_exp, [2.5 * torch.randn(4, 4)])
case("matrixExp batched", torch.linalg.matrix_exp, [0.3 * torch.randn(2, 2, 2)])

# ---- pinv, lstsq (full rank) ----
case("pinv tall", torch.linalg.pinv, [distinct(4, 3)])
case("pinv wide batched", torch.linalg.pinv, [distinct(2, 3, 2)])
rank1 = torch.outer(torch.tensor([1.0, 2.0, -1.0]), torch.tensor([0.5, -1.0]))
case("pinv rank-deficient", torch.linalg.pinv, [rank1], grad=(), f32=True)
case("lstsq tall", lambda a, b: torch.linalg.lstsq(a, b).solution, [distinct(5, 3), torch.randn(5, 2)], grad=(0, 1))
case("lstsq vector", lambda a, b: torch.linalg.lstsq(a, b.unsqueeze(-1)).solution.squeeze(-1),
     [distinct(4, 2), torch.randn(4)], grad=(0, 1))

# ---- norms ----
x = torch.randn(3, 4)
case("vectorNorm 2", lambda t: torch.linalg.vector_norm(t), [x])
case("vectorNorm 1 dim", lambda t: torch.linalg.vector_norm(t, 1, dim=1), [x])
case("vectorNorm inf keepdim", lambda t: torch.linalg.vector_norm(t, float("inf"), dim=0, keepdim=True), [x])
case("vectorNorm 3 dims", lambda t: torch.linalg.vector_norm(t, 3, dim=(0, 1)), [x])
case("vectorNorm -1", lambda t: torch.linalg.vector_norm(t, -1, dim=1), [x])
case("vectorNorm zero", lambda t: torch.linalg.vector_norm(t), [torch.zeros(3)])
a = distinct(3, 4, 2)
for ord_ in ["fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf")]:
    case(f"matrixNorm {ord_}", lambda t, o=ord_: torch.linalg.matrix_norm(t, ord=o), [a])
case("matrixNorm nuc dims keepdim", lambda t: torch.linalg.matrix_norm(t, ord="nuc", dim=(0, 2), keepdim=True),
     [distinct(3, 4, 2).permute(1, 0, 2).contiguous()])
case("norm flat", lambda t: torch.linalg.norm(t), [torch.randn(2, 3, 2)])
case("norm matrix 2", lambda t: torch.linalg.norm(t, 2), [distinct(3, 3)])
case("norm vector 1", lambda t: torch.linalg.norm(t, 1), [torch.randn(5)])
case("norm dim", lambda t: torch.linalg.norm(t, dim=1), [torch.randn(2, 3)])

# ---- matrixRank, matrixPower, cross ----
r2 = distinct(4, 4)
u, s, vh = torch.linalg.svd(r2.double())
s[2:] = 0
case("matrixRank", torch.linalg.matrix_rank, [torch.stack([(u * s.unsqueeze(-2) @ vh).float(), r2])], grad=(), f32=True)
case("matrixRank hermitian", lambda t: torch.linalg.matrix_rank(t, hermitian=True), [sym(3)], grad=(), f32=True)
case("matrixPower 3", lambda t: torch.linalg.matrix_power(t, 3), [0.5 * torch.randn(3, 3)])
case("matrixPower -2", lambda t: torch.linalg.matrix_power(t, -2), [well(3, 2)])
case("matrixPower 0", lambda t: torch.linalg.matrix_power(t, 0), [torch.randn(2, 2)], grad=())
case("cross", lambda p, q: torch.linalg.cross(p, q), [torch.randn(4, 3), torch.randn(4, 3)], grad=(0, 1))
case("cross broadcast dim", lambda p, q: torch.linalg.cross(p, q, dim=0), [torch.randn(3, 2), torch.randn(3, 1)],
     grad=(0, 1))

# ---- float64: the kernels' double results kept in double (17 significant digits) ----
F64 = []


def f64_case(cid, fn, inputs):
    ins = [t.double() for t in inputs]
    out = fn(*ins)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    F64.append({"id": cid, "inputs": [{"shape": list(t.shape), "data": t.reshape(-1).tolist()} for t in ins],
                "outputs": [{"shape": list(o.shape), "dtype": "int32" if not o.is_floating_point() else "float64",
                             "data": o.reshape(-1).tolist()} for o in outs]})


f64_case("svdvals", torch.linalg.svdvals, [torch.randn(2, 4, 3)])
f64_case("eigvalsh", torch.linalg.eigvalsh, [sym(4).double() + 1e-3 * torch.eye(4)])
f64_case("qr", torch.linalg.qr, [torch.randn(4, 3)])
f64_case("luFactor", torch.linalg.lu_factor, [torch.randn(3, 3)])
f64_case("matrixExp", torch.linalg.matrix_exp, [torch.randn(3, 3)])
f64_case("solveTriangular", lambda a, b: torch.linalg.solve_triangular(a, b, upper=False),
         [torch.randn(3, 3) + 3 * torch.eye(3), torch.randn(3, 2)])

write("gen_linalg_decomp.py", "linalg_decomp_ref.json", {"cases": CASES, "float64": F64})
