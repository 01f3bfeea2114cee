// sg.onnx.importModel(bytes): an ONNX model as an nn.Module whose float32 weights are Parameters.
// Exported simdgrad models read back compute what the originals compute (at other sizes through
// their dynamic axes), their gradients equal finite differences, they fine-tune (Adam lowers the
// loss) and export again for onnxruntime-node; a model written by python3-onnx's helper (not by
// simdgrad: float_data initializers, Gemm with alpha/beta/transA) gives numpy's output; bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, checkWritten, foreignModel, onnx, outputsOf, roundTrip } from './onnx_helpers.mjs';

const nn = sg.nn;
const ids = (b, t, vocab) => sg.randint(0, vocab, [b, t], { dtype: 'int32' });

/** Exports model, imports the bytes, and compares the two modules' outputs on each input list. */
function readBack(model, args, options, runs, tol, call = (...a) => model.forward(...a)) {
  const imported = sg.onnx.importModel(sg.onnx.export(model, args, options));
  for (const ins of runs) {
    const got = outputsOf(imported.forward(...ins));
    const want = outputsOf(call(...ins));
    assert.equal(got.length, want.length);
    got.forEach((t, i) => {
      assert.deepEqual(t.shape, want[i].shape);
      assertClose(t.dataSync(), want[i].dataSync(), tol, `output ${i} at [${ins[0].shape}]`);
    });
  }
  return imported;
}

test('exported models read back compute what the originals compute (MLP, CNN with BatchNorm, GPT, LSTM, Llama, BERT, activation and normalization layers), with their state-dict names', () => {
  sg.manualSeed(21);
  const mlp = new nn.Sequential(new nn.Linear(6, 16), new nn.ReLU(), new nn.Linear(16, 4), new nn.Softmax(-1)).eval();
  const m = readBack(mlp, [sg.randn([3, 6])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([7, 6])]], 1e-6);
  assert.deepEqual(m.namedParameters().map(([k]) => k), mlp.namedParameters().map(([k]) => k));
  assert.ok(m.parameters().every((p) => p instanceof nn.Parameter && p.requiresGrad));
  const cnn = new nn.Sequential(new nn.Conv2d(1, 4, 3, { padding: 1 }), new nn.BatchNorm2d(4), new nn.ReLU(), new nn.MaxPool2d(2), new nn.Flatten(), new nn.Linear(4 * 4 * 4, 3));
  cnn.forward(sg.randn([6, 1, 8, 8]).mul(3)); // running statistics away from 0 / 1
  cnn.eval();
  const c = readBack(cnn, [sg.randn([2, 1, 8, 8])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([5, 1, 8, 8])]], 1e-5);
  // the running statistics are buffers (state), not Parameters
  assert.deepEqual(c.namedBuffers().map(([k]) => k).filter((k) => k.startsWith('1.')), ['1.running_mean', '1.running_var', '1.num_batches_tracked']);
  assert.ok(!c.namedParameters().some(([k]) => k.includes('running')));
  const gpt = new sg.models.GPT({ blockSize: 12, vocabSize: 11, nLayer: 2, nHead: 2, nEmbd: 12, dropout: 0, bias: true }).eval();
  readBack(gpt, [ids(2, 5, 11)], { dynamicAxes: { input_0: { 0: 'b', 1: 't' } } }, [[ids(3, 9, 11)], [ids(1, 12, 11)]], 1e-5);
  const lstm = new nn.LSTM(3, 4, { bidirectional: true }).eval();
  readBack(lstm, [sg.randn([5, 2, 3])], { dynamicAxes: { input_0: { 1: 'b' } } }, [[sg.randn([5, 4, 3])]], 1e-5);
  const llama = new sg.models.LlamaForCausalLM({ vocab_size: 20, hidden_size: 16, intermediate_size: 24, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 32 }).eval();
  readBack(llama, [ids(2, 5, 20)], { dynamicAxes: { input_0: { 0: 'b', 1: 't' } } }, [[ids(3, 9, 20)]], 1e-5);
  const bert = new sg.models.BertEncoder({ vocabSize: 13, hiddenSize: 8, numHiddenLayers: 2, numAttentionHeads: 2, intermediateSize: 16, maxPositionEmbeddings: 16 }).eval();
  const mask = (b, t) => sg.tensor(Array.from({ length: b }, () => Array.from({ length: t }, (_, j) => (j < t - 1 ? 1 : 0))), { dtype: 'int32' });
  readBack(bert, [ids(2, 5, 13), { attentionMask: mask(2, 5) }], { dynamicAxes: { input_0: { 0: 'b', 1: 't' }, attentionMask: { 0: 'b', 1: 't' } } },
    [[ids(3, 7, 13), mask(3, 7)]], 1e-5, (x, k) => bert.forward(x, { attentionMask: k }));
  // the activation and normalization layers' ONNX forms read back too
  const more = new nn.Sequential(
    new nn.Conv2d(2, 4, 3, { padding: 1 }), new nn.PReLU(4), new nn.LeakyReLU(0.2), new nn.GroupNorm(2, 4), new nn.InstanceNorm2d(4, { affine: true }),
    new nn.ConvTranspose2d(4, 3, 3, { stride: 2, padding: 1, outputPadding: 1 }), new nn.ELU(), new nn.SELU(), new nn.Softplus({ beta: 2, threshold: 30 }), new nn.Hardtanh(-0.5, 0.8),
    new nn.AdaptiveAvgPool2d(1), new nn.Flatten(),
  ).eval();
  readBack(more, [sg.randn([2, 2, 4, 4])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([3, 2, 4, 4])]], 1e-5);
  for (const x of [mlp, cnn, gpt, lstm, llama, bert, more]) x.dispose();
});

