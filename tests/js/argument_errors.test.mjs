// The argument checks of sg.nn's module constructors and sg.optim, by message: every Error must
// start with the function's own name (the class the user called) and name the option or argument
// and the bad value, so that a user can tell which call of many went wrong. Mutation testing
// (issue 28) found these names the commonest survivors: a test that only asserts *that* a call
// throws passes when the name or the option's key is wrong. Table-driven, three kinds of rows:
//  - options: for each key a module's options object takes, the value '?' (no option of any kind
//    accepts it: not a number, boolean, tensor or one of an enumeration's names) must give
//    "<Name>: option '<key>' must be ..., got '?'", and an unknown key the list of exactly those keys;
//  - positional: a bad count, size or factor must name the argument and the value;
//  - rules: the constraints between arguments (lower <= upper, a group's params, ...);
//  - optimizers: exactly PyTorch 1.13's options (camelCase) and defaults, and its refusals of
//    negative values, from tests/data/optim_defaults_ref.json (gen_optim_defaults.py).
// RReLU's defaults are PyTorch 1.13's (torch.nn.RReLU().lower == 1/8, .upper == 1/3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg } from './helpers.mjs';

const { nn, optim } = sg;
const F = nn.functional;
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The Error fn() throws; fails when it returns. */
function errorOf(fn, label) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error, `${label}: expected an Error, got ${String(e)}`);
    return e;
  }
  assert.fail(`${label}: expected an Error, nothing was thrown`);
}

/** message starts with `${name}: ` and matches each of the patterns (strings are literal). */
function assertMessage(fn, name, patterns, label) {
  const e = errorOf(fn, label);
  assert.ok(e.message.startsWith(`${name}: `), `${label}: message ${JSON.stringify(e.message)} should start with '${name}: '`);
  for (const p of patterns) assert.match(e.message, p instanceof RegExp ? p : new RegExp(escape(p)), label);
}

/**
 * make(options) takes exactly `keys` (any order): an unknown key is refused under `name` with the
 * list of them, and each key given '?' is named with that value.
 */
function assertOptions(name, make, keys) {
  const unknown = errorOf(() => make({ bogusOption: 1 }), `${name} unknown option`).message;
  const m = unknown.match(/^(\w+): unknown option 'bogusOption' \(expected one of: (.*)\)$/);
  assert.ok(m && m[1] === name, `${name}: ${JSON.stringify(unknown)}`);
  assert.deepEqual(m[2].split(', ').sort(), [...keys].sort(), `${name}'s option keys`);
  for (const key of keys) {
    assertMessage(() => make({ [key]: '?' }), name, [new RegExp(`^${name}: option '${key}' must be .+, got '\\?'$`)], `${name} { ${key}: '?' }`);
  }
}

