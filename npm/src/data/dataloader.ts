// sg.data: TensorDataset and a DataLoader in the spirit of torch.utils.data, plus the seeded
// generator behind its shuffling (also used by sg.datasets to split data reproducibly).
//
// Randomness: a DataLoader without `seed` draws each epoch's permutation from a seed taken from
// the library's global generator (sg.manualSeed makes it reproducible, like PyTorch's
// RandomSampler drawing from the default generator); with `seed` it owns a generator of its own
// (PyTorch's `generator=`), independent of every other draw. The permutation itself is a
// Fisher–Yates shuffle over xoshiro128** (Blackman & Vigna), seeded through splitmix32, in JS:
// the shuffle of 10^4 indices is cheaper than a round trip per draw into wasm.
import { tensor } from '../tensor/creation.js';
import { callOp1, readHandle, releaseHandle } from '../runtime/handles.js';
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { tidy } from '../runtime/memory.js';

/** A small seeded generator of 32-bit integers (xoshiro128**). */
export class Generator {
  private s = new Uint32Array(4);

  constructor(seed: number) {
    if (!isInteger(seed) || seed < 0) throw new Error(`Generator: expected a non-negative integer seed, got ${describe(seed)}`);
    // splitmix32 over the seed's low and high 32-bit halves fills the state (never all zero).
    let x = (seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32) >>> 0, 0x9e3779b9);
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
    if ((this.s[0]! | this.s[1]! | this.s[2]! | this.s[3]!) === 0) this.s[0] = 1;
  }

  /** The next uniform 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const r = Math.imul(rotl(Math.imul(s[1]!, 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return r;
  }

  /** Uniform integer in [0, bound), without modulo bias (rejection), bound ≤ 2^32. */
  below(bound: number): number {
    const limit = 2 ** 32 - (2 ** 32 % bound);
    for (;;) {
      const u = this.nextU32();
      if (u < limit) return u % bound;
    }
  }

  /** A uniformly random permutation of 0..n-1 (Fisher–Yates). */
  permutation(n: number): Int32Array {
    const p = new Int32Array(n);
    for (let i = 0; i < n; i++) p[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = this.below(i + 1);
      const t = p[i]!;
      p[i] = p[j]!;
      p[j] = t;
    }
    return p;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** A seed drawn from the library's global generator (reproducible after sg.manualSeed). */
export function seedFromGlobal(): number {
  const h = callOp1('randint', [], { low: 0, high: 2 ** 30, shape: [2], device: 'cpu' });
  try {
    const [a, b] = readHandle(h) as Int32Array;
    return a! * 2 ** 30 + b!;
  } finally {
    releaseHandle(h);
  }
}

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
    return this.tensors.map((t) => tidy(() => t.narrow(0, i, 1).squeeze(0)));
  }
}

export interface DataLoaderOptions {
  /** Samples per batch (default 1). */
  batchSize?: number;
  /** A new random order every epoch (default false). */
  shuffle?: boolean;
  /** Drop the last batch when it is smaller than batchSize (default false). */
  dropLast?: boolean;
  /** Seed of the loader's own generator; without it, shuffling draws from the global one (sg.manualSeed). */
  seed?: number;
}

type Source =
  | { kind: 'tensor'; t: Tensor }
  | { kind: 'tensors'; ts: Tensor[] }
  | { kind: 'record'; keys: string[]; ts: Tensor[] }
  | { kind: 'dataset'; ds: Dataset };

