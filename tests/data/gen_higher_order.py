#!/usr/bin/env python3
"""Reference values for double backward (tests/js/autograd_higher.test.mjs).

Run with PyTorch installed (1.13 was used):  /usr/bin/python3 tests/data/gen_higher_order.py
Writes tests/data/higher_order_ref.json. Each case is a small model's loss L(params), computed in
float64 from inputs rounded to 4 decimals (the decimal text is the exact float32 value both sides
use), with PyTorch's value of L, its gradient g = dL/dparams, and the Hessian-vector product
H·v = d(Σ g·v)/dparams (torch.autograd.grad with create_graph=True, then again) for a given v.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(20261126)


def values(shape, lo=-1.0, hi=1.0):
    t = torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo
    return torch.round(t * 1e4) / 1e4


def mlp(p, data):
    x, y = data
    w1, b1, w2, b2 = p
    return F.cross_entropy(F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2), y)


def cnn(p, data):
    x, y = data
    k, kb, w, b = p
    h = F.max_pool2d(torch.relu(F.conv2d(x, k, kb, padding=1)), 2)
    return F.cross_entropy(F.linear(h.flatten(1), w, b), y, label_smoothing=0.1)


def norm_gelu(p, data):
    x, t = data
    g, b, w = p
    return F.mse_loss(F.linear(F.gelu(F.layer_norm(x, [4], g, b)), w), t)


def lstm_outputs(x, w_ih, w_hh, b_ih, b_hh):
    """torch.nn.LSTM's equations (gates i, f, g, o), written out: nn.LSTM's fused forward has no
    double backward through its flat weights here. Checked against nn.LSTM below."""
    h = torch.zeros(x.shape[1], w_hh.shape[1], dtype=x.dtype)
    c = torch.zeros_like(h)
    outs = []
    for t in range(x.shape[0]):
        i, f, g, o = (F.linear(x[t], w_ih, b_ih) + F.linear(h, w_hh, b_hh)).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        outs.append(h)
    return torch.stack(outs)


def lstm(p, data):
    out = lstm_outputs(data[0], *p)
    return (out ** 2).mean() + out.sum()


def case(name, f, params, data):
    ps = [q.clone().requires_grad_(True) for q in params]
    loss = f(ps, data)
    grads = torch.autograd.grad(loss, ps, create_graph=True)
    v = [values(list(q.shape)) for q in params]
    hv = torch.autograd.grad(sum((gi * vi).sum() for gi, vi in zip(grads, v)), ps)
    return {
        "model": name,
        "params": [q.tolist() for q in params],
        "data": [d.tolist() for d in data],
        "v": [q.tolist() for q in v],
        "loss": loss.item(),
        "grads": [g.tolist() for g in grads],
        "hv": [h.tolist() for h in hv],
    }


cases = [
    case("mlp", mlp, [values([5, 3]), values([5]), values([3, 5]), values([3])],
         [values([4, 3], -2, 2), torch.tensor([0, 2, 1, 2])]),
    case("cnn", cnn, [values([2, 1, 3, 3]), values([2]), values([3, 8]), values([3])],
         [values([2, 1, 4, 4], -2, 2), torch.tensor([2, 0])]),
    case("normGelu", norm_gelu, [values([4], 0.5, 1.5), values([4]), values([2, 4])],
         [values([3, 4], -2, 2), values([3, 2])]),
    case("lstm", lstm, [values([8, 3]), values([8, 2]), values([8]), values([8])], [values([3, 2, 3])]),
]

# The written-out LSTM is nn.LSTM's.
with torch.no_grad():
    module = torch.nn.LSTM(3, 2).double()
    ps = [module.weight_ih_l0, module.weight_hh_l0, module.bias_ih_l0, module.bias_hh_l0]
    xs = values([3, 2, 3])
    assert torch.allclose(module(xs)[0], lstm_outputs(xs, *ps), atol=1e-12)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "higher_order_ref.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"wrote {len(cases)} cases to {out}")