test('an imported model trains: gradients equal finite differences, Adam lowers the loss, the fine-tuned model exports again', async () => {
  sg.manualSeed(22);
  const net = new nn.Sequential(new nn.Linear(4, 8), new nn.Tanh(), new nn.Linear(8, 3)).eval();
  const m = sg.onnx.importModel(sg.onnx.export(net, [sg.randn([2, 4])], { dynamicAxes: { input_0: [0] } }));
  const x = sg.randn([16, 4]);
  const y = x.narrow(1, 0, 3).argmax(1).to('int32');
  const lossOf = () => sg.F.crossEntropy(m.forward(x), y);
  // central differences in float64 of the float32 loss, on a few entries of each Parameter
  const loss = lossOf();
  m.zeroGrad();
  loss.backward();
  for (const [name, p] of m.namedParameters()) {
    const g = p.grad.dataSync();
    const h = 1e-2;
    for (const i of [0, p.numel - 1]) {
      const base = p.dataSync()[i];
      const at = (v) => sg.noGrad(() => {
        p.view([-1]).narrow(0, i, 1).fill_(v);
        return lossOf().item();
      });
      const fd = (at(base + h) - at(base - h)) / (2 * h);
      at(base);
      assert.ok(Math.abs(fd - g[i]) < 2e-3, `${name}[${i}]: autograd ${g[i]} vs finite differences ${fd}`);
    }
  }
  const opt = new sg.optim.Adam(m.parameters(), { lr: 0.05 });
  const first = loss.item();
  for (let i = 0; i < 60; i++) {
    sg.tidy(() => {
      opt.zeroGrad();
      lossOf().backward();
      opt.step();
    });
  }
  const last = sg.noGrad(() => lossOf().item());
  assert.ok(last < 0.5 * first, `loss ${first} → ${last}`);
  // the fine-tuned OnnxModule is a module like any other: it exports, and onnxruntime agrees
  await roundTrip('finetuned_import', m, [sg.randn([2, 4])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([5, 4])]]);
});

test('a model python3-onnx wrote (float_data initializers, Gemm alpha/beta/transA, Reshape 0/-1, ReduceMean axes): numpy\'s output', (t) => {
  const foreign = foreignModel(t, 'make_foreign.py', 'foreign');
  if (foreign === null) return;
  const { bytes, ref } = foreign;
  const m = sg.onnx.importModel(bytes);
  assert.deepEqual(m.namedParameters().map(([k]) => k), ['w1', 'b1', 'w2', 'b2']);
  const y = m.forward(sg.tensor(ref.x, { shape: ref.xShape }));
  assert.deepEqual(y.shape, ref.yShape);
  assertClose(y.dataSync(), ref.y, 1e-5, 'foreign y');
});

test('bad input: not bytes, not a model, an op outside the set, wrong forward arguments', () => {
  assert.throws(() => sg.onnx.importModel('model.onnx'), /onnx\.importModel: expected the bytes of an ONNX model \(a Uint8Array\), got/);
  assert.throws(() => sg.onnx.importModel(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f])), /onnx\.importModel: the bytes are not an ONNX ModelProto/);
  const einsum = onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: { name: 'g', node: [{ opType: 'Einsum', input: ['a', 'b'], output: ['c'], name: 'e0' }], input: [{ name: 'a' }, { name: 'b' }], output: [{ name: 'c' }] },
  })).finish();
  assert.throws(() => sg.onnx.importModel(einsum), /onnx\.importModel: ONNX op 'Einsum' \(node 'e0'\) is not supported/);
  const m = sg.onnx.importModel(sg.onnx.export((a) => a.relu(), [sg.randn([2])]));
  assert.throws(() => m.forward(), /forward expected 1 Tensors \(input_0\), got 0 arguments/);
  assert.deepEqual(Array.from(m.forward(sg.tensor([-1, 2])).dataSync()), [0, 2]);
});

test('python3-onnx checker (full_check) accepts the re-exported fine-tuned model', (t) => checkWritten(t, 1));
