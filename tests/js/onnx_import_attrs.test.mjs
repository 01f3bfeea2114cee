// sg.onnx.importModel on single-node graphs with their attributes set (the companion of
// onnx_import_defaults.test.mjs, which leaves them out): each attribute is read by its name and
// used as the ONNX spec says. Oracle: onnxruntime-node on the same bytes. And the attributes the
// importer refuses, with their messages (npm/src/models/onnx_import.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { FLOAT, INT64, X, f32, i64, oneNode, sameAsOrt, x } from './onnx_one_node.mjs';

const rand = (n, scale = 1) => Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + 1.7) * scale);

const CASES = [
  ['Gemm transB alpha beta', 'Gemm', [['x'], ['b'], ['c']], [f32('b', [4, 3], rand(12)), f32('c', [4], rand(4))], { transB: 1, alpha: 0.5, beta: 2.5 }, [[2, 3]]],
  ['Gemm transA transB', 'Gemm', [['x'], ['b']], [f32('b', [4, 2], rand(8))], { transA: 1, transB: 1 }, [[2, 3]]],
  ['Softmax axis 1', 'Softmax', X, [], { axis: 1 }, [[2, 3, 4]]],
  ['ArgMin axis 1 keepdims 0', 'ArgMin', X, [], { axis: 1, keepdims: 0 }, [[3, 4]], [['y', INT64]]],
  ['Trilu lower k 1', 'Trilu', [['x'], ['k']], [i64('k', [], [1])], { upper: 0 }, [[4, 5]]],
  ['LayerNormalization axis 1 epsilon', 'LayerNormalization', [['x'], ['s']], [f32('s', [3, 4], rand(12))], { axis: 1, epsilon: 0.1 }, [[2, 3, 4]]],
  ['Split axis 1 by sizes', 'Split', [['x'], ['sp']], [i64('sp', [2], [1, 2])], { axis: 1 }, [[4, 3]], [['y', FLOAT], ['z', FLOAT]]],
  ['ReduceSum axes input keepdims 0', 'ReduceSum', [['x'], ['ax']], [i64('ax', [1], [-1])], { keepdims: 0 }, [[2, 3]]],
  ['ReduceMean axes attribute', 'ReduceMean', X, [], { axes: [1] }, [[2, 3]]],
  ['ReduceMin axes keepdims 0', 'ReduceMin', X, [], { axes: [0], keepdims: 0 }, [[2, 3]]],
  ['Gather axis 1, scalar index', 'Gather', [['x'], ['i']], [i64('i', [], [-1])], { axis: 1 }, [[3, 4]]],
  ['Clip, max only', 'Clip', [['x'], [''], ['hi']], [f32('hi', [], [0.5])], {}, [[2, 5]]],
  ['Conv 1-d strides pads dilations group', 'Conv', [['x'], ['w']], [f32('w', [4, 1, 3], rand(12))], { strides: [2], pads: [1, 1], dilations: [2], group: 2 }, [[1, 2, 9]]],
  ['ConvTranspose 1-d strides pads output_padding', 'ConvTranspose', [['x'], ['w'], ['b']], [f32('w', [2, 3, 3], rand(18)), f32('b', [3], rand(3))], { strides: [2], pads: [1, 1], output_padding: [1] }, [[1, 2, 5]]],
  ['Shape start 1 end -1', 'Shape', X, [], { start: 1, end: -1 }, [[2, 3, 4]], [['y', INT64]]],
  ['LeakyRelu alpha 0.2', 'LeakyRelu', X, [], { alpha: 0.2 }, [[2, 5]]],
  ['Elu alpha 0.5', 'Elu', X, [], { alpha: 0.5 }, [[2, 5]]],
  ['Softplus', 'Softplus', X, [], {}, [[2, 5]]],
  ['Clip, min only', 'Clip', [['x'], ['lo']], [f32('lo', [], [-0.5])], {}, [[2, 5]]],
  ['Clip, min and max', 'Clip', [['x'], ['lo'], ['hi']], [f32('lo', [], [-0.5]), f32('hi', [], [0.7])], {}, [[2, 5]]],
  ['LogSoftmax axis 1', 'LogSoftmax', X, [], { axis: 1 }, [[2, 3, 4]]],
  ['InstanceNormalization epsilon 0.5', 'InstanceNormalization', [['x'], ['s'], ['b']], [f32('s', [3], rand(3)), f32('b', [3], rand(3))], { epsilon: 0.5 }, [[2, 3, 4]]],
  ['BatchNormalization epsilon 0.5', 'BatchNormalization', [['x'], ['s'], ['b'], ['m'], ['v']],
    [f32('s', [3], rand(3)), f32('b', [3], rand(3)), f32('m', [3], rand(3)), f32('v', [3], [0.5, 1, 2])], { epsilon: 0.5 }, [[2, 3, 4]]],
  ['ConvTranspose 1-d dilations group', 'ConvTranspose', [['x'], ['w']], [f32('w', [4, 1, 3], rand(12))], { dilations: [2], group: 2, auto_pad: 'NOTSET' }, [[1, 4, 5]]],
  ['Conv 3-d', 'Conv', [['x'], ['w']], [f32('w', [2, 1, 2, 2, 2], rand(16))], { strides: [1, 2, 1] }, [[1, 1, 3, 4, 3]]],
  ['MaxPool 2-d dilations', 'MaxPool', X, [], { kernel_shape: [2, 2], dilations: [2, 1] }, [[1, 2, 5, 5]]],
  ['Gather axis 1, 2-d indices', 'Gather', [['x'], ['i']], [i64('i', [2, 2], [0, 2, 1, 1])], { axis: 1 }, [[2, 3, 4]]],
  ['Reshape with 0 (copy the dim)', 'Reshape', [['x'], ['sh']], [i64('sh', [2], [0, -1])], {}, [[2, 3, 4]]],
  ['Transpose perm', 'Transpose', X, [], { perm: [1, 0, 2] }, [[2, 3, 4]]],
];

test('each op with its attributes set equals onnxruntime', async () => {
  for (const [what, op, inputs, inits, attrs, shapes, outputs] of CASES) {
    await sameAsOrt(what, oneNode(op, inputs, inits, attrs, outputs), shapes.map(x));
  }
});

test('refused attributes: Selu with its own alpha or gamma, ConvTranspose with output_shape or an auto_pad other than NOTSET', () => {
  const refuses = (bytes, message, shape) => assert.throws(() => sg.onnx.importModel(bytes).forward(x(shape)), { message: `onnx.importModel: ONNX node 'n0' (${message}` });
  refuses(oneNode('Selu', X, [], { alpha: 1.5 }), 'Selu): Selu with its own alpha or gamma is not supported', [2, 3]);
  refuses(oneNode('Selu', X, [], { gamma: 1.5 }), 'Selu): Selu with its own alpha or gamma is not supported', [2, 3]);
  const w = [f32('w', [3, 2, 2, 2], rand(24))];
  refuses(oneNode('ConvTranspose', [['x'], ['w']], w, { output_shape: [4, 5] }), 'ConvTranspose): ConvTranspose with output_shape or auto_pad is not supported', [1, 3, 3, 4]);
  refuses(oneNode('ConvTranspose', [['x'], ['w']], w, { auto_pad: 'SAME_UPPER' }), 'ConvTranspose): ConvTranspose with output_shape or auto_pad is not supported', [1, 3, 3, 4]);
});
