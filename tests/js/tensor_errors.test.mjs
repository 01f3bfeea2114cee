// Errors of npm/src/tensor that no test triggered or whose message no test read, each with its
// distinctive words and the "got ..." part, and the tensors still usable after; and paths no test
// ran: setGradEnabled, isTensor, print() / util.inspect, Module.to(dtype) casting a parameter's
// grad (torch 1.13's Module._apply converts param.grad too), namedTuple's checks. Expected values
// are hand-computed or PyTorch 1.13's documented results (quoted at each check).
import test from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { sg, throwsWith } from './helpers.mjs';
import { namedTuple, valuesIndices } from '../../npm/dist/esm/npm/src/tensor/named_tuple.js';

test('indexPut_ / indexPut: options that are not an object { accumulate } are named', () => {
  const x = sg.zeros([3]);
  const idx = sg.tensor([0, 2], { dtype: 'int32' });
  for (const [bad, got] of [[5, '5'], [null, 'null'], [[true], '\\[true\\]'], [x, 'a Tensor of shape \\[3\\] \\(float32\\)']]) {
    throwsWith(() => x.indexPut_([idx], sg.ones([2]), bad), new RegExp(`^indexPut_: expected an options object \\{ accumulate \\}, got ${got}$`));
  }
  assert.deepEqual(x.toArray(), [0, 0, 0]);
  // torch: x.index_put_((idx,), ones(2) * 2, accumulate=True) twice over index 0 -> [4, 0, 0].
  x.indexPut_([sg.tensor([0, 0], { dtype: 'int32' })], sg.full([2], 2), { accumulate: true });
  assert.deepEqual(x.toArray(), [4, 0, 0]);
});

test('tensor(): leaves that are not numbers, a shape of the wrong size, BigUint64Array values beyond int64', () => {
  throwsWith(() => sg.tensor([1, 'a']), /^tensor: expected numbers or booleans, got 'a'$/);
  throwsWith(() => sg.tensor([[1], [null]]), /^tensor: expected numbers or booleans, got null$/);
  throwsWith(() => sg.tensor([1, 2, 3], { shape: [2, 2] }), /^tensor: shape \[2, 2\] needs 4 elements, got 3$/);
  throwsWith(() => sg.tensor(new Float32Array(5), { shape: [2, 3] }), /^tensor: shape \[2, 3\] needs 6 elements, got 5$/);
  assert.deepEqual(sg.tensor([1, 2, 3, 4], { shape: [2, 2] }).toArray(), [[1, 2], [3, 4]]);
  const top = 2n ** 63n;
  throwsWith(() => sg.tensor(new BigUint64Array([1n, top]), { shape: [2], dtype: 'int64' }), new RegExp(`^tensor: value ${top} does not fit in int64$`));
  const ok = sg.tensor(new BigUint64Array([5n, top - 1n]), { shape: [2], dtype: 'int64' });
  assert.deepEqual(Array.from(ok.dataSync()), [5n, top - 1n]);
});

test('arange counts the numbers it was given', () => {
  throwsWith(() => sg.arange(), /^arange: expected \(end\) or \(start, end, step\?\), got 0 numbers$/);
  throwsWith(() => sg.arange(0, 1, 1, 1), /^arange: expected \(end\) or \(start, end, step\?\), got 4 numbers$/);
  throwsWith(() => sg.arange({ dtype: 'float32' }), /got 0 numbers$/);
  assert.deepEqual(sg.arange(1, 7, 2).toArray(), [1, 3, 5]);
});

test('histc: max below min names both (torch: "max must be larger than min")', () => {
  const x = sg.tensor([1, 2, 2, 3]);
  throwsWith(() => sg.histc(x, { bins: 4, min: 3, max: 1 }), /^histc: max must be larger than min, got min 3 and max 1$/);
  // torch.histc(tensor([1., 2, 2, 3]), bins=4, min=0, max=4) == [0, 1, 2, 1]
  assert.deepEqual(sg.histc(x, { bins: 4, min: 0, max: 4 }).toArray(), [0, 1, 2, 1]);
});

test("tensordot: 'dims' neither an integer nor two lists", () => {
  const a = sg.ones([2, 3]);
  const b = sg.ones([3, 2]);
  throwsWith(() => sg.tensordot(a, b, 'one'), /^tensordot: expected 'dims' to be an integer or two lists of dims, got 'one'$/);
  throwsWith(() => sg.tensordot(a, b, [[1]]), /^tensordot: expected 'dims' to be an integer or two lists of dims, got \[\[1\]\]$/);
  throwsWith(() => sg.tensordot(a, b, [[1], [0], [0]]), /got \[\[1\], \[0\], \[0\]\]$/);
  assert.deepEqual(sg.tensordot(a, b, [[1], [0]]).toArray(), [[3, 3], [3, 3]]);
});

test("randperm: a generator whose permutation() is not an Int32Array of length n", () => {
  const bad = [[[0, 1, 2], '\\[0, 1, 2\\]'], [new Int32Array(2), 'a Int32Array'], [new Float32Array(3), 'a Float32Array']];
  for (const [p, got] of bad) {
    throwsWith(() => sg.randperm(3, { generator: { permutation: () => p } }),
      new RegExp(`^randperm: the generator's permutation\\(3\\) returned ${got}, expected an Int32Array of length 3$`));
  }
  const r = sg.randperm(3, { generator: { permutation: (n) => Int32Array.from({ length: n }, (_, i) => n - 1 - i) } });
  assert.deepEqual(r.toArray(), [2, 1, 0]);
  assert.equal(r.dtype, 'int32');
});

