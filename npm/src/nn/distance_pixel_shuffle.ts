// F functions of torch.nn.functional that compose existing ops: cosineSimilarity,
// pairwiseDistance (PyTorch 1.13's formulas and eps placement), pixelShuffle and
// pixelUnshuffle (sub-pixel convolution's rearrangement). Their modules are in
// nn/rearrange_modules.ts.
import { keywords, type KwArgs } from '../tensor/keywords.js';
import { tensorArg } from '../tensor/call.js';
import { tidy } from '../runtime/memory.js';
import { ops } from '../tensor/ops.js';
import { checkOptions, intArg } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';

export interface CosineSimilarityOptions {
  /** The dim the vectors lie along (default 1). */
  dim?: number;
  /** Each norm is clamped to at least eps (default 1e-8). */
  eps?: number;
}
export interface PairwiseDistanceOptions {
  /** The norm's order (default 2). */
  p?: number;
  /** Added to the difference before the norm (default 1e-6), as PyTorch. */
  eps?: number;
  keepdim?: boolean;
}

/** Σ x1·x2 / (max(‖x1‖, eps) · max(‖x2‖, eps)) along dim (x1 and x2 broadcast). */
/** The options checked, for the function and the CosineSimilarity module's constructor. */
export function cosineSimilarityOptions(fn: string, options: unknown): Partial<CosineSimilarityOptions> {
  return checkOptions<CosineSimilarityOptions>(fn, options, { dim: 'integer', eps: 'number' });
}

/** The options checked, for the function and the PairwiseDistance module's constructor. */
export function pairwiseDistanceOptions(fn: string, options: unknown): Partial<PairwiseDistanceOptions> {
  return checkOptions<PairwiseDistanceOptions>(fn, options, { p: 'numberOrInfinity', eps: 'number', keepdim: 'boolean' });
}

export function cosineSimilarity(x1: Tensor, x2: Tensor, options?: CosineSimilarityOptions): Tensor {
  const o = cosineSimilarityOptions('cosineSimilarity', options);
  const [a, b] = [tensorArg('cosineSimilarity', 'x1', x1), tensorArg('cosineSimilarity', 'x2', x2)];
  const dim = o.dim ?? 1, eps = o.eps ?? 1e-8;
  return tidy(() => {
    const norm = (t: Tensor) => ops.clamp(ops.norm(t, 2, dim), eps, null);
    return ops.div(ops.sum(ops.mul(a, b), dim), ops.mul(norm(a), norm(b)));
  });
}

/** ‖x1 − x2 + eps‖_p along the last dim. */
export function pairwiseDistance(x1: Tensor, x2: Tensor, options?: PairwiseDistanceOptions): Tensor {
  const o = pairwiseDistanceOptions('pairwiseDistance', options);
  const [a, b] = [tensorArg('pairwiseDistance', 'x1', x1), tensorArg('pairwiseDistance', 'x2', x2)];
  return tidy(() => ops.norm(ops.add(ops.sub(a, b), o.eps ?? 1e-6), o.p ?? 2, -1, o.keepdim ?? false));
}

/** [*, C·r², H, W] → [*, C, H·r, W·r]. */
export function pixelShuffle(input: Tensor, upscaleFactor: number): Tensor {
  const x = tensorArg('pixelShuffle', 'input', input);
  const r = intArg('pixelShuffle', 'upscaleFactor', upscaleFactor);
  if (r < 1) throw new Error(`pixelShuffle: expected 'upscaleFactor' >= 1, got ${r}`);
  if (x.ndim < 3 || x.shape.at(-3)! % (r * r) !== 0) {
    throw new Error(`pixelShuffle: expected input of shape [*, C·${r * r}, H, W] (channels divisible by ${r * r}), got [${x.shape.join(', ')}]`);
  }
  const lead = x.shape.slice(0, -3), [c, h, w] = x.shape.slice(-3) as [number, number, number];
  const n = lead.length;
  return tidy(() => {
    const split = ops.reshape(x, [...lead, c / (r * r), r, r, h, w]);
    const moved = ops.permute(split, ...lead.map((_, i) => i), n, n + 3, n + 1, n + 4, n + 2);
    return ops.reshape(moved, [...lead, c / (r * r), h * r, w * r]);
  });
}

/** [*, C, H·r, W·r] → [*, C·r², H, W] (pixelShuffle's inverse). */
export function pixelUnshuffle(input: Tensor, downscaleFactor: number): Tensor {
  const x = tensorArg('pixelUnshuffle', 'input', input);
  const r = intArg('pixelUnshuffle', 'downscaleFactor', downscaleFactor);
  if (r < 1) throw new Error(`pixelUnshuffle: expected 'downscaleFactor' >= 1, got ${r}`);
  if (x.ndim < 3 || x.shape.at(-2)! % r !== 0 || x.shape.at(-1)! % r !== 0) {
    throw new Error(`pixelUnshuffle: expected input of shape [*, C, H, W] with H and W divisible by ${r}, got [${x.shape.join(', ')}]`);
  }
  const lead = x.shape.slice(0, -3), [c, h, w] = x.shape.slice(-3) as [number, number, number];
  const n = lead.length;
  return tidy(() => {
    const split = ops.reshape(x, [...lead, c, h / r, r, w / r, r]);
    const moved = ops.permute(split, ...lead.map((_, i) => i), n, n + 2, n + 4, n + 1, n + 3);
    return ops.reshape(moved, [...lead, c * r * r, h / r, w / r]);
  });
}

export const functionalMore = {
  cosineSimilarity,
  pairwiseDistance,
  // PyTorch's keyword names too: F.pixelShuffle(x, { upscaleFactor: 2 }).
  pixelShuffle: keywords('pixelShuffle', ['upscaleFactor'], pixelShuffle) as (input: Tensor, ...args: KwArgs<[upscaleFactor: number], [], { upscaleFactor?: number }>) => Tensor,
  pixelUnshuffle: keywords('pixelUnshuffle', ['downscaleFactor'], pixelUnshuffle) as (input: Tensor, ...args: KwArgs<[downscaleFactor: number], [], { downscaleFactor?: number }>) => Tensor,
};
