// The WebGPU GEMM's batching and its register-blocked variant (web/webgpu/kernels/gemm.ts,
// gemm_blocked.ts) against the 'reference' backend: batched products over [B, H, T, hs] head
// views of a [B, T, 3C] tensor (offsets in a two-level pattern: one dispatch), a permuted batch
// (no pattern: split where it breaks), and the 64 × 64 blocked kernel forced for every shape
// (on SwiftShader the runtime picks the register-only kernel) on odd sizes, transposed operands
// read in place, batches, bias and fused activations, plus the results matrix's matmul rows.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { CASES, f } from './backend_cases.mjs';
import { webgpuDifferences } from './backend_matrix_run.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

test('batched matmul over head views (two-level strides) and irregular batches equal the reference', { skip }, async () => {
  const heads = (name, B, T, H, hs) => ({
    name, tol: 1e-4, inputs: [f([B, T, 3 * H * hs], -1, 1, B + T)],
    run: (s, qkv) => {
      const [q, k, v] = qkv.split(H * hs, 2).map((t) => t.view([B, T, H, hs]).transpose(1, 2));
      return q.matmul(k.transpose(-2, -1)).softmax(-1).matmul(v);
    },
  });
  const cases = [heads('B 3, T 5, 4 heads of 3', 3, 5, 4, 3), heads('B 2, T 7, 3 heads of 5', 2, 7, 3, 5), heads('B 1, T 4, 2 heads of 2', 1, 4, 2, 2)];
  // A batch whose matrices follow no two-level pattern (a permuted view): split where it breaks.
  cases.push({ name: 'permuted batch dims', tol: 1e-4, inputs: [f([3, 2, 4, 5], -1, 1, 21), f([2, 3, 5, 3], -1, 1, 22)], run: (s, a, b) => a.permute([1, 0, 2, 3]).matmul(b) });
  assert.deepEqual(await webgpuDifferences(sg, cases), []);
});

test('the register-blocked GEMM, forced for every shape, gives the reference products', { skip }, async () => {
  const { activeRuntime } = await import('../../npm/dist/esm/npm/src/runtime/webgpu_device.js');
  const prefs = activeRuntime().prefs;
  const chosen = prefs.gemm;
  const cases = CASES.filter((r) => ['matmul', 'linear', 'bilinear'].includes(r.op));
  const mm = (name, a, b, run) => cases.push({ name, tol: 1e-4, inputs: [f(a, -1, 1, a[0]), f(b, -1, 1, b[1] + 7)], run });
  mm('65 × 33 · 33 × 67 (tails on both sides)', [65, 33], [33, 67], (s, x, y) => x.matmul(y));
  mm('130 × 17 · 17 × 129', [130, 17], [17, 129], (s, x, y) => x.matmul(y));
  mm('Aᵀ·B read in place', [40, 70], [40, 66], (s, x, y) => x.T.matmul(y));
  mm('A·Bᵀ read in place', [70, 40], [66, 40], (s, x, y) => x.matmul(y.T));
  mm('Aᵀ·Bᵀ', [40, 70], [66, 40], (s, x, y) => x.T.matmul(y.T));
  mm('batch of 3, 70 × 20 · 20 × 66', [3, 70, 20], [3, 20, 66], (s, x, y) => x.matmul(y));
  mm('depth 1', [64, 1], [1, 64], (s, x, y) => x.matmul(y));
  cases.push({ name: 'linear with bias, 70 × 30 → 65', tol: 1e-4, inputs: [f([70, 30], -1, 1, 31), f([65, 30], -1, 1, 32), f([65], -1, 1, 33)], run: (s, x, w, b) => s.F.linear(x, w, b) });
  let errors;
  try {
    prefs.gemm = 'blocked';
    errors = await webgpuDifferences(sg, cases);
  } finally {
    prefs.gemm = chosen;
  }
  assert.deepEqual(errors, []);
});