// [Name, make(options) (a valid call but for the options), the option keys it takes: PyTorch's
// keyword arguments in camelCase, less device/dtype and the deprecated size_average/reduce]
const W = () => sg.ones([3]);
const OPTIONS = [
  ['Linear', (o) => new nn.Linear(2, 3, o), ['bias']],
  ['Bilinear', (o) => new nn.Bilinear(2, 2, 3, o), ['bias']],
  ['Conv1d', (o) => new nn.Conv1d(2, 2, 3, o), ['stride', 'padding', 'dilation', 'groups', 'bias', 'paddingMode']],
  ['Conv2d', (o) => new nn.Conv2d(2, 2, 3, o), ['stride', 'padding', 'dilation', 'groups', 'bias', 'paddingMode']],
  ['ConvTranspose1d', (o) => new nn.ConvTranspose1d(2, 2, 3, o), ['stride', 'padding', 'outputPadding', 'groups', 'bias', 'dilation']],
  ['ConvTranspose2d', (o) => new nn.ConvTranspose2d(2, 2, 3, o), ['stride', 'padding', 'outputPadding', 'groups', 'bias', 'dilation']],
  ['MaxPool1d', (o) => new nn.MaxPool1d(2, o), ['stride', 'padding', 'dilation', 'ceilMode', 'returnIndices']],
  ['MaxPool2d', (o) => new nn.MaxPool2d(2, o), ['stride', 'padding', 'dilation', 'ceilMode', 'returnIndices']],
  ['MaxPool3d', (o) => new nn.MaxPool3d(2, o), ['stride', 'padding', 'dilation', 'ceilMode', 'returnIndices']],
  ['AdaptiveMaxPool1d', (o) => new nn.AdaptiveMaxPool1d(2, o), ['returnIndices']],
  ['AdaptiveMaxPool2d', (o) => new nn.AdaptiveMaxPool2d(2, o), ['returnIndices']],
  ['AdaptiveMaxPool3d', (o) => new nn.AdaptiveMaxPool3d(2, o), ['returnIndices']],
  ['MaxUnpool1d', (o) => new nn.MaxUnpool1d(2, o), ['stride', 'padding']],
  ['MaxUnpool2d', (o) => new nn.MaxUnpool2d(2, o), ['stride', 'padding']],
  ['BatchNorm1d', (o) => new nn.BatchNorm1d(3, o), ['eps', 'momentum', 'affine', 'trackRunningStats']],
  ['BatchNorm2d', (o) => new nn.BatchNorm2d(3, o), ['eps', 'momentum', 'affine', 'trackRunningStats']],
  ['LayerNorm', (o) => new nn.LayerNorm(3, o), ['eps', 'elementwiseAffine', 'bias']],
  ['GroupNorm', (o) => new nn.GroupNorm(1, 3, o), ['eps', 'affine']],
  ['RMSNorm', (o) => new nn.RMSNorm(3, o), ['eps', 'elementwiseAffine']],
  ['LocalResponseNorm', (o) => new nn.LocalResponseNorm(2, o), ['alpha', 'beta', 'k']],
  ['Embedding', (o) => new nn.Embedding(4, 3, o), ['paddingIdx', '_weight']],
  ['EmbeddingBag', (o) => new nn.EmbeddingBag(4, 3, o), ['mode', 'paddingIdx', 'includeLastOffset']],
  ['Dropout', (o) => new nn.Dropout(o), ['p', 'inplace']],
  // These four took any options object at construction until 2026-11-30 (a bad key failed only at forward).
  ['CosineSimilarity', (o) => new nn.CosineSimilarity(o), ['dim', 'eps']],
  ['PairwiseDistance', (o) => new nn.PairwiseDistance(o), ['p', 'eps', 'keepdim']],
  ['LPPool1d', (o) => new nn.LPPool1d(2, 3, o), ['stride', 'ceilMode']],
  ['LPPool2d', (o) => new nn.LPPool2d(2, [2, 3], o), ['stride', 'ceilMode']],
  ['Dropout2d', (o) => new nn.Dropout2d(o), ['p', 'inplace']],
  ['ReLU', (o) => new nn.ReLU(o), ['inplace']],
  ['ReLU6', (o) => new nn.ReLU6(o), ['inplace']],
  ['SELU', (o) => new nn.SELU(o), ['inplace']],
  ['Sigmoid', (o) => new nn.Sigmoid(o), ['inplace']],
  ['Tanh', (o) => new nn.Tanh(o), ['inplace']],
  ['SiLU', (o) => new nn.SiLU(o), ['inplace']],
  ['Mish', (o) => new nn.Mish(o), ['inplace']],
  ['Hardsigmoid', (o) => new nn.Hardsigmoid(o), ['inplace']],
  ['Hardswish', (o) => new nn.Hardswish(o), ['inplace']],
  ['LogSigmoid', (o) => new nn.LogSigmoid(o), ['inplace']],
  ['Softsign', (o) => new nn.Softsign(o), ['inplace']],
  ['Tanhshrink', (o) => new nn.Tanhshrink(o), ['inplace']],
  ['Softmax2d', (o) => new nn.Softmax2d(o), ['inplace']],
  ['Threshold', (o) => new nn.Threshold(0.1, 0, o), ['inplace']],
  ['Hardshrink', (o) => new nn.Hardshrink(o), ['lambd']],
  ['Softshrink', (o) => new nn.Softshrink(o), ['lambd']],
  ['CELU', (o) => new nn.CELU(o), ['alpha', 'inplace']],
  ['ELU', (o) => new nn.ELU(o), ['alpha', 'inplace']],
  ['LeakyReLU', (o) => new nn.LeakyReLU(o), ['negativeSlope', 'inplace']],
  ['RReLU', (o) => new nn.RReLU(o), ['lower', 'upper', 'inplace']],
  ['Hardtanh', (o) => new nn.Hardtanh(o), ['minVal', 'maxVal', 'inplace']],
  ['GELU', (o) => new nn.GELU(o), ['approximate']],
  ['Softplus', (o) => new nn.Softplus(o), ['beta', 'threshold']],
  ['PReLU', (o) => new nn.PReLU(o), ['numParameters', 'init']],
  ['Softmax', (o) => new nn.Softmax({ dim: 1, ...o }), ['dim']],
  ['LogSoftmax', (o) => new nn.LogSoftmax({ dim: 1, ...o }), ['dim']],
  ['Softmin', (o) => new nn.Softmin({ dim: 1, ...o }), ['dim']],
  ['CrossEntropyLoss', (o) => new nn.CrossEntropyLoss(o), ['weight', 'ignoreIndex', 'reduction', 'labelSmoothing']],
  ['NLLLoss', (o) => new nn.NLLLoss(o), ['weight', 'ignoreIndex', 'reduction']],
  ['BCELoss', (o) => new nn.BCELoss(o), ['weight', 'reduction']],
  ['BCEWithLogitsLoss', (o) => new nn.BCEWithLogitsLoss(o), ['weight', 'posWeight', 'reduction']],
  ['MultiLabelSoftMarginLoss', (o) => new nn.MultiLabelSoftMarginLoss(o), ['weight', 'reduction']],
  ['MultiMarginLoss', (o) => new nn.MultiMarginLoss(o), ['p', 'margin', 'weight', 'reduction']],
  ['RNN', (o) => new nn.RNN(2, 3, o), ['numLayers', 'bias', 'batchFirst', 'dropout', 'bidirectional', 'nonlinearity']],
  ['LSTM', (o) => new nn.LSTM(2, 3, o), ['numLayers', 'bias', 'batchFirst', 'dropout', 'bidirectional', 'projSize']],
  ['GRU', (o) => new nn.GRU(2, 3, o), ['numLayers', 'bias', 'batchFirst', 'dropout', 'bidirectional']],
  ['RNNCell', (o) => new nn.RNNCell(2, 3, o), ['bias', 'nonlinearity']],
  ['LSTMCell', (o) => new nn.LSTMCell(2, 3, o), ['bias']],
  ['GRUCell', (o) => new nn.GRUCell(2, 3, o), ['bias']],
  ['MultiheadAttention', (o) => new nn.MultiheadAttention(4, 2, o), ['dropout', 'bias', 'addBiasKv', 'addZeroAttn', 'kdim', 'vdim', 'batchFirst']],
  ['TransformerEncoderLayer', (o) => new nn.TransformerEncoderLayer(4, 2, o), ['dimFeedforward', 'dropout', 'activation', 'layerNormEps', 'batchFirst', 'normFirst']],
  ['TransformerDecoderLayer', (o) => new nn.TransformerDecoderLayer(4, 2, o), ['dimFeedforward', 'dropout', 'activation', 'layerNormEps', 'batchFirst', 'normFirst']],
  ['Transformer', (o) => new nn.Transformer({ dModel: 4, nhead: 2, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 8, ...o }),
    ['dModel', 'nhead', 'numEncoderLayers', 'numDecoderLayers', 'dimFeedforward', 'dropout', 'activation', 'customEncoder', 'customDecoder', 'layerNormEps', 'batchFirst', 'normFirst']],
  ['TransformerEncoder', (o) => new nn.TransformerEncoder(new nn.TransformerEncoderLayer(4, 2), 1, o), ['norm', 'enableNestedTensor']],
  ['PositionalEncoding', (o) => new nn.PositionalEncoding(4, o), ['maxLen', 'dropout', 'batchFirst']],
  ['Upsample', (o) => new nn.Upsample({ scaleFactor: 2, ...o }), ['size', 'scaleFactor', 'mode', 'alignCorners', 'recomputeScaleFactor']],
  ['UpsamplingNearest2d', (o) => new nn.UpsamplingNearest2d({ scaleFactor: 2, ...o }), ['size', 'scaleFactor']],
  ['UpsamplingBilinear2d', (o) => new nn.UpsamplingBilinear2d({ scaleFactor: 2, ...o }), ['size', 'scaleFactor']],
  ['AvgPool1d', (o) => new nn.AvgPool1d(2, o), ['stride', 'padding', 'ceilMode', 'countIncludePad', 'divisorOverride']],
  ['AvgPool2d', (o) => new nn.AvgPool2d(2, o), ['stride', 'padding', 'ceilMode', 'countIncludePad', 'divisorOverride']],
  ['AvgPool3d', (o) => new nn.AvgPool3d(2, o), ['stride', 'padding', 'ceilMode', 'countIncludePad', 'divisorOverride']],
  ['Unfold', (o) => new nn.Unfold(2, o), ['dilation', 'padding', 'stride']],
  ['Fold', (o) => new nn.Fold(4, 2, o), ['dilation', 'padding', 'stride']],
  ['Conv3d', (o) => new nn.Conv3d(2, 2, 3, o), ['stride', 'padding', 'dilation', 'groups', 'bias', 'paddingMode']],
  ['ConvTranspose3d', (o) => new nn.ConvTranspose3d(2, 2, 3, o), ['stride', 'padding', 'outputPadding', 'groups', 'bias', 'dilation']],
  ['BatchNorm3d', (o) => new nn.BatchNorm3d(3, o), ['eps', 'momentum', 'affine', 'trackRunningStats']],
  ['InstanceNorm1d', (o) => new nn.InstanceNorm1d(3, o), ['eps', 'momentum', 'affine', 'trackRunningStats']],
  ['InstanceNorm2d', (o) => new nn.InstanceNorm2d(3, o), ['eps', 'momentum', 'affine', 'trackRunningStats']],
  ['InstanceNorm3d', (o) => new nn.InstanceNorm3d(3, o), ['eps', 'momentum', 'affine', 'trackRunningStats']],
  ['Dropout1d', (o) => new nn.Dropout1d(o), ['p', 'inplace']],
  ['Dropout3d', (o) => new nn.Dropout3d(o), ['p', 'inplace']],
  ['AlphaDropout', (o) => new nn.AlphaDropout(o), ['p', 'inplace']],
  ['FeatureAlphaDropout', (o) => new nn.FeatureAlphaDropout(o), ['p', 'inplace']],
  ['CTCLoss', (o) => new nn.CTCLoss(o), ['blank', 'reduction', 'zeroInfinity']],
  ['L1Loss', (o) => new nn.L1Loss(o), ['reduction']],
  ['MSELoss', (o) => new nn.MSELoss(o), ['reduction']],
  ['SmoothL1Loss', (o) => new nn.SmoothL1Loss(o), ['reduction', 'beta']],
  ['HuberLoss', (o) => new nn.HuberLoss(o), ['reduction', 'delta']],
  ['KLDivLoss', (o) => new nn.KLDivLoss(o), ['reduction', 'logTarget']],
  ['CosineEmbeddingLoss', (o) => new nn.CosineEmbeddingLoss(o), ['reduction', 'margin']],
  ['TripletMarginLoss', (o) => new nn.TripletMarginLoss(o), ['reduction', 'margin', 'p', 'eps', 'swap']],
  ['MarginRankingLoss', (o) => new nn.MarginRankingLoss(o), ['reduction', 'margin']],
  ['HingeEmbeddingLoss', (o) => new nn.HingeEmbeddingLoss(o), ['reduction', 'margin']],
  ['SoftMarginLoss', (o) => new nn.SoftMarginLoss(o), ['reduction']],
  ['MultiLabelMarginLoss', (o) => new nn.MultiLabelMarginLoss(o), ['reduction']],
  ['TripletMarginWithDistanceLoss', (o) => new nn.TripletMarginWithDistanceLoss(o), ['reduction', 'distanceFunction', 'margin', 'swap']],
  ['PoissonNLLLoss', (o) => new nn.PoissonNLLLoss(o), ['reduction', 'logInput', 'full', 'eps']],
  ['GaussianNLLLoss', (o) => new nn.GaussianNLLLoss(o), ['reduction', 'full', 'eps']],
  // sg.nn.functional: the same rule for the options object of a function.
  ['linear', (o) => F.linear(sg.ones([2, 3]), sg.ones([2, 3]), null, o), ['activation']],
  ['conv1d', (o) => F.conv1d(sg.ones([1, 1, 4]), sg.ones([1, 1, 2]), null, o), ['stride', 'padding', 'dilation', 'groups']],
  ['conv2d', (o) => F.conv2d(sg.ones([1, 1, 4, 4]), sg.ones([1, 1, 2, 2]), null, o), ['stride', 'padding', 'dilation', 'groups', 'activation']],
  ['maxPool2d', (o) => F.maxPool2d(sg.ones([1, 1, 4, 4]), 2, o), ['stride', 'padding', 'dilation', 'ceilMode', 'returnIndices']],
  ['avgPool2d', (o) => F.avgPool2d(sg.ones([1, 1, 4, 4]), 2, o), ['stride', 'padding', 'ceilMode', 'countIncludePad', 'divisorOverride']],
  ['dropout', (o) => F.dropout(sg.ones([2, 3]), o), ['p', 'training', 'inplace']],
  ['layerNorm', (o) => F.layerNorm(sg.ones([2, 3]), [3], null, null, o), ['eps']],
  ['batchNorm', (o) => F.batchNorm(sg.ones([2, 3]), null, null, null, null, { training: true, ...o }), ['training', 'momentum', 'eps']],
  ['groupNorm', (o) => F.groupNorm(sg.ones([1, 2, 2]), 1, null, null, o), ['eps']],
  ['instanceNorm', (o) => F.instanceNorm(sg.ones([1, 2, 3]), null, null, null, null, o), ['useInputStats', 'momentum', 'eps']],
  ['normalize', (o) => F.normalize(sg.ones([2, 3]), o), ['p', 'dim', 'eps']],
  ['hardtanh', (o) => F.hardtanh(sg.ones([2, 3]), o), ['minVal', 'maxVal']],
  ['crossEntropy', (o) => F.crossEntropy(sg.ones([2, 3]), sg.tensor([0, 1], { dtype: 'int32' }), o), ['reduction', 'weight', 'ignoreIndex', 'labelSmoothing']],
  ['nllLoss', (o) => F.nllLoss(sg.ones([2, 3]), sg.tensor([0, 1], { dtype: 'int32' }), o), ['reduction', 'weight', 'ignoreIndex']],
  ['mseLoss', (o) => F.mseLoss(sg.ones([2, 3]), sg.ones([2, 3]), o), ['reduction']],
  ['binaryCrossEntropy', (o) => F.binaryCrossEntropy(sg.full([2, 3], 0.5), sg.ones([2, 3]), o), ['reduction', 'weight']],
  ['interpolate', (o) => F.interpolate(sg.ones([1, 1, 4]), { scaleFactor: 2, ...o }), ['size', 'scaleFactor', 'mode', 'alignCorners', 'recomputeScaleFactor']],
  ['gridSample', (o) => F.gridSample(sg.ones([1, 1, 2, 2]), sg.zeros([1, 2, 2, 2]), o), ['mode', 'paddingMode', 'alignCorners']],
  ['rrelu', (o) => F.rrelu(sg.ones([2, 3]), o), ['lower', 'upper', 'training']],
  ['embeddingBag', (o) => F.embeddingBag(sg.tensor([[0, 1]], { dtype: 'int32' }), sg.ones([3, 2]), o), ['offsets', 'mode', 'perSampleWeights', 'paddingIdx', 'includeLastOffset']],
];

