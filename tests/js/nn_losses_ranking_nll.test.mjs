// sg.F.tripletMarginLoss, marginRankingLoss, hingeEmbeddingLoss, multilabelSoftMarginLoss,
// poissonNllLoss, gaussianNllLoss and sigmoidFocalLoss (torchvision's) and their nn module
// classes: values and gradients against PyTorch 1.13 / torchvision 0.14 (tests/data/
// losses_ranking_nll_ref.json from gen_losses_ranking_nll.py), central-difference gradient checks, closed
// forms, and argument errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';
import { closeTo, fromRef, gradcheck, lcg, readRef } from './gradcheck_helpers.mjs';

const ref = readRef('losses_ranking_nll_ref.json');
const { F, nn } = sg;
const TOL = 2e-6;

/** sg.F's call for a reference case (options camelCase, multilabel's weight as an option). */
function call(c, args) {
  const options = { ...c.options };
  if (c.weight) options.weight = fromRef(c.weight);
  return F[c.fn](...args, options);
}

for (const c of ref.cases) {
  test(`${c.fn} (${c.name}): value and gradients match PyTorch`, () => {
    sg.tidy(() => {
      const args = c.args.map((a, i) => fromRef(a, { requiresGrad: String(i) in c.grads }));
      const out = call(c, args);
      closeTo(out, c.result, TOL, 'result');
      out.mul(fromRef(c.r)).sum().backward();
      for (const [i, g] of Object.entries(c.grads)) closeTo(args[Number(i)].grad, g, TOL, `gradient of argument ${i}`);
    });
  });
}

test('the module classes call their F function with their options', () => {
  sg.tidy(() => {
    const pick = (fn, name) => ref.cases.find((c) => c.fn === fn && (!name || c.name === name));
    const modules = [
      [new nn.TripletMarginLoss({ p: 1, margin: 0.5, swap: true }), pick('tripletMarginLoss', 'triplet p=1 margin 0.5 swap')],
      [new nn.MarginRankingLoss({ margin: 0.3, reduction: 'sum' }), pick('marginRankingLoss', 'margin ranking sum')],
      [new nn.HingeEmbeddingLoss({ margin: 2 }), pick('hingeEmbeddingLoss', 'hinge embedding margin 2 with labels other than ±1')],
      [new nn.PoissonNLLLoss({ logInput: false, full: true, reduction: 'sum' }), pick('poissonNllLoss', 'poisson rates full sum')],
      [new nn.GaussianNLLLoss({ full: true, reduction: 'sum' }), pick('gaussianNllLoss', 'gaussian one variance per sample full sum')],
    ];
    for (const [m, c] of modules) closeTo(m.forward(...c.args.map((a) => fromRef(a))), c.result, TOL, m.constructor.name);
    const w = ref.cases.find((c) => c.name === 'multilabel soft margin weighted');
    const ml = new nn.MultiLabelSoftMarginLoss({ weight: fromRef(w.weight) });
    assert.deepEqual(Object.keys(ml.stateDict()), ['weight']);
    closeTo(ml.forward(...w.args.map((a) => fromRef(a))), w.result, TOL, 'MultiLabelSoftMarginLoss');
    assert.equal(String(new nn.TripletMarginLoss({ margin: 2 })), 'TripletMarginLoss()'); // PyTorch 1.13's losses print no settings
  });
});

test('gradcheck: every loss by central differences', () => {
  const t = (seed, shape, lo = -1, hi = 1) => ({ shape, data: lcg(seed, shape.reduce((a, b) => a * b, 1), lo, hi) });
  const labels = sg.tensor([[1, 0, 1], [0, 0, 1]]);
  const signs = sg.tensor([[1, -1, 1], [-1, 1, -1]]);
  gradcheck('tripletMarginLoss', (a, p, n) => F.tripletMarginLoss(a, p, n, { swap: true, reduction: 'none' }), [t(1, [2, 3]), t(2, [2, 3]), t(3, [2, 3])]);
  gradcheck('marginRankingLoss', (a, b) => F.marginRankingLoss(a, b, signs, { margin: 0.1, reduction: 'none' }), [t(4, [2, 3]), t(5, [2, 3])]);
  gradcheck('hingeEmbeddingLoss', (x) => F.hingeEmbeddingLoss(x, signs, { reduction: 'none' }), [t(6, [2, 3], -2, 2)]);
  gradcheck('multilabelSoftMarginLoss', (x) => F.multilabelSoftMarginLoss(x, labels, { reduction: 'none' }), [t(7, [2, 3], -3, 3)]);
  gradcheck('poissonNllLoss', (x) => F.poissonNllLoss(x, signs.add(2), { reduction: 'none' }), [t(8, [2, 3])]);
  gradcheck('poissonNllLoss rates', (x) => F.poissonNllLoss(x, signs.add(2), { logInput: false, reduction: 'none' }), [t(9, [2, 3], 0.5, 2)]);
  gradcheck('gaussianNllLoss', (x, y, v) => F.gaussianNllLoss(x, y, v, { reduction: 'none' }), [t(10, [2, 3]), t(11, [2, 3]), t(12, [2, 1], 0.5, 1.5)]);
  gradcheck('sigmoidFocalLoss', (x, y) => F.sigmoidFocalLoss(x, y), [t(13, [2, 3], -3, 3), t(14, [2, 3], 0, 1)]);
  sg.dispose([labels, signs]);
});

