// Order statistics and the relations between variables, as compositions of existing ops:
// kthvalue, median, quantile (through sort), their NaN-ignoring nanmedian and nanquantile, and
// cov and corrcoef. Each is a function (sg.median(x, 1)) and a Tensor method (x.median(1)),
// differentiable through the ops it is made of, with PyTorch 1.13's values and gradients
// (tests/data/gen_ops_compose.py, gen_ops_stack_stats.py). Temporaries are freed (tidy); an
// argument of the wrong kind is an Error naming it.
import type { TensorLike } from './call.js';
import { zeros } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { dimArg, tensorOf } from './args.js';
import { indexingOps } from './indexing.js';
import { matrixOps } from './matrices.js';
import { pointwiseOps } from './pointwise.js';
import { rearrangingOps } from './rearranging.js';
import { sortingOps, type SortResult } from './sorting.js';
import { boolArg, checkOptions, describe, isInteger } from '../runtime/options.js';
import { keywords, type KwArgs } from './keywords.js';
import { valuesIndices } from './named_tuple.js';
import { Tensor, type NumericData } from './tensor.js';

export interface QuantileOptions {
  /** Between the two order statistics around q·(n − 1): 'linear' (default), 'lower', 'higher', 'midpoint', 'nearest' (half to even). */
  interpolation?: 'linear' | 'lower' | 'higher' | 'midpoint' | 'nearest';
}

/** quantile's and nanquantile's keyword arguments. */
export interface QuantileKeywords<Q> extends QuantileOptions {
  q?: Q;
  dim?: number | null;
  keepdim?: boolean;
}

/** median's and nanmedian's arguments along a dim: (dim, keepdim?), either also by keyword. */
export type MedianDimArgs = [dim: number, keepdim?: boolean] | [dim: number, options: { keepdim?: boolean }] | [options: { dim: number; keepdim?: boolean }];

export interface StatisticsOpFunctions {
  /** The k-th smallest (1-based) along dim and its position; NaN counts as the largest. */
  kthvalue(input: Tensor, ...args: KwArgs<[k: number], [dim: number, keepdim: boolean], { k?: number; dim?: number; keepdim?: boolean }>): SortResult;
  /**
   * The lower median: of all elements (a 0-d tensor) without dim, else `[values, indices]` (also
   * `.values`, `.indices`) along dim. NaN if any element is NaN (its position then), as PyTorch.
   */
  median(input: Tensor): Tensor;
  median(input: Tensor, ...args: MedianDimArgs): SortResult;
  /**
   * The q-quantiles (q a number or a list/1-D tensor in [0, 1]) of all elements or along dim;
   * a list of q adds a leading dim. NaN if the row holds a NaN.
   */
  quantile(input: Tensor, ...args: KwArgs<[q: number | readonly number[] | Tensor], [dim: number | null | undefined, keepdim: boolean], QuantileKeywords<number | readonly number[] | Tensor>>): Tensor;
  /** The lower median of the numbers (NaN ignored; NaN where there are none): of all elements, or `[values, indices]` along dim. */
  nanmedian(input: Tensor): Tensor;
  nanmedian(input: Tensor, ...args: MedianDimArgs): SortResult;
  /** quantile ignoring NaN (NaN for a row of NaN only). */
  nanquantile(input: Tensor, ...args: KwArgs<[q: number | readonly number[]], [dim: number | null | undefined, keepdim: boolean], QuantileKeywords<number | readonly number[]>>): Tensor;
  /** Covariance of the rows (variables) of a 2-D input over its columns (observations); a 1-D input is one variable. */
  cov(input: Tensor, options?: { correction?: number }): Tensor;
  /** Pearson correlation coefficients of the rows, clipped to [−1, 1]. */
  corrcoef(input: Tensor): Tensor;
}

/** median and nanmedian as methods, with both overloads (MethodsOf keeps a function's last one only). */
export interface MedianMethods {
  median(): Tensor;
  median(...args: MedianDimArgs): SortResult;
  nanmedian(): Tensor;
  nanmedian(...args: MedianDimArgs): SortResult;
}

/** The methods derived from StatisticsOpFunctions: the first argument becomes `this`. */
export type StatisticsOpMethods = MethodsOf<Omit<StatisticsOpFunctions, 'median' | 'nanmedian'>> & MedianMethods;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends StatisticsOpMethods {}
}

const where = functionOps.where;
const isnan = (x: TensorLike) => pointwiseOps.isnan(x);

