// sg.F: every function exists, options objects are checked (unknown names and wrong types
// are Errors naming the function and the option), class-index targets accept plain integer
// arrays, and the composite activations / helpers match their closed forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, mapNested, sg, throwsWith } from './helpers.mjs';

const API_F = [
  'relu', 'leakyRelu', 'prelu', 'elu', 'selu', 'gelu', 'sigmoid', 'tanh', 'softplus', 'silu', 'softmax', 'logSoftmax',
  'linear', 'conv1d', 'conv2d', 'convTranspose2d', 'maxPool1d', 'maxPool2d', 'avgPool1d', 'avgPool2d', 'adaptiveAvgPool2d',
  'dropout', 'layerNorm', 'batchNorm', 'groupNorm', 'pad', 'embedding', 'oneHot',
  'crossEntropy', 'nllLoss', 'mseLoss', 'l1Loss', 'smoothL1Loss', 'huberLoss', 'binaryCrossEntropy',
  'binaryCrossEntropyWithLogits', 'klDiv', 'cosineEmbeddingLoss',
];

test('sg.F has every function of API.md, and sg.nn.functional is the same object', () => {
  for (const name of API_F) assert.equal(typeof sg.F[name], 'function', name);
  assert.equal(sg.nn.functional, sg.F);
  assert.equal(sg.F.relu, sg.relu, 'activations are the ops themselves');
});

test('unknown and mistyped options are Errors', () => {
  sg.tidy(() => {
    const x = sg.randn([1, 2, 5, 5]);
    const w = sg.randn([3, 2, 3, 3]);
    throwsWith(() => sg.F.conv2d(x, w, null, { strides: 2 }), "conv2d: unknown option 'strides' (expected one of: stride, padding, dilation, groups, activation)");
    throwsWith(() => sg.F.conv2d(x, w, null, { padding: 'full' }), "conv2d: option 'padding' must be an integer, an array of integers, 'same' or 'valid', got 'full'");
    throwsWith(() => sg.F.maxPool2d(x, 2, { ceil_mode: true }), "maxPool2d: unknown option 'ceil_mode'");
    throwsWith(() => sg.F.maxPool2d(x, 2, { returnIndices: 'yes' }), "maxPool2d: option 'returnIndices' must be a boolean");
    throwsWith(() => sg.F.avgPool2d(x, 'big'), "avgPool2d: expected 'kernelSize' to be an integer or an array of integers, got 'big'");
    throwsWith(() => sg.F.dropout(x, { p: 1.5 }), "dropout: option 'p' must be a number in [0, 1], got 1.5");
    throwsWith(() => sg.F.mseLoss(x, x, { reduction: 'avg' }), "mseLoss: option 'reduction' must be one of 'mean', 'sum', 'none', got 'avg'");
    throwsWith(() => sg.F.crossEntropy(sg.randn([2, 3]), [0, 1], { label_smoothing: 0.1 }), "crossEntropy: unknown option 'label_smoothing'");
    throwsWith(() => sg.F.crossEntropy(sg.randn([2, 3]), [0.5, 1]), "crossEntropy: expected 'target' to be a Tensor or an array of integer class indices");
    throwsWith(() => sg.F.linear(x, 3), "linear: expected 'weight' to be a Tensor, got 3");
    throwsWith(() => sg.F.layerNorm(x, [5], null, null, { epsilon: 1 }), "layerNorm: unknown option 'epsilon'");
    throwsWith(() => sg.F.batchNorm(x, null, null, null, null, { training: 'yes' }), "batchNorm: option 'training' must be a boolean, got 'yes'");
    throwsWith(() => sg.F.klDiv(x, x, { reduction: 'batchsum' }), "klDiv: option 'reduction' must be one of 'mean', 'sum', 'none', 'batchmean'");
    // Errors of the C++ op come through with the op's name.
    throwsWith(() => sg.F.conv2d(x, sg.randn([3, 4, 3, 3])), /conv2d/);
  });
});

