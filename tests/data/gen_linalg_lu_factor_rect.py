#!/usr/bin/env python3
"""Reference gradients of linalg.lu_factor for rectangular matrices (tall, wide, batched; float64), for
tests/js/linalg_lu_factor_rect.test.mjs. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_linalg_lu_factor_rect.py   # writes tests/data/linalg_lu_factor_rect_ref.json

PyTorch 1.13's lu_factor_ex_backward (linalg_lu_backward's tall and wide cases): the packed LU and
pivots, and the gradient of Σ LU·upstream with respect to A for a random upstream. Inputs random
normal (pivoting on), stored in full double precision.
"""
import json
import os

import torch

torch.manual_seed(20261129)


def enc(t):
    if t.dtype in (torch.int64, torch.int32):
        return {"shape": list(t.shape), "dtype": "int32", "data": [int(v) for v in t.reshape(-1).tolist()]}
    return {"shape": list(t.shape), "dtype": "float64", "data": t.reshape(-1).tolist()}


CASES = []
for cid, shape in [("tall 5x3", (5, 3)), ("wide 3x5", (3, 5)), ("tall 7x2", (7, 2)), ("wide 2x6", (2, 6)),
                   ("batch tall 2x4x3", (2, 4, 3)), ("batch wide 2x3x4", (2, 3, 4)), ("square 4x4", (4, 4))]:
    a = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    lu, piv = torch.linalg.lu_factor(a)
    up = torch.randn(lu.shape, dtype=torch.float64)
    (g,) = torch.autograd.grad((lu * up).sum(), [a])
    CASES.append({"id": cid, "A": enc(a.detach()), "LU": enc(lu.detach()), "pivots": enc(piv), "upstream": enc(up), "grad": enc(g)})

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_lu_factor_rect_ref.json")
with open(path, "w") as f:
    json.dump({"generator": f"tests/data/gen_linalg_lu_factor_rect.py, torch {torch.__version__}", "cases": CASES}, f, separators=(",", ":"))
    f.write("\n")
print("wrote", path, os.path.getsize(path), "bytes")
