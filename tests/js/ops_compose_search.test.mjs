// The composite ops of gen_ops_compose_search.py (addcmul … combinations, searchsorted, triuIndices,
// cartesianProd: npm/src/tensor/pointwise.ts, comparison.ts, reductions.ts, sorting.ts,
// scatter_gather.ts, products.ts, rearranging.ts, matrices.ts, combinatorics.ts) against PyTorch 1.13
// (tests/data/ops_compose_search_ref.json, from gen_ops_compose_search.py): values (NaN, infinities,
// ties to the boundaries) and the gradients of Σ out·upstream; central-difference gradient
// checks; the method forms; errors of bad arguments; inside sg.compile; no tensor left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { gradcheck, readRef, gradInput } from './gradcheck_helpers.mjs';
import { assertCompiledEqualsEager, checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';
import { forEachBackend } from './backends.mjs';

const REF = readRef('ops_compose_search_ref.json');
const pair = (r) => [r.min, r.max];

// Each case id as the JS call (the same arguments as the PyTorch lambda).
const CALLS = {
  addcmul: (a, b, c) => sg.addcmul(a, b, c),
  'addcmul value': (a, b, c) => a.addcmul(b, c, { value: -0.5 }),
  addcdiv: (a, b, c) => sg.addcdiv(a, b, c, { value: 2 }),
  baddbmm: (i, a, b) => i.baddbmm(a, b, { beta: 0.5, alpha: 1.5 }),
  addbmm: (i, a, b) => sg.addbmm(i, a, b),
  addmv: (i, m, v) => sg.addmv(i, m, v, { alpha: -1 }),
  isclose: (a, b) => sg.isclose(a, b),
  'isclose equalNan': (a, b) => a.isclose(b, { equalNan: true }),
  'isclose tolerances': (a, b) => sg.isclose(a, b, { rtol: 0, atol: 1e-3 }),
  'isclose zero tolerances': (a, b) => sg.isclose(a, b, { rtol: 0, atol: 0 }),
  'isclose int32': (a, b) => sg.isclose(a, b, { rtol: 0.1, atol: 1 }),
  nansum: (x) => sg.nansum(x),
  'nansum dim keepdim': (x) => x.nansum(1, true),
  'nansum int32': (x) => sg.nansum(x, 0),
  'nanmean dim': (x) => sg.nanmean(x, 1),
  'nanmean all': (x) => x.nanmean(),
  'nanmean all-NaN row': (x) => sg.nanmean(x, 1),
  countNonzero: (x) => sg.countNonzero(x),
  'countNonzero dim': (x) => x.countNonzero(1),
  'countNonzero dims': (x) => sg.countNonzero(x, [0, 1]),
  aminmax: (x) => pair(sg.aminmax(x)),
  'aminmax dim keepdim': (x) => pair(x.aminmax({ dim: 1, keepdim: true })),
  varMean: (x) => sg.varMean(x, 1),
  'varMean biased keepdim': (x) => x.varMean(0, true, { unbiased: false }),
  'varMean all': (x) => sg.varMean(x),
  stdMean: (x) => sg.stdMean(x, [0, 1]),
  diff: (x) => sg.diff(x),
  'diff n dim': (x) => x.diff({ n: 2, dim: 0 }),
  'diff prepend append': (x, p, a) => sg.diff(x, { dim: 1, prepend: p, append: a }),
  'diff bool': (x) => sg.diff(x),
  'diff int32': (x) => x.diff({ n: 3 }),
  'diff n too large': (x) => sg.diff(x, { n: 5 }),
  cdist: (a, b) => sg.cdist(a, b),
  'cdist p1': (a, b) => a.cdist(b, { p: 1 }),
  'cdist p3 broadcast': (a, b) => sg.cdist(a, b, { p: 3 }),
  'cdist inf': (a, b) => sg.cdist(a, b, { p: Infinity }),
  'cdist p0': (a, b) => sg.cdist(a, b, { p: 0 }),
  'cdist mm': (a, b) => sg.cdist(a, b),
  bucketize: (x, b) => sg.bucketize(x, b),
  'bucketize right': (x, b) => x.bucketize(b, { right: true, outInt32: true }),
  searchsorted: (s, v) => sg.searchsorted(s, v),
  'searchsorted rows right': (s, v) => sg.searchsorted(s, v, { side: 'right' }),
  heaviside: (x, v) => sg.heaviside(x, v),
  inner: (a, b) => sg.inner(a, b),
  'inner 3d 1d': (a, b) => a.inner(b),
  'inner scalar': (a, b) => sg.inner(a, b),
  kron: (a, b) => sg.kron(a, b),
  'kron ndim': (a, b) => a.kron(b),
  tensordot: (a, b) => sg.tensordot(a, b),
  'tensordot lists': (a, b) => a.tensordot(b, [[1, 0], [0, 2]]),
  'tensordot 0': (a, b) => sg.tensordot(a, b, 0),
  takeAlongDim: (x, i) => sg.takeAlongDim(x, i, 1),
  'takeAlongDim broadcast': (x, i) => x.takeAlongDim(i, 0),
  'takeAlongDim flat': (x, i) => sg.takeAlongDim(x, i),
  rot90: (x) => sg.rot90(x),
  'rot90 k2': (x) => x.rot90(2, [1, 2]),
  'rot90 k-1': (x) => sg.rot90(x, -1, [0, 2]),
  'rot90 k4': (x) => sg.rot90(x, 4),
  msort: (x) => sg.msort(x),
  diagonal: (x) => sg.diagonal(x),
  'diagonal offset': (x) => x.diagonal(1),
  'diagonal negative offset dims': (x) => sg.diagonal(x, -1, 2, 0),
  'diagonal empty': (x) => sg.diagonal(x, 5),
  diagEmbed: (x) => sg.diagEmbed(x),
  'diagEmbed offset dims': (x) => x.diagEmbed(1, 0, 2),
  'diagEmbed negative offset': (x) => sg.diagEmbed(x, -2),
  combinations: (x) => sg.combinations(x),
  'combinations r3 replacement': (x) => x.combinations(3, { withReplacement: true }),
  'combinations too many': (x) => sg.combinations(x, 4),
  cartesianProd: (a, b, c) => sg.cartesianProd(a, b, c),
  triuIndices: () => sg.triuIndices(3, 4, 1),
  trilIndices: () => sg.trilIndices(4, 3, -1),
  nonzero: (x) => sg.nonzero(x),
  'nonzero asTuple': (x) => x.nonzero({ asTuple: true }),
  argwhere: (x) => sg.argwhere(x),
  maskedSelect: (x, m) => x.maskedSelect(m),
  unique: (x) => sg.unique(x),
  'unique inverse counts': (x) => sg.unique(x, { returnInverse: true, returnCounts: true }),
  'unique int32 counts': (x) => x.unique({ returnCounts: true }),
  uniqueConsecutive: (x) => sg.uniqueConsecutive(x, { returnInverse: true, returnCounts: true }),
  bincount: (x) => sg.bincount(x),
  'bincount weights minlength': (x, w) => x.bincount({ weights: w, minlength: 10 }),
  histc: (x) => sg.histc(x, { bins: 7 }),
  'histc range': (x) => x.histc({ bins: 5, min: -1, max: 2.5 }),
  'histc constant': (x) => sg.histc(x, { bins: 4 }),
};
// Shapes from values: read synchronously, so CPU only (on a GPU each is an Error saying so).
const DATA_DEPENDENT = /^(nonzero|argwhere|maskedSelect|unique|uniqueConsecutive|bincount|histc)\b/;

// 'cdist mm' sums |a|² + |b|² − 2a·b in another order than PyTorch's BLAS: a few float32 ulps of
// the squared norms (up to ~30 here), relative to distances of about 3.
const TOLERANCE = { 'cdist mm': 2e-5 };

test('every composite op equals PyTorch 1.13: values, special values and gradients', () => {
  checkRefCases(REF, CALLS, (id) => TOLERANCE[id]);
});

// Compositions run wherever their ops do: the same cases on every backend (WebGPU with
// SG_TEST_WEBGPU=1), read with await data().
forEachBackend('composite ops equal PyTorch on the backend', async (backend) => {
  await checkRefCasesAsync(REF, CALLS, (id) => TOLERANCE[id], (id) => backend === 'webgpu' && DATA_DEPENDENT.test(id));
  if (backend !== 'webgpu') return;
  sg.tidy(() => throwsWith(() => sg.unique(sg.tensor([1, 2])), "unique: the result's shape depends on the values", "this tensor is on 'webgpu'", 'move it first'));
  // allclose answers synchronously: on a GPU that is an Error that says what to do instead.
  const a = sg.tensor([1, 2]);
  throwsWith(() => sg.allclose(a, a), "allclose: returns a boolean, read synchronously, and these tensors are on 'webgpu'", 'await sg.isclose(a, b)');
  a.dispose();
});

test('composite ops: central-difference gradient checks', () => {
  const v = gradInput;
  gradcheck('addcmul', (a, b, c) => sg.addcmul(a, b, c, { value: 0.5 }), [v([2, 3], 1), v([3], 2), v([2, 1], 3)]);
  gradcheck('addcdiv', (a, b, c) => sg.addcdiv(a, b, c), [v([4], 4), v([4], 5), v([4], 6, 0.5, 2)]);
  gradcheck('baddbmm', (i, a, b) => sg.baddbmm(i, a, b, { beta: 2, alpha: 0.5 }), [v([1, 2, 2], 7), v([2, 2, 3], 8), v([2, 3, 2], 9)]);
  gradcheck('addbmm', (i, a, b) => sg.addbmm(i, a, b), [v([2, 2], 10), v([3, 2, 2], 11), v([3, 2, 2], 12)]);
  gradcheck('addmv', (i, m, x) => sg.addmv(i, m, x), [v([2], 13), v([2, 3], 14), v([3], 15)]);
  gradcheck('nanmean', (x) => sg.nanmean(x, 0), [v([3, 2], 16)]);
  gradcheck('varMean', (x) => { const [a, b] = sg.varMean(x, 1); return a.add(b.mul(2)); }, [v([2, 4], 17)]);
  gradcheck('diff', (x, p) => sg.diff(x, { n: 2, prepend: p }), [v([2, 4], 18), v([2, 1], 19)]);
  gradcheck('cdist', (a, b) => sg.cdist(a, b), [v([3, 2], 20), v([2, 2], 21)]);
  gradcheck('cdist p1.5', (a, b) => sg.cdist(a, b, { p: 1.5 }), [v([2, 3], 22), v([2, 3], 23)]);
  gradcheck('cdist mm', (a, b) => sg.cdist(a, b), [v([26, 2], 24), v([2, 2], 25)], { rtol: 2e-2, atol: 2e-2 });
  gradcheck('inner', (a, b) => sg.inner(a, b), [v([2, 3], 26), v([2, 3], 27)]);
  gradcheck('kron', (a, b) => sg.kron(a, b), [v([2, 2], 28), v([2], 29)]);
  gradcheck('tensordot', (a, b) => sg.tensordot(a, b, 1), [v([2, 3], 30), v([3, 2], 31)]);
  gradcheck('takeAlongDim', (x) => sg.takeAlongDim(x, sg.tensor([[1, 0], [0, 0]], { dtype: 'int32' }), 1), [v([2, 3], 32)]);
  gradcheck('rot90', (x) => sg.rot90(x, 3), [v([2, 3], 33)]);
  gradcheck('diagonal', (x) => sg.diagonal(x, -1), [v([3, 3], 34)]);
  gradcheck('diagEmbed', (x) => sg.diagEmbed(x, 1), [v([2, 2], 35)]);
  gradcheck('combinations', (x) => sg.combinations(x).prod(1), [v([3], 36)]);
  gradcheck('cartesianProd', (a, b) => sg.cartesianProd(a, b).prod(1), [v([2], 37), v([3], 38)]);
});

test('allclose, a JavaScript boolean, and the index builders on edge sizes', () => {
  const a = sg.tensor([1, 2, NaN]), b = sg.tensor([1 + 1e-7, 2, NaN]);
  assert.equal(sg.allclose(a, b), false);
  assert.equal(a.allclose(b, { equalNan: true }), true);
  assert.equal(sg.allclose(a, sg.tensor([1.1, 2, NaN]), { equalNan: true }), false);
  assert.deepEqual(sg.tidy(() => sg.triuIndices(0, 3).shape), [2, 0]);
  assert.deepEqual(sg.tidy(() => sg.combinations(sg.zeros([3]), 0).shape), [0]);
  assert.equal(sg.tidy(() => sg.searchsorted(sg.tensor([1, 2, 3]), 2.5).item()), 2);
  sg.dispose([a, b]);
});

test('unique: each NaN is its own value, after the numbers', () => {
  const [values, inverse, counts] = sg.unique(sg.tensor([NaN, 2, NaN, 1, 2]), { returnInverse: true, returnCounts: true });
  assert.deepEqual(Array.from(values.dataSync()), [1, 2, NaN, NaN]);
  assert.deepEqual(Array.from(inverse.dataSync()), [2, 1, 3, 0, 1]);
  assert.deepEqual(Array.from(counts.dataSync()), [1, 2, 1, 1]);
  sg.dispose([values, inverse, counts]);
  // Inside sg.compile the read is the tracer's Error, which says what to do.
  const traced = sg.compile((x) => sg.unique(x));
  throwsWith(() => sg.tidy(() => traced(sg.tensor([1, 2, 2]))), 'cannot read tensor values while sg.compile traces', 'sg.jsCall');
  // histc skips NaN (PyTorch 1.13 counts it in the first bin, against its own comment).
  assert.deepEqual(sg.tidy(() => Array.from(sg.histc(sg.tensor([NaN, -0.5, 2]), { bins: 5, min: -1, max: 2.5 }).dataSync())), [1, 0, 0, 0, 1]);
});

test('composite ops: bad arguments are Errors naming them; nothing leaks', () => {
  const x = sg.randn([2, 3]);
  const live = sg.memory().tensors;
  throwsWith(() => sg.tidy(() => sg.addcmul(x, x, x, { scale: 1 })), 'addcmul', "unknown option 'scale'");
  throwsWith(() => sg.tidy(() => sg.baddbmm(x, x, x)), 'baddbmm', "'batch1' to be 3-D", '[2, 3]');
  throwsWith(() => sg.tidy(() => sg.isclose(x, x.int())), 'isclose: expected both tensors to have the same dtype, got float32 and int32');
  throwsWith(() => sg.tidy(() => sg.isclose(x, x, { rtol: -1 })), 'isclose', "'rtol'", '>= 0', '-1');
  throwsWith(() => sg.tidy(() => sg.nanmean(x.int())), 'nanmean: expected input to have a floating point dtype, got int32');
  throwsWith(() => sg.tidy(() => sg.aminmax(sg.zeros([0]))), 'aminmax: expected a non-empty input, got shape [0]');
  throwsWith(() => sg.tidy(() => sg.diff(x, { n: -1 })), 'diff', "'n'", '-1');
  throwsWith(() => sg.tidy(() => sg.diff(x, { prepend: [1, 2] })), 'diff', "option 'prepend' must be a Tensor");
  throwsWith(() => sg.tidy(() => sg.cdist(x, sg.zeros([2, 4]))), 'cdist: expected x1 and x2 to have the same last dim', '[2, 3] and [2, 4]');
  throwsWith(() => sg.tidy(() => sg.cdist(x, x, { p: -1 })), 'cdist', "'p'", '>= 0');
  throwsWith(() => sg.tidy(() => sg.bucketize(x, x)), 'bucketize', "'boundaries' to be 1-D");
  throwsWith(() => sg.tidy(() => sg.searchsorted(sg.zeros([3]), x, { side: 'left', right: true })), "searchsorted: side and right can't be set to opposites");
  throwsWith(() => sg.tidy(() => sg.searchsorted(sg.zeros([2, 3]), sg.zeros([3, 1]))), 'searchsorted: expected sortedSequence to be 1-D or to share all but the last dim', '[2, 3] and [3, 1]');
  throwsWith(() => sg.tidy(() => sg.inner(x, sg.zeros([2]))), 'inner: expected the last dims of both inputs to match');
  throwsWith(() => sg.tidy(() => sg.tensordot(x, x, 3)), 'tensordot', "'dims'", '[0, 2]');
  throwsWith(() => sg.tidy(() => sg.tensordot(x, x, [[0], [1]])), 'tensordot: contracted dims must match, got size 2 in dim 0 of a and 3 in dim 1 of b');
  throwsWith(() => sg.tidy(() => sg.takeAlongDim(x, sg.zeros([3], { dtype: 'int32' }), 0)), 'takeAlongDim: expected input and indices with the same number of dims');
  throwsWith(() => sg.tidy(() => sg.rot90(x, 1, [0, 0])), 'rot90: expected two different dims');
  throwsWith(() => sg.tidy(() => sg.rot90(x, 1.5)), 'rot90', "'k'", '1.5');
  throwsWith(() => sg.tidy(() => sg.diagonal(sg.zeros([3]))), 'diagonal: expected an input with at least 2 dims, got shape [3]');
  throwsWith(() => sg.tidy(() => sg.diagEmbed(x, 0, 1, 1)), 'diagEmbed: expected two different dims');
  throwsWith(() => sg.tidy(() => sg.combinations(x)), 'combinations', "'input' to be 1-D");
  throwsWith(() => sg.tidy(() => sg.triuIndices(-1, 2)), 'triuIndices', "'row'", '-1');
  throwsWith(() => sg.tidy(() => sg.cartesianProd()), 'cartesianProd: expected at least one tensor');
  throwsWith(() => sg.tidy(() => sg.maskedSelect(x, x)), "maskedSelect: expected 'mask' to be a bool Tensor, got float32");
  throwsWith(() => sg.tidy(() => sg.maskedSelect(x, sg.tensor([true, false]))), 'maskedSelect: shapes [2, 3], [2] do not broadcast');
  throwsWith(() => sg.tidy(() => sg.bincount(sg.tensor([1, -1], { dtype: 'int32' }))), 'bincount: expected non-negative values, got -1');
  throwsWith(() => sg.tidy(() => sg.bincount(x)), 'bincount: expected a 1-D int32 input, got float32 of shape [2, 3]');
  throwsWith(() => sg.tidy(() => sg.histc(sg.tensor([1, NaN]))), 'histc: range of [NaN, NaN] is not finite');
  throwsWith(() => sg.tidy(() => sg.unique(x, { dim: 0 })), "unique: unknown option 'dim'");
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});

test('composite ops inside sg.compile equal the eager ones', () => {
  const a = sg.randn([4, 3]), b = sg.randn([5, 3]);
  const fn = (p, q) => sg.cdist(p, q).diagonal().nansum().add(sg.addcmul(p, p, p).kron(q.diff()).sum()).add(sg.inner(p, q).rot90().sum());
  assertCompiledEqualsEager(fn, [a, b]);
  sg.dispose([a, b]);
});