test('closed forms: simple values computed by hand', () => {
  sg.tidy(() => {
    // d(a, p) = ‖(0, 0) − (3, 4) + eps‖ ≈ 5, d(a, n) = ‖(0,0) − (0, 1) + eps‖ ≈ 1: max(5 − 1 + 1, 0) = 5
    close(F.tripletMarginLoss(sg.tensor([[0, 0]]), sg.tensor([[3, 4]]), sg.tensor([[0, 1]]), { eps: 0 }).item(), 5, 1e-6);
    close(F.marginRankingLoss(sg.tensor([1, 2]), sg.tensor([2, 1]), sg.tensor([1, 1]), { reduction: 'none' }).toArray(), [1, 0], 1e-7);
    close(F.hingeEmbeddingLoss(sg.tensor([0.3, 0.3, 2]), sg.tensor([1, -1, -1]), { reduction: 'none' }).toArray(), [0.3, 0.7, 0], 1e-7);
    // y = 1, x = 0: −log σ(0) = log 2 per class
    close(F.multilabelSoftMarginLoss(sg.zeros([2, 3]), sg.ones([2, 3])).item(), Math.LN2, 1e-7);
    close(F.poissonNllLoss(sg.tensor([0]), sg.tensor([3])).item(), 1, 1e-7); // e^0 − 3·0
    close(F.gaussianNllLoss(sg.tensor([1]), sg.tensor([3]), sg.tensor([2])).item(), 0.5 * (Math.log(2) + 2), 1e-6);
    // p = σ(0) = ½ for a positive: ce = log 2, (1 − ½)² = ¼, α = 0.25
    close(F.sigmoidFocalLoss(sg.tensor([0]), sg.tensor([1])).item(), 0.25 * 0.25 * Math.LN2, 1e-7);
  });
});

test('bad arguments name the loss, the argument, what was expected and what was got', () => {
  sg.tidy(() => {
    const x = sg.zeros([2, 3]);
    throwsWith(() => F.tripletMarginLoss(x, x, sg.zeros([2, 3, 1])), 'tripletMarginLoss', 'all 1-D or all 2-D', 'negative [2, 3, 1]');
    throwsWith(() => F.tripletMarginLoss(x, x, sg.zeros([2, 4])), 'tripletMarginLoss', 'not broadcastable', "'negative' [2, 4]");
    throwsWith(() => F.tripletMarginLoss(x, x, x, { p: 0 }), 'tripletMarginLoss', "'p'", 'positive', 'got 0');
    throwsWith(() => F.marginRankingLoss(x, x, sg.zeros([3])), 'marginRankingLoss', 'same number of dims', 'target [3]');
    throwsWith(() => F.marginRankingLoss(x, x, [1, -1]), 'marginRankingLoss', "'target' to be a Tensor", '[1, -1]');
    throwsWith(() => F.hingeEmbeddingLoss(x, sg.zeros([4])), 'hingeEmbeddingLoss', 'not broadcastable');
    throwsWith(() => F.multilabelSoftMarginLoss(x, sg.zeros([2])), 'multilabelSoftMarginLoss', 'same shape', 'target [2]');
    throwsWith(() => F.multilabelSoftMarginLoss(x, x, { weight: sg.zeros([4]) }), 'multilabelSoftMarginLoss', 'not broadcastable', "'weight' [4]");
    throwsWith(() => F.poissonNllLoss(x, x, { logInput: 1 }), 'poissonNllLoss', "'logInput'", 'boolean', 'got 1');
    throwsWith(() => F.gaussianNllLoss(x, x, sg.zeros([3])), 'gaussianNllLoss', 'var is of incorrect size [3]');
    throwsWith(() => F.gaussianNllLoss(x, x, sg.full([2, 3], -1)), 'gaussianNllLoss', 'var has negative entry');
    throwsWith(() => F.sigmoidFocalLoss(x, sg.zeros([3])), 'sigmoidFocalLoss', 'same shape');
    throwsWith(() => F.sigmoidFocalLoss(x, x, { reduction: 'avg' }), 'sigmoidFocalLoss', "'reduction'", "'avg'");
    throwsWith(() => F.sigmoidFocalLoss(x, sg.zeros([2, 3], { dtype: 'int32' })), 'sigmoidFocalLoss', "'targets' to be float32", 'int32');
    throwsWith(() => new nn.GaussianNLLLoss({ eps: '1' }), 'GaussianNLLLoss', "'eps'", "'1'");
  });
});

test('poissonNllLoss names its operands in shape and dtype errors', () => {
  sg.tidy(() => {
    throwsWith(() => sg.F.poissonNllLoss(sg.zeros([2, 3]), sg.zeros([4])), "poissonNllLoss: the shapes of 'input' [2, 3], 'target' [4] are not broadcastable");
    throwsWith(() => sg.F.poissonNllLoss(sg.zeros([2], { dtype: 'int32' }), sg.zeros([2])), "poissonNllLoss: expected 'input' to be float32, got int32");
    throwsWith(() => sg.F.poissonNllLoss(sg.zeros([2]), sg.zeros([2], { dtype: 'int32' })), "poissonNllLoss: expected 'target' to be float32, got int32");
  });
});
