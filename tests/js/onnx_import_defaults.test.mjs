// sg.onnx.importModel on single-node graphs whose attributes are left out, so that each op runs
// on the ONNX spec's defaults (Gemm alpha/beta 1 and no transposes, LeakyRelu alpha 0.01, Elu alpha
// 1, Softmax axis -1, ArgMax axis 0 keepdims 1, Trilu upper, LayerNormalization axis -1 and epsilon
// 1e-5, Split into equal parts on axis 0, Transpose reversing, Reduce* over all axes keeping them,
// Squeeze of every 1, Gather axis 0, Clip unbounded, Conv/ConvTranspose stride 1, no padding, group
// 1, BatchNormalization/InstanceNormalization epsilon 1e-5, Shape from start 0) and with the
// attributes set otherwise. Oracle: onnxruntime-node on the same bytes. sg.onnx.export always
// writes the attributes, so no round trip reaches these defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, ort, onnx } from './onnx_helpers.mjs';

const FLOAT = 1, INT64 = 7;
const vi = (name, elemType = FLOAT) => ({ name, type: { tensorType: { elemType } } });
const attr = (name, v) => (typeof v === 'string' ? { name, type: 3, s: new TextEncoder().encode(v) }
  : Array.isArray(v) ? { name, type: 7, ints: v } : Number.isInteger(v) ? { name, type: 2, i: v } : { name, type: 1, f: v });
const i64 = (name, dims, values) => ({ name, dataType: INT64, dims, int64Data: values });
const f32 = (name, dims, values) => ({ name, dataType: FLOAT, dims, floatData: values });
const rand = (n, scale = 1) => Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + 1.7) * scale);