test('takeAlongDim: the dim where input and indices do not broadcast', () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  throwsWith(() => sg.takeAlongDim(x, sg.zeros([3, 1], { dtype: 'int32' }), 1), /^takeAlongDim: shapes \[2, 3\] and \[3, 1\] do not broadcast in dim 0 \(2 and 3\)$/);
  // torch.take_along_dim(x, tensor([[2], [0]]), 1) == [[3], [4]]; a [1, 1] index broadcasts in dim 0.
  assert.deepEqual(sg.takeAlongDim(x, sg.tensor([[2], [0]], { dtype: 'int32' }), 1).toArray(), [[3], [4]]);
  assert.deepEqual(sg.takeAlongDim(x, sg.tensor([[1]], { dtype: 'int32' }), 1).toArray(), [[2], [5]]);
});

test('tensorSplit: sections neither an integer nor a list of integer indices', () => {
  const x = sg.arange(6);
  throwsWith(() => x.tensorSplit('2'), /^tensorSplit: expected an integer number of sections or a list of indices, got '2'$/);
  throwsWith(() => x.tensorSplit([1.5]), /^tensorSplit: expected an integer number of sections or a list of indices, got \[1\.5\]$/);
  throwsWith(() => x.tensorSplit(2.5), /got 2\.5$/);
  // torch.arange(6).tensor_split([1, 4]) -> [0], [1, 2, 3], [4, 5]
  assert.deepEqual(x.tensorSplit([1, 4]).map((t) => t.toArray()), [[0], [1, 2, 3], [4, 5]]);
});

test('namedTuple refuses names and items of different counts; valuesIndices takes { values, indices }', () => {
  throwsWith(() => namedTuple(['a', 'b'], [1]), /^namedTuple: 2 names for 1 items$/);
  const [v, i] = [sg.tensor([3]), sg.tensor([0], { dtype: 'int32' })];
  const r = valuesIndices({ values: v, indices: i });
  assert.equal(r.length, 2);
  assert.equal(r[0], v);
  assert.equal(r.values, v);
  assert.equal(r.indices, i);
  assert.deepEqual(Object.keys(r), ['0', '1']);
});

test('setGradEnabled(false) turns recording off until set back; isTensor', () => {
  assert.equal(sg.isGradEnabled(), true);
  const w = sg.ones([2], { requiresGrad: true });
  try {
    sg.setGradEnabled(false);
    assert.equal(sg.isGradEnabled(), false);
    assert.equal(w.mul(2).requiresGrad, false);
  } finally {
    sg.setGradEnabled(true);
  }
  assert.equal(sg.isGradEnabled(), true);
  assert.equal(w.mul(2).requiresGrad, true);
  assert.equal(sg.isTensor(w), true);
  for (const v of [[1, 2], 1, null, new Float32Array(2), { shape: [2] }]) assert.equal(sg.isTensor(v), false);
});

test("print() logs toString() and returns the tensor; util.inspect shows toString()", () => {
  const x = sg.tensor([1.5, 2]);
  const logged = [];
  const log = console.log;
  console.log = (...a) => logged.push(a.join(' '));
  let r;
  try {
    r = x.print();
  } finally {
    console.log = log;
  }
  assert.equal(r, x);
  assert.deepEqual(logged, ['tensor([1.5, 2], dtype=float32)']);
  assert.equal(inspect(x), 'tensor([1.5, 2], dtype=float32)');
});

test("Module.to('float64') casts each parameter's grad with it, values kept", () => {
  const lin = new sg.nn.Linear(2, 1);
  sg.noGrad(() => lin.weight.copy_(sg.tensor([[1, 2]])));
  lin(sg.tensor([[3, 4]])).sum().backward();
  // d/dW of W·x + b summed: x = [[3, 4]]; d/db = [1].
  assert.deepEqual(lin.weight.grad.toArray(), [[3, 4]]);
  lin.to('float64');
  assert.equal(lin.weight.dtype, 'float64');
  assert.equal(lin.weight.grad.dtype, 'float64');
  assert.deepEqual(lin.weight.grad.toArray(), [[3, 4]]);
  assert.deepEqual(lin.bias.grad.toArray(), [1]);
  assert.equal(lin.weight.requiresGrad, true);
  assert.deepEqual(lin.weight.toArray(), [[1, 2]]);
});

test('arange with requiresGrad: any floating dtype (torch.arange(..., dtype=torch.float64, requires_grad=True) works); integers refused', () => {
  for (const dtype of ['float64', 'float16', 'bfloat16', 'float32']) {
    const x = sg.arange(0, 3, { dtype, requiresGrad: true });
    assert.equal(x.dtype, dtype);
    assert.equal(x.requiresGrad, true);
    assert.deepEqual(x.toArray(), [0, 1, 2]);
    x.mul(x).sum().backward();
    assert.deepEqual(x.grad.toArray(), [0, 2, 4]); // d/dx sum(x²) = 2x
  }
  throwsWith(() => sg.arange(0, 3, { requiresGrad: true }), /^arange: integer arguments give an int32 tensor \(as in PyTorch\), which cannot require gradients; pass \{ dtype: 'float32' \}$/);
  throwsWith(() => sg.arange(0, 3, { dtype: 'int32', requiresGrad: true }), /^arange: a int32 tensor cannot require gradients \(only floating point tensors can\)$/);
  throwsWith(() => sg.arange(0, 3, { dtype: 'int64', requiresGrad: true }), /^arange: a int64 tensor cannot require gradients/);
});
