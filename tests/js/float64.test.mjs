// float64 compute (issue 27, API.md "Dtypes"): every op family taught float64 gives float64
// results and float64 gradients equal to PyTorch 1.13's in float64 to ~1e-12 relative
// (tests/data/gen_float64.py → float64_ref.json: the same op by name in torch), on both CPU
// backends; sg.autograd.gradcheck with PyTorch's float64 defaults (eps 1e-6, atol 1e-5, rtol 1e-3)
// passes on them and catches a wrong gradient; mixed float32/float64 operands promote as
// torch.result_type and gradients come back in each input's dtype; float64 on webgpu is an Error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { sg, readRef, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { gradcheck as gradcheckProjected, gradInput } from './gradcheck_helpers.mjs';
import { FLOAT64_CHECKS } from './float64_checks.mjs';
// attention's causal softmax (the op causalSoftmax) has no public name of its own (F.scaledDotProductAttention's isCausal)
import { causalSoftmax } from '../../npm/dist/esm/npm/src/nn/functional_layers.js';

const ref = readRef('float64_ref.json');
const F = sg.F;

// The same names as gen_float64.py's CASES, in the JS API.
const OPS = {
  neg: (x) => x.neg(),
  exp: (x) => x.exp(),
  log: (x) => x.log(),
  log2: (x) => x.log2(),
  log10: (x) => x.log10(),
  log1p: (x) => x.log1p(),
  expm1: (x) => x.expm1(),
  sqrt: (x) => x.sqrt(),
  rsqrt: (x) => x.rsqrt(),
  abs: (x) => x.abs(),
  sin: (x) => x.sin(),
  cos: (x) => x.cos(),
  erf: (x) => x.erf(),
  square: (x) => x.square(),
  reciprocal: (x) => x.reciprocal(),
  relu: (x) => x.relu(),
  sigmoid: (x) => x.sigmoid(),
  tanh: (x) => x.tanh(),
  silu: (x) => F.silu(x),
  gelu: (x) => F.gelu(x),
  geluTanh: (x) => F.gelu(x, { approximate: 'tanh' }),
  selu: (x) => F.selu(x),
  elu: (x) => F.elu(x, 0.7),
  leakyRelu: (x) => F.leakyRelu(x, 0.13),
  softplus: (x) => F.softplus(x, { beta: 1.7, threshold: 2.5 }),
  hardtanh: (x) => F.hardtanh(x, { minVal: -0.7, maxVal: 0.9 }),
  clamp: (x) => x.clamp(-0.3, 0.7),
  add: (a, b) => a.add(b),
  sub: (a, b) => a.sub(b),
  mul: (a, b) => a.mul(b),
  div: (a, b) => a.div(b),
  pow: (a, b) => a.pow(b),
  maximum: (a, b) => sg.maximum(a, b),
  minimum: (a, b) => sg.minimum(a, b),
  mulNumber: (x) => x.mul(0.1),
  addNumber: (x) => x.add(1e-9),
  whereGt: (a, b) => sg.where(a.gt(b), a.mul(b), a.sub(b)),
  sumAll: (x) => x.sum(),
  sumDim: (x) => x.sum(1),
  mean: (x) => x.mean(0),
  prod: (x) => x.prod(1),
  amax: (x) => x.amax(1),
  amin: (x) => x.amin(0),
  var: (x) => x.var(1),
  std: (x) => x.std(0),
  logsumexp: (x) => x.logsumexp(1),
  norm: (x) => x.norm(3, 1),
  softmax: (x) => x.softmax(1),
  logSoftmax: (x) => x.logSoftmax(0),
  matmul: (a, b) => a.matmul(b),
  matmulBatched: (a, b) => a.matmul(b),
  matmulVec: (a, b) => a.matmul(b),
  linear: (x, w, b) => F.linear(x, w, b),
  cumsum: (x) => x.cumsum(1),
  sortValues: (x) => x.sort(1, { descending: true })[0],
  topkValues: (x) => x.topk(2, 1)[0],
  gather: (x) => x.gather(1, sg.tensor([[0, 3], [2, 2], [1, 0]], { dtype: 'int32' })),
  indexSelect: (x) => x.indexSelect(0, sg.tensor([3, 0, 3], { dtype: 'int32' })),
  scatterAdd: (x, s) => x.scatterAdd(1, sg.tensor([[0, 3], [2, 2], [1, 0]], { dtype: 'int32' }), s),
  scatter: (x, s) => x.scatter(1, sg.tensor([[0, 3], [2, 1], [1, 0]], { dtype: 'int32' }), s),
  maskedFill: (x) => x.maskedFill(x.gt(0.5), 0.25),
  sign: (x) => x.sign(),
  argmax: (x) => x.argmax(1),
  argmin: (x) => x.argmin(0),
  argsort: (x) => x.argsort(1),
  compare: (a, b) => sg.stack([a.eq(b), a.ne(b), a.lt(b), a.le(b), a.gt(b), a.ge(b)]).int(),
  instanceNorm: (x, w, b) => F.instanceNorm(x, null, null, w, b, { eps: 1e-5 }),
  layerNorm: (x, w, b) => F.layerNorm(x, [6], w, b, { eps: 1e-5 }),
  batchNorm: (x, w, b) => F.batchNorm(x, null, null, w, b, { training: true, eps: 1e-5 }),
  groupNorm: (x, w, b) => F.groupNorm(x, 2, w, b, { eps: 1e-5 }),
  mseLoss: (a, b) => F.mseLoss(a, b),
  l1Loss: (a, b) => F.l1Loss(a, b, { reduction: 'sum' }),
  smoothL1Loss: (a, b) => F.smoothL1Loss(a, b, { beta: 0.3 }),
  huberLoss: (a, b) => F.huberLoss(a, b, { delta: 0.7 }),
  crossEntropy: (x) => F.crossEntropy(x, sg.tensor([1, 0, 4, 2], { dtype: 'int32' }), { labelSmoothing: 0.1 }),
  crossEntropyWeighted: (x) => F.crossEntropy(x, sg.tensor([1, -100, 4, 4], { dtype: 'int32' }), {
    weight: sg.tensor(Float64Array.from([0.7, 1.3, 0.9, 1.1, 0.6]), { shape: [5] }),  // gen_float64.py's CLASS_W
  }),
  flip: (x) => x.flip(0, 1),
  roll: (x) => x.roll([1, -3], [0, 1]),
  repeat: (x) => x.repeat(2, 1, 2),
  tile: (x) => x.tile([3]),
  erfinv: (x) => x.erfinv(),
  erfc: (x) => x.erfc(),
  lgamma: (x) => x.lgamma(),
  digamma: (x) => x.digamma(),
  polygamma1: (x) => sg.polygamma(1, x),
  polygamma3: (x) => sg.polygamma(3, x),
  i0: (x) => x.i0(),
  nllLoss: (x) => F.nllLoss(x, sg.tensor([1, 0, 4, 2], { dtype: 'int32' })),
  nllLossWeighted: (x) => F.nllLoss(x, sg.tensor([[1, 0], [4, -100], [2, 2], [0, 3]], { dtype: 'int32' }), {
    weight: sg.tensor(Float64Array.from([0.7, 1.3, 0.9, 1.1, 0.6]), { shape: [5] }),  // gen_float64.py's CLASS_W
    reduction: 'sum',
  }),
  // gen_float64.py's BCE_W and POS_W
  binaryCrossEntropy: (x, t) => F.binaryCrossEntropy(x, t, { weight: sg.tensor(Float64Array.from([0.6, 1.4, 0.9, 1.2]), { shape: [4] }) }),
  binaryCrossEntropyWithLogits: (x, t) => F.binaryCrossEntropyWithLogits(x, t, {
    weight: sg.tensor(Float64Array.from([0.6, 1.4, 0.9, 1.2]), { shape: [4] }),
    posWeight: sg.tensor(Float64Array.from([1.5, 0.5, 2.0, 1.0]), { shape: [4] }),
    reduction: 'sum',
  }),
  klDiv: (x, t) => F.klDiv(x, t, { reduction: 'batchmean' }),
  klDivLogTarget: (x, t) => F.klDiv(x, t, { reduction: 'mean', logTarget: true }),
  embedding: (w) => F.embedding(sg.tensor([[0, 4], [2, 2], [1, 4]], { dtype: 'int32' }), w),
  embeddingPadding: (w) => F.embedding(sg.tensor([[0, 4], [2, 2], [1, 4]], { dtype: 'int32' }), w, { paddingIdx: 2 }),
  padConstant: (x) => F.pad(x, [1, 2, 0, 1], { value: 0.3 }),
  padReflect: (x) => F.pad(x, [2, 1, 1, 2], { mode: 'reflect' }),
  padReplicate: (x) => F.pad(x, [3, 1], { mode: 'replicate' }),
  conv1d: (x, w, b) => F.conv1d(x, w, b, { stride: 2, padding: 1 }),
  conv2d: (x, w, b) => F.conv2d(x, w, b, { padding: [1, 0], dilation: [1, 2] }),
  conv2dGroups: (x, w) => F.conv2d(x, w, null, { stride: 2, groups: 2 }),
  conv3d: (x, w, b) => F.conv3d(x, w, b, { padding: 1 }),
  convTranspose1d: (x, w, b) => F.convTranspose1d(x, w, b, { stride: 2 }),
  convTranspose2d: (x, w, b) => F.convTranspose2d(x, w, b, { stride: 2, padding: 1, outputPadding: 1 }),
  convTranspose3d: (x, w) => F.convTranspose3d(x, w, null, { stride: 2 }),
  maxPool1d: (x) => F.maxPool1d(x, 3, { stride: 2, padding: 1 }),
  maxPool2d: (x) => F.maxPool2d(x, [3, 2], { stride: 2, padding: 1, ceilMode: true }),
  maxPool3d: (x) => F.maxPool3d(x, 2, { stride: 2 }),
  avgPool1d: (x) => F.avgPool1d(x, 4, { stride: 3, padding: 2 }),
  avgPool2d: (x) => F.avgPool2d(x, 3, { stride: 2, padding: 1, countIncludePad: false }),
  avgPool3d: (x) => F.avgPool3d(x, 2, { stride: 2 }),
  adaptiveAvgPool2d: (x) => F.adaptiveAvgPool2d(x, [3, 2]),
  adaptiveMaxPool2d: (x) => F.adaptiveMaxPool2d(x, [3, 2]),
  lstmProj: (x, h0, c0, wi, wh, bi, bh, wr) => rnnOut(new sg.nn.LSTM(3, 5, { projSize: 2 }),
    { weight_ih_l0: wi, weight_hh_l0: wh, bias_ih_l0: bi, bias_hh_l0: bh, weight_hr_l0: wr }, x, [h0, c0]),
  gruBidirectional: (x, h0, ...w) => rnnOut(new sg.nn.GRU(3, 4, { bidirectional: true }),
    Object.fromEntries(['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse',
      'weight_hh_l0_reverse', 'bias_ih_l0_reverse', 'bias_hh_l0_reverse'].map((n, i) => [n, w[i]])), x, h0),
  rnnReluNoBias: (x, wi, wh) => rnnOut(new sg.nn.RNN(3, 4, { nonlinearity: 'relu', bias: false }),
    { weight_ih_l0: wi, weight_hh_l0: wh }, x, null),
  mlp: (x, w1, b1, w2) => F.linear(F.linear(x, w1, b1).tanh(), w2).logSoftmax(1).mean(),
  causalSoftmax: (x) => causalSoftmax(x),
};

