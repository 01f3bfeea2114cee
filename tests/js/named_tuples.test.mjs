// Results PyTorch returns as named tuples are arrays that also carry the names as fields
// (API.md): `const [values, indices] = x.topk(3)` and `x.topk(3).values` both work, with
// PyTorch's field names (values/indices, min/max, sign/logabsdet). The fields are the array's
// own elements (not copies), so tidy, dispose and sg.compile count each tensor once.
// Expected values are closed forms of small inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close } from './helpers.mjs';

const X = [[1, 5, 3], [4, 2, 6]];

/** Checks r is a 2-array named (a, b) whose fields are its elements. */
function named(r, a, b) {
  assert.ok(Array.isArray(r), 'an array');
  assert.equal(r.length, 2);
  assert.equal(r[a], r[0], `.${a} is [0]`);
  assert.equal(r[b], r[1], `.${b} is [1]`);
  assert.deepEqual(Object.keys(r), ['0', '1'], 'the names are not enumerable: the array stays a plain array of two tensors');
  const [first, second] = r;
  assert.equal(first, r[a]);
  assert.equal(second, r[b]);
  const { [a]: byName } = r;
  assert.equal(byName, r[0]);
}

const CASES = {
  topk: [(x) => x.topk(2), 'values', 'indices', [[5, 3], [6, 4]], [[1, 2], [2, 0]]],
  'sg.topk with keywords': [(x) => sg.topk(x, 1, { dim: 0, largest: false }), 'values', 'indices', [[1, 2, 3]], [[0, 1, 0]]],
  sort: [(x) => x.sort(1), 'values', 'indices', [[1, 3, 5], [2, 4, 6]], [[0, 2, 1], [1, 0, 2]]],
  'sort descending': [(x) => sg.sort(x, 0, { descending: true }), 'values', 'indices', [[4, 5, 6], [1, 2, 3]], [[1, 0, 1], [0, 1, 0]]],
  kthvalue: [(x) => x.kthvalue(2, 1), 'values', 'indices', [3, 4], [2, 0]],
  'median(dim)': [(x) => x.median(0), 'values', 'indices', [1, 2, 3], [0, 1, 0]],
  'nanmedian(dim)': [(x) => x.nanmedian(1, true), 'values', 'indices', [[3], [4]], [[2], [0]]],
  cummax: [(x) => x.cummax(1), 'values', 'indices', [[1, 5, 5], [4, 4, 6]], [[0, 1, 1], [0, 0, 2]]],
  cummin: [(x) => x.cummin(1), 'values', 'indices', [[1, 1, 1], [4, 2, 2]], [[0, 0, 0], [0, 1, 1]]],
  aminmax: [(x) => x.aminmax(), 'min', 'max', 1, 6],
  'aminmax along dim': [(x) => sg.aminmax(x, { dim: 1 }), 'min', 'max', [1, 2], [5, 6]],
  'linalg.slogdet': [() => sg.linalg.slogdet(sg.tensor([[2, 1], [1, -3]])), 'sign', 'logabsdet', -1, Math.log(7)],
  slogdet: [() => sg.tensor([[3, 0], [0, 2]]).slogdet(), 'sign', 'logabsdet', 1, Math.log(6)],
};

for (const [name, [call, a, b, wantA, wantB]] of Object.entries(CASES)) {
  test(`named tuple: ${name}`, () => {
    const x = sg.tensor(X);
    const live = sg.memory().tensors;
    const r = sg.tidy(() => call(x));
    named(r, a, b);
    close(r[a].toArray(), wantA);
    close(r[b].toArray(), wantB);
    // tidy kept exactly the two tensors; dispose frees exactly them (each once).
    assert.equal(sg.memory().tensors, live + 2);
    sg.dispose(r);
    assert.ok(r[a].isDisposed && r[b].isDisposed);
    assert.equal(sg.memory().tensors, live);
    x.dispose();
  });
}

test('median and nanmedian without dim stay a 0-d tensor; max(dim) stays the values tensor', () => {
  sg.tidy(() => {
    const x = sg.tensor(X);
    const m = x.median();
    assert.ok(!Array.isArray(m));
    assert.deepEqual(m.shape, []);
    assert.equal(m.item(), 3);
    assert.ok(!Array.isArray(x.nanmedian()));
    const mx = x.max(1);
    assert.ok(!Array.isArray(mx));
    assert.deepEqual(mx.toArray(), [5, 6]);
  });
});

test('varMean and stdMean are plain [a, b] pairs, as PyTorch\'s tuples', () => {
  sg.tidy(() => {
    const r = sg.tensor(X).varMean(1, { unbiased: false });
    assert.ok(Array.isArray(r));
    assert.equal(r.length, 2);
    close(r[0].toArray(), [8 / 3, 8 / 3]);
    close(r[1].toArray(), [3, 4]);
  });
});

test('gradients flow through the values of a named tuple', () => {
  const x = sg.tensor(X, { requiresGrad: true });
  sg.tidy(() => x.topk(2, { dim: 1 }).values.sum().backward());
  // The two largest of each row get gradient 1.
  assert.deepEqual(x.grad.toArray(), [[0, 1, 1], [1, 0, 1]]);
  x.grad = null;
  sg.tidy(() => {
    const { values } = x.sort({ dim: 1, descending: true });
    values.mul(sg.tensor([3, 2, 1])).sum().backward();
  });
  // Rank weights 3, 2, 1 go back to the positions of the sorted values.
  assert.deepEqual(x.grad.toArray(), [[1, 3, 2], [2, 1, 3]]);
  x.dispose();
});

test('sg.compile returns named tuples with their names, on the first call and on cached calls', () => {
  const f = sg.compile((t) => ({ top: t.topk(2), mm: t.aminmax({ dim: 0 }), plain: [t.sum(), t.mean()] }));
  const x = sg.tensor(X);
  sg.dispose(f(x));  // the first call traces
  const live = sg.memory().tensors;
  for (let k = 0; k < 3; k++) {
    const r = f(x);
    named(r.top, 'values', 'indices');
    named(r.mm, 'min', 'max');
    close(r.top.values.toArray(), [[5, 3], [6, 4]]);
    close(r.top.indices.toArray(), [[1, 2], [2, 0]]);
    close(r.mm.min.toArray(), [1, 2, 3]);
    close(r.mm.max.toArray(), [4, 5, 6]);
    // A plain array result stays plain.
    assert.equal(r.plain.values, Array.prototype.values);
    assert.equal(sg.memory().tensors, live + 6, 'six result tensors, each counted once');
    sg.dispose(r);
    assert.equal(sg.memory().tensors, live);
  }
  f.clear();
  x.dispose();
});

test('a named tuple is a tensor tree for sg.compile arguments too', () => {
  const g = sg.compile((pair) => pair.values.add(pair[1].float()));
  const x = sg.tensor(X);
  const r = x.topk(1);
  const out = g(r);
  close(out.toArray(), [[6], [8]]);
  sg.dispose([out, r, x]);
  g.clear();
});
