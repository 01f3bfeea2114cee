// Tensor functions called with their optional arguments left out give PyTorch 1.13's results
// (tests/data/tensor_defaults_ref.json from gen_tensor_defaults.py): each default (histc's 100
// bins over the data's range, var's unbiased, nanToNum's ±float32 max, the add*mm family's
// beta = alpha = 1, cdist's p = 2, keepdim false, diff's n = 1 along the last dim, scatterReduce's
// includeSelf, quantile's 'linear', cov's correction 1, ...) is what a caller relies on.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, readRef } from './helpers.mjs';

const ref = readRef('tensor_defaults_ref.json').cases;
const t = (v) => sg.tensor(v);
const X = () => t([[1, 5, 2], [4, 3, 6]]);
const A = () => t([[0.5, -1], [2, 0.25]]);
const B = () => t([[1.5, 2], [-0.5, 3]]);
const S = () => t([[3, 1, 2], [0, 5, 4]]);
const i32 = (v) => sg.tensor(v, { dtype: 'int32' });
const nanIn = (rows) => t(rows.map((r) => r.map((v) => (v === null ? NaN : v))));

const calls = {
  bincount: () => sg.bincount(i32([0, 1, 1, 3])),
  histc: () => sg.histc(t([1, 2, 2, 3, 7])),
  addcmul_: () => t([1, 2]).addcmul_(t([3, 4]), t([0.5, -2])),
  addcdiv_: () => t([1, 2]).addcdiv_(t([3, 4]), t([0.5, -2])),
  vander: () => sg.vander(t([1, 2, 3])),
  var: () => t([1, 2, 3, 4]).var(),
  std_dim: () => X().std(1),
  round: () => sg.round(t([0.5, 1.5, 2.5, -0.5, 1.25, -2.5])),
  nanToNum: () => sg.nanToNum(t([NaN, Infinity, -Infinity, 1])),
  addmm: () => sg.addmm(B(), A(), B()),
  addmv: () => sg.addmv(t([1, -1]), A(), t([2, 3])),
  baddbmm: () => sg.baddbmm(B().unsqueeze(0), A().unsqueeze(0), B().unsqueeze(0)),
  addbmm: () => sg.addbmm(B(), sg.stack([A(), B()]), sg.stack([B(), A()])),
  indexAdd: () => sg.zeros([3, 2]).indexAdd(0, i32([0, 2, 0]), t([[1, 2], [3, 4], [5, 6]])),
  cdist: () => sg.cdist(A(), B()),
  aminmax_min: () => sg.aminmax(X(), { dim: 1 }).min,
  aminmax_max: () => sg.aminmax(X(), { dim: 1 }).max,
  kthvalue: () => X().kthvalue(2).values,
  median: () => X().median(0).values,
  nanmedian: () => nanIn([[1, null], [3, 4], [2, 0]]).nanmedian(0).values,
  nansum: () => nanIn([[1, null], [3, 4]]).nansum(0),
  nanmean: () => nanIn([[1, null], [3, 4]]).nanmean(0),
  diff: () => sg.diff(t([[1, 4, 9], [2, 2, 5]])),
  scatterReduce_sum: () => t([1, 1]).scatterReduce(0, i32([0, 1, 0]), t([5, -1, 2]), 'sum'),
  scatterReduce_amin: () => t([1, 1]).scatterReduce(0, i32([0, 1, 0]), t([5, -1, 2]), 'amin'),
  sliceScatter: () => sg.sliceScatter(sg.zeros([2, 3]), t([[1, 2, 3], [4, 5, 6]])),
  quantile: () => sg.quantile(t([1, 7, 3, 4]), 0.3),
  quantile_dim: () => sg.quantile(X(), 0.4, 1),
  nanquantile: () => sg.nanquantile(t([1, NaN, 3, 4]), 0.3),
  cov: () => sg.cov(X()),
  sort_values: () => S().sort().values,
  sort_indices: () => S().sort().indices,
  argsort: () => S().argsort(),
  topk_values: () => S().topk(2).values,
  topk_indices: () => S().topk(2).indices,
  searchsorted: () => sg.searchsorted(t([1, 3, 5]), t([3, 0, 6])),
  bucketize: () => sg.bucketize(t([3, 0, 6]), t([1, 3, 5])),
  unique: () => sg.unique(t([3, 1, 3, 2])),
  diagonalScatter: () => sg.diagonalScatter(sg.zeros([2, 3]), t([7, 8])),
};

const unNaN = (v) => (Array.isArray(v) ? v.map(unNaN) : v === 'nan' ? NaN : v);

test('every case of the reference has a call here', () => {
  assert.deepEqual(Object.keys(calls).sort(), Object.keys(ref).sort());
});

for (const [name, call] of Object.entries(calls)) {
  test(`${name} with its defaults equals torch 1.13`, () => {
    sg.tidy(() => {
      const r = call();
      assert.deepEqual(r.shape, ref[name].shape, `${name} shape`);
      close(r.toArray(), unNaN(ref[name].values), 1e-6, name);
    });
  });
}

test('requiresGrad_() with no argument turns requiresGrad on (torch: requires_grad=True)', () => {
  const x = sg.zeros([2]);
  assert.equal(x.requiresGrad_(), x);
  assert.equal(x.requiresGrad, true);
});
