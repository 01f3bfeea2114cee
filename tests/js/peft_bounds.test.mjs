// sg.peft's guards at each part alone: adapter_config.json that is JSON but no object (null, an array, a
// number); loadAdapter onto a base model (wraps) and onto a PEFT model (replaces the weights), refused when r
// alone or lora_alpha alone differs; a key that matches no layer; getPeftModel on a target that is no
// Linear. Oracles: the messages of npm/src/peft (the contract) and PEFT's behaviour (a loaded adapter gives the
// saved model's logits; PeftModel.load_adapter needs the same LoRA configuration).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const LLAMA = { hidden_size: 8, intermediate_size: 12, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 16 };
const ids = sg.tensor([[1, 2, 3]], { dtype: 'int32' });

function tinyPeft(opts = {}) {
  sg.manualSeed(7);
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  sg.peft.getPeftModel(m, { r: 2, loraAlpha: 4, targetModules: ['q_proj'], ...opts });
  // lora_B starts at zero: give it values so the adapter shows in the logits
  for (const [k, p] of m.namedParameters()) if (k.includes('lora_B')) sg.noGrad(() => p.copy_(sg.randn(p.shape)));
  return m;
}
const logits = (m) => Array.from(m.forward(ids).dataSync());

test('adapter_config.json must be a JSON object: null, an array and a number are each refused', async () => {
  const files = sg.peft.saveAdapter(tinyPeft());
  const base = new sg.models.LlamaForCausalLM(LLAMA);
  for (const [text, got] of [['null', 'null'], ['[1]', '[1]'], ['5', '5'], ['"LORA"', "'LORA'"]]) {
    await assert.rejects(sg.peft.loadAdapter(base, { ...files, 'adapter_config.json': text }), { message: `loadAdapter: adapter_config.json must hold a JSON object, got ${got}` });
  }
  base.dispose();
});

test('loadAdapter wraps a base model and replaces the weights of a PEFT model; r alone or lora_alpha alone differing is refused', async () => {
  const src = tinyPeft();
  const want = logits(src);
  const files = sg.peft.saveAdapter(src);
  sg.manualSeed(7);
  const base = new sg.models.LlamaForCausalLM(LLAMA);
  await sg.peft.loadAdapter(base, files);
  close(logits(base), want, 1e-5);
  // a PEFT model of the same configuration: weights replaced
  sg.manualSeed(7);
  const other = new sg.models.LlamaForCausalLM(LLAMA);
  sg.peft.getPeftModel(other, { r: 2, loraAlpha: 4, targetModules: ['q_proj'] });
  await sg.peft.loadAdapter(other, files);
  close(logits(other), want, 1e-5);
  for (const [opts, r, a] of [[{ r: 3 }, 3, 4], [{ loraAlpha: 5 }, 2, 5]]) {
    const m = tinyPeft(opts);
    await assert.rejects(sg.peft.loadAdapter(m, files), { message: `loadAdapter: the adapter has r 2, lora_alpha 4; the model's adapters have r ${r}, lora_alpha ${a}` });
    m.dispose();
  }
  sg.dispose([src, base, other]);
});

test('a saved key that matches no layer is refused; getPeftModel refuses a target that is no Linear', async () => {
  const src = tinyPeft();
  const files = sg.peft.saveAdapter(src);
  const sd = sg.load(files['adapter_model.safetensors']);
  const extra = sg.save({ ...sd, 'base_model.model.model.layers.0.self_attn.o_proj.lora_A.weight': sg.zeros([2, 8]) });
  const base = new sg.models.LlamaForCausalLM(LLAMA);
  await assert.rejects(sg.peft.loadAdapter(base, { ...files, 'adapter_model.safetensors': extra }),
    { message: "loadAdapter: adapter_model.safetensors has key(s) that match no layer of this LlamaForCausalLM: 'base_model.model.model.layers.0.self_attn.o_proj.lora_A.weight' (an adapter for another architecture or configuration?)" });
  assert.equal(base.modules().filter((m) => m instanceof sg.peft.LoraLinear).length, 0, 'unchanged');
  throwsWith(() => sg.peft.getPeftModel(base, { targetModules: ['input_layernorm'] }),
    /^getPeftModel: target module 'model\.layers\.0\.input_layernorm' is a \w+; LoRA here supports Linear and Conv1D layers only$/);
  sg.peft.getPeftModel(base, { targetModules: ['v_proj'] });
  assert.equal(base.modules().filter((m) => m instanceof sg.peft.LoraLinear).length, 1);
  sg.dispose([src, base, ...Object.values(sd)]);
});
