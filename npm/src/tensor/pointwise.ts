// Pointwise ops beyond ops.ts's (PyTorch's "Pointwise Ops"): rounding (floor, ceil, round, trunc,
// frac), trigonometry and angles (tan, atan, asin, acos, sinh, cosh, atan2, sinc, rad2deg,
// deg2rad), exponentials and logarithms (exp2, logaddexp, xlogy, logit), division and modulo
// (fmod, remainder, floorDivide, trueDivide), logical ops, special values (isnan, isinf,
// isfinite, nanToNum), and lerp, clampMin/clampMax, addcmul/addcdiv and heaviside. Each is a
// function (sg.fmod(a, b)) and a Tensor method (a.fmod(b)). The C++ ops (src/ops) validate and
// report errors; the compositions (isnan onward in the table) are differentiable through the ops
// they are made of, with PyTorch 1.13's values and gradients (tests/data/gen_ops_compose.py,
// gen_ops_compose_search.py, gen_ops_stack_stats.py), and free their temporaries (tidy).
import { checkOperands, type TensorLike } from './call.js';
import { finfo, isFloatingDType } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { binary, functionOps, installMethods, noOptions, ops, unary, withTemp, type MethodsOf } from './ops.js';
import { keywords, type KwArgs } from './keywords.js';
import { numberOption, tensorOf } from './args.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface RoundOptions {
  /** Decimal places (an integer, default 0): round(x · 10^d) / 10^d in float32, as PyTorch. */
  decimals?: number;
}
export interface NanToNumOptions {
  /** What NaN becomes (default 0). */
  nan?: number;
  /** What +∞ becomes (default the largest float32). */
  posinf?: number;
  /** What −∞ becomes (default the lowest float32). */
  neginf?: number;
}

export interface PointwiseOpFunctions {
  // rounding (keeps int32 as is; round is half to even, as PyTorch)
  floor(input: TensorLike): Tensor;
  ceil(input: TensorLike): Tensor;
  /** Half to even, as PyTorch; `decimals` rounds to that many decimal places (negative: to tens, hundreds, ...). */
  round(input: TensorLike, options?: RoundOptions): Tensor;
  trunc(input: TensorLike): Tensor;
  /** x − trunc(x). */
  frac(input: TensorLike): Tensor;
  // trigonometry and angles
  tan(input: TensorLike): Tensor;
  atan(input: TensorLike): Tensor;
  asin(input: TensorLike): Tensor;
  acos(input: TensorLike): Tensor;
  sinh(input: TensorLike): Tensor;
  cosh(input: TensorLike): Tensor;
  atan2(input: TensorLike, other: TensorLike): Tensor;
  /** sin(πx) / (πx), 1 at 0. */
  sinc(input: TensorLike): Tensor;
  rad2deg(input: TensorLike): Tensor;
  deg2rad(input: TensorLike): Tensor;
  // exponentials and logarithms
  exp2(input: TensorLike): Tensor;
  /** log(eˣ + eʸ) without overflow. */
  logaddexp(input: TensorLike, other: TensorLike): Tensor;
  /** x·log(y), 0 where x is 0 (unless y is NaN). */
  xlogy(input: TensorLike, other: TensorLike): Tensor;
  /** log(p / (1 − p)), p clamped to [eps, 1 − eps] when eps is given. */
  logit(input: TensorLike, ...args: KwArgs<[], [eps: number | null], { eps?: number | null }>): Tensor;
  // division and modulo (int32 stays int32; a zero integer divisor is an Error, as PyTorch's ZeroDivisionError)
  /** C's fmod: input − trunc(input / other)·other, exactly; the sign of input. */
  fmod(input: TensorLike, other: TensorLike): Tensor;
  /** Python's %: the sign of other (torch.remainder), exactly. */
  remainder(input: TensorLike, other: TensorLike): Tensor;
  /** input / other rounded down (torch.floor_divide); not differentiable (use div with roundingMode 'floor'). */
  floorDivide(input: TensorLike, other: TensorLike): Tensor;
  /** div (true division). */
  trueDivide(input: TensorLike, other: TensorLike): Tensor;
  // logical (bool results; nonzero and NaN are true)
  logicalAnd(input: TensorLike, other: TensorLike): Tensor;
  logicalOr(input: TensorLike, other: TensorLike): Tensor;
  logicalXor(input: TensorLike, other: TensorLike): Tensor;
  logicalNot(input: TensorLike): Tensor;
  // special values
  isnan(input: TensorLike): Tensor;
  isinf(input: TensorLike): Tensor;
  isfinite(input: TensorLike): Tensor;
  nanToNum(input: TensorLike, options?: NanToNumOptions): Tensor;
  // interpolation, clamping, fused arithmetic, steps
  /** start + weight·(end − start), PyTorch's two-sided formula (exact at weight 0 and 1). */
  lerp(input: TensorLike, end: TensorLike, weight: TensorLike): Tensor;
  clampMin(input: TensorLike, min: TensorLike): Tensor;
  clampMax(input: TensorLike, max: TensorLike): Tensor;
  /** input + value·tensor1·tensor2. */
  addcmul(input: TensorLike, tensor1: TensorLike, tensor2: TensorLike, options?: { value?: number }): Tensor;
  /** input + value·tensor1 / tensor2. */
  addcdiv(input: TensorLike, tensor1: TensorLike, tensor2: TensorLike, options?: { value?: number }): Tensor;
  /** 0 where x < 0, values where x = 0, 1 where x > 0. */
  heaviside(input: Tensor, values: TensorLike): Tensor;
}

