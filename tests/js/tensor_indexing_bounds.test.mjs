// Boundaries of advanced indexing's guards (npm/src/tensor/advanced_indexing.ts): index items of
// integers or booleans, the count of indexed dims, index broadcasting, indexPut's items, options
// and values, and indexPut_'s renaming of copy_'s in-place errors. Oracle: PyTorch 1.13's x[...]
// and index_put_ (x[[0,1],[0,1,0]] raises "shape mismatch"; three indices into a 2-D tensor raise
// "too many indices"; index_put_ on a leaf that requires grad raises) and the source's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, scoped } from './helpers.mjs';

const vals = (t) => Array.from(t.dataSync(), Number);
const I = (...v) => new Int32Array(v);  // a 1-D index (a flat JS array of integers is a range)

test('index items: integer arrays and boolean masks taken, mixed or fractional refused', scoped(() => {
  const x = sg.tensor([10, 20, 30]);
  assert.deepEqual(vals(sg.index(x, I(2, 0))), [30, 10]);
  assert.deepEqual(vals(sg.index(x, [true, false, true])), [10, 30]);
  assert.deepEqual(sg.index(x, [[2, 0]]).shape, [1, 2]);
  throwsWith(() => sg.index(x, [[0, 1.5]]), /^index: expected item 0 to be an array of integers \(an index\) or of booleans \(a mask\), got/);
  throwsWith(() => sg.index(x, [[true, 1]]), /^index: expected item 0 to be an array of integers/);
}));

test('index: as many indexed dims as the tensor has taken, one more refused', scoped(() => {
  const x = sg.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(vals(sg.index(x, I(1), I(0))), [3]);
  assert.deepEqual(vals(sg.index(x, [[true, false], [false, true]])), [1, 4]);
  throwsWith(() => sg.index(x, I(1), I(0), I(0)), 'index: too many indices for a tensor of 2 dims (shape [2, 2]): the items index 3');
  throwsWith(() => sg.index(x, [[true, false], [false, true]], I(0)), 'index: too many indices for a tensor of 2 dims (shape [2, 2]): the items index 3');
}));

test('index tensors broadcast: equal sizes and size 1 taken, 2 against 3 refused', scoped(() => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
  assert.deepEqual(vals(sg.index(x, I(0, 1), I(2, 0))), [3, 4]);
  assert.deepEqual(vals(sg.index(x, I(0, 1), I(1))), [2, 5]);
  assert.deepEqual(vals(sg.index(x, I(1), I(0, 2))), [4, 6]);
  assert.deepEqual(sg.index(x, [[0], [1]], I(0, 2)).shape, [2, 2]);
  throwsWith(() => sg.index(x, I(0, 1), I(0, 1, 0)), 'index: shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]');
}));

test('indexPut items: an array, a Tensor or an Int32Array taken, a string refused', scoped(() => {
  const x = sg.tensor([1, 2, 3]);
  assert.deepEqual(vals(sg.indexPut(x, [I(0)], 9)), [9, 2, 3]);
  assert.deepEqual(vals(sg.indexPut(x, sg.tensor([false, true, false]), 9)), [1, 9, 3]);
  assert.deepEqual(vals(sg.indexPut(x, I(2), 9)), [1, 2, 9]);
  throwsWith(() => sg.indexPut(x, 'ab', 9), /^indexPut: expected 'indices' to be an array of index\(\) items \(or one index tensor\), got/);
}));

test('indexPut options: {} and { accumulate } taken; null, a string, an array, a Tensor, an unknown key refused', scoped(() => {
  const x = sg.tensor([1, 2, 3]);
  assert.deepEqual(vals(sg.indexPut(x, [I(0, 0)], 1, {})), [1, 2, 3]);
  assert.deepEqual(vals(sg.indexPut(x, [I(0, 0)], 1, { accumulate: true })), [3, 2, 3]);
  assert.deepEqual(vals(sg.indexPut(x, [I(0)], 5, { accumulate: false })), [5, 2, 3]);
  for (const bad of [null, 'a', [], sg.tensor([1])]) {
    throwsWith(() => sg.indexPut(x, [I(0)], 1, bad), /^indexPut: expected an options object \{ accumulate \}, got/);
  }
  throwsWith(() => sg.indexPut(x, [I(0)], 1, { acc: true }), "indexPut: unknown option 'acc' (expected: accumulate)");
  throwsWith(() => sg.indexPut(x, [I(0)], 1, { accumulate: 1 }), "indexPut: expected 'accumulate' to be a boolean, got 1");
}));

test('indexPut values: a number or boolean taken, a string refused', scoped(() => {
  const b = sg.tensor([false, false]);
  assert.deepEqual(vals(sg.indexPut(b, [I(1)], true)), [0, 1]);
  assert.deepEqual(vals(sg.indexPut(sg.tensor([1, 2]), [I(1)], 7)), [1, 7]);
  throwsWith(() => sg.indexPut(b, [I(1)], 'x'), /^indexPut: expected 'values' to be a Tensor or a number, got/);
}));

test("indexPut_: copy_'s in-place errors are reported as indexPut_'s", scoped(() => {
  const x = sg.zeros([3], { requiresGrad: true });
  const e = throwsWith(() => x.indexPut_([I(0)], 1), /^indexPut_: /);
  assert.ok(!e.message.startsWith('copy_'), e.message);
  const y = sg.zeros([3]);
  y.indexPut_([I(1)], 4);
  assert.deepEqual(vals(y), [0, 4, 0]);
}));
