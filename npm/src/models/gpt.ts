// sg.models.GPT: Karpathy's nanoGPT (model.py) with its configuration in camelCase and its
// state-dict names, so a nanoGPT checkpoint (as safetensors) loads with loadStateDict. The
// attention is model.py's non-flash path: (q·kᵀ)·1/√hs, −∞ above the diagonal, softmax, ·v.
// lm_head.weight is transformer.wte.weight (one Parameter, as model.py ties them).
import { noGrad } from '../autograd/backward.js';
import { arange } from '../tensor/creation.js';
import { causalSoftmax, F } from '../nn/functional.js';
import { tidy } from '../runtime/memory.js';
import { Dropout } from '../nn/dropout.js';
import { Embedding } from '../nn/embedding.js';
import { normal_, zeros_ } from '../nn/init.js';
import { Linear } from '../nn/linear.js';
import { ModuleDict, ModuleList } from '../nn/container.js';
import { forwardBlocks } from '../nn/blocks_forward.js';
import { GELU } from '../nn/activation_modules.js';
import { Module, type LoadResult, type Parameter, type StateDict } from '../nn/module.js';
import { LayerNorm } from '../nn/norm.js';
import { functionOps } from '../tensor/ops.js';
import { samplingOps } from '../tensor/sampling.js';
import { sortingOps } from '../tensor/sorting.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { modelConfig, positiveInteger, positiveNumber, probability, withoutKeys } from './config.js';
import { checkpoint } from '../utils/checkpoint.js';
import { KVCache } from './generation.js';

/** nanoGPT's GPTConfig in camelCase (defaults: GPT-2 small, vocabulary padded to 50304). */
export interface GPTConfig {
  blockSize: number;
  vocabSize: number;
  nLayer: number;
  nHead: number;
  nEmbd: number;
  dropout: number;
  /** Biases in the Linears and LayerNorms (GPT-2: true). */
  bias: boolean;
}

const GPT_DEFAULTS: GPTConfig = { blockSize: 1024, vocabSize: 50304, nLayer: 12, nHead: 12, nEmbd: 768, dropout: 0, bias: true };

export interface GPTOutput {
  /** [B, T, vocabSize] with targets; [B, 1, vocabSize] (the last position) without. */
  logits: Tensor;
  /** Mean cross-entropy over the targets that are not −1; null without targets. */
  loss: Tensor | null;
}

export interface GenerateOptions {
  /** Divides the logits before the softmax (default 1). */
  temperature?: number;
  /** Samples among the k most likely tokens only (default: all). */
  topK?: number | null;
}

class CausalSelfAttention extends Module {
  declare c_attn: Linear;
  declare c_proj: Linear;
  declare attn_dropout: Dropout;
  declare resid_dropout: Dropout;
  declare nHead: number;
  declare nEmbd: number;

  constructor(c: GPTConfig) {
    super();
    this.c_attn = new Linear(c.nEmbd, 3 * c.nEmbd, { bias: c.bias });
    this.c_proj = new Linear(c.nEmbd, c.nEmbd, { bias: c.bias });
    this.attn_dropout = new Dropout(c.dropout);
    this.resid_dropout = new Dropout(c.dropout);
    this.nHead = c.nHead;
    this.nEmbd = c.nEmbd;
  }

  /** With a cache (generate): k, v join layer `layer`'s cached ones; a single new token attends to all of them, unmasked. */
  forward(x: Tensor, cache?: KVCache, layer = 0): Tensor {
    const [B, T, C] = x.shape as [number, number, number];
    const hs = C / this.nHead;
    const heads = (t: Tensor) => t.view([B, T, this.nHead, hs]).transpose(1, 2);  // (B, nh, T, hs)
    let [q, k, v] = this.c_attn.forward(x).split(this.nEmbd, 2).map(heads) as [Tensor, Tensor, Tensor];
    const past = cache ? cache.length : 0;
    if (cache) [k, v] = cache.update(layer, k, v);
    let att = q.matmul(k.transpose(-2, -1)).mul(1 / Math.sqrt(hs));
    att = past > 0 ? att.softmax(-1) : causalSoftmax(att);
    const y = this.attn_dropout.forward(att).matmul(v).transpose(1, 2).contiguous().view([B, T, C]);
    return this.resid_dropout.forward(this.c_proj.forward(y));
  }
}

