// PyTorch functions that ports of models reach for and that are compositions of existing ops:
// tests for special values (isnan, isinf, isfinite, nanToNum), amax/amin, lerp, logaddexp, xlogy,
// logit, sinc, frac, exp2, rad2deg/deg2rad, clampMin/clampMax, the matrix-product spellings
// (bmm, mv, dot, addmm, trace, cross), order statistics through sort (kthvalue, median,
// quantile), and rearranging (unbind, movedim, swapaxes, meshgrid, repeatInterleave). Each is a
// function (sg.lerp(a, b, w)) and a Tensor method (a.lerp(b, w)), differentiable through the ops
// it is made of, with PyTorch 1.13's values and gradients
// (tests/data/gen_ops_compose.py). Temporaries are freed (tidy); an argument of the wrong kind is
// an Error naming it.
import { tensorArg, type TensorLike } from '../runtime/call.js';
import { zeros } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, noOptions, ops, type Dim, type MethodsOf } from './ops.js';
import { moreOps, type SortResult } from './ops_registry_breadth.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface NanToNumOptions {
  /** What NaN becomes (default 0). */
  nan?: number;
  /** What +∞ becomes (default the largest float32). */
  posinf?: number;
  /** What −∞ becomes (default the lowest float32). */
  neginf?: number;
}
export interface AddmmOptions {
  /** Factor of input (default 1; 0 ignores it, NaN included, as PyTorch). */
  beta?: number;
  /** Factor of the product (default 1). */
  alpha?: number;
}
export interface MeshgridOptions {
  /** 'ij' (matrix indexing, PyTorch's default) or 'xy' (Cartesian: the first two dims swapped). */
  indexing?: 'ij' | 'xy';
}

export interface ComposeOpFunctions {
  isnan(input: TensorLike): Tensor;
  isinf(input: TensorLike): Tensor;
  isfinite(input: TensorLike): Tensor;
  nanToNum(input: TensorLike, options?: NanToNumOptions): Tensor;
  amax(input: TensorLike, dim?: Dim, keepdim?: boolean): Tensor;
  amin(input: TensorLike, dim?: Dim, keepdim?: boolean): Tensor;
  /** start + weight·(end − start), PyTorch's two-sided formula (exact at weight 0 and 1). */
  lerp(input: TensorLike, end: TensorLike, weight: TensorLike): Tensor;
  /** log(eˣ + eʸ) without overflow. */
  logaddexp(input: TensorLike, other: TensorLike): Tensor;
  /** x·log(y), 0 where x is 0 (unless y is NaN). */
  xlogy(input: TensorLike, other: TensorLike): Tensor;
  /** log(p / (1 − p)), p clamped to [eps, 1 − eps] when eps is given. */
  logit(input: TensorLike, eps?: number): Tensor;
  /** sin(πx) / (πx), 1 at 0. */
  sinc(input: TensorLike): Tensor;
  /** x − trunc(x). */
  frac(input: TensorLike): Tensor;
  exp2(input: TensorLike): Tensor;
  rad2deg(input: TensorLike): Tensor;
  deg2rad(input: TensorLike): Tensor;
  clampMin(input: TensorLike, min: TensorLike): Tensor;
  clampMax(input: TensorLike, max: TensorLike): Tensor;
  /** Batched product of two 3-D tensors with the same batch size. */
  bmm(input: Tensor, mat2: Tensor): Tensor;
  /** Matrix [n, m] times vector [m]. */
  mv(input: Tensor, vec: Tensor): Tensor;
  /** Inner product of two 1-D tensors of one size. */
  dot(input: Tensor, other: Tensor): Tensor;
  /** beta·input + alpha·(mat1 · mat2), mat1 and mat2 2-D. */
  addmm(input: TensorLike, mat1: Tensor, mat2: Tensor, options?: AddmmOptions): Tensor;
  /** Sum of the main diagonal of a 2-D tensor. */
  trace(input: Tensor): Tensor;
  /** The slices along dim, without it. */
  unbind(input: Tensor, dim?: number): Tensor[];
  /** Dims `source` moved to positions `destination` (numbers or arrays of one length), the others in order. */
  movedim(input: Tensor, source: number | readonly number[], destination: number | readonly number[]): Tensor;
  swapaxes(input: Tensor, axis0: number, axis1: number): Tensor;
  /** Each element repeated `repeats` times along dim (flattened first when dim is not given). */
  repeatInterleave(input: Tensor, repeats: number, dim?: number): Tensor;
  /** Cross product of 3-vectors along dim (default: the first dim of size 3, as PyTorch 1.13). */
  cross(input: Tensor, other: Tensor, dim?: number): Tensor;
  /** The k-th smallest (1-based) along dim and its position; NaN counts as the largest. */
  kthvalue(input: Tensor, k: number, dim?: number, keepdim?: boolean): SortResult;
  /**
   * The lower median: of all elements (a 0-d tensor) without dim, else `{ values, indices }` along
   * dim. NaN if any element is NaN (its position then), as PyTorch.
   */
  median(input: Tensor): Tensor;
  median(input: Tensor, dim: number, keepdim?: boolean): SortResult;
  /**
   * The q-quantiles (q a number or a list/1-D tensor in [0, 1]) of all elements or along dim;
   * a list of q adds a leading dim. NaN if the row holds a NaN.
   */
  quantile(input: Tensor, q: number | readonly number[] | Tensor, dim?: number | null, keepdim?: boolean, options?: QuantileOptions): Tensor;
}

