// sg.models.BertEncoder and sg.models.BertForMaskedLM: Hugging Face's BertModel and
// BertForMaskedLM (transformers' modeling_bert.py, eager attention) with their parameter names,
// so their state dicts load with loadStateDict. Post-norm layers: LayerNorm(x + dropout(dense(h))).
// The attention mask is HF's extended mask: (1 − mask)·finfo(float32).min added to the scores,
// so a fully masked row attends uniformly (as in HF) instead of giving NaN.
import { noGrad } from '../autograd/backward.js';
import { arange, zeros } from '../tensor/creation.js';
import { F } from '../nn/functional.js';
import { tidy } from '../runtime/memory.js';
import { ModuleList } from '../nn/container.js';
import { forwardBlocks } from '../nn/blocks_forward.js';
import { Dropout } from '../nn/dropout.js';
import { Embedding } from '../nn/embedding.js';
import { normal_, zeros_ } from '../nn/init.js';
import { Linear } from '../nn/linear.js';
import { Module, Parameter, type LoadResult, type StateDict } from '../nn/module.js';
import { LayerNorm } from '../nn/norm.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { modelConfig, positiveInteger, positiveNumber, probability, withoutKeys } from './config.js';
import { checkpoint } from '../utils/checkpoint.js';

/** Hugging Face's BertConfig in camelCase (defaults: bert-base-uncased). */
export interface BertConfig {
  vocabSize: number;
  hiddenSize: number;
  numHiddenLayers: number;
  numAttentionHeads: number;
  intermediateSize: number;
  /** 'gelu' (erf), 'gelu_new' (tanh approximation) or 'relu'. */
  hiddenAct: 'gelu' | 'gelu_new' | 'relu';
  hiddenDropoutProb: number;
  attentionProbsDropoutProb: number;
  maxPositionEmbeddings: number;
  typeVocabSize: number;
  initializerRange: number;
  layerNormEps: number;
  padTokenId: number;
}

const BERT_DEFAULTS: BertConfig = {
  vocabSize: 30522,
  hiddenSize: 768,
  numHiddenLayers: 12,
  numAttentionHeads: 12,
  intermediateSize: 3072,
  hiddenAct: 'gelu',
  hiddenDropoutProb: 0.1,
  attentionProbsDropoutProb: 0.1,
  maxPositionEmbeddings: 512,
  typeVocabSize: 2,
  initializerRange: 0.02,
  layerNormEps: 1e-12,
  padTokenId: 0,
};

const BERT_SPEC = {
  vocabSize: positiveInteger,
  hiddenSize: positiveInteger,
  numHiddenLayers: positiveInteger,
  numAttentionHeads: positiveInteger,
  intermediateSize: positiveInteger,
  hiddenAct: ['gelu', 'gelu_new', 'relu'],
  hiddenDropoutProb: probability,
  attentionProbsDropoutProb: probability,
  maxPositionEmbeddings: positiveInteger,
  typeVocabSize: positiveInteger,
  initializerRange: positiveNumber,
  layerNormEps: positiveNumber,
  padTokenId: { check: (v: unknown) => Number.isInteger(v) && (v as number) >= 0, expected: 'an integer >= 0' },
} as const;

export interface BertInputs {
  /** [B, S], 1 (or true) where a token takes part, 0 where it is padding; default all 1. */
  attentionMask?: Tensor | null;
  /** int32 [B, S] segment ids below typeVocabSize; default all 0. */
  tokenTypeIds?: Tensor | null;
}

export interface BertOutput {
  /** [B, S, hiddenSize]. */
  lastHiddenState: Tensor;
  /** tanh(dense(first token)) [B, hiddenSize]; null without the pooler. */
  poolerOutput: Tensor | null;
}

export interface BertMaskedLMInputs extends BertInputs {
  /** int32 [B, S] token ids to predict; −100 where there is nothing to predict. */
  labels?: Tensor | null;
}

const FLOAT32_MIN = -3.4028234663852886e38;

function bertConfig(fn: string, config: unknown): BertConfig {
  const c = modelConfig<BertConfig>(fn, config, BERT_SPEC, BERT_DEFAULTS);
  if (c.hiddenSize % c.numAttentionHeads !== 0) {
    throw new Error(`${fn}: hiddenSize (${c.hiddenSize}) must be divisible by numAttentionHeads (${c.numAttentionHeads})`);
  }
  if (c.padTokenId >= c.vocabSize) throw new Error(`${fn}: padTokenId (${c.padTokenId}) must be below vocabSize (${c.vocabSize})`);
  return c;
}

