// nn/grid_sample.ts, nn/interpolate.ts and nn/init.ts guards: each part and each bound decides a call.
// Oracle: PyTorch 1.13 (F.affine_grid refuses a size with a 0, "Expected non-zero, positive output size", and a
// theta not [N, 2, 3]; F.grid_sample refuses a grid whose last dim is not 2 or whose batch differs; F.interpolate
// refuses align_corners (even False) with 'nearest', 6-D input, an output or input size of 0; nn.init fans need
// >= 2 dims); messages are sg's contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { withoutInit } from '../../npm/dist/esm/npm/src/nn/init.js';

const F = sg.F;

test('affineGrid: size list bounds (0 refused as PyTorch does, 1 taken) and theta rank and each dim alone', () => sg.tidy(() => {
  const th = sg.zeros([1, 2, 3]);
  assert.deepEqual(F.affineGrid(th, [1, 1, 1, 1]).shape, [1, 1, 1, 2]);
  const sizeMsg = (got) => `affineGrid: expected 'size' to be [N, C, H, W] (the 2-D case), got ${got}`;
  throwsWith(() => F.affineGrid(th, [1, 1, 0, 2]), sizeMsg('[1, 1, 0, 2]'));
  throwsWith(() => F.affineGrid(th, [1, 1, 2, -1]), sizeMsg('[1, 1, 2, -1]'));
  throwsWith(() => F.affineGrid(th, [1, 1, 1.5, 2]), sizeMsg('[1, 1, 1.5, 2]'));
  throwsWith(() => F.affineGrid(th, [1, 1, 2]), sizeMsg('[1, 1, 2]'));
  throwsWith(() => F.affineGrid(th, 'ab12'), sizeMsg("'ab12'"));
  for (const bad of [[1, 2, 3, 1], [2, 2, 3], [1, 3, 3], [1, 2, 4]]) {
    throwsWith(() => F.affineGrid(sg.zeros(bad), [1, 1, 2, 2]), `affineGrid: expected theta of shape [1, 2, 3] for size [1, 1, 2, 2], got [${bad.join(', ')}]`);
  }
}));

test('gridSample: grid rank, last dim and batch each alone', () => sg.tidy(() => {
  const x = sg.ones([1, 1, 2, 2]);
  assert.deepEqual(F.gridSample(x, sg.zeros([1, 3, 1, 2])).shape, [1, 1, 3, 1]);
  for (const bad of [[1, 2, 2, 2, 1], [1, 2, 2, 3], [2, 2, 2, 2]]) {
    throwsWith(() => F.gridSample(x, sg.zeros(bad)), `gridSample: expected grid of shape [1, Ho, Wo, 2] for input [1, 1, 2, 2], got [${bad.join(', ')}]`);
  }
}));

test('interpolate: disposed input; alignCorners with nearest (true or false) refused, null taken; rank and mode bounds; zero sizes', () => sg.tidy(() => {
  const gone = sg.ones([1, 1, 2]);
  gone.dispose();
  throwsWith(() => F.interpolate(gone, { size: 2 }), /^interpolate: expected 'input' to be a Tensor, got /);
  throwsWith(() => F.interpolate([1, 2], { size: 2 }), "interpolate: expected 'input' to be a Tensor, got [1, 2]");
  const x3 = sg.ones([1, 1, 2]);
  const ac = "interpolate: alignCorners can only be set with the interpolating modes linear and bilinear, got mode 'nearest'";
  throwsWith(() => F.interpolate(x3, { size: 4, alignCorners: true }), ac);
  throwsWith(() => F.interpolate(x3, { size: 4, alignCorners: false }), ac);
  assert.deepEqual(F.interpolate(x3, { size: 4, alignCorners: null }).shape, [1, 1, 4]);
  assert.deepEqual(F.interpolate(x3, { size: 4, mode: 'linear', alignCorners: true }).shape, [1, 1, 4]);
  // Spatial dims 1 and 3 taken, 0 and 4 refused; linear needs exactly 1; area 1 or 2.
  assert.deepEqual(F.interpolate(sg.ones([1, 1, 2, 2, 2]), { size: 1 }).shape, [1, 1, 1, 1, 1]);
  throwsWith(() => F.interpolate(sg.ones([1, 2]), { size: 1 }), "interpolate: mode 'nearest' expects a 3-D, 4-D or 5-D input [N, C, ...spatial], got shape [1, 2]");
  throwsWith(() => F.interpolate(sg.ones([1, 1, 2, 2, 2, 2]), { size: 1 }), "interpolate: mode 'nearest' expects a 3-D, 4-D or 5-D input [N, C, ...spatial], got shape [1, 1, 2, 2, 2, 2]");
  throwsWith(() => F.interpolate(sg.ones([1, 1, 2, 2]), { size: 1, mode: 'linear' }), "interpolate: mode 'linear' expects a 3-D input [N, C, ...spatial], got shape [1, 1, 2, 2]");
  assert.deepEqual(F.interpolate(sg.ones([1, 1, 2, 2]), { size: 1, mode: 'area' }).shape, [1, 1, 1, 1]);
  throwsWith(() => F.interpolate(sg.ones([1, 1, 2, 2, 2]), { size: 1, mode: 'area' }), "interpolate: mode 'area' expects a 3-D or 4-D input [N, C, ...spatial], got shape [1, 1, 2, 2, 2]");
  // floor(2·0.4) = 0 refused, floor(2·0.5) = 1 taken; an input size 0 refused.
  throwsWith(() => F.interpolate(x3, { scaleFactor: 0.4 }), 'interpolate: input and output sizes should be greater than 0, but got input [2] and output [0]');
  assert.deepEqual(F.interpolate(x3, { scaleFactor: 0.5 }).shape, [1, 1, 1]);
  throwsWith(() => F.interpolate(sg.ones([1, 1, 0]), { size: 2 }), 'interpolate: input and output sizes should be greater than 0, but got input [0] and output [2]');
}));

test('init: fans need >= 2 dims (1-D refused, 2-D taken); an int32 tensor refused, left alone while fills are skipped', () => sg.tidy(() => {
  throwsWith(() => sg.nn.init.kaimingUniform_(sg.zeros([3])), 'kaimingUniform_: fan in and fan out can not be computed for a tensor with fewer than 2 dimensions (got shape [3])');
  const w = sg.zeros([2, 3]);
  sg.nn.init.kaimingUniform_(w);
  // bound = sqrt(6 / fanIn) with fanIn = 3 (dim 1): every value within sqrt(2).
  assert.ok(w.toArray().flat().every((v) => Math.abs(v) <= Math.sqrt(2)));
  assert.ok(w.toArray().flat().some((v) => v !== 0));
  const i = sg.zeros([2, 3], { dtype: 'int32' });
  throwsWith(() => sg.nn.init.uniform_(i), 'uniform_: expected a float32, float64, float16, bfloat16 tensor to fill with random values, got int32');
  assert.equal(withoutInit(() => sg.nn.init.uniform_(i)), i);
}));
