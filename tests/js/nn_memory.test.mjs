// Memory: a module's forward leaves exactly its result behind (every temporary is freed), and
// 200 training steps of a small model (embedding, transformer layer, batch norm, dropout,
// linear head, cross-entropy) under sg.tidy keep sg.memory() flat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

function snapshot() {
  const m = sg.memory();
  return { tensors: m.tensors, bytes: m.bytes };
}

test('forward leaves only its result: composite modules free their temporaries', () => {
  const cases = [
    [() => new sg.nn.MultiheadAttention(8, 2, { addBiasKv: true, addZeroAttn: true }), () => [sg.randn([3, 2, 8]), sg.randn([4, 2, 8]), sg.randn([4, 2, 8]), { keyPaddingMask: [[false, true, false, false], [false, false, false, true]] }], 2],
    [() => new sg.nn.TransformerEncoderLayer(8, 2, { dimFeedforward: 16 }), () => [sg.randn([5, 2, 8]), { srcMask: sg.nn.generateSquareSubsequentMask(5) }], 1],
    [() => new sg.nn.TransformerDecoderLayer(8, 2, { dimFeedforward: 16, normFirst: true }), () => [sg.randn([3, 2, 8]), sg.randn([5, 2, 8]), { tgtIsCausal: true }], 1],
    [() => new sg.nn.TransformerEncoder(new sg.nn.TransformerEncoderLayer(8, 2, { dimFeedforward: 16 }), 2), () => [sg.randn([5, 2, 8])], 1],
    [() => new sg.nn.Sequential(new sg.nn.Linear(4, 4), new sg.nn.GELU(), new sg.nn.Dropout(0.5), new sg.nn.Linear(4, 2)), () => [sg.randn([3, 4])], 1],
    [() => new sg.nn.Conv2d(2, 3, 3, { padding: 'same', paddingMode: 'replicate' }), () => [sg.randn([1, 2, 5, 5])], 1],
    [() => new sg.nn.InstanceNorm2d(2), () => [sg.randn([2, 4, 4])], 1],
    [() => new sg.nn.BatchNorm1d(3), () => [sg.randn([4, 3])], 1],
    [() => new sg.nn.PositionalEncoding(8, { maxLen: 10 }), () => [sg.randn([4, 2, 8])], 1],
    [() => new sg.nn.AdaptiveAvgPool1d(2), () => [sg.randn([1, 2, 6])], 1],
  ];
  for (const [make, inputs, results] of cases) {
    const m = make();
    const args = inputs();
    const before = snapshot();
    const out = m(...args);
    const outs = Array.isArray(out) ? out.filter((t) => t !== null) : [out];
    assert.equal(outs.length, results);
    assert.equal(snapshot().tensors, before.tensors + results, `${m.constructor.name}: only the result survives the forward`);
    sg.dispose([outs, args]);
    m.dispose();
  }
});

class TinyTransformer extends sg.nn.Module {
  constructor() {
    super();
    this.embed = new sg.nn.Embedding(10, 8);
    this.pos = new sg.nn.PositionalEncoding(8, { maxLen: 16, dropout: 0.1, batchFirst: true });
    this.encoder = new sg.nn.TransformerEncoderLayer(8, 2, { dimFeedforward: 16, batchFirst: true });
    this.norm = new sg.nn.BatchNorm1d(8);
    this.head = new sg.nn.Linear(8, 3);
  }

  forward(tokens) {
    const h = this.encoder(this.pos(this.embed(tokens))).mean(1);
    return this.head(this.norm(h));
  }
}

test('200 training steps under tidy keep memory flat', () => {
  sg.manualSeed(3);
  const model = new TinyTransformer();
  const lossFn = new sg.nn.CrossEntropyLoss({ labelSmoothing: 0.05 });
  const tokens = sg.randint(0, 10, [4, 6]);
  const labels = [0, 2, 1, 2];
  const params = model.parameters();
  const step = () =>
    sg.tidy(() => {
      const loss = lossFn(model(tokens), labels);
      loss.backward();
      // Plain SGD through the flat-vector utils, outside the graph.
      sg.noGrad(() => {
        const v = sg.nn.utils.parametersToVector(params);
        const g = sg.nn.utils.parametersToVector(params.map((p) => p.grad));
        sg.nn.utils.vectorToParameters(v.sub(g.mul(0.05)), params);
      });
      model.zeroGrad();
      return loss.item();
    });
  const first = step();
  for (let i = 0; i < 9; i++) step();
  const base = snapshot();
  let last = first;
  for (let i = 0; i < 190; i++) last = step();
  assert.deepEqual(snapshot(), base, 'no tensors or bytes leaked over 190 steps');
  assert.ok(last < first, `the loss went down (${first} → ${last})`);
  model.eval();
  const before = snapshot();
  sg.tidy(() => {
    model(tokens);
  });
  assert.deepEqual(snapshot(), before);
  model.dispose();
  lossFn.dispose();
  tokens.dispose();
});
