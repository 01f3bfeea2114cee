// Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d (torch.nn.Conv*): weight [out, in/groups, ...kernel]
// (transposed: [in, out/groups, ...kernel]), bias [out], PyTorch's default initialization.
// paddingMode 'reflect' / 'replicate' pads with F.pad first and convolves without padding,
// as PyTorch does; 'circular' is not supported.
import { conv2dReluMaxPool2d, F, type MaxPoolOptions, type Size } from './functional.js';
import { checkOptions, isInteger, type OptionSpec } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';
import { countArg, tupleArg } from './args.js';
import { resetKaiming } from './linear.js';
import { Module, Parameter } from './module.js';
import { pyRepr } from './repr.js';

export type PaddingMode = 'zeros' | 'reflect' | 'replicate';

export interface ConvModuleOptions {
  stride?: number | number[];
  padding?: number | number[] | 'same' | 'valid';
  dilation?: number | number[];
  groups?: number;
  bias?: boolean;
  paddingMode?: PaddingMode;
}

export interface ConvTransposeModuleOptions {
  stride?: number | number[];
  padding?: number | number[];
  outputPadding?: number | number[];
  groups?: number;
  bias?: boolean;
  dilation?: number | number[];
}

const sizeOrMode: OptionSpec = {
  check: (v) => v === 'same' || v === 'valid' || isInteger(v) || (Array.isArray(v) && v.every(isInteger)),
  expected: "an integer, an array of integers, 'same' or 'valid'",
};

/** Conv1d, Conv2d and Conv3d: the same module over 1, 2 or 3 spatial dims. */
abstract class ConvNd extends Module {
  declare inChannels: number;
  declare outChannels: number;
  declare kernelSize: number[];
  declare stride: number[];
  declare padding: number[] | 'same' | 'valid';
  declare dilation: number[];
  declare groups: number;
  declare paddingMode: PaddingMode;
  declare weight: Parameter;
  declare bias: Parameter | null;
  /** F.pad's pads for a non-'zeros' paddingMode (PyTorch's _reversed_padding_repeated_twice). */
  declare reversedPadding: number[];

  constructor(name: string, dims: number, inChannels: number, outChannels: number, kernelSize: number | number[], options: unknown) {
    super();
    const o = checkOptions<ConvModuleOptions>(name, options, {
      stride: 'integers',
      padding: sizeOrMode,
      dilation: 'integers',
      groups: 'positiveInteger',
      bias: 'boolean',
      paddingMode: ['zeros', 'reflect', 'replicate', 'circular'],
    });
    if ((o.paddingMode as string) === 'circular') throw new Error(`${name}: paddingMode 'circular' is not supported (use 'zeros', 'reflect' or 'replicate')`);
    this.inChannels = countArg(name, 'inChannels', inChannels, 1);
    this.outChannels = countArg(name, 'outChannels', outChannels, 1);
    this.kernelSize = tupleArg(name, 'kernelSize', kernelSize, dims, 1);
    this.stride = tupleArg(name, 'stride', o.stride ?? 1, dims, 1);
    this.dilation = tupleArg(name, 'dilation', o.dilation ?? 1, dims, 1);
    this.groups = o.groups ?? 1;
    this.paddingMode = o.paddingMode ?? 'zeros';
    const padding = o.padding ?? 0;
    this.padding = typeof padding === 'string' ? padding : tupleArg(name, 'padding', padding, dims, 0);
    if (this.inChannels % this.groups !== 0) throw new Error(`${name}: inChannels (${this.inChannels}) must be divisible by groups (${this.groups})`);
    if (this.outChannels % this.groups !== 0) throw new Error(`${name}: outChannels (${this.outChannels}) must be divisible by groups (${this.groups})`);
    if (this.padding === 'same' && this.stride.some((s) => s !== 1)) {
      throw new Error(`${name}: padding 'same' is not supported for strided convolutions`);
    }
    // Pads in F.pad order (last dim first), [left, right] per dim.
    const pads: number[] = [];
    for (let i = dims - 1; i >= 0; i--) {
      if (this.padding === 'valid') pads.push(0, 0);
      else if (this.padding === 'same') {
        const total = this.dilation[i]! * (this.kernelSize[i]! - 1);
        const left = Math.floor(total / 2);
        pads.push(left, total - left);
      } else pads.push(this.padding[i]!, this.padding[i]!);
    }
    this.reversedPadding = pads;
    this.weight = Parameter.empty([this.outChannels, this.inChannels / this.groups, ...this.kernelSize]);
    if (o.bias ?? true) this.bias = Parameter.empty([this.outChannels]);
    else this.registerParameter('bias', null);
    this.resetParameters();
  }

