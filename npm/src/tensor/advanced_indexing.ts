// Advanced indexing: x.index(...) with index tensors and masks among its items (PyTorch's
// x[idx], x[:, idx, 0], x[mask]) and x.indexPut_(items, values, { accumulate }) (x[items] = values,
// PyTorch's index_put_), as compositions of existing ops, so they are differentiable, trace
// under sg.compile and run on every device:
//
//   1. the items are read as PyTorch 1.13 reads a subscript: numbers, ranges and null are basic
//      indexing (a number is a select, so it never counts as an advanced index; a 0-d integer
//      tensor neither), integer tensors are advanced indices of one dim each, a bool tensor is a
//      mask over as many dims as it has (its nonzero() positions: read on the host), a 0-d bool
//      tensor adds a dim of size 1 indexed by [0] (true) or [] (false);
//   2. the position in x (row-major, x's leading dims; the trailing whole dims stay rows) of every
//      element of the result is one int32 tensor, a broadcast sum of per-dim terms: arange for a
//      range, the wrapped index tensor for an advanced index, times the dim's stride; the
//      advanced indices broadcast together, and their dims replace them in place when they are
//      adjacent, else go first (NumPy's and PyTorch's rule);
//   3. index() reads those rows with indexSelect (its gradient index_adds: repeated positions
//      accumulate); indexPut_ scatters values into a copy of x (scatterAdd with accumulate) and
//      copy_s it back, so x is written once, after everything was checked.
//
// Index values are checked before any op runs when they can be read (eager, on the CPU): an
// Error names the dim, the index and the size. Inside sg.compile, or on a GPU, they cannot be
// read synchronously; there an indexSelect of the wrapped index per dim checks them instead
// (indexSelect's bounds Error, naming the wrapped index, the dim and the size; on a GPU at the
// device's next synchronization).
import { callHandles, run } from './call.js';
import * as H from '../runtime/handles.js';
import type { TensorHandle } from '../runtime/embind.js';
import { arange, full, tensor, zeros } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from './ops.js';
import { dataDependentOps } from './data_dependent.js';
import { describe, isInteger } from '../runtime/options.js';
import { isTracing } from '../runtime/trace_flag.js';
import { Tensor } from './tensor.js';

/** A nested JS array of integers (an index list) or of booleans (a mask), as PyTorch's lists. */
export type NestedIndexArray = readonly (number | boolean | NestedIndexArray)[];

const INDEX_DTYPES = new Set<string>(['int32', 'int64', 'int16', 'int8']);
const MASK_DTYPES = new Set<string>(['bool', 'uint8']);  // uint8: a mask, as PyTorch 1.13 (deprecated there)

/** Whether an item of index() needs this file: a Tensor, a nested array, booleans or an Int32Array. */
export function isAdvancedItem(v: unknown): boolean {
  if (v instanceof Tensor || v instanceof Int32Array) return true;
  if (!Array.isArray(v)) return false;
  return v.some((p) => Array.isArray(p) || typeof p === 'boolean');
}

/** One entry per item, after '...' was expanded (dim: the dim of x it reads, for messages). */
type Entry =
  | { kind: 'at'; at: number; dim: number }  // a number: a select
  | { kind: 'atTensor'; index: Tensor; dim: number }  // a 0-d integer tensor: a select too
  | { kind: 'range'; start: number; count: number; step: number; dim: number; whole: boolean }
  | { kind: 'adv'; index: Tensor; dim: number }  // an integer index tensor (or a mask's positions in one dim)
  | { kind: 'new'; index: Tensor };  // a 0-d bool: a new dim of size 1, indexed by [0] or []

const shapeStr = (s: readonly number[]): string => `[${s.join(', ')}]`;
const numelOf = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

function outOfRange(fn: string, i: number, dim: number, size: number): Error {
  return new Error(`${fn}: index ${i} is out of range for dim ${dim} of size ${size} (expected an index in [${-size}, ${size - 1}])`);
}

/** An item given as JS data (nested arrays, Int32Array) as a tensor on x's device. */
function itemTensor(fn: string, v: unknown, k: number, device: Tensor['device']): Tensor {
  if (v instanceof Tensor) {
    if (v.isDisposed) throw new Error(`${fn}: item ${k} is a disposed Tensor`);
    return v;
  }
  if (v instanceof Int32Array) return tensor(v, { shape: [v.length], device });
  const flat = (v as unknown[]).flat(Infinity);
  const bools = flat.length > 0 && flat.every((e) => typeof e === 'boolean');
  if (!bools && !flat.every(isInteger)) {
    throw new Error(`${fn}: expected item ${k} to be an array of integers (an index) or of booleans (a mask), got ${describe(v)}`);
  }
  // tensor() checks that the nesting is rectangular.
  return tensor(v as number[], { dtype: bools ? 'bool' : 'int32', device });
}

