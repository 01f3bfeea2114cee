// F.conv3d and F.convTranspose3d (torch.nn.functional.conv3d, conv_transpose3d) as compositions of
// existing ops (convTranspose3d: see its comment); nn.Conv3d and nn.ConvTranspose3d are in conv.ts.
//
// A partial im2col along depth: the input is padded in depth, the kD depth slices each output
// depth reads are gathered (one indexSelect) and folded into the channel axis in the order
// [groups, kD, C/groups], so that ONE conv2d call over a batch of N·D_out images with kD·C
// channels computes the whole product; the weight [O, C/g, kD, kH, kW] is permuted to
// [O, kD·C/g, kH, kW] to match. Gradients (input, weight, bias) come from indexSelect, permute,
// pad and conv2d. Cost: the gathered input is kD/stride_D times the (padded) input.
import { tensor } from '../tensor/creation.js';
import { optTensor } from './functional_args.js';
import { conv2d, convTranspose2d } from './functional_layers.js';
import { fold } from './unfold.js';
import { tensorArg } from '../tensor/call.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { checkOptions, describe, isInteger, type OptionSpec } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';
import { tupleArg } from './args.js';

export interface Conv3dOptions {
  /** A number or [sD, sH, sW] (default 1). */
  stride?: number | readonly number[];
  /** A number, [pD, pH, pW], 'valid' (no padding) or 'same' (stride 1 only); default 0. */
  padding?: number | readonly number[] | 'same' | 'valid';
  /** A number or [dD, dH, dW] (default 1). */
  dilation?: number | readonly number[];
  groups?: number;
}

export const convPaddingSpec: OptionSpec = {
  check: (v) => v === 'same' || v === 'valid' || isInteger(v) || (Array.isArray(v) && v.every(isInteger)),
  expected: "an integer, an array of integers, 'same' or 'valid'",
};

const dims = (shape: readonly number[], sep = ', ') => shape.join(sep);

/** [left, right] padding per spatial dim from a conv padding option (PyTorch's rule for 'same': the odd one on the right). */
export function convPads(fn: string, padding: unknown, kernel: number[], dilation: number[], stride: number[]): [number, number][] {
  const n = kernel.length;
  if (padding === 'valid') return kernel.map(() => [0, 0]);
  if (padding === 'same') {
    if (stride.some((s) => s !== 1)) throw new Error(`${fn}: padding='same' is not supported for strided convolutions (got stride [${dims(stride)}])`);
    return kernel.map((k, i) => {
      const total = dilation[i]! * (k - 1);
      const left = Math.floor(total / 2);
      return [left, total - left];
    });
  }
  if ((isInteger(padding) && padding < 0) || (Array.isArray(padding) && padding.some((p) => isInteger(p) && p < 0))) {
    throw new Error(`${fn}: negative padding is not supported (got ${describe(padding)})`);
  }
  return tupleArg(fn, 'padding', padding ?? 0, n, 0).map((p) => [p, p]);
}

/**
 * Input [N, C, D, H, W] or [C, D, H, W], weight [O, C/groups, kD, kH, kW], bias [O] or null →
 * [N, O, D_out, H_out, W_out] (or [O, D_out, H_out, W_out]), as torch.nn.functional.conv3d.
 */
/** The dtypes of the conv2d op these compose (float64: computed in double on the CPU). */
const CONV_DTYPES = new Set(['float32', 'float64']);

