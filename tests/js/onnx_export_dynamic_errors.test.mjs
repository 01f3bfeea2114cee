// sg.onnx.export refusals no other test reached, each with its message (io/onnx.ts, io/onnx_ops.ts):
// control flow on a dynamic axis (other ops run), an attribute of an ordinary op that follows it,
// parts of a chunk whose size follows it, a creation op whose shape has another rank at another
// size (it once exported silently with the first trace's rank: onnxruntime gave 2 where simdgrad
// gives 6), and AdaptiveAvgPool2d to sizes that do not divide the input's. Beside them the working
// forms: Conv2d with padding 'valid' and AdaptiveAvgPool2d to divisors, run by onnxruntime-node (the
// oracle) against simdgrad. Nothing is left behind by a refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { roundTrip } from './onnx_helpers.mjs';

const nn = sg.nn;
const dyn0 = { dynamicAxes: { input_0: [0] } };

test('control flow and attributes that follow a dynamic axis, chunks of a dynamic size, a creation shape whose rank follows it: Errors naming the op', () => {
  const x = sg.randn([2, 3]);
  const before = sg.memory().tensors;
  // the traces at 2, 3, 4 rows run add at 2 and mul at 3 and 4
  assert.throws(() => sg.onnx.export((t) => (t.shape[0] > 2 ? t.mul(2) : t.add(1)), [x], dyn0),
    { message: "onnx.export: the ops run depend on the dynamic axes' sizes (op 0: 'add' vs 'mul'): such control flow has no ONNX form here" });
  // one trace runs an op more (either way round): the op past the shorter run is named, 'no op' for the other
  // (it said 'op -1: 'undefined' vs 'undefined'' when the example's trace was the shorter)
  assert.throws(() => sg.onnx.export((t) => (t.shape[0] > 2 ? t.add(1).mul(2) : t.add(1)), [x], dyn0),
    { message: "onnx.export: the ops run depend on the dynamic axes' sizes (op 1: no op vs 'mul'): such control flow has no ONNX form here" });
  assert.throws(() => sg.onnx.export((t) => (t.shape[0] > 2 ? t.add(1) : t.add(1).mul(2)), [x], dyn0),
    { message: "onnx.export: the ops run depend on the dynamic axes' sizes (op 1: 'mul' vs no op): such control flow has no ONNX form here" });
  // an attribute entry or a result dim that follows the axis in no computable form (n², chunks of 2, 3, 3)
  assert.throws(() => sg.onnx.export((t) => sg.ones([t.shape[0] * t.shape[0]]).sum().add(t), [x], dyn0),
    { message: /^onnx\.export: op 'ones': attribute 'shape'\[0\] is 4, 9, 16 in the traces with the dynamic axes at \{input_0_dim0: 2\}, \{input_0_dim0: 3\}, \{input_0_dim0: 4\}: it follows them in no form the graph can compute/ });
  assert.throws(() => sg.onnx.export((t) => t.chunk(2, 0), [sg.randn([4, 3])], dyn0),
    { message: /^onnx\.export: op 'chunk': dim 0 of 'chunk_0' is 2, 3, 3 in the traces with the dynamic axes at \{input_0_dim0: 4\}, \{input_0_dim0: 5\}, \{input_0_dim0: 6\}: / });
  assert.throws(() => sg.onnx.export((t) => t.sum(t.shape[0] > 2 ? 0 : 1), [x], dyn0),
    { message: 'onnx.export: op \'sum\' has attributes that depend on a dynamic axis ({"dim":[1],"keepdim":false} vs {"dim":[0],"keepdim":false})' });
  assert.throws(() => sg.onnx.export((t) => t.softmax(t.shape[0] > 3 ? 0 : 1), [x], dyn0),
    { message: /^onnx\.export: op 'softmax' has attributes that depend on a dynamic axis \(\{"dim":1\} vs \{"dim":0\}\)$/ });
  // cat([t, t]) has 2n rows: chunk(2) gives parts of n rows, which Split cannot take as a fixed size
  assert.throws(() => sg.onnx.export((t) => sg.cat([t, t], 0).chunk(2, 0), [x], dyn0),
    { message: "onnx.export: op 'chunk' into parts whose size follows a dynamic axis has no ONNX form here (opset 17's Split takes fixed sizes)" });
  // ones([2]) at 2 rows, ones([2, 3]) at 3 and 4 (and the other way round)
  assert.throws(() => sg.onnx.export((t) => sg.ones(t.shape[0] > 2 ? [2, 3] : [2]).sum().add(t), [x], dyn0),
    { message: "onnx.export: op 'ones': attribute 'shape' differs between the traces of the dynamic axes (its length is 1, 2, 2)" });
  assert.throws(() => sg.onnx.export((t) => sg.ones(t.shape[0] > 2 ? [t.shape[0], 3] : [2]).sum().add(t), [x], dyn0),
    { message: /attribute 'shape' differs between the traces of the dynamic axes \(its length is 1, 2, 2\)/ });
  assert.throws(() => sg.onnx.export((t) => sg.zeros(t.shape[0] > 2 ? [2, 3] : [2, 3, 1]).sum().add(t), [x], dyn0),
    { message: /op 'zeros': attribute 'shape' differs between the traces of the dynamic axes \(its length is 3, 2, 2\)/ });
  assert.throws(() => sg.onnx.export(new nn.AdaptiveAvgPool2d(3), [sg.randn([1, 1, 4, 4])], { training: false }),
    { message: "onnx.export: op 'adaptiveAvgPool2d' from [4,4] to [3,3] (sizes that are not multiples) has no ONNX form here" });
  assert.throws(() => sg.onnx.export(new nn.AdaptiveAvgPool2d([2, 3]), [sg.randn([1, 1, 4, 4])], { training: false }),
    { message: /from \[4,4\] to \[2,3\] \(sizes that are not multiples\)/ });
  assert.equal(sg.memory().tensors, before + 3, 'only the chunk input and the two pool inputs made here live on');
  // without the dynamic axes the same functions export
  assert.ok(sg.onnx.export((t) => sg.cat([t, t], 0).chunk(2, 0), [x]).length > 0);
  assert.ok(sg.onnx.export((t) => sg.ones(t.shape[0] > 2 ? [2, 3] : [2]).sum().add(t), [x]).length > 0);
});

