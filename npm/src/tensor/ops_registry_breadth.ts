// The ops that came with PyTorch breadth (src/ops/ops_more.h): more math, logical ops, scans,
// sorting, scatter, triangles and diagonals, rearranging, selection and multi-dimensional
// indexing, sampling, and einsum. As in ops.ts, `moreOps` holds the functional form
// (sg.cumsum(x, 1)) and the same functions become Tensor methods (x.cumsum(1)); each entry only
// turns JS arguments into callOp operands and attrs, the C++ op validates and reports errors.
import type { Attrs } from '../runtime/embind.js';
import { run, runList, type TensorLike } from '../runtime/call.js';
import { binary, deviceOf, indexOperand, installMethods, noOptions, unary, withTemp, type Dim, type IndexLike, type MethodsOf } from './ops.js';
import { boolArg, checkOptions, describe, dimsArg, intArg, isInteger, shapeArgs } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface RoundOptions {
  /** Decimal places (an integer, default 0): round(x · 10^d) / 10^d in float32, as PyTorch. */
  decimals?: number;
}

export interface SortOptions {
  descending?: boolean;
  /** Accepted for PyTorch compatibility: the sort is always stable. */
  stable?: boolean;
}
export interface TopkOptions {
  /** The k largest (true, default) or smallest. */
  largest?: boolean;
  /** Accepted for PyTorch compatibility: the results always come in sorted order. */
  sorted?: boolean;
}
export interface BernoulliOptions {
  /** One probability for every element (x's values are then ignored, only its shape counts). */
  p?: number;
}
/** PyTorch's scatter_reduce reductions. */
export type ScatterReduction = 'sum' | 'prod' | 'mean' | 'amax' | 'amin';
export interface ScatterReduceOptions {
  /** Whether input's own value takes part where values arrive (default true, as PyTorch). */
  includeSelf?: boolean;
}
export interface MultinomialOptions {
  replacement?: boolean;
}
/** A sort's result: the sorted values (differentiable) and their int32 positions along the dim. */
export interface SortResult {
  values: Tensor;
  indices: Tensor;
}

/**
 * One entry of `x.index(...)`, for one dim (Python's x[a, b, c] subscript): a number picks one
 * position (negative counts from the end) and removes the dim; `[start, end, step]` (any part
 * null or left out: `[2]`, `[null, -1]`, `[null, null, 2]`) is a range with Python's slice rules;
 * null or undefined keeps the whole dim; '...' stands for as many whole dims as the others leave.
 */
export type IndexItem = number | null | undefined | '...' | readonly (number | null | undefined)[];

