// Every op of API.md, once: `ops` holds the functional form (sg.add(a, b)) and the same
// functions become the Tensor methods (a.add(b)) with `this` as first argument, so the two
// cannot drift. Each entry only turns JS arguments into callOp operands and attrs; the
// C++ op validates shapes and dtypes and reports errors.
import type { Attrs, Device } from '../runtime/embind.js';
import { run, run1, run2, runList, tensorArg, type TensorLike } from './call.js';
import { handleFrom, OpRef } from '../runtime/handles.js';
import {
  boolArg,
  checkOptions,
  describe,
  dimsArg,
  intArg,
  isInteger,
  isOptionsObject,
  numberArg,
  shapeArgs,
} from '../runtime/options.js';
import { Tensor } from './tensor.js';
import { keywords, type KwArgs } from './keywords.js';
import { placeOn } from '../runtime/webgpu_device.js';

/** dim for reductions: one dim, several, or undefined/null for all. */
export type Dim = number | readonly number[] | null | undefined;
/** A shape as one array or spread numbers. */
export type ShapeArgs = [shape: readonly number[]] | number[];
/** An index operand: an int32 tensor or a plain (nested) array of integers. */
export type IndexLike = Tensor | number[] | number[][] | number[][][] | number[][][][];

export interface GeluOptions {
  approximate?: 'none' | 'tanh';
}
export interface SoftplusOptions {
  beta?: number;
  threshold?: number;
}
export interface VarOptions {
  unbiased?: boolean;
}
export interface PadOptions {
  mode?: 'constant' | 'reflect' | 'replicate';
  value?: number;
}
/** The keyword arguments of a reduction (sum, mean, ..., any, nansum). */
export interface ReduceKeywords {
  dim?: Dim;
  keepdim?: boolean;
}
/** var's and std's keyword arguments. */
export interface VarKeywords extends VarOptions, ReduceKeywords {}
/** argmax's and argmin's keyword arguments. */
export interface ArgReduceKeywords {
  dim?: number | null;
  keepdim?: boolean;
}
/** A keyword argument `dim` (softmax, cumsum, squeeze, ...). */
export interface DimKeyword {
  dim?: number;
}
/** Reductions' arguments: (dim?, keepdim?), either of them also by name in a trailing options object. */
export type ReduceArgs = KwArgs<[], [dim: Dim, keepdim: boolean], ReduceKeywords>;
/** The arguments of an op with one `dim` (required), positional or by name. */
export type DimArgs = KwArgs<[dim: number], [], DimKeyword>;
/** The arguments of an op with one optional `dim`, positional or by name. */
export type OptionalDimArgs = KwArgs<[], [dim: number], DimKeyword>;