test("module and function options: each key's bad value is named with the module, an unknown key lists the keys", () => {
  sg.tidy(() => {
    for (const [name, make, keys] of OPTIONS) {
      assertOptions(name, make, keys);
      const made = make({});
      assert.ok(made instanceof nn.Module || made instanceof sg.Tensor, `${name} with {} constructs (or computes)`);
    }
  });
});

// [Name, call, the argument's name, how the bad value is shown]
const POSITIONAL = [
  ['Linear', () => new nn.Linear(2.5, 3), 'inFeatures', '2.5'],
  ['Bilinear', () => new nn.Bilinear(-1, 2, 3), 'in1Features', '-1'],
  ['Bilinear', () => new nn.Bilinear(2, -1, 3), 'in2Features', '-1'],
  ['Bilinear', () => new nn.Bilinear(2, 2, 'x'), 'outFeatures', "'x'"],
  ['Conv1d', () => new nn.Conv1d(0, 2, 3), 'inChannels', '0'],
  ['Conv2d', () => new nn.Conv2d(2, 0, 3), 'outChannels', '0'],
  ['Conv2d', () => new nn.Conv2d(2, 2, 3, { dilation: 0 }), 'dilation', '0'],
  ['Conv2d', () => new nn.Conv2d(2, 2, 3, { padding: [1, 2, 3] }), 'padding', '[1, 2, 3]'],
  ['ConvTranspose1d', () => new nn.ConvTranspose1d(0, 2, 3), 'inChannels', '0'],
  ['ConvTranspose2d', () => new nn.ConvTranspose2d(2, 0, 3), 'outChannels', '0'],
  ['ConvTranspose2d', () => new nn.ConvTranspose2d(2, 2, 3, { stride: 0 }), 'stride', '0'],
  ['ConvTranspose2d', () => new nn.ConvTranspose2d(2, 2, 3, { padding: -1 }), 'padding', '-1'],
  ['ConvTranspose1d', () => new nn.ConvTranspose1d(2, 2, 3, { dilation: 0 }), 'dilation', '0'],
  ['MaxPool1d', () => new nn.MaxPool1d('x'), 'kernelSize', "'x'"],
  ['MaxPool2d', () => new nn.MaxPool2d([]), 'kernelSize', '[]'],
  ['AvgPool1d', () => new nn.AvgPool1d(1.5), 'kernelSize', '1.5'],
  ['AvgPool2d', () => new nn.AvgPool2d(null), 'kernelSize', 'null'],
  ['MaxPool3d', () => new nn.MaxPool3d(0), 'kernelSize', '0'],
  ['AvgPool3d', () => new nn.AvgPool3d(0), 'kernelSize', '0'],
  ['BatchNorm1d', () => new nn.BatchNorm1d(0), 'numFeatures', '0'],
  ['BatchNorm2d', () => new nn.BatchNorm2d(1.5), 'numFeatures', '1.5'],
  ['GroupNorm', () => new nn.GroupNorm(0, 3), 'numGroups', '0'],
  ['GroupNorm', () => new nn.GroupNorm(1, 0), 'numChannels', '0'],
  ['Embedding', () => new nn.Embedding(-1, 3), 'numEmbeddings', '-1'],
  ['Embedding', () => new nn.Embedding(4, 'x'), 'embeddingDim', "'x'"],
  ['EmbeddingBag', () => new nn.EmbeddingBag(-1, 3), 'numEmbeddings', '-1'],
  ['EmbeddingBag', () => new nn.EmbeddingBag(4, 1.5), 'embeddingDim', '1.5'],
  ['PReLU', () => new nn.PReLU(0), 'numParameters', '0'],
  ['Flatten', () => new nn.Flatten(0.5), 'startDim', '0.5'],
  ['Flatten', () => new nn.Flatten(1, 'x'), 'endDim', "'x'"],
  ['Unflatten', () => new nn.Unflatten(0.5, [2, 2]), 'dim', '0.5'],
  ['PixelShuffle', () => new nn.PixelShuffle(1.5), 'upscaleFactor', '1.5'],
  ['PixelUnshuffle', () => new nn.PixelUnshuffle('2'), 'downscaleFactor', "'2'"],
  ['LocalResponseNorm', () => new nn.LocalResponseNorm(0), 'size', '0'],
  ['ChannelShuffle', () => new nn.ChannelShuffle(0), 'groups', '0'],
  // Unfold and Fold check their sizes when called (as torch.nn.Unfold), under the function's name.
  ['unfold', () => new nn.Unfold(0).forward(sg.zeros([1, 1, 4, 4])), 'kernelSize', '0'],
  ['fold', () => new nn.Fold(0, 2).forward(sg.zeros([1, 4, 1])), 'outputSize', '0'],
  ['Unfold', () => new nn.Unfold(2, [1]), 'options', '[1]'],
  ['GLU', () => new nn.GLU(0.5), 'dim', '0.5'],
];

