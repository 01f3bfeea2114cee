// Comparisons beyond ops.ts's eq/lt/... (PyTorch's "Comparison Ops"): closeness tests (isclose,
// allclose) and the NaN-ignoring elementwise extremes (fmax, fmin), as compositions of existing
// ops, each a function (sg.isclose(a, b)) and a Tensor method (a.isclose(b)). Values and
// gradients are PyTorch 1.13's (tests/data/gen_ops_compose_search.py, gen_ops_stack_stats.py).
import { checkOperands, type TensorLike } from './call.js';
import { isFloatingDType } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { numberOption, tensorOf } from './args.js';
import { pointwiseOps } from './pointwise.js';
import { reductionOps } from './reductions.js';
import { checkOptions } from '../runtime/options.js';
import type { Tensor } from './tensor.js';

export interface IscloseOptions {
  /** Relative tolerance (default 1e-5). */
  rtol?: number;
  /** Absolute tolerance (default 1e-8). */
  atol?: number;
  /** NaN is close to NaN (default false). */
  equalNan?: boolean;
}

export interface ComparisonOpFunctions {
  /** |a − b| ≤ atol + rtol·|b| elementwise (bool), or equal (infinities), or both NaN with equalNan. */
  isclose(input: Tensor, other: Tensor, options?: IscloseOptions): Tensor;
  /** Whether every element is close (isclose): a JavaScript boolean. */
  allclose(input: Tensor, other: Tensor, options?: IscloseOptions): boolean;
  /** Elementwise max that ignores NaN (NaN only where both are). */
  fmax(input: TensorLike, other: TensorLike): Tensor;
  /** Elementwise min that ignores NaN. */
  fmin(input: TensorLike, other: TensorLike): Tensor;
}

/** The methods derived from ComparisonOpFunctions: the first argument becomes `this`. */
export type ComparisonOpMethods = MethodsOf<ComparisonOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends ComparisonOpMethods {}
}

const where = functionOps.where;
const { isnan, isfinite, logicalAnd, logicalOr } = pointwiseOps;

function closeness(fn: string, a: Tensor, b: Tensor, options: unknown): Tensor {
  const o = checkOptions<IscloseOptions>(fn, options, { rtol: 'number', atol: 'number', equalNan: 'boolean' });
  const rtol = numberOption(fn, 'rtol', o.rtol, 1e-5, 0), atol = numberOption(fn, 'atol', o.atol, 1e-8, 0);
  if (a.dtype !== b.dtype) throw new Error(`${fn}: expected both tensors to have the same dtype, got ${a.dtype} and ${b.dtype}`);
  return tidy(() => {
    // PyTorch's formula (TensorCompare.cpp): equal, or both NaN with equalNan, or a finite
    // |a − b| within atol + |rtol·b| (bool operands compare as float32).
    let close = ops.eq(a, b);
    if (o.equalNan && isFloatingDType(a.dtype)) close = logicalOr(close, logicalAnd(isnan(a), isnan(b)));
    if (rtol === 0 && atol === 0) return close;
    const [fa, fb] = a.dtype === 'bool' ? [a.float(), b.float()] : [a, b];
    const allowed = ops.add(ops.abs(ops.mul(fb, rtol)), atol);
    const actual = ops.abs(ops.sub(fa, fb));
    return logicalOr(close, logicalAnd(isfinite(actual), ops.le(actual, allowed)));
  });
}

/** fmax/fmin: a where a ≥ b (≤ for fmin) or b is NaN, else b: NaN only where both are; ties and the gradient go to a (PyTorch's backward). */
function nanIgnoring(a: TensorLike, b: TensorLike, max: boolean): Tensor {
  return tidy(() => where(logicalOr(max ? ops.ge(a, b) : ops.le(a, b), isnan(b)), a, b));
}

export const comparisonOps: ComparisonOpFunctions = {
  isclose(input, other, options) {
    return closeness('isclose', tensorOf('isclose', 'input', input), tensorOf('isclose', 'other', other), options);
  },
  allclose(input, other, options) {
    const a = tensorOf('allclose', 'input', input), b = tensorOf('allclose', 'other', other);
    if (a.device !== 'cpu' || b.device !== 'cpu') {
      throw new Error(`allclose: returns a boolean, read synchronously, and these tensors are on '${a.device === 'cpu' ? b.device : a.device}'; use \`(await sg.isclose(a, b).all().data())[0] === 1\``);
    }
    return tidy(() => reductionOps.all(closeness('allclose', a, b, options)).item() !== 0);
  },
  fmax(input, other, trailing?: unknown) {
    noOptions('fmax', trailing);
    checkOperands('fmax', ['input', input], ['other', other]);
    return nanIgnoring(input, other, true);
  },
  fmin(input, other, trailing?: unknown) {
    noOptions('fmin', trailing);
    checkOperands('fmin', ['input', input], ['other', other]);
    return nanIgnoring(input, other, false);
  },
};

installMethods(comparisonOps);
