// F.embeddingBag and nn.EmbeddingBag (torch.nn.EmbeddingBag): the sum, mean or max of the
// embeddings of each bag of indices, without the [bags, length, dim] tensor of a padded batch
// (for 1-D input with offsets). Compositions of ops following ATen 1.13's CPU kernel: entries
// equal to paddingIdx are left out of their bag (and of a mean's count), an empty bag gives
// zeros, max mode sends the gradient to the first maximum of each (bag, dim), and
// perSampleWeights scale each entry (sum mode only).
import { run } from '../tensor/call.js';
import { arange, tensor, zeros } from '../tensor/creation.js';
import { noGrad } from '../autograd/backward.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { indexingOps } from '../tensor/indexing.js';
import { pointwiseOps } from '../tensor/pointwise.js';
import { reductionOps } from '../tensor/reductions.js';
import { scatterGatherOps } from '../tensor/scatter_gather.js';
import { sortingFunctionOps } from '../tensor/sorting.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor, type NumericData } from '../tensor/tensor.js';
import { countArg } from './args.js';
import { normal_ } from './init.js';
import { Module, Parameter } from './module.js';

export type BagMode = 'sum' | 'mean' | 'max';

export interface EmbeddingBagOptions {
  /** Where each bag starts in a 1-D input (int32 [B]); required for 1-D input, not allowed for 2-D. */
  offsets?: Tensor | null;
  /** 'mean' (default), 'sum' or 'max'. */
  mode?: BagMode;
  /** A weight per entry of input (its shape), multiplying its embedding: 'sum' mode only. */
  perSampleWeights?: Tensor | null;
  /** Entries equal to this index are left out of their bag. */
  paddingIdx?: number | null;
  /** offsets has B + 1 entries, the last one the end of the last bag. */
  includeLastOffset?: boolean;
}

const tensorOrNull = { check: (v: unknown) => v === null || v instanceof Tensor, expected: 'a Tensor or null' };
const spec = {
  offsets: tensorOrNull,
  mode: ['sum', 'mean', 'max'],
  perSampleWeights: tensorOrNull,
  paddingIdx: { check: (v: unknown) => v === null || isInteger(v), expected: 'an integer or null' },
  includeLastOffset: 'boolean',
} as const;

/** [B, L] rows of values, entries where `valid` (bool [B, L]) counted: the bag reduction (zeros for an empty bag). */
function reduceRows(mode: BagMode, values: Tensor, valid: Tensor, weights: Tensor | null): Tensor {
  const keep = ops.unsqueeze(valid, -1);
  if (mode === 'max') {
    // The first maximum of each (bag, dim) among valid entries; the gradient goes there only.
    const at = noGrad(() => ops.argmax(functionOps.where(keep, values, -Infinity), 1, true));
    const picked = ops.squeeze(ops.gather(values, 1, at), 1);
    return functionOps.where(ops.unsqueeze(reductionOps.any(valid, 1), -1), picked, 0);
  }
  let v = functionOps.where(keep, values, 0);
  if (weights) v = ops.mul(v, ops.unsqueeze(weights, -1));
  const sum = ops.sum(v, 1);
  if (mode === 'sum') return sum;
  return ops.div(sum, ops.clamp(ops.unsqueeze(ops.sum(valid.float(), 1), -1), 1, null));
}

/** weight's rows at input's indices (the embedding op: its index checks and scatter-add gradient). */
const lookup = (input: Tensor, weight: Tensor) => run('embeddingBag', 'embedding', [['weight', weight], ['input', input]], {});

