// Shared by the sg.onnx.export tests: export, run under onnxruntime-node (a devDependency) and
// compare with simdgrad's own outputs; write every file for Debian's python3-onnx checker
// (full_check, tests/onnx/check_models.py), which a test of each file runs at its end.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sg } from './helpers.mjs';

const require = createRequire(new URL('../../npm/package.json', import.meta.url));
export const ort = require('onnxruntime-node');
export const { onnx } = require('onnx-proto');

const dir = mkdtempSync(join(tmpdir(), 'sg-onnx-'));
/** Names of the files written (name.onnx in the temp dir). */
export const written = [];
after(() => rmSync(dir, { recursive: true, force: true }));

const ORT_TYPE = { float32: 'float32', int32: 'int32', int64: 'int64', float16: 'float16', bool: 'bool' };

/** |a − b| ≤ tol·(1 + |b|) elementwise. */
export function assertClose(actual, expected, tol, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const a = Number(actual[i]);
    const e = Number(expected[i]);
    assert.ok(Math.abs(a - e) <= tol * (1 + Math.abs(e)), `${what}[${i}]: onnxruntime ${a} vs simdgrad ${e}`);
  }
}

export const outputsOf = (r) => (r instanceof sg.Tensor ? [r] : Array.isArray(r) ? r.flat(Infinity) : Object.values(r).filter((v) => v != null));

/** Writes bytes as name.onnx for the checker. */
export function keep(name, bytes) {
  writeFileSync(join(dir, `${name}.onnx`), bytes);
  written.push(name);
}

/** A graph value's dims: numbers, or the dim_param labels. */
export const dims = (v) => v.type.tensorType.shape.dim.map((d) => d.dimParam || Number(d.dimValue));

/**
 * Exports modelOrFn on args (kept for the checker), then runs the model under onnxruntime on each
 * argument list of `runs` (the graph inputs in order) and compares with call(...inputs) (default:
 * the function, or the module's forward) output by output.
 */
export async function roundTrip(name, modelOrFn, args, options, runs, tol = 1e-5, call = null) {
  const bytes = sg.onnx.export(modelOrFn, args, options);
  assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
  keep(name, bytes);
  const session = await ort.InferenceSession.create(bytes);
  const fn = call ?? (typeof modelOrFn === 'function' ? modelOrFn : (...a) => modelOrFn.forward(...a));
  for (const inputs of runs) {
    const feeds = {};
    session.inputNames.forEach((n, i) => {
      const t = inputs[i];
      feeds[n] = new ort.Tensor(ORT_TYPE[t.dtype], t.dataSync(), t.shape);
    });
    const result = await session.run(feeds);
    const expected = outputsOf(fn(...inputs));
    assert.equal(session.outputNames.length, expected.length, `${name}: outputs`);
    session.outputNames.forEach((n, i) => {
      assert.deepEqual(Array.from(result[n].dims, Number), expected[i].shape, `${name}: ${n} shape at ${inputs[0].shape}`);
      assertClose(result[n].data, expected[i].dataSync(), tol, `${name}: ${n} at input shape [${inputs[0].shape}]`);
    });
    for (const t of expected) t.dispose();
  }
  return bytes;
}

/** Runs the checker on every file written (skips when python3-onnx is not installed). */
export function checkWritten(t, atLeast) {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import onnx'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip('python3-onnx is not installed (apt-get install -y python3-onnx; scripts/setup.sh installs it)');
    return;
  }
  assert.ok(written.length >= atLeast, `files written: ${written.join(', ')}`);
  const out = execFileSync('/usr/bin/python3', [new URL('../onnx/check_models.py', import.meta.url).pathname, dir], { encoding: 'utf8' });
  for (const name of written) assert.match(out, new RegExp(`^ok ${name}\\.onnx ir=8 opset=17$`, 'm'));
}

/**
 * A model python3-onnx writes (tests/onnx/<script> OUT_DIR → OUT_DIR/<name>.onnx and <name>.json,
 * the expected values): { bytes, ref }, or null after t.skip when python3-onnx or numpy is missing.
 */
export function foreignModel(t, script, name) {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import onnx, numpy'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip('python3-onnx or numpy is not installed');
    return null;
  }
  const out = mkdtempSync(join(tmpdir(), 'sg-onnx-foreign-'));
  try {
    execFileSync('/usr/bin/python3', [new URL(`../onnx/${script}`, import.meta.url).pathname, out]);
    return { bytes: new Uint8Array(readFileSync(join(out, `${name}.onnx`))), ref: JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
