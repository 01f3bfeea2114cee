// Max pooling that returns where the maxima are: maxPool1d/2d's returnIndices, adaptive max
// pooling (F.adaptiveMaxPool1d/2d, nn.AdaptiveMaxPool1d/2d) and its inverse, max unpooling
// (F.maxUnpool1d/2d, nn.MaxUnpool1d/2d).
//
// Each pooling window is listed as the flat positions h·W + w of its input cells inside the
// plane (cells in the padding left out; the list padded to the longest window by repeating
// its first cell, which cannot change the first maximum); one gather brings every window's
// values side by side and argmax picks the first maximum in the window's row-major order, as
// ATen's loops do. Values are gathered at those positions, so the gradient goes to the chosen
// cell only (PyTorch's), and unpooling scatters back through the same positions. Indices are
// int32 (PyTorch's int64), flat within each [H, W] plane. NaN: argmax takes the first NaN of a
// window; ATen's loop takes the last.
import { tensor, zeros } from '../tensor/creation.js';
import { noGrad } from '../autograd/backward.js';
import { tidy } from '../runtime/memory.js';
import { ops } from '../tensor/ops.js';
import { scatterGatherOps } from '../tensor/scatter_gather.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { requiredArg, tupleArg } from './args.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

/** The windows of one plane: `k` positions each (flat h·W + w), `count` windows in the output grid `grid`. */
interface Windows {
  index: Int32Array;
  k: number;
  grid: number[];
}

/** Lists windows given, per dim, each output position's input cells. */
function listWindows(plane: [number, number], cells: [number[][], number[][]]): Windows {
  const [rows, cols] = cells;
  const k = Math.max(1, ...rows.map((r) => r.length)) * Math.max(1, ...cols.map((c) => c.length));
  const index = new Int32Array(rows.length * cols.length * k);
  let at = 0;
  for (const r of rows) {
    for (const c of cols) {
      const start = at;
      for (const h of r) for (const w of c) index[at++] = h * plane[1] + w;
      for (let q = at - start; q < k; q++) index[at++] = index[start]!;
    }
  }
  return { index, k, grid: [rows.length, cols.length] };
}

export interface PoolGeometry {
  kernel: number[];
  stride: number[];
  padding: number[];
  dilation: number[];
  ceilMode: boolean;
}

/** PyTorch's pooling_output_shape and each output position's cells along one dim (padding cells left out). */
function slidingCells(size: number, k: number, s: number, p: number, d: number, ceil: boolean): number[][] {
  const span = size + 2 * p - d * (k - 1) - 1;
  let out = Math.floor((ceil ? span + s - 1 : span) / s) + 1;
  if (ceil && (out - 1) * s >= size + p) out--;  // the last window must start inside the input or left padding
  return Array.from({ length: Math.max(out, 0) }, (_, o) =>
    Array.from({ length: k }, (_, i) => o * s - p + i * d).filter((h) => h >= 0 && h < size));
}

/** Adaptive pooling's windows along one dim: [⌊o·in/out⌋, ⌈(o + 1)·in/out⌉). */
function adaptiveCells(size: number, out: number): number[][] {
  return Array.from({ length: out }, (_, o) => {
    const start = Math.floor((o * size) / out), end = Math.ceil(((o + 1) * size) / out);
    return Array.from({ length: end - start }, (_, i) => start + i);
  });
}

/**
 * x [B, C, H, W] → the flat position of each window's first maximum [B, C, ...grid] (int32)
 * and the values there (differentiable: the gradient reaches those cells only).
 */
function windowMax(x: Tensor, win: Windows): { values: Tensor; indices: Tensor } {
  const [b, c, h, w] = x.shape as [number, number, number, number];
  const p = win.grid[0]! * win.grid[1]!;
  const flat = ops.reshape(x, [b, c, h * w]);
  const index = tensor(win.index, { shape: [win.index.length], device: x.device });
  const pos = noGrad(() => {
    const values = ops.reshape(ops.indexSelect(flat, 2, index), [b, c, p, win.k]);
    const first = ops.argmax(values, -1, true);
    return ops.squeeze(ops.gather(ops.expand(ops.reshape(index, [1, 1, p, win.k]), [b, c, p, win.k]), 3, first), 3);
  });
  return { values: ops.reshape(ops.gather(flat, 2, pos), [b, c, ...win.grid]), indices: ops.reshape(pos, [b, c, ...win.grid]) };
}

