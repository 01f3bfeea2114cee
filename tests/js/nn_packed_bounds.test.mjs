// Each part of the guards of nn/packed_sequence.ts (the PackedSequence constructor, the lengths
// of packPaddedSequence, padPackedSequence's totalLength) and nn/utils_rnn.ts (unpadSequence's
// lengths) decides a test, with the boundary values on both sides. Oracle: PyTorch 1.13
// (lengths 0 refused and 1 accepted, equal lengths accepted as sorted, totalLength equal to the
// longest accepted, one less refused); messages are the library's own (PyTorch's words where it
// has them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sg, close, throwsWith } from './helpers.mjs';

const R = sg.nn.utils.rnn;
const i32 = (v, shape = [v.length]) => sg.tensor(v, { dtype: 'int32', shape });
const BS = /^PackedSequence: expected 'batchSizes' to be positive, non-increasing and to sum to data\.shape\[0\] = (\d+), got \[([\d, -]*)\]$/;

test('PackedSequence batchSizes: non-empty, each >= 1, non-increasing (equal allowed), summing to data.shape[0]', () => {
  const data = sg.zeros([4, 1]);
  throwsWith(() => new R.PackedSequence(sg.zeros([0, 1]), []), /= 0, got \[\]$/, BS);
  throwsWith(() => new R.PackedSequence(data, [4, 0]), /= 4, got \[4, 0\]$/);
  throwsWith(() => new R.PackedSequence(data, [1, 3]), /= 4, got \[1, 3\]$/);
  throwsWith(() => new R.PackedSequence(data, [2, 1]), /= 4, got \[2, 1\]$/);
  throwsWith(() => new R.PackedSequence(data, [2, 2, 1]), /= 4, got \[2, 2, 1\]$/);
  assert.deepEqual(new R.PackedSequence(data, [2, 2]).batchSizes.toArray(), [2, 2]);
  assert.deepEqual(new R.PackedSequence(data, [3, 1]).batchSizes.toArray(), [3, 1]);
  assert.deepEqual(new R.PackedSequence(data, [1, 1, 1, 1]).batchSizes.toArray(), [1, 1, 1, 1]);
  assert.deepEqual(new R.PackedSequence(sg.zeros([1]), [1]).batchSizes.toArray(), [1]);
});

test('PackedSequence batchSizes as a Tensor: 1-D int32 on the CPU only', () => {
  const data = sg.zeros([3, 1]);
  const msg = (what) => new RegExp(`^PackedSequence: expected 'batchSizes' as an array of integers or a 1-D int32 Tensor on the CPU \\(it is read synchronously\\), got a ${what} Tensor on 'cpu'$`);
  throwsWith(() => new R.PackedSequence(data, sg.tensor([2, 1])), msg('1-D float32'));
  throwsWith(() => new R.PackedSequence(data, i32([2, 1], [1, 2])), msg('2-D int32'));
  throwsWith(() => new R.PackedSequence(data, sg.tensor(3, { dtype: 'int32' })), msg('0-D int32'));
  assert.deepEqual(new R.PackedSequence(data, i32([2, 1])).sizes, [2, 1]);
});

test('PackedSequence indices: null or undefined means none; unsortedIndices needs sortedIndices', () => {
  const data = sg.zeros([3, 1]);
  for (const none of [undefined, null]) {
    const p = new R.PackedSequence(data, [2, 1], none, none);
    assert.equal(p.sortedIndices, null);
    assert.equal(p.unsortedIndices, null);
  }
  const p = new R.PackedSequence(data, [2, 1], [1, 0], null);
  assert.deepEqual(p.sortedIndices.toArray(), [1, 0]);
  assert.deepEqual(p.unsortedIndices.toArray(), [1, 0]);
  throwsWith(() => new R.PackedSequence(data, [2, 1], null, [1, 0]), /^PackedSequence: 'unsortedIndices' was given without 'sortedIndices'$/);
  throwsWith(() => new R.PackedSequence(data, [2, 1], undefined, [0, 1]), /^PackedSequence: 'unsortedIndices' was given without 'sortedIndices'$/);
  throwsWith(() => new R.PackedSequence(data, [2, 1], [0, 2]), /^PackedSequence: expected 'sortedIndices' to be a permutation of 0\.\.1, got \[0, 2\]$/);
});

