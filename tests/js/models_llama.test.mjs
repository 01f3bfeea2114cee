// sg.models.LlamaForCausalLM through sg.models.fromPretrained, against PyTorch: tests/data/gen_llama.py writes
// tiny random Hugging Face folders (f32, tied embeddings, rope_scaling llama3 and linear, bf16 weights, sharded
// with model.safetensors.index.json, Mistral's sliding window, Qwen2) and what trainer/models.py's plain-PyTorch Llama computes on them
// (logits, the next-token loss, gradient norms and values). The generator runs into a temporary folder when
// /usr/bin/python3 has torch; without it these tests are skipped (saying so).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { relToScale, sg, torchOracle } from './helpers.mjs';

const gen = torchOracle('gen_llama.py');
const skip = gen.skip ?? false;

const worst = relToScale;

function check(model, e, name) {
  sg.tidy(() => {
    const ids = sg.tensor(e.ids, { dtype: 'int32' });
    const logits = model.forward(ids);
    assert.deepEqual(logits.shape, e.logits.shape, `${name}: logits shape`);
    const err = worst(logits.dataSync(), e.logits.data);
    assert.ok(err <= 1e-5, `${name}: logits relative error ${err}`);
    let maxAbs = 0;
    const a = logits.dataSync();
    for (let i = 0; i < a.length; i++) maxAbs = Math.max(maxAbs, Math.abs(a[i] - e.logits.data[i]) / (1 + Math.abs(e.logits.data[i])));
    assert.ok(maxAbs <= 1e-5, `${name}: logits error ${maxAbs} > 1e-5`);
    const [B, T, V] = logits.shape;
    const loss = sg.F.crossEntropy(logits.narrow(1, 0, T - 1).reshape([-1, V]), ids.narrow(1, 1, T - 1).reshape([-1]));
    assert.ok(Math.abs(loss.item() - e.loss) <= 1e-4 * Math.abs(e.loss), `${name}: loss ${loss.item()} vs ${e.loss}`);
    model.zeroGrad();
    loss.backward();
    const params = Object.fromEntries(model.namedParameters());
    for (const [k, g] of Object.entries(e.grads)) {
      const grad = params[k].grad;
      assert.ok(grad, `${name}: ${k} has no gradient`);
      const d = grad.dataSync();
      let s = 0;
      for (const x of d) s += x * x;
      assert.ok(Math.abs(Math.sqrt(s) - g.norm) <= 1e-4 * g.norm, `${name}: |grad ${k}| ${Math.sqrt(s)} vs ${g.norm}`);
      g.first.forEach((x, i) => assert.ok(Math.abs(d[i] - x) <= 1e-4 * (g.norm / Math.sqrt(d.length) + Math.abs(x)) + 1e-7, `${name}: grad ${k}[${i}] ${d[i]} vs ${x}`));
    }
    void B;
  });
}

for (const name of ['llama_f32', 'llama_tied', 'llama3_rope', 'linear_rope', 'llama_bf16', 'llama_sharded', 'mistral_window', 'qwen2']) {
  test(`fromPretrained(folder) → LlamaForCausalLM equals PyTorch: ${name} (logits, loss, gradients)`, { skip }, async () => {
    // llama_bf16's oracle is float32 on its rounded weights (bf16 compute: models_16bit.test.mjs).
    const model = await sg.models.fromPretrained(join(gen.dir, name), { dtype: 'float32' });
    try {
      assert.ok(model instanceof sg.models.LlamaForCausalLM);
      for (const p of model.parameters()) assert.equal(p.dtype, 'float32', `${name}: the module computes in float32`);
      check(model, gen.expected[name], name);
    } finally {
      model.dispose();
    }
  });
}

