// F.ctcLoss and nn.CTCLoss (Connectionist Temporal Classification, torch.nn.functional.ctc_loss):
// the negative log-likelihood of the target label sequences summed over every alignment to the
// input frames, for speech and handwriting recognition. The forward recursion of Graves et al.
// (2006) in log space, as PyTorch's CPU kernel: over the extended labels blank, y1, blank, y2, …,
// blank, α_t(s) = logaddexp(α_{t−1}(s), α_{t−1}(s−1), α_{t−1}(s−2) where y(s) ≠ y(s−2)) +
// log p_t(l′(s)), one step of batched ops per frame; autograd through the recursion gives the
// gradient (PyTorch computes the same from α and β). The lengths are read on the CPU (numbers,
// arrays, or int32 tensors there).
import { noGrad } from '../autograd/backward.js';
import { arange, tensor } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { indexingOps } from '../tensor/indexing.js';
import { pointwiseOps } from '../tensor/pointwise.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor, type NumericData } from '../tensor/tensor.js';
import { Module } from './module.js';

export type CtcReduction = 'mean' | 'sum' | 'none';
export interface CtcLossOptions {
  /** The blank label (default 0). */
  blank?: number;
  /** 'mean' (default: each loss over its target length, then the batch mean), 'sum' or 'none'. */
  reduction?: CtcReduction;
  /** Infinite losses (no possible alignment) and their gradients become 0 (default false). */
  zeroInfinity?: boolean;
}

const where = functionOps.where;
const spec = { blank: 'integer', reduction: ['mean', 'sum', 'none'], zeroInfinity: 'boolean' } as const;

/** Lengths given as a number list or an int32 tensor on the CPU. */
function lengthsOf(fn: string, name: string, v: unknown, count: number): number[] {
  let list: unknown = v;
  if (v instanceof Tensor) {
    if (v.dtype !== 'int32' || v.device !== 'cpu') throw new Error(`${fn}: expected '${name}' as numbers or an int32 tensor on the CPU (they are read synchronously), got a ${v.dtype} tensor on '${v.device}'`);
    list = Array.from(v.dataSync() as NumericData);
  }
  if (typeof list === 'number') list = [list];
  if (!Array.isArray(list) || list.length !== count || !list.every((n) => isInteger(n) && n >= 0)) {
    throw new Error(`${fn}: expected '${name}' to be ${count} non-negative integers, got ${describe(v)}`);
  }
  return list as number[];
}

/**
 * log Σ exp(terms), elementwise, with a gradient free of NaN where every term is −∞ (a state no
 * alignment reaches): the shift m is a constant, and an empty sum's log is chosen, not computed.
 * (logaddexp's own gradient is 0/0 there, and 0 · NaN would reach every earlier frame.)
 */
function logSumExp(terms: Tensor[]): Tensor {
  const m = noGrad(() => {
    const top = terms.reduce((a, b) => ops.maximum(a, b));
    return where(pointwiseOps.isinf(top), 0, top);
  });
  const sum = terms.map((x) => ops.exp(ops.sub(x, m))).reduce((a, b) => ops.add(a, b));
  const empty = ops.eq(sum, 0);
  return ops.add(m, where(empty, -Infinity, ops.log(where(empty, 1, sum))));
}

