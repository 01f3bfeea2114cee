#!/usr/bin/env python3
"""Reference values for svd with vectors past 32 columns, where its kernel takes the bidiagonal's
singular vectors by divide and conquer (src/kernels/reference/linalg_bidiag_dc.cpp: arrowhead
merges with deflation, the secular equation over squared poles, blocked reflectors), for
tests/native/ops_linalg_svd_dc_ref_test.cpp. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg_svd_dc.py   # writes tests/data/linalg_svd_dc_ref.json

Every matrix comes from a formula the test evaluates too (exact in double; float32 cases rounded
once), so the file holds a few numbers a case: the singular values and y = U·diag(w)·Vh·x (a
quantity independent of the vectors' signs) for the formula's w and x, with w = σ³ (then
y = A·Aᵀ·A·x, which any valid basis of a repeated singular value's spaces gives) where singular
values repeat, vanish or cluster. PyTorch computes in float64 on the (rounded) input.

Structures: random-like (distinct values), a matrix that is already bidiagonal with zeros on its
diagonal and superdiagonal (splits, zero poles), repeated values (deflation of equal values),
rank 2 (all but two values zero), every third column zero, a cluster of 1e-7 spacing beside
spread values, graded columns, tall, wide and odd sizes (33, 45, 65, 97: uneven splits), and a
float64 matrix at 1e-160 (scaled into range). For the float32 cases, also PyTorch's own float32
residuals (orthogonality of U and V, reconstruction): the kernel's float32 bidiagonalization and
matrix products keep simdgrad's within them.
"""
import torch

from ref_json import typed, write

torch.set_num_threads(1)  # LAPACK's float32 residuals the same on every run


def formula(m, n, kind):
    """The test's twin (ops_linalg_svd_dc_ref_test.cpp, formula) in float64."""
    a = torch.zeros(m, n, dtype=torch.float64)
    for i in range(m):
        for j in range(n):
            mod = ((37 * i + 91 * j + 13 * i * j) % 1009) / 504 - 1
            if kind == "mod":
                v = mod
            elif kind == "bidiag":  # d_i = i mod 7 − 3, e_i = (i mod 5 − 2)/2: zeros in both
                v = float(i % 7 - 3) if i == j else ((i % 5 - 2) / 2 if j == i + 1 else 0.0)
            elif kind == "repeated":  # 2I + ones on every third row and column
                v = (2.0 if i == j else 0.0) + (1.0 if i % 3 == 0 and j % 3 == 0 else 0.0)
            elif kind == "rank2":
                v = (i % 4 - 1.5) * (j % 5 - 2) + (i % 3 - 1) * (j % 2 - 0.5)
            elif kind == "zerocols":
                v = 0.0 if j % 3 == 0 else mod
            elif kind == "cluster":  # 1 + 1e-7·i on the diagonal, weak couplings, spread tail
                v = (1 + 1e-7 * i if i < n // 2 else float(i)) if i == j else (1e-9 if j == i + 1 else 0.0)
            elif kind == "graded":
                v = mod * 2.0 ** -(j // 8)
            else:
                raise ValueError(kind)
            a[i, j] = v
    return a


def vector(n, mod):
    return torch.tensor([(i % mod) / mod - 0.5 for i in range(n)], dtype=torch.float64)


CASES = []


def case(cid, kind, m, n, smooth=False, dtype="float32", scale=1.0):
    a = formula(m, n, kind) * scale
    if dtype == "float32":
        a = a.float().double()
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    k = min(m, n)
    w = s**3 if smooth else vector(k, 7)
    y = (u * w) @ (vh @ vector(n, 5))
    outs = [s, y]
    entry = {"id": cid, "kind": kind, "m": m, "n": n, "smooth": smooth, "dtype": dtype, "scale": scale}
    if dtype == "float64":
        outs = [{"shape": list(o.shape), "dtype": "float64", "data": o.tolist()} for o in outs]
    else:
        outs = [typed(o) for o in outs]
        # PyTorch's own float32 svd (LAPACK sgesdd) on the same matrix: its residuals, measured in
        # float64 as the test measures simdgrad's (max |UᵀU − I|, |Vh·Vhᵀ − I|, |U·diag(S)·Vh − A| / max|A|).
        u32, s32, vh32 = (t.double() for t in torch.linalg.svd(a.float(), full_matrices=False))
        eye = torch.eye(k, dtype=torch.float64)
        entry["torch32"] = {
            "orthU": (u32.T @ u32 - eye).abs().max().item(),
            "orthV": (vh32 @ vh32.T - eye).abs().max().item(),
            "rec": ((u32 * s32) @ vh32 - a).abs().max().item() / a.abs().max().item(),
        }
    CASES.append({**entry, "outputs": outs})


case("mod 70x70", "mod", 70, 70)
case("mod 33x40", "mod", 33, 40)
case("mod 45x100", "mod", 45, 100)
case("bidiag 65x65", "bidiag", 65, 65, smooth=True)
case("graded 90x70", "graded", 90, 70)
case("zerocols 60x45", "zerocols", 60, 45, smooth=True)
case("float64 mod 100x45", "mod", 100, 45, dtype="float64")
case("float64 bidiag 70x70", "bidiag", 70, 70, smooth=True, dtype="float64")
case("float64 repeated 64x64", "repeated", 64, 64, smooth=True, dtype="float64")
case("float64 rank2 80x50", "rank2", 80, 50, smooth=True, dtype="float64")
case("float64 cluster 80x80", "cluster", 80, 80, smooth=True, dtype="float64")
case("float64 tiny 97x97", "mod", 97, 97, dtype="float64", scale=1e-160)

write("gen_linalg_svd_dc.py", "linalg_svd_dc_ref.json", {"cases": CASES})
