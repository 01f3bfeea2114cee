// Each part of the guards of nn/pool3d.ts (input rank/emptiness, padding at most half the kernel,
// output size >= 1, adaptive output sizes), nn/pool_indices.ts (input rank, adaptive sizes,
// maxUnpool's input/indices shapes) and nn/unfold.ts (the kernel fits the padded plane, per dim)
// decides a test, with the boundary values on both sides. Oracle: PyTorch 1.13 (pad 1 with
// kernel 2 or 3 accepted, pad 2 with kernel 3 refused; a kernel equal to the input accepted, one
// larger refused; 3-D/6-D input refused); messages are the library's own (PyTorch's words).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sg, close, throwsWith } from './helpers.mjs';

const F = sg.nn.functional;
const nn = sg.nn;

test('3-D pools: 4-D or 5-D input; an empty batch accepted, an empty channel or spatial dim refused (PyTorch 1.13)', () => {
  for (const pool of ['maxPool3d', 'avgPool3d']) {
    const msg = (s) => `${pool}: non-empty 4D or 5D (batch mode) tensor expected for input, got size [${s}]`;
    throwsWith(() => F[pool](sg.zeros([3, 3, 3]), 1), msg('3, 3, 3'));
    throwsWith(() => F[pool](sg.zeros([1, 1, 1, 3, 3, 3]), 1), msg('1, 1, 1, 3, 3, 3'));
    throwsWith(() => F[pool](sg.zeros([0, 3, 3, 3]), 1), msg('0, 3, 3, 3'));
    throwsWith(() => F[pool](sg.zeros([1, 0, 3, 3, 3]), 1), msg('1, 0, 3, 3, 3'));
    throwsWith(() => F[pool](sg.zeros([1, 1, 3, 3, 0]), 1), msg('1, 1, 3, 3, 0'));
    assert.deepEqual(F[pool](sg.zeros([0, 1, 3, 3, 3]), 3).shape, [0, 1, 1, 1, 1]);
    assert.deepEqual(F[pool](sg.zeros([1, 3, 3, 3]), 3).shape, [1, 1, 1, 1]);
    assert.deepEqual(F[pool](sg.zeros([2, 1, 3, 3, 3]), 3).shape, [2, 1, 1, 1, 1]);
  }
  for (const pool of ['adaptiveAvgPool3d', 'adaptiveMaxPool3d']) {
    throwsWith(() => F[pool](sg.zeros([3, 3, 3]), 1), `${pool}: non-empty 4D or 5D (batch mode) tensor expected for input, got size [3, 3, 3]`);
    throwsWith(() => F[pool](sg.zeros([1, 0, 3, 3]), 1), `${pool}: non-empty 4D or 5D (batch mode) tensor expected for input, got size [1, 0, 3, 3]`);
    assert.deepEqual(F[pool](sg.zeros([0, 2, 3, 3, 3]), [1, 2, null]).shape, [0, 2, 1, 2, 3]);
  }
  const [v, i] = F.maxPool3d(sg.zeros([0, 1, 2, 2, 2]), 2, { returnIndices: true });
  assert.deepEqual([v.shape, i.shape], [[0, 1, 1, 1, 1], [0, 1, 1, 1, 1]]);
  const [av, ai] = F.adaptiveMaxPool3d(sg.zeros([0, 1, 2, 2, 2]), [1, 2, 1], { returnIndices: true });
  assert.deepEqual([av.shape, ai.shape], [[0, 1, 1, 2, 1], [0, 1, 1, 2, 1]]);
});

