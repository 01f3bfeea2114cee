// sg.F's argument types and checks, shared by the functional files (functional_layers.ts,
// functional_losses.ts, conv3d.ts, pool3d.ts, ...) and the modules: sizes, reductions, optional
// tensors, class indices. Imports nothing from nn/.
import type { Device } from '../runtime/embind.js';
import { tensorArg } from '../tensor/call.js';
import { tensor } from '../tensor/creation.js';
import { describe, isInteger, type OptionSpec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

/** A size: one number for every spatial dim, or one per dim. */
export type Size = number | readonly number[];
export type Reduction = 'mean' | 'sum' | 'none';
/** Class indices: an int32 tensor or (nested) arrays of integers. */
export type ClassIndices = Tensor | number[] | number[][] | number[][][];

export interface ConvOptions {
  stride?: Size;
  padding?: Size | 'same' | 'valid';
  dilation?: Size;
  groups?: number;
}
/** F.conv2d's options: those of every convolution plus a ReLU applied as the output is written. */
export interface Conv2dOptions extends ConvOptions {
  /** 'relu': the values and gradients of F.relu after F.conv2d, in one pass. */
  activation?: 'none' | 'relu';
}
export interface ConvTransposeOptions {
  stride?: Size;
  padding?: Size;
  outputPadding?: Size;
  groups?: number;
  dilation?: Size;
}
export interface MaxPoolOptions {
  stride?: Size | null;
  padding?: Size;
  dilation?: Size;
  ceilMode?: boolean;
  /** Not supported (the op returns the values only); true is an error. */
  returnIndices?: boolean;
}
export interface AvgPoolOptions {
  stride?: Size | null;
  padding?: Size;
  ceilMode?: boolean;
  countIncludePad?: boolean;
  /** Not supported; a value is an error. */
  divisorOverride?: number | null;
}
export interface DropoutOptions {
  p?: number;
  training?: boolean;
  /** Accepted for PyTorch compatibility; the result is always a new tensor. */
  inplace?: boolean;
}
export interface BatchNormOptions {
  training?: boolean;
  momentum?: number;
  eps?: number;
}
export interface InstanceNormOptions {
  useInputStats?: boolean;
  momentum?: number;
  eps?: number;
}
export interface CrossEntropyOptions {
  weight?: Tensor | null;
  ignoreIndex?: number;
  labelSmoothing?: number;
  reduction?: Reduction;
}
export interface NllLossOptions {
  weight?: Tensor | null;
  ignoreIndex?: number;
  reduction?: Reduction;
}
export interface ReductionOptions {
  reduction?: Reduction;
}
export interface AttentionOptions {
  /** bool (true = take part in attention, as PyTorch's scaled_dot_product_attention) or float (added). */
  attnMask?: Tensor | null;
  dropoutP?: number;
  isCausal?: boolean;
  /** Defaults to 1 / √(query.size(-1)). */
  scale?: number | null;
}

// ---- argument helpers ----

export const sizeSpec: OptionSpec = 'integers';
export const nullableSize: OptionSpec = {
  check: (v) => v === null || isInteger(v) || (Array.isArray(v) && v.every(isInteger)),
  expected: 'an integer, an array of integers or null',
};
export const convPadding: OptionSpec = {
  check: (v) => v === 'same' || v === 'valid' || isInteger(v) || (Array.isArray(v) && v.every(isInteger)),
  expected: "an integer, an array of integers, 'same' or 'valid'",
};
export const optionalTensorSpec: OptionSpec = { check: (v) => v === null || v instanceof Tensor, expected: 'a Tensor or null' };
export const probabilitySpec: OptionSpec = {
  check: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  expected: 'a number in [0, 1]',
};
export const REDUCTIONS = ['mean', 'sum', 'none'] as const;

/** A size attr as callOp takes it (a number or a fresh number[]); undefined stays absent. */
export function sizeAttr(v: Size | null | undefined): number | number[] | undefined {
  if (v === null || v === undefined) return undefined;
  return typeof v === 'number' ? v : v.slice();
}

/** A positional size argument (kernelSize, outputSize). */
export function sizeArg(fn: string, name: string, v: unknown): number | number[] {
  if (isInteger(v)) return v;
  if (Array.isArray(v) && v.length > 0 && v.every(isInteger)) return v.slice();
  throw new Error(`${fn}: expected '${name}' to be an integer or an array of integers, got ${describe(v)}`);
}

/** An optional tensor argument: null/undefined → null. */
export function optTensor(fn: string, name: string, v: unknown): Tensor | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Tensor) return v;
  throw new Error(`${fn}: expected '${name}' to be a Tensor or null, got ${describe(v)}`);
}

/**
 * Runs f with class indices as a tensor: a tensor is passed as is, a (nested) array of
 * integers becomes a temporary int32 tensor, disposed afterwards.
 */
export function withIndices<T>(fn: string, name: string, v: unknown, f: (t: Tensor) => T, device?: Device): T {
  if (v instanceof Tensor) return f(v);
  if (Array.isArray(v) && (v as unknown[]).flat(Infinity).every(isInteger)) {
    // On the device of the tensor they index (a plain array has none).
    const t = tensor(v as number[], { dtype: 'int32', device });
    try {
      return f(t);
    } finally {
      t.dispose();
    }
  }
  throw new Error(`${fn}: expected '${name}' to be a Tensor or an array of integer class indices, got ${describe(v)}`);
}

export function inputArg(fn: string, v: unknown): Tensor {
  return tensorArg(fn, 'input', v);
}

