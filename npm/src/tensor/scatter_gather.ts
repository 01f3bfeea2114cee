// Scattering values into a copy of a tensor and gathering them out of one, beyond ops.ts's
// gather/indexSelect: scatter, scatterAdd, scatterReduce (C++ ops), and as compositions of
// existing ops takeAlongDim, take, indexAdd, indexCopy, indexFill, selectScatter, sliceScatter
// and diagonalScatter. Each is a function (sg.scatter(x, 0, i, src)) and a Tensor method
// (x.scatter(0, i, src)), differentiable in input and the scattered values, with PyTorch 1.13's
// values and gradients (tests/data/gen_ops_compose_search.py, gen_ops_stack_stats.py).
import { run, type TensorLike } from './call.js';
import { arange, ones, zeros } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { deviceOf, functionOps, indexOperand, installMethods, noOptions, ops, withTemp, type IndexLike, type MethodsOf } from './ops.js';
import { dimArg, shapeStr, tensorOf } from './args.js';
import { matrixOps } from './matrices.js';
import { rearrangingOps } from './rearranging.js';
import { checkOptions, describe, intArg, isInteger } from '../runtime/options.js';
import type { Tensor } from './tensor.js';
import { withKeywords, type KwArgs } from './keywords.js';

/** PyTorch's scatter_reduce reductions. */
export type ScatterReduction = 'sum' | 'prod' | 'mean' | 'amax' | 'amin';
export interface ScatterReduceOptions {
  /** Whether input's own value takes part where values arrive (default true, as PyTorch). */
  includeSelf?: boolean;
}

/** The ops with their positional parameters only (the table's implementations). */
export interface ScatterGatherPositional {
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
  /** gather along dim after broadcasting input and indices in every other dim (flattened without dim). */
  takeAlongDim(input: Tensor, indices: Tensor, dim?: number | null): Tensor;
  /** Elements at flat positions (negative counts from the end), in index's shape. */
  take(input: Tensor, index: Tensor): Tensor;
  /** input + alpha·source added at positions index along dim (repeats accumulate). */
  indexAdd(input: Tensor, dim: number, index: Tensor, source: Tensor, options?: { alpha?: number }): Tensor;
  /** input with the slices at positions index along dim replaced by source's. */
  indexCopy(input: Tensor, dim: number, index: Tensor, source: Tensor): Tensor;
  /** input with the slices at positions index along dim set to value. */
  indexFill(input: Tensor, dim: number, index: Tensor, value: number): Tensor;
  /** input with src (input's shape without dim) in select(dim, index). */
  selectScatter(input: Tensor, src: Tensor, dim: number, index: number): Tensor;
  /** input with src in slice(dim, start, end, step). */
  sliceScatter(input: Tensor, src: Tensor, options?: { dim?: number; start?: number | null; end?: number | null; step?: number }): Tensor;
  /** input with src on the (dim1, dim2) diagonal, offset. */
  diagonalScatter(input: Tensor, src: Tensor, offset?: number, dim1?: number, dim2?: number): Tensor;
}

/** Every op of the family; the positional parameters may also be given by name in a trailing options object (PyTorch's keywords). */
export interface ScatterGatherOpFunctions extends Omit<ScatterGatherPositional, 'scatter' | 'scatterAdd' | 'scatterReduce' | 'takeAlongDim' | 'indexAdd' | 'indexCopy' | 'indexFill' | 'selectScatter' | 'diagonalScatter'> {
  scatter(input: TensorLike, ...args: KwArgs<[dim: number, index: IndexLike, src: TensorLike], [], { dim?: number; index?: IndexLike; src?: TensorLike }>): Tensor;
  scatterAdd(input: TensorLike, ...args: KwArgs<[dim: number, index: IndexLike, src: TensorLike], [], { dim?: number; index?: IndexLike; src?: TensorLike }>): Tensor;
  scatterReduce(input: TensorLike, ...args: KwArgs<[dim: number, index: IndexLike, src: TensorLike, reduce: ScatterReduction], [], ScatterReduceOptions & { dim?: number; index?: IndexLike; src?: TensorLike; reduce?: ScatterReduction }>): Tensor;
  takeAlongDim(input: Tensor, ...args: KwArgs<[indices: Tensor], [dim: number | null], { indices?: Tensor; dim?: number | null }>): Tensor;
  indexAdd(input: Tensor, ...args: KwArgs<[dim: number, index: Tensor, source: Tensor], [], { dim?: number; index?: Tensor; source?: Tensor; alpha?: number }>): Tensor;
  indexCopy(input: Tensor, ...args: KwArgs<[dim: number, index: Tensor, source: Tensor], [], { dim?: number; index?: Tensor; source?: Tensor }>): Tensor;
  indexFill(input: Tensor, ...args: KwArgs<[dim: number, index: Tensor, value: number], [], { dim?: number; index?: Tensor; value?: number }>): Tensor;
  selectScatter(input: Tensor, ...args: KwArgs<[src: Tensor, dim: number, index: number], [], { src?: Tensor; dim?: number; index?: number }>): Tensor;
  diagonalScatter(input: Tensor, ...args: KwArgs<[src: Tensor], [offset: number, dim1: number, dim2: number], { src?: Tensor; offset?: number; dim1?: number; dim2?: number }>): Tensor;
}

