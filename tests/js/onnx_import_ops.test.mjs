// sg.onnx.importModel on elementwise operators our exporter never writes on their own (Pow, Max,
// Min, the comparisons, Not, Where and the unary table: Neg ... Sign): a model python3-onnx built
// (tests/onnx/make_foreign_ops.py), each output against numpy's value on the same inputs, the
// comparisons as bool tensors (ties included, so '<' and '<=' differ).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, foreignModel } from './onnx_helpers.mjs';

test("elementwise operators of a foreign ONNX model: numpy's values, bool comparisons", (t) => {
  const foreign = foreignModel(t, 'make_foreign_ops.py', 'foreign_ops');
  if (foreign === null) return;
  const { bytes, ref } = foreign;
  const m = sg.onnx.importModel(bytes);
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
});