/** The functional form of every op of this file that also exists as a Tensor method. */
export interface MoreOpFunctions {
  // math (rounding keeps int32 as is; round is half to even, as PyTorch)
  floor(input: TensorLike): Tensor;
  ceil(input: TensorLike): Tensor;
  /** Half to even, as PyTorch; `decimals` rounds to that many decimal places (negative: to tens, hundreds, ...). */
  round(input: TensorLike, options?: RoundOptions): Tensor;
  trunc(input: TensorLike): Tensor;
  tan(input: TensorLike): Tensor;
  atan(input: TensorLike): Tensor;
  asin(input: TensorLike): Tensor;
  acos(input: TensorLike): Tensor;
  sinh(input: TensorLike): Tensor;
  cosh(input: TensorLike): Tensor;
  atan2(input: TensorLike, other: TensorLike): Tensor;
  // modulo (int32 stays int32; a zero integer divisor is an Error, as PyTorch's ZeroDivisionError)
  /** C's fmod: input − trunc(input / other)·other, exactly; the sign of input. */
  fmod(input: TensorLike, other: TensorLike): Tensor;
  /** Python's %: the sign of other (torch.remainder), exactly. */
  remainder(input: TensorLike, other: TensorLike): Tensor;
  /** input / other rounded down (torch.floor_divide); not differentiable (use div with roundingMode 'floor'). */
  floorDivide(input: TensorLike, other: TensorLike): Tensor;
  // logical (bool results; nonzero and NaN are true)
  logicalAnd(input: TensorLike, other: TensorLike): Tensor;
  logicalOr(input: TensorLike, other: TensorLike): Tensor;
  logicalXor(input: TensorLike, other: TensorLike): Tensor;
  logicalNot(input: TensorLike): Tensor;
  any(input: TensorLike, dim?: Dim, keepdim?: boolean): Tensor;
  all(input: TensorLike, dim?: Dim, keepdim?: boolean): Tensor;
  // along a dim
  cumsum(input: TensorLike, dim: number): Tensor;
  cumprod(input: TensorLike, dim: number): Tensor;
  sort(input: TensorLike, dim?: number, options?: SortOptions): SortResult;
  argsort(input: TensorLike, dim?: number, options?: SortOptions): Tensor;
  topk(input: TensorLike, k: number, dim?: number, options?: TopkOptions): SortResult;
  /** A copy of input with src's values written at index along dim; src may be a number. */
  scatter(input: TensorLike, dim: number, index: IndexLike, src: TensorLike): Tensor;
  /** A copy of input with src's values added at index along dim (repeated indices accumulate). */
  scatterAdd(input: TensorLike, dim: number, index: IndexLike, src: TensorLike): Tensor;
  /**
   * PyTorch 1.13's scatter_reduce: a copy of input with src's values at index along dim combined
   * by `reduce` ('sum', 'prod', 'mean', 'amax', 'amin'); with `includeSelf: false` input's value
   * is left out wherever a value arrives. float32 or int32 (int32 'mean' rounds down); src of
   * input's dtype and dims. Differentiable in input and src as PyTorch (amax/amin split ties).
   */
  scatterReduce(input: TensorLike, dim: number, index: IndexLike, src: TensorLike, reduce: ScatterReduction, options?: ScatterReduceOptions): Tensor;
  // matrices
  tril(input: TensorLike, diagonal?: number): Tensor;
  triu(input: TensorLike, diagonal?: number): Tensor;
  diag(input: TensorLike, diagonal?: number): Tensor;
  outer(input: TensorLike, vec2: TensorLike): Tensor;
  // rearranging
  flip(input: TensorLike, ...dims: number[] | [readonly number[]]): Tensor;
  roll(input: TensorLike, shifts: number | readonly number[], dims?: number | readonly number[] | null): Tensor;
  repeat(input: TensorLike, ...repeats: number[] | [readonly number[]]): Tensor;
  tile(input: TensorLike, ...repeats: number[] | [readonly number[]]): Tensor;
  // selection and indexing (views of input)
  select(input: TensorLike, dim: number, index: number): Tensor;
  index(input: TensorLike, ...items: IndexItem[]): Tensor;
  // sampling (from the generator sg.manualSeed seeds)
  bernoulli(input: TensorLike, p?: number | BernoulliOptions): Tensor;
  multinomial(input: TensorLike, numSamples: number, options?: MultinomialOptions): Tensor;
}

/** The methods derived from MoreOpFunctions: the first argument becomes `this`. */
export type MoreOpMethods = MethodsOf<MoreOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends MoreOpMethods {}
}

// ---- helpers ----

function optionalInt(fn: string, name: string, v: unknown, fallback: number): number {
  return v === undefined || v === null ? fallback : intArg(fn, name, v);
}

/** A list of integers given as spread numbers or one array (flip(0, 1) / flip([0, 1])). */
function intList(fn: string, name: string, args: readonly unknown[]): number[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  if (!list.every(isInteger)) throw new Error(`${fn}: expected '${name}' to be integers (spread or one array), got ${describe(list.slice())}`);
  return list.slice() as number[];
}

function integers(fn: string, name: string, v: unknown): number[] {
  if (isInteger(v)) return [v];
  if (Array.isArray(v) && v.every(isInteger)) return v.slice();
  throw new Error(`${fn}: expected '${name}' to be an integer or an array of integers, got ${describe(v)}`);
}

function sortResult(fn: string, input: TensorLike, attrs: Attrs): SortResult {
  const [values, indices] = runList(fn, fn, [['input', input]], attrs);
  return { values: values!, indices: indices! };
}

