#!/usr/bin/env python3
"""Reference values for sg.linalg.lstsq's four outputs and drivers (rank-deficient, wide, rcond,
batched; gradients in float64), for tests/js/linalg_lstsq.test.mjs. Run with Debian's PyTorch
(1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg_lstsq.py   # writes tests/data/linalg_lstsq_ref.json

PyTorch's torch.linalg.lstsq(A, B, rcond, driver) on the CPU: 'gelsy' (the default) returns the
solution and the rank; 'gelsd'/'gelss' the singular values too; residuals (‖A·X − B‖² per
column) only for m > n, every matrix of full rank, and a driver other than 'gelsy'. A
rank-deficient A gets the minimum-norm solution ('gels' refuses it: the test checks the Error). Matrices of small integers with columns (or
rows) that repeat exactly, so that their rank is exact in float32 and float64 and the JSON holds
them exactly; every output in float64 (rank as integers), the float32 cases' rounded.
"""
import torch

torch.manual_seed(20261129)
CASES = []


def enc(t):
    if t.dtype in (torch.int64, torch.int32):
        return {"shape": list(t.shape), "dtype": "int32", "data": [int(v) for v in t.reshape(-1).tolist()]}
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": t.reshape(-1).tolist()}


def ints(*shape, lo=-4, hi=5):
    return torch.randint(lo, hi, shape).double()


def case(cid, a, b, dtype="float64", grad=False, **kw):
    a, b = a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))
    a64, b64 = a.double().requires_grad_(grad), b.double().requires_grad_(grad)
    # PyTorch on the float32 input computing in float64 (rank, cut-off: the float32 eps's rcond).
    if dtype == "float32" and "rcond" not in kw:
        kw = dict(kw, rcond=max(a.shape[-2:]) * torch.finfo(torch.float32).eps)
    r = torch.linalg.lstsq(a64, b64, **kw)
    entry = {"id": cid, "dtype": dtype, "options": {k: v for k, v in kw.items() if k != "rcond" or dtype == "float64" or "rcond" in cid},
             "inputs": [enc(a), enc(b)], "solution": enc(r.solution.detach().to(a.dtype)),
             "residuals": enc(r.residuals.detach().to(a.dtype)), "rank": enc(r.rank), "singularValues": enc(r.singular_values.detach().to(a.dtype))}
    if grad:
        up = torch.randn(r.solution.shape, dtype=torch.float64)
        ga, gb = torch.autograd.grad((r.solution * up).sum(), [a64, b64])
        entry.update(upstream=enc(up), gradA=enc(ga), gradB=enc(gb))
    CASES.append(entry)


# Tall 6×4 of rank 2 (columns 3, 4 = 1 + 2, 1 − 2).
c = ints(6, 2)
tall_r2 = torch.cat([c, c[:, :1] + c[:, 1:], c[:, :1] - c[:, 1:]], 1)
b63 = ints(6, 3)
case("tall rank 2 gelsy", tall_r2, b63)
case("tall rank 2 gelsd", tall_r2, b63, driver="gelsd")
case("tall rank 2 gelss", tall_r2, b63, driver="gelss")
# Full rank: residuals where PyTorch gives them.
full = ints(6, 4)
case("tall full gelsd", full, b63, driver="gelsd")
case("tall full gels", full, b63, driver="gels")
case("tall full gels vector", full, b63[:, 2], driver="gels")
case("tall full gelsy", full, b63)
case("tall full gelsd vector", full, b63[:, 1], driver="gelsd")
# Wide 3×5 of rank 2 (row 3 = row 1 + row 2).
r = ints(2, 5)
wide_r2 = torch.cat([r, r[:1] + r[1:]], 0)
case("wide rank 2 gelsd", wide_r2, ints(3, 2), driver="gelsd")
# rcond cutting a full-rank matrix: singular values 4, 2, 1, 0.25 (Q1·diag·Q2ᵀ in double).
q1, _ = torch.linalg.qr(torch.randn(5, 5, dtype=torch.float64))
q2, _ = torch.linalg.qr(torch.randn(4, 4, dtype=torch.float64))
spread = q1[:, :4] @ torch.diag(torch.tensor([4.0, 2.0, 1.0, 0.25], dtype=torch.float64)) @ q2.T
case("spread rcond 0.1 gelsd", spread, ints(5, 2), driver="gelsd", rcond=0.1)
# (gelsy with an rcond that drops nonzero singular values truncates its pivoted QR's R instead of
# the SVD: another solution, which sg's lstsq does not reproduce; it gives gelsd's, as here.)
case("spread rcond 0.3 gelss", spread, ints(5, 2), driver="gelss", rcond=0.3)
# A batch: one of full rank, one of rank 2.
case("batch gelss", torch.stack([full[:5, :3], tall_r2[:5, :3]]), ints(2, 5, 2), driver="gelss")
# float32, rank-deficient.
case("float32 tall rank 2 gelsd", tall_r2, b63, dtype="float32", driver="gelsd")
# Gradients (float64): full rank, and rank 2 (pinv's gradient at the cut, as PyTorch's).
case("grad tall full", full[:5, :3] + torch.eye(5, 3, dtype=torch.float64), ints(5, 2), grad=True)
case("grad wide full", ints(3, 5), ints(3, 2), grad=True)
case("grad tall rank 2", tall_r2, b63, grad=True, driver="gelsd")

import json
import os

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_lstsq_ref.json")
with open(path, "w") as f:
    json.dump({"generator": f"tests/data/gen_linalg_lstsq.py, torch {torch.__version__}", "cases": CASES}, f, separators=(",", ":"))
    f.write("\n")
print("wrote", path, os.path.getsize(path), "bytes")
