// What forwardBlocks (npm/src/nn/blocks_forward.ts: a model's blocks run one per tidy) saves, on the wasm path, for
// GPT2LMHeadModel, LlamaForCausalLM, BertForMaskedLM and sg.models.GPT: the peak of live tensor bytes
// (memory().peakBytes after resetPeakMemory) over one training forward + backward, against the same forward written
// with one tidy around all blocks (the form before forwardBlocks, rebuilt here from the models' public modules).
//
// Expected saving, from the shapes: in the one-tidy form every block's intermediates that autograd does not save
// stay alive until the last block has returned; with forwardBlocks only the running block's do. So each block more
// adds U bytes to the saving, U = the bytes of the tensors a block makes that no backward reads (below, per model,
// from the op list of the block and what each op's backward reads, as PyTorch's derivatives.yaml: a product saves
// both operands, softmax its output, layer/RMS norm its input; scalar multiplies, adds, cat, narrow, contiguous
// copies and repeatInterleave read no values). The test checks saving(4 blocks) − saving(2 blocks) = 2·U exactly
// and saving(L) within half a block of (L − 1)·U (where each form's peak falls, in the head or in backward, moves it
// by a constant). Also: the same loss and gradients, bit for bit, in both forms; without gradients the forward's
// peak does not grow with the depth (a block's output is disposed once the next block has run); memory() flat over
// 20 training steps.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sameTensor, settleGarbage, sg } from './helpers.mjs';

const B = 3, T = 12, C = 48, H = 6, HD = C / H, KV = 2, I = 80, V = 50;
const F32 = 4;
const BHTT = B * H * T * T; // attention scores, one per (batch, head, query, key)
const BTC = B * T * C; // one hidden-state tensor

const MODELS = {
  gpt2: {
    make: (L) => new sg.models.GPT2LMHeadModel({ vocab_size: V, n_positions: 32, n_embd: C, n_layer: L, n_head: H, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0 }),
    helper: (m, ids, y) => sg.F.crossEntropy(m.forward(ids).reshape([-1, V]), y),
    oneTidy: (m, ids, y) => {
      const logits = sg.tidy(() => {
        const t = m.transformer;
        let x = t.drop.forward(t.wte.forward(ids).add(t.wpe.forward(sg.arange(0, T))));
        for (const b of t.h.children()) x = b.forward(x);
        return m.lm_head.forward(t.ln_f.forward(x));
      });
      return sg.F.crossEntropy(logits.reshape([-1, V]), y);
    },
    // q·kᵀ and its scaled copy [B, H, T, T] (causalSoftmax saves only its output and builds no [T, T] mask nor
    // masked copy), att·v before its transpose is copied, and the two c_proj outputs before their residual adds
    // [B, T, C].
    unsaved: () => F32 * (2 * BHTT + 3 * BTC),
  },
  gpt: {
    make: (L) => new sg.models.GPT({ blockSize: 32, vocabSize: V, nLayer: L, nHead: H, nEmbd: C, dropout: 0 }),
    helper: (m, ids, y) => m.forward(ids, y.view([B, T])).loss,
    oneTidy: (m, ids, y) => sg.tidy(() => {
      const t = m.transformer;
      let x = t.drop.forward(t.wte.forward(ids).add(t.wpe.forward(sg.arange(T))));
      for (const b of t.h.children()) x = b.forward(x);
      const logits = m.lm_head.forward(t.ln_f.forward(x));
      return sg.F.crossEntropy(logits.view([-1, V]), y, { ignoreIndex: -1 });
    }),
    // nanoGPT's block is GPT-2's: the same tensors.
    unsaved: () => F32 * (2 * BHTT + 3 * BTC),
  },
  llama: {
    make: (L) => new sg.models.LlamaForCausalLM({ vocab_size: V, hidden_size: C, intermediate_size: I, num_hidden_layers: L, num_attention_heads: H, num_key_value_heads: KV, max_position_embeddings: 32 }),
    helper: (m, ids, y) => sg.F.crossEntropy(m.forward(ids).reshape([-1, V]), y),
    oneTidy: (m, ids, y) => {
      const logits = sg.tidy(() => {
        const t = m.model;
        let x = t.embed_tokens.forward(ids);
        const [cos, sin] = t.rotary(T, ids.device, 0);
        for (const l of t.layers.children()) x = l.forward(x, cos, sin, null);
        return m.lm_head.forward(t.norm.forward(x));
      });
      return sg.F.crossEntropy(logits.reshape([-1, V]), y);
    },
    // For q [B, H, T, hd] and, with grouped-query attention, k [B, KV, T, hd] alike: the projection, −(second
    // half), cat (rotate_half), ×sin, ×cos (cos, sin need no gradient: the product saves them only) and their sum
    // (attention scales q by a number and repeats k to H heads first): 5.5 tensors each; v's projection (repeated
    // to H heads before use); attention's weights·v before its transpose is copied; o_proj's and down_proj's
    // outputs before the residual adds. The attention's own intermediates are freed by its own tidy already.
    unsaved: () => {
      const q = B * T * H * HD, kv = B * T * KV * HD;
      return F32 * (5.5 * q + 5.5 * kv + kv + q + 2 * BTC);
    },
  },
  bert: {
    make: (L) => new sg.models.BertForMaskedLM({ vocabSize: V, hiddenSize: C, numHiddenLayers: L, numAttentionHeads: H, intermediateSize: I, maxPositionEmbeddings: 32, hiddenDropoutProb: 0, attentionProbsDropoutProb: 0 }),
    helper: (m, ids, y) => m.forward(ids, { labels: y.view([B, T]) }).loss,
    oneTidy: (m, ids, y) => sg.tidy(() => {
      const e = m.bert;
      const h = sg.tidy(() => {
        let x = e.embeddings.forward(ids, sg.zeros([B, T], { dtype: 'int32' }));
        const mask = sg.zeros([B, 1, 1, T]);
        for (const l of e.encoder.layer.children()) x = l.forward(x, mask);
        return x;
      });
      const logits = m.cls.predictions.forward(h);
      return sg.F.crossEntropy(logits.view([-1, V]), y, { ignoreIndex: -100 });
    }),
    // q·kᵀ, its copy divided by √hd and that plus the mask [B, H, T, T]; probs·v before its transpose is copied;
    // the two dense outputs before their residual adds (LayerNorm saves the sum) [B, T, C].
    unsaved: () => F32 * (3 * BHTT + 3 * BTC),
  },
};

