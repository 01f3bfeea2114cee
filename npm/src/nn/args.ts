// Argument checks shared by the layer constructors of sg.nn (sizes, counts, and the
// "a number or an options object" first argument of the small activation modules).
import { checkOptions, describe, isInteger, isOptionsObject, type Spec } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';

/** A count that may be 0 (in/out features) or must be positive. */
export function countArg(fn: string, name: string, v: unknown, min = 0): number {
  if (!isInteger(v) || v < min) throw new Error(`${fn}: expected '${name}' to be an integer >= ${min}, got ${describe(v)}`);
  return v;
}

/**
 * A constructor argument PyTorch requires (a TypeError there when missing). Only its presence is
 * checked here: like PyTorch, the modules that check a size when called (Unfold, Fold, MaxUnpool)
 * accept any value when made.
 */
export function requiredArg(fn: string, name: string, v: unknown): void {
  if (v === undefined) throw new Error(`${fn}: missing the required argument '${name}'`);
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
 * PyTorch's leading positional scalars (named `keys`, in order), then the rest as a trailing options
 * object, as everywhere in sg (API.md's conventions): LeakyReLU(0.2), LeakyReLU(0.2, { inplace: true })
 * and LeakyReLU({ negativeSlope: 0.2, inplace: true }) are the same. `args` are the constructor's
 * arguments as given; an undefined or null positional is not given (its default applies). A
 * setting given both positionally and in the options, or more positionals than `keys`, is an Error.
 */
export function positionalOrOptions<T extends object>(fn: string, args: unknown[], keys: string[], spec: Spec): Partial<T> {
  let n = args.length;
  while (n > 0 && args[n - 1] === undefined) n--;
  const given = args.slice(0, n);
  const options: Record<string, unknown> = n > 0 && isOptionsObject(given[n - 1]) ? { ...(given.pop() as object) } : {};
  if (given.length > keys.length) {
    throw new Error(`${fn}: takes (${keys.map((k) => `${k}?`).join(', ')}, options?), got ${describe(given[keys.length])} as argument ${keys.length + 1}`);
  }
  given.forEach((v, i) => {
    const key = keys[i]!;
    if (v === undefined || v === null) return;
    if (key in options) throw new Error(`${fn}: '${key}' given both as argument ${i + 1} and in the options`);
    options[key] = v;
  });
  return checkOptions<T>(fn, options, spec);
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
