// The activations, losses, unfold/fold, affineGrid/gridSample and convTranspose1d of
// npm/src/nn/{activation_more,loss_more,unfold,grid_sample}.ts and their modules, against
// PyTorch 1.13 (tests/data/nn_activation_fold_grid_ref.json, from gen_nn_activation_fold_grid.py): values and the gradients of
// Σ out·upstream on every backend; central-difference gradient checks; modules = F; errors;
// inside sg.compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { gradcheck, readRef, gradInput } from './gradcheck_helpers.mjs';
import { checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';

const REF = readRef('nn_activation_fold_grid_ref.json');
const F = () => sg.F;

const CALLS = {
  hardshrink: (x) => F().hardshrink(x),
  'hardshrink lambd': (x) => F().hardshrink(x, 1.2),
  'hardshrink special': (x) => F().hardshrink(x),
  softshrink: (x) => F().softshrink(x),
  'softshrink lambd': (x) => F().softshrink(x, 0.3),
  'softshrink special': (x) => F().softshrink(x),
  tanhshrink: (x) => F().tanhshrink(x),
  celu: (x) => F().celu(x),
  'celu alpha': (x) => F().celu(x, 0.5),
  threshold: (x) => F().threshold(x, 0.1, 20),
  'threshold grad': (x) => F().threshold(x, 0.1, 20),
  'rrelu eval': (x) => F().rrelu(x),
  'rrelu eval bounds': (x) => F().rrelu(x, { lower: 0.2, upper: 0.6 }),
  softmax2d: (x) => new sg.nn.Softmax2d()(x),
  softMarginLoss: (x, y) => F().softMarginLoss(x, y),
  'softMarginLoss none': (x, y) => new sg.nn.SoftMarginLoss({ reduction: 'none' })(x, y),
  multiMarginLoss: (x, y) => F().multiMarginLoss(x, y),
  'multiMarginLoss p2 margin weight': (x, y, w) => F().multiMarginLoss(x, y, { p: 2, margin: 0.7, weight: w, reduction: 'none' }),
  'multiMarginLoss single sum': (x, y) => F().multiMarginLoss(x, y, { reduction: 'sum' }),
  multilabelMarginLoss: (x, y) => new sg.nn.MultiLabelMarginLoss()(x, y),
  'multilabelMarginLoss none': (x, y) => F().multilabelMarginLoss(x, y, { reduction: 'none' }),
  'multilabelMarginLoss single': (x, y) => F().multilabelMarginLoss(x, y),
  tripletMarginWithDistanceLoss: (a, p, n) => F().tripletMarginWithDistanceLoss(a, p, n),
  'tripletMarginWithDistanceLoss cosine swap': (a, p, n) => new sg.nn.TripletMarginWithDistanceLoss({
    distanceFunction: (x, y) => sg.sub(1, F().cosineSimilarity(x, y)), margin: 0.5, swap: true, reduction: 'none',
  })(a, p, n),
  unfold: (x) => F().unfold(x, [2, 3], { dilation: [1, 2], padding: 1, stride: [2, 1] }),
  'unfold unbatched': (x) => new sg.nn.Unfold(2)(x),
  fold: (x) => F().fold(x, [5, 6], [2, 3], { dilation: [1, 2], padding: 1, stride: [2, 1] }),
  'fold unbatched overlap': (x) => new sg.nn.Fold(4, 2)(x),
  affineGrid: (t) => F().affineGrid(t, [2, 3, 4, 5]),
  'affineGrid alignCorners': (t) => F().affineGrid(t, [2, 1, 3, 2], { alignCorners: true }),
  'convTranspose1d': (x, w, b) => F().convTranspose1d(x, w, b, { stride: 2, padding: 1, outputPadding: 1, dilation: 2 }),
  'convTranspose1d groups unbatched': (x, w) => F().convTranspose1d(x, w, null, { groups: 2 }),
  'maxPool2d indices': (x) => F().maxPool2d(x, 3, { stride: 2, padding: 1, ceilMode: true, returnIndices: true }),
  'maxPool2d indices dilation': (x) => new sg.nn.MaxPool2d([2, 3], { stride: [1, 2], dilation: [2, 1], returnIndices: true })(x),
  'maxPool1d indices unbatched': (x) => F().maxPool1d(x, 2, { returnIndices: true }),
  adaptiveMaxPool2d: (x) => new sg.nn.AdaptiveMaxPool2d([3, 4], { returnIndices: true })(x),
  'adaptiveMaxPool2d keep dim': (x) => F().adaptiveMaxPool2d(x, [null, 2]),
  adaptiveMaxPool1d: (x) => F().adaptiveMaxPool1d(x, 4, { returnIndices: true }),
  maxUnpool2d: (x, i) => new sg.nn.MaxUnpool2d(2)(x, i),
  'maxUnpool2d outputSize': (x, i) => F().maxUnpool2d(x, i, 2, { outputSize: [7, 6] }),
  maxUnpool1d: (x, i) => F().maxUnpool1d(x, i, 3, { stride: 2 }),
  'embeddingBag mean': (w, i, o) => F().embeddingBag(i, w, { offsets: o }),
  'embeddingBag sum weights': (w, i, o, p) => F().embeddingBag(i, w, { offsets: o, mode: 'sum', perSampleWeights: p }),
  'embeddingBag max padding': (w, i, o) => F().embeddingBag(i, w, { offsets: o, mode: 'max', paddingIdx: 4 }),
  'embeddingBag mean padding last offset': (w, i, o) => F().embeddingBag(i, w, { offsets: o, paddingIdx: 2, includeLastOffset: true }),
  'embeddingBag 2d sum': (w, i) => F().embeddingBag(i, w, { mode: 'sum' }),
  'embeddingBag 2d max padding': (w, i) => F().embeddingBag(i, w, { mode: 'max', paddingIdx: 5 }),
  'embeddingBag 2d mean padding': (w, i) => F().embeddingBag(i, w, { paddingIdx: 3 }),
  ctcLoss: (x, y) => F().ctcLoss(x.logSoftmax(-1), y, [7, 6, 7], [3, 4, 0]),
  'ctcLoss sum blank': (x, y) => new sg.nn.CTCLoss({ blank: 4, reduction: 'sum' })(x.logSoftmax(-1), y, sg.tensor([7, 6, 7], { dtype: 'int32', device: 'cpu' }), [3, 4, 0]),
  'ctcLoss concatenated none': (x, y) => F().ctcLoss(x.logSoftmax(-1), y, [7, 6, 7], [3, 4, 0], { reduction: 'none' }),
  'ctcLoss infinite': (x, y) => F().ctcLoss(x.logSoftmax(-1), y, [2, 7], [3, 2], { reduction: 'none' }),
  'ctcLoss zeroInfinity': (x, y) => F().ctcLoss(x.logSoftmax(-1), y, [2, 7], [3, 2], { zeroInfinity: true }),
  'ctcLoss unbatched': (x, y) => F().ctcLoss(x.logSoftmax(-1), y, 6, 2),
  batchNorm3d: (x, w, b) => F().batchNorm(x, null, null, w, b, { training: true }),
  instanceNorm3d: (x) => new sg.nn.InstanceNorm3d(3)(x),
  localResponseNorm: (x) => new sg.nn.LocalResponseNorm(3, { alpha: 0.2, beta: 0.8, k: 1.5 })(x),
  'localResponseNorm 3d even': (x) => F().localResponseNorm(x, 4),
  lpPool2d: (x) => new sg.nn.LPPool2d(2, 2)(x),
  'lpPool1d stride': (x) => F().lpPool1d(x, 3, 3, { stride: 2 }),
  channelShuffle: (x) => new sg.nn.ChannelShuffle(3)(x),
  'channelShuffle groups 2': (x) => F().channelShuffle(x, 2),
  constantPad3d: (x) => new sg.nn.ConstantPad3d([1, 0, 2, 1, 0, 1], 0.5)(x),
  reflectionPad3d: (x) => new sg.nn.ReflectionPad3d(1)(x),
  replicationPad3d: (x) => new sg.nn.ReplicationPad3d([0, 2, 1, 0, 1, 1])(x),
  padSequence: (a, b, c) => sg.nn.utils.rnn.padSequence([a, b, c]),
  'padSequence batchFirst value': (a, b) => sg.nn.utils.rnn.padSequence([a, b], { batchFirst: true, paddingValue: -1.5 }),
};
for (const mode of ['bilinear', 'nearest']) {
  for (const pad of ['zeros', 'border', 'reflection']) {
    for (const align of [false, true]) {
      CALLS[`gridSample ${mode} ${pad} ${align ? 'True' : 'False'}`] = (x, g) => F().gridSample(x, g, { mode, paddingMode: pad, alignCorners: align });
    }
  }
}

// Composed in another order than ATen's fused kernels (a gradient sums the same terms in
// another order; the grid's bilinear weights are products of differences): a few ulps.
const TOLERANCE = (id) => (id.startsWith('gridSample') || id.startsWith('affineGrid') || id.startsWith('convTranspose1d') ? 1e-5 : undefined);

test('every function equals PyTorch 1.13: values, special values and gradients', () => {
  checkRefCases(REF, CALLS, TOLERANCE);
});

forEachBackend('the functions equal PyTorch on the backend', async (backend) => {
  // embeddingBag's max mode over offsets reads them synchronously: on a GPU, an Error instead.
  // So does ctcLoss with concatenated targets (it pads them on the CPU).
  const hostOnly = (id) => backend === 'webgpu' && (id === 'embeddingBag max padding' || id === 'ctcLoss concatenated none');
  await checkRefCasesAsync(REF, CALLS, TOLERANCE, hostOnly);
  if (backend !== 'webgpu') return;
  sg.tidy(() => throwsWith(() => F().embeddingBag(sg.tensor([1, 2], { dtype: 'int32' }), sg.randn([3, 2]), { offsets: sg.tensor([0], { dtype: 'int32' }), mode: 'max' }),
    "embeddingBag: mode 'max' with offsets reads the offsets synchronously", 'pass a 2-D input'));
  sg.tidy(() => throwsWith(() => F().ctcLoss(sg.zeros([3, 1, 3]), sg.tensor([1, 2], { dtype: 'int32' }), [3], [2]),
    "ctcLoss: concatenated (1-D) targets are split on the CPU; on 'webgpu' give them padded"));
});

test('central-difference gradient checks', () => {
  const v = gradInput;
  gradcheck('softshrink', (x) => F().softshrink(x, 0.25), [v([6], 1)]);
  gradcheck('celu', (x) => F().celu(x, 0.7), [v([6], 2)]);
  gradcheck('softMarginLoss', (x) => F().softMarginLoss(x, sg.tensor([1, -1, 1])), [v([3], 3)]);
  gradcheck('multiMarginLoss', (x) => F().multiMarginLoss(x, sg.tensor([1, 0], { dtype: 'int32' }), { p: 2 }), [v([2, 3], 4)]);
  gradcheck('multilabelMarginLoss', (x) => F().multilabelMarginLoss(x, sg.tensor([[2, -1, 0], [0, 1, -1]], { dtype: 'int32' })), [v([2, 3], 5)]);
  gradcheck('tripletMarginWithDistanceLoss', (a, p, n) => F().tripletMarginWithDistanceLoss(a, p, n, { swap: true }), [v([2, 3], 6), v([2, 3], 7), v([2, 3], 8)]);
  gradcheck('unfold', (x) => F().unfold(x, 2, { stride: 1, padding: 1 }), [v([1, 2, 3, 3], 9)]);
  gradcheck('fold', (x) => F().fold(x, [3, 3], 2), [v([1, 8, 4], 10)]);
  gradcheck('affineGrid', (t) => F().affineGrid(t, [1, 1, 2, 3]), [v([1, 2, 3], 11)]);
  gradcheck('gridSample bilinear', (x, g) => F().gridSample(x, g, { paddingMode: 'border' }), [v([1, 2, 3, 3], 12), v([1, 2, 2, 2], 13, -0.9, 0.9)], { rtol: 2e-2, atol: 2e-3 });
  gradcheck('gridSample reflection', (x, g) => F().gridSample(x, g, { paddingMode: 'reflection', alignCorners: true }), [v([1, 1, 3, 3], 14), v([1, 2, 2, 2], 15, -1.4, 1.4)], { rtol: 2e-2, atol: 2e-3 });
  gradcheck('adaptiveMaxPool2d', (x) => F().adaptiveMaxPool2d(x, [2, 3]), [v([1, 2, 5, 5], 18)]);
  gradcheck('maxUnpool2d', (x) => F().maxUnpool2d(x, sg.tensor([[[[0, 3], [9, 14]]]], { dtype: 'int32' }), 2), [v([1, 1, 2, 2], 19)]);
  // The true partial derivative in the log-probabilities (PyTorch's adds exp(logProbs), which cancels through a log_softmax).
  gradcheck('ctcLoss', (lp) => F().ctcLoss(lp, sg.tensor([[1, 1], [2, 0]], { dtype: 'int32' }), [4, 3], [2, 1]), [v([4, 2, 3], 20, -3, -0.1)]);
  gradcheck('localResponseNorm', (x) => F().localResponseNorm(x, 2), [v([1, 3, 2], 21)]);
  gradcheck('channelShuffle', (x) => F().channelShuffle(x, 2), [v([1, 4, 2], 22)]);
  gradcheck('lpPool1d', (x) => F().lpPool1d(x, 2, 2), [v([1, 2, 4], 23, 0.2, 1)]);
  gradcheck('convTranspose1d', (x, w) => F().convTranspose1d(x, w, null, { stride: 2 }), [v([1, 2, 3], 16), v([2, 1, 2], 17)]);
});

test('rrelu while training: slopes drawn in [lower, upper], the mean in eval()', () => {
  const x = sg.tensor([-1, -2, -3, -4, 1, 0, 2, -5, -6, -7]);
  const m = new sg.nn.RReLU(0.1, 0.3);
  const y = sg.tidy(() => Array.from(m(x).dataSync()));
  const slopes = y.map((v, i) => v / x.dataSync()[i]);
  [0, 1, 2, 3, 7, 8, 9].forEach((i) => assert.ok(slopes[i] >= 0.1 - 1e-6 && slopes[i] <= 0.3 + 1e-6, `slope ${slopes[i]}`));
  assert.ok(new Set([0, 1, 2, 3, 7, 8, 9].map((i) => slopes[i].toFixed(5))).size > 1, 'different slopes per element');
  assert.deepEqual([y[4], y[5], y[6]], [1, 0, 2]);
  m.eval();
  assert.deepEqual(sg.tidy(() => Array.from(m(sg.tensor([-1, 2])).dataSync())), [Math.fround(-0.2), 2]);
  x.dispose();
});

test('fold(unfold(x)) counts each pixel once per block holding it; modules equal their F', () => {
  const x = sg.rand([1, 2, 4, 4]);
  const [got, want] = sg.tidy(() => {
    const back = F().fold(F().unfold(x, 2, { stride: 1 }), 4, 2, { stride: 1 });
    const counts = F().fold(F().unfold(sg.onesLike(x), 2, { stride: 1 }), 4, 2, { stride: 1 });
    return [Array.from(back.dataSync()), Array.from(x.mul(counts).dataSync())];
  });
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) < 1e-6, `${i}: ${g} vs ${want[i]}`));
  const t = sg.tensor([-1, -0.2, 0.2, 1]);
  const pairs = [
    [new sg.nn.Hardshrink(0.5), (v) => F().hardshrink(v, 0.5)],
    [new sg.nn.Softshrink({ lambd: 0.1 }), (v) => F().softshrink(v, 0.1)],
    [new sg.nn.Tanhshrink(), (v) => F().tanhshrink(v)],
    [new sg.nn.CELU(0.3), (v) => F().celu(v, 0.3)],
    [new sg.nn.Threshold(0, -3), (v) => F().threshold(v, 0, -3)],
  ];
  for (const [m, f] of pairs) assert.deepEqual(sg.tidy(() => Array.from(m(t).dataSync())), sg.tidy(() => Array.from(f(t).dataSync())), m.constructor.name);
  const ct = new sg.nn.ConvTranspose1d(2, 4, 3, { stride: 2, groups: 2 });
  assert.deepEqual(ct.weight.shape, [2, 2, 3]);
  assert.deepEqual(sg.tidy(() => ct(sg.zeros([1, 2, 5])).shape), [1, 4, 11]);
  sg.dispose([x, t, ...ct.parameters()]);
});

