// 3-D pooling (torch.nn.functional.max_pool3d, avg_pool3d, adaptive_avg_pool3d,
// adaptive_max_pool3d and their modules) as compositions of the 2-D pools: every 3-D pooling
// window is a box, so it is pooled in two passes of the 2-D op. First over (H, W) with the input
// seen as [N, C·D, H, W]; then over depth with that result seen as [N, C, D, H_out·W_out] and a
// [kD, 1] window. (Performance: two 2-D pooling calls; nothing is gathered.)
// - max: the first pass keeps each depth slice's first maximum in (h, w) order, the second the
//   first slice whose maximum is the largest, so the gradient reaches the first maximum in
//   (d, h, w) scan order, as ATen's loop (`val > max || isnan(val)`: with NaN, the last NaN;
//   the 2-D op does the same). returnIndices: the 2-D passes' indices (nn/pool_indices.ts)
//   joined into d·H·W + h·W + w; there, as for the 2-D indices, a NaN window names its first NaN.
// - avg: ATen's divisor is a product of one factor per dim (the window clipped to the padded
//   input, or to the input when countIncludePad is false), so two average passes with the same
//   padding rule give it; divisorOverride rescales the average over the input cells by
//   (cells / divisorOverride).
// - adaptive: PyTorch's windows [⌊o·in/out⌋, ⌈(o+1)·in/out⌉) are also boxes, so two passes.
import { tensor } from '../tensor/creation.js';
import { adaptiveAvgPool2d, avgPool2d, maxPool2d } from './functional_layers.js';
import { adaptiveMaxPool2d } from './pool_indices.js';
import { tidy } from '../runtime/memory.js';
import { ops } from '../tensor/ops.js';
import { checkOptions, describe, isInteger, type OptionSpec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { tupleArg } from './args.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

type Triple = number | readonly number[];

export interface MaxPool3dOptions {
  /** default: kernelSize */
  stride?: Triple | null;
  padding?: Triple;
  dilation?: Triple;
  ceilMode?: boolean;
  /** Also return the flat positions d·H·W + h·W + w of the maxima in each [D, H, W] volume (int32), as [output, indices]. */
  returnIndices?: boolean;
}

export interface AvgPool3dOptions {
  /** default: kernelSize */
  stride?: Triple | null;
  padding?: Triple;
  ceilMode?: boolean;
  /** default true */
  countIncludePad?: boolean;
  /** Divide every window's sum by this instead (a non-zero integer), or null. */
  divisorOverride?: number | null;
}

export interface AdaptiveMaxPool3dOptions {
  returnIndices?: boolean;
}

/** A 3-D adaptive output size: a number, or [d, h, w] where null keeps that input size. */
export type AdaptiveSize3d = number | readonly (number | null)[];

const nullableSize: OptionSpec = {
  check: (v) => v === null || isInteger(v) || (Array.isArray(v) && v.every(isInteger)),
  expected: 'an integer, an array of integers or null',
};
const maxSpec = { stride: nullableSize, padding: 'integers', dilation: 'integers', ceilMode: 'boolean', returnIndices: 'boolean' } as const;
const avgSpec = {
  stride: nullableSize,
  padding: 'integers',
  ceilMode: 'boolean',
  countIncludePad: 'boolean',
  divisorOverride: { check: (v: unknown) => v === null || (isInteger(v) && v !== 0), expected: 'a non-zero integer or null' },
} as const;

const shapeOf = (t: Tensor) => `[${t.shape.join(', ')}]`;

/** [N, C, D, H, W] or [C, D, H, W] (non-empty, float32 or float64) as [N, C, D, H, W], and the way back. */
function asVolumes(fn: string, input: unknown): { x5: Tensor; back: (t: Tensor) => Tensor } {
  if (!(input instanceof Tensor)) throw new Error(`${fn}: expected 'input' to be a Tensor, got ${describe(input)}`);
  // PyTorch: an empty batch is allowed, an empty channel or spatial dim is not.
  if ((input.ndim !== 4 && input.ndim !== 5) || input.shape.slice(input.ndim - 4).some((n) => n === 0)) {
    throw new Error(`${fn}: non-empty 4D or 5D (batch mode) tensor expected for input, got size ${shapeOf(input)}`);
  }
  if (input.dtype !== 'float32' && input.dtype !== 'float64') throw new Error(`${fn}: expected a float32 or float64 input, got ${input.dtype}`);
  const batched = input.ndim === 5;
  return { x5: batched ? input : ops.unsqueeze(input, 0), back: (t) => (batched ? t : ops.squeeze(t, 0)) };
}

/** PyTorch's pooling_output_shape for one dim. */
function pooledSize(size: number, k: number, s: number, p: number, d: number, ceil: boolean): number {
  const span = size + 2 * p - d * (k - 1) - 1;
  let out = Math.floor((ceil ? span + s - 1 : span) / s) + 1;
  if (ceil && (out - 1) * s >= size + p) out--;  // the last window must start inside the input or the left padding
  return out;
}

interface Geometry {
  kernel: number[];
  stride: number[];
  padding: number[];
  dilation: number[];
  ceilMode: boolean;
  out: number[];
}

/** The checked window geometry of a 3-D pool over x5 [N, C, D, H, W]. */
function geometry(fn: string, x5: Tensor, kernelSize: unknown, o: { stride?: Triple | null; padding?: Triple; dilation?: Triple; ceilMode?: boolean }): Geometry {
  const kernel = tupleArg(fn, 'kernelSize', kernelSize, 3, 1);
  const stride = tupleArg(fn, 'stride', o.stride ?? kernel, 3, 1);
  const padding = tupleArg(fn, 'padding', o.padding ?? 0, 3, 0);
  const dilation = tupleArg(fn, 'dilation', o.dilation ?? 1, 3, 1);
  if (padding.some((p, i) => p > Math.floor(kernel[i]! / 2))) {
    throw new Error(`${fn}: pad should be at most half of kernel size, but got pad=[${padding.join(', ')}] and kernel_size=[${kernel.join(', ')}]`);
  }
  const ceilMode = o.ceilMode ?? false;
  const spatial = x5.shape.slice(2);
  const out = spatial.map((n, i) => pooledSize(n, kernel[i]!, stride[i]!, padding[i]!, dilation[i]!, ceilMode));
  if (out.some((n) => n < 1)) {
    const c = x5.shape[1]!;
    throw new Error(`${fn}: Given input size: (${[c, ...spatial].join('x')}). Calculated output size: (${[c, ...out].join('x')}). Output size is too small`);
  }
  return { kernel, stride, padding, dilation, ceilMode, out };
}

/** The two passes' views: x5 [N, C, D, H, W] as [N, C·D, H, W], and a first-pass result [N, C·D, Ho, Wo] as [N, C, D, Ho·Wo]. */
const planes = (x5: Tensor) => ops.reshape(x5, [x5.shape[0]!, x5.shape[1]! * x5.shape[2]!, x5.shape[3]!, x5.shape[4]!]);
const depthRows = (t: Tensor, x5: Tensor) => ops.reshape(t, [x5.shape[0]!, x5.shape[1]!, x5.shape[2]!, t.shape[2]! * t.shape[3]!]);

/**
 * The 3-D flat positions d·H·W + h·W + w from the first pass's plane positions `hw` [N, C·D, Ho, Wo]
 * (h·W + w) and the second pass's positions `dj` [N, C, Do, Ho·Wo] in the [D, Ho·Wo] plane (d·Ho·Wo + j).
 */
function joinIndices(x5: Tensor, hw: Tensor, dj: Tensor, out: number[]): Tensor {
  const [n, c, d, h, w] = x5.shape as [number, number, number, number, number];
  const cells = hw.shape[2]! * hw.shape[3]!;
  const at = ops.reshape(dj, [n, c, dj.shape[2]! * dj.shape[3]!]);
  const inPlane = ops.gather(ops.reshape(hw, [n, c, d * cells]), 2, at);
  const depthBase = new Int32Array(d * cells);
  for (let q = 0; q < depthBase.length; q++) depthBase[q] = Math.floor(q / cells) * h * w;
  const base = ops.expand(tensor(depthBase, { shape: [1, 1, d * cells], dtype: 'int32', device: x5.device }), [n, c, d * cells]);
  return ops.reshape(ops.add(ops.gather(base, 2, at), inPlane), [n, c, ...out]);
}

export function maxPool3d(input: Tensor, kernelSize: Triple, options: MaxPool3dOptions & { returnIndices: true }): [Tensor, Tensor];
export function maxPool3d(input: Tensor, kernelSize: Triple, options?: MaxPool3dOptions): Tensor;
/** Input [N, C, D, H, W] or [C, D, H, W]; the maximum of each window (see the file comment for ties and NaN). */
export function maxPool3d(input: Tensor, kernelSize: Triple, options?: MaxPool3dOptions): Tensor | [Tensor, Tensor] {
  const fn = 'maxPool3d';
  const o = checkOptions<MaxPool3dOptions>(fn, options, maxSpec);
  return tidy(() => {
    const { x5, back } = asVolumes(fn, input);
    const g = geometry(fn, x5, kernelSize, o);
    const returnIndices = o.returnIndices ?? false;
    const first = maxPool2d(planes(x5), g.kernel.slice(1), {
      stride: g.stride.slice(1), padding: g.padding.slice(1), dilation: g.dilation.slice(1), ceilMode: g.ceilMode, returnIndices,
    }) as Tensor | [Tensor, Tensor];
    const [v1, i1] = Array.isArray(first) ? first : [first, null];
    const second = maxPool2d(depthRows(v1, x5), [g.kernel[0]!, 1], {
      stride: [g.stride[0]!, 1], padding: [g.padding[0]!, 0], dilation: [g.dilation[0]!, 1], ceilMode: g.ceilMode, returnIndices,
    }) as Tensor | [Tensor, Tensor];
    const [v2, i2] = Array.isArray(second) ? second : [second, null];
    const values = back(ops.reshape(v2, [x5.shape[0]!, x5.shape[1]!, ...g.out]));
    return i1 && i2 ? [values, back(joinIndices(x5, i1, i2, g.out))] : values;
  });
}

/** Input [N, C, D, H, W] or [C, D, H, W]; each window's mean, with PyTorch's divisor at the edges. */
export function avgPool3d(input: Tensor, kernelSize: Triple, options?: AvgPool3dOptions): Tensor {
  const fn = 'avgPool3d';
  const o = checkOptions<AvgPool3dOptions>(fn, options, avgSpec);
  return tidy(() => {
    const { x5, back } = asVolumes(fn, input);
    const g = geometry(fn, x5, kernelSize, o);
    const override = o.divisorOverride ?? null;
    // With divisorOverride: the mean over the input cells, then × cells / divisorOverride.
    const countIncludePad = override === null ? o.countIncludePad ?? true : false;
    const v1 = avgPool2d(planes(x5), g.kernel.slice(1), { stride: g.stride.slice(1), padding: g.padding.slice(1), ceilMode: g.ceilMode, countIncludePad });
    const v2 = avgPool2d(depthRows(v1, x5), [g.kernel[0]!, 1], { stride: [g.stride[0]!, 1], padding: [g.padding[0]!, 0], ceilMode: g.ceilMode, countIncludePad });
    let out = ops.reshape(v2, [x5.shape[0]!, x5.shape[1]!, ...g.out]);
    if (override !== null) {
      // Input cells per window along each dim, their product per output cell.
      const along = (i: number) => Array.from({ length: g.out[i]! }, (_, q) => {
        const start = q * g.stride[i]! - g.padding[i]!;
        return Math.min(start + g.kernel[i]!, x5.shape[2 + i]!) - Math.max(start, 0);
      });
      const [cd, ch, cw] = [along(0), along(1), along(2)];
      const scale = new Float32Array(g.out[0]! * g.out[1]! * g.out[2]!);
      let q = 0;
      for (const a of cd) for (const b of ch) for (const c of cw) scale[q++] = (a * b * c) / override;
      out = ops.mul(out, tensor(scale, { shape: g.out, device: x5.device }));
    }
    return back(out);
  });
}

/** An adaptive output size: per spatial dim a positive count, or null to keep the input's. */
function adaptiveSize(fn: string, outputSize: unknown, spatial: number[]): number[] {
  const list = Array.isArray(outputSize) ? outputSize : [outputSize, outputSize, outputSize];
  if (list.length !== 3 || !list.every((v) => v === null || (isInteger(v) && v >= 1))) {
    throw new Error(`${fn}: expected 'outputSize' to be a positive integer or [d, h, w] (positive integers or null to keep a dim), got ${describe(outputSize)}`);
  }
  return list.map((v, i) => (v === null ? spatial[i]! : (v as number)));
}

/** Input [N, C, D, H, W] or [C, D, H, W] averaged down to outputSize. */
export function adaptiveAvgPool3d(input: Tensor, outputSize: AdaptiveSize3d): Tensor {
  const fn = 'adaptiveAvgPool3d';
  return tidy(() => {
    const { x5, back } = asVolumes(fn, input);
    const size = adaptiveSize(fn, outputSize, x5.shape.slice(2));
    const v1 = adaptiveAvgPool2d(planes(x5), [size[1]!, size[2]!]);
    const v2 = adaptiveAvgPool2d(depthRows(v1, x5), [size[0]!, size[1]! * size[2]!]);
    return back(ops.reshape(v2, [x5.shape[0]!, x5.shape[1]!, ...size]));
  });
}

export function adaptiveMaxPool3d(input: Tensor, outputSize: AdaptiveSize3d, options: AdaptiveMaxPool3dOptions & { returnIndices: true }): [Tensor, Tensor];
export function adaptiveMaxPool3d(input: Tensor, outputSize: AdaptiveSize3d, options?: AdaptiveMaxPool3dOptions): Tensor;
/** Input [N, C, D, H, W] or [C, D, H, W]; the maximum of each adaptive window (its first in (d, h, w) order). */
export function adaptiveMaxPool3d(input: Tensor, outputSize: AdaptiveSize3d, options?: AdaptiveMaxPool3dOptions): Tensor | [Tensor, Tensor] {
  const fn = 'adaptiveMaxPool3d';
  const o = checkOptions<AdaptiveMaxPool3dOptions>(fn, options, { returnIndices: 'boolean' });
  return tidy(() => {
    const { x5, back } = asVolumes(fn, input);
    const size = adaptiveSize(fn, outputSize, x5.shape.slice(2));
    const [v1, i1] = adaptiveMaxPool2d(planes(x5), [size[1]!, size[2]!], { returnIndices: true });
    const [v2, i2] = adaptiveMaxPool2d(depthRows(v1, x5), [size[0]!, size[1]! * size[2]!], { returnIndices: true });
    const values = back(ops.reshape(v2, [x5.shape[0]!, x5.shape[1]!, ...size]));
    return o.returnIndices ? [values, back(joinIndices(x5, i1, i2, size))] : values;
  });
}

export class MaxPool3d extends Module {
  declare kernelSize: number | number[];
  declare options: MaxPool3dOptions;

  constructor(kernelSize: Triple, options?: MaxPool3dOptions) {
    super();
    tupleArg('MaxPool3d', 'kernelSize', kernelSize, 3, 1);
    this.kernelSize = typeof kernelSize === 'number' ? kernelSize : kernelSize.slice();
    this.options = { ...checkOptions<MaxPool3dOptions>('MaxPool3d', options, maxSpec) };
  }

  /** The output, or [output, indices] with returnIndices. */
  forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return maxPool3d(input, this.kernelSize, this.options);
  }

  extraRepr(): string {
    const o = this.options;
    return `kernel_size=${pyRepr(this.kernelSize)}, stride=${pyRepr(o.stride ?? this.kernelSize)}, padding=${pyRepr(o.padding ?? 0)}, dilation=${pyRepr(o.dilation ?? 1)}, ceil_mode=${pyRepr(o.ceilMode ?? false)}`;
  }
}

