// sg.func.vmap batching rules no other file reaches, against hand-computed per-sample values (the
// meaning of vmap, as torch.func.vmap: the function applied to each slice): the elementwise
// losses (mseLoss, l1Loss, smoothL1Loss, huberLoss, binaryCrossEntropy(WithLogits), klDiv) with
// every reduction and per-sample gradients through them (they recursed without end before);
// repeat / tile, sort / topk without a dim, argmax with a dim, an in-place op on a batched
// tensor; the random rules (rand / randn / randint / dropout per sample, none for p 0 or eval mode,
// bernoulli with a batched or unbatched probability, dropout2d on 3-D and 4-D samples,
// multinomial's missing rule). No fallback loop is announced for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg } from './helpers.mjs';

const V = sg.func.vmap;
const F = sg.F;

/** Runs fn with console.warn captured; returns [result, warnings]. */
function quiet(fn) {
  const seen = [];
  const orig = console.warn;
  console.warn = (...a) => seen.push(a.join(' '));
  try {
    return [fn(), seen];
  } finally {
    console.warn = orig;
  }
}

test('vmap of the elementwise losses: per-sample values for reduction mean, sum, none, batchmean', () => {
  const live = sg.memory().tensors, handles = sg.memory().handles;
  sg.tidy(() => {
    const x = sg.tensor([[1, 2], [3, 4], [0, -1]]), y = sg.tensor([[0, 1], [1, 1], [2, 2]]);
    const [r, warned] = quiet(() => ({
      // differences [1, 1], [2, 3], [-2, -3]
      mse: V((a, b) => F.mseLoss(a, b))(x, y).toArray(),
      mseSum: V((a, b) => F.mseLoss(a, b, { reduction: 'sum' }))(x, y).toArray(),
      mseNone: V((a, b) => F.mseLoss(a, b, { reduction: 'none' }))(x, y).toArray(),
      l1: V((a, b) => F.l1Loss(a, b))(x, y).toArray(),
      smoothL1: V((a, b) => F.smoothL1Loss(a, b))(x, y).toArray(),
      huber: V((a, b) => F.huberLoss(a, b, { delta: 2 }))(x, y).toArray(),
      // a broadcast, unmapped target
      bcast: V((a, b) => F.mseLoss(a, b, { reduction: 'sum' }), { inDims: [0, null] })(x, sg.tensor([1, 1])).toArray(),
      bce: V((a, b) => F.binaryCrossEntropy(a, b))(sg.tensor([[0.5, 0.25], [0.9, 0.1]]), sg.tensor([[1, 0], [0, 1]])).toArray(),
      bcel: V((a, b) => F.binaryCrossEntropyWithLogits(a, b, { reduction: 'sum' }))(x, sg.tensor([[1, 0], [0, 1], [1, 1]])).toArray(),
      kl: V((a, b) => F.klDiv(a, b, { reduction: 'batchmean' }))(sg.tensor([[[0, -1], [-2, 0]], [[1, 1], [0, 0]]]), sg.tensor([[[1, 2], [2, 1]], [[1, 1], [3, 1]]])).toArray(),
    }));
    assert.deepEqual(warned, [], 'no loss fell back to the loop');
    close(r.mse, [1, 6.5, 6.5], 1e-6);
    assert.deepEqual(r.mseSum, [2, 13, 13]);
    assert.deepEqual(r.mseNone, [[1, 1], [4, 9], [4, 9]]);
    close(r.l1, [1, 2.5, 2.5], 1e-6);
    // beta 1: |d| < 1 -> d²/2, else |d| - 1/2
    close(r.smoothL1, [0.5, 2, 2], 1e-6);
    // delta 2: |d| <= 2 -> d²/2, else 2(|d| - 1)
    close(r.huber, [0.5, 3, 3], 1e-6);
    // x - 1: [0, 1], [2, 3], [-1, -2]
    assert.deepEqual(r.bcast, [1, 13, 5]);
    close(r.bce, [-(Math.log(0.5) + Math.log(0.75)) / 2, -2 * Math.log(0.1) / 2], 1e-5);
    const bcel = (v, t) => Math.max(v, 0) - v * t + Math.log1p(Math.exp(-Math.abs(v)));
    close(r.bcel, [bcel(1, 1) + bcel(2, 0), bcel(3, 0) + bcel(4, 1), bcel(0, 1) + bcel(-1, 1)], 1e-5);
    // batchmean: sum(t · (log t − input)) / input.size(0), per sample (size(0) = 2)
    const kl = (inp, t) => inp.flat().reduce((s, v, i) => s + t.flat()[i] * (Math.log(t.flat()[i]) - v), 0) / 2;
    close(r.kl, [kl([[0, -1], [-2, 0]], [[1, 2], [2, 1]]), kl([[1, 1], [0, 0]], [[1, 1], [3, 1]])], 1e-5);
  });
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
  assert.equal(sg.memory().handles, handles, 'no handle left behind (the per-element losses are released)');
});

