// sg.peft (LoRA with PEFT's semantics and files) against PyTorch: tests/data/gen_lora.py builds a
// tiny Llama (targets q_proj, v_proj, down_proj) and a tiny GPT-2 (Conv1D targets c_attn and
// mlp.c_proj, bias 'lora_only') with PEFT's lora.Linear re-derived by hand in torch 1.13 (PEFT is
// not installed), writes the base folders and the adapters in PEFT's file format, and records the
// LoRA model's logits, loss and trainable gradients, the merged model's logits, the adapter's keys
// and config and the parameter counts. The generator runs into a temporary folder when
// /usr/bin/python3 has torch; without it the oracle tests are skipped (saying so).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { relToScale, sg, throwsWith, torchOracle } from './helpers.mjs';

const gen = torchOracle('gen_lora.py');
const skip = gen.skip ?? false;

const relErr = relToScale;

function logitsOf(model, ids) {
  return sg.tidy(() => Array.from(model.forward(sg.tensor(ids, { dtype: 'int32' })).dataSync()));
}

function nextTokenLoss(model, ids) {
  const t = sg.tensor(ids, { dtype: 'int32' });
  const logits = model.forward(t);
  const [, T, V] = logits.shape;
  return sg.F.crossEntropy(logits.narrow(1, 0, T - 1).reshape([-1, V]), t.narrow(1, 1, T - 1).reshape([-1]));
}

const loraCount = (model) => model.modules().filter((m) => m instanceof sg.peft.LoraLinear).length;

for (const name of ['llama', 'gpt2']) {
  test(`${name}: loadAdapter (PEFT files written by PyTorch) → logits, loss and LoRA gradients equal PyTorch; counts as PEFT`, { skip }, async () => {
    const e = gen.expected[name];
    const model = await sg.models.fromPretrained(join(gen.dir, name));
    await sg.peft.loadAdapter(model, join(gen.dir, name, 'adapter'));
    model.eval();
    assert.equal(loraCount(model), e.wrapped.length);
    const wrapped = model.namedModules().filter(([, m]) => m instanceof sg.peft.LoraLinear).map(([n]) => n);
    assert.deepEqual(wrapped, e.wrapped);
    assert.deepEqual(sg.peft.trainableParameters(model), e.counts);
    const err = relErr(logitsOf(model, e.ids), e.logits.data);
    assert.ok(err <= 1e-5, `logits relative error ${err}`);
    sg.tidy(() => {
      const loss = nextTokenLoss(model, e.ids);
      assert.ok(Math.abs(loss.item() - e.loss) <= 1e-5 * Math.abs(e.loss), `loss ${loss.item()} vs ${e.loss}`);
      loss.backward();
    });
    const trainable = model.namedParameters().filter(([, p]) => p.requiresGrad);
    assert.deepEqual(trainable.map(([n]) => n).sort(), Object.keys(e.grads).sort());
    for (const [n, p] of trainable) {
      const gerr = relErr(p.grad.dataSync(), e.grads[n]);
      assert.ok(gerr <= 1e-4, `grad ${n}: relative error ${gerr}`);
    }
    for (const [n, p] of model.namedParameters()) if (!p.requiresGrad) assert.equal(p.grad, null, `${n} is frozen and gets no gradient`);
    model.dispose();
  });

  test(`${name}: saveAdapter writes PEFT's keys, values and config; loadAdapter → mergeAndUnload equals PyTorch's merged model`, { skip }, async () => {
    const e = gen.expected[name];
    const model = await sg.models.fromPretrained(join(gen.dir, name));
    const baseKeys = Object.keys(model.stateDict({ keepVars: true }));
    await sg.peft.loadAdapter(model, join(gen.dir, name, 'adapter'));
    const files = sg.peft.saveAdapter(model);
    assert.deepEqual(Object.keys(files).sort(), ['adapter_config.json', 'adapter_model.safetensors']);
    const mine = sg.load(files['adapter_model.safetensors']);
    const theirs = sg.load(readFileSync(join(gen.dir, name, 'adapter', 'adapter_model.safetensors')));
    assert.deepEqual(Object.keys(mine).sort(), e.saved_keys);
    for (const k of e.saved_keys) assert.deepEqual(Array.from(mine[k].dataSync()), Array.from(theirs[k].dataSync()), k);
    assert.deepEqual(sg.loadMetadata(files['adapter_model.safetensors']), { format: 'pt' });
    sg.dispose([Object.values(mine), Object.values(theirs)]);
    const cfg = JSON.parse(files['adapter_config.json']);
    for (const [k, v] of Object.entries(e.config)) assert.deepEqual(cfg[k], v, `adapter_config.json '${k}'`);
    // PeftConfig.save_pretrained: json.dumps(indent=2, sort_keys=True).
    assert.deepEqual(Object.keys(cfg), Object.keys(cfg).slice().sort());
    assert.equal(files['adapter_config.json'], JSON.stringify(cfg, null, 2));

    model.eval();
    const unmerged = logitsOf(model, e.ids);
    const plain = sg.peft.mergeAndUnload(model);
    assert.equal(plain, model);
    assert.equal(loraCount(model), 0);
    assert.deepEqual(Object.keys(model.stateDict({ keepVars: true })), baseKeys);
    const merged = logitsOf(model, e.ids);
    assert.ok(relErr(merged, e.merged_logits) <= 1e-5, `merged vs PyTorch: ${relErr(merged, e.merged_logits)}`);
    assert.ok(relErr(merged, unmerged) <= 1e-5, `merged vs unmerged: ${relErr(merged, unmerged)}`);
    // The saved adapter loads back onto a fresh base (Map of files) and gives the same logits.
    const again = await sg.models.fromPretrained(join(gen.dir, name));
    await sg.peft.loadAdapter(again, new Map(Object.entries(files)));
    again.eval();
    assert.ok(relErr(logitsOf(again, e.ids), e.logits.data) <= 1e-5);
    model.dispose();
    again.dispose();
  });
}

