// PyTorch's NaN-aware extremes, statistics and running reductions, as compositions of existing
// ops: fmax, fmin, trueDivide, cov, corrcoef, nanmedian, nanquantile, cummax, cummin,
// logcumsumexp, and the creation functions logspace, empty, emptyLike. Differentiable through
// the ops they are made of, with PyTorch 1.13's values and gradients
// (tests/data/gen_ops_stats.py). The running reductions compare every position with every
// earlier one along the dim: O(L²) memory for a dim of length L (fine for sequences of a few
// thousand; PyTorch's kernels scan in O(L)).
import type { TensorLike } from '../runtime/call.js';
import { arange, linspace, zeros, zerosLike, type CreationOptions } from './creation.js';
import { noGrad } from '../autograd/backward.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { composeOps, dimArg, tensorOf, type QuantileOptions } from './composite_a.js';
import { moreOps, type SortResult } from './ops_registry_breadth.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from './tensor.js';

const where = functionOps.where;
const isnan = (x: TensorLike) => composeOps.isnan(x);

/** fmax/fmin: a where a ≥ b (≤ for fmin) or b is NaN, else b: NaN only where both are; ties and the gradient go to a (PyTorch's backward). */
function nanIgnoring(a: TensorLike, b: TensorLike, max: boolean): Tensor {
  return tidy(() => where(moreOps.logicalOr(max ? ops.ge(a, b) : ops.le(a, b), isnan(b)), a, b));
}

/** For each position i along dim, the positions j ≤ i: a bool [..., L(i), L(j)] with dim moved last. */
function prefixPairs(x: Tensor, d: number): { moved: Tensor; earlier: Tensor; l: number } {
  const moved = composeOps.movedim(x, d, -1);
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
    if (x.ndim === 0) return { values: ops.clone(x), indices: zeros([], { dtype: 'int32', device: x.device }) };
    const { moved, earlier, l } = prefixPairs(x, d);
    const xj = ops.unsqueeze(moved, -2);                                              // [..., 1, L(j)]
    const indices = noGrad(() => {
      const masked = where(earlier, xj, max ? -Infinity : Infinity);                  // [..., L(i), L(j)]
      const extreme = max ? ops.max(masked, -1, true) : ops.min(masked, -1, true);    // NaN if any earlier NaN
      const nanSeen = ops.ne(extreme, extreme);
      const hits = moreOps.logicalAnd(earlier, moreOps.logicalOr(ops.eq(xj, extreme), moreOps.logicalAnd(nanSeen, isnan(xj))));
      return ops.max(where(hits, arange(l, { device: x.device }), -1), -1).int();    // the latest hit
    });
    const values = ops.gather(moved, -1, indices);
    return { values: composeOps.movedim(values, -1, d), indices: composeOps.movedim(indices, -1, d) };
  });
}

/** Sorted rows along the last dim with NaN last, and each row's count of numbers. */
function sortedNumbers(x: Tensor): { sorted: SortResult; count: Tensor } {
  return { sorted: moreOps.sort(x, -1), count: ops.sum(moreOps.logicalNot(isnan(x)).int(), -1, true) };
}

export interface StatsOpFunctions {
  /** Elementwise max that ignores NaN (NaN only where both are). */
  fmax(input: TensorLike, other: TensorLike): Tensor;
  /** Elementwise min that ignores NaN. */
  fmin(input: TensorLike, other: TensorLike): Tensor;
  /** div (true division). */
  trueDivide(input: TensorLike, other: TensorLike): Tensor;
  /** Covariance of the rows (variables) of a 2-D input over its columns (observations); a 1-D input is one variable. */
  cov(input: Tensor, options?: { correction?: number }): Tensor;
  /** Pearson correlation coefficients of the rows, clipped to [−1, 1]. */
  corrcoef(input: Tensor): Tensor;
  /** The lower median of the numbers (NaN ignored; NaN where there are none): of all elements, or { values, indices } along dim. */
  nanmedian(input: Tensor): Tensor;
  nanmedian(input: Tensor, dim: number, keepdim?: boolean): SortResult;
  /** quantile ignoring NaN (NaN for a row of NaN only). */
  nanquantile(input: Tensor, q: number | readonly number[], dim?: number | null, keepdim?: boolean, options?: QuantileOptions): Tensor;
  /** The running maximum along dim and where it is (the latest position of a tie). */
  cummax(input: Tensor, dim: number): SortResult;
  /** The running minimum along dim and where it is. */
  cummin(input: Tensor, dim: number): SortResult;
  /** log Σ_{j ≤ i} exp(x_j) along dim. */
  logcumsumexp(input: Tensor, dim: number): Tensor;
}

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends MethodsOf<StatsOpFunctions> {}
}