/** The functional form of every op that also exists as a Tensor method. */
export interface OpFunctions {
  // arithmetic (binary ops broadcast; numbers are 0-d tensors)
  /** input + alpha·other (PyTorch's alpha, default 1). */
  add(input: TensorLike, other: TensorLike, options?: { alpha?: number }): Tensor;
  /** input − alpha·other. */
  sub(input: TensorLike, other: TensorLike, options?: { alpha?: number }): Tensor;
  mul(input: TensorLike, other: TensorLike): Tensor;
  /**
   * True division, or with `roundingMode` the quotient rounded toward zero ('trunc') or down
   * ('floor'), as torch.div: integer operands then stay int32 (a zero divisor is an Error), and
   * the gradient is 0.
   */
  div(input: TensorLike, other: TensorLike, options?: { roundingMode?: 'trunc' | 'floor' | null }): Tensor;
  pow(input: TensorLike, exponent: TensorLike): Tensor;
  maximum(input: TensorLike, other: TensorLike): Tensor;
  minimum(input: TensorLike, other: TensorLike): Tensor;
  neg(input: TensorLike): Tensor;
  /** min/max: numbers, tensors, or null/undefined for no bound. */
  clamp(input: TensorLike, ...args: KwArgs<[], [min: TensorLike | null | undefined, max: TensorLike | null | undefined], { min?: TensorLike | null; max?: TensorLike | null }>): Tensor;
  // math
  exp(input: TensorLike): Tensor;
  log(input: TensorLike): Tensor;
  log2(input: TensorLike): Tensor;
  log10(input: TensorLike): Tensor;
  log1p(input: TensorLike): Tensor;
  expm1(input: TensorLike): Tensor;
  sqrt(input: TensorLike): Tensor;
  rsqrt(input: TensorLike): Tensor;
  abs(input: TensorLike): Tensor;
  sign(input: TensorLike): Tensor;
  sin(input: TensorLike): Tensor;
  cos(input: TensorLike): Tensor;
  erf(input: TensorLike): Tensor;
  square(input: TensorLike): Tensor;
  reciprocal(input: TensorLike): Tensor;
  // activations
  relu(input: TensorLike): Tensor;
  leakyRelu(input: TensorLike, ...args: KwArgs<[], [negativeSlope: number], { negativeSlope?: number }>): Tensor;
  prelu(input: TensorLike, weight: Tensor): Tensor;
  elu(input: TensorLike, ...args: KwArgs<[], [alpha: number], { alpha?: number }>): Tensor;
  selu(input: TensorLike): Tensor;
  gelu(input: TensorLike, options?: GeluOptions): Tensor;
  sigmoid(input: TensorLike): Tensor;
  tanh(input: TensorLike): Tensor;
  softplus(input: TensorLike, options?: SoftplusOptions): Tensor;
  silu(input: TensorLike): Tensor;
  softmax(input: TensorLike, ...args: DimArgs): Tensor;
  logSoftmax(input: TensorLike, ...args: DimArgs): Tensor;
  // linear algebra
  matmul(input: TensorLike, other: TensorLike): Tensor;
  transpose(input: TensorLike, ...args: KwArgs<[dim0: number, dim1: number], [], { dim0?: number; dim1?: number }>): Tensor;
  permute(input: TensorLike, ...dims: ShapeArgs | [{ dims: readonly number[] }]): Tensor;
  // reductions
  sum(input: TensorLike, ...args: ReduceArgs): Tensor;
  mean(input: TensorLike, ...args: ReduceArgs): Tensor;
  prod(input: TensorLike, ...args: ReduceArgs): Tensor;
  logsumexp(input: TensorLike, ...args: ReduceArgs): Tensor;
  /** Values of the max over dim (all dims when absent); max(a, b) with a tensor b is maximum. */
  max(input: TensorLike, ...args: KwArgs<[], [dim: Dim | Tensor, keepdim: boolean], ReduceKeywords>): Tensor;
  min(input: TensorLike, ...args: KwArgs<[], [dim: Dim | Tensor, keepdim: boolean], ReduceKeywords>): Tensor;
  /** Variance over dim (all when absent); `{ unbiased }` (default true) in the trailing options object. */
  var(input: TensorLike, ...args: KwArgs<[], [dim: Dim, keepdim: boolean], VarKeywords>): Tensor;
  std(input: TensorLike, ...args: KwArgs<[], [dim: Dim, keepdim: boolean], VarKeywords>): Tensor;
  argmax(input: TensorLike, ...args: KwArgs<[], [dim: number | null | undefined, keepdim: boolean], ArgReduceKeywords>): Tensor;
  argmin(input: TensorLike, ...args: KwArgs<[], [dim: number | null | undefined, keepdim: boolean], ArgReduceKeywords>): Tensor;
  /** p: a number (Infinity allowed) or 'fro' (= 2). */
  norm(input: TensorLike, ...args: KwArgs<[], [p: number | 'fro' | undefined, dim: Dim, keepdim: boolean], ReduceKeywords & { p?: number | 'fro' }>): Tensor;
  // shape
  reshape(input: TensorLike, ...shape: ShapeArgs | [{ shape: readonly number[] }]): Tensor;
  view(input: TensorLike, ...shape: ShapeArgs | [{ size: readonly number[] }]): Tensor;
  expand(input: TensorLike, ...shape: ShapeArgs | [{ size: readonly number[] }]): Tensor;
  flatten(input: TensorLike, ...args: KwArgs<[], [startDim: number, endDim: number], { startDim?: number; endDim?: number }>): Tensor;
  squeeze(input: TensorLike, ...args: KwArgs<[], [dim: number | null | undefined], { dim?: number | null }>): Tensor;
  unsqueeze(input: TensorLike, ...args: DimArgs): Tensor;
  split(input: TensorLike, ...args: KwArgs<[splitSizeOrSections: number | readonly number[]], [dim: number], { splitSizeOrSections?: number | readonly number[]; dim?: number }>): Tensor[];
  chunk(input: TensorLike, ...args: KwArgs<[chunks: number], [dim: number], { chunks?: number; dim?: number }>): Tensor[];
  narrow(input: TensorLike, ...args: KwArgs<[dim: number, start: number, length: number], [], { dim?: number; start?: number; length?: number }>): Tensor;
  slice(input: TensorLike, ...args: KwArgs<[dim: number], [start: number | null | undefined, end: number | null | undefined, step: number], { dim?: number; start?: number | null; end?: number | null; step?: number }>): Tensor;
  indexSelect(input: TensorLike, ...args: KwArgs<[dim: number, index: IndexLike], [], { dim?: number; index?: IndexLike }>): Tensor;
  gather(input: TensorLike, ...args: KwArgs<[dim: number, index: IndexLike], [], { dim?: number; index?: IndexLike }>): Tensor;
  contiguous(input: TensorLike): Tensor;
  clone(input: TensorLike): Tensor;
  // comparison and selection (bool results)
  eq(input: TensorLike, other: TensorLike): Tensor;
  ne(input: TensorLike, other: TensorLike): Tensor;
  lt(input: TensorLike, other: TensorLike): Tensor;
  le(input: TensorLike, other: TensorLike): Tensor;
  gt(input: TensorLike, other: TensorLike): Tensor;
  ge(input: TensorLike, other: TensorLike): Tensor;
  maskedFill(input: TensorLike, ...args: KwArgs<[mask: MaskLike, value: number], [], { mask?: MaskLike; value?: number }>): Tensor;
}
/** A bool mask operand: a bool tensor or a plain (nested) array of booleans. */
export type MaskLike = Tensor | boolean[] | boolean[][] | boolean[][][];

