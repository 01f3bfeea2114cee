// float64 compute (issue 27, API.md "Dtypes"): every op family taught float64 gives float64
// results and float64 gradients equal to PyTorch 1.13's in float64 to ~1e-12 relative
// (tests/data/gen_float64.py → float64_ref.json: the same op by name in torch), on both CPU
// backends; sg.autograd.gradcheck with PyTorch's float64 defaults (eps 1e-6, atol 1e-5, rtol 1e-3)
// passes on them and catches a wrong gradient; mixed float32/float64 operands promote as
// torch.result_type and gradients come back in each input's dtype; float64 on webgpu is an Error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, readRef, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { gradcheck as gradcheckProjected, gradInput } from './gradcheck_helpers.mjs';

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
  mlp: (x, w1, b1, w2) => F.linear(F.linear(x, w1, b1).tanh(), w2).logSoftmax(1).mean(),
};

// |got − want| ≤ 1e-12·max(1, |want|) (float32 would be off by ~1e-7).
function closeF64(got, want, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const tol = 1e-12 * Math.max(1, Math.abs(want[i]));
    assert.ok(Math.abs(got[i] - want[i]) <= tol, `${what}[${i}]: got ${got[i]}, PyTorch ${want[i]} (|diff| ${Math.abs(got[i] - want[i])})`);
  }
}

const f64 = (spec, requiresGrad = true) => sg.tensor(Float64Array.from(spec.values), { shape: spec.shape, requiresGrad });

test('every case of float64_ref.json has an op here, and every op here a case', () => {
  assert.deepEqual(Object.keys(ref.cases).sort(), Object.keys(OPS).sort());
});

// The registry ops marked float64 (OpInfo::float64, set in src/ops/registry_table.cpp mark_float64
// and the nn registries), read from the source, and the cases of this file that check each one's
// float64 values and gradients against PyTorch: a newly marked op without a case fails here, and
// the table says which ops have a float64 check.
const FLOAT64_CHECKS = {
  add: ['add', 'addNumber'], sub: ['sub'], mul: ['mul', 'mulNumber'], div: ['div'], pow: ['pow'],
  maximum: ['maximum'], minimum: ['minimum'], eq: ['compare'], ne: ['compare'], lt: ['compare'], le: ['compare'],
  gt: ['compare', 'whereGt'], ge: ['compare'], matmul: ['matmul', 'matmulBatched', 'matmulVec'], neg: ['neg'],
  exp: ['exp'], log: ['log'], log2: ['log2'], log10: ['log10'], log1p: ['log1p'], expm1: ['expm1'], sqrt: ['sqrt'],
  rsqrt: ['rsqrt'], abs: ['abs'], sign: ['sign'], sin: ['sin'], cos: ['cos'], erf: ['erf'], square: ['square'],
  reciprocal: ['reciprocal'], relu: ['relu'], selu: ['selu'], sigmoid: ['sigmoid'], tanh: ['tanh'], silu: ['silu'],
  where: ['whereGt'], maskedFill: ['maskedFill'], clamp: ['clamp'], leakyRelu: ['leakyRelu'], elu: ['elu'],
  gelu: ['gelu', 'geluTanh'], softplus: ['softplus'], hardtanh: ['hardtanh'], softmax: ['softmax'],
  logSoftmax: ['logSoftmax', 'mlp'], sum: ['sumAll', 'sumDim'], mean: ['mean'], prod: ['prod'], max: ['amax'],
  min: ['amin'], logsumexp: ['logsumexp'], var: ['var'], std: ['std'], norm: ['norm'], argmax: ['argmax'],
  argmin: ['argmin'], cumsum: ['cumsum'], sort: ['sortValues'], argsort: ['argsort'], topk: ['topkValues'],
  scatter: ['scatter'], scatterAdd: ['scatterAdd'], linear: ['linear', 'mlp'], layerNorm: ['layerNorm'],
  batchNorm: ['batchNorm'], groupNorm: ['groupNorm'], instanceNorm: ['instanceNorm'], mseLoss: ['mseLoss'],
  l1Loss: ['l1Loss'], smoothL1Loss: ['smoothL1Loss'], huberLoss: ['huberLoss'],
  crossEntropy: ['crossEntropy', 'crossEntropyWeighted'],
};

function float64Ops() {
  const names = new Set();
  for (const file of ['src/ops/registry_table.cpp', 'src/nn/layer_registry.cpp', 'src/nn/loss_registry.cpp']) {
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
  }
});

forEachBackend('sg.autograd.gradcheck with PyTorch float64 defaults passes on every case', (backend) => {
  if (backend === 'webgpu') return;
  for (const [name, c] of Object.entries(ref.cases)) {
    sg.tidy(() => {
      const inputs = c.inputs.map((s) => f64(s));
      if (c.grads.length === 0) return;  // integer results: nothing to differentiate
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
  // linspace, eye, rand and randn compute in float32 and cast (their values are not checked here).
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
