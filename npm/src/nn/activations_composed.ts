// More activations of torch.nn.functional, as compositions of ops following ATen 1.13's kernels
// (Activation.cpp): hardshrink, softshrink, tanhshrink, celu, threshold, rrelu, softmax2d.
// Their modules are in activation_modules.ts.
import { checkOperands, tensorArg, type TensorLike } from '../tensor/call.js';
import { rand } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { keywords, type KwArgs } from '../tensor/keywords.js';
import { pointwiseOps } from '../tensor/pointwise.js';
import { checkOptions, describe } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';

const where = functionOps.where;

function lambdArg(fn: string, v: unknown): number {
  if (v === undefined) return 0.5;
  if (typeof v !== 'number' || !(v >= 0)) throw new Error(`${fn}: expected 'lambd' to be a number >= 0, got ${describe(v)}`);
  return v;
}

/** Whether x lies in [−lambd, lambd] (false for NaN). */
const inBand = (x: TensorLike, lambd: number) => pointwiseOps.logicalAnd(ops.ge(x, -lambd), ops.le(x, lambd));

/** 0 on [−lambd, lambd], x elsewhere (NaN stays NaN). */
export const hardshrink = keywords('hardshrink', ['lambd'], (input: TensorLike, lambd?: number): Tensor => {
  const l = lambdArg('hardshrink', lambd);
  return tidy(() => where(inBand(input, l), 0, input));
}) as (input: TensorLike, ...args: KwArgs<[], [lambd: number], { lambd?: number }>) => Tensor;

/** x − lambd above lambd, x + lambd below −lambd, 0 between. */
export const softshrink = keywords('softshrink', ['lambd'], (input: TensorLike, lambd?: number): Tensor => {
  const l = lambdArg('softshrink', lambd);
  return tidy(() => where(ops.gt(input, l), ops.sub(input, l), where(ops.lt(input, -l), ops.add(input, l), 0)));
}) as (input: TensorLike, ...args: KwArgs<[], [lambd: number], { lambd?: number }>) => Tensor;

/** x − tanh(x). */
export function tanhshrink(input: TensorLike): Tensor {
  checkOperands('tanhshrink', ['input', input]);
  return tidy(() => ops.sub(input, ops.tanh(input)));
}

/** x above 0, alpha·(exp(x/alpha) − 1) at or below (ATen: exp(x·(1/alpha)) − 1, times alpha). */
export const celu = keywords('celu', ['alpha'], (input: TensorLike, alpha: unknown = 1): Tensor => {
  checkOperands('celu', ['input', input]);
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha === 0) {
    throw new Error(`celu: expected 'alpha' to be a finite nonzero number, got ${describe(alpha)}`);
  }
  return tidy(() => where(ops.le(input, 0), ops.mul(ops.sub(ops.exp(ops.mul(input, 1 / alpha)), 1), alpha), input));
}) as (input: TensorLike, ...args: KwArgs<[], [alpha: number], { alpha?: number }>) => Tensor;

/** value where x ≤ threshold, x elsewhere. */
export const threshold = keywords('threshold', ['threshold', 'value'], (input: TensorLike, thresholdValue: number, value: number): Tensor => {
  for (const [name, v] of [['threshold', thresholdValue], ['value', value]] as const) {
    if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`threshold: expected '${name}' to be a number, got ${describe(v)}`);
  }
  return tidy(() => where(ops.le(input, thresholdValue), value, input));
}) as (input: TensorLike, ...args: KwArgs<[threshold: number, value: number], [], { threshold?: number; value?: number }>) => Tensor;

export interface RreluOptions {
  /** The smallest negative slope (default 1/8). */
  lower?: number;
  /** The largest negative slope (default 1/3). */
  upper?: number;
  /** Random slopes (true) or their mean (false, the default). */
  training?: boolean;
}

/**
 * Randomized leaky ReLU: x where x > 0, x·a at or below, with a drawn uniformly from
 * [lower, upper] per element while training (from sg.manualSeed's generator) and
 * (lower + upper) / 2 otherwise.
 */
export function rrelu(input: Tensor, options?: RreluOptions): Tensor {
  const o = checkOptions<RreluOptions>('rrelu', options, { lower: 'number', upper: 'number', training: 'boolean' });
  const x = tensorArg('rrelu', 'input', input);
  const lower = o.lower ?? 1 / 8, upper = o.upper ?? 1 / 3;
  if (!(lower <= upper)) throw new Error(`rrelu: expected lower <= upper, got lower ${lower} and upper ${upper}`);
  if (!o.training) return ops.leakyRelu(x, (lower + upper) / 2);
  return tidy(() => {
    const slope = ops.add(ops.mul(rand(x.shape, { device: x.device }), upper - lower), lower);
    return where(ops.le(x, 0), ops.mul(x, slope), x);
  });
}

/** softmax over the channels of [C, H, W] or [N, C, H, W] (dim −3). */
export function softmax2d(input: Tensor): Tensor {
  const x = tensorArg('softmax2d', 'input', input);
  if (x.ndim !== 3 && x.ndim !== 4) throw new Error(`softmax2d: expected a 3-D or 4-D input, got shape [${x.shape.join(', ')}]`);
  return ops.softmax(x, -3);
}
