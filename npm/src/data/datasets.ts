// The map-style datasets of sg.data (torch.utils.data's Dataset family): the Dataset interface
// ({ length, get(i) }), TensorDataset, Subset, ConcatDataset and randomSplit, and the data
// sources the DataLoader and the samplers take (a Tensor, an object of Tensors { x, y }, a
// TensorDataset, or any { length, get(i) }), with their lengths and their samples.
import { Tensor } from '../tensor/tensor.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { GENERATOR_SPEC, generatorOr, type Generator } from './generator.js';
import { isIntegralDType } from '../runtime/dtypes.js';

/** A map-style dataset: `length` samples, sample i from get(i) (Tensors, numbers, or arrays/objects of them). */
export interface Dataset<T = unknown> {
  readonly length: number;
  get(index: number): T;
}

/** Wraps tensors sharing their first dimension; sample i is [t0[i], t1[i], ...] (PyTorch's TensorDataset). */
export class TensorDataset implements Dataset<Tensor[]> {
  readonly tensors: Tensor[];

  constructor(...tensors: Tensor[]) {
    if (tensors.length === 0) throw new Error('TensorDataset: expected at least one Tensor');
    tensors.forEach((t, i) => {
      if (!(t instanceof Tensor)) throw new Error(`TensorDataset: argument ${i} must be a Tensor, got ${describe(t)}`);
      if (t.ndim === 0) throw new Error(`TensorDataset: argument ${i} is 0-d; tensors need a first (sample) dimension`);
    });
    const n = tensors[0]!.shape[0]!;
    tensors.forEach((t, i) => {
      if (t.shape[0] !== n) throw new Error(`TensorDataset: size mismatch between tensors (tensor 0 has ${n} samples, tensor ${i} has ${t.shape[0]})`);
    });
    this.tensors = tensors.slice();
  }

  get length(): number {
    return this.tensors[0]!.shape[0]!;
  }

  /** Sample i: one view per tensor (the caller disposes them). */
  get(index: number): Tensor[] {
    if (!isInteger(index) || index < -this.length || index >= this.length) {
      throw new Error(`TensorDataset.get: index ${describe(index)} is out of range for ${this.length} samples`);
    }
    const i = index < 0 ? index + this.length : index;
    return this.tensors.map((t) => row(t, i));
  }
}

/** Row i of t (a view; the caller disposes it). */
function row(t: Tensor, i: number): Tensor {
  return tidy(() => t.narrow(0, i, 1).squeeze(0));
}

/** What the DataLoader, the samplers and the dataset wrappers take as data. */
export type DataSource = Tensor | TensorDataset | Dataset | Record<string, Tensor>;

/** A data source, classified. */
export type Source =
  | { kind: 'tensor'; t: Tensor }
  | { kind: 'tensors'; ts: Tensor[] }
  | { kind: 'record'; keys: string[]; ts: Tensor[] }
  | { kind: 'dataset'; ds: Dataset };

/** Classifies a data source, or an Error naming `fn` and saying what is expected. */
export function sourceOf(fn: string, dataset: unknown): Source {
  if (dataset instanceof Tensor) {
    if (dataset.ndim === 0) throw new Error(`${fn}: a 0-d Tensor has no samples`);
    return { kind: 'tensor', t: dataset };
  }
  if (dataset instanceof TensorDataset) return { kind: 'tensors', ts: dataset.tensors };
  if (isOptionsObject(dataset) && Object.values(dataset).length > 0 && Object.values(dataset).every((v) => v instanceof Tensor)) {
    const keys = Object.keys(dataset);
    const ts = Object.values(dataset) as Tensor[];
    const n = ts[0]!.ndim > 0 ? ts[0]!.shape[0] : undefined;
    ts.forEach((t, i) => {
      if (t.ndim === 0 || t.shape[0] !== n) {
        throw new Error(`${fn}: every tensor of the dataset object needs the same first dimension ('${keys[0]}' has ${n} samples, '${keys[i]}' has shape [${t.shape.join(', ')}])`);
      }
    });
    return { kind: 'record', keys, ts };
  }
  if (dataset !== null && typeof dataset === 'object' && typeof (dataset as Dataset).get === 'function' && isInteger((dataset as Dataset).length)) {
    return { kind: 'dataset', ds: dataset as Dataset };
  }
  throw new Error(`${fn}: expected a dataset: an object of Tensors ({ x, y }), a TensorDataset, a Tensor, or { length, get(i) }; got ${describe(dataset)}`);
}

/** The number of samples of a source. */
export function lengthOf(s: Source): number {
  switch (s.kind) {
    case 'tensor':
      return s.t.shape[0]!;
    case 'tensors':
    case 'record':
      return s.ts[0]!.shape[0]!;
    case 'dataset':
      return s.ds.length;
  }
}

/** The number of samples of a data source (what a sampler's len() reads). */
export function dataLength(fn: string, data: unknown): number {
  return lengthOf(sourceOf(fn, data));
}

/** Sample i of a source, as its dataset gives it: t[i], [t0[i], ...], { x: x[i], ... }, or get(i). */
export function sampleOf(s: Source, i: number): unknown {
  switch (s.kind) {
    case 'tensor':
      return row(s.t, i);
    case 'tensors':
      return s.ts.map((t) => row(t, i));
    case 'record': {
      const out: Record<string, Tensor> = {};
      s.keys.forEach((k, j) => (out[k] = row(s.ts[j]!, i)));
      return out;
    }
    case 'dataset':
      return s.ds.get(i);
  }
}

/** An index into `n` samples (negative counts from the end), or an Error naming fn. */
function indexIn(fn: string, index: unknown, n: number): number {
  if (!isInteger(index) || index < -n || index >= n) throw new Error(`${fn}: index ${describe(index)} is out of range for ${n} samples`);
  return index < 0 ? index + n : index;
}

