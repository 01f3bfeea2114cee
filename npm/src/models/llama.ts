// sg.models.LlamaForCausalLM: Hugging Face transformers' LlamaForCausalLM (modeling_llama.py) with
// its config.json field names and state-dict names, so a Hugging Face Llama folder's weights load
// with loadStateDict: model.embed_tokens, model.layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj,
// post_attention_layernorm, mlp.{gate,up,down}_proj}, model.norm, lm_head (one Parameter with
// model.embed_tokens.weight when tie_word_embeddings; a file may leave it out, as HF saves it).
// The math is HF's: RMSNorm, rotary embeddings in HF's layout (rotate_half over the two halves
// of the head dim; inv_freq = 1/θ^(2i/d), scaled as rope_scaling 'linear' or 'llama3' says),
// causal grouped-query attention (F.scaledDotProductAttention with enableGqa), SwiGLU MLP
// (down(silu(gate(x)) · up(x))). Mistral's and Qwen2's configs build the same module where they
// are Llama-shaped (Qwen2: bias on q/k/v; Mistral: sliding-window attention).
import { F } from '../nn/functional.js';
import { Embedding } from '../nn/embedding.js';
import { initSkipped, normal_, zeros_ } from '../nn/init.js';
import { Linear, tiedLinear } from '../nn/linear.js';
import { ModuleList } from '../nn/container.js';
import { forwardBlocks } from '../nn/blocks_forward.js';
import { Module, type LoadResult, type StateDict } from '../nn/module.js';
import { RMSNorm } from '../nn/rms_norm.js';
import { tidy } from '../runtime/memory.js';
import { describe, isInteger } from '../runtime/options.js';
import { arange, ones, tensor } from '../tensor/creation.js';
import { functionOps, ops } from '../tensor/ops.js';
import { Tensor } from '../tensor/tensor.js';
import { modelConfig, positiveInteger, positiveNumber, withoutKeys } from './config.js';
import { generateTokens, type GenerationOptions, type KVCache } from './generation.js';
import { checkpoint } from '../utils/checkpoint.js';

/** rope_scaling as in config.json ('type' in older files, 'rope_type' in newer ones). */
export interface RopeScaling {
  type?: string;
  rope_type?: string;
  factor?: number;
  low_freq_factor?: number;
  high_freq_factor?: number;
  original_max_position_embeddings?: number;
}

/** LlamaConfig's fields, as in config.json (defaults: transformers' LlamaConfig). */
export interface LlamaConfig {
  /** 'llama' (default), 'mistral' or 'qwen2': Qwen2 puts a bias on q/k/v, Mistral may slide its attention window. */
  model_type: 'llama' | 'mistral' | 'qwen2';
  vocab_size: number;
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  /** null: num_attention_heads (multi-head attention); fewer: grouped-query attention. */
  num_key_value_heads: number | null;
  /** null: hidden_size / num_attention_heads. */
  head_dim: number | null;
  hidden_act: 'silu';
  max_position_embeddings: number;
  initializer_range: number;
  rms_norm_eps: number;
  tie_word_embeddings: boolean;
  rope_theta: number;
  rope_scaling: RopeScaling | null;
  attention_bias: boolean;
  attention_dropout: number;
  mlp_bias: boolean;
  /** Mistral: each position sees the last sliding_window positions (null: all). */
  sliding_window: number | null;
  /** Qwen2: sliding-window attention is not supported here (an Error when true). */
  use_sliding_window: boolean;
}

const LLAMA_DEFAULTS: LlamaConfig = {
  model_type: 'llama',
  vocab_size: 32000,
  hidden_size: 4096,
  intermediate_size: 11008,
  num_hidden_layers: 32,
  num_attention_heads: 32,
  num_key_value_heads: null,
  head_dim: null,
  hidden_act: 'silu',
  max_position_embeddings: 2048,
  initializer_range: 0.02,
  rms_norm_eps: 1e-6,
  tie_word_embeddings: false,
  rope_theta: 10000,
  rope_scaling: null,
  attention_bias: false,
  attention_dropout: 0,
  mlp_bias: false,
  sliding_window: null,
  use_sliding_window: false,
};

