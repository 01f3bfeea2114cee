// torch.nn.functional's losses that are one callOp each, or a short composition (sg.F assembles
// them in functional.ts); the rest are in loss_functions.ts, loss_margin.ts, ctc_loss.ts.
import type { Attrs } from '../runtime/embind.js';
import { run, tensorArg, type TensorLike } from '../tensor/call.js';
import { checkOptions, type Spec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { Reduction, ClassIndices, CrossEntropyOptions, NllLossOptions, ReductionOptions, optionalTensorSpec, probabilitySpec, REDUCTIONS, withIndices, inputArg } from './functional_args.js';

// ---- losses ----

export const reductionSpec: Spec = { reduction: REDUCTIONS };

export function simpleLoss(name: string, input: TensorLike, target: TensorLike, options: unknown, extra: Spec = {}): Tensor {
  const o = checkOptions<Record<string, unknown>>(name, options, { ...reductionSpec, ...extra });
  const attrs: Attrs = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) attrs[k] = v as number | string | boolean;
  return run(name, name, [['input', input], ['target', target]], attrs);
}

/**
 * input [C], [N, C] or [N, C, d...] logits; target int32 class indices (or an integer array)
 * or float32 class probabilities of input's shape.
 */
export function crossEntropy(input: Tensor, target: ClassIndices, options?: CrossEntropyOptions): Tensor {
  const o = checkOptions<CrossEntropyOptions>('crossEntropy', options, {
    ...reductionSpec,
    weight: optionalTensorSpec,
    ignoreIndex: 'integer',
    labelSmoothing: probabilitySpec,
  });
  const x = inputArg('crossEntropy', input);
  return withIndices('crossEntropy', 'target', target, (t) =>
    run('crossEntropy', 'crossEntropy', [['input', x], ['target', t], ['weight', o.weight ?? null]], {
      reduction: o.reduction,
      ignoreIndex: o.ignoreIndex,
      labelSmoothing: o.labelSmoothing,
    }), x.device);
}

/** input: log-probabilities [N, C] (or [C], [N, C, d...]); target int32 class indices. */
export function nllLoss(input: Tensor, target: ClassIndices, options?: NllLossOptions): Tensor {
  const o = checkOptions<NllLossOptions>('nllLoss', options, { ...reductionSpec, weight: optionalTensorSpec, ignoreIndex: 'integer' });
  const x = inputArg('nllLoss', input);
  return withIndices('nllLoss', 'target', target, (t) =>
    run('nllLoss', 'nllLoss', [['input', x], ['target', t], ['weight', o.weight ?? null]], { reduction: o.reduction, ignoreIndex: o.ignoreIndex }), x.device);
}

export const mseLoss = (input: TensorLike, target: TensorLike, options?: ReductionOptions): Tensor => simpleLoss('mseLoss', input, target, options);
export const l1Loss = (input: TensorLike, target: TensorLike, options?: ReductionOptions): Tensor => simpleLoss('l1Loss', input, target, options);
export const smoothL1Loss = (input: TensorLike, target: TensorLike, options?: ReductionOptions & { beta?: number }): Tensor =>
  simpleLoss('smoothL1Loss', input, target, options, { beta: 'number' });
export const huberLoss = (input: TensorLike, target: TensorLike, options?: ReductionOptions & { delta?: number }): Tensor =>
  simpleLoss('huberLoss', input, target, options, { delta: 'number' });

/** input: probabilities in [0, 1]; weight rescales each element (broadcast). */
export function binaryCrossEntropy(input: Tensor, target: TensorLike, options?: ReductionOptions & { weight?: Tensor | null }): Tensor {
  const o = checkOptions<{ weight: Tensor | null; reduction: Reduction }>('binaryCrossEntropy', options, { ...reductionSpec, weight: optionalTensorSpec });
  return run('binaryCrossEntropy', 'binaryCrossEntropy', [['input', inputArg('binaryCrossEntropy', input)], ['target', target], ['weight', o.weight ?? null]], {
    reduction: o.reduction,
  });
}

/** input: logits; posWeight weighs the positive term per class (broadcast over the last dim). */
export function binaryCrossEntropyWithLogits(
  input: Tensor,
  target: TensorLike,
  options?: ReductionOptions & { weight?: Tensor | null; posWeight?: Tensor | null },
): Tensor {
  const fn = 'binaryCrossEntropyWithLogits';
  const o = checkOptions<{ weight: Tensor | null; posWeight: Tensor | null; reduction: Reduction }>(fn, options, {
    ...reductionSpec,
    weight: optionalTensorSpec,
    posWeight: optionalTensorSpec,
  });
  return run(
    fn,
    fn,
    [
      ['input', inputArg(fn, input)],
      ['target', target],
      ['weight', o.weight ?? null],
      ['posWeight', o.posWeight ?? null],
    ],
    { reduction: o.reduction },
  );
}

/** input: log-probabilities; target: probabilities (log-probabilities with logTarget). */
export function klDiv(input: Tensor, target: TensorLike, options?: { reduction?: Reduction | 'batchmean'; logTarget?: boolean }): Tensor {
  return simpleLoss('klDiv', inputArg('klDiv', input), target, options, { reduction: [...REDUCTIONS, 'batchmean'], logTarget: 'boolean' });
}

/** y = 1 pulls x1 and x2 together (1 − cos), y = −1 pushes them apart (max(0, cos − margin)). */
export function cosineEmbeddingLoss(input1: Tensor, input2: Tensor, target: Tensor | number[], options?: ReductionOptions & { margin?: number }): Tensor {
  const fn = 'cosineEmbeddingLoss';
  const o = checkOptions<{ margin: number; reduction: Reduction }>(fn, options, { ...reductionSpec, margin: 'number' });
  return withIndices(fn, 'target', target, (y) =>
    run(fn, fn, [['input1', tensorArg(fn, 'input1', input1)], ['input2', tensorArg(fn, 'input2', input2)], ['target', y]], {
      margin: o.margin,
      reduction: o.reduction,
    }), input1 instanceof Tensor ? input1.device : undefined);
}