// gen_float64.py's rnn_out: a recurrent module (made float64) run with the given tensors as its
// parameters; its outputs and final states flattened into one tensor.
function rnnOut(module, params, x, state) {
  const [out, last] = sg.func.functionalCall(module.double(), params, [x, state]);
  return sg.cat([out.flatten(), ...(Array.isArray(last) ? last : [last]).map((t) => t.flatten())]);
}

// |got − want| ≤ rel·max(1, |want|), rel 1e-12 unless given (float32 would be off by ~1e-7).
function closeF64(got, want, what, rel = 1e-12) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const tol = rel * Math.max(1, Math.abs(want[i]));
    assert.ok(Math.abs(got[i] - want[i]) <= tol, `${what}[${i}]: got ${got[i]}, PyTorch ${want[i]} (|diff| ${Math.abs(got[i] - want[i])})`);
  }
}

const f64 = (spec, requiresGrad = true) => sg.tensor(Float64Array.from(spec.values), { shape: spec.shape, requiresGrad });

test('every case of float64_ref.json has an op here, and every op here a case', () => {
  assert.deepEqual(Object.keys(ref.cases).sort(), Object.keys(OPS).sort());
});

// The registry ops marked float64 and the cases of this file that check each one: float64_checks.mjs
// (backend_grad_completeness.test.mjs reads it too: they are the float64 gradient rows).

