// sg.models argument and config errors no test reached, each with its message and the model usable
// after, and options whose effect no test pinned. Oracles: the messages (npm/src/models, the
// contract); Hugging Face's definitions (Conv1D's weight [nx, nf] and repr 'nf=.., nx=..', Llama's
// q_proj Linear(hidden_size, heads·head_dim) when head_dim is given, the LM-head models' repr with no
// extra line, BERT's decoder tied to the word embeddings); torch.utils.checkpoint's semantics (a
// checkpointed block runs forward again in backward: 2 calls, 1 without).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const M = sg.models;
const LLAMA = { hidden_size: 16, intermediate_size: 24, num_hidden_layers: 1, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 32 };
const GPT2 = { vocab_size: 12, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 };
const BERT = { vocabSize: 32, hiddenSize: 16, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 32, maxPositionEmbeddings: 16 };
const ids = () => sg.tensor([[1, 2, 3]], { dtype: 'int32' });

test("GPT.forward: 'targets' that is not an int32 Tensor is an Error naming the shape it needs; int32 targets give the loss", () => {
  const gpt = new M.GPT({ vocabSize: 11, blockSize: 8, nLayer: 1, nHead: 2, nEmbd: 8 });
  const idx = ids();
  throwsWith(() => gpt.forward(idx, sg.tensor([[1, 2, 3]])),
    /^GPT\.forward: expected 'targets' to be an int32 Tensor of shape \[1, 3\] \(or null\), got a Tensor of shape \[1, 3\] \(float32\)$/);
  throwsWith(() => gpt.forward(idx, [[1, 2, 3]]), /^GPT\.forward: expected 'targets' to be an int32 Tensor of shape \[1, 3\] \(or null\), got \[\[1, 2, 3\]\]$/);
  const { logits, loss } = gpt.forward(idx, sg.tensor([[1, 2, 3]], { dtype: 'int32' }));
  // mean of −log softmax(logits)[target] over the 3 positions, computed here from the logits
  const l = Array.from(logits.dataSync());
  let want = 0;
  [1, 2, 3].forEach((t, p) => {
    const row = l.slice(p * 11, p * 11 + 11);
    const mx = Math.max(...row);
    want += mx + Math.log(row.reduce((s, v) => s + Math.exp(v - mx), 0)) - row[t];
  });
  assert.ok(Math.abs(loss.item() - want / 3) < 1e-5, `loss ${loss.item()} vs ${want / 3}`);
  gpt.dispose();
});

test('Conv1D: sizes that are not positive integers are an Error naming both; a good one has HF\'s [nx, nf] weight and repr', () => {
  for (const [nf, nx, got] of [[0, 3, '0, 3'], [2, 0, '2, 0'], [2, 1.5, '2, 1.5'], [-1, 2, '-1, 2'], ['4', 2, "'4', 2"], [3, undefined, '3, undefined']]) {
    throwsWith(() => new M.Conv1D(nf, nx), `Conv1D: expected positive integer sizes (nf, nx), got ${got}`);
  }
  const c = new M.Conv1D(3, 2);
  assert.deepEqual(c.weight.shape, [2, 3]);
  assert.deepEqual(c.bias.shape, [3]);
  assert.equal(String(c), 'Conv1D(nf=3, nx=2)');
  c.dispose();
});

test("GPT2LMHeadModel: a model_type other than 'gpt2' is an Error; 'gpt2' is accepted; the repr's first lines are HF's", () => {
  throwsWith(() => new M.GPT2LMHeadModel({ ...GPT2, model_type: 'llama' }), /^GPT2LMHeadModel: expected model_type 'gpt2', got 'llama'$/);
  throwsWith(() => new M.GPT2Model({ ...GPT2, model_type: 3 }), /^GPT2Model: expected model_type 'gpt2', got 3$/);
  const m = new M.GPT2LMHeadModel({ ...GPT2, model_type: 'gpt2' });
  assert.deepEqual(String(m).split('\n').slice(0, 2), ['GPT2LMHeadModel(', '  (transformer): GPT2Model(']);
  m.dispose();
});

test('Llama config: hidden_size not divisible by the heads (without head_dim), rope_scaling with an unknown field or llama3 factors not increasing', () => {
  throwsWith(() => new M.LlamaForCausalLM({ ...LLAMA, hidden_size: 18 }), /^LlamaForCausalLM: hidden_size \(18\) must be divisible by num_attention_heads \(4\)$/);
  // with head_dim given, HF's q_proj is Linear(hidden_size, heads·head_dim): 18 → 16
  const m = new M.LlamaForCausalLM({ ...LLAMA, hidden_size: 18, head_dim: 4 });
  assert.deepEqual(m.model.layers[0].self_attn.q_proj.weight.shape, [16, 18]);
  assert.deepEqual(m.model.layers[0].self_attn.o_proj.weight.shape, [18, 16]);
  m.dispose();
  const llama3 = { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 };
  throwsWith(() => new M.LlamaForCausalLM({ ...LLAMA, rope_scaling: { ...llama3, beta: 1 } }), /^LlamaForCausalLM: rope_scaling: unknown field 'beta'$/);
  throwsWith(() => new M.LlamaModel({ ...LLAMA, rope_scaling: { ...llama3, low_freq_factor: 4 } }), /^LlamaModel: rope_scaling 'llama3' needs high_freq_factor > low_freq_factor$/);
  throwsWith(() => new M.LlamaModel({ ...LLAMA, rope_scaling: { ...llama3, low_freq_factor: 5 } }), /needs high_freq_factor > low_freq_factor$/);
  const ok = new M.LlamaForCausalLM({ ...LLAMA, rope_scaling: llama3 });
  assert.deepEqual(String(ok).split('\n').slice(0, 2), ['LlamaForCausalLM(', '  (model): LlamaModel(']);
  ok.dispose();
});