/** The methods of a table of op functions: the first argument becomes `this`. */
export type MethodsOf<T> = {
  [K in keyof T]: T[K] extends (input: never, ...rest: infer R) => infer Out ? (...rest: R) => Out : never;
};
export type OpMethods = MethodsOf<OpFunctions>;

// Every op is a Tensor method too (installed at the end of this file).
declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends OpMethods {}
}

// ---- helpers ----

/** A required operand: null/undefined would reach the op as an absent tensor. */
function required(fn: string, name: string, v: TensorLike): TensorLike {
  if (v === null || v === undefined) throw new Error(`${fn}: expected '${name}' to be a Tensor or a number, got ${describe(v)}`);
  return v;
}

/**
 * An options object given to an op that has none (`sg.exp(x, { foo: 1 })`, PyTorch's unexpected
 * keyword) is an Error rather than silently ignored. Other extra arguments pass: `xs.map(sg.exp)`
 * hands every element its index and the array. (Ops wrapped by keywords() need none of this: an
 * options object there is read by name, and an argument past their parameters is an Error.)
 */
export function noOptions(fn: string, extra: unknown): void {
  if (extra !== undefined && isOptionsObject(extra)) throw new Error(`${fn}: takes no options, got an options object with keys: ${Object.keys(extra).join(', ') || '(none)'}`);
}

