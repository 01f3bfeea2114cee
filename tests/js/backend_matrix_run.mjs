// The results matrix's runner, shared by Node (backend_matrix.test.mjs) and headless Chromium
// (tests/browser/webgpu.test.mjs): runs every row of backend_cases.mjs and every optimizer step
// on 'reference' (the oracle), 'wasm' and 'webgpu', compares with the row's tolerance, and
// returns { matrix: op → backend → 'kernel' | 'fallback' | 'differs' | 'error', failures }.
// Needs an sg whose WebGPU device is started (init({ backend: 'webgpu' })). No Node APIs here.
import { CASES, OPTIMIZERS, lcg } from './backend_cases.mjs';

export const BACKENDS = ['reference', 'wasm', 'webgpu'];

function use(sg, backend) {
  sg.setBackend(backend);
  return backend === 'webgpu' ? 'webgpu' : 'cpu';
}

function make(sg, spec, device) {
  if (spec === null) return null;
  const n = spec.shape.reduce((a, c) => a * c, 1);
  if (spec.kind === 'i') return sg.tensor(Int32Array.from(spec.values), { shape: spec.shape, device });
  if (spec.kind === 'b') return sg.tensor(Uint8Array.from(spec.values), { shape: spec.shape, dtype: 'bool', device });
  return sg.tensor(lcg(n, spec.lo, spec.hi, spec.seed), { shape: spec.shape, device, requiresGrad: spec.grad });
}

/** Outputs, inputs after the op (in-place updates) and input gradients, as plain arrays. */
export async function runCase(sg, c, backend) {
  const device = use(sg, backend);
  if (c.random) sg.manualSeed(2024);
  const keep = sg.tidy(() => {
    const inputs = c.inputs.map((s) => make(sg, s, device));
    let outs = c.run(sg, ...inputs);
    outs = Array.isArray(outs) ? outs : [outs];
    let loss = null;
    outs.forEach((o, k) => {
      if (!o.requiresGrad) return;
      // Every differentiable output projected on fixed weights, and the sum differentiated.
      const w = sg.tensor(lcg(o.numel, -1, 1, 100 + k), { shape: o.shape, device: o.device });
      const term = o.mul(w).sum();
      loss = loss ? loss.add(term) : term;
    });
    if (loss) loss.backward();
    return [...outs, ...inputs.filter((t) => t), ...inputs.filter((t) => t?.requiresGrad).map((t) => t.grad)];
  });
  const values = [];
  for (const t of keep) values.push(t ? Array.from(await t.data()) : null);
  for (const t of keep) t?.dispose();
  return values;
}

/** null when `got` matches `want` (NaN equal to NaN) within |Δ| ≤ tol·(1 + |want|), else what differs. */
export function compare(want, got, tol) {
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

/** Each case on 'reference' and on 'webgpu' (the kernels under test); what differs, one line a case. */
export async function webgpuDifferences(sg, cases) {
  const out = [];
  for (const c of cases) {
    const want = await runCase(sg, c, 'reference');
    const diff = compare(want, await runCase(sg, c, 'webgpu'), c.tol);
    if (diff) out.push(`${c.name}: ${diff}`);
  }
  sg.setBackend('wasm');
  return out;
}

export async function runMatrix(sg) {
  const matrix = {};
  const failures = [];
  const mark = (op, backend, status) => {
    matrix[op] ??= {};
    const prev = matrix[op][backend];
    if (prev !== 'differs' && prev !== 'error') matrix[op][backend] = status;
  };
  const fallback = new Set(sg.webgpuCoverage().withoutKernel.map((r) => r.op));
  for (const c of CASES) {
    const results = {};
    for (const backend of BACKENDS) {
      try {
        results[backend] = await runCase(sg, c, backend);
      } catch (e) {
        failures.push(`${c.name} on ${backend}: threw ${e.message}`);
        mark(c.op, backend, 'error');
      }
    }
    if (!results.reference) continue;
    for (const backend of BACKENDS) {
      if (!results[backend]) continue;
      const diff = compare(results.reference, results[backend], c.tol);
      if (diff) {
        failures.push(`${c.name} on ${backend}: ${diff}`);
        mark(c.op, backend, 'differs');
      } else mark(c.op, backend, backend === 'webgpu' && fallback.has(c.op) ? 'fallback' : 'kernel');
    }
  }
  // Optimizer steps: three steps on a parameter with fixed gradients.
  for (const [name, options] of OPTIMIZERS) {
    const results = {};
    for (const backend of BACKENDS) {
      const device = use(sg, backend);
      const p = sg.tensor(lcg(37, -1, 1, 5), { shape: [37], device, requiresGrad: true });
      try {
        const opt = new sg.optim[name]([p], options);
        for (let step = 0; step < 3; step++) {
          p.grad = sg.tensor(lcg(37, -1, 1, 50 + step), { shape: [37], device });
          opt.step();
        }
        results[backend] = Array.from(await p.data());
        opt.dispose?.();
      } catch (e) {
        failures.push(`${name} ${JSON.stringify(options)} on ${backend}: threw ${e.message}`);
        mark(`optim.${name}`, backend, 'error');
      } finally {
        p.dispose();
      }
    }
    for (const backend of BACKENDS) {
      if (!results.reference || !results[backend]) continue;
      const diff = compare([results.reference], [results[backend]], 2e-6);
      if (diff) failures.push(`${name} ${JSON.stringify(options)} on ${backend}: ${diff}`);
      mark(`optim.${name}`, backend, diff ? 'differs' : 'kernel');
    }
  }
  sg.setBackend('wasm');
  return { matrix, failures };
}

/** The matrix as a Markdown table (npm/README.md's "Backend support"). */
export function matrixMarkdown(matrix) {
  const lines = ['| op | reference | wasm | webgpu |', '|---|---|---|---|'];
  for (const op of Object.keys(matrix).sort()) lines.push(`| ${op} | ${BACKENDS.map((b) => matrix[op][b] ?? '—').join(' | ')} |`);
  return lines.join('\n') + '\n';
}
