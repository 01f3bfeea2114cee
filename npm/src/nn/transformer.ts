// Transformer layers (torch.nn.TransformerEncoderLayer, TransformerDecoderLayer,
// TransformerEncoder, TransformerDecoder, and the Transformer wrapping an encoder and a decoder)
// with PyTorch's submodule names (self_attn,
// multihead_attn, linear1, dropout, linear2, norm1..3, dropout1..3; layers.0, layers.1, ...),
// and the sinusoidal PositionalEncoding of the PyTorch tutorial (buffer 'pe').
import { causalMask, F } from './functional.js';
import { tensor } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { countArg, probabilityArg } from './args.js';
import { maskTensor, MultiheadAttention, type MaskLike } from './attention.js';
import { ModuleList } from './container.js';
import { Dropout } from './dropout.js';
import { xavierUniform_ } from './init.js';
import { Linear } from './linear.js';
import { Module } from './module.js';
import { LayerNorm } from './norm.js';

export type Activation = 'relu' | 'gelu' | ((x: Tensor) => Tensor) | Module;

export interface TransformerLayerOptions {
  dimFeedforward?: number;
  dropout?: number;
  activation?: Activation;
  layerNormEps?: number;
  batchFirst?: boolean;
  normFirst?: boolean;
}

const layerSpec = {
  dimFeedforward: 'positiveInteger',
  dropout: 'number',
  activation: {
    check: (v: unknown) => v === 'relu' || v === 'gelu' || typeof v === 'function',
    expected: "'relu', 'gelu', a function or a sg.nn.Module",
  },
  layerNormEps: 'number',
  batchFirst: 'boolean',
  normFirst: 'boolean',
} as const;

/** The [L, L] float mask that lets position i attend to positions ≤ i (−∞ above the diagonal). */
export function generateSquareSubsequentMask(size: number): Tensor {
  if (!isInteger(size) || size < 0) throw new Error(`generateSquareSubsequentMask: expected a non-negative integer, got ${describe(size)}`);
  return causalMask(size, size);
}

/** The parts shared by the encoder and decoder layers. */
function commonParts(name: string, dModel: number, nhead: number, options: unknown) {
  const o = checkOptions<TransformerLayerOptions>(name, options, layerSpec);
  countArg(name, 'dModel', dModel, 1);
  countArg(name, 'nhead', nhead, 1);
  const dropout = probabilityArg(name, o.dropout ?? 0.1);
  const act = o.activation ?? 'relu';
  const activation = act === 'relu' ? F.relu : act === 'gelu' ? F.gelu : act;
  return {
    dropout,
    activation,
    dimFeedforward: o.dimFeedforward ?? 2048,
    eps: o.layerNormEps ?? 1e-5,
    batchFirst: o.batchFirst ?? false,
    normFirst: o.normFirst ?? false,
  };
}

function applyActivation(a: Activation, x: Tensor): Tensor {
  return a instanceof Module ? a.forward(x) : (a as (x: Tensor) => Tensor)(x);
}

/** Seq dim of an input: 1 with batchFirst on a batched input, else 0. */
function seqLen(x: Tensor, batchFirst: boolean): number {
  return x.shape[batchFirst && x.ndim === 3 ? 1 : 0]!;
}

export interface EncoderLayerForwardOptions {
  srcMask?: MaskLike;
  srcKeyPaddingMask?: MaskLike;
  /** Applies the causal mask when srcMask is absent. */
  isCausal?: boolean;
}

const maskSpec = {
  check: (v: unknown) => v === null || v instanceof Tensor || Array.isArray(v),
  expected: 'a bool or float Tensor, an array, or null',
};

/** (src, options) or PyTorch's positional (src, srcMask?, srcKeyPaddingMask?). */
function encoderArgs(fn: string, a: unknown, b: unknown): EncoderLayerForwardOptions {
  if (isOptionsObject(a)) {
    if (b !== undefined) throw new Error(`${fn}: expected (src, options?) or (src, srcMask?, srcKeyPaddingMask?)`);
    return checkOptions<EncoderLayerForwardOptions>(fn, a, { srcMask: maskSpec, srcKeyPaddingMask: maskSpec, isCausal: 'boolean' });
  }
  return checkOptions<EncoderLayerForwardOptions>(fn, { srcMask: a, srcKeyPaddingMask: b }, { srcMask: maskSpec, srcKeyPaddingMask: maskSpec });
}

