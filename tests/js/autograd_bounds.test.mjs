// Boundaries of autograd's argument guards (npm/src/autograd/backward.ts, gradcheck.ts): each
// disjunct alone, each bound from both sides, messages pinned. Oracle: PyTorch 1.13
// (Tensor.backward(gradient=None) on a scalar; a hook returning None keeps the gradient;
// torch.func.grad argnums a non-negative int or a non-empty tuple of them, its fn returning a
// one-element tensor; torch.autograd.grad's inputs non-empty; gradcheck's inputs float32/64 when
// they require grad, its fn returning tensors) and the source's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, scoped } from './helpers.mjs';

const vals = (t) => Array.from(t.dataSync(), Number);

test('backward gradOutput: undefined, null and a number taken; a string refused', scoped(() => {
  for (const g of [undefined, null]) {
    const x = sg.tensor([1, 2], { requiresGrad: true });
    x.mul(3).sum().backward(g);
    assert.deepEqual(vals(x.grad), [3, 3]);
  }
  const x = sg.tensor([1, 2], { requiresGrad: true });
  x.mul(3).sum().backward(2);
  assert.deepEqual(vals(x.grad), [6, 6]);
  throwsWith(() => x.mul(3).sum().backward('a'), /^backward: expected gradOutput to be a Tensor, a number or undefined, got/);
}));

test('registerHook: undefined, null or the gradient itself keep it; a Tensor replaces it; a number is refused', scoped(() => {
  for (const hook of [() => undefined, () => null, (g) => g]) {
    const x = sg.tensor([1, 2], { requiresGrad: true });
    x.registerHook(hook);
    x.mul(3).sum().backward();
    assert.deepEqual(vals(x.grad), [3, 3]);
  }
  // Returning the gradient itself frees its wrapper as returning nothing does: no tensor is left behind.
  const w = sg.tensor([1, 2], { requiresGrad: true });
  w.registerHook((g) => g);
  const before = sg.memory().tensors;
  sg.tidy(() => w.mul(3).sum().backward());
  assert.equal(sg.memory().tensors, before, 'no tensor left behind');
  const y = sg.tensor([1, 2], { requiresGrad: true });
  y.registerHook((g) => g.mul(2));
  y.mul(3).sum().backward();
  assert.deepEqual(vals(y.grad), [6, 6]);
  const z = sg.tensor([1, 2], { requiresGrad: true });
  z.registerHook(() => 5);
  throwsWith(() => z.mul(3).sum().backward(), /registerHook: a hook must return a Tensor or undefined, got 5/);
}));

test('grad argnums: 0, [0, 1] taken; -1, [], [0, -1], [0.5] refused', scoped(() => {
  const f = (a, b) => a.mul(b).sum();
  const a = sg.tensor([1, 2]), b = sg.tensor([3, 4]);
  assert.deepEqual(vals(sg.grad(f, 0)(a, b)), [3, 4]);
  assert.deepEqual(vals(sg.grad(f, 1)(a, b)), [1, 2]);
  const [ga, gb] = sg.grad(f, [0, 1])(a, b);
  assert.deepEqual([vals(ga), vals(gb)], [[3, 4], [1, 2]]);
  assert.deepEqual(vals(sg.grad(f, [1])(a, b)[0]), [1, 2]);
  for (const [bad, shown] of [[-1, '-1'], [[], '[]'], [[0, -1], '[0, -1]'], [[0.5], '[0.5]']]) {
    throwsWith(() => sg.grad(f, bad), `grad: expected argnums to be a non-negative integer or a non-empty array of them, got ${shown}`);
  }
}));

test('grad fn result: a one-element Tensor taken; a number or a 2-element Tensor refused', scoped(() => {
  const x = sg.tensor([1, 2]);
  assert.deepEqual(vals(sg.grad((t) => t.sum().reshape([1]))(x)), [1, 1]);
  throwsWith(() => sg.grad(() => 5)(x), 'grad: fn must return a Tensor with one element, got 5');
  throwsWith(() => sg.grad((t) => t.mul(2))(x), /^grad: fn must return a Tensor with one element, got/);
  throwsWith(() => sg.valueAndGrad((t) => t.mul(2))(x), /^valueAndGrad: fn must return a Tensor with one element, got/);
}));