/** A one-operand op by name (the fast path for live Tensors). */
export const unary = (name: string) => {
  const op = new OpRef(name);
  return (input: TensorLike, extra?: unknown): Tensor => {
    noOptions(name, extra);
    return run1(name, op, 'input', required(name, 'input', input));
  };
};
/** A two-operand op by name; `second` names the second operand in errors. */
export const binary = (name: string, second = 'other') => {
  const op = new OpRef(name);
  return (input: TensorLike, other: TensorLike, extra?: unknown): Tensor => {
    noOptions(name, extra);
    return run2(name, op, 'input', required(name, 'input', input), second, required(name, second, other));
  };
};

/** div with PyTorch's `roundingMode` (the op divRounded, ops/modulo.cpp). */
const divide = () => {
  const plain = binary('div');
  return (input: TensorLike, other: TensorLike, options?: { roundingMode?: 'trunc' | 'floor' | null }): Tensor => {
    if (options === undefined) return plain(input, other);
    const { roundingMode } = checkOptions<{ roundingMode: string | null }>('div', options, {
      roundingMode: { check: (v) => v === null || v === 'trunc' || v === 'floor', expected: "'trunc', 'floor' or null" },
    });
    if (roundingMode === undefined || roundingMode === null) return plain(input, other);
    return run('div', 'divRounded', [['input', input], ['other', other]], { roundingMode });
  };
};

/** add and sub with PyTorch's `alpha`: input ± alpha·other (other scaled first, as torch.add). */
const withAlpha = (name: 'add' | 'sub') => {
  const plain = binary(name);
  const scale = binary('mul');
  return (input: TensorLike, other: TensorLike, options?: { alpha?: number }): Tensor => {
    if (options === undefined) return plain(input, other);
    const { alpha } = checkOptions<{ alpha: number }>(name, options, { alpha: 'number' });
    if (alpha === undefined || alpha === 1) return plain(input, other);
    if (typeof other === 'number') return plain(input, alpha * other);
    const scaled = scale(required(name, 'other', other), alpha);
    return withTemp(null, scaled, (b) => plain(input, b));
  };
};

function reduce(name: string, input: TensorLike, dim: unknown, keepdim: unknown, extra: Attrs = {}): Tensor {
  return run(name, name, [['input', input]], { dim: dimsArg(name, dim), keepdim: boolArg(name, 'keepdim', keepdim, false), ...extra });
}

/** A reduction `name(input, dim?, keepdim?)` with dim and keepdim also by keyword. */
export const reduction = (name: string, impl: (input: TensorLike, dim: unknown, keepdim: unknown) => Tensor = (input, dim, keepdim) => reduce(name, input, dim, keepdim)) =>
  keywords(name, ['dim', 'keepdim'], impl);

/** var/std: (dim?, keepdim?, { unbiased }), dim and keepdim also by keyword. */
export const variance = (name: string) =>
  keywords(name, { positional: ['dim', 'keepdim'], options: ['unbiased'] }, (input: TensorLike, dim: unknown, keepdim: unknown, options: unknown): Tensor => {
    const opts = checkOptions<VarOptions>(name, options, { unbiased: 'boolean' });
    return reduce(name, input, dim, keepdim, { unbiased: opts.unbiased ?? true });
  });

/** An op of one integer `dim` (softmax, cumsum, ...), positional or by keyword. */
export const dimOp = (name: string, op: string = name) =>
  keywords(name, ['dim'], (input: TensorLike, dim: unknown): Tensor => {
    return run(name, op, [['input', input]], { dim: intArg(name, 'dim', dim) });
  });

/** An index operand: a tensor as is, or a plain integer array made into an int32 tensor. */
/** An index or mask made from a plain array goes to the device of the tensor it indexes. */
export function deviceOf(v: unknown): Device | undefined {
  return v instanceof Tensor ? v.device : undefined;
}

