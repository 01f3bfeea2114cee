// Completeness of the gradient checks of the results matrix (backend_cases.mjs, run by
// backend_matrix.test.mjs on every backend, gradients compared with the reference backend's):
// backend_matrix.test.mjs already requires a row per registry op; this file requires
//  1. a row with gradients for every op that is differentiable: each row run without gradients is
//     run once more with its float inputs requiring grad, and if an output then requires grad,
//     the op must have a row whose inputs require grad (else its gradient is never compared);
//  2. for every device and dtype that the support table (npm/README.md, "Backend support") lists,
//     that the matrix runs on that device, and that each differentiable op listed in a floating
//     dtype has a row with gradients in that dtype. The table's columns are read, not assumed: a
//     "dtype" (or "dtypes") column, when the table has one, names the dtypes of each op's row;
//     without it every op is float32 only. An input spec's dtype is its `dtype` field, else its
//     kind's (f: float32, i: int32, b: bool);
//  3. for every (op, device, dtype) the table lists (a device whose cell says kernel or fallback;
//     float32 there, plus the dtypes column on the devices its paragraph names, plus on webgpu the
//     dtypes of the cell's "webgpu: …" part), a gradient check that runs on that device in that
//     dtype: float32 in the results matrix (BACKENDS); float16/bfloat16 in dtype_compute.test.mjs
//     (the backends its loop runs, read from the file) or dtype_grads_16bit.test.mjs (its BACKENDS,
//     read from the file: the one that runs 16-bit gradients on webgpu); float64 in
//     float64.test.mjs (its cases of float64_checks.mjs, a forEachBackend test: reference and wasm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg } from './helpers.mjs';
import { CASES, lcg } from './backend_cases.mjs';
import { BACKENDS } from './backend_matrix_run.mjs';
import { FLOAT64_CHECKS } from './float64_checks.mjs';
import { availableBackends } from './backends.mjs';

const FLOATING = new Set(['float16', 'bfloat16', 'float32', 'float64']);
const KIND_DTYPE = { f: 'float32', i: 'int32', b: 'bool' };
const dtypeOf = (spec) => spec.dtype ?? KIND_DTYPE[spec.kind];
const gradDtypes = (c) => c.inputs.filter((s) => s?.grad).map(dtypeOf);

/** op -> the dtypes in which some row checks its gradients. */
const gradRows = new Map();
const addGradRow = (op, d) => {
  if (!gradRows.has(op)) gradRows.set(op, new Set());
  gradRows.get(op).add(d);
};
for (const c of CASES) for (const d of gradDtypes(c)) addGradRow(c.op, d);
// The half-precision gradients are compared with PyTorch by dtype_compute.test.mjs, from these cases.
const DTYPE_CASES = JSON.parse(readFileSync(new URL('../data/dtype_compute_ref.json', import.meta.url), 'utf8')).cases;
// A case without gradients there is an op whose results in that dtype are integer or bool (argmax, eq):
// nothing to differentiate.
const integerResults = new Set();
for (const c of DTYPE_CASES) {
  if (Array.isArray(c.grads) && c.grads.some((g) => g !== null)) addGradRow(c.op, c.dtype);
  else integerResults.add(`${c.op} ${c.dtype}`);
}
// The float64 gradients are compared with PyTorch by float64.test.mjs: its cases (float64_ref.json)
// of each op marked float64 (float64_checks.mjs); a case without gradients has an integer result.
const F64_CASES = JSON.parse(readFileSync(new URL('../data/float64_ref.json', import.meta.url), 'utf8')).cases;
for (const [op, names] of Object.entries(FLOAT64_CHECKS)) {
  for (const name of names.filter((n) => n in F64_CASES)) {
    if (F64_CASES[name].grads.length > 0) addGradRow(op, 'float64');
    else integerResults.add(`${op} float64`);
  }
}
// The 16-bit gradients of the ops the table lists in float16/bfloat16 on webgpu, compared with
// PyTorch by dtype_grads_16bit.test.mjs on each of its backends (webgpu among them).
const GRADS_16BIT_CASES = JSON.parse(readFileSync(new URL('../data/dtype_grads_16bit_ref.json', import.meta.url), 'utf8')).cases;
for (const c of GRADS_16BIT_CASES) if (c.grads?.some((g) => g !== null)) addGradRow(c.op, c.dtype);
/** The support table's dtype column abbreviates (scripts/backend-support.mjs). */
const ABBREVIATED = { f16: 'float16', bf16: 'bfloat16', f64: 'float64', i8: 'int8', u8: 'uint8', i64: 'int64' };

