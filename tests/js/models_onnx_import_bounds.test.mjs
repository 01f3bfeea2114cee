// sg.onnx.importModel's guards at each part alone: an unsupported op with inputs (named by its node) and without
// (a source node); a graph input that is also an initializer (older exporters list them) is no forward argument;
// only BatchNormalization's inputs 3 and 4 are running statistics (the 4th and 5th inputs of other nodes stay
// Parameters); forward's argument count and types each alone. Oracles: the messages of
// npm/src/models/onnx_import.ts (the contract) and ONNX's semantics (Concat / Add values by hand).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { sg } from './helpers.mjs';

const require = createRequire(new URL('../../npm/package.json', import.meta.url));
const { onnx } = require('onnx-proto');
const FLOAT = 1;
const vi = (name) => ({ name, type: { tensorType: { elemType: FLOAT } } });
const node = (opType, input, output, name = output[0]) => ({ opType, input, output, name });
const f32 = (name, dims, values) => ({ name, dataType: FLOAT, dims, floatData: values });
function model({ nodes, inputs = [], outputs = ['y'], inits = [] }) {
  return onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: { name: 'g', node: nodes, input: inputs.map(vi), output: outputs.map(vi), initializer: inits },
  })).finish();
}
const FN = 'onnx.importModel';

test('an unsupported op: with inputs it is named with its node, without inputs alone', () => {
  assert.throws(() => sg.onnx.importModel(model({ nodes: [node('Cosh', ['x'], ['y'], 'n0')], inputs: ['x'] })),
    { message: `${FN}: ONNX op 'Cosh' (node 'n0') is not supported` });
  assert.throws(() => sg.onnx.importModel(model({ nodes: [node('RandomNormal', [], ['y'], 'n0')] })),
    { message: `${FN}: ONNX op 'RandomNormal' is not supported` });
  // a supported node without inputs runs
  const m = sg.onnx.importModel(model({ nodes: [node('Identity', ['w'], ['y'])], inits: [f32('w', [2], [1, 2])] }));
  assert.deepEqual(Array.from(m.forward().dataSync()), [1, 2]);
});

test('a graph input that is also an initializer is no forward argument', () => {
  const m = sg.onnx.importModel(model({ nodes: [node('Add', ['x', 'w'], ['y'])], inputs: ['x', 'w'], inits: [f32('w', [2], [10, 20])] }));
  assert.deepEqual(Array.from(m.forward(sg.tensor([1, 2])).dataSync()), [11, 22]);
  assert.throws(() => m.forward(sg.tensor([1, 2]), sg.tensor([1, 2])), { message: `${FN}: forward expected 1 Tensors (x), got 2 arguments` });
});

test('only BatchNormalization\'s inputs 3 and 4 are buffers: the 4th and 5th inputs of a Concat stay Parameters', () => {
  const names = ['a', 'b', 'c', 'd', 'e'];
  const m = sg.onnx.importModel(model({ nodes: [{ ...node('Concat', names, ['y']), attribute: [{ name: 'axis', type: 2, i: 0 }] }], inits: names.map((n, i) => f32(n, [1], [i])) }));
  assert.deepEqual(m.namedParameters().map(([n]) => n).sort(), names);
  assert.deepEqual(m.namedBuffers().map(([n]) => n), []);
  assert.deepEqual(Array.from(m.forward().dataSync()), [0, 1, 2, 3, 4]);
});

test('forward: the wrong count, or the right count with a non-Tensor, each alone', () => {
  const m = sg.onnx.importModel(model({ nodes: [node('Add', ['x', 'z'], ['y'])], inputs: ['x', 'z'] }));
  const x = sg.tensor([1, 2]);
  assert.throws(() => m.forward(x), { message: `${FN}: forward expected 2 Tensors (x, z), got a Tensor of shape [2] (float32)` });
  assert.throws(() => m.forward(x, x, x), { message: `${FN}: forward expected 2 Tensors (x, z), got 3 arguments` });
  assert.throws(() => m.forward(x, [1, 2]), { message: `${FN}: forward expected 2 Tensors (x, z), got 2 arguments` });
  assert.throws(() => m.forward([1, 2], x), { message: `${FN}: forward expected 2 Tensors (x, z), got 2 arguments` });
  assert.deepEqual(Array.from(m.forward(x, x).dataSync()), [2, 4]);
});