export function indexOperand(fn: string, index: unknown, device?: Device): Tensor {
  if (index instanceof Tensor) return index;
  if (Array.isArray(index)) {
    const shape: number[] = [];
    for (let v: unknown = index; Array.isArray(v); v = v[0]) shape.push(v.length);
    const flat = (index as unknown[]).flat(Infinity);
    if (!flat.every(isInteger) || flat.length !== shape.reduce((x, y) => x * y, 1)) {
      throw new Error(`${fn}: expected 'index' to be an int32 Tensor or a rectangular array of integers, got ${describe(index)}`);
    }
    return new Tensor(placeOn(handleFrom(flat as number[], shape, 'int32'), device));
  }
  throw new Error(`${fn}: expected 'index' to be an int32 Tensor or an array of integers, got ${describe(index)}`);
}

function maskOperand(fn: string, mask: unknown, device?: Device): Tensor {
  if (mask instanceof Tensor) {
    if (mask.dtype !== 'bool') throw new Error(`${fn}: expected '${fn === 'where' ? 'condition' : 'mask'}' of dtype bool, got ${mask.dtype}`);
    return mask;
  }
  if (Array.isArray(mask)) {
    const shape: number[] = [];
    for (let v: unknown = mask; Array.isArray(v); v = v[0]) shape.push(v.length);
    const flat = (mask as unknown[]).flat(Infinity);
    if (!flat.every((v) => typeof v === 'boolean') || flat.length !== shape.reduce((x, y) => x * y, 1)) {
      throw new Error(`${fn}: expected 'mask' to be a bool Tensor or a rectangular array of booleans, got ${describe(mask)}`);
    }
    return new Tensor(placeOn(handleFrom(flat.map(Number), shape, 'bool'), device));
  }
  throw new Error(`${fn}: expected 'mask' to be a bool Tensor or an array of booleans, got ${describe(mask)}`);
}

/** Runs f with a temporary tensor made from a plain array, disposing it afterwards. */
export function withTemp<T>(original: unknown, made: Tensor, f: (t: Tensor) => T): T {
  try {
    return f(made);
  } finally {
    if (made !== original) made.dispose();
  }
}

function bound(fn: string, name: string, v: unknown): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`${fn}: expected '${name}' to be a number, a Tensor or null, got ${describe(v)}`);
  return v;
}

// ---- the table ----

