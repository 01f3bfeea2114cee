// The stacking, splitting, scattering and statistics ops of gen_ops_stack_stats.py
// (npm/src/tensor/stack_split.ts, scatter_gather.ts, statistics.ts, reductions.ts, comparison.ts,
// pointwise.ts, rearranging.ts, indexing.ts, matrices.ts, and creation.ts's logspace/empty) against PyTorch 1.13
// (tests/data/ops_stack_stats_ref.json, from gen_ops_stack_stats.py): values and the gradients
// of Σ out·upstream on every backend; central-difference gradient checks; errors; compiled = eager.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { gradcheck, readRef, gradInput } from './gradcheck_helpers.mjs';
import { assertCompiledStepEqualsEager, checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';

const REF = readRef('ops_stack_stats_ref.json');
const vi = (r) => [r.values, r.indices];

const CALLS = {
  flipud: (x) => sg.flipud(x),
  fliplr: (x) => x.fliplr(),
  atleast1d: (x) => sg.atleast1d(x),
  'atleast2d list': (a, b) => sg.atleast2d(a, b),
  'atleast3d list': (a, b, c) => sg.atleast3d([a, b, c]),
  broadcastTo: (x) => x.broadcastTo([2, 3, 4]),
  broadcastTensors: (a, b) => sg.broadcastTensors(a, b),
  'tensorSplit sections': (x) => sg.tensorSplit(x, 3, 1),
  'tensorSplit indices': (x) => x.tensorSplit([1, 4, -1, 10]),
  hsplit: (x) => sg.hsplit(x, 2),
  'hsplit 1d': (x) => x.hsplit([2]),
  vsplit: (x) => sg.vsplit(x, [1, 3]),
  dsplit: (x) => sg.dsplit(x, 2),
  hstack: (a, b) => sg.hstack([a, b]),
  'hstack 1d': (a, b) => sg.hstack(a, b),
  vstack: (a, b) => sg.vstack([a, b]),
  rowStack: (a, b) => sg.rowStack(a, b),
  dstack: (a, b) => sg.dstack([a, b]),
  columnStack: (a, b, c) => sg.columnStack([a, b, c]),
  blockDiag: (a, b, c) => sg.blockDiag(a, b, c),
  narrowCopy: (x) => x.narrowCopy(1, 1, 2),
  take: (x, i) => sg.take(x, i),
  indexAdd: (x, i, s) => x.indexAdd(1, i, s, { alpha: 2 }),
  indexCopy: (x, i, s) => sg.indexCopy(x, 0, i, s),
  indexFill: (x, i) => x.indexFill(1, i, -7),
  selectScatter: (x, s) => sg.selectScatter(x, s, 1, -1),
  sliceScatter: (x, s) => x.sliceScatter(s, { dim: 1, start: 1, end: 6, step: 2 }),
  diagonalScatter: (x, s) => sg.diagonalScatter(x, s, 1),
  'diagonalScatter dims': (x, s) => x.diagonalScatter(s, -1, 2, 0),
  vander: (x) => sg.vander(x),
  'vander N increasing': (x) => x.vander({ N: 3, increasing: true }),
  fmax: (a, b) => sg.fmax(a, b),
  fmin: (a, b) => a.fmin(b),
  trueDivide: (a, b) => sg.trueDivide(a, b),
  cov: (x) => sg.cov(x),
  'cov 1d correction': (x) => x.cov({ correction: 0 }),
  corrcoef: (x) => sg.corrcoef(x),
  nanmedian: (x) => sg.nanmedian(x),
  'nanmedian dim': (x) => vi(x.nanmedian(1)),
  'nanmedian dim grad': (x) => vi(sg.nanmedian(x, 0, true)),
  'nanmedian all-NaN row': (x) => sg.nanmedian(x, 1).values,
  nanquantile: (x) => sg.nanquantile(x, 0.4, 1),
  'nanquantile list keepdim': (x) => x.nanquantile([0.25, 0.5, 1], 1, true),
  'nanquantile all': (x) => sg.nanquantile(x, 0.7),
  'nanquantile lower': (x) => sg.nanquantile(x, [0.3, 0.5], 1, false, { interpolation: 'lower' }),
  'nanquantile higher': (x) => sg.nanquantile(x, [0.3, 0.5], 1, false, { interpolation: 'higher' }),
  'nanquantile midpoint': (x) => sg.nanquantile(x, [0.3, 0.5], 1, false, { interpolation: 'midpoint' }),
  'nanquantile nearest': (x) => sg.nanquantile(x, [0.3, 0.5], 1, false, { interpolation: 'nearest' }),
  'nanquantile grad': (x) => sg.nanquantile(x, 0.35, 0),
  cummax: (x) => vi(sg.cummax(x, 1)),
  cummin: (x) => vi(x.cummin(1)),
  'cummax dim0 grad': (x) => vi(x.cummax(0)),
  'cummin grad': (x) => vi(sg.cummin(x, -1)),
  logcumsumexp: (x) => sg.logcumsumexp(x, 1),
  'logcumsumexp infinities': (x) => x.logcumsumexp(0),
  logspace: () => sg.logspace(-2, 3, 6),
  'logspace base': () => sg.logspace(0, 1, 5, { base: 2 }),
};

// cov/corrcoef sum products in another order than PyTorch's BLAS; logcumsumexp and logspace
// take another route to the same values (a masked logsumexp; pow of linspace).
const TOLERANCE = (id) => (/^(cov|corrcoef|logcumsumexp|logspace)/.test(id) ? 1e-5 : undefined);

test('every function equals PyTorch 1.13: values, special values and gradients', () => {
  checkRefCases(REF, CALLS, TOLERANCE);
});

forEachBackend('the functions equal PyTorch on the backend', async () => {
  await checkRefCasesAsync(REF, CALLS, TOLERANCE);
});

test('central-difference gradient checks', () => {
  const v = gradInput;
  const i32 = (a) => sg.tensor(a, { dtype: 'int32' });
  gradcheck('blockDiag', (a, b) => sg.blockDiag(a, b), [v([2, 1], 1), v([2], 2)]);
  gradcheck('take', (x) => sg.take(x, i32([[3, -1], [0, 3]])), [v([2, 2], 3)]);
  gradcheck('indexAdd', (x, s) => sg.indexAdd(x, 0, i32([1, 1]), s, { alpha: 0.5 }), [v([3, 2], 4), v([2, 2], 5)]);
  gradcheck('sliceScatter', (x, s) => sg.sliceScatter(x, s, { dim: 0, start: 1, step: 2 }), [v([4, 2], 6), v([2, 2], 7)]);
  gradcheck('diagonalScatter', (x, s) => sg.diagonalScatter(x, s, -1), [v([3, 3], 8), v([2], 9)]);
  gradcheck('vander', (x) => sg.vander(x, { N: 4 }), [v([3], 10)]);
  gradcheck('cov', (x) => sg.cov(x), [v([2, 4], 11)]);
  gradcheck('corrcoef', (x) => sg.corrcoef(x), [v([2, 5], 12)], { rtol: 3e-2, atol: 3e-3 });
  gradcheck('nanquantile', (x) => sg.nanquantile(x, [0.3, 0.8], 1), [v([2, 5], 13)]);
  gradcheck('cummax', (x) => sg.cummax(x, 1).values, [v([2, 5], 14)]);
  gradcheck('logcumsumexp', (x) => sg.logcumsumexp(x, 0), [v([5, 2], 15, -3, 3)]);
  gradcheck('fmax', (a, b) => sg.fmax(a, b), [v([5], 16), v([5], 17)]);
});

test('shapes and views: atleast*, broadcastShapes, empty', () => {
  assert.deepEqual(sg.broadcastShapes([3, 1], [4], [2, 1, 1]), [2, 3, 4]);
  const x = sg.randn([3]);
  const a = sg.atleast3d(x);
  assert.deepEqual(a.shape, [1, 3, 1]);
  assert.ok(sg.tidy(() => a.reshape([3]).sub(x).abs().max().item() === 0));
  assert.deepEqual(sg.tidy(() => sg.empty([2, 3]).shape), [2, 3]);
  assert.deepEqual(sg.tidy(() => sg.emptyLike(x).shape), [3]);
  sg.dispose([x, a]);
});

test('bad arguments are Errors naming them; nothing leaks', () => {
  const x = sg.randn([2, 3]);
  const live = sg.memory().tensors;
  throwsWith(() => sg.tidy(() => sg.fliplr(sg.zeros([3]))), 'fliplr: expected an input with at least 2 dims, got shape [3]');
  throwsWith(() => sg.broadcastShapes([2, 3], [4]), 'broadcastShapes: shapes [2, 3], [4] do not broadcast');
  throwsWith(() => sg.tidy(() => sg.hsplit(x, 2)), 'hsplit: the size 3 of dim 1 is not divisible by the number of sections 2');
  throwsWith(() => sg.tidy(() => sg.vsplit(sg.zeros([4]), 2)), 'vsplit: expected an input with at least 2 dims');
  throwsWith(() => sg.tidy(() => sg.tensorSplit(x, 0)), 'tensorSplit: expected a number of sections >= 1, got 0');
  throwsWith(() => sg.tidy(() => sg.blockDiag(sg.zeros([1, 1, 1]))), 'blockDiag: expected tensors with at most 2 dims');
  throwsWith(() => sg.tidy(() => sg.take(x, sg.zeros([2]))), "take: expected 'index' to be int32, got float32");
  throwsWith(() => sg.tidy(() => sg.indexFill(x, 1, sg.zeros([1, 1], { dtype: 'int32' }), 0)), "indexFill: expected 'index' to be a 1-D int32 Tensor");
  throwsWith(() => sg.tidy(() => sg.selectScatter(x, sg.zeros([3]), 0, 5)), 'selectScatter', "'index' in [-2, 1]", '5');
  throwsWith(() => sg.tidy(() => sg.selectScatter(x, sg.zeros([2]), 0, 1)), 'selectScatter: expected src of shape [3], got [2]');
  throwsWith(() => sg.tidy(() => sg.sliceScatter(x, sg.zeros([2, 3]), { dim: 1, start: 1 })), "sliceScatter: expected src of shape [2, 2] (the slice's), got [2, 3]");
  throwsWith(() => sg.tidy(() => sg.diagonalScatter(x, sg.zeros([3]))), "diagonalScatter: expected src of the diagonal's shape [2], got [3]");
  throwsWith(() => sg.tidy(() => sg.cov(sg.zeros([2, 2, 2]))), 'cov: expected a 1-D or 2-D input');
  throwsWith(() => sg.tidy(() => sg.nanquantile(x, 2)), 'nanquantile', "'q' in [0, 1]", '2');
  throwsWith(() => sg.tidy(() => sg.cummax(x, 2)), 'cummax', "'dim'", '[-2, 1]');
  throwsWith(() => sg.tidy(() => sg.logspace(0, 1, 3, { base: 'e' })), 'logspace', "'base'", "'e'");
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});

test('inside sg.compile: the functions equal their eager values and gradients', () => {
  const x = sg.randn([4, 5], { requiresGrad: true });
  const fn = (t) => sg.logcumsumexp(t, 1).add(sg.cummax(t, 0).values).sum().add(sg.cov(t).sum()).add(sg.vstack([t, sg.fliplr(t)]).nanquantile(0.3))
    .add(sg.indexAdd(t, 1, sg.tensor([0, 4], { dtype: 'int32' }), t.narrow(1, 0, 2)).sum());
  const step = () => {
    const l = fn(x);
    l.backward();
    return l;
  };
  assertCompiledStepEqualsEager(step, x);
  x.dispose();
});
