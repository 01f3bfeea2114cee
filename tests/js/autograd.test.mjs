// Gradients from JS: composite functions against hand-derived formulas, accumulation,
// retainGraph, hooks, retainGrad, noGrad, detach, grad assignment, sg.grad / valueAndGrad.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, mapNested, throwsWith, scoped } from './helpers.mjs';

test('polynomial: d/dx sum(3x^2 + 2x) = 6x + 2', scoped(() => {
  const xs = [[-1, 0.5], [2, 3]];
  const x = sg.tensor(xs, { requiresGrad: true });
  const y = x.square().mul(3).add(x.mul(2)).sum();
  assert.equal(y.isLeaf, false);
  assert.ok(typeof y.gradFn === 'string');
  y.backward();
  close(x.grad.toArray(), mapNested(xs, (v) => 6 * v + 2));
  close(y.item(), xs.flat().reduce((s, v) => s + 3 * v * v + 2 * v, 0));
}));

test('linear regression loss: grads of W and b', scoped(() => {
  const X = [[1, 2], [3, -1], [0.5, 0.5]];
  const Y = [[1], [0], [2]];
  const W = [[0.3], [-0.2]];
  const B = 0.1;
  const w = sg.tensor(W, { requiresGrad: true });
  const b = sg.tensor([B], { requiresGrad: true });
  const loss = sg.tensor(X).matmul(w).add(b).sub(sg.tensor(Y)).square().mean();
  loss.backward();
  const r = X.map((row, i) => row[0] * W[0][0] + row[1] * W[1][0] + B - Y[i][0]);
  const n = X.length;
  close(loss.item(), r.reduce((s, v) => s + v * v, 0) / n);
  const gw = [0, 1].map((j) => [(2 / n) * r.reduce((s, v, i) => s + v * X[i][j], 0)]);
  close(w.grad.toArray(), gw);
  close(b.grad.toArray(), [(2 / n) * r.reduce((s, v) => s + v, 0)]);
}));

test('sigmoid, tanh, exp, log chains', scoped(() => {
  const xs = [-2, -0.5, 0.3, 1.7];
  const x = sg.tensor(xs, { requiresGrad: true });
  x.sigmoid().sum().backward();
  const s = (v) => 1 / (1 + Math.exp(-v));
  close(x.grad.toArray(), xs.map((v) => s(v) * (1 - s(v))));
  x.zeroGrad();
  assert.equal(x.grad, null);
  // d/dx log(1 + exp(tanh(x))) = sigmoid(tanh x) * (1 - tanh^2 x)
  x.tanh().exp().add(1).log().sum().backward();
  close(x.grad.toArray(), xs.map((v) => s(Math.tanh(v)) * (1 - Math.tanh(v) ** 2)));
}));

test('logSoftmax: grad of -logp[target] is softmax - onehot', scoped(() => {
  const z = [[1, 2, 0.5], [-1, 0, 3]];
  const targets = [1, 2];
  const x = sg.tensor(z, { requiresGrad: true });
  const lp = x.logSoftmax(1);
  const picked = lp.gather(1, targets.map((t) => [t]));
  picked.sum().neg().backward();
  const soft = (row) => {
    const e = row.map(Math.exp);
    const t = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / t);
  };
  close(x.grad.toArray(), z.map((row, i) => soft(row).map((p, j) => p - (j === targets[i] ? 1 : 0))));
}));

test('broadcasting sums the gradient over broadcast dims', scoped(() => {
  const a = sg.ones([2, 3], { requiresGrad: true });
  const b = sg.tensor([1, 2, 3], { requiresGrad: true });
  const c = sg.tensor([[2], [5]], { requiresGrad: true });
  a.mul(b).add(c).sum().backward();
  assert.deepEqual(b.grad.toArray(), [2, 2, 2]);
  assert.deepEqual(c.grad.toArray(), [[3], [3]]);
  assert.deepEqual(a.grad.toArray(), [[1, 2, 3], [1, 2, 3]]);
  // number operands: d/dx sum(2 - x*0.5) = -0.5
  const x = sg.tensor([1, 2], { requiresGrad: true });
  sg.sub(2, x.mul(0.5)).sum().backward();
  assert.deepEqual(x.grad.toArray(), [-0.5, -0.5]);
}));

test('max splits the gradient between ties; abs and relu have gradient 0 at 0', scoped(() => {
  const x = sg.tensor([1, 3, 3, -2], { requiresGrad: true });
  x.max().backward();
  close(x.grad.toArray(), [0, 0.5, 0.5, 0]);
  const y = sg.tensor([-1, 0, 2], { requiresGrad: true });
  y.abs().sum().backward();
  assert.deepEqual(y.grad.toArray(), [-1, 0, 1]);
  const z = sg.tensor([-1, 0, 2], { requiresGrad: true });
  z.relu().sum().backward();
  assert.deepEqual(z.grad.toArray(), [0, 0, 1]);
}));

