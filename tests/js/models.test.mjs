// sg.models against PyTorch 1.13 (tests/data/models_ref.json and the *_tiny.safetensors files
// from gen_models.py: nanoGPT's model.py and a Hugging Face-named BERT written in PyTorch):
// state-dict names, safetensors written by Python loaded as they are, logits, losses, gradients
// of every parameter, AdamW losses; generate's shape, seeding and greedy decoding (topK 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg } from './helpers.mjs';
import { closeTo, fromRef, readRef } from './gradcheck_helpers.mjs';

const ref = readRef('models_ref.json');
const TOL = 1e-5;  // |ours − PyTorch| ≤ TOL·(1 + |PyTorch|), element by element
const ints = (e) => sg.tensor(Int32Array.from(e.data), { shape: e.shape });
const file = (name) => sg.load(readFileSync(new URL(`../data/${name}`, import.meta.url)));

/** Loads a Python-written safetensors file into `model`; returns the file's names. */
function loadFile(model, name) {
  const state = file(name);
  const keys = Object.keys(state);
  const r = model.loadStateDict(state);
  assert.deepEqual(r, { missingKeys: [], unexpectedKeys: [] });
  for (const t of Object.values(state)) t.dispose();
  return keys;
}

for (const c of ref.gpt) {
  test(`GPT (${c.name}): names, logits, loss and gradients equal nanoGPT's`, () => {
    sg.tidy(() => {
      const m = new sg.models.GPT(c.config);
      // PyTorch 1.13 takes nanoGPT's slow-attention path, whose causal-mask buffers 'attn.bias' we do not keep.
      assert.deepEqual(Object.keys(m.stateDict()), c.stateDictKeys.filter((k) => !k.endsWith('.attn.bias')));
      assert.deepEqual(m.namedParameters().map(([k]) => k), c.parameterNames);
      assert.equal(m.lm_head.weight, m.transformer.wte.weight, 'lm_head is tied to wte');
      const keys = loadFile(m, c.file);
      assert.ok(!keys.includes('lm_head.weight'), 'the file holds the tied weight once');
      const { logits, loss } = m.forward(ints(c.idx), ints(c.targets));
      closeTo(logits, c.logits, TOL, 'logits');
      assert.ok(Math.abs(loss.item() - c.loss) <= TOL * (1 + Math.abs(c.loss)), `loss ${loss.item()} vs ${c.loss}`);
      loss.backward();
      for (const [k, p] of m.namedParameters()) closeTo(p.grad, c.grads[k], 1e-5, `gradient of ${k}`);
      const last = m.forward(ints(c.shortIdx));
      assert.equal(last.loss, null);
      closeTo(last.logits, c.lastLogits, TOL, 'last-position logits');
      m.dispose();
    });
  });

  test(`GPT (${c.name}): nanoGPT's AdamW groups give PyTorch's losses`, () => {
    sg.tidy(() => {
      const m = new sg.models.GPT(c.config);
      loadFile(m, c.file);
      const a = c.adamw;
      const opt = new sg.optim.AdamW(m.optimizerGroups(a.weightDecay), { lr: a.lr, betas: a.betas });
      const idx = ints(c.idx);
      const targets = ints(c.targets);
      a.losses.forEach((want, i) => {
        const l = sg.tidy(() => {
          opt.zeroGrad();
          const { loss } = m.forward(idx, targets);
          loss.backward();
          opt.step();
          return loss.item();
        });
        assert.ok(Math.abs(l - want) <= 1e-4 * (1 + Math.abs(want)), `step ${i}: loss ${l} vs ${want}`);
      });
      opt.dispose?.();
      m.dispose();
    });
  });
}

test('GPT: a PyTorch < 2 state dict (attn.bias buffers, both tied names) loads', () => {
  sg.tidy(() => {
    const c = ref.gpt[0];
    const m = new sg.models.GPT(c.config);
    const state = file(c.file);
    state['lm_head.weight'] = state['transformer.wte.weight'];
    for (let l = 0; l < c.config.nLayer; l++) state[`transformer.h.${l}.attn.bias`] = sg.ones([1, 1, c.config.blockSize, c.config.blockSize]).tril();
    assert.deepEqual(m.loadStateDict(state), { missingKeys: [], unexpectedKeys: [] });
    closeTo(m.forward(ints(c.idx), ints(c.targets)).logits, c.logits, TOL, 'logits');
    m.dispose();
  });
});

