// The results matrix: every row of backend_cases.mjs (ops forward and gradients, layers, losses)
// and every optimizer step runs on 'reference' (the oracle: scalar loops, double accumulators),
// 'wasm' and 'webgpu' (npm `webgpu` = Dawn on SwiftShader, see webgpu_env.mjs), and must agree
// within the row's tolerance. Ops without a WGSL kernel run on wasm through the fallback and must
// agree just the same, with one console warning each. The matrix (op × backend: kernel /
// fallback / differs) is written to build/backend_matrix.{json,md} for npm/README.md.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { CASES, OPTIMIZERS, lcg } from './backend_cases.mjs';

const BACKENDS = ['reference', 'wasm', 'webgpu'];
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
const warnings = [];
const realWarn = console.warn;
console.warn = (...args) => warnings.push(args.join(' '));
after(() => {
  console.warn = realWarn;
  sg.setBackend('wasm');
});

function use(backend) {
  sg.setBackend(backend);
  return backend === 'webgpu' ? 'webgpu' : 'cpu';
}

function make(spec, device) {
  if (spec === null) return null;
  const n = spec.shape.reduce((a, c) => a * c, 1);
  if (spec.kind === 'i') return sg.tensor(Int32Array.from(spec.values), { shape: spec.shape, device });
  if (spec.kind === 'b') return sg.tensor(Uint8Array.from(spec.values), { shape: spec.shape, dtype: 'bool', device });
  return sg.tensor(lcg(n, spec.lo, spec.hi, spec.seed), { shape: spec.shape, device, requiresGrad: spec.grad });
}

/** Outputs, inputs after the op (in-place updates) and input gradients, as plain arrays. */
async function runCase(c, backend) {
  const device = use(backend);
  if (c.random) sg.manualSeed(2024);
  const keep = sg.tidy(() => {
    const inputs = c.inputs.map((s) => make(s, device));
    let outs = c.run(sg, ...inputs);
    outs = Array.isArray(outs) ? outs : [outs];
    let loss = null;
    outs.forEach((o, k) => {
      if (!o.requiresGrad) return;
      const w = sg.tensor(lcg(o.numel, -1, 1, 100 + k), { shape: o.shape, device: o.device });
      const term = o.mul(w).sum();
      loss = loss ? loss.add(term) : term;
    });
    if (loss) loss.backward();
    return [...outs, ...inputs.filter((t) => t), ...inputs.filter((t) => t?.requiresGrad).map((t) => t.grad)];
  });
  const read = async (t) => (t ? Array.from(await t.data()) : null);
  const values = [];
  for (const t of keep) values.push(await read(t));
  for (const t of keep) t?.dispose();
  return values;
}

function compare(want, got, tol) {
  if (want.length !== got.length) return `${got.length} results where the reference gave ${want.length}`;
  for (let k = 0; k < want.length; k++) {
    const a = want[k], b = got[k];
    if ((a === null) !== (b === null)) return `result ${k}: defined on one backend only`;
    if (a === null) continue;
    if (a.length !== b.length) return `result ${k}: ${b.length} elements, reference ${a.length}`;
    for (let e = 0; e < a.length; e++) {
      const x = a[e], y = b[e];
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      if (x === y) continue;
      if (!(Math.abs(x - y) <= tol * (1 + Math.abs(x)))) return `result ${k}[${e}]: reference ${x}, got ${y}`;
    }
  }
  return null;
}

const matrix = {}; // op → backend → 'kernel' | 'fallback' | 'differs'
const failures = [];

function mark(op, backend, status) {
  matrix[op] ??= {};
  const prev = matrix[op][backend];
  if (prev === 'differs' || prev === 'error') return;
  matrix[op][backend] = status;
}