test('autograd.grad inputs: a Tensor or a non-empty array taken; [] and a string refused', scoped(() => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const out = x.mul(x).sum();
  assert.deepEqual(vals(sg.autograd.grad(out, x, { retainGraph: true })), [2, 4]);
  assert.deepEqual(vals(sg.autograd.grad(out, [x], { retainGraph: true })[0]), [2, 4]);
  throwsWith(() => sg.autograd.grad(out, []), 'autograd.grad: expected inputs to be a Tensor or a non-empty array of Tensors, got []');
  throwsWith(() => sg.autograd.grad(out, 'x'), /^autograd.grad: expected inputs to be a Tensor or a non-empty array of Tensors, got/);
}));

test('gradcheck inputs: float64 leaves taken; [], a string, float16 requiring grad refused; an int input without grad passes', scoped(() => {
  const x = sg.tensor([0.5, 1.5], { dtype: 'float64', requiresGrad: true });
  assert.equal(sg.autograd.gradcheck((t) => t.mul(t).sum(), [x]), true);
  assert.equal(sg.autograd.gradcheck((t) => t.mul(t).sum(), x), true);
  const i = sg.tensor([1, 2], { dtype: 'int32' });
  assert.equal(sg.autograd.gradcheck((t, k) => t.mul(k).sum(), [x, i]), true);
  throwsWith(() => sg.autograd.gradcheck((t) => t, []), 'gradcheck: expected inputs to be a Tensor or a non-empty array of Tensors, got []');
  throwsWith(() => sg.autograd.gradcheck((t) => t, 'x'), /^gradcheck: expected inputs to be a Tensor or a non-empty array of Tensors, got/);
  const h = sg.tensor([0.5], { dtype: 'float16', requiresGrad: true });
  throwsWith(() => sg.autograd.gradcheck((t) => t.sum(), [h]), 'gradcheck: input 0 requires grad but is float16 (expected float32 or float64)');
}));

test('gradcheck fn result: a Tensor or an array of them taken; [] or a non-Tensor element refused', scoped(() => {
  const x = sg.tensor([0.5, 1.5], { dtype: 'float64', requiresGrad: true });
  assert.equal(sg.autograd.gradcheck((t) => [t.mul(2), t.sum()], [x]), true);
  throwsWith(() => sg.autograd.gradcheck(() => [], [x]), 'gradcheck: fn must return a Tensor or a non-empty array of Tensors, got []');
  throwsWith(() => sg.autograd.gradcheck((t) => [t.mul(2), 5], [x]), /^gradcheck: fn must return a Tensor or a non-empty array of Tensors, got/);
}));

// zero_grad.ts: only setToNone: false is refused inside sg.compile; zeroGrad() (setToNone: true,
// PyTorch 2's default) traces, and setToNone: false runs outside it.
test('zeroGrad inside sg.compile: setToNone true taken, false refused; false taken outside', () => {
  const lin = new sg.nn.Linear(2, 1);
  const opt = new sg.optim.SGD(lin.parameters(), { lr: 0.1 });
  const mk = (setToNone) => sg.compile((x) => {
    opt.zeroGrad({ setToNone });
    const loss = lin.forward(x).sum();
    loss.backward();
    return loss;
  });
  const x = sg.ones([1, 2]);
  const ok = mk(true);
  const loss = ok(x);
  assert.equal(loss.numel, 1);
  loss.dispose();
  ok.clear();
  const bad = mk(false);
  throwsWith(() => bad(x), 'zeroGrad: setToNone: false cannot be compiled (sg.compile records no in-place zeroing of gradients); use zeroGrad() (setToNone: true) inside a compiled function');
  bad.clear();
  opt.zeroGrad({ setToNone: false });
  x.dispose();
  lin.dispose();
});