export const ops: OpFunctions = {
  add: withAlpha('add'),
  sub: withAlpha('sub'),
  mul: binary('mul'),
  div: divide(),
  pow: binary('pow', 'exponent'),
  maximum: binary('maximum'),
  minimum: binary('minimum'),
  neg: unary('neg'),
  clamp: keywords('clamp', ['min', 'max'], (input: TensorLike, min: TensorLike | null | undefined, max: TensorLike | null | undefined): Tensor => {
    if (min instanceof Tensor || max instanceof Tensor) {
      // Tensor bounds: clamp = minimum(maximum(x, min), max), as PyTorch.
      let out = min === null || min === undefined ? ops.clone(input) : ops.maximum(input, min);
      if (max !== null && max !== undefined) {
        const lower = out;
        out = ops.minimum(lower, max);
        lower.dispose();
      }
      return out;
    }
    return run('clamp', 'clamp', [['input', input]], { min: bound('clamp', 'min', min), max: bound('clamp', 'max', max) });
  }),
  exp: unary('exp'),
  log: unary('log'),
  log2: unary('log2'),
  log10: unary('log10'),
  log1p: unary('log1p'),
  expm1: unary('expm1'),
  sqrt: unary('sqrt'),
  rsqrt: unary('rsqrt'),
  abs: unary('abs'),
  sign: unary('sign'),
  sin: unary('sin'),
  cos: unary('cos'),
  erf: unary('erf'),
  square: unary('square'),
  reciprocal: unary('reciprocal'),
  relu: unary('relu'),
  leakyRelu: keywords('leakyRelu', ['negativeSlope'], (input: TensorLike, negativeSlope: unknown = 0.01): Tensor => {
    return run('leakyRelu', 'leakyRelu', [['input', input]], { negativeSlope: numberArg('leakyRelu', 'negativeSlope', negativeSlope) });
  }),
  prelu(input, weight, trailing?: unknown) {
    noOptions('prelu', trailing);
    return run('prelu', 'prelu', [['input', input], ['weight', tensorArg('prelu', 'weight', weight)]]);
  },
  elu: keywords('elu', ['alpha'], (input: TensorLike, alpha: unknown = 1): Tensor => {
    return run('elu', 'elu', [['input', input]], { alpha: numberArg('elu', 'alpha', alpha) });
  }),
  selu: unary('selu'),
  gelu(input, options) {
    const o = checkOptions<GeluOptions>('gelu', options, { approximate: ['none', 'tanh'] });
    return run('gelu', 'gelu', [['input', input]], { approximate: o.approximate });
  },
  sigmoid: unary('sigmoid'),
  tanh: unary('tanh'),
  softplus(input, options) {
    const o = checkOptions<SoftplusOptions>('softplus', options, { beta: 'number', threshold: 'number' });
    return run('softplus', 'softplus', [['input', input]], { beta: o.beta, threshold: o.threshold });
  },
  silu: unary('silu'),
  softmax: dimOp('softmax'),
  logSoftmax: dimOp('logSoftmax'),
  matmul: binary('matmul'),
  transpose: keywords('transpose', ['dim0', 'dim1'], (input: TensorLike, dim0: unknown, dim1: unknown): Tensor => {
    return run('transpose', 'transpose', [['input', input]], {
      dim0: intArg('transpose', 'dim0', dim0),
      dim1: intArg('transpose', 'dim1', dim1),
    });
  }),
  permute: keywords('permute', { positional: ['dims'], rest: true }, (input: TensorLike, ...dims: unknown[]): Tensor => {
    return run('permute', 'permute', [['input', input]], { dims: shapeArgs('permute', dims) });
  }),
  sum: reduction('sum'),
  mean: reduction('mean'),
  prod: reduction('prod'),
  logsumexp: reduction('logsumexp'),
  max: reduction('max', (input, dim, keepdim) => (dim instanceof Tensor ? ops.maximum(input, dim) : reduce('max', input, dim, keepdim))),
  min: reduction('min', (input, dim, keepdim) => (dim instanceof Tensor ? ops.minimum(input, dim) : reduce('min', input, dim, keepdim))),
  var: variance('var'),
  std: variance('std'),
  argmax: keywords('argmax', ['dim', 'keepdim'], (input: TensorLike, dim: unknown, keepdim: unknown): Tensor => {
    const d = dim === null || dim === undefined ? undefined : intArg('argmax', 'dim', dim);
    return run('argmax', 'argmax', [['input', input]], { dim: d, keepdim: boolArg('argmax', 'keepdim', keepdim, false) });
  }),
  argmin: keywords('argmin', ['dim', 'keepdim'], (input: TensorLike, dim: unknown, keepdim: unknown): Tensor => {
    const d = dim === null || dim === undefined ? undefined : intArg('argmin', 'dim', dim);
    return run('argmin', 'argmin', [['input', input]], { dim: d, keepdim: boolArg('argmin', 'keepdim', keepdim, false) });
  }),
  norm: keywords('norm', ['p', 'dim', 'keepdim'], (input: TensorLike, p: unknown = 2, dim: unknown, keepdim: unknown): Tensor => {
    const pv = p === 'fro' ? 2 : p;
    if (typeof pv !== 'number' || Number.isNaN(pv)) throw new Error(`norm: expected 'p' to be a number or 'fro', got ${describe(p)}`);
    return reduce('norm', input, dim, keepdim, { p: pv });
  }),
  reshape: keywords('reshape', { positional: ['shape'], rest: true }, (input: TensorLike, ...shape: unknown[]): Tensor => {
    return run('reshape', 'reshape', [['input', input]], { shape: shapeArgs('reshape', shape) });
  }),
  view: keywords('view', { positional: ['size'], rest: true }, (input: TensorLike, ...shape: unknown[]): Tensor => {
    return run('view', 'view', [['input', input]], { shape: shapeArgs('view', shape) });
  }),
  expand: keywords('expand', { positional: ['size'], rest: true }, (input: TensorLike, ...shape: unknown[]): Tensor => {
    return run('expand', 'expand', [['input', input]], { shape: shapeArgs('expand', shape) });
  }),
  flatten: keywords('flatten', ['startDim', 'endDim'], (input: TensorLike, startDim: unknown = 0, endDim: unknown = -1): Tensor => {
    return run('flatten', 'flatten', [['input', input]], {
      startDim: intArg('flatten', 'startDim', startDim),
      endDim: intArg('flatten', 'endDim', endDim),
    });
  }),
  squeeze: keywords('squeeze', ['dim'], (input: TensorLike, dim: unknown): Tensor => {
    const d = dim === null || dim === undefined ? undefined : intArg('squeeze', 'dim', dim);
    return run('squeeze', 'squeeze', [['input', input]], { dim: d });
  }),
  unsqueeze: dimOp('unsqueeze'),
  split: keywords('split', ['splitSizeOrSections', 'dim'], (input: TensorLike, splitSizeOrSections: unknown, dim: unknown = 0): Tensor[] => {
    const d = intArg('split', 'dim', dim);
    if (isInteger(splitSizeOrSections)) return runList('split', 'split', [['input', input]], { splitSize: splitSizeOrSections, dim: d });
    if (Array.isArray(splitSizeOrSections) && splitSizeOrSections.every(isInteger)) {
      return runList('split', 'split', [['input', input]], { sections: splitSizeOrSections.slice(), dim: d });
    }
    throw new Error(`split: expected 'splitSizeOrSections' to be an integer or an array of integers, got ${describe(splitSizeOrSections)}`);
  }),
  chunk: keywords('chunk', ['chunks', 'dim'], (input: TensorLike, chunks: unknown, dim: unknown = 0): Tensor[] => {
    return runList('chunk', 'chunk', [['input', input]], { chunks: intArg('chunk', 'chunks', chunks), dim: intArg('chunk', 'dim', dim) });
  }),
  narrow: keywords('narrow', ['dim', 'start', 'length'], (input: TensorLike, dim: unknown, start: unknown, length: unknown): Tensor => {
    return run('narrow', 'narrow', [['input', input]], {
      dim: intArg('narrow', 'dim', dim),
      start: intArg('narrow', 'start', start),
      length: intArg('narrow', 'length', length),
    });
  }),
  slice: keywords('slice', ['dim', 'start', 'end', 'step'], (input: TensorLike, dim: unknown, start: unknown, end: unknown, step: unknown = 1): Tensor => {
    const opt = (name: string, v: unknown) => (v === null || v === undefined ? undefined : intArg('slice', name, v));
    return run('slice', 'slice', [['input', input]], {
      dim: intArg('slice', 'dim', dim),
      start: opt('start', start),
      end: opt('end', end),
      step: intArg('slice', 'step', step),
    });
  }),
  indexSelect: keywords('indexSelect', ['dim', 'index'], (input: TensorLike, dim: unknown, index: unknown): Tensor => {
    const d = intArg('indexSelect', 'dim', dim);
    return withTemp(index, indexOperand('indexSelect', index, deviceOf(input)), (ix) =>
      run('indexSelect', 'indexSelect', [['input', input], ['index', ix]], { dim: d }),
    );
  }),
  gather: keywords('gather', ['dim', 'index'], (input: TensorLike, dim: unknown, index: unknown): Tensor => {
    const d = intArg('gather', 'dim', dim);
    return withTemp(index, indexOperand('gather', index, deviceOf(input)), (ix) => run('gather', 'gather', [['input', input], ['index', ix]], { dim: d }));
  }),
  contiguous: unary('contiguous'),
  clone: unary('clone'),
  eq: binary('eq'),
  ne: binary('ne'),
  lt: binary('lt'),
  le: binary('le'),
  gt: binary('gt'),
  ge: binary('ge'),
  maskedFill: keywords('maskedFill', ['mask', 'value'], (input: TensorLike, mask: unknown, value: unknown): Tensor => {
    const v = typeof value === 'boolean' ? Number(value) : value;
    if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`maskedFill: expected 'value' to be a number, got ${describe(value)}`);
    return withTemp(mask, maskOperand('maskedFill', mask, deviceOf(input)), (m) =>
      run('maskedFill', 'maskedFill', [['input', input], ['mask', m]], { value: v }),
    );
  }),
};