/**
 * Whether the values of t can be read now (eager, on the CPU); then the out-of-range ones throw
 * here, before anything runs.
 */
function readable(t: Tensor): boolean {
  return !isTracing() && t.device === 'cpu';
}

/**
 * An integer index tensor along a dim of `size`: int32, negative values wrapped. Checked on the
 * host where readable (an Error naming dim, index and size), else by an indexSelect in the graph.
 */
function wrapped(fn: string, idx: Tensor, dim: number, size: number): Tensor {
  if (readable(idx)) {
    let negative = false;
    const values = idx.dataSync() as ArrayLike<number | bigint>;
    for (let k = 0; k < values.length; k++) {
      const i = Number(values[k]);
      if (i < -size || i >= size) throw outOfRange(fn, i, dim, size);
      if (i < 0) negative = true;
    }
    const i32 = idx.dtype === 'int32' ? idx : idx.to('int32');
    return negative ? functionOps.where(ops.lt(i32, 0), ops.add(i32, size), i32) : i32;
  }
  const i32 = idx.dtype === 'int32' ? idx : idx.to('int32');
  const w = functionOps.where(ops.lt(i32, 0), ops.add(i32, size), i32);
  // indexSelect bounds-checks every position (its Error names the index, x's dim and its size:
  // the zeros it reads have `size` in that dim); adding its zeros keeps it in the graph.
  const table = zeros([...Array(dim).fill(1), size], { dtype: 'int32', device: idx.device });
  const check = ops.indexSelect(table, dim, ops.flatten(w));
  return ops.add(w, ops.reshape(check, w.shape));
}

/** Python's slice rules for [start, end, step] over a dim of `size` (step > 0). */
function range(fn: string, v: readonly (number | null | undefined)[], dim: number, size: number): Entry {
  const [s, e, st] = v;
  const step = st ?? 1;
  if (step <= 0) throw new Error(`${fn}: expected a positive step in the range for dim ${dim}, got ${step}`);
  const clamp = (p: number | null | undefined, open: number) => {
    if (p === null || p === undefined) return open;
    return Math.min(Math.max(p < 0 ? p + size : p, 0), size);
  };
  const start = clamp(s, 0), end = clamp(e, size);
  const count = Math.max(0, Math.ceil((end - start) / step));
  return { kind: 'range', start, count, step, dim, whole: start === 0 && step === 1 && count === size };
}

