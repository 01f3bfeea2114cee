// nn argument checks whose messages no test named (found by replacing each part of an
// if (A || B) guarding a throw by false, and by grepping the tests for each message): adaptive
// max pooling's outputSize and empty plane, maxUnpool's indices, Unflatten's dim range (both sides),
// the margin losses' tensor checks, lpPool's normType, dropout1d/3d/alphaDropout/featureAlphaDropout
// and channelShuffle inputs, generateSquareSubsequentMask, PositionalEncoding's rank. Each message
// asserted whole (or its distinctive part), and the call working after with valid arguments.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg, throwsWith } from './helpers.mjs';

const { F, nn } = sg;
const i32 = (a) => sg.tensor(a, { dtype: 'int32' });
const gone = () => {
  const d = sg.zeros([2, 3]);
  d.dispose();
  return d;
};

test('adaptive max pooling: outputSize count and an empty plane', () => {
  const x = sg.zeros([1, 1, 4, 4]);
  throwsWith(() => F.adaptiveMaxPool2d(x, [2]), /^adaptiveMaxPool2d: expected 'outputSize' to be a positive integer or 2 of them \(null keeps a dim\), got \[2\]$/);
  throwsWith(() => F.adaptiveMaxPool2d(x, [2, 2, 2]), 'got [2, 2, 2]');
  throwsWith(() => F.adaptiveMaxPool2d(x, [2, 0]), 'got [2, 0]');
  throwsWith(() => F.adaptiveMaxPool2d(sg.zeros([1, 1, 0, 4]), 2), /^adaptiveMaxPool2d: expected a non-empty input plane, got shape \[1, 1, 0, 4\]$/);
  throwsWith(() => F.adaptiveMaxPool1d(sg.zeros([1, 1, 0]), 2), /^adaptiveMaxPool1d: expected a non-empty input plane, got shape \[1, 1, 0\]$/);
  assert.deepEqual(F.adaptiveMaxPool2d(x, [2, null]).shape, [1, 1, 2, 4]);
});

test('maxUnpool: indices not int32, or of another shape than the input', () => {
  throwsWith(() => F.maxUnpool2d(sg.zeros([1, 1, 2, 2]), sg.zeros([1, 1, 2, 2]), 2), /^maxUnpool2d: expected 'indices' to be an int32 Tensor \(from returnIndices\), got a Tensor of shape \[1, 1, 2, 2\] \(float32\)$/);
  throwsWith(() => F.maxUnpool1d(sg.zeros([1, 1, 2]), i32([[[0, 1, 2]]]), 2), /^maxUnpool1d: expected input and indices of one shape, got \[1, 1, 2\] and \[1, 1, 3\]$/);
});

test('Unflatten: dim out of range on either side', () => {
  throwsWith(() => new nn.Unflatten(2, [2, 2]).forward(sg.zeros([4, 2])), /^Unflatten: dim 2 is out of range for a 2-D input$/);
  throwsWith(() => new nn.Unflatten(-3, [2, 2]).forward(sg.zeros([4, 2])), /^Unflatten: dim -3 is out of range for a 2-D input$/);
  assert.deepEqual(new nn.Unflatten(-2, [2, 2]).forward(sg.zeros([4, 2])).shape, [2, 2, 2]);
});

test('margin losses: inputs and targets that are not live Tensors of the right dtype', () => {
  throwsWith(() => F.multiMarginLoss([[1, 2]], i32([0])), /^multiMarginLoss: expected 'input' to be a Tensor, got \[\[1, 2\]\]$/);
  throwsWith(() => F.multiMarginLoss(gone(), i32([0, 1])), /^multiMarginLoss: expected 'input' to be a Tensor, got a disposed Tensor$/);
  throwsWith(() => F.multiMarginLoss(sg.zeros([2, 3]), [0, 1]), /^multiMarginLoss: expected 'target' to be an int32 Tensor, got \[0, 1\]$/);
  throwsWith(() => F.multiMarginLoss(sg.zeros([2, 3]), sg.tensor([0, 1])), /^multiMarginLoss: expected 'target' to be int32 \(class indices\), got float32$/);
  throwsWith(() => F.marginRankingLoss([1], sg.zeros([1]), sg.zeros([1])), /^marginRankingLoss: expected 'input1' to be a Tensor, got \[1\]$/);
  throwsWith(() => F.marginRankingLoss(sg.zeros([1]), sg.zeros([1]), gone()), /^marginRankingLoss: expected 'target' to be a Tensor, got a disposed Tensor$/);
});

test('lpPool normType, dropout1d/3d and alpha dropout inputs, channelShuffle rank', () => {
  throwsWith(() => F.lpPool1d(sg.zeros([1, 1, 4]), 0, 2), /^lpPool1d: expected 'normType' to be a number > 0, got 0$/);
  throwsWith(() => F.lpPool2d(sg.zeros([1, 1, 4, 4]), 'a', 2), /^lpPool2d: expected 'normType' to be a number > 0, got 'a'$/);
  throwsWith(() => F.dropout1d(sg.zeros([2])), /^dropout1d: expected an input \[N, C, L\] or \[C, L\], got a Tensor of shape \[2\] \(float32\)$/);
  throwsWith(() => F.dropout3d(sg.zeros([2, 2, 2])), /^dropout3d: expected an input \[N, C, D, H, W\] or \[C, D, H, W\], got a Tensor of shape \[2, 2, 2\] \(float32\)$/);
  throwsWith(() => F.alphaDropout(sg.zeros([2], { dtype: 'float64' })), /^alphaDropout: expected a float32 Tensor, got a Tensor of shape \[2\] \(float64\)$/);
  throwsWith(() => F.featureAlphaDropout(sg.zeros([4]), { training: true }), /^featureAlphaDropout: expected an input with a channel dim \[N, C, \.\.\.\], got \[4\]$/);
  throwsWith(() => F.channelShuffle(sg.zeros([2, 4]), 2), /^channelShuffle: expected an input \[N, C, \.\.\.\] with at least 3 dims, got a Tensor of shape \[2, 4\] \(float32\)$/);
  throwsWith(() => F.lpPool1d(sg.zeros([1, 1, 4]), '2', 2), "lpPool1d: expected 'normType' to be a number > 0, got '2'");
  assert.deepEqual(F.dropout1d(sg.ones([1, 2, 3]), { training: false }).shape, [1, 2, 3]);
  assert.deepEqual(F.dropout1d(sg.ones([2, 3]), { training: false }).shape, [2, 3]);
  // lpPool1d with p = 1 sums each window: [1 + 2, 3 + 4].
  assert.deepEqual(F.lpPool1d(sg.tensor([[[1, 2, 3, 4]]]), 1, 2).toArray(), [[[3, 7]]]);
});

test('generateSquareSubsequentMask and PositionalEncoding argument checks', () => {
  throwsWith(() => nn.generateSquareSubsequentMask(-1), /^generateSquareSubsequentMask: expected a non-negative integer, got -1$/);
  throwsWith(() => nn.generateSquareSubsequentMask(1.5), 'generateSquareSubsequentMask: expected a non-negative integer, got 1.5');
  throwsWith(() => new nn.PositionalEncoding(4).forward(sg.zeros([2, 4])), /^PositionalEncoding: expected a 3-D Tensor, got a Tensor of shape \[2, 4\] \(float32\)$/);
  assert.deepEqual(nn.generateSquareSubsequentMask(0).shape, [0, 0]);
});
