// More layers of torch.nn, as compositions after torch/nn/functional.py 1.13: channel dropout
// for 1-D and 3-D inputs (dropout1d, dropout3d: dropout2d over a reshaped input, so each channel
// keeps or loses all of its values), alpha dropout (alphaDropout, featureAlphaDropout: SELU's
// mean and variance kept), localResponseNorm, power-average pooling (lpPool1d, lpPool2d) and
// channelShuffle, with their modules.
import { avgPool1d, avgPool2d, dropout2d } from './functional_layers.js';
import { full } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { samplingOps } from '../tensor/sampling.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { countArg, inPlace, probabilityArg, positionalOrOptions, tupleArg } from './args.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

const shape = (t: Tensor) => `[${t.shape.join(', ')}]`;

function dropoutOptions(fn: string, options: unknown, trainingDefault = true): { p: number; training: boolean; inplace: boolean } {
  const o = checkOptions<{ p: number; training: boolean; inplace: boolean }>(fn, options, { p: 'numberOrInfinity', training: 'boolean', inplace: 'boolean' });
  return { p: probabilityArg(fn, o.p ?? 0.5), training: o.training ?? trainingDefault, inplace: o.inplace ?? false };
}

/** Zeroes whole channels of [N, C, L] (or [C, L]) with probability p, scaling the rest by 1/(1 − p). */
export function dropout1d(input: Tensor, options?: { p?: number; training?: boolean }): Tensor {
  const o = dropoutOptions('dropout1d', options);
  if (!(input instanceof Tensor) || (input.ndim !== 2 && input.ndim !== 3)) throw new Error(`dropout1d: expected an input [N, C, L] or [C, L], got ${describe(input)}`);
  return inPlace(o.inplace, input, tidy(() => ops.squeeze(dropout2d(ops.unsqueeze(input, -1), { p: o.p, training: o.training }), -1)));
}

/** Zeroes whole channels of [N, C, D, H, W] (or [C, D, H, W]). */
export function dropout3d(input: Tensor, options?: { p?: number; training?: boolean }): Tensor {
  const o = dropoutOptions('dropout3d', options);
  if (!(input instanceof Tensor) || (input.ndim !== 4 && input.ndim !== 5)) throw new Error(`dropout3d: expected an input [N, C, D, H, W] or [C, D, H, W], got ${describe(input)}`);
  return inPlace(o.inplace, input, tidy(() => ops.reshape(dropout2d(ops.flatten(input, -2), { p: o.p, training: o.training }), input.shape)));
}

/**
 * Alpha dropout (for SELU networks): dropped values become SELU's negative saturation α′ and an
 * affine map a·x + b keeps zero mean and unit variance. `feature`: per channel (dims after
 * [N, C] share the mask), as featureAlphaDropout.
 */
function alphaDropoutOf(fn: string, input: Tensor, options: unknown, feature: boolean): Tensor {
  // training = false by default, as PyTorch 1.13's F.alpha_dropout and F.feature_alpha_dropout
  // (F.dropout and dropout1d/2d/3d default to true).
  const o = dropoutOptions(fn, options, false);
  return inPlace(o.inplace, input, alphaDropoutValues(fn, input, o, feature));
}

function alphaDropoutValues(fn: string, input: Tensor, o: { p: number; training: boolean }, feature: boolean): Tensor {
  if (!(input instanceof Tensor) || input.dtype !== 'float32') throw new Error(`${fn}: expected a float32 Tensor, got ${describe(input)}`);
  if (!o.training || o.p === 0) return ops.clone(input);
  if (o.p === 1) return ops.mul(input, 0);
  if (feature && input.ndim < 2) throw new Error(`${fn}: expected an input with a channel dim [N, C, ...], got ${shape(input)}`);
  const alphaPrime = -1.7580993408473766;  // −λ·α of SELU
  const a = 1 / Math.sqrt((1 - o.p) * (1 + o.p * alphaPrime * alphaPrime));
  const b = -a * alphaPrime * o.p;
  return tidy(() => {
    const maskShape = feature ? input.shape.map((n, i) => (i < 2 ? n : 1)) : input.shape;
    const keep = samplingOps.bernoulli(full(maskShape, 1 - o.p, { device: input.device }));
    const kept = ops.add(ops.mul(input, keep), ops.mul(ops.sub(1, keep), alphaPrime));
    return ops.add(ops.mul(kept, a), b);
  });
}