/** The items as entries, every index value checked (see the file comment). Runs inside a tidy. */
function entriesOf(fn: string, x: Tensor, items: readonly unknown[]): Entry[] {
  // What each item is, and how many dims of x it reads.
  type Read = { item: unknown; k: number; t?: Tensor; dims: number };
  const reads: Read[] = [];
  let ellipsis = -1;
  items.forEach((v, k) => {
    if (v === '...') {
      if (ellipsis >= 0) throw new Error(`${fn}: expected at most one '...', got 2 (items ${ellipsis} and ${k})`);
      ellipsis = reads.length;
      reads.push({ item: v, k, dims: 0 });
    } else if (v === null || v === undefined || isInteger(v)) {
      reads.push({ item: v, k, dims: 1 });
    } else if (isAdvancedItem(v)) {
      const t = itemTensor(fn, v, k, x.device);
      if (MASK_DTYPES.has(t.dtype)) reads.push({ item: v, k, t, dims: t.ndim });
      else if (INDEX_DTYPES.has(t.dtype)) reads.push({ item: v, k, t, dims: 1 });
      else throw new Error(`${fn}: expected item ${k} to be an integer (int32, int64) index tensor or a bool mask, got a ${t.dtype} tensor (index tensors cannot be floating: use .int())`);
    } else if (Array.isArray(v) && v.length <= 3 && v.every((p) => p === null || p === undefined || isInteger(p))) {
      reads.push({ item: v, k, dims: 1 });
    } else {
      throw new Error(`${fn}: expected item ${k} to be an integer, null, '...' or a [start, end, step] range of integers or nulls, or an index tensor, a bool mask or an array of integers or booleans, got ${describe(v)}`);
    }
  });
  const named = reads.reduce((n, r) => n + r.dims, 0);
  if (named > x.ndim) {
    throw new Error(`${fn}: too many indices for a tensor of ${x.ndim} dims (shape ${shapeStr(x.shape)}): the items index ${named}`);
  }
  const entries: Entry[] = [];
  let d = 0;
  const whole = () => {
    entries.push({ kind: 'range', start: 0, count: x.shape[d]!, step: 1, dim: d, whole: true });
    d++;
  };
  for (const r of reads) {
    const v = r.item;
    if (v === '...') {
      for (let n = x.ndim - named; n > 0; n--) whole();
    } else if (v === null || v === undefined) {
      whole();
    } else if (typeof v === 'number') {
      const size = x.shape[d]!;
      if (v < -size || v >= size) throw outOfRange(fn, v, d, size);
      entries.push({ kind: 'at', at: v < 0 ? v + size : v, dim: d++ });
    } else if (r.t === undefined) {
      entries.push(range(fn, v as (number | null)[], d, x.shape[d]!));
      d++;
    } else if (MASK_DTYPES.has(r.t.dtype)) {
      const mask = r.t.dtype === 'bool' ? r.t : ops.ne(r.t, 0);
      if (mask.ndim === 0) {
        // x[True] / x[False]: a new dim of size 1, indexed by [0] or by nothing (nonzero reads it).
        const [positions] = maskPositions(fn, ops.reshape(mask, [1]));
        entries.push({ kind: 'new', index: positions!.device === x.device ? positions! : positions!.to(x.device) });
        continue;
      }
      const covered = x.shape.slice(d, d + mask.ndim);
      if (mask.shape.join(',') !== covered.join(',')) {
        throw new Error(`${fn}: the shape of the mask ${shapeStr(mask.shape)} (item ${r.k}) does not match the shape ${shapeStr(covered)} of dims ${d} to ${d + mask.ndim - 1} of the indexed tensor of shape ${shapeStr(x.shape)}`);
      }
      // The positions of the true elements, one index tensor per covered dim (in range by construction).
      const positions = maskPositions(fn, mask);
      for (const p of positions) entries.push({ kind: 'adv', index: p.device === x.device ? p : p.to(x.device), dim: d++ });
    } else {
      const t = r.t.device === x.device ? r.t : r.t.to(x.device);
      const size = x.shape[d]!;
      const w = wrapped(fn, t, d, size);
      entries.push(t.ndim === 0 ? { kind: 'atTensor', index: w, dim: d } : { kind: 'adv', index: w, dim: d });
      d++;
    }
  }
  while (d < x.ndim) whole();
  return entries;
}

/** nonzero(mask, { asTuple: true }); its Error (inside sg.compile, on a GPU) says that a mask is read. */
function maskPositions(fn: string, mask: Tensor): Tensor[] {
  try {
    return dataDependentOps.nonzero(mask, { asTuple: true }) as Tensor[];
  } catch (e) {
    if (e instanceof Error) e.message = `${fn}: a bool mask is read on the CPU (its true positions decide the result's shape): ${e.message}`;
    throw e;
  }
}

/** The advanced indices' shapes broadcast together (PyTorch's message when they do not). */
function broadcastIndices(fn: string, shapes: readonly (readonly number[])[]): number[] {
  const n = Math.max(0, ...shapes.map((s) => s.length));
  return Array.from({ length: n }, (_, i) => {
    let size = 1;
    for (const s of shapes) {
      const v = s[s.length - n + i] ?? 1;
      if (v !== 1 && size !== 1 && v !== size) {
        throw new Error(`${fn}: shape mismatch: indexing tensors could not be broadcast together with shapes ${shapes.map(shapeStr).join(', ')}`);
      }
      if (v !== 1) size = v;
    }
    return size;
  });
}

/**
 * Where the result's elements come from: x viewed as [rows, rowSize] (its trailing whole dims
 * are the rows' elements), `positions` the row of each result element (int32, `head`'s shape),
 * the result of shape [...head, ...tail].
 */
interface Plan {
  rows: number;
  rowSize: number;
  head: number[];
  tail: number[];
  positions: Tensor;
}

