// F.conv3d / F.convTranspose3d (nn/conv3d.ts): each part of each guard and each boundary decides a call.
// Oracle: PyTorch 1.13 (F.conv3d / F.conv_transpose3d accept or refuse the same shapes and options:
// output_padding 1 with stride 1 and dilation 1 refused, with stride 2 or dilation 2 accepted; output size 1
// accepted, 0 refused; padded input == kernel span accepted, one less refused; bias [2, 1] refused); messages
// are sg's contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const F = sg.F;

test('conv3d: input rank 4 and 5 taken, 3 and 6 refused; dtype parts alone; bias rank alone', () => sg.tidy(() => {
  const w = sg.ones([1, 1, 1, 1, 1]);
  assert.deepEqual(F.conv3d(sg.ones([1, 2, 2, 2]), w).shape, [1, 2, 2, 2]);
  assert.deepEqual(F.conv3d(sg.ones([1, 1, 2, 2, 2]), w).shape, [1, 1, 2, 2, 2]);
  throwsWith(() => F.conv3d(sg.ones([2, 2, 2]), w), 'conv3d: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [2, 2, 2]');
  throwsWith(() => F.conv3d(sg.ones([1, 1, 2, 2, 2, 1]), w), 'conv3d: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [1, 1, 2, 2, 2, 1]');
  const i32 = sg.ones([1, 1, 2, 2, 2], { dtype: 'int32' });
  throwsWith(() => F.conv3d(i32, sg.ones([1, 1, 1, 1, 1], { dtype: 'int32' })), 'conv3d: expected float32 or float64 input and weight of one dtype, got int32 and int32');
  throwsWith(() => F.conv3d(sg.ones([1, 1, 2, 2, 2]), sg.ones([1, 1, 1, 1, 1], { dtype: 'float64' })), 'conv3d: expected float32 or float64 input and weight of one dtype, got float32 and float64');
  const d = F.conv3d(sg.ones([1, 1, 2, 2, 2], { dtype: 'float64' }), sg.ones([1, 1, 1, 1, 1], { dtype: 'float64' }));
  assert.equal(d.dtype, 'float64');
  const w2 = sg.ones([2, 1, 1, 1, 1]);
  throwsWith(() => F.conv3d(sg.ones([1, 1, 2, 2, 2]), w2, sg.ones([2, 1])), 'conv3d: Given weight of size [2, 1, 1, 1, 1], expected bias to be 1-dimensional with 2 elements, but got bias of size [2, 1] instead');
  throwsWith(() => F.conv3d(sg.ones([1, 1, 2, 2, 2]), w2, sg.ones([3])), 'but got bias of size [3] instead');
  assert.deepEqual(F.conv3d(sg.ones([1, 1, 2, 2, 2]), w2, sg.ones([2])).shape, [1, 2, 2, 2, 2]);
}));

test('conv3d: negative padding refused as an integer and inside an array; 0 taken; padded size == kernel span taken, one less refused', () => sg.tidy(() => {
  const x = sg.ones([1, 1, 3, 3, 3]), w = sg.ones([1, 1, 3, 3, 3]);
  throwsWith(() => F.conv3d(x, w, null, { padding: -1 }), 'conv3d: negative padding is not supported (got -1)');
  throwsWith(() => F.conv3d(x, w, null, { padding: [0, -1, 0] }), 'conv3d: negative padding is not supported (got [0, -1, 0])');
  assert.deepEqual(F.conv3d(x, w, null, { padding: 0 }).shape, [1, 1, 1, 1, 1]);
  assert.deepEqual(F.conv3d(x, w, null, { padding: [0, 0, 0] }).shape, [1, 1, 1, 1, 1]);
  assert.deepEqual(F.conv3d(x, w).shape, [1, 1, 1, 1, 1]);
  const x2 = sg.ones([1, 1, 2, 3, 3]);
  throwsWith(() => F.conv3d(x2, w), "conv3d: Calculated padded input size per channel: (2 x 3 x 3). Kernel size: (3 x 3 x 3). Kernel size can't be greater than actual input size");
  throwsWith(() => F.conv3d(sg.ones([1, 1, 3, 3, 2]), w), 'Calculated padded input size per channel: (3 x 3 x 2)');
  assert.deepEqual(F.conv3d(x2, w, null, { padding: [1, 0, 0] }).shape, [1, 1, 2, 1, 1]);
}));

