// torch.linalg's decompositions (src/ops/linalg_decomp.cpp): svd, svdvals, qr, eigh, eigvalsh,
// solveTriangular, luFactor, matrixExp, pinv, and lstsq (pinv(A)·B, the minimum-norm solution
// of gelsd, whose gradient is then PyTorch's linalg_lstsq_backward, written through pinv too). Each entry turns JS
// arguments into one op call; the C++ op checks shapes and dtypes (float32 or float64) and
// raises PyTorch's errors. Results that PyTorch returns as named tuples are named arrays.
import { run, runList, type TensorLike } from '../tensor/call.js';
import { noOptions } from '../tensor/ops.js';
import { checkOptions } from '../runtime/options.js';
import { namedPair, namedTuple, type NamedPair } from '../tensor/named_tuple.js';
import { Tensor } from '../tensor/tensor.js';
import { tidy } from '../runtime/memory.js';
import { zeros } from '../tensor/creation.js';

export interface SvdOptions {
  /** U [..., m, m] and Vh [..., n, n] (default true), else U [..., m, k] and Vh [..., k, n] (k = min(m, n)). */
  fullMatrices?: boolean;
}
export interface QrOptions {
  /** 'reduced' (default: Q [..., m, k], R [..., k, n]), 'complete' (Q [..., m, m], R [..., m, n]) or 'r' (R only; Q empty). */
  mode?: 'reduced' | 'complete' | 'r';
}
export interface EighOptions {
  /** The triangle of A that is read: 'L' (default) or 'U'. */
  UPLO?: 'L' | 'U';
}
export interface SolveTriangularOptions {
  /** A is upper-triangular (required, as PyTorch's keyword-only `upper`). */
  upper: boolean;
  /** Solve A·X = B (default true) or X·A = B. */
  left?: boolean;
  /** A's diagonal is taken as ones (not read). */
  unitriangular?: boolean;
}
export interface PinvOptions {
  /** Singular values ≤ max(atol, rtol·σ_max) are dropped; rtol defaults to max(m, n)·eps unless atol is given (then 0). */
  atol?: number;
  rtol?: number;
}

export type Svd = [Tensor, Tensor, Tensor] & { readonly U: Tensor; readonly S: Tensor; readonly Vh: Tensor };
export interface LstsqOptions {
  /** Singular values ≤ rcond·σ_max count as zero (default max(m, n)·eps of A's dtype). */
  rcond?: number;
  /** PyTorch's LAPACK driver, for which outputs are filled (default 'gelsy', PyTorch's on the CPU): 'gels' (no rank, no
   * singular values), 'gelsy' (rank), 'gelsd' and 'gelss' (rank and singular values). The solution is the
   * minimum-norm one whatever the driver (gels's equals it for full-rank A). */
  driver?: 'gels' | 'gelsy' | 'gelsd' | 'gelss';
}
export type Lstsq = [Tensor, Tensor, Tensor, Tensor] & {
  readonly solution: Tensor;
  readonly residuals: Tensor;
  readonly rank: Tensor;
  readonly singularValues: Tensor;
};