test('class-index targets accept plain integer arrays', () => {
  sg.tidy(() => {
    const logits = sg.tensor([[2, 0, 0], [0, 1, 3]]);
    const base = sg.memory().tensors;
    const a = sg.F.crossEntropy(logits, [0, 2]);
    assert.equal(sg.memory().tensors, base + 1, 'the temporary target is freed');
    const b = sg.F.crossEntropy(logits, sg.tensor([0, 2], { dtype: 'int32' }));
    close(a.item(), b.item(), 1e-7);
    // −log softmax by hand.
    const l0 = Math.log(Math.exp(2) + 2) - 2;
    const l1 = Math.log(1 + Math.exp(1) + Math.exp(3)) - 3;
    close(a.item(), (l0 + l1) / 2, 1e-6);
    close(sg.F.crossEntropy(logits, [0, 2], { reduction: 'none' }).toArray(), [l0, l1], 1e-6);
    close(sg.F.nllLoss(logits.logSoftmax(1), [0, 2], { reduction: 'sum' }).item(), l0 + l1, 1e-6);
    const weight = sg.tensor([1, 1, 3]);
    close(sg.F.crossEntropy(logits, [0, 2], { weight }).item(), (l0 + 3 * l1) / 4, 1e-6);
    close(sg.F.crossEntropy(logits, [0, 2], { ignoreIndex: 2 }).item(), l0, 1e-6);
    assert.deepEqual(sg.F.oneHot([2, 0], 3).toArray(), [[0, 0, 1], [1, 0, 0]]);
    assert.deepEqual(sg.F.oneHot(sg.tensor([1, 3], { dtype: 'int32' })).shape, [2, 4]);
    const table = sg.tensor([[0, 0], [1, 1], [2, 2]]);
    assert.deepEqual(sg.F.embedding([[2, 1], [0, 2]], table).toArray(), [[[2, 2], [1, 1]], [[0, 0], [2, 2]]]);
    close(sg.F.cosineEmbeddingLoss(sg.tensor([[1, 0]]), sg.tensor([[0, 1]]), [1]).item(), 1, 1e-6);
  });
});

test('losses: reductions and options by hand', () => {
  sg.tidy(() => {
    const a = sg.tensor([1, 2, 3]);
    const b = sg.tensor([1.5, 0, 3]);
    close(sg.F.mseLoss(a, b).item(), (0.25 + 4) / 3, 1e-6);
    close(sg.F.l1Loss(a, b, { reduction: 'sum' }).item(), 2.5, 1e-6);
    close(sg.F.smoothL1Loss(a, b, { beta: 1, reduction: 'none' }).toArray(), [0.125, 1.5, 0], 1e-6);
    close(sg.F.huberLoss(a, b, { delta: 0.5, reduction: 'none' }).toArray(), [0.125, 0.5 * (2 - 0.25), 0], 1e-6);
    const p = sg.tensor([0.9, 0.2]);
    const t = sg.tensor([1, 0]);
    close(sg.F.binaryCrossEntropy(p, t).item(), -(Math.log(0.9) + Math.log(0.8)) / 2, 1e-6);
    const z = sg.tensor([0.3, -1.2]);
    const sig = (v) => 1 / (1 + Math.exp(-v));
    const pw = sg.tensor([2, 2]);
    close(
      sg.F.binaryCrossEntropyWithLogits(z, t, { posWeight: pw, reduction: 'sum' }).item(),
      -2 * Math.log(sig(0.3)) - Math.log(1 - sig(-1.2)),
      1e-6,
    );
    const lp = sg.tensor([[Math.log(0.5), Math.log(0.5)]]);
    const q = sg.tensor([[0.25, 0.75]]);
    close(sg.F.klDiv(lp, q, { reduction: 'batchmean' }).item(), 0.25 * Math.log(0.5) + 0.75 * Math.log(1.5), 1e-6);
    // The loss modules wrap the functions with the same options.
    close(new sg.nn.HuberLoss({ delta: 0.5, reduction: 'sum' })(a, b).item(), 0.125 + 0.875, 1e-6);
    close(new sg.nn.MSELoss()(a, b).item(), (0.25 + 4) / 3, 1e-6);
    throwsWith(() => new sg.nn.MSELoss({ reduce: false }), "MSELoss: unknown option 'reduce'");
    throwsWith(() => new sg.nn.CrossEntropyLoss({ labelSmoothing: 2 }), "CrossEntropyLoss: option 'labelSmoothing' must be a number in [0, 1], got 2");
  });
});

