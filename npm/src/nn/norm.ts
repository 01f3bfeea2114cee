// Normalization modules (torch.nn.BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm)
// with PyTorch's parameters (weight ones, bias zeros), buffers (running_mean zeros,
// running_var ones, num_batches_tracked int32 0) and train/eval behaviour. Running stats are
// updated in place by the C++ op.
import { F } from './functional.js';
import { callOp, emptyHandle } from '../runtime/handles.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { countArg } from './args.js';
import { ones_, zeros_ } from './init.js';
import { Module, Parameter } from './module.js';
import { pyRepr } from './repr.js';
import { copyTensorInto, writeInto } from './tensor_data.js';
import { tidy } from '../runtime/memory.js';
import { placeOn } from '../runtime/webgpu_device.js';

export interface BatchNormModuleOptions {
  eps?: number;
  /** null: cumulative moving average (1 / numBatchesTracked). */
  momentum?: number | null;
  affine?: boolean;
  trackRunningStats?: boolean;
}

function filled(shape: number[], dtype: 'float32' | 'int32', value: number): Tensor {
  const t = new Tensor(placeOn(emptyHandle(shape, dtype), undefined), dtype);
  if (value !== 0) writeInto('norm', t, new Float64Array(t.numel).fill(value));
  return t;
}

/** _NormBase: the parameters and buffers shared by BatchNorm and InstanceNorm. */
abstract class NormBase extends Module {
  declare numFeatures: number;
  declare eps: number;
  declare momentum: number | null;
  declare affine: boolean;
  declare trackRunningStats: boolean;
  declare weight: Parameter | null;
  declare bias: Parameter | null;
  declare running_mean: Tensor | null;
  declare running_var: Tensor | null;
  declare num_batches_tracked: Tensor | null;

  constructor(name: string, numFeatures: number, options: unknown, defaults: { affine: boolean; trackRunningStats: boolean }) {
    super();
    const o = checkOptions<BatchNormModuleOptions>(name, options, {
      eps: 'number',
      momentum: { check: (v) => v === null || (typeof v === 'number' && Number.isFinite(v)), expected: 'a number or null' },
      affine: 'boolean',
      trackRunningStats: 'boolean',
    });
    this.numFeatures = countArg(name, 'numFeatures', numFeatures, 1);
    this.eps = o.eps ?? 1e-5;
    this.momentum = o.momentum === undefined ? 0.1 : o.momentum;
    this.affine = o.affine ?? defaults.affine;
    this.trackRunningStats = o.trackRunningStats ?? defaults.trackRunningStats;
    if (this.affine) {
      this.weight = Parameter.empty([this.numFeatures]);
      this.bias = Parameter.empty([this.numFeatures]);
    } else {
      this.registerParameter('weight', null);
      this.registerParameter('bias', null);
    }
    if (this.trackRunningStats) {
      this.registerBuffer('running_mean', filled([this.numFeatures], 'float32', 0));
      this.registerBuffer('running_var', filled([this.numFeatures], 'float32', 1));
      this.registerBuffer('num_batches_tracked', filled([], 'int32', 0));
    } else {
      this.registerBuffer('running_mean', null);
      this.registerBuffer('running_var', null);
      this.registerBuffer('num_batches_tracked', null);
    }
    this.resetParameters();
  }

  resetRunningStats(): void {
    if (this.running_mean) zeros_(this.running_mean);
    if (this.running_var) ones_(this.running_var);
    if (this.num_batches_tracked) zeros_(this.num_batches_tracked);
  }

  resetParameters(): void {
    this.resetRunningStats();
    if (this.weight) ones_(this.weight);
    if (this.bias) zeros_(this.bias);
  }

  extraRepr(): string {
    return `${this.numFeatures}, eps=${pyRepr(this.eps)}, momentum=${pyRepr(this.momentum)}, affine=${pyRepr(this.affine)}, track_running_stats=${pyRepr(this.trackRunningStats)}`;
  }
}

abstract class BatchNormNd extends NormBase {
  constructor(name: string, numFeatures: number, options: unknown) {
    super(name, numFeatures, options, { affine: true, trackRunningStats: true });
  }

  protected abstract checkInputDim(input: Tensor): void;