  resetParameters(): void {
    resetKaiming(this.weight, this.bias);
  }

  protected conv(fn: 'conv1d' | 'conv2d' | 'conv3d', input: Tensor, activation?: 'relu'): Tensor {
    const opts = { stride: this.stride, dilation: this.dilation, groups: this.groups, ...(activation ? { activation } : {}) };
    const call = F[fn] as (x: Tensor, w: Tensor, b: Tensor | null, o: object) => Tensor;
    if (this.paddingMode === 'zeros') return call(input, this.weight, this.bias, { ...opts, padding: this.padding });
    const padded = F.pad(input, this.reversedPadding, { mode: this.paddingMode });
    try {
      return call(padded, this.weight, this.bias, { ...opts, padding: 0 });
    } finally {
      padded.dispose();
    }
  }

  extraRepr(): string {
    let s = `${this.inChannels}, ${this.outChannels}, kernel_size=${pyRepr(this.kernelSize)}, stride=${pyRepr(this.stride)}`;
    if (typeof this.padding === 'string') s += `, padding=${this.padding}`;
    else if (this.padding.some((p) => p !== 0)) s += `, padding=${pyRepr(this.padding)}`;
    if (this.dilation.some((d) => d !== 1)) s += `, dilation=${pyRepr(this.dilation)}`;
    if (this.groups !== 1) s += `, groups=${this.groups}`;
    if (this.bias === null) s += ', bias=False';
    if (this.paddingMode !== 'zeros') s += `, padding_mode=${this.paddingMode}`;
    return s;
  }
}

/** Input [N, C_in, L] (or [C_in, L]). */
export class Conv1d extends ConvNd {
  constructor(inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvModuleOptions) {
    super('Conv1d', 1, inChannels, outChannels, kernelSize, options);
  }

  forward(input: Tensor): Tensor {
    return this.conv('conv1d', input);
  }
}

/** Input [N, C_in, H, W] (or [C_in, H, W]). */
export class Conv2d extends ConvNd {
  constructor(inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvModuleOptions) {
    super('Conv2d', 2, inChannels, outChannels, kernelSize, options);
  }

  forward(input: Tensor): Tensor {
    return this.conv('conv2d', input);
  }

  /**
   * @internal nn.Sequential's fused Conv2d + ReLU: this layer then F.relu, with ReLU applied
   * as the convolution writes its output (the values and gradients of the two).
   */
  forwardRelu(input: Tensor): Tensor {
    return this.conv('conv2d', input, 'relu');
  }

  /**
   * @internal nn.Sequential's fused Conv2d + ReLU + MaxPool2d (zero padding mode only): the
   * max pool of this layer's ReLU output, pooled as the convolution computes it.
   */
  forwardReluMaxPool(input: Tensor, poolKernel: Size, pool: MaxPoolOptions): Tensor {
    const opts = { stride: this.stride, dilation: this.dilation, groups: this.groups, padding: this.padding };
    return conv2dReluMaxPool2d(input, this.weight, this.bias, opts, poolKernel, pool);
  }
}

/**
 * Input [N, C_in, D, H, W] (or [C_in, D, H, W]); F.conv3d, a composition: one conv2d call over
 * N·D_out images with kD·C_in channels (nn/conv3d.ts).
 */
export class Conv3d extends ConvNd {
  constructor(inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvModuleOptions) {
    super('Conv3d', 3, inChannels, outChannels, kernelSize, options);
  }

  forward(input: Tensor): Tensor {
    return this.conv('conv3d', input);
  }
}