const nullOrPositiveInteger = { check: (v: unknown) => v === null || (isInteger(v) && v > 0), expected: 'a positive integer or null' };

const LLAMA_SPEC = {
  model_type: ['llama', 'mistral', 'qwen2'],
  vocab_size: positiveInteger,
  hidden_size: positiveInteger,
  intermediate_size: positiveInteger,
  num_hidden_layers: positiveInteger,
  num_attention_heads: positiveInteger,
  num_key_value_heads: nullOrPositiveInteger,
  head_dim: nullOrPositiveInteger,
  hidden_act: ['silu'],
  max_position_embeddings: positiveInteger,
  initializer_range: { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected: 'a finite number >= 0' },
  rms_norm_eps: positiveNumber,
  tie_word_embeddings: 'boolean',
  rope_theta: positiveNumber,
  rope_scaling: { check: (v: unknown) => v === null || (typeof v === 'object' && !Array.isArray(v)), expected: 'an object or null' },
  attention_bias: 'boolean',
  attention_dropout: { check: (v: unknown) => typeof v === 'number' && v >= 0 && v < 1, expected: 'a number in [0, 1)' },
  mlp_bias: 'boolean',
  sliding_window: nullOrPositiveInteger,
  use_sliding_window: 'boolean',
} as const;

// Fields a Hugging Face config.json carries that do not change the math here (generation, the
// tokenizer, bookkeeping): accepted and ignored. Any other unknown field is an Error.
const IGNORED = new Set([
  'architectures', '_name_or_path', 'transformers_version', 'torch_dtype', 'use_cache', 'bos_token_id', 'eos_token_id',
  'pad_token_id', 'tokenizer_class', 'id2label', 'label2id', 'pretraining_tp', 'max_window_layers', 'use_mrope',
  'return_dict', 'output_attentions', 'output_hidden_states', 'torchscript', 'is_decoder', 'is_encoder_decoder',
  'gradient_checkpointing', 'prefix', 'task_specific_params', 'problem_type', 'layer_types', 'dtype', 'is_llama_config',
  '_attn_implementation_autoset',
]);

const ROPE_KEYS = new Set(['type', 'rope_type', 'factor', 'low_freq_factor', 'high_freq_factor', 'original_max_position_embeddings']);

/** The full configuration from a config.json-shaped object (HF's ignorable fields dropped), checked. */
export function llamaConfig(fn: string, config: unknown): LlamaConfig {
  let given = config;
  if (config !== null && typeof config === 'object' && !Array.isArray(config)) {
    // rope_interleaved (SmolLM's configs): false is HF's rotate_half layout, the only one here.
    const interleaved = (config as { rope_interleaved?: unknown }).rope_interleaved;
    if (interleaved !== undefined && interleaved !== false) throw new Error(`${fn}: rope_interleaved ${describe(interleaved)} is not supported (only HF's rotate_half layout, false)`);
    given = Object.fromEntries(Object.entries(config).filter(([k]) => !IGNORED.has(k) && k !== 'rope_interleaved'));
  }
  const c = modelConfig<LlamaConfig>(fn, given, LLAMA_SPEC, LLAMA_DEFAULTS);
  const kv = c.num_key_value_heads ?? c.num_attention_heads;
  if (c.num_attention_heads % kv !== 0) {
    throw new Error(`${fn}: num_attention_heads (${c.num_attention_heads}) must be a multiple of num_key_value_heads (${kv})`);
  }
  if (c.head_dim === null && c.hidden_size % c.num_attention_heads !== 0) {
    throw new Error(`${fn}: hidden_size (${c.hidden_size}) must be divisible by num_attention_heads (${c.num_attention_heads})`);
  }
  const hd = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  if (hd % 2 !== 0) throw new Error(`${fn}: the head dim (${hd}) must be even for rotary embeddings`);
  if (c.use_sliding_window) throw new Error(`${fn}: use_sliding_window true is not supported (Qwen2's sliding-window attention)`);
  if (c.rope_scaling !== null) ropeInvFreq(fn, c); // checks the fields
  return c;
}