test('convTranspose3d: rank, dtype parts alone, bias rank alone', () => sg.tidy(() => {
  const w = sg.ones([1, 1, 1, 1, 1]);
  const f = F.convTranspose3d;
  assert.deepEqual(f(sg.ones([1, 2, 2, 2]), w).shape, [1, 2, 2, 2]);
  throwsWith(() => f(sg.ones([1, 1, 2, 2, 2, 1]), w), 'convTranspose3d: Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [1, 1, 2, 2, 2, 1]');
  throwsWith(() => f(sg.ones([2, 2, 2]), w), 'input to conv_transpose3d, but got input of size: [2, 2, 2]');
  throwsWith(() => f(sg.ones([1, 1, 2, 2, 2], { dtype: 'int32' }), sg.ones([1, 1, 1, 1, 1], { dtype: 'int32' })), 'convTranspose3d: expected float32 or float64 input and weight of one dtype, got int32 and int32');
  throwsWith(() => f(sg.ones([1, 1, 2, 2, 2]), sg.ones([1, 1, 1, 1, 1], { dtype: 'float64' })), 'convTranspose3d: expected float32 or float64 input and weight of one dtype, got float32 and float64');
  assert.equal(f(sg.ones([1, 1, 2, 2, 2], { dtype: 'float64' }), sg.ones([1, 1, 1, 1, 1], { dtype: 'float64' })).dtype, 'float64');
  const w2 = sg.ones([1, 2, 1, 1, 1]);
  throwsWith(() => f(sg.ones([1, 1, 2, 2, 2]), w2, sg.ones([2, 1])), 'convTranspose3d: Given transposed=1, weight of size [1, 2, 1, 1, 1], expected bias to be 1-dimensional with 2 elements, but got bias of size [2, 1] instead');
  assert.deepEqual(f(sg.ones([1, 1, 2, 2, 2]), w2, sg.ones([2])).shape, [1, 2, 2, 2, 2]);
}));

test('convTranspose3d: each tuple option is named in its Error', () => sg.tidy(() => {
  const x = sg.ones([1, 1, 2, 2, 2]), w = sg.ones([1, 1, 1, 1, 1]);
  for (const name of ['stride', 'dilation']) {
    throwsWith(() => F.convTranspose3d(x, w, null, { [name]: [1, 1] }), `convTranspose3d: expected '${name}' to be an integer >= 1 or an array of 3 integers >= 1, got [1, 1]`);
  }
  for (const name of ['padding', 'outputPadding']) {
    throwsWith(() => F.convTranspose3d(x, w, null, { [name]: [0, 0] }), `convTranspose3d: expected '${name}' to be an integer >= 0 or an array of 3 integers >= 0, got [0, 0]`);
    throwsWith(() => F.convTranspose3d(x, w, null, { [name]: -1 }), `convTranspose3d: expected '${name}' to be an integer >= 0`, 'got -1');
  }
}));

test('convTranspose3d: outputPadding must be below the stride or the dilation (equal to both refused); output size 1 taken, 0 refused', () => sg.tidy(() => {
  const x = sg.ones([1, 1, 2, 2, 2]), w = sg.ones([1, 1, 1, 1, 1]);
  const f = F.convTranspose3d;
  throwsWith(() => f(x, w, null, { outputPadding: 1 }), 'convTranspose3d: output padding must be smaller than either stride or dilation, but got outputPadding [1, 1, 1], stride [1, 1, 1] and dilation [1, 1, 1]');
  throwsWith(() => f(x, w, null, { outputPadding: 2, stride: 2, dilation: 2 }), 'but got outputPadding [2, 2, 2], stride [2, 2, 2] and dilation [2, 2, 2]');
  assert.deepEqual(f(x, w, null, { outputPadding: 1, stride: 2 }).shape, [1, 1, 4, 4, 4]);
  assert.deepEqual(f(x, w, null, { outputPadding: 1, dilation: 2 }).shape, [1, 1, 3, 3, 3]);
  const x1 = sg.ones([1, 1, 1, 1, 1]);
  assert.deepEqual(f(x1, sg.ones([1, 1, 3, 3, 3]), null, { padding: 1 }).shape, [1, 1, 1, 1, 1]);
  throwsWith(() => f(x1, sg.ones([1, 1, 2, 2, 2]), null, { padding: 1 }), 'convTranspose3d: Given input size per channel: (1 x 1 x 1). Calculated output size per channel: (0 x 0 x 0). Output size is too small');
  throwsWith(() => f(x1, sg.ones([1, 1, 3, 3, 2]), null, { padding: 1 }), 'Calculated output size per channel: (1 x 1 x 0). Output size is too small');
}));