export class TransformerEncoderLayer extends Module {
  declare self_attn: MultiheadAttention;
  declare linear1: Linear;
  declare dropout: Dropout;
  declare linear2: Linear;
  declare norm_first: boolean;
  declare norm1: LayerNorm;
  declare norm2: LayerNorm;
  declare dropout1: Dropout;
  declare dropout2: Dropout;
  declare activation: Activation;
  declare batchFirst: boolean;

  constructor(dModel: number, nhead: number, options?: TransformerLayerOptions) {
    super();
    const c = commonParts('TransformerEncoderLayer', dModel, nhead, options);
    this.self_attn = new MultiheadAttention(dModel, nhead, { dropout: c.dropout, batchFirst: c.batchFirst });
    this.linear1 = new Linear(dModel, c.dimFeedforward);
    this.dropout = new Dropout(c.dropout);
    this.linear2 = new Linear(c.dimFeedforward, dModel);
    this.norm_first = c.normFirst;
    this.norm1 = new LayerNorm(dModel, { eps: c.eps });
    this.norm2 = new LayerNorm(dModel, { eps: c.eps });
    this.dropout1 = new Dropout(c.dropout);
    this.dropout2 = new Dropout(c.dropout);
    this.activation = c.activation;
    this.batchFirst = c.batchFirst;
  }

  /** src [S, N, E] (batchFirst [N, S, E]; unbatched [S, E]). */
  forward(src: Tensor, srcMask?: MaskLike | EncoderLayerForwardOptions, srcKeyPaddingMask?: MaskLike): Tensor {
    const o = encoderArgs('TransformerEncoderLayer', srcMask, srcKeyPaddingMask);
    if (!(src instanceof Tensor)) throw new Error(`TransformerEncoderLayer: expected 'src' to be a Tensor, got ${describe(src)}`);
    return tidy(() => {
      let mask = maskTensor(o.srcMask);
      if (!mask && o.isCausal) mask = generateSquareSubsequentMask(seqLen(src, this.batchFirst));
      const kpm = maskTensor(o.srcKeyPaddingMask);
      const sa = (x: Tensor) => this.dropout1.forward(this.self_attn.forward(x, x, x, { attnMask: mask, keyPaddingMask: kpm, needWeights: false })[0]);
      const ff = (x: Tensor) => this.dropout2.forward(this.linear2.forward(this.dropout.forward(applyActivation(this.activation, this.linear1.forward(x)))));
      let x = src;
      if (this.norm_first) {
        x = x.add(sa(this.norm1.forward(x)));
        x = x.add(ff(this.norm2.forward(x)));
      } else {
        x = this.norm1.forward(x.add(sa(x)));
        x = this.norm2.forward(x.add(ff(x)));
      }
      return x;
    });
  }
}

export interface DecoderLayerForwardOptions {
  tgtMask?: MaskLike;
  memoryMask?: MaskLike;
  tgtKeyPaddingMask?: MaskLike;
  memoryKeyPaddingMask?: MaskLike;
  /** Applies the causal mask to the self-attention when tgtMask is absent. */
  tgtIsCausal?: boolean;
}

const decoderSpec = {
  tgtMask: maskSpec,
  memoryMask: maskSpec,
  tgtKeyPaddingMask: maskSpec,
  memoryKeyPaddingMask: maskSpec,
  tgtIsCausal: 'boolean',
} as const;

/** (tgt, memory, options) or PyTorch's positional (tgt, memory, tgtMask?, memoryMask?, tgtKeyPaddingMask?, memoryKeyPaddingMask?). */
function decoderArgs(fn: string, rest: unknown[]): DecoderLayerForwardOptions {
  if (rest.length > 0 && isOptionsObject(rest[0])) {
    if (rest.length > 1) throw new Error(`${fn}: expected (tgt, memory, options?) or positional masks`);
    return checkOptions<DecoderLayerForwardOptions>(fn, rest[0], decoderSpec);
  }
  const [tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask] = rest;
  return checkOptions<DecoderLayerForwardOptions>(fn, { tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask }, decoderSpec);
}