test('positional arguments: the module, the argument and the value are named', () => {
  sg.tidy(() => {
    for (const [name, call, arg, shown] of POSITIONAL) {
      const what = arg === 'options' ? 'an options object' : `'${arg}'`;
      assertMessage(call, name, [what, new RegExp(`got ${escape(shown)}$`)], `${name} ${arg} = ${shown}`);
    }
  });
});

test('RReLU: PyTorch 1.13 defaults (lower 1/8, upper 1/3), lower <= upper (equal allowed), its name on a bad slope', () => {
  sg.tidy(() => {
    const d = new nn.RReLU();
    assert.equal(d.lower, 1 / 8);
    assert.equal(d.upper, 1 / 3);
    assert.equal(new nn.RReLU(0.1).upper, 1 / 3, 'upper defaults with a positional lower');
    assert.equal(new nn.RReLU({ lower: 0.2 }).upper, 1 / 3);
    assert.equal(new nn.RReLU(0.2, 0.2).upper, 0.2, 'lower == upper is allowed (a fixed slope)');
    assert.equal(new nn.RReLU({ lower: 0.3, upper: 0.3 }).lower, 0.3);
    assertMessage(() => new nn.RReLU(0.5, 0.1), 'RReLU', [/^RReLU: expected lower <= upper, got lower 0\.5 and upper 0\.1$/], 'RReLU(0.5, 0.1)');
    assertMessage(() => new nn.RReLU({ lower: 0.4 }), 'RReLU', [/got lower 0\.4 and upper 0\.3333/], 'RReLU lower above the default upper');
    assertMessage(() => new nn.RReLU('x'), 'RReLU', [/^RReLU: option 'lower' must be .*, got 'x'$/], "RReLU('x')");
    assertMessage(() => new nn.Hardtanh(1, 1), 'Hardtanh', [/^Hardtanh: expected maxVal > minVal, got 1 and 1$/], 'Hardtanh(1, 1)');
    assertMessage(() => new nn.Hardshrink(-0.5), 'Hardshrink', [/'lambd'/, /got -0\.5$/], 'Hardshrink(-0.5)');
    assertMessage(() => new nn.Softmax(), 'Softmax', [/'dim'/], 'Softmax()');
  });
});

