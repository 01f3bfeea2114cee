// sg.models.GPT2LMHeadModel (Hugging Face's GPT-2): its state-dict names and the tied head, the
// Conv1D layout, loading HF files (head left out, GPT2Model keys without 'transformer.', old
// mask buffers), the config.json fields, and its math against nanoGPT's (sg.models.GPT, whose
// Linear layers hold the transposed Conv1D weights) with the erf GELU both use. Its agreement
// with the trainer's PyTorch GPT-2 (gelu_new) is checked in remote_client.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close } from './helpers.mjs';

const CONFIG = { vocab_size: 37, n_positions: 16, n_embd: 12, n_layer: 2, n_head: 3, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0 };

test('GPT2LMHeadModel: Hugging Face names, Conv1D weights [in, out], lm_head tied to wte', () => {
  const m = new sg.models.GPT2LMHeadModel(CONFIG);
  const sd = m.stateDict();
  const keys = Object.keys(sd);
  assert.deepEqual(keys.slice(0, 2), ['transformer.wte.weight', 'transformer.wpe.weight']);
  assert.deepEqual(keys.filter((k) => k.startsWith('transformer.h.0.')), [
    'ln_1.weight', 'ln_1.bias', 'attn.c_attn.weight', 'attn.c_attn.bias', 'attn.c_proj.weight', 'attn.c_proj.bias',
    'ln_2.weight', 'ln_2.bias', 'mlp.c_fc.weight', 'mlp.c_fc.bias', 'mlp.c_proj.weight', 'mlp.c_proj.bias',
  ].map((k) => `transformer.h.0.${k}`));
  assert.deepEqual(keys.slice(-3), ['transformer.ln_f.weight', 'transformer.ln_f.bias', 'lm_head.weight']);
  assert.deepEqual(sd['transformer.h.1.attn.c_attn.weight'].shape, [12, 36]);
  assert.deepEqual(sd['transformer.h.1.mlp.c_fc.weight'].shape, [12, 48]);
  assert.deepEqual(sd['transformer.h.1.mlp.c_proj.weight'].shape, [48, 12]);
  assert.equal(m.lm_head.weight, m.transformer.wte.weight, 'one Parameter');
  // Counted once, as PyTorch's parameters() does: 37·12 + 16·12 + 2·(4·12 + 12·36 + 36 + 144 + 12 + 12·48 + 48 + 48·12 + 12) + 2·12.
  assert.equal(m.parameters().reduce((n, p) => n + p.numel, 0), 37 * 12 + 16 * 12 + 2 * (48 + 432 + 36 + 144 + 12 + 576 + 48 + 576 + 12) + 24);
  const logits = sg.tidy(() => m(sg.tensor([[1, 2, 3, 4]], { dtype: 'int32' })));
  assert.deepEqual(logits.shape, [1, 4, 37]);
  sg.dispose([logits, Object.values(sd)]);
  m.dispose();
});

test('GPT2LMHeadModel loads a file without lm_head.weight, with GPT2Model keys and with old mask buffers; the config is checked', () => {
  const a = new sg.models.GPT2LMHeadModel(CONFIG);
  const b = new sg.models.GPT2LMHeadModel(CONFIG);
  const ids = sg.tensor([[5, 1, 0, 36, 2]], { dtype: 'int32' });
  const sd = a.stateDict();
  delete sd['lm_head.weight'];
  // As GPT2Model saves it: no 'transformer.' prefix; plus a causal-mask buffer older transformers wrote.
  const bare = new Map(Object.entries(sd).map(([k, t]) => [k.replace(/^transformer\./, ''), t]));
  bare.set('h.0.attn.bias', sg.ones([1, 1, 16, 16]));
  b.loadStateDict(bare);
  assert.deepEqual(b.lm_head.weight.toArray(), a.transformer.wte.weight.toArray(), 'the head follows wte');
  sg.tidy(() => close(b(ids).toArray(), a(ids).toArray(), 1e-6));
  sg.dispose([...bare.values()]);
  sg.dispose(Object.values(sd));

  assert.throws(() => new sg.models.GPT2LMHeadModel({ ...CONFIG, n_embed: 12 }), /unknown option 'n_embed'/);
  assert.throws(() => new sg.models.GPT2LMHeadModel({ ...CONFIG, n_head: 5 }), /n_embd \(12\) must be divisible by n_head \(5\)/);
  assert.throws(() => new sg.models.GPT2LMHeadModel({ ...CONFIG, model_type: 'llama' }), /expected model_type 'gpt2'/);
  assert.throws(() => new sg.models.GPT2LMHeadModel({ ...CONFIG, activation_function: 'swish' }), /activation_function/);
  // A real config.json's bookkeeping fields are accepted.
  const hf = new sg.models.GPT2LMHeadModel({ ...CONFIG, model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_ctx: 16, bos_token_id: 0, eos_token_id: 0, summary_type: 'cls_index', use_cache: true });
  assert.throws(() => a(sg.tensor([[1, 2]])), /int32 Tensor of token ids/);
  assert.throws(() => a(sg.zeros([1, 17], { dtype: 'int32' })), /17 tokens exceeds n_positions \(16\)/);
  for (const m of [a, b, hf]) m.dispose();
  ids.dispose();
});

test('GPT2LMHeadModel with the erf GELU computes what nanoGPT\'s GPT computes with the transposed weights', () => {
  sg.manualSeed(3);
  const hf = new sg.models.GPT2LMHeadModel({ ...CONFIG, activation_function: 'gelu', initializer_range: 0.3 });
  hf.eval();
  const nano = new sg.models.GPT({ blockSize: 16, vocabSize: 37, nLayer: 2, nHead: 3, nEmbd: 12, dropout: 0, bias: true });
  nano.eval();
  const sd = new Map();
  sg.noGrad(() => {
    for (const [k, p] of hf.namedParameters()) {
      sg.tidy(() => p.add_(sg.randn(p.shape).mul(0.1))); // LayerNorms and biases away from 1 and 0 too
      // Conv1D stores [in, out]; nanoGPT's Linear [out, in].
      sd.set(k, /(c_attn|c_proj|c_fc)\.weight$/.test(k) ? p.transpose(0, 1).contiguous() : p.detach());
    }
  });
  nano.loadStateDict(sd);
  const ids = sg.tensor([[3, 14, 15, 9, 2, 6, 5, 35], [1, 1, 2, 3, 5, 8, 13, 21]], { dtype: 'int32' });
  sg.tidy(() => {
    const a = hf(ids);
    const b = nano.forward(ids, sg.zeros([2, 8], { dtype: 'int32' })).logits;
    close(a.toArray(), b.toArray(), 1e-5);
  });
  sg.dispose([...sd.values(), ids]);
  hf.dispose();
  nano.dispose();
});
