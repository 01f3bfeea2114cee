#!/usr/bin/env python3
"""PyTorch 1.13's own float32 accuracy for svd and eigh, the yardstick of
tests/js/linalg_f32_accuracy.test.mjs. simdgrad's float32 eigh runs the divide-and-conquer
merges' products and the back-transformation by Q in float32 (src/kernels/reference/linalg_decomp.cpp),
as LAPACK's ssyevd does for PyTorch: the test checks that its residuals, and the svd's, stay at
PyTorch's level on the same inputs. Run with Debian's
PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg_f32_accuracy.py   # writes tests/data/linalg_f32_accuracy_ref.json

Inputs come from an integer formula the test evaluates too (exact in float32; powers of two for
the graded cases), at the bench's sizes (svd 256×256, eigh 512×512) and tall, wide, odd-sized
and graded cases. For PyTorch's float32 outputs, measured in float64 against the float32 input: the
largest |entry| of UᵀU − I, Vh·Vhᵀ − I (svd) or VᵀV − I (eigh), of U·diag(S)·Vh − A (or
V·diag(λ)·Vᵀ − A) over max|A|, and of the values minus float64 PyTorch's over the largest value;
and the float64 values themselves, against which the test measures simdgrad's.
"""
import torch

from ref_json import write

torch.set_num_threads(1)  # one thread, as the bench runs it (and the same file on every run)


def formula(m, n, grade=0, symmetric=False):
    """((127i + 311j + 17ij) mod 997)/498 − 1 (mirrored from the lower triangle when symmetric),
    times 2^−(j // grade) on column j (and row i when symmetric) when grade > 0."""
    a = torch.zeros(m, n, dtype=torch.float64)
    for i in range(m):
        for j in range(n):
            r, c = (i, j) if not symmetric or i >= j else (j, i)
            a[i, j] = ((127 * r + 311 * c + 17 * r * c) % 997) / 498 - 1
    if grade > 0:
        s = torch.tensor([2.0 ** -(j // grade) for j in range(n)], dtype=torch.float64)
        a = a * s
        if symmetric:
            a = a * s.unsqueeze(1)
    return a.float()


def maxabs(t):
    return t.abs().max().item()


CASES = []


def svd_case(cid, m, n, grade=0):
    a = formula(m, n, grade)
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    a64, u64, s64, vh64 = a.double(), u.double(), s.double(), vh.double()
    ref = torch.linalg.svdvals(a64)
    k = min(m, n)
    CASES.append({
        "id": cid, "op": "svd", "m": m, "n": n, "grade": grade,
        "values64": ref.tolist(),
        "torch": {
            "orthU": maxabs(u64.T @ u64 - torch.eye(k, dtype=torch.float64)),
            "orthV": maxabs(vh64 @ vh64.T - torch.eye(k, dtype=torch.float64)),
            "rec": maxabs((u64 * s64) @ vh64 - a64) / maxabs(a64),
            "values": maxabs(s64 - ref) / maxabs(ref),
        },
    })


def eigh_case(cid, n, grade=0):
    a = formula(n, n, grade, symmetric=True)
    lam, v = torch.linalg.eigh(a)
    a64, lam64, v64 = a.double(), lam.double(), v.double()
    ref = torch.linalg.eigvalsh(a64)
    CASES.append({
        "id": cid, "op": "eigh", "m": n, "n": n, "grade": grade,
        "values64": ref.tolist(),
        "torch": {
            "orthV": maxabs(v64.T @ v64 - torch.eye(n, dtype=torch.float64)),
            "rec": maxabs((v64 * lam64) @ v64.T - a64) / maxabs(a64),
            "values": maxabs(lam64 - ref) / maxabs(ref),
        },
    })


svd_case("svd 256x256", 256, 256)
svd_case("svd 256x256 graded", 256, 256, grade=16)
svd_case("svd 300x120", 300, 120)
svd_case("svd 120x300", 120, 300)
svd_case("svd 37x53", 37, 53)  # odd sizes past divide and conquer's 32 columns: uneven splits
svd_case("svd 130x97", 130, 97)
eigh_case("eigh 512x512", 512)
eigh_case("eigh 200x200 graded", 200, grade=20)

write("gen_linalg_f32_accuracy.py", "linalg_f32_accuracy_ref.json", {"cases": CASES})