export class AvgPool3d extends Module {
  declare kernelSize: number | number[];
  declare options: AvgPool3dOptions;

  constructor(kernelSize: Triple, options?: AvgPool3dOptions) {
    super();
    tupleArg('AvgPool3d', 'kernelSize', kernelSize, 3, 1);
    this.kernelSize = typeof kernelSize === 'number' ? kernelSize : kernelSize.slice();
    this.options = { ...checkOptions<AvgPool3dOptions>('AvgPool3d', options, avgSpec) };
  }

  forward(input: Tensor): Tensor {
    return avgPool3d(input, this.kernelSize, this.options);
  }

  extraRepr(): string {
    const o = this.options;
    return `kernel_size=${pyRepr(this.kernelSize)}, stride=${pyRepr(o.stride ?? this.kernelSize)}, padding=${pyRepr(o.padding ?? 0)}`;
  }
}

function checkAdaptiveSize(name: string, outputSize: unknown): number | (number | null)[] {
  const ok = (v: unknown) => isInteger(v) && v >= 1;
  if (ok(outputSize)) return outputSize as number;
  if (Array.isArray(outputSize) && outputSize.length === 3 && outputSize.every((v) => v === null || ok(v))) return outputSize.slice();
  throw new Error(`${name}: expected 'outputSize' to be a positive integer or [d, h, w] (positive integers or null), got ${describe(outputSize)}`);
}

