// sg.onnx.importModel on single-node graphs whose attributes are left out, so that each op runs
// on the ONNX spec's defaults (Gemm alpha/beta 1 and no transposes, LeakyRelu alpha 0.01, Elu alpha
// 1, Softmax axis -1, ArgMax axis 0 keepdims 1, Trilu upper, LayerNormalization axis -1 and epsilon
// 1e-5, Split into equal parts on axis 0, Transpose reversing, Reduce* over all axes keeping them,
// Squeeze of every 1, Gather axis 0, Clip unbounded, Conv/ConvTranspose stride 1, no padding, group
// 1, BatchNormalization/InstanceNormalization epsilon 1e-5, Shape from start 0). Oracle:
// onnxruntime-node on the same bytes (onnx_one_node.mjs). sg.onnx.export always writes the
// attributes, so no round trip reaches these defaults; onnx_import_attrs.test.mjs sets them.
import { test } from 'node:test';
import { FLOAT, INT64, X, f32, i64, oneNode, sameAsOrt, x } from './onnx_one_node.mjs';

const rand = (n, scale = 1) => Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + 1.7) * scale);

const CASES = [
  ['Gemm, no attributes', 'Gemm', [['x'], ['b'], ['c']], [f32('b', [3, 4], rand(12)), f32('c', [4], rand(4))], {}, [[2, 3]]],
  ['LeakyRelu, no alpha', 'LeakyRelu', X, [], {}, [[2, 5]]],
  ['Elu, no alpha', 'Elu', X, [], {}, [[2, 5]]],
  ['Selu', 'Selu', X, [], {}, [[2, 5]]],
  ['Softmax, no axis', 'Softmax', X, [], {}, [[2, 3, 4]]],
  ['LogSoftmax, no axis', 'LogSoftmax', X, [], {}, [[2, 3, 4]]],
  ['ArgMax, no attributes', 'ArgMax', X, [], {}, [[3, 4]], [['y', INT64]]],
  ['Trilu, no k, no upper', 'Trilu', X, [], {}, [[4, 5]]],
  ['LayerNormalization, no attributes', 'LayerNormalization', [['x'], ['s'], ['b']], [f32('s', [4], rand(4)), f32('b', [4], rand(4))], {}, [[2, 3, 4]]],
  ['Split in two, no split input', 'Split', X, [], {}, [[4, 3]], [['y', FLOAT], ['z', FLOAT]]],
  ['Transpose, no perm', 'Transpose', X, [], {}, [[2, 3, 4]]],
  ['ReduceSum, no axes', 'ReduceSum', X, [], {}, [[2, 3]]],
  ['ReduceMax, no axes', 'ReduceMax', X, [], {}, [[2, 3]]],
  ['Squeeze, no axes', 'Squeeze', X, [], {}, [[1, 3, 1]]],
  ['Gather, no axis', 'Gather', [['x'], ['i']], [i64('i', [2], [2, 0])], {}, [[3, 4]]],
  ['Clip, no bounds', 'Clip', X, [], {}, [[2, 5]]],
  ['Conv, no attributes', 'Conv', [['x'], ['w'], ['b']], [f32('w', [2, 3, 3, 3], rand(54)), f32('b', [2], rand(2))], {}, [[1, 3, 5, 6]]],
  ['ConvTranspose, no attributes', 'ConvTranspose', [['x'], ['w']], [f32('w', [3, 2, 2, 2], rand(24))], {}, [[1, 3, 3, 4]]],
  ['BatchNormalization, no epsilon', 'BatchNormalization', [['x'], ['s'], ['b'], ['m'], ['v']],
    [f32('s', [3], rand(3)), f32('b', [3], rand(3)), f32('m', [3], rand(3)), f32('v', [3], [0.5, 1, 2])], {}, [[2, 3, 4]]],
  ['InstanceNormalization, no epsilon', 'InstanceNormalization', [['x'], ['s'], ['b']], [f32('s', [3], rand(3)), f32('b', [3], rand(3))], {}, [[2, 3, 4]]],
  ['Shape, no start', 'Shape', X, [], {}, [[2, 3, 4]], [['y', INT64]]],
  ['PRelu', 'PRelu', [['x'], ['s']], [f32('s', [3, 1], [0.1, 0.2, 0.3])], {}, [[2, 3, 4]]],
  ['GlobalAveragePool', 'GlobalAveragePool', X, [], {}, [[2, 3, 4, 5]]],
  ['Expand', 'Expand', [['x'], ['sh']], [i64('sh', [3], [2, 3, 4])], {}, [[3, 1]]],
];

test('each op on the ONNX defaults of its left-out attributes equals onnxruntime', async () => {
  for (const [what, op, inputs, inits, attrs, shapes, outputs] of CASES) {
    await sameAsOrt(what, oneNode(op, inputs, inits, attrs, outputs), shapes.map(x));
  }
});
