// PyTorch's stacking, splitting and scattering spellings, as compositions of existing ops (views
// where PyTorch returns views: atleast*, broadcastTo, tensorSplit and its h/v/d forms):
// flipud, fliplr, atleast1d/2d/3d, broadcastTo, broadcastTensors, broadcastShapes, tensorSplit,
// hsplit, vsplit, dsplit, hstack, vstack, rowStack, dstack, columnStack, blockDiag, narrowCopy,
// take, indexAdd, indexCopy, indexFill, selectScatter, sliceScatter, diagonalScatter, vander.
// Differentiable through the ops they are made of, with PyTorch 1.13's values and gradients
// (tests/data/gen_ops_stack_split.py).
import { tensorArg } from '../runtime/call.js';
import { arange, ones, zeros } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { composeOps, dimArg, tensorOf } from './composite_a.js';
import { composeMoreOps } from './composite_b.js';
import { moreOps } from './ops_registry_breadth.js';
import { broadcastShapesOf, checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from './tensor.js';

const shapeStr = (s: readonly number[]) => `[${s.join(', ')}]`;
const where = functionOps.where;

/** A list of tensors given as arguments or as one array. */
function tensorList(fn: string, args: unknown[]): Tensor[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  return list.map((t, i) => tensorArg(fn, `tensors[${i}]`, t));
}

function atleast(x: Tensor, n: 1 | 2 | 3): Tensor {
  if (x.ndim >= n) return x;
  if (x.ndim === 0) return ops.reshape(x, new Array<number>(n).fill(1));
  if (n === 2) return ops.unsqueeze(x, 0);                       // [k] → [1, k]
  return x.ndim === 1 ? ops.reshape(x, [1, x.shape[0]!, 1]) : ops.unsqueeze(x, -1);  // [k] → [1, k, 1]; [a, b] → [a, b, 1]
}

/** One tensor for one argument, a list for several (PyTorch's atleast_*d). */
function atleastOf(fn: string, args: unknown[], n: 1 | 2 | 3): Tensor | Tensor[] {
  const single = args.length === 1 && args[0] instanceof Tensor;
  const ts = tensorList(fn, args);
  return single ? atleast(ts[0]!, n) : ts.map((t) => atleast(t, n));
}

/** The sizes tensorSplit makes of a dim of length len: n near-equal sections, or cuts at indices. */
function sectionBounds(fn: string, len: number, sections: unknown): [number, number][] {
  if (isInteger(sections)) {
    if (sections < 1) throw new Error(`${fn}: expected a number of sections >= 1, got ${sections}`);
    const [q, r] = [Math.floor(len / sections), len % sections];
    let start = 0;
    return Array.from({ length: sections }, (_, i) => {
      const size = q + (i < r ? 1 : 0);
      const b: [number, number] = [start, start + size];
      start += size;
      return b;
    });
  }
  if (!Array.isArray(sections) || !sections.every(isInteger)) {
    throw new Error(`${fn}: expected an integer number of sections or a list of indices, got ${describe(sections)}`);
  }
  const clamp = (i: number) => Math.min(Math.max(i < 0 ? i + len : i, 0), len);
  const cuts = [0, ...sections.map(clamp), len];
  return cuts.slice(1).map((c, i) => [cuts[i]!, Math.max(c, cuts[i]!)]);
}

function splitAt(x: Tensor, d: number, bounds: [number, number][]): Tensor[] {
  return bounds.map(([a, b]) => ops.narrow(x, d, a, b - a));
}

/** hsplit/vsplit/dsplit: along `dim`, sections that must divide it evenly (PyTorch's check). */
function directionalSplit(fn: string, x: Tensor, dim: number, minDims: number, sections: unknown): Tensor[] {
  if (x.ndim < minDims) throw new Error(`${fn}: expected an input with at least ${minDims} dims, got shape ${shapeStr(x.shape)}`);
  const len = x.shape[dim]!;
  if (isInteger(sections) && sections > 0 && len % sections !== 0) {
    throw new Error(`${fn}: the size ${len} of dim ${dim} is not divisible by the number of sections ${sections}`);
  }
  return splitAt(x, dim, sectionBounds(fn, len, sections));
}

/** A 1-D index along `dim` of x, as the full-shape index scatter/gather take for `like`'s shape. */
function indexAlong(fn: string, index: Tensor, dim: number, like: readonly number[]): Tensor {
  if (index.dtype !== 'int32' || index.ndim > 1) throw new Error(`${fn}: expected 'index' to be a 1-D int32 Tensor, got ${describe(index)}`);
  const shape = like.map((_, k) => (k === dim ? index.numel : 1));
  return ops.expand(ops.reshape(index, shape), like.slice());
}

/** A bool mask of x's shape, true at positions `at` (1-D int32) along dim. */
function maskAlong(x: Tensor, dim: number, at: Tensor): Tensor {
  const hit = moreOps.scatter(zeros([x.shape[dim]!], { device: x.device }), 0, at, ones([at.numel], { device: x.device }));
  return ops.gt(ops.reshape(hit, x.shape.map((n, k) => (k === dim ? n : 1))), 0);
}

export interface StackSplitOpFunctions {
  /** Reversed along dim 0. */
  flipud(input: Tensor): Tensor;
  /** Reversed along dim 1. */
  fliplr(input: Tensor): Tensor;
  /** expand to a broadcast-compatible shape (a view). */
  broadcastTo(input: Tensor, shape: readonly number[]): Tensor;
  /** Views in n near-equal sections (the first ones one longer), or cut at the given indices. */
  tensorSplit(input: Tensor, indicesOrSections: number | readonly number[], dim?: number): Tensor[];
  /** tensorSplit along dim 1 (dim 0 for 1-D); a section count must divide it. */
  hsplit(input: Tensor, sections: number | readonly number[]): Tensor[];
  vsplit(input: Tensor, sections: number | readonly number[]): Tensor[];
  dsplit(input: Tensor, sections: number | readonly number[]): Tensor[];
  /** narrow, copied. */
  narrowCopy(input: Tensor, dim: number, start: number, length: number): Tensor;
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
  /** The Vandermonde matrix of a 1-D x: columns x^(N−1) … x^0 (increasing: x^0 … x^(N−1)). */
  vander(input: Tensor, options?: { N?: number; increasing?: boolean }): Tensor;
}

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends MethodsOf<StackSplitOpFunctions> {}
}