test('channel and alpha dropout: whole channels, SELU statistics kept, identity in eval()', () => {
  sg.manualSeed(11);
  sg.tidy(() => {
    const x = sg.ones([2, 6, 5]);
    const y = Array.from(sg.F.dropout1d(x, { p: 0.5 }).dataSync());
    for (let ch = 0; ch < 12; ch++) {
      const row = y.slice(ch * 5, ch * 5 + 5);
      assert.ok(row.every((v) => v === row[0]) && (row[0] === 0 || row[0] === 2), `channel ${ch}: ${row}`);
    }
    const v = Array.from(sg.F.dropout3d(sg.ones([1, 4, 2, 2, 2]), { p: 0.5 }).dataSync());
    for (let ch = 0; ch < 4; ch++) assert.ok(v.slice(ch * 8, ch * 8 + 8).every((e) => e === v[ch * 8]));
    // Alpha dropout of standard normal values keeps mean 0 and variance 1 (20,000 values).
    const z = sg.randn([20000]);
    const a = sg.F.alphaDropout(z, { p: 0.3, training: true });
    assert.ok(Math.abs(a.mean().item()) < 0.03, `mean ${a.mean().item()}`);
    assert.ok(Math.abs(a.var().item() - 1) < 0.05, `variance ${a.var().item()}`);
    const f = Array.from(sg.F.featureAlphaDropout(sg.randn([2, 3, 4]), { p: 0.5, training: true }).sub(0).dataSync());
    assert.equal(f.length, 24);
    const m = new sg.nn.AlphaDropout(0.4);
    m.eval();
    assert.deepEqual(Array.from(m(z.narrow(0, 0, 5)).dataSync()), Array.from(z.narrow(0, 0, 5).dataSync()));
  });
});

