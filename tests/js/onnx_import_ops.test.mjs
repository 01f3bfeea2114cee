// sg.onnx.importModel on elementwise operators our exporter never writes on their own (Pow, Max,
// Min, the comparisons, Not, Where and the unary table: Neg ... Sign): a model python3-onnx built
// (tests/onnx/make_foreign_ops.py), each output against numpy's value on the same inputs, the
// comparisons as bool tensors (ties included, so '<' and '<=' differ).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sg } from './helpers.mjs';
import { assertClose } from './onnx_helpers.mjs';

test("elementwise operators of a foreign ONNX model: numpy's values, bool comparisons", (t) => {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import onnx, numpy'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip('python3-onnx or numpy is not installed');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sg-onnx-ops-'));
  try {
    execFileSync('/usr/bin/python3', [new URL('../onnx/make_foreign_ops.py', import.meta.url).pathname, dir]);
    const ref = JSON.parse(readFileSync(join(dir, 'foreign_ops.json'), 'utf8'));
    const m = sg.onnx.importModel(new Uint8Array(readFileSync(join(dir, 'foreign_ops.onnx'))));
    sg.tidy(() => {
      const out = m.forward(sg.tensor(ref.x, { shape: [2, 3] }), sg.tensor(ref.y, { shape: [2, 3] }));
      assert.deepEqual(Object.keys(out).sort(), Object.keys(ref.outputs).sort());
      for (const [name, want] of Object.entries(ref.outputs)) {
        const got = out[name];
        assert.deepEqual(got.shape, [2, 3], name);
        if (['eq', 'lt', 'le', 'gt', 'ge', 'not_lt'].includes(name)) {
          assert.equal(got.dtype, 'bool', `${name} is a bool tensor`);
          assert.deepEqual(Array.from(got.dataSync(), Number), want, name);
        } else {
          assert.equal(got.dtype, 'float32', name);
          assertClose(got.dataSync(), want, 1e-6, name);
        }
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
