// sg.data's samplers and dataset wrappers (torch.utils.data, PyTorch 1.13's semantics and checks):
// SequentialSampler, RandomSampler, WeightedRandomSampler, BatchSampler, Subset, ConcatDataset,
// randomSplit, and the DataLoader's sampler / batchSampler / collateFn / generator options with
// PyTorch's mutual-exclusion errors. Expectations are closed forms (orders, counts, a chi-square
// bound for the weighted draws), never values read back from the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const D = sg.data;
const range = (n) => Array.from({ length: n }, (_, i) => i);
const sorted = (a) => [...a].sort((p, q) => p - q);
/** A { length, get(i) } dataset whose sample i is the number i. */
const numbers = (n) => ({ length: n, get: (i) => i });

test('SequentialSampler: 0..n-1, its length the dataset\'s', () => {
  const s = new D.SequentialSampler(numbers(5));
  assert.equal(s.length, 5);
  assert.deepEqual([...s], range(5));
  const x = sg.zeros([3, 2]);
  assert.deepEqual([...new D.SequentialSampler(x)], [0, 1, 2]);
  assert.deepEqual([...new D.SequentialSampler({ a: x, b: x })], [0, 1, 2]);
  x.dispose();
});

test('RandomSampler without replacement: a permutation every epoch, reproducible from a generator or sg.manualSeed', () => {
  const s = new D.RandomSampler(numbers(20), { generator: new D.Generator(7) });
  assert.equal(s.length, 20);
  const e1 = [...s], e2 = [...s];
  assert.deepEqual(sorted(e1), range(20));
  assert.deepEqual(sorted(e2), range(20));
  assert.notDeepEqual(e1, e2, 'epochs differ');
  const again = new D.RandomSampler(numbers(20), { generator: new D.Generator(7) });
  assert.deepEqual([...again], e1, 'the same seed gives the same order');
  assert.notDeepEqual([...new D.RandomSampler(numbers(20), { generator: new D.Generator(8) })], e1);
  // The global generator (PyTorch's default when no generator is given).
  sg.manualSeed(3);
  const g1 = [...new D.RandomSampler(numbers(20))];
  sg.manualSeed(3);
  const g2 = [...new D.RandomSampler(numbers(20))];
  assert.deepEqual(g1, g2);
  assert.deepEqual(sorted(g1), range(20));
});

test('RandomSampler numSamples: whole permutations then a part of one (without replacement); uniform draws with', () => {
  const s = new D.RandomSampler(numbers(4), { numSamples: 10, generator: new D.Generator(1) });
  assert.equal(s.length, 10);
  const drawn = [...s];
  assert.equal(drawn.length, 10);
  assert.deepEqual(sorted(drawn.slice(0, 4)), range(4));
  assert.deepEqual(sorted(drawn.slice(4, 8)), range(4));
  assert.equal(new Set(drawn.slice(8)).size, 2);
  const r = new D.RandomSampler(numbers(3), { replacement: true, numSamples: 3000, generator: new D.Generator(2) });
  const counts = [0, 0, 0];
  for (const i of r) counts[i]++;
  // Each index ~ Binomial(3000, 1/3): mean 1000, sd ≈ 25.8; 5 sd either way.
  for (const c of counts) assert.ok(Math.abs(c - 1000) < 130, `counts ${counts}`);
});