/** A list of integer indices: an array, an Int32Array, or a 1-D integer Tensor. */
function indexList(fn: string, indices: unknown): Int32Array {
  if (indices instanceof Tensor) {
    if (indices.ndim !== 1 || !isIntegralDType(indices.dtype)) {
      throw new Error(`${fn}: expected 'indices' to be a 1-D integer Tensor, got ${describe(indices)}`);
    }
    return Int32Array.from(indices.dataSync() as ArrayLike<number | bigint>, Number); // int64 data is a BigInt64Array
  }
  if (indices instanceof Int32Array) return indices.slice();
  if (Array.isArray(indices) && indices.every((v) => isInteger(v) && Math.abs(v) <= 2 ** 31 - 1)) return Int32Array.from(indices as number[]);
  throw new Error(`${fn}: expected 'indices' to be an array of integers (or an Int32Array, or a 1-D integer Tensor), got ${describe(indices)}`);
}

/** The samples of `dataset` at `indices`, in that order (PyTorch's Subset): get(i) is dataset's sample indices[i]. */
export class Subset<T = unknown> implements Dataset<T> {
  /** The wrapped data source. */
  readonly dataset: DataSource;
  /** The positions in `dataset` of this subset's samples. */
  readonly indices: Int32Array;
  private readonly source: Source;

  constructor(dataset: DataSource, indices: readonly number[] | Int32Array | Tensor) {
    this.source = sourceOf('Subset', dataset);
    this.dataset = dataset;
    this.indices = indexList('Subset', indices);
  }

  get length(): number {
    return this.indices.length;
  }

  get(index: number): T {
    const i = indexIn('Subset.get', index, this.length);
    const n = lengthOf(this.source);
    return sampleOf(this.source, indexIn('Subset.get (the subset\'s index into its dataset)', this.indices[i]!, n)) as T;
  }
}

/** Several datasets one after the other (PyTorch's ConcatDataset). */
export class ConcatDataset<T = unknown> implements Dataset<T> {
  readonly datasets: DataSource[];
  /** The running totals of the datasets' lengths (PyTorch's cumulative_sizes). */
  readonly cumulativeSizes: number[];
  private readonly sources: Source[];

  constructor(datasets: Iterable<DataSource>) {
    if (datasets === null || typeof datasets !== 'object' || typeof (datasets as Iterable<unknown>)[Symbol.iterator] !== 'function' || datasets instanceof Tensor) {
      throw new Error(`ConcatDataset: expected an array of datasets, got ${describe(datasets)}`);
    }
    this.datasets = [...datasets];
    if (this.datasets.length === 0) throw new Error('ConcatDataset: datasets should not be an empty iterable');
    this.sources = this.datasets.map((d, i) => sourceOf(`ConcatDataset (datasets[${i}])`, d));
    let total = 0;
    this.cumulativeSizes = this.sources.map((s) => (total += lengthOf(s)));
  }

  get length(): number {
    return this.cumulativeSizes[this.cumulativeSizes.length - 1]!;
  }

  get(index: number): T {
    const i = indexIn('ConcatDataset.get', index, this.length);
    // The first dataset whose running total passes i (bisect_right).
    let d = 0;
    while (this.cumulativeSizes[d]! <= i) d++;
    const start = d === 0 ? 0 : this.cumulativeSizes[d - 1]!;
    return sampleOf(this.sources[d]!, i - start) as T;
  }
}

export interface RandomSplitOptions {
  /** The generator of the permutation (default: a seed from the global one, sg.manualSeed). */
  generator?: Generator;
}

/**
 * Splits a dataset into non-overlapping random Subsets (PyTorch 1.13's random_split): `lengths`
 * are counts summing to the dataset's length, or fractions summing to 1 (each floor(n·f), the
 * remainder handed out one by one from the first).
 */
export function randomSplit(dataset: DataSource, lengths: readonly number[], options?: RandomSplitOptions): Subset[] {
  const o = checkOptions<RandomSplitOptions>('randomSplit', options, { generator: GENERATOR_SPEC });
  const n = dataLength('randomSplit', dataset);
  if (!Array.isArray(lengths) || lengths.length === 0 || !lengths.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new Error(`randomSplit: expected 'lengths' to be a non-empty array of counts or fractions, got ${describe(lengths)}`);
  }
  let counts = lengths.slice();
  const total = counts.reduce((a, b) => a + b, 0);
  // math.isclose(sum, 1) (relative tolerance 1e-9) and sum <= 1: fractions.
  if (Math.abs(total - 1) <= 1e-9 * Math.max(1, Math.abs(total)) && total <= 1) {
    counts = lengths.map((f, i) => {
      if (f < 0 || f > 1) throw new Error(`randomSplit: fraction at index ${i} is not between 0 and 1, got ${f}`);
      return Math.floor(n * f);
    });
    const remainder = n - counts.reduce((a, b) => a + b, 0);
    for (let i = 0; i < remainder; i++) counts[i % counts.length]! += 1;
  }
  counts.forEach((c, i) => {
    if (!isInteger(c) || c < 0) throw new Error(`randomSplit: expected lengths to be non-negative integers (or fractions summing to 1), got ${describe(lengths[i])} at index ${i}`);
  });
  const sum = counts.reduce((a, b) => a + b, 0);
  if (sum !== n) throw new Error(`randomSplit: sum of input lengths (${sum}) does not equal the length of the input dataset (${n})`);
  const perm = generatorOr(o.generator).permutation(n);
  let offset = 0;
  return counts.map((c) => {
    const part = perm.subarray(offset, offset + c);
    offset += c;
    return new Subset(dataset, part);
  });
}