export class AdaptiveAvgPool3d extends Module {
  declare outputSize: number | (number | null)[];

  constructor(outputSize: AdaptiveSize3d) {
    super();
    this.outputSize = checkAdaptiveSize('AdaptiveAvgPool3d', outputSize);
  }

  forward(input: Tensor): Tensor {
    return adaptiveAvgPool3d(input, this.outputSize);
  }

  extraRepr(): string {
    return `output_size=${pyRepr(this.outputSize)}`;
  }
}

export class AdaptiveMaxPool3d extends Module {
  declare outputSize: number | (number | null)[];
  declare returnIndices: boolean;

  constructor(outputSize: AdaptiveSize3d, options?: AdaptiveMaxPool3dOptions) {
    super();
    this.outputSize = checkAdaptiveSize('AdaptiveMaxPool3d', outputSize);
    this.returnIndices = checkOptions<AdaptiveMaxPool3dOptions>('AdaptiveMaxPool3d', options, { returnIndices: 'boolean' }).returnIndices ?? false;
  }

  forward(input: Tensor): Tensor | [Tensor, Tensor] {
    return adaptiveMaxPool3d(input, this.outputSize, { returnIndices: this.returnIndices });
  }

  extraRepr(): string {
    return `output_size=${pyRepr(this.outputSize)}`;
  }
}
