// sg.onnx.importModel with initializers named like Module methods ('half', 'forward', a module
// path through 'to'): registered under the first free name with a trailing '_' (a parameter may
// not shadow a method, as in PyTorch) and still read by their ONNX names in forward. The model is
// written here with onnx-proto; the oracle is onnxruntime-node running the same bytes, and the
// closed form (x + half) · to.weight − forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, onnx, ort } from './onnx_helpers.mjs';

const FLOAT = 1;
const init = (name, values) => ({ name, dataType: FLOAT, dims: [values.length], floatData: values });
const info = (name, dims) => ({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });

function model() {
  const graph = {
    name: 'names',
    input: [info('x', [2, 3])],
    output: [info('y', [2, 3])],
    initializer: [init('half', [0.5, -1, 2]), init('to.weight', [3, 0.25, -2]), init('forward', [1, 2, 3])],
    node: [
      { opType: 'Add', input: ['x', 'half'], output: ['a'], name: 'add' },
      { opType: 'Mul', input: ['a', 'to.weight'], output: ['b'], name: 'mul' },
      { opType: 'Sub', input: ['b', 'forward'], output: ['y'], name: 'sub' },
    ],
  };
  return onnx.ModelProto.encode({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph }).finish();
}

test('initializers named half, forward and to.weight import under half_, forward_ and to_.weight; forward equals onnxruntime and the closed form', async () => {
  const bytes = model();
  const m = sg.onnx.importModel(bytes);
  assert.deepEqual(Object.keys(m.stateDict()).sort(), ['forward_', 'half_', 'to_.weight']);
  assert.equal(typeof m.half, 'function', 'Module.half is still the method');
  const xs = [0.1, -0.2, 0.3, 1.5, -2.5, 4];
  const y = sg.tidy(() => m.forward(sg.tensor(Float32Array.from(xs), { shape: [2, 3] })));
  const got = Array.from(y.dataSync());
  y.dispose();
  const session = await ort.InferenceSession.create(bytes);
  const want = Array.from((await session.run({ x: new ort.Tensor('float32', Float32Array.from(xs), [2, 3]) })).y.data);
  assertClose(got, want, 1e-6, 'vs onnxruntime');
  const [h, w, f] = [[0.5, -1, 2], [3, 0.25, -2], [1, 2, 3]];
  assertClose(got, xs.map((x, i) => (x + h[i % 3]) * w[i % 3] - f[i % 3]), 1e-6, 'closed form');
  m.dispose();
});