test('getPeftModel: a fresh adapter leaves the logits unchanged (B = 0), A is Kaiming-uniform(a=√5) (bound 1/√in), everything else frozen', { skip }, async () => {
  const e = gen.expected.llama;
  const model = await sg.models.fromPretrained(join(gen.dir, 'llama'));
  model.eval();
  const before = logitsOf(model, e.ids);
  const back = sg.peft.getPeftModel(model, { r: 8, loraAlpha: 16, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] });
  assert.equal(back, model);
  assert.equal(loraCount(model), 8);
  assert.deepEqual(logitsOf(model, e.ids), before);
  const q = model.model.layers.get(0).self_attn.q_proj;
  assert.ok(q instanceof sg.peft.LoraLinear);
  assert.equal(q.scaling, 2);
  const a = q.lora_A.get('default').weight.dataSync();
  const bound = 1 / Math.sqrt(32); // gain √(2/(1+5)) · √3 / √fan_in
  assert.ok(a.every((x) => Math.abs(x) <= bound) && Math.max(...a.map(Math.abs)) > 0.8 * bound);
  assert.ok(q.lora_B.get('default').weight.dataSync().every((x) => x === 0));
  const trainable = model.namedParameters().filter(([, p]) => p.requiresGrad).map(([n]) => n);
  assert.equal(trainable.length, 16);
  assert.ok(trainable.every((n) => /\.lora_[AB]\.default\.weight$/.test(n)), trainable.join());
  // q: 8·32 + 32·8, k/v: 8·32 + 16·8, o: 8·32 + 32·8; two layers.
  const lora = 2 * (512 + 384 + 384 + 512);
  assert.deepEqual(sg.peft.trainableParameters(model), { trainable: lora, total: e.counts.total - e.counts.trainable + lora });
  model.dispose();
});