test('gradientCheckpointingDisable undoes Enable: a checkpointed block runs forward twice per step (again in backward), once after Disable', () => {
  const cases = [
    [new M.GPT({ vocabSize: 11, blockSize: 8, nLayer: 1, nHead: 2, nEmbd: 8 }), (m) => m.transformer.h[0]],
    [new M.GPT2LMHeadModel(GPT2), (m) => m.transformer.h[0]],
    [new M.LlamaForCausalLM(LLAMA), (m) => m.model.layers[0]],
    [new M.BertForMaskedLM(BERT), (m) => m.bert.encoder.layer[0]],
  ];
  for (const [m, blockOf] of cases) {
    m.train();
    const block = blockOf(m);
    let calls = 0;
    const forward = block.forward.bind(block);
    block.forward = (...a) => (calls++, forward(...a));
    const step = () => {
      calls = 0;
      sg.tidy(() => {
        const o = m.forward(ids());
        (o.logits ?? o).sum().backward();
      });
      return calls;
    };
    const name = m.constructor.name;
    assert.equal(step(), 1, `${name}: off by default`);
    m.gradientCheckpointingEnable();
    assert.equal(step(), 2, `${name}: enabled`);
    m.gradientCheckpointingDisable();
    assert.equal(step(), 1, `${name}: disabled again`);
    m.dispose();
  }
});

test('loadStateDict: a state dict that is not an object or Map is refused; BERT fills the word embeddings and prediction bias from the decoder names (tied, as HF)', () => {
  const llama = new M.LlamaForCausalLM(LLAMA);
  for (const [bad, got] of [[42, '42'], [[], '[]'], [null, 'null']]) {
    throwsWith(() => llama.loadStateDict(bad), `loadStateDict: expected a state dict (an object or a Map of name → Tensor), got ${got}`);
  }
  llama.dispose();
  const src = new M.BertForMaskedLM(BERT);
  const dst = new M.BertForMaskedLM(BERT);
  throwsWith(() => dst.loadStateDict([]), 'loadStateDict: expected a state dict (an object or a Map of name → Tensor), got []');
  const sd = src.stateDict();
  delete sd['bert.embeddings.word_embeddings.weight'];
  delete sd['cls.predictions.bias'];
  dst.loadStateDict(sd);
  const same = (a, b) => assert.deepEqual(Array.from(a.dataSync()), Array.from(b.dataSync()));
  same(dst.bert.embeddings.word_embeddings.weight, src.cls.predictions.decoder.weight);
  same(dst.cls.predictions.bias, src.cls.predictions.decoder.bias);
  src.dispose();
  dst.dispose();
});

test("BertEncoder: { addPoolingLayer: false } has no pooler (HF's add_pooling_layer=False), the default has one; tokenTypeIds default to zeros (HF's default token_type_ids)", () => {
  const cfg = { vocabSize: 16, hiddenSize: 8, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 16, maxPositionEmbeddings: 8 };
  const pooled = new sg.models.BertEncoder(cfg);
  const plain = new sg.models.BertEncoder(cfg, { addPoolingLayer: false });
  assert.ok(Object.keys(pooled.stateDict()).some((k) => k.startsWith('pooler.')));
  assert.ok(!Object.keys(plain.stateDict()).some((k) => k.startsWith('pooler.')));
  throwsWith(() => new sg.models.BertEncoder(cfg, { addPoolingLayer: 1 }), "'addPoolingLayer'");
  plain.loadStateDict(pooled.stateDict(), { strict: false });
  pooled.eval();
  plain.eval();
  const ids = sg.tensor([[1, 5, 7, 2]], { dtype: 'int32' });
  const a = pooled.forward(ids);
  const b = plain.forward(ids);
  assert.equal(b.poolerOutput, null);
  assert.deepEqual(a.poolerOutput.shape, [1, 8]);
  assert.deepEqual(Array.from(b.lastHiddenState.dataSync()), Array.from(a.lastHiddenState.dataSync()));
  const zeros = pooled.forward(ids, { tokenTypeIds: sg.zeros([1, 4], { dtype: 'int32' }) });
  assert.deepEqual(Array.from(zeros.lastHiddenState.dataSync()), Array.from(a.lastHiddenState.dataSync()));
  const ones = pooled.forward(ids, { tokenTypeIds: sg.ones([1, 4], { dtype: 'int32' }) });
  assert.notDeepEqual(Array.from(ones.lastHiddenState.dataSync()), Array.from(a.lastHiddenState.dataSync()));
  sg.dispose([pooled, plain]);
});
