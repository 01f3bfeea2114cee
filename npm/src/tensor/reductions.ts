// Reductions beyond ops.ts's sum/mean/max/... (PyTorch's "Reduction Ops", and the scans ATen's
// ReduceOps.cpp holds): any, all, amax, amin, aminmax, countNonzero, the NaN-ignoring nansum and
// nanmean, varMean, stdMean, the running cumsum, cumprod, cummax, cummin, logcumsumexp, and diff.
// Each is a function (sg.cumsum(x, 1)) and a Tensor method (x.cumsum(1)). any, all, cumsum and
// cumprod are C++ ops; the others are compositions, differentiable through the ops they are made
// of, with PyTorch 1.13's values and gradients (tests/data/gen_ops_compose*.py,
// gen_ops_stack_stats.py). cummax, cummin and logcumsumexp compare every position with every
// earlier one along the dim: O(L²) memory for a dim of length L (fine for sequences of a few
// thousand; PyTorch's kernels scan in O(L)).
import { run, type TensorLike } from './call.js';
import { arange, zeros } from './creation.js';
import { noGrad } from '../autograd/backward.js';
import { isFloatingDType } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { dimOp, functionOps, installMethods, ops, reduction, type DimArgs, type Dim, type MethodsOf, type ReduceArgs, type VarKeywords, type VarOptions } from './ops.js';
import { keywords, type KwArgs } from './keywords.js';
import { namedPair, valuesIndices, type MinMax } from './named_tuple.js';
import { dimArg, shapeStr, tensorOf } from './args.js';
import { pointwiseOps } from './pointwise.js';
import { rearrangingOps } from './rearranging.js';
import type { SortResult } from './sorting.js';
import { boolArg, checkOptions, describe, dimsArg } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface AminmaxOptions {
  /** The dim to reduce (default: all elements). */
  dim?: number;
  keepdim?: boolean;
}
export interface DiffOptions {
  /** How many times to difference (default 1). */
  n?: number;
  /** The dim to difference along (default -1). */
  dim?: number;
  /** Values put before the input along dim (same shape but along dim). */
  prepend?: Tensor;
  /** Values put after the input along dim. */
  append?: Tensor;
}

export interface ReductionOpFunctions {
  // logical (bool results; nonzero and NaN are true)
  any(input: TensorLike, ...args: ReduceArgs): Tensor;
  all(input: TensorLike, ...args: ReduceArgs): Tensor;
  // extremes and counts
  amax(input: TensorLike, ...args: ReduceArgs): Tensor;
  amin(input: TensorLike, ...args: ReduceArgs): Tensor;
  /** min and max in one call, of all elements or along options.dim: `[min, max]`, also `.min`, `.max` (PyTorch's named tuple). */
  aminmax(input: Tensor, options?: AminmaxOptions): MinMax;
  /** The number of nonzero elements (int32), of all or along dim. */
  countNonzero(input: Tensor, ...args: KwArgs<[], [dim: Dim], { dim?: Dim }>): Tensor;
  // NaN-ignoring
  /** sum treating NaN as 0. */
  nansum(input: Tensor, ...args: ReduceArgs): Tensor;
  /** mean of the elements that are not NaN (NaN where all are). */
  nanmean(input: Tensor, ...args: ReduceArgs): Tensor;
  // moments
  /** [var, mean], with var's arguments (PyTorch's plain tuple). */
  varMean(input: Tensor, ...args: KwArgs<[], [dim: Dim, keepdim: boolean], VarKeywords>): [Tensor, Tensor];
  /** [std, mean], with std's arguments. */
  stdMean(input: Tensor, ...args: KwArgs<[], [dim: Dim, keepdim: boolean], VarKeywords>): [Tensor, Tensor];
  // running along a dim, and differences
  cumsum(input: TensorLike, ...args: DimArgs): Tensor;
  cumprod(input: TensorLike, ...args: DimArgs): Tensor;
  /** The running maximum along dim and where it is (the latest position of a tie): `[values, indices]`, also by name. */
  cummax(input: Tensor, ...args: DimArgs): SortResult;
  /** The running minimum along dim and where it is: `[values, indices]`, also by name. */
  cummin(input: Tensor, ...args: DimArgs): SortResult;
  /** log Σ_{j ≤ i} exp(x_j) along dim. */
  logcumsumexp(input: Tensor, ...args: DimArgs): Tensor;
  /** The n-th forward difference along dim (bool: logical xor). */
  diff(input: Tensor, options?: DiffOptions): Tensor;
}