test('3-D pools: padding at most half the kernel, per dim (k 3 pad 1 and k 2 pad 1 accepted, k 3 pad 2 refused)', () => {
  const x = sg.arange(27, { dtype: 'float32' }).reshape([1, 1, 3, 3, 3]);
  for (const pool of ['maxPool3d', 'avgPool3d']) {
    throwsWith(() => F[pool](x, 3, { padding: 2 }), `${pool}: pad should be at most half of kernel size, but got pad=[2, 2, 2] and kernel_size=[3, 3, 3]`);
    throwsWith(() => F[pool](x, 3, { padding: [0, 0, 2] }), `${pool}: pad should be at most half of kernel size, but got pad=[0, 0, 2] and kernel_size=[3, 3, 3]`);
    throwsWith(() => F[pool](x, [3, 1, 3], { padding: [1, 1, 1] }), `pad=[1, 1, 1] and kernel_size=[3, 1, 3]`);
    assert.deepEqual(F[pool](x, 3, { padding: 1 }).shape, [1, 1, 1, 1, 1]);
    assert.deepEqual(F[pool](x, 2, { padding: 1 }).shape, [1, 1, 2, 2, 2]);
  }
  close(F.maxPool3d(x, 3, { padding: 1 }).toArray(), [[[[[13]]]]]);  // the one window covers -1..1 in each dim: the centre, 1·9 + 1·3 + 1
});

test('3-D pools: every output size >= 1 (a kernel equal to the input accepted, one larger refused)', () => {
  for (const pool of ['maxPool3d', 'avgPool3d']) {
    throwsWith(() => F[pool](sg.zeros([1, 2, 3, 3]), 3), `${pool}: Given input size: (1x2x3x3). Calculated output size: (1x0x1x1). Output size is too small`);
    throwsWith(() => F[pool](sg.zeros([1, 3, 3, 2]), 3), `${pool}: Given input size: (1x3x3x2). Calculated output size: (1x1x1x0). Output size is too small`);
    assert.deepEqual(F[pool](sg.zeros([1, 3, 3, 3]), 3).shape, [1, 1, 1, 1]);
  }
});

test('adaptive 3-D pools: a positive integer or [d, h, w] of positive integers or null', () => {
  const x = sg.arange(8, { dtype: 'float32' }).reshape([1, 2, 2, 2]);
  for (const pool of ['adaptiveAvgPool3d', 'adaptiveMaxPool3d']) {
    const msg = (got) => `${pool}: expected 'outputSize' to be a positive integer or [d, h, w] (positive integers or null to keep a dim), got ${got}`;
    throwsWith(() => F[pool](x, -1), msg('-1'));
    throwsWith(() => F[pool](x, [1, 1]), msg('[1, 1]'));
    throwsWith(() => F[pool](x, [1, 1, 1, 1]), msg('[1, 1, 1, 1]'));
    throwsWith(() => F[pool](x, [1, -1, 1]), msg('[1, -1, 1]'));
    throwsWith(() => F[pool](x, 1.5), msg('1.5'));
    assert.deepEqual(F[pool](x, 1).shape, [1, 1, 1, 1]);
    assert.deepEqual(F[pool](x, [null, 1, 2]).shape, [1, 2, 1, 2]);
  }
  close(F.adaptiveAvgPool3d(x, 1).toArray(), [[[[3.5]]]]);
  for (const M of ['AdaptiveAvgPool3d', 'AdaptiveMaxPool3d']) {
    const msg = (got) => `${M}: expected 'outputSize' to be a positive integer or [d, h, w] (positive integers or null), got ${got}`;
    throwsWith(() => new nn[M](-1), msg('-1'));
    throwsWith(() => new nn[M]([1, 1]), msg('[1, 1]'));
    throwsWith(() => new nn[M]([1, 1, 1, 1]), msg('[1, 1, 1, 1]'));
    throwsWith(() => new nn[M]([1, -2, null]), msg('[1, -2, null]'));
    throwsWith(() => new nn[M]('2'), msg("'2'"));
    assert.deepEqual(new nn[M]([null, 1, 2]).forward(x).shape, [1, 2, 1, 2]);
    assert.deepEqual(new nn[M](1).forward(x).shape, [1, 1, 1, 1]);
  }
});

