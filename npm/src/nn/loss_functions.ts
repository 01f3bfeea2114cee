// Losses written as compositions of differentiable ops, each following PyTorch 1.13's
// definition operation by operation (ATen's Loss.cpp and torch/nn/functional.py;
// sigmoidFocalLoss is torchvision.ops.sigmoid_focal_loss), so autograd gives their gradients:
// tripletMarginLoss, marginRankingLoss, hingeEmbeddingLoss, multilabelSoftMarginLoss,
// poissonNllLoss, gaussianNllLoss, sigmoidFocalLoss. Exposed in sg.F, with module classes in
// loss_modules.ts.
import { noGrad } from '../autograd/backward.js';
import { run } from '../tensor/call.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { checkOptions, describe, type Spec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { isTracing } from '../runtime/trace_flag.js';

export type Reduction = 'mean' | 'sum' | 'none';
const reductionSpec: Spec = { reduction: ['mean', 'sum', 'none'] };

/** PyTorch's apply_loss_reduction. */
export function reduce(loss: Tensor, reduction: Reduction | undefined): Tensor {
  if (reduction === 'sum') return loss.sum();
  if (reduction === 'none') return loss;
  return loss.mean();
}

/** A float32 tensor argument (numbers are accepted where PyTorch takes a scalar target). */
function floatArg(fn: string, name: string, v: unknown): Tensor {
  if (!(v instanceof Tensor) || v.isDisposed) throw new Error(`${fn}: expected '${name}' to be a Tensor, got ${describe(v)}`);
  if (v.dtype !== 'float32') throw new Error(`${fn}: expected '${name}' to be float32, got ${v.dtype}`);
  return v;
}

/** NumPy broadcasting of the named shapes, or an error naming them. */
export function broadcastShapes(fn: string, named: [string, Tensor][]): number[] {
  const n = Math.max(...named.map(([, t]) => t.ndim));
  const out = new Array<number>(n).fill(1);
  for (const [, t] of named) {
    t.shape.forEach((s, i) => {
      const k = n - t.ndim + i;
      if (out[k] === 1) out[k] = s;
      else if (s !== 1 && s !== out[k]) {
        const list = named.map(([name, x]) => `'${name}' [${x.shape.join(', ')}]`).join(', ');
        throw new Error(`${fn}: the shapes of ${list} are not broadcastable`);
      }
    });
  }
  return out;
}

/** The same shape for every named tensor, or an error listing them. */
function sameShapes(fn: string, named: [string, Tensor][]): void {
  const first = named[0]![1].shape.join(',');
  if (named.some(([, t]) => t.shape.join(',') !== first)) {
    throw new Error(`${fn}: expected ${named.map(([n]) => `'${n}'`).join(', ')} of the same shape, got ${named.map(([n, t]) => `${n} [${t.shape.join(', ')}]`).join(', ')}`);
  }
}

/** ‖x1 − x2 + eps‖_p over the last dim (torch.pairwise_distance). */
function pairwiseDistance(x1: Tensor, x2: Tensor, p: number, eps: number): Tensor {
  return x1.sub(x2).add(eps).norm(p, -1);
}

export interface TripletMarginLossOptions {
  margin?: number;
  /** The norm of the distances (default 2). */
  p?: number;
  /** Added to the differences, keeping the norm differentiable at 0 (default 1e-6). */
  eps?: number;
  /** Use the smaller of d(a, n) and d(p, n) as the negative distance (default false). */
  swap?: boolean;
  reduction?: Reduction;
}

/** max(d(a, p) − d(a, n) + margin, 0) for anchor, positive, negative [N, D] (or [D]). */
export function tripletMarginLoss(anchor: Tensor, positive: Tensor, negative: Tensor, options?: TripletMarginLossOptions): Tensor {
  const fn = 'tripletMarginLoss';
  const o = checkOptions<TripletMarginLossOptions>(fn, options, { ...reductionSpec, margin: 'number', p: 'number', eps: 'number', swap: 'boolean' });
  const named: [string, Tensor][] = [
    ['anchor', floatArg(fn, 'anchor', anchor)],
    ['positive', floatArg(fn, 'positive', positive)],
    ['negative', floatArg(fn, 'negative', negative)],
  ];
  if (!named.every(([, t]) => t.ndim === named[0]![1].ndim) || (anchor.ndim !== 1 && anchor.ndim !== 2)) {
    throw new Error(`${fn}: expected anchor, positive and negative to be all 1-D or all 2-D, got ${named.map(([n, t]) => `${n} [${t.shape.join(', ')}]`).join(', ')}`);
  }
  broadcastShapes(fn, named);
  const p = o.p ?? 2;
  if (!(p > 0)) throw new Error(`${fn}: expected 'p' to be a positive number, got ${p}`);
  const eps = o.eps ?? 1e-6;
  return tidy(() => {
    const dPos = pairwiseDistance(anchor, positive, p, eps);
    let dNeg = pairwiseDistance(anchor, negative, p, eps);
    if (o.swap) dNeg = ops.minimum(dNeg, pairwiseDistance(positive, negative, p, eps));
    return reduce(dPos.add(o.margin ?? 1).sub(dNeg).clamp(0, null), o.reduction);
  });
}