function float64Ops() {
  const names = new Set();
  for (const file of ['src/ops/registry_table.cpp', 'src/nn/layer_registry.cpp', 'src/nn/loss_registry.cpp',
    'src/nn/conv_pool_registry.cpp', 'src/nn/rnn_registry.cpp']) {
    const src = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    // for (const char* name : {"a", "b", ...}) t.at(name).float64 = true;  (the list may span lines)
    for (const m of src.matchAll(/\{([^{}]*)\}\)\s*t\.at\(name\)\.float64 = true/g)) {
      for (const q of m[1].matchAll(/"(\w+)"/g)) names.add(q[1]);
    }
    for (const m of src.matchAll(/t\.at\("(\w+)"\)\.float64 = true/g)) names.add(m[1]);
  }
  return names;
}

test('every op marked float64 in the registry has a float64 case checked against PyTorch', () => {
  const marked = float64Ops();
  assert.ok(marked.size >= 60, `found ${marked.size} float64 ops in the registry sources`);
  // The decompositions (linalg*) have their float64 checks in linalg_decomp.test.mjs: that file must
  // exist, test float64 and call the function (sg.linalg.svd for linalgSvd, ...).
  const decompTests = (() => {
    try {
      return readFileSync(new URL('./linalg_decomp.test.mjs', import.meta.url), 'utf8');
    } catch {
      return '';
    }
  })();
  const elsewhere = (op) => {
    if (!op.startsWith('linalg') || !decompTests.includes('float64')) return false;
    const js = op[6].toLowerCase() + op.slice(7);
    return new RegExp(`linalg\\.${js}\\b`).test(decompTests);
  };
  const missing = [...marked].filter((op) => !(FLOAT64_CHECKS[op] ?? []).some((c) => c in ref.cases) && !elsewhere(op));
  assert.deepEqual(missing, [], 'float64 ops without a case in float64_ref.json');
  const stale = Object.keys(FLOAT64_CHECKS).filter((op) => !marked.has(op));
  assert.deepEqual(stale, [], 'ops listed here that the registry no longer marks float64');
});

