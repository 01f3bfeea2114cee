// More losses of torch.nn.functional, written operation by operation after ATen 1.13's CPU
// kernels (Loss.cpp, LossMultiMargin.cpp, LossMultiLabelMargin.cpp) and
// torch/nn/functional.py, so autograd gives PyTorch's gradients: softMarginLoss,
// multiMarginLoss, multilabelMarginLoss, tripletMarginWithDistanceLoss. Modules in
// loss_modules.ts.
import { arange } from '../tensor/creation.js';
import { broadcastShapes, reduce as reduceLoss, type Reduction } from './loss_functions.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { pointwiseOps } from '../tensor/pointwise.js';
import { reductionOps } from '../tensor/reductions.js';
import { checkOptions, describe, type Spec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

const reductionSpec: Spec = { reduction: ['mean', 'sum', 'none'] };
const shape = (t: Tensor) => `[${t.shape.join(', ')}]`;

function floatTensor(fn: string, name: string, v: unknown): Tensor {
  if (!(v instanceof Tensor) || v.isDisposed) throw new Error(`${fn}: expected '${name}' to be a Tensor, got ${describe(v)}`);
  if (v.dtype !== 'float32') throw new Error(`${fn}: expected '${name}' to be float32, got ${v.dtype}`);
  return v;
}

function classTargets(fn: string, v: unknown, want: number[]): Tensor {
  if (!(v instanceof Tensor) || v.isDisposed) throw new Error(`${fn}: expected 'target' to be an int32 Tensor, got ${describe(v)}`);
  if (v.dtype !== 'int32') throw new Error(`${fn}: expected 'target' to be int32 (class indices), got ${v.dtype}`);
  if (v.shape.join(',') !== want.join(',')) throw new Error(`${fn}: expected 'target' of shape [${want.join(', ')}], got ${shape(v)}`);
  return v;
}

/** [C] or [N, C] input as [N, C] (N = 1 for one sample), with the way back for 'none'. */
function asBatch(fn: string, x: Tensor): { x2: Tensor; n: number; c: number; single: boolean } {
  if (x.ndim !== 1 && x.ndim !== 2) throw new Error(`${fn}: expected an input of shape [C] or [N, C], got ${shape(x)}`);
  const single = x.ndim === 1;
  const [n, c] = single ? [1, x.shape[0]!] : [x.shape[0]!, x.shape[1]!];
  return { x2: single ? ops.unsqueeze(x, 0) : x, n, c, single };
}

/** log(1 + exp(−y·x)) (mean by default), y = ±1. */
export function softMarginLoss(input: Tensor, target: Tensor, options?: { reduction?: Reduction }): Tensor {
  const fn = 'softMarginLoss';
  const o = checkOptions<{ reduction: Reduction }>(fn, options, reductionSpec);
  // Shapes broadcast, as PyTorch's (which only warns when they differ).
  const x = floatTensor(fn, 'input', input), y = floatTensor(fn, 'target', target);
  broadcastShapes(fn, [['input', x], ['target', y]]);
  return tidy(() => reduceLoss(ops.log1p(ops.exp(ops.mul(ops.neg(x), y))), o.reduction));
}

export interface MultiMarginLossOptions {
  /** 1 (default) or 2: the power of each hinge. */
  p?: number;
  /** default 1. */
  margin?: number;
  /** A weight per class [C], applied by the target class. */
  weight?: Tensor | null;
  reduction?: Reduction;
}

/** Σ_{j ≠ y} max(0, margin − x[y] + x[j])^p (· weight[y]) / C per sample: the multi-class hinge. */
export function multiMarginLoss(input: Tensor, target: Tensor, options?: MultiMarginLossOptions): Tensor {
  const fn = 'multiMarginLoss';
  const o = checkOptions<MultiMarginLossOptions>(fn, options, {
    p: 'integer',
    margin: 'number',
    weight: { check: (v) => v === null || v instanceof Tensor, expected: 'a Tensor or null' },
    ...reductionSpec,
  });
  const p = o.p ?? 1, margin = o.margin ?? 1;
  if (p !== 1 && p !== 2) throw new Error(`${fn}: only p == 1 and p == 2 are supported, got ${p}`);
  const { x2, n, c, single } = asBatch(fn, floatTensor(fn, 'input', input));
  const y = classTargets(fn, target, single ? [] : [n]);
  if (o.weight && (o.weight.ndim !== 1 || o.weight.shape[0] !== c)) throw new Error(`${fn}: expected 'weight' of shape [${c}], got ${shape(o.weight)}`);
  return tidy(() => {
    const y2 = ops.reshape(y, [n, 1]);
    // Over every class but the target's (ATen skips it), in ATen's order of operations.
    const z = ops.add(ops.sub(margin, ops.gather(x2, 1, y2)), x2);
    let h = ops.relu(z);
    if (p === 2) h = ops.mul(h, h);
    if (o.weight) h = ops.mul(h, ops.reshape(ops.indexSelect(o.weight, 0, ops.flatten(y2)), [n, 1]));
    h = functionOps.where(classMask(ops.flatten(y2), c), 0, h);
    const perSample = ops.div(ops.sum(h, 1), c);
    return reduceLoss(single ? ops.reshape(perSample, []) : perSample, o.reduction);
  });
}

/**
 * Per sample: the target classes are target's entries before its first −1; Σ over listed target
 * entries j (a repeated class counts again, as in ATen) and non-target classes k of
 * max(0, 1 − (x[j] − x[k])), / C.
 */
export function multilabelMarginLoss(input: Tensor, target: Tensor, options?: { reduction?: Reduction }): Tensor {
  const fn = 'multilabelMarginLoss';
  const o = checkOptions<{ reduction: Reduction }>(fn, options, reductionSpec);
  const { x2, n, c, single } = asBatch(fn, floatTensor(fn, 'input', input));
  const t = classTargets(fn, target, single ? [c] : [n, c]);
  return tidy(() => {
    const t2 = ops.reshape(t, [n, c]);
    // Entries before the first −1: the running product of "not −1".
    const listed = reductionOps.cumprod(ops.ne(t2, -1).int(), 1).float();                 // [n, c(j)]
    const cls = ops.clamp(t2, 0, c - 1);
    const isTarget = ops.gt(ops.sum(ops.mul(classMask(cls, c).float(), ops.unsqueeze(listed, 2)), 1), 0);  // [n, c(k)]
    const xj = ops.gather(x2, 1, cls);                                               // [n, c(j)]
    const z = ops.add(ops.sub(1, ops.unsqueeze(xj, 2)), ops.unsqueeze(x2, 1));      // [n, j, k]
    const keep = ops.mul(ops.unsqueeze(listed, 2), ops.unsqueeze(pointwiseOps.logicalNot(isTarget).float(), 1));
    const perSample = ops.div(ops.sum(ops.mul(ops.relu(z), keep), [1, 2]), c);
    return reduceLoss(single ? ops.reshape(perSample, []) : perSample, o.reduction);
  });
}

export interface TripletMarginWithDistanceLossOptions {
  /** (x, y) → distances per sample; default F.pairwiseDistance. */
  distanceFunction?: ((x: Tensor, y: Tensor) => Tensor) | null;
  /** default 1. */
  margin?: number;
  /** Use min(d(a, n), d(p, n)) as the negative distance. */
  swap?: boolean;
  reduction?: Reduction;
}

/** max(0, margin + d(anchor, positive) − d(anchor, negative)) with any distance function. */
export function tripletMarginWithDistanceLoss(anchor: Tensor, positive: Tensor, negative: Tensor, options?: TripletMarginWithDistanceLossOptions): Tensor {
  const fn = 'tripletMarginWithDistanceLoss';
  const o = checkOptions<TripletMarginWithDistanceLossOptions>(fn, options, {
    distanceFunction: { check: (v) => v === null || typeof v === 'function', expected: 'a function or null' },
    margin: 'number',
    swap: 'boolean',
    ...reductionSpec,
  });
  const margin = o.margin ?? 1;
  if (!(margin > 0)) throw new Error(`${fn}: expected 'margin' > 0, got ${margin}`);
  const [a, pos, neg] = [['anchor', anchor], ['positive', positive], ['negative', negative]].map(([name, v]) => floatTensor(fn, name as string, v));
  const dist = o.distanceFunction ?? ((x: Tensor, y: Tensor) => ops.norm(ops.add(ops.sub(x, y), 1e-6), 2, -1));
  return tidy(() => {
    const dPos = dist(a!, pos!);
    let dNeg = dist(a!, neg!);
    if (o.swap) dNeg = ops.minimum(dNeg, dist(pos!, neg!));
    for (const [name, d] of [['positive', dPos], ['negative', dNeg]] as const) {
      if (!(d instanceof Tensor)) throw new Error(`${fn}: expected distanceFunction to return a Tensor for the ${name} pair, got ${describe(d)}`);
    }
    // PyTorch's order: (margin + d(a, p)) − d(a, n), clamped at 0.
    return reduceLoss(ops.clamp(ops.sub(ops.add(dPos, margin), dNeg), 0, null), o.reduction);
  });
}

/** idx's classes as a bool mask over a last dim of c classes (idx.shape + [c]). */
function classMask(idx: Tensor, c: number): Tensor {
  return ops.eq(ops.unsqueeze(idx, -1), arange(c, { device: idx.device }));
}