function activation(name: BertConfig['hiddenAct'], x: Tensor): Tensor {
  if (name === 'relu') return x.relu();
  return F.gelu(x, { approximate: name === 'gelu_new' ? 'tanh' : 'none' });
}

class BertEmbeddings extends Module {
  declare word_embeddings: Embedding;
  declare position_embeddings: Embedding;
  declare token_type_embeddings: Embedding;
  declare LayerNorm: LayerNorm;
  declare dropout: Dropout;

  constructor(c: BertConfig) {
    super();
    this.word_embeddings = new Embedding(c.vocabSize, c.hiddenSize, { paddingIdx: c.padTokenId });
    this.position_embeddings = new Embedding(c.maxPositionEmbeddings, c.hiddenSize);
    this.token_type_embeddings = new Embedding(c.typeVocabSize, c.hiddenSize);
    this.LayerNorm = new LayerNorm(c.hiddenSize, { eps: c.layerNormEps });
    this.dropout = new Dropout(c.hiddenDropoutProb);
  }

  forward(inputIds: Tensor, tokenTypeIds: Tensor): Tensor {
    const positions = arange(inputIds.shape[1]!, { device: inputIds.device });
    const e = this.word_embeddings.forward(inputIds).add(this.token_type_embeddings.forward(tokenTypeIds)).add(this.position_embeddings.forward(positions));
    return this.dropout.forward(this.LayerNorm.forward(e));
  }
}

class BertSelfAttention extends Module {
  declare query: Linear;
  declare key: Linear;
  declare value: Linear;
  declare dropout: Dropout;
  declare heads: number;

  constructor(c: BertConfig) {
    super();
    this.query = new Linear(c.hiddenSize, c.hiddenSize);
    this.key = new Linear(c.hiddenSize, c.hiddenSize);
    this.value = new Linear(c.hiddenSize, c.hiddenSize);
    this.dropout = new Dropout(c.attentionProbsDropoutProb);
    this.heads = c.numAttentionHeads;
  }

  /** x [B, S, H], mask [B, 1, 1, S] (additive) → [B, S, H]. */
  forward(x: Tensor, mask: Tensor): Tensor {
    const [B, S, H] = x.shape as [number, number, number];
    const hs = H / this.heads;
    const split = (t: Tensor) => t.view([B, S, this.heads, hs]).transpose(1, 2);  // [B, heads, S, hs]
    const q = split(this.query.forward(x));
    const k = split(this.key.forward(x));
    const v = split(this.value.forward(x));
    const scores = q.matmul(k.transpose(-1, -2)).div(Math.sqrt(hs)).add(mask);
    const probs = this.dropout.forward(scores.softmax(-1));
    return probs.matmul(v).transpose(1, 2).contiguous().view([B, S, H]);
  }
}

/** BertSelfOutput and BertOutput: LayerNorm(dropout(dense(h)) + residual). */
class BertResidualOutput extends Module {
  declare dense: Linear;
  declare LayerNorm: LayerNorm;
  declare dropout: Dropout;

  constructor(c: BertConfig, inFeatures: number) {
    super();
    this.dense = new Linear(inFeatures, c.hiddenSize);
    this.LayerNorm = new LayerNorm(c.hiddenSize, { eps: c.layerNormEps });
    this.dropout = new Dropout(c.hiddenDropoutProb);
  }

  forward(h: Tensor, residual: Tensor): Tensor {
    return this.LayerNorm.forward(this.dropout.forward(this.dense.forward(h)).add(residual));
  }
}

class BertAttention extends Module {
  declare self: BertSelfAttention;
  declare output: BertResidualOutput;

  constructor(c: BertConfig) {
    super();
    this.self = new BertSelfAttention(c);
    this.output = new BertResidualOutput(c, c.hiddenSize);
  }

  forward(x: Tensor, mask: Tensor): Tensor {
    return this.output.forward(this.self.forward(x, mask), x);
  }
}

class BertIntermediate extends Module {
  declare dense: Linear;
  declare act: BertConfig['hiddenAct'];

