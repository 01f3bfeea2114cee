// sg.models.fromPretrained / savePretrained without PyTorch: round trips of Llama, GPT-2 and BERT through Hugging
// Face folders (as files and as a Node folder), and bad input: each a clear Error naming the file or key, with
// nothing left behind (the live tensor count is unchanged).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { assertMemoryFlat, sg, typeCheck } from './helpers.mjs';

const LLAMA = { hidden_size: 16, intermediate_size: 24, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 32 };

function sameLogits(a, b, ids, what) {
  sg.tidy(() => {
    const x = a.forward(ids);
    const y = b.forward(ids);
    const [p, q] = [x.logits ?? x, y.logits ?? y];
    assert.deepEqual(Array.from(p.dataSync()), Array.from(q.dataSync()), what);
  });
}

test('savePretrained → fromPretrained: Llama (tied and not), GPT-2, BERT give the same module (files and a Node folder)', async () => {
  const ids = sg.tensor([[1, 2, 3, 4, 5]], { dtype: 'int32' });
  const cases = [
    new sg.models.LlamaForCausalLM(LLAMA),
    new sg.models.LlamaForCausalLM({ ...LLAMA, tie_word_embeddings: true, model_type: 'mistral', sliding_window: 3 }),
    new sg.models.GPT2LMHeadModel({ n_embd: 16, n_layer: 1, n_head: 2, vocab_size: 32, n_positions: 16 }),
    new sg.models.BertForMaskedLM({ vocabSize: 32, hiddenSize: 16, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 32, maxPositionEmbeddings: 16 }),
  ];
  for (const m of cases) {
    m.eval();
    const files = sg.models.savePretrained(m);
    const back = await sg.models.fromPretrained(files);
    back.eval();
    assert.equal(back.constructor, m.constructor);
    sameLogits(m, back, ids, m.constructor.name);
    const dir = mkdtempSync(join(tmpdir(), 'sg-pretrained-'));
    for (const [n, v] of Object.entries(files)) writeFileSync(join(dir, n), v);
    const fromDir = await sg.models.fromPretrained(dir);
    fromDir.eval();
    sameLogits(m, fromDir, ids, `${m.constructor.name} from a folder`);
    rmSync(dir, { recursive: true });
    back.dispose();
    fromDir.dispose();
  }
  // Tied weights are saved once (as transformers): no lm_head.weight for a tied Llama or GPT-2.
  const tiedKeys = Object.keys(sg.load(sg.models.savePretrained(cases[1])['model.safetensors']));
  assert.ok(!tiedKeys.includes('lm_head.weight') && tiedKeys.includes('model.embed_tokens.weight'));
  const gptKeys = Object.keys(sg.load(sg.models.savePretrained(cases[2])['model.safetensors']));
  assert.ok(!gptKeys.includes('lm_head.weight') && gptKeys.includes('transformer.wte.weight'));
  const cfg = JSON.parse(sg.models.savePretrained(cases[2])['config.json']);
  assert.equal(cfg.model_type, 'gpt2');
  assert.equal(cfg.n_embd, 16);
  // Fields of real config.json files that do not change the math are accepted (Llama 3.2, SmolLM2, Qwen2.5).
  const real = { ...JSON.parse(sg.models.savePretrained(cases[0])['config.json']), eos_token_id: [128001, 128009], pretraining_tp: 1,
    is_llama_config: true, rope_interleaved: false, dtype: 'bfloat16', use_cache: true, transformers_version: '4.56.0' };
  const fromReal = await sg.models.fromPretrained({ ...sg.models.savePretrained(cases[0]), 'config.json': JSON.stringify(real) });
  // savePretrained writes the loaded config.json's other fields back (token ids, bookkeeping), as transformers does.
  const saved = JSON.parse(sg.models.savePretrained(fromReal)['config.json']);
  assert.deepEqual(saved.eos_token_id, [128001, 128009]);
  assert.equal(saved.pretraining_tp, 1);
  assert.equal(saved.torch_dtype, 'float32');
  assert.equal(saved.dtype, undefined);
  fromReal.dispose();
  for (const m of cases) m.dispose();
  ids.dispose();
});