// Open ends of a range: 0 and a number past any dim (the op's slice rules clamp it).
const OPEN_END = Number.MAX_SAFE_INTEGER;

/** index()'s items as the op's flat [kind, a, b, step] groups (kind 0 all, 1 position, 2 range, 3 '...'). */
function indexItems(items: readonly unknown[]): number[] {
  const out: number[] = [];
  const bad = (i: number, v: unknown): Error =>
    new Error(`index: expected item ${i} to be an integer, null, '...' or a [start, end, step] range of integers or nulls, got ${describe(v)}`);
  items.forEach((v, i) => {
    if (v === null || v === undefined) out.push(0, 0, 0, 1);
    else if (v === '...') out.push(3, 0, 0, 1);
    else if (isInteger(v)) out.push(1, v, 0, 1);
    else if (Array.isArray(v) && v.length <= 3 && v.every((p) => p === null || p === undefined || isInteger(p))) {
      const [start, end, step] = v as (number | null | undefined)[];
      out.push(2, start ?? 0, end ?? OPEN_END, step ?? 1);
    } else throw bad(i, v);
  });
  return out;
}

const roundHalfEven = unary('round');
const mulOp = binary('mul');
const divOp = binary('div');

// ---- the table ----

export const moreOps: MoreOpFunctions = {
  floor: unary('floor'),
  ceil: unary('ceil'),
  round(input, options) {
    const o = checkOptions<RoundOptions>('round', options, { decimals: 'integer' });
    const d = o.decimals ?? 0;
    if (d === 0) return roundHalfEven(input);
    if (input instanceof Tensor && input.dtype !== 'float32') {
      throw new Error(`round: decimals needs a float32 tensor, got ${input.dtype} (PyTorch refuses it too; round without decimals keeps integers as they are)`);
    }
    // PyTorch's float32 formula (round_decimals_kernel): the scale is a float32 10^|d|; one
    // multiply (or divide), round half to even, then the inverse.
    const scale = Math.fround(10 ** Math.abs(d));
    return withTemp(null, d > 0 ? mulOp(input, scale) : divOp(input, scale), (scaled) =>
      withTemp(null, roundHalfEven(scaled), (r) => (d > 0 ? divOp(r, scale) : mulOp(r, scale))));
  },

  trunc: unary('trunc'),
  tan: unary('tan'),
  atan: unary('atan'),
  asin: unary('asin'),
  acos: unary('acos'),
  sinh: unary('sinh'),
  cosh: unary('cosh'),
  atan2: binary('atan2'),
  fmod: binary('fmod'),
  remainder: binary('remainder'),
  floorDivide: binary('floorDivide'),
  logicalAnd: binary('logicalAnd'),
  logicalOr: binary('logicalOr'),
  logicalXor: binary('logicalXor'),
  logicalNot: unary('logicalNot'),
  any: (input, dim, keepdim, trailing?: unknown) => (noOptions('any', trailing), run('any', 'any', [['input', input]], { dim: dimsArg('any', dim), keepdim: boolArg('any', 'keepdim', keepdim, false) })),
  all: (input, dim, keepdim, trailing?: unknown) => (noOptions('all', trailing), run('all', 'all', [['input', input]], { dim: dimsArg('all', dim), keepdim: boolArg('all', 'keepdim', keepdim, false) })),
  cumsum: (input, dim, trailing?: unknown) => (noOptions('cumsum', trailing), run('cumsum', 'cumsum', [['input', input]], { dim: intArg('cumsum', 'dim', dim) })),
  cumprod: (input, dim, trailing?: unknown) => (noOptions('cumprod', trailing), run('cumprod', 'cumprod', [['input', input]], { dim: intArg('cumprod', 'dim', dim) })),
  sort(input, dim, options) {
    const o = checkOptions<SortOptions>('sort', options, { descending: 'boolean', stable: 'boolean' });
    return sortResult('sort', input, { dim: optionalInt('sort', 'dim', dim, -1), descending: o.descending });
  },
  argsort(input, dim, options) {
    const o = checkOptions<SortOptions>('argsort', options, { descending: 'boolean', stable: 'boolean' });
    return run('argsort', 'argsort', [['input', input]], { dim: optionalInt('argsort', 'dim', dim, -1), descending: o.descending });
  },
  topk(input, k, dim, options) {
    const o = checkOptions<TopkOptions>('topk', options, { largest: 'boolean', sorted: 'boolean' });
    return sortResult('topk', input, { k: intArg('topk', 'k', k), dim: optionalInt('topk', 'dim', dim, -1), largest: o.largest });
  },
  scatter(input, dim, index, src) {
    const d = intArg('scatter', 'dim', dim);
    return withTemp(index, indexOperand('scatter', index, deviceOf(input)), (ix) =>
      run('scatter', 'scatter', [['input', input], ['index', ix], ['src', src]], { dim: d }),
    );
  },
  scatterAdd(input, dim, index, src) {
    const d = intArg('scatterAdd', 'dim', dim);
    return withTemp(index, indexOperand('scatterAdd', index, deviceOf(input)), (ix) =>
      run('scatterAdd', 'scatterAdd', [['input', input], ['index', ix], ['src', src]], { dim: d }),
    );
  },
  scatterReduce(input, dim, index, src, reduce, options) {
    const fn = 'scatterReduce';
    const d = intArg(fn, 'dim', dim);
    if (typeof reduce !== 'string') throw new Error(`${fn}: expected reduce 'sum', 'prod', 'mean', 'amax' or 'amin', got ${describe(reduce)}`);
    const o = checkOptions<ScatterReduceOptions>(fn, options, { includeSelf: 'boolean' });
    return withTemp(index, indexOperand(fn, index, deviceOf(input)), (ix) =>
      run(fn, fn, [['input', input], ['index', ix], ['src', src]], { dim: d, reduce, includeSelf: o.includeSelf ?? true }),
    );
  },
  tril: (input, diagonal, trailing?: unknown) => (noOptions('tril', trailing), run('tril', 'tril', [['input', input]], { diagonal: optionalInt('tril', 'diagonal', diagonal, 0) })),
  triu: (input, diagonal, trailing?: unknown) => (noOptions('triu', trailing), run('triu', 'triu', [['input', input]], { diagonal: optionalInt('triu', 'diagonal', diagonal, 0) })),
  diag: (input, diagonal, trailing?: unknown) => (noOptions('diag', trailing), run('diag', 'diag', [['input', input]], { diagonal: optionalInt('diag', 'diagonal', diagonal, 0) })),
  outer: binary('outer', 'vec2'),
  flip: (input, ...dims) => run('flip', 'flip', [['input', input]], { dims: intList('flip', 'dims', dims) }),
  roll(input, shifts, dims) {
    const d = dims === undefined || dims === null ? undefined : integers('roll', 'dims', dims);
    return run('roll', 'roll', [['input', input]], { shifts: integers('roll', 'shifts', shifts), dims: d });
  },
  repeat: (input, ...repeats) => run('repeat', 'repeat', [['input', input]], { repeats: shapeArgs('repeat', repeats) }),
  tile: (input, ...repeats) => run('tile', 'tile', [['input', input]], { repeats: shapeArgs('tile', repeats) }),
  select: (input, dim, index) =>
    run('select', 'select', [['input', input]], { dim: intArg('select', 'dim', dim), index: intArg('select', 'index', index) }),
  index: (input, ...items) => run('index', 'index', [['input', input]], { items: indexItems(items) }),
  bernoulli(input, p) {
    const o = typeof p === 'number' ? checkOptions<BernoulliOptions>('bernoulli', { p }, { p: 'number' }) : checkOptions<BernoulliOptions>('bernoulli', p, { p: 'number' });
    return run('bernoulli', 'bernoulli', [['input', input]], { p: o.p });
  },
  multinomial(input, numSamples, options) {
    const o = checkOptions<MultinomialOptions>('multinomial', options, { replacement: 'boolean' });
    return run('multinomial', 'multinomial', [['input', input]], {
      numSamples: intArg('multinomial', 'numSamples', numSamples),
      replacement: o.replacement,
    });
  },
};

// ---- function-only ops ----

export const moreFunctionOps = {
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

installMethods(moreOps);
