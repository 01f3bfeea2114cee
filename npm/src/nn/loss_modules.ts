// Loss modules (torch.nn.CrossEntropyLoss & co.): each holds the options of its sg.F loss
// (checked once, here) and calls it in forward(input, target). Tensor options are buffers,
// as in PyTorch ('weight', 'pos_weight'); the module keeps its own handle on them, so the
// caller's tensor stays the caller's.
import { F, optionalTensorSpec, probabilitySpec, REDUCTIONS, type ClassIndices, type Reduction } from './functional.js';
import type { TensorLike } from '../tensor/call.js';
import { shareHandle } from '../runtime/handles.js';
import { checkOptions, type Spec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import type { GaussianNllLossOptions, PoissonNllLossOptions, TripletMarginLossOptions } from './loss_functions.js';
import type { TripletMarginWithDistanceLossOptions } from './loss_margin.js';
import { Module } from './module.js';

function ownHandle(t: Tensor | null | undefined): Tensor | null {
  return t ? new Tensor(shareHandle(t.handle)) : null;
}

/** A loss whose options are all scalars (reduction, beta, delta, margin, logTarget). */
abstract class ScalarLoss<O extends object> extends Module {
  declare options: O;

  constructor(name: string, options: unknown, spec: Spec) {
    super();
    this.options = { ...checkOptions<O>(name, options, spec) } as O;
  }
}

const reduction: Spec = { reduction: REDUCTIONS };

export class MSELoss extends ScalarLoss<{ reduction?: Reduction }> {
  constructor(options?: { reduction?: Reduction }) {
    super('MSELoss', options, reduction);
  }

  forward(input: TensorLike, target: TensorLike): Tensor {
    return F.mseLoss(input, target, this.options);
  }
}

export class L1Loss extends ScalarLoss<{ reduction?: Reduction }> {
  constructor(options?: { reduction?: Reduction }) {
    super('L1Loss', options, reduction);
  }

  forward(input: TensorLike, target: TensorLike): Tensor {
    return F.l1Loss(input, target, this.options);
  }
}

export class SmoothL1Loss extends ScalarLoss<{ reduction?: Reduction; beta?: number }> {
  constructor(options?: { reduction?: Reduction; beta?: number }) {
    super('SmoothL1Loss', options, { ...reduction, beta: 'number' });
  }

  forward(input: TensorLike, target: TensorLike): Tensor {
    return F.smoothL1Loss(input, target, this.options);
  }
}

export class HuberLoss extends ScalarLoss<{ reduction?: Reduction; delta?: number }> {
  constructor(options?: { reduction?: Reduction; delta?: number }) {
    super('HuberLoss', options, { ...reduction, delta: 'number' });
  }

  forward(input: TensorLike, target: TensorLike): Tensor {
    return F.huberLoss(input, target, this.options);
  }
}

export class KLDivLoss extends ScalarLoss<{ reduction?: Reduction | 'batchmean'; logTarget?: boolean }> {
  constructor(options?: { reduction?: Reduction | 'batchmean'; logTarget?: boolean }) {
    super('KLDivLoss', options, { reduction: [...REDUCTIONS, 'batchmean'], logTarget: 'boolean' });
  }

  forward(input: Tensor, target: TensorLike): Tensor {
    return F.klDiv(input, target, this.options);
  }
}

export class CosineEmbeddingLoss extends ScalarLoss<{ reduction?: Reduction; margin?: number }> {
  constructor(options?: { reduction?: Reduction; margin?: number }) {
    super('CosineEmbeddingLoss', options, { ...reduction, margin: 'number' });
  }

  forward(input1: Tensor, input2: Tensor, target: Tensor | number[]): Tensor {
    return F.cosineEmbeddingLoss(input1, input2, target, this.options);
  }
}

export interface CrossEntropyLossOptions {
  weight?: Tensor | null;
  ignoreIndex?: number;
  reduction?: Reduction;
  labelSmoothing?: number;
}

export class CrossEntropyLoss extends Module {
  declare weight: Tensor | null;
  declare ignoreIndex: number;
  declare reduction: Reduction;
  declare labelSmoothing: number;

  constructor(options?: CrossEntropyLossOptions) {
    super();
    const o = checkOptions<CrossEntropyLossOptions>('CrossEntropyLoss', options, {
      weight: optionalTensorSpec,
      ignoreIndex: 'integer',
      ...reduction,
      labelSmoothing: probabilitySpec,
    });
    this.registerBuffer('weight', ownHandle(o.weight));
    this.ignoreIndex = o.ignoreIndex ?? -100;
    this.reduction = o.reduction ?? 'mean';
    this.labelSmoothing = o.labelSmoothing ?? 0;
  }

  /** input: logits [N, C] (or [C], [N, C, d...]); target: class indices or probabilities. */
  forward(input: Tensor, target: ClassIndices): Tensor {
    return F.crossEntropy(input, target, {
      weight: this.weight,
      ignoreIndex: this.ignoreIndex,
      reduction: this.reduction,
      labelSmoothing: this.labelSmoothing,
    });
  }
}

export class NLLLoss extends Module {
  declare weight: Tensor | null;
  declare ignoreIndex: number;
  declare reduction: Reduction;

  constructor(options?: { weight?: Tensor | null; ignoreIndex?: number; reduction?: Reduction }) {
    super();
    const o = checkOptions<{ weight: Tensor | null; ignoreIndex: number; reduction: Reduction }>('NLLLoss', options, {
      weight: optionalTensorSpec,
      ignoreIndex: 'integer',
      ...reduction,
    });
    this.registerBuffer('weight', ownHandle(o.weight));
    this.ignoreIndex = o.ignoreIndex ?? -100;
    this.reduction = o.reduction ?? 'mean';
  }

  forward(input: Tensor, target: ClassIndices): Tensor {
    return F.nllLoss(input, target, { weight: this.weight, ignoreIndex: this.ignoreIndex, reduction: this.reduction });
  }
}

export class BCELoss extends Module {
  declare weight: Tensor | null;
  declare reduction: Reduction;

  constructor(options?: { weight?: Tensor | null; reduction?: Reduction }) {
    super();
    const o = checkOptions<{ weight: Tensor | null; reduction: Reduction }>('BCELoss', options, { weight: optionalTensorSpec, ...reduction });
    this.registerBuffer('weight', ownHandle(o.weight));
    this.reduction = o.reduction ?? 'mean';
  }

  forward(input: Tensor, target: TensorLike): Tensor {
    return F.binaryCrossEntropy(input, target, { weight: this.weight, reduction: this.reduction });
  }
}

export class BCEWithLogitsLoss extends Module {
  declare weight: Tensor | null;
  declare pos_weight: Tensor | null;
  declare reduction: Reduction;

  constructor(options?: { weight?: Tensor | null; posWeight?: Tensor | null; reduction?: Reduction }) {
    super();
    const o = checkOptions<{ weight: Tensor | null; posWeight: Tensor | null; reduction: Reduction }>('BCEWithLogitsLoss', options, {
      weight: optionalTensorSpec,
      posWeight: optionalTensorSpec,
      ...reduction,
    });
    this.registerBuffer('weight', ownHandle(o.weight));
    this.registerBuffer('pos_weight', ownHandle(o.posWeight));
    this.reduction = o.reduction ?? 'mean';
  }

  forward(input: Tensor, target: TensorLike): Tensor {
    return F.binaryCrossEntropyWithLogits(input, target, { weight: this.weight, posWeight: this.pos_weight, reduction: this.reduction });
  }
}

// ---- the losses of loss_functions.ts ----

export class TripletMarginLoss extends ScalarLoss<TripletMarginLossOptions> {
  constructor(options?: TripletMarginLossOptions) {
    super('TripletMarginLoss', options, { ...reduction, margin: 'number', p: 'number', eps: 'number', swap: 'boolean' });
  }

  forward(anchor: Tensor, positive: Tensor, negative: Tensor): Tensor {
    return F.tripletMarginLoss(anchor, positive, negative, this.options);
  }
}

export class MarginRankingLoss extends ScalarLoss<{ margin?: number; reduction?: Reduction }> {
  constructor(options?: { margin?: number; reduction?: Reduction }) {
    super('MarginRankingLoss', options, { ...reduction, margin: 'number' });
  }

  forward(input1: Tensor, input2: Tensor, target: Tensor): Tensor {
    return F.marginRankingLoss(input1, input2, target, this.options);
  }
}

export class HingeEmbeddingLoss extends ScalarLoss<{ margin?: number; reduction?: Reduction }> {
  constructor(options?: { margin?: number; reduction?: Reduction }) {
    super('HingeEmbeddingLoss', options, { ...reduction, margin: 'number' });
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return F.hingeEmbeddingLoss(input, target, this.options);
  }
}

export class PoissonNLLLoss extends ScalarLoss<PoissonNllLossOptions> {
  constructor(options?: PoissonNllLossOptions) {
    super('PoissonNLLLoss', options, { ...reduction, logInput: 'boolean', full: 'boolean', eps: 'number' });
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return F.poissonNllLoss(input, target, this.options);
  }
}

export class GaussianNLLLoss extends ScalarLoss<GaussianNllLossOptions> {
  constructor(options?: GaussianNllLossOptions) {
    super('GaussianNLLLoss', options, { ...reduction, full: 'boolean', eps: 'number' });
  }

  /** input and target of one shape; var as input, or one variance per sample. */
  forward(input: Tensor, target: Tensor, variance: Tensor): Tensor {
    return F.gaussianNllLoss(input, target, variance, this.options);
  }
}

export class MultiLabelSoftMarginLoss extends Module {
  declare weight: Tensor | null;
  declare reduction: Reduction;

  constructor(options?: { weight?: Tensor | null; reduction?: Reduction }) {
    super();
    const o = checkOptions<{ weight: Tensor | null; reduction: Reduction }>('MultiLabelSoftMarginLoss', options, { weight: optionalTensorSpec, ...reduction });
    this.registerBuffer('weight', ownHandle(o.weight));
    this.reduction = o.reduction ?? 'mean';
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return F.multilabelSoftMarginLoss(input, target, { weight: this.weight, reduction: this.reduction });
  }
}

export class SoftMarginLoss extends ScalarLoss<{ reduction?: Reduction }> {
  constructor(options?: { reduction?: Reduction }) {
    super('SoftMarginLoss', options, reduction);
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return F.softMarginLoss(input, target, this.options);
  }
}

export class MultiMarginLoss extends Module {
  declare p: number;
  declare margin: number;
  declare weight: Tensor | null;
  declare reduction: Reduction;

  constructor(options?: { p?: number; margin?: number; weight?: Tensor | null; reduction?: Reduction }) {
    super();
    const o = checkOptions<{ p: number; margin: number; weight: Tensor | null; reduction: Reduction }>('MultiMarginLoss', options, {
      p: 'integer',
      margin: 'number',
      weight: optionalTensorSpec,
      ...reduction,
    });
    if (o.p !== undefined && o.p !== 1 && o.p !== 2) throw new Error(`MultiMarginLoss: only p == 1 and p == 2 are supported, got ${o.p}`);
    this.p = o.p ?? 1;
    this.margin = o.margin ?? 1;
    this.registerBuffer('weight', ownHandle(o.weight));
    this.reduction = o.reduction ?? 'mean';
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return F.multiMarginLoss(input, target, { p: this.p, margin: this.margin, weight: this.weight, reduction: this.reduction });
  }
}

export class MultiLabelMarginLoss extends ScalarLoss<{ reduction?: Reduction }> {
  constructor(options?: { reduction?: Reduction }) {
    super('MultiLabelMarginLoss', options, reduction);
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return F.multilabelMarginLoss(input, target, this.options);
  }
}

export class TripletMarginWithDistanceLoss extends ScalarLoss<TripletMarginWithDistanceLossOptions> {
  constructor(options?: TripletMarginWithDistanceLossOptions) {
    super('TripletMarginWithDistanceLoss', options, {
      ...reduction,
      distanceFunction: { check: (v) => v === null || typeof v === 'function', expected: 'a function or null' },
      margin: 'number',
      swap: 'boolean',
    });
  }

  forward(anchor: Tensor, positive: Tensor, negative: Tensor): Tensor {
    return F.tripletMarginWithDistanceLoss(anchor, positive, negative, this.options);
  }
}