// ---- function-only ops ----

function tensorList(fn: string, list: unknown): Tensor[] {
  if (!Array.isArray(list) || list.length === 0) throw new Error(`${fn}: expected a non-empty array of Tensors, got ${describe(list)}`);
  return list.map((t, i) => tensorArg(fn, `tensors[${i}]`, t));
}

/** cat and stack: (tensors, dim = 0), dim also by keyword. */
const joining = (name: 'cat' | 'stack') =>
  keywords(name, ['dim'], (tensors: readonly Tensor[], dim: unknown = 0): Tensor => {
    const list = tensorList(name, tensors);
    return run(name, name, list.map((t, i): [string, Tensor] => [`tensors[${i}]`, t]), { dim: intArg(name, 'dim', dim) });
  }) as (tensors: readonly Tensor[], ...args: OptionalDimArgs) => Tensor;

export const functionOps = {
  /** Concatenates tensors along an existing dim (default 0; also `{ dim }`). */
  cat: joining('cat'),
  /** Stacks same-shape tensors along a new dim (default 0; also `{ dim }`). */
  stack: joining('stack'),
  /** Elementwise cond ? input : other (both may be numbers); differentiable in input and other. */
  where(condition: Tensor | boolean[] | boolean[][], input: TensorLike, other: TensorLike, trailing?: unknown): Tensor {
    noOptions('where', trailing);
    return withTemp(condition, maskOperand('where', condition, deviceOf(input) ?? deviceOf(other)), (c) =>
      run('where', 'where', [['condition', c], ['input', input], ['other', other]]),
    );
  },
  /** F.pad: pads in PyTorch's order (last dim first); PyTorch's keyword `pad` names them too. */
  pad: keywords('pad', { positional: ['pad'], options: ['mode', 'value'] }, (input: TensorLike, pads: readonly number[], options?: PadOptions): Tensor => {
    const o = checkOptions<PadOptions>('pad', options, { mode: ['constant', 'reflect', 'replicate'], value: 'number' });
    if (!Array.isArray(pads) || !pads.every(isInteger)) throw new Error(`pad: expected 'pads' to be an array of integers, got ${describe(pads)}`);
    return run('pad', 'pad', [['input', input]], { pads: pads.slice(), mode: o.mode, value: o.value });
  }) as (input: TensorLike, ...args: KwArgs<[pads: readonly number[]], [], PadOptions & { pad?: readonly number[] }>) => Tensor,
};

/** Installs every function of an op table as a Tensor method sharing it (`this` first). */
export function installMethods(table: object): void {
  for (const [name, fn] of Object.entries(table)) {
    const f = fn as (...args: unknown[]) => unknown;
    Object.defineProperty(Tensor.prototype, name, {
      value: function (this: Tensor, ...args: unknown[]) {
        return f(this, ...args);
      },
      writable: true,
      configurable: true,
    });
  }
}
installMethods(ops);
