// More PyTorch functions that ports reach for, each a composition of existing ops (so each is
// differentiable through them, runs on every device and traces under sg.compile): the fused
// arithmetic spellings (addcmul, addcdiv, baddbmm, addbmm, addmv), closeness tests (isclose,
// allclose), NaN-ignoring reductions (nansum, nanmean), counting and extremes (countNonzero,
// aminmax, varMean, stdMean), differences and distances (diff, cdist), bucketing (bucketize,
// searchsorted, heaviside), products (inner, kron, tensordot), rearranging (takeAlongDim,
// rot90, msort, diagonal, diagEmbed) and index builders (triuIndices, trilIndices,
// cartesianProd, combinations). Values and gradients are PyTorch 1.13's
// (tests/data/gen_ops_compose_more.py); PyTorch's int64 results are int32 here.
import { tensorArg, type TensorLike } from '../runtime/call.js';
import { arange, onesLike, tensor } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, noOptions, ops, type Dim, type MethodsOf, type VarOptions } from './ops.js';
import { composeFunctionOps, composeOps, dimArg, scaledSum, tensorOf, type AddmmOptions } from './composite_a.js';
import { moreOps } from './ops_registry_breadth.js';
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface IscloseOptions {
  /** Relative tolerance (default 1e-5). */
  rtol?: number;
  /** Absolute tolerance (default 1e-8). */
  atol?: number;
  /** NaN is close to NaN (default false). */
  equalNan?: boolean;
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
export interface CdistOptions {
  /** The p-norm of the differences, p ≥ 0 (default 2; Infinity: the largest difference). */
  p?: number;
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
export interface AminmaxOptions {
  /** The dim to reduce (default: all elements). */
  dim?: number;
  keepdim?: boolean;
}
export interface CombinationsOptions {
  /** Allow an element to repeat in a combination (default false). */
  withReplacement?: boolean;
}
/** dims of tensordot: the number of trailing dims of a contracted with as many leading dims of b, or the two lists of dims. */
export type TensordotDims = number | readonly [number | readonly number[], number | readonly number[]];

export interface ComposeMoreOpFunctions {
  /** input + value·tensor1·tensor2. */
  addcmul(input: TensorLike, tensor1: TensorLike, tensor2: TensorLike, options?: { value?: number }): Tensor;
  /** input + value·tensor1 / tensor2. */
  addcdiv(input: TensorLike, tensor1: TensorLike, tensor2: TensorLike, options?: { value?: number }): Tensor;
  /** beta·input + alpha·(batch1 · batch2), batch1 and batch2 3-D. */
  baddbmm(input: TensorLike, batch1: Tensor, batch2: Tensor, options?: AddmmOptions): Tensor;
  /** beta·input + alpha·Σ_b batch1[b] · batch2[b]. */
  addbmm(input: TensorLike, batch1: Tensor, batch2: Tensor, options?: AddmmOptions): Tensor;
  /** beta·input + alpha·(mat · vec). */
  addmv(input: TensorLike, mat: Tensor, vec: Tensor, options?: AddmmOptions): Tensor;
  /** |a − b| ≤ atol + rtol·|b| elementwise (bool), or equal (infinities), or both NaN with equalNan. */
  isclose(input: Tensor, other: Tensor, options?: IscloseOptions): Tensor;
  /** Whether every element is close (isclose): a JavaScript boolean. */
  allclose(input: Tensor, other: Tensor, options?: IscloseOptions): boolean;
  /** sum treating NaN as 0. */
  nansum(input: Tensor, dim?: Dim, keepdim?: boolean): Tensor;
  /** mean of the elements that are not NaN (NaN where all are). */
  nanmean(input: Tensor, dim?: Dim, keepdim?: boolean): Tensor;
  /** The number of nonzero elements (int32), of all or along dim. */
  countNonzero(input: Tensor, dim?: Dim): Tensor;
  /** min and max in one call, of all elements or along options.dim. */
  aminmax(input: Tensor, options?: AminmaxOptions): { min: Tensor; max: Tensor };
  /** [var, mean], with var's arguments. */
  varMean(input: Tensor, dim?: Dim | VarOptions, keepdim?: boolean | VarOptions, options?: VarOptions): [Tensor, Tensor];
  /** [std, mean], with std's arguments. */
  stdMean(input: Tensor, dim?: Dim | VarOptions, keepdim?: boolean | VarOptions, options?: VarOptions): [Tensor, Tensor];
  /** The n-th forward difference along dim (bool: logical xor). */
  diff(input: Tensor, options?: DiffOptions): Tensor;
  /** Distances between the rows of x1 [..., P, M] and of x2 [..., R, M]: [..., P, R]. */
  cdist(x1: Tensor, x2: Tensor, options?: CdistOptions): Tensor;
  /** The index of each element's bucket among sorted 1-D boundaries (int32). */
  bucketize(input: Tensor, boundaries: Tensor, options?: BucketizeOptions): Tensor;
  /** 0 where x < 0, values where x = 0, 1 where x > 0. */
  heaviside(input: Tensor, values: TensorLike): Tensor;
  /** Sum over the last dims of both: shape a[:-1] + b[:-1] (a product with a 0-d one). */
  inner(input: Tensor, other: Tensor): Tensor;
  /** The Kronecker product. */
  kron(input: Tensor, other: Tensor): Tensor;
  /** Contraction of a's dims with b's (TensordotDims; default 2). */
  tensordot(a: Tensor, b: Tensor, dims?: TensordotDims): Tensor;
  /** gather along dim after broadcasting input and indices in every other dim (flattened without dim). */
  takeAlongDim(input: Tensor, indices: Tensor, dim?: number | null): Tensor;
  /** Rotated k quarter turns in the plane of dims (from dims[0] towards dims[1]). */
  rot90(input: Tensor, k?: number, dims?: readonly [number, number]): Tensor;
  /** Sorted along dim 0 (the values). */
  msort(input: Tensor): Tensor;
  /** The diagonal of the (dim1, dim2) planes, offset above (> 0) or below, as the last dim (a copy). */
  diagonal(input: Tensor, offset?: number, dim1?: number, dim2?: number): Tensor;
  /** Matrices whose (dim1, dim2) diagonal, offset, holds the last dim of input; zeros elsewhere. */
  diagEmbed(input: Tensor, offset?: number, dim1?: number, dim2?: number): Tensor;
  /** Combinations of r elements of a 1-D tensor, in lexicographic order of positions: [C, r]. */
  combinations(input: Tensor, r?: number, options?: CombinationsOptions): Tensor;
}

export type ComposeMoreOpMethods = MethodsOf<ComposeMoreOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends ComposeMoreOpMethods {}
}

const where = functionOps.where;
const TENSOR_OPTION = { check: (v: unknown) => v instanceof Tensor, expected: 'a Tensor' };
const shapeStr = (t: Tensor) => `[${t.shape.join(', ')}]`;

function numberOption(fn: string, name: string, v: unknown, fallback: number, min = -Infinity): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || Number.isNaN(v) || v < min) throw new Error(`${fn}: expected '${name}' to be a number${min > -Infinity ? ` >= ${min}` : ''}, got ${describe(v)}`);
  return v;
}