test('every op, layer and loss gives the reference values and gradients on wasm and webgpu', { skip: gpu ? false : why }, async () => {
  const coverage = sg.webgpuCoverage();
  const fallback = new Set(coverage.withoutKernel.map((r) => r.op));
  for (const c of CASES) {
    const results = {};
    for (const backend of BACKENDS) {
      try {
        results[backend] = await runCase(c, backend);
      } catch (e) {
        failures.push(`${c.name} on ${backend}: threw ${e.message}`);
        mark(c.op, backend, 'error');
      }
    }
    if (!results.reference) continue;
    for (const backend of ['reference', 'wasm', 'webgpu']) {
      if (!results[backend]) continue;
      const diff = compare(results.reference, results[backend], c.tol);
      if (diff) {
        failures.push(`${c.name} on ${backend}: ${diff}`);
        mark(c.op, backend, 'differs');
      } else mark(c.op, backend, backend === 'webgpu' && fallback.has(c.op) ? 'fallback' : 'kernel');
    }
  }
  assert.deepEqual(failures, []);
});

test('both GEMM variants (workgroup tiles for GPUs, registers for CPU-emulated adapters) give the reference products', { skip: gpu ? false : why }, async () => {
  const { activeRuntime } = await import('../../npm/dist/esm/webgpu/device.js');
  const prefs = activeRuntime().prefs;
  const chosen = prefs.gemm;
  const errors = [];
  try {
    for (const variant of ['tiled', 'direct']) {
      prefs.gemm = variant;
      for (const c of CASES.filter((r) => ['matmul', 'linear', 'bilinear'].includes(r.op))) {
        const want = await runCase(c, 'reference');
        const diff = compare(want, await runCase(c, 'webgpu'), c.tol);
        if (diff) errors.push(`${c.name} (${variant} GEMM): ${diff}`);
      }
    }
  } finally {
    prefs.gemm = chosen;
  }
  assert.deepEqual(errors, []);
});

test('every optimizer step updates parameters as the reference does', { skip: gpu ? false : why }, async () => {
  const errors = [];
  for (const [name, options] of OPTIMIZERS) {
    const results = {};
    for (const backend of BACKENDS) {
      const device = use(backend);
      const p = sg.tensor(lcg(37, -1, 1, 5), { shape: [37], device, requiresGrad: true });
      const opt = new sg.optim[name]([p], options);
      for (let step = 0; step < 3; step++) {
        p.grad = sg.tensor(lcg(37, -1, 1, 50 + step), { shape: [37], device });
        opt.step();
      }
      results[backend] = Array.from(await p.data());
      opt.dispose?.();
      p.dispose();
    }
    const label = `${name} ${JSON.stringify(options)}`;
    for (const backend of ['wasm', 'webgpu']) {
      const diff = compare([results.reference], [results[backend]], 2e-6);
      if (diff) errors.push(`${label} on ${backend}: ${diff}`);
      mark(`optim.${name}`, backend, diff ? 'differs' : 'kernel');
    }
    mark(`optim.${name}`, 'reference', 'kernel');
  }
  assert.deepEqual(errors, []);
});

test('each op without a WGSL kernel warned once, naming itself', { skip: gpu ? false : why }, () => {
  const fallback = sg.webgpuCoverage().withoutKernel.map((r) => r.op);
  for (const op of fallback) {
    const mine = warnings.filter((w) => w === `simdgrad: ${op} has no webgpu kernel yet; running it on wasm`);
    assert.equal(mine.length, 1, `${op}: ${mine.length} warnings`);
  }
  const others = warnings.filter((w) => !fallback.some((op) => w.includes(`simdgrad: ${op} has no`)));
  assert.deepEqual(others, []);
});

test('the matrix file', { skip: gpu ? false : why }, () => {
  const dir = new URL('../../build/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('backend_matrix.json', dir), JSON.stringify(matrix, null, 1));
  const ops = Object.keys(matrix).sort();
  const lines = ['| op | reference | wasm | webgpu |', '|---|---|---|---|'];
  for (const op of ops) lines.push(`| ${op} | ${BACKENDS.map((b) => matrix[op][b] ?? '—').join(' | ')} |`);
  writeFileSync(new URL('backend_matrix.md', dir), lines.join('\n') + '\n');
  assert.ok(ops.length > 90);
});
