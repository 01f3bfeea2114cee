// sg.onnx.export: every exported model runs under onnxruntime-node with simdgrad's outputs (1e-5
// relative; attention 1e-4) at the export batch size and at another one through dynamicAxes, and
// passes Debian's python3-onnx checker (full_check) via tests/onnx/check_models.py; bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, checkWritten, dims, keep, onnx, ort, roundTrip } from './onnx_helpers.mjs';

const nn = sg.nn;
const F = sg.nn.functional;

/** Runs fn with console.warn captured: the messages, with fn's result as .result. */
function captureWarnings(fn) {
  const warnings = [];
  const warn = console.warn;
  console.warn = (...a) => warnings.push(a.join(' '));
  try {
    warnings.result = fn();
  } finally {
    console.warn = warn;
  }
  return warnings;
}

const batch = (name) => ({ [name]: { 0: 'batch' } });

test('MLP (Linear + ReLU + Linear + Softmax): dynamic batch, Gemm, the module stays in training mode', async () => {
  sg.manualSeed(1);
  const mlp = new nn.Sequential(new nn.Linear(6, 16), new nn.ReLU(), new nn.Linear(16, 4), new nn.Softmax(-1));
  assert.equal(mlp.training, true);
  const warnings = captureWarnings(() => sg.onnx.export(mlp, [sg.randn([3, 6])], { inputNames: ['x'], outputNames: ['probs'], dynamicAxes: { ...batch('x'), ...batch('probs') } }));
  const bytes = warnings.result;
  // the first export of a module in training mode without { training } says it exports eval semantics (once per process)
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /onnx\.export: the module is in training mode; it is exported with eval semantics .*shown once/);
  assert.equal(mlp.training, true, 'export restores the mode');
  mlp.eval();
  await roundTrip('mlp', mlp, [sg.randn([3, 6])], { inputNames: ['x'], outputNames: ['probs'], dynamicAxes: { ...batch('x'), ...batch('probs') } },
    [[sg.randn([3, 6])], [sg.randn([8, 6])]]);
  const model = onnx.ModelProto.decode(bytes);
  assert.equal(Number(model.irVersion), 8);
  assert.equal(Number(model.opsetImport[0].version), 17);
  assert.deepEqual(model.graph.input[0].type.tensorType.shape.dim.map((d) => d.dimParam || Number(d.dimValue)), ['batch', 6]);
  assert.deepEqual(model.graph.output[0].type.tensorType.shape.dim.map((d) => d.dimParam || Number(d.dimValue)), ['batch', 4]);
  assert.deepEqual(model.graph.initializer.map((t) => t.name).sort(), ['0.bias', '0.weight', '2.bias', '2.weight']);
  assert.ok(model.graph.node.some((n) => n.opType === 'Gemm'));
});

test('digits CNN (Conv2d / ReLU / MaxPool2d / Flatten / Linear) at batch 2 and 5', async () => {
  sg.manualSeed(2);
  const cnn = new nn.Sequential(
    new nn.Conv2d(1, 8, 5), new nn.ReLU(), new nn.MaxPool2d(2),
    new nn.Conv2d(8, 16, 5), new nn.ReLU(), new nn.MaxPool2d(2),
    new nn.Flatten(), new nn.Linear(16 * 4 * 4, 10),
  ).eval();
  await roundTrip('digits_cnn', cnn, [sg.randn([2, 1, 28, 28])], { inputNames: ['image'], outputNames: ['logits'], dynamicAxes: { ...batch('image'), ...batch('logits') } },
    [[sg.randn([2, 1, 28, 28])], [sg.randn([5, 1, 28, 28])]]);
});

