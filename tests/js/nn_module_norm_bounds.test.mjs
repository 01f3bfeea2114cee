// Each part of the guards of nn/module.ts (registration, to) and nn/norm.ts (BatchNorm's
// cumulative average, InstanceNorm, LayerNorm, GroupNorm) decides a test on its own, with the
// boundary values on both sides. Oracle: PyTorch 1.13 (accept/refuse), hand values; messages
// are the library's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sg, close, throwsWith } from './helpers.mjs';

const nn = sg.nn;

test('Module assignment: only a Parameter or Module is refused under a "." / empty name; plain values are stored', () => {
  const m = new nn.Module();
  throwsWith(() => { m['a.b'] = new nn.Parameter(sg.zeros([1])); }, /^parameter name can't contain "\." or be empty, got 'a\.b'$/);
  throwsWith(() => { m[''] = new nn.ReLU(); }, /^module name can't contain "\." or be empty, got ''$/);
  m['x.y'] = 3;
  assert.equal(m['x.y'], 3);
  m['c.d'] = sg.tensor([1]);
  assert.deepEqual([...m.namedParameters()].map(([k]) => k), []);
  m.good = new nn.Parameter(sg.zeros([1]));
  assert.deepEqual([...m.namedParameters()].map(([k]) => k), ['good']);
});

test('registerParameter / registerBuffer / addModule: null is a placeholder, a wrong kind is an Error naming it', () => {
  const m = new nn.Module();
  throwsWith(() => m.registerParameter('w', sg.zeros([2])), /^registerParameter: cannot register .* as parameter 'w' \(a sg\.nn\.Parameter or null expected; wrap a tensor with new sg\.nn\.Parameter\(t\)\)$/);
  throwsWith(() => m.registerParameter('w', new nn.ReLU()), /^registerParameter: cannot register .* as parameter 'w'/);
  m.registerParameter('w', null);
  assert.equal(m.w, null);
  assert.equal(m._parameters.has('w'), true);
  m.registerParameter('p', new nn.Parameter(sg.ones([1])));
  assert.deepEqual([...m.namedParameters()].map(([k]) => k), ['p']);
  m.registerBuffer('b', null);
  assert.equal(m.b, null);
  assert.equal(m._buffers.has('b'), true);
  throwsWith(() => m.registerBuffer('c', [1, 2]), /^registerBuffer: cannot register .* as buffer 'c' \(a Tensor or null expected\)$/);
  throwsWith(() => m.addModule('k', sg.zeros([1])), /^addModule: .* is not a sg\.nn\.Module$/);
  throwsWith(() => m.addModule('k', 7), /^addModule: 7 is not a sg\.nn\.Module$/);
  m.addModule('k', null);
  assert.equal(m.k, null);
  assert.equal(m._modules.has('k'), true);
});

test('Module.to: a device alone or a floating dtype is accepted; an integer dtype is refused', () => {
  const lin = new nn.Linear(2, 2);
  assert.equal(lin.to('cpu'), lin);
  assert.equal(lin.weight.dtype, 'float32');
  lin.to('float64');
  assert.equal(lin.weight.dtype, 'float64');
  throwsWith(() => lin.to('int64'), /^to: nn\.Module\.to only accepts floating point dtypes \(as PyTorch\), got int64$/);
  throwsWith(() => lin.to({ device: 'cpu', dtype: 'bool' }), /got bool$/);
});

test('BatchNorm momentum null: a cumulative average when counting; momentum 0.1 and trackRunningStats false do not use it', () => {
  const x1 = sg.tensor([[1], [3]]), x2 = sg.tensor([[5], [7]]);  // batch means 2, 6; unbiased vars 2, 2
  const cum = new nn.BatchNorm1d(1, { momentum: null });
  cum.forward(x1); cum.forward(x2);
  close(cum.running_mean.toArray(), [4]);  // 2, then 2 + (6 - 2) / 2
  close(cum.running_var.toArray(), [2]);
  const fixed = new nn.BatchNorm1d(1, { momentum: 0.1 });
  fixed.forward(x1); fixed.forward(x2);
  close(fixed.running_mean.toArray(), [0.78]); // 0.1·2 = 0.2, then 0.9·0.2 + 0.1·6
  close(fixed.running_var.toArray(), [1.19]);  // 0.9 + 0.2 = 1.1, then 0.99 + 0.2
  const untracked = new nn.BatchNorm1d(1, { momentum: null, trackRunningStats: false });
  close(untracked.forward(x1).toArray(), [[-1 / Math.sqrt(1 + 1e-5)], [1 / Math.sqrt(1 + 1e-5)]], 1e-5);
  const evalCum = new nn.BatchNorm1d(1, { momentum: null });
  evalCum.eval();
  close(evalCum.forward(x1).toArray(), [[1 / Math.sqrt(1 + 1e-5)], [3 / Math.sqrt(1 + 1e-5)]], 1e-5);
  close(evalCum.num_batches_tracked.toArray(), 0);
});

test('InstanceNorm1d takes 2-D or 3-D input only; a channel count other than numFeatures is refused only when affine', () => {
  const inorm = new nn.InstanceNorm1d(3);
  throwsWith(() => inorm.forward(sg.zeros([5])), /^InstanceNorm1d: expected 2D \(unbatched\) or 3D \(batched\) input, got 1D input$/);
  throwsWith(() => inorm.forward(sg.zeros([1, 1, 3, 5])), /^InstanceNorm1d: expected 2D \(unbatched\) or 3D \(batched\) input, got 4D input$/);
  assert.deepEqual(inorm.forward(sg.randn([3, 5])).shape, [3, 5]);
  assert.deepEqual(inorm.forward(sg.randn([2, 4, 5])).shape, [2, 4, 5]);  // not affine: any channel count (PyTorch warns)
  const aff = new nn.InstanceNorm1d(3, { affine: true });
  throwsWith(() => aff.forward(sg.zeros([2, 4, 5])), /^InstanceNorm1d: expected input's size at dim 1 to match numFeatures \(3\), but got: 4\.$/);
  throwsWith(() => aff.forward(sg.zeros([4, 5])), /^InstanceNorm1d: expected input's size at dim 0 to match numFeatures \(3\), but got: 4\.$/);
  assert.deepEqual(aff.forward(sg.randn([2, 3, 5])).shape, [2, 3, 5]);
  const in2 = new nn.InstanceNorm2d(2);
  throwsWith(() => in2.forward(sg.zeros([2, 4])), /^InstanceNorm2d: expected 3D \(unbatched\) or 4D \(batched\) input, got 2D input$/);
  assert.deepEqual(in2.forward(sg.randn([2, 3, 3])).shape, [2, 3, 3]);
});

test('LayerNorm normalizedShape: integers >= 0 (0 accepted, as PyTorch), anything else refused', () => {
  assert.deepEqual(new nn.LayerNorm(0).normalizedShape, [0]);
  assert.deepEqual(new nn.LayerNorm([2, 0]).normalizedShape, [2, 0]);
  assert.deepEqual(new nn.LayerNorm([1]).normalizedShape, [1]);
  throwsWith(() => new nn.LayerNorm(-1), /^LayerNorm: expected 'normalizedShape' to be an integer or an array of integers, got -1$/);
  throwsWith(() => new nn.LayerNorm([2, -1]), /^LayerNorm: expected 'normalizedShape' to be an integer or an array of integers, got \[2, -1\]$/);
  throwsWith(() => new nn.LayerNorm([2, 1.5]), /^LayerNorm: expected 'normalizedShape' .*got \[2, 1\.5\]$/);
  throwsWith(() => new nn.LayerNorm('3'), /^LayerNorm: expected 'normalizedShape' to be an integer or an array of integers, got '3'$/);
});

test('GroupNorm input: at least 2 dims, and dim 1 equal to numChannels', () => {
  const gn = new nn.GroupNorm(2, 4);
  throwsWith(() => gn.forward(sg.zeros([4])), /^GroupNorm: expected input of shape \[N, 4, \*\] \(numChannels 4\), got \[4\]$/);
  throwsWith(() => gn.forward(sg.zeros([2, 3])), /^GroupNorm: expected input of shape \[N, 4, \*\] \(numChannels 4\), got \[2, 3\]$/);
  throwsWith(() => gn.forward(sg.zeros([2, 5, 3])), /got \[2, 5, 3\]$/);
  assert.deepEqual(gn.forward(sg.randn([2, 4])).shape, [2, 4]);
  assert.deepEqual(gn.forward(sg.randn([2, 4, 3])).shape, [2, 4, 3]);
});