test('composite activations match their closed forms', () => {
  sg.tidy(() => {
    const xs = [-5, -2.5, -1, -0.2, 0.3, 1, 2.9, 7];
    const x = sg.tensor(xs);
    const softplus = (v) => Math.log1p(Math.exp(v));
    const cases = {
      relu6: (v) => Math.min(Math.max(v, 0), 6),
      logsigmoid: (v) => -softplus(-v),
      mish: (v) => v * Math.tanh(softplus(v)),
      hardsigmoid: (v) => Math.min(Math.max(v / 6 + 0.5, 0), 1),
      hardswish: (v) => (v * Math.min(Math.max(v + 3, 0), 6)) / 6,
      softsign: (v) => v / (1 + Math.abs(v)),
    };
    for (const [name, f] of Object.entries(cases)) close(sg.F[name](x).toArray(), xs.map(f), 1e-5, name);
    close(sg.F.hardtanh(x, { minVal: -2, maxVal: 2 }).toArray(), xs.map((v) => Math.min(Math.max(v, -2), 2)), 1e-6);
    const sm = sg.F.softmin(sg.tensor([[1, 2, 3]]), 1).toArray()[0];
    const e = [1, 2, 3].map((v) => Math.exp(-v));
    close(sm, e.map((v) => v / (e[0] + e[1] + e[2])), 1e-6);
    close(sg.F.glu(sg.tensor([[1, 2, 0, -1]])).toArray(), [[1 / 2, 2 / (1 + Math.E)]], 1e-6);
    const n = sg.F.normalize(sg.tensor([[3, 4], [0, 0]]));
    close(n.toArray(), [[0.6, 0.8], [0, 0]], 1e-6);
    close(sg.F.adaptiveAvgPool1d(sg.arange(6, { dtype: 'float32' }).reshape(1, 1, 6), 3).toArray(), [[[0.5, 2.5, 4.5]]], 1e-6);
  });
});

test('dropout: positional (p, training) and options forms; eval returns the input values', () => {
  sg.tidy(() => {
    const x = sg.randn([10]);
    assert.deepEqual(sg.F.dropout(x, 0.9, false).dataSync(), x.dataSync());
    assert.deepEqual(sg.F.dropout(x, { p: 0.9, training: false }).dataSync(), x.dataSync());
    const y = sg.F.dropout(sg.ones([1000]), 0.5).dataSync();
    assert.ok(y.every((v) => v === 0 || v === 2));
    const z = sg.F.dropout(sg.ones([100]), { p: 1 }).dataSync();
    assert.ok(z.every((v) => v === 0));
  });
});

test('conv and pool options take numbers, arrays and padding modes', () => {
  sg.tidy(() => {
    const x = sg.ones([1, 1, 4, 4]);
    const w = sg.ones([1, 1, 3, 3]);
    assert.deepEqual(sg.F.conv2d(x, w, null, { padding: 'same' }).shape, [1, 1, 4, 4]);
    assert.deepEqual(sg.F.conv2d(x, w, null, { padding: [1, 0], stride: [1, 2] }).shape, [1, 1, 4, 1]);
    assert.deepEqual(sg.F.maxPool2d(x, [2, 1]).shape, [1, 1, 2, 4]);
    assert.deepEqual(sg.F.avgPool2d(x, 3, { stride: 1, padding: 1 }).shape, [1, 1, 4, 4]);
    close(sg.F.avgPool2d(x, 3, { stride: 1, padding: 1, countIncludePad: false }).toArray(), mapNested(x.toArray(), () => 1), 1e-6);
    assert.deepEqual(sg.F.adaptiveAvgPool2d(sg.ones([1, 2, 6, 5]), [3, null]).shape, [1, 2, 3, 5]);
    assert.deepEqual(sg.F.pad(x, [1, 1]).shape, [1, 1, 4, 6]);
    const conv = new sg.nn.Conv2d(1, 2, 3, { padding: 'same', paddingMode: 'reflect' });
    assert.deepEqual(conv(x).shape, [1, 2, 4, 4]);
    throwsWith(() => new sg.nn.Conv2d(1, 2, 3, { paddingMode: 'circular' }), "Conv2d: paddingMode 'circular' is not supported");
    throwsWith(() => new sg.nn.Conv2d(3, 2, 3, { groups: 2 }), 'Conv2d: inChannels (3) must be divisible by groups (2)');
    throwsWith(() => new sg.nn.Conv2d(2, 2, 3, { padding: 'same', stride: 2 }), "Conv2d: padding 'same' is not supported for strided convolutions");
    throwsWith(() => new sg.nn.MaxPool2d(2, { stide: 1 }), "MaxPool2d: unknown option 'stide'");
  });
});

