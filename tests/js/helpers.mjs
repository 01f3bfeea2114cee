// Shared by the node:test files: loads the built package once and compares values
// against independently computed expectations (hand values or Math.*).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { init } from '../../npm/dist/index.mjs';
import { settleFinalizers } from './gc_settle.mjs';

// SG_TEST_WEBGPU=1 also starts the WebGPU device (webgpu_env.mjs), with the CPU as the default
// device: tests that loop over backends (backends.mjs) then run on 'webgpu' too.
export const sg = await initForTests();

async function initForTests() {
  if (!process.env.SG_TEST_WEBGPU) return init();
  const { gpu, why } = await import('./webgpu_env.mjs');
  if (!gpu) throw new Error(`SG_TEST_WEBGPU: ${why}`);
  const s = await init({ backend: 'webgpu', gpu });
  s.setBackend('wasm');
  // Dawn keeps Node alive: end the process once the tests of this file are done.
  const { after } = await import('node:test');
  after(() => setTimeout(() => process.exit(process.exitCode ?? 0), 100));
  return s;
}

/** Asserts that `actual` (nested arrays / numbers) equals `expected` within abs+rel tolerance. */
export function close(actual, expected, tol = 1e-5, path = '') {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array, got ${JSON.stringify(actual)}`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    for (let i = 0; i < expected.length; i++) close(actual[i], expected[i], tol, `${path}[${i}]`);
    return;
  }
  if (typeof expected === 'boolean') {
    assert.equal(actual, expected, `${path}`);
    return;
  }
  if (Number.isNaN(expected)) {
    assert.ok(Number.isNaN(actual), `${path}: expected NaN, got ${actual}`);
    return;
  }
  if (!Number.isFinite(expected)) {
    assert.equal(actual, expected, `${path}`);
    return;
  }
  assert.equal(typeof actual, 'number', `${path}: expected a number, got ${JSON.stringify(actual)}`);
  const err = Math.abs(actual - expected);
  assert.ok(err <= tol * (1 + Math.abs(expected)), `${path}: expected ${expected}, got ${actual} (|diff| ${err})`);
}

/** Applies f to every element of nested arrays. */
export function mapNested(a, f) {
  return Array.isArray(a) ? a.map((x) => mapNested(x, f)) : f(a);
}

/** Asserts fn throws an Error whose message matches every regexp / contains every string. */
export function throwsWith(fn, ...patterns) {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== undefined, `expected an Error matching ${patterns.join(', ')}, nothing was thrown`);
  assert.ok(caught instanceof Error, `expected an Error, got ${String(caught)}`);
  for (const p of patterns) {
    if (p instanceof RegExp) assert.match(caught.message, p);
    else assert.ok(caught.message.includes(p), `message ${JSON.stringify(caught.message)} lacks ${JSON.stringify(p)}`);
  }
  return caught;
}

/** Runs fn in a tidy so test bodies do not leak into each other. */
export function scoped(fn) {
  return () => sg.tidy(() => {
    fn();
  });
}

/**
 * Runs `run` `warmup` times, then `steps` times, and asserts that sg.memory() (tensor count and
 * bytes) is the same before and after the `steps` runs: a loop that leaks fails.
 */
export function assertMemoryFlat(run, { warmup = 3, steps = 200 } = {}) {
  for (let i = 0; i < warmup; i++) run();
  const m0 = sg.memory();
  for (let i = 0; i < steps; i++) run();
  const m1 = sg.memory();
  assert.equal(m1.tensors, m0.tensors, `tensors after ${steps} runs`);
  assert.equal(m1.bytes, m0.bytes, `bytes after ${steps} runs`);
}

/**
 * Collects garbage and lets the FinalizationRegistry callbacks run, so that tensors earlier code
 * forgot (freed by the registry's backstop whenever V8 collects them) are gone before a memory
 * count is taken: without it such a count can drop in the middle of a test.
 */
export async function settleGarbage() {
  await settleFinalizers();
  await sg.sync();
}

/**
 * Runs the PyTorch oracle tests/data/<generator> (python3 with torch 1.13) into a temporary folder,
 * removed after the file's tests: { dir, expected (its expected.json) }, or { skip: why } where
 * python3 has no torch. A generator that fails is an Error.
 */
export function torchOracle(generator) {
  const py = '/usr/bin/python3';
  const probe = spawnSync(py, ['-c', 'import torch'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    const skip = `${py} with torch is not available: the PyTorch oracle of tests/data/${generator} cannot run`;
    console.log(`# skipped: ${skip}`);
    return { skip };
  }
  const dir = mkdtempSync(join(tmpdir(), `sg-${generator.replace(/\.py$/, '')}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const r = spawnSync(py, [new URL(`../data/${generator}`, import.meta.url).pathname, dir], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${generator} failed (${r.status}): ${r.stderr}`);
  return { dir, expected: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) };
}

