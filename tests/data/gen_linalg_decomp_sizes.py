#!/usr/bin/env python3
"""Reference values for the decomposition kernels at the sizes and spectra that exercise their
blocking (src/kernels/reference/linalg_decomp.cpp: rotations applied to strips of 8 rows and
flushed every 16384 rotations, vectorized dot products in lane pairs, sums of squares with a
scaled fallback), for tests/js/linalg_decomp_sizes.test.mjs. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg_decomp_sizes.py   # writes tests/data/linalg_decomp_sizes_ref.json

As gen_linalg_decomp.py: float32 inputs, PyTorch computing on them in float64, results rounded to
float32; vectors only through quantities that do not depend on their signs (U·diag(w)·Vh,
V·diag(w)·Vᵀ, |U|), and, where singular or eigen values repeat or vanish, only through smooth
functions of A (U·diag(σ³)·Vh, V·diag(λ³)·Vᵀ), which any valid factorization gives.

The large cases (svd of 160×150, eigh of 200×200: enough rotations to flush mid-run) take their
matrix from a formula the test evaluates too (`formula`, exact in double, then rounded to float32)
instead of storing it, and store the values and y = U·diag(w)·Vh·x (V·diag(w)·Vᵀ·x) for the
formula's w and x: n numbers instead of n² each.
"""
import torch

from ref_json import typed, write

torch.manual_seed(20261130)
CASES, F64 = [], []


def case(cid, fn, inputs):
    ins = [t.double() for t in inputs]
    out = fn(*ins)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    CASES.append({"id": cid, "inputs": [typed(t) for t in inputs], "outputs": [typed(o) for o in outs]})


def with_spectrum(m, n, s):
    """Q1·diag(s)·Q2ᵀ (m×n) for random orthogonal Q1, Q2, rounded to float32."""
    q1, _ = torch.linalg.qr(torch.randn(m, m, dtype=torch.float64))
    q2, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64))
    core = torch.zeros(m, n, dtype=torch.float64)
    k = len(s)
    core[range(k), range(k)] = torch.tensor(s, dtype=torch.float64)
    return (q1 @ core @ q2.T).float()


def distinct(m, n):
    k = min(m, n)
    return with_spectrum(m, n, (torch.linspace(3.0, 0.4, k) + 0.02 * torch.rand(k)).sort(descending=True).values.tolist())


def sym_spectrum(lam):
    n = len(lam)
    q, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64))
    return ((q * torch.tensor(lam, dtype=torch.float64)) @ q.T).float()


def svd_w(a, w):
    """S, U·diag(w)·Vh, |U|, |Vh| (distinct singular values)."""
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    return s, (u * w) @ vh, u.abs(), vh.abs()


def svd_smooth(a):
    """S and U·diag(σ³)·Vh = A·Aᵀ·A: defined whatever the multiplicities."""
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    return s, (u * s**3) @ vh


def eigh_w(uplo):
    def f(a, w):
        lam, v = torch.linalg.eigh(a, UPLO=uplo)
        return lam, (v * w) @ v.T, v.abs()
    return f


def eigh_smooth(a):
    lam, v = torch.linalg.eigh(a)
    return lam, (v * lam**3) @ v.T


# ---- svd: 1×1, one strip plus a row, tall and wide past a strip, several strips ----
case("svd 1x1", svd_w, [torch.tensor([[-2.5]]), torch.tensor([0.7])])
for cid, (m, n) in [("svd 9x9", (9, 9)), ("svd 17x11", (17, 11)), ("svd 11x17", (11, 17)), ("svd 33x33", (33, 33))]:
    case(cid, svd_w, [distinct(m, n), torch.randn(min(m, n))])
# Rank 7 of 24×20: zero singular values (the sweeps' deflation by negligible s[k]).
case("svd rank-deficient 24x20", svd_smooth, [(torch.randn(24, 7) @ torch.randn(7, 20)).float()])
# Repeated and clustered singular values (equal in double, apart by float32 rounding).
case("svd repeated 12x12", svd_smooth, [with_spectrum(12, 12, [3, 3, 3, 2, 2, 1, 1, 1, 1, 0.5, 0.25, 0.25])])
case("svd clustered 10x10", svd_smooth, [with_spectrum(10, 10, [2 + 1e-4 * i for i in range(10)])])
case("svd zero 5x4", svd_smooth, [torch.zeros(5, 4)])
case("svdvals 19x19", lambda a: torch.linalg.svdvals(a), [torch.randn(19, 19)])

