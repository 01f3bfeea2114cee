// sg.onnx.importModel on small graphs built here with onnx-proto: the forms no exported model
// reaches (AveragePool, ReduceProd, the two loss ops with their attributes, shape arithmetic on
// int64 constants: Gather/Unsqueeze/Concat, sizes computed by Cast, float16 initializers in
// int32_data) against onnxruntime-node or hand values (IEEE half bits), and each refusal with its
// message (npm/src/models/onnx_import.ts): initializers of another dtype, without data or with the
// wrong count, an opset outside 13-17, a name nothing computed, a missing required input, float
// sizes, int64-constant forms and pools/convolutions of unsupported rank. The module stays usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, ort, onnx } from './onnx_helpers.mjs';

const FLOAT = 1, INT64 = 7;
const vi = (name, elemType = FLOAT) => ({ name, type: { tensorType: { elemType } } });
const attr = (name, v) => (typeof v === 'string' ? { name, type: 3, s: new TextEncoder().encode(v) }
  : Array.isArray(v) ? { name, type: 7, ints: v } : Number.isInteger(v) ? { name, type: 2, i: v } : { name, type: 1, f: v });
const node = (opType, input, output, attrs = {}) => ({ opType, input, output, name: output[0], attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)) });
const i64 = (name, dims, values) => ({ name, dataType: INT64, dims, int64Data: values });
const f32 = (name, dims, values) => ({ name, dataType: FLOAT, dims, floatData: values });
function model({ nodes, inputs = [], outputs = ['y'], inits = [], opset = 17 }) {
  return onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: opset }],
    graph: { name: 'g', node: nodes, input: inputs.map((v) => (typeof v === 'string' ? vi(v) : v)), output: outputs.map((o) => (typeof o === 'string' ? vi(o) : o)), initializer: inits },
  })).finish();
}
const ORT_TYPE = { float32: 'float32', int64: 'int64' };

/** importModel(bytes).forward(...inputs) against onnxruntime on the same inputs: shape and values (1e-5). */
async function sameAsOrt(bytes, inputs, what) {
  const m = sg.onnx.importModel(bytes);
  const got = m.forward(...inputs);
  const session = await ort.InferenceSession.create(bytes);
  const feeds = {};
  session.inputNames.forEach((n, i) => {
    const t = inputs[i];
    feeds[n] = new ort.Tensor(ORT_TYPE[t.dtype], t.dtype === 'int64' ? BigInt64Array.from(t.dataSync(), (v) => BigInt(v)) : t.dataSync(), t.shape);
  });
  const want = (await session.run(feeds))[session.outputNames[0]];
  assert.deepEqual(got.shape, Array.from(want.dims, Number), `${what}: shape`);
  assertClose(got.dataSync(), want.data, 1e-5, what);
  m.dispose();
  return got;
}

// ONNX's pools default strides to 1 (the importer once took PyTorch's default, the kernel: [2, 3, 2] where onnxruntime gives [2, 3, 5])
test('AveragePool and MaxPool 1-d and 2-d (strides by default 1 as ONNX says, pads, count_include_pad 0 and 1, ceil_mode) equal onnxruntime', async () => {
  const x1 = sg.randn([2, 3, 7]);
  for (const a of [{ kernel_shape: [3] }, { kernel_shape: [3], strides: [2], pads: [1, 1] }, { kernel_shape: [3], pads: [1, 1], count_include_pad: 1 }, { kernel_shape: [2], strides: [2], ceil_mode: 1 }]) {
    await sameAsOrt(model({ nodes: [node('AveragePool', ['x'], ['y'], a)], inputs: ['x'] }), [x1], `AveragePool1d ${JSON.stringify(a)}`);
  }
  const x2 = sg.randn([1, 2, 5, 6]);
  for (const a of [{ kernel_shape: [2, 3] }, { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }, { kernel_shape: [3, 3], pads: [1, 1, 1, 1], count_include_pad: 1 }, { kernel_shape: [2, 2], ceil_mode: 1 }]) {
    await sameAsOrt(model({ nodes: [node('AveragePool', ['x'], ['y'], a)], inputs: ['x'] }), [x2], `AveragePool2d ${JSON.stringify(a)}`);
  }
  for (const a of [{ kernel_shape: [3] }, { kernel_shape: [2], strides: [2], ceil_mode: 1 }]) {
    await sameAsOrt(model({ nodes: [node('MaxPool', ['x'], ['y'], a)], inputs: ['x'] }), [x1], `MaxPool1d ${JSON.stringify(a)}`);
  }
  for (const a of [{ kernel_shape: [2, 3] }, { kernel_shape: [3, 3], strides: [2, 1], pads: [1, 1, 1, 1] }]) {
    await sameAsOrt(model({ nodes: [node('MaxPool', ['x'], ['y'], a)], inputs: ['x'] }), [x2], `MaxPool2d ${JSON.stringify(a)}`);
  }
  // by hand: a kernel of 2 over [1, 2, 3, 4] with the default stride 1 averages neighbours
  const m = sg.onnx.importModel(model({ nodes: [node('AveragePool', ['x'], ['y'], { kernel_shape: [2] })], inputs: ['x'] }));
  assert.deepEqual(Array.from(m.forward(sg.tensor([[[1, 2, 3, 4]]])).dataSync()), [1.5, 2.5, 3.5]);
});

