// Two defaults no test pinned, against PyTorch 1.13: pack_sequence(enforce_sorted=True) (unsorted
// lengths are an Error naming the option; sorted ones give sortedIndices None), and
// AdaptiveMaxPool1d/2d(return_indices=False) (forward returns the values alone: torch gives a
// Tensor, AdaptiveMaxPool1d(2) of [1, 3, 2, 0] is [3, 2]).
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

const R = sg.nn.utils.rnn;

test('packSequence enforces sorted lengths by default', () => {
  throwsWith(() => R.packSequence([sg.zeros([1]), sg.zeros([2])]),
    /^packSequence: `lengths` array must be sorted in decreasing order when `enforceSorted` is true \(got \[1, 2\]\)/);
  const p = R.packSequence([sg.tensor([1, 2]), sg.tensor([3])]);
  assert.equal(p.sortedIndices, null);
  assert.equal(p.unsortedIndices, null);
  close(Array.from(p.data.dataSync()), [1, 3, 2]);
  const q = R.packSequence([sg.tensor([3]), sg.tensor([1, 2])], { enforceSorted: false });
  assert.deepEqual(Array.from(q.sortedIndices.dataSync()), [1, 0]);
});

test('AdaptiveMaxPool1d/2d return the values alone unless returnIndices', () => {
  const y = new sg.nn.AdaptiveMaxPool1d(2).forward(sg.tensor([[[1, 3, 2, 0]]]));
  assert.ok(y instanceof sg.Tensor);
  close(y.toArray(), [[[3, 2]]]);
  const z = new sg.nn.AdaptiveMaxPool2d(1).forward(sg.tensor([[[[0, 1], [2, 3]]]]));
  assert.ok(z instanceof sg.Tensor);
  close(z.toArray(), [[[[3]]]]);
  const [v, i] = new sg.nn.AdaptiveMaxPool1d(2, { returnIndices: true }).forward(sg.tensor([[[1, 3, 2, 0]]]));
  close(v.toArray(), [[[3, 2]]]);
  assert.deepEqual(i.toArray(), [[[1, 2]]]);
});