export interface QuantileOptions {
  /** Between the two order statistics around q·(n − 1): 'linear' (default), 'lower', 'higher', 'midpoint', 'nearest' (half to even). */
  interpolation?: 'linear' | 'lower' | 'higher' | 'midpoint' | 'nearest';
}

/** The methods derived from ComposeOpFunctions: the first argument becomes `this`. */
export type ComposeOpMethods = MethodsOf<ComposeOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends ComposeOpMethods {}
}

const FLOAT32_MAX = 3.4028234663852886e38;
const where = functionOps.where;

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

/** beta·input + alpha·product() (addmm and its kin); beta = 0 does not read input, so its NaNs do not propagate (PyTorch). */
export function scaledSum(input: TensorLike, product: () => Tensor, beta: number, alpha: number): Tensor {
  return tidy(() => {
    const p = alpha === 1 ? product() : ops.mul(product(), alpha);
    if (beta === 0) return p;
    return ops.add(beta === 1 ? input : ops.mul(input, beta), p);
  });
}

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
    if (x.ndim === 0) return { values: ops.clone(x), indices: zeros([], { dtype: 'int32', device: x.device }) };
    const n = x.shape[d]!;
    if (n === 0) throw new Error(`${fn}: expected a non-empty input along dim ${d}`);
    const s = moreOps.sort(x, d);
    const k = pick(n);
    const nans = ops.sum(composeOps.isnan(x).int(), d, true);  // NaNs of each row
    const hasNan = ops.gt(nans, 0);
    // The first NaN's sorted position is n − (NaN count); clamp for the rows without one.
    const firstNan = ops.clamp(ops.sub(n, nans), 0, n - 1).int();
    const pos = where(hasNan, firstNan, k).int();
    const values = ops.gather(s.values, d, pos);
    const indices = ops.gather(s.indices, d, pos);
    return keepdim ? { values, indices } : { values: ops.squeeze(values, d), indices: ops.squeeze(indices, d) };
  });
}

/** Whether x can hold NaN or ±∞ (float32; int32 and bool cannot). */
const isFloat = (x: TensorLike) => typeof x === 'number' || (x instanceof Tensor && x.dtype === 'float32');