export const stackSplitOps: StackSplitOpFunctions = {
  flipud(input, trailing?: unknown) {
    noOptions('flipud', trailing);
    const x = tensorOf('flipud', 'input', input);
    if (x.ndim < 1) throw new Error('flipud: expected an input with at least 1 dim, got a 0-d tensor');
    return moreOps.flip(x, [0]);
  },
  fliplr(input, trailing?: unknown) {
    noOptions('fliplr', trailing);
    const x = tensorOf('fliplr', 'input', input);
    if (x.ndim < 2) throw new Error(`fliplr: expected an input with at least 2 dims, got shape ${shapeStr(x.shape)}`);
    return moreOps.flip(x, [1]);
  },
  broadcastTo(input, shape, trailing?: unknown) {
    noOptions('broadcastTo', trailing);
    const x = tensorOf('broadcastTo', 'input', input);
    if (!Array.isArray(shape) || !shape.every(isInteger)) throw new Error(`broadcastTo: expected 'shape' to be an array of integers, got ${describe(shape)}`);
    return ops.expand(x, shape.slice());
  },
  tensorSplit(input, indicesOrSections, dim = 0, trailing?: unknown) {
    noOptions('tensorSplit', trailing);
    const x = tensorOf('tensorSplit', 'input', input);
    const d = dimArg('tensorSplit', 'dim', dim, x.ndim);
    return splitAt(x, d, sectionBounds('tensorSplit', x.shape[d]!, indicesOrSections));
  },
  hsplit(input, sections) {
    const x = tensorOf('hsplit', 'input', input);
    return directionalSplit('hsplit', x, x.ndim === 1 ? 0 : 1, 1, sections);
  },
  vsplit(input, sections) {
    return directionalSplit('vsplit', tensorOf('vsplit', 'input', input), 0, 2, sections);
  },
  dsplit(input, sections) {
    return directionalSplit('dsplit', tensorOf('dsplit', 'input', input), 2, 3, sections);
  },
  narrowCopy(input, dim, start, length, trailing?: unknown) {
    noOptions('narrowCopy', trailing);
    return tidy(() => ops.clone(ops.narrow(input, dim, start, length)));
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
    return tidy(() => moreOps.scatterAdd(x, d, indexAlong(fn, i, d, src.shape), alpha === 1 ? src : ops.mul(src, alpha)));
  },
  indexCopy(input, dim, index, source, trailing?: unknown) {
    noOptions('indexCopy', trailing);
    const x = tensorOf('indexCopy', 'input', input), src = tensorOf('indexCopy', 'source', source), i = tensorOf('indexCopy', 'index', index);
    const d = dimArg('indexCopy', 'dim', dim, x.ndim);
    return tidy(() => moreOps.scatter(x, d, indexAlong('indexCopy', i, d, src.shape), src));
  },
  indexFill(input, dim, index, value, trailing?: unknown) {
    noOptions('indexFill', trailing);
    const x = tensorOf('indexFill', 'input', input), i = tensorOf('indexFill', 'index', index);
    const d = dimArg('indexFill', 'dim', dim, x.ndim);
    if (i.dtype !== 'int32' || i.ndim > 1) throw new Error(`indexFill: expected 'index' to be a 1-D int32 Tensor, got ${describe(i)}`);
    return tidy(() => where(maskAlong(x, d, ops.flatten(i)), value, x));
  },
  selectScatter(input, src, dim, index, trailing?: unknown) {
    noOptions('selectScatter', trailing);
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
      const placed = moreOps.scatter(zeros(x.shape, { device: x.device }), d, indexAlong(fn, at, d, s.shape), s);
      return where(maskAlong(x, d, at), placed, x);
    });
  },
  diagonalScatter(input, src, offset = 0, dim1 = 0, dim2 = 1, trailing?: unknown) {
    noOptions('diagonalScatter', trailing);
    const fn = 'diagonalScatter';
    const x = tensorOf(fn, 'input', input), s = tensorOf(fn, 'src', src);
    if (x.ndim < 2) throw new Error(`${fn}: expected an input with at least 2 dims, got shape ${shapeStr(x.shape)}`);
    const d1 = dimArg(fn, 'dim1', dim1, x.ndim), d2 = dimArg(fn, 'dim2', dim2, x.ndim);
    if (d1 === d2 || !isInteger(offset)) throw new Error(`${fn}: expected two different dims and an integer offset, got dims ${d1}, ${d2} and offset ${describe(offset)}`);
    return tidy(() => {
      const diag = composeMoreOps.diagonal(x, offset, d1, d2);  // the slot's shape, and the mask's positions
      if (s.shape.join(',') !== diag.shape.join(',')) throw new Error(`${fn}: expected src of the diagonal's shape ${shapeStr(diag.shape)}, got ${shapeStr(s.shape)}`);
      // The (d1, d2) planes flattened last: the diagonal is every (m + 1)-th position from its start.
      const planes = composeOps.movedim(x, [d1, d2], [-2, -1]);
      const [n, m] = [planes.shape.at(-2)!, planes.shape.at(-1)!];
      const len = diag.shape.at(-1)!;
      const flat = ops.reshape(planes, [...planes.shape.slice(0, -2), n * m]);
      if (len === 0) return ops.clone(x);
      const startAt = offset >= 0 ? offset : -offset * m;
      const at = arange(startAt, startAt + (len - 1) * (m + 1) + 1, m + 1, { device: x.device });
      const placed = moreOps.scatter(ops.mul(flat, 0), flat.ndim - 1, indexAlong(fn, at, flat.ndim - 1, s.shape), s);
      const filled = where(maskAlong(flat, flat.ndim - 1, at), placed, flat);
      return composeOps.movedim(ops.reshape(filled, planes.shape), [-2, -1], [d1, d2]);
    });
  },
  vander(input, options) {
    const o = checkOptions<{ N: number; increasing: boolean }>('vander', options, { N: 'integer', increasing: 'boolean' });
    const x = tensorOf('vander', 'input', input, 1);
    const n = x.shape[0]!, cols = o.N ?? n;
    if (cols < 0) throw new Error(`vander: expected N >= 0, got ${cols}`);
    return tidy(() => {
      // ATen's: a column of ones, then the running product of x (cumprod), reversed unless increasing.
      const one = ones([n, 1], { dtype: x.dtype, device: x.device });
      const powers = cols > 1 ? functionOps.cat([one, moreOps.cumprod(ops.expand(ops.unsqueeze(x, 1), [n, cols - 1]), 1)], 1) : ops.narrow(one, 1, 0, cols);
      return o.increasing ? powers : moreOps.flip(powers, [1]);
    });
  },
};

