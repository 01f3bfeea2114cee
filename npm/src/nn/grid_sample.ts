// F.affineGrid and F.gridSample (2-D): spatial transformers, warping by a flow field, and
// augmentation by resampling. Compositions of ops after ATen 1.13's GridSampler.h (the same
// unnormalization, padding modes and corner weights), so autograd gives the gradients of both
// the input and the grid (the grid's through the bilinear weights; nearest has none, as in
// PyTorch).
import { linspace, onesLike } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { indexingOps } from '../tensor/indexing.js';
import { pointwiseOps } from '../tensor/pointwise.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

const where = functionOps.where;
const shape = (t: Tensor) => `[${t.shape.join(', ')}]`;

/** −1..1 over n steps: at the pixels' centers (false) or their corners (true), as ATen's linspace_from_neg_one. */
function normalizedSteps(n: number, alignCorners: boolean, device: Tensor['device']): Tensor {
  if (n <= 1) return ops.mul(linspace(-1, 1, n, { device }), 0);
  const r = linspace(-1, 1, n, { device });
  return alignCorners ? r : ops.div(ops.mul(r, n - 1), n);
}

/**
 * The sampling grid [N, H, W, 2] (x, y in [−1, 1]) of the 2-D affine maps theta [N, 2, 3] for an
 * output of size [N, C, H, W].
 */
export function affineGrid(theta: Tensor, size: readonly number[], options?: { alignCorners?: boolean }): Tensor {
  const fn = 'affineGrid';
  const o = checkOptions<{ alignCorners: boolean }>(fn, options, { alignCorners: 'boolean' });
  if (!(theta instanceof Tensor) || theta.dtype !== 'float32') throw new Error(`${fn}: expected 'theta' to be a float32 Tensor, got ${describe(theta)}`);
  if (!Array.isArray(size) || size.length !== 4 || !size.every((v) => Number.isInteger(v) && v >= 1)) {
    // PyTorch: "Expected non-zero, positive output size": a 0 anywhere is refused.
    throw new Error(`${fn}: expected 'size' to be [N, C, H, W] (the 2-D case), got ${describe(size)}`);
  }
  const [n, , h, w] = size as [number, number, number, number];
  if (theta.ndim !== 3 || theta.shape[0] !== n || theta.shape[1] !== 2 || theta.shape[2] !== 3) {
    throw new Error(`${fn}: expected theta of shape [${n}, 2, 3] for size [${size.join(', ')}], got ${shape(theta)}`);
  }
  const align = o.alignCorners ?? false;
  return tidy(() => {
    // The base grid [H, W, 3] of (x, y, 1), then base · thetaᵀ per sample (ATen's bmm).
    const xs = ops.expand(ops.reshape(normalizedSteps(w, align, theta.device), [1, w, 1]), [h, w, 1]);
    const ys = ops.expand(ops.reshape(normalizedSteps(h, align, theta.device), [h, 1, 1]), [h, w, 1]);
    const base = functionOps.cat([xs, ys, onesLike(xs)], 2);
    const grid = ops.matmul(ops.expand(ops.reshape(base, [1, h * w, 3]), [n, h * w, 3]), ops.transpose(theta, 1, 2));
    return ops.reshape(grid, [n, h, w, 2]);
  });
}

export interface GridSampleOptions {
  /** 'bilinear' (default) or 'nearest'. */
  mode?: 'bilinear' | 'nearest';
  /** Outside the input: 'zeros' (default), 'border' (the edge value) or 'reflection'. */
  paddingMode?: 'zeros' | 'border' | 'reflection';
  /** −1 and 1 are the corner pixels' centers (true) or the image's edges (false, the default). */
  alignCorners?: boolean;
}

/** ATen's reflect_coordinates: x reflected into [twiceLow / 2, twiceHigh / 2]. */
function reflect(x: Tensor, twiceLow: number, twiceHigh: number): Tensor {
  if (twiceLow === twiceHigh) return ops.mul(x, 0);
  const min = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
  const d = ops.abs(ops.sub(x, min));
  const extra = pointwiseOps.fmod(d, span);
  const flips = pointwiseOps.floor(ops.div(d, span));
  const even = ops.eq(pointwiseOps.remainder(flips, 2), 0);
  return where(even, ops.add(extra, min), ops.add(ops.sub(span, extra), min));
}

