// F.crossEntropy over many classes (the language-model head's loss; the fused kernel of
// src/kernels/simd/cross_entropy.cpp on 'wasm', its scalar twin on 'reference', the WGSL row
// kernel of web/webgpu/kernels/layer.ts on 'webgpu'): the loss and the input's gradient against
// PyTorch 1.13's F.cross_entropy (tests/data/gen_cross_entropy_vocab.py: odd class counts 1–1031,
// float32 and float64, ignored rows, class weights, label smoothing, the three reductions, a
// [N, C, d] input), and the float32 gradient against central differences of the float64 loss.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
sg.setBackend('wasm');
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});
const REF = JSON.parse(readFileSync(new URL('../data/cross_entropy_vocab_ref.json', import.meta.url), 'utf8'));

// The generator's inputs (multiples of 1/128: exact in both dtypes).
const logits = (n, seed) => Float64Array.from({ length: n }, (_, i) => (((i * 7919 + seed * 104729) % 2001) - 1000) / 128);
const ints = (v) => sg.tensor(Int32Array.from(v), { shape: [v.length], dtype: 'int32' });
const weights = (C, seed) => Float64Array.from({ length: C }, (_, c) => 0.5 + ((c * 37 + seed) % 64) / 64);

/** Loss and input gradient of a reference case, on `device`, as plain arrays. */
async function run(c, device) {
  const numel = c.shape.reduce((a, b) => a * b, 1);
  const C = c.shape.length > 1 ? c.shape[1] : c.shape[0];
  const tShape = c.shape.length > 1 ? [c.shape[0], ...c.shape.slice(2)] : [];
  const x = sg.tensor(logits(numel, c.seed), { shape: c.shape, dtype: c.dtype, device, requiresGrad: true });
  const kept = sg.tidy(() => {
    const t = sg.tensor(Int32Array.from(c.target), { shape: tShape, dtype: 'int32', device });
    const w = c.weighted ? sg.tensor(weights(C, c.seed), { shape: [C], dtype: c.dtype, device }) : null;
    const loss = sg.F.crossEntropy(x, t, { weight: w, ignoreIndex: c.ignoreIndex, labelSmoothing: c.labelSmoothing, reduction: c.reduction });
    const g = c.reduction === 'none' ? sg.tensor(Float64Array.from({ length: loss.numel }, (_, r) => (r + 1) / 4), { shape: loss.shape, dtype: c.dtype, device }) : null;
    (g ? loss.mul(g).sum() : loss).backward();
    return [loss];
  });
  const out = { loss: Array.from(await kept[0].data()), shape: kept[0].shape, grad: Array.from(await x.grad.data()) };
  sg.dispose([x, ...kept]);
  return out;
}

/** The first mismatch (|got − want| > atol + rtol·|want|; null in `want` is NaN), or null. */
function mismatch(got, want, rtol, atol) {
  if (got.length !== want.length) return `length ${got.length}, expected ${want.length}`;
  for (let i = 0; i < got.length; i++) {
    const w = want[i] ?? NaN;
    const ok = Number.isNaN(w) ? Number.isNaN(got[i]) : Math.abs(got[i] - w) <= atol + rtol * Math.abs(w);
    if (!ok) return `[${i}] got ${got[i]}, expected ${w}`;
  }
  return null;
}

async function againstPyTorch(backend, device, dtypes) {
  const problems = [];
  for (const c of REF.cases.filter((k) => dtypes.includes(k.dtype))) {
    sg.setBackend(backend);
    const got = await run(c, device);
    const [rtol, atol] = c.dtype === 'float64' ? [1e-12, 1e-14] : [2e-5, 1e-6];
    assert.deepEqual(got.shape, c.lossShape, c.name);
    const bad = mismatch(got.loss, c.loss, rtol, atol) ?? mismatch(got.grad, c.grad, rtol, atol);
    if (bad) problems.push(`${c.name}: ${bad}`);
  }
  sg.setBackend('wasm');
  return problems;
}

test('F.crossEntropy on wasm: loss and gradient equal PyTorch 1.13 (odd class counts, float32 and float64)', async () => {
  assert.ok(REF.cases.length >= 40);
  assert.deepEqual(await againstPyTorch('wasm', 'cpu', ['float32', 'float64']), []);
});

test("F.crossEntropy on 'reference' (the kernels' scalar twin): equal to PyTorch 1.13 in float32", async () => {
  assert.deepEqual(await againstPyTorch('reference', 'cpu', ['float32']), []);
});

test('F.crossEntropy on webgpu (its WGSL row kernels): equal to PyTorch 1.13 in float32', { skip: gpu ? false : why }, async () => {
  assert.deepEqual(await againstPyTorch('wasm', 'webgpu', ['float32']), []);
});

test('the float32 kernel gradient over 50,257 classes equals central differences of the float64 loss', () => {
  // Two rows of a GPT-2-sized vocabulary, label smoothing and a weight, loss 'sum': the gradient
  // at a few columns (the targets, the row max, tail columns) against (L(x + h) − L(x − h)) / 2h
  // in float64 (a separate path: composed float64 ops, not the fused kernel).
  const C = 50257, R = 2, h = 1e-3;
  const x64 = logits(R * C, 5).map((v, i) => v * 0.05 + (i % 7) * 0.01);
  const tv = [123, C - 1];
  const wv = weights(C, 9);
  const opts = { labelSmoothing: 0.1, reduction: 'sum' };
  const loss64 = (xs) => sg.tidy(() => sg.F.crossEntropy(sg.tensor(xs, { shape: [R, C], dtype: 'float64' }), ints(tv),
    { ...opts, weight: sg.tensor(wv, { shape: [C], dtype: 'float64' }) }).item());
  const x = sg.tensor(Float32Array.from(x64), { shape: [R, C], requiresGrad: true });
  sg.tidy(() => { sg.F.crossEntropy(x, ints(tv), { ...opts, weight: sg.tensor(Float32Array.from(wv), { shape: [C] }) }).backward(); });
  const grad = x.grad.dataSync();
  let argmax = 0;
  for (let j = 1; j < C; j++) if (x64[j] > x64[argmax]) argmax = j;
  const at = [123, argmax, 0, C - 1, C - 2, C + 7, C + 123, 2 * C - 1];
  for (const i of at) {
    const xp = Float64Array.from(x64), xm = Float64Array.from(x64);
    // The float32 input's value, so that both sides differentiate at the same point.
    xp[i] = Math.fround(x64[i]) + h;
    xm[i] = Math.fround(x64[i]) - h;
    for (let j = 0; j < x64.length; j++) if (j !== i) xp[j] = xm[j] = Math.fround(x64[j]);
    const fd = (loss64(xp) - loss64(xm)) / (2 * h);
    assert.ok(Math.abs(grad[i] - fd) <= 1e-9 + 1e-4 * Math.abs(fd), `column ${i}: kernel ${grad[i]}, central difference ${fd}`);
  }
  sg.dispose(x);
});

test('bad targets give an Error naming the expected range; the instance stays usable', () => {
  const x = sg.randn([3, 1031]);
  const t = ints([1, 1031, 2]);
  assert.throws(() => sg.F.crossEntropy(x, t), /target 1031 is out of range for 1031 classes/);
  const ok = sg.F.crossEntropy(x, ints([1, 1030, -100]));
  assert.ok(Number.isFinite(ok.item()));
  sg.dispose([x, t, ok]);
});