export class TransformerDecoderLayer extends Module {
  declare self_attn: MultiheadAttention;
  declare multihead_attn: MultiheadAttention;
  declare linear1: Linear;
  declare dropout: Dropout;
  declare linear2: Linear;
  declare norm_first: boolean;
  declare norm1: LayerNorm;
  declare norm2: LayerNorm;
  declare norm3: LayerNorm;
  declare dropout1: Dropout;
  declare dropout2: Dropout;
  declare dropout3: Dropout;
  declare activation: Activation;
  declare batchFirst: boolean;

  constructor(dModel: number, nhead: number, options?: TransformerLayerOptions) {
    super();
    const c = commonParts('TransformerDecoderLayer', dModel, nhead, options);
    this.self_attn = new MultiheadAttention(dModel, nhead, { dropout: c.dropout, batchFirst: c.batchFirst });
    this.multihead_attn = new MultiheadAttention(dModel, nhead, { dropout: c.dropout, batchFirst: c.batchFirst });
    this.linear1 = new Linear(dModel, c.dimFeedforward);
    this.dropout = new Dropout(c.dropout);
    this.linear2 = new Linear(c.dimFeedforward, dModel);
    this.norm_first = c.normFirst;
    this.norm1 = new LayerNorm(dModel, { eps: c.eps });
    this.norm2 = new LayerNorm(dModel, { eps: c.eps });
    this.norm3 = new LayerNorm(dModel, { eps: c.eps });
    this.dropout1 = new Dropout(c.dropout);
    this.dropout2 = new Dropout(c.dropout);
    this.dropout3 = new Dropout(c.dropout);
    this.activation = c.activation;
    this.batchFirst = c.batchFirst;
  }

  /** tgt [T, N, E], memory [S, N, E] (batchFirst: batch first). */
  forward(tgt: Tensor, memory: Tensor, ...rest: (MaskLike | DecoderLayerForwardOptions | undefined)[]): Tensor {
    const o = decoderArgs('TransformerDecoderLayer', rest);
    for (const [n, t] of [['tgt', tgt], ['memory', memory]] as const) {
      if (!(t instanceof Tensor)) throw new Error(`TransformerDecoderLayer: expected '${n}' to be a Tensor, got ${describe(t)}`);
    }
    return tidy(() => {
      let tgtMask = maskTensor(o.tgtMask);
      if (!tgtMask && o.tgtIsCausal) tgtMask = generateSquareSubsequentMask(seqLen(tgt, this.batchFirst));
      const memMask = maskTensor(o.memoryMask);
      const tgtKpm = maskTensor(o.tgtKeyPaddingMask);
      const memKpm = maskTensor(o.memoryKeyPaddingMask);
      const sa = (x: Tensor) =>
        this.dropout1.forward(this.self_attn.forward(x, x, x, { attnMask: tgtMask, keyPaddingMask: tgtKpm, needWeights: false })[0]);
      const mha = (x: Tensor) =>
        this.dropout2.forward(this.multihead_attn.forward(x, memory, memory, { attnMask: memMask, keyPaddingMask: memKpm, needWeights: false })[0]);
      const ff = (x: Tensor) => this.dropout3.forward(this.linear2.forward(this.dropout.forward(applyActivation(this.activation, this.linear1.forward(x)))));
      let x = tgt;
      if (this.norm_first) {
        x = x.add(sa(this.norm1.forward(x)));
        x = x.add(mha(this.norm2.forward(x)));
        x = x.add(ff(this.norm3.forward(x)));
      } else {
        x = this.norm1.forward(x.add(sa(x)));
        x = this.norm2.forward(x.add(mha(x)));
        x = this.norm3.forward(x.add(ff(x)));
      }
      return x;
    });
  }
}

/** (layer, numLayers, norm?) or (layer, numLayers, { norm }). */
function stackArgs(fn: string, layer: unknown, numLayers: unknown, norm: unknown): [Module, number, Module | null] {
  if (!(layer instanceof Module)) throw new Error(`${fn}: expected a layer module, got ${describe(layer)}`);
  const n = countArg(fn, 'numLayers', numLayers, 0);
  let nm: unknown = norm;
  if (isOptionsObject(norm)) {
    nm = checkOptions<{ norm: Module | null; enableNestedTensor: boolean }>(fn, norm, {
      norm: { check: (v) => v === null || v instanceof Module, expected: 'a sg.nn.Module or null' },
      enableNestedTensor: 'boolean',
    }).norm;
  }
  if (nm !== undefined && nm !== null && !(nm instanceof Module)) throw new Error(`${fn}: expected 'norm' to be a sg.nn.Module or null, got ${describe(nm)}`);
  return [layer, n, (nm as Module | null | undefined) ?? null];
}