export function conv3d(input: Tensor, weight: Tensor, bias?: Tensor | null, options?: Conv3dOptions): Tensor {
  const fn = 'conv3d';
  const o = checkOptions<Conv3dOptions>(fn, options, { stride: 'integers', padding: convPaddingSpec, dilation: 'integers', groups: 'positiveInteger' });
  const x = tensorArg(fn, 'input', input), w = tensorArg(fn, 'weight', weight), b = optTensor(fn, 'bias', bias);
  if (x.ndim !== 4 && x.ndim !== 5) throw new Error(`${fn}: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [${dims(x.shape)}]`);
  if (w.ndim !== 5) throw new Error(`${fn}: expected 'weight' to be 5-D [outChannels, inChannels/groups, kD, kH, kW], got size [${dims(w.shape)}]`);
  if (!CONV_DTYPES.has(x.dtype) || w.dtype !== x.dtype) throw new Error(`${fn}: expected float32 or float64 input and weight of one dtype, got ${x.dtype} and ${w.dtype}`);
  if (x.device !== w.device) throw new Error(`${fn}: expected input and weight on one device, got input on '${x.device}' and weight on '${w.device}'`);
  const groups = o.groups ?? 1;
  const stride = tupleArg(fn, 'stride', o.stride ?? 1, 3, 1);
  const dilation = tupleArg(fn, 'dilation', o.dilation ?? 1, 3, 1);
  const [outC, inPerGroup, ...kernel] = w.shape as [number, number, number, number, number];
  const pads = convPads(fn, o.padding, kernel, dilation, stride);
  const batched = x.ndim === 5;
  const [c, ...spatial] = x.shape.slice(batched ? 1 : 0) as [number, number, number, number];
  if (c !== inPerGroup * groups) {
    throw new Error(`${fn}: Given groups=${groups}, weight of size [${dims(w.shape)}], expected input[${dims(x.shape)}] to have ${inPerGroup * groups} channels, but got ${c} channels instead`);
  }
  if (outC % groups !== 0) {
    throw new Error(`${fn}: Given groups=${groups}, expected weight to be divisible by ${groups} at dimension 0, but got weight of size [${dims(w.shape)}] instead`);
  }
  if (b !== null && (b.ndim !== 1 || b.shape[0] !== outC)) {
    throw new Error(`${fn}: Given weight of size [${dims(w.shape)}], expected bias to be 1-dimensional with ${outC} elements, but got bias of size [${dims(b.shape)}] instead`);
  }
  const padded = spatial.map((n, i) => n + pads[i]![0] + pads[i]![1]);
  const span = kernel.map((k, i) => dilation[i]! * (k - 1) + 1);
  if (padded.some((n, i) => n < span[i]!)) {
    throw new Error(`${fn}: Calculated padded input size per channel: (${dims(padded, ' x ')}). Kernel size: (${dims(span, ' x ')}). Kernel size can't be greater than actual input size`);
  }
  if (spatial.some((n) => n === 0) || (batched && x.shape[0] === 0)) throw new Error(`${fn}: expected a non-empty input, got size [${dims(x.shape)}]`);
  const [kD] = kernel;
  const dOut = Math.floor((padded[0]! - span[0]!) / stride[0]!) + 1;
  return tidy(() => {
    let x5 = batched ? x : ops.unsqueeze(x, 0);
    // Depth padded here; H and W: the symmetric part by conv2d, the extra right cell of an odd 'same' here.
    const extra = [pads[1]![1] - pads[1]![0], pads[2]![1] - pads[2]![0]];
    if (pads[0]![0] || pads[0]![1] || extra[0] || extra[1]) x5 = functionOps.pad(x5, [0, extra[1]!, 0, extra[0]!, pads[0]![0], pads[0]![1]]);
    const [n, , , hp, wp] = x5.shape as [number, number, number, number, number];
    // The depth slices of each output depth, od·sD + i·dD for i < kD, in that order.
    const index = new Int32Array(dOut * kD);
    for (let od = 0; od < dOut; od++) for (let i = 0; i < kD; i++) index[od * kD + i] = od * stride[0]! + i * dilation[0]!;
    const slices = ops.indexSelect(x5, 2, tensor(index, { shape: [index.length], dtype: 'int32', device: x.device }));
    // [N, g, C/g, D_out, kD, H, W] → [N, D_out, g, kD, C/g, H, W] → [N·D_out, g·kD·C/g, H, W]
    const cols = ops.reshape(ops.permute(ops.reshape(slices, [n, groups, c / groups, dOut, kD, hp, wp]), 0, 3, 1, 4, 2, 5, 6), [n * dOut, c * kD, hp, wp]);
    const w2 = ops.reshape(ops.permute(w, 0, 2, 1, 3, 4), [outC, kD * inPerGroup, kernel[1]!, kernel[2]!]);
    const y = conv2d(cols, w2, b, {
      stride: stride.slice(1),
      padding: [pads[1]![0], pads[2]![0]],
      dilation: dilation.slice(1),
      groups,
    });
    const [, , ho, wo] = y.shape as [number, number, number, number];
    const out = ops.contiguous(ops.permute(ops.reshape(y, [n, dOut, outC, ho, wo]), 0, 2, 1, 3, 4));
    return batched ? out : ops.squeeze(out, 0);
  });
}

