// sg.onnx.export's op rules at each part of their guards alone: a size attribute of one entry for 2 dims ([2])
// and of two ([2, 1]); batchNorm without running statistics in eval mode; max(dim) and amax over
// several dims (one output each); unbind (squeezed parts) and chunk along a fixed dim beside a dynamic
// axis; dropout in training mode with p = 0 (the identity) and p = 0.5; crossEntropy's target dtypes (int32,
// int64, uint8 taken, float refused) and labelSmoothing 0 (taken) and 0.1 (refused); and what the function
// returns (null, [], a non-Tensor in an array or an object, an object of only nulls). Oracles: the messages of
// npm/src/io/onnx_ops.ts and onnx_trace.ts (the contract); the imported model's outputs against hand values
// (max pooling, max with indices, cross entropy as logsumexp − the target's logit, averaged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close } from './helpers.mjs';

const F = sg.nn.functional;
const FN = 'onnx.export';
const run = (bytes, ...inputs) => sg.onnx.importModel(bytes).forward(...inputs);
const vals = (t) => Array.from(t.dataSync(), Number);

test('maxPool2d kernel [2] is 2×2, [2, 1] is 2×1', () => {
  const x = sg.arange(16, { dtype: 'float32' }).reshape([1, 1, 4, 4]);
  assert.deepEqual(vals(run(sg.onnx.export((t) => F.maxPool2d(t, [2]), [x]), x)), [5, 7, 13, 15]);
  assert.deepEqual(vals(run(sg.onnx.export((t) => F.maxPool2d(t, [2, 1]), [x]), x)), [4, 5, 6, 7, 12, 13, 14, 15]);
});

test('batchNorm in eval mode without running statistics is refused', () => {
  const bn = new sg.nn.BatchNorm1d(4, { trackRunningStats: false });
  bn.eval();
  assert.throws(() => sg.onnx.export(bn, [sg.randn([3, 4])], { training: false }),
    { message: `${FN}: op 'batchNorm' with batch statistics (training mode, or no running stats) has no ONNX inference form: export in eval mode ({ training: false })` });
  // with running statistics: refused in training mode alone, exported in eval mode ((x - 0) / sqrt(1 + eps))
  const withStats = new sg.nn.BatchNorm1d(2);
  const x = sg.tensor([[1, 2], [3, 4]]);
  close(vals(run(sg.onnx.export(withStats, [x], { training: false }), x)), [1, 2, 3, 4].map((v) => v / Math.sqrt(1 + 1e-5)), 1e-6);
  assert.throws(() => sg.onnx.export(withStats, [x], { training: true }), { message: /^onnx\.export: op 'batchNorm' with batch statistics/ });
});

test('max(dim) (the values, one output) and amax over two dims export one output each', () => {
  const x = sg.tensor([[1, 5, 2], [7, 3, 4]]);
  assert.deepEqual(vals(run(sg.onnx.export((t) => t.max(1), [x]), x)), [5, 7]);
  assert.deepEqual(vals(run(sg.onnx.export((t) => t.amax([0, 1]), [x]), x)), [7]);
});

test('unbind and chunk along a fixed dim beside a dynamic batch axis', () => {
  const dyn = { dynamicAxes: { input_0: [0] } };
  const x2 = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const x3 = sg.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
  const u = run(sg.onnx.export((t) => t.unbind(1), [x2], { ...dyn, outputNames: ['a', 'b', 'c'] }), x3);
  assert.deepEqual([vals(u.a), vals(u.b), vals(u.c)], [[1, 4, 7], [2, 5, 8], [3, 6, 9]]);
  const c = run(sg.onnx.export((t) => t.chunk(3, 1), [x2], { ...dyn, outputNames: ['a', 'b', 'c'] }), x3);
  assert.deepEqual(c.c.shape, [3, 1]);
  assert.deepEqual(vals(c.c), [3, 6, 9]);
  // unbind along dim 0 whose parts' only dim is the dynamic axis
  const w = run(sg.onnx.export((t) => t.unbind(0), [sg.tensor([[1, 2], [3, 4]])], { dynamicAxes: { input_0: [1] }, outputNames: ['a', 'b'] }), sg.tensor([[1, 2, 3], [4, 5, 6]]));
  assert.deepEqual([vals(w.a), vals(w.b)], [[1, 2, 3], [4, 5, 6]]);
});

test('dropout in training mode: p = 0 is the identity, p = 0.5 is refused; in eval mode p = 0.5 is the identity', () => {
  const x = sg.tensor([[1, 2, 3]]);
  assert.deepEqual(vals(run(sg.onnx.export(new sg.nn.Dropout(0.5), [x], { training: false }), x)), [1, 2, 3]);
  assert.deepEqual(vals(run(sg.onnx.export(new sg.nn.Dropout(0), [x], { training: true }), x)), [1, 2, 3]);
  assert.throws(() => sg.onnx.export(new sg.nn.Dropout(0.5), [x], { training: true }),
    { message: `${FN}: op 'dropout' in training mode (p = 0.5) has no ONNX inference form: export in eval mode ({ training: false })` });
});

test('crossEntropy: int32, int64 and uint8 targets export, a float target does not; labelSmoothing 0 exports, 0.1 does not', () => {
  const x = sg.tensor([[1, 2, 3], [1, 0, -1]]);
  const lse = (r) => Math.log(r.reduce((s, v) => s + Math.exp(v), 0));
  const want = ((lse([1, 2, 3]) - 1) + (lse([1, 0, -1]) + 1)) / 2;
  const ce = (o) => (a, b) => F.crossEntropy(a, b, o);
  for (const dtype of ['int32', 'int64', 'uint8']) {
    const tg = sg.tensor([0, 2], { dtype });
    close(vals(run(sg.onnx.export(ce({}), [x, tg]), x, tg)), [want], 1e-5);
  }
  const i32 = sg.tensor([0, 2], { dtype: 'int32' });
  close(vals(run(sg.onnx.export(ce({ labelSmoothing: 0 }), [x, i32]), x, i32)), [want], 1e-5);
  assert.throws(() => sg.onnx.export(ce({}), [x, sg.tensor([[1, 0, 0], [0, 0, 1]])]),
    { message: `${FN}: op 'crossEntropy' with class probabilities (a floating target) has no ONNX form here (class indices have)` });
  assert.throws(() => sg.onnx.export(ce({ labelSmoothing: 0.1 }), [x, i32]), { message: `${FN}: op 'crossEntropy' with labelSmoothing has no ONNX form here` });
});

test('the function must return Tensors: null, [], a number beside a Tensor, an object of only nulls or of a number are refused', () => {
  const x = sg.tensor([1, 2]);
  const msg = (got) => ({ message: `${FN}: the function must return a Tensor, an array of Tensors or an object of Tensors, got ${got}` });
  assert.throws(() => sg.onnx.export(() => null, [x]), msg('null'));
  assert.throws(() => sg.onnx.export(() => [], [x]), msg('[]'));
  assert.throws(() => sg.onnx.export((t) => [t.add(1), 3], [x]), msg('[a Tensor of shape [2] (float32), 3]'));
  assert.throws(() => sg.onnx.export(() => ({ a: null }), [x]), msg('an object'));
  assert.throws(() => sg.onnx.export(() => ({ a: 3 }), [x]), msg('an object'));
  assert.deepEqual(vals(run(sg.onnx.export((t) => ({ a: t.add(1), b: null }), [x]), x)), [2, 3]);
});