/** Alpha dropout; `training` is false unless given (PyTorch's default for this function). */
export function alphaDropout(input: Tensor, options?: { p?: number; training?: boolean }): Tensor {
  return alphaDropoutOf('alphaDropout', input, options, false);
}

/** Feature alpha dropout; `training` is false unless given (PyTorch's default for this function). */
export function featureAlphaDropout(input: Tensor, options?: { p?: number; training?: boolean }): Tensor {
  return alphaDropoutOf('featureAlphaDropout', input, options, true);
}

export interface LocalResponseNormOptions {
  /** default 1e-4 */
  alpha?: number;
  /** default 0.75 */
  beta?: number;
  /** default 1 */
  k?: number;
}

/** x / (k + α·mean of x² over `size` neighbouring channels)^β (channels zero-padded), as AlexNet's. */
/** PyTorch's defaults of localResponseNorm's options. */
const LRN = { alpha: 1e-4, beta: 0.75, k: 1 };

export function localResponseNorm(input: Tensor, size: number, options?: LocalResponseNormOptions): Tensor {
  const fn = 'localResponseNorm';
  const o = checkOptions<LocalResponseNormOptions>(fn, options, { alpha: 'number', beta: 'number', k: 'number' });
  if (!(input instanceof Tensor) || input.ndim < 3) throw new Error(`${fn}: expected an input [N, C, ...] with at least 3 dims, got ${describe(input)}`);
  const n = countArg(fn, 'size', size, 1);
  return tidy(() => {
    // PyTorch's: the mean over a channel window of n (zeros past the edges: n/2 before, (n−1)/2 after).
    const c = input.shape[1]!;
    const sq = ops.mul(input, input);
    const pads = new Array<number>(2 * (input.ndim - 2)).fill(0).concat([Math.floor(n / 2), Math.floor((n - 1) / 2)]);
    const padded = functionOps.pad(sq, pads);
    let sum = ops.narrow(padded, 1, 0, c);
    for (let i = 1; i < n; i++) sum = ops.add(sum, ops.narrow(padded, 1, i, c));
    const div = ops.pow(ops.add(ops.mul(ops.div(sum, n), o.alpha ?? LRN.alpha), o.k ?? LRN.k), o.beta ?? LRN.beta);
    return ops.div(input, div);
  });
}

export interface LpPoolOptions {
  /** default: kernelSize */
  stride?: number | number[] | null;
  ceilMode?: boolean;
}

/** lpPool's arguments checked (also by the LPPool modules' constructors, so that a bad option fails where it is given). */
function lpPoolArgs(fn: string, dims: 1 | 2, normType: unknown, kernelSize: unknown, options: unknown) {
  const o = checkOptions<LpPoolOptions>(fn, options, {
    stride: { check: (v) => v === null || isInteger(v) || (Array.isArray(v) && v.every(isInteger)), expected: 'an integer, an array of integers or null' },
    ceilMode: 'boolean',
  });
  if (typeof normType !== 'number' || !(normType > 0)) throw new Error(`${fn}: expected 'normType' to be a number > 0, got ${describe(normType)}`);
  return { o, k: tupleArg(fn, 'kernelSize', kernelSize as number | number[], dims, 1) };
}

/** (Σ over each window of x^p)^(1/p), PyTorch's formula through avgPool (sign(s)·relu(|s|)·k, then the root). */
function lpPool(fn: string, dims: 1 | 2, input: Tensor, normType: number, kernelSize: number | number[], options: unknown): Tensor {
  const { o, k } = lpPoolArgs(fn, dims, normType, kernelSize, options);
  return tidy(() => {
    const pool = dims === 1 ? avgPool1d : avgPool2d;
    const mean = pool(ops.pow(input, normType), dims === 1 ? k[0]! : k, { stride: o.stride ?? undefined, ceilMode: o.ceilMode });
    const sum = ops.mul(ops.mul(ops.sign(mean), ops.relu(ops.abs(mean))), k.reduce((a, b) => a * b, 1));
    return ops.pow(sum, 1 / normType);
  });
}

export function lpPool1d(input: Tensor, normType: number, kernelSize: number, options?: LpPoolOptions): Tensor {
  return lpPool('lpPool1d', 1, input, normType, kernelSize, options);
}

export function lpPool2d(input: Tensor, normType: number, kernelSize: number | number[], options?: LpPoolOptions): Tensor {
  return lpPool('lpPool2d', 2, input, normType, kernelSize, options);
}