  forward(input: Tensor): Tensor {
    const name = this.constructor.name;
    if (!(input instanceof Tensor)) throw new Error(`${name}: expected a Tensor, got ${describe(input)}`);
    this.checkInputDim(input);
    const shape = input.shape;
    if (shape[1] !== this.numFeatures) {
      const want = input.ndim === 4 ? `[N, ${this.numFeatures}, H, W]` : `[N, ${this.numFeatures}] or [N, ${this.numFeatures}, L]`;
      throw new Error(`${name}: expected input of shape ${want} (numFeatures ${this.numFeatures}), got [${shape.join(', ')}]`);
    }
    let factor = this.momentum ?? 0;
    let tracked: number | null = null;
    const counting = this.training && this.trackRunningStats && !!this.num_batches_tracked;
    // The cumulative average (momentum null) needs the count's value; a fixed momentum only
    // increments it, in place, on its device (an op: no read, and a compiled training step
    // counts every call).
    if (counting && this.momentum === null) {
      if (this.num_batches_tracked!.device !== 'cpu') {
        throw new Error(
          `${name}: momentum null (a cumulative average) reads num_batches_tracked every step, which a GPU cannot answer synchronously; ` +
            'give a momentum, or keep the module on the cpu',
        );
      }
      tracked = this.num_batches_tracked!.item() + 1;
      factor = 1 / tracked;
    }
    const useBatchStats = this.training || (this.running_mean === null && this.running_var === null);
    const useRunning = !this.training || this.trackRunningStats;
    const out = F.batchNorm(input, useRunning ? this.running_mean : null, useRunning ? this.running_var : null, this.weight, this.bias, {
      training: useBatchStats,
      momentum: factor,
      eps: this.eps,
    });
    // Counted only once the op succeeded: a failed forward leaves the module as it was.
    if (tracked !== null) writeInto('BatchNorm', this.num_batches_tracked!, [tracked]);
    else if (counting) callOp('addInPlace', [this.num_batches_tracked!.handle], { value: 1 });
    return out;
  }
}

/** Input [N, C] or [N, C, L]. */
export class BatchNorm1d extends BatchNormNd {
  constructor(numFeatures: number, options?: BatchNormModuleOptions) {
    super('BatchNorm1d', numFeatures, options);
  }

  protected checkInputDim(input: Tensor): void {
    if (input.ndim !== 2 && input.ndim !== 3) throw new Error(`BatchNorm1d: expected 2D or 3D input (got ${input.ndim}D input)`);
  }
}

/** Input [N, C, H, W]. */
export class BatchNorm2d extends BatchNormNd {
  constructor(numFeatures: number, options?: BatchNormModuleOptions) {
    super('BatchNorm2d', numFeatures, options);
  }

  protected checkInputDim(input: Tensor): void {
    if (input.ndim !== 4) throw new Error(`BatchNorm2d: expected 4D input (got ${input.ndim}D input)`);
  }
}

export class BatchNorm3d extends BatchNormNd {
  constructor(numFeatures: number, options?: BatchNormModuleOptions) {
    super('BatchNorm3d', numFeatures, options);
  }

  protected checkInputDim(input: Tensor): void {
    if (input.ndim !== 5) throw new Error(`BatchNorm3d: expected 5D input (got ${input.ndim}D input)`);
  }
}

abstract class InstanceNormNd extends NormBase {
  declare spatialDims: number;

  constructor(name: string, spatialDims: number, numFeatures: number, options: unknown) {
    super(name, numFeatures, options, { affine: false, trackRunningStats: false });
    this.spatialDims = spatialDims;
  }

  forward(input: Tensor): Tensor {
    const name = this.constructor.name;
    if (!(input instanceof Tensor)) throw new Error(`${name}: expected a Tensor, got ${describe(input)}`);
    const unbatched = this.spatialDims + 1;
    if (input.ndim !== unbatched && input.ndim !== unbatched + 1) {
      throw new Error(`${name}: expected ${unbatched}D (unbatched) or ${unbatched + 1}D (batched) input, got ${input.ndim}D input`);
    }
    const c = input.shape[input.ndim - unbatched]!;
    if (c !== this.numFeatures && this.affine) {
      throw new Error(`${name}: expected input's size at dim ${input.ndim - unbatched} to match numFeatures (${this.numFeatures}), but got: ${c}.`);
    }
    const run = (x: Tensor) =>
      F.instanceNorm(x, this.running_mean, this.running_var, this.weight, this.bias, {
        useInputStats: this.training || !this.trackRunningStats,
        momentum: this.momentum ?? 0.1,
        eps: this.eps,
      });
    if (input.ndim === unbatched) {
      const x = input.unsqueeze(0);
      try {
        const y = run(x);
        try {
          return y.squeeze(0);
        } finally {
          y.dispose();
        }
      } finally {
        x.dispose();
      }
    }
    return run(input);
  }
}

