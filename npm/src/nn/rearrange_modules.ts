// Parameter-free modules over F functions: CosineSimilarity, PairwiseDistance, PixelShuffle,
// PixelUnshuffle, and PyTorch's padding modules (ZeroPad2d, ConstantPad1d/2d, ReflectionPad1d/2d,
// ReplicationPad1d/2d) over F.pad. Padding sizes as PyTorch: one number for every side, or the
// list F.pad takes (last dim first).
import {
  cosineSimilarity,
  cosineSimilarityOptions,
  pairwiseDistance,
  pairwiseDistanceOptions,
  pixelShuffle,
  pixelUnshuffle,
  type CosineSimilarityOptions,
  type PairwiseDistanceOptions,
} from './distance_pixel_shuffle.js';
import { functionOps } from '../tensor/ops.js';
import { describe, intArg, isInteger } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

export class CosineSimilarity extends Module {
  declare options: CosineSimilarityOptions;
  constructor(options: CosineSimilarityOptions = {}) {
    super();
    this.options = { ...cosineSimilarityOptions('CosineSimilarity', options) };
  }
  forward(x1: Tensor, x2: Tensor): Tensor {
    return cosineSimilarity(x1, x2, this.options);
  }
}

export class PairwiseDistance extends Module {
  declare options: PairwiseDistanceOptions;
  constructor(options: PairwiseDistanceOptions = {}) {
    super();
    this.options = { ...pairwiseDistanceOptions('PairwiseDistance', options) };
  }
  forward(x1: Tensor, x2: Tensor): Tensor {
    return pairwiseDistance(x1, x2, this.options);
  }
}

export class PixelShuffle extends Module {
  declare upscaleFactor: number;
  constructor(upscaleFactor: number) {
    super();
    this.upscaleFactor = intArg('PixelShuffle', 'upscaleFactor', upscaleFactor);
  }
  forward(input: Tensor): Tensor {
    return pixelShuffle(input, this.upscaleFactor);
  }
  extraRepr(): string {
    return `upscale_factor=${this.upscaleFactor}`;
  }
}

export class PixelUnshuffle extends Module {
  declare downscaleFactor: number;
  constructor(downscaleFactor: number) {
    super();
    this.downscaleFactor = intArg('PixelUnshuffle', 'downscaleFactor', downscaleFactor);
  }
  forward(input: Tensor): Tensor {
    return pixelUnshuffle(input, this.downscaleFactor);
  }
  extraRepr(): string {
    return `downscale_factor=${this.downscaleFactor}`;
  }
}

type PadMode = 'constant' | 'reflect' | 'replicate';

/** A padding module over `sides` trailing dims: F.pad with a fixed mode (and value). */
class Pad extends Module {
  declare padding: number[];
  declare mode: PadMode;
  declare value: number;
  constructor(name: string, sides: number, padding: number | readonly number[], mode: PadMode, value = 0) {
    super();
    const n = 2 * sides;
    if (isInteger(padding) && padding >= 0) this.padding = new Array<number>(n).fill(padding);
    else if (Array.isArray(padding) && padding.length === n && padding.every(isInteger)) this.padding = padding.slice();
    else throw new Error(`${name}: expected 'padding' to be an integer >= 0 or ${n} integers, got ${describe(padding)}`);
    if (typeof value !== 'number') throw new Error(`${name}: expected 'value' to be a number, got ${describe(value)}`);
    this.mode = mode;
    this.value = value;
  }
  forward(input: Tensor): Tensor {
    return functionOps.pad(input, this.padding, this.mode === 'constant' ? { value: this.value } : { mode: this.mode });
  }
  /** As PyTorch 1.13: ConstantPad*d 'padding=(...), value=v', the others the padding alone. */
  extraRepr(): string {
    return this.mode === 'constant' ? `padding=${pyRepr(this.padding)}, value=${pyRepr(this.value)}` : pyRepr(this.padding);
  }
}

/** A padding module class: padding over `sides` dims with a fixed mode (constant: a value given second). */
function padModule(name: string, sides: number, mode: PadMode) {
  const cls = class extends Pad {
    constructor(padding: number | readonly number[], value?: number) {
      super(name, sides, padding, mode, mode === 'constant' ? value : 0);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

/** ZeroPad2d: constant 0 (its constructor takes no value). */
export class ZeroPad2d extends Pad {
  constructor(padding: number | readonly number[]) {
    super('ZeroPad2d', 2, padding, 'constant', 0);
  }

  extraRepr(): string {
    return pyRepr(this.padding);
  }
}
export const ConstantPad1d = padModule('ConstantPad1d', 1, 'constant');
export const ConstantPad2d = padModule('ConstantPad2d', 2, 'constant');
export const ConstantPad3d = padModule('ConstantPad3d', 3, 'constant');
export const ReflectionPad1d = padModule('ReflectionPad1d', 1, 'reflect');
export const ReflectionPad2d = padModule('ReflectionPad2d', 2, 'reflect');
export const ReflectionPad3d = padModule('ReflectionPad3d', 3, 'reflect');
export const ReplicationPad1d = padModule('ReplicationPad1d', 1, 'replicate');
export const ReplicationPad2d = padModule('ReplicationPad2d', 2, 'replicate');
export const ReplicationPad3d = padModule('ReplicationPad3d', 3, 'replicate');