/** The decompositions of sg.linalg (batched over leading dims; float32 or float64). */
export interface LinalgDecompositions {
  /** A = U·diag(S)·Vh, S descending: `[U, S, Vh]` (also `.U`, `.S`, `.Vh`). */
  svd(A: TensorLike, options?: SvdOptions): Svd;
  /** The singular values [..., k], descending. */
  svdvals(A: TensorLike): Tensor;
  /** A = Q·R, Q with orthonormal columns, R upper-triangular: `[Q, R]` (also `.Q`, `.R`). */
  qr(A: TensorLike, options?: QrOptions): NamedPair<'Q', 'R'>;
  /** Symmetric A = V·diag(λ)·Vᵀ, λ ascending: `[eigenvalues, eigenvectors]` (named too). */
  eigh(A: TensorLike, options?: EighOptions): NamedPair<'eigenvalues', 'eigenvectors'>;
  /** The eigenvalues of symmetric A, ascending. */
  eigvalsh(A: TensorLike, options?: EighOptions): Tensor;
  /** X with A·X = B (or X·A = B with left: false) for triangular A; batch dims broadcast. */
  solveTriangular(A: TensorLike, B: TensorLike, options: SolveTriangularOptions): Tensor;
  /** P·A = L·U packed: `[LU, pivots]` (named), pivots int32 and 1-based as LAPACK's. */
  luFactor(A: TensorLike): NamedPair<'LU', 'pivots'>;
  /** exp(A) = Σ Aᵏ/k! of square A. */
  matrixExp(A: TensorLike): Tensor;
  /** The Moore–Penrose pseudo-inverse [..., n, m], from the SVD. */
  pinv(A: TensorLike, options?: PinvOptions): Tensor;
  /** The least-squares solution X = A⁺·B of A·X ≈ B (minimum norm, singular values ≤ rcond·σ_max dropped):
   * `[solution, residuals, rank, singularValues]` (named as PyTorch's fields; see LstsqOptions for which are empty). */
  lstsq(A: TensorLike, B: TensorLike, options?: LstsqOptions): Lstsq;
}

function svdOf(A: TensorLike, options?: SvdOptions): Svd {
  const o = checkOptions<SvdOptions>('linalg.svd', options, { fullMatrices: 'boolean' });
  const [U, S, Vh] = runList('linalg.svd', 'linalgSvd', [['A', A]], { fullMatrices: o.fullMatrices ?? true });
  return namedTuple(['U', 'S', 'Vh'], [U!, S!, Vh!]) as unknown as Svd;
}

function eighOf(fn: string) {
  return (A: TensorLike, options?: EighOptions) => checkOptions<EighOptions>(fn, options, { UPLO: ['L', 'U'] }).UPLO ?? 'L';
}

function pinvOf(A: TensorLike, options?: PinvOptions): Tensor {
  const o = checkOptions<PinvOptions>('linalg.pinv', options, { atol: 'number', rtol: 'number' });
  const attrs: Record<string, number> = {};
  if (o.atol !== undefined) attrs.atol = o.atol;
  if (o.rtol !== undefined) attrs.rtol = o.rtol;
  return run('linalg.pinv', 'linalgPinv', [['A', A]], attrs);
}