/** The channels of [N, C, ...] in `groups` groups, interleaved: [g0c0, g1c0, …, g0c1, …] (ShuffleNet). */
export function channelShuffle(input: Tensor, groups: number): Tensor {
  if (!(input instanceof Tensor) || input.ndim < 3) throw new Error(`channelShuffle: expected an input [N, C, ...] with at least 3 dims, got ${describe(input)}`);
  const g = countArg('channelShuffle', 'groups', groups, 1);
  const [n, c] = input.shape as [number, number];
  if (c % g !== 0) throw new Error(`channelShuffle: expected the channels (${c}) to be divisible by groups (${g})`);
  return tidy(() => {
    const rest = input.shape.slice(2);
    return ops.reshape(ops.transpose(ops.reshape(input, [n, g, c / g, ...rest]), 1, 2), input.shape);
  });
}

/** A dropout module over one of the functions above (active in train mode). */
function dropoutModule(name: string, fn: (x: Tensor, o: { p: number; training: boolean }) => Tensor) {
  const cls = class extends Module {
    declare p: number;
    declare inplace: boolean;

    constructor(p?: number | { p?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
      super();
      const o = positionalOrOptions<{ p: number; inplace: boolean }>(name, [p, options], ['p'], { p: 'numberOrInfinity', inplace: 'boolean' });
      this.p = probabilityArg(name, o.p ?? 0.5);
      this.inplace = o.inplace ?? false;
    }

    forward(input: Tensor): Tensor {
      return inPlace(this.inplace, input, fn(input, { p: this.p, training: this.training }));
    }

    extraRepr(): string {
      return `p=${pyRepr(this.p)}, inplace=${pyRepr(this.inplace)}`;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const Dropout1d = dropoutModule('Dropout1d', dropout1d);
export const Dropout3d = dropoutModule('Dropout3d', dropout3d);
export const AlphaDropout = dropoutModule('AlphaDropout', alphaDropout);
export const FeatureAlphaDropout = dropoutModule('FeatureAlphaDropout', featureAlphaDropout);

export class LocalResponseNorm extends Module {
  declare size: number;
  declare options: LocalResponseNormOptions;

  constructor(size: number, options?: LocalResponseNormOptions) {
    super();
    this.size = countArg('LocalResponseNorm', 'size', size, 1);
    this.options = { ...checkOptions<LocalResponseNormOptions>('LocalResponseNorm', options, { alpha: 'number', beta: 'number', k: 'number' }) };
  }

  forward(input: Tensor): Tensor {
    return localResponseNorm(input, this.size, this.options);
  }

  extraRepr(): string {
    const o = this.options;
    return `${this.size}, alpha=${pyRepr(o.alpha ?? LRN.alpha)}, beta=${pyRepr(o.beta ?? LRN.beta)}, k=${pyRepr(o.k ?? LRN.k)}`;
  }
}

function lpPoolModule(name: string, dims: 1 | 2, fn: (x: Tensor, p: number, k: never, o: LpPoolOptions) => Tensor) {
  const cls = class extends Module {
    declare normType: number;
    declare kernelSize: number | number[];
    declare options: LpPoolOptions;

    constructor(normType: number, kernelSize: number | number[], options?: LpPoolOptions) {
      super();
      lpPoolArgs(name, dims, normType, kernelSize, options);
      this.normType = normType;
      this.kernelSize = kernelSize;
      this.options = { ...options };
    }

    forward(input: Tensor): Tensor {
      return fn(input, this.normType, this.kernelSize as never, this.options);
    }

    extraRepr(): string {
      const o = this.options;
      return `norm_type=${pyRepr(this.normType)}, kernel_size=${pyRepr(this.kernelSize)}, stride=${pyRepr(o.stride)}, ceil_mode=${pyRepr(o.ceilMode ?? false)}`;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const LPPool1d = lpPoolModule('LPPool1d', 1, lpPool1d);
export const LPPool2d = lpPoolModule('LPPool2d', 2, lpPool2d);

export class ChannelShuffle extends Module {
  declare groups: number;

  constructor(groups: number) {
    super();
    this.groups = countArg('ChannelShuffle', 'groups', groups, 1);
  }

  forward(input: Tensor): Tensor {
    return channelShuffle(input, this.groups);
  }

  extraRepr(): string {
    return `groups=${this.groups}`;
  }
}