/** The plan of x.index(...items) with advanced items. Runs inside a tidy. */
function planOf(fn: string, x: Tensor, items: readonly unknown[]): Plan {
  const entries = entriesOf(fn, x, items);
  // The trailing whole dims stay whole rows (W.index(idx) reads rows of W).
  let t = 0;
  for (let k = entries.length - 1; k >= 0; k--) {
    const e = entries[k]!;
    if (e.kind !== 'range' || !e.whole) break;
    t++;
  }
  const lead = entries.slice(0, entries.length - t);
  const outerDims = x.ndim - t;
  const tail = x.shape.slice(outerDims);
  const strides = x.shape.slice(0, outerDims).map((_, d) => numelOf(x.shape.slice(d + 1, outerDims)));
  const rows = numelOf(x.shape.slice(0, outerDims)), rowSize = numelOf(tail);

  // The dims after basic indexing (numbers gone): ranges, advanced indices, new dims.
  const kept = lead.filter((e) => e.kind === 'range' || e.kind === 'adv' || e.kind === 'new');
  const advAt = kept.flatMap((e, k) => (e.kind === 'adv' || e.kind === 'new' ? [k] : []));
  const adjacent = advAt.every((p, k) => k === 0 || p === advAt[k - 1]! + 1);
  const advanced = kept.filter((e): e is Extract<Entry, { kind: 'adv' | 'new' }> => e.kind === 'adv' || e.kind === 'new');
  const B = broadcastIndices(fn, advanced.map((e) => e.index.shape));
  // Adjacent advanced indices: their dims replace them in place; separated: they go first.
  const slices = kept.filter((e): e is Extract<Entry, { kind: 'range' }> => e.kind === 'range');
  const head: number[] = [];
  const sliceAxis: number[] = [];
  let bAxis = -1;
  const placeB = () => {
    bAxis = head.length;
    head.push(...B);
  };
  if (advAt.length && !adjacent) placeB();
  for (const e of kept) {
    if (e.kind === 'range') {
      sliceAxis.push(head.length);
      head.push(e.count);
    } else if (bAxis < 0) placeB();
  }

  const device = x.device;
  if (numelOf(head) === 0 || rows === 0) {
    return { rows, rowSize, head, tail, positions: zeros(head, { dtype: 'int32', device }) };
  }
  const rank = head.length;
  const placed = (term: Tensor, at: number) => ops.reshape(term, [...Array(at).fill(1), ...term.shape, ...Array(rank - at - term.ndim).fill(1)]);
  const terms: Tensor[] = [];
  let offset = 0;
  for (const e of lead) {
    if (e.kind === 'at') offset += e.at * strides[e.dim]!;
    else if (e.kind === 'atTensor') terms.push(strides[e.dim] === 1 ? e.index : ops.mul(e.index, strides[e.dim]!));
  }
  slices.forEach((e, k) => {
    const st = strides[e.dim]!;
    terms.push(placed(arange(e.start * st, (e.start + e.count * e.step) * st, e.step * st, { device }), sliceAxis[k]!));
  });
  for (const e of advanced) {
    const st = e.kind === 'adv' ? strides[e.dim]! : 1;  // a new dim's index is all zeros
    const term = st === 1 ? e.index : ops.mul(e.index, st);
    terms.push(placed(term, bAxis + B.length - e.index.ndim));
  }
  let positions = terms.length ? terms.reduce((a, b) => ops.add(a, b)) : full([], 0, { dtype: 'int32', device });
  if (offset !== 0) positions = ops.add(positions, offset);
  if (positions.shape.join(',') !== head.join(',')) positions = ops.expand(positions, head);
  return { rows, rowSize, head, tail, positions };
}

/** x.index(...items) when some item is a tensor or an array of integers or booleans. */
export function advancedIndex(x: Tensor, items: readonly unknown[]): Tensor {
  const fn = 'index';
  return tidy(() => {
    const p = planOf(fn, x, items);
    const rowsOf = ops.reshape(x, [p.rows, p.rowSize]);
    const picked = ops.indexSelect(rowsOf, 0, ops.flatten(p.positions));
    return ops.reshape(picked, [...p.head, ...p.tail]);
  });
}

export interface IndexPutOptions {
  /** Add the values to x's elements instead of replacing them (repeated positions add up). */
  accumulate?: boolean;
}

/**
 * The items of indexPut: an array of index()'s items (x.indexPut_([null, 0], v) is x[:, 0] = v),
 * or one index tensor (x.indexPut_(mask, v)).
 */
function itemList(fn: string, items: unknown): readonly unknown[] {
  if (Array.isArray(items)) return items;
  if (items instanceof Tensor || items instanceof Int32Array) return [items];
  throw new Error(`${fn}: expected 'indices' to be an array of index() items (or one index tensor), got ${describe(items)}`);
}

