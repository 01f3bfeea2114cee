// sg.onnx.export of the Hugging Face models (sg.models.GPT2LMHeadModel, BertEncoder,
// BertForMaskedLM, LlamaForCausalLM) with a dynamic batch and sequence length: onnxruntime-node's
// outputs equal simdgrad's (1e-4, attention) at the export size and at others, and python3-onnx's
// checker (full_check) passes; initializers keep the dtypes of a module's state (float16,
// bfloat16, int64).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { checkWritten, dims, onnx, ort, roundTrip } from './onnx_helpers.mjs';

const ids = (b, t, vocab) => sg.randint(0, vocab, [b, t], { dtype: 'int32' });
const batchSeq = { 0: 'batch', 1: 'seq' };
const opTypes = (bytes) => new Set(onnx.ModelProto.decode(bytes).graph.node.map((n) => n.opType));

test('GPT2LMHeadModel: logits [batch, seq, vocab] at (2, 5), (3, 9), (1, 1), (2, 16)', async () => {
  sg.manualSeed(11);
  const m = new sg.models.GPT2LMHeadModel({ vocab_size: 20, n_positions: 16, n_embd: 8, n_layer: 2, n_head: 2 }).eval();
  const bytes = await roundTrip('gpt2', m, [ids(2, 5, 20)], { inputNames: ['input_ids'], outputNames: ['logits'], dynamicAxes: { input_ids: batchSeq } },
    [[ids(2, 5, 20)], [ids(3, 9, 20)], [ids(1, 1, 20)], [ids(2, 16, 20)]], 1e-4);
  const g = onnx.ModelProto.decode(bytes).graph;
  assert.deepEqual(dims(g.output[0]), ['batch', 'seq', 20]);
  // tied weights are one initializer (the Parameter is shared)
  assert.equal(g.initializer.filter((t) => t.name === 'transformer.wte.weight' || t.name === 'lm_head.weight').length, 1);
  m.dispose();
});

test('BertEncoder with an attentionMask (a named argument) and BertForMaskedLM: padding masked, dynamic batch and sequence', async () => {
  sg.manualSeed(12);
  const config = { vocabSize: 13, hiddenSize: 8, numHiddenLayers: 2, numAttentionHeads: 2, intermediateSize: 16, maxPositionEmbeddings: 16 };
  const enc = new sg.models.BertEncoder(config).eval();
  // rows padded at the end: the mask's zeros must reach the attention through the graph
  const mask = (b, t) => sg.tensor(Array.from({ length: b }, (_, i) => Array.from({ length: t }, (_, j) => (j < t - (i % t) ? 1 : 0))), { dtype: 'int32' });
  const call = (x, m) => enc.forward(x, { attentionMask: m });
  const bytes = await roundTrip('bert_encoder', enc, [ids(2, 5, 13), { attentionMask: mask(2, 5) }],
    { inputNames: ['input_ids', 'attention_mask'], dynamicAxes: { input_ids: batchSeq, attention_mask: batchSeq } },
    [[ids(2, 5, 13), mask(2, 5)], [ids(3, 7, 13), mask(3, 7)], [ids(1, 16, 13), mask(1, 16)]], 1e-4, call);
  const g = onnx.ModelProto.decode(bytes).graph;
  assert.deepEqual(g.output.map((o) => o.name), ['lastHiddenState', 'poolerOutput']);
  assert.deepEqual(dims(g.output[1]), ['batch', 8]);
  const mlm = new sg.models.BertForMaskedLM(config).eval();
  await roundTrip('bert_mlm', mlm, [ids(2, 5, 13)], { dynamicAxes: { input_0: batchSeq } }, [[ids(2, 5, 13)], [ids(4, 3, 13)]], 1e-4);
  enc.dispose();
  mlm.dispose();
});

test('LlamaForCausalLM (RMSNorm, rotary, SwiGLU, grouped-query attention): rotary tables from Range, dynamic batch and sequence', async () => {
  sg.manualSeed(13);
  const m = new sg.models.LlamaForCausalLM({
    vocab_size: 20, hidden_size: 16, intermediate_size: 24, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 32,
  }).eval();
  const bytes = await roundTrip('llama', m, [ids(2, 5, 20)], { inputNames: ['input_ids'], outputNames: ['logits'], dynamicAxes: { input_ids: batchSeq } },
    [[ids(2, 5, 20)], [ids(3, 9, 20)], [ids(1, 1, 20)], [ids(1, 32, 20)]], 1e-4);
  const ops = opTypes(bytes);
  for (const op of ['Range', 'Cos', 'Sin', 'Trilu', 'Sigmoid']) assert.ok(ops.has(op), op);
  assert.deepEqual(dims(onnx.ModelProto.decode(bytes).graph.output[0]), ['batch', 'seq', 20]);
  m.dispose();
});

test('Mistral (LlamaForCausalLM with sliding_window 3): exported at 2 tokens, its window still masks at 9 (mask by tril/triu, maskedFill as Where)', async () => {
  sg.manualSeed(15);
  const m = new sg.models.LlamaForCausalLM({
    model_type: 'mistral', sliding_window: 3, vocab_size: 20, hidden_size: 16, intermediate_size: 24, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 32,
  }).eval();
  await roundTrip('mistral', m, [ids(2, 2, 20)], { dynamicAxes: { input_0: batchSeq } }, [[ids(2, 2, 20)], [ids(3, 9, 20)], [ids(1, 16, 20)]], 1e-4);
  m.dispose();
});

test('a module whose state is float16, bfloat16 and int64: initializers by state-dict name in those dtypes, cast where it computes', async () => {
  // (simdgrad computes in float32 here: the module casts its half-precision weights, as a
  // weight-only-quantised model would; the ONNX graph does the same casts)
  class Stored extends sg.nn.Module {
    constructor() {
      super();
      sg.manualSeed(14);
      // buffers: a differentiable cast from float16 is not in simdgrad yet, so half-precision parameters cannot compute here
      this.registerBuffer('weight', sg.randn([4, 3]).half());
      this.registerBuffer('bias', sg.randn([4]).bfloat16());
      this.registerBuffer('offsets', sg.tensor(BigInt64Array.from([3n, -1n, 2n ** 40n + 1n, 0n]), { shape: [4] }));
    }
    forward(x) {
      const y = sg.nn.functional.linear(x, this.weight.float(), this.bias.float());
      // the int64 buffer is cast too (int64 arithmetic is not in simdgrad yet)
      return y.mul(this.offsets.float());
    }
  }
  const m = new Stored().eval();
  const bytes = await roundTrip('stored_dtypes', m, [sg.randn([2, 3])], { dynamicAxes: { input_0: [0] } }, [[sg.randn([2, 3])], [sg.randn([5, 3])]]);
  const inits = new Map(onnx.ModelProto.decode(bytes).graph.initializer.map((t) => [t.name, t.dataType]));
  assert.equal(inits.get('weight'), 10, 'float16');
  assert.equal(inits.get('bias'), 16, 'bfloat16');
  assert.equal(inits.get('offsets'), 7, 'int64');
  m.dispose();
});

test('python3-onnx checker (full_check) accepts every exported file', (t) => checkWritten(t, 6));