/** One node: its inputs are the graph inputs (float) and the initializers; its outputs the graph's (with their elem types). */
function oneNode(opType, inputs, inits, attrs = {}, outputs = [['y', FLOAT]]) {
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

async function sameAsOrt(what, bytes, inputs) {
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

const x = (shape) => sg.tensor(rand(shape.reduce((a, b) => a * b, 1), 2), { shape });
const X = [['x']];

const CASES = [
  ['Gemm, no attributes', 'Gemm', [['x'], ['b'], ['c']], [f32('b', [3, 4], rand(12)), f32('c', [4], rand(4))], {}, [[2, 3]]],
  ['Gemm transB alpha beta', 'Gemm', [['x'], ['b'], ['c']], [f32('b', [4, 3], rand(12)), f32('c', [4], rand(4))], { transB: 1, alpha: 0.5, beta: 2.5 }, [[2, 3]]],
  ['Gemm transA transB', 'Gemm', [['x'], ['b']], [f32('b', [4, 2], rand(8))], { transA: 1, transB: 1 }, [[2, 3]]],
  ['LeakyRelu, no alpha', 'LeakyRelu', X, [], {}, [[2, 5]]],
  ['Elu, no alpha', 'Elu', X, [], {}, [[2, 5]]],
  ['Selu', 'Selu', X, [], {}, [[2, 5]]],
  ['Softmax, no axis', 'Softmax', X, [], {}, [[2, 3, 4]]],
  ['LogSoftmax, no axis', 'LogSoftmax', X, [], {}, [[2, 3, 4]]],
  ['Softmax axis 1', 'Softmax', X, [], { axis: 1 }, [[2, 3, 4]]],
  ['ArgMax, no attributes', 'ArgMax', X, [], {}, [[3, 4]], [['y', INT64]]],
  ['ArgMin axis 1 keepdims 0', 'ArgMin', X, [], { axis: 1, keepdims: 0 }, [[3, 4]], [['y', INT64]]],
  ['Trilu, no k, no upper', 'Trilu', X, [], {}, [[4, 5]]],
  ['Trilu lower k 1', 'Trilu', [['x'], ['k']], [i64('k', [], [1])], { upper: 0 }, [[4, 5]]],
  ['LayerNormalization, no attributes', 'LayerNormalization', [['x'], ['s'], ['b']], [f32('s', [4], rand(4)), f32('b', [4], rand(4))], {}, [[2, 3, 4]]],
  ['LayerNormalization axis 1 epsilon', 'LayerNormalization', [['x'], ['s']], [f32('s', [3, 4], rand(12))], { axis: 1, epsilon: 0.1 }, [[2, 3, 4]]],
  ['Split in two, no split input', 'Split', X, [], {}, [[4, 3]], [['y', FLOAT], ['z', FLOAT]]],
  ['Split axis 1 by sizes', 'Split', [['x'], ['sp']], [i64('sp', [2], [1, 2])], { axis: 1 }, [[4, 3]], [['y', FLOAT], ['z', FLOAT]]],
  ['Transpose, no perm', 'Transpose', X, [], {}, [[2, 3, 4]]],
  ['ReduceSum, no axes', 'ReduceSum', X, [], {}, [[2, 3]]],
  ['ReduceSum axes input keepdims 0', 'ReduceSum', [['x'], ['ax']], [i64('ax', [1], [-1])], { keepdims: 0 }, [[2, 3]]],
  ['ReduceMean axes attribute', 'ReduceMean', X, [], { axes: [1] }, [[2, 3]]],
  ['ReduceMax, no axes', 'ReduceMax', X, [], {}, [[2, 3]]],
  ['ReduceMin axes keepdims 0', 'ReduceMin', X, [], { axes: [0], keepdims: 0 }, [[2, 3]]],
  ['Squeeze, no axes', 'Squeeze', X, [], {}, [[1, 3, 1]]],
  ['Gather, no axis', 'Gather', [['x'], ['i']], [i64('i', [2], [2, 0])], {}, [[3, 4]]],
  ['Gather axis 1, scalar index', 'Gather', [['x'], ['i']], [i64('i', [], [-1])], { axis: 1 }, [[3, 4]]],
  ['Clip, no bounds', 'Clip', X, [], {}, [[2, 5]]],
  ['Clip, max only', 'Clip', [['x'], [''], ['hi']], [f32('hi', [], [0.5])], {}, [[2, 5]]],
  ['Conv, no attributes', 'Conv', [['x'], ['w'], ['b']], [f32('w', [2, 3, 3, 3], rand(54)), f32('b', [2], rand(2))], {}, [[1, 3, 5, 6]]],
  ['Conv 1-d strides pads dilations group', 'Conv', [['x'], ['w']], [f32('w', [4, 1, 3], rand(12))], { strides: [2], pads: [1, 1], dilations: [2], group: 2 }, [[1, 2, 9]]],
  ['ConvTranspose, no attributes', 'ConvTranspose', [['x'], ['w']], [f32('w', [3, 2, 2, 2], rand(24))], {}, [[1, 3, 3, 4]]],
  ['ConvTranspose 1-d strides pads output_padding', 'ConvTranspose', [['x'], ['w'], ['b']], [f32('w', [2, 3, 3], rand(18)), f32('b', [3], rand(3))], { strides: [2], pads: [1, 1], output_padding: [1] }, [[1, 2, 5]]],
  ['BatchNormalization, no epsilon', 'BatchNormalization', [['x'], ['s'], ['b'], ['m'], ['v']],
    [f32('s', [3], rand(3)), f32('b', [3], rand(3)), f32('m', [3], rand(3)), f32('v', [3], [0.5, 1, 2])], {}, [[2, 3, 4]]],
  ['InstanceNormalization, no epsilon', 'InstanceNormalization', [['x'], ['s'], ['b']], [f32('s', [3], rand(3)), f32('b', [3], rand(3))], {}, [[2, 3, 4]]],
  ['Shape, no start', 'Shape', X, [], {}, [[2, 3, 4]], [['y', INT64]]],
  ['Shape start 1 end -1', 'Shape', X, [], { start: 1, end: -1 }, [[2, 3, 4]], [['y', INT64]]],
  ['PRelu', 'PRelu', [['x'], ['s']], [f32('s', [3, 1], [0.1, 0.2, 0.3])], {}, [[2, 3, 4]]],
  ['GlobalAveragePool', 'GlobalAveragePool', X, [], {}, [[2, 3, 4, 5]]],
  ['Expand', 'Expand', [['x'], ['sh']], [i64('sh', [3], [2, 3, 4])], {}, [[3, 1]]],
];

test('each op on the ONNX defaults of its left-out attributes, and with them set, equals onnxruntime', async () => {
  for (const [what, op, inputs, inits, attrs, shapes, outputs] of CASES) {
    await sameAsOrt(what, oneNode(op, inputs, inits, attrs, outputs), shapes.map(x));
  }
});
