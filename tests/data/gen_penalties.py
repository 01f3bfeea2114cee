#!/usr/bin/env python3
"""Reference values for sg.penalties (tests/js/penalties.test.mjs).

Run with PyTorch installed (1.13 was used):  /usr/bin/python3 tests/data/gen_penalties.py
Writes tests/data/penalties_ref.json. Each case gives the penalty's name, its JS options, the
inputs, PyTorch's value and PyTorch's gradients of that value with respect to every input. The
formulas are written here with PyTorch's own functions (log_softmax, kl_div, Categorical's
entropy, matrix_norm), in float64 from inputs rounded to 4 decimals, so the decimal text is the
exact float32 value both sides use and the references carry no float32 rounding of their own.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(20261125)


def values(shape, lo=-2.0, hi=2.0):
    t = torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo
    return torch.round(t * 1e4) / 1e4


def per_distribution(t, reduction, shape):
    """The reductions of penalties.ts over per-distribution values t (shape = input shape[:-1])."""
    if reduction == "none":
        return t
    if reduction == "sum":
        return t.sum()
    if reduction == "mean":
        return t.mean()
    if reduction == "batchmean":
        return t.sum() / shape[0] if len(shape) >= 2 else t.sum()
    raise ValueError(reduction)


def kl(a, b, reduction):
    lp, lq = F.log_softmax(a, -1), F.log_softmax(b, -1)
    rows = F.kl_div(lq, lp, reduction="none", log_target=True).sum(-1)
    return per_distribution(rows, reduction, a.shape)


def js(a, b, reduction):
    p, q = F.softmax(a, -1), F.softmax(b, -1)
    lm = torch.log(0.5 * (p + q))
    rows = 0.5 * (p * (torch.log(p) - lm)).sum(-1) + 0.5 * (q * (torch.log(q) - lm)).sum(-1)
    return per_distribution(rows, reduction, a.shape)


def entropy(a, mode, reduction):
    h = torch.distributions.Categorical(logits=a).entropy()
    return per_distribution(-h if mode == "maximize" else h, reduction, a.shape)


def orthogonality(w, mode, lam):
    m = w.reshape(w.shape[0], -1)
    if mode == "soft":
        eye = torch.eye(m.shape[0], dtype=m.dtype)
        return lam * ((m @ m.T - eye) ** 2).sum()
    sigma = torch.linalg.matrix_norm(m, ord=2)
    return lam * (sigma - 1) ** 2


def case(name, fn, inputs, options):
    xs = [x.clone().requires_grad_(True) for x in inputs]
    out = fn(*xs)
    g = torch.ones_like(out) if out.dim() > 0 else None
    grads = torch.autograd.grad(out, xs, grad_outputs=g)
    return {
        "penalty": name,
        "options": options,
        "inputs": [x.tolist() for x in inputs],
        "shapes": [list(x.shape) for x in inputs],
        "value": out.tolist(),
        "grads": [gr.tolist() for gr in grads],
    }


cases = []
for shape in ([5], [3, 5], [2, 3, 4]):
    a, b = values(shape), values(shape)
    for reduction in ("batchmean", "mean", "sum", "none"):
        cases.append(case("klDivergence", lambda x, y, r=reduction: kl(x, y, r), [a, b], {"reduction": reduction}))
        cases.append(case("jsDivergence", lambda x, y, r=reduction: js(x, y, r), [a, b], {"reduction": reduction}))
    for mode in ("maximize", "minimize"):
        for reduction in ("mean", "sum"):
            cases.append(case("entropy", lambda x, m=mode, r=reduction: entropy(x, m, r), [a], {"mode": mode, "reduction": reduction}))

# Wide, square, tall and a 4-D conv-like weight (read as [out, rest]). The tall soft case
# follows ‖W Wᵀ − I‖²_F literally (the n×n identity), which includes the constant rows − cols.
for shape in ([3, 5], [4, 4], [6, 3], [4, 2, 2, 2]):
    w = values(shape, -1.0, 1.0)
    cases.append(case("orthogonality", lambda x: orthogonality(x, "soft", 0.05), [w], {"mode": "soft", "lambda": 0.05}))
    cases.append(case("orthogonality", lambda x: orthogonality(x, "spectral", 0.05), [w], {"mode": "spectral", "lambda": 0.05}))
    # The power iteration converges as (σ₂/σ₁)^(2k): record the gap so a test can pick its steps.
    s = torch.linalg.svdvals(w.reshape(w.shape[0], -1))
    cases[-1]["sigmaRatio"] = (s[1] / s[0]).item()

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "penalties_ref.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"wrote {len(cases)} cases to {out}")
