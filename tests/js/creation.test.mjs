// Creation from every input form and dtype, and the reading round trips (toArray,
// dataSync, item, data) against the values that went in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith, scoped } from './helpers.mjs';

test('tensor from a number, a boolean and nested arrays', scoped(() => {
  const s = sg.tensor(3.5);
  assert.deepEqual(s.shape, []);
  assert.equal(s.ndim, 0);
  assert.equal(s.numel, 1);
  assert.equal(s.dtype, 'float32');
  assert.equal(s.item(), 3.5);
  assert.equal(s.toArray(), 3.5);

  const b = sg.tensor(true);
  assert.equal(b.dtype, 'bool');
  assert.equal(b.toArray(), true);
  assert.equal(b.item(), 1);

  const m = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(m.shape, [2, 3]);
  assert.equal(m.dtype, 'float32');
  assert.equal(m.device, 'cpu');
  assert.deepEqual(m.toArray(), [[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(Array.from(m.dataSync()), [1, 2, 3, 4, 5, 6]);
  assert.ok(m.dataSync() instanceof Float32Array);

  const c = sg.tensor([[[1], [2]], [[3], [4]]]);
  assert.deepEqual(c.shape, [2, 2, 1]);
  assert.deepEqual(c.toArray(), [[[1], [2]], [[3], [4]]]);

  const e = sg.tensor([]);
  assert.deepEqual(e.shape, [0]);
  assert.deepEqual(e.toArray(), []);
  assert.equal(e.dataSync().length, 0);
}));

test('float32 rounding of values', scoped(() => {
  const t = sg.tensor([0.1, 1 / 3, -2.5e-8, 1e30]);
  const expect = Array.from(new Float32Array([0.1, 1 / 3, -2.5e-8, 1e30]));
  assert.deepEqual(t.toArray(), expect);
}));

test('dtypes from options and data', scoped(() => {
  const i = sg.tensor([1, -2, 3], { dtype: 'int32' });
  assert.equal(i.dtype, 'int32');
  assert.ok(i.dataSync() instanceof Int32Array);
  assert.deepEqual(i.toArray(), [1, -2, 3]);

  // int32 truncates toward zero, as PyTorch
  assert.deepEqual(sg.tensor([1.7, -1.7], { dtype: 'int32' }).toArray(), [1, -1]);

  const b = sg.tensor([true, false, true]);
  assert.equal(b.dtype, 'bool');
  assert.ok(b.dataSync() instanceof Uint8Array);
  assert.deepEqual(b.toArray(), [true, false, true]);
  assert.deepEqual(Array.from(b.dataSync()), [1, 0, 1]);

  const nb = sg.tensor([0, 2, -1], { dtype: 'bool' });
  assert.deepEqual(nb.toArray(), [false, true, true]);

  const fb = sg.tensor([true, false], { dtype: 'float32' });
  assert.deepEqual(fb.toArray(), [1, 0]);
}));

test('TypedArrays need a shape and pick the dtype', scoped(() => {
  const f = sg.tensor(new Float32Array([1, 2, 3, 4, 5, 6]), { shape: [2, 3] });
  assert.equal(f.dtype, 'float32');
  assert.deepEqual(f.toArray(), [[1, 2, 3], [4, 5, 6]]);

  // API.md: each TypedArray brings its dtype (Int8Array → int8, Uint8Array → uint8; the other
  // integer arrays become int32, this library's integer default).
  for (const [Ctor, dtype] of [[Int32Array, 'int32'], [Int16Array, 'int32'], [Int8Array, 'int8'], [Uint8Array, 'uint8'], [Uint16Array, 'int32']]) {
    const t = sg.tensor(new Ctor([1, 2, 3, 4]), { shape: [4] });
    assert.equal(t.dtype, dtype, Ctor.name);
    assert.deepEqual(t.toArray(), [1, 2, 3, 4], Ctor.name);
  }
  const neg = sg.tensor(new Int8Array([-3, 7]), { shape: [2] });
  assert.deepEqual(neg.toArray(), [-3, 7]);

  const bool = sg.tensor(new Uint8Array([1, 0, 0, 1]), { shape: [2, 2], dtype: 'bool' });
  assert.equal(bool.dtype, 'bool');
  assert.deepEqual(bool.toArray(), [[true, false], [false, true]]);

  const f64 = sg.tensor(new Float64Array([0.5, 1.5]), { shape: [2] });
  assert.equal(f64.dtype, 'float64');
  assert.deepEqual(f64.toArray(), [0.5, 1.5]);

  const cast = sg.tensor(new Float32Array([2.9, -2.9]), { shape: [2], dtype: 'int32' });
  assert.deepEqual(cast.toArray(), [2, -2]);

  throwsWith(() => sg.tensor(new Float32Array(4)), 'tensor', 'shape');
  throwsWith(() => sg.tensor(new Float32Array(4), { shape: [3] }), 'tensor', 'shape [3]', '4');
}));

test('tensor from a tensor copies it outside the graph', scoped(() => {
  const x = sg.tensor([1.5, 2.5], { requiresGrad: true });
  const c = sg.tensor(x);
  assert.equal(c.requiresGrad, false);
  assert.deepEqual(c.toArray(), [1.5, 2.5]);
  assert.deepEqual(sg.tensor(x, { dtype: 'int32' }).toArray(), [1, 2]);
  assert.deepEqual(sg.tensor(sg.arange(4), { shape: [2, 2] }).toArray(), [[0, 1], [2, 3]]);
}));

test('nested arrays must be rectangular', () => {
  throwsWith(() => sg.tensor([[1, 2, 3], [4, 5]]), 'tensor: expected a rectangular nested array, got rows of length 3 and 2');
  throwsWith(() => sg.tensor([[1, 2], 3]), 'tensor', 'rectangular');
  throwsWith(() => sg.tensor([1, [2]]), 'tensor', 'rectangular');
  throwsWith(() => sg.tensor(['a']), 'tensor', "'a'");
  throwsWith(() => sg.tensor({}), 'tensor');
});

test('requiresGrad option', scoped(() => {
  const w = sg.tensor([1, 2], { requiresGrad: true });
  assert.equal(w.requiresGrad, true);
  assert.equal(w.isLeaf, true);
  assert.equal(w.grad, null);
  throwsWith(() => sg.tensor([1, 2], { dtype: 'int32', requiresGrad: true }));
}));

test('zeros, ones, full with array or spread shapes', scoped(() => {
  assert.deepEqual(sg.zeros([2, 3]).toArray(), [[0, 0, 0], [0, 0, 0]]);
  assert.deepEqual(sg.zeros(2, 3).toArray(), [[0, 0, 0], [0, 0, 0]]);
  assert.deepEqual(sg.ones(2).toArray(), [1, 1]);
  assert.deepEqual(sg.ones([]).toArray(), 1);
  const oi = sg.ones(2, 2, { dtype: 'int32' });
  assert.equal(oi.dtype, 'int32');
  assert.deepEqual(oi.toArray(), [[1, 1], [1, 1]]);
  const zb = sg.zeros([3], { dtype: 'bool' });
  assert.deepEqual(zb.toArray(), [false, false, false]);
  assert.deepEqual(sg.full([2, 2], 7).toArray(), [[7, 7], [7, 7]]);
  assert.deepEqual(sg.full([2], -3, { dtype: 'int32' }).toArray(), [-3, -3]);
  const g = sg.zeros([2], { requiresGrad: true });
  assert.equal(g.requiresGrad, true);
}));

test('arange, linspace, eye', scoped(() => {
  assert.deepEqual(sg.arange(5).toArray(), [0, 1, 2, 3, 4]);
  assert.deepEqual(sg.arange(2, 5).toArray(), [2, 3, 4]);
  close(sg.arange(0, 1, 0.25).toArray(), [0, 0.25, 0.5, 0.75]);
  assert.deepEqual(sg.arange(5, 0, -2).toArray(), [5, 3, 1]);
  const ai = sg.arange(0, 3, 1, { dtype: 'int32' });
  assert.equal(ai.dtype, 'int32');
  assert.deepEqual(ai.toArray(), [0, 1, 2]);
  close(sg.linspace(0, 1, 5).toArray(), [0, 0.25, 0.5, 0.75, 1]);
  close(sg.linspace(-1, 1, 3).toArray(), [-1, 0, 1]);
  assert.deepEqual(sg.eye(3).toArray(), [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
  assert.deepEqual(sg.eye(2, 3).toArray(), [[1, 0, 0], [0, 1, 0]]);
}));

test('random creation is seeded, in range and of the right dtype', scoped(() => {
  sg.manualSeed(42);
  const a = sg.rand([1000]).toArray();
  sg.manualSeed(42);
  const b = sg.rand(1000).toArray();
  assert.deepEqual(a, b);
  assert.ok(a.every((v) => v >= 0 && v < 1));
  const mean = a.reduce((s, v) => s + v, 0) / a.length;
  assert.ok(Math.abs(mean - 0.5) < 0.05, `rand mean ${mean}`);

  sg.manualSeed(7);
  const n = sg.randn(4000).toArray();
  const m = n.reduce((s, v) => s + v, 0) / n.length;
  const v = n.reduce((s, x) => s + (x - m) ** 2, 0) / n.length;
  assert.ok(Math.abs(m) < 0.1, `randn mean ${m}`);
  assert.ok(Math.abs(v - 1) < 0.1, `randn var ${v}`);

  const r = sg.randint(-2, 3, [500]);
  assert.equal(r.dtype, 'int32');
  const rv = r.toArray();
  assert.ok(rv.every((x) => Number.isInteger(x) && x >= -2 && x < 3));
  assert.deepEqual([...new Set(rv)].sort((p, q) => p - q), [-2, -1, 0, 1, 2]);
  const r2 = sg.randint(4, [3, 2]);
  assert.deepEqual(r2.shape, [3, 2]);
  assert.ok(r2.toArray().flat().every((x) => x >= 0 && x < 4));

  const rg = sg.randn([2, 2], { requiresGrad: true });
  assert.equal(rg.requiresGrad, true);
}));

test('zerosLike, onesLike keep shape and dtype', scoped(() => {
  const t = sg.tensor([[1, 2, 3]], { dtype: 'int32' });
  const z = sg.zerosLike(t);
  assert.deepEqual(z.shape, [1, 3]);
  assert.equal(z.dtype, 'int32');
  assert.deepEqual(z.toArray(), [[0, 0, 0]]);
  const o = sg.onesLike(t, { dtype: 'float32' });
  assert.equal(o.dtype, 'float32');
  assert.deepEqual(o.toArray(), [[1, 1, 1]]);
  assert.deepEqual(sg.fullLike(t, 9).toArray(), [[9, 9, 9]]);
}));

test('item, data and size', async () => {
  const t = sg.tensor([[4.25]]);
  assert.equal(t.item(), 4.25);
  const d = await t.data();
  assert.ok(d instanceof Float32Array);
  assert.deepEqual(Array.from(d), [4.25]);
  throwsWith(() => sg.tensor([1, 2]).item(), 'item', '[2]');
  const m = sg.zeros(2, 3, 4);
  assert.deepEqual(m.size(), [2, 3, 4]);
  assert.equal(m.size(1), 3);
  assert.equal(m.size(-1), 4);
  sg.dispose([t, m]);
});

test('casts with to(dtype) and float()', scoped(() => {
  const f = sg.tensor([1.5, -0.5, 0]);
  assert.deepEqual(f.to('int32').toArray(), [1, 0, 0]);
  assert.deepEqual(f.to('bool').toArray(), [true, true, false]);
  const i = sg.tensor([1, 2], { dtype: 'int32' });
  assert.equal(i.float().dtype, 'float32');
  assert.deepEqual(i.float().toArray(), [1, 2]);
  const same = f.to('float32');
  assert.notEqual(same, f);
  assert.deepEqual(same.toArray(), f.toArray());
  throwsWith(() => f.to('float128'), 'to', "'float128'");
}));

test('toString and print give a short summary', scoped(() => {
  const s = sg.tensor([[1, 2], [3, 4]]).toString();
  assert.match(s, /\[\[1, 2\], \[3, 4\]\]/);
  assert.match(s, /float32/);
  const big = sg.zeros(20, 20).toString();
  assert.match(big, /shape=\[20, 20\]/);
}));