  constructor(c: BertConfig) {
    super();
    this.dense = new Linear(c.hiddenSize, c.intermediateSize);
    this.act = c.hiddenAct;
  }

  forward(x: Tensor): Tensor {
    return activation(this.act, this.dense.forward(x));
  }
}

class BertLayer extends Module {
  declare attention: BertAttention;
  declare intermediate: BertIntermediate;
  declare output: BertResidualOutput;

  constructor(c: BertConfig) {
    super();
    this.attention = new BertAttention(c);
    this.intermediate = new BertIntermediate(c);
    this.output = new BertResidualOutput(c, c.intermediateSize);
  }

  forward(x: Tensor, mask: Tensor): Tensor {
    const a = this.attention.forward(x, mask);
    return this.output.forward(this.intermediate.forward(a), a);
  }
}

class BertLayers extends Module {
  declare layer: ModuleList;
  /** gradientCheckpointingEnable(): in training, each layer is recomputed in backward (sg.utils.checkpoint). */
  declare gradientCheckpointing: boolean;

  constructor(c: BertConfig) {
    super();
    this.layer = new ModuleList(Array.from({ length: c.numHiddenLayers }, () => new BertLayer(c)));
    this.gradientCheckpointing = false;
  }

  forward(x: Tensor, mask: Tensor): Tensor {
    const checkpointed = this.gradientCheckpointing && this.training;
    // One tidy per layer (forwardBlocks). The mask goes to checkpoint as an argument: the recompute in backward
    // runs after the caller's tidy freed it.
    return forwardBlocks(this.layer, x, (l, h) => (checkpointed ? checkpoint((a: Tensor, m: Tensor) => l.forward(a, m), h, mask) : l.forward(h, mask)));
  }
}

class BertPooler extends Module {
  declare dense: Linear;

  constructor(c: BertConfig) {
    super();
    this.dense = new Linear(c.hiddenSize, c.hiddenSize);
  }

  forward(x: Tensor): Tensor {
    return this.dense.forward(x.select(1, 0)).tanh();
  }
}

/** HF's _init_weights: Linear and Embedding weights N(0, initializerRange), biases 0, the padding row 0. */
function initBert(model: Module, std: number): void {
  for (const m of model.modules()) {
    if (m instanceof Linear) {
      normal_(m.weight, 0, std);
      if (m.bias) zeros_(m.bias);
    } else if (m instanceof Embedding) {
      normal_(m.weight, 0, std);
      const pad = m.paddingIdx;
      if (pad !== null) noGrad(() => tidy(() => void m.weight.narrow(0, pad, 1).fill_(0)));
    }
  }
}

/** A [B, S] integer tensor argument of a BERT forward (or null for the default). */
function idsArg(fn: string, name: string, v: unknown, shape: readonly number[] | null): Tensor | null {
  if (v === undefined || v === null) {
    if (shape === null) throw new Error(`${fn}: expected '${name}' to be an int32 Tensor [B, S], got ${describe(v)}`);
    return null;
  }
  const want = shape === null ? '[B, S]' : `[${shape.join(', ')}]`;
  if (!(v instanceof Tensor) || v.dtype !== 'int32') throw new Error(`${fn}: expected '${name}' to be an int32 Tensor ${want}, got ${describe(v)}`);
  const ok = shape === null ? v.ndim === 2 && v.shape[0]! > 0 && v.shape[1]! > 0 : v.shape.length === 2 && v.shape[0] === shape[0] && v.shape[1] === shape[1];
  if (!ok) throw new Error(`${fn}: expected '${name}' of shape ${want}${shape === null ? ' with B, S ≥ 1' : ' (that of inputIds)'}, got [${v.shape.join(', ')}]`);
  return v;
}

const INPUT_SPEC = {
  attentionMask: { check: (v: unknown) => v === null || v instanceof Tensor, expected: 'a Tensor [B, S] or null' },
  tokenTypeIds: { check: (v: unknown) => v === null || v instanceof Tensor, expected: 'an int32 Tensor [B, S] or null' },
};

/** HF's BertModel: embeddings, encoder.layer.N, pooler (unless addPoolingLayer is false). */
export class BertEncoder extends Module {
  declare config: BertConfig;
  declare embeddings: BertEmbeddings;
  declare encoder: BertLayers;
  declare pooler: BertPooler | null;

