// Every elementwise, activation, reduction, linear-algebra and selection op, as a method
// and as a function, against values computed here with Math.* or by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, mapNested, scoped } from './helpers.mjs';

const X = [[-1.5, -0.25, 0], [0.5, 1, 2.75]];
const POS = [[0.25, 0.5, 1], [1.5, 2, 3.5]];

// erf by Abramowitz-Stegun 7.1.26 is only 1.5e-7 accurate; use a series for the check.
function erf(x) {
  let sum = 0;
  let term = x;
  for (let n = 0; n < 60; n++) {
    sum += term / (2 * n + 1);
    term *= (-x * x) / (n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

const unaryCases = {
  neg: (x) => -x,
  exp: Math.exp,
  abs: Math.abs,
  sign: Math.sign,
  sin: Math.sin,
  cos: Math.cos,
  erf,
  square: (x) => x * x,
  relu: (x) => Math.max(0, x),
  sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  tanh: Math.tanh,
  silu: (x) => x / (1 + Math.exp(-x)),
  selu: (x) => 1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * (Math.exp(x) - 1)),
  expm1: Math.expm1,
};
const positiveCases = {
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  log1p: Math.log1p,
  sqrt: Math.sqrt,
  rsqrt: (x) => 1 / Math.sqrt(x),
  reciprocal: (x) => 1 / x,
};

test('unary math ops, method and function forms', scoped(() => {
  const x = sg.tensor(X);
  for (const [name, f] of Object.entries(unaryCases)) {
    close(x[name]().toArray(), mapNested(X, f), 1e-5, name);
    close(sg[name](x).toArray(), mapNested(X, f), 1e-5, `sg.${name}`);
  }
  const p = sg.tensor(POS);
  for (const [name, f] of Object.entries(positiveCases)) {
    close(p[name]().toArray(), mapNested(POS, f), 1e-5, name);
    close(sg[name](p).toArray(), mapNested(POS, f), 1e-5, `sg.${name}`);
  }
}));

test('parameterized activations', scoped(() => {
  const x = sg.tensor(X);
  close(x.leakyRelu().toArray(), mapNested(X, (v) => (v > 0 ? v : 0.01 * v)));
  close(x.leakyRelu(0.2).toArray(), mapNested(X, (v) => (v > 0 ? v : 0.2 * v)));
  close(x.elu().toArray(), mapNested(X, (v) => (v > 0 ? v : Math.exp(v) - 1)));
  close(sg.elu(x, 0.5).toArray(), mapNested(X, (v) => (v > 0 ? v : 0.5 * (Math.exp(v) - 1))));
  close(x.gelu().toArray(), mapNested(X, (v) => 0.5 * v * (1 + erf(v / Math.SQRT2))), 1e-5);
  const tanhGelu = (v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
  close(x.gelu({ approximate: 'tanh' }).toArray(), mapNested(X, tanhGelu), 1e-5);
  close(x.softplus().toArray(), mapNested(X, (v) => Math.log1p(Math.exp(v))));
  close(x.softplus({ beta: 2 }).toArray(), mapNested(X, (v) => Math.log1p(Math.exp(2 * v)) / 2));
  close(sg.tensor([30]).softplus().toArray(), [30]); // above threshold: identity
  const w = sg.tensor([0.25]);
  close(x.prelu(w).toArray(), mapNested(X, (v) => (v > 0 ? v : 0.25 * v)));
  // per-channel weight over dim 1
  const wc = sg.tensor([0.1, 0.2, 0.3]);
  close(sg.prelu(x, wc).toArray(), X.map((row) => row.map((v, j) => (v > 0 ? v : [0.1, 0.2, 0.3][j] * v))));
}));

test('softmax and logSoftmax along a dim', scoped(() => {
  const x = sg.tensor(X);
  const soft = (row) => {
    const m = Math.max(...row);
    const e = row.map((v) => Math.exp(v - m));
    const s = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / s);
  };
  close(x.softmax(1).toArray(), X.map(soft));
  close(x.softmax(-1).toArray(), X.map(soft));
  close(x.logSoftmax(1).toArray(), X.map((r) => soft(r).map(Math.log)));
  const cols = [0, 1, 2].map((j) => soft([X[0][j], X[1][j]]));
  close(sg.softmax(x, 0).toArray(), [cols.map((c) => c[0]), cols.map((c) => c[1])]);
}));

test('binary arithmetic with broadcasting', scoped(() => {
  const a = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const row = sg.tensor([10, 20, 30]);
  const col = sg.tensor([[2], [4]]);
  assert.deepEqual(a.add(row).toArray(), [[11, 22, 33], [14, 25, 36]]);
  assert.deepEqual(sg.sub(a, col).toArray(), [[-1, 0, 1], [0, 1, 2]]);
  assert.deepEqual(a.mul(col).toArray(), [[2, 4, 6], [16, 20, 24]]);
  close(a.div(row).toArray(), [[0.1, 0.1, 0.1], [0.4, 0.25, 0.2]]);
  close(a.pow(col).toArray(), [[1, 4, 9], [256, 625, 1296]]);
  assert.deepEqual(a.maximum(sg.tensor([3])).toArray(), [[3, 3, 3], [4, 5, 6]]);
  assert.deepEqual(sg.minimum(a, sg.tensor([3])).toArray(), [[1, 2, 3], [3, 3, 3]]);
  // [2,1] with [3] → [2,3]
  assert.deepEqual(col.add(row).toArray(), [[12, 22, 32], [14, 24, 34]]);
  // 3-D broadcast [2,1,2] * [3,1]
  const p = sg.tensor([[[1, 2]], [[3, 4]]]).mul(sg.tensor([[1], [10], [100]]));
  assert.deepEqual(p.shape, [2, 3, 2]);
  assert.deepEqual(p.toArray(), [[[1, 2], [10, 20], [100, 200]], [[3, 4], [30, 40], [300, 400]]]);
}));

test('numbers as operands and their dtypes', scoped(() => {
  const f = sg.tensor([1, 2, 3]);
  assert.deepEqual(f.add(1).toArray(), [2, 3, 4]);
  assert.deepEqual(sg.sub(10, f).toArray(), [9, 8, 7]);
  close(f.div(4).toArray(), [0.25, 0.5, 0.75]);
  close(sg.pow(2, f).toArray(), [2, 4, 8]);
  assert.deepEqual(f.pow(2).toArray(), [1, 4, 9]);
  assert.deepEqual(f.mul(-1).toArray(), [-1, -2, -3]);

  const i = sg.tensor([1, 2, 3], { dtype: 'int32' });
  const i2 = i.add(2);
  assert.equal(i2.dtype, 'int32');
  assert.deepEqual(i2.toArray(), [3, 4, 5]);
  const i3 = i.add(0.5);
  assert.equal(i3.dtype, 'float32');
  assert.deepEqual(i3.toArray(), [1.5, 2.5, 3.5]);
  assert.equal(i.mul(i).dtype, 'int32');
  assert.equal(i.div(2).dtype, 'float32');
  close(i.div(2).toArray(), [0.5, 1, 1.5]);

  const b = sg.tensor([true, false]);
  const b1 = b.add(1);
  assert.equal(b1.dtype, 'int32');
  assert.deepEqual(b1.toArray(), [2, 1]);
  const b2 = b.mul(0.5);
  assert.equal(b2.dtype, 'float32');
  assert.deepEqual(b2.toArray(), [0.5, 0]);

  // NaN and ±Infinity are valid float operands
  close(f.add(NaN).toArray(), [NaN, NaN, NaN]);
  close(f.mul(Infinity).toArray(), [Infinity, Infinity, Infinity]);
  close(sg.maximum(f, -Infinity).toArray(), [1, 2, 3]);
  // int32 tensor + float tensor promotes
  assert.equal(i.add(f).dtype, 'float32');
}));

test('clamp with either bound optional', scoped(() => {
  const x = sg.tensor([-2, -0.5, 0.5, 2]);
  assert.deepEqual(x.clamp(-1, 1).toArray(), [-1, -0.5, 0.5, 1]);
  assert.deepEqual(x.clamp(0).toArray(), [0, 0, 0.5, 2]);
  assert.deepEqual(x.clamp(null, 0).toArray(), [-2, -0.5, 0, 0]);
  assert.deepEqual(x.clamp(undefined, 0).toArray(), [-2, -0.5, 0, 0]);
  assert.deepEqual(sg.clamp(x, -1, null).toArray(), [-1, -0.5, 0.5, 2]);
  assert.deepEqual(x.clamp(sg.tensor([0, 0, 1, 1])).toArray(), [0, 0, 1, 2]);
}));

test('matmul: 1-D, 2-D and batched with broadcast batch dims', scoped(() => {
  const A = [[1, 2, 3], [4, 5, 6]];
  const B = [[7, 8], [9, 10], [11, 12]];
  const mm = (a, b) => a.map((r) => b[0].map((_, j) => r.reduce((s, v, k) => s + v * b[k][j], 0)));
  assert.deepEqual(sg.tensor(A).matmul(sg.tensor(B)).toArray(), mm(A, B));
  assert.deepEqual(sg.matmul(sg.tensor(A), sg.tensor([1, 0, -1])).toArray(), [-2, -2]);
  assert.deepEqual(sg.tensor([1, 2]).matmul(sg.tensor(A)).toArray(), [9, 12, 15]);
  assert.equal(sg.tensor([1, 2, 3]).matmul(sg.tensor([4, 5, 6])).item(), 32);
  const batch = sg.tensor([A, mm(A, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]).map((r) => r.map((v) => -v))]);
  const out = batch.matmul(sg.tensor(B));
  assert.deepEqual(out.shape, [2, 2, 2]);
  assert.deepEqual(out.toArray(), [mm(A, B), mm(A, B).map((r) => r.map((v) => -v))]);
  // [2,1,2,3] @ [3,3,2] → [2,3,2,2]
  const left = sg.ones([2, 1, 2, 3]);
  const right = sg.arange(18, { dtype: 'float32' }).reshape(3, 3, 2);
  const r = left.matmul(right);
  assert.deepEqual(r.shape, [2, 3, 2, 2]);
  // column sums of each [3,2] block of arange
  const blocks = [0, 1, 2].map((b) => [0, 1].map((j) => [0, 1, 2].reduce((s, k) => s + (b * 6 + k * 2 + j), 0)));
  assert.deepEqual(r.toArray(), [0, 1].map(() => blocks.map((s) => [s, s])));
  // larger sizes: compare with a plain JS matmul
  sg.manualSeed(1);
  const a = sg.randn([33, 17]);
  const b = sg.randn([17, 9]);
  close(a.matmul(b).toArray(), mm(a.toArray(), b.toArray()), 1e-4);
}));

test('full and dim reductions', scoped(() => {
  const A = [[1, -2, 3], [4, 5, -6]];
  const a = sg.tensor(A);
  const s = a.sum();
  assert.deepEqual(s.shape, []);
  assert.equal(s.item(), 5);
  assert.deepEqual(a.sum(0).toArray(), [5, 3, -3]);
  assert.deepEqual(a.sum(1).toArray(), [2, 3]);
  assert.deepEqual(a.sum(-1, true).toArray(), [[2], [3]]);
  assert.deepEqual(a.sum([0, 1]).toArray(), 5);
  assert.deepEqual(sg.sum(a, 1, true).shape, [2, 1]);
  close(a.mean().item(), 5 / 6);
  close(a.mean(0).toArray(), [2.5, 1.5, -1.5]);
  assert.deepEqual(a.prod(1).toArray(), [-6, -120]);
  assert.deepEqual(a.max().toArray(), 5);
  assert.deepEqual(a.max(1).toArray(), [3, 5]);
  assert.deepEqual(a.min(0).toArray(), [1, -2, -6]);
  assert.deepEqual(sg.max(a, 0, true).toArray(), [[4, 5, 3]]);
  assert.deepEqual(sg.max(a, sg.tensor([2])).toArray(), [[2, 2, 3], [4, 5, 2]]);
  const am = a.argmax(1);
  assert.equal(am.dtype, 'int32');
  assert.deepEqual(am.toArray(), [2, 1]);
  assert.deepEqual(a.argmin(1).toArray(), [1, 2]);
  assert.deepEqual(a.argmax().toArray(), 4);
  assert.deepEqual(a.argmax(0, true).toArray(), [[1, 1, 0]]);
  const lse = (r) => Math.log(r.reduce((acc, v) => acc + Math.exp(v), 0));
  close(a.logsumexp(1).toArray(), A.map(lse));
  close(a.logsumexp().item(), lse(A.flat()));
}));

test('var, std and norm', scoped(() => {
  const v = [2, 4, 4, 4, 5, 5, 7, 9];
  const x = sg.tensor(v);
  close(x.var().item(), 32 / 7);
  close(x.var(0, false, { unbiased: false }).item(), 4);
  close(x.var({ unbiased: false }).item(), 4);
  close(x.std().item(), Math.sqrt(32 / 7));
  close(sg.std(x, null, false, { unbiased: false }).item(), 2);
  const m = sg.tensor([[1, 2], [3, 5]]);
  close(m.var(1).toArray(), [0.5, 2]);
  close(m.std(0, true).toArray(), [[Math.SQRT2, Math.sqrt(4.5)]]);
  close(sg.tensor([3, -4]).norm().item(), 5);
  close(sg.tensor([3, -4]).norm(1).item(), 7);
  close(sg.tensor([3, -4]).norm(Infinity).item(), 4);
  close(m.norm(2, 1).toArray(), [Math.sqrt(5), Math.sqrt(34)]);
  close(m.norm('fro').item(), Math.sqrt(39));
}));

test('comparisons give bool tensors', scoped(() => {
  const a = sg.tensor([1, 2, 3]);
  const b = sg.tensor([3, 2, 1]);
  const cases = {
    eq: [false, true, false],
    ne: [true, false, true],
    lt: [true, false, false],
    le: [true, true, false],
    gt: [false, false, true],
    ge: [false, true, true],
  };
  for (const [name, want] of Object.entries(cases)) {
    const r = a[name](b);
    assert.equal(r.dtype, 'bool', name);
    assert.deepEqual(r.toArray(), want, name);
    assert.deepEqual(sg[name](a, b).toArray(), want, `sg.${name}`);
  }
  assert.deepEqual(a.gt(1.5).toArray(), [false, true, true]);
  assert.deepEqual(sg.tensor([[1], [3]]).eq(sg.tensor([1, 3])).toArray(), [[true, false], [false, true]]);
}));

test('where and maskedFill', scoped(() => {
  const c = sg.tensor([true, false, true]);
  const a = sg.tensor([1, 2, 3]);
  const b = sg.tensor([10, 20, 30]);
  assert.deepEqual(sg.where(c, a, b).toArray(), [1, 20, 3]);
  assert.deepEqual(sg.where(c, a, 0).toArray(), [1, 0, 3]);
  assert.deepEqual(sg.where(c, -1, b).toArray(), [-1, 20, -1]);
  assert.deepEqual(sg.where(a.gt(1), a, b).toArray(), [10, 2, 3]);
  assert.deepEqual(sg.where([true, false, false], a, b).toArray(), [1, 20, 30]);
  // broadcast condition
  assert.deepEqual(sg.where(sg.tensor([[true], [false]]), a, b).toArray(), [[1, 2, 3], [10, 20, 30]]);
  assert.deepEqual(a.maskedFill(c, -5).toArray(), [-5, 2, -5]);
  assert.deepEqual(a.maskedFill([false, true, false], 0).toArray(), [1, 0, 3]);
  const m = sg.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(m.maskedFill(sg.tensor([true, false]), 9).toArray(), [[9, 2], [9, 4]]);
  // the attention-mask pattern: -Infinity then softmax
  const att = m.maskedFill(sg.tensor([[false, true], [false, false]]), -Infinity).softmax(1);
  const e = 1 / (1 + Math.exp(1));
  close(att.toArray(), [[1, 0], [e, 1 - e]]);
}));

test('pad: constant, reflect, replicate', scoped(() => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(sg.pad(x, [1, 1]).toArray(), [[0, 1, 2, 3, 0], [0, 4, 5, 6, 0]]);
  assert.deepEqual(sg.pad(x, [0, 1, 1, 0], { value: 7 }).toArray(), [[7, 7, 7, 7], [1, 2, 3, 7], [4, 5, 6, 7]]);
  assert.deepEqual(sg.pad(x.unsqueeze(0), [2, 1], { mode: 'reflect' }).toArray(), [[[3, 2, 1, 2, 3, 2], [6, 5, 4, 5, 6, 5]]]);
  assert.deepEqual(sg.pad(x.unsqueeze(0), [1, 2], { mode: 'replicate' }).toArray(), [[[1, 1, 2, 3, 3, 3], [4, 4, 5, 6, 6, 6]]]);
}));

test('int32 and bool paths', scoped(() => {
  const i = sg.tensor([[3, -1], [2, 5]], { dtype: 'int32' });
  assert.deepEqual(i.sum().toArray(), 9);
  assert.equal(i.sum().dtype, 'int32');
  assert.deepEqual(i.abs().toArray(), [[3, 1], [2, 5]]);
  assert.deepEqual(i.neg().toArray(), [[-3, 1], [-2, -5]]);
  assert.deepEqual(i.max(1).toArray(), [3, 5]);
  assert.deepEqual(i.clamp(0, 4).toArray(), [[3, 0], [2, 4]]);
  const b = sg.tensor([true, true, false]);
  assert.deepEqual(b.sum().toArray(), 2);
  close(b.float().mean().item(), 2 / 3);
}));