test("Conv paddingMode: 'zeros', 'reflect' and 'replicate' construct; 'circular' is refused by name, other strings by the list", () => {
  sg.tidy(() => {
    for (const [name, C] of [['Conv1d', nn.Conv1d], ['Conv2d', nn.Conv2d]]) {
      for (const mode of ['zeros', 'reflect', 'replicate']) assert.equal(new C(1, 1, 3, { paddingMode: mode, padding: 1 }).paddingMode, mode);
      assertMessage(() => new C(1, 1, 3, { paddingMode: 'circular' }), name,
        [/^\w+: paddingMode 'circular' is not supported \(use 'zeros', 'reflect' or 'replicate'\)$/], `${name} circular`);
      assertMessage(() => new C(1, 1, 3, { paddingMode: '' }), name, [/option 'paddingMode' must be .*'zeros'.*, got ''$/], `${name} ''`);
    }
  });
});

test('loadStateDict: each param group must be an object with a params array, named by its index', () => {
  sg.tidy(() => {
    const a = sg.zeros([2], { requiresGrad: true }), b = sg.zeros([3], { requiresGrad: true });
    const opt = new optim.Adam([{ params: [a] }, { params: [b], lr: 0.1 }], { lr: 0.01 });
    const sd = opt.stateDict();
    for (const [bad, shown] of [[5, '5'], [{ lr: 0.1 }, '{ lr }'], [{ params: 'x' }, "{ params: 'x' }"], [[0], '[0]']]) {
      const groups = [sd.param_groups[0], bad];
      assertMessage(() => opt.loadStateDict({ state: sd.state, param_groups: groups }), 'Adam.loadStateDict',
        [/^Adam\.loadStateDict: param_groups\[1\] must be an object with a 'params' array of indices$/], `param_groups[1] = ${shown}`);
    }
    assert.equal(opt.paramGroups[1].lr, 0.1, 'nothing loaded');
    opt.loadStateDict(sd);
  });
});

