// F.unfold (im2col: the sliding blocks of an image as columns) and F.fold (col2im: the columns
// summed back into an image), with the modules nn.Unfold and nn.Fold. Both are one gather / one
// scatter-add over the flattened padded plane with the same index of block positions, so each
// is the other's gradient. Shapes and block order are PyTorch's: column c·kH·kW + i·kW + j of
// block l = (row, col) of the output grid, rows first.
import { tensor, zeros } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { scatterGatherOps } from '../tensor/scatter_gather.js';
import { checkOptions } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { requiredArg, tupleArg } from './args.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

export interface FoldOptions {
  /** default 1 */
  dilation?: number | number[];
  /** Zeros added on every side (default 0). */
  padding?: number | number[];
  /** default 1 */
  stride?: number | number[];
}

interface Blocks {
  kernel: number[];
  dilation: number[];
  padding: number[];
  stride: number[];
  /** The padded plane. */
  hp: number;
  wp: number;
  /** Blocks along each dim. */
  bh: number;
  bw: number;
}

const spec = { dilation: 'integers', padding: 'integers', stride: 'integers' } as const;

function blocks(fn: string, plane: [number, number], kernelSize: unknown, options: unknown): Blocks {
  const o = checkOptions<FoldOptions>(fn, options, spec);
  const kernel = tupleArg(fn, 'kernelSize', kernelSize, 2, 1);
  const dilation = tupleArg(fn, 'dilation', o.dilation ?? 1, 2, 1);
  const padding = tupleArg(fn, 'padding', o.padding ?? 0, 2, 0);
  const stride = tupleArg(fn, 'stride', o.stride ?? 1, 2, 1);
  const [hp, wp] = [plane[0] + 2 * padding[0]!, plane[1] + 2 * padding[1]!];
  const [bh, bw] = [0, 1].map((d) => Math.floor(([hp, wp][d]! - dilation[d]! * (kernel[d]! - 1) - 1) / stride[d]!) + 1) as [number, number];
  if (bh < 1 || bw < 1) {
    throw new Error(`${fn}: the kernel ${kernel.join('x')} (dilation ${dilation.join('x')}) does not fit the padded plane ${hp}x${wp}: ${bh}x${bw} blocks`);
  }
  return { kernel, dilation, padding, stride, hp, wp, bh, bw };
}

/** The flat position in the padded plane of every (kernel offset, block) pair: [kH·kW·L], kernel offsets outer. */
function blockIndex(b: Blocks, device: Tensor['device']): Tensor {
  const [kh, kw] = b.kernel as [number, number];
  const out = new Int32Array(kh * kw * b.bh * b.bw);
  let k = 0;
  for (let i = 0; i < kh; i++) {
    for (let j = 0; j < kw; j++) {
      for (let r = 0; r < b.bh; r++) {
        const row = r * b.stride[0]! + i * b.dilation[0]!;
        for (let c = 0; c < b.bw; c++) out[k++] = row * b.wp + c * b.stride[1]! + j * b.dilation[1]!;
      }
    }
  }
  return tensor(out, { shape: [out.length], device });
}

/** [N, C, H, W] or [C, H, W] → [N, C·kH·kW, L] or [C·kH·kW, L]. */
export function unfold(input: Tensor, kernelSize: number | number[], options?: FoldOptions): Tensor {
  const fn = 'unfold';
  if (!(input instanceof Tensor)) throw new Error(`${fn}: expected 'input' to be a Tensor`);
  if (input.ndim !== 3 && input.ndim !== 4) throw new Error(`${fn}: expected a 3-D or 4-D input ([C, H, W] or [N, C, H, W]), got shape [${input.shape.join(', ')}]`);
  const batched = input.ndim === 4;
  const [n, c, h, w] = batched ? input.shape : [1, ...input.shape];
  const b = blocks(fn, [h!, w!], kernelSize, options);
  return tidy(() => {
    const x = batched ? input : ops.unsqueeze(input, 0);
    const [ph, pw] = b.padding as [number, number];
    const padded = ph || pw ? functionOps.pad(x, [pw, pw, ph, ph]) : x;
    const flat = ops.reshape(padded, [n!, c!, b.hp * b.wp]);
    const cols = ops.indexSelect(flat, 2, blockIndex(b, input.device));
    const out = ops.reshape(cols, [n!, c! * b.kernel[0]! * b.kernel[1]!, b.bh * b.bw]);
    return batched ? out : ops.squeeze(out, 0);
  });
}