test('adaptive 1-D/2-D max pools: input of dims+1 or dims+2 dims; output sizes positive, one per dim', () => {
  throwsWith(() => F.adaptiveMaxPool1d(sg.zeros([4]), 2), /^adaptiveMaxPool1d: expected a 2-D or 3-D input, got shape \[4\]$/);
  throwsWith(() => F.adaptiveMaxPool1d(sg.zeros([1, 1, 1, 4]), 2), /^adaptiveMaxPool1d: expected a 2-D or 3-D input, got shape \[1, 1, 1, 4\]$/);
  close(F.adaptiveMaxPool1d(sg.tensor([[1, 5, 2, 3]]), 2).toArray(), [[5, 3]]);
  close(F.adaptiveMaxPool1d(sg.tensor([[[1, 5, 2, 3]]]), 1).toArray(), [[[5]]]);
  throwsWith(() => F.adaptiveMaxPool2d(sg.zeros([4, 4]), 2), /^adaptiveMaxPool2d: expected a 3-D or 4-D input, got shape \[4, 4\]$/);
  throwsWith(() => F.adaptiveMaxPool2d(sg.zeros([1, 1, 1, 4, 4]), 2), /^adaptiveMaxPool2d: expected a 3-D or 4-D input, got shape \[1, 1, 1, 4, 4\]$/);
  assert.deepEqual(F.adaptiveMaxPool2d(sg.zeros([1, 4, 4]), 2).shape, [1, 2, 2]);
  throwsWith(() => F.adaptiveMaxPool1d(sg.zeros([1, 4]), -1), /^adaptiveMaxPool1d: expected 'outputSize' to be a positive integer, got -1$/);
  throwsWith(() => F.adaptiveMaxPool1d(sg.zeros([1, 4]), [1, 1]), /^adaptiveMaxPool1d: expected 'outputSize' to be a positive integer, got \[1, 1\]$/);
  throwsWith(() => F.adaptiveMaxPool2d(sg.zeros([1, 4, 4]), [2]), /^adaptiveMaxPool2d: expected 'outputSize' to be a positive integer or 2 of them \(null keeps a dim\), got \[2\]$/);
  throwsWith(() => F.adaptiveMaxPool2d(sg.zeros([1, 4, 4]), [2, -3]), /got \[2, -3\]$/);
  throwsWith(() => F.adaptiveMaxPool2d(sg.zeros([1, 4, 4]), [2, 2.5]), /got \[2, 2\.5\]$/);
  assert.deepEqual(F.adaptiveMaxPool2d(sg.zeros([1, 4, 4]), [null, 1]).shape, [1, 4, 1]);
  assert.deepEqual(F.adaptiveMaxPool1d(sg.zeros([1, 4]), 1).shape, [1, 1]);
});

test('maxUnpool: input must be a Tensor of the indices\' shape', () => {
  const [out, idx] = F.maxPool2d(sg.tensor([[[[1, 2], [4, 3]]]]), 2, { returnIndices: true });
  close(F.maxUnpool2d(out, idx, 2).toArray(), [[[[0, 0], [4, 0]]]]);
  throwsWith(() => F.maxUnpool2d(4, idx, 2), /^maxUnpool2d: expected input and indices of one shape, got \[4\] and \[1, 1, 1, 1\]$/);
  throwsWith(() => F.maxUnpool2d(sg.zeros([1, 1, 1]), idx, 2), /^maxUnpool2d: expected input and indices of one shape, got \[1, 1, 1\] and \[1, 1, 1, 1\]$/);
  throwsWith(() => F.maxUnpool2d(sg.zeros([1, 1, 1, 2]), idx, 2), /got \[1, 1, 1, 2\] and \[1, 1, 1, 1\]$/);
});

test('unfold: the kernel must fit the padded plane in each dim (equal size accepted, one larger refused)', () => {
  const x = sg.arange(4, { dtype: 'float32' }).reshape([1, 1, 2, 2]);
  throwsWith(() => F.unfold(x, [3, 1]), /^unfold: the kernel 3x1 \(dilation 1x1\) does not fit the padded plane 2x2: 0x2 blocks$/);
  throwsWith(() => F.unfold(x, [1, 3]), /^unfold: the kernel 1x3 \(dilation 1x1\) does not fit the padded plane 2x2: 2x0 blocks$/);
  throwsWith(() => F.unfold(x, [2, 2], { dilation: [1, 2] }), /the kernel 2x2 \(dilation 1x2\) does not fit the padded plane 2x2: 1x0 blocks$/);
  close(F.unfold(x, 2).toArray(), [[[0], [1], [2], [3]]]);
  assert.deepEqual(F.unfold(x, [1, 3], { padding: [0, 1] }).shape, [1, 3, 4]);
});