  /** HF's gradient_checkpointing_enable(): in train mode each layer keeps only its input and is recomputed in backward. */
  gradientCheckpointingEnable(): void {
    this.encoder.gradientCheckpointing = true;
  }

  gradientCheckpointingDisable(): void {
    this.encoder.gradientCheckpointing = false;
  }

  constructor(config?: Partial<BertConfig>, options?: { addPoolingLayer?: boolean }) {
    super();
    const o = checkOptions<{ addPoolingLayer: boolean }>('BertEncoder', options, { addPoolingLayer: 'boolean' });
    const c = bertConfig('BertEncoder', config);
    this.config = c;
    this.embeddings = new BertEmbeddings(c);
    this.encoder = new BertLayers(c);
    if (o.addPoolingLayer ?? true) this.pooler = new BertPooler(c);
    else this.addModule('pooler', null);
    initBert(this, c.initializerRange);
  }

  /** inputIds: int32 [B, S] (S ≤ maxPositionEmbeddings). */
  forward(inputIds: Tensor, inputs?: BertInputs): BertOutput {
    return this.run('BertEncoder.forward', inputIds, checkOptions<BertInputs>('BertEncoder.forward', inputs, INPUT_SPEC));
  }

  /** @internal forward with checked options and the caller's name in the messages. */
  run(fn: string, inputIds: Tensor, o: BertInputs): BertOutput {
    const ids = idsArg(fn, 'inputIds', inputIds, null)!;
    const [B, S] = ids.shape as [number, number];
    if (S > this.config.maxPositionEmbeddings) {
      throw new Error(`${fn}: 'inputIds' has ${S} positions, maxPositionEmbeddings is only ${this.config.maxPositionEmbeddings}`);
    }
    const types = idsArg(fn, 'tokenTypeIds', o.tokenTypeIds, [B, S]);
    const mask = o.attentionMask ?? null;
    if (mask !== null && (mask.shape.length !== 2 || mask.shape[0] !== B || mask.shape[1] !== S)) {
      throw new Error(`${fn}: expected 'attentionMask' of shape [${B}, ${S}] (that of inputIds), got [${mask.shape.join(', ')}]`);
    }
    return tidy(() => {
      const t = types ?? zeros([B, S], { dtype: 'int32', device: ids.device });
      // HF's get_extended_attention_mask: [B, 1, 1, S], 0 where attended, finfo.min where not.
      const additive = mask === null
        ? zeros([B, 1, 1, S], { device: ids.device })
        : mask.to('float32').neg().add(1).mul(FLOAT32_MIN).view([B, 1, 1, S]);
      const h = this.encoder.forward(this.embeddings.forward(ids, t), additive);
      return { lastHiddenState: h, poolerOutput: this.pooler ? this.pooler.forward(h) : null };
    });
  }

  /** Skips the buffers HF saves (embeddings.position_ids, embeddings.token_type_ids). */
  loadStateDict(stateDict: StateDict | Map<string, Tensor>, options?: { strict?: boolean }): LoadResult {
    const given = withoutKeys(stateDict, () => false);
    return super.loadStateDict((given instanceof Map ? this._checkpointKeys(given) : given) as Map<string, Tensor>, options);
  }

  /** @internal A checkpoint's entries under this module's keys, as loadStateDict takes them (fromPretrained maps its file entries with it). */
  _checkpointKeys<T>(entries: Map<string, T>): Map<string, T> {
    return new Map([...entries].filter(([k]) => !/^embeddings\.(position_ids|token_type_ids)$/.test(k)));
  }
}

class BertPredictionHeadTransform extends Module {
  declare dense: Linear;
  declare LayerNorm: LayerNorm;
  declare act: BertConfig['hiddenAct'];

  constructor(c: BertConfig) {
    super();
    this.dense = new Linear(c.hiddenSize, c.hiddenSize);
    this.act = c.hiddenAct;
    this.LayerNorm = new LayerNorm(c.hiddenSize, { eps: c.layerNormEps });
  }

  forward(x: Tensor): Tensor {
    return this.LayerNorm.forward(activation(this.act, this.dense.forward(x)));
  }
}