test('views and shape ops pass gradients back', scoped(() => {
  const x = sg.arange(6, { dtype: 'float32', requiresGrad: true });
  // sum of transpose-sliced part, weighted
  const y = x.reshape(2, 3).T.slice(0, 1).mul(sg.tensor([[1, 10], [100, 1000]])).sum();
  y.backward();
  // rows 1..2 of the transpose are columns 1..2: x[1]*1 + x[4]*10 + x[2]*100 + x[5]*1000
  assert.deepEqual(x.grad.toArray(), [0, 1, 100, 0, 10, 1000]);
}));

test('gradients accumulate across backward calls', scoped(() => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  x.mul(3).sum().backward();
  x.mul(x).sum().backward();
  assert.deepEqual(x.grad.toArray(), [3 + 2, 3 + 4]);
}));

test('retainGraph allows a second backward; without it the error says so', scoped(() => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const y = x.exp().sum();
  y.backward(undefined, { retainGraph: true });
  y.backward({ retainGraph: true });
  y.backward();
  close(x.grad.toArray(), [3 * Math.E, 3 * Math.exp(2)]);
  throwsWith(() => y.backward(), /retainGraph/);
  // the module still works
  const z = sg.tensor([2], { requiresGrad: true });
  z.square().sum().backward();
  assert.deepEqual(z.grad.toArray(), [4]);
}));

test('backward of a non-scalar needs gradOutput', scoped(() => {
  const x = sg.tensor([1, 2, 3], { requiresGrad: true });
  const y = x.mul(2);
  throwsWith(() => y.backward(), 'backward');
  y.backward(sg.tensor([1, 0.5, -1]));
  assert.deepEqual(x.grad.toArray(), [2, 1, -2]);
  const s = x.sum();
  s.backward(2);
  assert.deepEqual(x.grad.toArray(), [4, 3, 0]);
}));

test('hooks can observe and replace gradients', scoped(() => {
  const x = sg.tensor([1, 2, 3], { requiresGrad: true });
  const h = x.mul(2);
  let seen = null;
  h.registerHook((g) => {
    seen = g.toArray();
  });
  h.registerHook((g) => g.mul(10));
  h.sum().backward();
  assert.deepEqual(seen, [1, 1, 1]);
  assert.deepEqual(x.grad.toArray(), [20, 20, 20]);

  const w = sg.tensor([1, 1], { requiresGrad: true });
  w.registerHook((g) => g.add(1));
  w.mul(sg.tensor([2, 3])).sum().backward();
  assert.deepEqual(w.grad.toArray(), [3, 4]);
}));

test('a hook that throws makes backward throw its message; the module still works', scoped(() => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const y = x.mul(2);
  y.registerHook(() => {
    throw new Error('boom in my hook');
  });
  throwsWith(() => y.sum().backward(), 'boom in my hook');
  const z = sg.tensor([1, 2], { requiresGrad: true });
  z.mul(z).sum().backward();
  assert.deepEqual(z.grad.toArray(), [2, 4]);
  throwsWith(() => z.registerHook(5), 'registerHook');
  const q = sg.tensor([1], { requiresGrad: true });
  q.registerHook(() => 'not a tensor');
  throwsWith(() => q.mul(2).sum().backward(), 'hook');
}));

test('retainGrad keeps the grad of a non-leaf', scoped(() => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const h = x.mul(3);
  h.retainGrad();
  const k = h.square();
  k.sum().backward();
  assert.deepEqual(h.grad.toArray(), [6, 12]); // 2h
  assert.deepEqual(x.grad.toArray(), [18, 36]);
  assert.equal(k.grad, null);
}));

test('noGrad and detach stop recording', async () => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const y = sg.noGrad(() => x.mul(2));
  assert.equal(y.requiresGrad, false);
  assert.equal(sg.isGradEnabled(), true);
  const z = await sg.noGrad(async () => {
    await null;
    return x.mul(2);
  });
  assert.equal(z.requiresGrad, false);
  assert.equal(sg.isGradEnabled(), true);
  assert.throws(() => sg.noGrad(() => {
    throw new Error('inner');
  }), /inner/);
  assert.equal(sg.isGradEnabled(), true);

  const d = x.detach();
  assert.equal(d.requiresGrad, false);
  assert.equal(d.isLeaf, true);
  assert.deepEqual(d.toArray(), [1, 2]);
  const out = x.mul(d).sum();
  out.backward();
  assert.deepEqual(x.grad.toArray(), [1, 2]); // d is a constant
  sg.dispose([x, y, z, d, out]);
});