export const composeOps: ComposeOpFunctions = {
  isnan(input, trailing?: unknown) {
    noOptions('isnan', trailing);
    return ops.ne(input, input);
  },
  isinf(input, trailing?: unknown) {
    noOptions('isinf', trailing);
    return isFloat(input) ? tidy(() => ops.eq(ops.abs(input), Infinity)) : ops.ne(input, input);
  },
  isfinite(input, trailing?: unknown) {
    noOptions('isfinite', trailing);
    // x − x is 0 for every finite x, NaN for ±∞ and NaN.
    return isFloat(input) ? tidy(() => ops.eq(ops.sub(input, input), 0)) : ops.eq(input, input);
  },
  nanToNum(input, options) {
    const o = checkOptions<NanToNumOptions>('nanToNum', options, { nan: 'number', posinf: 'number', neginf: 'number' });
    if (!isFloat(input)) return ops.clone(input);
    return tidy(() => {
      const fin = where(ops.eq(input, -Infinity), o.neginf ?? -FLOAT32_MAX, input);
      const pos = where(ops.eq(input, Infinity), o.posinf ?? FLOAT32_MAX, fin);
      return where(ops.ne(input, input), o.nan ?? 0, pos);
    });
  },
  amax(input, dim, keepdim, trailing?: unknown) {
    noOptions('amax', trailing);
    return ops.max(input, dim, keepdim);
  },
  amin(input, dim, keepdim, trailing?: unknown) {
    noOptions('amin', trailing);
    return ops.min(input, dim, keepdim);
  },
  lerp(input, end, weight, trailing?: unknown) {
    noOptions('lerp', trailing);
    // PyTorch's kernel: the formula exact at its own end (weight 0 → start, 1 → end).
    return tidy(() => {
      const diff = ops.sub(end, input);
      const low = () => ops.add(input, ops.mul(weight, diff));
      const high = () => ops.sub(end, ops.mul(diff, ops.sub(1, weight)));
      if (typeof weight === 'number') return Math.abs(weight) < 0.5 ? low() : high();
      return where(ops.lt(ops.abs(weight), 0.5), low(), high());
    });
  },
  logaddexp(input, other, trailing?: unknown) {
    noOptions('logaddexp', trailing);
    return tidy(() => {
      const m = ops.maximum(input, other);
      const general = ops.add(m, ops.log1p(ops.exp(ops.neg(ops.abs(ops.sub(input, other))))));
      // Equal infinities: log(e^∞ + e^∞) = ∞ and log(0 + 0) = −∞ (the difference would be NaN).
      return where(moreOps.logicalAnd(composeOps.isinf(input), ops.eq(input, other)), input, general);
    });
  },
  xlogy(input, other, trailing?: unknown) {
    noOptions('xlogy', trailing);
    // x · L with L = log(y), or 0 where x is 0 and y ≤ 0 (0 · log(0) would be NaN): PyTorch's value
    // and its gradients, log(y) masked the same way for x and x / y for y.
    return tidy(() => {
      const masked = moreOps.logicalAnd(ops.eq(input, 0), ops.le(other, 0));
      return ops.mul(input, where(masked, 0, ops.log(other)));
    });
  },
  logit(input, eps, trailing?: unknown) {
    noOptions('logit', trailing);
    if (eps !== undefined && eps !== null && (typeof eps !== 'number' || !(eps >= 0 && eps <= 0.5))) {
      throw new Error(`logit: expected 'eps' to be a number in [0, 0.5] or nothing, got ${describe(eps)}`);
    }
    return tidy(() => {
      const p = eps === undefined || eps === null ? input : ops.clamp(input, eps, 1 - eps);
      return ops.log(ops.div(p, ops.sub(1, p)));
    });
  },
  sinc(input, trailing?: unknown) {
    noOptions('sinc', trailing);
    // Near 0, sin(u)/u's gradient cos(u)/u − sin(u)/u² is a difference of two large terms that
    // float32 cancels (at x = 1e-4 it came out 0 or −1.9e-4 for −3.3e-4). For |u| < 0.5 the
    // Taylor series 1 − u²/6 + u⁴/120 − u⁶/5040 + u⁸/362880 (next term < 3e-11) gives value and
    // gradient without the cancellation; past it the quotient loses at most ~10× an ulp.
    return tidy(() => {
      const u = ops.mul(input, Math.PI);
      const small = ops.lt(ops.abs(u), 0.5);
      const far = where(small, 1, u);  // the quotient's input: 1 where the series is used
      const s = ops.square(where(small, u, 0));
      const series = ops.add(1, ops.mul(s, ops.add(-1 / 6, ops.mul(s, ops.add(1 / 120, ops.mul(s, ops.add(-1 / 5040, ops.div(s, 362880))))))));
      return where(small, series, ops.div(ops.sin(far), far));
    });
  },
  frac(input, trailing?: unknown) {
    noOptions('frac', trailing);
    return tidy(() => ops.sub(input, moreOps.trunc(input)));
  },
  exp2(input, trailing?: unknown) {
    noOptions('exp2', trailing);
    return ops.pow(2, input);
  },
  rad2deg(input, trailing?: unknown) {
    noOptions('rad2deg', trailing);
    return ops.mul(input, 180 / Math.PI);
  },
  deg2rad(input, trailing?: unknown) {
    noOptions('deg2rad', trailing);
    return ops.mul(input, Math.PI / 180);
  },
  clampMin(input, min, trailing?: unknown) {
    noOptions('clampMin', trailing);
    return ops.clamp(input, min, null);
  },
  clampMax(input, max, trailing?: unknown) {
    noOptions('clampMax', trailing);
    return ops.clamp(input, null, max);
  },
  bmm(input, mat2, trailing?: unknown) {
    noOptions('bmm', trailing);
    const a = tensorOf('bmm', 'input', input, 3), b = tensorOf('bmm', 'mat2', mat2, 3);
    if (a.shape[0] !== b.shape[0]) throw new Error(`bmm: expected batch sizes to match, got ${a.shape[0]} and ${b.shape[0]}`);
    return ops.matmul(a, b);
  },
  mv(input, vec, trailing?: unknown) {
    noOptions('mv', trailing);
    return ops.matmul(tensorOf('mv', 'input', input, 2), tensorOf('mv', 'vec', vec, 1));
  },
  dot(input, other, trailing?: unknown) {
    noOptions('dot', trailing);
    const a = tensorOf('dot', 'input', input, 1), b = tensorOf('dot', 'other', other, 1);
    if (a.shape[0] !== b.shape[0]) throw new Error(`dot: expected 1-D tensors of one size, got ${a.shape[0]} and ${b.shape[0]}`);
    return ops.matmul(a, b);
  },
  addmm(input, mat1, mat2, options) {
    const o = checkOptions<AddmmOptions>('addmm', options, { beta: 'number', alpha: 'number' });
    const m1 = tensorOf('addmm', 'mat1', mat1, 2), m2 = tensorOf('addmm', 'mat2', mat2, 2);
    return scaledSum(input, () => ops.matmul(m1, m2), o.beta ?? 1, o.alpha ?? 1);
  },
  trace(input, trailing?: unknown) {
    noOptions('trace', trailing);
    const x = tensorOf('trace', 'input', input, 2);
    return tidy(() => ops.sum(moreOps.diag(x)));
  },
  unbind(input, dim = 0, trailing?: unknown) {
    noOptions('unbind', trailing);
    const x = tensorOf('unbind', 'input', input);
    const d = dimArg('unbind', 'dim', dim, x.ndim);
    return tidy(() => ops.split(x, 1, d).map((t) => ops.squeeze(t, d)));
  },
  movedim(input, source, destination, trailing?: unknown) {
    noOptions('movedim', trailing);
    const x = tensorOf('movedim', 'input', input);
    const list = (name: string, v: unknown) => (Array.isArray(v) ? v : [v]).map((d, i) => dimArg('movedim', `${name}[${i}]`, d, x.ndim));
    const src = list('source', source), dst = list('destination', destination);
    if (src.length !== dst.length) throw new Error(`movedim: expected 'source' and 'destination' of one length, got ${src.length} and ${dst.length}`);
    if (new Set(src).size !== src.length || new Set(dst).size !== dst.length) throw new Error('movedim: repeated dims in source or destination');
    const order = new Array<number>(x.ndim).fill(-1);
    src.forEach((s, i) => (order[dst[i]!] = s));
    const rest = [...Array(x.ndim).keys()].filter((d) => !src.includes(d));
    for (let d = 0, k = 0; d < x.ndim; d++) if (order[d] === -1) order[d] = rest[k++]!;
    return ops.permute(x, ...order);
  },
  swapaxes(input, axis0, axis1, trailing?: unknown) {
    noOptions('swapaxes', trailing);
    return ops.transpose(input, axis0, axis1);
  },
  repeatInterleave(input, repeats, dim, trailing?: unknown) {
    noOptions('repeatInterleave', trailing);
    const x = tensorOf('repeatInterleave', 'input', input);
    if (!isInteger(repeats) || repeats < 0) {
      throw new Error(`repeatInterleave: expected 'repeats' to be an integer >= 0 (a tensor of repeats is not supported), got ${describe(repeats)}`);
    }
    return tidy(() => {
      const src = dim === undefined || dim === null ? ops.flatten(x) : x;
      const d = dimArg('repeatInterleave', 'dim', dim ?? 0, src.ndim);
      const shape = src.shape;
      const expanded = [...shape.slice(0, d + 1), repeats, ...shape.slice(d + 1)];
      const grown = ops.expand(ops.unsqueeze(src, d + 1), expanded);
      return ops.reshape(grown, [...shape.slice(0, d), shape[d]! * repeats, ...shape.slice(d + 1)]);
    });
  },
  cross(input, other, dim, trailing?: unknown) {
    noOptions('cross', trailing);
    const a = tensorOf('cross', 'input', input), b = tensorOf('cross', 'other', other);
    const shapes = `[${a.shape.join(', ')}] and [${b.shape.join(', ')}]`;
    if (a.ndim !== b.ndim) throw new Error(`cross: expected inputs with the same number of dims (others broadcast), got shapes ${shapes}`);
    let d: number;
    if (dim === undefined || dim === null) {
      d = a.shape.findIndex((n, k) => n === 3 && b.shape[k] === 3);
      if (d < 0) throw new Error(`cross: no dim of size 3 in shapes ${shapes}; give 'dim'`);
    } else {
      d = dimArg('cross', 'dim', dim, a.ndim);
    }
    if (a.shape[d] !== 3 || b.shape[d] !== 3) throw new Error(`cross: expected dim ${d} of both inputs to have size 3, got shapes ${shapes}`);
    return tidy(() => {
      const [a0, a1, a2] = [0, 1, 2].map((k) => ops.narrow(a, d, k, 1));
      const [b0, b1, b2] = [0, 1, 2].map((k) => ops.narrow(b, d, k, 1));
      const c = (p: Tensor, q: Tensor, r: Tensor, t: Tensor) => ops.sub(ops.mul(p, q), ops.mul(r, t));
      return functionOps.cat([c(a1!, b2!, a2!, b1!), c(a2!, b0!, a0!, b2!), c(a0!, b1!, a1!, b0!)], d);
    });
  },
  kthvalue(input, k, dim = -1, keepdim = false, trailing?: unknown) {
    noOptions('kthvalue', trailing);
    const x = tensorOf('kthvalue', 'input', input);
    const d = dimArg('kthvalue', 'dim', dim, x.ndim);
    const n = x.ndim === 0 ? 1 : x.shape[d]!;
    if (!isInteger(k) || k < 1 || k > n) throw new Error(`kthvalue: expected 'k' to be an integer in [1, ${n}], got ${describe(k)}`);
    return orderStatistic('kthvalue', x, d, () => k - 1, keepdim);
  },
  median(input: Tensor, dim?: number, keepdim: boolean = false, trailing?: unknown): Tensor & SortResult {
    noOptions('median', trailing);
    const x = tensorOf('median', 'input', input);
    if (dim === undefined || dim === null) {
      return tidy(() => orderStatistic('median', ops.flatten(x), 0, (n) => (n - 1) >> 1, false).values) as Tensor & SortResult;
    }
    return orderStatistic('median', x, dimArg('median', 'dim', dim, x.ndim), (n) => (n - 1) >> 1, keepdim) as Tensor & SortResult;
  },
  quantile(input, q, dim, keepdim = false, options) {
    const o = checkOptions<QuantileOptions>('quantile', options, { interpolation: ['linear', 'lower', 'higher', 'midpoint', 'nearest'] });
    const x = tensorOf('quantile', 'input', input);
    const qs = q instanceof Tensor ? Array.from(q.dataSync()) : Array.isArray(q) ? q.slice() : [q];
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
      const sorted = moreOps.sort(src, d).values;
      const nanRow = composeOps.isnan(moreOps.select(sorted, d, n - 1));
      const at = (i: number) => moreOps.select(sorted, d, i);
      const mode = o.interpolation ?? 'linear';
      const rows = qs.map((v) => {
        const rank = v * (n - 1);
        const lo = Math.floor(rank), hi = Math.ceil(rank);
        let r: Tensor;
        if (mode === 'lower') r = at(lo);
        else if (mode === 'higher') r = at(hi);
        else if (mode === 'nearest') r = at(roundHalfEven(rank));
        else r = composeOps.lerp(at(lo), at(hi), mode === 'midpoint' ? (lo === hi ? 0 : 0.5) : rank - lo);
        r = where(nanRow, NaN, r);
        return flat ? r : keepdim ? ops.unsqueeze(r, d) : r;
      });
      const out = scalar ? rows[0]! : functionOps.stack(rows, 0);
      return flat && keepdim ? ops.reshape(out, [...(scalar ? [] : [qs.length]), ...x.shape.map(() => 1)]) : out;
    });
  },
};

