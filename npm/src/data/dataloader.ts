// sg.data: the DataLoader in the spirit of torch.utils.data, over the datasets of datasets.ts
// and the samplers of samplers.ts (the generator behind them in generator.ts).
//
// Randomness: a DataLoader without `seed` (or `generator`) draws each epoch's permutation from a
// seed taken from the library's global generator (sg.manualSeed makes it reproducible, like
// PyTorch's RandomSampler drawing from the default generator); with `seed` it owns a generator
// of its own (PyTorch's `generator=`), independent of every other draw.
//
// Batches: over a Tensor, an object of Tensors or a TensorDataset (or a Subset of them) with the
// default collation, a batch is one indexSelect per tensor; otherwise the samples come one by
// one from the dataset and are collated (stacked), or handed to `collateFn`.
import { tensor } from '../tensor/creation.js';
import { callOp1 } from '../runtime/handles.js';
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { tidy } from '../runtime/memory.js';
import { Generator, GENERATOR_SPEC, seedFromGlobal } from './generator.js';
import { ConcatDataset, lengthOf, randomSplit, sampleOf, sourceOf, Subset, TensorDataset, type Dataset, type DataSource, type Source } from './datasets.js';
import { BatchSampler, RandomSampler, SequentialSampler, WeightedRandomSampler, type Sampler } from './samplers.js';

export { Generator, seedFromGlobal } from './generator.js';
export { TensorDataset, type Dataset } from './datasets.js';

export interface DataLoaderOptions<B = unknown> {
  /** Samples per batch (default 1); null turns batching off (each sample as the dataset gives it). */
  batchSize?: number | null;
  /** A new random order every epoch (default false). Not with `sampler` or `batchSampler`. */
  shuffle?: boolean;
  /** Drop the last batch when it is smaller than batchSize (default false). */
  dropLast?: boolean;
  /** Seed of the loader's own generator; without it, shuffling draws from the global one (sg.manualSeed). */
  seed?: number;
  /** The generator of the shuffling order (PyTorch's generator=); not with `seed`. */
  generator?: Generator;
  /** The sample indices of an epoch, in order (an iterable of indices: a sampler, an array). Not with `shuffle`. */
  sampler?: Iterable<number>;
  /** The batches of an epoch as arrays of indices. Not with batchSize (other than 1), shuffle, sampler or dropLast. */
  batchSampler?: Iterable<ArrayLike<number>>;
  /** Makes a batch of the list of samples (default: stack tensors, numbers to tensors, structure kept). */
  collateFn?: (samples: unknown[]) => B;
}

/** Stacks samples of one structure into a batch (PyTorch's default_collate). */
function collate(samples: unknown[], path: string): unknown {
  const first = samples[0];
  if (first instanceof Tensor) {
    samples.forEach((s, i) => {
      if (!(s instanceof Tensor)) throw new Error(`DataLoader: sample ${i}${path} is ${describe(s)} but sample 0's is a Tensor`);
    });
    return stackTensors(samples as Tensor[]);
  }
  if (typeof first === 'number' || typeof first === 'boolean') {
    const values = samples.map((s, i) => {
      if (typeof s !== typeof first) throw new Error(`DataLoader: sample ${i}${path} is ${describe(s)} but sample 0's is a ${typeof first}`);
      return Number(s);
    });
    if (typeof first === 'boolean') return tensor(Uint8Array.from(values), { shape: [values.length], dtype: 'bool' });
    return values.every(Number.isInteger) ? tensor(Int32Array.from(values), { shape: [values.length] }) : tensor(values);
  }
  if (Array.isArray(first)) {
    return first.map((_, k) => collate(samples.map((s) => (s as unknown[])[k]), `${path}[${k}]`));
  }
  if (isOptionsObject(first)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(first)) out[k] = collate(samples.map((s) => (s as Record<string, unknown>)[k]), `${path}.${k}`);
    return out;
  }
  throw new Error(`DataLoader: cannot batch sample elements like ${describe(first)}${path ? ` (at ${path})` : ''}; return Tensors, numbers, or arrays/objects of them`);
}