class MLP extends Module {
  declare c_fc: Linear;
  declare gelu: GELU;
  declare c_proj: Linear;
  declare dropout: Dropout;

  constructor(c: GPTConfig) {
    super();
    this.c_fc = new Linear(c.nEmbd, 4 * c.nEmbd, { bias: c.bias });
    this.gelu = new GELU();
    this.c_proj = new Linear(4 * c.nEmbd, c.nEmbd, { bias: c.bias });
    this.dropout = new Dropout(c.dropout);
  }

  forward(x: Tensor): Tensor {
    return this.dropout.forward(this.c_proj.forward(this.gelu.forward(this.c_fc.forward(x))));
  }
}

class Block extends Module {
  declare ln_1: LayerNorm;
  declare attn: CausalSelfAttention;
  declare ln_2: LayerNorm;
  declare mlp: MLP;

  constructor(c: GPTConfig) {
    super();
    this.ln_1 = new LayerNorm(c.nEmbd, { bias: c.bias });
    this.attn = new CausalSelfAttention(c);
    this.ln_2 = new LayerNorm(c.nEmbd, { bias: c.bias });
    this.mlp = new MLP(c);
  }

  forward(x: Tensor, cache?: KVCache, layer = 0): Tensor {
    const h = x.add(this.attn.forward(this.ln_1.forward(x), cache, layer));
    return h.add(this.mlp.forward(this.ln_2.forward(h)));
  }
}

interface Transformer extends ModuleDict {
  wte: Embedding;
  wpe: Embedding;
  drop: Dropout;
  h: ModuleList;
  ln_f: LayerNorm;
}

const GPT_SPEC = {
  blockSize: positiveInteger,
  vocabSize: positiveInteger,
  nLayer: positiveInteger,
  nHead: positiveInteger,
  nEmbd: positiveInteger,
  dropout: probability,
  bias: 'boolean',
} as const;

/** nanoGPT's GPT. */
export class GPT extends Module {
  declare config: GPTConfig;
  declare transformer: Transformer;
  declare lm_head: Linear;
  /** gradientCheckpointingEnable(): in training, each block is recomputed in backward (sg.utils.checkpoint). */
  declare gradientCheckpointing: boolean;

  constructor(config?: Partial<GPTConfig>) {
    super();
    const c = modelConfig<GPTConfig>('GPT', config, GPT_SPEC, GPT_DEFAULTS);
    if (c.nEmbd % c.nHead !== 0) throw new Error(`GPT: nEmbd (${c.nEmbd}) must be divisible by nHead (${c.nHead})`);
    this.config = c;
    this.transformer = new ModuleDict({
      wte: new Embedding(c.vocabSize, c.nEmbd),
      wpe: new Embedding(c.blockSize, c.nEmbd),
      drop: new Dropout(c.dropout),
      h: new ModuleList(Array.from({ length: c.nLayer }, () => new Block(c))),
      ln_f: new LayerNorm(c.nEmbd, { bias: c.bias }),
    }) as Transformer;
    this.lm_head = new Linear(c.nEmbd, c.vocabSize, { bias: false });
    const untied = this.transformer.wte.weight;
    this.transformer.wte.weight = this.lm_head.weight;  // weight tying
    untied.dispose();
    this.initWeights();
    this.gradientCheckpointing = false;
  }

  /** In train mode each block keeps only its input and is recomputed in backward (HF's gradient_checkpointing_enable). */
  gradientCheckpointingEnable(): void {
    this.gradientCheckpointing = true;
  }

  gradientCheckpointingDisable(): void {
    this.gradientCheckpointing = false;
  }

  /** model.py's init: Linear and Embedding weights N(0, 0.02), biases 0, c_proj weights N(0, 0.02/√(2·nLayer)). */
  private initWeights(): void {
    for (const m of this.modules()) {
      if (m instanceof Linear) {
        normal_(m.weight, 0, 0.02);
        if (m.bias) zeros_(m.bias);
      } else if (m instanceof Embedding) normal_(m.weight, 0, 0.02);
    }
    for (const [name, p] of this.namedParameters()) {
      if (name.endsWith('c_proj.weight')) normal_(p, 0, 0.02 / Math.sqrt(2 * this.config.nLayer));
    }
  }