/** max(0, −y·(x1 − x2) + margin), y = 1 meaning x1 should rank higher, −1 lower. */
export function marginRankingLoss(input1: Tensor, input2: Tensor, target: Tensor, options?: { margin?: number; reduction?: Reduction }): Tensor {
  const fn = 'marginRankingLoss';
  const o = checkOptions<{ margin: number; reduction: Reduction }>(fn, options, { ...reductionSpec, margin: 'number' });
  const named: [string, Tensor][] = [
    ['input1', floatArg(fn, 'input1', input1)],
    ['input2', floatArg(fn, 'input2', input2)],
    ['target', floatArg(fn, 'target', target)],
  ];
  if (!named.every(([, t]) => t.ndim === input1.ndim)) {
    throw new Error(`${fn}: all input tensors should have the same number of dims, got ${named.map(([n, t]) => `${n} [${t.shape.join(', ')}]`).join(', ')}`);
  }
  broadcastShapes(fn, named);
  return tidy(() => reduce(target.neg().mul(input1.sub(input2)).add(o.margin ?? 0).clamp(0, null), o.reduction));
}

/** x where y = 1, max(0, margin − x) where y = −1 (the sum of both elsewhere, as PyTorch). */
export function hingeEmbeddingLoss(input: Tensor, target: Tensor, options?: { margin?: number; reduction?: Reduction }): Tensor {
  const fn = 'hingeEmbeddingLoss';
  const o = checkOptions<{ margin: number; reduction: Reduction }>(fn, options, { ...reductionSpec, margin: 'number' });
  broadcastShapes(fn, [
    ['input', floatArg(fn, 'input', input)],
    ['target', floatArg(fn, 'target', target)],
  ]);
  return tidy(() => {
    const marginClamp = ops.sub(o.margin ?? 1, input).clamp(0, null);
    const outputMargin = functionOps.where(target.ne(1), marginClamp, 0);
    const outputSelf = functionOps.where(target.ne(-1), input, 0);
    return reduce(outputMargin.add(outputSelf), o.reduction);
  });
}

/**
 * −(y·log σ(x) + (1 − y)·log σ(−x)), weighted per class, averaged over the classes (last dim):
 * one loss per sample, then the reduction. input and target [N, C] (or [C]).
 */
export function multilabelSoftMarginLoss(input: Tensor, target: Tensor, options?: { weight?: Tensor | null; reduction?: Reduction }): Tensor {
  const fn = 'multilabelSoftMarginLoss';
  const o = checkOptions<{ weight: Tensor | null; reduction: Reduction }>(fn, options, {
    ...reductionSpec,
    weight: { check: (v) => v === null || v instanceof Tensor, expected: 'a Tensor or null' },
  });
  const named: [string, Tensor][] = [
    ['input', floatArg(fn, 'input', input)],
    ['target', floatArg(fn, 'target', target)],
  ];
  sameShapes(fn, named);
  if (input.ndim < 1) throw new Error(`${fn}: expected an input with a class dim, got a 0-d tensor`);
  if (o.weight) named.push(['weight', floatArg(fn, 'weight', o.weight)]);
  broadcastShapes(fn, named);
  return tidy(() => {
    const logSigmoid = (x: Tensor) => ops.softplus(x.neg()).neg();
    let loss = target.mul(logSigmoid(input)).add(ops.sub(1, target).mul(logSigmoid(input.neg()))).neg();
    if (o.weight) loss = loss.mul(o.weight);
    const C = input.shape[input.ndim - 1]!;
    return reduce(loss.sum(input.ndim - 1).div(C), o.reduction);
  });
}

export interface PoissonNllLossOptions {
  /** input is log λ (default true): loss = exp(input) − target·input; else input − target·log(input + eps). */
  logInput?: boolean;
  /** Add Stirling's approximation of log(target!) where target > 1 (default false). */
  full?: boolean;
  eps?: number;
  reduction?: Reduction;
}

/** The negative log-likelihood of target under Poisson(λ) (λ = exp(input), or input). */
export function poissonNllLoss(input: Tensor, target: Tensor, options?: PoissonNllLossOptions): Tensor {
  const fn = 'poissonNllLoss';
  const o = checkOptions<PoissonNllLossOptions>(fn, options, { ...reductionSpec, logInput: 'boolean', full: 'boolean', eps: 'number' });
  broadcastShapes(fn, [
    ['input', floatArg(fn, 'input', input)],
    ['target', floatArg(fn, 'target', target)],
  ]);
  return tidy(() => {
    let loss = (o.logInput ?? true) ? input.exp().sub(target.mul(input)) : input.sub(target.mul(input.add(o.eps ?? 1e-8).log()));
    if (o.full) {
      const stirling = target.mul(target.log()).sub(target).add(target.mul(2 * Math.PI).log().mul(0.5));
      loss = loss.add(stirling.maskedFill(target.le(1), 0));
    }
    return reduce(loss, o.reduction);
  });
}