/** [N, C, ...spatial] or [C, ...spatial] (dims = 1 or 2) as [N, C, H, W] (H = 1 for 1-D), and back. */
function asPlanes(fn: string, x: unknown, dims: 1 | 2, dtype = 'float32'): { x4: Tensor; back: (t: Tensor) => Tensor } {
  if (!(x instanceof Tensor)) throw new Error(`${fn}: expected 'input' to be a Tensor, got ${describe(x)}`);
  // Floating inputs: float32, or float64 (the pools compute it in double on the CPU).
  const ok = dtype === 'float32' ? x.dtype === 'float32' || x.dtype === 'float64' : x.dtype === dtype;
  if (!ok) throw new Error(`${fn}: expected a ${dtype === 'float32' ? 'float32 or float64' : dtype} input, got ${x.dtype}`);
  if (x.ndim !== dims + 1 && x.ndim !== dims + 2) {
    throw new Error(`${fn}: expected a ${dims + 1}-D or ${dims + 2}-D input, got shape [${x.shape.join(', ')}]`);
  }
  const batched = x.ndim === dims + 2;
  let x4 = batched ? x : ops.unsqueeze(x, 0);
  if (dims === 1) x4 = ops.unsqueeze(x4, 2);
  return {
    x4,
    back: (t) => {
      let r = dims === 1 ? ops.squeeze(t, 2) : t;
      if (!batched) r = ops.squeeze(r, 0);
      return r;
    },
  };
}

/** maxPool1d/2d's values (from `values`, the pooling kernel) and indices (functional.ts calls this when returnIndices is set). */
export function maxPoolWithIndices(fn: string, dims: 1 | 2, input: Tensor, geo: PoolGeometry, values: (x: Tensor) => Tensor): [Tensor, Tensor] {
  return tidy(() => {
    const { x4, back } = asPlanes(fn, input, dims);
    const [h, w] = [x4.shape[2]!, x4.shape[3]!];
    // 1-D: one row (H = 1) and the geometry's only dim along W.
    const along = (size: number, i: number) => slidingCells(size, geo.kernel[i]!, geo.stride[i]!, geo.padding[i]!, geo.dilation[i]!, geo.ceilMode);
    const rows = dims === 1 ? [[0]] : along(h, 0);
    const cols = along(w, dims - 1);
    return [values(input), back(windowMax(x4, listWindows([h, w], [rows, cols])).indices)];
  });
}

/** An adaptive pooling output size: per spatial dim a count, or null to keep the input's. */
function adaptiveSize(fn: string, outputSize: unknown, spatial: number[]): number[] {
  const n = spatial.length;
  const list = Array.isArray(outputSize) ? outputSize : new Array(n).fill(outputSize);
  if (list.length !== n || !list.every((v) => v === null || (isInteger(v) && v >= 1))) {
    throw new Error(`${fn}: expected 'outputSize' to be a positive integer${n > 1 ? ` or ${n} of them (null keeps a dim)` : ''}, got ${describe(outputSize)}`);
  }
  return list.map((v, i) => (v === null ? spatial[i]! : (v as number)));
}

function adaptiveMaxPool(fn: string, dims: 1 | 2, input: Tensor, outputSize: unknown, options: unknown): Tensor | [Tensor, Tensor] {
  const o = checkOptions<{ returnIndices: boolean }>(fn, options, { returnIndices: 'boolean' });
  return tidy(() => {
    const { x4, back } = asPlanes(fn, input, dims);
    const [h, w] = [x4.shape[2]!, x4.shape[3]!];
    if (h === 0 || w === 0) throw new Error(`${fn}: expected a non-empty input plane, got shape [${input.shape.join(', ')}]`);
    const size = adaptiveSize(fn, outputSize, dims === 1 ? [w] : [h, w]);
    const win = listWindows([h, w], dims === 1 ? [adaptiveCells(1, 1), adaptiveCells(w, size[0]!)] : [adaptiveCells(h, size[0]!), adaptiveCells(w, size[1]!)]);
    const r = windowMax(x4, win);
    return o.returnIndices ? [back(r.values), back(r.indices)] : back(r.values);
  });
}