/** Round half to even (Python's round, numpy's, torch.round's). */
function roundHalfEven(v: number): number {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * The order statistic at position pick(n) of each row along d ({ values, indices }), NaN and its
 * position where the row holds a NaN (NaN sorts last; the first NaN is reported, as PyTorch).
 */
function orderStatistic(fn: string, x: Tensor, d: number, pick: (n: number) => number, keepdim: boolean): SortResult {
  return tidy(() => {
    if (x.ndim === 0) return valuesIndices([ops.clone(x), zeros([], { dtype: 'int32', device: x.device })]);
    const n = x.shape[d]!;
    if (n === 0) throw new Error(`${fn}: expected a non-empty input along dim ${d}`);
    const s = sortingOps.sort(x, d);
    const k = pick(n);
    const nans = ops.sum(isnan(x).int(), d, true);  // NaNs of each row
    const hasNan = ops.gt(nans, 0);
    // The first NaN's sorted position is n − (NaN count); clamp for the rows without one.
    const firstNan = ops.clamp(ops.sub(n, nans), 0, n - 1).int();
    const pos = where(hasNan, firstNan, k).int();
    const values = ops.gather(s.values, d, pos);
    const indices = ops.gather(s.indices, d, pos);
    return valuesIndices(keepdim ? [values, indices] : [ops.squeeze(values, d), ops.squeeze(indices, d)]);
  });
}

/** Sorted rows along the last dim with NaN last, and each row's count of numbers. */
function sortedNumbers(x: Tensor): { sorted: SortResult; count: Tensor } {
  return { sorted: sortingOps.sort(x, -1), count: ops.sum(pointwiseOps.logicalNot(isnan(x)).int(), -1, true) };
}

export const statisticsOps: StatisticsOpFunctions = {
  kthvalue: keywords('kthvalue', ['k', 'dim', 'keepdim'], (input: Tensor, k: unknown, dim: unknown = -1, keepdim: unknown = false): SortResult => {
    const x = tensorOf('kthvalue', 'input', input);
    const d = dimArg('kthvalue', 'dim', dim, x.ndim);
    const n = x.ndim === 0 ? 1 : x.shape[d]!;
    if (!isInteger(k) || k < 1 || k > n) throw new Error(`kthvalue: expected 'k' to be an integer in [1, ${n}], got ${describe(k)}`);
    return orderStatistic('kthvalue', x, d, () => k - 1, boolArg('kthvalue', 'keepdim', keepdim, false));
  }),
  median: keywords('median', ['dim', 'keepdim'], (input: Tensor, dim?: number, keepdim: boolean = false): Tensor & SortResult => {
    const x = tensorOf('median', 'input', input);
    if (dim === undefined || dim === null) {
      return tidy(() => orderStatistic('median', ops.flatten(x), 0, (n) => (n - 1) >> 1, false).values) as unknown as Tensor & SortResult;
    }
    return orderStatistic('median', x, dimArg('median', 'dim', dim, x.ndim), (n) => (n - 1) >> 1, boolArg('median', 'keepdim', keepdim, false)) as Tensor & SortResult;
  }),
  quantile: keywords('quantile', { positional: ['q', 'dim', 'keepdim'], options: ['interpolation'] }, (input: Tensor, q: number | readonly number[] | Tensor, dim?: number | null, keepdim: boolean = false, options?: QuantileOptions): Tensor => {
    const o = checkOptions<QuantileOptions>('quantile', options, { interpolation: ['linear', 'lower', 'higher', 'midpoint', 'nearest'] });
    const x = tensorOf('quantile', 'input', input);
    const qs = q instanceof Tensor ? Array.from(q.dataSync() as NumericData) : Array.isArray(q) ? q.slice() : [q];
    if (!qs.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) {
      throw new Error(`quantile: expected 'q' in [0, 1] (a number, a list or a 1-D tensor), got ${describe(q instanceof Tensor ? qs : q)}`);
    }
    const scalar = typeof q === 'number' || (q instanceof Tensor && q.ndim === 0);
    return tidy(() => {
      const flat = dim === undefined || dim === null;
      const src = flat ? ops.flatten(x) : x;
      const d = flat ? 0 : dimArg('quantile', 'dim', dim, x.ndim);
      const n = src.shape[d]!;
      if (n === 0) throw new Error('quantile: expected a non-empty input along dim');
      const sorted = sortingOps.sort(src, d).values;
      const nanRow = pointwiseOps.isnan(indexingOps.select(sorted, d, n - 1));
      const at = (i: number) => indexingOps.select(sorted, d, i);
      const mode = o.interpolation ?? 'linear';
      const rows = qs.map((v) => {
        const rank = v * (n - 1);
        const lo = Math.floor(rank), hi = Math.ceil(rank);
        let r: Tensor;
        if (mode === 'lower') r = at(lo);
        else if (mode === 'higher') r = at(hi);
        else if (mode === 'nearest') r = at(roundHalfEven(rank));
        else r = pointwiseOps.lerp(at(lo), at(hi), mode === 'midpoint' ? (lo === hi ? 0 : 0.5) : rank - lo);
        r = where(nanRow, NaN, r);
        return flat ? r : keepdim ? ops.unsqueeze(r, d) : r;
      });
      const out = scalar ? rows[0]! : functionOps.stack(rows, 0);
      return flat && keepdim ? ops.reshape(out, [...(scalar ? [] : [qs.length]), ...x.shape.map(() => 1)]) : out;
    });
  }),
  nanmedian: keywords('nanmedian', ['dim', 'keepdim'], (input: Tensor, dim?: number, keepdim = false): Tensor & SortResult => {
    const x = tensorOf('nanmedian', 'input', input);
    const pick = (t: Tensor): SortResult => {
      // The lower median of each row's numbers: position (count − 1) / 2 of the sorted row (NaN
      // last); a row without numbers gives its first NaN.
      const { sorted, count } = sortedNumbers(t);
      const at = ops.clamp(ops.div(ops.sub(count, 1), 2, { roundingMode: 'floor' }), 0, null).int();
      return valuesIndices([ops.gather(sorted.values, -1, at), ops.gather(sorted.indices, -1, at)]);
    };
    if (dim === undefined || dim === null) {
      return tidy(() => ops.reshape(pick(ops.flatten(x)).values, [])) as unknown as Tensor & SortResult;
    }
    const d = dimArg('nanmedian', 'dim', dim, x.ndim);
    return tidy(() => {
      if (x.ndim === 0) return valuesIndices([ops.clone(x), zeros([], { dtype: 'int32', device: x.device })]);
      const r = pick(rearrangingOps.movedim(x, d, -1));
      const back = (t: Tensor) => (keepdim ? rearrangingOps.movedim(t, -1, d) : ops.squeeze(t, -1));
      return valuesIndices([back(r.values), back(r.indices)]);
    }) as Tensor & SortResult;
  }),
  nanquantile: keywords('nanquantile', { positional: ['q', 'dim', 'keepdim'], options: ['interpolation'] }, (input: Tensor, q: number | readonly number[], dim?: number | null, keepdim: boolean = false, options?: QuantileOptions): Tensor => {
    const o = checkOptions<QuantileOptions>('nanquantile', options, { interpolation: ['linear', 'lower', 'higher', 'midpoint', 'nearest'] });
    const x = tensorOf('nanquantile', 'input', input);
    const qs = Array.isArray(q) ? q.slice() : [q];
    if (!qs.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) throw new Error(`nanquantile: expected 'q' in [0, 1] (a number or a list), got ${describe(q)}`);
    const mode = o.interpolation ?? 'linear';
    return tidy(() => {
      const flat = dim === undefined || dim === null;
      const d = flat ? 0 : dimArg('nanquantile', 'dim', dim, x.ndim);
      const rows = flat ? ops.flatten(x) : rearrangingOps.movedim(x, d, -1);
      if (rows.shape.at(-1) === 0) throw new Error('nanquantile: expected a non-empty input along dim');
      const { sorted, count } = sortedNumbers(rows);
      const last = rows.shape.at(-1)! - 1;
      const results = qs.map((qv) => {
        // ATen's: rank q·(count − 1) of each row's numbers; a row of NaN (negative rank) reads its last, NaN.
        let rank = ops.mul(ops.sub(count.float(), 1), qv);
        rank = where(ops.lt(rank, 0), last, rank);
        const at = (r: Tensor) => ops.gather(sorted.values, -1, r.int());
        let r: Tensor;
        if (mode === 'lower') r = at(pointwiseOps.floor(rank));
        else if (mode === 'higher') r = at(pointwiseOps.ceil(rank));
        else if (mode === 'nearest') r = at(pointwiseOps.round(rank));
        else {
          const below = pointwiseOps.floor(rank), above = pointwiseOps.ceil(rank);
          const weight = mode === 'midpoint' ? where(ops.gt(above, below), 0.5, 0) : ops.sub(rank, below);
          r = pointwiseOps.lerp(at(below), at(above), weight);
        }
        return r;  // [..., 1]
      });
      const fit = (r: Tensor) => (flat ? (keepdim ? ops.reshape(r, x.shape.map(() => 1)) : ops.reshape(r, [])) : keepdim ? rearrangingOps.movedim(r, -1, d) : ops.squeeze(r, -1));
      const outs = results.map(fit);
      return Array.isArray(q) ? functionOps.stack(outs, 0) : outs[0]!;
    });
  }),
  cov(input, options) {
    const o = checkOptions<{ correction: number }>('cov', options, { correction: 'integer' });
    const x = tensorOf('cov', 'input', input);
    if (x.ndim > 2) throw new Error(`cov: expected a 1-D or 2-D input (variables × observations), got shape [${x.shape.join(', ')}]`);
    const correction = o.correction ?? 1;
    return tidy(() => {
      // ATen's: rows minus their means, times its transpose, over (observations − correction)
      // (0 when that is not positive, as PyTorch after its warning).
      const rows = x.ndim < 2 ? ops.reshape(x.float(), [1, -1]) : x.float();
      const centered = ops.sub(rows, ops.mean(rows, 1, true));
      const factor = Math.max(rows.shape[1]! - correction, 0);
      const c = ops.div(ops.matmul(centered, ops.transpose(centered, 0, 1)), factor);
      return ops.squeeze(c);
    });
  },
  corrcoef(input, trailing?: unknown) {
    noOptions('corrcoef', trailing);
    const x = tensorOf('corrcoef', 'input', input);
    return tidy(() => {
      const c = statisticsOps.cov(x);
      if (c.ndim === 0) return ops.div(c, c);
      const std = ops.sqrt(matrixOps.diag(c));
      const r = ops.div(ops.div(c, ops.unsqueeze(std, 1)), ops.unsqueeze(std, 0));
      return ops.clamp(r, -1, 1);
    });
  },
};

installMethods(statisticsOps);
