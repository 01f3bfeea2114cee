// The samplers of sg.data (torch.utils.data.sampler, PyTorch 1.13's semantics and checks):
// SequentialSampler, RandomSampler, WeightedRandomSampler and BatchSampler. A sampler is an
// iterable of sample indices (BatchSampler: of arrays of them) with a `length`; each iteration is
// one epoch. Random ones draw from their `generator` (sg.data.Generator), else from a generator
// seeded anew from the global one (sg.manualSeed) at every epoch, as PyTorch's default.
import { Tensor } from '../tensor/tensor.js';
import { keywordArgs, type KwArgs } from '../tensor/keywords.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { GENERATOR_SPEC, generatorOr, type Generator } from './generator.js';
import { dataLength, type DataSource } from './datasets.js';

/** An iterable of sample indices with a length (PyTorch's Sampler). */
export interface Sampler<I = number> extends Iterable<I> {
  readonly length: number;
}

/** 0, 1, ..., n − 1 for a dataset of n samples. */
export class SequentialSampler implements Sampler {
  readonly dataSource: DataSource;

  constructor(dataSource: DataSource, extra?: unknown) {
    if (extra !== undefined) throw new Error(`SequentialSampler: takes one argument (the dataset), got also ${describe(extra)}`);
    dataLength('SequentialSampler', dataSource);
    this.dataSource = dataSource;
  }

  get length(): number {
    return dataLength('SequentialSampler', this.dataSource);
  }

  *[Symbol.iterator](): Iterator<number> {
    const n = this.length;
    for (let i = 0; i < n; i++) yield i;
  }
}

export interface RandomSamplerOptions {
  /** Draw with replacement (default false: a permutation, repeated whole while numSamples exceeds the length). */
  replacement?: boolean;
  /** Samples per epoch (default: the dataset's length). */
  numSamples?: number;
  generator?: Generator;
}

/**
 * The samples in a random order (a new one every epoch): a permutation, or with replacement
 * `numSamples` independent uniform draws.
 */
export class RandomSampler implements Sampler {
  readonly dataSource: DataSource;
  readonly replacement: boolean;
  readonly generator: Generator | null;
  private readonly fixedSamples: number | undefined;

  constructor(dataSource: DataSource, options?: RandomSamplerOptions) {
    const o = checkOptions<RandomSamplerOptions>('RandomSampler', options, {
      replacement: 'boolean',
      numSamples: { check: (v) => isInteger(v), expected: 'a positive integer' },
      generator: GENERATOR_SPEC,
    });
    this.dataSource = dataSource;
    this.replacement = o.replacement ?? false;
    this.generator = o.generator ?? null;
    this.fixedSamples = o.numSamples;
    const n = this.numSamples;
    if (!isInteger(n) || n <= 0) throw new Error(`RandomSampler: numSamples should be a positive integer value, but got numSamples=${describe(n)}`);
  }

  /** Samples per epoch: numSamples, or the dataset's length (read at each epoch). */
  get numSamples(): number {
    return this.fixedSamples ?? dataLength('RandomSampler', this.dataSource);
  }

  get length(): number {
    return this.numSamples;
  }

  *[Symbol.iterator](): Iterator<number> {
    const n = dataLength('RandomSampler', this.dataSource);
    const count = this.numSamples;
    if (n === 0 && count > 0) throw new Error(`RandomSampler: cannot draw ${count} samples from an empty dataset`);
    const g = generatorOr(this.generator ?? undefined);
    if (this.replacement) {
      for (let i = 0; i < count; i++) yield g.below(n);
      return;
    }
    for (let done = 0; done < count; ) {
      const p = g.permutation(n);
      const take = Math.min(n, count - done);
      for (let i = 0; i < take; i++) yield p[i]!;
      done += take;
    }
  }
}

export interface WeightedRandomSamplerOptions {
  /** Draw with replacement (default true); without, no index comes twice in an epoch. */
  replacement?: boolean;
  generator?: Generator;
}

/** weights as non-negative finite numbers, or an Error naming what is wrong. */
function weightList(weights: unknown): Float64Array {
  let w: Float64Array;
  if (weights instanceof Tensor) {
    if (weights.ndim !== 1) throw new Error(`WeightedRandomSampler: weights should be a 1d sequence but given weights have shape [${weights.shape.join(', ')}]`);
    w = Float64Array.from(weights.dataSync() as ArrayLike<number | bigint>, Number); // int64 data is a BigInt64Array
  } else if (ArrayBuffer.isView(weights) && !(weights instanceof DataView)) {
    w = Float64Array.from(weights as unknown as ArrayLike<number | bigint>, Number);
  } else if (Array.isArray(weights) && weights.every((v) => typeof v === 'number')) {
    w = Float64Array.from(weights as number[]);
  } else {
    throw new Error(`WeightedRandomSampler: weights should be a 1d sequence of numbers (an array, a typed array or a 1-D Tensor), got ${describe(weights)}`);
  }
  if (w.some((v) => !Number.isFinite(v) || v < 0)) throw new Error('WeightedRandomSampler: weights contain either inf, nan or an element < 0');
  return w;
}