export interface AdaptiveMaxPoolOptions {
  /** Also return the flat positions of the maxima (int32), as [output, indices]. */
  returnIndices?: boolean;
}

export function adaptiveMaxPool1d(input: Tensor, outputSize: number, options: AdaptiveMaxPoolOptions & { returnIndices: true }): [Tensor, Tensor];
export function adaptiveMaxPool1d(input: Tensor, outputSize: number, options?: AdaptiveMaxPoolOptions): Tensor;
export function adaptiveMaxPool1d(input: Tensor, outputSize: number, options?: AdaptiveMaxPoolOptions): Tensor | [Tensor, Tensor] {
  return adaptiveMaxPool('adaptiveMaxPool1d', 1, input, outputSize, options);
}

export function adaptiveMaxPool2d(input: Tensor, outputSize: number | readonly (number | null)[], options: AdaptiveMaxPoolOptions & { returnIndices: true }): [Tensor, Tensor];
export function adaptiveMaxPool2d(input: Tensor, outputSize: number | readonly (number | null)[], options?: AdaptiveMaxPoolOptions): Tensor;
export function adaptiveMaxPool2d(input: Tensor, outputSize: number | readonly (number | null)[], options?: AdaptiveMaxPoolOptions): Tensor | [Tensor, Tensor] {
  return adaptiveMaxPool('adaptiveMaxPool2d', 2, input, outputSize, options);
}

export interface MaxUnpoolOptions {
  /** default: kernelSize */
  stride?: number | number[];
  padding?: number | number[];
  /** The output's spatial size (or its whole shape); default (in − 1)·stride − 2·padding + kernel. */
  outputSize?: number[] | null;
}

function maxUnpool(fn: string, dims: 1 | 2, input: Tensor, indices: Tensor, kernelSize: unknown, options: unknown): Tensor {
  const o = checkOptions<MaxUnpoolOptions>(fn, options, {
    stride: 'integers',
    padding: 'integers',
    outputSize: { check: (v) => v === null || (Array.isArray(v) && v.every((e) => isInteger(e) && e >= 0)), expected: 'an array of sizes or null' },
  });
  if (!(indices instanceof Tensor) || indices.dtype !== 'int32') throw new Error(`${fn}: expected 'indices' to be an int32 Tensor (from returnIndices), got ${describe(indices)}`);
  if (!(input instanceof Tensor) || input.shape.join(',') !== indices.shape.join(',')) {
    throw new Error(`${fn}: expected input and indices of one shape, got [${input instanceof Tensor ? input.shape.join(', ') : describe(input)}] and [${indices.shape.join(', ')}]`);
  }
  const kernel = tupleArg(fn, 'kernelSize', kernelSize, dims, 1);
  const stride = tupleArg(fn, 'stride', o.stride ?? kernel, dims, 1);
  const padding = tupleArg(fn, 'padding', o.padding ?? 0, dims, 0);
  return tidy(() => {
    const { x4, back } = asPlanes(fn, input, dims);
    const spatialIn = dims === 1 ? [x4.shape[3]!] : [x4.shape[2]!, x4.shape[3]!];
    let size = spatialIn.map((n, d) => (n - 1) * stride[d]! - 2 * padding[d]! + kernel[d]!);
    if (o.outputSize) {
      const given = o.outputSize.slice(-dims);
      if (given.length !== dims) throw new Error(`${fn}: expected 'outputSize' to end with ${dims} spatial sizes, got ${describe(o.outputSize)}`);
      size = given;
    }
    const [b, c] = [x4.shape[0]!, x4.shape[1]!];
    const cells = size.reduce((p, n) => p * n, 1);
    const idx = ops.reshape(asPlanes(fn, indices, dims, 'int32').x4, [b, c, -1]);
    const plane = scatterGatherOps.scatter(zeros([b, c, cells], { device: input.device }), 2, idx, ops.reshape(x4, [b, c, -1]));
    return back(ops.reshape(plane, [b, c, ...(dims === 1 ? [1, size[0]!] : size)]));
  });
}