test("targetModules: 'all-linear' takes every Linear but lm_head; suffixes with dots; a regex string full-matches", { skip }, async () => {
  const all = await sg.models.fromPretrained(join(gen.dir, 'llama'));
  sg.peft.getPeftModel(all, { targetModules: 'all-linear' });
  assert.equal(loraCount(all), 14);
  assert.ok(!(all.lm_head instanceof sg.peft.LoraLinear));
  const cfg = JSON.parse(sg.peft.saveAdapter(all)['adapter_config.json']);
  assert.equal(cfg.target_modules.length, 14);
  assert.ok(cfg.target_modules.includes('model.layers.1.mlp.up_proj'));
  all.dispose();
  const gpt = await sg.models.fromPretrained(join(gen.dir, 'gpt2'));
  sg.peft.getPeftModel(gpt, { targetModules: ['attn.c_proj'] }); // not mlp.c_proj
  assert.deepEqual(gpt.namedModules().filter(([, m]) => m instanceof sg.peft.LoraLinear).map(([n]) => n), ['transformer.h.0.attn.c_proj', 'transformer.h.1.attn.c_proj']);
  gpt.dispose();
  const re = await sg.models.fromPretrained(join(gen.dir, 'llama'));
  sg.peft.getPeftModel(re, { targetModules: 'model\\.layers\\.1\\.self_attn\\.(q|k)_proj' });
  assert.equal(loraCount(re), 2);
  re.dispose();
  const dflt = await sg.models.fromPretrained(join(gen.dir, 'gpt2'));
  sg.peft.getPeftModel(dflt); // PEFT's default for gpt2: c_attn
  assert.equal(loraCount(dflt), 2);
  dflt.dispose();
});

test('dropout is on the adapter input only: in train mode with B = 0 the output is the base output exactly', { skip }, async () => {
  const e = gen.expected.gpt2;
  const model = await sg.models.fromPretrained(join(gen.dir, 'gpt2'));
  model.eval();
  const base = logitsOf(model, e.ids);
  sg.peft.getPeftModel(model, { loraDropout: 0.5, targetModules: ['c_attn', 'c_fc'] });
  model.train(); // the config's pdrops are 0: only the adapters' dropout is random
  assert.deepEqual(logitsOf(model, e.ids), base);
  model.dispose();
});

test('a LoRA training step: only adapters change, tensor count flat over steps', { skip }, async () => {
  const e = gen.expected.llama;
  const model = await sg.models.fromPretrained(join(gen.dir, 'llama'));
  sg.peft.getPeftModel(model, { r: 4, targetModules: ['q_proj', 'v_proj'] });
  const frozen = model.model.embed_tokens.weight.dataSync().slice();
  const params = model.parameters().filter((p) => p.requiresGrad);
  const opt = new sg.optim.AdamW(params, { lr: 1e-2 });
  const losses = [];
  const step = () => {
    sg.tidy(() => {
      const loss = nextTokenLoss(model, e.ids);
      losses.push(loss.item());
      loss.backward();
    });
    opt.step();
    opt.zeroGrad();
  };
  for (let i = 0; i < 3; i++) step();
  const m0 = sg.memory();
  for (let i = 0; i < 10; i++) step();
  assert.equal(sg.memory().tensors, m0.tensors);
  assert.ok(losses.at(-1) < losses[0], `loss ${losses[0]} → ${losses.at(-1)}`);
  assert.deepEqual(model.model.embed_tokens.weight.dataSync(), frozen);
  opt.dispose?.();
  model.dispose();
});