/** inv_freq[i] = 1/θ^(2i/d), scaled as HF's ROPE_INIT_FUNCTIONS do for 'default', 'linear' and 'llama3'. */
export function ropeInvFreq(fn: string, c: LlamaConfig): Float64Array {
  const d = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  const inv = Float64Array.from({ length: d / 2 }, (_, i) => 1 / c.rope_theta ** ((2 * i) / d));
  const s = c.rope_scaling;
  if (s === null) return inv;
  for (const k of Object.keys(s)) if (!ROPE_KEYS.has(k)) throw new Error(`${fn}: rope_scaling: unknown field '${k}'`);
  const type = s.rope_type ?? s.type;
  const num = (k: keyof RopeScaling, dflt?: number): number => {
    const v = s[k] ?? dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new Error(`${fn}: rope_scaling '${type}' needs '${k}' to be a positive number, got ${describe(s[k])}`);
    return v;
  };
  if (type === 'default') return inv;
  if (type === 'linear') {
    const factor = num('factor');
    return inv.map((f) => f / factor);
  }
  if (type === 'llama3') {
    const factor = num('factor');
    const low = num('low_freq_factor');
    const high = num('high_freq_factor');
    const old = num('original_max_position_embeddings');
    if (!(high > low)) throw new Error(`${fn}: rope_scaling 'llama3' needs high_freq_factor > low_freq_factor`);
    const lowWavelen = old / low;
    const highWavelen = old / high;
    return inv.map((f) => {
      const wavelen = (2 * Math.PI) / f;
      if (wavelen < highWavelen) return f;
      if (wavelen > lowWavelen) return f / factor;
      const smooth = (old / wavelen - low) / (high - low);
      return (1 - smooth) * (f / factor) + smooth * f;
    });
  }
  throw new Error(`${fn}: rope_scaling type ${describe(type)} is not supported (expected 'default', 'linear' or 'llama3')`);
}

/** HF's rotate_half: [-x2, x1] with x1, x2 the two halves of the last dim. */
function rotateHalf(x: Tensor): Tensor {
  const half = x.shape[x.ndim - 1]! / 2;
  return functionOps.cat([ops.neg(ops.narrow(x, -1, half, half)), ops.narrow(x, -1, 0, half)], -1);
}

class LlamaAttention extends Module {
  declare q_proj: Linear;
  declare k_proj: Linear;
  declare v_proj: Linear;
  declare o_proj: Linear;
  declare nHeads: number;
  declare nKv: number;
  declare headDim: number;
  declare dropoutP: number;
  /** Mistral's window (keys a query sees), or null. */
  declare slidingWindow: number | null;

  constructor(c: LlamaConfig) {
    super();
    this.nHeads = c.num_attention_heads;
    this.nKv = c.num_key_value_heads ?? c.num_attention_heads;
    this.headDim = c.head_dim ?? c.hidden_size / c.num_attention_heads;
    const qkvBias = c.attention_bias || c.model_type === 'qwen2';
    this.q_proj = new Linear(c.hidden_size, this.nHeads * this.headDim, { bias: qkvBias });
    this.k_proj = new Linear(c.hidden_size, this.nKv * this.headDim, { bias: qkvBias });
    this.v_proj = new Linear(c.hidden_size, this.nKv * this.headDim, { bias: qkvBias });
    this.o_proj = new Linear(this.nHeads * this.headDim, c.hidden_size, { bias: c.attention_bias });
    this.dropoutP = c.attention_dropout;
    this.slidingWindow = c.model_type === 'mistral' ? c.sliding_window : null;
  }

