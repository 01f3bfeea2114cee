// sg.models.fromPretrained's checks no test reached: file names that are not strings, a config.json
// the model refuses (its message under 'config.json: '), an unknown BERT field, a sharded folder whose
// model.safetensors.index.json has no weight_map, a weight_map entry that is not a plain file name, a
// tensor in two shards, a shard holding a tensor the index puts elsewhere or does not list, an index
// entry no shard holds; and a folder path whose shard cannot be stat'ed (a symlink loop) or read (a
// directory). Oracle: the messages (npm/src/models/pretrained.ts, the contract) and, after them, a
// good load that gives the saved model's logits. Nothing is left behind by a refusal.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { sg } from './helpers.mjs';

const LLAMA = { hidden_size: 8, intermediate_size: 12, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 16 };
const rejects = (source, message) => assert.rejects(sg.models.fromPretrained(source), { message });

test('config.json refusals: non-string file names, the model\'s own config error, an unknown BERT field', async () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  const files = sg.models.savePretrained(m);
  const bert = new sg.models.BertForMaskedLM({ vocabSize: 16, hiddenSize: 8, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 16, maxPositionEmbeddings: 8 });
  const bertFiles = sg.models.savePretrained(bert);
  const before = sg.memory().tensors;
  await rejects(new Map([[1, files['config.json']]]), 'fromPretrained: expected file names as keys, got 1');
  const cfg = JSON.parse(files['config.json']);
  await rejects({ ...files, 'config.json': JSON.stringify({ ...cfg, num_key_value_heads: 3 }) },
    'fromPretrained: config.json: LlamaForCausalLM: num_attention_heads (2) must be a multiple of num_key_value_heads (3)');
  await rejects({ ...files, 'config.json': JSON.stringify({ ...cfg, model_type: 'gpt2' }) }, /^fromPretrained: config\.json: GPT2LMHeadModel: /);
  await rejects({ ...bertFiles, 'config.json': JSON.stringify({ ...JSON.parse(bertFiles['config.json']), hiden_size: 8 }) }, "fromPretrained: config.json: unknown BERT field 'hiden_size'");
  assert.equal(sg.memory().tensors, before, 'nothing left behind');
  // the same files as a Map with string keys load
  const back = await sg.models.fromPretrained(new Map(Object.entries(files)));
  assert.deepEqual(Array.from(back.lm_head.weight.dataSync()), Array.from(m.lm_head.weight.dataSync()));
  sg.dispose([back, m, bert]);
});

