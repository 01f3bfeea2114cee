// Sorting and searching in sorted values: sort, argsort, topk, msort, bucketize, and
// searchsorted (a function only: its first argument is the sequence). Each of the others is a
// function (sg.sort(x, 1)) and a Tensor method (x.sort(1)). sort, argsort and topk are C++ ops
// (stable; NaN sorts as the largest); msort, bucketize and searchsorted are compositions of
// existing ops with PyTorch 1.13's values (tests/data/gen_ops_compose_search.py); PyTorch's int64
// results are int32 here.
import type { Attrs } from '../runtime/embind.js';
import { run, runList, tensorArg, type TensorLike } from './call.js';
import { tensor } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { optionalInt, shapeStr, tensorOf } from './args.js';
import { pointwiseOps } from './pointwise.js';
import { checkOptions, intArg } from '../runtime/options.js';
import { keywords, type KwArgs } from './keywords.js';
import { valuesIndices, type ValuesIndices } from './named_tuple.js';
import type { Tensor } from './tensor.js';

export interface SortOptions {
  descending?: boolean;
  /** Accepted for PyTorch compatibility: the sort is always stable. */
  stable?: boolean;
}
export interface TopkOptions {
  /** The k largest (true, default) or smallest. */
  largest?: boolean;
  /** Accepted for PyTorch compatibility: the results always come in sorted order. */
  sorted?: boolean;
}
/**
 * A sort's result, PyTorch's named tuple: `[values, indices]` with the fields `values` (the sorted
 * values, differentiable) and `indices` (their int32 positions along the dim).
 */
export type SortResult = ValuesIndices;
/** sort's and argsort's keyword arguments: dim by name, and the flags. */
export interface SortKeywords extends SortOptions {
  dim?: number;
}
/** topk's keyword arguments. */
export interface TopkKeywords extends TopkOptions {
  k?: number;
  dim?: number;
}
export interface BucketizeOptions {
  /** false (default): boundaries[i−1] < x ≤ boundaries[i]; true: boundaries[i−1] ≤ x < boundaries[i]. */
  right?: boolean;
  /** Accepted for PyTorch's signature: results are int32 either way. */
  outInt32?: boolean;
}
export interface SearchsortedOptions extends BucketizeOptions {
  /** 'left' (default) or 'right': the same as right = false / true. */
  side?: 'left' | 'right';
}

export interface SortingOpFunctions {
  /** `[values, indices]` (also as `.values`, `.indices`) sorted along dim (default -1). */
  sort(input: TensorLike, ...args: KwArgs<[], [dim: number], SortKeywords>): SortResult;
  argsort(input: TensorLike, ...args: KwArgs<[], [dim: number], SortKeywords>): Tensor;
  /** The k largest (or smallest) along dim (default -1): `[values, indices]`, also `.values`, `.indices`. */
  topk(input: TensorLike, ...args: KwArgs<[k: number], [dim: number], TopkKeywords>): SortResult;
  /** Sorted along dim 0 (the values). */
  msort(input: Tensor): Tensor;
  /** The index of each element's bucket among sorted 1-D boundaries (int32). */
  bucketize(input: Tensor, boundaries: Tensor, options?: BucketizeOptions): Tensor;
}

/** The methods derived from SortingOpFunctions: the first argument becomes `this`. */
export type SortingOpMethods = MethodsOf<SortingOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends SortingOpMethods {}
}

function sortResult(fn: string, input: TensorLike, attrs: Attrs): SortResult {
  return valuesIndices(runList(fn, fn, [['input', input]], attrs));
}

/** Counts, along the last dim, the sorted values v that come before x: !(v ≥ x) (left) or !(v > x) (right), NaN last as in PyTorch's binary search. */
function countBefore(sorted: Tensor, x: Tensor, right: boolean): Tensor {
  const after = right ? ops.gt(sorted, x) : ops.ge(sorted, x);
  return ops.sum(pointwiseOps.logicalNot(after), -1).int();
}