test('Conv1d, padded and strided convolutions and pools, AvgPool2d, GELU / Tanh / Sigmoid / SiLU layers', async () => {
  sg.manualSeed(3);
  const c2 = new nn.Sequential(
    new nn.Conv2d(3, 4, 3, { padding: 1, stride: 2 }), new nn.GELU(), new nn.AvgPool2d(2, { stride: 1, padding: 1 }),
    new nn.Conv2d(4, 4, 3, { padding: 'same', groups: 2 }), new nn.Tanh(), new nn.MaxPool2d(3, { stride: 2, padding: 1 }), new nn.Sigmoid(),
  ).eval();
  await roundTrip('conv2d_pools', c2, [sg.randn([2, 3, 9, 9])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([2, 3, 9, 9])], [sg.randn([4, 3, 9, 9])]]);
  const c1 = new nn.Sequential(new nn.Conv1d(2, 5, 3, { padding: 1 }), new nn.SiLU(), new nn.MaxPool1d(2), new nn.Flatten(), new nn.Linear(20, 3)).eval();
  await roundTrip('conv1d', c1, [sg.randn([2, 2, 8])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([2, 2, 8])], [sg.randn([3, 2, 8])]]);
});

test('BatchNorm (eval: running statistics), LayerNorm and Embedding layers', async () => {
  sg.manualSeed(4);
  const bn = new nn.Sequential(new nn.Conv2d(2, 3, 3), new nn.BatchNorm2d(3), new nn.ReLU(), new nn.Flatten(), new nn.BatchNorm1d(3 * 4 * 4));
  for (let i = 0; i < 3; i++) bn.forward(sg.randn([4, 2, 6, 6]).mul(2).add(1)); // running statistics away from 0 / 1
  bn.eval();
  await roundTrip('batchnorm', bn, [sg.randn([2, 2, 6, 6])], { dynamicAxes: { input_0: { 0: 'n' } } }, [[sg.randn([2, 2, 6, 6])], [sg.randn([5, 2, 6, 6])]]);
  const ln = new nn.Sequential(new nn.Linear(5, 8), new nn.LayerNorm(8), new nn.LayerNorm([3, 8], { elementwiseAffine: false })).eval();
  await roundTrip('layernorm', ln, [sg.randn([2, 3, 5])], { dynamicAxes: { input_0: { 0: 'n' } } }, [[sg.randn([2, 3, 5])], [sg.randn([6, 3, 5])]]);
  const emb = new nn.Embedding(10, 4);
  const ids = (shape) => sg.randint(0, 10, shape, { dtype: 'int32' });
  await roundTrip('embedding', emb, [ids([2, 3])], { inputNames: ['ids'], dynamicAxes: { ids: { 0: 'batch', 1: 'seq' } } }, [[ids([2, 3])], [ids([4, 7])]]);
});

test('more layers: LeakyReLU/ELU/SELU/CELU/PReLU/Softplus/Hardtanh/ReLU6/Hardswish/Hardsigmoid/Mish/LogSigmoid, GroupNorm, InstanceNorm, ConvTranspose1d/2d, AdaptiveAvgPool, Upsample, TransformerEncoderLayer', async () => {
  sg.manualSeed(9);
  const acts = new nn.Sequential(
    new nn.Linear(5, 12), new nn.LeakyReLU(0.1), new nn.Linear(12, 12), new nn.ELU(0.7), new nn.SELU(), new nn.CELU(),
    new nn.Softplus({ beta: 2, threshold: 3 }), new nn.Hardtanh(-0.5, 0.8), new nn.Linear(12, 12), new nn.ReLU6(), new nn.Hardswish(),
    new nn.Linear(12, 12), new nn.Hardsigmoid(), new nn.Mish(), new nn.LogSigmoid(), new nn.PReLU(),
  ).eval();
  const wide = (b) => sg.randn([b, 5]).mul(4);
  await roundTrip('activations', acts, [wide(2)], { dynamicAxes: { input_0: [0] } }, [[wide(2)], [wide(6)]]);
  const norms = new nn.Sequential(
    new nn.Conv2d(2, 4, 3, { padding: 1 }), new nn.PReLU(4), new nn.GroupNorm(2, 4), new nn.InstanceNorm2d(4, { affine: true }),
    new nn.ConvTranspose2d(4, 3, 3, { stride: 2, padding: 1, outputPadding: 1 }), new nn.Upsample({ scaleFactor: 2 }), new nn.AdaptiveAvgPool2d([4, 2]),
    new nn.Dropout2d(0.3), new nn.AdaptiveAvgPool2d(1), new nn.Flatten(),
  ).eval();
  await roundTrip('norms_transposed', norms, [sg.randn([2, 2, 4, 4])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([2, 2, 4, 4])], [sg.randn([3, 2, 4, 4])]]);
  const c1 = new nn.Sequential(new nn.ConvTranspose1d(3, 2, 3, { stride: 2, outputPadding: 1 }), new nn.AdaptiveAvgPool1d(3)).eval();
  await roundTrip('conv_transpose1d', c1, [sg.randn([2, 3, 5])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([4, 3, 5])]]);
  const enc = new nn.TransformerEncoderLayer(8, 2, { dimFeedforward: 16, batchFirst: true }).eval();
  await roundTrip('transformer_encoder_layer', enc, [sg.randn([2, 5, 8])], { dynamicAxes: { input_0: { 0: 'batch', 1: 'seq' } } },
    [[sg.randn([2, 5, 8])], [sg.randn([3, 9, 8])]], 1e-4);
});

