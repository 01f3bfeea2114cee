// Pooling modules (torch.nn.MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d): the options
// are checked once here with the spec of their functional, then passed to it on every call.
import { F, sizeArg, type AvgPoolOptions, type MaxPoolOptions, type Size } from './functional.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

const nullableSize = {
  check: (v: unknown) => v === null || isInteger(v) || (Array.isArray(v) && v.every(isInteger)),
  expected: 'an integer, an array of integers or null',
};

abstract class MaxPoolNd extends Module {
  declare kernelSize: number | number[];
  declare options: MaxPoolOptions;

  constructor(name: string, kernelSize: Size, options: unknown) {
    super();
    this.kernelSize = sizeArg(name, 'kernelSize', kernelSize);
    const o = checkOptions<MaxPoolOptions>(name, options, {
      stride: nullableSize,
      padding: 'integers',
      dilation: 'integers',
      ceilMode: 'boolean',
      returnIndices: 'boolean',
    });
    this.options = { ...o };
  }

  extraRepr(): string {
    const o = this.options;
    return `kernel_size=${pyRepr(this.kernelSize)}, stride=${pyRepr(o.stride ?? this.kernelSize)}, padding=${pyRepr(o.padding ?? 0)}, dilation=${pyRepr(o.dilation ?? 1)}, ceil_mode=${pyRepr(o.ceilMode ?? false)}`;
  }
}

export class MaxPool1d extends MaxPoolNd {
  constructor(kernelSize: Size, options?: MaxPoolOptions) {
    super('MaxPool1d', kernelSize, options);
  }

  /** The output, or [output, indices] with returnIndices. */
  forward(input: Tensor): Tensor {
    return F.maxPool1d(input, this.kernelSize, this.options);
  }
}

export class MaxPool2d extends MaxPoolNd {
  constructor(kernelSize: Size, options?: MaxPoolOptions) {
    super('MaxPool2d', kernelSize, options);
  }

  forward(input: Tensor): Tensor {
    return F.maxPool2d(input, this.kernelSize, this.options);
  }
}

abstract class AvgPoolNd extends Module {
  declare kernelSize: number | number[];
  declare options: AvgPoolOptions;

  constructor(name: string, kernelSize: Size, options: unknown) {
    super();
    this.kernelSize = sizeArg(name, 'kernelSize', kernelSize);
    const o = checkOptions<AvgPoolOptions>(name, options, {
      stride: nullableSize,
      padding: 'integers',
      ceilMode: 'boolean',
      countIncludePad: 'boolean',
      divisorOverride: { check: (v) => v === null, expected: 'null (divisorOverride is not supported)' },
    });
    this.options = { ...o };
  }

  /** AvgPool1d's sizes print as 1-tuples, (3,), as PyTorch's (it stores them so); AvgPool2d's as given. */
  protected single = false;

  extraRepr(): string {
    const o = this.options;
    const t = (v: number | readonly number[]) => pyRepr(this.single ? [v].flat() : v);
    return `kernel_size=${t(this.kernelSize)}, stride=${t(o.stride ?? this.kernelSize)}, padding=${t(o.padding ?? 0)}`;
  }
}

export class AvgPool1d extends AvgPoolNd {
  constructor(kernelSize: Size, options?: AvgPoolOptions) {
    super('AvgPool1d', kernelSize, options);
    this.single = true;
  }

  forward(input: Tensor): Tensor {
    return F.avgPool1d(input, this.kernelSize, this.options);
  }
}

export class AvgPool2d extends AvgPoolNd {
  constructor(kernelSize: Size, options?: AvgPoolOptions) {
    super('AvgPool2d', kernelSize, options);
  }

  forward(input: Tensor): Tensor {
    return F.avgPool2d(input, this.kernelSize, this.options);
  }
}

/** Averages [N, C, L] down to outputSize positions. */
export class AdaptiveAvgPool1d extends Module {
  declare outputSize: number;

  constructor(outputSize: number) {
    super();
    if (!isInteger(outputSize) || outputSize < 1) throw new Error(`AdaptiveAvgPool1d: expected 'outputSize' to be a positive integer, got ${describe(outputSize)}`);
    this.outputSize = outputSize;
  }

  forward(input: Tensor): Tensor {
    return F.adaptiveAvgPool1d(input, this.outputSize);
  }

  extraRepr(): string {
    return `output_size=${this.outputSize}`;
  }
}

/** Averages [N, C, H, W] down to outputSize ([h, w]; null keeps that input size). */
export class AdaptiveAvgPool2d extends Module {
  declare outputSize: number | (number | null)[];

  constructor(outputSize: number | readonly (number | null)[]) {
    super();
    const ok = isInteger(outputSize) || (Array.isArray(outputSize) && outputSize.length === 2 && outputSize.every((v) => v === null || isInteger(v)));
    if (!ok) throw new Error(`AdaptiveAvgPool2d: expected 'outputSize' to be an integer or [h, w] (integers or null), got ${describe(outputSize)}`);
    this.outputSize = typeof outputSize === 'number' ? outputSize : outputSize.slice();
  }

  forward(input: Tensor): Tensor {
    return F.adaptiveAvgPool2d(input, this.outputSize);
  }

  extraRepr(): string {
    return `output_size=${pyRepr(this.outputSize)}`;
  }
}