/**
 * Indices 0..weights.length − 1 drawn with probability proportional to their weights (PyTorch's
 * multinomial): with replacement, independent draws; without, successive draws each among the
 * indices not drawn yet (weighted reservoir keys u^(1/w), the same distribution).
 */
export class WeightedRandomSampler implements Sampler {
  readonly weights: Float64Array;
  readonly numSamples: number;
  readonly replacement: boolean;
  readonly generator: Generator | null;
  private readonly cumulative: Float64Array;

  constructor(weights: readonly number[] | Float32Array | Float64Array | Tensor, ...args: KwArgs<[numSamples: number], [], WeightedRandomSamplerOptions & { numSamples?: number }>) {
    const [numSamples, options] = keywordArgs('WeightedRandomSampler', { positional: ['numSamples'], options: ['replacement', 'generator'] }, args);
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      // A third positional (PyTorch's replacement) is not an options object.
      throw new Error(`WeightedRandomSampler: expected an options object { replacement, generator } after numSamples, got ${describe(options)}`);
    }
    const o = checkOptions<WeightedRandomSamplerOptions>('WeightedRandomSampler', options, { replacement: 'boolean', generator: GENERATOR_SPEC });
    if (!isInteger(numSamples) || numSamples <= 0) throw new Error(`WeightedRandomSampler: numSamples should be a positive integer value, but got numSamples=${describe(numSamples)}`);
    this.weights = weightList(weights);
    this.numSamples = numSamples;
    this.replacement = o.replacement ?? true;
    this.generator = o.generator ?? null;
    const total = this.weights.reduce((a, b) => a + b, 0);
    if (!(total > 0)) throw new Error('WeightedRandomSampler: invalid multinomial distribution (sum of weights <= 0)');
    const nonzero = this.weights.filter((v) => v > 0).length;
    if (!this.replacement && numSamples > nonzero) {
      throw new Error(`WeightedRandomSampler: cannot draw ${numSamples} samples without replacement from ${nonzero} indices of nonzero weight`);
    }
    let run = 0;
    this.cumulative = this.weights.map((v) => (run += v));
  }

  get length(): number {
    return this.numSamples;
  }

  *[Symbol.iterator](): Iterator<number> {
    const g = generatorOr(this.generator ?? undefined);
    const c = this.cumulative;
    const n = c.length;
    if (this.replacement) {
      const total = c[n - 1]!;
      for (let k = 0; k < this.numSamples; k++) {
        // The first index whose running total exceeds u·total (binary search; a zero weight adds
        // nothing to the total, so its index is never the first to exceed it).
        const u = g.random() * total;
        let lo = 0, hi = n - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (c[mid]! > u) hi = mid;
          else lo = mid + 1;
        }
        yield lo;
      }
      return;
    }
    // Efraimidis–Spirakis: the numSamples largest keys log(u)/w, in decreasing order, are a
    // draw without replacement in order of selection.
    const keys: [number, number][] = [];
    this.weights.forEach((w, i) => {
      if (w > 0) keys.push([Math.log(1 - g.random()) / w, i]);
    });
    keys.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (let k = 0; k < this.numSamples; k++) yield keys[k]![1];
  }
}

/** Groups another sampler's indices into arrays of batchSize (the last shorter, or dropped with dropLast). */
export class BatchSampler implements Sampler<number[]> {
  readonly sampler: Iterable<number> & { readonly length?: number };
  readonly batchSize: number;
  readonly dropLast: boolean;

  constructor(sampler: Iterable<number> & { readonly length?: number }, ...args: KwArgs<[batchSize: number, dropLast: boolean], [], { batchSize?: number; dropLast?: boolean }>) {
    const [batchSize, dropLast, extra] = keywordArgs('BatchSampler', ['batchSize', 'dropLast'], args);
    if (extra !== undefined) throw new Error(`BatchSampler: takes (sampler, batchSize, dropLast), got also ${describe(extra)}`);
    if (sampler === null || typeof sampler !== 'object' || typeof (sampler as Iterable<number>)[Symbol.iterator] !== 'function') {
      throw new Error(`BatchSampler: expected a sampler (an iterable of indices), got ${describe(sampler)}`);
    }
    if (!isInteger(batchSize) || batchSize <= 0) throw new Error(`BatchSampler: batchSize should be a positive integer value, but got batchSize=${describe(batchSize)}`);
    if (typeof dropLast !== 'boolean') throw new Error(`BatchSampler: dropLast should be a boolean value, but got dropLast=${describe(dropLast)}`);
    this.sampler = sampler;
    this.batchSize = batchSize;
    this.dropLast = dropLast;
  }

  /** Batches per epoch (needs the sampler's length). */
  get length(): number {
    const n = this.sampler.length;
    if (!isInteger(n)) throw new Error(`BatchSampler: its sampler has no length (got ${describe(n)})`);
    return this.dropLast ? Math.floor(n / this.batchSize) : Math.ceil(n / this.batchSize);
  }

  *[Symbol.iterator](): Iterator<number[]> {
    let batch: number[] = [];
    for (const i of this.sampler) {
      batch.push(i);
      if (batch.length === this.batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0 && !this.dropLast) yield batch;
  }
}