test('a small sg.models.GPT: { logits } with a dynamic batch and sequence length (positions by Range, causal mask by Trilu, last position by Slice; 1e-4)', async () => {
  sg.manualSeed(5);
  const gpt = new sg.models.GPT({ blockSize: 12, vocabSize: 11, nLayer: 2, nHead: 2, nEmbd: 12, dropout: 0.1, bias: true });
  const idx = (b, t) => sg.randint(0, 11, [b, t], { dtype: 'int32' });
  const options = { inputNames: ['idx'], dynamicAxes: { idx: { 0: 'batch', 1: 'seq' } } };
  gpt.eval();
  const example = idx(2, 5);
  const before = sg.memory().tensors;
  sg.onnx.export(gpt, [example], options);
  assert.equal(sg.memory().tensors, before, 'an export (four traces) releases every tensor it made');
  const bytes = await roundTrip('gpt', gpt, [idx(2, 5)], options, [[idx(2, 5)], [idx(3, 9)], [idx(1, 1)], [idx(4, 12)]], 1e-4);
  const g = onnx.ModelProto.decode(bytes).graph;
  assert.deepEqual(g.output.map((o) => o.name), ['logits'], 'the output is named by its key');
  assert.deepEqual(dims(g.input[0]), ['batch', 'seq']);
  assert.deepEqual(dims(g.output[0]), ['batch', 1, 11]);
  for (const op of ['Range', 'Trilu', 'Slice', 'Shape']) assert.ok(g.node.some((n) => n.opType === op), op);
  // no initializer has a size of the example's sequence length (5): masks and positions come from Shape
  assert.ok(!g.initializer.some((t) => t.dims.map(Number).includes(5)), g.initializer.filter((t) => t.dims.map(Number).includes(5)).map((t) => t.name).join());
  // the grown traces must stay within blockSize (12): an example of 11 tokens cannot be grown by 2
  assert.throws(() => sg.onnx.export(gpt, [idx(1, 11)], options), /onnx\.export: dynamicAxes trace the function again .* at \{batch: 3, seq: 13\} it failed: GPT\.forward: .*give an example at least 2 below such a limit/);
  // the same with targets: { logits [B, T, V], loss }, loss a mean over the dynamic batch and sequence
  const withTargets = (i, t) => gpt.forward(i, t);
  await roundTrip('gpt_loss', withTargets, [idx(2, 5), idx(2, 5)], { inputNames: ['idx', 'targets'], dynamicAxes: { idx: { 0: 'batch', 1: 'seq' }, targets: { 0: 'batch', 1: 'seq' } } },
    [[idx(2, 5), idx(2, 5)], [idx(3, 7), idx(3, 7)]], 1e-4);
});