test('WeightedRandomSampler with replacement draws proportionally to the weights (chi-square bound)', () => {
  const weights = [1, 2, 3, 4, 0];
  const n = 20000;
  const s = new D.WeightedRandomSampler(weights, n, { generator: new D.Generator(11) });
  assert.equal(s.length, n);
  const counts = new Array(5).fill(0);
  for (const i of s) counts[i]++;
  assert.equal(counts[4], 0, 'a zero weight is never drawn');
  const total = 10;
  let chi2 = 0;
  for (let k = 0; k < 4; k++) {
    const expected = (n * weights[k]) / total;
    chi2 += (counts[k] - expected) ** 2 / expected;
  }
  // 3 degrees of freedom: P(chi2 > 16.27) = 0.001.
  assert.ok(chi2 < 16.27, `chi2 ${chi2.toFixed(2)} for counts ${counts}`);
  // A tensor of weights, and the keyword form of numSamples, work too.
  const w = sg.tensor([0, 0, 5]);
  assert.deepEqual([...new D.WeightedRandomSampler(w, { numSamples: 4 })], [2, 2, 2, 2]);
  w.dispose();
});

test('WeightedRandomSampler without replacement never repeats, and favours heavy weights first', () => {
  const weights = [100, 1, 1, 1, 1, 1];
  let heavyFirst = 0;
  const g = new D.Generator(5);
  for (let trial = 0; trial < 200; trial++) {
    const drawn = [...new D.WeightedRandomSampler(weights, 6, { replacement: false, generator: g })];
    assert.deepEqual(sorted(drawn), range(6), 'each index exactly once');
    if (drawn[0] === 0) heavyFirst++;
  }
  // P(index 0 first) = 100/105 ≈ 0.952: 200 draws expect ~190 (sd ≈ 3).
  assert.ok(heavyFirst > 175, `heavy weight first ${heavyFirst} / 200`);
  const part = [...new D.WeightedRandomSampler([1, 0, 1, 1], 3, { replacement: false, generator: new D.Generator(9) })];
  assert.deepEqual(sorted(part), [0, 2, 3], 'zero weights are never drawn');
});

test('BatchSampler groups indices, keeping or dropping the short last batch', () => {
  const seq = new D.SequentialSampler(numbers(7));
  const keep = new D.BatchSampler(seq, 3, false);
  assert.equal(keep.length, 3);
  assert.deepEqual([...keep], [[0, 1, 2], [3, 4, 5], [6]]);
  const drop = new D.BatchSampler(seq, 3, true);
  assert.equal(drop.length, 2);
  assert.deepEqual([...drop], [[0, 1, 2], [3, 4, 5]]);
  assert.deepEqual([...new D.BatchSampler([4, 2, 0], { batchSize: 2, dropLast: false })], [[4, 2], [0]]);
});

test('Subset, ConcatDataset and randomSplit', () => {
  const sub = new D.Subset(numbers(10), [9, 0, 4]);
  assert.equal(sub.length, 3);
  assert.deepEqual([0, 1, 2].map((i) => sub.get(i)), [9, 0, 4]);
  assert.equal(sub.get(-1), 4);
  const cat = new D.ConcatDataset([numbers(2), numbers(3)]);
  assert.equal(cat.length, 5);
  assert.deepEqual(range(5).map((i) => cat.get(i)), [0, 1, 0, 1, 2]);
  assert.deepEqual(cat.cumulativeSizes, [2, 5]);
  assert.equal(cat.get(-1), 2);
  // Counts.
  const parts = D.randomSplit(numbers(10), [3, 7], { generator: new D.Generator(4) });
  assert.deepEqual(parts.map((p) => p.length), [3, 7]);
  const all = parts.flatMap((p) => range(p.length).map((i) => p.get(i)));
  assert.deepEqual(sorted(all), range(10), 'disjoint and complete');
  // Fractions (PyTorch ≥ 1.13): floor(n·f), the remainder one by one from the first.
  assert.deepEqual(D.randomSplit(numbers(10), [0.5, 0.3, 0.2]).map((p) => p.length), [5, 3, 2]);
  assert.deepEqual(D.randomSplit(numbers(11), [0.5, 0.5]).map((p) => p.length), [6, 5]);
  assert.deepEqual(D.randomSplit(numbers(5), [1 / 3, 1 / 3, 1 / 3]).map((p) => p.length), [2, 2, 1]);
  // Reproducible with a generator.
  const a = D.randomSplit(numbers(10), [5, 5], { generator: new D.Generator(4) })[0];
  const b = D.randomSplit(numbers(10), [5, 5], { generator: new D.Generator(4) })[0];
  assert.deepEqual(Array.from(a.indices), Array.from(b.indices));
});