  /**
   * x [B, T, hidden]; cos, sin [T, hd] of x's positions. With a cache (generate), k and v join
   * layer `layer`'s cached ones: the prompt (nothing cached yet) attends causally, a later single
   * token attends to every cached position (the last sliding_window of them for Mistral).
   */
  forward(x: Tensor, cos: Tensor, sin: Tensor, mask: Tensor | null, cache?: KVCache, layer = 0): Tensor {
    const [B, T] = x.shape as [number, number, number];
    const heads = (t: Tensor, n: number) => t.view([B, T, n, this.headDim]).transpose(1, 2); // [B, n, T, hd]
    let q = heads(this.q_proj.forward(x), this.nHeads);
    let k = heads(this.k_proj.forward(x), this.nKv);
    let v = heads(this.v_proj.forward(x), this.nKv);
    q = q.mul(cos).add(rotateHalf(q).mul(sin));
    k = k.mul(cos).add(rotateHalf(k).mul(sin));
    const dropoutP = this.training ? this.dropoutP : 0;
    const past = cache ? cache.length : 0;
    if (cache) [k, v] = cache.update(layer, k, v);
    if (past > 0) {
      if (T !== 1) throw new Error(`LlamaAttention: a cached step takes one token, got ${T}`);
      const L = k.shape[2]!;
      const w = this.slidingWindow;
      const [kw, vw] = w !== null && L > w ? [k.narrow(2, L - w, w), v.narrow(2, L - w, w)] : [k, v];
      const y1 = F.scaledDotProductAttention(q, kw, vw, null, { enableGqa: true, dropoutP });
      return this.o_proj.forward(y1.transpose(1, 2).contiguous().view([B, T, this.nHeads * this.headDim]));
    }
    const y = mask === null
      ? F.scaledDotProductAttention(q, k, v, null, { isCausal: true, enableGqa: true, dropoutP })
      : F.scaledDotProductAttention(q, k, v, mask, { enableGqa: true, dropoutP });
    return this.o_proj.forward(y.transpose(1, 2).contiguous().view([B, T, this.nHeads * this.headDim]));
  }
}

class LlamaMLP extends Module {
  declare gate_proj: Linear;
  declare up_proj: Linear;
  declare down_proj: Linear;

  constructor(c: LlamaConfig) {
    super();
    this.gate_proj = new Linear(c.hidden_size, c.intermediate_size, { bias: c.mlp_bias });
    this.up_proj = new Linear(c.hidden_size, c.intermediate_size, { bias: c.mlp_bias });
    this.down_proj = new Linear(c.intermediate_size, c.hidden_size, { bias: c.mlp_bias });
  }

  forward(x: Tensor): Tensor {
    return this.down_proj.forward(F.silu(this.gate_proj.forward(x)).mul(this.up_proj.forward(x)));
  }
}

class LlamaDecoderLayer extends Module {
  declare self_attn: LlamaAttention;
  declare mlp: LlamaMLP;
  declare input_layernorm: RMSNorm;
  declare post_attention_layernorm: RMSNorm;

  constructor(c: LlamaConfig) {
    super();
    this.self_attn = new LlamaAttention(c);
    this.mlp = new LlamaMLP(c);
    this.input_layernorm = new RMSNorm(c.hidden_size, { eps: c.rms_norm_eps });
    this.post_attention_layernorm = new RMSNorm(c.hidden_size, { eps: c.rms_norm_eps });
  }

  forward(x: Tensor, cos: Tensor, sin: Tensor, mask: Tensor | null, cache?: KVCache, layer = 0): Tensor {
    const h = x.add(this.self_attn.forward(this.input_layernorm.forward(x), cos, sin, mask, cache, layer));
    return h.add(this.mlp.forward(this.post_attention_layernorm.forward(h)));
  }
}

/** HF's LlamaModel: embeddings, the decoder layers, the final RMSNorm → hidden states [B, T, hidden_size]. */
export class LlamaModel extends Module {
  declare config: LlamaConfig;
  declare embed_tokens: Embedding;
  declare layers: ModuleList;
  declare norm: RMSNorm;
  declare invFreq: Float64Array;
  /** gradientCheckpointingEnable(): in training, each decoder layer is recomputed in backward (sg.utils.checkpoint). */
  declare gradientCheckpointing: boolean;

  constructor(config?: Partial<LlamaConfig> & Record<string, unknown>) {
    super();
    const c = llamaConfig('LlamaModel', config);
    this.config = c;
    this.invFreq = ropeInvFreq('LlamaModel', c);
    this.embed_tokens = new Embedding(c.vocab_size, c.hidden_size);
    this.layers = new ModuleList(Array.from({ length: c.num_hidden_layers }, () => new LlamaDecoderLayer(c)));
    this.norm = new RMSNorm(c.hidden_size, { eps: c.rms_norm_eps });
    this.gradientCheckpointing = false;
  }

