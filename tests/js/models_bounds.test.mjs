// The sg.models input guards at each part alone and at their bounds: BERT's positions (S == maxPositionEmbeddings
// runs, one more is refused), its attentionMask shape (1-D, wrong B, wrong S each alone), a null / undefined
// inputIds; a configuration that is null, an array or a number; GPT's idx (not a Tensor, not int32, 1-D, B = 0,
// T = 0 each alone, T == blockSize runs, one more refused) and targets (not a Tensor, float, 1-D, wrong B, wrong T;
// null is no targets); GPT-2 / Llama's inputIds type; generate's prompt + maxNewTokens bound (== n_positions
// runs, one more is refused) and its inputIds checks (float, disposed, B = 0, T = 0, 1-D); Llama's
// hidden_size % num_attention_heads (refused only without head_dim). Oracles: the messages of npm/src/models
// (the contract) and the Hugging Face / nanoGPT behaviour at the bounds (positions up to the table size).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const i32 = (a, shape) => sg.tensor(a, { dtype: 'int32', shape });

test('BERT: positions up to maxPositionEmbeddings; attentionMask shape parts each alone; missing inputIds; config type', () => {
  const bert = new sg.models.BertEncoder({ vocabSize: 16, hiddenSize: 8, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 16, maxPositionEmbeddings: 4 });
  bert.eval();  // no dropout: the runs compare
  throwsWith(() => bert.forward(i32([1, 2, 3, 4, 5], [1, 5])), /^BertEncoder\.forward: 'inputIds' has 5 positions, maxPositionEmbeddings is only 4$/);
  const ok = bert.forward(i32([1, 2, 3, 4], [1, 4]), { attentionMask: sg.ones([1, 4]), tokenTypeIds: null });
  assert.deepEqual(ok.lastHiddenState.shape, [1, 4, 8]);
  const noMask = bert.forward(i32([1, 2, 3, 4], [1, 4]), { attentionMask: null });
  close(Array.from(noMask.lastHiddenState.dataSync()), Array.from(ok.lastHiddenState.dataSync()), 1e-5);  // no mask: all attended
  sg.dispose([noMask.lastHiddenState, noMask.poolerOutput]);
  for (const [shape, got] of [[[4], '[4]'], [[2, 4], '[2, 4]'], [[1, 3], '[1, 3]'], [[1, 4, 1], '[1, 4, 1]']]) {
    throwsWith(() => bert.forward(i32([1, 2, 3, 4], [1, 4]), { attentionMask: sg.ones(shape) }),
      `BertEncoder.forward: expected 'attentionMask' of shape [1, 4] (that of inputIds), got ${got}`);
  }
  for (const v of [null, undefined]) throwsWith(() => bert.forward(v), `BertEncoder.forward: expected 'inputIds' to be an int32 Tensor [B, S], got ${v}`);
  for (const [c, got] of [[null, 'null'], [[], '[]'], [5, '5']]) throwsWith(() => new sg.models.BertEncoder(c), `BertEncoder: expected a configuration object, got ${got}`);
  sg.dispose([ok.lastHiddenState, ok.poolerOutput, bert]);
});

