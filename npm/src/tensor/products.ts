// Products and distances beyond ops.ts's matmul (PyTorch's BLAS and LAPACK spellings, and the
// contractions): outer, bmm, mv, dot, trace, cross, addmm, baddbmm, addbmm, addmv, inner, kron,
// tensordot, cdist, and einsum (a function only). Each of the others is a function
// (sg.bmm(a, b)) and a Tensor method (a.bmm(b)). outer and einsum are C++ ops (einsum contracts
// each pair of operands by one batched matmul); the others are compositions of existing ops,
// differentiable through them, with PyTorch 1.13's values and gradients
// (tests/data/gen_ops_compose.py, gen_ops_compose_search.py).
import { run, type TensorLike } from './call.js';
import { onesLike } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { binary, functionOps, installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { keywords, type KwArgs } from './keywords.js';
import { dimArg, shapeStr, tensorOf } from './args.js';
import { matrixOps } from './matrices.js';
import { pointwiseOps } from './pointwise.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface AddmmOptions {
  /** Factor of input (default 1; 0 ignores it, NaN included, as PyTorch). */
  beta?: number;
  /** Factor of the product (default 1). */
  alpha?: number;
}
export interface CdistOptions {
  /** The p-norm of the differences, p ≥ 0 (default 2; Infinity: the largest difference). */
  p?: number;
}
/** dims of tensordot: the number of trailing dims of a contracted with as many leading dims of b, or the two lists of dims. */
export type TensordotDims = number | readonly [number | readonly number[], number | readonly number[]];

export interface ProductOpFunctions {
  outer(input: TensorLike, vec2: TensorLike): Tensor;
  /** Batched product of two 3-D tensors with the same batch size. */
  bmm(input: Tensor, mat2: Tensor): Tensor;
  /** Matrix [n, m] times vector [m]. */
  mv(input: Tensor, vec: Tensor): Tensor;
  /** Inner product of two 1-D tensors of one size. */
  dot(input: Tensor, other: Tensor): Tensor;
  /** Sum of the main diagonal of a 2-D tensor. */
  trace(input: Tensor): Tensor;
  /** Cross product of 3-vectors along dim (default: the first dim of size 3, as PyTorch 1.13). */
  cross(input: Tensor, ...args: KwArgs<[other: Tensor], [dim: number | null], { other?: Tensor; dim?: number | null }>): Tensor;
  /** beta·input + alpha·(mat1 · mat2), mat1 and mat2 2-D. */
  addmm(input: TensorLike, mat1: Tensor, mat2: Tensor, options?: AddmmOptions): Tensor;
  /** beta·input + alpha·(batch1 · batch2), batch1 and batch2 3-D. */
  baddbmm(input: TensorLike, batch1: Tensor, batch2: Tensor, options?: AddmmOptions): Tensor;
  /** beta·input + alpha·Σ_b batch1[b] · batch2[b]. */
  addbmm(input: TensorLike, batch1: Tensor, batch2: Tensor, options?: AddmmOptions): Tensor;
  /** beta·input + alpha·(mat · vec). */
  addmv(input: TensorLike, mat: Tensor, vec: Tensor, options?: AddmmOptions): Tensor;
  /** Sum over the last dims of both: shape a[:-1] + b[:-1] (a product with a 0-d one). */
  inner(input: Tensor, other: Tensor): Tensor;
  /** The Kronecker product. */
  kron(input: Tensor, other: Tensor): Tensor;
  /** Contraction of a's dims with b's (TensordotDims; default 2). */
  tensordot(a: Tensor, b: Tensor, dims?: TensordotDims): Tensor;
  /** Distances between the rows of x1 [..., P, M] and of x2 [..., R, M]: [..., P, R]. */
  cdist(x1: Tensor, x2: Tensor, options?: CdistOptions): Tensor;
}

/** The methods derived from ProductOpFunctions: the first argument becomes `this`. */
export type ProductOpMethods = MethodsOf<ProductOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends ProductOpMethods {}
}

/** beta·input + alpha·product() (addmm and its kin); beta = 0 does not read input, so its NaNs do not propagate (PyTorch). */
function scaledSum(input: TensorLike, product: () => Tensor, beta: number, alpha: number): Tensor {
  return tidy(() => {
    const p = alpha === 1 ? product() : ops.mul(product(), alpha);
    if (beta === 0) return p;
    return ops.add(beta === 1 ? input : ops.mul(input, beta), p);
  });
}