export interface ConvTranspose3dOptions {
  /** A number or [sD, sH, sW] (default 1). */
  stride?: number | readonly number[];
  /** Cells cropped from each side of the full output (default 0). */
  padding?: number | readonly number[];
  /** Cells added at the end of each dim (default 0; smaller than the stride or the dilation). */
  outputPadding?: number | readonly number[];
  groups?: number;
  /** default 1 */
  dilation?: number | readonly number[];
}

/**
 * Input [N, C_in, D, H, W] or [C_in, D, H, W], weight [C_in, C_out/groups, kD, kH, kW], bias
 * [C_out] or null → [N, C_out, D_out, H_out, W_out] with D_out = (D − 1)·sD − 2·pD + dD·(kD − 1)
 * + opD + 1 (and so for H, W), as torch.nn.functional.conv_transpose3d.
 *
 * A composition too: ONE convTranspose2d call over the N·D depth slices computes, for every
 * kernel depth kd, each slice's (H, W) contribution (the kD·C_out/groups outputs of a group side
 * by side: the weight permuted to [C_in, kD, C_out/groups, kH, kW]); fold then adds them up
 * along depth (col2im with a [kD, 1] kernel: slice d reaches depth d·sD + kd·dD), after which
 * the padding is cropped and the bias added.
 */