test('HF names: state-dict keys of a folder, tied lm_head absent from the file but in stateDict() (one Parameter)', { skip }, async () => {
  const model = await sg.models.fromPretrained(join(gen.dir, 'llama_tied'));
  const keys = Object.keys(model.stateDict());
  sg.dispose(Object.values(model.stateDict()));
  const file = sg.load(readFileSync(join(gen.dir, 'llama_tied', 'model.safetensors')));
  assert.deepEqual(keys.filter((k) => k !== 'lm_head.weight').sort(), Object.keys(file).sort());
  assert.ok(keys.includes('lm_head.weight'));
  assert.equal(model.lm_head.weight, model.model.embed_tokens.weight);
  sg.dispose(Object.values(file));
  const qwen = await sg.models.fromPretrained(join(gen.dir, 'qwen2'));
  const qkeys = Object.keys(qwen.stateDict({ keepVars: true }));
  assert.ok(qkeys.includes('model.layers.0.self_attn.q_proj.bias') && !qkeys.includes('model.layers.0.self_attn.o_proj.bias'));
  model.dispose();
  qwen.dispose();
});

test('bf16 checkpoint: sg.load keeps bfloat16, fromPretrained keeps it by default, { dtype } casts the module', { skip }, async () => {
  const dir = join(gen.dir, 'llama_bf16');
  const file = sg.load(readFileSync(join(dir, 'model.safetensors')));
  assert.ok(Object.values(file).every((t) => t.dtype === 'bfloat16'));
  sg.dispose(Object.values(file));
  const bf = await sg.models.fromPretrained(dir);
  assert.ok(bf.parameters().every((p) => p.dtype === 'bfloat16'));
  const f32 = await sg.models.fromPretrained(dir, { dtype: 'float32' });
  assert.ok(f32.parameters().every((p) => p.dtype === 'float32'));
  // Every bf16 value is a float32 value: the two hold the same numbers.
  const a = bf.model.norm.weight.detach().to('float32').dataSync();
  assert.deepEqual(Array.from(a), Array.from(f32.model.norm.weight.dataSync()));
  bf.dispose();
  f32.dispose();
});

test('fromPretrained from files (Map of Uint8Array, object of Blob) equals the folder; savePretrained → fromPretrained round trip, sharded', { skip }, async () => {
  const dir = join(gen.dir, 'llama_sharded');
  const names = readdirSync(dir);
  const asMap = new Map(names.map((n) => [n, new Uint8Array(readFileSync(join(dir, n)))]));
  const asBlobs = Object.fromEntries(names.map((n) => [n, new Blob([readFileSync(join(dir, n))])]));
  for (const source of [asMap, asBlobs]) {
    const m = await sg.models.fromPretrained(source);
    check(m, gen.expected.llama_sharded, 'llama_sharded from files');
    m.dispose();
  }
  const model = await sg.models.fromPretrained(join(gen.dir, 'llama3_rope'));
  const files = sg.models.savePretrained(model, { maxShardSize: '20KB' });
  const shardNames = Object.keys(files).filter((n) => n.endsWith('.safetensors'));
  assert.ok(shardNames.length > 1 && shardNames.every((n) => /^model-\d{5}-of-\d{5}\.safetensors$/.test(n)), shardNames.join());
  const index = JSON.parse(files['model.safetensors.index.json']);
  assert.deepEqual(Object.keys(index).sort(), ['metadata', 'weight_map']);
  const keys = Object.keys(model.stateDict({ keepVars: true }));
  assert.deepEqual(Object.keys(index.weight_map).sort(), [...keys].sort());
  assert.equal(index.metadata.total_size, model.parameters().reduce((s, p) => s + 4 * p.numel, 0));
  for (const n of shardNames) assert.ok(files[n].byteLength < 20_000 + 4 * 64 * 48 + 2000, `${n}: ${files[n].byteLength} bytes`);
  const config = JSON.parse(files['config.json']);
  assert.equal(config.model_type, 'llama');
  assert.deepEqual(config.architectures, ['LlamaForCausalLM']);
  assert.deepEqual(config.rope_scaling, gen.expected && JSON.parse(readFileSync(join(gen.dir, 'llama3_rope', 'config.json'), 'utf8')).rope_scaling);
  const back = await sg.models.fromPretrained(files);
  check(back, gen.expected.llama3_rope, 'llama3_rope after savePretrained');
  const single = sg.models.savePretrained(back);
  assert.deepEqual(Object.keys(single).sort(), ['config.json', 'model.safetensors']);
  model.dispose();
  back.dispose();
});
