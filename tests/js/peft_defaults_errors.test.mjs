// sg.peft paths no test reached, on tiny models built here: getPeftModel's defaults (PEFT's LoraConfig:
// r 8, lora_alpha 8, lora_dropout 0, bias 'none'; target modules by PEFT's mapping: gpt2 c_attn,
// llama q_proj/v_proj, bert query/value), adapter_config.json without lora_dropout and bias (PEFT's
// defaults 0 and 'none'), loadAdapter onto a PEFT model of the same configuration (weights replaced),
// trainableParameters counted by hand, and the errors: an invalid regex, a non-module, missing or
// unreadable adapter files (messages from npm/src/peft, the contract).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const gpt2 = () => new sg.models.GPT2LMHeadModel({ vocab_size: 12, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 });
const llama = () => new sg.models.LlamaForCausalLM({ hidden_size: 8, intermediate_size: 12, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 16 });
const bert = () => new sg.models.BertForMaskedLM({ vocabSize: 16, hiddenSize: 8, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 16, maxPositionEmbeddings: 8 });
const values = (t) => Array.from(t.dataSync());

test("getPeftModel's defaults are PEFT's: r 8, lora_alpha 8, lora_dropout 0, bias 'none', and the target modules of PEFT's mapping per model", () => {
  for (const [make, targets] of [[gpt2, ['c_attn']], [llama, ['q_proj', 'v_proj']], [bert, ['query', 'value']]]) {
    const m = sg.peft.getPeftModel(make());
    const cfg = JSON.parse(sg.peft.saveAdapter(m)['adapter_config.json']);
    assert.equal(cfg.r, 8);
    assert.equal(cfg.lora_alpha, 8);
    assert.equal(cfg.lora_dropout, 0);
    assert.equal(cfg.bias, 'none');
    assert.deepEqual([...cfg.target_modules].sort(), targets, m.constructor.name);
    m.dispose();
  }
  // r 8 on GPT-2's c_attn (Conv1D nx 8 → nf 24): A [8, 8] and B [24, 8] train, 64 + 192
  const m = gpt2();
  const total = sg.peft.trainableParameters(m).total;
  sg.peft.getPeftModel(m);
  assert.deepEqual(sg.peft.trainableParameters(m), { trainable: 256, total: total + 256 });
  m.dispose();
});

test('trainableParameters: counts by hand before and after getPeftModel; a non-module is an Error', () => {
  const m = gpt2();
  // wte 12·8, wpe 4·8, 2 LayerNorms in the block + ln_f (3·16), c_attn 8·24+24, c_proj 8·8+8, c_fc 8·32+32, mlp c_proj 32·8+8; lm_head tied
  const total = 96 + 32 + 48 + 216 + 72 + 288 + 264;
  assert.deepEqual(sg.peft.trainableParameters(m), { trainable: total, total });
  sg.peft.getPeftModel(m, { targetModules: ['c_attn'], r: 2 });
  assert.deepEqual(sg.peft.trainableParameters(m), { trainable: 2 * 8 + 24 * 2, total: total + 64 });
  for (const [bad, got] of [[42, '42'], [null, 'null'], [{}, 'an object']]) {
    throwsWith(() => sg.peft.trainableParameters(bad), `trainableParameters: expected a sg.nn.Module, got ${got}`);
  }
  m.dispose();
});

test('targetModules as a string that is not a valid regex: an Error naming it, the model unchanged', () => {
  const m = gpt2();
  const keys = Object.keys(m.stateDict());
  throwsWith(() => sg.peft.getPeftModel(m, { targetModules: 'transformer.(' }), /^getPeftModel: targetModules 'transformer\.\(' is not a valid regex \(Invalid regular expression: .*\)$/);
  throwsWith(() => sg.peft.getPeftModel(m, { targetModules: '[c_attn' }), /^getPeftModel: targetModules '\[c_attn' is not a valid regex \(/);
  assert.deepEqual(Object.keys(m.stateDict()), keys);
  // a valid regex full-matches the path
  sg.peft.getPeftModel(m, { targetModules: 'transformer\\.h\\.\\d+\\.attn\\.c_attn' });
  assert.deepEqual(JSON.parse(sg.peft.saveAdapter(m)['adapter_config.json']).target_modules, 'transformer\\.h\\.\\d+\\.attn\\.c_attn');
  m.dispose();
});

test('loadAdapter: missing or unreadable files are Errors naming them; a config without lora_dropout and bias takes PEFT\'s defaults; onto a PEFT model of the same configuration the weights are replaced', async () => {
  const src = sg.peft.getPeftModel(gpt2(), { targetModules: ['c_attn'], r: 2, loraAlpha: 4, loraDropout: 0.1, bias: 'lora_only' });
  // B is zero after getPeftModel: give it values so that a load is seen
  for (const [k, p] of src.namedParameters()) if (k.includes('lora_B')) p.data = sg.randn(p.shape);
  const files = sg.peft.saveAdapter(src);
  const target = gpt2();
  const keys = Object.keys(target.stateDict());
  await assert.rejects(sg.peft.loadAdapter(target, { 'adapter_model.safetensors': files['adapter_model.safetensors'] }), { message: 'loadAdapter: no adapter_config.json in the given files' });
  await assert.rejects(sg.peft.loadAdapter(target, { 'adapter_config.json': files['adapter_config.json'] }),
    { message: "loadAdapter: no adapter_model.safetensors in the given files (adapter_model.bin, PyTorch's pickle format, is not read)" });
  await assert.rejects(sg.peft.loadAdapter(target, { ...files, 'adapter_model.safetensors': new Uint8Array(3) }),
    { message: 'loadAdapter: adapter_model.safetensors: load: the data is 3 bytes long; a safetensors file starts with an 8-byte header length' });
  assert.deepEqual(Object.keys(target.stateDict()), keys, 'unchanged by the failed loads');
  // without lora_dropout and bias: 0 and 'none'
  const cfg = JSON.parse(files['adapter_config.json']);
  delete cfg.lora_dropout;
  delete cfg.bias;
  await sg.peft.loadAdapter(target, { ...files, 'adapter_config.json': JSON.stringify(cfg) });
  const saved = JSON.parse(sg.peft.saveAdapter(target)['adapter_config.json']);
  assert.equal(saved.lora_dropout, 0);
  assert.equal(saved.bias, 'none');
  assert.equal(saved.r, 2);
  // a second PEFT model of the same r and alpha: loadAdapter replaces its (zero) B with the file's
  const peft = sg.peft.getPeftModel(gpt2(), { targetModules: ['c_attn'], r: 2, loraAlpha: 4 });
  const before = sg.memory().tensors;
  await sg.peft.loadAdapter(peft, files);
  const get = (m, part) => m.namedParameters().find(([k]) => k.includes(part))[1];
  assert.deepEqual(values(get(peft, 'lora_B')), values(get(src, 'lora_B')));
  assert.deepEqual(values(get(peft, 'lora_A')), values(get(src, 'lora_A')));
  assert.equal(sg.memory().tensors, before, 'replaced in place: no tensor more');
  sg.dispose([src, target, peft]);
});
