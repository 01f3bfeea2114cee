// nn/loss_functions.ts, nn/loss_margin.ts, nn/linear.ts (Unflatten) and nn/embedding_bag.ts guards: each part and
// each bound decides a call. Oracle: PyTorch 1.13 (F.triplet_margin_loss needs anchor, positive and negative of one
// rank; F.gaussian_nll_loss takes var of input's shape, without its last dim, or with a last dim 1, and
// refuses others ("var is of incorrect size"); nn.Unflatten's sizes must multiply to the dim, one -1 inferred;
// F.embedding_bag needs 1-D input with offsets or 2-D, per_sample_weights of input's shape); messages are sg's
// contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, close } from './helpers.mjs';

const F = sg.F;
const gone = () => {
  const t = sg.ones([2]);
  t.dispose();
  return t;
};

test('tripletMarginLoss: a disposed or non-Tensor argument; ranks equal (positive alone, negative alone)', () => sg.tidy(() => {
  const a2 = sg.ones([2, 3]), a1 = sg.ones([3]);
  throwsWith(() => F.tripletMarginLoss(gone(), a1, a1), /^tripletMarginLoss: expected 'anchor' to be a Tensor, got /);
  throwsWith(() => F.tripletMarginLoss([1], a1, a1), "tripletMarginLoss: expected 'anchor' to be a Tensor, got [1]");
  assert.equal(F.tripletMarginLoss(a1, a1, a1).ndim, 0);
  assert.equal(F.tripletMarginLoss(a2, a2, a2).ndim, 0);
  const msg = (s) => `tripletMarginLoss: expected anchor, positive and negative to be all 1-D or all 2-D, got ${s}`;
  throwsWith(() => F.tripletMarginLoss(a2, a1, a2), msg('anchor [2, 3], positive [3], negative [2, 3]'));
  throwsWith(() => F.tripletMarginLoss(a2, a2, a1), msg('anchor [2, 3], positive [2, 3], negative [3]'));
  // All 0-D or all 3-D: PyTorch 1.13 takes them, sg refuses them (left as is, reported); not pinned here.
}));

test("gaussianNllLoss: var of input's shape, without the last dim, or with a last dim of 1 taken; each other shape refused", () => sg.tidy(() => {
  const x = sg.zeros([2, 3]), y = sg.zeros([2, 3]);
  for (const ok of [[2, 3], [2], [2, 1]]) assert.equal(F.gaussianNllLoss(x, y, sg.ones(ok)).ndim, 0);
  // A 0-D input takes a var of [1] (PyTorch: sizes()[:-1] both (), var.size(-1) == 1): 0.5·(log 2 + 1/2) = 0.596573.
  const one = F.gaussianNllLoss(sg.tensor(1), sg.tensor(0), sg.tensor([2]), { reduction: 'none' });
  assert.deepEqual(one.shape, [1]);
  close(one.toArray(), [0.5965736], 1e-6);
  throwsWith(() => F.gaussianNllLoss(sg.tensor(1), sg.tensor(0), sg.tensor([2, 2])), 'gaussianNllLoss: var is of incorrect size [2] (expected input\'s shape [], or');
  for (const bad of [[3], [2, 2], [3, 1], [2, 1, 1], [1, 2, 3]]) {
    throwsWith(() => F.gaussianNllLoss(x, y, sg.ones(bad)),
      `gaussianNllLoss: var is of incorrect size [${bad.join(', ')}] (expected input's shape [2, 3], or it without the last dim, or with a last dim of 1)`);
  }
}));

test('softMarginLoss and multiMarginLoss: a disposed tensor refused as an input and as a target', () => sg.tidy(() => {
  const x = sg.zeros([2, 3]);
  throwsWith(() => F.softMarginLoss(gone(), x), /^softMarginLoss: expected 'input' to be a Tensor, got /);
  throwsWith(() => F.softMarginLoss(x, 'y'), "softMarginLoss: expected 'target' to be a Tensor, got 'y'");
  throwsWith(() => F.multiMarginLoss(x, gone()), /^multiMarginLoss: expected 'target' to be an int32 Tensor, got /);
  throwsWith(() => F.multiMarginLoss(x, [0, 1]), "multiMarginLoss: expected 'target' to be an int32 Tensor, got [0, 1]");
  assert.equal(F.multiMarginLoss(x, sg.tensor([0, 1], { dtype: 'int32' })).ndim, 0);
}));

