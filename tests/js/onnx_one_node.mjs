// Shared by onnx_import_defaults.test.mjs and onnx_import_attrs.test.mjs: a one-node ONNX graph built with
// onnx-proto, and sg.onnx.importModel's forward on it against onnxruntime-node on the same bytes.
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, ort, onnx } from './onnx_helpers.mjs';

export const FLOAT = 1, INT64 = 7;
const vi = (name, elemType = FLOAT) => ({ name, type: { tensorType: { elemType } } });
const attr = (name, v) => (typeof v === 'string' ? { name, type: 3, s: new TextEncoder().encode(v) }
  : Array.isArray(v) ? { name, type: 7, ints: v } : Number.isInteger(v) ? { name, type: 2, i: v } : { name, type: 1, f: v });
export const i64 = (name, dims, values) => ({ name, dataType: INT64, dims, int64Data: values });
export const f32 = (name, dims, values) => ({ name, dataType: FLOAT, dims, floatData: values });
const rand = (n, scale = 1) => Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + 1.7) * scale);

/** One node: its inputs are the graph inputs (float) and the initializers; its outputs the graph's (with their elem types). */
export function oneNode(opType, inputs, inits, attrs = {}, outputs = [['y', FLOAT]]) {
  const initNames = new Set(inits.map((t) => t.name));
  return onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'g',
      node: [{ opType, name: 'n0', input: inputs.map(([n]) => n), output: outputs.map(([n]) => n), attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)) }],
      input: inputs.filter(([n]) => !initNames.has(n) && n !== '').map(([n]) => vi(n)),
      output: outputs.map(([n, t]) => vi(n, t)),
      initializer: inits,
    },
  })).finish();
}

export async function sameAsOrt(what, bytes, inputs) {
  const m = sg.onnx.importModel(bytes);
  let got = m.forward(...inputs);
  got = got instanceof sg.Tensor ? [got] : Object.values(got);
  const session = await ort.InferenceSession.create(bytes);
  const feeds = {};
  session.inputNames.forEach((n, i) => { feeds[n] = new ort.Tensor('float32', inputs[i].dataSync(), inputs[i].shape); });
  const want = await session.run(feeds);
  session.outputNames.forEach((n, i) => {
    assert.deepEqual(got[i].shape, Array.from(want[n].dims, Number), `${what}: ${n} shape`);
    assertClose(got[i].dataSync(), want[n].data, 1e-5, `${what}: ${n}`);
  });
  m.dispose();
}

export const x = (shape) => sg.tensor(rand(shape.reduce((a, b) => a * b, 1), 2), { shape });
export const X = [['x']];
