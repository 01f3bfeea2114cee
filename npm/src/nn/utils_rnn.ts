// sg.nn.utils.rnn: padSequence and unpadSequence (torch.nn.utils.rnn.pad_sequence /
// unpad_sequence), for batching sequences of different lengths, and the packed sequences of
// packed_sequence.ts (PackedSequence, packPaddedSequence, padPackedSequence, packSequence,
// unpackSequence), which the RNN layers take and return.
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { indexingOps } from '../tensor/indexing.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor, type NumericData } from '../tensor/tensor.js';
import { PackedSequence, packPaddedSequence, packSequence, padPackedSequence, unpackSequence } from './packed_sequence.js';

function sequences(fn: string, v: unknown): Tensor[] {
  if (!Array.isArray(v) || v.length === 0) throw new Error(`${fn}: expected a non-empty array of Tensors, got ${describe(v)}`);
  return v.map((t, i) => {
    if (!(t instanceof Tensor) || t.ndim < 1) throw new Error(`${fn}: expected sequences[${i}] to be a Tensor with at least 1 dim, got ${describe(t)}`);
    return t;
  });
}

/**
 * Sequences [L_i, ...] (the same trailing dims) → [maxL, B, ...] (batchFirst: [B, maxL, ...]),
 * each padded at its end with paddingValue (default 0); differentiable in the sequences.
 */
function padSequence(sequencesArg: Tensor[], options?: { batchFirst?: boolean; paddingValue?: number }): Tensor {
  const fn = 'padSequence';
  const o = checkOptions<{ batchFirst: boolean; paddingValue: number }>(fn, options, { batchFirst: 'boolean', paddingValue: 'numberOrInfinity' });
  const seqs = sequences(fn, sequencesArg);
  const trailing = seqs[0]!.shape.slice(1).join(',');
  seqs.forEach((t, i) => {
    if (t.shape.slice(1).join(',') !== trailing) {
      throw new Error(`${fn}: expected every sequence to have the trailing dims [${seqs[0]!.shape.slice(1).join(', ')}], got [${t.shape.join(', ')}] at ${i}`);
    }
  });
  const longest = Math.max(...seqs.map((t) => t.shape[0]!));
  return tidy(() => {
    const padded = seqs.map((t) => {
      const missing = longest - t.shape[0]!;
      if (missing === 0) return t;
      const pads = [...new Array<number>(2 * (t.ndim - 1)).fill(0), 0, missing];  // F.pad: last dim first; the sequence dim is dim 0
      return functionOps.pad(t, pads, { value: o.paddingValue ?? 0 });
    });
    return functionOps.stack(padded, o.batchFirst ? 0 : 1);
  });
}

/** The inverse: a padded batch and the lengths → the sequences (views), each cut to its length. */
function unpadSequence(padded: Tensor, lengths: readonly number[] | Tensor, options?: { batchFirst?: boolean }): Tensor[] {
  const fn = 'unpadSequence';
  const o = checkOptions<{ batchFirst: boolean }>(fn, options, { batchFirst: 'boolean' });
  if (!(padded instanceof Tensor) || padded.ndim < 2) throw new Error(`${fn}: expected a padded Tensor with at least 2 dims, got ${describe(padded)}`);
  const ls = lengths instanceof Tensor ? Array.from(lengths.dataSync() as NumericData) : lengths;
  const batchDim = o.batchFirst ? 0 : 1, timeDim = o.batchFirst ? 1 : 0;
  const [b, maxL] = [padded.shape[batchDim]!, padded.shape[timeDim]!];
  if (!Array.isArray(ls) || ls.length !== b || !ls.every((l) => isInteger(l) && l >= 0 && l <= maxL)) {
    throw new Error(`${fn}: expected ${b} lengths, each an integer in [0, ${maxL}], got ${describe(lengths)}`);
  }
  return ls.map((l, i) => ops.narrow(indexingOps.select(padded, batchDim, i), 0, 0, l));
}

export const rnnUtils = { padSequence, unpadSequence, PackedSequence, packPaddedSequence, padPackedSequence, packSequence, unpackSequence };
