// model.generate with a key/value cache (Llama, GPT-2), against PyTorch and against a full recompute:
// tests/data/gen_generate.py writes Hugging Face's next-token filters re-written in torch 1.13
// (repetition penalty, temperature, top-k, top-p, in generate's order) on fixed scores, and greedy
// generations by full recompute with trainer/models.py's plain-PyTorch Llama and GPT-2 on tiny
// random folders. The generator runs into a temporary folder when /usr/bin/python3 has torch;
// without it the oracle tests are skipped (saying so); the recompute and bad-input tests always run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import test from 'node:test';
import { sg, throwsWith, torchOracle } from './helpers.mjs';
// The filters generate uses (internal: the same module instance as the package's).
import { processLogits } from '../../npm/dist/esm/npm/src/models/logits_processors.js';

const gen = torchOracle('gen_generate.py');
const skip = gen.skip ?? false;

const ids = (rows) => sg.tensor(rows, { dtype: 'int32' });

/** Greedy by full recompute in simdgrad: the whole sequence every step, no cache. */
function recompute(model, prompt, n) {
  let seq = ids(prompt);
  for (let i = 0; i < n; i++) {
    const next = sg.tidy(() => {
      const logits = model.forward(seq);
      const last = logits.select(1, logits.shape[1] - 1);
      return sg.cat([seq, last.argmax(-1).view([-1, 1])], 1);
    });
    seq.dispose();
    seq = next;
  }
  const out = seq.toArray();
  seq.dispose();
  return out;
}

function tinyLlama(extra = {}) {
  sg.manualSeed(3);
  return new sg.models.LlamaForCausalLM({ vocab_size: 48, hidden_size: 32, intermediate_size: 40, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 40, initializer_range: 0.3, ...extra }).eval();
}

test("HF's filters (repetition penalty, temperature, top-k, top-p) give PyTorch's scores and distributions", { skip }, () => {
  const f = gen.expected.filters;
  sg.tidy(() => {
    const scores = sg.tensor(f.scores, { shape: [3, 40] });
    const seq = ids(f.ids);
    for (const c of f.cases) {
      const o = c.options;
      const out = processLogits(scores, seq, {
        repetitionPenalty: o.repetitionPenalty ?? null,
        doSample: o.doSample ?? false,
        temperature: o.temperature ?? 1,
        topK: o.topK ?? null,
        topP: o.topP ?? null,
      });
      const got = out.dataSync();
      c.scores.forEach((e, i) => {
        if (e === null) assert.equal(got[i], -Infinity, `${JSON.stringify(o)}: [${i}] filtered`);
        else assert.ok(Math.abs(got[i] - e) <= 1e-5 * (1 + Math.abs(e)), `${JSON.stringify(o)}: [${i}] ${got[i]} vs ${e}`);
      });
      const p = out.softmax(-1).dataSync();
      c.probs.forEach((e, i) => assert.ok(Math.abs(p[i] - e) <= 1e-6, `${JSON.stringify(o)}: p[${i}] ${p[i]} vs ${e}`));
    }
  });
});

for (const name of ['llama', 'gpt2']) {
  test(`${name}: greedy generate (cached) equals PyTorch's full recompute, with and without repetitionPenalty`, { skip }, async () => {
    const e = gen.expected[name];
    const model = (await sg.models.fromPretrained(join(gen.dir, name))).eval();
    const prompt = ids(e.prompt);
    const out = await model.generate(prompt, { maxNewTokens: 12 });
    assert.deepEqual(out.toArray(), e.greedy);
    assert.equal(out.dtype, 'int32');
    const pen = await model.generate(prompt, { maxNewTokens: 12, repetitionPenalty: 1.3 });
    assert.deepEqual(pen.toArray(), e.greedy_penalty);
    sg.dispose([out, pen, prompt]);
    model.dispose();
  });
}

test('greedy with the cache equals simdgrad full recompute: Llama (GQA), Mistral sliding window, GPT-2; onToken streams every step', async () => {
  const prompt = [[1, 5, 9], [4, 0, 12]];
  sg.manualSeed(5);
  const gpt2 = new sg.models.GPT2LMHeadModel({ vocab_size: 48, n_positions: 32, n_embd: 32, n_layer: 2, n_head: 4, initializer_range: 0.3 }).eval();
  for (const [name, model] of [['llama', tinyLlama()], ['mistral', tinyLlama({ model_type: 'mistral', sliding_window: 4 })], ['gpt2', gpt2]]) {
    const heard = [];
    const p = ids(prompt);
    const out = await model.generate(p, { maxNewTokens: 14, onToken: (tokens, step) => void heard.push([step, tokens]) });
    const full = recompute(model, prompt, 14);
    assert.deepEqual(out.toArray(), full, name);
    assert.deepEqual(heard.map(([s]) => s), [...Array(14).keys()]);
    assert.deepEqual(heard.map(([, t]) => t), Array.from({ length: 14 }, (_, i) => full.map((row) => row[3 + i])));
    sg.dispose([out, p]);
    model.dispose();
  }
});