forEachBackend('float64 values and gradients equal PyTorch float64 to 1e-12', (backend) => {
  if (backend === 'webgpu') return;  // float64 on webgpu is an Error (its own test below)
  for (const [name, c] of Object.entries(ref.cases)) {
    sg.tidy(() => {
      const inputs = c.inputs.map((s) => f64(s));
      const y = OPS[name](...inputs);
      assert.deepEqual(y.shape, c.out.shape, `${name}: shape`);
      if (c.grads.length === 0) {  // an integer result (indices, comparisons): exact
        assert.equal(y.dtype, 'int32', `${name}: result dtype`);
        assert.deepEqual(Array.from(y.dataSync()), c.out.values, `${name} value`);
        return;
      }
      assert.equal(y.dtype, 'float64', `${name}: result dtype`);
      closeF64(Array.from(y.dataSync()), c.out.values, `${name} value`);
      const w = sg.tensor(Float64Array.from(c.w), { shape: c.out.shape });
      y.mul(w).sum().backward();
      inputs.forEach((x, i) => {
        assert.equal(x.grad.dtype, 'float64', `${name}: gradient ${i} dtype`);
        closeF64(Array.from(x.grad.dataSync()), c.grads[i], `${name} gradient ${i}`);
      });
    });
  }  // Every case passed on this backend: the support table's f64 entries (scripts/backend-support.mjs
  // reads build/float64_matrix.json) are the registry ops these cases check.
  const file = new URL('../../build/float64_matrix.json', import.meta.url);
  const matrix = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  for (const [op, cases] of Object.entries(FLOAT64_CHECKS)) {
    if (cases.some((k) => k in ref.cases)) (matrix[op] ??= {})[backend] = 'pytorch float64';
  }
  mkdirSync(new URL('../../build/', import.meta.url), { recursive: true }); // a fresh tree (Stryker's sandbox) has none
  writeFileSync(file, JSON.stringify(matrix, null, 1));
});