test('a shape that follows the axis with one rank in every trace exports, and onnxruntime agrees at other sizes', async () => {
  // ones([n, 3]).sum() + t: 3n at n rows
  const fn = (t) => sg.ones([t.shape[0], 3]).sum().add(t);
  await roundTrip('ones_dynamic_shape', fn, [sg.zeros([2, 3])], dyn0, [[sg.zeros([2, 3])], [sg.zeros([5, 3])]]);
  assert.deepEqual(Array.from(fn(sg.zeros([5, 3])).dataSync()).slice(0, 3), [15, 15, 15]);
});

test("Conv2d with padding 'valid' and AdaptiveAvgPool2d to divisors of the input export, and onnxruntime agrees", async () => {
  const conv = new nn.Conv2d(2, 3, 3, { padding: 'valid' });
  conv.eval();
  const bytes = await roundTrip('conv_valid', conv, [sg.randn([1, 2, 6, 5])], dyn0, [[sg.randn([1, 2, 6, 5])], [sg.randn([3, 2, 6, 5])]]);
  assert.ok(bytes.length > 0);
  const pool = new nn.AdaptiveAvgPool2d([2, 1]);
  pool.eval();
  await roundTrip('adaptive_pool_divisors', pool, [sg.randn([2, 3, 4, 6])], dyn0, [[sg.randn([2, 3, 4, 6])]]);
  // by hand: rows 0-1 and 2-3 of one 4×2 plane, averaged
  const plane = sg.tensor([1, 2, 3, 4, 5, 6, 7, 8], { shape: [1, 1, 4, 2] });
  assert.deepEqual(Array.from(pool.forward(plane).dataSync()), [2.5, 6.5]);
});