/** The methods derived from ReductionOpFunctions: the first argument becomes `this`. */
export type ReductionOpMethods = MethodsOf<ReductionOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends ReductionOpMethods {}
}

const where = functionOps.where;
const isnan = (x: TensorLike) => pointwiseOps.isnan(x);
const TENSOR_OPTION = { check: (v: unknown) => v instanceof Tensor, expected: 'a Tensor' };

/** x with NaN as 0. */
const zeroNan = (x: Tensor) => (isFloatingDType(x.dtype) ? where(isnan(x), 0, x) : x);

/** varMean/stdMean: [var or std, mean] with var's arguments (dim, keepdim, { unbiased }), any of them by keyword. */
const withMean = (name: string, spread: (input: Tensor, dim: Dim, keepdim: boolean, options: VarOptions) => Tensor) =>
  keywords(name, { positional: ['dim', 'keepdim'], options: ['unbiased'] }, (input: Tensor, dim: Dim, keepdim: unknown, options: VarOptions | undefined): [Tensor, Tensor] => {
    const o = checkOptions<VarOptions>(name, options, { unbiased: 'boolean' });
    const k = boolArg(name, 'keepdim', keepdim, false);
    dimsArg(name, dim);
    return tidy(() => [spread(input, dim, k, o), ops.mean(input, dim, k)]);
  });

/** For each position i along dim, the positions j ≤ i: a bool [..., L(i), L(j)] with dim moved last. */
function prefixPairs(x: Tensor, d: number): { moved: Tensor; earlier: Tensor; l: number } {
  const moved = rearrangingOps.movedim(x, d, -1);
  const l = moved.shape.at(-1)!;
  const pos = arange(l, { device: x.device });
  return { moved, earlier: ops.le(ops.unsqueeze(pos, 0), ops.unsqueeze(pos, 1)), l };
}

/**
 * cummax/cummin: ATen's scan keeps the latest position whose value is ≥ (≤) the running
 * extreme, and a NaN once seen (the latest NaN's position). Values are gathered there, so the
 * gradient goes to that position only.
 */
function runningExtreme(fn: string, input: Tensor, dim: number, max: boolean): SortResult {
  const x = tensorOf(fn, 'input', input);
  const d = dimArg(fn, 'dim', dim, x.ndim);
  return tidy(() => {
    if (x.ndim === 0) return valuesIndices([ops.clone(x), zeros([], { dtype: 'int32', device: x.device })]);
    const { moved, earlier, l } = prefixPairs(x, d);
    const xj = ops.unsqueeze(moved, -2);                                              // [..., 1, L(j)]
    const indices = noGrad(() => {
      const masked = where(earlier, xj, max ? -Infinity : Infinity);                  // [..., L(i), L(j)]
      const extreme = max ? ops.max(masked, -1, true) : ops.min(masked, -1, true);    // NaN if any earlier NaN
      const nanSeen = ops.ne(extreme, extreme);
      const hits = pointwiseOps.logicalAnd(earlier, pointwiseOps.logicalOr(ops.eq(xj, extreme), pointwiseOps.logicalAnd(nanSeen, isnan(xj))));
      return ops.max(where(hits, arange(l, { device: x.device }), -1), -1).int();    // the latest hit
    });
    const values = ops.gather(moved, -1, indices);
    return valuesIndices([rearrangingOps.movedim(values, -1, d), rearrangingOps.movedim(indices, -1, d)]);
  });
}