test('vmap(grad) through mseLoss: per-sample gradients d/dw mean((x·w − y)²) = (x·w − y)·x (hand-computed)', () => {
  const live = sg.memory().tensors, handles = sg.memory().handles;
  sg.tidy(() => {
    const x = sg.tensor([[1, 2], [3, 4], [0, -1]]), y = sg.tensor([[0, 1], [1, 1], [2, 2]]), w = sg.tensor([0.5, -1]);
    const f = (wt, xi, yi) => F.mseLoss(xi.mul(wt), yi);
    const g = V(sg.func.grad(f), { inDims: [null, 0, 0] })(w, x, y);
    // residuals [0.5, -3], [0.5, -5], [-2, -1]
    close(g.toArray(), [[0.5, -6], [1.5, -20], [0, 1]], 1e-6);
  });
  assert.equal(sg.memory().tensors, live);
  assert.equal(sg.memory().handles, handles);
});

test('vmap of repeat, tile, sort, topk, argmax(dim) and an in-place op on a batched tensor', () => {
  sg.tidy(() => {
    const A = sg.tensor([[[1, 5, 3], [4, 2, 6]], [[9, 7, 8], [0, -1, 2]]]);
    const [r, warned] = quiet(() => ({
      repeat: V((a) => a.repeat([2, 1]))(A).toArray(),
      repeat3: V((a) => a.repeat([1, 2, 1]))(A).shape,
      tile: V((a) => a.tile([2]))(A).toArray(),
      sort: V((a) => a.sort())(A).map((t) => t.toArray()),
      topk: V((a) => a.topk(2))(A).map((t) => t.toArray()),
      argmax: V((a) => a.argmax(1))(A).toArray(),
      argminNeg: V((a) => a.argmin(-2))(A).toArray(),
      inplace: V((a) => a.clone().mul_(2).add_(1))(A).toArray(),
    }));
    assert.deepEqual(warned, []);
    assert.deepEqual(r.repeat, [[[1, 5, 3], [4, 2, 6], [1, 5, 3], [4, 2, 6]], [[9, 7, 8], [0, -1, 2], [9, 7, 8], [0, -1, 2]]]);
    assert.deepEqual(r.repeat3, [2, 1, 4, 3]);
    assert.deepEqual(r.tile, [[[1, 5, 3, 1, 5, 3], [4, 2, 6, 4, 2, 6]], [[9, 7, 8, 9, 7, 8], [0, -1, 2, 0, -1, 2]]]);
    assert.deepEqual(r.sort, [[[[1, 3, 5], [2, 4, 6]], [[7, 8, 9], [-1, 0, 2]]], [[[0, 2, 1], [1, 0, 2]], [[1, 2, 0], [1, 0, 2]]]]);
    assert.deepEqual(r.topk, [[[[5, 3], [6, 4]], [[9, 8], [2, 0]]], [[[1, 2], [2, 0]], [[0, 2], [2, 0]]]]);
    assert.deepEqual(r.argmax, [[1, 2], [0, 2]]);
    assert.deepEqual(r.argminNeg, [[0, 1, 0], [1, 1, 1]]);
    assert.deepEqual(r.inplace, [[[3, 11, 7], [9, 5, 13]], [[19, 15, 17], [1, -1, 5]]]);
  });
});