// Shards are streamed: every header is read first (from the file's length and its first bytes), then each tensor's
// bytes alone, so no shard is ever whole in memory. Files given as Blobs (a browser's picked folder) record what is
// read of them: never a whole shard (arrayBuffer() on it), no slice longer than the largest tensor or a header.
test('fromPretrained streams the shards: Blob files are read a header or a tensor at a time, never whole', async () => {
  const m = new sg.models.LlamaForCausalLM({ ...LLAMA, num_hidden_layers: 3 });
  const files = sg.models.savePretrained(m, { maxShardSize: 4000 });
  const shards = Object.keys(files).filter((n) => n.endsWith('.safetensors'));
  assert.ok(shards.length >= 3, `${shards.length} shards`);
  const reads = [];
  class RecordingBlob extends Blob {
    constructor(name, bytes) {
      super([bytes]);
      this.name = name;
    }
    arrayBuffer() {
      reads.push([this.name, 'whole', this.size, new Error().stack.split('\n').slice(2, 5).join(' ')]);
      return super.arrayBuffer();
    }
    slice(start, end) {
      reads.push([this.name, 'slice', end - start]);
      return super.slice(start, end);
    }
  }
  const given = Object.fromEntries(Object.entries(files).map(([n, v]) => [n, shards.includes(n) ? new RecordingBlob(n, v) : v]));
  const back = await sg.models.fromPretrained(given);
  const ids = sg.tensor([[1, 2, 3, 4, 5]], { dtype: 'int32' });
  m.eval();
  back.eval();
  sameLogits(m, back, ids, 'streamed Llama');
  assert.deepEqual(reads.filter(([, how]) => how === 'whole'), [], 'no shard read whole');
  const largest = Math.max(...m.parameters().map((p) => p.numel * 4));
  const headers = shards.map((n) => 8 + Number(new DataView(files[n].buffer, files[n].byteOffset).getBigUint64(0, true)));
  const longest = Math.max(...reads.map(([, , n]) => n));
  assert.ok(longest <= Math.max(largest, ...headers), `longest read ${longest} bytes; largest tensor ${largest}, headers ${headers}`);
  for (const n of shards) assert.ok(reads.some(([f]) => f === n), `${n} read`);
  sg.dispose([ids]);
  m.dispose();
  back.dispose();
});

test('savePretrained: maxShardSize as bytes or a string; shards follow HF names and the index format', () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  const files = sg.models.savePretrained(m, { maxShardSize: 4000 });
  const names = Object.keys(files).filter((n) => n.endsWith('.safetensors'));
  const n = names.length;
  assert.ok(n > 2);
  assert.deepEqual(names, Array.from({ length: n }, (_, i) => `model-${String(i + 1).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.safetensors`));
  const index = JSON.parse(files['model.safetensors.index.json']);
  assert.equal(index.metadata.total_size, m.parameters().reduce((s, p) => s + 4 * p.numel, 0));
  assert.equal(Object.keys(index.weight_map).length, Object.keys(m.stateDict({ keepVars: true })).length);
  assert.deepEqual(Object.keys(sg.models.savePretrained(m, { maxShardSize: '1GB' })).sort(), ['config.json', 'model.safetensors']);
  assert.throws(() => sg.models.savePretrained(m, { maxShardSize: 'lots' }), /savePretrained: expected 'maxShardSize'/);
  assert.throws(() => sg.models.savePretrained(new sg.nn.Linear(2, 2)), /savePretrained: expected a LlamaForCausalLM/);
  m.dispose();
});

test('fromPretrained: bad input is a clear Error naming the file or key, and leaves no tensor behind', async () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  const good = sg.models.savePretrained(m, { maxShardSize: 4000 });
  const single = sg.models.savePretrained(m);
  const before = sg.memory().tensors;
  const without = (files, name) => Object.fromEntries(Object.entries(files).filter(([k]) => k !== name));
  const withConfig = (files, patch) => ({ ...files, 'config.json': JSON.stringify({ ...JSON.parse(files['config.json']), ...patch }) });
  const rejects = (source, ...patterns) => assert.rejects(sg.models.fromPretrained(source), (e) => {
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
  await rejects(without(single, 'config.json'), /fromPretrained: no config\.json/);
  await rejects({ ...single, 'config.json': '{"model_type": "llama",' }, /config\.json is not valid JSON/);
  await rejects({ ...single, 'config.json': '[1]' }, /config\.json must hold a JSON object/);
  await rejects(withConfig(single, { model_type: 't5' }), /model_type 't5' is not supported/);
  await rejects(withConfig(single, { hidden_sise: 3 }), /config\.json/, /hidden_sise/);
  await rejects(withConfig(single, { num_key_value_heads: 3 }), /config\.json/, /num_key_value_heads/);
  await rejects(withConfig(single, { rope_scaling: { rope_type: 'yarn', factor: 2 } }), /rope_scaling/, /yarn/);
  await rejects(withConfig(single, { rope_interleaved: true }), /rope_interleaved true is not supported/);
  await rejects(without(single, 'model.safetensors'), /no model\.safetensors or model\.safetensors\.index\.json/);
  await rejects(without(good, 'model-00002-of-00003.safetensors'.replace('00003', String(Object.keys(good).length - 2).padStart(5, '0'))), /lists 'model-00002-of-\d+\.safetensors', which is not in the given files/);
  await rejects(withConfig(single, { intermediate_size: 20 }), /'model\.layers\.0\.mlp\.gate_proj\.weight' in model\.safetensors has shape \[24, 16\], the model \(config\.json\) expects \[20, 16\]/);
  const bytes = single['model.safetensors'];
  await rejects({ ...single, 'model.safetensors': bytes.slice(0, bytes.length - 10) }, /cannot read model\.safetensors/);
  // Missing and unexpected keys, by name.
  const sd = sg.load(bytes);
  const extra = sg.save({ ...sd, 'model.extra.weight': sd['model.norm.weight'] });
  const { ['model.norm.weight']: dropped, ...rest } = sd;
  const missing = sg.save(rest);
  sg.dispose([...Object.values(sd)]);
  void dropped;
  await rejects({ ...single, 'model.safetensors': extra }, /Unexpected key\(s\)/, /model\.extra\.weight/);
  await rejects({ ...single, 'model.safetensors': missing }, /Missing key\(s\)/, /model\.norm\.weight/);
  await rejects(42, /expected a folder path or an object/);
  await rejects({ ...single, 'model.safetensors': 7 }, /'model\.safetensors' to be a Uint8Array/);
  await rejects(join(tmpdir(), 'sg-no-such-folder'), /no config\.json in folder/);
  assert.equal(sg.memory().tensors, before, 'no tensor left behind by the failed loads');
  m.dispose();
});

test('LlamaForCausalLM: a training step (forward, loss, backward, AdamW) leaves the tensor count flat; GQA and sliding window too', () => {
  for (const config of [LLAMA, { ...LLAMA, model_type: 'mistral', sliding_window: 2 }]) {
    const m = new sg.models.LlamaForCausalLM(config);
    const opt = new sg.optim.AdamW(m.parameters(), { lr: 1e-3 });
    const ids = sg.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], { dtype: 'int32' });
    const step = () => sg.tidy(() => {
      opt.zeroGrad();
      const logits = m.forward(ids.narrow(1, 0, 4));
      const loss = sg.F.crossEntropy(logits.reshape([-1, 32]), ids.narrow(1, 1, 4).reshape([-1]));
      loss.backward();
      opt.step();
    });
    assertMemoryFlat(step, { warmup: 2, steps: 10 });
    ids.dispose();
    m.dispose();
  }
});