test('ReduceProd over one axis (keepdims 0 and the default 1) equals onnxruntime and the hand product', async () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const y = await sameAsOrt(model({ nodes: [node('ReduceProd', ['x'], ['y'], { axes: [1], keepdims: 0 })], inputs: ['x'] }), [x], 'ReduceProd keepdims 0');
  assert.deepEqual(Array.from(y.dataSync()), [6, 120]);
  const k = await sameAsOrt(model({ nodes: [node('ReduceProd', ['x'], ['y'], { axes: [-2] })], inputs: ['x'] }), [x], 'ReduceProd keepdims 1');
  assert.deepEqual(k.shape, [1, 3]);
});

test('SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss: reduction, ignore_index and weight equal onnxruntime', async () => {
  const x = sg.randn([4, 5]);
  const target = sg.tensor([1, 0, 4, 2], { dtype: 'int64' });
  const w = f32('w', [5], [0.5, 1, 2, 1.5, 0.25]);
  const cases = [[{}, false], [{ reduction: 'sum' }, false], [{ reduction: 'none' }, false], [{ ignore_index: 4 }, false], [{}, true], [{ reduction: 'sum', ignore_index: 0 }, true]];
  for (const [a, weighted] of cases) {
    const ins = weighted ? ['x', 't', 'w'] : ['x', 't'];
    const inputs = ['x', vi('t', INT64)];
    await sameAsOrt(model({ nodes: [node('SoftmaxCrossEntropyLoss', ins, ['y'], a)], inputs, inits: weighted ? [w] : [] }), [x, target], `SoftmaxCrossEntropyLoss ${JSON.stringify(a)} weight ${weighted}`);
    await sameAsOrt(model({ nodes: [node('LogSoftmax', ['x'], ['lp'], { axis: 1 }), node('NegativeLogLikelihoodLoss', ['lp', ...ins.slice(1)], ['y'], a)], inputs, inits: weighted ? [w] : [] }),
      [x, target], `NegativeLogLikelihoodLoss ${JSON.stringify(a)} weight ${weighted}`);
  }
});

test('shape arithmetic on int64 constants (Shape → Gather → Unsqueeze → Concat → Reshape) and sizes computed by Cast equal onnxruntime', async () => {
  const bytes = model({
    nodes: [node('Shape', ['x'], ['s']), node('Gather', ['s', 'i'], ['d']), node('Unsqueeze', ['d', 'ax'], ['u']), node('Concat', ['neg', 'u'], ['c'], { axis: 0 }), node('Reshape', ['x', 'c'], ['y'])],
    inputs: ['x'],
    inits: [i64('i', [], [-1]), i64('ax', [1], [0]), i64('neg', [1], [-1])],
  });
  const y = await sameAsOrt(bytes, [sg.randn([2, 3, 4])], 'reshape to [-1, last dim]');
  assert.deepEqual(y.shape, [6, 4]);
  // the int64 values themselves as the output: Unsqueeze of the gathered scalar at axis 0 and at −1 of a 2-d result
  for (const axes of [[0], [0, -1]]) {
    const u = model({ nodes: [node('Shape', ['x'], ['s']), node('Gather', ['s', 'i'], ['d']), node('Unsqueeze', ['d', 'ax'], ['y'])], inputs: ['x'], outputs: [vi('y', INT64)], inits: [i64('i', [], [-1]), i64('ax', [axes.length], axes)] });
    const got = await sameAsOrt(u, [sg.randn([2, 3, 4])], `Unsqueeze ${axes} of an int64 scalar`);
    assert.deepEqual(got.shape, axes.map(() => 1));
    assert.deepEqual(Array.from(got.dataSync(), Number), [4]);
  }
  // sizes read from a float input cast to int64 (a tensor, not a constant)
  const cast = model({ nodes: [node('Cast', ['s'], ['s64'], { to: INT64 }), node('Reshape', ['x', 's64'], ['y'])], inputs: ['x', 's'] });
  const r = await sameAsOrt(cast, [sg.randn([2, 3]), sg.tensor([3, 2])], 'Reshape by cast sizes');
  assert.deepEqual(r.shape, [3, 2]);
});

