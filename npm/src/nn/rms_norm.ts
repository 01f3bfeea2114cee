// torch.nn.RMSNorm and F.rms_norm (PyTorch 2.4): x / √(mean(x², over the normalized dims) + eps) · weight,
// composed of existing ops (so differentiable, on every device those ops run on). eps null or
// left out: torch.finfo(x.dtype).eps, as PyTorch.
import { finfo } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { ops } from '../tensor/ops.js';
import { Tensor } from '../tensor/tensor.js';
import { ones_ } from './init.js';
import { Module, Parameter } from './module.js';
import { pyRepr } from './repr.js';

export interface RMSNormOptions {
  /** Added to the mean square (null: torch.finfo(input.dtype).eps). */
  eps?: number | null;
  /** A learnable weight of shape normalizedShape, initialized to ones (default true). */
  elementwiseAffine?: boolean;
}

const epsSpec = { check: (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0), expected: 'a finite number >= 0 or null' };

function shapeArg(fn: string, normalizedShape: unknown): number[] {
  const shape = isInteger(normalizedShape) ? [normalizedShape] : normalizedShape;
  if (!Array.isArray(shape) || shape.length === 0 || !shape.every((s) => isInteger(s) && s >= 0)) {
    throw new Error(`${fn}: expected 'normalizedShape' to be an integer or a non-empty array of integers, got ${describe(normalizedShape)}`);
  }
  return shape.slice() as number[];
}

/** F.rmsNorm(input, normalizedShape, weight, { eps }): PyTorch 2.4's F.rms_norm. */
export function rmsNorm(input: Tensor, normalizedShape: number | readonly number[], weight?: Tensor | null, options?: { eps?: number | null }): Tensor {
  const fn = 'rmsNorm';
  const o = checkOptions<{ eps: number | null }>(fn, options, { eps: epsSpec });
  if (!(input instanceof Tensor)) throw new Error(`${fn}: expected 'input' to be a Tensor, got ${describe(input)}`);
  const shape = shapeArg(fn, normalizedShape);
  const tail = input.shape.slice(input.ndim - shape.length);
  if (shape.length > input.ndim || tail.join(',') !== shape.join(',')) {
    throw new Error(`${fn}: expected an input whose last dims are [${shape.join(', ')}], got shape [${input.shape.join(', ')}]`);
  }
  if (weight !== null && weight !== undefined) {
    if (!(weight instanceof Tensor)) throw new Error(`${fn}: expected 'weight' to be a Tensor or null, got ${describe(weight)}`);
    if (weight.shape.join(',') !== shape.join(',')) throw new Error(`${fn}: expected 'weight' of shape [${shape.join(', ')}], got [${weight.shape.join(', ')}]`);
  }
  const eps = o.eps ?? finfo(input.dtype).eps;
  const dims = shape.map((_, i) => input.ndim - shape.length + i);
  return tidy(() => {
    const ms = ops.mean(ops.mul(input, input), dims, true);
    const y = ops.mul(input, ops.rsqrt(ops.add(ms, eps)));
    return weight ? ops.mul(y, weight) : y;
  });
}

/** torch.nn.RMSNorm(normalizedShape, { eps, elementwiseAffine }): weight ones, no bias. */
export class RMSNorm extends Module {
  declare normalizedShape: number[];
  declare eps: number | null;
  declare elementwiseAffine: boolean;
  declare weight: Parameter | null;

  constructor(normalizedShape: number | readonly number[], options?: RMSNormOptions) {
    super();
    const o = checkOptions<RMSNormOptions>('RMSNorm', options, { eps: epsSpec, elementwiseAffine: 'boolean' });
    this.normalizedShape = shapeArg('RMSNorm', normalizedShape);
    this.eps = o.eps ?? null;
    this.elementwiseAffine = o.elementwiseAffine ?? true;
    if (this.elementwiseAffine) this.weight = ones_(Parameter.empty(this.normalizedShape)) as Parameter;
    else this.registerParameter('weight', null);
  }

  forward(input: Tensor): Tensor {
    return rmsNorm(input, this.normalizedShape, this.weight, { eps: this.eps });
  }

  extraRepr(): string {
    return `${pyRepr(this.normalizedShape)}, eps=${pyRepr(this.eps)}, elementwise_affine=${pyRepr(this.elementwiseAffine)}`;
  }
}