/** Input [N, C, L] or [C, L]; no affine parameters nor running stats by default. */
export class InstanceNorm1d extends InstanceNormNd {
  constructor(numFeatures: number, options?: BatchNormModuleOptions) {
    super('InstanceNorm1d', 1, numFeatures, options);
  }
}

/** Input [N, C, H, W] or [C, H, W]; no affine parameters nor running stats by default. */
export class InstanceNorm2d extends InstanceNormNd {
  constructor(numFeatures: number, options?: BatchNormModuleOptions) {
    super('InstanceNorm2d', 2, numFeatures, options);
  }
}

export interface LayerNormOptions {
  eps?: number;
  elementwiseAffine?: boolean;
  /** With elementwiseAffine: also a bias (PyTorch 2.1's option). */
  bias?: boolean;
}

/** Normalizes over the last dims given by normalizedShape. */
export class LayerNorm extends Module {
  declare normalizedShape: number[];
  declare eps: number;
  declare elementwiseAffine: boolean;
  declare weight: Parameter | null;
  declare bias: Parameter | null;

  constructor(normalizedShape: number | readonly number[], options?: LayerNormOptions) {
    super();
    const o = checkOptions<LayerNormOptions>('LayerNorm', options, { eps: 'number', elementwiseAffine: 'boolean', bias: 'boolean' });
    const shape = isInteger(normalizedShape) ? [normalizedShape] : normalizedShape;
    if (!Array.isArray(shape) || !shape.every((s) => isInteger(s) && s >= 0)) {
      throw new Error(`LayerNorm: expected 'normalizedShape' to be an integer or an array of integers, got ${describe(normalizedShape)}`);
    }
    this.normalizedShape = shape.slice();
    this.eps = o.eps ?? 1e-5;
    this.elementwiseAffine = o.elementwiseAffine ?? true;
    if (this.elementwiseAffine) {
      this.weight = ones_(Parameter.empty(this.normalizedShape)) as Parameter;
      if (o.bias ?? true) this.bias = Parameter.empty(this.normalizedShape);
      else this.registerParameter('bias', null);
    } else {
      this.registerParameter('weight', null);
      this.registerParameter('bias', null);
    }
  }

  forward(input: Tensor): Tensor {
    return F.layerNorm(input, this.normalizedShape, this.weight, this.bias, { eps: this.eps });
  }

  extraRepr(): string {
    return `${pyRepr(this.normalizedShape)}, eps=${pyRepr(this.eps)}, elementwise_affine=${pyRepr(this.elementwiseAffine)}`;
  }
}

/** Statistics per sample over groups of channels; input [N, C, ...]. */
export class GroupNorm extends Module {
  declare numGroups: number;
  declare numChannels: number;
  declare eps: number;
  declare affine: boolean;
  declare weight: Parameter | null;
  declare bias: Parameter | null;

  constructor(numGroups: number, numChannels: number, options?: { eps?: number; affine?: boolean }) {
    super();
    const o = checkOptions<{ eps: number; affine: boolean }>('GroupNorm', options, { eps: 'number', affine: 'boolean' });
    this.numGroups = countArg('GroupNorm', 'numGroups', numGroups, 1);
    this.numChannels = countArg('GroupNorm', 'numChannels', numChannels, 1);
    if (this.numChannels % this.numGroups !== 0) throw new Error(`GroupNorm: numChannels (${this.numChannels}) must be divisible by numGroups (${this.numGroups})`);
    this.eps = o.eps ?? 1e-5;
    this.affine = o.affine ?? true;
    if (this.affine) {
      this.weight = ones_(Parameter.empty([this.numChannels])) as Parameter;
      this.bias = Parameter.empty([this.numChannels]);
    } else {
      this.registerParameter('weight', null);
      this.registerParameter('bias', null);
    }
  }

  forward(input: Tensor): Tensor {
    if (!(input instanceof Tensor)) throw new Error(`GroupNorm: expected a Tensor, got ${describe(input)}`);
    const shape = input.shape;
    if (shape.length < 2 || shape[1] !== this.numChannels) {
      throw new Error(`GroupNorm: expected input of shape [N, ${this.numChannels}, *] (numChannels ${this.numChannels}), got [${shape.join(', ')}]`);
    }
    return F.groupNorm(input, this.numGroups, this.weight, this.bias, { eps: this.eps });
  }

  extraRepr(): string {
    return `${this.numGroups}, ${this.numChannels}, eps=${pyRepr(this.eps)}, affine=${pyRepr(this.affine)}`;
  }
}

export class InstanceNorm3d extends InstanceNormNd {
  constructor(numFeatures: number, options?: BatchNormModuleOptions) {
    super('InstanceNorm3d', 3, numFeatures, options);
  }
}