function sourceOf(dataset: unknown): Source {
  if (dataset instanceof Tensor) {
    if (dataset.ndim === 0) throw new Error('DataLoader: a 0-d Tensor has no samples');
    return { kind: 'tensor', t: dataset };
  }
  if (dataset instanceof TensorDataset) return { kind: 'tensors', ts: dataset.tensors };
  if (isOptionsObject(dataset) && Object.values(dataset).length > 0 && Object.values(dataset).every((v) => v instanceof Tensor)) {
    const keys = Object.keys(dataset);
    const ts = Object.values(dataset) as Tensor[];
    const n = ts[0]!.ndim > 0 ? ts[0]!.shape[0] : undefined;
    ts.forEach((t, i) => {
      if (t.ndim === 0 || t.shape[0] !== n) {
        throw new Error(`DataLoader: every tensor of the dataset object needs the same first dimension ('${keys[0]}' has ${n} samples, '${keys[i]}' has shape [${t.shape.join(', ')}])`);
      }
    });
    return { kind: 'record', keys, ts };
  }
  if (dataset !== null && typeof dataset === 'object' && typeof (dataset as Dataset).get === 'function' && isInteger((dataset as Dataset).length)) {
    return { kind: 'dataset', ds: dataset as Dataset };
  }
  throw new Error(
    `DataLoader: expected a dataset: an object of Tensors ({ x, y }), a TensorDataset, a Tensor, or { length, get(i) }; got ${describe(dataset)}`,
  );
}

function lengthOf(s: Source): number {
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

/**
 * Iterates a dataset in batches: `for (const { x, y } of new DataLoader({ x, y }, { batchSize: 64, shuffle: true }))`.
 * A dataset object { x, y } gives batches { x, y }; a TensorDataset gives arrays [x, y]; a Tensor
 * gives Tensors; a { length, get(i) } dataset gives its samples stacked. Every epoch (each
 * iteration over the loader) visits each sample exactly once. Batches are new tensors owned by
 * the caller: dispose them (sg.dispose(batch)) or create them inside sg.tidy.
 */
export class DataLoader<B = unknown> implements Iterable<B> {
  readonly batchSize: number;
  readonly shuffle: boolean;
  readonly dropLast: boolean;
  private readonly source: Source;
  private readonly generator: Generator | null;

  constructor(dataset: unknown, options?: DataLoaderOptions) {
    const o = checkOptions<DataLoaderOptions>('DataLoader', options, {
      batchSize: 'positiveInteger',
      shuffle: 'boolean',
      dropLast: 'boolean',
      seed: { check: (v) => isInteger(v) && v >= 0, expected: 'a non-negative integer' },
    });
    this.source = sourceOf(dataset);
    this.batchSize = o.batchSize ?? 1;
    this.shuffle = o.shuffle ?? false;
    this.dropLast = o.dropLast ?? false;
    this.generator = o.seed !== undefined ? new Generator(o.seed) : null;
  }

  /** Number of samples. */
  get numSamples(): number {
    return lengthOf(this.source);
  }

  /** Number of batches per epoch (PyTorch's len(loader)). */
  get length(): number {
    const n = this.numSamples;
    return this.dropLast ? Math.floor(n / this.batchSize) : Math.ceil(n / this.batchSize);
  }

  /** The sample order of a new epoch. */
  private order(): Int32Array {
    const n = this.numSamples;
    if (!this.shuffle) {
      const p = new Int32Array(n);
      for (let i = 0; i < n; i++) p[i] = i;
      return p;
    }
    return (this.generator ?? new Generator(seedFromGlobal())).permutation(n);
  }

  private batch(indices: Int32Array): B {
    const s = this.source;
    if (s.kind === 'dataset') {
      // Tensors the dataset creates in get() are freed once stacked; its own stay alive.
      return tidy(() => collate(Array.from(indices, (i) => s.ds.get(i)), '')) as B;
    }
    // The indices go where the data is (a dataset on the GPU is batched there).
    const device = (s.kind === 'tensor' ? s.t : s.ts[0]!).device;
    const index = tensor(indices, { shape: [indices.length], dtype: 'int32', device });
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
    const order = this.order();
    const n = order.length;
    const end = this.dropLast ? n - (n % this.batchSize) : n;
    for (let start = 0; start < end; start += this.batchSize) {
      yield this.batch(order.subarray(start, Math.min(start + this.batchSize, end)));
    }
  }
}

export const data = { DataLoader, TensorDataset, Generator };