/** Greedy decoding written independently: the argmax of the full forward's last position. */
function greedy(m, ids, n, blockSize) {
  const out = ids.map((r) => r.slice());
  for (let i = 0; i < n; i++) {
    for (const row of out) {
      const ctx = row.slice(-blockSize);
      const logits = sg.tidy(() => {
        const x = sg.tensor(Int32Array.from(ctx), { shape: [1, ctx.length] });
        return Array.from(m.forward(x, x).logits.dataSync().slice((ctx.length - 1) * m.config.vocabSize));
      });
      row.push(logits.indexOf(Math.max(...logits)));
    }
  }
  return out;
}

test('GPT.generate: shape, crop to blockSize, seeded sampling, topK 1 = greedy argmax', () => {
  sg.tidy(() => {
    const c = ref.gpt[0];
    const m = new sg.models.GPT(c.config);
    loadFile(m, c.file);
    m.eval();
    const start = [[1, 2, 3], [4, 5, 6]];
    const idx = sg.tensor(start, { dtype: 'int32' });
    const n = 12;  // 3 + 12 > blockSize 8: the context is cropped
    const g = m.generate(idx, n, { topK: 1 });
    assert.deepEqual(g.shape, [2, 3 + n]);
    assert.equal(g.dtype, 'int32');
    assert.deepEqual(g.toArray(), greedy(m, start, n, c.config.blockSize));
    assert.deepEqual(idx.toArray(), start, 'idx is left as it was');
    sg.manualSeed(5);
    const a = m.generate(idx, n, { temperature: 0.9, topK: 4 }).toArray();
    sg.manualSeed(5);
    const b = m.generate(idx, n, { temperature: 0.9, topK: 4 }).toArray();
    assert.deepEqual(a, b, 'same seed, same tokens');
    for (const row of a) for (const t of row) assert.ok(t >= 0 && t < c.config.vocabSize);
    assert.deepEqual(m.generate(idx, 0).toArray(), start);
    m.dispose();
  });
});

test('GPT.generate: memory stays flat', () => {
  const m = new sg.models.GPT({ ...ref.gpt[1].config });
  const idx = sg.tensor([[1, 2]], { dtype: 'int32' });
  m.generate(idx, 3).dispose();
  const { tensors, bytes } = sg.memory();
  for (let i = 0; i < 3; i++) m.generate(idx, 5, { topK: 3 }).dispose();
  assert.deepEqual([sg.memory().tensors, sg.memory().bytes], [tensors, bytes]);
  assert.ok(tensors > 0);
  idx.dispose();
  m.dispose();
});

test('GPT: config defaults are nanoGPT\'s, getNumParams counts as model.py', () => {
  sg.tidy(() => {
    const m = new sg.models.GPT({ blockSize: 8, vocabSize: 11, nLayer: 2, nHead: 2, nEmbd: 12 });
    assert.deepEqual(m.config, { blockSize: 8, vocabSize: 11, nLayer: 2, nHead: 2, nEmbd: 12, dropout: 0, bias: true });
    // wte 11·12 + wpe 8·12 + 2 blocks · (LN 24 + c_attn 12·36+36 + c_proj 144+12 + LN 24 + c_fc 12·48+48 + c_proj 48·12+12) + ln_f 24
    const perBlock = 24 + 12 * 36 + 36 + 144 + 12 + 24 + 12 * 48 + 48 + 48 * 12 + 12;
    assert.equal(m.getNumParams(false), 132 + 96 + 2 * perBlock + 24);
    assert.equal(m.getNumParams(), 132 + 2 * perBlock + 24);
    m.dispose();
  });
});

const b = ref.bert;
const bertInputs = () => ({ attentionMask: ints(b.attentionMask), tokenTypeIds: ints(b.tokenTypeIds) });

