// The Tensor class's own checks and small methods (tensor/tensor.ts): size(dim), the
// requiresGrad / grad setters, T, item, zeroGrad's arguments with their messages; toString's
// forms (values to 6 significant digits, requiresGrad, over 100 elements, bool, disposed); the
// dtype shorthands (torch's .float() .double() .half() .bfloat16() .int() .long() .bool());
// detach, retainGrad, dispose and reading a disposed tensor. Expected values by hand or from
// PyTorch 1.13's documented behaviour (.int() truncates toward zero; size(-1) is the last dim).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

test('size(): the shape, one size, negative dims; out of range named with the rank', () => {
  const x = sg.zeros([2, 3]);
  assert.deepEqual(x.size(), [2, 3]);
  assert.equal(x.size(0), 2);
  assert.equal(x.size(-1), 3);
  assert.equal(x.size(-2), 2);
  throwsWith(() => x.size(2), /^size: dim 2 is out of range for a 2-D tensor$/);
  throwsWith(() => x.size(-3), /^size: dim -3 is out of range for a 2-D tensor$/);
  throwsWith(() => x.size('0'), /^size: expected 'dim' to be an integer, got '0'$/);
});

test('requiresGrad and grad setters check their value; grad = null / undefined clears', () => {
  const x = sg.tensor([1, 2, 3], { requiresGrad: true });
  throwsWith(() => { x.requiresGrad = 1; }, /^requiresGrad: expected a boolean, got 1$/);
  assert.equal(x.requiresGrad, true);
  throwsWith(() => { x.grad = 5; }, /^grad: expected a Tensor or null, got 5$/);
  throwsWith(() => { x.grad = [1, 1, 1]; }, /^grad: expected a Tensor or null, got \[1, 1, 1\]$/);
  assert.equal(x.grad, null);
  const g = sg.tensor([1, 1, 1]);
  x.grad = g;
  assert.equal(x.grad, g);
  assert.deepEqual(x.grad.toArray(), [1, 1, 1]);
  x.grad = undefined;
  assert.equal(x.grad, null);
  x.grad = sg.tensor([2, 2, 2]);
  x.grad = null;
  assert.equal(x.grad, null);
  x.requiresGrad = false;
  assert.equal(x.requiresGrad, false);
  assert.equal(x.requiresGrad_(), x);
  assert.equal(x.requiresGrad, true);
});

test('T needs 2 dims; item needs one element; zeroGrad takes no arguments', () => {
  const v = sg.tensor([1, 2, 3], { requiresGrad: true });
  throwsWith(() => v.T, /^T: expected a 2-D tensor, got shape \[3\] \(use permute or transpose\)$/);
  throwsWith(() => sg.zeros([2, 2, 1]).T, /got shape \[2, 2, 1\]/);
  assert.deepEqual(sg.tensor([[1, 2, 3], [4, 5, 6]]).T.toArray(), [[1, 4], [2, 5], [3, 6]]);
  throwsWith(() => v.item(), /^item: expected a tensor with one element, got shape \[3\]$/);
  throwsWith(() => sg.zeros([0]).item(), /got shape \[0\]$/);
  assert.equal(sg.tensor([[7]]).item(), 7);
  v.sum().backward();
  throwsWith(() => v.zeroGrad(1), /^zeroGrad: a tensor's zeroGrad\(\) takes no arguments \(it sets \.grad to null\), got 1$/);
  assert.deepEqual(v.grad.toArray(), [1, 1, 1]);
  v.zeroGrad();
  assert.equal(v.grad, null);
});

test('toString: 6 significant digits, requiresGrad, bool, a summary over 100 elements, disposed', () => {
  assert.equal(String(sg.tensor([1 / 3, 2e-7, 123456789])), 'tensor([0.333333, 2e-7, 123457000], dtype=float32)');
  assert.equal(String(sg.tensor([[1, 2]], { requiresGrad: true })), 'tensor([[1, 2]], dtype=float32, requiresGrad=true)');
  assert.equal(String(sg.tensor([true, false])), 'tensor([true, false], dtype=bool)');
  assert.equal(String(sg.tensor(5, { dtype: 'int32' })), 'tensor(5, dtype=int32)');
  assert.equal(String(sg.zeros([100])).startsWith('tensor([0, 0,'), true);
  assert.equal(String(sg.zeros([101])), 'Tensor(shape=[101], dtype=float32)');
  assert.equal(String(sg.zeros([11, 10], { requiresGrad: true })), 'Tensor(shape=[11, 10], dtype=float32, requiresGrad=true)');
  const d = sg.ones([2]);
  d.dispose();
  assert.equal(String(d), 'Tensor(disposed)');
});

test('the dtype shorthands convert as torch (.int() truncates toward zero), and to() of the same dtype is a new Tensor', () => {
  const x = sg.tensor([1.7, -1.2, 0]);
  const cases = [['float', 'float32', [1.7, -1.2, 0]], ['double', 'float64', [Math.fround(1.7), Math.fround(-1.2), 0]], ['half', 'float16', [1.7001953125, -1.2001953125, 0]],
    ['bfloat16', 'bfloat16', [1.703125, -1.203125, 0]], ['int', 'int32', [1, -1, 0]], ['long', 'int64', [1, -1, 0]], ['bool', 'bool', [true, true, false]]];
  for (const [m, dtype, values] of cases) {
    const y = x[m]();
    assert.equal(y.dtype, dtype, m);
    if (dtype === 'float32') assert.deepEqual(y.toArray(), Array.from(new Float32Array([1.7, -1.2, 0])), m);
    else assert.deepEqual(y.toArray(), values, m);
  }
  const same = x.to('float32');
  assert.notEqual(same, x);
  x.dispose();
  assert.equal(same.isDisposed, false);
  assert.equal(same.numel, 3);
});

test('detach keeps the dtype outside the graph; retainGrad keeps a non-leaf grad; gradFn names the op', () => {
  const w = sg.tensor([1, 2], { dtype: 'float64', requiresGrad: true });
  const y = w.mul(3);
  assert.equal(w.gradFn, null);
  assert.equal(typeof y.gradFn, 'string');
  assert.equal(y.isLeaf, false);
  const d = y.detach();
  assert.equal(d.dtype, 'float64');
  assert.equal(d.requiresGrad, false);
  assert.equal(d.isLeaf, true);
  y.retainGrad();
  y.mul(y).sum().backward();
  // d(sum(y²))/dy = 2y = [6, 12]; dw = 3·2y = [18, 36]
  assert.deepEqual(y.grad.toArray(), [6, 12]);
  assert.deepEqual(w.grad.toArray(), [18, 36]);
});

test('dispose twice is a no-op; a disposed tensor refuses reads (shape and dtype cached or not); [Symbol.dispose]', () => {
  const x = sg.zeros([2, 2]);
  void x.shape;
  void x.dtype;
  const live = sg.memory().tensors;
  x.dispose();
  x.dispose();
  assert.equal(sg.memory().tensors, live - 1);
  assert.equal(x.isDisposed, true);
  throwsWith(() => x.shape, /^Tensor is disposed$/);
  throwsWith(() => x.dtype, /^Tensor is disposed$/);
  throwsWith(() => x.handle, /^Tensor is disposed$/);
  const y = sg.zeros([1]);
  throwsWith(() => (y.dispose(), y.dtype), /^Tensor is disposed$/);
  const z = sg.ones([3]);
  z[Symbol.dispose]();
  assert.equal(z.isDisposed, true);
});