/** ConvTranspose1d, ConvTranspose2d and ConvTranspose3d: the same module over 1, 2 or 3 spatial dims. */
abstract class ConvTransposeNd extends Module {
  declare inChannels: number;
  declare outChannels: number;
  declare kernelSize: number[];
  declare stride: number[];
  declare padding: number[];
  declare outputPadding: number[];
  declare dilation: number[];
  declare groups: number;
  declare weight: Parameter;
  declare bias: Parameter | null;

  declare dims: number;

  constructor(name: string, dims: number, inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvTransposeModuleOptions) {
    super();
    this.dims = dims;
    const o = checkOptions<ConvTransposeModuleOptions>(name, options, {
      stride: 'integers',
      padding: 'integers',
      outputPadding: 'integers',
      groups: 'positiveInteger',
      bias: 'boolean',
      dilation: 'integers',
    });
    this.inChannels = countArg(name, 'inChannels', inChannels, 1);
    this.outChannels = countArg(name, 'outChannels', outChannels, 1);
    this.kernelSize = tupleArg(name, 'kernelSize', kernelSize, dims, 1);
    this.stride = tupleArg(name, 'stride', o.stride ?? 1, dims, 1);
    this.padding = tupleArg(name, 'padding', o.padding ?? 0, dims, 0);
    this.outputPadding = tupleArg(name, 'outputPadding', o.outputPadding ?? 0, dims, 0);
    this.dilation = tupleArg(name, 'dilation', o.dilation ?? 1, dims, 1);
    this.groups = o.groups ?? 1;
    if (this.inChannels % this.groups !== 0) throw new Error(`${name}: inChannels (${this.inChannels}) must be divisible by groups (${this.groups})`);
    if (this.outChannels % this.groups !== 0) throw new Error(`${name}: outChannels (${this.outChannels}) must be divisible by groups (${this.groups})`);
    this.weight = Parameter.empty([this.inChannels, this.outChannels / this.groups, ...this.kernelSize]);
    if (o.bias ?? true) this.bias = Parameter.empty([this.outChannels]);
    else this.registerParameter('bias', null);
    this.resetParameters();
  }

  resetParameters(): void {
    // fan_in of a transposed weight is size(1)·kH·kW = out/groups·kH·kW, as in PyTorch.
    resetKaiming(this.weight, this.bias);
  }

  forward(input: Tensor): Tensor {
    return (this.dims === 1 ? F.convTranspose1d : this.dims === 2 ? F.convTranspose2d : F.convTranspose3d)(input, this.weight, this.bias, {
      stride: this.stride,
      padding: this.padding,
      outputPadding: this.outputPadding,
      groups: this.groups,
      dilation: this.dilation,
    });
  }

  extraRepr(): string {
    let s = `${this.inChannels}, ${this.outChannels}, kernel_size=${pyRepr(this.kernelSize)}, stride=${pyRepr(this.stride)}`;
    if (this.padding.some((p) => p !== 0)) s += `, padding=${pyRepr(this.padding)}`;
    if (this.outputPadding.some((p) => p !== 0)) s += `, output_padding=${pyRepr(this.outputPadding)}`;
    if (this.dilation.some((d) => d !== 1)) s += `, dilation=${pyRepr(this.dilation)}`;
    if (this.groups !== 1) s += `, groups=${this.groups}`;
    if (this.bias === null) s += ', bias=False';
    return s;
  }
}

export class ConvTranspose1d extends ConvTransposeNd {
  constructor(inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvTransposeModuleOptions) {
    super('ConvTranspose1d', 1, inChannels, outChannels, kernelSize, options);
  }
}

export class ConvTranspose2d extends ConvTransposeNd {
  constructor(inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvTransposeModuleOptions) {
    super('ConvTranspose2d', 2, inChannels, outChannels, kernelSize, options);
  }
}

/** Input [N, C_in, D, H, W] (or [C_in, D, H, W]); F.convTranspose3d, a composition (nn/conv3d.ts). */
export class ConvTranspose3d extends ConvTransposeNd {
  constructor(inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvTransposeModuleOptions) {
    super('ConvTranspose3d', 3, inChannels, outChannels, kernelSize, options);
  }
}
