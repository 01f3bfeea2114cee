// Messages of npm/src/tensor and the top-level API that tests triggered but matched only by a
// few words: each pinned in full (the contract being pinned, read from the source once), with
// the "got ..." part, and each function then answering a correct call (hand values, or
// PyTorch 1.13's documented result where quoted).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const x23 = () => sg.arange(6, { dtype: 'float32' }).reshape([2, 3]);
const i32 = (v) => sg.tensor(v, { dtype: 'int32' });

const cases = [
  // api.ts
  [() => sg.setBackend('gpu'), /^setBackend: unknown backend 'gpu' \(expected one of: 'wasm', 'reference', 'webgpu'\)$/],
  [() => sg.manualSeed(-1), /^manualSeed: expected a non-negative integer, got -1$/],
  [() => sg.manualSeed(1.5), /^manualSeed: expected a non-negative integer, got 1\.5$/],
  [() => sg.setGradEnabled('yes'), /^setGradEnabled: expected a boolean, got 'yes'$/],
  // advanced_indexing.ts
  [() => x23().index(i32([0]), [0, 3, 0]), /^index: expected a positive step in the range for dim 1, got 0$/],
  [() => x23().index(i32([0]), [0, 3, -2]), /^index: expected a positive step in the range for dim 1, got -2$/],
  [() => x23().index('...', i32([0]), '...'), /^index: expected at most one '\.\.\.', got 2 \(items 0 and 2\)$/],
  [() => x23().index(sg.tensor([0.5])), /^index: expected item 0 to be an integer \(int32, int64\) index tensor or a bool mask, got a float32 tensor \(index tensors cannot be floating: use \.int\(\)\)$/],
  [() => { const v = sg.ones([1]); v.dispose(); x23().indexPut([i32([0])], v); }, /^indexPut: 'values' is a disposed Tensor$/],
  [() => { const y = sg.zeros([2]); y.dispose(); y.indexPut_([i32([0])], 1); }, /^indexPut_: expected a live Tensor, got a disposed Tensor$/],
  // creation.ts
  [() => sg.tensor([2 ** 60], { dtype: 'int64' }), /^tensor: value 1152921504606847000 is not an integer a JS number holds exactly \(\|v\| ≤ 2\^53 − 1\): pass int64 values beyond that as a BigInt64Array$/],
  [() => sg.tensor([Infinity], { dtype: 'int64' }), /^tensor: value Infinity is not an integer a JS number holds exactly/],
  [() => sg.tensor(new Float32Array(2)), /^tensor: a Float32Array needs opts\.shape \(e\.g\. \{ shape: \[2\] \}\)$/],
  [() => sg.tensor(new BigUint64Array(2), { shape: [2] }), /^tensor: a BigUint64Array is not supported \(PyTorch has no uint64\): use a BigInt64Array$/],
  [() => sg.zeros([2, -1]), /^zeros: expected a shape of non-negative integers, got \[2, -1\]$/],
  [() => sg.full([2], NaN, { dtype: 'int32' }), /^full: cannot store NaN in an int32 tensor \(expected a number that fits int32\)$/],
  [() => sg.arange(0, 3, 0), /^arange: step must be nonzero$/],
  [() => sg.zerosLike([1, 2]), /^zerosLike: expected a Tensor, got \[1, 2\]$/],
  // data_dependent.ts, matrices.ts, ops.ts
  [() => sg.bincount(i32([1]), { minlength: -1 }), /^bincount: expected 'minlength' >= 0, got -1$/],
  [() => sg.bincount(i32([1, 0]), { weights: sg.ones([3]) }), /^bincount: expected weights of input's shape \[2\], got \[3\]$/],
  [() => sg.histc(i32([1])), /^histc: expected a float32 input, got int32$/],
  [() => sg.vander(sg.tensor([1, 2]), { N: -1 }), /^vander: expected N >= 0, got -1$/],
  [() => sg.isfinite(x23(), { a: 1 }), /^isfinite: takes no options, got an options object with keys: a$/],
  [() => sg.isfinite(x23(), {}), /^isfinite: takes no options, got an options object with keys: \(none\)$/],
  // products.ts, reductions.ts, scatter_gather.ts, sorting.ts, statistics.ts
  [() => sg.tensordot(x23(), x23(), [[0, 1], [0]]), /^tensordot: expected both lists of dims to have one length, got 2 and 1$/],
  [() => sg.tensordot(sg.ones([3, 3]), sg.ones([3, 3]), [[0, 0], [0, 1]]), /^tensordot: repeated dims in dims$/],
  [() => sg.cdist(x23(), x23(), { p: -1 }), /^cdist: expected 'p' to be a number >= 0, got -1$/],
  [() => sg.einsum(5, x23()), /^einsum: expected 'equation' to be a string, got 5$/],
  [() => sg.einsum('ij->ij'), /^einsum: expected at least one operand after the equation$/],
  [() => sg.diff(sg.tensor(1)), /^diff: expected at least a 1-D input, got a 0-d tensor$/],
  [() => sg.selectScatter(x23(), sg.ones([3]), 0, 2), /^selectScatter: expected 'index' in \[-2, 1\], got 2$/],
  [() => sg.selectScatter(x23(), sg.ones([3]), 0, -3), /^selectScatter: expected 'index' in \[-2, 1\], got -3$/],
  [() => sg.searchsorted(x23(), 1), /^searchsorted: a number as values needs a 1-D sortedSequence, got shape \[2, 3\]$/],
  [() => sg.quantile(sg.tensor([1, 2]), 1.5), /^quantile: expected 'q' in \[0, 1\] \(a number, a list or a 1-D tensor\), got 1\.5$/],
  [() => sg.quantile(sg.tensor([1, 2]), sg.tensor([0.5, 2])), /^quantile: expected 'q' in \[0, 1\] \(a number, a list or a 1-D tensor\), got \[0\.5, 2\]$/],
  [() => sg.quantile(sg.zeros([0]), 0.5), /^quantile: expected a non-empty input along dim$/],
  [() => sg.nanquantile(sg.tensor([1, 2]), [-0.1]), /^nanquantile: expected 'q' in \[0, 1\] \(a number or a list\), got \[-0\.1\]$/],
  [() => sg.nanquantile(sg.zeros([0]), 0.5), /^nanquantile: expected a non-empty input along dim$/],
];

test('each message in full, with what it got', () => {
  for (const [call, msg] of cases) throwsWith(call, msg);
});

test('the same functions answer correct calls after (torch 1.13 / hand values)', () => {
  sg.manualSeed(0);
  assert.equal(sg.getBackend(), 'wasm');
  const x = x23();
  // x[0, 0:3:2] == [0, 2]
  assert.deepEqual(x.index(i32([0]), [0, 3, 2]).toArray(), [[0, 2]]);
  assert.deepEqual(x.indexPut([i32([1])], sg.tensor(9)).toArray(), [[0, 1, 2], [9, 9, 9]]);
  assert.deepEqual(sg.tensor(new Float32Array([1, 2]), { shape: [2] }).toArray(), [1, 2]);
  assert.deepEqual(sg.full([2], NaN).toArray().map(Number.isNaN), [true, true]);
  assert.deepEqual(sg.zerosLike(x).shape, [2, 3]);
  // torch.bincount(tensor([1, 0]), weights=tensor([0.5, 2.]), minlength=3) == [2., 0.5, 0.]
  assert.deepEqual(sg.bincount(i32([1, 0]), { weights: sg.tensor([0.5, 2]), minlength: 3 }).toArray(), [2, 0.5, 0]);
  assert.deepEqual(sg.vander(sg.tensor([2, 3]), { N: 0 }).shape, [2, 0]);
  // torch.tensordot(ones(3, 3), ones(3, 3), dims=([0, 1], [1, 0])) == 9
  assert.equal(sg.tensordot(sg.ones([3, 3]), sg.ones([3, 3]), [[0, 1], [1, 0]]).item(), 9);
  assert.deepEqual(sg.einsum('ij->ji', x).shape, [3, 2]);
  assert.deepEqual(sg.selectScatter(x, sg.ones([3]), 0, -2).toArray(), [[1, 1, 1], [3, 4, 5]]);
  // torch.searchsorted(tensor([1., 3, 5]), 4) == 2
  assert.equal(sg.searchsorted(sg.tensor([1, 3, 5]), 4).item(), 2);
  assert.equal(sg.quantile(sg.tensor([1, 2]), 1).item(), 2);
  assert.equal(sg.nanquantile(sg.tensor([1, NaN, 2]), 0).item(), 1);
});

test('creation: shapes with a trailing options object, full, arange and linspace (survivors of a Stryker run on creation.ts)', () => {
  const cases = [
    [() => sg.ones([-1]), /^ones: expected a shape of non-negative integers, got \[-1\]$/],
    [() => sg.full([2], 'a'), /^full: expected 'value' to be a number, got 'a'$/],
    [() => sg.arange(3, { foo: 1 }), /^arange: unknown option 'foo' \(expected one of: dtype, requiresGrad, device\)$/],
    [() => sg.arange('5'), /^arange: expected 'start' to be a finite number, got '5'$/],
    [() => sg.arange(0, '5'), /^arange: expected 'end' to be a finite number, got '5'$/],
    [() => sg.arange(0, 5, 'x'), /^arange: expected 'step' to be a finite number, got 'x'$/],
    [() => sg.linspace('a', 1, 3), /^linspace: expected 'start' to be a finite number, got 'a'$/],
    [() => sg.linspace(0, 'b', 3), /^linspace: expected 'end' to be a finite number, got 'b'$/],
    [() => sg.linspace(0, 1, -1), /^linspace: expected 'steps' to be a non-negative integer, got -1$/],
    [() => sg.linspace(0, 1, 1.5), /^linspace: expected 'steps' to be a non-negative integer, got 1\.5$/],
    [() => sg.linspace(0, 1, 2, { foo: 1 }), /^linspace: unknown option 'foo' \(expected one of: dtype, requiresGrad, device\)$/],
  ];
  for (const [call, msg] of cases) throwsWith(call, msg);
  // sizes then an options object: every size is kept
  const z = sg.zeros(2, 3, { dtype: 'float64' });
  assert.deepEqual([z.shape, z.dtype], [[2, 3], 'float64']);
  // torch.full(3, 7.) is shape (3,); a bool value gives bool; NaN into bool is True (torch.full((2,), nan, dtype=torch.bool))
  assert.deepEqual(sg.full(3, 7).toArray(), [7, 7, 7]);
  assert.equal(sg.full([2], true).dtype, 'bool');
  assert.equal(sg.full([2], 1, { dtype: 'int32' }).dtype, 'int32');
  assert.deepEqual(sg.full([2], NaN, { dtype: 'bool' }).toArray(), [true, true]);
  const g = sg.full([2], 1.5, { requiresGrad: true });
  assert.equal(g.requiresGrad, true);
  // torch.arange(0, 2.5, 1) == [0., 1., 2.] (float: one argument is not an integer)
  const a = sg.arange(0, 2.5, 1);
  assert.deepEqual([a.dtype, a.toArray()], ['float32', [0, 1, 2]]);
  assert.equal(sg.arange(0.5, 3).dtype, 'float32');
  assert.equal(sg.arange(0, 3, 0.5).dtype, 'float32');
  assert.equal(sg.arange(0, 3).dtype, 'int32');
  // torch.linspace(0, 1, 0) has shape (0,); a given dtype wins
  assert.deepEqual(sg.linspace(0, 1, 0).shape, [0]);
  assert.equal(sg.linspace(0, 1, 3, { dtype: 'float64' }).dtype, 'float64');
  assert.equal(sg.linspace(0, 1, 3).dtype, 'float32');
});

test("a tensor's shape is a copy: changing it changes nothing", () => {
  const x = sg.zeros([2, 3]);
  const s = x.shape;
  s[0] = 99;
  assert.deepEqual(x.shape, [2, 3]);
  assert.equal(x.numel, 6);
});