function stackTensors(ts: Tensor[]): Tensor {
  return new Tensor(callOp1('stack', ts.map((t) => t.handle), { dim: 0 }));
}

const ITERABLE = { check: (v: unknown) => v !== null && typeof v === 'object' && typeof (v as Iterable<unknown>)[Symbol.iterator] === 'function', expected: 'an iterable (a sampler or an array)' };

/** A sampler's length, when it has one. */
function samplerLength(s: unknown): number | undefined {
  const n = (s as { length?: unknown }).length;
  return isInteger(n) ? n : undefined;
}

/**
 * Iterates a dataset in batches: `for (const { x, y } of new DataLoader({ x, y }, { batchSize: 64, shuffle: true }))`.
 * A dataset object { x, y } gives batches { x, y }; a TensorDataset gives arrays [x, y]; a Tensor
 * gives Tensors; a { length, get(i) } dataset gives its samples stacked. Every epoch (each
 * iteration over the loader) visits the indices its sampler gives (by default each sample
 * exactly once). Batches are new tensors owned by the caller: dispose them (sg.dispose(batch))
 * or create them inside sg.tidy.
 */
export class DataLoader<B = unknown> implements Iterable<B> {
  /** Samples per batch; null without automatic batching (and with batchSampler). */
  readonly batchSize: number | null;
  readonly shuffle: boolean;
  readonly dropLast: boolean;
  /** The sampler of the sample indices (RandomSampler with shuffle, SequentialSampler by default, or the one given). */
  readonly sampler: Iterable<number>;
  /** The batches' indices: the given batchSampler, or a BatchSampler over `sampler` (null when batchSize is null). */
  readonly batchSampler: Iterable<ArrayLike<number>> | null;
  readonly collateFn: ((samples: unknown[]) => B) | null;
  readonly dataset: DataSource;
  private readonly source: Source;

  constructor(dataset: unknown, options?: DataLoaderOptions<B>) {
    const o = checkOptions<DataLoaderOptions<B>>('DataLoader', options, {
      batchSize: { check: (v) => v === null || (isInteger(v) && v > 0), expected: 'a positive integer (or null)' },
      shuffle: 'boolean',
      dropLast: 'boolean',
      seed: { check: (v) => isInteger(v) && v >= 0, expected: 'a non-negative integer' },
      generator: GENERATOR_SPEC,
      sampler: ITERABLE,
      batchSampler: ITERABLE,
      collateFn: { check: (v) => typeof v === 'function', expected: 'a function' },
    });
    this.source = sourceOf('DataLoader', dataset);
    this.dataset = dataset as DataSource;
    // PyTorch's checks, in its order and words.
    if (o.sampler !== undefined && o.shuffle) throw new Error('DataLoader: sampler option is mutually exclusive with shuffle');
    if (o.batchSampler !== undefined && ((o.batchSize !== undefined && o.batchSize !== 1) || o.shuffle || o.sampler !== undefined || o.dropLast)) {
      throw new Error('DataLoader: batchSampler option is mutually exclusive with batchSize, shuffle, sampler, and dropLast');
    }
    if (o.batchSize === null && o.dropLast) throw new Error('DataLoader: batchSize=null option disables auto-batching and is mutually exclusive with dropLast');
    if (o.seed !== undefined && o.generator !== undefined) throw new Error('DataLoader: give either seed or generator, not both');
    if ((o.seed !== undefined || o.generator !== undefined) && (o.sampler !== undefined || o.batchSampler !== undefined)) {
      throw new Error(`DataLoader: ${o.seed !== undefined ? 'seed' : 'generator'} sets the shuffling order, which a given ${o.sampler !== undefined ? 'sampler' : 'batchSampler'} replaces; give the sampler its own generator`);
    }
    this.shuffle = o.shuffle ?? false;
    this.dropLast = o.dropLast ?? false;
    this.collateFn = o.collateFn ?? null;
    const generator = o.generator ?? (o.seed !== undefined ? new Generator(o.seed) : undefined);
    const data = dataset as DataSource;
    this.sampler = o.sampler ?? (this.shuffle ? new RandomSampler(data, generator ? { generator } : undefined) : new SequentialSampler(data));
    if (o.batchSampler !== undefined) {
      this.batchSize = null;
      this.batchSampler = o.batchSampler;
    } else {
      this.batchSize = o.batchSize === undefined ? 1 : o.batchSize;
      this.batchSampler = this.batchSize === null ? null : new BatchSampler(this.sampler, this.batchSize, this.dropLast);
    }
  }