installMethods(composeOps);

/** Functions only (no method form): meshgrid takes a list. */
export const composeFunctionOps = {
  /** Grids from 1-D tensors: output i has tensor i's values along dim i (with 'xy', dims 0 and 1 swapped). */
  meshgrid(...args: unknown[]): Tensor[] {
    let options: MeshgridOptions | undefined;
    if (args.length && !(args.at(-1) instanceof Tensor) && !Array.isArray(args.at(-1))) options = args.pop() as MeshgridOptions;
    const o = checkOptions<MeshgridOptions>('meshgrid', options, { indexing: ['ij', 'xy'] });
    const list = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args) as unknown[];
    const ts = list.map((t, i) => tensorOf('meshgrid', `tensors[${i}]`, t, 1));
    if (ts.length === 0) throw new Error('meshgrid: expected at least one tensor');
    const xy = o.indexing === 'xy' && ts.length >= 2;
    const order = xy ? [ts[1]!, ts[0]!, ...ts.slice(2)] : ts;
    const shape = order.map((t) => t.shape[0]!);
    return tidy(() => {
      const grids = order.map((t, i) => ops.expand(ops.reshape(t, shape.map((n, j) => (j === i ? n : 1))), shape));
      return xy ? [grids[1]!, grids[0]!, ...grids.slice(2)] : grids;
    });
  },
};