test('bad input: clear Errors naming the option or key; a failed loadAdapter leaves the model unchanged', { skip }, async () => {
  const model = await sg.models.fromPretrained(join(gen.dir, 'llama'));
  throwsWith(() => sg.peft.getPeftModel(model, { targetModules: ['nope'] }), "targetModules", 'match no module', 'q_proj');
  throwsWith(() => sg.peft.getPeftModel(model, { targetModules: ['model.norm'] }), "'model.norm'", 'RMSNorm', 'Linear and Conv1D');
  throwsWith(() => sg.peft.getPeftModel(model, { r: 0 }), "'r'", 'positive integer');
  throwsWith(() => sg.peft.getPeftModel(model, { bias: 'some' }), "'bias'");
  throwsWith(() => sg.peft.getPeftModel(model, { rank: 4 }), 'rank');
  throwsWith(() => sg.peft.saveAdapter(model), 'no LoRA adapters');
  throwsWith(() => sg.peft.mergeAndUnload(model), 'no LoRA adapters');
  throwsWith(() => sg.peft.getPeftModel(new sg.nn.Sequential(new sg.nn.Linear(2, 2))), "'targetModules' is required");
  const keys = Object.keys(model.stateDict({ keepVars: true }));
  // An adapter for another architecture (GPT-2's) onto a Llama: keys name no layer; nothing changes.
  await assert.rejects(sg.peft.loadAdapter(model, join(gen.dir, 'gpt2', 'adapter')), /target_modules.*match no module/);
  const gpt = await sg.models.fromPretrained(join(gen.dir, 'gpt2'));
  const gptFiles = sg.peft.saveAdapter(sg.peft.getPeftModel(gpt, { targetModules: ['c_attn'] }));
  gpt.dispose();
  const cfg = JSON.parse(gptFiles['adapter_config.json']);
  cfg.target_modules = ['q_proj'];
  await assert.rejects(sg.peft.loadAdapter(model, { ...gptFiles, 'adapter_config.json': JSON.stringify(cfg) }), /match no layer of this LlamaForCausalLM.*transformer\.h\.0\.attn\.c_attn/);
  // Wrong shape: an r 4 file whose config says r 8.
  const llamaAdapter = join(gen.dir, 'llama', 'adapter');
  const bad = JSON.parse(readFileSync(join(llamaAdapter, 'adapter_config.json'), 'utf8'));
  const weights = readFileSync(join(llamaAdapter, 'adapter_model.safetensors'));
  await assert.rejects(sg.peft.loadAdapter(model, { 'adapter_config.json': JSON.stringify({ ...bad, r: 8 }), 'adapter_model.safetensors': weights }), /lora_A\.weight' has shape \[4, (32|48)\], the model expects \[8, (32|48)\]/);
  await assert.rejects(sg.peft.loadAdapter(model, { 'adapter_config.json': JSON.stringify({ ...bad, peft_type: 'IA3' }), 'adapter_model.safetensors': weights }), /peft_type 'IA3'/);
  await assert.rejects(sg.peft.loadAdapter(model, { 'adapter_config.json': JSON.stringify({ ...bad, use_dora: true }), 'adapter_model.safetensors': weights }), /'use_dora' true is not supported/);
  await assert.rejects(sg.peft.loadAdapter(model, { 'adapter_config.json': '{"peft_type":', 'adapter_model.safetensors': weights }), /adapter_config.json is not valid JSON/);
  await assert.rejects(sg.peft.loadAdapter(model, { 'adapter_config.json': JSON.stringify(bad) }), /no adapter_model.safetensors/);
  await assert.rejects(sg.peft.loadAdapter(model, { 'adapter_config.json': JSON.stringify(bad), 'adapter_model.safetensors': weights.subarray(0, 100) }), /adapter_model.safetensors/);
  assert.equal(loraCount(model), 0);
  assert.deepEqual(Object.keys(model.stateDict({ keepVars: true })), keys);
  assert.ok(model.parameters().every((p) => p.requiresGrad));
  // On a PEFT model of another rank: an Error, the adapters unchanged.
  sg.peft.getPeftModel(model, { r: 8, targetModules: ['q_proj', 'v_proj', 'down_proj'] });
  await assert.rejects(sg.peft.loadAdapter(model, llamaAdapter), /the adapter has r 4.*the model's adapters have r 8/);
  throwsWith(() => sg.peft.getPeftModel(model, { targetModules: ['k_proj'] }), 'already has LoRA adapters');
  model.dispose();
});