test('packPaddedSequence lengths: each > 0 (1 accepted, 0 refused); enforceSorted refuses an increase only', () => {
  const x = sg.arange(6).reshape([3, 2, 1]);
  throwsWith(() => R.packPaddedSequence(x, [3, 0]), /^packPaddedSequence: Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0 \(got \[3, 0\]\)$/);
  throwsWith(() => R.packPaddedSequence(x, [-1, 3], { enforceSorted: false }), /that is <= 0 \(got \[-1, 3\]\)$/);
  assert.deepEqual(R.packPaddedSequence(x, [3, 1]).batchSizes.toArray(), [2, 1, 1]);
  assert.deepEqual(R.packPaddedSequence(x, [3, 3]).batchSizes.toArray(), [2, 2, 2]);
  throwsWith(() => R.packPaddedSequence(x, [2, 3]), /^packPaddedSequence: `lengths` array must be sorted in decreasing order when `enforceSorted` is true \(got \[2, 3\]\)\. You can pass `enforceSorted: false`/);
  throwsWith(() => R.packPaddedSequence(sg.zeros([3, 3, 1]), [3, 1, 2]), /sorted in decreasing order when `enforceSorted` is true \(got \[3, 1, 2\]\)/);
  assert.deepEqual(R.packPaddedSequence(x, [2, 3], { enforceSorted: false }).sortedIndices.toArray(), [1, 0]);
});

test('padPackedSequence totalLength: at least the longest sequence (equal accepted, one less refused)', () => {
  const p = R.packPaddedSequence(sg.arange(6).reshape([3, 2, 1]), [3, 2]);
  throwsWith(() => R.padPackedSequence(p, { totalLength: 2 }),
    /^padPackedSequence: Expected totalLength to be at least the length of the longest sequence in input, but got totalLength=2 and max sequence length being 3$/);
  const [out, lengths] = R.padPackedSequence(p, { totalLength: 3 });
  close(out.toArray(), [[[0], [1]], [[2], [3]], [[4], [0]]]);
  assert.deepEqual(lengths.toArray(), [3, 2]);
  assert.deepEqual(R.padPackedSequence(p, { totalLength: 4 })[0].shape, [4, 2, 1]);
});

test('unpadSequence lengths: one per batch entry, each an integer in [0, T]', () => {
  const padded = sg.arange(6).reshape([3, 2]);  // T 3, B 2
  const msg = (got) => new RegExp(`^unpadSequence: expected 2 lengths, each an integer in \\[0, 3\\], got ${got}$`);
  throwsWith(() => R.unpadSequence(padded, [3, 4]), msg('\\[3, 4\\]'));
  throwsWith(() => R.unpadSequence(padded, [3, -1]), msg('\\[3, -1\\]'));
  throwsWith(() => R.unpadSequence(padded, [3, 1.5]), msg('\\[3, 1\\.5\\]'));
  throwsWith(() => R.unpadSequence(padded, [3]), msg('\\[3\\]'));
  throwsWith(() => R.unpadSequence(padded, [3, 1, 1]), msg('\\[3, 1, 1\\]'));
  throwsWith(() => R.unpadSequence(padded, 3), msg('3'));
  throwsWith(() => R.unpadSequence(padded, '32'), msg("'32'"));
  const [a, b] = R.unpadSequence(padded, [3, 0]);
  assert.deepEqual(a.toArray(), [0, 2, 4]);
  assert.deepEqual(b.shape, [0]);
  assert.deepEqual(R.unpadSequence(padded, i32([1, 2])).map((t) => t.toArray()), [[0], [1, 3]]);
});
