// 3-D convolution, transposed convolution and pooling (npm/src/nn/conv3d.ts, pool3d.ts: compositions
// of conv2d, convTranspose2d + fold and the 2-D pools) against PyTorch 1.13 (tests/data/conv3d_ref.json, from gen_conv3d.py): values,
// indices and the gradients of Σ out·upstream (input, weight, bias) on every backend;
// central-difference gradient checks; modules; errors without leaks; inside sg.compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { gradcheck, readRef, gradInput } from './gradcheck_helpers.mjs';
import { assertCompiledEqualsEager, checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';

const REF = readRef('conv3d_ref.json');
const F = () => sg.F;

/** nn.Conv3d with the case's weight and bias loaded (the gradient checked is the input's). */
const conv3dModule = (x, w, b, options) => {
  const m = new sg.nn.Conv3d(w.shape[1] * (options.groups ?? 1), w.shape[0], w.shape.slice(2), options);
  m.loadStateDict({ weight: w, bias: b });
  const y = m(x);
  sg.dispose(m.parameters());
  return y;
};

const edge = { stride: [2, 2, 3], padding: [1, 1, 1], ceilMode: true };
const CALLS = {
  conv3d: (x, w, b) => F().conv3d(x, w, b),
  'conv3d stride padding dilation groups': (x, w, b) => F().conv3d(x, w, b, { stride: [2, 1, 3], padding: [1, 2, 0], dilation: [2, 1, 2], groups: 2 }),
  'conv3d depthwise': (x, w) => F().conv3d(x, w, null, { padding: 1, groups: 3 }),
  'conv3d same even kernel': (x, w, b) => F().conv3d(x, w, b, { padding: 'same', dilation: [1, 2, 1] }),
  'conv3d valid unbatched stride': (x, w, b) => F().conv3d(x, w, b, { stride: 2, padding: 'valid' }),
  'conv3d kD 1': (x, w) => F().conv3d(x, w, null, { stride: [2, 1, 1], padding: [0, 1, 1] }),
  'conv3d odd sizes': (x, w, b) => F().conv3d(x, w, b, { stride: [3, 2, 1], padding: [2, 0, 1] }),
  'conv3d groups 2 stride 2 dilation 2': (x, w) => F().conv3d(x, w, undefined, { stride: 2, dilation: 2, padding: 2, groups: 2 }),
  'Conv3d replicate': (x, w, b) => conv3dModule(x, w, b, { paddingMode: 'replicate', padding: [1, 2, 1], stride: [1, 2, 1] }),
  'Conv3d reflect same': (x, w, b) => conv3dModule(x, w, b, { paddingMode: 'reflect', padding: 'same' }),
  convTranspose3d: (x, w, b) => F().convTranspose3d(x, w, b, { stride: [2, 1, 2], padding: [1, 0, 1], outputPadding: [1, 0, 0], dilation: [1, 2, 1] }),
  'convTranspose3d groups unbatched': (x, w) => F().convTranspose3d(x, w, null, { stride: 2, padding: [0, 1, 0], outputPadding: [1, 1, 0], groups: 2 }),
  'convTranspose3d outputPadding below dilation': (x, w, b) => F().convTranspose3d(x, w, b, { dilation: [3, 2, 1], padding: [2, 1, 0], outputPadding: [2, 1, 0] }),
  'convTranspose3d depthwise stride 3': (x, w, b) => F().convTranspose3d(x, w, b, { stride: [3, 1, 2], outputPadding: [2, 0, 1], groups: 3 }),
  ConvTranspose3d: (x, w, b) => {
    const m = new sg.nn.ConvTranspose3d(4, 6, [2, 2, 3], { stride: [1, 2, 1], padding: [0, 1, 1], groups: 2 });
    m.loadStateDict({ weight: w, bias: b });
    const y = m(x);
    sg.dispose(m.parameters());
    return y;
  },
  maxPool3d: (x) => F().maxPool3d(x, 2, { returnIndices: true }),
  'maxPool3d stride padding dilation ceil': (x) => F().maxPool3d(x, [3, 2, 3], { stride: [2, 1, 2], padding: [1, 1, 0], dilation: [1, 2, 1], ceilMode: true, returnIndices: true }),
  'maxPool3d ceil dropped window': (x) => F().maxPool3d(x, 3, { stride: 3, padding: 1, ceilMode: true, returnIndices: true }),
  'maxPool3d ties': (x) => F().maxPool3d(x, 2, { stride: 1, returnIndices: true }),
  'maxPool3d ties padding ceil': (x) => F().maxPool3d(x, [2, 3, 2], { stride: [2, 2, 1], padding: [1, 1, 0], ceilMode: true, returnIndices: true }),
  'MaxPool3d ties gradient': (x) => new sg.nn.MaxPool3d(2, { stride: 1, padding: 1 })(x),
  'maxPool3d nan': (x) => F().maxPool3d(x, 2),
  'maxPool3d nan overlapping': (x) => new sg.nn.MaxPool3d(3, { stride: 1, padding: 1 })(x),
  'MaxPool3d unbatched': (x) => new sg.nn.MaxPool3d([2, 3, 2], { stride: [1, 2, 2], returnIndices: true })(x),
  avgPool3d: (x) => F().avgPool3d(x, 2),
  'avgPool3d edges countIncludePad': (x) => F().avgPool3d(x, [3, 3, 2], edge),
  'avgPool3d edges countIncludePad false': (x) => new sg.nn.AvgPool3d([3, 3, 2], { ...edge, countIncludePad: false })(x),
  'avgPool3d edges divisorOverride': (x) => F().avgPool3d(x, [3, 3, 2], { ...edge, divisorOverride: 5 }),
  'avgPool3d divisorOverride countIncludePad false': (x) => F().avgPool3d(x, 3, { stride: 2, padding: 1, countIncludePad: false, divisorOverride: 4 }),
  'avgPool3d no ceil padding': (x) => F().avgPool3d(x, [2, 3, 3], { stride: [1, 2, 2], padding: [1, 1, 0], countIncludePad: false }),
  'AvgPool3d unbatched': (x) => new sg.nn.AvgPool3d(2, { stride: [1, 2, 1] })(x),
  adaptiveAvgPool3d: (x) => F().adaptiveAvgPool3d(x, [3, 4, 4]),
  'adaptiveAvgPool3d keep unbatched': (x) => new sg.nn.AdaptiveAvgPool3d([null, 2, null])(x),
  'adaptiveAvgPool3d larger than input': (x) => F().adaptiveAvgPool3d(x, 3),
  adaptiveMaxPool3d: (x) => F().adaptiveMaxPool3d(x, [3, 4, 2], { returnIndices: true }),
  'adaptiveMaxPool3d ties keep': (x) => new sg.nn.AdaptiveMaxPool3d([2, null, 3], { returnIndices: true })(x),
  'adaptiveMaxPool3d larger unbatched': (x) => F().adaptiveMaxPool3d(x, [3, 2, 3], { returnIndices: true }),
};

// Convolutions sum kD·C·kH·kW products in another order than ATen's (and the weight gradient
// sums over N·D_out·H_out·W_out): within 1e-5·(1 + |want|) (5e-6 was seen to pass, 2e-6 not).
// The pools and convTranspose3d (its depth taps added by fold) pass at the default 2e-6.
const TOLERANCE = (id) => (/conv3d/i.test(id) ? 1e-5 : undefined);

test('conv3d, convTranspose3d and the 3-D pools equal PyTorch 1.13: values, indices and gradients', () => {
  checkRefCases(REF, CALLS, TOLERANCE);
});

forEachBackend('conv3d, convTranspose3d and the 3-D pools equal PyTorch on the backend', async () => {
  await checkRefCasesAsync(REF, CALLS, TOLERANCE);
});

test('central-difference gradient checks', () => {
  const v = gradInput;
  // Distinct values a step of 1/n apart (shuffled), so no maximum is within eps of another.
  const spread = (shape, seed) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const order = v([n], seed).data;
    const rank = Array.from(order.keys()).sort((a, b) => order[a] - order[b]);
    const data = new Float32Array(n);
    rank.forEach((i, r) => (data[i] = r / n - 0.5));
    return { shape, data };
  };
  gradcheck('conv3d', (x, w, b) => F().conv3d(x, w, b, { stride: [1, 2, 1], padding: [1, 0, 1], dilation: [2, 1, 1] }), [v([1, 2, 4, 3, 3], 1), v([2, 2, 2, 2, 2], 2), v([2], 3)]);
  gradcheck('conv3d groups same', (x, w) => F().conv3d(x, w, null, { padding: 'same', groups: 2 }), [v([1, 4, 3, 3, 2], 4), v([2, 2, 2, 3, 1], 5)]);
  gradcheck('convTranspose3d', (x, w, b) => F().convTranspose3d(x, w, b, { stride: [2, 1, 2], padding: [1, 0, 0], outputPadding: [1, 0, 1], dilation: [1, 2, 1] }),
    [v([1, 2, 2, 3, 2], 11), v([2, 2, 3, 2, 2], 12), v([2], 13)]);
  gradcheck('convTranspose3d groups', (x, w) => F().convTranspose3d(x, w, null, { groups: 2, dilation: [2, 1, 1], outputPadding: [1, 0, 0] }), [v([1, 4, 2, 2, 2], 14), v([4, 1, 2, 2, 1], 15)]);
  gradcheck('maxPool3d', (x) => F().maxPool3d(x, [2, 2, 3], { stride: [1, 2, 1], padding: [1, 0, 1], ceilMode: true }), [spread([1, 2, 3, 4, 4], 6)]);
  gradcheck('avgPool3d', (x) => F().avgPool3d(x, 3, { stride: 2, padding: 1, ceilMode: true, countIncludePad: false }), [v([1, 2, 4, 5, 4], 7)]);
  gradcheck('avgPool3d divisorOverride', (x) => F().avgPool3d(x, 2, { stride: [2, 1, 2], divisorOverride: 3 }), [v([1, 1, 4, 3, 4], 8)]);
  gradcheck('adaptiveAvgPool3d', (x) => F().adaptiveAvgPool3d(x, [2, 3, 2]), [v([1, 2, 3, 4, 5], 9)]);
  gradcheck('adaptiveMaxPool3d', (x) => F().adaptiveMaxPool3d(x, [2, 2, 3]), [spread([1, 2, 3, 4, 5], 10)]);
});

