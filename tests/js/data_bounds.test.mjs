// Boundaries and single disjuncts of sg.data's guards: DataLoader's collate of numbers and of
// booleans (each alone), its option exclusions on their allowed side (batchSampler with
// batchSize 1, batchSize null without dropLast, generator with a sampler, seed with a
// batchSampler), TensorDataset.get at -n / n-1 / n / a fraction, an object dataset whose second
// tensor is 0-D or shorter, Subset's 2^31-1 limit, randomSplit's fraction test around
// math.isclose(sum, 1) and sum <= 1, WeightedRandomSampler's draw count without replacement,
// BatchSampler's batchSize 1 / 0. Accept/refuse: PyTorch 1.13's DataLoader / random_split /
// samplers (checked by hand); messages: the source's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const D = sg.data;
const list = (xs) => ({ length: xs.length, get: (i) => xs[i] });

test('DataLoader collates numbers (int32 / float) and booleans (bool), each alone', () => {
  const [ints] = [...new D.DataLoader(list([1, 2, 3]), { batchSize: 3 })];
  assert.deepEqual([ints.dtype, ints.toArray()], ['int32', [1, 2, 3]]);
  const [fl] = [...new D.DataLoader(list([0.5, 2]), { batchSize: 2 })];
  assert.equal(fl.dtype, 'float32');
  close(fl.toArray(), [0.5, 2]);
  const [bools] = [...new D.DataLoader(list([true, false]), { batchSize: 2 })];
  assert.deepEqual([bools.dtype, bools.toArray()], ['bool', [true, false]]);
  throwsWith(() => [...new D.DataLoader(list([true, 1]), { batchSize: 2 })], /^DataLoader: sample 1 is 1 but sample 0's is a boolean$/);
  throwsWith(() => [...new D.DataLoader(list(['a', 'b']), { batchSize: 2 })], /^DataLoader: cannot batch sample elements like 'a'; return Tensors, numbers, or arrays\/objects of them$/);
});

test('DataLoader option exclusions: the allowed side of each (PyTorch allows batch_size=1 with batch_sampler)', () => {
  const ds = list([10, 20, 30]);
  assert.deepEqual([...new D.DataLoader(ds, { batchSampler: [[2, 0]], batchSize: 1 })].map((b) => b.toArray()), [[30, 10]]);
  assert.deepEqual([...new D.DataLoader(ds, { batchSampler: [[1]], shuffle: false, dropLast: false })].map((b) => b.toArray()), [[20]]);
  assert.deepEqual([...new D.DataLoader(ds, { batchSize: null })], [10, 20, 30]);
  assert.deepEqual([...new D.DataLoader(ds, { batchSize: null, dropLast: false })], [10, 20, 30]);
  throwsWith(() => new D.DataLoader(ds, { batchSize: null, dropLast: true }), /^DataLoader: batchSize=null option disables auto-batching and is mutually exclusive with dropLast$/);
  throwsWith(() => new D.DataLoader(ds, { batchSampler: [[0]], batchSize: 2 }), /^DataLoader: batchSampler option is mutually exclusive with batchSize, shuffle, sampler, and dropLast$/);
  const g = new D.Generator(1);
  throwsWith(() => new D.DataLoader(ds, { sampler: [0], generator: g }),
    /^DataLoader: generator sets the shuffling order, which a given sampler replaces; give the sampler its own generator$/);
  throwsWith(() => new D.DataLoader(ds, { batchSampler: [[0]], seed: 3 }), /^DataLoader: seed sets the shuffling order, which a given batchSampler replaces; /);
  throwsWith(() => new D.DataLoader(ds, { batchSampler: [[0]], generator: g }), /^DataLoader: generator sets the shuffling order, which a given batchSampler replaces; /);
  assert.equal([...new D.DataLoader(ds, { seed: 3, shuffle: true, batchSize: null })].length, 3);
  assert.equal([...new D.DataLoader(ds, { generator: g, shuffle: true, batchSize: null })].length, 3);
});

test('TensorDataset.get: -n and n-1 in range, n and -n-1 and 1.5 out', () => {
  const ds = new D.TensorDataset(sg.tensor([5, 6, 7]));
  const at = (i) => ds.get(i)[0].item();
  assert.deepEqual([at(-3), at(2), at(0), at(-1)], [5, 7, 5, 7]);
  throwsWith(() => ds.get(3), /^TensorDataset\.get: index 3 is out of range for 3 samples$/);
  throwsWith(() => ds.get(-4), /^TensorDataset\.get: index -4 is out of range for 3 samples$/);
  throwsWith(() => ds.get(1.5), /^TensorDataset\.get: index 1\.5 is out of range for 3 samples$/);
});

test('An object-of-tensors dataset: a 0-D tensor alone and a shorter first dimension alone are refused', () => {
  const a = sg.zeros([3, 2]);
  const msg = (b) => new RegExp(`^DataLoader: every tensor of the dataset object needs the same first dimension \\('a' has 3 samples, 'b' has shape \\[${b}\\]\\)$`);
  throwsWith(() => new D.DataLoader({ a, b: sg.tensor(1) }), msg(''));
  throwsWith(() => new D.DataLoader({ a, b: sg.zeros([2]) }), msg('2'));
  throwsWith(() => new D.DataLoader({ a: sg.tensor(1), b: sg.tensor(1) }), /'a' has undefined samples, 'a' has shape \[\]/);
  const [batch] = [...new D.DataLoader({ a, b: sg.tensor([1, 2, 3]) }, { batchSize: 3 })];
  assert.deepEqual(batch.b.toArray(), [1, 2, 3]);
});

test('Subset indices: an array up to 2^31-1 in magnitude is taken, 2^31 is refused', () => {
  const ds = list([1, 2]);
  assert.deepEqual(Array.from(new D.Subset(ds, [2 ** 31 - 1, -(2 ** 31 - 1), 1]).indices), [2 ** 31 - 1, -(2 ** 31 - 1), 1]);
  const msg = /^Subset: expected 'indices' to be an array of integers \(or an Int32Array, or a 1-D integer Tensor\), got /;
  throwsWith(() => new D.Subset(ds, [2 ** 31]), msg);
  throwsWith(() => new D.Subset(ds, [-(2 ** 31)]), msg);
  throwsWith(() => new D.Subset(ds, [0.5]), msg);
  throwsWith(() => new D.Subset(ds, sg.tensor([[0]], { dtype: 'int32' })), /^Subset: expected 'indices' to be a 1-D integer Tensor, got /);
  throwsWith(() => new D.Subset(ds, sg.tensor([0])), /^Subset: expected 'indices' to be a 1-D integer Tensor, got /);
});

test('randomSplit: fractions when the sum is close to 1 and <= 1; counts otherwise', () => {
  const ds = list([0, 1, 2, 3]);
  assert.deepEqual(D.randomSplit(ds, [0.5, 0.5]).map((s) => s.length), [2, 2]);
  assert.deepEqual(D.randomSplit(ds, [0.25, 0.75 - 5e-10]).map((s) => s.length), [2, 2]); // floors 1, 2; the remainder to the first
  // sum 1 + 1e-12: close to 1 but > 1 -> counts (torch: "Sum of input lengths does not equal ...")
  throwsWith(() => D.randomSplit(ds, [0.5, 0.5 + 1e-12]), /^randomSplit: expected lengths to be non-negative integers \(or fractions summing to 1\), got 0\.5 at index 0$/);
  // sum 1 - 2e-9: not close -> counts
  throwsWith(() => D.randomSplit(ds, [0.5, 0.5 - 2e-9]), /^randomSplit: expected lengths to be non-negative integers/);
  assert.deepEqual(D.randomSplit(ds, [1, 3]).map((s) => s.length), [1, 3]);
  assert.deepEqual(D.randomSplit(list([0]), [1]).map((s) => s.length), [1]);
  const bad = /^randomSplit: expected 'lengths' to be a non-empty array of counts or fractions, got /;
  throwsWith(() => D.randomSplit(ds, []), bad);
  throwsWith(() => D.randomSplit(ds, 4), bad);
  throwsWith(() => D.randomSplit(ds, [2, Infinity]), bad);
  throwsWith(() => D.randomSplit(ds, [2, '2']), bad);
});

test('WeightedRandomSampler without replacement: numSamples up to the nonzero count; BatchSampler batchSize 1 and 0', () => {
  const g = new D.Generator(2);
  const drawn = [...new D.WeightedRandomSampler([1, 0, 2], 2, { replacement: false, generator: g })];
  assert.deepEqual(drawn.slice().sort(), [0, 2]);
  throwsWith(() => new D.WeightedRandomSampler([1, 0, 2], 3, { replacement: false }),
    /^WeightedRandomSampler: cannot draw 3 samples without replacement from 2 indices of nonzero weight$/);
  assert.equal([...new D.WeightedRandomSampler([1, 0, 2], 3, { replacement: true, generator: g })].length, 3);
  throwsWith(() => new D.WeightedRandomSampler([1, 1], 2, null), /^WeightedRandomSampler: expected an options object \{ replacement, generator \} after numSamples, got null$/);
  throwsWith(() => new D.WeightedRandomSampler([1, 1], 2, false), /^WeightedRandomSampler: expected an options object \{ replacement, generator \} after numSamples, got false$/);
  assert.equal([...new D.WeightedRandomSampler([1, 1], 2, {})].length, 2);
  assert.deepEqual([...new D.BatchSampler([0, 1], 1, false)], [[0], [1]]);
  throwsWith(() => new D.BatchSampler([0, 1], 0, false), /^BatchSampler: batchSize should be a positive integer value, but got batchSize=0$/);
  throwsWith(() => new D.BatchSampler([0, 1], 1.5, false), /^BatchSampler: batchSize should be a positive integer value, but got batchSize=1\.5$/);
  const sampler = /^BatchSampler: expected a sampler \(an iterable of indices\), got /;
  throwsWith(() => new D.BatchSampler(null, 1, false), sampler);
  throwsWith(() => new D.BatchSampler({ length: 2 }, 1, false), sampler);
  throwsWith(() => new D.BatchSampler(() => [0], 1, false), sampler);
  throwsWith(() => new D.BatchSampler('ab', 1, false), /^BatchSampler: expected a sampler \(an iterable of indices\), got 'ab'$/);
  assert.deepEqual([...new D.BatchSampler(new Set([3, 4]), 2, false)], [[3, 4]]);
});

test("datasets.mnist: a digit's data that is null, a 784-char string, or has a non-number length: each alone refused", async () => {
  const digits = Array.from({ length: 10 }, () => new Float32Array(784));
  const msg = (got) => new RegExp(`^mnist: digit 3's data must hold a multiple of 784 values, got ${got}$`);
  for (const [bad, got] of [[null, 'null'], ['a'.repeat(784), "'a+.*"], [{ length: '784' }, 'an object']]) {
    const ds = digits.slice();
    ds[3] = bad;
    await assert.rejects(() => sg.datasets.mnist({ digits: ds }), (e) => msg(got).test(e.message));
  }
  const { train } = await sg.datasets.mnist({ digits: digits.map((d, i) => (i === 3 ? Array.from(d) : d)) });
  assert.deepEqual(train.x.shape, [10, 1, 28, 28]);
  sg.dispose(train);
});