export function ctcLoss(logProbs: Tensor, targets: Tensor, inputLengths: unknown, targetLengths: unknown, options?: CtcLossOptions): Tensor {
  const fn = 'ctcLoss';
  const o = checkOptions<CtcLossOptions>(fn, options, spec);
  if (!(logProbs instanceof Tensor) || logProbs.dtype !== 'float32' || (logProbs.ndim !== 3 && logProbs.ndim !== 2)) {
    throw new Error(`${fn}: expected logProbs to be a float32 Tensor [T, N, C] (or [T, C]), got ${describe(logProbs)}`);
  }
  if (!(targets instanceof Tensor) || targets.dtype !== 'int32') throw new Error(`${fn}: expected targets to be an int32 Tensor, got ${describe(targets)}`);
  const batched = logProbs.ndim === 3;
  const [t, n, c] = batched ? logProbs.shape as [number, number, number] : [logProbs.shape[0]!, 1, logProbs.shape[1]!];
  const blank = o.blank ?? 0;
  if (blank < 0 || blank >= c) throw new Error(`${fn}: expected blank in [0, ${c}) (the classes), got ${blank}`);
  const inLens = lengthsOf(fn, 'inputLengths', inputLengths, n);
  const tgLens = lengthsOf(fn, 'targetLengths', targetLengths, n);
  inLens.forEach((l, i) => {
    if (l > t || l < 1) throw new Error(`${fn}: expected inputLengths[${i}] in [1, ${t}] (the frames), got ${l}`);
  });
  // Targets as rows [N, S]: given padded ([N, S], or [S] for one sample) or concatenated (1-D, Σ lengths).
  const concatenated = batched && targets.ndim === 1;
  const s = Math.max(1, ...tgLens);
  if (concatenated && targets.device !== 'cpu') {
    throw new Error(`${fn}: concatenated (1-D) targets are split on the CPU; on '${targets.device}' give them padded, as [N, S]`);
  }
  if (concatenated && targets.numel !== tgLens.reduce((a, b) => a + b, 0)) {
    throw new Error(`${fn}: expected concatenated targets of length ${tgLens.reduce((a, b) => a + b, 0)} (the sum of targetLengths), got ${targets.numel}`);
  }
  if (!concatenated) {
    const width = targets.shape.at(-1)!;
    if ((batched ? targets.ndim !== 2 || targets.shape[0] !== n : targets.ndim !== 1) || tgLens.some((l) => l > width)) {
      throw new Error(`${fn}: expected targets [N, S] (or [S] for one sample) holding every target length, got shape [${targets.shape.join(', ')}] for targetLengths ${describe(tgLens)}`);
    }
  }
  return tidy(() => {
    let rows: Tensor;
    if (concatenated) {
      const flat = Array.from(targets.dataSync() as NumericData);
      const padded = new Int32Array(n * s).fill(blank);
      let at = 0;
      tgLens.forEach((l, i) => flat.slice(at, (at += l)).forEach((v, k) => (padded[i * s + k] = v)));
      rows = tensor(padded, { shape: [n, s], device: logProbs.device });
    } else {
      const r = batched ? targets : ops.unsqueeze(targets, 0);
      rows = r.shape[1]! >= s ? ops.narrow(r, 1, 0, s) : functionOps.pad(r, [0, s - r.shape[1]!], { value: blank });
    }
    const lp = batched ? logProbs : ops.unsqueeze(logProbs, 1);                              // [T, N, C]
    const width = 2 * s + 1;
    // The extended labels l′ [N, 2S + 1]: blank at even positions, the targets at odd ones.
    const pos = arange(width, { device: lp.device });
    const odd = ops.eq(pointwiseOps.remainder(pos, 2), 1);
    const label = ops.gather(rows, 1, ops.expand(ops.unsqueeze(ops.clamp(ops.div(ops.sub(pos, 1), 2, { roundingMode: 'floor' }), 0, s - 1).int(), 0), [n, width]));
    const ext = where(odd, label, blank).int();
    const lens = tensor(Int32Array.from(tgLens), { shape: [n, 1], device: lp.device });
    const valid = ops.le(ops.unsqueeze(pos, 0), ops.mul(lens, 2));                           // s ≤ 2·L
    const lpExt = where(valid, ops.gather(lp, 2, ops.expand(ops.unsqueeze(ext, 0), [t, n, width])), -Infinity);
    // A label may be reached from two back (skipping the blank between) unless it repeats.
    const twoBack = ops.narrow(functionOps.pad(ext, [2, 0], { value: blank }), 1, 0, width);
    const skip = pointwiseOps.logicalAnd(odd, ops.ne(ext, twoBack));
    // α moved k positions right along s, −∞ coming in (padded with 0, then replaced: pad takes finite values).
    const shift = (a: Tensor, k: number) => where(ops.lt(pos, k), -Infinity, ops.narrow(functionOps.pad(a, [k, 0]), 1, 0, width));
    let alpha = where(ops.le(ops.unsqueeze(pos, 0), 1), indexingOps.select(lpExt, 0, 0), -Infinity);
    const alphas = [alpha];
    for (let step = 1; step < t; step++) {
      const reach = logSumExp([alpha, shift(alpha, 1), where(skip, shift(alpha, 2), -Infinity)]);
      alpha = ops.add(reach, indexingOps.select(lpExt, 0, step));
      alphas.push(alpha);
    }
    // Each sample's α at its last frame, ending on the last label or the blank after it.
    const last = ops.gather(functionOps.stack(alphas, 0), 0, ops.expand(tensor(Int32Array.from(inLens.map((l) => l - 1)), { shape: [1, n, 1], device: lp.device }), [1, n, width]));
    const end = ops.squeeze(last, 0);                                                          // [N, 2S + 1]
    const atBlank = ops.squeeze(ops.gather(end, 1, ops.mul(lens, 2)), 1);
    const atLabel = ops.squeeze(ops.gather(end, 1, ops.clamp(ops.sub(ops.mul(lens, 2), 1), 0, null).int()), 1);
    const hasLabel = ops.gt(ops.squeeze(lens, 1), 0);
    let loss = ops.neg(logSumExp([atBlank, where(hasLabel, atLabel, -Infinity)]));  // [N]
    if (o.zeroInfinity) loss = where(pointwiseOps.isinf(loss), 0, loss);
    const reduction = o.reduction ?? 'mean';
    if (reduction === 'none') return batched ? loss : ops.reshape(loss, []);
    if (reduction === 'sum') return ops.sum(loss);
    return ops.mean(ops.div(loss, ops.clamp(ops.squeeze(lens, 1).float(), 1, null)));
  });
}

export class CTCLoss extends Module {
  declare options: CtcLossOptions;

  constructor(options?: CtcLossOptions) {
    super();
    this.options = { ...checkOptions<CtcLossOptions>('CTCLoss', options, spec) };
  }

  forward(logProbs: Tensor, targets: Tensor, inputLengths: unknown, targetLengths: unknown): Tensor {
    return ctcLoss(logProbs, targets, inputLengths, targetLengths, this.options);
  }
}
