// The argument checks of sg.nn's module constructors and sg.optim, by message: every Error must
// start with the function's own name (the class the user called) and name the option or argument
// and the bad value, so that a user can tell which call of many went wrong. Mutation testing
// (issue 28) found these names the commonest survivors: a test that only asserts *that* a call
// throws passes when the name or the option's key is wrong. Table-driven, three kinds of rows:
//  - options: for each key a module's options object takes, the value '?' (no option of any kind
//    accepts it: not a number, boolean, tensor or one of an enumeration's names) must give
//    "<Name>: option '<key>' must be ..., got '?'", and an unknown key the list of exactly those keys;
//  - positional: a bad count, size or factor must name the argument and the value;
//  - rules: the constraints between arguments (lower <= upper, a group's params, ...).
// The defaults a module fills in are PyTorch 1.13's (torch.nn's signatures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const { nn, optim } = sg;
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

// [Name, make(options) (a valid call but for the options), the option keys it takes]
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
  ['Embedding', (o) => new nn.Embedding(4, 3, o), null],
  ['EmbeddingBag', (o) => new nn.EmbeddingBag(4, 3, o), ['mode', 'paddingIdx', 'includeLastOffset']],
  ['Dropout', (o) => new nn.Dropout(o), ['p', 'inplace']],
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
  ['CrossEntropyLoss', (o) => new nn.CrossEntropyLoss(o), null],
  ['NLLLoss', (o) => new nn.NLLLoss(o), ['weight', 'ignoreIndex', 'reduction']],
  ['BCELoss', (o) => new nn.BCELoss(o), ['weight', 'reduction']],
  ['BCEWithLogitsLoss', (o) => new nn.BCEWithLogitsLoss(o), ['weight', 'posWeight', 'reduction']],
  ['MultiLabelSoftMarginLoss', (o) => new nn.MultiLabelSoftMarginLoss(o), ['weight', 'reduction']],
  ['MultiMarginLoss', (o) => new nn.MultiMarginLoss(o), ['p', 'margin', 'weight', 'reduction']],
];

test("module options: each key's bad value is named with the module, an unknown key lists the keys", () => {
  sg.tidy(() => {
    for (const [name, make, keys] of OPTIONS) {
      const unknown = errorOf(() => make({ bogusOption: 1 }), `${name} unknown option`);
      const m = unknown.message.match(/^(\w+): unknown option 'bogusOption' \(expected one of: (.*)\)$/);
      assert.ok(m, `${name}: ${JSON.stringify(unknown.message)}`);
      assert.equal(m[1], name);
      const listed = m[2].split(', ');
      if (keys !== null) assert.deepEqual([...listed].sort(), [...keys].sort(), `${name}'s option keys`);
      for (const key of listed) {
        assertMessage(() => make({ [key]: '?' }), name, [new RegExp(`^${name}: option '${key}' must be .+, got '\\?'$`)], `${name} { ${key}: '?' }`);
      }
      assert.ok(make({}) instanceof nn.Module, `${name} with {} constructs`);
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
