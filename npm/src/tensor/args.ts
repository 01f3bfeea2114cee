// The argument checks the op families share: each throws an Error naming the function and the
// argument (tensorOf, dimArg, optionalInt, numberOption), and shapeStr writes a shape for one.
import { tensorArg } from './call.js';
import { describe, intArg, isInteger } from '../runtime/options.js';
import type { Tensor } from './tensor.js';

/** A Tensor argument, of `ndim` dims when given. */
export function tensorOf(fn: string, name: string, v: unknown, ndim?: number): Tensor {
  const t = tensorArg(fn, name, v);
  if (ndim !== undefined && t.ndim !== ndim) throw new Error(`${fn}: expected '${name}' to be ${ndim}-D, got shape [${t.shape.join(', ')}]`);
  return t;
}

export function dimArg(fn: string, name: string, v: unknown, ndim: number): number {
  if (!isInteger(v) || v < -Math.max(ndim, 1) || v >= Math.max(ndim, 1)) {
    throw new Error(`${fn}: expected '${name}' to be an integer in [${-Math.max(ndim, 1)}, ${Math.max(ndim, 1) - 1}], got ${describe(v)}`);
  }
  return v < 0 ? v + ndim : v;
}

/** An integer argument, `fallback` when null or undefined. */
export function optionalInt(fn: string, name: string, v: unknown, fallback: number): number {
  return v === undefined || v === null ? fallback : intArg(fn, name, v);
}

/** A number option (≥ min when given), `fallback` when undefined. */
export function numberOption(fn: string, name: string, v: unknown, fallback: number, min = -Infinity): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || Number.isNaN(v) || v < min) throw new Error(`${fn}: expected '${name}' to be a number${min > -Infinity ? ` >= ${min}` : ''}, got ${describe(v)}`);
  return v;
}

/** A shape, or a tensor's, as errors write it: [2, 3]. */
export const shapeStr = (v: Tensor | readonly number[]): string => `[${(Array.isArray(v) ? v : (v as Tensor).shape).join(', ')}]`;
