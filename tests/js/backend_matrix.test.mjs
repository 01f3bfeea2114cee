// The results matrix in Node: every row of backend_cases.mjs (ops forward and gradients, layers,
// losses) and every optimizer step runs on 'reference' (the oracle: scalar loops, double
// accumulators), 'wasm' and 'webgpu' (npm `webgpu` = Dawn on SwiftShader, see webgpu_env.mjs)
// and must agree within the row's tolerance (backend_matrix_run.mjs). Ops without a WGSL kernel
// run on wasm through the fallback and must agree just the same, with one console warning each.
// The matrix (op × backend: kernel / fallback / differs) goes to build/backend_matrix.{json,md};
// npm/README.md's "Backend support" is that table. tests/browser/webgpu.test.mjs runs the same
// matrix in headless Chromium.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { CASES } from './backend_cases.mjs';
import { compare, matrixMarkdown, runCase, runMatrix } from './backend_matrix_run.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
const warnings = [];
const realWarn = console.warn;
console.warn = (...args) => warnings.push(args.join(' '));
after(() => {
  console.warn = realWarn;
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

let result;

test('every op, layer, loss and optimizer step gives the reference values and gradients on wasm and webgpu', { skip }, async () => {
  result = await runMatrix(sg);
  assert.deepEqual(result.failures, []);
});

test('both GEMM variants (workgroup tiles for GPUs, registers for CPU-emulated adapters) give the reference products', { skip }, async () => {
  const { activeRuntime } = await import('../../npm/dist/esm/npm/src/runtime/webgpu_device.js');
  const prefs = activeRuntime().prefs;
  const chosen = prefs.gemm;
  const errors = [];
  try {
    for (const variant of ['tiled', 'direct']) {
      prefs.gemm = variant;
      for (const c of CASES.filter((r) => ['matmul', 'linear', 'bilinear'].includes(r.op))) {
        const want = await runCase(sg, c, 'reference');
        const diff = compare(want, await runCase(sg, c, 'webgpu'), c.tol);
        if (diff) errors.push(`${c.name} (${variant} GEMM): ${diff}`);
      }
    }
  } finally {
    prefs.gemm = chosen;
    sg.setBackend('wasm');
  }
  assert.deepEqual(errors, []);
});

test('each op without a WGSL kernel warned once, naming itself', { skip }, () => {
  const fallback = sg.webgpuCoverage().withoutKernel.map((r) => r.op);
  for (const op of fallback) {
    const mine = warnings.filter((w) => w === `simdgrad: ${op} has no webgpu kernel yet; running it on wasm`);
    assert.equal(mine.length, 1, `${op}: ${mine.length} warnings`);
  }
  const others = warnings.filter((w) => !fallback.some((op) => w.includes(`simdgrad: ${op} has no`)));
  assert.deepEqual(others, []);
});

test('every registry op has a row in the matrix', { skip }, () => {
  const covered = new Set(CASES.map((c) => c.op));
  const c = sg.webgpuCoverage();
  const ops = [...c.withKernel, ...c.withoutKernel.map((r) => r.op)];
  assert.deepEqual(ops.filter((op) => !covered.has(op)), [], 'ops without a case in backend_cases.mjs');
});

test('the matrix file', { skip }, () => {
  const dir = new URL('../../build/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('backend_matrix.json', dir), JSON.stringify(result.matrix, null, 1));
  writeFileSync(new URL('backend_matrix.md', dir), matrixMarkdown(result.matrix));
  assert.ok(Object.keys(result.matrix).length > 90);
});