function matrixProductTerms(fn: string, input: TensorLike, product: () => Tensor, options: unknown): Tensor {
  const o = checkOptions<AddmmOptions>(fn, options, { beta: 'number', alpha: 'number' });
  return scaledSum(input, product, o.beta ?? 1, o.alpha ?? 1);
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

export const productOps: ProductOpFunctions = {
  outer: binary('outer', 'vec2'),
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
  trace(input, trailing?: unknown) {
    noOptions('trace', trailing);
    const x = tensorOf('trace', 'input', input, 2);
    return tidy(() => ops.sum(matrixOps.diag(x)));
  },
  cross: keywords('cross', ['other', 'dim'], (input: Tensor, other: Tensor, dim: number | null | undefined): Tensor => {
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
  }),
  addmm(input, mat1, mat2, options) {
    const o = checkOptions<AddmmOptions>('addmm', options, { beta: 'number', alpha: 'number' });
    const m1 = tensorOf('addmm', 'mat1', mat1, 2), m2 = tensorOf('addmm', 'mat2', mat2, 2);
    return scaledSum(input, () => ops.matmul(m1, m2), o.beta ?? 1, o.alpha ?? 1);
  },
  baddbmm(input, batch1, batch2, options) {
    const b1 = tensorOf('baddbmm', 'batch1', batch1, 3), b2 = tensorOf('baddbmm', 'batch2', batch2, 3);
    return matrixProductTerms('baddbmm', input, () => productOps.bmm(b1, b2), options);
  },
  addbmm(input, batch1, batch2, options) {
    const b1 = tensorOf('addbmm', 'batch1', batch1, 3), b2 = tensorOf('addbmm', 'batch2', batch2, 3);
    return matrixProductTerms('addbmm', input, () => ops.sum(productOps.bmm(b1, b2), 0), options);
  },
  addmv(input, mat, vec, options) {
    const m = tensorOf('addmv', 'mat', mat, 2), v = tensorOf('addmv', 'vec', vec, 1);
    return matrixProductTerms('addmv', input, () => productOps.mv(m, v), options);
  },
  inner(input, other, trailing?: unknown) {
    noOptions('inner', trailing);
    const a = tensorOf('inner', 'input', input), b = tensorOf('inner', 'other', other);
    if (a.ndim === 0 || b.ndim === 0) return ops.mul(a, b);
    if (a.shape.at(-1) !== b.shape.at(-1)) {
      throw new Error(`inner: expected the last dims of both inputs to match, got shapes ${shapeStr(a)} and ${shapeStr(b)}`);
    }
    return productOps.tensordot(a, b, [[-1], [-1]]);
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
        return ops.sqrt(pointwiseOps.clampMin(ops.matmul(left, ops.transpose(right, -2, -1)), 1e-30));
      }
      return ops.norm(ops.sub(ops.unsqueeze(a, -2), ops.unsqueeze(b, -3)), p, -1);
    });
  },
};

installMethods(productOps);

/** Functions only (no method form): einsum's first argument is the equation. */
export const productFunctionOps = {
  /**
   * Sums of products over an equation: einsum('bij,bjk->bik', a, b) (operands spread or as one
   * array). Letters name dims, '...' broadcast dims; without '->' the output is the letters used
   * once, in alphabetical order. Each pair of operands is contracted by one batched matmul.
   */
  einsum(equation: string, ...operands: Tensor[] | [readonly Tensor[]]): Tensor {
    if (typeof equation !== 'string') throw new Error(`einsum: expected 'equation' to be a string, got ${describe(equation)}`);
    const list = (operands.length === 1 && Array.isArray(operands[0]) ? operands[0] : operands) as unknown[];
    if (list.length === 0) throw new Error('einsum: expected at least one operand after the equation');
    list.forEach((t, i) => {
      if (!(t instanceof Tensor)) throw new Error(`einsum: expected operand ${i} to be a Tensor, got ${describe(t)}`);
    });
    return run('einsum', 'einsum', list.map((t, i): [string, Tensor] => [`operands[${i}]`, t as Tensor]), { equation });
  },
};