  /** Parameters counted once; without the position embeddings unless nonEmbedding is false (model.py's get_num_params). */
  getNumParams(nonEmbedding = true): number {
    if (typeof nonEmbedding !== 'boolean') throw new Error(`GPT.getNumParams: expected 'nonEmbedding' to be a boolean, got ${describe(nonEmbedding)}`);
    const n = this.parameters().reduce((s, p) => s + p.numel, 0);
    return nonEmbedding ? n - this.transformer.wpe.weight.numel : n;
  }

  /**
   * idx: int32 token ids [B, T] with T ≤ blockSize; targets: int32 [B, T] (−1 = ignored).
   * Returns { logits, loss } as model.py (see GPTOutput).
   */
  forward(idx: Tensor, targets?: Tensor | null): GPTOutput {
    const [B, T] = this.checkIdx('GPT.forward', idx);
    if (targets !== undefined && targets !== null) {
      if (!(targets instanceof Tensor) || targets.dtype !== 'int32') {
        throw new Error(`GPT.forward: expected 'targets' to be an int32 Tensor of shape [${B}, ${T}] (or null), got ${describe(targets)}`);
      }
      if (targets.shape.length !== 2 || targets.shape[0] !== B || targets.shape[1] !== T) {
        throw new Error(`GPT.forward: expected 'targets' of shape [${B}, ${T}] (that of idx), got [${targets.shape.join(', ')}]`);
      }
    }
    return tidy(() => {
      const t = this.transformer;
      const pos = arange(T, { device: idx.device });
      let x = t.drop.forward(t.wte.forward(idx).add(t.wpe.forward(pos)));
      const checkpointed = this.gradientCheckpointing && this.training;
      // One tidy per block (forwardBlocks): a block's intermediates that autograd does not save are freed when it returns.
      x = forwardBlocks(t.h, x, (block, h) => (checkpointed ? checkpoint((a: Tensor) => block.forward(a), h) : block.forward(h)));
      x = t.ln_f.forward(x);
      if (targets === undefined || targets === null) {
        // Only the last position's logits, as model.py's inference shortcut (x[:, [-1], :]).
        return { logits: this.lm_head.forward(x.narrow(1, T - 1, 1)), loss: null };
      }
      const logits = this.lm_head.forward(x);
      const loss = F.crossEntropy(logits.view([-1, this.config.vocabSize]), targets.view([-1]), { ignoreIndex: -1 });
      return { logits, loss };
    });
  }

  /**
   * ids [B, Tn] after cache.length cached positions → the last position's logits [B, 1, V]; the
   * cache grows by Tn (its positions follow the cached ones).
   */
  private cachedStep(ids: Tensor, cache: KVCache): Tensor {
    return tidy(() => {
      const t = this.transformer;
      const past = cache.length;
      const T = ids.shape[1]!;
      let x = t.drop.forward(t.wte.forward(ids).add(t.wpe.forward(arange(past, past + T, { device: ids.device }))));
      x = forwardBlocks(t.h, x, (block, h, i) => (block as Block).forward(h, cache, i));
      cache.length = past + T;
      return this.lm_head.forward(t.ln_f.forward(x.narrow(1, T - 1, 1)));
    });
  }

  /**
   * model.py's generate: maxNewTokens times, the logits of the last position of the last
   * blockSize tokens, divided by temperature, cut to the topK most likely, sampled with
   * sg.multinomial (seeded by sg.manualSeed) and appended. Returns int32 [B, T + maxNewTokens]
   * (a new tensor; idx is kept). Dropout follows the mode: call model.eval() first, as in nanoGPT.
   * model.py recomputes the whole sequence each step; here a key/value cache makes a step one
   * position while the sequence fits in blockSize (the same logits, so the same tokens), and the
   * steps past it recompute the cropped window as model.py (every position moves). In train mode
   * with dropout it recomputes throughout, as model.py, so that dropout draws as it does there.
   */
  generate(idx: Tensor, maxNewTokens: number, options?: GenerateOptions): Tensor {
    const fn = 'GPT.generate';
    this.checkIdx(fn, idx, false);
    if (!isInteger(maxNewTokens) || maxNewTokens < 0) throw new Error(`${fn}: expected 'maxNewTokens' to be an integer >= 0, got ${describe(maxNewTokens)}`);
    const o = checkOptions<GenerateOptions>(fn, options, {
      temperature: positiveNumber,
      topK: { check: (v) => v === null || (isInteger(v) && v > 0), expected: 'a positive integer or null' },
    });
    const temperature = o.temperature ?? 1;
    const topK = o.topK ?? null;
    const V = this.config.vocabSize;
    const cache = this.training && this.config.dropout > 0 ? null : new KVCache(this.config.nLayer);
    return noGrad(() => {
      let out = idx.clone();
      try {
        for (let i = 0; i < maxNewTokens; i++) out = this.sampleNext(out, cache, temperature, topK, V);
        return out;
      } catch (e) {
        out.dispose();
        throw e;
      } finally {
        cache?.dispose();
      }
    });
  }