test('LSTM (batchFirst, bidirectional), 2-layer GRU, RNN: unrolled at the traced length, with a dynamic batch (zero states by Expand of Shape; 1e-4)', async () => {
  sg.manualSeed(8);
  const cases = [
    ['lstm', new nn.LSTM(3, 4, { batchFirst: true }), [2, 5, 3]],
    ['bilstm', new nn.LSTM(3, 4, { bidirectional: true }), [5, 2, 3]],
    ['gru2', new nn.GRU(3, 4, { numLayers: 2 }), [5, 2, 3]],
    ['rnn_relu', new nn.RNN(3, 4, { nonlinearity: 'relu' }), [4, 2, 3]],
  ];
  for (const [name, m, shape] of cases) {
    m.eval();
    const x = sg.randn(shape);
    const b = name === 'lstm' ? 0 : 1;
    const other = shape.slice();
    other[b] = 5;
    // [output, [hN, cN]] is flattened to three outputs (two for GRU / RNN), as torch.onnx does
    const bytes = await roundTrip(name, m, [x], { dynamicAxes: { input_0: { [b]: 'batch' } } }, [[x], [sg.randn(other)], [sg.randn(shape)]], 1e-4);
    const g = onnx.ModelProto.decode(bytes).graph;
    assert.equal(g.output.length, name.includes('lstm') ? 3 : 2);
    assert.equal(dims(g.output[0])[b], 'batch');
    assert.equal(dims(g.output[1])[1], 'batch', 'hN [L·D, batch, H]');
  }
  // the sequence is unrolled: a dynamic sequence length is refused by name
  assert.throws(() => sg.onnx.export(new nn.GRU(3, 4), [sg.randn([5, 2, 3])], { dynamicAxes: { input_0: { 0: 'seq' } } }), /onnx\.export: op 'rnnLayer' .*a dynamic sequence length has no ONNX form here/);
});

test('a plain function of two tensors (the same one sg.compile runs), two outputs, and assorted ops', async () => {
  sg.manualSeed(6);
  const fn = (a, b) => {
    const h = F.gelu(a.matmul(b), { approximate: 'tanh' }).add(F.gelu(a.matmul(b)));
    const s = F.logSoftmax(h, -1).sub(h.mean([-1], true)).mul(0.5).div(h.abs().add(1)).neg().pow(2);
    const r = s.reshape([-1, 2, 3]).transpose(1, 2).permute([0, 2, 1]).unsqueeze(1).squeeze(1);
    const c = sg.cat([r, r.narrow(2, 1, 2)], 2).slice(2, 0, 4);
    return [c.sum(-1), h.max(-1).tanh().add(sg.sigmoid(h).sum(1))];
  };
  const compiled = sg.compile(fn);
  const [a, b] = [sg.randn([4, 5]), sg.randn([5, 6])];
  const viaCompile = compiled(a, b);
  const eager = fn(a, b);
  assertClose(viaCompile[0].dataSync(), eager[0].dataSync(), 1e-5, 'compiled vs eager');
  await roundTrip('plain_fn', fn, [a, b], { inputNames: ['a', 'b'], outputNames: ['c', 'm'], dynamicAxes: { a: { 0: 'rows' } } },
    [[a, b], [sg.randn([8, 5]), b]]);
});

