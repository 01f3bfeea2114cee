// The composite ops of gen_ops_compose.py (isnan … quantile, meshgrid: npm/src/tensor/pointwise.ts,
// reductions.ts, products.ts, rearranging.ts, statistics.ts), F.cosineSimilarity/pairwiseDistance/pixelShuffle/
// pixelUnshuffle and the padding, pixel-shuffle and distance modules, against PyTorch 1.13 (tests/data/ops_compose_ref.json,
// from gen_ops_compose.py): values (NaN and infinities included) and the gradients of
// Σ out·upstream; central-difference gradient checks of every differentiable one; the method
// forms; the errors of bad arguments; no tensor left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { gradcheck, readRef, gradInput } from './gradcheck_helpers.mjs';
import { checkRefCases } from './ref_cases.mjs';

const REF = readRef('ops_compose_ref.json');

// Each case id as the JS call (the same arguments as the PyTorch lambda).
const CALLS = {
  isnan: (x) => sg.isnan(x),
  isinf: (x) => sg.isinf(x),
  isfinite: (x) => x.isfinite(),
  'isfinite int32': (x) => sg.isfinite(x),
  nanToNum: (x) => sg.nanToNum(x),
  'nanToNum options': (x) => x.nanToNum({ nan: -1, posinf: 7, neginf: -7 }),
  'nanToNum grad': (x) => sg.nanToNum(x, { nan: 0.5 }),
  'amax dim 1': (x) => sg.amax(x, 1),
  'amax all keepdim': (x) => x.amax([0, 1], true),
  'amin dim 0': (x) => sg.amin(x, 0),
  'lerp scalar low': (a, b) => sg.lerp(a, b, 0.3),
  'lerp scalar high': (a, b) => a.lerp(b, 0.8),
  'lerp tensor': (a, b, w) => sg.lerp(a, b, w),
  logaddexp: (a, b) => sg.logaddexp(a, b),
  'logaddexp large': (a, b) => a.logaddexp(b),
  'logaddexp infinities': (a, b) => sg.logaddexp(a, b),
  xlogy: (a, b) => sg.xlogy(a, b),
  'xlogy nan': (a, b) => a.xlogy(b),
  logit: (x) => sg.logit(x),
  'logit eps': (x) => x.logit(0.1),
  sinc: (x) => sg.sinc(x),
  frac: (x) => x.frac(),
  exp2: (x) => sg.exp2(x),
  rad2deg: (x) => sg.rad2deg(x),
  deg2rad: (x) => x.deg2rad(),
  clampMin: (x) => sg.clampMin(x, -0.5),
  clampMax: (x) => x.clampMax(0.25),
  bmm: (a, b) => sg.bmm(a, b),
  mv: (a, b) => a.mv(b),
  dot: (a, b) => sg.dot(a, b),
  addmm: (i, a, b) => sg.addmm(i, a, b),
  'addmm beta alpha': (i, a, b) => i.addmm(a, b, { beta: 0.5, alpha: -2 }),
  'addmm beta 0': (i, a, b) => sg.addmm(i, a, b, { beta: 0 }),
  trace: (x) => sg.trace(x),
  'unbind 1': (x) => x.unbind(1),
  movedim: (x) => sg.movedim(x, 0, 2),
  'movedim lists': (x) => x.movedim([0, 3], [2, 0]),
  swapaxes: (x) => sg.swapaxes(x, 0, 2),
  'repeatInterleave dim': (x) => x.repeatInterleave(3, 1),
  'repeatInterleave flat': (x) => sg.repeatInterleave(x, 2),
  'meshgrid ij': (a, b, c) => sg.meshgrid(a, b, c, { indexing: 'ij' }),
  'meshgrid xy': (a, b) => sg.meshgrid([a, b], { indexing: 'xy' }),
  cross: (a, b) => sg.cross(a, b, 1),
  'cross default dim': (a, b) => a.cross(b),
  'cross broadcast': (a, b) => sg.cross(a, b, -1),
  kthvalue: (x) => { const r = sg.kthvalue(x, 2, 1); return [r.values, r.indices]; },
  'kthvalue keepdim dim 0': (x) => { const r = x.kthvalue(4, 0, true); return [r.values, r.indices]; },
  'median all': (x) => sg.median(x),
  'median dim': (x) => { const r = x.median(1); return [r.values, r.indices]; },
  'median even keepdim': (x) => { const r = sg.median(x, 0, true); return [r.values, r.indices]; },
  'median nan': (x) => { const r = sg.median(x, 1); return [r.values, r.indices]; },
  'median all nan': (x) => x.median(),
  quantile: (x) => sg.quantile(x, 0.3),
  'quantile list dim': (x) => x.quantile([0, 0.25, 0.5, 1], 1),
  'quantile keepdim': (x) => sg.quantile(x, 0.6, 0, true),
  'quantile all keepdim list': (x) => sg.quantile(x, sg.tensor([0.1, 0.9]), null, true),
  'quantile lower': (x) => sg.quantile(x, [0.3, 0.5, 0.7], 1, false, { interpolation: 'lower' }),
  'quantile higher': (x) => sg.quantile(x, [0.3, 0.5, 0.7], 1, false, { interpolation: 'higher' }),
  'quantile midpoint': (x) => sg.quantile(x, [0.3, 0.5, 0.7], 1, false, { interpolation: 'midpoint' }),
  'quantile nearest': (x) => sg.quantile(x, [0.3, 0.5, 0.7], 1, false, { interpolation: 'nearest' }),
  'quantile nearest off-tie': (x) => sg.quantile(x, [0.1, 0.2, 0.62], 1, false, { interpolation: 'nearest' }),
  'quantile nan': (x) => sg.quantile(x, 0.5, 1),
  'F.cosineSimilarity': (a, b) => sg.F.cosineSimilarity(a, b),
  'F.cosineSimilarity broadcast dim -1': (a, b) => sg.F.cosineSimilarity(a, b, { dim: -1, eps: 1e-6 }),
  'F.cosineSimilarity tiny': (a, b) => sg.F.cosineSimilarity(a, b),
  'F.pairwiseDistance': (a, b) => sg.F.pairwiseDistance(a, b),
  'F.pairwiseDistance p1 keepdim': (a, b) => sg.F.pairwiseDistance(a, b, { p: 1, keepdim: true }),
  'F.pairwiseDistance inf': (a, b) => sg.F.pairwiseDistance(a, b, { p: Infinity }),
  'F.pixelShuffle': (x) => sg.F.pixelShuffle(x, 2),
  'F.pixelUnshuffle': (x) => sg.F.pixelUnshuffle(x, 2),
  'nn.ZeroPad2d': (x) => new sg.nn.ZeroPad2d(1)(x),
  'nn.ConstantPad1d': (x) => new sg.nn.ConstantPad1d([1, 2], 3.5)(x),
  'nn.ReflectionPad2d': (x) => new sg.nn.ReflectionPad2d([1, 1, 2, 0])(x),
  'nn.ReplicationPad1d': (x) => new sg.nn.ReplicationPad1d(2)(x),
  'nn.PixelShuffle': (x) => new sg.nn.PixelShuffle(3)(x),
  'nn.CosineSimilarity': (a, b) => new sg.nn.CosineSimilarity({ dim: 0 })(a, b),
  'nn.PairwiseDistance': (a, b) => new sg.nn.PairwiseDistance({ p: 3 })(a, b),
};