/**
 * numLayers deep copies of encoderLayer (layers.0, layers.1, ...) and an optional final norm.
 * As in PyTorch the given layer itself is not part of the stack (dispose it if unused).
 */
export class TransformerEncoder extends Module {
  declare layers: ModuleList;
  declare numLayers: number;
  declare norm: Module | null;

  constructor(encoderLayer: TransformerEncoderLayer, numLayers: number, norm?: Module | null | { norm?: Module | null; enableNestedTensor?: boolean }) {
    super();
    const [layer, n, nm] = stackArgs('TransformerEncoder', encoderLayer, numLayers, norm);
    this.layers = new ModuleList(Array.from({ length: n }, () => layer.deepCopy()));
    this.numLayers = n;
    this.norm = nm;
  }

  forward(src: Tensor, mask?: MaskLike | { mask?: MaskLike; srcKeyPaddingMask?: MaskLike; isCausal?: boolean }, srcKeyPaddingMask?: MaskLike): Tensor {
    let o: { mask?: MaskLike; srcKeyPaddingMask?: MaskLike; isCausal?: boolean };
    if (isOptionsObject(mask)) {
      // As the layers: a positional mask after an options object would be ignored.
      if (srcKeyPaddingMask !== undefined) throw new Error('TransformerEncoder: expected (src, options?) or (src, mask?, srcKeyPaddingMask?)');
      o = checkOptions('TransformerEncoder', mask, { mask: maskSpec, srcKeyPaddingMask: maskSpec, isCausal: 'boolean' });
    } else o = { mask: mask as MaskLike, srcKeyPaddingMask };
    return tidy(() => {
      const srcMask = maskTensor(o.mask);
      const kpm = maskTensor(o.srcKeyPaddingMask);
      let x = src;
      for (const layer of this.layers) x = layer.forward(x, { srcMask, srcKeyPaddingMask: kpm, isCausal: o.isCausal });
      if (this.norm) x = this.norm.forward(x);
      return x;
    });
  }
}

/** numLayers deep copies of decoderLayer and an optional final norm. */
export class TransformerDecoder extends Module {
  declare layers: ModuleList;
  declare numLayers: number;
  declare norm: Module | null;

  constructor(decoderLayer: TransformerDecoderLayer, numLayers: number, norm?: Module | null | { norm?: Module | null }) {
    super();
    const [layer, n, nm] = stackArgs('TransformerDecoder', decoderLayer, numLayers, norm);
    this.layers = new ModuleList(Array.from({ length: n }, () => layer.deepCopy()));
    this.numLayers = n;
    this.norm = nm;
  }

  forward(tgt: Tensor, memory: Tensor, ...rest: (MaskLike | DecoderLayerForwardOptions | undefined)[]): Tensor {
    const o = decoderArgs('TransformerDecoder', rest);
    return tidy(() => {
      const opts: DecoderLayerForwardOptions = {
        tgtMask: maskTensor(o.tgtMask),
        memoryMask: maskTensor(o.memoryMask),
        tgtKeyPaddingMask: maskTensor(o.tgtKeyPaddingMask),
        memoryKeyPaddingMask: maskTensor(o.memoryKeyPaddingMask),
        tgtIsCausal: o.tgtIsCausal,
      };
      let x = tgt;
      for (const layer of this.layers) x = layer.forward(x, memory, opts);
      if (this.norm) x = this.norm.forward(x);
      return x;
    });
  }
}

/**
 * x + pe[:L] then dropout, with pe[pos, 0, 2i] = sin(pos / 10000^(2i/d)) and
 * pe[pos, 0, 2i+1] = cos(...) (buffer 'pe' [maxLen, 1, dModel], as the PyTorch tutorial).
 * Input [L, N, dModel], or [N, L, dModel] with batchFirst.
 */
export class PositionalEncoding extends Module {
  declare dropout: Dropout;
  declare pe: Tensor;
  declare batchFirst: boolean;