# ---- eigh ----
case("eigh 1x1", eigh_w("L"), [torch.tensor([[-1.5]]), torch.tensor([0.3])])
lam9 = (torch.linspace(-2, 2, 9) + 0.02 * torch.rand(9)).tolist()
case("eigh 9x9", eigh_w("L"), [sym_spectrum(lam9), torch.randn(9)])
lam17 = (torch.linspace(-3, 1, 17) + 0.02 * torch.rand(17)).tolist()
case("eigh 17x17 upper", eigh_w("U"), [sym_spectrum(lam17), torch.randn(17)])
case("eigh repeated 12x12", eigh_smooth, [sym_spectrum([1, 1, 1, -2, -2, 0.5, 0.5, 0.5, 0.5, 3, 0, 0])])
case("eigh clustered 11x11", eigh_w("L"), [sym_spectrum([1 + 1e-3 * i for i in range(11)]), torch.randn(11)])
case("eigh diagonal 6x6", eigh_smooth, [torch.diag(torch.tensor([2.0, -1.0, 2.0, 0.0, -1.0, 2.0]))])
case("eigh zero 4x4", eigh_smooth, [torch.zeros(4, 4)])
case("eigvalsh 25x25", lambda a: torch.linalg.eigvalsh(a), [(lambda r: r + r.T)(torch.randn(25, 25))])


# ---- large, from a formula (the test's twin of these three functions) ----
def formula_matrix(m, n, sym):
    """A[i, j] = ((37i + 91j + 13ij) mod 1009)/504 − 1, on the lower triangle mirrored when sym (1009 is a
    prime past m and n: no row repeats, the spectra are apart by 0.005 or more)."""
    a = torch.empty(m, n, dtype=torch.float64)
    for i in range(m):
        for j in range(n):
            p, q = (max(i, j), min(i, j)) if sym else (i, j)
            a[i, j] = ((37 * p + 91 * q + 13 * p * q) % 1009) / 504 - 1
    return a.float()


def formula_vector(k, mod):
    return torch.tensor([(i % mod) / mod - 0.5 for i in range(k)], dtype=torch.float64)


def formula_case(cid, kind, m, n):
    a = formula_matrix(m, n, kind == "eigh").double()
    k = min(m, n)
    w, x = formula_vector(k, 7), formula_vector(n, 5)
    if kind == "svd":
        u, s, vh = torch.linalg.svd(a, full_matrices=False)
        outs = [s, (u * w) @ (vh @ x)]
    else:
        lam, v = torch.linalg.eigh(a)
        outs = [lam, (v * w) @ (v.T @ x)]
    CASES.append({"id": cid, "formula": {"kind": kind, "m": m, "n": n}, "outputs": [typed(o) for o in outs]})


formula_case("svd 160x150 formula", "svd", 160, 150)
formula_case("eigh 200x200 formula", "eigh", 200, 200)


# ---- float64 at the ends of the exponent range: the sums of squares over- or underflow ----
def f64_case(cid, fn, a):
    out = fn(a)
    F64.append({"id": cid, "inputs": [{"shape": list(a.shape), "data": a.reshape(-1).tolist()}],
                "outputs": [{"shape": list(out.shape), "dtype": "float64", "data": out.reshape(-1).tolist()}]})


b = torch.randn(5, 4, dtype=torch.float64)
s5 = torch.randn(5, 5, dtype=torch.float64)
s5 = s5 + s5.T
f64_case("svdvals huge", torch.linalg.svdvals, 1e160 * b)
f64_case("svdvals tiny", torch.linalg.svdvals, 1e-160 * b)
f64_case("eigvalsh huge", torch.linalg.eigvalsh, 1e160 * s5)
f64_case("eigvalsh tiny", torch.linalg.eigvalsh, 1e-160 * s5)

write("gen_linalg_decomp_sizes.py", "linalg_decomp_sizes_ref.json", {"cases": CASES, "float64": F64})
