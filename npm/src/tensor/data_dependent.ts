// PyTorch functions whose output shape depends on the values: nonzero, argwhere, maskedSelect,
// unique, uniqueConsecutive, bincount, histc. Each reads its input once, synchronously (so on
// the CPU; a GPU tensor is an Error that says to move it first), and builds the result from
// those values; maskedSelect gathers through indexSelect, so it is differentiable. Inside
// sg.compile the read is the tracer's "reading values" Error, as torch.compile breaks its graph
// there. PyTorch's int64 results are int32 here.
import { tensorArg } from './call.js';
import { tensor } from './creation.js';
import { isFloatingDType } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { ops, installMethods, noOptions, type MethodsOf } from './ops.js';
import { broadcastShapesOf, checkOptions, type Spec } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface UniqueOptions {
  /** Ignored: the result is always sorted (PyTorch's CPU result is sorted too). */
  sorted?: boolean;
  /** Also return, for each element, the position of its value in the result. */
  returnInverse?: boolean;
  /** Also return how many times each value occurs. */
  returnCounts?: boolean;
}
export interface BincountOptions {
  /** A weight per element (float32, input's length): the counts become sums of weights. */
  weights?: Tensor | null;
  /** At least this many bins. */
  minlength?: number;
}
export interface HistcOptions {
  /** default 100 */
  bins?: number;
  /** The range; min = max = 0 (the default) uses the data's own min and max. */
  min?: number;
  max?: number;
}

/** unique's result: the values alone, or with the inverse and/or counts (PyTorch's tuple order). */
export type UniqueResult = Tensor | [Tensor, Tensor] | [Tensor, Tensor, Tensor];

export interface DataDependentOpFunctions {
  /** The indices of the nonzero elements, int32 [count, ndim], in row-major order (asTuple: one 1-D tensor per dim). */
  nonzero(input: Tensor, options?: { asTuple?: boolean }): Tensor | Tensor[];
  /** nonzero's [count, ndim] indices. */
  argwhere(input: Tensor): Tensor;
  /** The elements of input (broadcast with mask) where mask is true, 1-D, row-major; differentiable. */
  maskedSelect(input: Tensor, mask: Tensor): Tensor;
  /** The distinct values, sorted (NaN: each one distinct, last, as PyTorch). */
  unique(input: Tensor, options?: UniqueOptions): UniqueResult;
  /** Runs of equal consecutive values collapsed to one. */
  uniqueConsecutive(input: Tensor, options?: Omit<UniqueOptions, 'sorted'>): UniqueResult;
  /** How often each value 0, 1, ... occurs in a 1-D non-negative int32 input (int32; float32 with weights). */
  bincount(input: Tensor, options?: BincountOptions): Tensor;
  /** A histogram of equal-width bins between min and max (float32 counts; values outside are ignored). */
  histc(input: Tensor, options?: HistcOptions): Tensor;
}

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends MethodsOf<DataDependentOpFunctions> {}
}

/** The values of x, read once (CPU only). */
function valuesOf(fn: string, x: Tensor): Float32Array | Int32Array | Uint8Array {
  if (x.device !== 'cpu') {
    throw new Error(`${fn}: the result's shape depends on the values, which are read synchronously; this tensor is on '${x.device}': move it first (await x.to('cpu') with sg.sync(), or read it with await x.data())`);
  }
  return x.dataSync() as Float32Array | Int32Array | Uint8Array;
}

/** Row-major strides of a shape. */
const stridesOf = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((p, n) => p * n, 1));

function nonzeroRows(fn: string, x: Tensor): number[][] {
  const v = valuesOf(fn, x);
  const strides = stridesOf(x.shape);
  const rows: number[][] = [];
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) rows.push(strides.map((s, d) => Math.floor(i / s) % x.shape[d]!));
  return rows;
}

function nonzeroMatrix(x: Tensor, rows: number[][]): Tensor {
  return tensor(Int32Array.from(rows.flat()), { shape: [rows.length, x.ndim], device: x.device });
}

/** Sorted distinct values with each element's position among them and each value's count; NaN never equals NaN. */
function distinct(values: ArrayLike<number>, consecutive: boolean): { out: number[]; inverse: number[]; counts: number[] } {
  const n = values.length;
  const order = [...Array(n).keys()];
  if (!consecutive) order.sort((a, b) => {
    const [x, y] = [values[a]!, values[b]!];
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? a - b : 1) : -1;
    return x - y || a - b;
  });
  const out: number[] = [], counts: number[] = [], inverse = new Array<number>(n);
  for (const i of order) {
    const v = values[i]!;
    if (out.length && out[out.length - 1] === v) counts[counts.length - 1]!++;
    else {
      out.push(v);
      counts.push(1);
    }
    inverse[i] = out.length - 1;
  }
  return { out, inverse, counts };
}

function uniqueOf(fn: string, x: Tensor, options: unknown, consecutive: boolean): UniqueResult {
  const spec: Spec = consecutive ? { returnInverse: 'boolean', returnCounts: 'boolean' } : { returnInverse: 'boolean', returnCounts: 'boolean', sorted: 'boolean' };
  const o = checkOptions<UniqueOptions>(fn, options, spec);
  const { out, inverse, counts } = distinct(valuesOf(fn, x), consecutive);
  const values = tensor(isFloatingDType(x.dtype) ? Float64Array.from(out) : Int32Array.from(out), { shape: [out.length], dtype: x.dtype, device: x.device });
  const extra: Tensor[] = [];
  if (o.returnInverse) extra.push(tensor(Int32Array.from(inverse), { shape: x.shape, device: x.device }));
  if (o.returnCounts) extra.push(tensor(Int32Array.from(counts), { shape: [counts.length], device: x.device }));
  return extra.length ? ([values, ...extra] as UniqueResult) : values;
}