test('DataLoader with a sampler, a batchSampler, a collateFn, no batching, and Subsets of tensors', () => {
  const x = sg.arange(10).float();
  const live = sg.memory().tensors;
  const bySampler = [...new D.DataLoader(x, { sampler: [9, 8, 7, 6, 5], batchSize: 2 })];
  assert.deepEqual(bySampler.map((b) => b.toArray()), [[9, 8], [7, 6], [5]]);
  sg.dispose(bySampler);
  const loader = new D.DataLoader(x, { batchSampler: [[1, 3], [5], [0, 2, 4]] });
  assert.deepEqual([...loader].map((b) => { const v = b.toArray(); b.dispose(); return v; }), [[1, 3], [5], [0, 2, 4]]);
  const sums = [...new D.DataLoader(numbers(6), { batchSize: 3, collateFn: (s) => s.reduce((p, q) => p + q, 0) })];
  assert.deepEqual(sums, [3, 12]);
  const single = [...new D.DataLoader(x, { batchSize: null, sampler: [4, 2] })];
  assert.deepEqual(single.map((t) => t.shape), [[], []]);
  assert.deepEqual(single.map((t) => t.item()), [4, 2]);
  sg.dispose(single);
  // A Subset of a tensor dataset batches the subset's samples.
  const y = x.mul(10);
  const sub = new D.Subset({ x, y }, [7, 1, 3]);
  const [batch] = [...new D.DataLoader(sub, { batchSize: 3 })];
  assert.deepEqual(batch.x.toArray(), [7, 1, 3]);
  assert.deepEqual(batch.y.toArray(), [70, 10, 30]);
  sg.dispose([batch, y]);
  // A weighted sampler in a loader.
  const w = [...new D.DataLoader(x, { sampler: new D.WeightedRandomSampler([0, 0, 1, 0, 0, 0, 0, 0, 0, 0], 4), batchSize: 4 })];
  assert.deepEqual(w[0].toArray(), [2, 2, 2, 2]);
  sg.dispose(w);
  // len(loader): from the batch sampler, else the sampler.
  assert.equal(new D.DataLoader(x, { batchSize: 4 }).length, 3);
  assert.equal(new D.DataLoader(x, { batchSize: 4, dropLast: true }).length, 2);
  assert.equal(new D.DataLoader(x, { batchSampler: new D.BatchSampler(new D.SequentialSampler(x), 3, true) }).length, 3);
  assert.equal(sg.memory().tensors, live, 'the loaders leak nothing');
  x.dispose();
});

test('DataLoader generator: the same shuffling as a seed', () => {
  const x = sg.arange(12).float();
  const order = (o) => [...new D.DataLoader(x, { batchSize: 12, shuffle: true, ...o })].map((b) => { const v = b.toArray(); b.dispose(); return v; })[0];
  const a = order({ generator: new D.Generator(21) });
  const b = order({ seed: 21 });
  assert.deepEqual(a, b);
  assert.deepEqual(sorted(a), range(12));
  x.dispose();
});