  constructor(dModel: number, options?: { maxLen?: number; dropout?: number; batchFirst?: boolean }) {
    super();
    const o = checkOptions<{ maxLen: number; dropout: number; batchFirst: boolean }>('PositionalEncoding', options, {
      maxLen: 'positiveInteger',
      dropout: 'number',
      batchFirst: 'boolean',
    });
    const d = countArg('PositionalEncoding', 'dModel', dModel, 1);
    const maxLen = o.maxLen ?? 5000;
    this.dropout = new Dropout(probabilityArg('PositionalEncoding', o.dropout ?? 0.1));
    this.batchFirst = o.batchFirst ?? false;
    // float32 arithmetic step by step, as torch computes it.
    const f = Math.fround;
    const k = f(-Math.log(10000) / d);
    const pe = new Float32Array(maxLen * d);
    for (let i = 0; i < d; i += 2) {
      const div = f(Math.exp(f(i * k)));
      for (let pos = 0; pos < maxLen; pos++) {
        const arg = f(pos * div);
        pe[pos * d + i] = Math.sin(arg);
        if (i + 1 < d) pe[pos * d + i + 1] = Math.cos(arg);
      }
    }
    this.registerBuffer('pe', tensor(pe, { shape: [maxLen, 1, d] }));
  }

  forward(x: Tensor): Tensor {
    if (!(x instanceof Tensor) || x.ndim !== 3) throw new Error(`PositionalEncoding: expected a 3-D Tensor, got ${describe(x)}`);
    const L = x.shape[this.batchFirst ? 1 : 0]!;
    if (L > this.pe.shape[0]!) throw new Error(`PositionalEncoding: sequence length ${L} exceeds maxLen ${this.pe.shape[0]}`);
    return tidy(() => {
      let p = this.pe.narrow(0, 0, L);
      if (this.batchFirst) p = p.transpose(0, 1);
      return this.dropout.forward(x.add(p));
    });
  }
}

export interface TransformerOptions {
  dModel?: number;
  nhead?: number;
  numEncoderLayers?: number;
  numDecoderLayers?: number;
  dimFeedforward?: number;
  dropout?: number;
  activation?: Activation;
  /** A module used as the encoder instead of the stack of encoder layers (forward(src, { mask, srcKeyPaddingMask })). */
  customEncoder?: Module | null;
  /** A module used as the decoder (forward(tgt, memory, { tgtMask, memoryMask, ... })). */
  customDecoder?: Module | null;
  layerNormEps?: number;
  batchFirst?: boolean;
  normFirst?: boolean;
}

export interface TransformerForwardOptions {
  srcMask?: MaskLike;
  tgtMask?: MaskLike;
  memoryMask?: MaskLike;
  srcKeyPaddingMask?: MaskLike;
  tgtKeyPaddingMask?: MaskLike;
  memoryKeyPaddingMask?: MaskLike;
}

const transformerMasks = ['srcMask', 'tgtMask', 'memoryMask', 'srcKeyPaddingMask', 'tgtKeyPaddingMask', 'memoryKeyPaddingMask'] as const;

/**
 * torch.nn.Transformer: an encoder (numEncoderLayers encoder layers and a final LayerNorm) and
 * a decoder (numDecoderLayers decoder layers and a final LayerNorm), with PyTorch's submodule
 * names (encoder.layers.0..., encoder.norm, decoder.layers.0..., decoder.norm) and its
 * initialisation (xavierUniform_ of every parameter with more than one dim).
 */
export class Transformer extends Module {
  declare encoder: Module;
  declare decoder: Module;
  declare dModel: number;
  declare nhead: number;
  declare batchFirst: boolean;

