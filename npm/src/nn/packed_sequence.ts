// torch.nn.utils.rnn's packed sequences: PackedSequence, packPaddedSequence, padPackedSequence,
// packSequence, unpackSequence (PyTorch 1.13), composed of existing ops. A packed batch holds
// the sequences sorted by decreasing length, time-major: the rows of step t are the first
// batchSizes[t] sequences of the sorted batch. Packing and padding are each one indexSelect (a
// gather whose gradient scatters back), so gradients flow through both. The RNN layers
// (rnn.ts) take a PackedSequence and return one.
//
// Differences from PyTorch: batchSizes, sortedIndices and unsortedIndices are int32 (PyTorch:
// int64); lengths longer than the padded input are an Error (PyTorch reads past the input); the
// sort of enforceSorted: false is stable (equal lengths keep their batch order; PyTorch 1.13's CPU
// sort does so only up to 16 sequences, so a larger batch with ties may be packed in another order
// there, with the same padded results and states). The sizes and the permutation are also kept
// as JavaScript numbers, so that the RNN layers and padding need no read of tensor values (and
// work inside sg.compile, where they are static values of the trace).
import { full, tensor } from '../tensor/creation.js';
import { HeldTensors, tensorHolder, tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { isTracing } from '../runtime/trace_flag.js';

const TRACE_HINT = 'give them as an array of numbers (a static value of the compiled function)';

/** An int32 list on the CPU (a number[] or an int32 Tensor on the CPU, read synchronously). */
function intList(fn: string, name: string, v: unknown): number[] {
  if (v instanceof Tensor) {
    if (v.isDisposed) throw new Error(`${fn}: '${name}' is a disposed Tensor`);
    if (v.dtype !== 'int32' || v.device !== 'cpu' || v.ndim !== 1) {
      throw new Error(`${fn}: expected '${name}' as an array of integers or a 1-D int32 Tensor on the CPU (it is read synchronously), got a ${v.ndim}-D ${v.dtype} Tensor on '${v.device}'`);
    }
    if (isTracing()) throw new Error(`${fn}: cannot read '${name}' from a Tensor while sg.compile traces the function: ${TRACE_HINT}`);
    return Array.from(v.dataSync() as Int32Array);
  }
  if (!Array.isArray(v) || !v.every(isInteger)) throw new Error(`${fn}: expected '${name}' as an array of integers or a 1-D int32 Tensor on the CPU, got ${describe(v)}`);
  return v.slice();
}

function isPermutation(p: readonly number[], n: number): boolean {
  const seen = new Array<boolean>(n).fill(false);
  return p.length === n && p.every((i) => isInteger(i) && i >= 0 && i < n && !seen[i] && (seen[i] = true));
}

function inverse(p: readonly number[]): number[] {
  const q = new Array<number>(p.length);
  p.forEach((v, i) => (q[v] = i));
  return q;
}

const int32Cpu = (values: readonly number[]): Tensor => tensor(Int32Array.from(values), { shape: [values.length], dtype: 'int32', device: 'cpu' });

/**
 * torch.nn.utils.rnn.PackedSequence: `data` [Σ lengths, *] (the steps of every sequence,
 * time-major, the batch sorted by decreasing length), `batchSizes` (int32 on the CPU: how many
 * sequences are still running at each step), and `sortedIndices` / `unsortedIndices` (int32, on
 * data's device; null when the batch was given sorted). It owns its tensors: `dispose()` (or
 * sg.dispose, or the end of a tidy that does not return it) frees all four. Made by
 * packPaddedSequence / packSequence; `new PackedSequence(data, batchSizes, sortedIndices?,
 * unsortedIndices?)` wraps existing tensors (or arrays of numbers) as PyTorch's constructor does.
 */
export class PackedSequence {
  readonly data: Tensor;
  readonly batchSizes: Tensor;
  readonly sortedIndices: Tensor | null;
  readonly unsortedIndices: Tensor | null;
  /** @internal batchSizes as numbers. */
  readonly sizes: readonly number[];
  /** @internal sortedIndices as numbers (null: the identity). */
  readonly order: readonly number[] | null;

  constructor(data: Tensor, batchSizes: Tensor | readonly number[], sortedIndices?: Tensor | readonly number[] | null, unsortedIndices?: Tensor | readonly number[] | null) {
    const fn = 'PackedSequence';
    if (!(data instanceof Tensor) || data.isDisposed || data.ndim < 1) throw new Error(`${fn}: expected 'data' to be a Tensor with at least 1 dim, got ${describe(data)}`);
    const sizes = intList(fn, 'batchSizes', batchSizes);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (sizes.length === 0 || sizes.some((s, t) => s < 1 || (t > 0 && s > sizes[t - 1]!)) || total !== data.shape[0]) {
      throw new Error(`${fn}: expected 'batchSizes' to be positive, non-increasing and to sum to data.shape[0] = ${data.shape[0]}, got [${sizes.join(', ')}]`);
    }
    const b = sizes[0]!;
    let order: number[] | null = null;
    if (sortedIndices !== undefined && sortedIndices !== null) {
      order = intList(fn, 'sortedIndices', sortedIndices);
      if (!isPermutation(order, b)) throw new Error(`${fn}: expected 'sortedIndices' to be a permutation of 0..${b - 1}, got [${order.join(', ')}]`);
    }
    if (unsortedIndices !== undefined && unsortedIndices !== null) {
      if (order === null) throw new Error(`${fn}: 'unsortedIndices' was given without 'sortedIndices'`);
      const un = intList(fn, 'unsortedIndices', unsortedIndices);
      if (un.join() !== inverse(order).join()) throw new Error(`${fn}: expected 'unsortedIndices' to be the inverse of sortedIndices, [${inverse(order).join(', ')}], got [${un.join(', ')}]`);
    }
    const device = data.device;
    const own = (v: Tensor | readonly number[] | null | undefined, values: () => readonly number[]): Tensor =>
      v instanceof Tensor ? v : tensor(Int32Array.from(values()), { shape: [b], dtype: 'int32', device });
    this.data = data;
    this.batchSizes = batchSizes instanceof Tensor ? batchSizes : int32Cpu(sizes);
    this.sortedIndices = order === null ? null : own(sortedIndices, () => order!);
    this.unsortedIndices = order === null ? null : own(unsortedIndices, () => inverse(order!));
    this.sizes = sizes;
    this.order = order;
  }

  /** @internal A new PackedSequence of the same batch (own copies of batchSizes and the indices) over other data. */
  static withData(like: PackedSequence, data: Tensor): PackedSequence {
    return new PackedSequence(data, like.sizes, like.order);
  }

  /**
   * The same batch with data on `device` (differentiable, as Tensor.to), sortedIndices and
   * unsortedIndices there too, batchSizes on the CPU: a new PackedSequence owning its tensors.
   */
  to(device: 'cpu' | 'webgpu'): PackedSequence {
    if (this.isDisposed) throw new Error('PackedSequence.to: the PackedSequence is disposed');
    if (device !== 'cpu' && device !== 'webgpu') throw new Error(`PackedSequence.to: expected a device ('cpu', 'webgpu'), got ${describe(device)}`);
    return tidy(() => new PackedSequence(this.data.to(device), this.sizes, this.order));
  }

  /** Whether dispose() was called (any of its tensors is gone). */
  get isDisposed(): boolean {
    return this.data.isDisposed;
  }

  /** Frees data, batchSizes and the indices. */
  dispose(): void {
    for (const t of this.held()) t.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  private held(): Tensor[] {
    return [this.data, this.batchSizes, ...(this.sortedIndices ? [this.sortedIndices, this.unsortedIndices!] : [])];
  }

  /** @internal memory.ts (tidy, dispose) and compile/arg_tree.ts (sg.compile's arguments and results). */
  [tensorHolder](): HeldTensors {
    return {
      tensors: this.held(),
      key: `PackedSequence[${this.sizes.join(',')}](${this.order?.join(',') ?? ''})`,
      rebuild: (ts) => {
        // The same sizes and order (they are in the key), so nothing is read back.
        const fields = { data: ts[0], batchSizes: ts[1], sortedIndices: ts[2] ?? null, unsortedIndices: ts[3] ?? null, sizes: this.sizes, order: this.order };
        return Object.assign(Object.create(PackedSequence.prototype) as PackedSequence, fields);
      },
    };
  }

  toString(): string {
    return `PackedSequence(data=[${this.data.shape.join(', ')}], batchSizes=[${this.sizes.join(', ')}]${this.order ? `, sortedIndices=[${this.order.join(', ')}]` : ''})`;
  }
}

/** The lengths of the sorted batch (batchSizes → lengths): length j = #{t : sizes[t] > j}. */
function sortedLengths(sizes: readonly number[]): number[] {
  const lengths = new Array<number>(sizes[0]!).fill(0);
  for (const s of sizes) for (let j = 0; j < s; j++) lengths[j]!++;
  return lengths;
}

/** Start row of each step in the packed data. */
function offsets(sizes: readonly number[]): number[] {
  const off = [0];
  for (const s of sizes) off.push(off[off.length - 1]! + s);
  return off;
}

function batchSizesOf(lengths: readonly number[], order: readonly number[]): number[] {
  const sizes: number[] = [];
  for (let t = 0; t < lengths[order[0]!]!; t++) sizes.push(order.filter((i) => lengths[i]! > t).length);
  return sizes;
}

/**
 * Checks lengths (PyTorch's messages where it has them) and gives the sorted order (the
 * identity when enforceSorted).
 */
function orderOf(fn: string, lengths: readonly number[], batch: number, maxLength: number, enforceSorted: boolean): number[] {
  if (lengths.length !== batch) throw new Error(`${fn}: Expected \`len(lengths)\` to be equal to batch_size, but got ${lengths.length} (batch_size=${batch})`);
  if (lengths.some((l) => l <= 0)) throw new Error(`${fn}: Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0 (got [${lengths.join(', ')}])`);
  if (lengths.some((l) => l > maxLength)) throw new Error(`${fn}: expected every length to be at most the padded length ${maxLength}, got [${lengths.join(', ')}]`);
  const identity = lengths.map((_, i) => i);
  if (enforceSorted) {
    if (lengths.some((l, i) => i > 0 && l > lengths[i - 1]!)) {
      throw new Error(`${fn}: \`lengths\` array must be sorted in decreasing order when \`enforceSorted\` is true (got [${lengths.join(', ')}]). You can pass \`enforceSorted: false\` to packPaddedSequence and/or packSequence to sidestep this requirement`);
    }
    return identity;
  }
  return identity.sort((a, b) => lengths[b]! - lengths[a]! || a - b);  // stable
}

export interface PackPaddedOptions {
  /** input is [B, T, *] instead of [T, B, *] (default false). */
  batchFirst?: boolean;
  /** lengths must be decreasing (default true); false sorts the batch and records the order. */
  enforceSorted?: boolean;
}
const packSpec = { batchFirst: 'boolean', enforceSorted: 'boolean' } as const;

/**
 * torch.nn.utils.rnn.pack_padded_sequence: a padded batch [T, B, *] (batchFirst [B, T, *]) and
 * each sequence's length (numbers, or an int32 Tensor on the CPU) → a PackedSequence.
 */
export function packPaddedSequence(input: Tensor, lengths: readonly number[] | Tensor, options?: PackPaddedOptions): PackedSequence {
  const fn = 'packPaddedSequence';
  const o = checkOptions<PackPaddedOptions>(fn, options, packSpec);
  if (!(input instanceof Tensor) || input.isDisposed || input.ndim < 2) throw new Error(`${fn}: expected 'input' to be a Tensor with at least 2 dims, got ${describe(input)}`);
  const batchFirst = o.batchFirst ?? false;
  const [B, T] = batchFirst ? [input.shape[0]!, input.shape[1]!] : [input.shape[1]!, input.shape[0]!];
  const ls = intList(fn, 'lengths', lengths);
  const order = orderOf(fn, ls, B, T, o.enforceSorted ?? true);
  const sizes = batchSizesOf(ls, order);
  // Row of (step t, sorted position j) in input flattened to [T·B, *] (batchFirst [B·T, *]).
  const rows: number[] = [];
  sizes.forEach((n, t) => {
    for (let j = 0; j < n; j++) rows.push(batchFirst ? order[j]! * T + t : t * B + order[j]!);
  });
  return tidy(() => {
    const flat = ops.reshape(input, [T * B, ...input.shape.slice(2)]);
    const data = ops.indexSelect(flat, 0, tensor(Int32Array.from(rows), { shape: [rows.length], dtype: 'int32', device: input.device }));
    return new PackedSequence(data, sizes, o.enforceSorted === false ? order : null);
  });
}

export interface PadPackedOptions {
  /** Return [B, T, *] instead of [T, B, *] (default false). */
  batchFirst?: boolean;
  /** The value past each sequence's end (default 0). */
  paddingValue?: number;
  /** Pad to this many steps (default: the longest sequence); at least the longest. */
  totalLength?: number;
}

function packedArg(fn: string, v: unknown): PackedSequence {
  if (!(v instanceof PackedSequence) || v.isDisposed) throw new Error(`${fn}: expected a PackedSequence, got ${describe(v)}`);
  return v;
}

/**
 * torch.nn.utils.rnn.pad_packed_sequence: the inverse of packPaddedSequence → [padded [T, B, *]
 * (batchFirst [B, T, *]) in the original batch order, lengths (int32 on the CPU)].
 */
export function padPackedSequence(sequence: PackedSequence, options?: PadPackedOptions): [Tensor, Tensor] {
  const fn = 'padPackedSequence';
  const o = checkOptions<PadPackedOptions>(fn, options, { batchFirst: 'boolean', paddingValue: 'numberOrInfinity', totalLength: 'integer' });
  const p = packedArg(fn, sequence);
  const B = p.sizes[0]!;
  const maxLength = p.sizes.length;
  const T = o.totalLength ?? maxLength;
  if (T < maxLength) {
    throw new Error(`${fn}: Expected totalLength to be at least the length of the longest sequence in input, but got totalLength=${T} and max sequence length being ${maxLength}`);
  }
  const sorted = sortedLengths(p.sizes);
  const off = offsets(p.sizes);
  const unsorted = p.order ? inverse(p.order) : null;
  const N = off[maxLength]!;
  // Row of the packed data (N: the padding row) for each (step, original batch index).
  const rows: number[] = [];
  const at = (t: number, b: number) => {
    const j = unsorted ? unsorted[b]! : b;
    return t < sorted[j]! ? off[t]! + j : N;
  };
  if (o.batchFirst) for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) rows.push(at(t, b));
  else for (let t = 0; t < T; t++) for (let b = 0; b < B; b++) rows.push(at(t, b));
  const trailing = p.data.shape.slice(1);
  return tidy(() => {
    const pad = full([1, ...trailing], o.paddingValue ?? 0, { dtype: p.data.dtype, device: p.data.device });
    const rowsT = tensor(Int32Array.from(rows), { shape: [rows.length], dtype: 'int32', device: p.data.device });
    const padded = ops.reshape(ops.indexSelect(functionOps.cat([p.data, pad], 0), 0, rowsT), o.batchFirst ? [B, T, ...trailing] : [T, B, ...trailing]);
    const lengths = unsorted ? unsorted.map((j) => sorted[j]!) : sorted;
    return [padded, int32Cpu(lengths)] as [Tensor, Tensor];
  });
}

/**
 * torch.nn.utils.rnn.pack_sequence: sequences [L_i, *] (the same trailing dims) → a
 * PackedSequence (enforceSorted default true: the lengths must be decreasing).
 */
export function packSequence(sequences: readonly Tensor[], options?: { enforceSorted?: boolean }): PackedSequence {
  const fn = 'packSequence';
  const o = checkOptions<{ enforceSorted: boolean }>(fn, options, { enforceSorted: 'boolean' });
  if (!Array.isArray(sequences) || sequences.length === 0) throw new Error(`${fn}: expected a non-empty array of Tensors, got ${describe(sequences)}`);
  sequences.forEach((t, i) => {
    if (!(t instanceof Tensor) || t.isDisposed || t.ndim < 1) throw new Error(`${fn}: expected sequences[${i}] to be a Tensor with at least 1 dim, got ${describe(t)}`);
    const want = sequences[0]!.shape.slice(1);
    if (t.shape.slice(1).join() !== want.join()) throw new Error(`${fn}: expected every sequence to have the trailing dims [${want.join(', ')}], got [${t.shape.join(', ')}] at ${i}`);
    if (t.dtype !== sequences[0]!.dtype || t.device !== sequences[0]!.device) throw new Error(`${fn}: expected every sequence to be ${sequences[0]!.dtype} on '${sequences[0]!.device}', got ${t.dtype} on '${t.device}' at ${i}`);
  });
  const ls = sequences.map((t) => t.shape[0]!);
  const order = orderOf(fn, ls, ls.length, Math.max(...ls), o.enforceSorted ?? true);
  const sizes = batchSizesOf(ls, order);
  const start = offsets(ls);
  const rows: number[] = [];
  sizes.forEach((n, t) => {
    for (let j = 0; j < n; j++) rows.push(start[order[j]!]! + t);
  });
  return tidy(() => {
    const all = sequences.length === 1 ? sequences[0]! : functionOps.cat(sequences as Tensor[], 0);
    const data = ops.indexSelect(all, 0, tensor(Int32Array.from(rows), { shape: [rows.length], dtype: 'int32', device: all.device }));
    return new PackedSequence(data, sizes, o.enforceSorted === false ? order : null);
  });
}

/** torch.nn.utils.rnn.unpack_sequence: a PackedSequence → its sequences [L_i, *], in the original order. */
export function unpackSequence(packed: PackedSequence): Tensor[] {
  const fn = 'unpackSequence';
  const p = packedArg(fn, packed);
  const sorted = sortedLengths(p.sizes);
  const unsorted = p.order ? inverse(p.order) : null;
  return tidy(() => {
    const [padded] = padPackedSequence(p, { batchFirst: true });
    return sorted.map((_, b) => ops.narrow(ops.narrow(padded, 0, b, 1).squeeze(0), 0, 0, sorted[unsorted ? unsorted[b]! : b]!));
  });
}

/** @internal rnn.ts: the step offsets and sorted lengths of a packed batch. */
export const packedLayout = { offsets, sortedLengths, inverse };
