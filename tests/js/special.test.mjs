// PyTorch's special functions (npm/src/special/special.ts: sg.erfinv, erfc, lgamma, digamma, polygamma,
// i0 and sg.special) against PyTorch 1.13 (tests/data/special_ref.json, from gen_special.py):
// values with NaN, ±inf, ±0, ±1 and the poles, and the gradients of Σ out·upstream; central
// differences of first and second derivatives; the method forms; errors of bad arguments; inside
// sg.compile; on every backend (WebGPU with SG_TEST_WEBGPU=1: through the wasm fallback).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { gradcheck, readRef } from './gradcheck_helpers.mjs';
import { assertCompiledEqualsEager, checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';
import { forEachBackend } from './backends.mjs';

const REF = readRef('special_ref.json');
const S = () => sg.special;

// Each case id as the JS call (the same arguments as the PyTorch lambda).
const CALLS = {
  erfinv: (x) => sg.erfinv(x),
  'erfinv special': (x) => x.erfinv(),
  erfc: (x) => x.erfc(),
  'erfc special': (x) => sg.erfc(x),
  lgamma: (x) => sg.lgamma(x),
  'lgamma special': (x) => x.lgamma(),
  'lgamma int32': (x) => sg.lgamma(x),
  digamma: (x) => x.digamma(),
  'digamma special': (x) => sg.digamma(x),
  'digamma bool': (x) => sg.digamma(x),
  'polygamma 0': (x) => sg.polygamma(0, x),
  'polygamma 1': (x) => x.polygamma(1),
  'polygamma 2': (x) => sg.polygamma(2, x),
  'polygamma 3': (x) => S().polygamma(3, x),
  'polygamma 10': (x) => x.polygamma(10),
  'polygamma 1 special': (x) => sg.polygamma(1, x),
  'polygamma 2 special': (x) => x.polygamma(2),
  'polygamma int32': (x) => sg.polygamma(2, x),
  i0: (x) => sg.i0(x),
  'i0 branches': (x) => x.i0(),
  'i0 grad near 0 and 8': (x) => S().i0(x),
  'i0 bool': (x) => sg.i0(x),
  'special.gammaln': (x) => S().gammaln(x),
  'special.psi': (x) => S().psi(x),
  'special.expit': (x) => S().expit(x),
  'special.ndtr': (x) => S().ndtr(x),
  'special.ndtr grad': (x) => S().ndtr(x),
  'special.entr': (x) => S().entr(x),
  'special.entr grad': (x) => S().entr(x),
  'special.log1p': (x) => S().log1p(x),
  'special.expm1': (x) => S().expm1(x),
  'special.exp2': (x) => S().exp2(x),
  'special.logit': (x) => S().logit(x, 1e-3),
  'special.xlogy': (x, y) => S().xlogy(x, y),
  'special.sinc': (x) => S().sinc(x),
  'special.sinc grad': (x) => S().sinc(x),
  'special.logsumexp': (x) => S().logsumexp(x, 1),
};

// PyTorch's float kernels run the same formulas in float32 (digamma's recurrence, trigamma's
// sum, erfinv's Newton steps, i0's Chebyshev sums); ours run in double and round once, so the two
// differ by a few float32 roundings of the intermediate terms: 1e-5 relative (to 1 + |value|)
// covers them. polygamma(n ≥ 2) is n!·ζ(n+1, x), ζ in double in both; PyTorch's n! is
// exp(lgammaf(n+1)) in float, a few ulps off for n = 10.
const TOLERANCE = (id) => (/^(special\.(expit|log1p|expm1|exp2|logit|xlogy|sinc|sinc grad|logsumexp))$/.test(id) ? undefined : 1e-5);

test('special functions equal PyTorch 1.13: values, special values and gradients', () => {
  checkRefCases(REF, CALLS, TOLERANCE);
});

forEachBackend('special functions equal PyTorch on the backend', async () => {
  await checkRefCasesAsync(REF, CALLS, TOLERANCE);
});

// Values inside each function's smooth domain (away from poles, and |x| < 1 for erfinv).
const vals = (lo, hi, n, seed) => {
  let s = seed;
  return { shape: [n], data: Float32Array.from({ length: n }, () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), lo + ((hi - lo) * s) / 2 ** 32)) };
};

test('special functions: central-difference gradient checks', () => {
  gradcheck('erfinv', (x) => sg.erfinv(x), [vals(-0.9, 0.9, 6, 1)]);
  gradcheck('erfc', (x) => sg.erfc(x), [vals(-2, 2, 6, 2)]);
  gradcheck('lgamma', (x) => sg.lgamma(x), [vals(0.3, 6, 6, 3)]);
  gradcheck('lgamma negative', (x) => sg.lgamma(x), [vals(-2.8, -2.2, 4, 4)]);
  gradcheck('digamma', (x) => sg.digamma(x), [vals(0.5, 6, 6, 5)]);
  gradcheck('polygamma 1', (x) => sg.polygamma(1, x), [vals(0.8, 5, 6, 6)]);
  gradcheck('polygamma 3', (x) => sg.polygamma(3, x), [vals(1.5, 5, 6, 7)]);
  gradcheck('i0', (x) => sg.i0(x), [vals(-9, 9, 8, 8)], { rtol: 2e-2, atol: 2e-2 });
  gradcheck('special.ndtr', (x) => sg.special.ndtr(x), [vals(-3, 3, 6, 9)]);
  gradcheck('special.entr', (x) => sg.special.entr(x), [vals(0.1, 3, 6, 10)]);
});

