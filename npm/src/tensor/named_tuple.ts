// PyTorch's named tuples (torch.return_types.topk, sort, kthvalue, aminmax, slogdet, ...): an
// array of the results that also has PyTorch's field names, so that both
// `const [values, indices] = x.topk(3)` and `x.topk(3).values` work. The fields are
// non-enumerable getters of the array's elements: the array is still a plain array of tensors
// for tidy, dispose, JSON and spreading (each tensor is reached once, through its index), and
// sg.compile (compile/arg_tree.ts) rebuilds its results with the same names (namedTupleFields).
import type { Tensor } from './tensor.js';

/** The result `[a, b]` of a named tuple with fields `A` and `B`: `r[0]` is `r[A]`, `r[1]` is `r[B]`. */
export type NamedPair<A extends string, B extends string, T = Tensor> = [T, T] & { readonly [K in A | B]: T };

/** torch.return_types of topk, sort, kthvalue, median/nanmedian (with dim), cummax, cummin. */
export type ValuesIndices = NamedPair<'values', 'indices'>;
/** torch.return_types.aminmax. */
export type MinMax = NamedPair<'min', 'max'>;

const FIELDS: unique symbol = Symbol('simdgrad.namedTupleFields');

/** An array of `items` whose `names[i]` reads `items[i]` too. */
export function namedTuple<T>(names: readonly string[], items: readonly T[]): T[] {
  if (names.length !== items.length) throw new Error(`namedTuple: ${names.length} names for ${items.length} items`);
  const out = items.slice();
  names.forEach((name, i) => {
    Object.defineProperty(out, name, {
      get(this: T[]) {
        return this[i];
      },
      enumerable: false,
      configurable: true,
    });
  });
  Object.defineProperty(out, FIELDS, { value: names.slice(), enumerable: false });
  return out;
}

/** The pair [a, b] named `A`, `B`. */
export function namedPair<A extends string, B extends string, T = Tensor>(nameA: A, nameB: B, a: T, b: T): NamedPair<A, B, T> {
  return namedTuple([nameA, nameB], [a, b]) as unknown as NamedPair<A, B, T>;
}

/** `{ values, indices }` (or a [values, indices] array) as the named tuple of topk, sort, ... */
export function valuesIndices(r: { values: Tensor; indices: Tensor } | readonly Tensor[]): ValuesIndices {
  if (Array.isArray(r)) return namedPair('values', 'indices', r[0] as Tensor, r[1] as Tensor);
  const o = r as { values: Tensor; indices: Tensor };
  return namedPair('values', 'indices', o.values, o.indices);
}

/** The field names of a named tuple made here, else null. */
export function namedTupleFields(v: unknown): readonly string[] | null {
  if (!Array.isArray(v)) return null;
  const names = (v as unknown as { [FIELDS]?: readonly string[] })[FIELDS];
  return names ?? null;
}