test('weights and constants keep their dtypes as initializers: float16, bfloat16, int64', async () => {
  // (float16 / bfloat16 arithmetic is not in simdgrad yet: the ops here only move elements)
  const w16 = sg.tensor([0.1, -2.5, 65504, 6e-8, 1 / 3, 0], { shape: [2, 3] }).half();
  const bf = sg.tensor([0.1, -2.5, 3e38, 1e-30, 1 / 3, 0], { shape: [2, 3] }).bfloat16();
  const i64 = sg.tensor(BigInt64Array.from([1n, -2n, 3n, 2n ** 40n, 5n, 6n]), { shape: [2, 3] });
  const fn = (x16, xbf, x64) => [sg.cat([x16, w16], 0), sg.cat([xbf, bf], 0), sg.cat([x64, i64], 0).reshape([-1])];
  const bytes = sg.onnx.export(fn, [w16.clone(), bf.clone(), i64.clone()], { dynamicAxes: { input_0: [0], input_1: [0], input_2: [0] } });
  keep('dtypes', bytes);
  const m = onnx.ModelProto.decode(bytes);
  assert.deepEqual(m.graph.initializer.filter((t) => /^const_\d+$/.test(t.name)).map((t) => t.dataType), [10, 16, 7]);
  assert.deepEqual(m.graph.input.map((v) => v.type.tensorType.elemType), [10, 16, 7]);
  const u16 = (t) => Array.from(new Uint16Array(t.rawData.slice().buffer));
  const [c16, cbf, c64] = m.graph.initializer.filter((t) => /^const_\d+$/.test(t.name));
  const half = (h) => { const e = (h >> 10) & 31, f = h & 1023, s = h & 0x8000 ? -1 : 1; return e === 0 ? s * f * 2 ** -24 : s * (1 + f / 1024) * 2 ** (e - 15); };
  assert.deepEqual(u16(c16).map(half), Array.from(w16.float().dataSync()));
  const bfl = (h) => new Float32Array(new Uint32Array([h << 16]).buffer)[0];
  assert.deepEqual(u16(cbf).map(bfl), Array.from(bf.float().dataSync()));
  assert.deepEqual(Array.from(new BigInt64Array(c64.rawData.slice().buffer)), [1n, -2n, 3n, 2n ** 40n, 5n, 6n]);
  // under onnxruntime (its CPU provider has no bfloat16 Concat: float16 and int64 only)
  const session = await ort.InferenceSession.create(sg.onnx.export((x16, x64) => [sg.cat([x16, w16], 0), sg.cat([x64, i64], 0).reshape([-1])], [w16.clone(), i64.clone()]));
  const r = await session.run({
    input_0: new ort.Tensor('float16', new Uint16Array([0x3c00, 0x4000, 0xc000, 0, 0x3800, 0x7bff]), [2, 3]),
    input_1: new ort.Tensor('int64', BigInt64Array.from([7n, 8n, 9n, 10n, 11n, 12n]), [2, 3]),
  });
  assert.deepEqual(Array.from(new Uint16Array(r.output_0.data.buffer, r.output_0.data.byteOffset, 12)), [0x3c00, 0x4000, 0xc000, 0, 0x3800, 0x7bff, ...u16(c16)]);
  assert.deepEqual(Array.from(r.output_1.data), [7n, 8n, 9n, 10n, 11n, 12n, 1n, -2n, 3n, 2n ** 40n, 5n, 6n]);
});

test('training: eval semantics by default (a module in training mode warns once); { training: true } traces the training mode, whose dropout and batch statistics are Errors', async () => {
  sg.manualSeed(7);
  const m = new nn.Sequential(new nn.Linear(4, 4), new nn.Dropout(0.5), new nn.BatchNorm1d(4));
  assert.equal(m.training, true);
  await roundTrip('training_default_eval', m, [sg.randn([3, 4])], undefined, []);
  // the MLP test had the one warning of this process
  assert.equal(captureWarnings(() => sg.onnx.export(m, [sg.randn([3, 4])])).length, 0);
  assert.equal(m.training, true);
  assert.throws(() => sg.onnx.export(m, [sg.randn([3, 4])], { training: true }), /onnx\.export: op 'dropout' in training mode/);
  const bnOnly = new nn.Sequential(new nn.Linear(4, 4), new nn.BatchNorm1d(4));
  assert.throws(() => sg.onnx.export(bnOnly, [sg.randn([3, 4])], { training: true }), /onnx\.export: op 'batchNorm' with batch statistics/);
  assert.equal(bnOnly.training, true);
  m.eval();
  const x = sg.randn([3, 4]);
  await roundTrip('training_eval', m, [x], undefined, [[x]]);
});