test('every composite op equals PyTorch 1.13: values, special values and gradients', () => {
  checkRefCases(REF, CALLS);
});

test('sinc near 0: value and gradient against their closed forms (no float32 cancellation)', () => {
  // d/dx sin(πx)/(πx) = π·(u·cos u − sin u)/u², u = πx; in double by its series where that
  // difference would cancel even there. Both sides of the series/quotient switch at |u| = 0.5.
  const xs = [1e-6, -1e-4, 1e-3, 0.01, -0.05, 0.1, 0.159, 0.16, -0.161, 0.3, 1.7];
  const exact = (x) => {
    const u = Math.PI * x;
    if (Math.abs(u) < 0.1) {
      const s = u * u;
      return { value: 1 - s / 6 + (s * s) / 120 - (s * s * s) / 5040, grad: Math.PI * (-u / 3 + (u * s) / 30 - (u * s * s) / 840) };
    }
    return { value: Math.sin(u) / u, grad: (Math.PI * (u * Math.cos(u) - Math.sin(u))) / (u * u) };
  };
  const x = sg.tensor(xs, { requiresGrad: true });
  const y = sg.sinc(x);
  y.sum().backward();
  const values = y.dataSync(), grads = x.grad.dataSync();
  xs.forEach((xi, i) => {
    const e = exact(Math.fround(xi));
    assert.ok(Math.abs(values[i] - e.value) <= 2e-7, `sinc(${xi}) = ${values[i]}, expected ${e.value}`);
    assert.ok(Math.abs(grads[i] - e.grad) <= 1e-5 * Math.abs(e.grad) + 1e-12,
      `sinc'(${xi}) = ${grads[i]}, expected ${e.grad}`);
  });
  sg.dispose([x, y]);
});