function accumulateOf(fn: string, options: unknown): boolean {
  if (options === undefined) return false;
  if (options === null || typeof options !== 'object' || Array.isArray(options) || options instanceof Tensor) {
    throw new Error(`${fn}: expected an options object { accumulate }, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (key !== 'accumulate') throw new Error(`${fn}: unknown option '${key}' (expected: accumulate)`);
  }
  const a = (options as IndexPutOptions).accumulate;
  if (a !== undefined && typeof a !== 'boolean') throw new Error(`${fn}: expected 'accumulate' to be a boolean, got ${describe(a)}`);
  return a ?? false;
}

/**
 * A copy of x with values written at items (added with accumulate): PyTorch's index_put. x is
 * not changed; indexPut_ copies the result into it.
 */
export function indexPutCopy(fn: string, x: Tensor, items: unknown, values: unknown, options: unknown, inPlace = false): Tensor {
  const accumulate = accumulateOf(fn, options);
  const list = itemList(fn, items);
  if (values instanceof Tensor) {
    if (values.isDisposed) throw new Error(`${fn}: 'values' is a disposed Tensor`);
    if (values.dtype !== x.dtype) {
      throw new Error(`${fn}: expected 'values' of the destination's dtype ${x.dtype}, got ${values.dtype} (as PyTorch's index_put_: cast it with .to('${x.dtype}'))`);
    }
  } else if (typeof values !== 'number' && typeof values !== 'boolean') {
    throw new Error(`${fn}: expected 'values' to be a Tensor or a number, got ${describe(values)}`);
  }
  return tidy(() => {
    // Pure basic items (numbers, ranges, null) index through the same plan: items of index().
    const p = planOf(fn, x, list);
    const shape = [...p.head, ...p.tail];
    let v = values instanceof Tensor ? values : full([], values as number, { dtype: x.dtype, device: x.device });
    // Python's x[items] = v drops v's leading dims of size 1; then v broadcasts to the result's shape.
    let lead = 0;
    while (v.ndim - lead > shape.length && v.shape[lead] === 1) lead++;
    const vs = v.shape.slice(lead);
    const fits = vs.length <= shape.length && vs.every((n, k) => n === 1 || n === shape[shape.length - vs.length + k]);
    if (!fits) {
      throw new Error(`${fn}: shape mismatch: value tensor of shape ${shapeStr(v.shape)} cannot be broadcast to indexing result of shape ${shapeStr(shape)}`);
    }
    if (lead) v = ops.reshape(v, vs);
    const m = numelOf(p.head);
    const src = ops.reshape(ops.expand(v, shape), [m, p.rowSize]);
    const at = ops.expand(ops.reshape(p.positions, [m, 1]), [m, p.rowSize]);
    if (!inPlace || !x.requiresGrad) {
      const rowsOf = ops.reshape(x, [p.rows, p.rowSize]);
      return ops.reshape(runScatter(accumulate ? 'scatterAdd' : 'scatter', rowsOf, at, src), x.shape);
    }
    // x is in the graph: no view of it (copy_ refuses storage that a graph view shares); the
    // values are scattered into zeros and combined with x (add; where keeps x off the written positions).
    const blank = (dtype: Tensor['dtype']) => zeros([p.rows, p.rowSize], { dtype, device: x.device });
    const placed = ops.reshape(runScatter(accumulate ? 'scatterAdd' : 'scatter', blank(x.dtype), at, src), x.shape);
    if (accumulate) return ops.add(x, placed);
    const hit = runScatter('scatter', blank('bool'), at, full([m, p.rowSize], true, { device: x.device }));
    return functionOps.where(ops.reshape(hit, x.shape), placed, x);
  });
}

function runScatter(op: 'scatter' | 'scatterAdd', input: Tensor, index: Tensor, src: Tensor): Tensor {
  return run(op, op, [['input', input], ['index', index], ['src', src]], { dim: 0 });
}

/** x[items] = values in place (PyTorch's index_put_): x's elements change once, after every check. */
export function indexPutInPlace(x: Tensor, items: unknown, values: unknown, options: unknown): Tensor {
  const fn = 'indexPut_';
  if (!(x instanceof Tensor) || x.isDisposed) throw new Error(`${fn}: expected a live Tensor, got ${describe(x)}`);
  tidy(() => {
    const updated = indexPutCopy(fn, x, items, values, options, true);
    let hs: TensorHandle[];
    try {
      hs = callHandles(fn, 'copy_', [['input', x], ['src', updated]]);
    } catch (e) {
      // copy_'s in-place rules (a leaf that requires grad, a view in the graph) are indexPut_'s.
      if (e instanceof Error && e.message.startsWith('copy_:')) e.message = fn + e.message.slice('copy_'.length);
      throw e;
    }
    for (const h of hs) H.releaseHandle(h);  // copy_ returns x again
  });
  return x;
}