class BertLMPredictionHead extends Module {
  declare bias: Parameter;
  declare transform: BertPredictionHeadTransform;
  declare decoder: Linear;

  constructor(c: BertConfig) {
    super();
    this.transform = new BertPredictionHeadTransform(c);
    this.decoder = new Linear(c.hiddenSize, c.vocabSize, { bias: false });
    this.bias = Parameter.empty([c.vocabSize]);
    this.decoder.bias = this.bias;  // HF ties them: one Parameter under two names
  }

  forward(x: Tensor): Tensor {
    return this.decoder.forward(this.transform.forward(x));
  }
}

class BertOnlyMLMHead extends Module {
  declare predictions: BertLMPredictionHead;

  constructor(c: BertConfig) {
    super();
    this.predictions = new BertLMPredictionHead(c);
  }
}

/**
 * HF's BertForMaskedLM: bert (a BertEncoder without pooler) and cls.predictions, whose decoder
 * weight is bert.embeddings.word_embeddings.weight and decoder bias cls.predictions.bias.
 */
export class BertForMaskedLM extends Module {
  declare config: BertConfig;
  declare bert: BertEncoder;
  declare cls: BertOnlyMLMHead;

  /** HF's gradient_checkpointing_enable(): in train mode each layer keeps only its input and is recomputed in backward. */
  gradientCheckpointingEnable(): void {
    this.bert.gradientCheckpointingEnable();
  }

  gradientCheckpointingDisable(): void {
    this.bert.gradientCheckpointingDisable();
  }

  constructor(config?: Partial<BertConfig>) {
    super();
    const c = bertConfig('BertForMaskedLM', config);
    this.config = c;
    this.bert = new BertEncoder(c, { addPoolingLayer: false });
    this.cls = new BertOnlyMLMHead(c);
    initBert(this.cls, c.initializerRange);
    const decoder = this.cls.predictions.decoder;
    const untied = decoder.weight;
    decoder.weight = this.bert.embeddings.word_embeddings.weight;
    untied.dispose();
  }

  /** → { logits [B, S, vocabSize], loss (mean cross-entropy over labels ≠ −100) or null }. */
  forward(inputIds: Tensor, inputs?: BertMaskedLMInputs): { logits: Tensor; loss: Tensor | null } {
    const fn = 'BertForMaskedLM.forward';
    const o = checkOptions<BertMaskedLMInputs>(fn, inputs, {
      ...INPUT_SPEC,
      labels: { check: (v: unknown) => v === null || v instanceof Tensor, expected: 'an int32 Tensor [B, S] or null' },
    });
    const ids = idsArg(fn, 'inputIds', inputIds, null)!;
    const labels = idsArg(fn, 'labels', o.labels, ids.shape);
    return tidy(() => {
      const logits = this.cls.predictions.forward(this.bert.run(fn, ids, o).lastHiddenState);
      if (labels === null) return { logits, loss: null };
      const loss = F.crossEntropy(logits.view([-1, this.config.vocabSize]), labels.view([-1]), { ignoreIndex: -100 });
      return { logits, loss };
    });
  }

  /**
   * Skips the buffers HF saves and fills the tied decoder weight and bias from
   * bert.embeddings.word_embeddings.weight and cls.predictions.bias when the file has one name only.
   */
  loadStateDict(stateDict: StateDict | Map<string, Tensor>, options?: { strict?: boolean }): LoadResult {
    const given = withoutKeys(stateDict, () => false);
    return super.loadStateDict((given instanceof Map ? this._checkpointKeys(given) : given) as Map<string, Tensor>, options);
  }

  /** @internal A checkpoint's entries under this module's keys, as loadStateDict takes them (fromPretrained maps its file entries with it). */
  _checkpointKeys<T>(entries: Map<string, T>): Map<string, T> {
    const given = new Map([...entries].filter(([k]) => !/^bert\.embeddings\.(position_ids|token_type_ids)$/.test(k)));
    const tie = (a: string, b: string) => {
      if (given.has(a) && !given.has(b)) given.set(b, given.get(a)!);
      else if (given.has(b) && !given.has(a)) given.set(a, given.get(b)!);
    };
    tie('bert.embeddings.word_embeddings.weight', 'cls.predictions.decoder.weight');
    tie('cls.predictions.bias', 'cls.predictions.decoder.bias');
    return given;
  }
}
