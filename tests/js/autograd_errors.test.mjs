// Argument checks of backward, sg.autograd.grad, gradcheck/gradgradcheck and sg.utils.checkpoint
// that no other test reached: each message is asserted (its words and its "got ..." part), and
// the call after it still works. Values are hand-computed derivatives (d/dx Σx² = 2x, d/dx x³ = 3x²).
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

test('backward(options, options) is an Error naming the two options objects; backward(options) still works', () => {
  const x = sg.tensor([1, 2, 3]).requiresGrad_();
  const y = x.square().sum();
  throwsWith(() => y.backward({ retainGraph: true }, { createGraph: false }), /^backward: expected \(gradOutput\?, options\?\), got two options objects$/);
  y.backward({ retainGraph: true });
  close(x.grad.toArray(), [2, 4, 6]);
  // retainGraph kept the graph: a second backward accumulates.
  y.backward();
  close(x.grad.toArray(), [4, 8, 12]);
});

test('autograd.grad with a number gradOutput scales the gradient by it', () => {
  const x = sg.tensor([1, -2, 0.5]).requiresGrad_();
  const g = sg.autograd.grad(x.square().sum(), x, { gradOutput: 3 });
  // 3 · d/dx Σx² = 6x
  close(g.toArray(), [6, -12, 3]);
  assert.equal(x.grad, null);
});

test('gradcheck: inputs that are not a Tensor or a non-empty array are an Error naming what was given', () => {
  for (const check of [sg.autograd.gradcheck, sg.autograd.gradgradcheck]) {
    const name = check === sg.autograd.gradcheck ? 'gradcheck' : 'gradgradcheck';
    throwsWith(() => check((a) => a, []), new RegExp(`^${name}: expected inputs to be a Tensor or a non-empty array of Tensors, got \\[\\]$`));
    throwsWith(() => check((a) => a, 5), `${name}: expected inputs to be a Tensor or a non-empty array of Tensors, got 5`);
  }
  // A single Tensor is accepted as the input list.
  assert.equal(sg.autograd.gradcheck((a) => a.square(), sg.tensor([1, 2], { dtype: 'float64' }).requiresGrad_()), true);
});

test('gradcheck: an input that requires grad in a dtype other than float32/float64 is an Error naming its dtype', () => {
  const h = sg.tensor([1, 2]).half().requiresGrad_();
  throwsWith(() => sg.autograd.gradcheck((a) => a.square(), [h]), /^gradcheck: input 0 requires grad but is float16 \(expected float32 or float64\)$/);
  const b = sg.tensor([1, 2]).bfloat16().requiresGrad_();
  const d = sg.tensor([3, 4], { dtype: 'float64' }).requiresGrad_();
  throwsWith(() => sg.autograd.gradcheck((a, c) => a.float().mul(c.float()), [d, b]), 'gradcheck: input 1 requires grad but is bfloat16');
  assert.equal(sg.autograd.gradcheck((a) => a.square(), [d]), true);
});

test('gradgradcheck with given gradOutputs passes for x³ and fails for a wrong double backward', () => {
  const x = sg.tensor([0.5, -1, 2], { dtype: 'float64' }).requiresGrad_();
  const go = sg.tensor([1, 2, -1], { dtype: 'float64' });
  assert.equal(sg.autograd.gradgradcheck((a) => a.pow(3), [x], { gradOutputs: go }), true);
  // The given gradOutputs are used through a detached copy: the caller's tensor is left as it was.
  assert.equal(go.requiresGrad, false);
  // A custom Function whose backward is right (3x²·g) but not differentiable through x in the
  // recorded graph (its gradient is computed from a detached x): the double backward is wrong.
  class Cube extends sg.autograd.Function {
    static forward(ctx, a) { ctx.saveForBackward(a); return a.detach().pow(3); }
    static backward(ctx, g) { const [a] = ctx.savedTensors; return a.detach().square().mul(3).mul(g); }
  }
  assert.equal(sg.autograd.gradcheck((a) => Cube.apply(a), [x]), true);
  throwsWith(() => sg.autograd.gradgradcheck((a) => Cube.apply(a), [x], { gradOutputs: [go] }), /gradgradcheck/);
});

test('checkpoint: fn returning a different number of tensors when recomputed is an Error in backward', () => {
  const x = sg.tensor([1, 2, 3]).requiresGrad_();
  let calls = 0;
  const y = sg.utils.checkpoint((a) => (calls++ === 0 ? [a.mul(2), a.mul(3)] : a.mul(2)), x);
  throwsWith(() => y[0].sum().backward(), /checkpoint: fn returned something else when recomputed in backward/);
  // The same function returning the same structure each time: d/dx Σ(2x) = 2.
  const z = sg.utils.checkpoint((a) => [a.mul(2), a.mul(3)], x);
  z[0].sum().backward();
  close(x.grad.toArray(), [2, 2, 2]);
});

