// Linear, Bilinear, Identity, Flatten, Unflatten (torch.nn.Linear & co.), with PyTorch's
// parameter names and default initialization.
import { F } from './functional.js';
import { checkOptions, describe, intArg, isInteger } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';
import { keywordArgs, type KwArgs } from '../tensor/keywords.js';
import { countArg } from './args.js';
import { calculateFanInAndFanOut, kaimingUniform_, uniform_ } from './init.js';
import { Module, Parameter } from './module.js';

/** PyTorch's Linear/Conv reset_parameters: weight kaiming_uniform_(a = √5), bias U(±1/√fanIn). */
export function resetKaiming(weight: Parameter, bias: Parameter | null): void {
  kaimingUniform_(weight, { a: Math.sqrt(5) });
  if (bias !== null) {
    const [fanIn] = calculateFanInAndFanOut(weight);
    const bound = fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0;
    uniform_(bias, -bound, bound);
  }
}

/** y = x·Wᵀ + b; weight [out, in], bias [out]. */
export class Linear extends Module {
  declare weight: Parameter;
  declare bias: Parameter | null;
  declare inFeatures: number;
  declare outFeatures: number;

  constructor(inFeatures: number, outFeatures: number, options?: { bias?: boolean }) {
    super();
    const o = checkOptions<{ bias: boolean }>('Linear', options, { bias: 'boolean' });
    this.inFeatures = countArg('Linear', 'inFeatures', inFeatures);
    this.outFeatures = countArg('Linear', 'outFeatures', outFeatures);
    this.weight = Parameter.empty([this.outFeatures, this.inFeatures]);
    if (o.bias ?? true) this.bias = Parameter.empty([this.outFeatures]);
    else this.registerParameter('bias', null);
    this.resetParameters();
  }

  resetParameters(): void {
    resetKaiming(this.weight, this.bias);
  }

  forward(input: Tensor): Tensor {
    return F.linear(input, this.weight, this.bias);
  }

  extraRepr(): string {
    return `in_features=${this.inFeatures}, out_features=${this.outFeatures}, bias=${this.bias !== null ? 'True' : 'False'}`;
  }
}

/**
 * @internal A bias-free Linear over an existing weight [out, in] (a head tied to an embedding), with no weight of its
 * own made first: while a checkpoint is loaded, a tied head's own weight would be a transient copy of the embedding.
 */
export function tiedLinear(weight: Parameter): Linear {
  const l = new Linear(0, 0, { bias: false }); // a 0-element weight: no storage, no random draw
  const own = l.weight;
  l.weight = weight;
  own.dispose();
  l.outFeatures = weight.shape[0]!;
  l.inFeatures = weight.shape[1]!;
  return l;
}

/** y = x1ᵀ·A·x2 + b; weight [out, in1, in2], bias [out]. */
export class Bilinear extends Module {
  declare weight: Parameter;
  declare bias: Parameter | null;
  declare in1Features: number;
  declare in2Features: number;
  declare outFeatures: number;

  constructor(in1Features: number, in2Features: number, outFeatures: number, options?: { bias?: boolean }) {
    super();
    const o = checkOptions<{ bias: boolean }>('Bilinear', options, { bias: 'boolean' });
    this.in1Features = countArg('Bilinear', 'in1Features', in1Features);
    this.in2Features = countArg('Bilinear', 'in2Features', in2Features);
    this.outFeatures = countArg('Bilinear', 'outFeatures', outFeatures);
    this.weight = Parameter.empty([this.outFeatures, this.in1Features, this.in2Features]);
    if (o.bias ?? true) this.bias = Parameter.empty([this.outFeatures]);
    else this.registerParameter('bias', null);
    this.resetParameters();
  }

  resetParameters(): void {
    // PyTorch: both U(±1/√in1).
    const bound = this.in1Features > 0 ? 1 / Math.sqrt(this.in1Features) : 0;
    uniform_(this.weight, -bound, bound);
    if (this.bias !== null) uniform_(this.bias, -bound, bound);
  }

  forward(input1: Tensor, input2: Tensor): Tensor {
    return F.bilinear(input1, input2, this.weight, this.bias);
  }

  extraRepr(): string {
    return `in1_features=${this.in1Features}, in2_features=${this.in2Features}, out_features=${this.outFeatures}, bias=${this.bias !== null ? 'True' : 'False'}`;
  }
}

/** Returns its input (the arguments are ignored, as PyTorch's). */
export class Identity extends Module {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  constructor(..._args: unknown[]) {
    super();
  }

  forward(input: Tensor): Tensor {
    return input;
  }
}

/** Flattens dims startDim..endDim (default 1..-1: everything but the batch dim). */
export class Flatten extends Module {
  declare startDim: number;
  declare endDim: number;

  constructor(...args: KwArgs<[], [startDim: number, endDim: number], { startDim?: number; endDim?: number }>) {
    super();
    const [startDim = 1, endDim = -1] = keywordArgs('Flatten', ['startDim', 'endDim'], args);
    this.startDim = intArg('Flatten', 'startDim', startDim);
    this.endDim = intArg('Flatten', 'endDim', endDim);
  }

  forward(input: Tensor): Tensor {
    return input.flatten(this.startDim, this.endDim);
  }

  extraRepr(): string {
    return `start_dim=${this.startDim}, end_dim=${this.endDim}`;
  }
}

/** Expands dim `dim` into `sizes` (one may be -1). */
export class Unflatten extends Module {
  declare dim: number;
  declare unflattenedSize: number[];

  constructor(dim: number, unflattenedSize: readonly number[]) {
    super();
    this.dim = intArg('Unflatten', 'dim', dim);
    if (!Array.isArray(unflattenedSize) || !unflattenedSize.every(isInteger)) {
      throw new Error(`Unflatten: expected 'unflattenedSize' to be an array of integers, got ${describe(unflattenedSize)}`);
    }
    if (unflattenedSize.some((v) => v < -1) || unflattenedSize.filter((v) => v === -1).length > 1) {
      throw new Error(`Unflatten: expected 'unflattenedSize' to hold sizes >= 0 and at most one -1, got [${unflattenedSize.join(', ')}]`);
    }
    this.unflattenedSize = unflattenedSize.slice();
  }

  forward(input: Tensor): Tensor {
    const s = input.shape;
    const d = this.dim < 0 ? this.dim + s.length : this.dim;
    if (d < 0 || d >= s.length) throw new Error(`Unflatten: dim ${this.dim} is out of range for a ${s.length}-D input`);
    // With a -1 the others must divide the dim (PyTorch's check), so reshape never sees a bad shape.
    const inferred = this.unflattenedSize.includes(-1);
    const product = this.unflattenedSize.reduce((a, b) => (b === -1 ? a : a * b), 1);
    if (inferred ? product === 0 || s[d] % product !== 0 : product !== s[d]) {
      const what = inferred ? `with one -1, the others multiply to ${product}, which does not divide` : `multiply to ${product}, expected`;
      throw new Error(
        `Unflatten: sizes [${this.unflattenedSize.join(', ')}] ${what} the size of dim ${d} of the input (${s[d]}, input shape [${s.join(', ')}])`,
      );
    }
    return input.reshape([...s.slice(0, d), ...this.unflattenedSize, ...s.slice(d + 1)]);
  }

  extraRepr(): string {
    return `dim=${this.dim}, unflattened_size=(${this.unflattenedSize.join(', ')})`;
  }
}