test('Unflatten: sizes an array of integers, >= -1 with at most one -1; the product must equal (or, with -1, divide) the dim', () => sg.tidy(() => {
  const x = sg.ones([1, 6]);
  throwsWith(() => new sg.nn.Unflatten(1, 6), "Unflatten: expected 'unflattenedSize' to be an array of integers, got 6");
  throwsWith(() => new sg.nn.Unflatten(1, [2, 1.5]), "Unflatten: expected 'unflattenedSize' to be an array of integers, got [2, 1.5]");
  throwsWith(() => new sg.nn.Unflatten(1, [-2, 3]), "Unflatten: expected 'unflattenedSize' to hold sizes >= 0 and at most one -1, got [-2, 3]");
  throwsWith(() => new sg.nn.Unflatten(1, [-1, -1]), "Unflatten: expected 'unflattenedSize' to hold sizes >= 0 and at most one -1, got [-1, -1]");
  assert.deepEqual(new sg.nn.Unflatten(1, [-1, 3]).forward(x).shape, [1, 2, 3]);
  assert.deepEqual(new sg.nn.Unflatten(1, [2, 3]).forward(x).shape, [1, 2, 3]);
  assert.deepEqual(new sg.nn.Unflatten(1, [0, 2]).forward(sg.ones([1, 0])).shape, [1, 0, 2]);
  throwsWith(() => new sg.nn.Unflatten(1, [0, -1]).forward(x),
    'Unflatten: sizes [0, -1] with one -1, the others multiply to 0, which does not divide the size of dim 1 of the input (6, input shape [1, 6])');
  throwsWith(() => new sg.nn.Unflatten(1, [4, -1]).forward(x),
    'Unflatten: sizes [4, -1] with one -1, the others multiply to 4, which does not divide the size of dim 1 of the input (6, input shape [1, 6])');
  throwsWith(() => new sg.nn.Unflatten(1, [2, 2]).forward(x),
    'Unflatten: sizes [2, 2] multiply to 4, expected the size of dim 1 of the input (6, input shape [1, 6])');
}));

test('embeddingBag: input dtype and rank each alone; perSampleWeights of input shape; offsets missing, float, 2-D refused', () => sg.tidy(() => {
  const w = sg.ones([4, 2]);
  const i32 = (v) => sg.tensor(v, { dtype: 'int32' });
  const inMsg = /^embeddingBag: expected 'input' to be a 1-D or 2-D int32 Tensor of indices, got /;
  throwsWith(() => F.embeddingBag(sg.tensor([0, 1]), w, { offsets: i32([0]) }), inMsg, 'float32');
  throwsWith(() => F.embeddingBag(i32([[[0]]]), w), inMsg, '[1, 1, 1]');
  throwsWith(() => F.embeddingBag(i32(0), w), inMsg);
  throwsWith(() => F.embeddingBag([0, 1], w), "embeddingBag: expected 'input' to be a 1-D or 2-D int32 Tensor of indices, got [0, 1]");
  assert.deepEqual(F.embeddingBag(i32([[0, 1]]), w).shape, [1, 2]);
  assert.deepEqual(F.embeddingBag(i32([0, 1, 2]), w, { offsets: i32([0, 1]) }).shape, [2, 2]);
  assert.deepEqual(F.embeddingBag(i32([[0, 1]]), w, { mode: 'sum', perSampleWeights: sg.ones([1, 2]) }).shape, [1, 2]);
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), w, { mode: 'sum', perSampleWeights: sg.ones([2]) }),
    "embeddingBag: expected perSampleWeights of input's shape [1, 2], got [2]");
  const offMsg = /^embeddingBag: a 1-D input needs 'offsets', a 1-D int32 Tensor of bag starts, got /;
  throwsWith(() => F.embeddingBag(i32([0, 1]), w), offMsg);
  throwsWith(() => F.embeddingBag(i32([0, 1]), w, { offsets: sg.tensor([0]) }), offMsg, 'float32');
  throwsWith(() => F.embeddingBag(i32([0, 1]), w, { offsets: i32([[0]]) }), offMsg, '[1, 1]');
}));