function closeness(fn: string, a: Tensor, b: Tensor, options: unknown): Tensor {
  const o = checkOptions<IscloseOptions>(fn, options, { rtol: 'number', atol: 'number', equalNan: 'boolean' });
  const rtol = numberOption(fn, 'rtol', o.rtol, 1e-5, 0), atol = numberOption(fn, 'atol', o.atol, 1e-8, 0);
  if (a.dtype !== b.dtype) throw new Error(`${fn}: expected both tensors to have the same dtype, got ${a.dtype} and ${b.dtype}`);
  return tidy(() => {
    // PyTorch's formula (TensorCompare.cpp): equal, or both NaN with equalNan, or a finite
    // |a − b| within atol + |rtol·b| (bool operands compare as float32).
    let close = ops.eq(a, b);
    if (o.equalNan && a.dtype === 'float32') close = moreOps.logicalOr(close, moreOps.logicalAnd(composeOps.isnan(a), composeOps.isnan(b)));
    if (rtol === 0 && atol === 0) return close;
    const [fa, fb] = a.dtype === 'bool' ? [a.float(), b.float()] : [a, b];
    const allowed = ops.add(ops.abs(ops.mul(fb, rtol)), atol);
    const actual = ops.abs(ops.sub(fa, fb));
    return moreOps.logicalOr(close, moreOps.logicalAnd(composeOps.isfinite(actual), ops.le(actual, allowed)));
  });
}