test('nn.Conv3d: shapes, PyTorch\'s default initialization, the state dict, modules = F', () => {
  sg.manualSeed(3);
  const m = new sg.nn.Conv3d(4, 6, [3, 2, 1], { stride: 2, padding: [1, 0, 0], groups: 2 });
  assert.deepEqual(m.weight.shape, [6, 2, 3, 2, 1]);
  assert.deepEqual(m.bias.shape, [6]);
  assert.deepEqual(Object.keys(m.stateDict()), ['weight', 'bias']);
  // kaiming_uniform(a = √5): U(−1/√fanIn, 1/√fanIn) with fanIn = 2·3·2·1 = 12, as the bias.
  const bound = 1 / Math.sqrt(12);
  for (const p of [m.weight, m.bias]) {
    const d = Array.from(p.dataSync());
    assert.ok(d.every((e) => Math.abs(e) <= bound), `${p.shape}: within ±${bound}`);
    assert.ok(Math.max(...d.map(Math.abs)) > bound * 0.7, 'spread over the range');
  }
  assert.equal(new sg.nn.Conv3d(2, 3, 2, { bias: false }).bias, null);
  const x = sg.randn([2, 4, 5, 4, 3]);
  sg.tidy(() => {
    const y = m(x);
    assert.deepEqual(y.shape, [2, 6, 3, 2, 2]);
    assert.deepEqual(Array.from(y.dataSync()), Array.from(F().conv3d(x, m.weight, m.bias, { stride: 2, padding: [1, 0, 0], groups: 2 }).dataSync()));
    assert.deepEqual(m(x.select(0, 1)).shape, [6, 3, 2, 2]);
  });
  const t = new sg.nn.ConvTranspose3d(4, 6, [2, 3, 1], { stride: 2, groups: 2, outputPadding: [1, 0, 0] });
  assert.deepEqual(t.weight.shape, [4, 3, 2, 3, 1]);
  sg.tidy(() => {
    assert.deepEqual(t(x).shape, [2, 6, 11, 9, 5]);  // (5 − 1)·2 + 1 + 1 + 1, (4 − 1)·2 + 2 + 1, (3 − 1)·2 + 1
    assert.deepEqual(Array.from(t(x).dataSync()), Array.from(F().convTranspose3d(x, t.weight, t.bias, { stride: 2, groups: 2, outputPadding: [1, 0, 0] }).dataSync()));
  });
  // fanIn of a transposed weight is size(1)·kD·kH·kW = 3·6 = 18, as PyTorch.
  assert.ok(Array.from(t.bias.dataSync()).every((e) => Math.abs(e) <= 1 / Math.sqrt(18)));
  sg.dispose(t.parameters());
  assert.match(m.toString(), /Conv3d\(4, 6, kernel_size=\(3, 2, 1\), stride=\(2, 2, 2\), padding=\(1, 0, 0\), groups=2\)/);
  const p = new sg.nn.MaxPool3d(2, { stride: 1 }), a = new sg.nn.AvgPool3d([1, 2, 2]);
  sg.tidy(() => {
    assert.deepEqual(Array.from(p(x).dataSync()), Array.from(F().maxPool3d(x, 2, { stride: 1 }).dataSync()));
    assert.deepEqual(Array.from(a(x).dataSync()), Array.from(F().avgPool3d(x, [1, 2, 2]).dataSync()));
    assert.deepEqual(new sg.nn.AdaptiveMaxPool3d(1)(x).shape, [2, 4, 1, 1, 1]);
    assert.deepEqual(new sg.nn.AdaptiveAvgPool3d([null, 1, 2])(x).shape, [2, 4, 5, 1, 2]);
  });
  sg.dispose([x, ...m.parameters()]);
});