test('composite ops: central-difference gradient checks', () => {
  const v = gradInput;
  gradcheck('nanToNum', (x) => sg.nanToNum(x), [v([5], 1)]);
  gradcheck('amax', (x) => sg.amax(x, 1), [v([3, 4], 2)]);
  gradcheck('lerp', (a, b, w) => sg.lerp(a, b, w), [v([6], 3), v([6], 4), v([6], 5, -0.2, 1.2)]);
  gradcheck('logaddexp', (a, b) => sg.logaddexp(a, b), [v([5], 6, -3, 3), v([5], 7, -3, 3)]);
  gradcheck('xlogy', (a, b) => sg.xlogy(a, b), [v([5], 8), v([5], 9, 0.2, 3)]);
  gradcheck('logit', (x) => sg.logit(x), [v([5], 10, 0.1, 0.9)]);
  gradcheck('sinc', (x) => sg.sinc(x), [v([6], 11, -2, 2)]);
  gradcheck('frac', (x) => sg.frac(x), [v([5], 12, 0.1, 0.9)]);
  gradcheck('exp2', (x) => sg.exp2(x), [v([5], 13, -2, 2)]);
  gradcheck('rad2deg', (x) => sg.rad2deg(x), [v([4], 14)], { rtol: 2e-2, atol: 2e-1 });
  gradcheck('addmm', (i, a, b) => sg.addmm(i, a, b, { beta: 0.5, alpha: 2 }), [v([2, 3], 15), v([2, 4], 16), v([4, 3], 17)]);
  gradcheck('bmm', (a, b) => sg.bmm(a, b), [v([2, 2, 3], 18), v([2, 3, 2], 19)]);
  gradcheck('trace', (x) => sg.trace(x), [v([3, 3], 20)]);
  gradcheck('movedim', (x) => sg.movedim(x, [0, 1], [2, 0]), [v([2, 3, 2], 21)]);
  gradcheck('repeatInterleave', (x) => sg.repeatInterleave(x, 2, 0), [v([2, 3], 22)]);
  gradcheck('unbind', (x) => sg.unbind(x, 0)[1], [v([3, 2], 23)]);
  gradcheck('cosineSimilarity', (a, b) => sg.F.cosineSimilarity(a, b), [v([2, 4], 26), v([2, 4], 27)]);
  gradcheck('pairwiseDistance', (a, b) => sg.F.pairwiseDistance(a, b, { p: 3 }), [v([3, 2], 28), v([3, 2], 29)]);
  gradcheck('pixelShuffle', (x) => sg.F.pixelShuffle(x, 2), [v([1, 4, 1, 2], 30)]);
  gradcheck('cross', (a, b) => sg.cross(a, b, 0), [v([3, 2], 31), v([3, 2], 32)]);
  gradcheck('quantile', (x) => sg.quantile(x, [0.2, 0.7], 1), [v([2, 5], 35)]);  // (seed 33 has two values 3e-4 apart: a reorder within ±eps)
  gradcheck('median', (x) => sg.median(x, 1).values, [v([3, 5], 34)]);
  gradcheck('meshgrid', (a, b) => sg.meshgrid(a, b)[0].mul(sg.meshgrid(a, b)[1]), [v([2], 24), v([3], 25)]);
});

