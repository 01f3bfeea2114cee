// sg.data (DataLoader, TensorDataset, Generator) and sg.datasets.mnist: every epoch visits each
// sample exactly once, rows stay aligned, shuffling is reproducible (own seed, or the global
// generator after sg.manualSeed), batches are collated, and nothing leaks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const N = 23;
const range = (n) => Array.from({ length: n }, (_, i) => i);

/** x row i = [i, 10·i], y[i] = i: a sample's identity is readable from both. */
function dataset() {
  const x = sg.tensor(range(N).map((i) => [i, 10 * i]));
  const y = sg.tensor(Int32Array.from(range(N)), { shape: [N] });
  return { x, y };
}

/** One epoch's sample order (from y), checking every batch's size and x/y alignment. */
function epoch(loader, batchSize) {
  const order = [];
  const sizes = [];
  for (const b of loader) {
    const ys = b.y.toArray();
    assert.deepEqual(b.x.toArray(), ys.map((i) => [i, 10 * i]));
    assert.equal(b.y.dtype, 'int32');
    sizes.push(ys.length);
    order.push(...ys);
    sg.dispose(b);
  }
  for (const s of sizes.slice(0, -1)) assert.equal(s, batchSize);
  return order;
}

test('each epoch visits every sample exactly once, in batches of batchSize (the last may be smaller)', () => {
  const data = dataset();
  for (const shuffle of [false, true]) {
    const loader = new sg.data.DataLoader(data, { batchSize: 5, shuffle, seed: 1 });
    assert.equal(loader.length, 5);
    for (let e = 0; e < 3; e++) {
      const order = epoch(loader, 5);
      assert.deepEqual(order.slice().sort((a, b) => a - b), range(N));
      if (!shuffle) assert.deepEqual(order, range(N));
    }
  }
  sg.dispose(data);
});

test('dropLast drops the short last batch', () => {
  const data = dataset();
  const loader = new sg.data.DataLoader(data, { batchSize: 5, shuffle: true, dropLast: true, seed: 3 });
  assert.equal(loader.length, 4);
  const order = epoch(loader, 5);
  assert.equal(order.length, 20);
  assert.equal(new Set(order).size, 20);
  sg.dispose(data);
});

test('same seed → same order; epochs and seeds differ', () => {
  const data = dataset();
  const a = new sg.data.DataLoader(data, { batchSize: 4, shuffle: true, seed: 42 });
  const b = new sg.data.DataLoader(data, { batchSize: 4, shuffle: true, seed: 42 });
  const c = new sg.data.DataLoader(data, { batchSize: 4, shuffle: true, seed: 43 });
  const a1 = epoch(a, 4);
  const a2 = epoch(a, 4);
  assert.deepEqual(epoch(b, 4), a1);
  assert.deepEqual(epoch(b, 4), a2);
  assert.notDeepEqual(a1, a2);
  assert.notDeepEqual(epoch(c, 4), a1);
  sg.dispose(data);
});

test('without a seed, shuffling follows the global generator: reproducible after sg.manualSeed', () => {
  const data = dataset();
  const loader = new sg.data.DataLoader(data, { batchSize: 8, shuffle: true });
  sg.manualSeed(7);
  const first = [epoch(loader, 8), epoch(loader, 8)];
  sg.manualSeed(7);
  const again = [epoch(loader, 8), epoch(loader, 8)];
  assert.deepEqual(again, first);
  assert.notDeepEqual(first[0], first[1]);
  sg.dispose(data);
});

test('the permutations are uniform (every element equally likely at every position)', () => {
  const g = new sg.data.Generator(5);
  const n = 4;
  const trials = 8000;
  const counts = Array.from({ length: n }, () => new Array(n).fill(0));
  for (let t = 0; t < trials; t++) g.permutation(n).forEach((v, pos) => counts[pos][v]++);
  // Each count is Binomial(8000, 1/4): mean 2000, sd ≈ 39; allow 5 sd.
  for (const row of counts) for (const c of row) assert.ok(Math.abs(c - trials / n) < 5 * 39, `count ${c}`);
  // below(bound) stays in range and hits both ends.
  const seen = new Set(Array.from({ length: 200 }, () => g.below(3)));
  assert.deepEqual([...seen].sort(), [0, 1, 2]);
});

