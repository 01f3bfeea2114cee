// F.interpolate and nn.Upsample (torch.nn.functional.interpolate of PyTorch 1.13): nearest,
// nearest-exact, linear, bilinear and area resampling of [N, C, d...] inputs. Source indices
// and weights are computed here exactly as ATen computes them (UpSample.h: float32 scales,
// its output-size rounding and source-coordinate formulas); the resampling itself is made of
// indexSelect, mul and add, so autograd gives the gradient (the scatter-add of ATen's backward).
import { run } from '../tensor/call.js';
import { tensor } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

export type InterpolateMode = 'nearest' | 'nearest-exact' | 'linear' | 'bilinear' | 'area';

export interface InterpolateOptions {
  /** Output spatial size: one integer for every spatial dim, or one per dim. */
  size?: number | number[] | null;
  /** Multiplier of the spatial size (output = ⌊input·scale⌋): one number or one per dim. */
  scaleFactor?: number | number[] | null;
  mode?: InterpolateMode;
  /** linear/bilinear only: map the corner pixels' centres onto each other (default false). */
  alignCorners?: boolean | null;
  /** Interpolate with the scale implied by the rounded output size, not scaleFactor itself. */
  recomputeScaleFactor?: boolean | null;
}

const f32 = Math.fround;
const LINEAR_DIMS: Partial<Record<InterpolateMode, number>> = { linear: 1, bilinear: 2 };

const spec = {
  size: { check: (v: unknown) => v === null || (isInteger(v) && v > 0) || (Array.isArray(v) && v.every(isInteger)), expected: 'a positive integer, an array of integers or null' },
  scaleFactor: {
    check: (v: unknown) => v === null || (typeof v === 'number' && v > 0 && Number.isFinite(v)) || (Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x))),
    expected: 'a positive number, an array of numbers or null',
  },
  mode: ['nearest', 'nearest-exact', 'linear', 'bilinear', 'area'],
  alignCorners: { check: (v: unknown) => v === null || typeof v === 'boolean', expected: 'a boolean or null' },
  recomputeScaleFactor: { check: (v: unknown) => v === null || typeof v === 'boolean', expected: 'a boolean or null' },
} as const;

/** ATen's compute_scales_value<float>: 1/scale when a scale is given, else in/out, in float32. */
function scaleValue(scale: number | null, inSize: number, outSize: number): number {
  return scale !== null && scale > 0 ? f32(1 / scale) : f32(inSize / outSize);
}

/** Source index of every output position along one dim (nearest or nearest-exact). */
function nearestIndices(exact: boolean, inSize: number, outSize: number, scale: number | null): Int32Array {
  const idx = new Int32Array(outSize);
  const s = scaleValue(scale, inSize, outSize);
  for (let i = 0; i < outSize; i++) {
    if (exact) idx[i] = Math.min(Math.floor(f32((i + 0.5) * s)), inSize - 1);
    else if (outSize === inSize) idx[i] = i;
    else if (outSize === 2 * inSize) idx[i] = i >> 1;
    else idx[i] = Math.min(Math.floor(f32(f32(i) * s)), inSize - 1);
  }
  return idx;
}

/** The two source indices and weights of every output position along one dim (linear modes). */
function linearIndices(inSize: number, outSize: number, alignCorners: boolean, scale: number | null) {
  const i0 = new Int32Array(outSize);
  const i1 = new Int32Array(outSize);
  const w0 = new Float32Array(outSize);
  const w1 = new Float32Array(outSize);
  const ratio = alignCorners ? (outSize > 1 ? f32((inSize - 1) / (outSize - 1)) : 0) : scaleValue(scale, inSize, outSize);
  for (let i = 0; i < outSize; i++) {
    if (outSize === inSize) {
      i0[i] = i1[i] = i;
      w0[i] = 1;
      w1[i] = 0;
      continue;
    }
    let real = alignCorners ? f32(ratio * i) : f32(ratio * (i + 0.5) - 0.5);
    if (real < 0) real = 0;
    const k = Math.trunc(real);
    i0[i] = k;
    i1[i] = k < inSize - 1 ? k + 1 : k;
    const l1 = Math.min(Math.max(f32(real - k), 0), 1);
    w1[i] = l1;
    w0[i] = f32(1 - l1);
  }
  return { i0, i1, w0, w1 };
}

function perDim<T>(fn: string, name: string, v: T | T[], dims: number, input: Tensor): T[] {
  if (!Array.isArray(v)) return new Array<T>(dims).fill(v);
  if (v.length !== dims) {
    throw new Error(
      `${fn}: input and ${name} must have the same number of spatial dims, but got input with spatial dims [${input.shape.slice(2).join(', ')}] and ${name} [${v.join(', ')}]`,
    );
  }
  return v.slice();
}