// Cases whose gradient is, by PyTorch's definition, not the derivative (compared with PyTorch's
// gradient above, but gradcheck would fail them in PyTorch too): embedding's padding row.
const NOT_DERIVATIVE = new Set(['embeddingPadding']);

forEachBackend('sg.autograd.gradcheck with PyTorch float64 defaults passes on every case', (backend) => {
  if (backend === 'webgpu') return;
  for (const [name, c] of Object.entries(ref.cases)) {
    sg.tidy(() => {
      const inputs = c.inputs.map((s) => f64(s));
      if (c.grads.length === 0) return;  // integer results: nothing to differentiate
      if (NOT_DERIVATIVE.has(name)) return;
      // No options: eps 1e-6, atol 1e-5, rtol 1e-3 because the inputs are float64.
      assert.equal(sg.autograd.gradcheck(OPS[name], inputs), true, name);
    });
  }
});

test('gradcheck: float64 inputs get PyTorch\'s defaults, tight enough to catch a gradient off by 1e-4', () => {
  sg.tidy(() => {
    // autograd says 2e-3·t; the function (through the detached term) also moves by 1e-4 per unit
    // of t: a mismatch of 1e-4 against atol 1e-5 + rtol 1e-3·|1e-3|, an Error in float64. Under
    // float32's defaults (atol 1e-3) the same mismatch passes, which is why float64 is the check.
    const bad = (t) => t.square().mul(1e-3).add(t.detach().mul(1e-4));
    const x64 = sg.tensor(Float64Array.from([0.3, -1.2, 0.8]), { shape: [3], requiresGrad: true });
    throwsWith(() => sg.autograd.gradcheck(bad, [x64]), 'gradcheck', 'Jacobian mismatch', 'eps 0.000001', 'atol 0.00001', 'rtol 0.001');
    const x32 = sg.tensor([0.3, -1.2, 0.8], { requiresGrad: true });
    assert.equal(sg.autograd.gradcheck(bad, [x32]), true);
    // Explicit options still win over the float64 defaults.
    assert.equal(sg.autograd.gradcheck(bad, [x64], { atol: 1e-3 }), true);
    // Second order in float64: the derivative of a float64 gradient.
    assert.equal(sg.autograd.gradgradcheck((t) => t.tanh().mul(t.exp()), [x64]), true);
  });
});