test('the 3-D pools against a direct loop: edge windows, divisors and first maxima', () => {
  // An independent scalar implementation of ATen's avg_pool3d / max_pool3d loops (1.13, CPU).
  const pool = (data, [d, h, w], k, s, p, ceil, mode, countIncludePad = true, divisor = null) => {
    const outSize = (n, i) => {
      let o = Math.floor((n + 2 * p[i] - k[i] + (ceil ? s[i] - 1 : 0)) / s[i]) + 1;
      if (ceil && (o - 1) * s[i] >= n + p[i]) o--;
      return o;
    };
    const [od, oh, ow] = [outSize(d, 0), outSize(h, 1), outSize(w, 2)];
    const out = [], idx = [];
    for (let a = 0; a < od; a++) for (let b = 0; b < oh; b++) for (let c = 0; c < ow; c++) {
      const st = [a * s[0] - p[0], b * s[1] - p[1], c * s[2] - p[2]];
      const en = st.map((x, i) => Math.min(x + k[i], [d, h, w][i] + p[i]));
      const poolSize = en.reduce((q, e, i) => q * (e - st[i]), 1);
      const lo = st.map((x) => Math.max(x, 0)), hi = en.map((e, i) => Math.min(e, [d, h, w][i]));
      let sum = 0, max = -Infinity, at = lo[0] * h * w + lo[1] * w + lo[2];
      for (let t = lo[0]; t < hi[0]; t++) for (let y = lo[1]; y < hi[1]; y++) for (let x = lo[2]; x < hi[2]; x++) {
        const val = data[t * h * w + y * w + x];
        sum += val;
        if (val > max || Number.isNaN(val)) [max, at] = [val, t * h * w + y * w + x];
      }
      const cells = hi.reduce((q, e, i) => q * (e - lo[i]), 1);
      out.push(mode === 'max' ? max : sum / (divisor ?? (countIncludePad ? poolSize : cells)));
      idx.push(at);
    }
    return { out, idx, shape: [od, oh, ow] };
  };
  const dims = [5, 6, 7];
  const n = 5 * 6 * 7;
  // Few distinct values (ties everywhere) for max; a spread for the averages.
  const tied = Array.from({ length: n }, (_, i) => (i * 7919) % 4);
  const spread = Array.from({ length: n }, (_, i) => Math.fround(((i * 7919) % 211) / 50 - 2));
  const geometries = [
    [[2, 2, 2], [2, 2, 2], [0, 0, 0], false],
    [[3, 3, 2], [2, 2, 3], [1, 1, 1], true],
    [[3, 2, 3], [3, 1, 2], [1, 1, 1], true],
    [[2, 3, 3], [1, 2, 2], [1, 0, 1], false],
  ];
  sg.tidy(() => {
    const xt = sg.tensor(tied, { shape: [1, 1, ...dims] }), xs = sg.tensor(spread, { shape: [1, 1, ...dims] });
    for (const [k, s, p, ceilMode] of geometries) {
      const what = `k ${k} s ${s} p ${p} ceil ${ceilMode}`;
      const want = pool(tied, dims, k, s, p, ceilMode, 'max');
      const [vals, idx] = F().maxPool3d(xt, k, { stride: s, padding: p, ceilMode, returnIndices: true });
      assert.deepEqual(vals.shape.slice(2), want.shape, what);
      assert.deepEqual(Array.from(vals.dataSync()), want.out, `max ${what}`);
      assert.deepEqual(Array.from(idx.dataSync()), want.idx, `indices ${what}`);
      for (const [countIncludePad, divisor] of [[true, null], [false, null], [true, 7]]) {
        const ref = pool(spread, dims, k, s, p, ceilMode, 'avg', countIncludePad, divisor);
        const got = Array.from(F().avgPool3d(xs, k, { stride: s, padding: p, ceilMode, countIncludePad, divisorOverride: divisor }).dataSync());
        ref.out.forEach((r, i) => assert.ok(Math.abs(got[i] - r) <= 2e-6 * (1 + Math.abs(r)), `avg ${what} ${countIncludePad} ${divisor} [${i}]: ${got[i]} vs ${r}`));
      }
    }
  });
});