/** x with NaN as 0. */
const zeroNan = (x: Tensor) => (x.dtype === 'float32' ? where(composeOps.isnan(x), 0, x) : x);

/** var/std's (dim, keepdim, options) arguments, normalized: the dim and keepdim mean needs too. */
function varArgs(dim: unknown, keepdim: unknown): { dim: Dim; keepdim: boolean } {
  if (isOptionsObject(dim)) return { dim: undefined, keepdim: false };
  return { dim: dim as Dim, keepdim: isOptionsObject(keepdim) ? false : Boolean(keepdim) };
}

/** Counts, along the last dim, the sorted values v that come before x: !(v ≥ x) (left) or !(v > x) (right), NaN last as in PyTorch's binary search. */
function countBefore(sorted: Tensor, x: Tensor, right: boolean): Tensor {
  const after = right ? ops.gt(sorted, x) : ops.ge(sorted, x);
  return ops.sum(moreOps.logicalNot(after), -1).int();
}

function sideOf(fn: string, options: unknown, withSide: boolean): boolean {
  const spec = { right: 'boolean', outInt32: 'boolean', ...(withSide ? { side: ['left', 'right'] } : {}) } as const;
  const o = checkOptions<SearchsortedOptions>(fn, options, spec);
  if (o.side !== undefined && o.right !== undefined && (o.side === 'right') !== o.right) {
    throw new Error(`${fn}: side and right can't be set to opposites, got side '${o.side}' and right ${o.right}`);
  }
  return o.side === 'right' || o.right === true;
}

/** The dims a tensordot contracts, as two lists of non-negative dims. */
function contractedDims(a: Tensor, b: Tensor, dims: unknown): [number[], number[]] {
  if (isInteger(dims)) {
    if (dims < 0 || dims > a.ndim || dims > b.ndim) {
      throw new Error(`tensordot: expected 'dims' to be an integer in [0, ${Math.min(a.ndim, b.ndim)}], got ${dims}`);
    }
    return [[...Array(dims).keys()].map((k) => a.ndim - dims + k), [...Array(dims).keys()]];
  }
  if (!Array.isArray(dims) || dims.length !== 2) {
    throw new Error(`tensordot: expected 'dims' to be an integer or two lists of dims, got ${describe(dims)}`);
  }
  const list = (v: unknown, t: Tensor, which: string) => (Array.isArray(v) ? v : [v]).map((d, i) => dimArg('tensordot', `dims[${which}][${i}]`, d, t.ndim));
  const da = list(dims[0], a, '0'), db = list(dims[1], b, '1');
  if (da.length !== db.length) throw new Error(`tensordot: expected both lists of dims to have one length, got ${da.length} and ${db.length}`);
  return [da, db];
}

function matrixProductTerms(fn: string, input: TensorLike, product: () => Tensor, options: unknown): Tensor {
  const o = checkOptions<AddmmOptions>(fn, options, { beta: 'number', alpha: 'number' });
  return scaledSum(input, product, o.beta ?? 1, o.alpha ?? 1);
}