function setup(name, L) {
  sg.manualSeed(7);
  const model = MODELS[name].make(L);
  model.train();
  const ids = sg.randint(0, V, [B, T]).to('int32');
  const y = sg.randint(0, V, [B * T]).to('int32');
  return { model, ids, y };
}

/** The peak of live bytes above those held before, over one forward + backward in `form`; the loss and the gradients. */
function peakOfStep(name, { model, ids, y }, form) {
  model.zeroGrad();
  const before = sg.memory().bytes;
  sg.resetPeakMemory();
  let lossValue;
  sg.tidy(() => {
    const loss = MODELS[name][form](model, ids, y);
    lossValue = loss.item();
    loss.backward();
  });
  const peak = sg.memory().peakBytes - before;
  return { peak, lossValue, grads: model.parameters().map((p) => p.grad.clone()) };
}

/** Saving of forwardBlocks at depth L; checks the loss and every gradient equal to the one-tidy form's. */
function saving(name, L) {
  const s = setup(name, L);
  try {
    sg.dispose(peakOfStep(name, s, 'helper').grads); // first use (lazily made buffers) out of the measured steps
    const one = peakOfStep(name, s, 'oneTidy');
    const blocks = peakOfStep(name, s, 'helper');
    assert.equal(blocks.lossValue, one.lossValue, `${name} L=${L}: loss`);
    const keys = s.model.namedParameters().map(([k]) => k);
    blocks.grads.forEach((g, i) => sameTensor(g, one.grads[i], `${name} L=${L}: gradient of ${keys[i]}`));
    sg.dispose([blocks.grads, one.grads]);
    return one.peak - blocks.peak;
  } finally {
    s.model.dispose();
    sg.dispose([s.ids, s.y]);
  }
}

for (const name of Object.keys(MODELS)) {
  test(`${name}: forwardBlocks' training peak below the one-tidy form's by one block's unsaved intermediates a block; same gradients`, () => {
    const U = MODELS[name].unsaved();
    const d2 = saving(name, 2);
    const d4 = saving(name, 4);
    assert.equal(d4 - d2, 2 * U, `${name}: saving at 4 blocks (${d4}) − at 2 (${d2}) vs 2 × ${U} bytes`);
    for (const [L, d] of [[2, d2], [4, d4]]) {
      assert.ok(Math.abs(d - (L - 1) * U) <= U / 2, `${name}: saving at ${L} blocks ${d} bytes, expected (L − 1) × ${U} ± ${U / 2}`);
    }
  });
}

test('without gradients the forward peak does not grow with the depth (each block output disposed after the next block)', () => {
  for (const name of Object.keys(MODELS)) {
    const peaks = [2, 4].map((L) => {
      const { model, ids, y } = setup(name, L);
      model.eval();
      const run = () => sg.noGrad(() => sg.tidy(() => {
        model.forward(ids);
      }));
      run();
      const before = sg.memory().bytes;
      sg.resetPeakMemory();
      run();
      const peak = sg.memory().peakBytes - before;
      model.dispose();
      sg.dispose([ids, y]);
      return peak;
    });
    assert.equal(peaks[1], peaks[0], `${name}: no-grad forward peak at 4 blocks vs 2`);
  }
});

test('memory() flat over 20 training steps with forwardBlocks (each model, SGD)', async () => {
  for (const name of Object.keys(MODELS)) {
    const s = setup(name, 2);
    const opt = new sg.optim.SGD(s.model.parameters(), { lr: 0.01 });
    const step = () => {
      opt.zeroGrad();
      sg.tidy(() => {
        MODELS[name].helper(s.model, s.ids, s.y).backward();
      });
      opt.step();
    };
    step();
    await settleGarbage();
    const m0 = sg.memory();
    for (let i = 0; i < 20; i++) {
      step();
      const m = sg.memory();
      assert.equal(m.tensors, m0.tensors, `${name}: tensors after step ${i + 1}`);
      assert.equal(m.bytes, m0.bytes, `${name}: bytes after step ${i + 1}`);
    }
    s.model.dispose();
    sg.dispose([s.ids, s.y]);
  }
});
