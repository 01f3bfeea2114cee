// nn/embedding.ts (paddingIdx range, _weight shape, fromPretrained rank) and nn/distance_pixel_shuffle.ts
// (pixelShuffle / pixelUnshuffle shape guards): each part and each bound decides a call. Oracle: PyTorch 1.13
// (nn.Embedding(3, 2, padding_idx=p) takes p in [-3, 2], refuses 3 and -4; _weight must be [3, 2];
// from_pretrained needs 2-D; F.pixel_shuffle needs >= 3 dims and C divisible by r², F.pixel_unshuffle H and W
// divisible by r); messages are sg's contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

test('Embedding: paddingIdx in [-n, n) taken (negative wrapped), n and -n-1 refused; _weight rank and each dim alone', () => sg.tidy(() => {
  assert.equal(new sg.nn.Embedding(3, 2, { paddingIdx: 2 }).paddingIdx, 2);
  assert.equal(new sg.nn.Embedding(3, 2, { paddingIdx: -3 }).paddingIdx, 0);
  assert.equal(new sg.nn.Embedding(3, 2, { paddingIdx: 0 }).paddingIdx, 0);
  throwsWith(() => new sg.nn.Embedding(3, 2, { paddingIdx: 3 }), 'Embedding: paddingIdx must be within numEmbeddings (3), got 3');
  throwsWith(() => new sg.nn.Embedding(3, 2, { paddingIdx: -4 }), 'Embedding: paddingIdx must be within numEmbeddings (3), got -4');
  assert.deepEqual(new sg.nn.Embedding(3, 2, { _weight: sg.ones([3, 2]) }).weight.shape, [3, 2]);
  for (const bad of [[3, 2, 1], [4, 2], [3, 3]]) {
    throwsWith(() => new sg.nn.Embedding(3, 2, { _weight: sg.ones(bad) }), `Embedding: _weight has shape [${bad.join(', ')}], expected [3, 2]`);
  }
  assert.deepEqual(sg.nn.Embedding.fromPretrained(sg.ones([3, 2])).weight.shape, [3, 2]);
  throwsWith(() => sg.nn.Embedding.fromPretrained([[1, 2]]), 'Embedding.fromPretrained: expected a 2-D Tensor, got [[1, 2]]');
  throwsWith(() => sg.nn.Embedding.fromPretrained(sg.ones([3])), /^Embedding\.fromPretrained: expected a 2-D Tensor, got .*\[3\]/);
  throwsWith(() => sg.nn.Embedding.fromPretrained(sg.ones([3, 2, 1])), /^Embedding\.fromPretrained: expected a 2-D Tensor, got .*\[3, 2, 1\]/);
}));

test('pixelShuffle: 3 dims taken, C not divisible by r² refused; pixelUnshuffle: rank, H and W each alone', () => sg.tidy(() => {
  assert.deepEqual(sg.F.pixelShuffle(sg.ones([4, 1, 1]), 2).shape, [1, 2, 2]);
  assert.deepEqual(sg.F.pixelShuffle(sg.ones([1, 8, 1, 1]), 2).shape, [1, 2, 2, 2]);
  throwsWith(() => sg.F.pixelShuffle(sg.ones([2, 1, 1]), 2), 'pixelShuffle: expected input of shape [*, C·4, H, W] (channels divisible by 4), got [2, 1, 1]');
  throwsWith(() => sg.F.pixelShuffle(sg.ones([4, 4]), 2), 'pixelShuffle: expected input of shape [*, C·4, H, W] (channels divisible by 4), got [4, 4]');
  assert.deepEqual(sg.F.pixelUnshuffle(sg.ones([1, 2, 2]), 2).shape, [4, 1, 1]);
  throwsWith(() => sg.F.pixelUnshuffle(sg.ones([2, 2]), 2), 'pixelUnshuffle: expected input of shape [*, C, H, W] with H and W divisible by 2, got [2, 2]');
  throwsWith(() => sg.F.pixelUnshuffle(sg.ones([1, 3, 2]), 2), 'pixelUnshuffle: expected input of shape [*, C, H, W] with H and W divisible by 2, got [1, 3, 2]');
  throwsWith(() => sg.F.pixelUnshuffle(sg.ones([1, 2, 3]), 2), 'pixelUnshuffle: expected input of shape [*, C, H, W] with H and W divisible by 2, got [1, 2, 3]');
}));