test('sampler errors (PyTorch\'s checks) and DataLoader mutual exclusions; memory unchanged', () => {
  const x = sg.zeros([4, 2]);
  const live = sg.memory().tensors;
  const cases = [
    [() => new D.RandomSampler(numbers(3), { numSamples: 0 }), 'RandomSampler: numSamples should be a positive integer value, but got numSamples=0'],
    [() => new D.RandomSampler(numbers(0)), 'numSamples=0'],
    [() => [...new D.RandomSampler(numbers(0), { numSamples: 3, replacement: true })], 'RandomSampler: cannot draw 3 samples from an empty dataset'],
    [() => [...new D.RandomSampler(numbers(0), { numSamples: 3 })], 'RandomSampler: cannot draw 3 samples from an empty dataset'],
    [() => new D.RandomSampler(numbers(3), { replacement: 'yes' }), "RandomSampler: option 'replacement' must be a boolean"],
    [() => new D.RandomSampler(numbers(3), { seed: 1 }), "RandomSampler: unknown option 'seed'"],
    [() => new D.RandomSampler(numbers(3), { generator: 5 }), "option 'generator' must be an sg.data.Generator"],
    [() => new D.RandomSampler([1, 2]), 'RandomSampler: expected a dataset'],
    [() => new D.WeightedRandomSampler([1, 2], 0), 'WeightedRandomSampler: numSamples should be a positive integer value, but got numSamples=0'],
    [() => new D.WeightedRandomSampler([1, -2], 2), 'inf, nan or an element < 0'],
    [() => new D.WeightedRandomSampler([1, NaN], 2), 'inf, nan or an element < 0'],
    [() => new D.WeightedRandomSampler([0, 0], 2), 'sum of weights <= 0'],
    [() => new D.WeightedRandomSampler([[1, 2]], 2), 'weights should be a 1d sequence'],
    [() => new D.WeightedRandomSampler(x, 2), 'weights should be a 1d sequence but given weights have shape [4, 2]'],
    [() => new D.WeightedRandomSampler([1, 0, 1], 3, { replacement: false }), 'cannot draw 3 samples without replacement from 2 indices'],
    [() => new D.WeightedRandomSampler([1, 2], 2, true), 'expected an options object'],
    [() => new D.WeightedRandomSampler([1, 2], 2, { replacment: false }), "unknown option 'replacment'"],
    [() => new D.WeightedRandomSampler([1, 2], 2, { numSamples: 2 }), "got multiple values for argument 'numSamples'"],
    [() => new D.BatchSampler([0, 1], 0, false), 'BatchSampler: batchSize should be a positive integer value, but got batchSize=0'],
    [() => new D.BatchSampler([0, 1], 2), 'BatchSampler: dropLast should be a boolean value, but got dropLast=undefined'],
    [() => new D.BatchSampler(5, 2, false), 'BatchSampler: expected a sampler'],
    [() => new D.Subset(numbers(3), [0.5]), "Subset: expected 'indices' to be an array of integers"],
    [() => new D.Subset(numbers(3), [5]).get(0), 'out of range for 3 samples'],
    [() => new D.ConcatDataset([]), 'ConcatDataset: datasets should not be an empty iterable'],
    [() => new D.ConcatDataset([numbers(2), 7]), 'ConcatDataset (datasets[1]): expected a dataset'],
    [() => D.randomSplit(numbers(10), [3, 3]), 'randomSplit: sum of input lengths (6) does not equal the length of the input dataset (10)'],
    [() => D.randomSplit(numbers(10), [1.5, -0.5]), 'randomSplit: fraction at index 0 is not between 0 and 1'],
    [() => D.randomSplit(numbers(10), [2.5, 7.5]), 'randomSplit: expected lengths to be non-negative integers'],
    [() => D.randomSplit(numbers(10), [5, 5], { seed: 1 }), "randomSplit: unknown option 'seed'"],
    [() => new D.DataLoader(x, { sampler: [0, 1], shuffle: true }), 'DataLoader: sampler option is mutually exclusive with shuffle'],
    [() => new D.DataLoader(x, { batchSampler: [[0]], batchSize: 2 }), 'DataLoader: batchSampler option is mutually exclusive with batchSize, shuffle, sampler, and dropLast'],
    [() => new D.DataLoader(x, { batchSampler: [[0]], shuffle: true }), 'batchSampler option is mutually exclusive'],
    [() => new D.DataLoader(x, { batchSampler: [[0]], sampler: [0] }), 'batchSampler option is mutually exclusive'],
    [() => new D.DataLoader(x, { batchSampler: [[0]], dropLast: true }), 'batchSampler option is mutually exclusive'],
    [() => new D.DataLoader(x, { batchSize: null, dropLast: true }), 'DataLoader: batchSize=null option disables auto-batching and is mutually exclusive with dropLast'],
    [() => new D.DataLoader(x, { seed: 1, generator: new D.Generator(1) }), 'DataLoader: give either seed or generator, not both'],
    [() => new D.DataLoader(x, { sampler: [0], seed: 1 }), 'DataLoader: seed sets the shuffling order, which a given sampler replaces'],
    [() => new D.DataLoader(x, { sampler: 5 }), "DataLoader: option 'sampler' must be an iterable"],
    [() => new D.DataLoader(x, { collateFn: 'stack' }), "DataLoader: option 'collateFn' must be a function"],
    [() => [...new D.DataLoader(x, { sampler: [9] })], 'DataLoader: the sampler gave index 9, out of range for 4 samples'],
    [() => new D.Generator(-1), 'Generator: expected a non-negative integer seed'],
  ];
  for (const [call, msg] of cases) throwsWith(call, msg);
  // { batchSampler, batchSize: 1 } is allowed, as PyTorch's default batch_size=1.
  const ok = new D.DataLoader(x, { batchSampler: [[0, 1]], batchSize: 1 });
  assert.equal(ok.batchSize, null);
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});