  /** out [B, T] → [B, T + 1]: one token sampled as model.py's generate (out is disposed). */
  private sampleNext(out: Tensor, cache: KVCache | null, temperature: number, topK: number | null, V: number): Tensor {
    const next = tidy(() => {
      const T = out.shape[1]!;
      let raw: Tensor;
      if (cache === null || T > this.config.blockSize) {
        raw = this.forward(T <= this.config.blockSize ? out : out.narrow(1, T - this.config.blockSize, this.config.blockSize)).logits;
      } else raw = this.cachedStep(cache.length === 0 ? out : out.narrow(1, T - 1, 1), cache);
      let logits = raw.select(1, 0).div(temperature); // [B, V]
      if (topK !== null) {
        const k = Math.min(topK, V);
        const kth = sortingOps.topk(logits, k).values.narrow(-1, k - 1, 1);
        logits = logits.maskedFill(logits.lt(kth), -Infinity);
      }
      return functionOps.cat([out, samplingOps.multinomial(logits.softmax(-1), 1)], 1);
    });
    out.dispose();
    return next;
  }

  /**
   * loadStateDict that takes nanoGPT's checkpoints as they are: the causal-mask buffers
   * ('….attn.bias') that PyTorch < 2 saves are skipped, and a file with only one of the tied
   * 'transformer.wte.weight' / 'lm_head.weight' (safetensors keeps one of shared tensors) fills both.
   */
  loadStateDict(stateDict: StateDict | Map<string, Tensor>, options?: { strict?: boolean }): LoadResult {
    const given = withoutKeys(stateDict, (k) => /^transformer\.h\.\d+\.attn\.(bias|masked_bias)$/.test(k));
    if (given instanceof Map) {
      const wte = 'transformer.wte.weight';
      const head = 'lm_head.weight';
      if (given.has(wte) && !given.has(head)) given.set(head, given.get(wte));
      else if (given.has(head) && !given.has(wte)) given.set(wte, given.get(head));
    }
    return super.loadStateDict(given as Map<string, Tensor>, options);
  }

  /**
   * nanoGPT's configure_optimizers: AdamW with weight decay on the ≥ 2-D parameters (matmul
   * weights and embeddings) and none on biases and LayerNorm weights.
   */
  optimizerGroups(weightDecay: number): { params: Parameter[]; weightDecay: number }[] {
    if (typeof weightDecay !== 'number' || !Number.isFinite(weightDecay)) throw new Error(`GPT.optimizerGroups: expected 'weightDecay' to be a finite number, got ${describe(weightDecay)}`);
    const params = this.parameters().filter((p) => p.requiresGrad);
    return [
      { params: params.filter((p) => p.ndim >= 2), weightDecay },
      { params: params.filter((p) => p.ndim < 2), weightDecay: 0 },
    ];
  }

  /** Checks idx: an int32 Tensor [B, T], T ≥ 1 (and ≤ blockSize when `cropped`). */
  private checkIdx(fn: string, idx: unknown, cropped = true): [number, number] {
    if (!(idx instanceof Tensor) || idx.dtype !== 'int32') {
      throw new Error(`${fn}: expected 'idx' to be an int32 Tensor of token ids [B, T], got ${describe(idx)}`);
    }
    if (idx.ndim !== 2 || idx.shape[1] === 0 || idx.shape[0] === 0) {
      throw new Error(`${fn}: expected 'idx' of shape [B, T] with B, T ≥ 1, got [${idx.shape.join(', ')}]`);
    }
    const [B, T] = idx.shape as [number, number];
    if (cropped && T > this.config.blockSize) {
      throw new Error(`${fn}: cannot forward a sequence of length ${T}, blockSize is only ${this.config.blockSize}`);
    }
    return [B, T];
  }

  extraRepr(): string {
    const c = this.config;
    return `nLayer=${c.nLayer}, nHead=${c.nHead}, nEmbd=${c.nEmbd}, blockSize=${c.blockSize}, vocabSize=${c.vocabSize}`;
  }
}