test('float16 initializers in int32_data are IEEE half bits: 1, −2, ±∞, the smallest subnormal 2⁻²⁴, NaN', () => {
  const bits = [0x3c00, 0xc000, 0x7c00, 0xfc00, 0x0001, 0x7e00, 0x3555];
  const m = sg.onnx.importModel(model({ nodes: [node('Cast', ['w'], ['y'], { to: FLOAT })], inits: [{ name: 'w', dataType: 10, dims: [bits.length], int32Data: bits }] }));
  const got = Array.from(m.forward().dataSync());
  assert.deepEqual(got.slice(0, 6), [1, -2, Infinity, -Infinity, 2 ** -24, NaN]);
  assert.equal(got[6], 2 ** -2 * (1 + 341 / 1024), '0x3555: exponent 13 − 15, fraction 341/1024');
  // an empty initializer without data is an empty tensor, not an Error
  const e = sg.onnx.importModel(model({ nodes: [node('Identity', ['w'], ['y'])], inits: [{ name: 'w', dataType: FLOAT, dims: [0] }] }));
  assert.deepEqual(e.forward().shape, [0]);
});

test('refusals at import: an initializer dtype simdgrad does not hold, no data, the wrong count, an opset outside 13-17', () => {
  const withInit = (init) => model({ nodes: [node('Identity', ['w'], ['y'])], inits: [init] });
  assert.throws(() => sg.onnx.importModel(withInit({ name: 'w', dataType: 12, dims: [1], rawData: new Uint8Array(4) })),
    { message: "onnx.importModel: initializer 'w' has ONNX data type 12, which simdgrad does not hold" });
  assert.throws(() => sg.onnx.importModel(withInit({ name: 'w', dataType: 8, dims: [1] })), { message: "onnx.importModel: initializer 'w' has ONNX data type 8, which simdgrad does not hold" });
  assert.throws(() => sg.onnx.importModel(withInit({ name: 'w', dataType: FLOAT, dims: [2] })),
    { message: "onnx.importModel: initializer 'w' has no data (external data files are not read)" });
  assert.throws(() => sg.onnx.importModel(withInit(f32('w', [3], [1, 2]))), { message: "onnx.importModel: initializer 'w' has 2 elements for dims [3]" });
  assert.throws(() => sg.onnx.importModel(withInit(f32('w', [2, 2], [1, 2, 3, 4, 5]))), { message: "onnx.importModel: initializer 'w' has 5 elements for dims [2,2]" });
  const relu = (opset) => model({ nodes: [node('Relu', ['x'], ['y'])], inputs: ['x'], opset });
  assert.throws(() => sg.onnx.importModel(relu(12)), { message: 'onnx.importModel: opset 12 is not supported (13 to 17: the forms sg.onnx.export writes)' });
  assert.throws(() => sg.onnx.importModel(relu(18)), { message: /^onnx\.importModel: opset 18 is not supported/ });
  for (const opset of [13, 17]) assert.deepEqual(Array.from(sg.onnx.importModel(relu(opset)).forward(sg.tensor([-1, 2])).dataSync()), [0, 2]);
});