export const statsOps: StatsOpFunctions = {
  fmax(input, other, trailing?: unknown) {
    noOptions('fmax', trailing);
    return nanIgnoring(input, other, true);
  },
  fmin(input, other, trailing?: unknown) {
    noOptions('fmin', trailing);
    return nanIgnoring(input, other, false);
  },
  trueDivide(input, other, trailing?: unknown) {
    noOptions('trueDivide', trailing);
    return ops.div(input, other);
  },
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
      const c = statsOps.cov(x);
      if (c.ndim === 0) return ops.div(c, c);
      const std = ops.sqrt(moreOps.diag(c));
      const r = ops.div(ops.div(c, ops.unsqueeze(std, 1)), ops.unsqueeze(std, 0));
      return ops.clamp(r, -1, 1);
    });
  },
  nanmedian(input: Tensor, dim?: number, keepdim = false, trailing?: unknown): Tensor & SortResult {
    noOptions('nanmedian', trailing);
    const x = tensorOf('nanmedian', 'input', input);
    const pick = (t: Tensor): SortResult => {
      // The lower median of each row's numbers: position (count − 1) / 2 of the sorted row (NaN
      // last); a row without numbers gives its first NaN.
      const { sorted, count } = sortedNumbers(t);
      const at = ops.clamp(ops.div(ops.sub(count, 1), 2, { roundingMode: 'floor' }), 0, null).int();
      return { values: ops.gather(sorted.values, -1, at), indices: ops.gather(sorted.indices, -1, at) };
    };
    if (dim === undefined || dim === null) {
      return tidy(() => ops.reshape(pick(ops.flatten(x)).values, [])) as Tensor & SortResult;
    }
    const d = dimArg('nanmedian', 'dim', dim, x.ndim);
    return tidy(() => {
      if (x.ndim === 0) return { values: ops.clone(x), indices: zeros([], { dtype: 'int32', device: x.device }) };
      const r = pick(composeOps.movedim(x, d, -1));
      const back = (t: Tensor) => (keepdim ? composeOps.movedim(t, -1, d) : ops.squeeze(t, -1));
      return { values: back(r.values), indices: back(r.indices) };
    }) as Tensor & SortResult;
  },
  nanquantile(input, q, dim, keepdim = false, options) {
    const o = checkOptions<QuantileOptions>('nanquantile', options, { interpolation: ['linear', 'lower', 'higher', 'midpoint', 'nearest'] });
    const x = tensorOf('nanquantile', 'input', input);
    const qs = Array.isArray(q) ? q.slice() : [q];
    if (!qs.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) throw new Error(`nanquantile: expected 'q' in [0, 1] (a number or a list), got ${describe(q)}`);
    const mode = o.interpolation ?? 'linear';
    return tidy(() => {
      const flat = dim === undefined || dim === null;
      const d = flat ? 0 : dimArg('nanquantile', 'dim', dim, x.ndim);
      const rows = flat ? ops.flatten(x) : composeOps.movedim(x, d, -1);
      if (rows.shape.at(-1) === 0) throw new Error('nanquantile: expected a non-empty input along dim');
      const { sorted, count } = sortedNumbers(rows);
      const last = rows.shape.at(-1)! - 1;
      const results = qs.map((qv) => {
        // ATen's: rank q·(count − 1) of each row's numbers; a row of NaN (negative rank) reads its last, NaN.
        let rank = ops.mul(ops.sub(count.float(), 1), qv);
        rank = where(ops.lt(rank, 0), last, rank);
        const at = (r: Tensor) => ops.gather(sorted.values, -1, r.int());
        let r: Tensor;
        if (mode === 'lower') r = at(moreOps.floor(rank));
        else if (mode === 'higher') r = at(moreOps.ceil(rank));
        else if (mode === 'nearest') r = at(moreOps.round(rank));
        else {
          const below = moreOps.floor(rank), above = moreOps.ceil(rank);
          const weight = mode === 'midpoint' ? where(ops.gt(above, below), 0.5, 0) : ops.sub(rank, below);
          r = composeOps.lerp(at(below), at(above), weight);
        }
        return r;  // [..., 1]
      });
      const fit = (r: Tensor) => (flat ? (keepdim ? ops.reshape(r, x.shape.map(() => 1)) : ops.reshape(r, [])) : keepdim ? composeOps.movedim(r, -1, d) : ops.squeeze(r, -1));
      const outs = results.map(fit);
      return Array.isArray(q) ? functionOps.stack(outs, 0) : outs[0]!;
    });
  },
  cummax(input, dim, trailing?: unknown) {
    noOptions('cummax', trailing);
    return runningExtreme('cummax', input, dim, true);
  },
  cummin(input, dim, trailing?: unknown) {
    noOptions('cummin', trailing);
    return runningExtreme('cummin', input, dim, false);
  },
  logcumsumexp(input, dim, trailing?: unknown) {
    noOptions('logcumsumexp', trailing);
    const x = tensorOf('logcumsumexp', 'input', input);
    const d = dimArg('logcumsumexp', 'dim', dim, x.ndim);
    return tidy(() => {
      if (x.ndim === 0) return ops.clone(x);
      const { moved, earlier } = prefixPairs(x, d);
      const terms = where(earlier, ops.unsqueeze(moved, -2), -Infinity);
      return composeOps.movedim(ops.logsumexp(terms, -1), -1, d);
    });
  },
};

installMethods(statsOps);

/** Creation functions (no method form). */
export const statsCreationOps = {
  /** base^linspace(start, end, steps). */
  logspace(start: number, end: number, steps: number, options?: CreationOptions & { base?: number }): Tensor {
    const { base, ...rest } = options ?? {};
    if (base !== undefined && (typeof base !== 'number' || Number.isNaN(base))) throw new Error(`logspace: expected 'base' to be a number, got ${describe(base)}`);
    if (!isInteger(steps) || steps < 0) throw new Error(`logspace: expected 'steps' to be an integer >= 0, got ${describe(steps)}`);
    return tidy(() => ops.pow(base ?? 10, linspace(start, end, steps, rest)));
  },
  /** zeros (PyTorch's empty leaves memory uninitialized; zeros is one of its possible contents). */
  empty: (...args: Parameters<typeof zeros>): Tensor => zeros(...args),
  emptyLike: (t: Tensor, opts?: CreationOptions): Tensor => zerosLike(t, opts),
};