forEachBackend('mixed float32 and float64 promote as torch.result_type; gradients in each input\'s dtype', (backend) => {
  if (backend === 'webgpu') return;
  sg.tidy(() => {
    const a = sg.tensor([0.5, -1.5, 2.0], { requiresGrad: true });
    const b = sg.tensor(Float64Array.from([0.1, 0.2, 0.3]), { shape: [3], requiresGrad: true });
    const y = a.mul(b);
    assert.equal(y.dtype, 'float64');
    // 0.1 in float64 times a float32 0.5: exactly 0.05 in double, not float32's rounding.
    assert.equal(y.dataSync()[0], 0.5 * 0.1);
    y.sum().backward();
    assert.equal(a.grad.dtype, 'float32');
    assert.equal(b.grad.dtype, 'float64');
    assert.deepEqual(Array.from(a.grad.dataSync()), Array.from(Float32Array.from([0.1, 0.2, 0.3])));
    assert.deepEqual(Array.from(b.grad.dataSync()), [0.5, -1.5, 2.0]);
    // A 0-d float64 tensor does not widen a float32 tensor (torch.result_type).
    const s = sg.tensor(0.25, { dtype: 'float64' });
    assert.equal(a.mul(s).dtype, 'float32');
    assert.equal(sg.tensor(3).mul(s).dtype, 'float64');
    // A float32 → float64 cast is differentiable and its gradient comes back as float32.
    const c = sg.tensor([1, 2], { requiresGrad: true });
    c.double().square().sum().backward();
    assert.equal(c.grad.dtype, 'float32');
    assert.deepEqual(Array.from(c.grad.dataSync()), [2, 4]);
    // Gradients through the moving ops (narrow, cat) stay float64, summed in double.
    const z = sg.tensor(Float64Array.from([1, 2, 3]), { shape: [3], requiresGrad: true });
    const wz = sg.tensor(Float64Array.from([0.1, 0.2, 0.3, 0.4, 0.5]), { shape: [5] });
    sg.cat([z.narrow(0, 1, 2), z], 0).mul(wz).sum().backward();
    assert.equal(z.grad.dtype, 'float64');
    assert.deepEqual(Array.from(z.grad.dataSync()), [0.3, 0.1 + 0.4, 0.2 + 0.5]);
    // matmul refuses mixed dtypes, as PyTorch does.
    throwsWith(() => sg.ones([2, 2]).matmul(sg.ones([2, 2], { dtype: 'float64' })), 'matmul', 'float32', 'float64');
  });
});

test('float64 creation: zeros/ones/full/arange/eye/linspace/rand/randn with { dtype: \'float64\' }', () => {
  // eye's 0/1 are exact in any dtype; linspace, rand and randn compute in double (checked below).
  sg.tidy(() => {
    const made = {
      zeros: sg.zeros([2, 3], { dtype: 'float64' }),
      ones: sg.ones([2], { dtype: 'float64' }),
      full: sg.full([2], 0.1, { dtype: 'float64' }),
      arange: sg.arange(0, 1, 0.1, { dtype: 'float64' }),
      eye: sg.eye(3, { dtype: 'float64' }),
      linspace: sg.linspace(0, 1, 7, { dtype: 'float64' }),
      rand: sg.rand([4], { dtype: 'float64' }),
      randn: sg.randn([4], { dtype: 'float64' }),
    };
    for (const [name, t] of Object.entries(made)) assert.equal(t.dtype, 'float64', name);
    assert.equal(made.full.dataSync()[0], 0.1);  // held as a double, not float32's 0.10000000149
    assert.equal(made.arange.dataSync()[3], 0.30000000000000004);  // PyTorch: start + 3·step in double
  });
});

