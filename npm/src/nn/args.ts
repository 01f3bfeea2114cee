// Argument checks shared by the layer constructors of sg.nn (sizes, counts, and the
// "a number or an options object" first argument of the small activation modules).
import { checkOptions, describe, isInteger, isOptionsObject, type Spec } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';

/** A count that may be 0 (in/out features) or must be positive. */
export function countArg(fn: string, name: string, v: unknown, min = 0): number {
  if (!isInteger(v) || v < min) throw new Error(`${fn}: expected '${name}' to be an integer >= ${min}, got ${describe(v)}`);
  return v;
}

/** A size for `n` spatial dims: a number (repeated) or an array of n integers, each at least `min`. */
export function tupleArg(fn: string, name: string, v: unknown, n: number, min = -Infinity): number[] {
  const ok = (e: unknown): e is number => isInteger(e) && e >= min;
  const bound = min === -Infinity ? '' : ` >= ${min}`;
  if (ok(v)) return new Array<number>(n).fill(v);
  if (Array.isArray(v) && v.every(ok) && (v.length === n || v.length === 1)) return v.length === n ? v.slice() : new Array<number>(n).fill(v[0]);
  throw new Error(`${fn}: expected '${name}' to be an integer${bound} or an array of ${n} integers${bound}, got ${describe(v)}`);
}

/**
 * PyTorch's positional first scalar or, in JS style, an options object: LeakyReLU(0.2) and
 * LeakyReLU({ negativeSlope: 0.2 }) are the same.
 */
export function scalarOrOptions<T extends object>(fn: string, arg: unknown, key: string, spec: Spec): Partial<T> {
  if (arg === undefined || arg === null || isOptionsObject(arg)) return checkOptions<T>(fn, arg, spec);
  return checkOptions<T>(fn, { [key]: arg }, spec);
}

export function probabilityArg(fn: string, p: unknown): number {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new Error(`${fn}: dropout probability has to be between 0 and 1, but got ${describe(p)}`);
  return p;
}

/**
 * PyTorch's `inplace=True`: `out` written into `input` (recorded by autograd as PyTorch's in-place
 * op: the gradient flows through out's history; a leaf that requires grad refuses it, as in
 * PyTorch) and `input` returned; `out` itself is disposed. Without inplace, `out`.
 */
export function inPlace(inplace: boolean | undefined, input: Tensor, out: Tensor): Tensor {
  if (!inplace || out === input) return out;
  try {
    input.copy_(out);
  } finally {
    out.dispose();
  }
  return input;
}