export const reductionOps: ReductionOpFunctions = {
  any: reduction('any'),
  all: reduction('all'),
  amax: reduction('amax', (input, dim, keepdim) => {
    if (dim instanceof Tensor) throw new Error(`amax: expected 'dim' to be an integer or an array of integers, got ${describe(dim)}`);
    return ops.max(input, dim as Dim, keepdim as boolean);
  }),
  amin: reduction('amin', (input, dim, keepdim) => {
    if (dim instanceof Tensor) throw new Error(`amin: expected 'dim' to be an integer or an array of integers, got ${describe(dim)}`);
    return ops.min(input, dim as Dim, keepdim as boolean);
  }),
  aminmax(input, options) {
    const x = tensorOf('aminmax', 'input', input);
    const o = checkOptions<AminmaxOptions>('aminmax', options, { dim: 'integer', keepdim: 'boolean' });
    if (x.numel === 0) throw new Error(`aminmax: expected a non-empty input, got shape ${shapeStr(x)}`);
    const d = o.dim === undefined ? undefined : dimArg('aminmax', 'dim', o.dim, x.ndim);
    const keepdim = o.keepdim ?? false;
    return tidy(() => namedPair('min', 'max', reductionOps.amin(x, d, keepdim), reductionOps.amax(x, d, keepdim)));
  },
  countNonzero: keywords('countNonzero', ['dim'], (input: Tensor, dim: Dim): Tensor => {
    const x = tensorOf('countNonzero', 'input', input);
    return tidy(() => ops.sum(ops.ne(x, 0).int(), dim).int());
  }),
  nansum: reduction('nansum', (input, dim, keepdim = false) => {
    const x = tensorOf('nansum', 'input', input);
    return tidy(() => ops.sum(zeroNan(x), dim as Dim, keepdim as boolean));
  }),
  nanmean: reduction('nanmean', (input, dim, keepdim = false) => {
    const x = tensorOf('nanmean', 'input', input);
    if (!isFloatingDType(x.dtype)) throw new Error(`nanmean: expected input to have a floating point dtype, got ${x.dtype}`);
    const [d, k] = [dim as Dim, keepdim as boolean];
    return tidy(() => ops.div(ops.sum(zeroNan(x), d, k), ops.sum(pointwiseOps.logicalNot(pointwiseOps.isnan(x)).to(x.dtype), d, k)));
  }),
  varMean: withMean('varMean', (x, dim, keepdim, o) => ops.var(x, dim, keepdim, o)),
  stdMean: withMean('stdMean', (x, dim, keepdim, o) => ops.std(x, dim, keepdim, o)),
  cumsum: dimOp('cumsum'),
  cumprod: dimOp('cumprod'),
  cummax: keywords('cummax', ['dim'], (input: Tensor, dim: number): SortResult => {
    return runningExtreme('cummax', input, dim, true);
  }),
  cummin: keywords('cummin', ['dim'], (input: Tensor, dim: number): SortResult => {
    return runningExtreme('cummin', input, dim, false);
  }),
  logcumsumexp: keywords('logcumsumexp', ['dim'], (input: Tensor, dim: number): Tensor => {
    const x = tensorOf('logcumsumexp', 'input', input);
    const d = dimArg('logcumsumexp', 'dim', dim, x.ndim);
    return tidy(() => {
      if (x.ndim === 0) return ops.clone(x);
      const { moved, earlier } = prefixPairs(x, d);
      const terms = where(earlier, ops.unsqueeze(moved, -2), -Infinity);
      return rearrangingOps.movedim(ops.logsumexp(terms, -1), -1, d);
    });
  }),
  diff(input, options) {
    const x = tensorOf('diff', 'input', input);
    const o = checkOptions<DiffOptions>('diff', options, { n: 'integer', dim: 'integer', prepend: TENSOR_OPTION, append: TENSOR_OPTION });
    if (x.ndim === 0) throw new Error('diff: expected at least a 1-D input, got a 0-d tensor');
    const n = o.n ?? 1;
    if (n < 0) throw new Error(`diff: expected 'n' to be an integer >= 0, got ${n}`);
    const d = dimArg('diff', 'dim', o.dim ?? -1, x.ndim);
    return tidy(() => {
      const parts = [o.prepend, x, o.append].filter((t): t is Tensor => t !== undefined);
      let h = parts.length > 1 ? functionOps.cat(parts, d) : x;
      for (let k = 0; k < n && h.shape[d]! > 0; k++) {
        const len = h.shape[d]! - 1;
        const [hi, lo] = [ops.narrow(h, d, 1, len), ops.narrow(h, d, 0, len)];
        h = h.dtype === 'bool' ? pointwiseOps.logicalXor(hi, lo) : ops.sub(hi, lo);
      }
      return n === 0 ? ops.clone(h) : h;
    });
  },
};

installMethods(reductionOps);