export const linalgDecompositions: LinalgDecompositions = {
  svd: svdOf,
  svdvals(A, extra?: unknown) {
    noOptions('linalg.svdvals', extra);
    return run('linalg.svdvals', 'linalgSvdvals', [['A', A]]);
  },
  qr(A, options) {
    const o = checkOptions<QrOptions>('linalg.qr', options, { mode: ['reduced', 'complete', 'r'] });
    const [Q, R] = runList('linalg.qr', 'linalgQr', [['A', A]], { mode: o.mode ?? 'reduced' });
    return namedPair('Q', 'R', Q!, R!);
  },
  eigh(A, options) {
    const UPLO = eighOf('linalg.eigh')(A, options);
    const [L, V] = runList('linalg.eigh', 'linalgEigh', [['A', A]], { UPLO });
    return namedPair('eigenvalues', 'eigenvectors', L!, V!);
  },
  eigvalsh(A, options) {
    const UPLO = eighOf('linalg.eigvalsh')(A, options);
    return run('linalg.eigvalsh', 'linalgEigvalsh', [['A', A]], { UPLO });
  },
  solveTriangular(A, B, options) {
    const fn = 'linalg.solveTriangular';
    if (options === undefined || options === null || typeof options !== 'object' || (options as { upper?: unknown }).upper === undefined) {
      throw new Error(`${fn}: missing the keyword argument 'upper' (pass { upper: true } or { upper: false })`);
    }
    const o = checkOptions<SolveTriangularOptions>(fn, options, { upper: 'boolean', left: 'boolean', unitriangular: 'boolean' });
    return run(fn, 'linalgSolveTriangular', [['A', A], ['B', B]], {
      upper: o.upper!, left: o.left ?? true, unitriangular: o.unitriangular ?? false,
    });
  },
  luFactor(A, extra?: unknown) {
    noOptions('linalg.luFactor', extra);
    const [LU, pivots] = runList('linalg.luFactor', 'linalgLuFactor', [['A', A]]);
    return namedPair('LU', 'pivots', LU!, pivots!);
  },
  matrixExp(A, extra?: unknown) {
    noOptions('linalg.matrixExp', extra);
    return run('linalg.matrixExp', 'linalgMatrixExp', [['A', A]]);
  },
  pinv: pinvOf,
  lstsq(A, B, options?: LstsqOptions) {
    const o = checkOptions<LstsqOptions>('linalg.lstsq', options, { rcond: 'number', driver: 'string' });
    const driver = o.driver ?? 'gelsy';
    if (!['gels', 'gelsy', 'gelsd', 'gelss'].includes(driver)) {
      throw new Error(`linalg.lstsq: parameter \`driver\` should be one of (gels, gelsy, gelsd, gelss), got '${driver}'`);
    }
    if (!(A instanceof Tensor) || A.ndim < 2) throw new Error(`linalg.lstsq: expected A to be a Tensor of at least 2 dims [..., m, n], got ${A instanceof Tensor ? `shape [${A.shape.join(', ')}]` : typeof A}`);
    if (!(B instanceof Tensor) || B.ndim < 1) throw new Error(`linalg.lstsq: expected B to be a Tensor [..., m, k] or [m], got ${B instanceof Tensor ? 'a 0-d Tensor' : typeof B}`);
    const m = A.shape[A.ndim - 2]!, n = A.shape[A.ndim - 1]!;
    const rows = B.ndim === 1 ? B.shape[0]! : B.shape[B.ndim - 2]!;
    if (rows !== m) {
      throw new Error(`linalg.lstsq: expected B to have ${m} rows (A is [${A.shape.join(', ')}]), got shape [${B.shape.join(', ')}]`);
    }
    const eps = A.dtype === 'float64' ? 2.220446049250313e-16 : 1.1920928955078125e-7;
    const rcond = o.rcond ?? Math.max(m, n) * eps;
    return tidy(() => {
      // PyTorch's linalg_lstsq_backward differentiates pinv(A)·B with pinv's default tolerance; a
      // given rcond changes the value only: value + (P·B − P·B detached), whose added term is 0.
      const fromDefault = pinvOf(A).matmul(B);
      const solution = o.rcond === undefined ? fromDefault
        : pinvOf(A, { rtol: rcond }).matmul(B).detach().add(fromDefault.sub(fromDefault.detach()));
      const empty = (dtype: 'int32' | 'float32' | 'float64') => zeros([0], { dtype, device: A.device });
      const s = A.detach();
      const sv = run('linalg.lstsq', 'linalgSvdvals', [['A', s]]);
      const k = Math.min(m, n);
      const ranks = k === 0 ? sv.sum(-1).int() : sv.gt(sv.amax(-1, true).mul(rcond)).sum(-1).int();
      const full = Array.from(ranks.dataSync(), Number).every((r) => r === k);
      // gels (QR without pivoting) cannot solve a rank-deficient system: PyTorch raises LAPACK's error.
      if (driver === 'gels' && !full) {
        throw new Error('linalg.lstsq: The least squares solution could not be computed because the input matrix does not have full rank (driver gels; gelsy, gelsd and gelss give the minimum-norm solution)');
      }
      const rank = driver === 'gels' ? empty('int32') : ranks;
      // Residuals ‖A·X − B‖² per column, where PyTorch gives them: m > n, every matrix of full rank, not gelsy.
      let residuals = empty(A.dtype as 'float32' | 'float64');
      if (m > n && driver !== 'gelsy' && full) {
        const r = A.matmul(solution).sub(B).square();
        residuals = B.ndim === 1 ? r.sum(-1, true) : r.sum(-2);  // a vector B: shape [1], as PyTorch
      }
      const singularValues = driver === 'gelsd' || driver === 'gelss' ? sv : empty(A.dtype as 'float32' | 'float64');
      return namedTuple(['solution', 'residuals', 'rank', 'singularValues'], [solution, residuals, rank, singularValues]) as unknown as Lstsq;
    });
  },
};