/** The methods derived from ScatterGatherOpFunctions: the first argument becomes `this`. */
export type ScatterGatherOpMethods = MethodsOf<ScatterGatherOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends ScatterGatherOpMethods {}
}

const where = functionOps.where;

/** A 1-D index along `dim` of x, as the full-shape index scatter/gather take for `like`'s shape. */
function indexAlong(fn: string, index: Tensor, dim: number, like: readonly number[]): Tensor {
  if (index.dtype !== 'int32' || index.ndim > 1) throw new Error(`${fn}: expected 'index' to be a 1-D int32 Tensor, got ${describe(index)}`);
  const shape = like.map((_, k) => (k === dim ? index.numel : 1));
  return ops.expand(ops.reshape(index, shape), like.slice());
}

/** A bool mask of x's shape, true at positions `at` (1-D int32) along dim. */
function maskAlong(x: Tensor, dim: number, at: Tensor): Tensor {
  const hit = scatterGatherOps.scatter(zeros([x.shape[dim]!], { device: x.device }), 0, at, ones([at.numel], { device: x.device }));
  return ops.gt(ops.reshape(hit, x.shape.map((n, k) => (k === dim ? n : 1))), 0);
}

const scatterGatherTable: ScatterGatherPositional = {
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
  takeAlongDim(input, indices, dim) {
    const x = tensorOf('takeAlongDim', 'input', input), idx = tensorOf('takeAlongDim', 'indices', indices);
    if (dim === undefined || dim === null) return tidy(() => ops.gather(ops.flatten(x), 0, ops.flatten(idx)));
    if (x.ndim !== idx.ndim) {
      throw new Error(`takeAlongDim: expected input and indices with the same number of dims, got shapes ${shapeStr(x)} and ${shapeStr(idx)}`);
    }
    const d = dimArg('takeAlongDim', 'dim', dim, x.ndim);
    // Every dim but d broadcasts (PyTorch's take_along_dim); along d, each keeps its own size.
    const common = x.shape.map((n, k) => {
      if (k === d) return 0;
      const m = idx.shape[k]!;
      if (n !== m && n !== 1 && m !== 1) {
        throw new Error(`takeAlongDim: shapes ${shapeStr(x)} and ${shapeStr(idx)} do not broadcast in dim ${k} (${n} and ${m})`);
      }
      return n === 1 ? m : n;
    });
    return tidy(() => {
      const xs = ops.expand(x, common.map((n, k) => (k === d ? x.shape[d]! : n)));
      const is = ops.expand(idx, common.map((n, k) => (k === d ? idx.shape[d]! : n)));
      return ops.gather(xs, d, is);
    });
  },
  take(input, index, trailing?: unknown) {
    noOptions('take', trailing);
    const x = tensorOf('take', 'input', input), i = tensorOf('take', 'index', index);
    if (i.dtype !== 'int32') throw new Error(`take: expected 'index' to be int32, got ${i.dtype}`);
    return tidy(() => {
      const flat = ops.flatten(i);
      const wrapped = where(ops.lt(flat, 0), ops.add(flat, x.numel), flat).int();
      return ops.reshape(ops.gather(ops.flatten(x), 0, wrapped), i.shape);
    });
  },
  indexAdd(input, dim, index, source, options) {
    const fn = 'indexAdd';
    const alpha = checkOptions<{ alpha: number }>(fn, options, { alpha: 'number' }).alpha ?? 1;
    const x = tensorOf(fn, 'input', input), src = tensorOf(fn, 'source', source), i = tensorOf(fn, 'index', index);
    const d = dimArg(fn, 'dim', dim, x.ndim);
    return tidy(() => scatterGatherOps.scatterAdd(x, d, indexAlong(fn, i, d, src.shape), alpha === 1 ? src : ops.mul(src, alpha)));
  },
  indexCopy(input, dim, index, source) {
    const x = tensorOf('indexCopy', 'input', input), src = tensorOf('indexCopy', 'source', source), i = tensorOf('indexCopy', 'index', index);
    const d = dimArg('indexCopy', 'dim', dim, x.ndim);
    return tidy(() => scatterGatherOps.scatter(x, d, indexAlong('indexCopy', i, d, src.shape), src));
  },
  indexFill(input, dim, index, value) {
    const x = tensorOf('indexFill', 'input', input), i = tensorOf('indexFill', 'index', index);
    const d = dimArg('indexFill', 'dim', dim, x.ndim);
    if (i.dtype !== 'int32' || i.ndim > 1) throw new Error(`indexFill: expected 'index' to be a 1-D int32 Tensor, got ${describe(i)}`);
    return tidy(() => where(maskAlong(x, d, ops.flatten(i)), value, x));
  },
  selectScatter(input, src, dim, index) {
    const x = tensorOf('selectScatter', 'input', input), s = tensorOf('selectScatter', 'src', src);
    const d = dimArg('selectScatter', 'dim', dim, x.ndim);
    const n = x.shape[d]!;
    if (!isInteger(index) || index < -n || index >= n) throw new Error(`selectScatter: expected 'index' in [${-n}, ${n - 1}], got ${describe(index)}`);
    const want = x.shape.filter((_, k) => k !== d);
    if (s.shape.join(',') !== want.join(',')) throw new Error(`selectScatter: expected src of shape ${shapeStr(want)}, got ${shapeStr(s.shape)}`);
    return tidy(() => where(maskAlong(x, d, arange(index < 0 ? index + n : index, (index < 0 ? index + n : index) + 1, { device: x.device })), ops.unsqueeze(s, d), x));
  },
  sliceScatter(input, src, options) {
    const fn = 'sliceScatter';
    const o = checkOptions<{ dim: number; start: number | null; end: number | null; step: number }>(fn, options, {
      dim: 'integer',
      start: { check: (v) => v === null || isInteger(v), expected: 'an integer or null' },
      end: { check: (v) => v === null || isInteger(v), expected: 'an integer or null' },
      step: 'positiveInteger',
    });
    const x = tensorOf(fn, 'input', input), s = tensorOf(fn, 'src', src);
    const d = dimArg(fn, 'dim', o.dim ?? 0, x.ndim);
    const n = x.shape[d]!, step = o.step ?? 1;
    const bound = (v: number | null | undefined, fallback: number) => (v === null || v === undefined ? fallback : Math.min(Math.max(v < 0 ? v + n : v, 0), n));
    const [start, end] = [bound(o.start, 0), bound(o.end, n)];
    const count = Math.max(0, Math.ceil((end - start) / step));
    const want = x.shape.map((v, k) => (k === d ? count : v));
    if (s.shape.join(',') !== want.join(',')) throw new Error(`${fn}: expected src of shape ${shapeStr(want)} (the slice's), got ${shapeStr(s.shape)}`);
    if (count === 0) return ops.clone(x);
    return tidy(() => {
      const at = arange(start, start + (count - 1) * step + 1, step, { device: x.device });
      const placed = scatterGatherOps.scatter(zeros(x.shape, { device: x.device }), d, indexAlong(fn, at, d, s.shape), s);
      return where(maskAlong(x, d, at), placed, x);
    });
  },
  diagonalScatter(input, src, offset = 0, dim1 = 0, dim2 = 1) {
    const fn = 'diagonalScatter';
    const x = tensorOf(fn, 'input', input), s = tensorOf(fn, 'src', src);
    if (x.ndim < 2) throw new Error(`${fn}: expected an input with at least 2 dims, got shape ${shapeStr(x.shape)}`);
    const d1 = dimArg(fn, 'dim1', dim1, x.ndim), d2 = dimArg(fn, 'dim2', dim2, x.ndim);
    if (d1 === d2 || !isInteger(offset)) throw new Error(`${fn}: expected two different dims and an integer offset, got dims ${d1}, ${d2} and offset ${describe(offset)}`);
    return tidy(() => {
      const diag = matrixOps.diagonal(x, offset, d1, d2);  // the slot's shape, and the mask's positions
      if (s.shape.join(',') !== diag.shape.join(',')) throw new Error(`${fn}: expected src of the diagonal's shape ${shapeStr(diag.shape)}, got ${shapeStr(s.shape)}`);
      // The (d1, d2) planes flattened last: the diagonal is every (m + 1)-th position from its start.
      const planes = rearrangingOps.movedim(x, [d1, d2], [-2, -1]);
      const [n, m] = [planes.shape.at(-2)!, planes.shape.at(-1)!];
      const len = diag.shape.at(-1)!;
      const flat = ops.reshape(planes, [...planes.shape.slice(0, -2), n * m]);
      if (len === 0) return ops.clone(x);
      const startAt = offset >= 0 ? offset : -offset * m;
      const at = arange(startAt, startAt + (len - 1) * (m + 1) + 1, m + 1, { device: x.device });
      const placed = scatterGatherOps.scatter(ops.mul(flat, 0), flat.ndim - 1, indexAlong(fn, at, flat.ndim - 1, s.shape), s);
      const filled = where(maskAlong(flat, flat.ndim - 1, at), placed, flat);
      return rearrangingOps.movedim(ops.reshape(filled, planes.shape), [-2, -1], [d1, d2]);
    });
  },
};

/** The table with PyTorch's keyword names for the positional parameters. */
export const scatterGatherOps = withKeywords(scatterGatherTable, {
  scatter: ['dim', 'index', 'src'],
  scatterAdd: ['dim', 'index', 'src'],
  scatterReduce: { positional: ['dim', 'index', 'src', 'reduce'], options: ['includeSelf'] },
  takeAlongDim: ['indices', 'dim'],
  indexAdd: { positional: ['dim', 'index', 'source'], options: ['alpha'] },
  indexCopy: ['dim', 'index', 'source'],
  indexFill: ['dim', 'index', 'value'],
  selectScatter: ['src', 'dim', 'index'],
  diagonalScatter: ['src', 'offset', 'dim1', 'dim2'],
}) as unknown as ScatterGatherOpFunctions;

installMethods(scatterGatherOps);