export function convTranspose3d(input: Tensor, weight: Tensor, bias?: Tensor | null, options?: ConvTranspose3dOptions): Tensor {
  const fn = 'convTranspose3d';
  const o = checkOptions<ConvTranspose3dOptions>(fn, options, {
    stride: 'integers',
    padding: 'integers',
    outputPadding: 'integers',
    groups: 'positiveInteger',
    dilation: 'integers',
  });
  const x = tensorArg(fn, 'input', input), w = tensorArg(fn, 'weight', weight), b = optTensor(fn, 'bias', bias);
  if (x.ndim !== 4 && x.ndim !== 5) throw new Error(`${fn}: Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [${dims(x.shape)}]`);
  if (w.ndim !== 5) throw new Error(`${fn}: expected 'weight' to be 5-D [inChannels, outChannels/groups, kD, kH, kW], got size [${dims(w.shape)}]`);
  if (!CONV_DTYPES.has(x.dtype) || w.dtype !== x.dtype) throw new Error(`${fn}: expected float32 or float64 input and weight of one dtype, got ${x.dtype} and ${w.dtype}`);
  if (x.device !== w.device) throw new Error(`${fn}: expected input and weight on one device, got input on '${x.device}' and weight on '${w.device}'`);
  const groups = o.groups ?? 1;
  const stride = tupleArg(fn, 'stride', o.stride ?? 1, 3, 1);
  const dilation = tupleArg(fn, 'dilation', o.dilation ?? 1, 3, 1);
  const padding = tupleArg(fn, 'padding', o.padding ?? 0, 3, 0);
  const outputPadding = tupleArg(fn, 'outputPadding', o.outputPadding ?? 0, 3, 0);
  if (outputPadding.some((p, i) => p >= stride[i]! && p >= dilation[i]!)) {
    throw new Error(`${fn}: output padding must be smaller than either stride or dilation, but got outputPadding [${dims(outputPadding)}], stride [${dims(stride)}] and dilation [${dims(dilation)}]`);
  }
  const [inC, outPerGroup, ...kernel] = w.shape as [number, number, number, number, number];
  const batched = x.ndim === 5;
  const [c, ...spatial] = x.shape.slice(batched ? 1 : 0) as [number, number, number, number];
  if (c !== inC) {
    throw new Error(`${fn}: Given transposed=1, weight of size [${dims(w.shape)}], expected input[${dims(x.shape)}] to have ${inC} channels, but got ${c} channels instead`);
  }
  if (inC % groups !== 0) {
    throw new Error(`${fn}: Given groups=${groups}, expected weight to be divisible by ${groups} at dimension 0, but got weight of size [${dims(w.shape)}] instead`);
  }
  const outC = outPerGroup * groups;
  if (b !== null && (b.ndim !== 1 || b.shape[0] !== outC)) {
    throw new Error(`${fn}: Given transposed=1, weight of size [${dims(w.shape)}], expected bias to be 1-dimensional with ${outC} elements, but got bias of size [${dims(b.shape)}] instead`);
  }
  if (spatial.some((n) => n === 0) || (batched && x.shape[0] === 0)) throw new Error(`${fn}: expected a non-empty input, got size [${dims(x.shape)}]`);
  const out = spatial.map((n, i) => (n - 1) * stride[i]! - 2 * padding[i]! + dilation[i]! * (kernel[i]! - 1) + outputPadding[i]! + 1);
  if (out.some((n) => n < 1)) {
    throw new Error(`${fn}: Given input size per channel: (${dims(spatial, ' x ')}). Calculated output size per channel: (${dims(out, ' x ')}). Output size is too small`);
  }
  const [kD] = kernel;
  const [d] = spatial;
  return tidy(() => {
    const x5 = batched ? x : ops.unsqueeze(x, 0);
    const n = x5.shape[0]!;
    // [N, C, D, H, W] → [N·D, C, H, W]; the weight's kernel depth moved next to its outputs.
    const slices = ops.reshape(ops.permute(x5, 0, 2, 1, 3, 4), [n * d, c, spatial[1]!, spatial[2]!]);
    const w2 = ops.reshape(ops.permute(w, 0, 2, 1, 3, 4), [inC, kD * outPerGroup, kernel[1]!, kernel[2]!]);
    const y = convTranspose2d(slices, w2, null, {
      stride: stride.slice(1),
      padding: padding.slice(1),
      outputPadding: outputPadding.slice(1),
      groups,
      dilation: dilation.slice(1),
    });
    const [ho, wo] = [y.shape[2]!, y.shape[3]!];
    // [N, D, g, kD, C_out/g, Ho, Wo] → fold's columns [N, (C_out·Ho·Wo)·kD, D]
    const cols = ops.reshape(ops.permute(ops.reshape(y, [n, d, groups, kD, outPerGroup, ho, wo]), 0, 2, 4, 5, 6, 3, 1), [n, outC * ho * wo * kD, d]);
    // The uncropped depth (every slice's every tap), then outputPadding's cells, then the padding cropped.
    const full = (d - 1) * stride[0]! + dilation[0]! * (kD - 1) + 1;
    let depth = ops.reshape(fold(cols, [full, 1], [kD, 1], { stride: [stride[0]!, 1], dilation: [dilation[0]!, 1] }), [n, outC, ho, wo, full]);
    if (outputPadding[0]) depth = functionOps.pad(depth, [0, outputPadding[0]]);
    depth = ops.narrow(depth, 4, padding[0]!, out[0]!);
    let result = ops.permute(depth, 0, 1, 4, 2, 3);
    if (b !== null) result = ops.add(result, ops.reshape(b, [outC, 1, 1, 1]));
    result = ops.contiguous(result);
    return batched ? result : ops.squeeze(result, 0);
  });
}