test('refusals in forward: a name nothing computed, an output not computed, a missing required input, float sizes, int64-constant forms, ranks without a kernel', () => {
  const run = (bytes, ...inputs) => () => sg.onnx.importModel(bytes).forward(...inputs);
  const x = sg.ones([2]);
  assert.throws(run(model({ nodes: [node('Relu', ['zz'], ['y'])], inputs: ['x'] }), x), { message: "onnx.importModel: node 'y' reads 'zz', which nothing computed" });
  assert.throws(run(model({ nodes: [node('Relu', ['x'], ['y'])], inputs: ['x'], outputs: ['nope'] }), x), { message: "onnx.importModel: output 'nope' was not computed" });
  assert.throws(run(model({ nodes: [node('Relu', [''], ['y'])], inputs: ['x'] }), x), { message: "onnx.importModel: ONNX node 'y' (Relu): a required input is missing" });
  assert.throws(run(model({ nodes: [node('Reshape', ['x', ''], ['y'])], inputs: ['x'] }), x), { message: "onnx.importModel: ONNX node 'y' (Reshape): a required input is missing" });
  assert.throws(run(model({ nodes: [node('Reshape', ['x', 's'], ['y'])], inputs: ['x', 's'] }), sg.ones([2, 3]), sg.tensor([3, 2])),
    { message: "onnx.importModel: ONNX node 'y' (Reshape): expected int64 sizes, got a float32 tensor" });
  const c = i64('c', [2, 2], [1, 2, 3, 4]);
  assert.throws(run(model({ nodes: [node('Gather', ['c', 'i'], ['y'])], inits: [c, i64('i', [], [0])] })),
    { message: "onnx.importModel: ONNX node 'y' (Gather): Gather of a multi-dimensional int64 constant is not supported" });
  const v = i64('v', [4], [1, 2, 3, 4]);
  assert.throws(run(model({ nodes: [node('Gather', ['v', 'i'], ['y'], { axis: 1 })], inits: [v, i64('i', [], [0])] })), { message: /Gather of a multi-dimensional int64 constant is not supported$/ });
  const slice = (steps) => model({ nodes: [node('Slice', ['v', 'st', 'en', 'ax', 'sp'], ['y'])], inits: [v, i64('st', [1], [0]), i64('en', [1], [4]), i64('ax', [1], [0]), i64('sp', [1], [steps])] });
  assert.throws(run(slice(2)), { message: "onnx.importModel: ONNX node 'y' (Slice): Slice of an int64 constant with steps or several dims is not supported" });
  assert.deepEqual(Array.from(sg.onnx.importModel(slice(1)).forward().dataSync(), Number), [1, 2, 3, 4]);
  assert.throws(run(model({ nodes: [node('Slice', ['c', 'st', 'en'], ['y'])], inits: [c, i64('st', [1], [0]), i64('en', [1], [1])] })), { message: /Slice of an int64 constant with steps or several dims is not supported$/ });
  assert.throws(run(model({ nodes: [node('ReduceProd', ['x'], ['y'], { axes: [0, 1] })], inputs: ['x'] }), sg.ones([2, 3])),
    { message: "onnx.importModel: ONNX node 'y' (ReduceProd): ReduceProd over several axes is not supported" });
  assert.throws(run(model({ nodes: [node('ReduceProd', ['x'], ['y'])], inputs: ['x'] }), sg.ones([2, 3])), { message: /ReduceProd over several axes is not supported$/ });
  const x5 = sg.ones([1, 1, 2, 2, 2]);
  assert.throws(run(model({ nodes: [node('MaxPool', ['x'], ['y'], { kernel_shape: [2, 2, 2] })], inputs: ['x'] }), x5), { message: "onnx.importModel: ONNX node 'y' (MaxPool): a 3-d MaxPool is not supported" });
  assert.throws(run(model({ nodes: [node('AveragePool', ['x'], ['y'], { kernel_shape: [2, 2, 2] })], inputs: ['x'] }), x5), { message: "onnx.importModel: ONNX node 'y' (AveragePool): a 3-d AveragePool is not supported" });
  assert.throws(run(model({ nodes: [node('Conv', ['x', 'w'], ['y'])], inputs: ['x'], inits: [f32('w', [1, 1, 1, 1, 1, 1], [1])] }), sg.ones([1, 1, 2, 2, 2, 2])),
    { message: "onnx.importModel: ONNX node 'y' (Conv): a 4-d convolution is not supported" });
  assert.throws(run(model({ nodes: [node('ConvTranspose', ['x', 'w'], ['y'])], inputs: ['x'], inits: [f32('w', [1, 1, 1, 1, 1], [1])] }), x5),
    { message: "onnx.importModel: ONNX node 'y' (ConvTranspose): a 3-d transposed convolution is not supported" });
  // after the refusals, an import runs as before
  assert.deepEqual(Array.from(sg.onnx.importModel(model({ nodes: [node('Relu', ['x'], ['y'])], inputs: ['x'] })).forward(sg.tensor([-3, 3])).dataSync()), [0, 3]);
});
