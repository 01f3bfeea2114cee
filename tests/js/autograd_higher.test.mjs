// Higher-order gradients from JS: backward({ createGraph }), sg.grad of sg.grad,
// sg.autograd.grad, the user-facing gradcheck/gradgradcheck, and long graphs freed by tidy.
// Values are closed forms; PyTorch references for double backward are in penalties.test.mjs
// (gradientPenalty) and the native gradgradchecks (tests/native/autograd_double_test.cpp).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { sg, close, throwsWith } from './helpers.mjs';

test('backward({ createGraph: true }) records .grad, which differentiates again', () => {
  const x = sg.tensor([1, 2, -3], { requiresGrad: true });
  const y = x.pow(3).sum();
  y.backward({ createGraph: true });
  const g = x.grad; // 3x², with a graph
  close(g.toArray(), [3, 12, 27]);
  assert.ok(g.requiresGrad && g.gradFn !== null);
  x.grad = null;
  g.sum().backward(); // d(Σ3x²)/dx = 6x
  close(x.grad.toArray(), [6, 12, -18]);
  // retainGraph defaulted to createGraph: the first graph is still there.
  x.grad = null;
  y.backward();
  close(x.grad.toArray(), [3, 12, 27]);
  assert.equal(x.grad.gradFn, null); // a plain backward records nothing
  sg.dispose([x, y, g]);
});

test('createGraph steps keep memory flat once each .grad is set to null', () => {
  const w = sg.tensor([0.5, -1, 2], { requiresGrad: true });
  const before = sg.memory();
  for (let i = 0; i < 5; i++) {
    sg.tidy(() => {
      w.pow(3).sum().backward({ createGraph: true });
      const g = w.grad; // refers to the graph, which refers to w: cleared below
      w.grad = null;
      g.square().sum().backward();
      close(w.grad.toArray(), [0.5, -1, 2].map((v) => 2 * 3 * v * v * 6 * v), 1e-5);
      w.grad = null;
      return null;
    });
  }
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
  w.dispose();
});

test('sg.grad of sg.grad (and a third order), valueAndGrad inside grad', () => {
  const x = sg.tensor([0.5, -1, 2]);
  const f = (t) => t.sin().sum();
  const d2 = sg.grad((t) => sg.grad(f)(t).sum());
  close(d2(x).toArray(), [0.5, -1, 2].map((v) => -Math.sin(v)), 1e-6);
  const cube = (t) => t.pow(3).sum();
  const d3 = sg.grad((t) => sg.grad((u) => sg.grad(cube)(u).sum())(t).sum());
  close(d3(x).toArray(), [6, 6, 6], 1e-5);
  const [value, g] = sg.valueAndGrad((t) => {
    const [v, inner] = sg.valueAndGrad((u) => u.square().mul(u).sum())(t); // x³: 3x²
    return v.add(inner.sum());
  })(x);
  close(value.item(), 0.125 - 1 + 8 + 3 * (0.25 + 1 + 4), 1e-5);
  close(g.toArray(), [0.5, -1, 2].map((v) => 3 * v * v + 6 * v), 1e-5);
  assert.equal(x.requiresGrad, false);
  sg.dispose([x, value, g]);
});

test('sg.autograd.grad: a Hessian-vector product, and gradients left untouched', () => {
  const A = sg.tensor([[2, 1, 0], [0, 3, -1], [1, 0, 4]]);
  const x = sg.tensor([1, -2, 0.5], { requiresGrad: true });
  const v = sg.tensor([0.5, 1, -1]);
  const f = x.matmul(A).matmul(x).mul(0.5); // ½ xᵀAx: ∇ = ½(A + Aᵀ)x, H = ½(A + Aᵀ)
  const g = sg.autograd.grad(f, x, { createGraph: true });
  const hv = sg.autograd.grad(g.mul(v).sum(), [x])[0];
  const H = [[2, 0.5, 0.5], [0.5, 3, -0.5], [0.5, -0.5, 4]];
  close(hv.toArray(), H.map((row) => row.reduce((s, h, j) => s + h * [0.5, 1, -1][j], 0)), 1e-6);
  close(g.toArray(), H.map((row) => row.reduce((s, h, j) => s + h * [1, -2, 0.5][j], 0)), 1e-6);
  assert.equal(x.grad, null);
  sg.dispose([A, x, v, f, g, hv]);
});