export function embeddingBag(input: Tensor, weight: Tensor, options?: EmbeddingBagOptions): Tensor {
  const fn = 'embeddingBag';
  const o = checkOptions<EmbeddingBagOptions>(fn, options, spec);
  const mode = o.mode ?? 'mean';
  if (!(weight instanceof Tensor) || weight.ndim !== 2) throw new Error(`${fn}: expected 'weight' to be a 2-D Tensor [num, dim], got ${describe(weight)}`);
  if (!(input instanceof Tensor) || input.dtype !== 'int32' || (input.ndim !== 1 && input.ndim !== 2)) {
    throw new Error(`${fn}: expected 'input' to be a 1-D or 2-D int32 Tensor of indices, got ${describe(input)}`);
  }
  const w = o.perSampleWeights ?? null;
  if (w && mode !== 'sum') throw new Error(`${fn}: perSampleWeights is only supported for mode 'sum', got mode '${mode}'`);
  if (w && w.shape.join(',') !== input.shape.join(',')) {
    throw new Error(`${fn}: expected perSampleWeights of input's shape [${input.shape.join(', ')}], got [${w.shape.join(', ')}]`);
  }
  const [num, dim] = weight.shape as [number, number];
  let pad = o.paddingIdx ?? null;
  if (pad !== null) {
    if (pad >= num || pad < -num) throw new Error(`${fn}: paddingIdx must be within the ${num} embeddings, got ${pad}`);
    if (pad < 0) pad += num;
  }
  if (input.ndim === 2) {
    if (o.offsets) throw new Error(`${fn}: offsets must be null for a 2-D input (each row is a bag)`);
    return tidy(() => {
      const valid = pad === null ? ops.ge(input, 0) : ops.ne(input, pad);
      return reduceRows(mode, lookup(input, weight), valid, w);
    });
  }
  const offsets = o.offsets;
  if (!(offsets instanceof Tensor) || offsets.dtype !== 'int32' || offsets.ndim !== 1) {
    throw new Error(`${fn}: a 1-D input needs 'offsets', a 1-D int32 Tensor of bag starts, got ${describe(offsets)}`);
  }
  const t = input.shape[0]!;
  const bags = offsets.shape[0]! - (o.includeLastOffset ? 1 : 0);
  if (bags < 0) throw new Error(`${fn}: includeLastOffset needs at least one offset`);
  return tidy(() => {
    // Each entry's bag: how many bag starts are at or before it, minus one; entries past the
    // last offset (includeLastOffset) belong to none.
    const positions = arange(t, { device: input.device });
    const starts = o.includeLastOffset ? ops.narrow(offsets, 0, 0, bags) : offsets;
    const bag = ops.sub(sortingFunctionOps.searchsorted(starts, positions, { right: true }), 1);
    let valid = ops.ge(bag, 0);
    if (o.includeLastOffset) valid = pointwiseOps.logicalAnd(valid, ops.lt(positions, indexingOps.select(offsets, 0, bags)));
    if (pad !== null) valid = pointwiseOps.logicalAnd(valid, ops.ne(input, pad));
    const rows = lookup(input, weight);  // [T, dim]
    if (mode === 'max') {
      // Bags as rows of a padded [B, L] layout: its positions are read once here (from the CPU).
      if (offsets.device !== 'cpu') throw new Error(`${fn}: mode 'max' with offsets reads the offsets synchronously; on '${offsets.device}' pass a 2-D input (one bag per row) instead`);
      const starts = Array.from(offsets.dataSync() as NumericData).concat(o.includeLastOffset ? [] : [t]);
      const longest = Math.max(1, ...starts.slice(1).map((e, b) => e - starts[b]!));
      const at = new Int32Array(bags * longest).fill(-1);
      for (let b = 0; b < bags; b++) for (let i = starts[b]!; i < starts[b + 1]!; i++) at[b * longest + i - starts[b]!] = i;
      const index = tensor(at, { shape: [bags, longest], device: input.device });
      const slots = ops.clamp(index, 0, Math.max(t - 1, 0));
      const inBag = pointwiseOps.logicalAnd(ops.ge(index, 0), ops.gather(ops.expand(ops.unsqueeze(valid, 0), [bags, t]), 1, slots));
      const values = ops.reshape(ops.indexSelect(rows, 0, ops.flatten(slots)), [bags, longest, dim]);
      return reduceRows('max', values, inBag, null);
    }
    let entries = functionOps.where(ops.unsqueeze(valid, -1), rows, 0);
    if (w) entries = ops.mul(entries, ops.unsqueeze(w, -1));
    const target = ops.expand(ops.unsqueeze(ops.clamp(bag, 0, Math.max(bags - 1, 0)), -1), [t, dim]);
    const sum = scatterGatherOps.scatterAdd(zeros([bags, dim], { device: weight.device }), 0, target, entries);
    if (mode === 'sum') return sum;
    const counts = scatterGatherOps.scatterAdd(zeros([bags], { device: weight.device }), 0, ops.clamp(bag, 0, Math.max(bags - 1, 0)), valid.float());
    return ops.div(sum, ops.clamp(ops.unsqueeze(counts, -1), 1, null));
  });
}

export class EmbeddingBag extends Module {
  declare numEmbeddings: number;
  declare embeddingDim: number;
  declare mode: BagMode;
  declare paddingIdx: number | null;
  declare includeLastOffset: boolean;
  declare weight: Parameter;

  constructor(numEmbeddings: number, embeddingDim: number, options?: { mode?: BagMode; paddingIdx?: number | null; includeLastOffset?: boolean }) {
    super();
    const o = checkOptions<{ mode: BagMode; paddingIdx: number | null; includeLastOffset: boolean }>('EmbeddingBag', options, {
      mode: spec.mode,
      paddingIdx: spec.paddingIdx,
      includeLastOffset: 'boolean',
    });
    this.numEmbeddings = countArg('EmbeddingBag', 'numEmbeddings', numEmbeddings);
    this.embeddingDim = countArg('EmbeddingBag', 'embeddingDim', embeddingDim);
    this.mode = o.mode ?? 'mean';
    this.paddingIdx = o.paddingIdx ?? null;
    this.includeLastOffset = o.includeLastOffset ?? false;
    this.weight = Parameter.empty([this.numEmbeddings, this.embeddingDim]);
    normal_(this.weight);
  }

  forward(input: Tensor, offsets?: Tensor | null, perSampleWeights?: Tensor | null): Tensor {
    return embeddingBag(input, this.weight, {
      offsets: offsets ?? null,
      mode: this.mode,
      perSampleWeights: perSampleWeights ?? null,
      paddingIdx: this.paddingIdx,
      includeLastOffset: this.includeLastOffset,
    });
  }

  extraRepr(): string {
    // PyTorch 1.13 prints the mode unquoted, and padding_idx only when set.
    return `${this.numEmbeddings}, ${this.embeddingDim}, mode=${this.mode}${this.paddingIdx !== null ? `, padding_idx=${this.paddingIdx}` : ''}`;
  }
}