/** A normalized coordinate → the input's pixel coordinate, with the padding mode applied (ATen's grid_sampler_compute_source_index). */
function sourceIndex(coord: Tensor, size: number, padding: string, align: boolean): Tensor {
  let x = align ? ops.mul(ops.div(ops.add(coord, 1), 2), size - 1) : ops.div(ops.sub(ops.mul(ops.add(coord, 1), size), 1), 2);
  if (padding === 'border') x = ops.clamp(x, 0, size - 1);
  else if (padding === 'reflection') {
    x = align ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    x = ops.clamp(x, 0, size - 1);
  }
  return x;
}

/**
 * Samples input [N, C, H, W] at grid [N, Ho, Wo, 2] (x then y, normalized to [−1, 1]):
 * [N, C, Ho, Wo].
 */
export function gridSample(input: Tensor, grid: Tensor, options?: GridSampleOptions): Tensor {
  const fn = 'gridSample';
  const o = checkOptions<GridSampleOptions>(fn, options, {
    mode: ['bilinear', 'nearest'],
    paddingMode: ['zeros', 'border', 'reflection'],
    alignCorners: 'boolean',
  });
  for (const [name, t] of [['input', input], ['grid', grid]] as const) {
    if (!(t instanceof Tensor) || t.dtype !== 'float32') throw new Error(`${fn}: expected '${name}' to be a float32 Tensor, got ${describe(t)}`);
  }
  if (input.ndim !== 4) throw new Error(`${fn}: expected a 4-D input [N, C, H, W] (the 2-D case), got ${shape(input)}`);
  if (grid.ndim !== 4 || grid.shape[3] !== 2 || grid.shape[0] !== input.shape[0]) {
    throw new Error(`${fn}: expected grid of shape [${input.shape[0]}, Ho, Wo, 2] for input ${shape(input)}, got ${shape(grid)}`);
  }
  const [n, c, h, w] = input.shape as [number, number, number, number];
  const [ho, wo] = [grid.shape[1]!, grid.shape[2]!];
  const mode = o.mode ?? 'bilinear', padding = o.paddingMode ?? 'zeros', align = o.alignCorners ?? false;
  return tidy(() => {
    const ix = sourceIndex(ops.reshape(indexingOps.select(grid, 3, 0), [n, 1, ho * wo]), w, padding, align);
    const iy = sourceIndex(ops.reshape(indexingOps.select(grid, 3, 1), [n, 1, ho * wo]), h, padding, align);
    const flat = ops.reshape(input, [n, c, h * w]);
    // The input at integer positions (px, py) [N, 1, L], 0 where outside (the padding for
    // 'zeros'; the other modes have clamped the coordinates inside).
    const at = (px: Tensor, py: Tensor) => {
      const inside = pointwiseOps.logicalAnd(pointwiseOps.logicalAnd(ops.ge(px, 0), ops.le(px, w - 1)), pointwiseOps.logicalAnd(ops.ge(py, 0), ops.le(py, h - 1)));
      const pos = ops.add(ops.mul(ops.clamp(py, 0, h - 1), w), ops.clamp(px, 0, w - 1)).int();
      const v = ops.gather(flat, 2, ops.expand(pos, [n, c, ho * wo]));
      return where(inside, v, 0);
    };
    let out: Tensor;
    if (mode === 'nearest') {
      // nearbyint: half to even, as ATen.
      out = at(pointwiseOps.round(ix), pointwiseOps.round(iy));
    } else {
      const x0 = pointwiseOps.floor(ix), y0 = pointwiseOps.floor(iy);
      const x1 = ops.add(x0, 1), y1 = ops.add(y0, 1);
      // ATen's weights: nw = (x1 − x)(y1 − y), ne = (x − x0)(y1 − y), sw = (x1 − x)(y − y0), se = (x − x0)(y − y0).
      const [wx0, wx1, wy0, wy1] = [ops.sub(x1, ix), ops.sub(ix, x0), ops.sub(y1, iy), ops.sub(iy, y0)];
      // Summed in ATen's order: nw, ne, sw, se.
      const terms = [at(x0, y0), at(x1, y0), at(x0, y1), at(x1, y1)].map((v, k) => ops.mul(v, ops.mul([wx0, wx1][k % 2]!, [wy0, wy1][k >> 1]!)));
      out = terms.reduce((acc, t) => ops.add(acc, t));
    }
    return ops.reshape(out, [n, c, ho, wo]);
  });
}
