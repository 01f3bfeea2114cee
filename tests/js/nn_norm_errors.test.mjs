// Norm layers: the InstanceNorm rank and feature checks and LayerNorm's normalizedShape check
// that no test reached, each message asserted with the layer working after; and the printed form
// of BatchNorm/InstanceNorm/LayerNorm/GroupNorm, which pins every default (eps 1e-5, momentum 0.1,
// affine and track_running_stats True for BatchNorm, False for InstanceNorm; elementwise_affine
// True): the expected strings are torch 1.13's repr() of the same constructions. InstanceNorm
// values are hand-computed: (x - mean) / sqrt(biased var + 1e-5) of [1, 2, 3] = ±1.22474, 0.
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

const { nn } = sg;

test('norm layers print as torch 1.13 (defaults included)', () => {
  const cases = [
    [new nn.BatchNorm1d(3), 'BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)'],
    [new nn.BatchNorm2d(3, { momentum: null, affine: false }), 'BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, track_running_stats=True)'],
    [new nn.BatchNorm3d(2, { eps: 0.001, trackRunningStats: false }), 'BatchNorm3d(2, eps=0.001, momentum=0.1, affine=True, track_running_stats=False)'],
    [new nn.InstanceNorm1d(3), 'InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)'],
    [new nn.InstanceNorm2d(4, { affine: true, trackRunningStats: true }), 'InstanceNorm2d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)'],
    [new nn.LayerNorm(4), 'LayerNorm((4,), eps=1e-05, elementwise_affine=True)'],
    [new nn.LayerNorm([2, 3], { elementwiseAffine: false, eps: 1e-6 }), 'LayerNorm((2, 3), eps=1e-06, elementwise_affine=False)'],
    [new nn.GroupNorm(2, 4), 'GroupNorm(2, 4, eps=1e-05, affine=True)'],
    [new nn.GroupNorm(2, 4, { affine: false, eps: 0.01 }), 'GroupNorm(2, 4, eps=0.01, affine=False)'],
  ];
  for (const [m, want] of cases) assert.equal(String(m), want);
});

test('GroupNorm without affine has no weight or bias (as PyTorch: None)', () => {
  const g = new nn.GroupNorm(2, 4, { affine: false });
  assert.equal(g.weight, null);
  assert.equal(g.bias, null);
  assert.deepEqual(Object.keys(g.stateDict()), []);
  // Groups {0, 1} and {2, 3} of one sample, each [1, 3] → ±1/sqrt(1 + 1e-5).
  const y = g.forward(sg.tensor([[[1], [3], [5], [7]]]));
  const s = 1 / Math.sqrt(1 + 1e-5);
  close(y.toArray(), [[[-s], [s], [-s], [s]]], 1e-5);
});

test('InstanceNorm: an input of another rank is an Error naming the ranks', () => {
  const m = new nn.InstanceNorm1d(3);
  throwsWith(() => m.forward(sg.zeros([1, 2, 3, 4])), /^InstanceNorm1d: expected 2D \(unbatched\) or 3D \(batched\) input, got 4D input$/);
  throwsWith(() => m.forward(sg.zeros([3])), 'InstanceNorm1d: expected 2D (unbatched) or 3D (batched) input, got 1D input');
  throwsWith(() => new nn.InstanceNorm2d(3).forward(sg.zeros([3, 4])), 'InstanceNorm2d: expected 3D (unbatched) or 4D (batched) input, got 2D input');
  throwsWith(() => new nn.InstanceNorm3d(3).forward(sg.zeros([1, 3, 2, 2, 2, 1])), 'InstanceNorm3d: expected 4D (unbatched) or 5D (batched) input, got 6D input');
  // Without affine, another channel count is accepted (PyTorch only warns): rows normalized.
  const r = 1 / Math.sqrt(2 / 3 + 1e-5);
  close(m.forward(sg.tensor([[[1, 2, 3], [4, 5, 6]]])).toArray(), [[[-r, 0, r], [-r, 0, r]]], 1e-5);
  // Unbatched [C, L].
  close(m.forward(sg.tensor([[1, 2, 3], [4, 5, 6], [0, 0, 3]])).toArray()[0], [-r, 0, r], 1e-5);
});

test('InstanceNorm with affine: a channel count other than numFeatures is an Error naming both', () => {
  const m = new nn.InstanceNorm1d(3, { affine: true });
  throwsWith(() => m.forward(sg.zeros([2, 4, 5])), /^InstanceNorm1d: expected input's size at dim 1 to match numFeatures \(3\), but got: 4\.$/);
  throwsWith(() => m.forward(sg.zeros([4, 5])), "InstanceNorm1d: expected input's size at dim 0 to match numFeatures (3), but got: 4.");
  throwsWith(() => new nn.InstanceNorm2d(2, { affine: true }).forward(sg.zeros([1, 3, 2, 2])), "InstanceNorm2d: expected input's size at dim 1 to match numFeatures (2), but got: 3.");
  assert.deepEqual(m.forward(sg.zeros([2, 3, 5])).shape, [2, 3, 5]);
});

test('LayerNorm: a normalizedShape that is not an integer or an array of integers >= 0 is an Error naming it', () => {
  throwsWith(() => new nn.LayerNorm('a'), /^LayerNorm: expected 'normalizedShape' to be an integer or an array of integers, got 'a'$/);
  throwsWith(() => new nn.LayerNorm([2, -1]), "LayerNorm: expected 'normalizedShape' to be an integer or an array of integers, got [2, -1]");
  throwsWith(() => new nn.LayerNorm([2.5]), "expected 'normalizedShape' to be an integer or an array of integers, got [2.5]");
  throwsWith(() => new nn.LayerNorm(1.5), "expected 'normalizedShape' to be an integer or an array of integers, got 1.5");
  const ln = new nn.LayerNorm([2]);
  // [1, 3]: mean 2, biased var 1.
  const s = 1 / Math.sqrt(1 + 1e-5);
  close(ln.forward(sg.tensor([[1, 3]])).toArray(), [[-s, s]], 1e-5);
});

test('GroupNorm: an input without [N, numChannels, ...] is an Error naming its shape', () => {
  const g = new nn.GroupNorm(2, 4);
  throwsWith(() => g.forward(sg.zeros([4])), /^GroupNorm: expected input of shape \[N, 4, \*\] \(numChannels 4\), got \[4\]$/);
  throwsWith(() => g.forward(sg.zeros([1, 3, 2])), 'GroupNorm: expected input of shape [N, 4, *] (numChannels 4), got [1, 3, 2]');
  throwsWith(() => g.forward([[0]]), /^GroupNorm: expected a Tensor, got \[\[0\]\]$/);
  assert.deepEqual(g.forward(sg.zeros([1, 4])).shape, [1, 4]);
});