export const dataDependentOps: DataDependentOpFunctions = {
  nonzero(input, options) {
    const x = tensorArg('nonzero', 'input', input);
    const o = checkOptions<{ asTuple: boolean }>('nonzero', options, { asTuple: 'boolean' });
    const rows = nonzeroRows('nonzero', x);
    if (!o.asTuple) return nonzeroMatrix(x, rows);
    return Array.from({ length: Math.max(x.ndim, 1) }, (_, d) =>
      tensor(Int32Array.from(rows.map((r) => r[d] ?? 0)), { shape: [rows.length], device: x.device }));
  },
  argwhere(input, trailing?: unknown) {
    noOptions('argwhere', trailing);
    const x = tensorArg('argwhere', 'input', input);
    return nonzeroMatrix(x, nonzeroRows('argwhere', x));
  },
  maskedSelect(input, mask, trailing?: unknown) {
    noOptions('maskedSelect', trailing);
    const x = tensorArg('maskedSelect', 'input', input), m = tensorArg('maskedSelect', 'mask', mask);
    if (m.dtype !== 'bool') throw new Error(`maskedSelect: expected 'mask' to be a bool Tensor, got ${m.dtype}`);
    return tidy(() => {
      // Both broadcast to one shape; the chosen flat positions are gathered from x.
      const shape = broadcastShapesOf('maskedSelect', [x.shape, m.shape]);
      const mb = ops.expand(m, shape), xb = ops.expand(x, shape);
      const flat = valuesOf('maskedSelect', ops.contiguous(mb));
      const at: number[] = [];
      for (let i = 0; i < flat.length; i++) if (flat[i]) at.push(i);
      return ops.indexSelect(ops.flatten(xb), 0, tensor(Int32Array.from(at), { shape: [at.length], device: x.device }));
    });
  },
  unique(input, options) {
    return uniqueOf('unique', tensorArg('unique', 'input', input), options, false);
  },
  uniqueConsecutive(input, options) {
    return uniqueOf('uniqueConsecutive', tensorArg('uniqueConsecutive', 'input', input), options, true);
  },
  bincount(input, options) {
    const x = tensorArg('bincount', 'input', input);
    const o = checkOptions<BincountOptions>('bincount', options, {
      weights: { check: (v) => v === null || v instanceof Tensor, expected: 'a Tensor or null' },
      minlength: 'integer',
    });
    if (x.dtype !== 'int32' || x.ndim !== 1) throw new Error(`bincount: expected a 1-D int32 input, got ${x.dtype} of shape [${x.shape.join(', ')}]`);
    const minlength = o.minlength ?? 0;
    if (minlength < 0) throw new Error(`bincount: expected 'minlength' >= 0, got ${minlength}`);
    const w = o.weights ?? null;
    if (w && (w.ndim !== 1 || w.shape[0] !== x.shape[0])) throw new Error(`bincount: expected weights of input's shape [${x.shape[0]}], got [${w.shape.join(', ')}]`);
    const v = valuesOf('bincount', x);
    let bins = minlength;
    for (const e of v) {
      if (e < 0) throw new Error(`bincount: expected non-negative values, got ${e}`);
      bins = Math.max(bins, e + 1);
    }
    if (!w) {
      const counts = new Int32Array(bins);
      for (const e of v) counts[e]!++;
      return tensor(counts, { shape: [bins], device: x.device });
    }
    // Weighted: float32 sums in element order (PyTorch accumulates in double for float weights, then rounds).
    const ws = valuesOf('bincount', w);
    const sums = new Float64Array(bins);
    v.forEach((e, i) => (sums[e]! += ws[i]!));
    return tensor(Float32Array.from(sums), { shape: [bins], device: x.device });
  },
  histc(input, options) {
    const x = tensorArg('histc', 'input', input);
    const o = checkOptions<HistcOptions>('histc', options, { bins: 'positiveInteger', min: 'number', max: 'number' });
    if (x.dtype !== 'float32') throw new Error(`histc: expected a float32 input, got ${x.dtype}`);
    const bins = o.bins ?? 100;
    const v = valuesOf('histc', x);
    let lo = o.min ?? 0, hi = o.max ?? 0;
    if (lo === hi && v.length) {
      lo = Infinity;
      hi = -Infinity;
      for (const e of v) [lo, hi] = [Math.min(lo, e), Math.max(hi, e)];
      if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new Error(`histc: range of [${lo}, ${hi}] is not finite (a NaN or an infinity in the input: give min and max)`);
    }
    if (lo === hi) [lo, hi] = [lo - 1, hi + 1];  // PyTorch widens an empty range by 1 each way
    if (!(lo < hi)) throw new Error(`histc: max must be larger than min, got min ${lo} and max ${hi}`);
    const counts = new Float32Array(bins);
    const f = Math.fround;
    const [flo, span] = [f(lo), f(f(hi) - f(lo))];
    for (const e of v) {
      if (!(e >= lo && e <= hi)) continue;
      // ATen's linear bin (histogramdd): (x − min) · bins / (max − min) in float32, the max itself in the last bin.
      const pos = Math.min(Math.floor(f(f(f(e - flo) * bins) / span)), bins - 1);
      counts[pos]!++;
    }
    return tensor(counts, { shape: [bins], device: x.device });
  },
};

installMethods(dataDependentOps);