export const composeMoreOps: ComposeMoreOpFunctions = {
  addcmul(input, tensor1, tensor2, options) {
    const value = numberOption('addcmul', 'value', checkOptions<{ value: number }>('addcmul', options, { value: 'number' }).value, 1);
    // ATen's order: input + (value·t1)·t2.
    return tidy(() => ops.add(input, ops.mul(ops.mul(tensor1, value), tensor2)));
  },
  addcdiv(input, tensor1, tensor2, options) {
    const value = numberOption('addcdiv', 'value', checkOptions<{ value: number }>('addcdiv', options, { value: 'number' }).value, 1);
    return tidy(() => ops.add(input, ops.div(ops.mul(tensor1, value), tensor2)));
  },
  baddbmm(input, batch1, batch2, options) {
    const b1 = tensorOf('baddbmm', 'batch1', batch1, 3), b2 = tensorOf('baddbmm', 'batch2', batch2, 3);
    return matrixProductTerms('baddbmm', input, () => composeOps.bmm(b1, b2), options);
  },
  addbmm(input, batch1, batch2, options) {
    const b1 = tensorOf('addbmm', 'batch1', batch1, 3), b2 = tensorOf('addbmm', 'batch2', batch2, 3);
    return matrixProductTerms('addbmm', input, () => ops.sum(composeOps.bmm(b1, b2), 0), options);
  },
  addmv(input, mat, vec, options) {
    const m = tensorOf('addmv', 'mat', mat, 2), v = tensorOf('addmv', 'vec', vec, 1);
    return matrixProductTerms('addmv', input, () => composeOps.mv(m, v), options);
  },
  isclose(input, other, options) {
    return closeness('isclose', tensorOf('isclose', 'input', input), tensorOf('isclose', 'other', other), options);
  },
  allclose(input, other, options) {
    const a = tensorOf('allclose', 'input', input), b = tensorOf('allclose', 'other', other);
    if (a.device !== 'cpu' || b.device !== 'cpu') {
      throw new Error(`allclose: returns a boolean, read synchronously, and these tensors are on '${a.device === 'cpu' ? b.device : a.device}'; use \`(await sg.isclose(a, b).all().data())[0] === 1\``);
    }
    return tidy(() => moreOps.all(closeness('allclose', a, b, options)).item() !== 0);
  },
  nansum(input, dim, keepdim = false, trailing?: unknown) {
    noOptions('nansum', trailing);
    const x = tensorOf('nansum', 'input', input);
    return tidy(() => ops.sum(zeroNan(x), dim, keepdim));
  },
  nanmean(input, dim, keepdim = false, trailing?: unknown) {
    noOptions('nanmean', trailing);
    const x = tensorOf('nanmean', 'input', input);
    if (x.dtype !== 'float32') throw new Error(`nanmean: expected input to have a floating point dtype, got ${x.dtype}`);
    return tidy(() => ops.div(ops.sum(zeroNan(x), dim, keepdim), ops.sum(moreOps.logicalNot(composeOps.isnan(x)).float(), dim, keepdim)));
  },
  countNonzero(input, dim, trailing?: unknown) {
    noOptions('countNonzero', trailing);
    const x = tensorOf('countNonzero', 'input', input);
    return tidy(() => ops.sum(ops.ne(x, 0).int(), dim).int());
  },
  aminmax(input, options) {
    const x = tensorOf('aminmax', 'input', input);
    const o = checkOptions<AminmaxOptions>('aminmax', options, { dim: 'integer', keepdim: 'boolean' });
    if (x.numel === 0) throw new Error(`aminmax: expected a non-empty input, got shape ${shapeStr(x)}`);
    const d = o.dim === undefined ? undefined : dimArg('aminmax', 'dim', o.dim, x.ndim);
    const keepdim = o.keepdim ?? false;
    return tidy(() => ({ min: composeOps.amin(x, d, keepdim), max: composeOps.amax(x, d, keepdim) }));
  },
  varMean(input, dim, keepdim, options) {
    const m = varArgs(dim, keepdim);
    return tidy(() => [ops.var(input, dim, keepdim, options), ops.mean(input, m.dim, m.keepdim)]);
  },
  stdMean(input, dim, keepdim, options) {
    const m = varArgs(dim, keepdim);
    return tidy(() => [ops.std(input, dim, keepdim, options), ops.mean(input, m.dim, m.keepdim)]);
  },
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
        h = h.dtype === 'bool' ? moreOps.logicalXor(hi, lo) : ops.sub(hi, lo);
      }
      return n === 0 ? ops.clone(h) : h;
    });
  },
  cdist(x1, x2, options) {
    const a = tensorOf('cdist', 'x1', x1), b = tensorOf('cdist', 'x2', x2);
    const o = checkOptions<CdistOptions>('cdist', options, { p: 'numberOrInfinity' });
    const p = o.p ?? 2;
    if (!(p >= 0)) throw new Error(`cdist: expected 'p' to be a number >= 0, got ${p}`);
    if (a.ndim < 2 || b.ndim < 2) throw new Error(`cdist: expected x1 and x2 with at least 2 dims, got shapes ${shapeStr(a)} and ${shapeStr(b)}`);
    if (a.shape.at(-1) !== b.shape.at(-1)) {
      throw new Error(`cdist: expected x1 and x2 to have the same last dim, got shapes ${shapeStr(a)} and ${shapeStr(b)}`);
    }
    return tidy(() => {
      // PyTorch's default compute mode: for p = 2 with more than 25 rows on either side, the
      // matrix-product form (_euclidean_dist: |a|² + |b|² − 2a·b as one product of padded
      // operands, clamped at 1e-30 before the square root); otherwise the norms of the differences.
      if (p === 2 && (a.shape.at(-2)! > 25 || b.shape.at(-2)! > 25)) {
        const an = ops.sum(ops.square(a), -1, true), bn = ops.sum(ops.square(b), -1, true);
        const left = functionOps.cat([ops.mul(a, -2), an, onesLike(an)], -1);
        const right = functionOps.cat([b, onesLike(bn), bn], -1);
        return ops.sqrt(composeOps.clampMin(ops.matmul(left, ops.transpose(right, -2, -1)), 1e-30));
      }
      return ops.norm(ops.sub(ops.unsqueeze(a, -2), ops.unsqueeze(b, -3)), p, -1);
    });
  },
  bucketize(input, boundaries, options) {
    const x = tensorOf('bucketize', 'input', input), bs = tensorOf('bucketize', 'boundaries', boundaries, 1);
    const right = sideOf('bucketize', options, false);
    return tidy(() => countBefore(bs, ops.unsqueeze(x, -1), right));
  },
  heaviside(input, values, trailing?: unknown) {
    noOptions('heaviside', trailing);
    const x = tensorOf('heaviside', 'input', input);
    return tidy(() => where(ops.eq(x, 0), values, ops.gt(x, 0).float()));
  },
  inner(input, other, trailing?: unknown) {
    noOptions('inner', trailing);
    const a = tensorOf('inner', 'input', input), b = tensorOf('inner', 'other', other);
    if (a.ndim === 0 || b.ndim === 0) return ops.mul(a, b);
    if (a.shape.at(-1) !== b.shape.at(-1)) {
      throw new Error(`inner: expected the last dims of both inputs to match, got shapes ${shapeStr(a)} and ${shapeStr(b)}`);
    }
    return composeMoreOps.tensordot(a, b, [[-1], [-1]]);
  },
  kron(input, other, trailing?: unknown) {
    noOptions('kron', trailing);
    const a = tensorOf('kron', 'input', input), b = tensorOf('kron', 'other', other);
    const nd = Math.max(a.ndim, b.ndim);
    const pad = (s: readonly number[]) => [...Array(nd - s.length).fill(1), ...s];
    const [sa, sb] = [pad(a.shape), pad(b.shape)];
    return tidy(() => {
      // out[i·|b| + j] = a[i]·b[j] in every dim: a's dims interleaved with b's, a's outer.
      const ai = ops.reshape(a, sa.flatMap((n) => [n, 1]));
      const bi = ops.reshape(b, sb.flatMap((n) => [1, n]));
      return ops.reshape(ops.mul(ai, bi), sa.map((n, k) => n * sb[k]!));
    });
  },
  tensordot(a, b, dims = 2) {
    const x = tensorOf('tensordot', 'a', a), y = tensorOf('tensordot', 'b', b);
    const [da, db] = contractedDims(x, y, dims);
    da.forEach((d, k) => {
      if (x.shape[d] !== y.shape[db[k]!]) {
        throw new Error(`tensordot: contracted dims must match, got size ${x.shape[d]} in dim ${d} of a and ${y.shape[db[k]!]} in dim ${db[k]} of b`);
      }
    });
    if (new Set(da).size !== da.length || new Set(db).size !== db.length) throw new Error('tensordot: repeated dims in dims');
    const freeA = [...x.shape.keys()].filter((d) => !da.includes(d)), freeB = [...y.shape.keys()].filter((d) => !db.includes(d));
    const size = (t: Tensor, ds: number[]) => ds.reduce((p, d) => p * t.shape[d]!, 1);
    return tidy(() => {
      const am = ops.reshape(ops.permute(x, ...freeA, ...da), [size(x, freeA), size(x, da)]);
      const bm = ops.reshape(ops.permute(y, ...db, ...freeB), [size(y, db), size(y, freeB)]);
      return ops.reshape(ops.matmul(am, bm), [...freeA.map((d) => x.shape[d]!), ...freeB.map((d) => y.shape[d]!)]);
    });
  },
  takeAlongDim(input, indices, dim, trailing?: unknown) {
    noOptions('takeAlongDim', trailing);
    const x = tensorOf('takeAlongDim', 'input', input), idx = tensorOf('takeAlongDim', 'indices', indices);
    if (dim === undefined || dim === null) return tidy(() => ops.gather(ops.flatten(x), 0, ops.flatten(idx)));
    if (x.ndim !== idx.ndim) {
      throw new Error(`takeAlongDim: expected input and indices with the same number of dims, got shapes ${shapeStr(x)} and ${shapeStr(idx)}`);
    }
    const d = dimArg('takeAlongDim', 'dim', dim, x.ndim);
    // Every dim but d broadcasts (PyTorch's take_along_dim); along d, each keeps its own size.
    const common = x.shape.map((n, k) => {
      if (k === d) return 0;
      const m = idx.shape[k]!;
      if (n !== m && n !== 1 && m !== 1) {
        throw new Error(`takeAlongDim: shapes ${shapeStr(x)} and ${shapeStr(idx)} do not broadcast in dim ${k} (${n} and ${m})`);
      }
      return n === 1 ? m : n;
    });
    return tidy(() => {
      const xs = ops.expand(x, common.map((n, k) => (k === d ? x.shape[d]! : n)));
      const is = ops.expand(idx, common.map((n, k) => (k === d ? idx.shape[d]! : n)));
      return ops.gather(xs, d, is);
    });
  },
  rot90(input, k = 1, dims = [0, 1], trailing?: unknown) {
    noOptions('rot90', trailing);
    const x = tensorOf('rot90', 'input', input);
    if (!isInteger(k)) throw new Error(`rot90: expected 'k' to be an integer, got ${describe(k)}`);
    if (!Array.isArray(dims) || dims.length !== 2) throw new Error(`rot90: expected 'dims' to be two dims, got ${describe(dims)}`);
    if (x.ndim < 2) throw new Error(`rot90: expected an input with at least 2 dims, got shape ${shapeStr(x)}`);
    const [d0, d1] = dims.map((d, i) => dimArg('rot90', `dims[${i}]`, d, x.ndim)) as [number, number];
    if (d0 === d1) throw new Error(`rot90: expected two different dims, got ${d0} and ${d1}`);
    const turns = ((k % 4) + 4) % 4;
    return tidy(() => {
      if (turns === 0) return ops.clone(x);
      if (turns === 2) return moreOps.flip(x, [d0, d1]);
      return ops.transpose(moreOps.flip(x, [turns === 1 ? d1 : d0]), d0, d1);
    });
  },
  msort(input, trailing?: unknown) {
    noOptions('msort', trailing);
    const x = tensorOf('msort', 'input', input);
    return tidy(() => moreOps.sort(x, 0).values);
  },
  diagonal(input, offset = 0, dim1 = 0, dim2 = 1, trailing?: unknown) {
    noOptions('diagonal', trailing);
    const x = tensorOf('diagonal', 'input', input);
    if (!isInteger(offset)) throw new Error(`diagonal: expected 'offset' to be an integer, got ${describe(offset)}`);
    if (x.ndim < 2) throw new Error(`diagonal: expected an input with at least 2 dims, got shape ${shapeStr(x)}`);
    const d1 = dimArg('diagonal', 'dim1', dim1, x.ndim), d2 = dimArg('diagonal', 'dim2', dim2, x.ndim);
    if (d1 === d2) throw new Error(`diagonal: expected two different dims, got ${d1} and ${d2}`);
    const [n, m] = [x.shape[d1]!, x.shape[d2]!];
    const len = Math.max(0, offset >= 0 ? Math.min(n, m - offset) : Math.min(n + offset, m));
    return tidy(() => {
      // The (d1, d2) planes as the last two dims, flattened: the diagonal is every (m + 1)-th
      // value from its first element.
      const planes = composeOps.movedim(x, [d1, d2], [-2, -1]);
      const flat = ops.reshape(planes, [...planes.shape.slice(0, -2), n * m]);
      if (len === 0) return ops.narrow(flat, -1, 0, 0);
      const start = offset >= 0 ? offset : -offset * m;
      return ops.slice(flat, -1, start, start + (len - 1) * (m + 1) + 1, m + 1);
    });
  },
  diagEmbed(input, offset = 0, dim1 = -2, dim2 = -1, trailing?: unknown) {
    noOptions('diagEmbed', trailing);
    const x = tensorOf('diagEmbed', 'input', input);
    if (!isInteger(offset)) throw new Error(`diagEmbed: expected 'offset' to be an integer, got ${describe(offset)}`);
    if (x.ndim === 0) throw new Error('diagEmbed: expected an input with at least 1 dim, got a 0-d tensor');
    const nd = x.ndim + 1;
    const d1 = dimArg('diagEmbed', 'dim1', dim1, nd), d2 = dimArg('diagEmbed', 'dim2', dim2, nd);
    if (d1 === d2) throw new Error(`diagEmbed: expected two different dims, got ${d1} and ${d2}`);
    const n = x.shape.at(-1)!, o = Math.abs(offset);
    return tidy(() => {
      // [..., n, n] with x's last dim on the diagonal (a selection, so ±∞ and NaN stay on it
      // and zeros around), padded by |offset| columns before and rows after (or the reverse).
      const ar = arange(n, { device: x.device });
      const square = where(ops.eq(ops.unsqueeze(ar, 1), ar), ops.unsqueeze(x, -1), 0);
      const padded = o === 0 ? square : functionOps.pad(square, offset > 0 ? [o, 0, 0, o] : [0, o, o, 0]);
      return composeOps.movedim(padded, [nd - 2, nd - 1], [d1, d2]);
    });
  },
  combinations(input, r = 2, options) {
    const x = tensorOf('combinations', 'input', input, 1);
    if (!isInteger(r) || r < 0) throw new Error(`combinations: expected 'r' to be an integer >= 0, got ${describe(r)}`);
    const o = checkOptions<CombinationsOptions>('combinations', options, { withReplacement: 'boolean' });
    const n = x.shape[0]!;
    const rows: number[][] = [];
    const pick = (from: number, chosen: number[]) => {
      if (chosen.length === r) return void rows.push(chosen);
      for (let i = from; i < n; i++) pick(o.withReplacement ? i : i + 1, [...chosen, i]);
    };
    if (r > 0) pick(0, []);
    if (r === 0) return tidy(() => ops.narrow(x, 0, 0, 0));
    return tidy(() => {
      const idx = tensor(Int32Array.from(rows.flat()), { shape: [rows.length * r], device: x.device });
      return ops.reshape(ops.indexSelect(x, 0, idx), [rows.length, r]);
    });
  },
};

