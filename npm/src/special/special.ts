// PyTorch 1.13's special functions (src/ops/special.h): sg.erfinv, erfc, lgamma, digamma,
// polygamma(n, x) and i0 (each also a Tensor method; x.polygamma(n) as PyTorch's), and the
// namespace sg.special with torch.special's names for them and for the functions that compose
// existing ops (expit is sigmoid, ndtr is ½·erfc(−x/√2), entr is −x·log x, ...). float32
// results; int32/bool inputs are promoted to float32 by the C++ ops, as PyTorch does.
import { run, type TensorLike } from '../tensor/call.js';
import { tidy } from '../runtime/memory.js';
import { pointwiseOps } from '../tensor/pointwise.js';
import { functionOps, installMethods, noOptions, ops, unary, type Dim, type MethodsOf } from '../tensor/ops.js';
import { describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

/** The top-level functions (torch.erfinv, ...); all but polygamma are Tensor methods of their name. */
export interface SpecialFunctions {
  /** The inverse of erf on [−1, 1]: ±inf at ±1, NaN beyond. */
  erfinv(input: TensorLike): Tensor;
  /** 1 − erf(x), accurate where erf(x) is near 1. */
  erfc(input: TensorLike): Tensor;
  /** log|Γ(x)|; inf at 0, −1, −2, ... */
  lgamma(input: TensorLike): Tensor;
  /** ψ(x) = Γ′(x)/Γ(x): −inf at +0, +inf at −0, NaN at the negative integers. */
  digamma(input: TensorLike): Tensor;
  /** The n-th derivative of digamma (n an integer ≥ 0; polygamma(0, x) is digamma(x)). */
  polygamma(n: number, input: TensorLike): Tensor;
  /** The modified Bessel function of the first kind of order 0. */
  i0(input: TensorLike): Tensor;
}

/** sg.special: torch.special's names. */
export interface Special extends Omit<SpecialFunctions, 'lgamma'> {
  /** lgamma under SciPy's name. */
  gammaln(input: TensorLike): Tensor;
  /** digamma under SciPy's name. */
  psi(input: TensorLike): Tensor;
  /** The logistic sigmoid 1 / (1 + e^−x) (sg.sigmoid). */
  expit(input: TensorLike): Tensor;
  /** The standard normal CDF Φ(x) = ½·erfc(−x/√2). */
  ndtr(input: TensorLike): Tensor;
  log1p(input: TensorLike): Tensor;
  expm1(input: TensorLike): Tensor;
  exp2(input: TensorLike): Tensor;
  /** log(p / (1 − p)), p clamped to [eps, 1 − eps] when eps is given (sg.logit). */
  logit(input: TensorLike, eps?: number): Tensor;
  /** x·log(y), 0 where x is 0 (sg.xlogy). */
  xlogy(input: TensorLike, other: TensorLike): Tensor;
  /** sin(πx)/(πx), 1 at 0 (sg.sinc). */
  sinc(input: TensorLike): Tensor;
  /** The entropy term −x·log x: 0 at 0, −inf below 0, NaN stays NaN. */
  entr(input: TensorLike): Tensor;
  /** log Σ exp over dim (sg.logsumexp; torch.special.logsumexp needs dim, here it defaults to all). */
  logsumexp(input: TensorLike, dim?: Dim, keepdim?: boolean): Tensor;
}

const polygammaNamed = (fn: string) => (n: number, input: TensorLike, extra?: unknown): Tensor => {
  noOptions(fn, extra);
  if (!isInteger(n)) throw new Error(`${fn}: expected the order n to be an integer ≥ 0, got ${describe(n)}`);
  return run(fn, 'polygamma', [['input', input]], { n });
};

export const specialFunctions: SpecialFunctions = {
  erfinv: unary('erfinv'),
  erfc: unary('erfc'),
  lgamma: unary('lgamma'),
  digamma: unary('digamma'),
  polygamma: polygammaNamed('polygamma'),
  i0: unary('i0'),
};

export const special: Special = {
  erfinv: specialFunctions.erfinv,
  erfc: specialFunctions.erfc,
  gammaln: specialFunctions.lgamma,
  digamma: specialFunctions.digamma,
  psi: specialFunctions.digamma,
  polygamma: polygammaNamed('special.polygamma'),
  i0: specialFunctions.i0,
  expit: ops.sigmoid,
  ndtr(input, extra?: unknown) {
    noOptions('special.ndtr', extra);
    return tidy(() => ops.mul(specialFunctions.erfc(ops.mul(input, -Math.SQRT1_2)), 0.5));
  },
  log1p: ops.log1p,
  expm1: ops.expm1,
  exp2: pointwiseOps.exp2,
  logit: pointwiseOps.logit,
  xlogy: pointwiseOps.xlogy,
  sinc: pointwiseOps.sinc,
  entr(input, extra?: unknown) {
    noOptions('special.entr', extra);
    // PyTorch's cases; log is taken of x where x > 0 only (1 elsewhere), so no NaN reaches the
    // gradient of the other branches.
    return tidy(() => {
      const x = input;
      const positive = ops.gt(x, 0);
      const safe = functionOps.where(positive, x, 1);
      const other = functionOps.where(ops.eq(x, 0), 0, functionOps.where(pointwiseOps.isnan(x), x, -Infinity));
      return functionOps.where(positive, ops.neg(ops.mul(safe, ops.log(safe))), other);
    });
  },
  logsumexp: ops.logsumexp,
};

declare module '../tensor/tensor.js' {
  interface Tensor extends MethodsOf<Omit<SpecialFunctions, 'polygamma'>> {
    /** polygamma(n, this) (PyTorch's Tensor.polygamma(n)). */
    polygamma(n: number): Tensor;
  }
}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
const { polygamma: _polygamma, ...methods } = specialFunctions;
installMethods(methods);
const polygammaMethod = polygammaNamed('polygamma');  // (n, input, extra): the method passes `this` second
Object.defineProperty(Tensor.prototype, 'polygamma', {
  value: function (this: Tensor, n: number, extra?: unknown) {
    return polygammaMethod(n, this, extra);
  },
  writable: true,
  configurable: true,
});