/** max |actual − expected| / max |expected|: an error relative to the values' scale (logits). */
export function relToScale(actual, expected) {
  let w = 0;
  let m = 0;
  for (let i = 0; i < expected.length; i++) {
    w = Math.max(w, Math.abs(actual[i] - expected[i]));
    m = Math.max(m, Math.abs(expected[i]));
  }
  return w / m;
}

/** Largest |a − b| / (1 + |b|) over two flat arrays; NaN when their lengths differ. */
export function maxRelErr(a, b) {
  if (a.length !== b.length) return NaN;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return worst;
}

/** A reference file of tests/data (written by the gen_*.py generators with PyTorch), parsed. */
export function readRef(file) {
  return JSON.parse(readFileSync(new URL(`../data/${file}`, import.meta.url), 'utf8'));
}

/** An optimizer case's options for the JS API: the reference files (gen_optim*.py) use the C++
 *  names beta1/beta2, the JS API takes betas. */
export function optimOptions(hyper) {
  const o = { ...hyper };
  if ('beta1' in o || 'beta2' in o) {
    o.betas = [o.beta1 ?? 0.9, o.beta2 ?? 0.999];
    delete o.beta1;
    delete o.beta2;
  }
  return o;
}

/** The same shape, dtype and values, bit for bit (NaN equal to NaN): compiled against eager. */
export function sameTensor(a, b, what = '') {
  assert.deepEqual(a.shape, b.shape, `${what}: shape`);
  assert.equal(a.dtype, b.dtype, `${what}: dtype`);
  const x = a.dataSync(), y = b.dataSync();
  for (let i = 0; i < x.length; i++) {
    if (!(Object.is(x[i], y[i]) || (Number.isNaN(x[i]) && Number.isNaN(y[i])))) {
      assert.fail(`${what}: element ${i}: ${x[i]} vs ${y[i]}`);
    }
  }
}

/** Values within rtol of the largest magnitude (plus a tiny absolute floor): sums in another order. */
export function nearTensor(a, b, what = '', rtol = 1e-6) {
  assert.deepEqual(a.shape, b.shape, `${what}: shape`);
  const x = a.dataSync(), y = b.dataSync();
  let scale = 0;
  for (const v of y) scale = Math.max(scale, Math.abs(v));
  for (let i = 0; i < x.length; i++) {
    assert.ok(Math.abs(x[i] - y[i]) <= rtol * scale + 1e-12, `${what}: element ${i}: ${x[i]} vs ${y[i]}`);
  }
}

/** |actual − expected| ≤ tol elementwise, absolute (nested arrays or numbers). */
export function within(actual, expected, tol, path = 'value') {
  if (Array.isArray(expected)) {
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => within(actual[i], e, tol, `${path}[${i}]`));
    return;
  }
  assert.ok(Math.abs(actual - expected) <= tol, `${path}: expected ${expected} ± ${tol}, got ${actual}`);
}

/**
 * Type-checks `source` (a use.ts importing 'simdgrad') with `tsc --strict` (module nodenext) in a
 * temporary project whose node_modules/simdgrad is npm/ (its built .d.ts): the spawnSync result.
 */
export async function typeCheck(source) {
  const { mkdtempSync, mkdirSync, symlinkSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { spawnSync } = await import('node:child_process');
  const dir = mkdtempSync(join(tmpdir(), 'simdgrad-types-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(new URL('../../npm/', import.meta.url).pathname, join(dir, 'node_modules', 'simdgrad'), 'dir');
    writeFileSync(join(dir, 'use.ts'), source);
    const tsc = new URL('../../npm/node_modules/.bin/tsc', import.meta.url).pathname;
    return spawnSync(tsc, ['--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', 'use.ts'], { cwd: dir, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