test('EOS stops each row (padded with the EOS id after it) and the whole batch once every row has stopped', async () => {
  const model = tinyLlama();
  const prompt = [[1, 5, 9], [4, 0, 12]];
  const full = recompute(model, prompt, 10);
  const eos = full[0][3 + 2]; // row 0's third new token
  const cut = (row) => {
    const k = row.slice(3).indexOf(eos);
    return k < 0 ? Infinity : k;
  };
  const p = ids(prompt);
  const out = await model.generate(p, { maxNewTokens: 10, eosTokenId: eos });
  const got = out.toArray();
  const stops = full.map(cut);
  const n = Math.min(10, Math.max(...stops.map((s) => (s === Infinity ? 10 : s + 1))));
  assert.equal(got[0].length, 3 + n);
  full.forEach((row, b) => {
    for (let i = 0; i < n; i++) assert.equal(got[b][3 + i], i <= stops[b] ? row[3 + i] : eos, `row ${b} token ${i}`);
  });
  // Both rows stop at once when the EOS list names each row's first token.
  const both = await model.generate(p, { maxNewTokens: 10, eosTokenId: [full[0][3], full[1][3]] });
  assert.deepEqual(both.toArray(), full.map((row) => row.slice(0, 4)));
  sg.dispose([out, both, p]);
  model.dispose();
});

test('sampling: topK 1 and a tiny topP are greedy; a seed repeats a sample; tokens stay in the top-k set', async () => {
  const model = tinyLlama();
  const prompt = [[1, 5, 9], [4, 0, 12]];
  const full = recompute(model, prompt, 8);
  const p = ids(prompt);
  for (const o of [{ topK: 1 }, { topP: 1e-6 }, { temperature: 1e-4 }]) {
    const out = await model.generate(p, { maxNewTokens: 8, doSample: true, ...o });
    assert.deepEqual(out.toArray(), full, JSON.stringify(o));
    out.dispose();
  }
  sg.manualSeed(11);
  const a = await model.generate(p, { maxNewTokens: 8, doSample: true, temperature: 1.5, topK: 6 });
  sg.manualSeed(11);
  const b = await model.generate(p, { maxNewTokens: 8, doSample: true, temperature: 1.5, topK: 6 });
  assert.deepEqual(a.toArray(), b.toArray());
  // Every sampled token is among the 6 most likely after the tokens before it.
  sg.tidy(() => {
    const logits = model.forward(a);
    const top = logits.topk(6).indices.toArray();
    a.toArray().forEach((row, r) => {
      for (let t = 3; t < row.length; t++) assert.ok(top[r][t - 1].includes(row[t]), `row ${r} position ${t}: ${row[t]} not in ${top[r][t - 1]}`);
    });
  });
  sg.dispose([a, b, p]);
  model.dispose();
});

test('memory: the cache is freed, tensor count and bytes flat over generate calls', async () => {
  const model = tinyLlama();
  const p = ids([[1, 5, 9]]);
  const run = async () => (await model.generate(p, { maxNewTokens: 6, doSample: true, topK: 5, topP: 0.9, repetitionPenalty: 1.2 })).dispose();
  await run();
  const m0 = sg.memory();
  for (let i = 0; i < 5; i++) await run();
  const m1 = sg.memory();
  assert.equal(m1.tensors, m0.tensors);
  assert.equal(m1.bytes, m0.bytes);
  p.dispose();
  model.dispose();
});

test('bad input: past the position limit, bad options and ids are Errors naming them; nothing is generated', async () => {
  const model = tinyLlama();
  const p = ids([[1, 5, 9]]);
  const before = sg.memory().tensors;
  await assert.rejects(model.generate(p, { maxNewTokens: 38 }), /3 prompt tokens \+ maxNewTokens 38 exceed the model's 40 positions/);
  await assert.rejects(model.generate(p, { maxNewTokens: -1 }), /'maxNewTokens'/);
  await assert.rejects(model.generate(p, { topP: 1.5 }), /'topP'/);
  await assert.rejects(model.generate(p, { temperature: 0 }), /'temperature'/);
  await assert.rejects(model.generate(p, { eosTokenId: 'x' }), /'eosTokenId'/);
  await assert.rejects(model.generate(p, { maxTokens: 3 }), /maxTokens/);
  const floats = sg.tensor([[1, 2]]);
  await assert.rejects(model.generate(floats, {}), /int32 Tensor of token ids/);
  floats.dispose();
  const thrower = model.generate(p, { maxNewTokens: 3, onToken: () => { throw new Error('stop here'); } });
  await assert.rejects(thrower, /stop here/);
  assert.equal(sg.memory().tensors, before);
  sg.manualSeed(5);
  const gpt2 = new sg.models.GPT2LMHeadModel({ vocab_size: 48, n_positions: 8, n_embd: 32, n_layer: 1, n_head: 4 });
  await assert.rejects(gpt2.generate(p, { maxNewTokens: 6 }), /GPT2LMHeadModel.generate: 3 prompt tokens \+ maxNewTokens 6 exceed the model's 8 positions/);
  throwsWith(() => gpt2.transformer.forward(ids([[1, 2, 3, 4, 5, 6, 7, 8, 9]])), 'n_positions');
  gpt2.dispose();
  p.dispose();
  model.dispose();
});