test('GPT: idx type, rank, B = 0 and T = 0 each alone, T up to blockSize; targets type and each shape part alone', () => {
  const gpt = new sg.models.GPT({ blockSize: 4, vocabSize: 5, nLayer: 1, nHead: 2, nEmbd: 4 });
  const F = 'GPT.forward';
  throwsWith(() => gpt.forward([[1]]), `${F}: expected 'idx' to be an int32 Tensor of token ids [B, T], got [[1]]`);
  throwsWith(() => gpt.forward(sg.tensor([[1]])), `${F}: expected 'idx' to be an int32 Tensor of token ids [B, T], got a Tensor of shape [1, 1] (float32)`);
  for (const [shape, a] of [[[2], [1, 2]], [[0, 2], []], [[2, 0], []], [[1, 1, 1], [1]]]) {
    throwsWith(() => gpt.forward(i32(a, shape)), `${F}: expected 'idx' of shape [B, T] with B, T ≥ 1, got [${shape.join(', ')}]`);
  }
  throwsWith(() => gpt.forward(i32([1, 2, 3, 4, 0], [1, 5])), /^GPT\.forward: cannot forward a sequence of length 5, blockSize is only 4$/);
  const full = gpt.forward(i32([1, 2, 3, 4], [1, 4]));
  assert.deepEqual(full.logits.shape, [1, 1, 5]);  // nanoGPT: the last position's logits without targets
  const idx = i32([1, 2], [1, 2]);
  throwsWith(() => gpt.forward(idx, [[1, 2]]), `${F}: expected 'targets' to be an int32 Tensor of shape [1, 2] (or null), got [[1, 2]]`);
  throwsWith(() => gpt.forward(idx, sg.tensor([[1, 2]])), `${F}: expected 'targets' to be an int32 Tensor of shape [1, 2] (or null), got a Tensor of shape [1, 2] (float32)`);
  for (const [shape, a] of [[[2], [1, 2]], [[1, 2, 1], [1, 2]], [[2, 2], [1, 2, 3, 4]], [[1, 3], [1, 2, 3]]]) {
    throwsWith(() => gpt.forward(idx, i32(a, shape)), `${F}: expected 'targets' of shape [1, 2] (that of idx), got [${shape.join(', ')}]`);
  }
  const noTargets = gpt.forward(idx, null);
  assert.equal(noTargets.loss, null);
  const withTargets = gpt.forward(idx, i32([2, -1], [1, 2]));
  assert.ok(Number.isFinite(withTargets.loss.item()));
  sg.dispose([full.logits, noTargets.logits, withTargets.logits, withTargets.loss, gpt]);
});

test('GPT-2 and Llama: inputIds type; generate: prompt + maxNewTokens up to n_positions, inputIds checks each alone', async () => {
  const g2 = new sg.models.GPT2LMHeadModel({ vocab_size: 12, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 });
  const ll = new sg.models.LlamaForCausalLM({ hidden_size: 8, intermediate_size: 12, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 16 });
  for (const [m, name] of [[g2, 'GPT2LMHeadModel'], [ll, 'LlamaForCausalLM']]) {
    throwsWith(() => m.forward([[1]]), `${name}.forward: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got [[1]]`);
    throwsWith(() => m.forward(sg.tensor([[1]])), `${name}.forward: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got a Tensor of shape [1, 1] (float32)`);
  }
  const G = 'GPT2LMHeadModel.generate';
  const out = await g2.generate(i32([1, 2, 3], [1, 3]), { maxNewTokens: 1 });
  assert.deepEqual(out.shape, [1, 4]);
  await assert.rejects(g2.generate(i32([1, 2, 3], [1, 3]), { maxNewTokens: 2 }), { message: `${G}: 3 prompt tokens + maxNewTokens 2 exceed the model's 4 positions` });
  await assert.rejects(g2.generate(sg.tensor([[1]])), { message: `${G}: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got a Tensor of shape [1, 1] (float32)` });
  await assert.rejects(g2.generate([[1]]), { message: `${G}: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got [[1]]` });
  const gone = i32([1], [1, 1]);
  gone.dispose();
  await assert.rejects(g2.generate(gone), { message: `${G}: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got a disposed Tensor` });
  for (const [shape, a] of [[[0, 1], []], [[1, 0], []], [[1], [1]]]) {
    await assert.rejects(g2.generate(i32(a, shape)), { message: `${G}: expected 'inputIds' of shape [B, T] with B, T ≥ 1, got [${shape.join(', ')}]` });
  }
  sg.dispose([out, g2, ll]);
});

test('Llama: hidden_size must divide by num_attention_heads only when head_dim is not given', () => {
  throwsWith(() => new sg.models.LlamaForCausalLM({ hidden_size: 10, num_attention_heads: 4, num_key_value_heads: 1 }),
    /^LlamaForCausalLM: hidden_size \(10\) must be divisible by num_attention_heads \(4\)$/);
  const m = new sg.models.LlamaForCausalLM({ hidden_size: 10, intermediate_size: 12, num_hidden_layers: 1, num_attention_heads: 4, num_key_value_heads: 1, head_dim: 2, vocab_size: 16 });
  const two = m.forward(i32([1, 2], [1, 2]));
  assert.deepEqual(two.shape, [1, 2, 16]);
  const one = m.forward(i32([1], [1, 1]));
  assert.deepEqual(one.shape, [1, 1, 16]);
  // without a cache the first position's logits do not depend on what follows (the causal mask)
  close(Array.from(one.dataSync()), Array.from(two.narrow(1, 0, 1).dataSync()), 1e-5);
  sg.dispose([two, one, m]);
});