// PyTorch 1.13's defaults and negative-value refusals (tests/data/gen_optim_defaults.py).
const OPTIM = JSON.parse(readFileSync(new URL('../data/optim_defaults_ref.json', import.meta.url), 'utf8')).optimizers;
const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

test("optimizers: PyTorch 1.13's options (camelCase) and defaults, each option named with its bad value", () => {
  sg.tidy(() => {
    const p = [sg.zeros([2], { requiresGrad: true })];
    for (const [name, ref] of Object.entries(OPTIM)) {
      const make = (o) => new optim[name](p, { ...ref.given, ...o });
      const { params: _p, ...hyper } = make({}).paramGroups[0];
      const want = Object.fromEntries(Object.entries(ref.defaults).map(([k, v]) => [camel(k), v]));
      assert.deepEqual(hyper, want, `${name}'s defaults`);
      assertOptions(name, make, Object.keys(want));
      // "Invalid weight_decay value: -1" in PyTorch is "<Name>: invalid weightDecay value: -1 ..." here.
      for (const [key, message] of Object.entries(ref.negative)) {
        if (message === null) continue; // PyTorch takes -1 there (SGD's dampening, LBFGS's options)
        const phrase = message.replace(/^Invalid/, 'invalid').replace(/\b[a-z]+(_[a-z]+)+\b/g, camel);
        assertMessage(() => make({ [camel(key)]: -1 }), name, [phrase], `${name} { ${camel(key)}: -1 }`);
      }
    }
  });
});

// The schedulers' valid positional arguments; their options are PyTorch's keyword parameters.
const lrs = sg.optim.lrScheduler;
const SCHEDULERS = {
  StepLR: (opt, o) => new lrs.StepLR(opt, 2, o),
  MultiStepLR: (opt, o) => new lrs.MultiStepLR(opt, [2], o),
  ExponentialLR: (opt, o) => new lrs.ExponentialLR(opt, 0.5, o),
  CosineAnnealingLR: (opt, o) => new lrs.CosineAnnealingLR(opt, 5, o),
  LinearLR: (opt, o) => new lrs.LinearLR(opt, o),
  OneCycleLR: (opt, o) => new lrs.OneCycleLR(opt, 0.1, { totalSteps: 10, ...o }),
  ReduceLROnPlateau: (opt, o) => new lrs.ReduceLROnPlateau(opt, o),
  CosineAnnealingWarmRestarts: (opt, o) => new lrs.CosineAnnealingWarmRestarts(opt, 3, o),
  CyclicLR: (opt, o) => new lrs.CyclicLR(opt, 0.01, 0.1, o),
  LambdaLR: (opt, o) => new lrs.LambdaLR(opt, () => 1, o),
  MultiplicativeLR: (opt, o) => new lrs.MultiplicativeLR(opt, () => 1, o),
  ConstantLR: (opt, o) => new lrs.ConstantLR(opt, o),
  PolynomialLR: (opt, o) => new lrs.PolynomialLR(opt, o),
};
const REF_SCHEDULERS = JSON.parse(readFileSync(new URL('../data/optim_defaults_ref.json', import.meta.url), 'utf8')).schedulers;
// PyTorch's T_max, T_0, T_mult are tMax, t0, tMult here.
const jsName = (s) => camel(s.replace(/^T_/, 't_'));

test("schedulers: PyTorch 1.13's keyword parameters are the options (camelCase), each named with its bad value", () => {
  sg.tidy(() => {
    const p = [sg.zeros([2], { requiresGrad: true })];
    assert.deepEqual(Object.keys(SCHEDULERS).sort(), Object.keys(REF_SCHEDULERS).sort());
    for (const [name, make] of Object.entries(SCHEDULERS)) {
      const opt = () => new optim.SGD(p, { lr: 0.1, momentum: 0.9 });
      const keys = REF_SCHEDULERS[name].options.map(jsName);
      assertOptions(name, (o) => make(opt(), o), keys);
      assert.ok(make(opt(), {}), `${name} with {} constructs`);
    }
  });
});