test('bad input: ops with no ONNX form, bad options, bad arguments; nothing is left behind', () => {
  const x = sg.randn([2, 3]);
  const wide = sg.randn([2, 20]);
  const rows3 = sg.randn([3, 3]);
  const before = sg.memory().tensors;
  assert.throws(() => sg.onnx.export((t) => sg.jsCall({ shape: [2, 3], dtype: 'float32' }, [t], (u) => u.mul(2)).add(1), [x]), /onnx\.export: .*sg\.jsCall/);
  assert.throws(() => sg.onnx.export((t) => sg.nonzero(t), [x]), /onnx\.export: .*nonzero/);
  // the op is named, and where the caller's code called it (this file)
  assert.throws(() => sg.onnx.export((t) => t.cumsum(1), [x]), /onnx\.export: op 'cumsum' has no ONNX form \(called at .*onnx_export\.test\.mjs:\d+:\d+/);
  // data-dependent shapes and reads name the function that read, and where it was called
  assert.throws(() => sg.onnx.export((t) => sg.nonzero(t), [x]), /reads a tensor's values while it is traced \(in nonzero\), at .*onnx_export\.test\.mjs:\d+:\d+/);
  assert.throws(() => sg.onnx.export((t) => t.maskedSelect(t.gt(0)), [x]), /\(in maskedSelect\), at .*onnx_export\.test\.mjs:\d+:\d+/);
  assert.throws(() => sg.onnx.export((t) => t.mul(t.sum().item()), [x]), /\(in Tensor\.item\), at .*onnx_export\.test\.mjs:\d+:\d+/);
  assert.throws(() => sg.onnx.export((t) => sg.jsCall({ shape: [2, 3], dtype: 'float32' }, [t], (u) => u.mul(2)).add(1), [x]), /sg\.jsCall.* used at .*onnx_export\.test\.mjs:\d+:\d+/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { opsetVersion: 18 }), /opsetVersion 18 is not supported/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { inputNames: ['a', 'b'] }), /inputNames has 2 names for 1 example arguments/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { outputNames: ['a', 'b'] }), /outputNames has 2 names for 1 outputs/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { dynamicAxes: { y: { 0: 'b' } } }), /dynamicAxes names 'y'/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { dynamicAxes: { input_0: { 0: 3 } } }), /non-empty string label/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { dynamicAxes: { input_0: [5] } }), /dim 5 is out of range/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { batchSize: 2 }), /unknown option 'batchSize'/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], 5), /options must be an object, got/);
  assert.throws(() => sg.onnx.export((a, b) => a.add(b), [x, x], { inputNames: ['a', 'a'] }), /inputNames has a name twice/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { inputNames: [''] }), /inputNames must be an array of non-empty strings/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { inputNames: ['a'], outputNames: ['a'] }), /an output name is also an input name/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { dynamicAxes: [0] }), /dynamicAxes must be an object/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { dynamicAxes: { input_0: { first: 'b' } } }), /dynamicAxes\['input_0'\] has key 'first', expected a dim index/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { dynamicAxes: { input_0: 'batch' } }), /dynamicAxes\['input_0'\] must be \{ dimIndex: 'label' \} or a list of dims/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { dynamicAxes: { input_0: [-1] } }), /dynamicAxes\['input_0'\] has -1, expected dim indices/);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x], { training: 'no' }), /training must be a boolean/);
  assert.throws(() => sg.onnx.export(42, [x]), /expected an nn\.Module or a function/);
  assert.throws(() => sg.onnx.export((t) => t, [[1, 2]]), /exampleArgs must be a Tensor or a non-empty array of live Tensors/);
  assert.throws(() => sg.onnx.export((t) => 3, [x]), /must return a Tensor/);
  // sizes that follow a dynamic axis in a form the graph cannot compute (here its square), or JavaScript data sized or valued by it
  assert.throws(() => sg.onnx.export((t) => t.reshape([-1]).narrow(0, 0, t.shape[0] ** 2), [wide], { dynamicAxes: { input_0: [0] } }),
    /onnx\.export: op 'narrow': attribute 'length' is 4, 9, 16 in the traces .*no form the graph can compute/);
  assert.throws(() => sg.onnx.export((t) => t.add(sg.tensor(new Float32Array(t.shape[0] * 3), { shape: [t.shape[0], 3] })), [x], { dynamicAxes: { input_0: [0] } }),
    /a constant tensor of shape \[2,3\] made by the function \(sg\.tensor of JavaScript data\) depends on a dynamic axis/);
  assert.throws(() => sg.onnx.export((t) => t.mul(sg.tensor(t.shape[0])), [x], { dynamicAxes: { input_0: [0] } }), /has other values when the dynamic axes change/);
  assert.throws(() => sg.onnx.export((a, b) => a.add(b), [x, rows3], { dynamicAxes: { input_0: { 0: 'n' }, input_1: { 0: 'n' } } }), /dynamic axis 'n' is 2 in input 'input_0' but 3 in input 'input_1'/);
  // the failed exports released what they made, and leave no recorder behind: later ops run as before
  assert.equal(sg.memory().tensors, before);
  assert.deepEqual(x.add(1).shape, [2, 3]);
});

test('python3-onnx checker (full_check) accepts every exported file', (t) => checkWritten(t, 14));