installMethods(composeMoreOps);

/** Functions only (no method form): searchsorted's first argument is the sequence, the others build indices. */
export const composeMoreFunctionOps = {
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
  /** Row and column indices (int32 [2, N]) of the upper triangle of a row × col matrix, from the offset-th diagonal. */
  triuIndices(row: number, col: number, offset = 0): Tensor {
    return triangleIndices('triuIndices', row, col, offset, (i, j) => j - i >= offset);
  },
  /** Row and column indices (int32 [2, N]) of the lower triangle, up to the offset-th diagonal. */
  trilIndices(row: number, col: number, offset = 0): Tensor {
    return triangleIndices('trilIndices', row, col, offset, (i, j) => j - i <= offset);
  },
  /** The Cartesian product of 1-D tensors: [N, k] (one tensor: itself). */
  cartesianProd(...tensors: Tensor[]): Tensor {
    const ts = tensors.map((t, i) => tensorOf('cartesianProd', `tensors[${i}]`, t, 1));
    if (ts.length === 0) throw new Error('cartesianProd: expected at least one tensor');
    if (ts.length === 1) return ops.clone(ts[0]!);
    return tidy(() => ops.reshape(functionOps.stack(composeFunctionOps.meshgrid(ts, { indexing: 'ij' }), -1), [-1, ts.length]));
  },
};

function triangleIndices(fn: string, row: unknown, col: unknown, offset: unknown, keep: (i: number, j: number) => boolean): Tensor {
  for (const [name, v] of [['row', row], ['col', col]] as const) {
    if (!isInteger(v) || v < 0) throw new Error(`${fn}: expected '${name}' to be an integer >= 0, got ${describe(v)}`);
  }
  if (!isInteger(offset)) throw new Error(`${fn}: expected 'offset' to be an integer, got ${describe(offset)}`);
  const rows: number[] = [], cols: number[] = [];
  for (let i = 0; i < (row as number); i++) {
    for (let j = 0; j < (col as number); j++) {
      if (keep(i, j)) {
        rows.push(i);
        cols.push(j);
      }
    }
  }
  return tensor(Int32Array.from([...rows, ...cols]), { shape: [2, rows.length] });
}