test('grad is assignable and reading it repeatedly gives the same tensor', scoped(() => {
  const w = sg.tensor([[1, 2]], { requiresGrad: true });
  w.mul(w).sum().backward();
  const g1 = w.grad;
  const g2 = w.grad;
  assert.equal(g1, g2);
  const before = sg.memory().tensors;
  for (let i = 0; i < 10; i++) w.grad;
  assert.equal(sg.memory().tensors, before);

  w.grad = sg.tensor([[5, 5]]);
  assert.deepEqual(w.grad.toArray(), [[5, 5]]);
  w.mul(2).sum().backward();
  assert.deepEqual(w.grad.toArray(), [[7, 7]]);
  w.grad = null;
  assert.equal(w.grad, null);
  throwsWith(() => {
    w.grad = sg.tensor([1, 2, 3]);
  });
  throwsWith(() => {
    w.grad = [1, 2];
  }, 'grad');
  // disposing the wrapper leaves the gradient on the leaf
  w.mul(2).sum().backward();
  w.grad.dispose();
  assert.deepEqual(w.grad.toArray(), [[2, 2]]);
}));

test('requiresGrad setter', scoped(() => {
  const x = sg.tensor([1, 2]);
  assert.equal(x.requiresGrad, false);
  x.requiresGrad = true;
  x.square().sum().backward();
  assert.deepEqual(x.grad.toArray(), [2, 4]);
  throwsWith(() => {
    x.requiresGrad = 'yes';
  }, 'requiresGrad');
}));

test('sg.grad and sg.valueAndGrad', scoped(() => {
  const f = (x) => x.square().sum();
  const x = sg.tensor([1, -2, 3]);
  const g = sg.grad(f)(x);
  assert.deepEqual(g.toArray(), [2, -4, 6]);
  assert.equal(x.requiresGrad, false);
  assert.equal(x.grad, null);

  const h = (a, b) => a.mul(b).sum().add(a.sum().mul(2));
  const a = sg.tensor([1, 2]);
  const b = sg.tensor([3, 4]);
  const [ga, gb] = sg.grad(h, [0, 1])(a, b);
  assert.deepEqual(ga.toArray(), [5, 6]);
  assert.deepEqual(gb.toArray(), [1, 2]);
  assert.deepEqual(sg.grad(h, 1)(a, b).toArray(), [1, 2]);

  const [v, gv] = sg.valueAndGrad(f)(x);
  assert.equal(v.item(), 14);
  assert.deepEqual(gv.toArray(), [2, -4, 6]);
  const [v2, [ga2, gb2]] = sg.valueAndGrad(h, [0, 1])(a, b);
  assert.equal(v2.item(), 11 + 6);
  assert.deepEqual(ga2.toArray(), [5, 6]);
  assert.deepEqual(gb2.toArray(), [1, 2]);

  // works inside noGrad, and with a non-tensor extra argument
  const scaled = sg.noGrad(() => sg.grad((x, k) => x.square().sum().mul(k))(x, 0.5));
  assert.deepEqual(scaled.toArray(), [1, -2, 3]);

  throwsWith(() => sg.grad((x) => x.mul(2))(x), 'grad', 'one element');
  throwsWith(() => sg.grad(f)(3), 'grad', 'Tensor');
  throwsWith(() => sg.grad(f)(sg.tensor([1], { dtype: 'int32' })), 'grad', 'float32');
  throwsWith(() => sg.grad(5), 'grad', 'function');
}));

test('sg.grad in every floating dtype: the gradient comes back in the argument\'s dtype', scoped(() => {
  const f = (x) => x.sin().mul(x).sum();  // d/dx x·sin x = sin x + x·cos x
  const xs = [0.1, -1.3, 2.7, 1 / 3];     // none of them a float32: a float32 step would show at 1e-8
  const g64 = sg.grad(f)(sg.tensor(xs, { dtype: 'float64' }));
  assert.equal(g64.dtype, 'float64');
  const got = Array.from(g64.dataSync());
  xs.forEach((x, i) => assert.ok(Math.abs(got[i] - (Math.sin(x) + x * Math.cos(x))) < 1e-14, `${got[i]} at ${x}`));
  const [v, gb] = sg.valueAndGrad(f)(sg.tensor(xs, { dtype: 'bfloat16' }));
  assert.equal(gb.dtype, 'bfloat16');
  assert.equal(v.dtype, 'bfloat16');
  throwsWith(() => sg.grad(f)(sg.tensor([1, 2], { dtype: 'int32' })), 'argument 0 must be a floating Tensor', 'got int32');
}));