/** The methods derived from PointwiseOpFunctions: the first argument becomes `this`. */
export type PointwiseOpMethods = MethodsOf<PointwiseOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends PointwiseOpMethods {}
}

const FLOAT32_MAX = 3.4028234663852886e38;
const where = functionOps.where;
const roundHalfEven = unary('round');
const mulOp = binary('mul');
const divOp = binary('div');

/** v rounded to the nearest bfloat16 (ties to even): float32's top 16 bits. */
function toBfloat16(v: number): number {
  const f = new Float32Array([v]);
  const u = new Uint32Array(f.buffer);
  u[0] = (u[0]! + 0x7fff + ((u[0]! >>> 16) & 1)) & 0xffff0000;
  return f[0]!;
}

/** Whether x can hold NaN or ±∞ (every floating dtype; integers and bool cannot). */
const isFloat = (x: TensorLike) => typeof x === 'number' || (x instanceof Tensor && isFloatingDType(x.dtype));

export const pointwiseOps: PointwiseOpFunctions = {
  floor: unary('floor'),
  ceil: unary('ceil'),
  round(input, options) {
    const o = checkOptions<RoundOptions>('round', options, { decimals: 'integer' });
    const d = o.decimals ?? 0;
    if (d === 0) return roundHalfEven(input);
    // PyTorch's CPU kernel also takes float64 (round has no float64 kernel here yet) and refuses
    // float16 and integers (round without decimals keeps integers as they are).
    const dtype = input instanceof Tensor ? input.dtype : 'float32';
    if (dtype !== 'float32' && dtype !== 'bfloat16') throw new Error(`round: decimals needs a float32 or bfloat16 tensor, got ${dtype}`);
    // PyTorch's formula (round_decimals_kernel): the scale 10^|d| in the tensor's dtype; one
    // multiply (or divide), round half to even, then the inverse.
    const p = 10 ** Math.abs(d);
    const scale = dtype === 'bfloat16' ? toBfloat16(p) : Math.fround(p);
    return withTemp(null, d > 0 ? mulOp(input, scale) : divOp(input, scale), (scaled) =>
      withTemp(null, roundHalfEven(scaled), (r) => (d > 0 ? divOp(r, scale) : mulOp(r, scale))));
  },

  trunc: unary('trunc'),
  frac(input, trailing?: unknown) {
    noOptions('frac', trailing);
    checkOperands('frac', ['input', input]);
    return tidy(() => ops.sub(input, pointwiseOps.trunc(input)));
  },
  tan: unary('tan'),
  atan: unary('atan'),
  asin: unary('asin'),
  acos: unary('acos'),
  sinh: unary('sinh'),
  cosh: unary('cosh'),
  atan2: binary('atan2'),
  sinc(input, trailing?: unknown) {
    noOptions('sinc', trailing);
    checkOperands('sinc', ['input', input]);
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
  rad2deg(input, trailing?: unknown) {
    noOptions('rad2deg', trailing);
    checkOperands('rad2deg', ['input', input]);
    return ops.mul(input, 180 / Math.PI);
  },
  deg2rad(input, trailing?: unknown) {
    noOptions('deg2rad', trailing);
    checkOperands('deg2rad', ['input', input]);
    return ops.mul(input, Math.PI / 180);
  },
  exp2(input, trailing?: unknown) {
    noOptions('exp2', trailing);
    checkOperands('exp2', ['input', input]);
    return ops.pow(2, input);
  },
  logaddexp(input, other, trailing?: unknown) {
    noOptions('logaddexp', trailing);
    checkOperands('logaddexp', ['input', input], ['other', other]);
    return tidy(() => {
      const m = ops.maximum(input, other);
      const general = ops.add(m, ops.log1p(ops.exp(ops.neg(ops.abs(ops.sub(input, other))))));
      // Equal infinities: log(e^∞ + e^∞) = ∞ and log(0 + 0) = −∞ (the difference would be NaN).
      return where(pointwiseOps.logicalAnd(pointwiseOps.isinf(input), ops.eq(input, other)), input, general);
    });
  },
  xlogy(input, other, trailing?: unknown) {
    noOptions('xlogy', trailing);
    checkOperands('xlogy', ['input', input], ['other', other]);
    // x · L with L = log(y), or 0 where x is 0 and y ≤ 0 (0 · log(0) would be NaN): PyTorch's value
    // and its gradients, log(y) masked the same way for x and x / y for y.
    return tidy(() => {
      const masked = pointwiseOps.logicalAnd(ops.eq(input, 0), ops.le(other, 0));
      return ops.mul(input, where(masked, 0, ops.log(other)));
    });
  },
  logit: keywords('logit', ['eps'], (input: TensorLike, eps: unknown): Tensor => {
    checkOperands('logit', ['input', input]);
    if (eps !== undefined && eps !== null && (typeof eps !== 'number' || !(eps >= 0 && eps <= 0.5))) {
      throw new Error(`logit: expected 'eps' to be a number in [0, 0.5] or nothing, got ${describe(eps)}`);
    }
    return tidy(() => {
      const p = eps === undefined || eps === null ? input : ops.clamp(input, eps, 1 - eps);
      return ops.log(ops.div(p, ops.sub(1, p)));
    });
  }),
  fmod: binary('fmod'),
  remainder: binary('remainder'),
  floorDivide: binary('floorDivide'),
  trueDivide(input, other, trailing?: unknown) {
    noOptions('trueDivide', trailing);
    checkOperands('trueDivide', ['input', input], ['other', other]);
    return ops.div(input, other);
  },
  logicalAnd: binary('logicalAnd'),
  logicalOr: binary('logicalOr'),
  logicalXor: binary('logicalXor'),
  logicalNot: unary('logicalNot'),
  isnan(input, trailing?: unknown) {
    noOptions('isnan', trailing);
    checkOperands('isnan', ['input', input]);
    return ops.ne(input, input);
  },
  isinf(input, trailing?: unknown) {
    noOptions('isinf', trailing);
    checkOperands('isinf', ['input', input]);
    return isFloat(input) ? tidy(() => ops.eq(ops.abs(input), Infinity)) : ops.ne(input, input);
  },
  isfinite(input, trailing?: unknown) {
    noOptions('isfinite', trailing);
    checkOperands('isfinite', ['input', input]);
    // x − x is 0 for every finite x, NaN for ±∞ and NaN.
    return isFloat(input) ? tidy(() => ops.eq(ops.sub(input, input), 0)) : ops.eq(input, input);
  },
  nanToNum(input, options) {
    checkOperands('nanToNum', ['input', input]);
    const o = checkOptions<NanToNumOptions>('nanToNum', options, { nan: 'number', posinf: 'number', neginf: 'number' });
    if (!isFloat(input)) return ops.clone(input);
    // ±∞ become the dtype's largest finite values by default (torch.finfo(dtype).max).
    const max = input instanceof Tensor ? finfo(input.dtype).max : FLOAT32_MAX;
    return tidy(() => {
      const fin = where(ops.eq(input, -Infinity), o.neginf ?? -max, input);
      const pos = where(ops.eq(input, Infinity), o.posinf ?? max, fin);
      return where(ops.ne(input, input), o.nan ?? 0, pos);
    });
  },
  lerp(input, end, weight, trailing?: unknown) {
    noOptions('lerp', trailing);
    checkOperands('lerp', ['input', input], ['end', end], ['weight', weight]);
    // PyTorch's kernel: the formula exact at its own end (weight 0 → start, 1 → end).
    return tidy(() => {
      const diff = ops.sub(end, input);
      const low = () => ops.add(input, ops.mul(weight, diff));
      const high = () => ops.sub(end, ops.mul(diff, ops.sub(1, weight)));
      if (typeof weight === 'number') return Math.abs(weight) < 0.5 ? low() : high();
      return where(ops.lt(ops.abs(weight), 0.5), low(), high());
    });
  },
  clampMin(input, min, trailing?: unknown) {
    noOptions('clampMin', trailing);
    checkOperands('clampMin', ['input', input], ['min', min]);
    return ops.clamp(input, min, null);
  },
  clampMax(input, max, trailing?: unknown) {
    noOptions('clampMax', trailing);
    checkOperands('clampMax', ['input', input], ['max', max]);
    return ops.clamp(input, null, max);
  },
  addcmul(input, tensor1, tensor2, options) {
    checkOperands('addcmul', ['input', input], ['tensor1', tensor1], ['tensor2', tensor2]);
    const value = numberOption('addcmul', 'value', checkOptions<{ value: number }>('addcmul', options, { value: 'number' }).value, 1);
    // ATen's order: input + (value·t1)·t2.
    return tidy(() => ops.add(input, ops.mul(ops.mul(tensor1, value), tensor2)));
  },
  addcdiv(input, tensor1, tensor2, options) {
    checkOperands('addcdiv', ['input', input], ['tensor1', tensor1], ['tensor2', tensor2]);
    const value = numberOption('addcdiv', 'value', checkOptions<{ value: number }>('addcdiv', options, { value: 'number' }).value, 1);
    return tidy(() => ops.add(input, ops.div(ops.mul(tensor1, value), tensor2)));
  },
  heaviside(input, values, trailing?: unknown) {
    noOptions('heaviside', trailing);
    const x = tensorOf('heaviside', 'input', input);
    checkOperands('heaviside', ['values', values]);
    return tidy(() => where(ops.eq(x, 0), values, ops.gt(x, 0).float()));
  },
};

installMethods(pointwiseOps);