test('TensorDataset gives [x, y] samples and batches; a Tensor gives Tensor batches', () => {
  const { x, y } = dataset();
  const ds = new sg.data.TensorDataset(x, y);
  assert.equal(ds.length, N);
  const [xi, yi] = ds.get(4);
  assert.deepEqual(xi.toArray(), [4, 40]);
  assert.equal(yi.item(), 4);
  sg.dispose([xi, yi]);
  const batches = [...new sg.data.DataLoader(ds, { batchSize: 10 })];
  assert.equal(batches.length, 3);
  assert.ok(Array.isArray(batches[0]));
  assert.deepEqual(batches[2][1].toArray(), [20, 21, 22]);
  assert.deepEqual(batches[2][0].shape, [3, 2]);
  sg.dispose(batches);
  const tb = [...new sg.data.DataLoader(x, { batchSize: 20 })];
  assert.deepEqual(tb.map((t) => t.shape), [[20, 2], [3, 2]]);
  sg.dispose(tb);
  throwsWith(() => new sg.data.TensorDataset(x, sg.zeros([3])), 'size mismatch');
  sg.dispose([x, y]);
});

test('a { length, get(i) } dataset is collated: tensors stacked, numbers to tensors, structure kept', () => {
  const ds = {
    length: 7,
    get: (i) => ({ image: sg.full([2, 2], i), label: i % 3, weight: i / 2 }),
  };
  const live = sg.memory().tensors;
  const batches = [...new sg.data.DataLoader(ds, { batchSize: 4 })];
  assert.equal(batches.length, 2);
  const [b0, b1] = batches;
  assert.deepEqual(b0.image.shape, [4, 2, 2]);
  assert.deepEqual(b1.image.toArray(), [4, 5, 6].map((i) => [[i, i], [i, i]]));
  assert.equal(b0.label.dtype, 'int32');
  assert.deepEqual(b0.label.toArray(), [0, 1, 2, 0]);
  assert.equal(b0.weight.dtype, 'float32');
  assert.deepEqual(b1.weight.toArray(), [2, 2.5, 3]);
  sg.dispose(batches);
  // The per-sample tensors made by get() were freed once stacked.
  assert.equal(sg.memory().tensors, live);
});

test('iterating and disposing batches leaks nothing', () => {
  const data = dataset();
  const loader = new sg.data.DataLoader(data, { batchSize: 3, shuffle: true });
  epoch(loader, 3);
  const live = sg.memory().tensors;
  const bytes = sg.memory().bytes;
  for (let e = 0; e < 3; e++) epoch(loader, 3);
  assert.equal(sg.memory().tensors, live);
  assert.equal(sg.memory().bytes, bytes);
  sg.dispose(data);
});

test('DataLoader errors', () => {
  const data = dataset();
  throwsWith(() => new sg.data.DataLoader(data, { batch_size: 4 }), "DataLoader: unknown option 'batch_size'");
  throwsWith(() => new sg.data.DataLoader(data, { batchSize: 0 }), "option 'batchSize' must be a positive integer");
  throwsWith(() => new sg.data.DataLoader(data, { seed: -1 }), "option 'seed' must be a non-negative integer");
  throwsWith(() => new sg.data.DataLoader([1, 2, 3]), 'DataLoader: expected a dataset');
  throwsWith(() => new sg.data.DataLoader({ x: data.x, y: sg.zeros([3]) }), 'same first dimension');
  sg.dispose(data);
});

test('sg.datasets.mnist: the 10,000 real digits, a seeded disjoint split', async () => {
  const { train, test: held } = await sg.datasets.mnist({ trainSize: 9000, testSize: 1000, seed: 3 });
  assert.deepEqual(train.x.shape, [9000, 1, 28, 28]);
  assert.deepEqual(held.x.shape, [1000, 1, 28, 28]);
  assert.equal(train.x.dtype, 'float32');
  assert.equal(train.y.dtype, 'int32');
  assert.equal(train.x.min().item(), 0);
  assert.equal(train.x.max().item(), 1);
  // Every digit is used once over both parts: the per-class counts add up to the package's.
  const perClass = (y) => {
    const c = new Array(10).fill(0);
    for (const v of y.dataSync()) c[v]++;
    return c;
  };
  const total = perClass(train.y).map((c, i) => c + perClass(held.y)[i]);
  assert.deepEqual(total, [1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978]);
  // Images are real digits: a few hundred lit pixels each on average, centred.
  const mean = sg.tidy(() => held.x.mean().item());
  assert.ok(mean > 0.08 && mean < 0.2, `mean pixel ${mean}`);
  // Same seed, same split; another seed, another one.
  const again = await sg.datasets.mnist({ trainSize: 9000, testSize: 1000, seed: 3 });
  assert.deepEqual(Array.from(again.test.y.dataSync()), Array.from(held.y.dataSync()));
  const other = await sg.datasets.mnist({ trainSize: 100, testSize: 100, seed: 4 });
  assert.notDeepEqual(Array.from(other.test.y.dataSync()), Array.from(held.y.dataSync()).slice(0, 100));
  sg.dispose([train, held, again, other]);
  await assert.rejects(() => sg.datasets.mnist({ trainSize: 9000, testSize: 2000 }), /exceeds the 10000 digits/);
  await assert.rejects(() => sg.datasets.mnist({ split: 1 }), /unknown option 'split'/);
});
