// sg.data's Errors and paths no other file reaches, as torch.utils.data (PyTorch 1.13): the
// default collation of nested lists (default_collate transposes a batch of sequences into a list
// of batches), what cannot be collated, len(loader) without automatic batching (len(sampler)),
// samplers and batch samplers without a length, TensorDataset / Subset / ConcatDataset argument
// checks, samples of an object of tensors, WeightedRandomSampler over a typed array, and
// datasets.mnist over given digits. Expected batches are written by hand; messages are the
// module's contract. Every check is followed by a call that shows the module still works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const D = sg.data;
const values = (t) => Array.from(t.dataSync());

test('DataLoader default collation: a sample [n, [x, flag]] gives [int32 [B], [float32 [B], bool [B]]] (default_collate)', () => {
  const ds = { length: 3, get: (i) => [i, [i + 0.5, i % 2 === 1]] };
  const batches = [...new D.DataLoader(ds, { batchSize: 2 })];
  assert.equal(batches.length, 2);
  const [n, [x, flag]] = batches[0];
  assert.equal(n.dtype, 'int32');
  assert.deepEqual(values(n), [0, 1]);
  assert.equal(x.dtype, 'float32');
  assert.deepEqual(values(x), [0.5, 1.5]);
  assert.equal(flag.dtype, 'bool');
  assert.deepEqual(values(flag), [0, 1]);
  const [n2, [x2]] = batches[1];
  assert.deepEqual([values(n2), values(x2)], [[2], [2.5]]);
  sg.dispose(batches);
});