forEachBackend('float64 linspace equals torch.linspace in float64; rand/randn draw in double, reproducibly', (backend) => {
  if (backend === 'webgpu') return;
  sg.tidy(() => {
    // PyTorch's values (gen_float64.py's creation section), its symmetric formula in double, to a few
    // ulps: its CPU kernel computes whole SIMD vectors as base + i·step from the vector's first
    // index (the grouping depends on the CPU's vector width), the scalar formula rounds each index
    // from start or end. A float32 linspace widened would be ~1e-8 away.
    closeF64(Array.from(sg.linspace(-1.3, 2.9, 11, { dtype: 'float64' }).dataSync()), ref.creation.linspace, 'linspace', 1e-15);
    closeF64(Array.from(sg.linspace(0.1, 1e3, 1001, { dtype: 'float64' }).dataSync()), ref.creation.linspaceLong, 'linspace 1001', 1e-15);
    const n = 4000;
    sg.manualSeed(2027);
    const u = Array.from(sg.rand([n], { dtype: 'float64' }).dataSync());
    const z = Array.from(sg.randn([n], { dtype: 'float64' }).dataSync());
    // Drawn in double: almost no value is a float32 (a widened float32 draw would be every one).
    const notF32 = (a) => a.filter((x) => Math.fround(x) !== x).length;
    assert.ok(notF32(u) > n * 0.99 && notF32(z) > n * 0.99, `float32-representable: rand ${n - notF32(u)}, randn ${n - notF32(z)}`);
    assert.ok(u.every((x) => x >= 0 && x < 1), 'rand in [0, 1)');
    const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
    const sd = (a) => Math.sqrt(mean(a.map((x) => (x - mean(a)) ** 2)));
    // n = 4000: the standard errors are 0.0046 (uniform mean), 0.016 (normal mean), 0.011 (normal sd).
    assert.ok(Math.abs(mean(u) - 0.5) < 0.02 && Math.abs(sd(u) - Math.sqrt(1 / 12)) < 0.01, `rand mean ${mean(u)}, sd ${sd(u)}`);
    assert.ok(Math.abs(mean(z)) < 0.07 && Math.abs(sd(z) - 1) < 0.05, `randn mean ${mean(z)}, sd ${sd(z)}`);
    // The same seed gives the same doubles (on every CPU backend: drawn on the host).
    sg.manualSeed(2027);
    assert.deepEqual(Array.from(sg.rand([n], { dtype: 'float64' }).dataSync()), u);
    assert.deepEqual(Array.from(sg.randn([n], { dtype: 'float64' }).dataSync()), z);
  });
});

// The composite-op checks of ops_compose.test.mjs (float32: eps 1e-3, atol 2e-3, rtol 2e-2), again
// in float64 with PyTorch's eps 1e-6, atol 1e-5, rtol 1e-3: the same functions, inputs and
// projection (gradcheck_helpers.mjs), now checked a thousand times more tightly.
test('composite ops: the central-difference checks again in float64 with PyTorch\'s tolerances', () => {
  const v = gradInput;
  const o = { dtype: 'float64' };
  gradcheckProjected('amax', (x) => sg.amax(x, 1), [v([3, 4], 2)], o);
  gradcheckProjected('lerp', (a, b, w) => sg.lerp(a, b, w), [v([6], 3), v([6], 4), v([6], 5, -0.2, 1.2)], o);
  gradcheckProjected('logaddexp', (a, b) => sg.logaddexp(a, b), [v([5], 6, -3, 3), v([5], 7, -3, 3)], o);
  gradcheckProjected('xlogy', (a, b) => sg.xlogy(a, b), [v([5], 8), v([5], 9, 0.2, 3)], o);
  gradcheckProjected('logit', (x) => sg.logit(x), [v([5], 10, 0.1, 0.9)], o);
  gradcheckProjected('exp2', (x) => sg.exp2(x), [v([5], 13, -2, 2)], o);
  gradcheckProjected('rad2deg', (x) => sg.rad2deg(x), [v([4], 14)], o);
  gradcheckProjected('addmm', (i, a, b) => sg.addmm(i, a, b, { beta: 0.5, alpha: 2 }), [v([2, 3], 15), v([2, 4], 16), v([4, 3], 17)], o);
  gradcheckProjected('bmm', (a, b) => sg.bmm(a, b), [v([2, 2, 3], 18), v([2, 3, 2], 19)], o);
  gradcheckProjected('movedim', (x) => sg.movedim(x, [0, 1], [2, 0]), [v([2, 3, 2], 21)], o);
  gradcheckProjected('repeatInterleave', (x) => sg.repeatInterleave(x, 2, 0), [v([2, 3], 22)], o);
  gradcheckProjected('unbind', (x) => sg.unbind(x, 0)[1], [v([3, 2], 23)], o);
  gradcheckProjected('cosineSimilarity', (a, b) => sg.F.cosineSimilarity(a, b), [v([2, 4], 26), v([2, 4], 27)], o);
  gradcheckProjected('pairwiseDistance', (a, b) => sg.F.pairwiseDistance(a, b, { p: 3 }), [v([3, 2], 28), v([3, 2], 29)], o);
  gradcheckProjected('cross', (a, b) => sg.cross(a, b, 0), [v([3, 2], 31), v([3, 2], 32)], o);
});