installMethods(stackSplitOps);

/** Functions only (no method form): they take lists of tensors or shapes. */
export const stackSplitFunctionOps = {
  /** 0-d → [1]; the others as they are (one tensor, or a list for several). */
  atleast1d: (...tensors: unknown[]): Tensor | Tensor[] => atleastOf('atleast1d', tensors, 1),
  /** 0-d → [1, 1], [n] → [1, n]. */
  atleast2d: (...tensors: unknown[]): Tensor | Tensor[] => atleastOf('atleast2d', tensors, 2),
  /** 0-d → [1, 1, 1], [n] → [1, n, 1], [a, b] → [a, b, 1]. */
  atleast3d: (...tensors: unknown[]): Tensor | Tensor[] => atleastOf('atleast3d', tensors, 3),
  /** The broadcast shape of several shapes. */
  broadcastShapes(...shapes: (readonly number[])[]): number[] {
    shapes.forEach((s, i) => {
      if (!Array.isArray(s) || !s.every((v) => isInteger(v) && v >= 0)) throw new Error(`broadcastShapes: expected shapes[${i}] to be an array of sizes, got ${describe(s)}`);
    });
    return broadcastShapesOf('broadcastShapes', shapes);
  },
  /** Each tensor expanded to the shapes' broadcast (views). */
  broadcastTensors(...tensors: unknown[]): Tensor[] {
    const ts = tensorList('broadcastTensors', tensors);
    const shape = broadcastShapesOf('broadcastTensors', ts.map((t) => t.shape));
    return ts.map((t) => ops.expand(t, shape));
  },
  /** cat along dim 1 (dim 0 for 1-D tensors), after atleast1d. */
  hstack(...tensors: unknown[]): Tensor {
    const ts = tensorList('hstack', tensors).map((t) => atleast(t, 1));
    return functionOps.cat(ts, ts[0] && ts[0].ndim === 1 ? 0 : 1);
  },
  /** cat along dim 0 after atleast2d. */
  vstack(...tensors: unknown[]): Tensor {
    return functionOps.cat(tensorList('vstack', tensors).map((t) => atleast(t, 2)), 0);
  },
  /** vstack's other name. */
  rowStack(...tensors: unknown[]): Tensor {
    return functionOps.cat(tensorList('rowStack', tensors).map((t) => atleast(t, 2)), 0);
  },
  /** cat along dim 2 after atleast3d. */
  dstack(...tensors: unknown[]): Tensor {
    return functionOps.cat(tensorList('dstack', tensors).map((t) => atleast(t, 3)), 2);
  },
  /** 0-d and 1-d tensors as columns [n, 1], then cat along dim 1. */
  columnStack(...tensors: unknown[]): Tensor {
    const ts = tensorList('columnStack', tensors).map((t) => (t.ndim <= 1 ? ops.reshape(t, [t.numel, 1]) : t));
    return functionOps.cat(ts, 1);
  },
  /** The tensors (0-d, 1-d as a row, 2-d) as diagonal blocks of one matrix, zeros elsewhere. */
  blockDiag(...tensors: unknown[]): Tensor {
    const ts = tensorList('blockDiag', tensors).map((t, i) => {
      if (t.ndim > 2) throw new Error(`blockDiag: expected tensors with at most 2 dims, got shape ${shapeStr(t.shape)} at ${i}`);
      return t.ndim === 2 ? t : ops.reshape(t, [1, t.numel]);
    });
    const cols = ts.reduce((c, t) => c + t.shape[1]!, 0);
    const float = ts.some((t) => t.dtype === 'float32');
    return tidy(() => {
      let before = 0;
      const rows = ts.map((t) => {
        const w = t.shape[1]!;
        const b = functionOps.pad(float ? t.float() : t, [before, cols - before - w]);
        before += w;
        return b;
      });
      return rows.length ? functionOps.cat(rows, 0) : zeros([0, 0]);
    });
  },
};

export type StackSplitFunctionOps = typeof stackSplitFunctionOps;