test('double backward through layers and losses equals central differences (gradgradcheck)', () => {
  const t = (shape, seed, lo = -1, hi = 1) => {
    let s = seed;
    const n = shape.reduce((a, b) => a * b, 1);
    const vals = Array.from({ length: n }, () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return lo + (s / 2 ** 32) * (hi - lo);
    });
    return sg.tensor(vals, { shape, requiresGrad: true });
  };
  const checks = [
    ['exp·tanh', (a) => a.exp().mul(a.tanh()), [t([2, 3], 1)]],
    ['softmax', (a) => a.softmax(-1), [t([2, 4], 2)]],
    ['logSoftmax', (a) => a.logSoftmax(0), [t([3, 2], 3)]],
    ['matmul', (a, b) => a.matmul(b), [t([2, 3], 4), t([3, 2], 5)]],
    ['F.linear + gelu', (a, w, b) => sg.F.gelu(sg.F.linear(a, w, b)), [t([2, 3], 6), t([4, 3], 7), t([4], 8)]],
    ['leakyRelu · x', (a) => a.leakyRelu(0.2).mul(a), [t([5], 9, 0.2, 1)]],
    ['layerNorm', (a, w, b) => sg.F.layerNorm(a, [3], w, b), [t([2, 3], 10), t([3], 11, 0.5, 1.5), t([3], 12)]],
    ['mseLoss', (a, b) => sg.F.mseLoss(a.square(), b), [t([2, 3], 13), t([2, 3], 14)]],
    ['norm and mean', (a) => a.norm(2, -1).mean(), [t([3, 4], 15)]],
  ];
  for (const [name, fn, inputs] of checks) {
    assert.equal(sg.autograd.gradgradcheck(fn, inputs), true, name);
    assert.equal(sg.autograd.gradcheck(fn, inputs), true, name);
    sg.dispose(inputs);
  }
});

test('gradcheck reports the worst mismatch of a wrong gradient', () => {
  const x = sg.tensor([0.5, 1, 1.5], { requiresGrad: true });
  const wrong = (t) => {
    const y = t.mul(2);
    y.registerHook((g) => g.mul(1.5)); // a 50% error in the gradient
    return y.square();
  };
  throwsWith(() => sg.autograd.gradcheck(wrong, x), 'gradcheck: Jacobian mismatch for output 0 with respect to input 0', /by autograd and .* by central differences/, /3 of 9 Jacobian entries differ/);
  assert.equal(sg.autograd.gradcheck((t) => t.square(), [x, sg.tensor([1])]), true); // inputs without grad pass through
  x.dispose();
});

test('a 24,000-node graph is freed by tidy without overflowing the stack, memory flat', () => {
  const x = sg.tensor([1.5], { requiresGrad: true });
  const before = sg.memory();
  for (let round = 0; round < 2; round++) {
    sg.tidy(() => {
      let h = x;
      for (let i = 0; i < 24000; i++) h = h.mul(1.00001);
      return null;
    });
  }
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
  // createGraph makes graphs deeper still: a 10,000-node chain differentiated twice.
  sg.tidy(() => {
    let h = x;
    for (let i = 0; i < 10000; i++) h = h.mul(1.0001);
    const g = sg.autograd.grad(h.square().sum(), x, { createGraph: true });
    sg.autograd.grad(g.sum(), x);
    return null;
  });
  assert.equal(sg.memory().tensors, before.tensors);
  x.dispose();
});

// ---- against PyTorch: loss, gradient and Hessian-vector product of small models ----

const REF = JSON.parse(readFileSync(new URL('../data/higher_order_ref.json', import.meta.url), 'utf8'));

const models = {
  mlp: ([w1, b1, w2, b2], [x, y]) => sg.F.crossEntropy(sg.F.linear(sg.F.linear(x, w1, b1).tanh(), w2, b2), y),
  cnn: ([k, kb, w, b], [x, y]) => {
    const h = sg.F.maxPool2d(sg.F.conv2d(x, k, kb, { padding: 1 }).relu(), 2);
    return sg.F.crossEntropy(sg.F.linear(h.flatten(1), w, b), y, { labelSmoothing: 0.1 });
  },
  normGelu: ([g, b, w], [x, t]) => sg.F.mseLoss(sg.F.linear(sg.F.gelu(sg.F.layerNorm(x, [4], g, b)), w), t),
  lstm: ([m], [x]) => {
    const [out] = m.forward(x);
    return out.square().mean().add(out.sum());
  },
};

// The parameters as leaves: a model's, for the LSTM (loaded with the case's values under
// PyTorch's names), else fresh tensors.
function leaves(c) {
  if (c.model !== 'lstm') return { params: c.params.map((p) => sg.tensor(p, { requiresGrad: true })) };
  const m = new sg.nn.LSTM(3, 2);
  const names = ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0'];
  m.loadStateDict(Object.fromEntries(names.map((n, i) => [n, sg.tensor(c.params[i])])));
  return { params: names.map((n) => m[n]), model: m };
}

for (const c of REF.cases) {
  test(`double backward of a small ${c.model} equals PyTorch's Hessian-vector product`, () => {
    sg.tidy(() => {
      const { params, model } = leaves(c);
      const data = c.data.map((d, i) => (c.model !== 'normGelu' && c.model !== 'lstm' && i === 1 ? sg.tensor(d, { dtype: 'int32' }) : sg.tensor(d)));
      const loss = models[c.model](model ? [model] : params, data);
      close(loss.item(), c.loss, 1e-5, 'loss');
      const g = sg.autograd.grad(loss, params, { createGraph: true });
      g.forEach((gi, k) => close(gi.toArray(), c.grads[k], 1e-4, `grad ${k}`));
      const dot = g.map((gi, k) => gi.mul(sg.tensor(c.v[k])).sum()).reduce((a, b) => a.add(b));
      const hv = sg.autograd.grad(dot, params);
      hv.forEach((h, k) => close(h.toArray(), c.hv[k], 2e-4, `Hv ${k}`));
      return null;
    });
  });
}