/**
 * The dtypes a dtypes cell lists for the CPU backends: without its "webgpu: …" part (that part
 * names the dtypes whose values webgpu_dtypes.test.mjs compares on webgpu, not gradients).
 */
const cpuDtypes = (cell) => cell.split(';').filter((part) => !/^\s*webgpu:/.test(part)).join(' ')
  .split(/[\s,]+/).filter((x) => x && x !== '—');

/** The support table of npm/README.md: { columns, rows: [{ cells by column name }] }. */
function supportTable() {
  const readme = readFileSync(new URL('../../npm/README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## Backend support$/m)[1];
  assert.ok(section, 'npm/README.md has a "## Backend support" section');
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  const split = (l) => l.split('|').slice(1, -1).map((c) => c.trim().replace(/^`|`$/g, ''));
  const columns = split(lines[0]);
  const rows = lines.slice(2).map((l) => Object.fromEntries(split(l).map((c, k) => [columns[k], c])));
  return { columns, rows };
}

/**
 * The autograd-state ops (registered in src/graph/effect_ops.cpp: backward, setGrad, computeGrads,
 * ...): their rows test that state on each device (the gradients they produce are of other ops);
 * they are not differentiable functions themselves.
 */
const effectOps = new Set([...readFileSync(new URL('../../src/graph/effect_ops.cpp', import.meta.url), 'utf8')
  .matchAll(/\badd\(\s*t,\s*"(\w+)"/g)].map((m) => m[1]));

/** Runs row `c` on wasm with its float inputs requiring grad or not; what its outputs say. */
function probe(c, grad) {
  sg.setBackend('wasm');
  return sg.tidy(() => {
    if (c.random) sg.manualSeed(2024);
    const inputs = c.inputs.map((s) => {
      if (s === null) return null;
      const n = s.shape.reduce((a, k) => a * k, 1);
      if (s.kind === 'i') return sg.tensor(Int32Array.from(s.values), { shape: s.shape });
      if (s.kind === 'b') return sg.tensor(Uint8Array.from(s.values), { shape: s.shape, dtype: 'bool' });
      return sg.tensor(lcg(n, s.lo, s.hi, s.seed), { shape: s.shape, requiresGrad: grad });
    });
    const out = [c.run(sg, ...inputs)].flat().find((o) => o?.requiresGrad);
    if (!out) return 'no grad';
    try {
      out.sum().backward();
    } catch {
      return 'backward refused'; // as PyTorch's floor_divide: the output requires grad, backward is an Error
    }
    return 'differentiable';
  });
}

test('every op whose output can require grad has a matrix row that checks its gradients', () => {
  const missing = new Set();
  for (const c of CASES) {
    if (gradRows.has(c.op) || effectOps.has(c.op) || !c.inputs.some((s) => s?.kind === 'f')) continue;
    let verdict;
    try {
      // A row whose outputs require grad with no input requiring it makes its own leaves (the
      // autograd-state rows: setRequiresGrad, setGrad, sg.grad): it tests that state, not a gradient.
      if (probe(c, false) !== 'no grad') continue;
      verdict = probe(c, true);
    } catch {
      continue; // the op refuses inputs that require grad (an in-place op on a leaf)
    }
    if (verdict === 'differentiable') missing.add(`${c.op} (row "${c.name}")`);
  }
  assert.ok(effectOps.has('backward') && effectOps.has('setGrad'), `effect_ops.cpp read: ${[...effectOps]}`);
  assert.deepEqual([...missing], [], 'differentiable ops without a row whose inputs require grad (backend_cases.mjs f(...))');
});

test('the support table lists only devices the matrix runs, and a gradient row for each differentiable op in each floating dtype it lists', () => {
  const { columns, rows } = supportTable();
  assert.equal(columns[0], 'op');
  const dtypeColumn = columns.find((c) => /^dtypes?$/i.test(c));
  const devices = columns.filter((c) => c !== 'op' && c !== dtypeColumn);
  assert.ok(devices.length > 0);
  assert.deepEqual(devices.filter((d) => !BACKENDS.includes(d)), [], 'table columns that the matrix runner does not run on');
  const missing = [];
  let checked = 0;
  for (const row of rows) {
    const op = row.op;
    if (!gradRows.has(op)) continue; // not differentiable (the first test keeps that honest)
    // The column lists the dtypes besides float32/int32/bool, so float32 is always there.
    const extra = dtypeColumn ? cpuDtypes(row[dtypeColumn]) : [];
    const listed = ['float32', ...extra.map((x) => ABBREVIATED[x] ?? x)];
    for (const d of listed.filter((x) => FLOATING.has(x) && !integerResults.has(`${op} ${x}`))) {
      checked++;
      if (!gradRows.get(op).has(d)) missing.push(`${op} ${d}`);
    }
  }
  assert.ok(checked > 100, `only ${checked} (op, dtype) pairs checked: the table is not being read`);
  assert.deepEqual(missing, [], '(op, dtype) pairs the support table lists without a gradient row in that dtype');
});

/**
 * The devices on which the support table says its dtypes column was compared: the backends named
 * (`reference`, `wasm`, ...) in the paragraph that introduces that column.
 */
function dtypeColumnDevices() {
  const readme = readFileSync(new URL('../../npm/README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## Backend support$/m)[1];
  const paragraph = section.split(/\n\s*\n/).find((p) => /dtypes column/i.test(p)) ?? '';
  return [...paragraph.matchAll(/`(\w+)`/g)].map((m) => m[1]).filter((w) => BACKENDS.includes(w));
}

/** The backends dtype_compute.test.mjs runs its cases (values and gradients) on, read from its loop. */
function dtypeComputeBackends() {
  const text = readFileSync(new URL('./dtype_compute.test.mjs', import.meta.url), 'utf8');
  const loop = text.match(/for \(const backend of \[([^\]]*)\]\)/);
  assert.ok(loop, 'dtype_compute.test.mjs loops over a literal list of backends');
  return [...loop[1].matchAll(/'(\w+)'/g)].map((m) => m[1]);
}

/** The backends dtype_grads_16bit.test.mjs runs every case of its reference on: its BACKENDS list. */
function grads16BitBackends() {
  const text = readFileSync(new URL('./dtype_grads_16bit.test.mjs', import.meta.url), 'utf8');
  const list = text.match(/const BACKENDS = \[([^\]]*)\];/);
  assert.ok(list && /for \(const backend of BACKENDS\)/.test(text), 'dtype_grads_16bit.test.mjs runs its cases over a literal BACKENDS list');
  return [...list[1].matchAll(/'(\w+)'/g)].map((m) => m[1]);
}

/** The backends float64.test.mjs compares float64 gradients with PyTorch's on (a forEachBackend test). */
function float64Backends() {
  const text = readFileSync(new URL('./float64.test.mjs', import.meta.url), 'utf8');
  assert.match(text, /forEachBackend\('float64 values and gradients/, 'float64.test.mjs compares gradients on every backend');
  return availableBackends().filter((b) => b !== 'webgpu'); // float64 has no GPU storage
}

/** The dtypes the "webgpu: …" part of a dtypes cell lists (full names). */
const webgpuDtypes = (cell) => (cell.split(';').find((part) => /^\s*webgpu:/.test(part)) ?? '')
  .replace(/^\s*webgpu:/, '').split(/[\s,]+/).filter(Boolean).map((x) => ABBREVIATED[x] ?? x);

test('every (op, device, dtype) that the support table lists for a differentiable op has a gradient check run on that device in that dtype', () => {
  const { columns, rows } = supportTable();
  const dtypeColumn = columns.find((c) => /^dtypes?$/i.test(c));
  const devices = columns.filter((c) => c !== 'op' && c !== dtypeColumn);
  const columnDevices = dtypeColumnDevices();
  assert.ok(!dtypeColumn || columnDevices.length > 0, 'the paragraph on the dtypes column names the devices it was compared on');
  // Where each kind of check runs, as (op, dtype) -> the devices where some check compares that
  // op's gradients in that dtype: float32 in the results matrix (every row on every one of
  // BACKENDS, compared with the reference backend); float16/bfloat16 in dtype_compute.test.mjs and
  // dtype_grads_16bit.test.mjs, float64 in float64.test.mjs (PyTorch's gradients, on the backends
  // each runs).
  const checkedOn = new Map();
  const add = (op, d, backends) => {
    const key = `${op} ${d}`;
    if (!checkedOn.has(key)) checkedOn.set(key, new Set());
    for (const b of backends) checkedOn.get(key).add(b);
  };
  for (const c of CASES) for (const d of gradDtypes(c)) if (d === 'float32') add(c.op, d, BACKENDS);
  const dtypeDevices = dtypeComputeBackends();
  for (const c of DTYPE_CASES) if (c.grads?.some((g) => g !== null)) add(c.op, c.dtype, dtypeDevices);
  const grads16Devices = grads16BitBackends();
  assert.ok(grads16Devices.includes('webgpu'), 'dtype_grads_16bit.test.mjs runs on webgpu');
  for (const c of GRADS_16BIT_CASES) if (c.grads?.some((g) => g !== null)) add(c.op, c.dtype, grads16Devices);
  const f64Devices = float64Backends();
  for (const [op, names] of Object.entries(FLOAT64_CHECKS)) {
    if (names.some((n) => F64_CASES[n]?.grads.length > 0)) add(op, 'float64', f64Devices);
  }
  const missing = [];
  let checked = 0, onWebgpu16 = 0;
  for (const row of rows) {
    const op = row.op;
    if (!gradRows.has(op)) continue;
    const extra = dtypeColumn ? cpuDtypes(row[dtypeColumn]).map((x) => ABBREVIATED[x] ?? x) : [];
    const gpuExtra = dtypeColumn ? webgpuDtypes(row[dtypeColumn]) : [];
    // A device cell of '—' (or an error) lists nothing for that device.
    for (const device of devices.filter((d) => /kernel|fallback/.test(row[d]))) {
      const listed = ['float32', ...(columnDevices.includes(device) ? extra : []), ...(device === 'webgpu' ? gpuExtra : [])];
      for (const d of new Set(listed.filter((x) => FLOATING.has(x) && !integerResults.has(`${op} ${x}`)))) {
        checked++;
        if (device === 'webgpu' && d !== 'float32') onWebgpu16++;
        if (!checkedOn.get(`${op} ${d}`)?.has(device)) missing.push(`${op} ${d} on ${device}`);
      }
    }
  }
  // Every differentiable op in float32 on three devices, and f16/bf16 on two: well over 500 triples.
  assert.ok(checked > 500, `only ${checked} (op, device, dtype) triples checked: the table is not being read`);
  assert.ok(onWebgpu16 > 20, `only ${onWebgpu16} 16-bit triples on webgpu checked: the "webgpu:" parts are not being read`);
  assert.deepEqual(missing, [], '(op, device, dtype) triples the support table lists without a gradient check run there');
});
