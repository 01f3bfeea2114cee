// nanoGPT's model.py at the shape of its Shakespeare-char baby model scaled down: 2 layers,
// 4 heads, 64 wide, context 64, batch 8, vocabulary 65, biases, no dropout, GELU (erf), the
// LM head tied to the token embedding; one train step = forward, cross-entropy, backward,
// AdamW. Written with simdgrad's nn layers as a user would port model.py (the attention is
// model.py's non-flash path: q·kᵀ/√hs, causal −∞ mask, softmax, ·v). The same model in
// PyTorch 1.13 is torch/gpt_step.py; both start from the parameters made here (gptData), in
// model.py's order, so the first losses are compared.
import { labels, normal } from './data.mjs';

export const GPT = { layers: 2, heads: 4, embd: 64, block: 64, batch: 8, vocab: 65 };
export const ADAMW = { lr: 1e-3, betas: [0.9, 0.95], eps: 1e-8, weightDecay: 0.1 };

/** [name, shape] of every parameter, in model.py's named_parameters() order (lm_head is tied). */
export function gptParamSpecs() {
  const { layers, embd: C, block: T, vocab: V } = GPT;
  const specs = [['transformer.wte.weight', [V, C]], ['transformer.wpe.weight', [T, C]]];
  for (let l = 0; l < layers; l++) {
    const p = `transformer.h.${l}.`;
    specs.push(
      [`${p}ln_1.weight`, [C]], [`${p}ln_1.bias`, [C]],
      [`${p}attn.c_attn.weight`, [3 * C, C]], [`${p}attn.c_attn.bias`, [3 * C]],
      [`${p}attn.c_proj.weight`, [C, C]], [`${p}attn.c_proj.bias`, [C]],
      [`${p}ln_2.weight`, [C]], [`${p}ln_2.bias`, [C]],
      [`${p}mlp.c_fc.weight`, [4 * C, C]], [`${p}mlp.c_fc.bias`, [4 * C]],
      [`${p}mlp.c_proj.weight`, [C, 4 * C]], [`${p}mlp.c_proj.bias`, [C]]);
  }
  specs.push(['transformer.ln_f.weight', [C]], ['transformer.ln_f.bias', [C]]);
  return specs;
}

/** model.py's init: weights N(0, 0.02) (c_proj: 0.02/√(2·layers)), biases 0, LayerNorm 1 and 0. */
export function gptData() {
  const params = gptParamSpecs().map(([name, shape], i) => {
    const n = shape.reduce((a, b) => a * b, 1);
    if (name.includes('ln_')) return new Float32Array(n).fill(name.endsWith('weight') ? 1 : 0);
    if (name.endsWith('bias')) return new Float32Array(n);
    const std = name.endsWith('c_proj.weight') ? 0.02 / Math.sqrt(2 * GPT.layers) : 0.02;
    return normal(n, 100 + i, std);
  });
  const n = GPT.batch * GPT.block;
  return { params, idx: labels(n, GPT.vocab, 90), targets: labels(n, GPT.vocab, 91) };
}

/** The simdgrad model: classes over sg.nn, as model.py's. */
export function sgGpt(sg) {
  const { nn, F } = sg;
  const { heads, embd: C, block: T } = GPT;
  // −∞ above the diagonal: position t attends to positions ≤ t (model.py's registered bias).
  const mask = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -Infinity;

  class CausalSelfAttention extends nn.Module {
    constructor() {
      super();
      this.c_attn = new nn.Linear(C, 3 * C);
      this.c_proj = new nn.Linear(C, C);
      this.mask = sg.tensor(mask, { shape: [1, 1, T, T] });  // a plain attribute: no state dict entry
    }
    forward(x) {
      const [B, Tx] = x.shape;
      const hs = C / heads;
      const [q, k, v] = this.c_attn.forward(x).split(C, 2).map((t) => t.view([B, Tx, heads, hs]).transpose(1, 2));
      const att = q.matmul(k.transpose(-2, -1)).mul(1 / Math.sqrt(hs)).add(this.mask).softmax(-1);
      const y = att.matmul(v).transpose(1, 2).contiguous().view([B, Tx, C]);
      return this.c_proj.forward(y);
    }
  }
  class MLP extends nn.Module {
    constructor() {
      super();
      this.c_fc = new nn.Linear(C, 4 * C);
      this.gelu = new nn.GELU();
      this.c_proj = new nn.Linear(4 * C, C);
    }
    forward(x) {
      return this.c_proj.forward(this.gelu.forward(this.c_fc.forward(x)));
    }
  }
  class Block extends nn.Module {
    constructor() {
      super();
      this.ln_1 = new nn.LayerNorm(C);
      this.attn = new CausalSelfAttention();
      this.ln_2 = new nn.LayerNorm(C);
      this.mlp = new MLP();
    }
    forward(x) {
      x = x.add(this.attn.forward(this.ln_1.forward(x)));
      return x.add(this.mlp.forward(this.ln_2.forward(x)));
    }
  }
  class Transformer extends nn.Module {
    constructor() {
      super();
      this.wte = new nn.Embedding(GPT.vocab, C);
      this.wpe = new nn.Embedding(T, C);
      this.h = new nn.ModuleList(Array.from({ length: GPT.layers }, () => new Block()));
      this.ln_f = new nn.LayerNorm(C);
    }
  }
  class Gpt extends nn.Module {
    constructor() {
      super();
      this.transformer = new Transformer();
      this.pos = sg.tensor(Int32Array.from({ length: T }, (_, i) => i), { shape: [T] });
    }
    forward(idx, targets) {
      const t = this.transformer;
      let x = t.wte.forward(idx).add(t.wpe.forward(this.pos));
      for (const block of t.h.children()) x = block.forward(x);
      const logits = F.linear(t.ln_f.forward(x), t.wte.weight);  // the tied LM head
      return F.crossEntropy(logits.view([-1, GPT.vocab]), targets.view([-1]));
    }
  }
  return new Gpt();
}