  /** Number of samples of the dataset. */
  get numSamples(): number {
    return lengthOf(this.source);
  }

  /** Number of batches per epoch (PyTorch's len(loader)): the batch sampler's length, else the sampler's. */
  get length(): number {
    if (this.batchSampler !== null) {
      const n = samplerLength(this.batchSampler);
      if (n === undefined) throw new Error('DataLoader: its batchSampler has no length');
      return n;
    }
    const n = samplerLength(this.sampler);
    if (n === undefined) throw new Error('DataLoader: its sampler has no length');
    return n;
  }

  /** Checked indices into the dataset. */
  private indicesOf(batch: ArrayLike<number>, n: number): Int32Array {
    const out = new Int32Array(batch.length);
    for (let k = 0; k < batch.length; k++) {
      const i = batch[k];
      if (!isInteger(i) || i < 0 || i >= n) throw new Error(`DataLoader: the sampler gave index ${describe(i)}, out of range for ${n} samples`);
      out[k] = i;
    }
    return out;
  }

  private batch(indices: Int32Array): B {
    // A Subset (of a Subset ...) of tensors is batched straight from the tensors.
    let s = this.source;
    let at = indices;
    while (this.collateFn === null && s.kind === 'dataset' && s.ds instanceof Subset) {
      const sub = s.ds;
      at = at.map((i) => sub.indices[i]!);
      s = sourceOf('DataLoader', sub.dataset);
      const n = lengthOf(s);
      at.forEach((i) => {
        if (i < -n || i >= n) throw new Error(`DataLoader: a Subset index ${i} is out of range for its dataset of ${n} samples`);
      });
      at = at.map((i) => (i < 0 ? i + n : i));
    }
    if (this.collateFn !== null || s.kind === 'dataset') {
      const src = s;
      const samples = () => Array.from(at, (i) => sampleOf(src, i));
      // Tensors the dataset creates in get() are freed once collated; its own stay alive.
      if (this.collateFn !== null) {
        const f = this.collateFn;
        return tidy(() => f(samples()));
      }
      return tidy(() => collate(samples(), '')) as B;
    }
    // The indices go where the data is (a dataset on the GPU is batched there).
    const device = (s.kind === 'tensor' ? s.t : s.ts[0]!).device;
    const index = tensor(at, { shape: [at.length], dtype: 'int32', device });
    try {
      const pick = (t: Tensor) => t.indexSelect(0, index);
      if (s.kind === 'tensor') return pick(s.t) as B;
      if (s.kind === 'tensors') return s.ts.map(pick) as B;
      const out: Record<string, Tensor> = {};
      s.keys.forEach((k, i) => {
        out[k] = pick(s.ts[i]!);
      });
      return out as B;
    } finally {
      index.dispose();
    }
  }

  *[Symbol.iterator](): Iterator<B> {
    const n = this.numSamples;
    if (this.batchSampler === null) {
      // No automatic batching: each sample as the dataset gives it (through collateFn when given).
      for (const i of this.sampler) {
        const [k] = this.indicesOf([i], n);
        const sample = sampleOf(this.source, k!);
        yield (this.collateFn !== null ? tidy(() => this.collateFn!(sample as unknown as unknown[])) : sample) as B;
      }
      return;
    }
    for (const b of this.batchSampler) yield this.batch(this.indicesOf(b, n));
  }
}

export const data = {
  DataLoader,
  TensorDataset,
  Generator,
  Subset,
  ConcatDataset,
  randomSplit,
  SequentialSampler,
  RandomSampler,
  WeightedRandomSampler,
  BatchSampler,
};

export type { Sampler };