test('model.safetensors.index.json refusals: no weight_map, an entry that is no file name, a tensor in two shards, in a shard the index does not name, an index entry no shard holds', async () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  const files = sg.models.savePretrained(m);
  const sd = sg.load(files['model.safetensors']);
  const keys = Object.keys(sd);
  const [k0, k1] = keys;
  const save = (names) => sg.save(Object.fromEntries(names.map((k) => [k, sd[k]])));
  const index = (weightMap) => JSON.stringify({ metadata: {}, weight_map: weightMap });
  const folder = (weightMap, shards) => ({ 'config.json': files['config.json'], 'model.safetensors.index.json': index(weightMap), ...shards });
  const allIn = (f) => Object.fromEntries(keys.map((k) => [k, f]));
  const before = sg.memory().tensors;

  await rejects({ 'config.json': files['config.json'], 'model.safetensors.index.json': JSON.stringify({ metadata: {} }) }, "fromPretrained: model.safetensors.index.json has no 'weight_map' object");
  await rejects({ 'config.json': files['config.json'], 'model.safetensors.index.json': JSON.stringify({ weight_map: [] }) }, "fromPretrained: model.safetensors.index.json has no 'weight_map' object");
  await rejects({ 'config.json': files['config.json'], 'model.safetensors.index.json': JSON.stringify({ weight_map: null }) }, "fromPretrained: model.safetensors.index.json has no 'weight_map' object");
  for (const [v, got] of [['../a.safetensors', "'../a.safetensors'"], ['sub/a.safetensors', "'sub/a.safetensors'"], ['sub\\a.safetensors', "'sub\\a.safetensors'"], ['', "''"], [5, '5'], ['..', "'..'"]]) {
    await rejects(folder({ ...allIn('a.safetensors'), [k1]: v }, { 'a.safetensors': files['model.safetensors'] }),
      `fromPretrained: model.safetensors.index.json: weight_map['${k1}'] must be a file name, got ${got}`);
  }
  // b holds k0 too, which a (read first) already gave
  const rest = keys.filter((k) => k !== k1);
  await rejects(folder({ ...allIn('a.safetensors'), [k1]: 'b.safetensors' }, { 'a.safetensors': save(rest), 'b.safetensors': save([k0, k1]) }),
    `fromPretrained: '${k0}' is in both a.safetensors and b.safetensors`);
  // a holds k1, which the index puts in b; a holds 'extra', which the index does not list
  await rejects(folder({ ...allIn('a.safetensors'), [k1]: 'b.safetensors' }, { 'a.safetensors': files['model.safetensors'], 'b.safetensors': save([k1]) }),
    `fromPretrained: a.safetensors holds '${k1}', which model.safetensors.index.json puts in b.safetensors`);
  await rejects(folder(allIn('a.safetensors'), { 'a.safetensors': sg.save({ ...sd, extra: sd[k0] }) }),
    "fromPretrained: a.safetensors holds 'extra', which model.safetensors.index.json does not list");
  await rejects(folder({ ...allIn('a.safetensors'), ghost: 'a.safetensors' }, { 'a.safetensors': files['model.safetensors'] }),
    "fromPretrained: model.safetensors.index.json puts 'ghost' in a.safetensors, which does not hold it");
  assert.equal(sg.memory().tensors, before, 'nothing left behind');
  // split as the index says, the two shards load the model
  const back = await sg.models.fromPretrained(folder({ ...allIn('a.safetensors'), [k1]: 'b.safetensors' }, { 'a.safetensors': save(rest), 'b.safetensors': save([k1]) }));
  for (const [k, p] of back.namedParameters()) if (k in sd) assert.deepEqual(Array.from(p.dataSync()), Array.from(sd[k].dataSync()), k);
  sg.dispose([back, m, ...Object.values(sd)]);
});

test('a folder path whose shard cannot be stat\'ed (a symlink loop) or read (a directory): an Error naming <dir>/<file>', async () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  const files = sg.models.savePretrained(m);
  const dir = mkdtempSync(join(tmpdir(), 'sg-pretrained-index-'));
  try {
    writeFileSync(join(dir, 'config.json'), files['config.json']);
    symlinkSync('model.safetensors', join(dir, 'model.safetensors'));
    await assert.rejects(sg.models.fromPretrained(dir), (e) => {
      assert.ok(e.message.startsWith(`fromPretrained: cannot read '${dir}/model.safetensors': `), e.message);
      assert.match(e.message, /ELOOP/);
      return true;
    });
    rmSync(join(dir, 'model.safetensors'));
    mkdirSync(join(dir, 'model.safetensors'));
    // read once: the header read does not wrap the folder's Error again (it said 'fromPretrained: cannot read
    // model.safetensors: fromPretrained: cannot read <dir>/model.safetensors: ...')
    await assert.rejects(sg.models.fromPretrained(dir), (e) => {
      assert.ok(e.message.startsWith(`fromPretrained: cannot read '${dir}/model.safetensors': `), e.message);
      assert.match(e.message, /EISDIR/);
      return true;
    });
    rmSync(join(dir, 'model.safetensors'), { recursive: true });
    writeFileSync(join(dir, 'model.safetensors'), files['model.safetensors']);
    const back = await sg.models.fromPretrained(dir);
    assert.deepEqual(Array.from(back.lm_head.weight.dataSync()), Array.from(m.lm_head.weight.dataSync()));
    back.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    m.dispose();
  }
});