  /**
   * cos, sin [T, head_dim] for positions offset..offset+T−1 (HF: cat(freqs, freqs) over the last dim),
   * made by ops in float32 as HF (positions by arange, t·inv_freq, cos, sin) rather than from
   * JavaScript data, so that sg.onnx.export computes them from the runtime sequence length. Always on the
   * cpu, then moved (whatever the default device): a GPU's cos/sin lose accuracy far from [-π, π].
   */
  rotary(T: number, device: Tensor['device'], offset = 0): [Tensor, Tensor] {
    return tidy((): [Tensor, Tensor] => {
      const inv = tensor(Float32Array.from(this.invFreq), { shape: [1, this.invFreq.length], device: 'cpu' });
      const freqs = arange(offset, offset + T, { dtype: 'float32', device: 'cpu' }).unsqueeze(1).mul(inv);
      const emb = functionOps.cat([freqs, freqs], -1);
      const [c, s] = [emb.cos(), emb.sin()];
      return device === 'cpu' ? [c, s] : [c.to(device), s.to(device)];
    });
  }

  /**
   * Mistral's sliding window as a bool mask [T, T] (true: attend), or null for plain causal
   * attention. Made by ops (tril, triu) and also when T ≤ window, so that an ONNX export at a short
   * length still masks at a long one.
   */
  private windowMask(T: number, device: Tensor['device']): Tensor | null {
    const w = this.config.model_type === 'mistral' ? this.config.sliding_window : null;
    if (w === null) return null;
    return tidy(() => {
      const m = ones([T, T], { device: 'cpu' }).tril(0).triu(1 - w).to('bool');
      return device === 'cpu' ? m : m.to(device);
    });
  }

  /** inputIds [B, T] → hidden states [B, T, hidden]; with a cache (generate) they follow its positions, and it grows by T. */
  forward(inputIds: Tensor, cache?: KVCache): Tensor {
    const [, T] = checkIds('LlamaModel.forward', inputIds);
    const past = cache ? cache.length : 0;
    const out = tidy(() => {
      const x = this.embed_tokens.forward(inputIds);
      const [cos, sin] = this.rotary(T, inputIds.device, past);
      const mask = past === 0 ? this.windowMask(T, inputIds.device) : null;
      const checkpointed = this.gradientCheckpointing && this.training && !cache;
      // One tidy per layer (forwardBlocks). cos, sin and the mask go to checkpoint as arguments: the recompute in
      // backward runs after this tidy freed them.
      const h = forwardBlocks(this.layers, x, (child, hx, i) => {
        const layer = child as LlamaDecoderLayer;
        if (checkpointed) return checkpoint((a: Tensor, c: Tensor, s: Tensor, m: Tensor | null) => layer.forward(a, c, s, m), hx, cos, sin, mask);
        return layer.forward(hx, cos, sin, mask, cache, i);
      });
      return this.norm.forward(h);
    });
    if (cache) cache.length = past + T;
    return out;
  }

  extraRepr(): string {
    const c = this.config;
    return `num_hidden_layers=${c.num_hidden_layers}, hidden_size=${c.hidden_size}, num_attention_heads=${c.num_attention_heads}, num_key_value_heads=${c.num_key_value_heads ?? c.num_attention_heads}, vocab_size=${c.vocab_size}`;
  }
}

/** Checks input ids: an int32 Tensor [B, T], B, T ≥ 1. */
function checkIds(fn: string, ids: unknown): [number, number] {
  if (!(ids instanceof Tensor) || ids.dtype !== 'int32') throw new Error(`${fn}: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got ${describe(ids)}`);
  if (ids.ndim !== 2 || ids.shape[0] === 0 || ids.shape[1] === 0) throw new Error(`${fn}: expected 'inputIds' of shape [B, T] with B, T ≥ 1, got [${ids.shape.join(', ')}]`);
  return ids.shape as [number, number];
}