test('unpadSequence cuts a padded batch back into its sequences', () => {
  sg.tidy(() => {
    const seqs = [sg.randn([3, 2]), sg.randn([1, 2]), sg.randn([4, 2])];
    for (const batchFirst of [false, true]) {
      const back = sg.nn.utils.rnn.unpadSequence(sg.nn.utils.rnn.padSequence(seqs, { batchFirst }), [3, 1, 4], { batchFirst });
      back.forEach((t, i) => assert.deepEqual(Array.from(t.dataSync()), Array.from(seqs[i].dataSync())));
    }
    throwsWith(() => sg.nn.utils.rnn.padSequence([sg.zeros([2, 3]), sg.zeros([2, 2])]), 'padSequence: expected every sequence to have the trailing dims [3]');
    throwsWith(() => sg.nn.utils.rnn.unpadSequence(sg.zeros([4, 2]), [5, 1]), 'unpadSequence: expected 2 lengths, each an integer in [0, 4]');
  });
});

test('bad arguments are Errors naming them; nothing leaks', () => {
  const x = sg.randn([2, 3]);
  const live = sg.memory().tensors;
  throwsWith(() => sg.tidy(() => F().hardshrink(x, -1)), 'hardshrink', "'lambd'", '>= 0', '-1');
  throwsWith(() => sg.tidy(() => F().celu(x, 0)), 'celu', "'alpha'", 'nonzero', '0');
  throwsWith(() => sg.tidy(() => F().rrelu(x, { lower: 0.5, upper: 0.1 })), 'rrelu: expected lower <= upper');
  throwsWith(() => sg.tidy(() => F().softmax2d(x)), 'softmax2d: expected a 3-D or 4-D input, got shape [2, 3]');
  throwsWith(() => sg.tidy(() => F().softMarginLoss(x, sg.zeros([2]))), 'softMarginLoss', '[2, 3]', '[2]');
  throwsWith(() => sg.tidy(() => F().multiMarginLoss(x, sg.zeros([2], { dtype: 'int32' }), { p: 3 })), 'multiMarginLoss: only p == 1 and p == 2 are supported, got 3');
  throwsWith(() => sg.tidy(() => F().multiMarginLoss(x, sg.zeros([2]))), 'multiMarginLoss', "'target' to be int32", 'float32');
  throwsWith(() => sg.tidy(() => F().multiMarginLoss(x, sg.zeros([3], { dtype: 'int32' }))), 'multiMarginLoss', "'target' of shape [2]", '[3]');
  throwsWith(() => sg.tidy(() => F().multilabelMarginLoss(x, sg.zeros([2, 2], { dtype: 'int32' }))), 'multilabelMarginLoss', "'target' of shape [2, 3]");
  throwsWith(() => sg.tidy(() => F().tripletMarginWithDistanceLoss(x, x, x, { margin: 0 })), 'tripletMarginWithDistanceLoss', "'margin' > 0");
  throwsWith(() => sg.tidy(() => F().unfold(x, 2)), 'unfold: expected a 3-D or 4-D input');
  throwsWith(() => sg.tidy(() => F().unfold(sg.zeros([1, 1, 2, 2]), 3)), 'unfold: the kernel 3x3', 'does not fit the padded plane 2x2');
  throwsWith(() => sg.tidy(() => F().fold(sg.zeros([1, 4, 5]), 3, 2)), 'fold', 'number of sliding blocks 2 * 2 = 4', 'got 5');
  throwsWith(() => sg.tidy(() => F().fold(sg.zeros([1, 5, 4]), 3, 2)), 'fold', 'divisible', '4');
  throwsWith(() => sg.tidy(() => F().affineGrid(sg.zeros([1, 2, 3]), [2, 1, 3, 3])), 'affineGrid: expected theta of shape [2, 2, 3]', '[1, 2, 3]');
  throwsWith(() => sg.tidy(() => F().affineGrid(sg.zeros([1, 3, 4]), [1, 1, 2, 2, 2])), 'affineGrid', "'size' to be [N, C, H, W]");
  throwsWith(() => sg.tidy(() => F().gridSample(sg.zeros([1, 1, 3, 3]), sg.zeros([1, 2, 2, 3]))), 'gridSample: expected grid of shape [1, Ho, Wo, 2]');
  throwsWith(() => sg.tidy(() => F().gridSample(sg.zeros([1, 1, 3, 3]), sg.zeros([1, 2, 2, 2]), { mode: 'bicubic' })), 'gridSample', 'mode');
  throwsWith(() => sg.tidy(() => F().adaptiveMaxPool2d(sg.zeros([1, 2, 3, 3]), [2, 0])), 'adaptiveMaxPool2d', "'outputSize'", '[2, 0]');
  throwsWith(() => sg.tidy(() => F().adaptiveMaxPool1d(sg.zeros([2, 3, 4, 5]), 2)), 'adaptiveMaxPool1d: expected a 2-D or 3-D input');
  throwsWith(() => sg.tidy(() => F().maxUnpool2d(sg.zeros([1, 1, 2, 2]), sg.zeros([1, 1, 2, 2])), 2), 'maxUnpool2d', "'indices' to be an int32 Tensor");
  throwsWith(() => sg.tidy(() => F().maxUnpool2d(sg.zeros([1, 1, 2, 2]), sg.zeros([1, 1, 2, 1], { dtype: 'int32' }), 2)), 'maxUnpool2d: expected input and indices of one shape');
  const lp = sg.zeros([5, 2, 3]);
  throwsWith(() => sg.tidy(() => F().ctcLoss(lp, sg.zeros([2, 2], { dtype: 'int32' }), [5, 6], [1, 1])), 'ctcLoss: expected inputLengths[1] in [1, 5]', 'got 6');
  throwsWith(() => sg.tidy(() => F().ctcLoss(lp, sg.zeros([2, 2], { dtype: 'int32' }), [5, 5], [1])), "ctcLoss: expected 'targetLengths' to be 2 non-negative integers");
  throwsWith(() => sg.tidy(() => F().ctcLoss(lp, sg.zeros([2, 2], { dtype: 'int32' }), [5, 5], [3, 1])), 'ctcLoss: expected targets [N, S]', 'holding every target length');
  throwsWith(() => sg.tidy(() => F().ctcLoss(lp, sg.zeros([3], { dtype: 'int32' }), [5, 5], [1, 1])), 'ctcLoss: expected concatenated targets of length 2');
  throwsWith(() => sg.tidy(() => F().ctcLoss(lp, sg.zeros([2, 2], { dtype: 'int32' }), [5, 5], [1, 1], { blank: 3 })), 'ctcLoss: expected blank in [0, 3)');
  lp.dispose();
  throwsWith(() => sg.tidy(() => F().convTranspose1d(sg.zeros([3]), sg.zeros([2, 1, 2]))), 'convTranspose1d: expected a 2-D or 3-D input', 'got shape [3]');
  throwsWith(() => sg.tidy(() => F().convTranspose1d(x, sg.zeros([2, 1, 2]), null, { stride: [1, 2] })), 'convTranspose1d', "'stride' to be one integer", '[1, 2]');
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});

