#!/usr/bin/env python3
"""Reference values for eigh past 32 rows, where its kernel takes the eigenvectors by divide and
conquer (src/kernels/reference/linalg_tridiag_dc.cpp: merges with deflation, the secular equation,
blocked reflectors), for tests/js/linalg_eigh_dc.test.mjs. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg_eigh_dc.py   # writes tests/data/linalg_eigh_dc_ref.json

Every matrix comes from a formula the test evaluates too (exact in double; float32 cases rounded
once), so the file holds n numbers a case, not n²: the eigenvalues and y = V·diag(w)·Vᵀ·x (a
quantity independent of the vectors' signs) for the formula's w and x, with w = λ³ (a smooth
function of A, which any valid basis of a repeated eigenvalue's space gives) where eigenvalues
repeat or cluster. PyTorch computes in float64 on the (rounded) input.

Spectra: random-like (distinct), repeated (whole deflation of equal values), a diagonal (every z
entry zero: nothing left for the secular equation), glued Wilkinson matrices (pairs of eigenvalues
equal to 1e-14, tiny couplings between blocks), a cluster of 1e-7 spacing beside spread values,
sizes that split unevenly (33, 65, 97), a batch, float64 at 1e±160, and a float64 gradient.
For the float32 cases, also PyTorch's own float32 residuals (orthogonality, reconstruction): the
kernel's float32 matrix products keep simdgrad's within them.
"""
import torch

from ref_json import typed, write

torch.set_num_threads(1)  # LAPACK's float32 residuals the same on every run


def formula(n, kind):
    """The test's twin (linalg_eigh_dc.test.mjs, formulaMatrix) in float64."""
    a = torch.zeros(n, n, dtype=torch.float64)
    for i in range(n):
        for j in range(i + 1):
            if kind == "mod":  # ((37i + 91j + 13ij) mod 1009)/504 − 1 on the lower triangle, mirrored
                v = ((37 * i + 91 * j + 13 * i * j) % 1009) / 504 - 1
            elif kind == "diagonal":  # diag(i mod 3 − 1)
                v = float(i % 3 - 1) if i == j else 0.0
            elif kind == "wilkinson":  # W21+ blocks glued by 1e-8
                if i == j:
                    v = float(abs(10 - i % 21))
                elif i == j + 1:
                    v = 1e-8 if i % 21 == 0 else 1.0
                else:
                    v = 0.0
            elif kind == "repeated":  # 2I + rank-1 ones on every third index: eigenvalue 2 repeated
                v = (2.0 if i == j else 0.0) + (1.0 if i % 3 == 0 and j % 3 == 0 else 0.0)
            elif kind == "cluster":  # 1 + 1e-7·i on the diagonal, weak couplings, spread tail
                v = (1 + 1e-7 * i if i < n // 2 else float(i)) if i == j else (1e-9 if i == j + 1 else 0.0)
            a[i, j] = a[j, i] = v
    return a


def vector(n, mod):
    return torch.tensor([(i % mod) / mod - 0.5 for i in range(n)], dtype=torch.float64)


CASES = []


def case(cid, kind, n, smooth=False, dtype="float32", scale=1.0):
    a = formula(n, kind) * scale
    if dtype == "float32":
        a = a.float().double()
    lam, v = torch.linalg.eigh(a)
    w = lam**3 if smooth else vector(n, 7)
    y = (v * w) @ (v.T @ vector(n, 5))
    outs = [lam, y]
    entry = {"id": cid, "kind": kind, "n": n, "smooth": smooth, "dtype": dtype, "scale": scale}
    if dtype == "float64":
        outs = [{"shape": list(o.shape), "dtype": "float64", "data": o.tolist()} for o in outs]
    else:
        outs = [typed(o) for o in outs]
        # PyTorch's own float32 eigh (LAPACK ssyevd) on the same matrix: its residuals, measured
        # in float64 as the test measures simdgrad's (max |VᵀV − I|, max |V·diag(λ)·Vᵀ − A| / max|A|).
        lam32, v32 = (t.double() for t in torch.linalg.eigh(a.float()))
        entry["torch32"] = {
            "orth": (v32.T @ v32 - torch.eye(n, dtype=torch.float64)).abs().max().item(),
            "rec": ((v32 * lam32) @ v32.T - a).abs().max().item() / a.abs().max().item(),
        }
    CASES.append({**entry, "outputs": outs})


case("mod 33", "mod", 33)
case("mod 65", "mod", 65)
case("mod 97", "mod", 97)
case("repeated 70", "repeated", 70, smooth=True)
case("diagonal 40", "diagonal", 40, smooth=True)
case("wilkinson 105", "wilkinson", 105, smooth=True)
case("cluster 80", "cluster", 80, smooth=True)
case("float64 mod 120", "mod", 120, dtype="float64")
case("float64 huge 48", "mod", 48, dtype="float64", scale=1e160)
case("float64 tiny 48", "mod", 48, dtype="float64", scale=1e-160)

# A batch of two: the mod matrix and the repeated one, 50×50, in one call.
BATCH = {"kinds": ["mod", "repeated"], "n": 50, "outputs": []}
for kind in BATCH["kinds"]:
    lam, v = torch.linalg.eigh(formula(50, kind).float().double())
    BATCH["outputs"].append([typed(lam), typed((v * lam**3) @ (v.T @ vector(50, 5)))])

# Gradient (float64, 40×40): L = Σ λ·c + xᵀ·V·diag(w)·Vᵀ·x' of eigh(S + Sᵀ), S the mod matrix
# halved; dL/dS·x'' (n numbers) against PyTorch's autograd.
n = 40
s = (formula(n, "mod") / 2).requires_grad_(True)
lam, v = torch.linalg.eigh(s + s.T)
loss = (lam * vector(n, 3)).sum() + vector(n, 5) @ ((v * vector(n, 7)) @ (v.T @ vector(n, 11)))
(g,) = torch.autograd.grad(loss, [s])
GRAD = {"n": n, "gx": (g @ vector(n, 13)).tolist(), "loss": loss.item()}

write("gen_linalg_eigh_dc.py", "linalg_eigh_dc_ref.json", {"cases": CASES, "batch": BATCH, "grad": GRAD})