// Checks no other test reached by message (found by a sweep of npm/src/nn and npm/src/optim's
// `throw new Error(` sites against the text of tests/js): [name, call, the message].
const RULES = [
  ['hardtanh', () => F.hardtanh(sg.zeros([2]), { minVal: 1, maxVal: 0 }), /^hardtanh: expected minVal <= maxVal, got minVal 1 and maxVal 0$/],
  ['pixelShuffle', () => F.pixelShuffle(sg.zeros([1, 4, 2, 2]), 0), /^pixelShuffle: expected 'upscaleFactor' >= 1, got 0$/],
  ['normal_', () => nn.init.normal_(sg.zeros([2]), 0, -1), /^normal_: expected std >= 0, got -1$/],
  ['clipGradValue_', () => nn.utils.clipGradValue_([sg.zeros([2], { requiresGrad: true })], -0.5), /^clipGradValue_: expected 'clipValue' to be >= 0, got -0\.5$/],
  ['embeddingBag', () => F.embeddingBag(sg.tensor([[0, 1]], { dtype: 'int32' }), sg.zeros([3, 2]), { paddingIdx: 3 }), /^embeddingBag: paddingIdx must be within the 3 embeddings, got 3$/],
  ['embeddingBag', () => F.embeddingBag(sg.tensor([[0, 1]], { dtype: 'int32' }), sg.zeros([3, 2]), { paddingIdx: -4 }), /^embeddingBag: paddingIdx must be within the 3 embeddings, got -4$/],
  ['embeddingBag', () => F.embeddingBag(sg.tensor([[0, 1]], { dtype: 'int32' }), sg.zeros([3, 2]), { offsets: sg.tensor([0], { dtype: 'int32' }) }),
    /^embeddingBag: offsets must be null for a 2-D input \(each row is a bag\)$/],
  ['gridSample', () => F.gridSample(sg.zeros([1, 1, 2]), sg.zeros([1, 2, 2, 2])), /^gridSample: expected a 4-D input \[N, C, H, W\] \(the 2-D case\), got .*\[1, 1, 2\]/],
  ['interpolate', () => F.interpolate(sg.zeros([1, 1, 4]), { size: 8, scaleFactor: 2 }), /^interpolate: only one of size or scaleFactor should be defined$/],
  ['interpolate', () => F.interpolate(sg.zeros([1, 1, 4]), {}), /^interpolate: either size or scaleFactor should be defined$/],
  ['BatchNorm2d', () => new nn.BatchNorm2d(2).forward(sg.zeros([2, 2, 3])), /^BatchNorm2d: expected 4D input \(got 3D input\)$/],
  ['BatchNorm3d', () => new nn.BatchNorm3d(2).forward(sg.zeros([2, 2, 3, 3])), /^BatchNorm3d: expected 5D input \(got 4D input\)$/],
  ['LSTMCell', () => new nn.LSTMCell(2, 3).forward(sg.zeros([1, 2]), [sg.zeros([1, 3])]), /^LSTMCell: expected hx to be \[hx, cx\] \(two Tensors\) or null, got \[/],
  ['TransformerEncoder', () => new nn.TransformerEncoder({}, 2), /^TransformerEncoder: expected a layer module, got an object$/],
  ['TransformerEncoder', () => new nn.TransformerEncoder(new nn.TransformerEncoderLayer(4, 2), -1), /^TransformerEncoder: expected 'numLayers' to be an integer >= 0, got -1$/],
  ['MultiheadAttention', () => new nn.MultiheadAttention(4, 2).forward(sg.zeros([4]), sg.zeros([4]), sg.zeros([4])),
    /^MultiheadAttention: query should be unbatched 2D or batched 3D tensor but received 1-D query tensor$/],
  ['MultiheadAttention', () => new nn.MultiheadAttention(4, 2).forward(sg.zeros([3, 1, 4]), sg.zeros([5, 1, 4]), sg.zeros([6, 1, 4])),
    /^MultiheadAttention: key \[5, 1, 4\] and value \[6, 1, 4\] do not match query \[3, 1, 4\]$/],
  ['packPaddedSequence', () => nn.utils.rnn.packPaddedSequence(sg.zeros([3, 2, 1]), [3]), /^packPaddedSequence: Expected `len\(lengths\)` to be equal to batch_size, but got 1 \(batch_size=2\)$/],
  ['packPaddedSequence', () => nn.utils.rnn.packPaddedSequence(sg.zeros([3, 2, 1]), [2, 3]), /^packPaddedSequence: `lengths` array must be sorted in decreasing order when `enforceSorted` is true \(got \[2, 3\]\)/],
  ['Sequential', () => new nn.Sequential(new Map([[1, new nn.ReLU()]])), /^Sequential: expected \[name, module\] pairs, got \[1, /],
  ['pop', () => new nn.ModuleDict({ a: new nn.ReLU() }).pop('b'), /^pop: no module named 'b'$/],
  ['Adam.loadStateDict', () => {
    const opt = new optim.Adam([sg.zeros([2], { requiresGrad: true })]);
    const sd = opt.stateDict();
    opt.loadStateDict({ state: sd.state, param_groups: [{ ...sd.param_groups[0], lr: -1 }] });
  }, /^Adam\.loadStateDict: Adam: invalid learning rate: -1 \(expected a number >= 0\)$/],
  ['CosineAnnealingWarmRestarts.step', () => new sg.optim.lrScheduler.CosineAnnealingWarmRestarts(new optim.SGD([sg.zeros([1], { requiresGrad: true })], { lr: 0.1 }), 3).step(1, 2),
    /^CosineAnnealingWarmRestarts\.step: takes at most one argument \(the epoch\)$/],
  ['LBFGS.loadStateDict', () => {
    // On (x - 1)² from 0 the second iteration stores one (s, y) pair and lands on 1 (the gradient is
    // then 0: no third); a state whose ro lists no pair is refused.
    const x = sg.zeros([2], { requiresGrad: true });
    const opt = new optim.LBFGS([x], { maxIter: 3 });
    const closure = () => {
      opt.zeroGrad();
      const loss = x.sub(1).square().sum();
      loss.backward();
      return loss;
    };
    opt.step(closure);
    const sd = opt.stateDict();
    assert.equal(sd.state[0].old_dirs.length, 1, 'one stored pair');
    opt.loadStateDict({ ...sd, state: { 0: { ...sd.state[0], ro: [] } } });
  }, /^LBFGS\.loadStateDict: state\[0\]\.old_dirs, old_stps and ro must have one entry per stored pair \(got 1, 1 and \[\]\)$/],
];

test('rules between arguments: the function and the offending values are named', () => {
  sg.tidy(() => {
    for (const [name, call, message] of RULES) assertMessage(call, name, [message], `${name}: ${message}`);
  });
});

// Functions of sg.nn.functional and their tensor arguments: [name, the arguments of a valid call,
// { argument name: its index }]. A non-Tensor there must be named ('expected 'x' to be a Tensor'),
// and so must a disposed one ("Tensor is disposed (argument 'x')").
const x4 = () => sg.ones([2, 4, 2, 2]);
const TENSOR_ARGS = [
  ['bilinear', () => [sg.ones([2, 3]), sg.ones([2, 2]), sg.ones([4, 3, 2]), sg.ones([4])], { input1: 0, input2: 1, weight: 2, bias: 3 }],
  ['layerNorm', () => [sg.ones([2, 3]), [3], sg.ones([3]), sg.ones([3])], { weight: 2, bias: 3 }],
  ['batchNorm', () => [x4(), sg.zeros([4]), sg.ones([4]), sg.ones([4]), sg.zeros([4])], { runningMean: 1, runningVar: 2, weight: 3, bias: 4 }],
  ['groupNorm', () => [x4(), 2, sg.ones([4]), sg.zeros([4])], { weight: 2, bias: 3 }],
  ['instanceNorm', () => [x4(), sg.zeros([4]), sg.ones([4]), sg.ones([4]), sg.zeros([4])], { runningMean: 1, runningVar: 2, weight: 3, bias: 4 }],
  ['cosineSimilarity', () => [sg.ones([2, 3]), sg.ones([2, 3])], { x1: 0, x2: 1 }],
  ['pairwiseDistance', () => [sg.ones([2, 3]), sg.ones([2, 3])], { x1: 0, x2: 1 }],
  ['pixelShuffle', () => [x4(), 2], { input: 0 }],
  ['pixelUnshuffle', () => [x4(), 2], { input: 0 }],
  ['rrelu', () => [sg.ones([3])], { input: 0 }],
];

test('functional tensor arguments: a non-Tensor and a disposed Tensor are named', () => {
  sg.tidy(() => {
    for (const [name, valid, args] of TENSOR_ARGS) {
      assert.ok(F[name](...valid()) instanceof sg.Tensor, `${name} with valid arguments`);
      for (const [arg, i] of Object.entries(args)) {
        const bad = valid();
        bad[i] = '?';
        assertMessage(() => F[name](...bad), name, [new RegExp(`^${name}: expected '${arg}' to be a Tensor( or null)?, got '\\?'$`)], `${name} ${arg} = '?'`);
        const gone = valid();
        gone[i].dispose();
        assertMessage(() => F[name](...gone), name, [`: Tensor is disposed (argument '${arg}')`], `${name} ${arg} disposed`);
      }
    }
    // Other positional arguments of these functions.
    assertMessage(() => F.pixelUnshuffle(x4(), 0.5), 'pixelUnshuffle', [/^pixelUnshuffle: expected 'downscaleFactor' to be an integer, got 0\.5$/], 'pixelUnshuffle 0.5');
    assertMessage(() => F.groupNorm(x4(), 1.5), 'groupNorm', [/^groupNorm: expected 'numGroups' to be an integer, got 1\.5$/], 'groupNorm 1.5');
    assertMessage(() => F.layerNorm(sg.ones([2, 3]), 'x'), 'layerNorm', [/^layerNorm: expected 'normalizedShape' to be an integer or an array of integers, got 'x'$/], "layerNorm 'x'");
    assertMessage(() => F.adaptiveAvgPool1d(sg.ones([1, 2, 4]), []), 'adaptiveAvgPool1d', [/^adaptiveAvgPool1d: expected 'outputSize' to be an integer or an array of integers, got \[\]$/], 'adaptiveAvgPool1d []');
    assertMessage(() => nn.init.calculateGain('leaky_relu', 'x'), 'calculateGain', [/'param'/, /got 'x'$/], "calculateGain('leaky_relu', 'x')");
    assertMessage(() => new nn.Sequential(new nn.ReLU()).insert(0.5, new nn.ReLU()), 'insert', [/^insert: expected 'index' to be an integer, got 0\.5$/], 'insert(0.5)');
    assertMessage(() => new nn.PositionalEncoding(0), 'PositionalEncoding', [/^PositionalEncoding: expected 'dModel' to be an integer >= 1, got 0$/], 'PositionalEncoding(0)');
    assertMessage(() => nn.Embedding.fromPretrained(sg.ones([3, 2]), { frozen: true }), 'Embedding.fromPretrained', [/unknown option 'frozen' \(expected one of: freeze, paddingIdx/], 'fromPretrained frozen');
  });
});