test('BertEncoder: HF names, outputs with an attention mask and gradients equal the PyTorch reference', () => {
  sg.tidy(() => {
    const m = new sg.models.BertEncoder(b.config);
    assert.deepEqual(Object.keys(m.stateDict()), b.encoder.stateDictKeys);
    loadFile(m, b.encoder.file);
    const { lastHiddenState, poolerOutput } = m.forward(ints(b.inputIds), bertInputs());
    closeTo(lastHiddenState, b.encoder.lastHiddenState, TOL, 'lastHiddenState');
    closeTo(poolerOutput, b.encoder.poolerOutput, TOL, 'poolerOutput');
    lastHiddenState.mul(fromRef(b.encoder.r)).sum().add(poolerOutput.sum()).backward();
    for (const [k, p] of m.namedParameters()) closeTo(p.grad, b.encoder.grads[k], 2e-5, `gradient of ${k}`);
    const plain = sg.noGrad(() => m.forward(ints(b.inputIds)));
    closeTo(plain.lastHiddenState, b.encoder.lastHiddenStateNoMask, TOL, 'lastHiddenState without a mask');
    closeTo(plain.poolerOutput, b.encoder.poolerOutputNoMask, TOL, 'poolerOutput without a mask');
    // A boolean mask means the same as the 0/1 one.
    const boolMask = ints(b.attentionMask).eq(1);
    closeTo(m.forward(ints(b.inputIds), { attentionMask: boolMask, tokenTypeIds: ints(b.tokenTypeIds) }).lastHiddenState,
      b.encoder.lastHiddenState, TOL, 'with a bool mask');
    m.dispose();
  });
});

test("BertEncoder.loadStateDict skips exactly the buffers HF saves: embeddings.position_ids and embeddings.token_type_ids", () => {
  sg.tidy(() => {
    const m = new sg.models.BertEncoder(b.config);
    const load = (...extra) => {
      const s = new Map(Object.entries(m.stateDict()));
      for (const k of extra) s.set(k, sg.zeros([1, 4], { dtype: 'int32' }));
      return m.loadStateDict(s, { strict: false });
    };
    assert.deepEqual(load('embeddings.position_ids', 'embeddings.token_type_ids'), { missingKeys: [], unexpectedKeys: [] });
    // Those two names only at the top: under another prefix, or with a suffix, they are unexpected keys.
    assert.deepEqual(load('pooler.embeddings.position_ids', 'embeddings.token_type_ids_old'),
      { missingKeys: [], unexpectedKeys: ['pooler.embeddings.position_ids', 'embeddings.token_type_ids_old'] });
    m.dispose();
  });
});

test('BertForMaskedLM: HF names, tied decoder, MLM logits, loss and gradients equal the PyTorch reference', () => {
  sg.tidy(() => {
    const m = new sg.models.BertForMaskedLM(b.config);
    assert.deepEqual(Object.keys(m.stateDict()), b.maskedLM.stateDictKeys);
    assert.deepEqual(m.namedParameters().map(([k]) => k), b.maskedLM.parameterNames);
    assert.equal(m.cls.predictions.decoder.weight, m.bert.embeddings.word_embeddings.weight);
    assert.equal(m.cls.predictions.decoder.bias, m.cls.predictions.bias);
    const keys = loadFile(m, b.maskedLM.file);
    assert.ok(!keys.includes('cls.predictions.decoder.weight'));
    const { logits, loss } = m.forward(ints(b.inputIds), { ...bertInputs(), labels: ints(b.maskedLM.labels) });
    closeTo(logits, b.maskedLM.logits, TOL, 'MLM logits');
    assert.ok(Math.abs(loss.item() - b.maskedLM.loss) <= TOL * (1 + b.maskedLM.loss), `loss ${loss.item()} vs ${b.maskedLM.loss}`);
    loss.backward();
    for (const [k, p] of m.namedParameters()) closeTo(p.grad, b.maskedLM.grads[k], 2e-5, `gradient of ${k}`);
    assert.equal(m.forward(ints(b.inputIds)).loss, null);
    m.dispose();
  });
});
