// Parts and builders of matrices: triangles (tril, triu), diagonals (diag, diagonal, diagEmbed),
// the Vandermonde matrix (vander), and the index lists of a triangle (triuIndices, trilIndices,
// functions only). Each of the others is a function (sg.tril(x)) and a Tensor method (x.tril()).
// tril, triu and diag are C++ ops; the others are compositions of existing ops, differentiable
// through them, with PyTorch 1.13's values and gradients (tests/data/gen_ops_compose_search.py,
// gen_ops_stack_stats.py).
import { run, type TensorLike } from './call.js';
import { arange, ones, tensor } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, ops, type MethodsOf } from './ops.js';
import { dimArg, optionalInt, shapeStr, tensorOf } from './args.js';
import { rearrangingOps } from './rearranging.js';
import { reductionOps } from './reductions.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import type { Tensor } from './tensor.js';
import { keywords, type KwArgs } from './keywords.js';

/** diagonal's and diagEmbed's keyword arguments. */
export interface DiagonalKeywords {
  offset?: number;
  dim1?: number;
  dim2?: number;
}

export interface MatrixOpFunctions {
  tril(input: TensorLike, ...args: KwArgs<[], [diagonal: number], { diagonal?: number }>): Tensor;
  triu(input: TensorLike, ...args: KwArgs<[], [diagonal: number], { diagonal?: number }>): Tensor;
  diag(input: TensorLike, ...args: KwArgs<[], [diagonal: number], { diagonal?: number }>): Tensor;
  /** The diagonal of the (dim1, dim2) planes, offset above (> 0) or below, as the last dim (a copy). */
  diagonal(input: Tensor, ...args: KwArgs<[], [offset: number, dim1: number, dim2: number], DiagonalKeywords>): Tensor;
  /** Matrices whose (dim1, dim2) diagonal, offset, holds the last dim of input; zeros elsewhere. */
  diagEmbed(input: Tensor, ...args: KwArgs<[], [offset: number, dim1: number, dim2: number], DiagonalKeywords>): Tensor;
  /** The Vandermonde matrix of a 1-D x: columns x^(N−1) … x^0 (increasing: x^0 … x^(N−1)). */
  vander(input: Tensor, options?: { N?: number; increasing?: boolean }): Tensor;
}

/** The methods derived from MatrixOpFunctions: the first argument becomes `this`. */
export type MatrixOpMethods = MethodsOf<MatrixOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends MatrixOpMethods {}
}

const where = functionOps.where;

/** tril, triu, diag: (input, diagonal = 0), diagonal also by keyword. */
const diagonalOp = (name: string) =>
  keywords(name, ['diagonal'], (input: TensorLike, diagonal: unknown): Tensor => {
    return run(name, name, [['input', input]], { diagonal: optionalInt(name, 'diagonal', diagonal, 0) });
  });

export const matrixOps: MatrixOpFunctions = {
  tril: diagonalOp('tril'),
  triu: diagonalOp('triu'),
  diag: diagonalOp('diag'),
  diagonal: keywords('diagonal', ['offset', 'dim1', 'dim2'], (input: Tensor, offset: unknown = 0, dim1: unknown = 0, dim2: unknown = 1): Tensor => {
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
      const planes = rearrangingOps.movedim(x, [d1, d2], [-2, -1]);
      const flat = ops.reshape(planes, [...planes.shape.slice(0, -2), n * m]);
      if (len === 0) return ops.narrow(flat, -1, 0, 0);
      const start = offset >= 0 ? offset : -offset * m;
      return ops.slice(flat, -1, start, start + (len - 1) * (m + 1) + 1, m + 1);
    });
  }),
  diagEmbed: keywords('diagEmbed', ['offset', 'dim1', 'dim2'], (input: Tensor, offset: unknown = 0, dim1: unknown = -2, dim2: unknown = -1): Tensor => {
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
      return rearrangingOps.movedim(padded, [nd - 2, nd - 1], [d1, d2]);
    });
  }),
  vander(input, options) {
    const o = checkOptions<{ N: number; increasing: boolean }>('vander', options, { N: 'integer', increasing: 'boolean' });
    const x = tensorOf('vander', 'input', input, 1);
    const n = x.shape[0]!, cols = o.N ?? n;
    if (cols < 0) throw new Error(`vander: expected N >= 0, got ${cols}`);
    return tidy(() => {
      // ATen's: a column of ones, then the running product of x (cumprod), reversed unless increasing.
      const one = ones([n, 1], { dtype: x.dtype, device: x.device });
      const powers = cols > 1 ? functionOps.cat([one, reductionOps.cumprod(ops.expand(ops.unsqueeze(x, 1), [n, cols - 1]), 1)], 1) : ops.narrow(one, 1, 0, cols);
      return o.increasing ? powers : rearrangingOps.flip(powers, [1]);
    });
  },
};

installMethods(matrixOps);

/** Functions only (no method form): they build indices from sizes. */
export const matrixFunctionOps = {
  /** Row and column indices (int32 [2, N]) of the upper triangle of a row × col matrix, from the offset-th diagonal. */
  triuIndices(row: number, col: number, offset = 0): Tensor {
    return triangleIndices('triuIndices', row, col, offset, (i, j) => j - i >= offset);
  },
  /** Row and column indices (int32 [2, N]) of the lower triangle, up to the offset-th diagonal. */
  trilIndices(row: number, col: number, offset = 0): Tensor {
    return triangleIndices('trilIndices', row, col, offset, (i, j) => j - i <= offset);
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