function sideOf(fn: string, options: unknown, withSide: boolean): boolean {
  const spec = { right: 'boolean', outInt32: 'boolean', ...(withSide ? { side: ['left', 'right'] } : {}) } as const;
  const o = checkOptions<SearchsortedOptions>(fn, options, spec);
  // PyTorch 1.13 refuses side 'left' with right: true only; side 'right' with right: false is side 'right'.
  if (o.side === 'left' && o.right === true) {
    throw new Error(`${fn}: side and right can't be set to opposites, got side '${o.side}' and right ${o.right}`);
  }
  return o.side === 'right' || o.right === true;
}

export const sortingOps: SortingOpFunctions = {
  sort: keywords('sort', { positional: ['dim'], options: ['descending', 'stable'] }, (input: TensorLike, dim: unknown, options: unknown) => {
    const o = checkOptions<SortOptions>('sort', options, { descending: 'boolean', stable: 'boolean' });
    return sortResult('sort', input, { dim: optionalInt('sort', 'dim', dim, -1), descending: o.descending });
  }),
  argsort: keywords('argsort', { positional: ['dim'], options: ['descending', 'stable'] }, (input: TensorLike, dim: unknown, options: unknown) => {
    const o = checkOptions<SortOptions>('argsort', options, { descending: 'boolean', stable: 'boolean' });
    return run('argsort', 'argsort', [['input', input]], { dim: optionalInt('argsort', 'dim', dim, -1), descending: o.descending });
  }),
  topk: keywords('topk', { positional: ['k', 'dim'], options: ['largest', 'sorted'] }, (input: TensorLike, k: unknown, dim: unknown, options: unknown) => {
    const o = checkOptions<TopkOptions>('topk', options, { largest: 'boolean', sorted: 'boolean' });
    return sortResult('topk', input, { k: intArg('topk', 'k', k), dim: optionalInt('topk', 'dim', dim, -1), largest: o.largest });
  }),
  msort(input, trailing?: unknown) {
    noOptions('msort', trailing);
    const x = tensorOf('msort', 'input', input);
    return tidy(() => sortingOps.sort(x, 0).values);
  },
  bucketize(input, boundaries, options) {
    const x = tensorOf('bucketize', 'input', input), bs = tensorOf('bucketize', 'boundaries', boundaries, 1);
    const right = sideOf('bucketize', options, false);
    return tidy(() => countBefore(bs, ops.unsqueeze(x, -1), right));
  },
};

installMethods(sortingOps);

/** Functions only (no method form): searchsorted's first argument is the sequence. */
export const sortingFunctionOps = {
  /** Where values would be inserted into sortedSequence (1-D, or [..., L] matching values' leading dims) to keep it sorted (int32). */
  searchsorted(sortedSequence: Tensor, values: TensorLike, options?: SearchsortedOptions): Tensor {
    const s = tensorOf('searchsorted', 'sortedSequence', sortedSequence);
    const right = sideOf('searchsorted', options, true);
    if (s.ndim === 0) throw new Error('searchsorted: expected sortedSequence to have at least 1 dim, got a 0-d tensor');
    if (typeof values === 'number') {
      if (s.ndim !== 1) throw new Error(`searchsorted: a number as values needs a 1-D sortedSequence, got shape ${shapeStr(s)}`);
      return tidy(() => ops.reshape(countBefore(s, tensor([values], { device: s.device }), right), []));
    }
    const v = tensorArg('searchsorted', 'values', values);
    if (s.ndim > 1 && (v.ndim !== s.ndim || v.shape.slice(0, -1).some((n, k) => n !== s.shape[k]))) {
      throw new Error(`searchsorted: expected sortedSequence to be 1-D or to share all but the last dim with values, got shapes ${shapeStr(s)} and ${shapeStr(v)}`);
    }
    // Each value against its row of the sequence: [..., V, 1] against [..., 1, L].
    return tidy(() => countBefore(s.ndim === 1 ? s : ops.unsqueeze(s, -2), ops.unsqueeze(v, -1), right));
  },
};