test('bad arguments are Errors saying what was expected and what was got; nothing leaks', () => {
  const live = sg.memory().tensors;
  const x = sg.randn([2, 3, 4, 5, 6]), w = sg.randn([4, 3, 3, 3, 3]);
  // Every argument made first: the count after the calls shows what the failed calls left.
  const z = (shape, opts = {}) => sg.zeros(shape, opts);
  const t = {
    x3: z([4, 5, 6]), w4: z([4, 3, 3, 3]), w2: z([4, 2, 3, 3, 3]), w1: z([4, 1, 3, 3, 3]), x4c: z([1, 4, 3, 3, 3]), w3g: z([3, 2, 1, 1, 1]),
    wBig: z([4, 3, 5, 3, 3]), b3: z([3]), empty: z([1, 2, 0, 3, 3]), int: z([1, 1, 2, 2, 2], { dtype: 'int32' }),
  };
  const before = sg.memory().tensors;
  throwsWith(() => F().conv3d(t.x3, w), 'conv3d: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [4, 5, 6]');
  throwsWith(() => F().conv3d(x, t.w4), "conv3d: expected 'weight' to be 5-D", 'got size [4, 3, 3, 3]');
  throwsWith(() => F().conv3d(x, t.w2), 'Given groups=1, weight of size [4, 2, 3, 3, 3], expected input[2, 3, 4, 5, 6] to have 2 channels, but got 3 channels instead');
  throwsWith(() => F().conv3d(x, t.w1, null, { groups: 2 }), 'Given groups=2', 'to have 2 channels, but got 3 channels instead');
  throwsWith(() => F().conv3d(t.x4c, t.w3g, null, { groups: 2 }), 'expected weight to be divisible by 2 at dimension 0, but got weight of size [3, 2, 1, 1, 1]');
  throwsWith(() => F().conv3d(x, t.wBig), "Calculated padded input size per channel: (4 x 5 x 6). Kernel size: (5 x 3 x 3). Kernel size can't be greater than actual input size");
  throwsWith(() => F().conv3d(x, w, null, { dilation: [2, 1, 1] }), 'Kernel size: (5 x 3 x 3)');
  throwsWith(() => F().conv3d(x, w, t.b3), 'expected bias to be 1-dimensional with 4 elements, but got bias of size [3]');
  throwsWith(() => F().conv3d(x, w, null, { stride: 0 }), "conv3d: expected 'stride' to be an integer >= 1", 'got 0');
  throwsWith(() => F().conv3d(x, w, null, { stride: [1, 1] }), "expected 'stride' to be an integer >= 1 or an array of 3 integers >= 1, got [1, 1]");
  throwsWith(() => F().conv3d(x, w, null, { padding: -1 }), 'conv3d: negative padding is not supported');
  throwsWith(() => F().conv3d(x, w, null, { padding: 'same', stride: 2 }), "conv3d: padding='same' is not supported for strided convolutions");
  throwsWith(() => F().conv3d(x, w, null, { padding: 'full' }), "conv3d: option 'padding' must be an integer, an array of integers, 'same' or 'valid', got 'full'");
  throwsWith(() => F().conv3d(x, w, null, { strides: 1 }), 'conv3d', 'strides');
  throwsWith(() => F().conv3d(x, w, null, { groups: 0 }), 'conv3d', 'groups');
  throwsWith(() => F().conv3d(x, [1, 2]), "conv3d: expected 'weight' to be a Tensor");
  throwsWith(() => new sg.nn.Conv3d(3, 4, 3, { groups: 2 }), 'Conv3d: inChannels (3) must be divisible by groups (2)');
  throwsWith(() => new sg.nn.Conv3d(3, 4, [3, 3]), "Conv3d: expected 'kernelSize' to be an integer >= 1 or an array of 3 integers >= 1, got [3, 3]");
  throwsWith(() => new sg.nn.Conv3d(0, 4, 3), "Conv3d: expected 'inChannels' to be an integer >= 1, got 0");
  throwsWith(() => F().convTranspose3d(t.x3, w), 'convTranspose3d: Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [4, 5, 6]');
  throwsWith(() => F().convTranspose3d(x, t.w2), 'convTranspose3d: Given transposed=1, weight of size [4, 2, 3, 3, 3], expected input[2, 3, 4, 5, 6] to have 4 channels, but got 3 channels instead');
  throwsWith(() => F().convTranspose3d(t.x4c, t.w2, null, { groups: 3 }), 'convTranspose3d: Given groups=3, expected weight to be divisible by 3 at dimension 0');
  throwsWith(() => F().convTranspose3d(t.x4c, t.w2, t.b3), 'convTranspose3d: Given transposed=1, weight of size [4, 2, 3, 3, 3], expected bias to be 1-dimensional with 2 elements, but got bias of size [3]');
  throwsWith(() => F().convTranspose3d(t.x4c, t.w2, null, { stride: 2, outputPadding: [0, 2, 0] }), 'convTranspose3d: output padding must be smaller than either stride or dilation, but got outputPadding [0, 2, 0], stride [2, 2, 2] and dilation [1, 1, 1]');
  throwsWith(() => F().convTranspose3d(t.x4c, t.w2, null, { padding: 3 }), 'convTranspose3d: Given input size per channel: (3 x 3 x 3). Calculated output size per channel: (-1 x -1 x -1). Output size is too small');
  throwsWith(() => F().convTranspose3d(t.x4c, t.w4), "convTranspose3d: expected 'weight' to be 5-D");
  throwsWith(() => F().convTranspose3d(t.x4c, t.w2, null, { output_padding: 1 }), 'convTranspose3d', 'output_padding');
  throwsWith(() => new sg.nn.ConvTranspose3d(4, 3, 2, { groups: 2 }), 'ConvTranspose3d: outChannels (3) must be divisible by groups (2)');
  for (const pool of ['maxPool3d', 'avgPool3d']) {
    throwsWith(() => F()[pool](t.x3, 2), `${pool}: non-empty 4D or 5D (batch mode) tensor expected for input, got size [4, 5, 6]`);
    throwsWith(() => F()[pool](t.empty, 2), `${pool}: non-empty 4D or 5D`);
    throwsWith(() => F()[pool](x, 3, { padding: 2 }), `${pool}: pad should be at most half of kernel size, but got pad=[2, 2, 2] and kernel_size=[3, 3, 3]`);
    throwsWith(() => F()[pool](x, 5), `${pool}: Given input size: (3x4x5x6). Calculated output size: (3x0x1x1). Output size is too small`);
    throwsWith(() => F()[pool](x, 0), `${pool}: expected 'kernelSize' to be an integer >= 1`, 'got 0');
    throwsWith(() => F()[pool](x, 2, { stride: -1 }), `${pool}: expected 'stride' to be an integer >= 1`, 'got -1');
    throwsWith(() => F()[pool](x, 2, { kernel: 2 }), pool, 'kernel');
    throwsWith(() => F()[pool](x, 2, { ceilMode: 1 }), pool, 'ceilMode');
    throwsWith(() => F()[pool](t.int, 2), `${pool}: expected a float32 or float64 input, got int32`);
  }
  throwsWith(() => F().avgPool3d(x, 2, { divisorOverride: 0 }), "avgPool3d: option 'divisorOverride' must be a non-zero integer or null, got 0");
  throwsWith(() => F().maxPool3d(x, 2, { dilation: 0 }), "maxPool3d: expected 'dilation' to be an integer >= 1");
  for (const pool of ['adaptiveAvgPool3d', 'adaptiveMaxPool3d']) {
    throwsWith(() => F()[pool](t.x3, 2), `${pool}: non-empty 4D or 5D (batch mode) tensor expected for input, got size [4, 5, 6]`);
    throwsWith(() => F()[pool](x, 0), `${pool}: expected 'outputSize' to be a positive integer or [d, h, w]`, 'got 0');
    throwsWith(() => F()[pool](x, [2, 2]), `${pool}: expected 'outputSize'`, 'got [2, 2]');
  }
  throwsWith(() => F().adaptiveMaxPool3d(x, 2, { indices: true }), 'adaptiveMaxPool3d', 'indices');
  throwsWith(() => new sg.nn.AdaptiveAvgPool3d([1, 2]), "AdaptiveAvgPool3d: expected 'outputSize'", 'got [1, 2]');
  throwsWith(() => new sg.nn.MaxPool3d([2, 2]), "MaxPool3d: expected 'kernelSize'", 'got [2, 2]');
  throwsWith(() => new sg.nn.AvgPool3d(2, { divisorOverride: 1.5 }), "AvgPool3d: option 'divisorOverride' must be a non-zero integer or null, got 1.5");
  assert.equal(sg.memory().tensors, before, 'no tensor left by a failed call');
  sg.dispose([x, w, Object.values(t)]);
  assert.equal(sg.memory().tensors, live);
});

