#!/usr/bin/env python3
"""Reference values for sg.func and sg.autograd.Function (tests/js/func_*.test.mjs).

Run with PyTorch installed (1.13 was used):  /usr/bin/python3 tests/data/gen_func.py
Writes tests/data/func_ref.json. torch.func (and functorch) are not in PyTorch 1.13 here, so the
expected values come from torch.autograd.functional (jacobian, hessian, jvp, vjp), plain
torch.autograd.grad, and per-sample gradients by a Python loop of one backward per sample.
Everything is float64 from inputs rounded to 4 decimals (the decimal text is the exact value the
float32 side starts from); the JS tests compare within float32 tolerances.
"""
import json
import os

import torch
import torch.nn.functional as F
from torch.autograd import functional as AF

torch.manual_seed(20261129)
torch.set_default_dtype(torch.float64)


def values(*shape, lo=-1.0, hi=1.0):
    t = torch.rand(shape) * (hi - lo) + lo
    return torch.round(t * 1e4) / 1e4


def L(t):
    return t.detach().tolist()


out = {}

# ---- plain functions ----

x5 = values(5)
f_sin = lambda x: (torch.sin(x) * x).sum()
out['sin'] = {
    'x': L(x5),
    'grad': L(AF.jacobian(f_sin, x5)),
    'hessian': L(AF.hessian(f_sin, x5)),
}

x4 = values(4)
f_vec = lambda x: torch.softmax(x, 0) * x * x
v4 = values(4)
u4 = values(4)
jo, jt = AF.jvp(f_vec, x4, v4)
vo, vg = AF.vjp(f_vec, x4, u4)
out['vec'] = {
    'x': L(x4), 'v': L(v4), 'u': L(u4),
    'out': L(jo), 'jvp': L(jt), 'vjp': L(vg),
    'jacobian': L(AF.jacobian(f_vec, x4)),
}

a23 = values(2, 3)
b34 = values(3, 4)
f_two = lambda a, b: torch.tanh(a @ b).sum()
ga, gb = AF.jacobian(f_two, (a23, b34))
out['two'] = {
    'a': L(a23), 'b': L(b34),
    'grad_a': L(ga), 'grad_b': L(gb),
    'jac_b': L(AF.jacobian(lambda b: torch.tanh(a23 @ b), b34)),
    'hessian_a': L(AF.hessian(lambda a: f_two(a, b34), a23)),
}

# ---- an MLP: per-sample gradients, Jacobian and Hessian with respect to the input ----

mlp = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3))
with torch.no_grad():
    for p in mlp.parameters():
        p.copy_(values(*p.shape))
X = values(5, 4)
Y = torch.tensor([0, 2, 1, 2, 0])


def per_sample(model, xs, ys, loss):
    grads = {n: [] for n, _ in model.named_parameters()}
    for i in range(xs.shape[0]):
        model.zero_grad()
        loss(model, xs[i:i + 1], ys[i:i + 1]).backward()
        for n, p in model.named_parameters():
            grads[n].append(L(p.grad))
    return grads


ce = lambda m, x, y: F.cross_entropy(m(x), y)
x0 = X[0]
out['mlp'] = {
    'params': {n: L(p) for n, p in mlp.named_parameters()},
    'x': L(X), 'y': L(Y),
    'per_sample': per_sample(mlp, X, Y, ce),
    'jac_x0': L(AF.jacobian(lambda x: mlp(x), x0)),
    'jvp_x0_v': L(v4),
    'jvp_x0': L(AF.jvp(lambda x: mlp(x), x0, v4)[1]),
    'hessian_x0': L(AF.hessian(lambda x: F.cross_entropy(mlp(x).unsqueeze(0), Y[:1]), x0)),
}

# ---- a token model (embedding, layer norm, linear, next-token loss): per-sample gradients ----


class Tok(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(7, 4)
        self.ln = torch.nn.LayerNorm(4)
        self.head = torch.nn.Linear(4, 7)

    def forward(self, ids):
        return self.head(torch.relu(self.ln(self.emb(ids))))


tok = Tok()
with torch.no_grad():
    for p in tok.parameters():
        p.copy_(values(*p.shape))
ids = torch.randint(0, 7, (4, 3))
tgt = torch.randint(0, 7, (4, 3))
tok_loss = lambda m, i, t: F.cross_entropy(m(i).reshape(-1, 7), t.reshape(-1))
out['tok'] = {
    'params': {n: L(p) for n, p in tok.named_parameters()},
    'ids': L(ids), 'tgt': L(tgt),
    'per_sample': per_sample(tok, ids, tgt, tok_loss),
}

# ---- a small CNN: per-sample gradients (conv with per-sample weights) ----

cnn = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(18, 3))
with torch.no_grad():
    for p in cnn.parameters():
        p.copy_(values(*p.shape))
XC = values(3, 1, 5, 5)
YC = torch.tensor([2, 0, 1])
out['cnn'] = {
    'params': {n: L(p) for n, p in cnn.named_parameters()},
    'x': L(XC), 'y': L(YC),
    'per_sample': per_sample(cnn, XC, YC, ce),
}

# ---- torch.autograd.Function with custom backward ----


class STE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


class SoftClamp(torch.autograd.Function):
    """clamp(x, lo, hi) whose gradient is 0.1 (not 0) outside [lo, hi]."""

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        inside = (x >= ctx.lo) & (x <= ctx.hi)
        return g * torch.where(inside, torch.ones_like(x), torch.full_like(x, 0.1)), None, None


xs = values(6, lo=-2, hi=2)
w6 = values(6)
x1 = xs.clone().requires_grad_()
ste_loss = (STE.apply(x1 * 1.5) * w6).sum()
ste_loss.backward()
x2 = xs.clone().requires_grad_()
sc_out = SoftClamp.apply(x2, -0.5, 0.5)
(sc_out.square() * w6).sum().backward()
out['custom'] = {
    'x': L(xs), 'w': L(w6),
    'ste_value': ste_loss.item(), 'ste_grad': L(x1.grad),
    'clamp_out': L(sc_out), 'clamp_grad': L(x2.grad),
}

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'func_ref.json')
with open(path, 'w') as f:
    json.dump(out, f)
print('wrote', path)
