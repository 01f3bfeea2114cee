"""Reference values for F.rmsNorm / nn.RMSNorm and F.scaledDotProductAttention (tests/js/models_llama_ops.test.mjs).

PyTorch 1.13 has neither torch.nn.RMSNorm (2.4) nor F.scaled_dot_product_attention (2.0): both are written here
from their documented formulas in plain torch ops, in float64, then stored as float32:
  rms_norm(x, shape, w, eps) = x / sqrt(mean(x^2 over the last len(shape) dims) + eps) * w   (eps None: finfo(dtype).eps)
  sdpa(q, k, v, mask, is_causal, scale, enable_gqa) = softmax(q k^T * scale + bias) v, bias -inf where a bool mask
  is False or above the diagonal (is_causal: ones(L, S).tril()), a float mask added; enable_gqa repeats each kv
  head Hq/Hkv times (repeat_interleave on dim -3).
Run: /usr/bin/python3 tests/data/gen_llama_ops.py  (writes tests/data/llama_ops_ref.json)
"""
import json
import math
import os

import torch

torch.manual_seed(0)


def t(x):
    return {"shape": list(x.shape), "data": [float(v) for v in x.detach().to(torch.float32).reshape(-1).tolist()]}


def rand(*shape):
    return torch.randn(*shape, dtype=torch.float32)


def rms_norm(x, shape, w, eps):
    x = x.double()
    dims = tuple(range(x.dim() - len(shape), x.dim()))
    if eps is None:
        eps = torch.finfo(torch.float32).eps
    y = x / torch.sqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps)
    return y * w.double() if w is not None else y


def sdpa(q, k, v, mask=None, is_causal=False, scale=None, enable_gqa=False):
    q, k, v = q.double(), k.double(), v.double()
    L, S = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    if enable_gqa:
        k = k.repeat_interleave(q.shape[-3] // k.shape[-3], dim=-3)
        v = v.repeat_interleave(q.shape[-3] // v.shape[-3], dim=-3)
    bias = torch.zeros(L, S, dtype=torch.float64)
    if is_causal:
        bias = bias.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None:
        bias = bias.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else bias + mask.double()
    return torch.softmax(q @ k.transpose(-2, -1) * scale + bias, dim=-1) @ v


out = {"rms": [], "sdpa": []}
for name, shape, ns, eps, affine in [
    ("1d eps 1e-6", (2, 3, 8), [8], 1e-6, True),
    ("2d eps None", (2, 3, 4), [3, 4], None, True),
    ("no weight", (5, 6), [6], 1e-5, False),
]:
    x = rand(*shape)
    w = (rand(*ns) * 0.5 + 1) if affine else None
    out["rms"].append({"name": name, "normalizedShape": ns, "eps": eps, "x": t(x), "w": t(w) if w is not None else None,
                       "y": t(rms_norm(x, ns, w, eps))})

q, k, v = rand(2, 4, 5, 8), rand(2, 4, 6, 8), rand(2, 4, 6, 8)
bool_mask = torch.rand(5, 6) > 0.3
bool_mask[:, 0] = True  # no fully masked row
float_mask = rand(5, 6)
qg, kg, vg = rand(2, 4, 5, 8), rand(2, 2, 5, 8), rand(2, 2, 5, 8)
out["sdpa_inputs"] = {"q": t(q), "k": t(k), "v": t(v), "boolMask": {"shape": [5, 6], "data": [bool(b) for b in bool_mask.reshape(-1).tolist()]},
                      "floatMask": t(float_mask), "qg": t(qg), "kg": t(kg), "vg": t(vg)}
out["sdpa"] = {
    "plain": t(sdpa(q, k, v)),
    "causal": t(sdpa(q, k, v, is_causal=True)),
    "bool": t(sdpa(q, k, v, mask=bool_mask)),
    "float": t(sdpa(q, k, v, mask=float_mask)),
    "scale": t(sdpa(q, k, v, scale=0.3)),
    "gqa_causal": t(sdpa(qg, kg, vg, is_causal=True, enable_gqa=True)),
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "llama_ops_ref.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
print("wrote", path)