/** HF's LlamaForCausalLM: LlamaModel and lm_head; model(inputIds) → logits [B, T, vocab_size]. */
export class LlamaForCausalLM extends Module {
  declare config: LlamaConfig;
  declare model: LlamaModel;
  declare lm_head: Linear;

  constructor(config?: Partial<LlamaConfig> & Record<string, unknown>) {
    super();
    const c = llamaConfig('LlamaForCausalLM', config);
    this.config = c;
    this.model = new LlamaModel(c as unknown as Record<string, unknown>);
    // Loading a checkpoint (fromPretrained: init skipped), a tied head gets no weight of its own, not even for a moment.
    const tieNow = c.tie_word_embeddings && initSkipped();
    this.lm_head = tieNow ? tiedLinear(this.model.embed_tokens.weight) : new Linear(c.hidden_size, c.vocab_size, { bias: false });
    // HF's _init_weights: Linear and Embedding weights N(0, initializer_range), biases 0 (RMSNorm weights stay 1).
    for (const m of this.modules()) {
      if (m instanceof Linear) {
        normal_(m.weight, 0, c.initializer_range);
        if (m.bias) zeros_(m.bias);
      } else if (m instanceof Embedding) normal_(m.weight, 0, c.initializer_range);
    }
    if (c.tie_word_embeddings && !tieNow) {
      const untied = this.lm_head.weight;
      this.lm_head.weight = this.model.embed_tokens.weight; // one Parameter, as HF's tie_weights
      untied.dispose();
    }
  }

  /** inputIds: int32 [B, T] → logits [B, T, vocab_size]. */
  forward(inputIds: Tensor): Tensor {
    checkIds('LlamaForCausalLM.forward', inputIds);
    return tidy(() => this.lm_head.forward(this.model.forward(inputIds)));
  }

  /** HF's gradient_checkpointing_enable(): in train mode each decoder layer keeps only its input and is recomputed in backward. */
  gradientCheckpointingEnable(): void {
    this.model.gradientCheckpointing = true;
  }

  gradientCheckpointingDisable(): void {
    this.model.gradientCheckpointing = false;
  }

  /**
   * Hugging Face's generate with a key/value cache: greedy (default) or sampling with temperature,
   * topK, topP; repetitionPenalty; rows stop at eosTokenId; onToken hears every step. → int32
   * [B, T + new]. Dropout follows the module's mode (call model.eval() first).
   */
  generate(inputIds: Tensor, options?: GenerationOptions): Promise<Tensor> {
    const c = this.config;
    return generateTokens(
      {
        fn: 'LlamaForCausalLM.generate',
        layers: c.num_hidden_layers,
        maxPositions: c.max_position_embeddings,
        step: (ids, cache) =>
          tidy(() => {
            const h = this.model.forward(ids, cache);
            return this.lm_head.forward(h.narrow(1, h.shape[1]! - 1, 1)).select(1, 0);
          }),
      },
      inputIds,
      options,
    );
  }

  /**
   * loadStateDict for HF checkpoints as they are: older files' 'model.layers.N.self_attn.rotary_emb.inv_freq'
   * buffers are skipped; with tied embeddings a file without 'lm_head.weight' (as HF saves it), or with only
   * it, fills both.
   */
  loadStateDict(stateDict: StateDict | Map<string, Tensor>, options?: { strict?: boolean }): LoadResult {
    const given = withoutKeys(stateDict, () => false);
    return super.loadStateDict((given instanceof Map ? this._checkpointKeys(given) : given) as Map<string, Tensor>, options);
  }

  /** @internal A checkpoint's entries under this module's keys, as loadStateDict takes them (fromPretrained maps its file entries with it). */
  _checkpointKeys<T>(entries: Map<string, T>): Map<string, T> {
    const given = new Map([...entries].filter(([k]) => !/^model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq$/.test(k)));
    if (this.config.tie_word_embeddings) {
      const emb = 'model.embed_tokens.weight';
      const head = 'lm_head.weight';
      if (given.has(emb) && !given.has(head)) given.set(head, given.get(emb)!);
      else if (given.has(head) && !given.has(emb)) given.set(emb, given.get(head)!);
    }
    return given;
  }

  extraRepr(): string {
    return '';
  }
}