/** Resamples the spatial dims of input [N, C, d1, ...] (1 to 3 spatial dims; bilinear: 2, linear: 1). */
export function interpolate(input: Tensor, options?: InterpolateOptions): Tensor {
  const fn = 'interpolate';
  const o = checkOptions<InterpolateOptions>(fn, options, spec);
  if (!(input instanceof Tensor) || input.isDisposed) throw new Error(`${fn}: expected 'input' to be a Tensor, got ${describe(input)}`);
  if (input.dtype !== 'float32') throw new Error(`${fn}: expected a float32 input, got ${input.dtype}`);
  const mode = o.mode ?? 'nearest';
  const linear = LINEAR_DIMS[mode];
  if (linear === undefined && o.alignCorners !== undefined && o.alignCorners !== null) {
    throw new Error(`${fn}: alignCorners can only be set with the interpolating modes linear and bilinear, got mode '${mode}'`);
  }
  const dims = input.ndim - 2;
  if (dims < 1 || dims > 3 || (linear !== undefined && dims !== linear) || (mode === 'area' && dims > 2)) {
    const want = linear !== undefined ? `${linear + 2}-D` : mode === 'area' ? '3-D or 4-D' : '3-D, 4-D or 5-D';
    throw new Error(`${fn}: mode '${mode}' expects a ${want} input [N, C, ...spatial], got shape [${input.shape.join(', ')}]`);
  }
  const hasSize = o.size !== undefined && o.size !== null;
  const hasScale = o.scaleFactor !== undefined && o.scaleFactor !== null;
  if (hasSize === hasScale) throw new Error(`${fn}: ${hasSize ? 'only one of size or scaleFactor should be defined' : 'either size or scaleFactor should be defined'}`);
  if (o.recomputeScaleFactor && hasSize) throw new Error(`${fn}: recomputeScaleFactor is not meaningful with an explicit size`);
  const inSizes = input.shape.slice(2);
  let scales: (number | null)[] = new Array<null>(dims).fill(null);
  let outSizes: number[];
  if (hasSize) {
    outSizes = perDim(fn, 'size', o.size!, dims, input);
  } else {
    const given = perDim(fn, 'scaleFactor', o.scaleFactor!, dims, input);
    // ATen truncates in·scale to an integer size (Python floors it when recomputing).
    outSizes = given.map((s, i) => Math.floor(inSizes[i]! * s));
    if (!o.recomputeScaleFactor && mode !== 'area') scales = given;
  }
  if (outSizes.some((s) => !(s > 0)) || inSizes.some((s) => !(s > 0))) {
    throw new Error(`${fn}: input and output sizes should be greater than 0, but got input [${inSizes.join(', ')}] and output [${outSizes.join(', ')}]`);
  }
  return tidy(() => {
    if (mode === 'area') {
      // Adaptive average pooling (a 1-D input as [.., 1, L]).
      const x = dims === 1 ? input.unsqueeze(-2) : input;
      const y = run(fn, 'adaptiveAvgPool2d', [['input', x]], { outputSize: dims === 1 ? [1, outSizes[0]!] : outSizes });
      return dims === 1 ? y.squeeze(-2) : y;
    }
    if (linear === undefined) {
      let x = input;
      outSizes.forEach((out, d) => {
        const idx = nearestIndices(mode === 'nearest-exact', inSizes[d]!, out, scales[d]!);
        x = x.indexSelect(d + 2, tensor(idx, { shape: [out] }));
      });
      return x;
    }
    // Separable: along the last dim first, then (bilinear) the one before, so that each output
    // is (x00·w0 + x01·w1)·h0 + (x10·w0 + x11·w1)·h1 as ATen evaluates it.
    const alignCorners = o.alignCorners ?? false;
    let x = input;
    for (let d = dims - 1; d >= 0; d--) {
      const axis = d + 2;
      const out = outSizes[d]!;
      const { i0, i1, w0, w1 } = linearIndices(inSizes[d]!, out, alignCorners, scales[d]!);
      const wShape = [out, ...new Array<number>(dims - 1 - d).fill(1)];
      const a = x.indexSelect(axis, tensor(i0, { shape: [out] })).mul(tensor(w0, { shape: wShape }));
      const b = x.indexSelect(axis, tensor(i1, { shape: [out] })).mul(tensor(w1, { shape: wShape }));
      x = a.add(b);
    }
    return x;
  });
}

/** torch.nn.Upsample: F.interpolate with the options given at construction. */
export class Upsample extends Module {
  declare size: number | number[] | null;
  declare scaleFactor: number | number[] | null;
  declare mode: InterpolateMode;
  declare alignCorners: boolean | null;
  declare recomputeScaleFactor: boolean | null;

  constructor(options?: InterpolateOptions) {
    super();
    const o = checkOptions<InterpolateOptions>('Upsample', options, spec);
    this.size = o.size ?? null;
    this.scaleFactor = o.scaleFactor ?? null;
    this.mode = o.mode ?? 'nearest';
    this.alignCorners = o.alignCorners ?? null;
    this.recomputeScaleFactor = o.recomputeScaleFactor ?? null;
  }

  forward(input: Tensor): Tensor {
    return interpolate(input, {
      size: this.size,
      scaleFactor: this.scaleFactor,
      mode: this.mode,
      alignCorners: this.alignCorners,
      recomputeScaleFactor: this.recomputeScaleFactor,
    });
  }

  extraRepr(): string {
    const what = this.scaleFactor !== null ? `scale_factor=${pyRepr(this.scaleFactor)}` : `size=${pyRepr(this.size)}`;
    return `${what}, mode=${this.mode}`; // unquoted, as PyTorch 1.13's str(mode)
  }
}

/** torch.nn.UpsamplingNearest2d: Upsample with mode 'nearest'. */
export class UpsamplingNearest2d extends Upsample {
  constructor(options?: { size?: number | number[] | null; scaleFactor?: number | number[] | null }) {
    super({ ...checkOptions('UpsamplingNearest2d', options, { size: spec.size, scaleFactor: spec.scaleFactor }), mode: 'nearest' });
  }
}

/** torch.nn.UpsamplingBilinear2d: Upsample with mode 'bilinear' and alignCorners true. */
export class UpsamplingBilinear2d extends Upsample {
  constructor(options?: { size?: number | number[] | null; scaleFactor?: number | number[] | null }) {
    super({ ...checkOptions('UpsamplingBilinear2d', options, { size: spec.size, scaleFactor: spec.scaleFactor }), mode: 'bilinear', alignCorners: true });
  }
}
