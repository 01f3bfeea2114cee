// sg.models.GPT2LMHeadModel and GPT2Model: Hugging Face transformers' GPT-2 (modeling_gpt2.py)
// with its config.json field names and its state-dict names, so a Hugging Face GPT-2 folder's
// model.safetensors loads with loadStateDict and the trainer (trainer/models.py) serves the
// same weights: transformer.wte, transformer.wpe, transformer.h.N.{ln_1, attn.c_attn,
// attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj}, transformer.ln_f, and lm_head tied to wte (one
// Parameter; a file may leave lm_head.weight out, as HF saves it). The linear layers are HF's
// Conv1D: weight stored [in, out], y = x·W + b. Attention is the eager path: (q·kᵀ)·scale,
// −∞ above the diagonal, softmax, ·v.
import { arange } from '../tensor/creation.js';
import { causalSoftmax, F } from '../nn/functional.js';
import { tidy } from '../runtime/memory.js';
import { Dropout } from '../nn/dropout.js';
import { Embedding } from '../nn/embedding.js';
import { initSkipped, normal_, zeros_ } from '../nn/init.js';
import { Linear, tiedLinear } from '../nn/linear.js';
import { ModuleList } from '../nn/container.js';
import { forwardBlocks } from '../nn/blocks_forward.js';
import { Module, Parameter, type LoadResult, type StateDict } from '../nn/module.js';
import { LayerNorm } from '../nn/norm.js';
import { describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { modelConfig, positiveInteger, positiveNumber, probability, withoutKeys } from './config.js';
import { generateTokens, type GenerationOptions, type KVCache } from './generation.js';
import { checkpoint } from '../utils/checkpoint.js';

/** GPT2Config's fields, as in config.json (defaults: GPT-2 small, as transformers' GPT2Config). */
export interface GPT2Config {
  vocab_size: number;
  n_positions: number;
  n_embd: number;
  n_layer: number;
  n_head: number;
  /** The MLP's width (null: 4·n_embd). */
  n_inner: number | null;
  /** 'gelu_new' (tanh approximation, the default), 'gelu_pytorch_tanh', 'gelu_fast', 'gelu' (erf) or 'relu'. */
  activation_function: 'gelu_new' | 'gelu_pytorch_tanh' | 'gelu_fast' | 'gelu' | 'relu';
  resid_pdrop: number;
  embd_pdrop: number;
  attn_pdrop: number;
  layer_norm_epsilon: number;
  initializer_range: number;
  scale_attn_weights: boolean;
  scale_attn_by_inverse_layer_idx: boolean;
}

const GPT2_DEFAULTS: GPT2Config = {
  vocab_size: 50257,
  n_positions: 1024,
  n_embd: 768,
  n_layer: 12,
  n_head: 12,
  n_inner: null,
  activation_function: 'gelu_new',
  resid_pdrop: 0.1,
  embd_pdrop: 0.1,
  attn_pdrop: 0.1,
  layer_norm_epsilon: 1e-5,
  initializer_range: 0.02,
  scale_attn_weights: true,
  scale_attn_by_inverse_layer_idx: false,
};

const GPT2_SPEC = {
  vocab_size: positiveInteger,
  n_positions: positiveInteger,
  n_embd: positiveInteger,
  n_layer: positiveInteger,
  n_head: positiveInteger,
  n_inner: { check: (v: unknown) => v === null || (isInteger(v) && v > 0), expected: 'a positive integer or null' },
  activation_function: ['gelu_new', 'gelu_pytorch_tanh', 'gelu_fast', 'gelu', 'relu'],
  resid_pdrop: probability,
  embd_pdrop: probability,
  attn_pdrop: probability,
  layer_norm_epsilon: positiveNumber,
  initializer_range: { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected: 'a finite number >= 0' },
  scale_attn_weights: 'boolean',
  scale_attn_by_inverse_layer_idx: 'boolean',
} as const;

// Fields a Hugging Face config.json carries that do not change the math here (generation, the
// tokenizer, the heads of other GPT-2 classes, bookkeeping): accepted and ignored. Any other
// unknown field is an Error, so that a misspelt one does not pass silently.
const IGNORED = new Set([
  'model_type', 'architectures', '_name_or_path', 'transformers_version', 'torch_dtype', 'use_cache', 'n_ctx',
  'bos_token_id', 'eos_token_id', 'pad_token_id', 'tokenizer_class', 'task_specific_params', 'summary_type',
  'summary_use_proj', 'summary_activation', 'summary_proj_to_labels', 'summary_first_dropout', 'reorder_and_upcast_attn',
  'add_cross_attention', 'gradient_checkpointing', 'tie_word_embeddings', 'id2label', 'label2id', 'prefix',
]);

/** HF's Conv1D: weight [in, out] (the transpose of a Linear's), y = x·W + b. */
export class Conv1D extends Module {
  declare weight: Parameter;
  declare bias: Parameter;
  declare nx: number;
  declare nf: number;

  /** nf: output features, nx: input features (HF's argument order). */
  constructor(nf: number, nx: number) {
    super();
    if (!isInteger(nf) || nf <= 0 || !isInteger(nx) || nx <= 0) throw new Error(`Conv1D: expected positive integer sizes (nf, nx), got ${describe(nf)}, ${describe(nx)}`);
    this.nf = nf;
    this.nx = nx;
    this.weight = normal_(Parameter.empty([nx, nf]), 0, 0.02) as Parameter;
    this.bias = Parameter.empty([nf]);
  }

  forward(x: Tensor): Tensor {
    // HF's torch.addmm(bias, x, weight): one linear over the weight's transposed view, read in
    // place by the GEMM, the bias added in its write-back (not a second pass and tensor).
    const wt = this.weight.transpose(0, 1);
    try {
      return F.linear(x, wt, this.bias);
    } finally {
      wt.dispose();
    }
  }

  extraRepr(): string {
    return `nf=${this.nf}, nx=${this.nx}`;
  }
}

function activation(name: GPT2Config['activation_function'], x: Tensor): Tensor {
  if (name === 'relu') return F.relu(x);
  return F.gelu(x, { approximate: name === 'gelu' ? 'none' : 'tanh' });
}

class GPT2Attention extends Module {
  declare c_attn: Conv1D;
  declare c_proj: Conv1D;
  declare attn_dropout: Dropout;
  declare resid_dropout: Dropout;
  declare nHead: number;
  declare scale: number;

  constructor(c: GPT2Config, layerIdx: number) {
    super();
    this.c_attn = new Conv1D(3 * c.n_embd, c.n_embd);
    this.c_proj = new Conv1D(c.n_embd, c.n_embd);
    this.attn_dropout = new Dropout(c.attn_pdrop);
    this.resid_dropout = new Dropout(c.resid_pdrop);
    this.nHead = c.n_head;
    let scale = c.scale_attn_weights ? 1 / Math.sqrt(c.n_embd / c.n_head) : 1;
    if (c.scale_attn_by_inverse_layer_idx) scale /= layerIdx + 1;
    this.scale = scale;
  }

  /** With a cache (generate): k, v join layer `layer`'s cached ones; a single new token attends to all of them, unmasked. */
  forward(x: Tensor, cache?: KVCache, layer = 0): Tensor {
    const [B, T, C] = x.shape as [number, number, number];
    const hs = C / this.nHead;
    const heads = (t: Tensor) => t.view([B, T, this.nHead, hs]).transpose(1, 2); // [B, nh, T, hs]
    let [q, k, v] = this.c_attn.forward(x).split(C, 2).map(heads) as [Tensor, Tensor, Tensor];
    const past = cache ? cache.length : 0;
    if (cache) [k, v] = cache.update(layer, k, v);
    if (past > 0 && T !== 1) throw new Error(`GPT2Attention: a cached step takes one token, got ${T}`);
    let att = q.matmul(k.transpose(-2, -1));
    if (this.scale !== 1) att = att.mul(this.scale);
    att = past > 0 ? att.softmax(-1) : causalSoftmax(att);
    const y = this.attn_dropout.forward(att).matmul(v).transpose(1, 2).contiguous().view([B, T, C]);
    return this.resid_dropout.forward(this.c_proj.forward(y));
  }
}

class GPT2MLP extends Module {
  declare c_fc: Conv1D;
  declare c_proj: Conv1D;
  declare dropout: Dropout;
  declare act: GPT2Config['activation_function'];

  constructor(c: GPT2Config) {
    super();
    const inner = c.n_inner ?? 4 * c.n_embd;
    this.c_fc = new Conv1D(inner, c.n_embd);
    this.c_proj = new Conv1D(c.n_embd, inner);
    this.dropout = new Dropout(c.resid_pdrop);
    this.act = c.activation_function;
  }

  forward(x: Tensor): Tensor {
    return this.dropout.forward(this.c_proj.forward(activation(this.act, this.c_fc.forward(x))));
  }
}

class GPT2Block extends Module {
  declare ln_1: LayerNorm;
  declare attn: GPT2Attention;
  declare ln_2: LayerNorm;
  declare mlp: GPT2MLP;

  constructor(c: GPT2Config, layerIdx: number) {
    super();
    this.ln_1 = new LayerNorm(c.n_embd, { eps: c.layer_norm_epsilon });
    this.attn = new GPT2Attention(c, layerIdx);
    this.ln_2 = new LayerNorm(c.n_embd, { eps: c.layer_norm_epsilon });
    this.mlp = new GPT2MLP(c);
  }

  forward(x: Tensor, cache?: KVCache, layer = 0): Tensor {
    const h = x.add(this.attn.forward(this.ln_1.forward(x), cache, layer));
    return h.add(this.mlp.forward(this.ln_2.forward(h)));
  }
}

/** The full configuration from a config.json-shaped object (HF's ignorable fields dropped). */
function gpt2Config(fn: string, config: unknown): GPT2Config {
  let given = config;
  if (config !== null && typeof config === 'object' && !Array.isArray(config)) {
    given = Object.fromEntries(Object.entries(config).filter(([k]) => !IGNORED.has(k)));
    const type = (config as { model_type?: unknown }).model_type;
    if (type !== undefined && type !== 'gpt2') throw new Error(`${fn}: expected model_type 'gpt2', got ${describe(type)}`);
  }
  const c = modelConfig<GPT2Config>(fn, given, GPT2_SPEC, GPT2_DEFAULTS);
  if (c.n_embd % c.n_head !== 0) throw new Error(`${fn}: n_embd (${c.n_embd}) must be divisible by n_head (${c.n_head})`);
  return c;
}

/** Checks input ids: an int32 Tensor [B, T], B, T ≥ 1, T ≤ n_positions. */
function checkIds(fn: string, ids: unknown, nPositions: number): [number, number] {
  if (!(ids instanceof Tensor) || ids.dtype !== 'int32') throw new Error(`${fn}: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got ${describe(ids)}`);
  if (ids.ndim !== 2 || ids.shape[0] === 0 || ids.shape[1] === 0) throw new Error(`${fn}: expected 'inputIds' of shape [B, T] with B, T ≥ 1, got [${ids.shape.join(', ')}]`);
  const [B, T] = ids.shape as [number, number];
  if (T > nPositions) throw new Error(`${fn}: a sequence of ${T} tokens exceeds n_positions (${nPositions})`);
  return [B, T];
}

/** HF's GPT2Model: token + position embeddings, the blocks, the final LayerNorm → hidden states [B, T, n_embd]. */
export class GPT2Model extends Module {
  declare config: GPT2Config;
  declare wte: Embedding;
  declare wpe: Embedding;
  declare drop: Dropout;
  declare h: ModuleList;
  declare ln_f: LayerNorm;
  /** gradientCheckpointingEnable(): in training, each block is recomputed in backward (sg.utils.checkpoint). */
  declare gradientCheckpointing: boolean;

  constructor(config?: Partial<GPT2Config> & Record<string, unknown>) {
    super();
    const c = gpt2Config('GPT2Model', config);
    this.config = c;
    this.wte = new Embedding(c.vocab_size, c.n_embd);
    this.wpe = new Embedding(c.n_positions, c.n_embd);
    this.drop = new Dropout(c.embd_pdrop);
    this.h = new ModuleList(Array.from({ length: c.n_layer }, (_, i) => new GPT2Block(c, i)));
    this.ln_f = new LayerNorm(c.n_embd, { eps: c.layer_norm_epsilon });
    this.gradientCheckpointing = false;
    initWeights(this, c);
  }

  /** inputIds [B, T] → hidden states [B, T, n_embd]; with a cache (generate) the positions follow its length, and it grows by T. */
  forward(inputIds: Tensor, cache?: KVCache): Tensor {
    const [, T] = checkIds('GPT2Model.forward', inputIds, this.config.n_positions);
    const past = cache ? cache.length : 0;
    if (past + T > this.config.n_positions) throw new Error(`GPT2Model.forward: position ${past + T - 1} is past n_positions (${this.config.n_positions})`);
    const out = tidy(() => {
      const pos = arange(past, past + T, { device: inputIds.device });
      const x = this.drop.forward(this.wte.forward(inputIds).add(this.wpe.forward(pos)));
      const checkpointed = this.gradientCheckpointing && this.training && !cache;
      // One tidy per block (forwardBlocks): a block's intermediates that autograd does not save are freed when it
      // returns (~33 MB a layer at GPT-2's width and 4 × 128 tokens; tests/bench/README.md §9b).
      const h = forwardBlocks(this.h, x, (block, hx, i) =>
        checkpointed ? checkpoint((a: Tensor) => (block as GPT2Block).forward(a), hx) : (block as GPT2Block).forward(hx, cache, i));
      return this.ln_f.forward(h);
    });
    if (cache) cache.length = past + T;
    return out;
  }

  extraRepr(): string {
    const c = this.config;
    return `n_layer=${c.n_layer}, n_head=${c.n_head}, n_embd=${c.n_embd}, n_positions=${c.n_positions}, vocab_size=${c.vocab_size}`;
  }
}

/**
 * HF's _init_weights: Conv1D, Linear and Embedding weights N(0, initializer_range), biases 0,
 * LayerNorms 1 and 0, and c_proj weights N(0, initializer_range/√(2·n_layer)).
 */
function initWeights(root: Module, c: GPT2Config): void {
  const std = c.initializer_range;
  for (const m of root.modules()) {
    if (m instanceof Conv1D || m instanceof Linear) {
      normal_(m.weight, 0, std);
      if (m.bias) zeros_(m.bias);
    } else if (m instanceof Embedding) normal_(m.weight, 0, std);
  }
  for (const [name, p] of root.namedParameters()) {
    if (name.endsWith('c_proj.weight')) normal_(p, 0, std / Math.sqrt(2 * c.n_layer));
  }
}

/** HF's GPT2LMHeadModel: GPT2Model and a head tied to the token embedding; model(inputIds) → logits [B, T, vocab_size]. */
export class GPT2LMHeadModel extends Module {
  declare config: GPT2Config;
  declare transformer: GPT2Model;
  declare lm_head: Linear;

  constructor(config?: Partial<GPT2Config> & Record<string, unknown>) {
    super();
    const c = gpt2Config('GPT2LMHeadModel', config);
    this.config = c;
    this.transformer = new GPT2Model(c as unknown as Record<string, unknown>);
    // Loading a checkpoint (fromPretrained: init skipped), the head gets no weight of its own, not even for a moment.
    if (initSkipped()) this.lm_head = tiedLinear(this.transformer.wte.weight);
    else {
      this.lm_head = new Linear(c.n_embd, c.vocab_size, { bias: false });
      const untied = this.lm_head.weight;
      this.lm_head.weight = this.transformer.wte.weight; // tied: one Parameter, as HF's tie_weights
      untied.dispose();
    }
  }

  /** inputIds: int32 [B, T] (T ≤ n_positions) → logits [B, T, vocab_size]. */
  forward(inputIds: Tensor): Tensor {
    checkIds('GPT2LMHeadModel.forward', inputIds, this.config.n_positions);
    return tidy(() => this.lm_head.forward(this.transformer.forward(inputIds)));
  }

  /** HF's gradient_checkpointing_enable(): in train mode each block keeps only its input and is recomputed in backward. */
  gradientCheckpointingEnable(): void {
    this.transformer.gradientCheckpointing = true;
  }

  gradientCheckpointingDisable(): void {
    this.transformer.gradientCheckpointing = false;
  }

  /**
   * Hugging Face's generate with a key/value cache: greedy (default) or sampling with temperature,
   * topK, topP; repetitionPenalty; rows stop at eosTokenId; onToken hears every step. → int32
   * [B, T + new] (T + maxNewTokens ≤ n_positions). Dropout follows the module's mode (call model.eval() first).
   */
  generate(inputIds: Tensor, options?: GenerationOptions): Promise<Tensor> {
    const c = this.config;
    return generateTokens(
      {
        fn: 'GPT2LMHeadModel.generate',
        layers: c.n_layer,
        maxPositions: c.n_positions,
        step: (ids, cache) =>
          tidy(() => {
            const h = this.transformer.forward(ids, cache);
            return this.lm_head.forward(h.narrow(1, h.shape[1]! - 1, 1)).select(1, 0);
          }),
      },
      inputIds,
      options,
    );
  }

  /**
   * loadStateDict for HF checkpoints as they are: the causal-mask buffers older transformers
   * saved ('….attn.bias', '….attn.masked_bias') are skipped, a file without the tied
   * 'lm_head.weight' (as HF saves it) or with only it fills both, and keys saved from GPT2Model
   * (without 'transformer.') are accepted.
   */
  loadStateDict(stateDict: StateDict | Map<string, Tensor>, options?: { strict?: boolean }): LoadResult {
    const given = withoutKeys(stateDict, () => false);
    return super.loadStateDict((given instanceof Map ? this._checkpointKeys(given) : given) as Map<string, Tensor>, options);
  }

  /** @internal A checkpoint's entries under this module's keys, as loadStateDict takes them (fromPretrained maps its file entries with it). */
  _checkpointKeys<T>(entries: Map<string, T>): Map<string, T> {
    const given = new Map([...entries].filter(([k]) => !/^(transformer\.)?h\.\d+\.attn\.(bias|masked_bias)$/.test(k)));
    for (const key of [...given.keys()]) {
      if (key !== 'lm_head.weight' && !key.startsWith('transformer.')) {
        given.set(`transformer.${key}`, given.get(key)!);
        given.delete(key);
      }
    }
    const wte = 'transformer.wte.weight';
    const head = 'lm_head.weight';
    if (given.has(wte) && !given.has(head)) given.set(head, given.get(wte)!);
    else if (given.has(head) && !given.has(wte)) given.set(wte, given.get(head)!);
    return given;
  }

  extraRepr(): string {
    return '';
  }
}