/** The adjoint of unfold: [N, C·kH·kW, L] or [C·kH·kW, L] → [N, C, H, W] (overlaps summed), H×W = outputSize. */
export function fold(input: Tensor, outputSize: number | number[], kernelSize: number | number[], options?: FoldOptions): Tensor {
  const fn = 'fold';
  if (!(input instanceof Tensor)) throw new Error(`${fn}: expected 'input' to be a Tensor`);
  if (input.ndim !== 2 && input.ndim !== 3) throw new Error(`${fn}: expected a 2-D or 3-D input ([C·kH·kW, L] or [N, C·kH·kW, L]), got shape [${input.shape.join(', ')}]`);
  const size = tupleArg(fn, 'outputSize', outputSize, 2, 1) as [number, number];
  const b = blocks(fn, size, kernelSize, options);
  const batched = input.ndim === 3;
  const [n, rows, l] = batched ? input.shape : [1, ...input.shape];
  const kk = b.kernel[0]! * b.kernel[1]!;
  if (rows! % kk !== 0) throw new Error(`${fn}: expected input's dim ${batched ? 1 : 0} (${rows}) to be divisible by the kernel's ${kk} positions`);
  if (l !== b.bh * b.bw) {
    throw new Error(`${fn}: expected input's last dim to be the number of sliding blocks ${b.bh} * ${b.bw} = ${b.bh * b.bw} (outputSize ${size.join('x')}, kernel ${b.kernel.join('x')}), got ${l}`);
  }
  const c = rows! / kk;
  return tidy(() => {
    const cols = ops.reshape(input, [n!, c, kk * l!]);
    const index = ops.expand(blockIndex(b, input.device), [n!, c, kk * l!]);
    const plane = scatterGatherOps.scatterAdd(zeros([n!, c, b.hp * b.wp], { device: input.device, dtype: input.dtype }), 2, index, cols);
    const [ph, pw] = b.padding as [number, number];
    const image = ops.narrow(ops.narrow(ops.reshape(plane, [n!, c, b.hp, b.wp]), 2, ph, size[0]), 3, pw, size[1]);
    return batched ? image : ops.squeeze(image, 0);
  });
}

/** The settings both modules print after their sizes, as given (PyTorch's defaults 1, 0, 1). */
function foldRepr(o: FoldOptions): string {
  return `dilation=${pyRepr(o.dilation ?? 1)}, padding=${pyRepr(o.padding ?? 0)}, stride=${pyRepr(o.stride ?? 1)}`;
}

export class Unfold extends Module {
  declare kernelSize: number | number[];
  declare options: FoldOptions;

  constructor(kernelSize: number | number[], options?: FoldOptions) {
    super();
    checkOptions<FoldOptions>('Unfold', options, spec);
    requiredArg('Unfold', 'kernelSize', kernelSize);
    this.kernelSize = kernelSize;
    this.options = { ...options };
  }

  forward(input: Tensor): Tensor {
    return unfold(input, this.kernelSize, this.options);
  }

  extraRepr(): string {
    return `kernel_size=${pyRepr(this.kernelSize)}, ${foldRepr(this.options)}`;
  }
}

export class Fold extends Module {
  declare outputSize: number | number[];
  declare kernelSize: number | number[];
  declare options: FoldOptions;

  constructor(outputSize: number | number[], kernelSize: number | number[], options?: FoldOptions) {
    super();
    checkOptions<FoldOptions>('Fold', options, spec);
    requiredArg('Fold', 'outputSize', outputSize);
    requiredArg('Fold', 'kernelSize', kernelSize);
    this.outputSize = outputSize;
    this.kernelSize = kernelSize;
    this.options = { ...options };
  }

  forward(input: Tensor): Tensor {
    return fold(input, this.outputSize, this.kernelSize, this.options);
  }

  extraRepr(): string {
    return `output_size=${pyRepr(this.outputSize)}, kernel_size=${pyRepr(this.kernelSize)}, ${foldRepr(this.options)}`;
  }
}