test('special functions: second derivatives equal central differences (gradgradcheck)', () => {
  const leaf = (v) => sg.tensor(v.data, { shape: v.shape, requiresGrad: true });
  const checks = [
    ['erfinv', (x) => sg.erfinv(x), vals(-0.8, 0.8, 5, 11)],
    ['erfc', (x) => sg.erfc(x), vals(-2, 2, 5, 12)],
    ['lgamma', (x) => sg.lgamma(x), vals(0.5, 5, 5, 13)],
    ['digamma', (x) => sg.digamma(x), vals(0.8, 5, 5, 14)],
    ['polygamma 2', (x) => sg.polygamma(2, x), vals(1.5, 5, 5, 15)],
    ['i0', (x) => sg.i0(x), vals(-3, 3, 5, 16)],
  ];
  for (const [name, fn, v] of checks) {
    const x = leaf(v);
    assert.equal(sg.autograd.gradgradcheck(fn, [x]), true, name);
    x.dispose();
  }
});

test('i0\'s gradient i1 is odd and ½ at 0 in its own derivative', () => {
  sg.tidy(() => {
    const x = sg.tensor([0, 1, -1, 10], { requiresGrad: true });
    const [g] = sg.autograd.grad(sg.i0(x).sum(), [x], { createGraph: true });
    // i1(0) = 0, i1(±1) = ±0.565159104 (scipy.special.i1), i1(10) = 2670.98830 (tables)
    const gv = Array.from(g.dataSync());
    [0, 0.565159104, -0.565159104, 2670.9883].forEach((w, k) => assert.ok(Math.abs(gv[k] - w) <= 1e-5 * (1 + Math.abs(w)), `i1 ${k}: ${gv[k]}`));
    const [gg] = sg.autograd.grad(g.sum(), [x]);
    // i1'(x) = i0(x) − i1(x)/x: ½ at 0, i0(1) − i1(1) = 0.700906607 at ±1
    const ggv = Array.from(gg.dataSync());
    [0.5, 0.700906607, 0.700906607].forEach((w, k) => assert.ok(Math.abs(ggv[k] - w) <= 1e-5, `i1' ${k}: ${ggv[k]}`));
  });
});

test('sg.special names the existing functions; polygamma is a method with n first', () => {
  assert.equal(sg.special.expit, sg.sigmoid);
  assert.equal(sg.special.xlogy, sg.xlogy);
  assert.equal(sg.special.gammaln, sg.lgamma);
  assert.equal(sg.special.psi, sg.special.digamma);
  sg.tidy(() => {
    const x = sg.tensor([0.5, 2]);
    assert.deepEqual(Array.from(x.polygamma(1).dataSync()), Array.from(sg.polygamma(1, x).dataSync()));
    assert.deepEqual(Array.from(sg.polygamma(0, x).dataSync()), Array.from(sg.digamma(x).dataSync()));
  });
});

test('special functions: bad arguments are Errors naming them; nothing leaks', () => {
  const x = sg.tensor([1, 2]);
  const live = sg.memory().tensors;
  throwsWith(() => sg.tidy(() => sg.polygamma(-1, x)), 'polygamma(n, x) does not support negative n.', 'got n = -1');
  throwsWith(() => sg.tidy(() => x.polygamma(-2)), 'polygamma(n, x) does not support negative n.', 'got n = -2');
  throwsWith(() => sg.tidy(() => sg.polygamma(1.5, x)), 'polygamma: expected the order n to be an integer ≥ 0, got 1.5');
  throwsWith(() => sg.tidy(() => sg.special.polygamma('1', x)), 'special.polygamma: expected the order n to be an integer ≥ 0, got');
  throwsWith(() => sg.tidy(() => sg.polygamma(1, 'x')), 'polygamma', 'input');
  throwsWith(() => sg.tidy(() => sg.erfinv(x, { approximate: true })), 'erfinv: takes no options');
  throwsWith(() => sg.tidy(() => sg.special.entr(x, { eps: 1 })), 'special.entr: takes no options');
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});

test('special functions inside sg.compile equal the eager ones', () => {
  const a = sg.tensor([0.3, 1.7, 2.5, 4]), b = sg.tensor([-0.5, 0.2, 0.9, -0.99]);
  const fn = (p, q) => sg.lgamma(p).add(sg.digamma(p)).add(p.polygamma(2)).add(sg.i0(q)).add(sg.erfinv(q)).add(sg.erfc(q)).add(sg.special.ndtr(q)).add(sg.special.entr(p));
  assertCompiledEqualsEager(fn, [a, b]);
  sg.dispose([a, b]);
});
