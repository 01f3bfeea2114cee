"""Reference values for the causal softmax (the op causalSoftmax, F.scaledDotProductAttention's isCausal path and the
GPT models' attention; tests/js/causal_softmax.test.mjs).

PyTorch 1.13's composed form with the mask materialised, in float64, stored as float32 ("op", "sdpa"), and
cases drawn in float64 and stored as doubles ("op64", "sdpa64": the float64 path of causalSoftmax):
  causal_softmax(x) = softmax(x + triu(full((L, S), -inf), 1), dim=-1), x [..., L, S]
  (the mask of PyTorch 2's is_causal: position i sees keys j <= i, i.e. ones(L, S).tril())
and, for attention, sdpa(q, k, v) = causal_softmax(q k^T / sqrt(D)) v. Gradients are of sum(out * w), w a fixed
random tensor of out's shape, with respect to every input.
Run: /usr/bin/python3 tests/data/gen_causal_softmax.py  (writes tests/data/causal_softmax_ref.json)
"""
import json
import math
import os

import torch

torch.manual_seed(23)


def t(x):
    return {"shape": list(x.shape), "data": [float(v) for v in x.detach().to(torch.float32).reshape(-1).tolist()]}


def causal_softmax(x):
    L, S = x.shape[-2], x.shape[-1]
    mask = torch.full((L, S), float("-inf"), dtype=x.dtype).triu(1)
    return torch.softmax(x + mask, dim=-1)


def sdpa_causal(q, k, v):
    return causal_softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])) @ v


def case(name, fn, inputs):
    """inputs: float32 tensors; computed in float64 from their float32 values."""
    xs = [x.double().requires_grad_(True) for x in inputs]
    out = fn(*xs)
    w = torch.randn(out.shape, dtype=torch.float64).to(torch.float32).double()
    (out * w).sum().backward()
    return {"name": name, "inputs": [t(x) for x in inputs], "out": t(out), "w": t(w), "grads": [t(x.grad) for x in xs]}


out = {"op": [], "sdpa": []}
for name, shape in [
    ("square [2, 3, 5, 5]", (2, 3, 5, 5)),
    ("L < S [4, 9]", (4, 9)),
    ("L > S [7, 3]", (7, 3)),
    ("L = 1 [3, 1, 6]", (3, 1, 6)),
    ("wide [1, 33, 33]", (1, 33, 33)),
]:
    out["op"].append(case(name, causal_softmax, [torch.randn(shape) * 2]))
for name, (B, H, L, S, D) in [("square", (2, 3, 6, 6, 4)), ("L < S", (1, 2, 5, 8, 3))]:
    q, k, v = torch.randn(B, H, L, D), torch.randn(B, H, S, D), torch.randn(B, H, S, D)
    out["sdpa"].append(case(name, sdpa_causal, [q, k, v]))



def t64(x):
    return {"shape": list(x.shape), "data": x.detach().reshape(-1).tolist()}  # doubles, written exactly


def case64(name, fn, inputs):
    """float64 inputs, kept in full precision with the results (the float64 path of causalSoftmax)."""
    xs = [x.clone().requires_grad_(True) for x in inputs]
    out = fn(*xs)
    w = torch.randn(out.shape, dtype=torch.float64)
    (out * w).sum().backward()
    return {"name": name, "inputs": [t64(x) for x in inputs], "out": t64(out), "w": t64(w), "grads": [t64(x.grad) for x in xs]}


# float64 (drawn after the float32 cases, which keep their draws): the op and SDPA on float64 scores.
out["op64"], out["sdpa64"] = [], []
for name, shape in [("square [2, 5, 5]", (2, 5, 5)), ("L < S [3, 4, 9]", (3, 4, 9)), ("L > S [7, 3]", (7, 3))]:
    out["op64"].append(case64(name, causal_softmax, [torch.randn(shape, dtype=torch.float64) * 2]))
for name, (B, H, L, S, D) in [("square", (2, 2, 6, 6, 4)), ("L < S", (1, 2, 5, 8, 3))]:
    q, k, v = (torch.randn(B, H, n, D, dtype=torch.float64) for n in (L, S, S))
    out["sdpa64"].append(case64(name, sdpa_causal, [q, k, v]))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "causal_softmax_ref.json")
with open(path, "w") as f:
    json.dump(out, f)
print("wrote", path)