test('the .d.ts types of fromPretrained, savePretrained, LlamaForCausalLM, sg.tokenizers, RMSNorm and SDPA type-check a use and reject misuse (tsc --strict)', async () => {
  const use = (body) => `
import { init, Tensor, type LlamaConfig, type PretrainedModel, type BatchEncoding, type PreTrainedTokenizer } from 'simdgrad';
const sg = await init();
${body}
`;
  const good = use(`
const config: Partial<LlamaConfig> = { hidden_size: 16, num_attention_heads: 4, num_key_value_heads: 2, rope_scaling: { rope_type: 'llama3', factor: 8 } };
const llama = new sg.models.LlamaForCausalLM(config);
const logits: Tensor = llama.forward(sg.tensor([[1, 2]], { dtype: 'int32' }));
const files: Record<string, string | Uint8Array> = sg.models.savePretrained(llama, { maxShardSize: '2GB' });
const back: PretrainedModel = await sg.models.fromPretrained(files as Record<string, Uint8Array | string>, { dtype: 'float32', device: 'cpu' });
const fromDir = await sg.models.fromPretrained('./folder');
const tok: PreTrainedTokenizer = await sg.tokenizers.fromPretrained(new Map([['tokenizer.json', new Uint8Array(0)]]));
const ids: number[] = tok.encode('hi', { addSpecialTokens: false });
const text: string = tok.decode(ids, { skipSpecialTokens: true });
const batch: BatchEncoding = tok.encodeBatch(['a', 'b'], { padding: 'max_length', truncation: true, maxLength: 8 });
const pad: number | null = tok.padTokenId;
const norm = new sg.nn.RMSNorm([4], { eps: null });
const y: Tensor = sg.F.rmsNorm(logits, [2], null, { eps: 1e-6 });
const att: Tensor = sg.F.scaledDotProductAttention(logits, logits, logits, null, { isCausal: true, enableGqa: true, scale: 0.5, dropoutP: 0 });
console.log(back, fromDir, text, batch, pad, norm, y, att);
`);
  const r = await typeCheck(good);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // The misuses in one file, one a line, and one tsc run (each run costs ~6 s of CPU): each line
  // must have its own error, with the expected words.
  const bads = [
    ["sg.F.scaledDotProductAttention(sg.ones([1]), sg.ones([1]), sg.ones([1]), null, { isCasual: true });", /isCasual/],
    ["sg.models.savePretrained(new sg.nn.Linear(2, 2));", /Linear/],
    ["new sg.models.LlamaForCausalLM({ hidden_size: '16' });", /'string' is not assignable to type 'number'/],
    ["(await sg.tokenizers.fromPretrained('x')).encode('a', { addSpecialToken: true });", /addSpecialToken/],
  ];
  const source = use(bads.map(([bad]) => bad).join('\n'));
  const first = source.split('\n').indexOf(bads[0][0]) + 1; // tsc's line numbers start at 1
  const b = await typeCheck(source);
  assert.notEqual(b.status, 0, 'the misuses should not type-check');
  // tsc prints "use.ts(LINE,COL): error TSnnnn: message" and continues a message on indented lines.
  const byLine = new Map();
  let line = 0;
  for (const l of (b.stdout + b.stderr).split('\n')) {
    const m = /^use\.ts\((\d+),\d+\): error/.exec(l);
    if (m) line = Number(m[1]);
    if (line) byLine.set(line, (byLine.get(line) ?? '') + l + '\n');
  }
  bads.forEach(([bad, why], i) => assert.match(byLine.get(first + i) ?? '', why, `${bad} should not type-check (tsc: ${b.stdout})`));
});