test('composite ops: bad arguments are Errors naming them; nothing leaks', () => {
  const x = sg.randn([2, 3]);
  const live = sg.memory().tensors;
  throwsWith(() => sg.tidy(() => sg.bmm(x, x)), 'bmm', "'input' to be 3-D", '[2, 3]');
  throwsWith(() => sg.tidy(() => sg.bmm(sg.zeros([2, 3, 4]), sg.zeros([3, 4, 5]))), 'bmm: expected batch sizes to match, got 2 and 3');
  throwsWith(() => sg.tidy(() => sg.dot(sg.zeros([3]), sg.zeros([4]))), 'dot: expected 1-D tensors of one size, got 3 and 4');
  throwsWith(() => sg.tidy(() => sg.mv(x, x)), 'mv', "'vec' to be 1-D");
  throwsWith(() => sg.tidy(() => sg.addmm(x, x, [1, 2])), 'addmm', "'mat2' to be a Tensor");
  throwsWith(() => sg.tidy(() => sg.addmm(x, x, x.transpose(0, 1), { gamma: 1 })), 'addmm', 'gamma');
  throwsWith(() => sg.tidy(() => sg.unbind(x, 2)), 'unbind', "'dim'", '[-2, 1]');
  throwsWith(() => sg.tidy(() => sg.movedim(x, [0, 1], [1])), 'movedim', 'one length');
  throwsWith(() => sg.tidy(() => sg.movedim(x, [0, 0], [0, 1])), 'movedim: repeated dims');
  throwsWith(() => sg.tidy(() => sg.repeatInterleave(x, 1.5)), 'repeatInterleave', "'repeats'", '1.5');
  throwsWith(() => sg.tidy(() => sg.repeatInterleave(x, sg.tensor([1, 2]))), 'repeatInterleave', 'a tensor of repeats is not supported');
  throwsWith(() => sg.tidy(() => sg.logit(x, 0.7)), 'logit', "'eps'", '[0, 0.5]');
  throwsWith(() => sg.tidy(() => sg.meshgrid(x)), 'meshgrid', '1-D');
  throwsWith(() => sg.tidy(() => sg.meshgrid(sg.zeros([2]), { indexing: 'yx' })), 'meshgrid', 'indexing');
  throwsWith(() => sg.tidy(() => sg.nanToNum(x, { nan: 'zero' })), 'nanToNum', 'nan');
  throwsWith(() => sg.tidy(() => sg.lerp(x, x, 0.5, { foo: 1 })), 'lerp: takes no options');
  throwsWith(() => sg.tidy(() => sg.cross(sg.zeros([2, 2]), sg.zeros([2, 2]))), 'cross: no dim of size 3', "give 'dim'");
  throwsWith(() => sg.tidy(() => sg.cross(sg.zeros([2, 3]), sg.zeros([3]))), 'cross: expected inputs with the same number of dims');
  throwsWith(() => sg.tidy(() => sg.cross(sg.zeros([3, 2]), sg.zeros([3, 2]), 1)), 'cross: expected dim 1 of both inputs to have size 3');
  throwsWith(() => sg.tidy(() => sg.kthvalue(x, 4, 1)), 'kthvalue', "'k'", '[1, 3]');
  throwsWith(() => sg.tidy(() => sg.quantile(x, 1.5)), 'quantile', "'q' in [0, 1]", '1.5');
  throwsWith(() => sg.tidy(() => sg.quantile(x, 0.5, 1, false, { interpolation: 'cubic' })), 'quantile', 'interpolation');
  throwsWith(() => sg.tidy(() => sg.F.pixelShuffle(sg.zeros([1, 3, 2, 2]), 2)), 'pixelShuffle', 'divisible by 4', '[1, 3, 2, 2]');
  throwsWith(() => sg.tidy(() => sg.F.pixelUnshuffle(sg.zeros([1, 1, 3, 4]), 2)), 'pixelUnshuffle', 'divisible by 2');
  throwsWith(() => sg.tidy(() => sg.F.cosineSimilarity(x, [1, 2])), 'cosineSimilarity', "'x2' to be a Tensor");
  throwsWith(() => sg.tidy(() => sg.F.pairwiseDistance(x, x, { q: 1 })), 'pairwiseDistance', 'q');
  throwsWith(() => new sg.nn.ZeroPad2d([1, 2]), 'ZeroPad2d', "'padding'", '4 integers');
  throwsWith(() => new sg.nn.ReflectionPad1d(-1), 'ReflectionPad1d', "'padding'");
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});

test('composite ops inside sg.compile equal the eager ones', () => {
  const a = sg.randn([3, 4]), b = sg.randn([3, 4]), w = sg.rand([3, 4]);
  const fn = (p, q, r) => sg.logaddexp(sg.lerp(p, q, r), q).nanToNum().amax(1).add(sg.xlogy(r, q.abs().add(1)).sum());
  const compiled = sg.compile(fn);
  const eager = sg.tidy(() => Array.from(fn(a, b, w).dataSync()));
  compiled(a, b, w);
  assert.deepEqual(sg.tidy(() => Array.from(compiled(a, b, w).dataSync())), eager);
  compiled.clear();
  sg.dispose([a, b, w]);
});