test("vmap randomness rules: bernoulli of a batched or unbatched probability, dropout2d per channel, multinomial's missing rule", () => {
  const handles = sg.memory().handles;
  sg.tidy(() => {
    const p = sg.tensor([[0, 1, 1], [1, 0, 0]]);
    // Probabilities 0 and 1 draw themselves: per sample, whatever the stream.
    assert.deepEqual(V((q) => sg.bernoulli(q), { randomness: 'different' })(p).toArray(), [[0, 1, 1], [1, 0, 0]]);
    assert.throws(() => V((q) => sg.bernoulli(q), { randomness: 'same' })(p), { message: "vmap: bernoulli of a batched probability needs randomness 'different'" });
    // An unbatched probability with 'different': one draw per sample, batched.
    const drawn = V((q) => q.add(sg.bernoulli(sg.tensor([1, 0, 1]))), { randomness: 'different' })(p);
    assert.deepEqual(drawn.toArray(), [[1, 1, 2], [2, 0, 1]]);
    assert.throws(() => V((q) => sg.multinomial(q, 1), { randomness: 'different' })(p), { message: 'vmap: multinomial draws random numbers and has no batching rule' });
    // dropout2d of [C, H, W] and [N, C, H, W] samples: each channel all 0 or all 1/(1 − p) = 2.
    sg.manualSeed(3);
    for (const shape of [[6, 4, 2, 2], [3, 2, 4, 2, 2]]) {
      const [y, warned] = quiet(() => V((t) => F.dropout2d(t, 0.5), { randomness: 'different' })(sg.ones(shape)));
      assert.deepEqual(warned, [], `dropout2d ${shape}: no fallback`);
      assert.deepEqual(y.shape, shape);
      const chans = y.reshape([-1, 4]).toArray();
      for (const c of chans) assert.ok(c.every((v) => v === c[0]) && (c[0] === 0 || c[0] === 2), `dropout2d ${shape}: channel ${c}`);
      const vals = chans.map((c) => c[0]);
      assert.ok(vals.includes(0) && vals.includes(2), `dropout2d ${shape}: some channels dropped, some kept`);
      if (shape.length === 5) {
        // [N, C, H, W] samples: each of the N items draws its own channel mask (24 channels: the
        // chance that all three samples' two items agree is 16^-3).
        const masks = y.select(-1, 0).select(-1, 0).toArray(); // [3, N=2, C=4]
        assert.ok(masks.some(([m0, m1]) => m0.some((v, c) => v !== m1[c])), 'the N items of a sample differ somewhere');
      }
      // 'same': every sample draws the same channel mask
      const same = V((t) => F.dropout2d(t, 0.5), { randomness: 'same' })(sg.ones(shape)).toArray();
      for (const s of same) assert.deepEqual(s, same[0]);
    }
    // 2-D samples: the loop runs dropout2d per sample, which refuses them as it does outside vmap.
    const [err] = quiet(() => {
      try {
        V((t) => F.dropout2d(t, 0.5), { randomness: 'different' })(sg.ones([2, 3, 2]));
      } catch (e) {
        return e;
      }
    });
    assert.equal(err?.message, 'dropout2d: expected an input of shape [N, C, H, W] or [C, H, W], got [3, 2]');
  });
  assert.equal(sg.memory().handles, handles, 'the masks and their ones are released');
});

test("vmap randomness: rand, randn, randint draw per sample with 'different'; dropout with p 0 or in eval mode draws nothing", () => {
  sg.tidy(() => {
    const z = sg.zeros([3, 4]);
    sg.manualSeed(9);
    const rows = (t) => t.toArray().map((r) => JSON.stringify(r));
    const u = V((r) => r.add(sg.rand([4])), { randomness: 'different' })(z);
    assert.deepEqual(u.shape, [3, 4]);
    assert.ok(u.toArray().flat().every((v) => v >= 0 && v < 1));
    assert.equal(new Set(rows(u)).size, 3, 'rand: each sample its own');
    const n = V((r) => r.add(sg.randn([4])), { randomness: 'different' })(z);
    assert.equal(new Set(rows(n)).size, 3, 'randn: each sample its own');
    const k = V((r) => r.add(sg.randint(0, 1000, [4])), { randomness: 'different' })(z);
    assert.ok(k.toArray().flat().every((v) => Number.isInteger(v) && v >= 0 && v < 1000));
    assert.equal(new Set(rows(k)).size, 3, 'randint: each sample its own');
    const d = V((r) => F.dropout(r, 0.5), { randomness: 'different' })(sg.ones([3, 64]));
    assert.ok(d.toArray().flat().every((v) => v === 0 || v === 2));
    assert.equal(new Set(rows(d)).size, 3, 'dropout: each sample its own mask');
    // No random numbers (randomness 'error' does not object): p = 0, or not training.
    const x = sg.tensor([[1, 2], [3, 4]]);
    assert.deepEqual(V((r) => F.dropout(r, 0))(x).toArray(), [[1, 2], [3, 4]]);
    assert.deepEqual(V((r) => F.dropout(r, 0.5, false))(x).toArray(), [[1, 2], [3, 4]]);
    const x4 = sg.ones([2, 3, 2, 2]);
    assert.deepEqual(V((r) => F.dropout2d(r, 0.5, false))(x4).toArray(), x4.toArray());
    assert.deepEqual(V((r) => F.dropout2d(r, 0))(x4).toArray(), x4.toArray());
  });
});