test('DataLoader: samples that cannot be collated name the element and where it is', () => {
  const str = { length: 2, get: (i) => `s${i}` };
  assert.throws(() => [...new D.DataLoader(str, { batchSize: 2 })],
    { message: "DataLoader: cannot batch sample elements like 's0'; return Tensors, numbers, or arrays/objects of them" });
  const nested = { length: 2, get: () => ({ a: [1, null] }) };
  assert.throws(() => [...new D.DataLoader(nested, { batchSize: 2 })], /DataLoader: cannot batch sample elements like null \(at \.a\[1\]\)/);
  const mixed = { length: 2, get: (i) => (i === 0 ? 1 : 'x') };
  assert.throws(() => [...new D.DataLoader(mixed, { batchSize: 2 })], /DataLoader: sample 1 is 'x' but sample 0's is a number/);
  const tensorThenNumber = { length: 2, get: (i) => (i === 0 ? sg.ones([1]) : 3) };
  assert.throws(() => [...new D.DataLoader(tensorThenNumber, { batchSize: 2 })], /DataLoader: sample 1 is 3 but sample 0's is a Tensor/);
  // The same loader without batching hands the samples over as they are.
  assert.deepEqual([...new D.DataLoader(str, { batchSize: null })], ['s0', 's1']);
});

test('DataLoader defaults: batchSize 1, shuffle false, dropLast false, no collateFn (PyTorch\'s)', () => {
  const x = sg.tensor([[1, 2], [3, 4], [5, 6]]);
  const loader = new D.DataLoader(x);
  assert.deepEqual([loader.batchSize, loader.shuffle, loader.dropLast, loader.collateFn], [1, false, false, null]);
  assert.equal(loader.length, 3);
  assert.equal(loader.numSamples, 3);
  assert.equal(new D.DataLoader({ length: 7, get: (i) => i }, { batchSize: 2 }).numSamples, 7);
  assert.equal(new D.DataLoader(new D.TensorDataset(x), { batchSize: 2 }).numSamples, 3);
  assert.equal(new D.DataLoader({ a: x }, { batchSize: 2 }).numSamples, 3);
  const batches = [...loader];
  assert.deepEqual(batches.map((b) => b.shape), [[1, 2], [1, 2], [1, 2]]);
  assert.deepEqual(batches.map(values), [[1, 2], [3, 4], [5, 6]]);
  sg.dispose(batches);
  x.dispose();
});

test('DataLoader length: len(sampler) without batching; Errors when the sampler or batch sampler has none', () => {
  const x = sg.zeros([5, 2]);
  assert.equal(new D.DataLoader(x, { batchSize: null }).length, 5);
  assert.equal(new D.DataLoader(x, { batchSize: null, sampler: [4, 0] }).length, 2);
  const noLen = new D.DataLoader(x, { batchSize: null, sampler: new Set([3, 1]) });
  assert.throws(() => noLen.length, { message: 'DataLoader: its sampler has no length' });
  const rows = [...noLen];
  assert.deepEqual(rows.map((r) => r.shape), [[2], [2]]);
  sg.dispose(rows);
  const gen = function* () { yield [0, 1]; yield [4]; };
  const noBatchLen = new D.DataLoader(x, { batchSampler: gen() });
  assert.throws(() => noBatchLen.length, { message: 'DataLoader: its batchSampler has no length' });
  const bs = [...noBatchLen];
  assert.deepEqual(bs.map((b) => b.shape), [[2, 2], [1, 2]]);
  sg.dispose(bs);
  // A BatchSampler over a sampler without a length.
  const batched = new D.DataLoader(x, { batchSize: 2, sampler: new Set([0, 1, 2]) });
  assert.throws(() => batched.length, { message: 'BatchSampler: its sampler has no length (got undefined)' });
  x.dispose();
});

test('DataLoader without batching over a TensorDataset and an object of tensors: each sample as the dataset gives it', () => {
  const a = sg.tensor([[1, 2], [3, 4]]), b = sg.tensor([7, 8], { dtype: 'int32' });
  const pairs = [...new D.DataLoader(new D.TensorDataset(a, b), { batchSize: null })];
  assert.deepEqual(pairs.map(([u, v]) => [values(u), values(v)]), [[[1, 2], [7]], [[3, 4], [8]]]);
  sg.dispose(pairs);
  const recs = [...new D.DataLoader({ x: a, y: b }, { batchSize: null, sampler: [1, 0] })];
  assert.deepEqual(recs.map((r) => Object.keys(r)), [['x', 'y'], ['x', 'y']]);
  assert.deepEqual(recs.map((r) => [values(r.x), values(r.y)]), [[[3, 4], [8]], [[1, 2], [7]]]);
  sg.dispose(recs);
  // collateFn sees the samples of an object of tensors as objects.
  const seen = [...new D.DataLoader({ x: a, y: b }, { batchSize: 2, collateFn: (s) => s.map((r) => r.y.item()) })];
  assert.deepEqual(seen, [[7, 8]]);
  sg.dispose([a, b]);
});

test('DataLoader over a Subset whose indices leave its dataset', () => {
  const x = sg.zeros([4, 1]);
  const sub = new D.Subset(x, [0, 9]);
  assert.throws(() => [...new D.DataLoader(sub, { batchSize: 2 })], { message: 'DataLoader: a Subset index 9 is out of range for its dataset of 4 samples' });
  const ok = [...new D.DataLoader(new D.Subset(x, [3, -1]), { batchSize: 2 })];
  assert.deepEqual(ok[0].shape, [2, 1]);
  sg.dispose(ok);
  x.dispose();
});

test('TensorDataset argument checks: none, a non-tensor, a 0-d tensor, a size mismatch', () => {
  const a = sg.zeros([3, 2]);
  assert.throws(() => new D.TensorDataset(), { message: 'TensorDataset: expected at least one Tensor' });
  assert.throws(() => new D.TensorDataset(a, [1, 2, 3]), /TensorDataset: argument 1 must be a Tensor, got /);
  const s = sg.tensor(1);
  assert.throws(() => new D.TensorDataset(a, s), { message: 'TensorDataset: argument 1 is 0-d; tensors need a first (sample) dimension' });
  const b = sg.zeros([4]);
  assert.throws(() => new D.TensorDataset(a, b), { message: 'TensorDataset: size mismatch between tensors (tensor 0 has 3 samples, tensor 1 has 4)' });
  const ds = new D.TensorDataset(a, sg.zeros([3]));
  assert.equal(ds.length, 3);
  assert.throws(() => ds.get(3), { message: 'TensorDataset.get: index 3 is out of range for 3 samples' });
  assert.throws(() => ds.get(-4), /TensorDataset\.get: index -4 is out of range for 3 samples/);
  const last = ds.get(-1);
  assert.deepEqual(last.map((t) => t.shape), [[2], []]);
  sg.dispose([...last, ...ds.tensors, s, b]);
});

test('a 0-d tensor as a dataset has no samples (DataLoader, samplers, Subset)', () => {
  const s = sg.tensor(2);
  assert.throws(() => new D.DataLoader(s), { message: 'DataLoader: a 0-d Tensor has no samples' });
  assert.throws(() => new D.SequentialSampler(s), /SequentialSampler: a 0-d Tensor has no samples/);
  assert.throws(() => new D.Subset(s, [0]), { message: 'Subset: a 0-d Tensor has no samples' });
  s.dispose();
});

test('Subset indices: an Int32Array or a 1-D integer Tensor; a float, bool or 2-D Tensor is refused', () => {
  const ds = { length: 5, get: (i) => i * 10 };
  assert.deepEqual(Array.from(new D.Subset(ds, new Int32Array([4, 1])).indices), [4, 1]);
  const it = sg.tensor([3, 0, 2], { dtype: 'int32' });
  const sub = new D.Subset(ds, it);
  assert.deepEqual([sub.get(0), sub.get(1), sub.get(-1)], [30, 0, 20]);
  const f = sg.tensor([1, 2]);
  assert.throws(() => new D.Subset(ds, f), /Subset: expected 'indices' to be a 1-D integer Tensor, got .*float32/);
  const bl = sg.tensor([1, 0], { dtype: 'bool' });
  assert.throws(() => new D.Subset(ds, bl), /Subset: expected 'indices' to be a 1-D integer Tensor, got .*bool/);
  const m = sg.tensor([[1, 2]], { dtype: 'int32' });
  assert.throws(() => new D.Subset(ds, m), /Subset: expected 'indices' to be a 1-D integer Tensor, got .*\[1, 2\]/);
  assert.throws(() => sub.get(3), { message: 'Subset.get: index 3 is out of range for 3 samples' });
  // Every floating dtype is refused (float64 1.5 was once truncated to 1), every integer one taken
  // (int64 data is a BigInt64Array; it once threw a TypeError).
  const f64 = sg.tensor([1.5], { dtype: 'float64' }), f16 = sg.tensor([1], { dtype: 'float16' });
  assert.throws(() => new D.Subset(ds, f64), /Subset: expected 'indices' to be a 1-D integer Tensor, got .*float64/);
  assert.throws(() => new D.Subset(ds, f16), /Subset: expected 'indices' to be a 1-D integer Tensor, got .*float16/);
  const i64 = sg.tensor([4, 2], { dtype: 'int64' }), u8 = sg.tensor([1, 3], { dtype: 'uint8' });
  assert.deepEqual([new D.Subset(ds, i64).get(0), new D.Subset(ds, i64).get(1)], [40, 20]);
  assert.deepEqual(Array.from(new D.Subset(ds, u8).indices), [1, 3]);
  sg.dispose([it, f, bl, m, f64, f16, i64, u8]);
});

test('ConcatDataset: anything but an iterable of datasets is refused; get() crosses the boundaries (bisect_right)', () => {
  const x = sg.zeros([2]);
  for (const [bad, got] of [[5, /got 5/], [null, /got null/], [x, /got .*Tensor/], ['ab', /got 'ab'/]]) {
    assert.throws(() => new D.ConcatDataset(bad), (e) => /^ConcatDataset: expected an array of datasets, got /.test(e.message) && got.test(e.message));
  }
  const cat = new D.ConcatDataset([{ length: 2, get: (i) => `a${i}` }, { length: 0, get: () => 'none' }, { length: 3, get: (i) => `b${i}` }]);
  assert.deepEqual(cat.cumulativeSizes, [2, 2, 5]);
  assert.deepEqual([0, 1, 2, 3, 4, -1, -5].map((i) => cat.get(i)), ['a0', 'a1', 'b0', 'b1', 'b2', 'b2', 'a0']);
  assert.throws(() => cat.get(5), { message: 'ConcatDataset.get: index 5 is out of range for 5 samples' });
  assert.throws(() => cat.get(-6), /index -6 is out of range for 5 samples/);
  x.dispose();
});

test('SequentialSampler takes the dataset only (PyTorch\'s SequentialSampler(data_source))', () => {
  assert.throws(() => new D.SequentialSampler({ length: 2, get: (i) => i }, { generator: 1 }),
    { message: 'SequentialSampler: takes one argument (the dataset), got also an object' });
  assert.throws(() => new D.SequentialSampler({ length: 2, get: (i) => i }, 3), /SequentialSampler: takes one argument \(the dataset\), got also 3/);
  assert.deepEqual([...new D.SequentialSampler({ length: 3, get: (i) => i }, undefined)], [0, 1, 2]);
});

test('BatchSampler: a fourth positional argument is refused; an options object works', () => {
  assert.throws(() => new D.BatchSampler([0, 1, 2], 2, false, 7), { message: 'BatchSampler: takes (sampler, batchSize, dropLast), got also 7' });
  assert.throws(() => new D.BatchSampler([0, 1, 2], 2, true, 'x'), /BatchSampler: takes \(sampler, batchSize, dropLast\), got also 'x'/);
  assert.deepEqual([...new D.BatchSampler([0, 1, 2], 2, true)], [[0, 1]]);
  assert.throws(() => new D.BatchSampler([0, 1], 2, 'no'), /dropLast should be a boolean value, but got dropLast='no'/);
});

test('WeightedRandomSampler takes a typed array or a 1-D Tensor of weights', () => {
  const g = new D.Generator(5);
  const drawn = [...new D.WeightedRandomSampler(new Float32Array([0, 2, 0]), 6, { generator: g })];
  assert.deepEqual(drawn, [1, 1, 1, 1, 1, 1]);
  const w = sg.tensor([0, 0, 1, 0]);
  assert.deepEqual([...new D.WeightedRandomSampler(w, 3, { generator: g })], [2, 2, 2]);
  const s = new D.WeightedRandomSampler(new Uint8Array([1, 3]), 2);
  assert.deepEqual(Array.from(s.weights), [1, 3]);
  // Defaults as PyTorch's: RandomSampler replacement=False, WeightedRandomSampler replacement=True,
  // no generator of their own (null: the global stream).
  const rs = new D.RandomSampler({ length: 3, get: (i) => i });
  assert.deepEqual([rs.replacement, rs.generator], [false, null]);
  assert.deepEqual([s.replacement, s.generator], [true, null]);
  assert.equal(new D.WeightedRandomSampler([1, 1], 1, { generator: g }).generator, g);
  // A given generator is the one drawn from: the global seed does not matter.
  const drawWith = (globalSeed) => {
    sg.manualSeed(globalSeed);
    return [...new D.WeightedRandomSampler([1, 1, 1, 1], 20, { generator: new D.Generator(11) })];
  };
  const first = drawWith(1);
  assert.deepEqual(drawWith(2), first);
  assert.ok(new Set(first).size > 1, 'draws spread over the indices');
  // The default is with replacement (PyTorch's replacement=True): one nonzero weight, 4 draws.
  assert.deepEqual([...new D.WeightedRandomSampler([0, 5], 4)], [1, 1, 1, 1]);
  assert.throws(() => new D.WeightedRandomSampler(new DataView(new ArrayBuffer(4)), 1), /weights should be a 1d sequence of numbers .*got /);
  assert.throws(() => new D.WeightedRandomSampler(new Float64Array([1, Infinity]), 1), /weights contain either inf, nan or an element < 0/);
  // int64 weights (a BigInt64Array underneath, or given as one), as torch.as_tensor(weights, dtype=double).
  const w64 = sg.tensor([0, 0, 7], { dtype: 'int64' });
  assert.deepEqual([...new D.WeightedRandomSampler(w64, 2)], [2, 2]);
  assert.deepEqual(Array.from(new D.WeightedRandomSampler(new BigInt64Array([2n, 0n]), 1).weights), [2, 0]);
  sg.dispose([w, w64]);
});

test('datasets.mnist over given digits: default sizes (all for training), labels in digit order, seed 0 by default', async () => {
  // digit d has (d % 2) + 1 images, every pixel of which is d / 10.
  const digits = Array.from({ length: 10 }, (_, d) => new Float32Array(784 * ((d % 2) + 1)).fill(d / 10));
  const { train, test: held } = await sg.datasets.mnist({ digits });
  assert.deepEqual(train.x.shape, [15, 1, 28, 28]);
  assert.deepEqual(held.x.shape, [0, 1, 28, 28]);
  assert.deepEqual(values(train.y).sort((a, b) => a - b), [0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9]);
  // Each image belongs with its label: pixel 0 of image i is label / 10.
  const px = values(train.x.reshape([15, 784]).select(1, 0));
  values(train.y).forEach((y, i) => assert.equal(px[i], Math.fround(y / 10)));
  const seeded0 = await sg.datasets.mnist({ digits, seed: 0 });
  assert.deepEqual(values(seeded0.train.y), values(train.y));
  const part = await sg.datasets.mnist({ digits, trainSize: 4 });
  assert.deepEqual([part.train.x.shape[0], part.test.x.shape[0]], [4, 11]);
  sg.dispose([train, held, seeded0, part]);
  const bad = digits.slice();
  bad[3] = new Float32Array(100);
  await assert.rejects(() => sg.datasets.mnist({ digits: bad }), /mnist: digit 3's data must hold a multiple of 784 values, got /);
  bad[3] = 'abc';
  await assert.rejects(() => sg.datasets.mnist({ digits: bad }), /mnist: digit 3's data must hold a multiple of 784 values, got 'abc'/);
  await assert.rejects(() => sg.datasets.mnist({ digits: digits.slice(1) }), /mnist: option 'digits' must be an array of 10 arrays/);
  await assert.rejects(() => sg.datasets.mnist({ digits, trainSize: 10, testSize: 6 }), { message: 'mnist: trainSize + testSize = 16 exceeds the 15 digits available' });
});