test('F.linear with activation: values and gradients of the separate activation after linear', () => {
  sg.tidy(() => {
    sg.manualSeed(5);
    // 37 × 600 · 600 → 35: past the kernel's tiles and over two depth blocks (300 + 300: plain
    // products block 512 deep).
    const x0 = sg.randn([37, 600]), w0 = sg.randn([35, 600]).mul(0.1), b0 = sg.randn([35]);
    const g = sg.randn([37, 35]);
    const separate = {
      relu: (y) => sg.F.relu(y),
      gelu: (y) => sg.F.gelu(y),
      gelu_tanh: (y) => sg.F.gelu(y, { approximate: 'tanh' }),
    };
    for (const [activation, after] of Object.entries(separate)) {
      const grads = (fused) => {
        const [x, w, b] = [x0, w0, b0].map((t) => t.detach().requiresGrad_());
        const y = fused ? sg.F.linear(x, w, b, { activation }) : after(sg.F.linear(x, w, b));
        y.mul(g).sum().backward();
        return [y, x.grad, w.grad, b.grad];
      };
      const [fused, plain] = [grads(true), grads(false)];
      for (let i = 0; i < 4; i++) close(fused[i].toArray(), plain[i].toArray(), 1e-6, `${activation} ${['y', 'dx', 'dw', 'db'][i]}`);
      // Without a graph (noGrad) GELU is fused too: the same values.
      const inference = sg.noGrad(() => sg.F.linear(x0, w0, b0, { activation }));
      close(inference.toArray(), plain[0].toArray(), 1e-6, `${activation} under noGrad`);
    }
    throwsWith(() => sg.F.linear(x0, w0, b0, { activation: 'tanh' }), "linear: option 'activation' must be one of 'none', 'relu', 'gelu', 'gelu_tanh', got 'tanh'");
    throwsWith(() => sg.F.linear(x0, w0, b0, { act: 'relu' }), "linear: unknown option 'act' (expected one of: activation)");
  });
});

test('F.conv2d with activation relu: values and gradients of F.relu after F.conv2d', () => {
  sg.tidy(() => {
    sg.manualSeed(6);
    // Stride 1 (the in-place path) and stride 2 (the packed one), with and without bias.
    for (const [stride, padding, bias] of [[1, 1, true], [2, 0, false], [1, 'same', true]]) {
      const x0 = sg.randn([3, 4, 9, 8]), w0 = sg.randn([6, 4, 3, 3]).mul(0.3), b0 = bias ? sg.randn([6]) : null;
      const grads = (fused) => {
        const x = x0.detach().requiresGrad_(), w = w0.detach().requiresGrad_(), b = b0 ? b0.detach().requiresGrad_() : null;
        const y = fused ? sg.F.conv2d(x, w, b, { stride, padding, activation: 'relu' }) : sg.F.relu(sg.F.conv2d(x, w, b, { stride, padding }));
        y.mul(y.detach().add(0.5)).sum().backward();
        return [y, x.grad, w.grad, ...(b ? [b.grad] : [])];
      };
      const [fused, plain] = [grads(true), grads(false)];
      assert.ok(plain[0].toArray().flat(3).some((v) => v === 0), 'some outputs are clipped by the ReLU');
      fused.forEach((t, i) => close(t.toArray(), plain[i].toArray(), 1e-6, `stride ${stride} ${['y', 'dx', 'dw', 'db'][i]}`));
    }
    const x = sg.randn([1, 1, 4, 4]), w = sg.randn([1, 1, 3, 3]);
    throwsWith(() => sg.F.conv2d(x, w, null, { activation: 'gelu' }), "conv2d: option 'activation' must be one of 'none', 'relu', got 'gelu'");
    throwsWith(() => sg.F.conv1d(x.reshape([1, 4, 4]), sg.randn([1, 4, 3]), null, { activation: 'relu' }), "conv1d: unknown option 'activation'");
  });
});

