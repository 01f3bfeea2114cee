// More nn argument checks that disjunct mutants (each part of an if (A || B) guarding a throw set
// to false) or a grep of the tests showed unpinned: affineGrid/gridSample, rmsNorm's shapes,
// clipGradNorm_/vectorToParameters arguments, padSequence/unpadSequence, pixelShuffle/Unshuffle,
// hardshrink/celu/threshold, scaledDotProductAttention's ranks and enableGqa heads, dropout's mixed
// argument forms, AdaptiveAvgPool1d. Each message asserted whole; valid calls work after.
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

const { F, nn } = sg;
const R = nn.utils.rnn;
const gone = () => {
  const d = sg.zeros([3]);
  d.dispose();
  return d;
};

test('each bad call is an Error with its whole message', () => {
  const cases = [
    [() => F.affineGrid(sg.zeros([1, 2, 3]).double(), [1, 1, 2, 2]),
      /^affineGrid: expected 'theta' to be a float32 Tensor, got a Tensor of shape \[1, 2, 3\] \(float64\)$/],
    [() => F.affineGrid(sg.zeros([1, 2, 3]), [1, 1, 2]),
      /^affineGrid: expected 'size' to be \[N, C, H, W\] \(the 2-D case\), got \[1, 1, 2\]$/],
    [() => F.affineGrid(sg.zeros([1, 2, 3]), [1, 1, 2, -1]),
      /^affineGrid: expected 'size' to be \[N, C, H, W\] \(the 2-D case\), got \[1, 1, 2, -1\]$/],
    [() => F.affineGrid(sg.zeros([2, 3]), [1, 1, 2, 2]),
      /^affineGrid: expected theta of shape \[1, 2, 3\] for size \[1, 1, 2, 2\], got \[2, 3\]$/],
    [() => F.affineGrid(sg.zeros([2, 2, 3]), [1, 1, 2, 2]),
      /^affineGrid: expected theta of shape \[1, 2, 3\] for size \[1, 1, 2, 2\], got \[2, 2, 3\]$/],
    [() => F.affineGrid(sg.zeros([1, 3, 3]), [1, 1, 2, 2]),
      /^affineGrid: expected theta of shape \[1, 2, 3\] for size \[1, 1, 2, 2\], got \[1, 3, 3\]$/],
    [() => F.affineGrid(sg.zeros([1, 2, 2]), [1, 1, 2, 2]),
      /^affineGrid: expected theta of shape \[1, 2, 3\] for size \[1, 1, 2, 2\], got \[1, 2, 2\]$/],
    [() => F.gridSample([[1]], sg.zeros([1, 1, 1, 2])),
      /^gridSample: expected 'input' to be a float32 Tensor, got \[\[1\]\]$/],
    [() => F.gridSample(sg.zeros([1, 1, 2, 2]), sg.zeros([1, 1, 1, 2]).double()),
      /^gridSample: expected 'grid' to be a float32 Tensor, got a Tensor of shape \[1, 1, 1, 2\] \(float64\)$/],
    [() => F.gridSample(sg.zeros([1, 1, 2, 2]), sg.zeros([1, 1, 2])),
      /^gridSample: expected grid of shape \[1, Ho, Wo, 2\] for input \[1, 1, 2, 2\], got \[1, 1, 2\]$/],
    [() => F.gridSample(sg.zeros([1, 1, 2, 2]), sg.zeros([1, 1, 1, 3])),
      /^gridSample: expected grid of shape \[1, Ho, Wo, 2\] for input \[1, 1, 2, 2\], got \[1, 1, 1, 3\]$/],
    [() => F.gridSample(sg.zeros([1, 1, 2, 2]), sg.zeros([2, 1, 1, 2])),
      /^gridSample: expected grid of shape \[1, Ho, Wo, 2\] for input \[1, 1, 2, 2\], got \[2, 1, 1, 2\]$/],
    [() => F.rmsNorm(sg.zeros([2]), 'a'),
      /^rmsNorm: expected 'normalizedShape' to be an integer or a non-empty array of integers, got 'a'$/],
    [() => F.rmsNorm(sg.zeros([2]), []),
      /^rmsNorm: expected 'normalizedShape' to be an integer or a non-empty array of integers, got \[\]$/],
    [() => F.rmsNorm(sg.zeros([2]), [-1]),
      /^rmsNorm: expected 'normalizedShape' to be an integer or a non-empty array of integers, got \[-1\]$/],
    [() => F.rmsNorm(sg.zeros([2, 3]), [2]),
      /^rmsNorm: expected an input whose last dims are \[2\], got shape \[2, 3\]$/],
    [() => F.rmsNorm(sg.zeros([3]), [2, 3]),
      /^rmsNorm: expected an input whose last dims are \[2, 3\], got shape \[3\]$/],
    [() => nn.utils.clipGradNorm_(null, 1),
      /^clipGradNorm_: expected a Tensor or an array of Tensors \(e\.g\. model\.parameters\(\)\), got null$/],
    [() => nn.utils.clipGradNorm_(5, 1),
      /^clipGradNorm_: expected a Tensor or an array of Tensors \(e\.g\. model\.parameters\(\)\), got 5$/],
    [() => nn.utils.clipGradNorm_({}, 1),
      /^clipGradNorm_: expected a Tensor or an array of Tensors \(e\.g\. model\.parameters\(\)\), got an object$/],
    [() => nn.utils.vectorToParameters([1], [sg.zeros([1])]),
      /^vectorToParameters: expected a 1-D Tensor, got \[1\]$/],
    [() => nn.utils.vectorToParameters(gone(), [sg.zeros([1])]),
      /^vectorToParameters: expected a 1-D Tensor, got a disposed Tensor$/],
    [() => nn.utils.vectorToParameters(sg.zeros([1, 1]), [sg.zeros([1])]),
      /^vectorToParameters: expected a 1-D Tensor, got a Tensor of shape \[1, 1\] \(float32\)$/],
    [() => R.padSequence(sg.zeros([2])),
      /^padSequence: expected a non-empty array of Tensors, got a Tensor of shape \[2\] \(float32\)$/],
    [() => R.padSequence([]),
      /^padSequence: expected a non-empty array of Tensors, got \[\]$/],
    [() => R.padSequence([sg.zeros([2]), 5]),
      /^padSequence: expected sequences\[1\] to be a Tensor with at least 1 dim, got 5$/],
    [() => R.padSequence([sg.zeros([2]), sg.tensor(1)]),
      /^padSequence: expected sequences\[1\] to be a Tensor with at least 1 dim, got a Tensor of shape \[\] \(float32\)$/],
    [() => R.unpadSequence(sg.zeros([2]), [1]),
      /^unpadSequence: expected a padded Tensor with at least 2 dims, got a Tensor of shape \[2\] \(float32\)$/],
    [() => R.unpadSequence(sg.zeros([3, 2]), 5),
      /^unpadSequence: expected 2 lengths, each an integer in \[0, 3\], got 5$/],
    [() => R.unpadSequence(sg.zeros([3, 2]), [1]),
      /^unpadSequence: expected 2 lengths, each an integer in \[0, 3\], got \[1\]$/],
    [() => F.pixelShuffle(sg.zeros([1, 3, 2, 2]), 2),
      /^pixelShuffle: expected input of shape \[\*, C·4, H, W\] \(channels divisible by 4\), got \[1, 3, 2, 2\]$/],
    [() => F.pixelUnshuffle(sg.zeros([1, 1, 3, 2]), 2),
      /^pixelUnshuffle: expected input of shape \[\*, C, H, W\] with H and W divisible by 2, got \[1, 1, 3, 2\]$/],
    [() => F.hardshrink(sg.zeros([2]), -1),
      /^hardshrink: expected 'lambd' to be a number >= 0, got -1$/],
    [() => F.celu(sg.zeros([2]), 0),
      /^celu: expected 'alpha' to be a finite nonzero number, got 0$/],
    [() => F.threshold(sg.zeros([2]), 'a', 0),
      /^threshold: expected 'threshold' to be a number, got 'a'$/],
    [() => F.scaledDotProductAttention(sg.zeros([3]), sg.zeros([3, 2]), sg.zeros([3, 2])),
      /^scaledDotProductAttention: expected query and key with at least 2 dims, got \[3\] and \[3, 2\]$/],
    [() => F.scaledDotProductAttention(sg.zeros([1, 3, 2, 4]), sg.zeros([1, 2, 2, 4]), sg.zeros([1, 2, 2, 4]), null, { enableGqa: true }),
      /^scaledDotProductAttention: enableGqa needs query's heads \(3\) to be a multiple of key's \(2\) and value's \(2\) \(dim -3\)$/],
    [() => F.dropout(sg.zeros([2]), { p: 0.5 }, true),
      /^dropout: expected \(input, options\?\) or \(input, p, training\?, inplace\?\), got an options object and more$/],
    [() => new nn.AdaptiveAvgPool1d(0),
      /^AdaptiveAvgPool1d: expected 'outputSize' to be a positive integer, got 0$/],
    // Shapes / values that pass every check but the one under test.
    [() => F.affineGrid(sg.zeros([1, 2, 3, 1]), [1, 1, 2, 2]), /^affineGrid: expected theta of shape \[1, 2, 3\] for size \[1, 1, 2, 2\], got \[1, 2, 3, 1\]$/],
    [() => F.gridSample(sg.zeros([1, 1, 2, 2]), sg.zeros([1, 1, 1, 2, 1])), /^gridSample: expected grid of shape \[1, Ho, Wo, 2\] for input \[1, 1, 2, 2\], got \[1, 1, 1, 2, 1\]$/],
    [() => nn.utils.clipGradNorm_('ab', 1), /^clipGradNorm_: expected a Tensor or an array of Tensors \(e\.g\. model\.parameters\(\)\), got 'ab'$/],
    [() => R.unpadSequence(sg.zeros([3, 2]), '12'), /^unpadSequence: expected 2 lengths, each an integer in \[0, 3\], got '12'$/],
  ];
  for (const [call, re] of cases) throwsWith(call, re);
});

test('the same functions with valid arguments', () => {
  // affineGrid of the identity theta on a 2×2 image: the pixel centres ±1/2 (alignCorners false).
  const g = F.affineGrid(sg.tensor([[[1, 0, 0], [0, 1, 0]]]), [1, 1, 2, 2]);
  close(g.toArray(), [[[[-0.5, -0.5], [0.5, -0.5]], [[-0.5, 0.5], [0.5, 0.5]]]]);
  const x = sg.tensor([[[[1, 2], [3, 4]]]]);
  close(F.gridSample(x, g).toArray(), [[[[1, 2], [3, 4]]]], 1e-6);
  // rmsNorm over [3, 4]: sqrt(mean(9, 16)) = sqrt(12.5).
  close(F.rmsNorm(sg.tensor([[3, 4]]), [2], null, { eps: 0 }).toArray(), [[3 / Math.sqrt(12.5), 4 / Math.sqrt(12.5)]], 1e-6);
  const p = sg.zeros([2]);
  nn.utils.vectorToParameters(sg.tensor([5, 6]), [p]);
  close(p.toArray(), [5, 6]);
  close(R.padSequence([sg.tensor([1, 2]), sg.tensor([3])]).toArray(), [[1, 3], [2, 0]]);
  assert.deepEqual(R.unpadSequence(sg.zeros([3, 2]), [3, 1]).map((s) => s.shape), [[3], [1]]);
  assert.deepEqual(F.pixelShuffle(sg.zeros([1, 4, 2, 2]), 2).shape, [1, 1, 4, 4]);
  assert.deepEqual(F.pixelUnshuffle(sg.zeros([1, 1, 4, 2]), 2).shape, [1, 4, 2, 1]);
  close(F.hardshrink(sg.tensor([-1, 0.2, 1]), 0.5).toArray(), [-1, 0, 1]);
  close(F.threshold(sg.tensor([-1, 2]), 0, 7).toArray(), [7, 2]);
  assert.deepEqual(F.scaledDotProductAttention(sg.zeros([1, 4, 2, 4]), sg.zeros([1, 2, 2, 4]), sg.zeros([1, 2, 2, 4]), null, { enableGqa: true }).shape, [1, 4, 2, 4]);
  close(new nn.AdaptiveAvgPool1d(1).forward(sg.tensor([[[1, 2, 3]]])).toArray(), [[[2]]]);
});