// gradcheck's default tolerances (PyTorch's for float64: eps 1e-6, atol 1e-5, rtol 1e-3; looser
// ones for float32): exp(100x) has a central difference error of about eps²·100²/6 relative, so it
// passes with eps 1e-6 (and would fail with 1e-3); a float32 gradient off by 0.05 must fail.
test('gradcheck defaults: float64 eps fine enough for exp(100x); float32 atol catches a gradient off by 0.05', () => {
  const x = sg.tensor([0.01, -0.02], { dtype: 'float64' }).requiresGrad_();
  assert.equal(sg.autograd.gradcheck((a) => a.mul(100).exp(), [x]), true);
  // A given eps is used: with 1e-2 the difference is off by about 1/6.
  throwsWith(() => sg.autograd.gradcheck((a) => a.mul(100).exp(), [x], { eps: 1e-2 }), /gradcheck/);
  // rtol 1e-3: a float64 gradient 1000 off by 5e-4 relative (0.5 < 1e-5 + 1e-3·1000) passes.
  class Scaled extends sg.autograd.Function {
    static forward(ctx, a) { return a.mul(1000); }
    static backward(ctx, g) { return g.mul(1000 * (1 + 5e-4)); }
  }
  assert.equal(sg.autograd.gradcheck((a) => Scaled.apply(a), [x]), true);
  throwsWith(() => sg.autograd.gradcheck((a) => Scaled.apply(a), [x], { rtol: 1e-5 }), /gradcheck/);
  class Off extends sg.autograd.Function {
    static forward(ctx, a) { return a.mul(1); }
    static backward(ctx, g) { return g.add(0.05); }
  }
  const y = sg.tensor([0.1, 0.2]).requiresGrad_();
  throwsWith(() => sg.autograd.gradcheck((a) => Off.apply(a), [y]), /gradcheck/);
  assert.equal(sg.autograd.gradcheck((a) => Off.apply(a), [y], { atol: 0.1 }), true);
});

test('gradcheck: its other argument checks and the failure message (worst entry, count, tolerances)', () => {
  const y = sg.tensor([0.1, 0.2]).requiresGrad_();
  throwsWith(() => sg.autograd.gradcheck(5, [y]), /^gradcheck: expected fn to be a function, got 5$/);
  throwsWith(() => sg.autograd.gradcheck((a) => a, [y, 3]), /^gradcheck: input 1 must be a Tensor, got 3$/);
  throwsWith(() => sg.autograd.gradcheck((a) => a, [sg.tensor([1])]), /^gradcheck: no input requires grad \(set requiresGrad on the inputs to check\)$/);
  throwsWith(() => sg.autograd.gradcheck(() => [], [y]), /^gradcheck: fn must return a Tensor or a non-empty array of Tensors, got \[\]$/);
  throwsWith(() => sg.autograd.gradcheck((a) => [a, 2], [y]), 'gradcheck: fn must return a Tensor or a non-empty array of Tensors, got [a Tensor of shape [2] (float32), 2]');
  // Identity with a backward adding 0.05: every Jacobian entry is 0.05 off; the worst (first of
  // the largest excess) is an off-diagonal one, d out[1] / d in[0] (0.05 against 0).
  class Off extends sg.autograd.Function {
    static forward(ctx, a) { return a.mul(1); }
    static backward(ctx, g) { return g.add(0.05); }
  }
  throwsWith(() => sg.autograd.gradcheck((a) => Off.apply(a), [y]),
    /^gradcheck: Jacobian mismatch for output 0 with respect to input 0: d output\[1\] \/ d input\[0\] is 0\.050000\d* by autograd and 0 by central differences \(\|difference\| 0\.0500 > atol \+ rtol·\|numerical\| = 0\.00100\); 4 of 4 Jacobian entries differ \(eps 0\.001, atol 0\.001, rtol 0\.01\)$/);
});

test('gradgradcheck: gradOutputs of the wrong shape or count are Errors naming them (count checked first)', () => {
  const y = sg.tensor([0.1, 0.2], { dtype: 'float64' }).requiresGrad_();
  throwsWith(() => sg.autograd.gradgradcheck((a) => a.square(), [y], { gradOutputs: sg.zeros([3]) }), /^gradgradcheck: gradOutputs\[0\] must have the shape of output 0, \[2\], got \[3\]$/);
  throwsWith(() => sg.autograd.gradgradcheck((a) => a.square(), [y], { gradOutputs: [sg.zeros([2]), sg.zeros([2])] }), /^gradgradcheck: expected 1 gradOutputs \(one per output\), got 2$/);
  throwsWith(() => sg.autograd.gradgradcheck((a) => [a.square(), a.exp()], [y], { gradOutputs: [sg.zeros([2])] }), /^gradgradcheck: expected 2 gradOutputs \(one per output\), got 1$/);
  assert.equal(sg.autograd.gradgradcheck((a) => [a.square(), a.exp()], [y], { gradOutputs: [sg.ones([2]), sg.ones([2])] }), true);
});

test('autograd.grad inputs, sg.grad\'s one-element output and linalg.matrixRank\'s rank: Errors naming what they got', () => {
  const x = sg.tensor([1, 2]).requiresGrad_();
  throwsWith(() => sg.autograd.grad(x.sum(), []), /^autograd\.grad: expected inputs to be a Tensor or a non-empty array of Tensors, got \[\]$/);
  throwsWith(() => sg.autograd.grad(x.sum(), 5), /^autograd\.grad: expected inputs to be a Tensor or a non-empty array of Tensors, got 5$/);
  throwsWith(() => sg.grad((a) => a)(x), /^grad: fn must return a Tensor with one element, got a Tensor of shape \[2\] \(float32\)$/);
  throwsWith(() => sg.grad(() => 5)(x), /^grad: fn must return a Tensor with one element, got 5$/);
  close(sg.grad((a) => a.square().sum())(x).toArray(), [2, 4]);
  throwsWith(() => sg.linalg.matrixRank(sg.zeros([3])), /^linalg\.matrixRank: expected A to have at least 2 dims, got shape \[3\]$/);
});

test('checkpoint: fn returning a non-Tensor when recomputed is the recompute Error', () => {
  const x = sg.tensor([1, 2]).requiresGrad_();
  let calls = 0;
  const y = sg.utils.checkpoint((a) => (calls++ === 0 ? a.mul(2) : 7), x);
  throwsWith(() => y.sum().backward(), /checkpoint: fn returned something else when recomputed in backward/);
});