test('the Generator: manualSeed restarts the stream, random() is uniform in [0, 1)', () => {
  const g = new D.Generator(99);
  const first = [g.nextU32(), g.nextU32()];
  g.manualSeed(99);
  assert.deepEqual([g.nextU32(), g.nextU32()], first);
  assert.equal(g.initialSeed(), 99);
  assert.equal(new D.Generator().initialSeed(), 67280421310721, "PyTorch's default seed");
  let sum = 0;
  for (let i = 0; i < 10000; i++) {
    const u = g.random();
    assert.ok(u >= 0 && u < 1);
    sum += u;
  }
  // Mean of 10^4 uniforms: 0.5 ± 0.0029 (sd); 5 sd.
  assert.ok(Math.abs(sum / 10000 - 0.5) < 0.015);
});

test('randomSplit: fractions are the lengths only when they sum to 1 (math.isclose) and not above it; bad lengths are Errors naming them', () => {
  const lengthsOf = (n, lengths) => D.randomSplit(numbers(n), lengths).map((p) => p.length);
  // A fraction of exactly 0 or 1 is a fraction (PyTorch 1.13's check is 0 <= f <= 1).
  assert.deepEqual(lengthsOf(4, [0, 1]), [0, 4]);
  assert.deepEqual(lengthsOf(4, [1, 0]), [4, 0]);
  // Summing to 1 with one outside [0, 1].
  throwsWith(() => lengthsOf(4, [1.5, -0.5]), 'randomSplit: fraction at index 0 is not between 0 and 1, got 1.5');
  throwsWith(() => lengthsOf(4, [-0.5, 1.5]), 'randomSplit: fraction at index 0 is not between 0 and 1, got -0.5');
  // Not summing to 1: not fractions, and not counts either.
  throwsWith(() => lengthsOf(10, [0.3, 0.2]), 'randomSplit: expected lengths to be non-negative integers (or fractions summing to 1), got 0.3 at index 0');
  // Within 1e-9 of 1 but above it: not fractions (the sum must also be <= 1).
  throwsWith(() => lengthsOf(10, [0.6, 0.4 + 1e-10]), 'got 0.6 at index 0');
  // Not a non-empty array of finite numbers.
  for (const bad of [[], 'abc', [3, NaN], [3, '7'], [Infinity, 1]]) {
    throwsWith(() => lengthsOf(10, bad), "randomSplit: expected 'lengths' to be a non-empty array of counts or fractions, got");
  }
});
