// Activation modules (torch.nn.ReLU & co.): each forwards to its sg.F function. PyTorch's
// positional first argument or an options object are both accepted: LeakyReLU(0.2) and
// LeakyReLU({ negativeSlope: 0.2 }). With `inplace: true` the result is written into the input,
// which forward returns (PyTorch's in-place activations; args.ts inPlace).
import { F } from './functional.js';
import { checkOptions, describe, intArg } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';
import { keywordArgs, type KwArgs } from '../tensor/keywords.js';
import { countArg, inPlace, positionalOrOptions } from './args.js';
import { constant_ } from './init.js';
import { Module, Parameter } from './module.js';
import { pyRepr } from './repr.js';

type InplaceOptions = { inplace?: boolean };

/** `inplace=True` in PyTorch's repr. */
const inplaceRepr = (inplace: boolean, rest = ''): string => (inplace ? (rest ? `${rest}, inplace=True` : 'inplace=True') : rest);

/** A parameterless activation: forward applies fn; the constructor takes inplace (a flag or { inplace }). */
function simple(name: string, fn: (x: Tensor) => Tensor) {
  const cls = class extends Module {
    declare inplace: boolean;

    constructor(options?: boolean | InplaceOptions) {
      super();
      this.inplace = typeof options === 'boolean' ? options : checkOptions<InplaceOptions>(name, options, { inplace: 'boolean' }).inplace ?? false;
    }

    forward(input: Tensor): Tensor {
      return inPlace(this.inplace, input, fn(input));
    }

    extraRepr(): string {
      return inplaceRepr(this.inplace);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const ReLU = simple('ReLU', F.relu);
export const ReLU6 = simple('ReLU6', F.relu6);
export const SELU = simple('SELU', F.selu);
export const Sigmoid = simple('Sigmoid', F.sigmoid);
export const Tanh = simple('Tanh', F.tanh);
export const SiLU = simple('SiLU', F.silu);
export const Mish = simple('Mish', F.mish);
export const Hardsigmoid = simple('Hardsigmoid', F.hardsigmoid);
export const Hardswish = simple('Hardswish', F.hardswish);
export const LogSigmoid = simple('LogSigmoid', F.logsigmoid);
export const Softsign = simple('Softsign', F.softsign);
export const Tanhshrink = simple('Tanhshrink', F.tanhshrink);
export const Softmax2d = simple('Softmax2d', F.softmax2d);

/** Hardshrink and Softshrink: one threshold lambd (default 0.5). */
function shrink(name: string, fn: (x: Tensor, lambd: number) => Tensor) {
  const cls = class extends Module {
    declare lambd: number;

    constructor(lambd?: number | { lambd?: number }) {
      super();
      const o = positionalOrOptions<{ lambd: number }>(name, [lambd], ['lambd'], { lambd: 'number' });
      this.lambd = o.lambd ?? 0.5;
      if (!(this.lambd >= 0)) throw new Error(`${name}: expected 'lambd' to be a number >= 0, got ${this.lambd}`);
    }

    forward(input: Tensor): Tensor {
      return fn(input, this.lambd);
    }

    extraRepr(): string {
      return `${pyRepr(this.lambd)}`;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const Hardshrink = shrink('Hardshrink', F.hardshrink);
export const Softshrink = shrink('Softshrink', F.softshrink);

export class CELU extends Module {
  declare alpha: number;
  declare inplace: boolean;

  constructor(alpha?: number | { alpha?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
    super();
    const o = positionalOrOptions<{ alpha: number; inplace: boolean }>('CELU', [alpha, options], ['alpha'], { alpha: 'number', inplace: 'boolean' });
    this.alpha = o.alpha ?? 1;
    this.inplace = o.inplace ?? false;
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.celu(input, this.alpha));
  }

  extraRepr(): string {
    return inplaceRepr(this.inplace, `alpha=${pyRepr(this.alpha)}`);
  }
}

/** value where x ≤ threshold, x elsewhere. */
export class Threshold extends Module {
  declare threshold: number;
  declare value: number;
  declare inplace: boolean;

  constructor(threshold: number, value: number, options?: boolean | InplaceOptions) {
    super();
    this.inplace = typeof options === 'boolean' ? options : checkOptions<InplaceOptions>('Threshold', options, { inplace: 'boolean' }).inplace ?? false;
    // Both required, as PyTorch's.
    if (typeof threshold !== 'number') throw new Error(`Threshold: expected 'threshold' to be a number, got ${describe(threshold)}`);
    if (typeof value !== 'number') throw new Error(`Threshold: expected 'value' to be a number, got ${describe(value)}`);
    this.threshold = threshold;
    this.value = value;
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.threshold(input, this.threshold, this.value));
  }

  extraRepr(): string {
    return inplaceRepr(this.inplace, `threshold=${pyRepr(this.threshold)}, value=${pyRepr(this.value)}`);
  }
}

/** Randomized leaky ReLU: random slopes in [lower, upper] while training, their mean in eval(). */
export class RReLU extends Module {
  declare lower: number;
  declare upper: number;
  declare inplace: boolean;

  constructor(lower?: number | { lower?: number; upper?: number; inplace?: boolean }, upper?: number | { upper?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
    super();
    const o = positionalOrOptions<{ lower: number; upper: number; inplace: boolean }>('RReLU', [lower, upper, options], ['lower', 'upper'], { lower: 'number', upper: 'number', inplace: 'boolean' });
    this.inplace = o.inplace ?? false;
    this.lower = o.lower ?? 1 / 8;
    this.upper = o.upper ?? 1 / 3;
    if (!(this.lower <= this.upper)) throw new Error(`RReLU: expected lower <= upper, got lower ${this.lower} and upper ${this.upper}`);
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.rrelu(input, { lower: this.lower, upper: this.upper, training: this.training }));
  }

  extraRepr(): string {
    return inplaceRepr(this.inplace, `lower=${pyRepr(this.lower)}, upper=${pyRepr(this.upper)}`);
  }
}

export class LeakyReLU extends Module {
  declare negativeSlope: number;
  declare inplace: boolean;

  constructor(negativeSlope?: number | { negativeSlope?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
    super();
    const o = positionalOrOptions<{ negativeSlope: number; inplace: boolean }>('LeakyReLU', [negativeSlope, options], ['negativeSlope'], { negativeSlope: 'number', inplace: 'boolean' });
    this.negativeSlope = o.negativeSlope ?? 0.01;
    this.inplace = o.inplace ?? false;
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.leakyRelu(input, this.negativeSlope));
  }

  extraRepr(): string {
    return inplaceRepr(this.inplace, `negative_slope=${pyRepr(this.negativeSlope)}`);
  }
}

export class ELU extends Module {
  declare alpha: number;
  declare inplace: boolean;

  constructor(alpha?: number | { alpha?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
    super();
    const o = positionalOrOptions<{ alpha: number; inplace: boolean }>('ELU', [alpha, options], ['alpha'], { alpha: 'number', inplace: 'boolean' });
    this.alpha = o.alpha ?? 1;
    this.inplace = o.inplace ?? false;
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.elu(input, this.alpha));
  }

  extraRepr(): string {
    return inplaceRepr(this.inplace, `alpha=${pyRepr(this.alpha)}`);
  }
}

export class GELU extends Module {
  declare approximate: 'none' | 'tanh';

  constructor(approximate?: 'none' | 'tanh' | { approximate?: 'none' | 'tanh' }) {
    super();
    const o = positionalOrOptions<{ approximate: 'none' | 'tanh' }>('GELU', [approximate], ['approximate'], { approximate: ['none', 'tanh'] });
    this.approximate = o.approximate ?? 'none';
  }

  forward(input: Tensor): Tensor {
    return F.gelu(input, { approximate: this.approximate });
  }

  extraRepr(): string {
    return `approximate='${this.approximate}'`;
  }
}

export class Softplus extends Module {
  declare beta: number;
  declare threshold: number;

  constructor(beta?: number | { beta?: number; threshold?: number }, threshold?: number | { threshold?: number }) {
    super();
    const o = positionalOrOptions<{ beta: number; threshold: number }>('Softplus', [beta, threshold], ['beta', 'threshold'], { beta: 'number', threshold: 'number' });
    this.beta = o.beta ?? 1;
    this.threshold = o.threshold ?? 20;
  }

  forward(input: Tensor): Tensor {
    return F.softplus(input, { beta: this.beta, threshold: this.threshold });
  }

  extraRepr(): string {
    return `beta=${pyRepr(this.beta)}, threshold=${pyRepr(this.threshold)}`;
  }
}

export class Hardtanh extends Module {
  declare minVal: number;
  declare maxVal: number;
  declare inplace: boolean;

  constructor(minVal?: number | { minVal?: number; maxVal?: number; inplace?: boolean }, maxVal?: number | { maxVal?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
    super();
    const o = positionalOrOptions<{ minVal: number; maxVal: number; inplace: boolean }>('Hardtanh', [minVal, maxVal, options], ['minVal', 'maxVal'], { minVal: 'number', maxVal: 'number', inplace: 'boolean' });
    this.inplace = o.inplace ?? false;
    this.minVal = o.minVal ?? -1;
    this.maxVal = o.maxVal ?? 1;
    if (!(this.maxVal > this.minVal)) throw new Error(`Hardtanh: expected maxVal > minVal, got ${this.minVal} and ${this.maxVal}`);
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.hardtanh(input, { minVal: this.minVal, maxVal: this.maxVal }));
  }

  extraRepr(): string {
    return inplaceRepr(this.inplace, `min_val=${pyRepr(this.minVal)}, max_val=${pyRepr(this.maxVal)}`);
  }
}

/** max(0, x) + weight·min(0, x); weight [numParameters] (1, or one per channel) filled with init. */
export class PReLU extends Module {
  declare numParameters: number;
  declare weight: Parameter;

  constructor(numParameters?: number | { numParameters?: number; init?: number }, init?: number | { init?: number }) {
    super();
    const o = positionalOrOptions<{ numParameters: number; init: number }>('PReLU', [numParameters, init], ['numParameters', 'init'], {
      numParameters: 'positiveInteger',
      init: 'number',
    });
    this.numParameters = countArg('PReLU', 'numParameters', o.numParameters ?? 1, 1);
    this.weight = constant_(Parameter.empty([this.numParameters]), o.init ?? 0.25) as Parameter;
  }

  forward(input: Tensor): Tensor {
    return F.prelu(input, this.weight);
  }

  extraRepr(): string {
    return `num_parameters=${this.numParameters}`;
  }
}

/** Softmax, LogSoftmax, Softmin over `dim` (required: PyTorch's implicit choice is deprecated). */
function overDim(name: string, fn: (x: Tensor, dim: number) => Tensor) {
  const cls = class extends Module {
    declare dim: number;

    constructor(dim: number | { dim: number }) {
      super();
      const o = positionalOrOptions<{ dim: number }>(name, [dim], ['dim'], { dim: 'integer' });
      if (o.dim === undefined) throw new Error(`${name}: expected 'dim' (the dimension to normalize over)`);
      this.dim = o.dim;
    }

    forward(input: Tensor): Tensor {
      return fn(input, this.dim);
    }

    extraRepr(): string {
      return `dim=${this.dim}`;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const Softmax = overDim('Softmax', F.softmax);
export const LogSoftmax = overDim('LogSoftmax', F.logSoftmax);
export const Softmin = overDim('Softmin', F.softmin);

/** Gated linear unit over `dim` (default -1). */
export class GLU extends Module {
  declare dim: number;

  constructor(...args: KwArgs<[], [dim: number], { dim?: number }>) {
    super();
    const [dim = -1] = keywordArgs('GLU', ['dim'], args);
    this.dim = intArg('GLU', 'dim', dim);
  }

  forward(input: Tensor): Tensor {
    return F.glu(input, this.dim);
  }

  extraRepr(): string {
    return `dim=${this.dim}`;
  }
}