test('inside sg.compile: a spatial-transformer step equals the eager one', () => {
  const img = sg.randn([2, 3, 5, 5]);
  const theta = sg.tensor([[[0.8, 0.1, 0.05], [-0.1, 0.9, 0]], [[1, 0, 0.2], [0, 1, -0.1]]], { requiresGrad: true });
  const step = () => {
    const warped = F().gridSample(img, F().affineGrid(theta, [2, 3, 4, 4]), { paddingMode: 'border' });
    const loss = F().celu(F().unfold(warped, 2)).sum();
    loss.backward();
    return loss;
  };
  const eager = sg.tidy(() => [Array.from(step().dataSync()), Array.from(theta.grad.dataSync())]);
  theta.grad = null;
  const compiled = sg.compile(step);
  compiled();
  theta.grad = null;
  const c = sg.tidy(() => [Array.from(compiled().dataSync()), Array.from(theta.grad.dataSync())]);
  assert.deepEqual(c, eager);
  theta.grad = null;
  compiled.clear();
  sg.dispose([img, theta]);
});

test('the max-pool modules name themselves in an option error', () => {
  throwsWith(() => new sg.nn.MaxPool1d(2, { foo: 1 }), "MaxPool1d: unknown option 'foo'");
  throwsWith(() => new sg.nn.MaxPool2d(2, { foo: 1 }), "MaxPool2d: unknown option 'foo'");
});
