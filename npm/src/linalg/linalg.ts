// torch.linalg's basics (src/ops/linalg.h): sg.linalg.{inv, det, slogdet, solve, cholesky} (and, from
// decompositions.ts and norms.ts, svd, qr, eigh, norms, ...), the
// top-level spellings PyTorch also has (sg.inverse, sg.det, sg.logdet, sg.slogdet, sg.cholesky) and
// the Tensor methods of those names. float32 matrices [..., n, n], batched, computed
// in double and rounded once. Each entry only turns JS arguments into one op call: the C++ op
// checks shapes and dtypes and raises PyTorch's errors (singular, not positive-definite).
import { run, runList, type TensorLike } from '../tensor/call.js';
import { installMethods, noOptions, type MethodsOf } from '../tensor/ops.js';
import { checkOptions } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { namedPair, type NamedPair } from '../tensor/named_tuple.js';
import { linalgDecompositions, type LinalgDecompositions } from './decompositions.js';
import { linalgNorms, type LinalgNorms } from './norms.js';

export interface CholeskyOptions {
  /** Return U (upper-triangular, Uᵀ·U = A, from A's upper triangle) instead of L (default false). */
  upper?: boolean;
}

/** sg.linalg: PyTorch 1.13's torch.linalg functions of the same names (decompositions.ts, norms.ts add the rest). */
export interface Linalg extends LinalgDecompositions, LinalgNorms {
  /** A⁻¹ of every matrix of A [..., n, n]; a singular matrix is an Error (PyTorch's message). */
  inv(A: TensorLike): Tensor;
  /** det(A) [...]; 0 for a singular matrix (its gradient is then the cofactor matrix, finite). */
  det(A: TensorLike): Tensor;
  /** [sign, logabsdet] (PyTorch's named tuple: also `.sign`, `.logabsdet`): sign ±1 (0 when singular), log|det| (−inf when singular). */
  slogdet(A: TensorLike): NamedPair<'sign', 'logabsdet'>;
  /**
   * X with A·X = B; B [..., n, k], or vectors ([n], or A's shape without its last dim, as
   * PyTorch 1.13), then X has B's shape. Batch dims broadcast.
   */
  solve(A: TensorLike, B: TensorLike): Tensor;
  /** L lower-triangular with L·Lᵀ = A (A symmetric positive-definite; its lower triangle is read). */
  cholesky(A: TensorLike, options?: CholeskyOptions): Tensor;
}

/** The top-level functions (torch.inverse, torch.det, ...), each also a Tensor method (A.det()). */
export interface LinalgFunctions {
  inverse(input: TensorLike): Tensor;
  det(input: TensorLike): Tensor;
  /** log det(A): NaN where det < 0, −inf where det = 0 (torch.logdet). */
  logdet(input: TensorLike): Tensor;
  slogdet(input: TensorLike): NamedPair<'sign', 'logabsdet'>;
  /** torch.cholesky: linalg.cholesky under its older name. */
  cholesky(input: TensorLike, options?: CholeskyOptions): Tensor;
}

declare module '../tensor/tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends MethodsOf<LinalgFunctions> {}
}

/** A function of one matrix argument: JS name `fn` (in errors), C++ op `op`. */
const ofMatrix = (fn: string, op: string) => (A: TensorLike, extra?: unknown): Tensor => {
  noOptions(fn, extra);
  return run(fn, op, [['A', A]]);
};

const slogdetNamed = (fn: string) => (A: TensorLike, extra?: unknown): NamedPair<'sign', 'logabsdet'> => {
  noOptions(fn, extra);
  const [sign, logabsdet] = runList(fn, 'linalgSlogdet', [['A', A]]);
  return namedPair('sign', 'logabsdet', sign!, logabsdet!);
};

const choleskyNamed = (fn: string) => (A: TensorLike, options?: CholeskyOptions): Tensor => {
  const o = checkOptions<CholeskyOptions>(fn, options, { upper: 'boolean' });
  return run(fn, 'linalgCholesky', [['A', A]], { upper: o.upper ?? false });
};

export const linalg: Linalg = {
  inv: ofMatrix('linalg.inv', 'linalgInv'),
  det: ofMatrix('linalg.det', 'linalgDet'),
  slogdet: slogdetNamed('linalg.slogdet'),
  solve(A, B, extra?: unknown) {
    noOptions('linalg.solve', extra);
    return run('linalg.solve', 'linalgSolve', [['A', A], ['B', B]]);
  },
  cholesky: choleskyNamed('linalg.cholesky'),
  ...linalgDecompositions,
  ...linalgNorms,
};

export const linalgFunctions: LinalgFunctions = {
  inverse: ofMatrix('inverse', 'linalgInv'),
  det: ofMatrix('det', 'linalgDet'),
  logdet: ofMatrix('logdet', 'logdet'),
  slogdet: slogdetNamed('slogdet'),
  cholesky: choleskyNamed('cholesky'),
};

installMethods(linalgFunctions);