  constructor(options?: TransformerOptions) {
    super();
    const fn = 'Transformer';
    const moduleSpec = { check: (v: unknown) => v === null || v instanceof Module, expected: 'a sg.nn.Module or null' };
    const o = checkOptions<TransformerOptions>(fn, options, {
      ...layerSpec,
      dModel: 'positiveInteger',
      nhead: 'positiveInteger',
      numEncoderLayers: 'integer',
      numDecoderLayers: 'integer',
      customEncoder: moduleSpec,
      customDecoder: moduleSpec,
    });
    const dModel = o.dModel ?? 512;
    const nhead = o.nhead ?? 8;
    const layerOptions: TransformerLayerOptions = {
      dimFeedforward: o.dimFeedforward ?? 2048,
      dropout: o.dropout ?? 0.1,
      activation: o.activation ?? 'relu',
      layerNormEps: o.layerNormEps ?? 1e-5,
      batchFirst: o.batchFirst ?? false,
      normFirst: o.normFirst ?? false,
    };
    const eps = layerOptions.layerNormEps!;
    if (o.customEncoder) this.encoder = o.customEncoder;
    else {
      const layer = new TransformerEncoderLayer(dModel, nhead, layerOptions);
      this.encoder = new TransformerEncoder(layer, countArg(fn, 'numEncoderLayers', o.numEncoderLayers ?? 6), new LayerNorm(dModel, { eps }));
      layer.dispose(); // the stack holds copies
    }
    if (o.customDecoder) this.decoder = o.customDecoder;
    else {
      const layer = new TransformerDecoderLayer(dModel, nhead, layerOptions);
      this.decoder = new TransformerDecoder(layer, countArg(fn, 'numDecoderLayers', o.numDecoderLayers ?? 6), new LayerNorm(dModel, { eps }));
      layer.dispose();
    }
    for (const p of this.parameters()) if (p.ndim > 1) xavierUniform_(p);
    this.dModel = dModel;
    this.nhead = nhead;
    this.batchFirst = layerOptions.batchFirst!;
  }

  /**
   * src [S, N, E] and tgt [T, N, E] (batchFirst: [N, S, E], [N, T, E]; unbatched: no N) →
   * [T, N, E]. Masks as an options object, or PyTorch's positional (srcMask, tgtMask, memoryMask,
   * srcKeyPaddingMask, tgtKeyPaddingMask, memoryKeyPaddingMask).
   */
  forward(src: Tensor, tgt: Tensor, ...rest: (MaskLike | TransformerForwardOptions | undefined)[]): Tensor {
    const fn = 'Transformer';
    let o: TransformerForwardOptions;
    if (rest.length > 0 && isOptionsObject(rest[0])) {
      if (rest.length > 1) throw new Error(`${fn}: expected (src, tgt, options?) or positional masks`);
      o = checkOptions<TransformerForwardOptions>(fn, rest[0], Object.fromEntries(transformerMasks.map((k) => [k, maskSpec])));
    } else {
      if (rest.length > transformerMasks.length) throw new Error(`${fn}: expected at most ${transformerMasks.length} masks after src and tgt, got ${rest.length}`);
      o = checkOptions<TransformerForwardOptions>(fn, Object.fromEntries(transformerMasks.map((k, i) => [k, rest[i]])), Object.fromEntries(transformerMasks.map((k) => [k, maskSpec])));
    }
    for (const [n, t] of [['src', src], ['tgt', tgt]] as const) {
      if (!(t instanceof Tensor) || t.isDisposed) throw new Error(`${fn}: expected '${n}' to be a Tensor, got ${describe(t)}`);
    }
    const batched = src.ndim === 3;
    const b = this.batchFirst ? 0 : 1;
    if (batched && src.shape[b] !== tgt.shape[b]) throw new Error(`${fn}: the batch number of src and tgt must be equal, got src [${src.shape.join(', ')}] and tgt [${tgt.shape.join(', ')}]`);
    if (src.shape[src.ndim - 1] !== this.dModel || tgt.shape[tgt.ndim - 1] !== this.dModel) {
      throw new Error(`${fn}: the feature number of src and tgt must be equal to dModel (${this.dModel}), got src [${src.shape.join(', ')}] and tgt [${tgt.shape.join(', ')}]`);
    }
    return tidy(() => {
      const memory = this.encoder.forward(src, { mask: o.srcMask, srcKeyPaddingMask: o.srcKeyPaddingMask });
      return this.decoder.forward(tgt, memory, {
        tgtMask: o.tgtMask,
        memoryMask: o.memoryMask,
        tgtKeyPaddingMask: o.tgtKeyPaddingMask,
        memoryKeyPaddingMask: o.memoryKeyPaddingMask,
      });
    });
  }

  /** The [size, size] causal mask (−∞ above the diagonal), as Transformer.generate_square_subsequent_mask. */
  static generateSquareSubsequentMask(size: number): Tensor {
    return generateSquareSubsequentMask(size);
  }
}
