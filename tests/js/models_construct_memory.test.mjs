// Constructing a model leaves alive exactly its own tensors: right after `new` (before any garbage
// collection could free a forgotten one through the FinalizationRegistry backstop) sg.memory()
// has grown by the number of distinct parameters and buffers the model holds, and dispose() takes
// it back. A tied head (GPT-2's and Llama's lm_head, tied to the token embedding as HF's
// tie_weights) first gets a weight of its own, which the constructor must free: a leaked one shows
// up here as one tensor more than the model holds. Loading through fromPretrained (init skipped)
// is checked the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { settleFinalizers } from './gc_settle.mjs';

const MODELS = {
  GPT2LMHeadModel: () => new sg.models.GPT2LMHeadModel({ vocab_size: 40, n_positions: 8, n_embd: 16, n_layer: 2, n_head: 2 }),
  GPT2Model: () => new sg.models.GPT2Model({ vocab_size: 40, n_positions: 8, n_embd: 16, n_layer: 1, n_head: 2 }),
  'LlamaForCausalLM tied': () => new sg.models.LlamaForCausalLM({ vocab_size: 40, hidden_size: 16, intermediate_size: 24, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, max_position_embeddings: 8, tie_word_embeddings: true }),
  'LlamaForCausalLM untied': () => new sg.models.LlamaForCausalLM({ vocab_size: 40, hidden_size: 16, intermediate_size: 24, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, max_position_embeddings: 8, tie_word_embeddings: false }),
  BertForMaskedLM: () => new sg.models.BertForMaskedLM({ vocabSize: 40, hiddenSize: 16, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 24, maxPositionEmbeddings: 8 }),
  GPT: () => new sg.models.GPT({ blockSize: 8, vocabSize: 40, nLayer: 1, nHead: 2, nEmbd: 16 }),
};

const owned = (m) => new Set([...m.parameters(), ...m.buffers()]).size;

test('new <model>(config): sg.memory() grows by exactly the distinct parameters and buffers; dispose() frees them', async () => {
  for (const [name, make] of Object.entries(MODELS)) {
    await settleFinalizers();
    const before = sg.memory().tensors;
    const m = make(); // synchronous: no finalizer can run between the counts
    const grown = sg.memory().tensors - before;
    assert.equal(grown, owned(m), `${name}: ${grown} tensors made, the model holds ${owned(m)}`);
    m.dispose();
    assert.equal(sg.memory().tensors, before, `${name}: dispose frees them`);
  }
});

test('fromPretrained (init skipped): the loaded model holds every tensor the load left alive', async () => {
  for (const name of ['GPT2LMHeadModel', 'LlamaForCausalLM tied', 'BertForMaskedLM']) {
    const src = MODELS[name]();
    const files = sg.models.savePretrained(src);
    src.dispose();
    await settleFinalizers();
    const before = sg.memory().tensors;
    const m = await sg.models.fromPretrained(files);
    const grown = sg.memory().tensors - before;
    assert.equal(grown, owned(m), `${name}: ${grown} tensors alive after the load, the model holds ${owned(m)}`);
    m.dispose();
    assert.equal(sg.memory().tensors, before);
  }
});

test('fromPretrained with another dtype (each tensor written through a cast copy): no temporary is left alive', async () => {
  // float32 files into float16 and bfloat16 parameters: every entry goes through a temporary of the
  // file's dtype (models/pretrained.ts writeStored), which the load must free, even before a collection.
  const src = MODELS.GPT2LMHeadModel();
  const files = sg.models.savePretrained(src);
  src.dispose();
  for (const dtype of ['float16', 'bfloat16']) {
    await settleFinalizers();
    const before = sg.memory().tensors;
    const m = await sg.models.fromPretrained(files, { dtype });
    const grown = sg.memory().tensors - before;
    assert.equal(m.lm_head.weight.dtype, dtype);
    assert.equal(grown, owned(m), `${dtype}: ${grown} tensors alive after the load, the model holds ${owned(m)}`);
    m.dispose();
  }
});