/** Puts each value back at its index (the rest zeros): the inverse of maxPool1d with returnIndices. */
export function maxUnpool1d(input: Tensor, indices: Tensor, kernelSize: number | number[], options?: MaxUnpoolOptions): Tensor {
  return maxUnpool('maxUnpool1d', 1, input, indices, kernelSize, options);
}

/** Puts each value back at its flat index in its [H, W] plane: the inverse of maxPool2d with returnIndices. */
export function maxUnpool2d(input: Tensor, indices: Tensor, kernelSize: number | number[], options?: MaxUnpoolOptions): Tensor {
  return maxUnpool('maxUnpool2d', 2, input, indices, kernelSize, options);
}

function adaptiveMaxModule(name: string, dims: 1 | 2, pool: (x: Tensor, size: never, o: AdaptiveMaxPoolOptions) => Tensor | [Tensor, Tensor]) {
  const cls = class extends Module {
    declare outputSize: number | (number | null)[];
    declare returnIndices: boolean;

    constructor(outputSize: number | (number | null)[], options?: AdaptiveMaxPoolOptions) {
      super();
      this.returnIndices = checkOptions<AdaptiveMaxPoolOptions>(name, options, { returnIndices: 'boolean' }).returnIndices ?? false;
      adaptiveSize(name, outputSize, new Array<number>(dims).fill(1)); // required, as PyTorch's output_size
      this.outputSize = outputSize;
    }

    forward(input: Tensor): Tensor | [Tensor, Tensor] {
      return pool(input, this.outputSize as never, { returnIndices: this.returnIndices });
    }

    extraRepr(): string {
      return `output_size=${pyRepr(this.outputSize)}`;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const AdaptiveMaxPool1d = adaptiveMaxModule('AdaptiveMaxPool1d', 1, adaptiveMaxPool1d);
export const AdaptiveMaxPool2d = adaptiveMaxModule('AdaptiveMaxPool2d', 2, adaptiveMaxPool2d);

function maxUnpoolModule(name: string, dims: 1 | 2, unpool: (x: Tensor, i: Tensor, k: number | number[], o?: MaxUnpoolOptions) => Tensor) {
  const cls = class extends Module {
    declare kernelSize: number | number[];
    declare options: { stride?: number | number[]; padding?: number | number[] };

    constructor(kernelSize: number | number[], options?: { stride?: number | number[]; padding?: number | number[] }) {
      super();
      this.options = { ...checkOptions<{ stride: number[]; padding: number[] }>(name, options, { stride: 'integers', padding: 'integers' }) };
      requiredArg(name, 'kernelSize', kernelSize);
      this.kernelSize = kernelSize;
    }

    forward(input: Tensor, indices: Tensor, outputSize?: number[] | null): Tensor {
      return unpool(input, indices, this.kernelSize, { ...this.options, outputSize: outputSize ?? null });
    }

    /** PyTorch prints the sizes as tuples of the module's dims ((2,) or (2, 2)), as it stores them. */
    extraRepr(): string {
      const t = (v: number | number[]) => pyRepr(Array.isArray(v) ? v : new Array<number>(dims).fill(v));
      return `kernel_size=${t(this.kernelSize)}, stride=${t(this.options.stride ?? this.kernelSize)}, padding=${t(this.options.padding ?? 0)}`;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const MaxUnpool1d = maxUnpoolModule('MaxUnpool1d', 1, maxUnpool1d);
export const MaxUnpool2d = maxUnpoolModule('MaxUnpool2d', 2, maxUnpool2d);