test('nn.Sequential runs Conv2d + ReLU (+ MaxPool2d) fused, with the values and gradients of the children', () => {
  sg.tidy(() => {
    sg.manualSeed(10);
    const { nn } = sg;
    // Conv2d + ReLU + MaxPool2d (one op, pooled as computed), then Conv2d + ReLU alone (a
    // reflect-padded one: F.conv2d with activation 'relu'), then a stride-2 pool after a
    // conv + ReLU (the composed path), then the head.
    const model = new nn.Sequential(
      new nn.Conv2d(2, 5, 3, { padding: 1 }), new nn.ReLU(), new nn.MaxPool2d(2),
      new nn.Conv2d(5, 4, 3, { paddingMode: 'reflect', padding: 1 }), new nn.ReLU(),
      new nn.Conv2d(4, 4, 3, { stride: 2, padding: 1 }), new nn.ReLU(), new nn.MaxPool2d(2, { ceilMode: true }),
      new nn.Flatten(), new nn.Linear(4 * 1 * 1, 3));
    const x = sg.randn([3, 2, 8, 8]);
    const g = sg.randn([3, 3]);
    const run = (unfused) => {
      model.zeroGrad();
      const xr = x.detach().requiresGrad_();
      const y = unfused ? [...model.children()].reduce((h, m) => m.forward(h), xr) : model.forward(xr);
      y.mul(g).sum().backward();
      return [y.toArray(), xr.grad.toArray(), ...model.parameters().map((p) => p.grad.toArray())];
    };
    const seen = [];
    const conv2d = sg.F.conv2d;
    sg.F.conv2d = (...args) => (seen.push(args[3]?.activation ?? 'none'), conv2d(...args));
    let fused;
    try {
      fused = run(false);
    } finally {
      sg.F.conv2d = conv2d;
    }
    // The first and third convolutions run with their pools (not through F.conv2d), the second
    // with its ReLU fused.
    assert.deepEqual(seen, ['relu']);
    const plain = run(true);
    fused.forEach((v, i) => close(v, plain[i], 1e-6, `output/gradient ${i}`));
    // An instance's own forward is always called.
    const patched = new nn.Sequential(new nn.Conv2d(2, 3, 3), new nn.ReLU(), new nn.MaxPool2d(2));
    patched.get(0).forward = (h) => h.mul(0);
    assert.ok(patched.forward(x).toArray().flat(3).every((v) => v === 0), 'own forward');
    for (const m of [model, patched]) m.dispose();
  });
});

test('nn.Sequential runs Linear + ReLU/GELU fused, with the values and gradients of the two children', () => {
  sg.tidy(() => {
    sg.manualSeed(9);
    const x = sg.randn([16, 20]);
    const g = sg.randn([16, 3]);
    const run = (model, unfused) => {
      model.zeroGrad();
      const xr = x.detach().requiresGrad_();
      // unfused: each child's own forward, one after the other (what the fusion must equal)
      const y = unfused ? [...model.children()].reduce((h, m) => m.forward(h), xr) : model.forward(xr);
      y.mul(g).sum().backward();
      return [y.toArray(), xr.grad.toArray(), ...model.parameters().map((p) => p.grad.toArray())];
    };
    const { nn } = sg;
    const model = new nn.Sequential(new nn.Linear(20, 12), new nn.ReLU(), new nn.Linear(12, 8), new nn.GELU('tanh'), new nn.Linear(8, 6), new nn.GELU(), new nn.Linear(6, 3));
    // The fused path is taken: F.linear is called with each activation.
    const seen = [];
    const linear = sg.F.linear;
    sg.F.linear = (...args) => (seen.push(args[3]?.activation ?? 'none'), linear(...args));
    let fused;
    try {
      fused = run(model, false);
    } finally {
      sg.F.linear = linear;
    }
    assert.deepEqual(seen, ['relu', 'gelu_tanh', 'gelu', 'none']);
    const plain = run(model, true);
    fused.forEach((v, i) => close(v, plain[i], 1e-6, `output/gradient ${i}`));

    // A subclass's forward, or an instance's own, is always called: never fused past it.
    class Shifted extends nn.Linear {
      forward(input) { return super.forward(input).add(1); }
    }
    const shifted = new nn.Sequential(new Shifted(20, 3), new nn.ReLU());
    const lin = shifted.get(0);
    close(shifted.forward(x).toArray(), sg.F.relu(sg.F.linear(x, lin.weight, lin.bias).add(1)).toArray(), 1e-6, 'subclass');
    const patched = new nn.Sequential(new nn.Linear(20, 3), new nn.ReLU());
    patched.get(1).forward = (h) => h.mul(2);
    const l2 = patched.get(0);
    close(patched.forward(x).toArray(), sg.F.linear(x, l2.weight, l2.bias).mul(2).toArray(), 1e-6, 'own forward');
    for (const m of [model, shifted, patched]) m.dispose();
  });
});