test('compiled = eager: conv3d, convTranspose3d and the 3-D pools (their gradients: compile.test.mjs rows)', () => {
  sg.tidy(() => {
    const x = sg.randn([2, 4, 5, 6, 5]), w = sg.randn([6, 2, 3, 2, 3]), b = sg.randn([6]);
    assertCompiledEqualsEager((a, k, c) => F().conv3d(a, k, c, { stride: [2, 1, 2], padding: 'valid', groups: 2 }), [x, w, b]);
    assertCompiledEqualsEager((a, k) => F().convTranspose3d(a, k, null, { stride: 2, padding: 1, outputPadding: [1, 0, 1], groups: 2 }), [x, sg.randn([4, 3, 2, 3, 2])]);
    assertCompiledEqualsEager((a) => F().maxPool3d(a, 3, { stride: 2, padding: 1, ceilMode: true, returnIndices: true })[1], [x]);
    assertCompiledEqualsEager((a) => F().avgPool3d(a, 2, { stride: [1, 2, 2], divisorOverride: 3 }), [x]);
    assertCompiledEqualsEager((a) => F().adaptiveMaxPool3d(a, [2, 3, null], { returnIndices: true })[1], [x]);
    assertCompiledEqualsEager((a) => F().adaptiveAvgPool3d(a, 3), [x]);
  });
});
