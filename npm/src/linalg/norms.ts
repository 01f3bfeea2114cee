// torch.linalg's norms and matrix functions that compose other ops: vectorNorm, matrixNorm,
// norm, matrixRank, matrixPower, cross. Differentiable through the ops they are made of, which
// are PyTorch's own compositions (matrix_norm's 2 and 'nuc' are svdvals' amax/amin and sum;
// vector norms are the norm op, whose gradient at 0 is 0 as PyTorch's; matrix_power is repeated
// matmul), so the gradients equal PyTorch's. Temporaries are freed (tidy).
import { tensorArg, type TensorLike } from '../tensor/call.js';
import { keywords } from '../tensor/keywords.js';
import { eye } from '../tensor/creation.js';
import { rearrangingOps } from '../tensor/rearranging.js';
import { tidy } from '../runtime/memory.js';
import { describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { linalgDecompositions as D } from './decompositions.js';

export type VectorOrd = number;
export type MatrixOrd = 'fro' | 'nuc' | number;
type Dim = number | readonly number[] | null;

export interface VectorNormOptions {
  /** p (default 2): any number, Infinity (max |x|), -Infinity (min |x|), 0 (count of nonzeros). */
  ord?: VectorOrd;
  /** The dims reduced (default all). */
  dim?: Dim;
  keepdim?: boolean;
}
export interface MatrixNormOptions {
  /** 'fro' (default), 'nuc', 2, -2 (largest, smallest singular value), 1, -1 (max, min column sum of |A|), Infinity, -Infinity (rows). */
  ord?: MatrixOrd;
  /** The two matrix dims (default [-2, -1]). */
  dim?: readonly [number, number];
  keepdim?: boolean;
}
export interface NormOptions {
  ord?: MatrixOrd | null;
  dim?: Dim;
  keepdim?: boolean;
}
export interface MatrixRankOptions {
  /** Singular values > max(atol, rtol·σ_max) count; rtol defaults to max(m, n)·eps unless atol is given (then 0). */
  atol?: number;
  rtol?: number;
  /** A is symmetric: |eigenvalues| instead of singular values. */
  hermitian?: boolean;
}
export interface CrossOptions {
  /** The dim of size 3 (default -1). */
  dim?: number;
}

export interface LinalgNorms {
  vectorNorm(x: TensorLike, ord?: VectorOrd, dim?: Dim, keepdim?: boolean): Tensor;
  vectorNorm(x: TensorLike, options: VectorNormOptions): Tensor;
  matrixNorm(A: TensorLike, ord?: MatrixOrd, dim?: readonly [number, number], keepdim?: boolean): Tensor;
  matrixNorm(A: TensorLike, options: MatrixNormOptions): Tensor;
  /** torch.linalg.norm: a vector norm over one dim (or all, flattened, when neither ord nor dim is given), a matrix norm over two. */
  norm(A: TensorLike, ord?: MatrixOrd | null, dim?: Dim, keepdim?: boolean): Tensor;
  norm(A: TensorLike, options: NormOptions): Tensor;
  /** The number of singular values above the tolerance (int32). */
  matrixRank(A: TensorLike, options?: MatrixRankOptions): Tensor;
  /** Aⁿ for an integer n (n < 0: the inverse's power; n = 0: the identity). */
  matrixPower(A: TensorLike, n: number): Tensor;
  /** The cross product of 3-vectors along `dim`, batch dims broadcast. */
  cross(a: TensorLike, b: TensorLike, options?: CrossOptions): Tensor;
}

const dimsOf = (dim: Dim | undefined): number[] | undefined =>
  dim === undefined || dim === null ? undefined : typeof dim === 'number' ? [dim] : dim.slice();

function vectorNorm(fn: string, x: Tensor, ord: unknown, dim: Dim | undefined, keepdim: boolean): Tensor {
  if (typeof ord !== 'number' || Number.isNaN(ord)) throw new Error(`${fn}: expected 'ord' to be a number (Infinity and -Infinity included), got ${describe(ord)}`);
  const dims = dimsOf(dim);
  return tidy(() => {
    // The norm op takes p ≥ 0 and ±inf; a negative finite p is (Σ|x|ᵖ)^(1/p) (PyTorch's too).
    if (ord >= 0 || !Number.isFinite(ord)) return dims ? x.norm(ord, dims, keepdim) : keepdim ? x.norm(ord, x.shape.map((_, i) => i), true) : x.norm(ord);
    const s = dims ? x.abs().pow(ord).sum(dims, keepdim) : keepdim ? x.abs().pow(ord).sum(x.shape.map((_, i) => i), true) : x.abs().pow(ord).sum();
    return s.pow(1 / ord);
  });
}

function normalizeDim(fn: string, d: number, ndim: number): number {
  if (!isInteger(d) || d < -ndim || d >= ndim) throw new Error(`${fn}: expected dims in [${-ndim}, ${ndim - 1}], got ${describe(d)}`);
  return d < 0 ? d + ndim : d;
}

function matrixNorm(fn: string, A: Tensor, ord: unknown, dim: readonly number[] | undefined, keepdim: boolean): Tensor {
  if (A.ndim < 2) throw new Error(`${fn}: expected A to have at least 2 dims, got shape [${A.shape.join(', ')}]`);
  const [d0, d1] = (dim ?? [-2, -1]).map((d) => normalizeDim(fn, d, A.ndim)) as [number, number];
  if (dim !== undefined && (dim.length !== 2 || d0 === d1)) throw new Error(`${fn}: expected 'dim' to be two different dims, got ${describe(dim)}`);
  return tidy(() => {
    const restore = (t: Tensor) => (keepdim ? t.unsqueeze(Math.min(d0, d1)).unsqueeze(Math.max(d0, d1)) : t);
    switch (ord) {
      case 'fro':
        return vectorNorm(fn, A, 2, [d0, d1], keepdim);
      case 'nuc':
      case 2:
      case -2: {
        const s = D.svdvals(rearrangingOps.movedim(A, [d0, d1], [-2, -1]));
        return restore(ord === 'nuc' ? s.sum(-1) : ord === 2 ? s.amax(-1) : s.amin(-1));
      }
      case 1:
      case -1:
      case Infinity:
      case -Infinity: {
        // 1: the largest column sum (sum over rows, d0); inf: the largest row sum (over d1).
        const [sumDim, extDim] = ord === 1 || ord === -1 ? [d0, d1] : [d1, d0];
        const sums = A.abs().sum(sumDim, true);
        const e = ord === 1 || ord === Infinity ? sums.amax(extDim, true) : sums.amin(extDim, true);
        return keepdim ? e : e.squeeze(Math.max(d0, d1)).squeeze(Math.min(d0, d1));
      }
      default:
        throw new Error(`${fn}: expected 'ord' to be 'fro', 'nuc', 2, -2, 1, -1, Infinity or -Infinity, got ${describe(ord)}`);
    }
  });
}

export const linalgNorms: LinalgNorms = {
  vectorNorm: keywords('linalg.vectorNorm', ['ord', 'dim', 'keepdim'], (x: TensorLike, ord: unknown = 2, dim?: Dim, keepdim: unknown = false) =>
    vectorNorm('linalg.vectorNorm', tensorArg('linalg.vectorNorm', 'x', x), ord, dim, keepdim === true)),
  matrixNorm: keywords('linalg.matrixNorm', ['ord', 'dim', 'keepdim'], (A: TensorLike, ord: unknown = 'fro', dim?: readonly number[], keepdim: unknown = false) =>
    matrixNorm('linalg.matrixNorm', tensorArg('linalg.matrixNorm', 'A', A), ord, dim, keepdim === true)),
  norm: keywords('linalg.norm', ['ord', 'dim', 'keepdim'], (A: TensorLike, ord: unknown = null, dim?: Dim, keepdim: unknown = false) => {
    const fn = 'linalg.norm';
    const x = tensorArg(fn, 'A', A);
    const dims = dimsOf(dim);
    const kd = keepdim === true;
    if (dims && dims.length === 2) return matrixNorm(fn, x, ord ?? 'fro', dims, kd);
    if (dims && dims.length !== 1) throw new Error(`${fn}: expected 'dim' to be one dim or two, got ${describe(dim)}`);
    if (dims) return vectorNorm(fn, x, ord ?? 2, dims, kd);
    if (ord === null || ord === undefined) return vectorNorm(fn, x, 2, null, kd);  // flattened
    if (x.ndim === 2) return matrixNorm(fn, x, ord, undefined, kd);
    if (x.ndim === 1) return vectorNorm(fn, x, ord, null, kd);
    throw new Error(`${fn}: with 'ord' and no 'dim', expected A to be 1-D or 2-D, got shape [${x.shape.join(', ')}]`);
  }),
  matrixRank(A, options) {
    const fn = 'linalg.matrixRank';
    const x = tensorArg(fn, 'A', A);
    const o = options ?? {};
    for (const k of Object.keys(o)) if (!['atol', 'rtol', 'hermitian'].includes(k)) throw new Error(`${fn}: unknown option '${k}' (expected one of: atol, rtol, hermitian)`);
    if (x.ndim < 2) throw new Error(`${fn}: expected A to have at least 2 dims, got shape [${x.shape.join(', ')}]`);
    const m = x.shape[x.ndim - 2]!, n = x.shape[x.ndim - 1]!;
    const eps = x.dtype === 'float64' ? 2.220446049250313e-16 : 1.1920928955078125e-7;
    const rtol = o.rtol ?? (o.atol !== undefined ? 0 : Math.max(m, n) * eps);
    const atol = o.atol ?? 0;
    return tidy(() => {
      const s = o.hermitian ? D.eigvalsh(x).abs() : D.svdvals(x);
      if (s.shape[s.ndim - 1] === 0) return s.sum(-1).int();
      const tol = s.amax(-1, true).mul(rtol).clamp(atol, null);
      return s.gt(tol).sum(-1);
    });
  },
  matrixPower(A, n, extra?: unknown) {
    const fn = 'linalg.matrixPower';
    if (extra !== undefined) throw new Error(`${fn}: takes (A, n), got a third argument ${describe(extra)}`);
    const x = tensorArg(fn, 'A', A);
    if (!isInteger(n)) throw new Error(`${fn}: expected 'n' to be an integer, got ${describe(n)}`);
    if (x.ndim < 2 || x.shape[x.ndim - 1] !== x.shape[x.ndim - 2]) {
      throw new Error(`${fn}: expected A to be batches of square matrices [..., n, n], got shape [${x.shape.join(', ')}]`);
    }
    return tidy(() => {
      const size = x.shape[x.ndim - 1]!;
      if (n === 0) return eye(size, { dtype: x.dtype, device: x.device }).expand(x.shape).contiguous();
      let base = n < 0 ? x.inverse() : x;
      // Binary powering, as PyTorch's matrix_power (so the same products, and gradients).
      let k = Math.abs(n);
      let result: Tensor | null = null;
      for (;;) {
        if (k & 1) result = result === null ? base : result.matmul(base);
        k >>= 1;
        if (k === 0) break;
        base = base.matmul(base);
      }
      return result === x ? x.clone() : result!;
    });
  },
  cross(a, b, options) {
    const fn = 'linalg.cross';
    const x = tensorArg(fn, 'a', a), y = tensorArg(fn, 'b', b);
    const o = options ?? {};
    for (const k of Object.keys(o)) if (k !== 'dim') throw new Error(`${fn}: unknown option '${k}' (expected one of: dim)`);
    const dim = o.dim ?? -1;
    for (const [name, t] of [['a', x], ['b', y]] as const) {
      const d = normalizeDim(fn, dim, t.ndim);
      if (t.shape[d] !== 3) throw new Error(`${fn}: expected ${name} to have size 3 along dim ${dim}, got shape [${t.shape.join(', ')}]`);
    }
    // (a × b)_i = a_{i+1}·b_{i+2} − a_{i+2}·b_{i+1}, indices mod 3: two rolls each.
    return tidy(() => x.roll(-1, dim).mul(y.roll(-2, dim)).sub(x.roll(-2, dim).mul(y.roll(-1, dim))));
  },
};
