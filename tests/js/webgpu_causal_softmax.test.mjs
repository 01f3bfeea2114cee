// The causal softmax on WebGPU (web/webgpu/kernels/reduce.ts's softmax_causal_rows_f32, through
// Backend::softmax_causal_rows_f32 and the op causalSoftmax): values and gradients equal the
// 'reference' backend's and wasm's on odd sizes — widths around the one-invocation rows, L < S,
// L > S, L = 1, rows past 256 keys (a workgroup per row), a row whose visible scores are all −inf
// (NaN there, 0 past the diagonal) — and causal attention (F.scaledDotProductAttention isCausal).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { b, f } from './backend_cases.mjs';
import { compare, runCase, webgpuDifferences } from './backend_matrix_run.mjs';
import { causalSoftmax } from '../../npm/dist/esm/npm/src/nn/functional_layers.js';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

const cases = [];
const op = (name, shape, seed) => cases.push({ name, tol: 1e-5, inputs: [f(shape, -3, 3, seed)], run: (s, x) => causalSoftmax(x) });
[1, 2, 3, 7, 16, 17, 33, 64, 67].forEach((S, k) => op(`square ${S}`, [2, S, S], 40 + k));
op('L < S [4, 9]', [2, 4, 9], 50);
op('L > S [7, 3]', [7, 3], 51);
op('L = 1 [3, 1, 6]', [3, 1, 6], 52);
op('300 keys (workgroup rows) L < S', [5, 300], 53);
op('260 x 260 (workgroup rows, square)', [1, 260, 260], 54);
// Row 2 of 4 sees keys 0..2, all −inf: NaN there, 0 past the diagonal, other rows finite.
const minusInf = b([4, 5], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]);
cases.push({ name: 'a row of -inf scores', tol: 1e-5, inputs: [f([4, 5], -1, 1, 55), minusInf], run: (s, x, m) => causalSoftmax(x.maskedFill(m, -Infinity)) });
cases.push({ name: 'attention isCausal', tol: 1e-4, inputs: [f([2, 2, 6, 4], -1, 1, 56), f([2, 2, 6, 4], -1, 1, 57), f([2, 2, 6, 4], -1, 1, 58)], run: (s, q, k, v) => s.F.scaledDotProductAttention(q, k, v, null, { isCausal: true }) });

test('causalSoftmax on webgpu: values and gradients equal the reference backend on odd sizes', { skip }, async () => {
  assert.deepEqual(await webgpuDifferences(sg, cases), []);
});

test('causalSoftmax on webgpu equals wasm', { skip }, async () => {
  const out = [];
  for (const c of cases) {
    const diff = compare(await runCase(sg, c, 'wasm'), await runCase(sg, c, 'webgpu'), c.tol);
    if (diff) out.push(`${c.name}: ${diff}`);
  }
  sg.setBackend('wasm');
  assert.deepEqual(out, []);
});

test('causalSoftmax on webgpu: a row of -inf scores is NaN up to the diagonal and 0 past it', { skip }, async () => {
  const [y] = await runCase(sg, cases.find((c) => c.name === 'a row of -inf scores'), 'webgpu');
  sg.setBackend('wasm');
  const row2 = y.slice(10, 15);
  assert.ok(row2.slice(0, 3).every(Number.isNaN), `row 2: ${row2}`);
  assert.deepEqual(row2.slice(3), [0, 0]);
});