export interface GaussianNllLossOptions {
  /** Add the constant ½·log(2π) (default false). */
  full?: boolean;
  /** var is clamped to at least eps (without changing its gradient), default 1e-6. */
  eps?: number;
  reduction?: Reduction;
}

/**
 * ½·(log var + (input − target)² / var): the negative log-likelihood of target under
 * N(input, var). var has input's shape (heteroscedastic), or input's shape without its last
 * dim, or with a last dim of 1 (one variance per sample).
 */
export function gaussianNllLoss(input: Tensor, target: Tensor, variance: Tensor, options?: GaussianNllLossOptions): Tensor {
  const fn = 'gaussianNllLoss';
  const o = checkOptions<GaussianNllLossOptions>(fn, options, { ...reductionSpec, full: 'boolean', eps: 'number' });
  floatArg(fn, 'input', input);
  floatArg(fn, 'target', target);
  let v = floatArg(fn, 'var', variance);
  const inShape = input.shape.join(',');
  const lead = input.shape.slice(0, -1).join(',');
  // PyTorch's rule: input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1 (a 0-D input takes a var of [1]).
  const sameLead = v.shape.slice(0, -1).join(',') === lead && v.shape[v.ndim - 1] === 1;
  if (v.shape.join(',') !== inShape && v.shape.join(',') !== lead && !sameLead) {
    throw new Error(`${fn}: var is of incorrect size [${v.shape.join(', ')}] (expected input's shape [${input.shape.join(', ')}], or it without the last dim, or with a last dim of 1)`);
  }
  broadcastShapes(fn, [
    ['input', input],
    ['target', target],
  ]);
  // A check on values: a compiled graph cannot make it (it would read this call's values), so
  // inside sg.compile it is left out and a negative var gives NaN, as the formula does.
  if (!isTracing() && v.dataSync().some((x) => x < 0)) throw new Error(`${fn}: var has negative entry/entries`);
  const eps = o.eps ?? 1e-6;
  return tidy(() => {
    if (v.ndim === input.ndim - 1 && input.ndim > 0 && v.shape.join(',') === lead) v = v.unsqueeze(-1);
    // PyTorch clamps a clone under no_grad: the value is clamped, the gradient passes as is.
    const kept = v.sub(noGrad(() => v.detach()));
    const clamped = functionOps.where(v.lt(eps), kept.add(eps), v);
    let loss = clamped.log().add(input.sub(target).square().div(clamped)).mul(0.5);
    if (o.full) loss = loss.add(0.5 * Math.log(2 * Math.PI));
    return reduce(loss, o.reduction);
  });
}

export interface SigmoidFocalLossOptions {
  /** Weight of the positive class in (0, 1); negative: no weighting (default 0.25). */
  alpha?: number;
  /** Focusing exponent on (1 − p_t) (default 2). */
  gamma?: number;
  /** Default 'none', as torchvision's. */
  reduction?: Reduction;
}

/**
 * torchvision.ops.sigmoid_focal_loss (Lin et al., 2017): the binary cross-entropy of logits
 * `inputs` against `targets` in [0, 1], scaled by (1 − p_t)^gamma and α_t. Element-wise by
 * default (reduction 'none').
 */
export function sigmoidFocalLoss(inputs: Tensor, targets: Tensor, options?: SigmoidFocalLossOptions): Tensor {
  const fn = 'sigmoidFocalLoss';
  const o = checkOptions<SigmoidFocalLossOptions>(fn, options, { ...reductionSpec, alpha: 'number', gamma: 'number' });
  sameShapes(fn, [
    ['inputs', floatArg(fn, 'inputs', inputs)],
    ['targets', floatArg(fn, 'targets', targets)],
  ]);
  const alpha = o.alpha ?? 0.25;
  const gamma = o.gamma ?? 2;
  return tidy(() => {
    const p = inputs.sigmoid();
    const ce = run(fn, 'binaryCrossEntropyWithLogits', [['input', inputs], ['target', targets], ['weight', null], ['posWeight', null]], { reduction: 'none' });
    const pT = p.mul(targets).add(ops.sub(1, p).mul(ops.sub(1, targets)));
    // x^0 is 1 with gradient 0 (torch.pow's rule), also at x = 0
    let loss = gamma === 0 ? ce : ce.mul(ops.sub(1, pT).pow(gamma));
    if (alpha >= 0) loss = ops.mul(alpha, targets).add(ops.mul(1 - alpha, ops.sub(1, targets))).mul(loss);
    // torchvision's default is 'none' (reduce() alone would average, the losses' default).
    return reduce(loss, o.reduction ?? 'none');
  });
}
