// torch.nn.functional's layers, activations and attention (sg.F assembles them in
// functional.ts): each turns its arguments into one callOp (bindings/README.md: layer, conv/pool
// ops) or composes ops of tensor/ops.ts; the C++ op checks shapes and values.
import { checkOperands, run, tensorArg, type Operand, type TensorLike } from '../tensor/call.js';
import { full, zeros } from '../tensor/creation.js';
import type { Device } from '../runtime/embind.js';
import { tidy } from '../runtime/memory.js';
import { maxPoolWithIndices } from './pool_indices.js';
import { ops, type DimArgs, type OptionalDimArgs } from '../tensor/ops.js';
import { keywords, type KwArgs } from '../tensor/keywords.js';
import { inPlace } from './args.js';
import { checkOptions, describe, intArg, isInteger, isOptionsObject, numberArg, type Spec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { Size, ClassIndices, ConvOptions, Conv2dOptions, ConvTransposeOptions, MaxPoolOptions, AvgPoolOptions, DropoutOptions, BatchNormOptions, InstanceNormOptions, AttentionOptions, sizeSpec, nullableSize, convPadding, optionalTensorSpec, probabilitySpec, sizeAttr, sizeArg, optTensor, withIndices, inputArg } from './functional_args.js';

// ---- layers ----

/** The (input, weight, bias) operands of a layer op, each checked and named for `fn`'s errors. */
export function layerOperands(fn: string, input: Tensor, weight: Tensor, bias: Tensor | null | undefined): Operand[] {
  return [
    ['input', inputArg(fn, input)],
    ['weight', tensorArg(fn, 'weight', weight)],
    ['bias', optTensor(fn, 'bias', bias)],
  ];
}

/** Options of F.linear beyond PyTorch's: an activation applied as the product is written. */
export interface LinearOptions {
  /**
   * 'relu', 'gelu' (erf form) or 'gelu_tanh': y = act(x·wᵀ + b) in one pass over y, with the
   * values and gradients of F.relu / F.gelu after F.linear (while a GELU graph is recorded,
   * the GELU runs as its own op: its backward needs the pre-activation). Default 'none'.
   */
  activation?: 'none' | 'relu' | 'gelu' | 'gelu_tanh';
}

export function linear(input: Tensor, weight: Tensor, bias?: Tensor | null, options?: LinearOptions): Tensor {
  const o = checkOptions<LinearOptions>('linear', options, { activation: ['none', 'relu', 'gelu', 'gelu_tanh'] });
  return run('linear', 'linear', layerOperands('linear', input, weight, bias), o.activation === undefined ? {} : { activation: o.activation });
}

export function bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias?: Tensor | null): Tensor {
  return run('bilinear', 'bilinear', [
    ['input1', tensorArg('bilinear', 'input1', input1)],
    ['input2', tensorArg('bilinear', 'input2', input2)],
    ['weight', tensorArg('bilinear', 'weight', weight)],
    ['bias', optTensor('bilinear', 'bias', bias)],
  ]);
}

export const convSpec: Spec = { stride: sizeSpec, padding: convPadding, dilation: sizeSpec, groups: 'positiveInteger' };

export function conv(name: string, input: Tensor, weight: Tensor, bias: Tensor | null | undefined, options: unknown): Tensor {
  const spec = name === 'conv2d' ? { ...convSpec, activation: ['none', 'relu'] } : convSpec;
  const o = checkOptions<Conv2dOptions>(name, options, spec);
  const padding = typeof o.padding === 'string' ? o.padding : sizeAttr(o.padding as Size | undefined);
  return run(name, name, layerOperands(name, input, weight, bias), {
    stride: sizeAttr(o.stride),
    padding,
    dilation: sizeAttr(o.dilation),
    groups: o.groups,
    ...(o.activation === undefined ? {} : { activation: o.activation }),
  });
}

/**
 * @internal nn.Sequential's fused Conv2d + ReLU + MaxPool2d (nn/container.ts): maxPool2d(relu(
 * conv2d(...))) as one op, whose convolution output is pooled as it is computed and not kept.
 * The options were checked by the modules that hold them.
 */
export function conv2dReluMaxPool2d(input: Tensor, weight: Tensor, bias: Tensor | null, conv: ConvOptions, poolKernel: Size, pool: MaxPoolOptions): Tensor {
  const padding = typeof conv.padding === 'string' ? conv.padding : sizeAttr(conv.padding as Size | undefined);
  return run('conv2d', 'conv2dReluMaxPool2d', layerOperands('conv2d', input, weight, bias), {
    stride: sizeAttr(conv.stride),
    padding,
    dilation: sizeAttr(conv.dilation),
    groups: conv.groups,
    poolKernelSize: sizeAttr(poolKernel),
    poolStride: sizeAttr(pool.stride),
    poolPadding: sizeAttr(pool.padding),
    poolDilation: sizeAttr(pool.dilation),
    poolCeilMode: pool.ceilMode,
  });
}

export function conv1d(input: Tensor, weight: Tensor, bias?: Tensor | null, options?: ConvOptions): Tensor {
  return conv('conv1d', input, weight, bias, options);
}

export function conv2d(input: Tensor, weight: Tensor, bias?: Tensor | null, options?: Conv2dOptions): Tensor {
  return conv('conv2d', input, weight, bias, options);
}

export function convTranspose2d(input: Tensor, weight: Tensor, bias?: Tensor | null, options?: ConvTransposeOptions): Tensor {
  const o = checkOptions<ConvTransposeOptions>('convTranspose2d', options, {
    stride: sizeSpec,
    padding: sizeSpec,
    outputPadding: sizeSpec,
    groups: 'positiveInteger',
    dilation: sizeSpec,
  });
  return run('convTranspose2d', 'convTranspose2d', layerOperands('convTranspose2d', input, weight, bias), {
    stride: sizeAttr(o.stride),
    padding: sizeAttr(o.padding),
    outputPadding: sizeAttr(o.outputPadding),
    groups: o.groups,
    dilation: sizeAttr(o.dilation),
  });
}

/**
 * The 1-D transposed convolution as the 2-D one over a height of 1: input [N, Cin, L] (or
 * [Cin, L]), weight [Cin, Cout/groups, k].
 */
export function convTranspose1d(input: Tensor, weight: Tensor, bias?: Tensor | null, options?: ConvTransposeOptions): Tensor {
  const fn = 'convTranspose1d';
  const o = checkOptions<ConvTransposeOptions>(fn, options, {
    stride: sizeSpec,
    padding: sizeSpec,
    outputPadding: sizeSpec,
    groups: 'positiveInteger',
    dilation: sizeSpec,
  });
  const x = tensorArg(fn, 'input', input), w = tensorArg(fn, 'weight', weight);
  if (x.ndim !== 2 && x.ndim !== 3) throw new Error(`${fn}: expected a 2-D or 3-D input ([Cin, L] or [N, Cin, L]), got shape [${x.shape.join(', ')}]`);
  if (w.ndim !== 3) throw new Error(`${fn}: expected weight of shape [Cin, Cout/groups, k], got shape [${w.shape.join(', ')}]`);
  const one = (v: Size | undefined, fallback: number, name: string): number[] => {
    const a = v === undefined ? [fallback] : typeof v === 'number' ? [v] : v.slice();
    if (a.length !== 1) throw new Error(`${fn}: expected '${name}' to be one integer, got [${a.join(', ')}]`);
    return a;
  };
  return tidy(() => {
    const out = convTranspose2d(ops.unsqueeze(x, -2), ops.unsqueeze(w, 2), bias, {
      stride: [1, ...one(o.stride, 1, 'stride')],
      padding: [0, ...one(o.padding, 0, 'padding')],
      outputPadding: [0, ...one(o.outputPadding, 0, 'outputPadding')],
      groups: o.groups,
      dilation: [1, ...one(o.dilation, 1, 'dilation')],
    });
    return ops.squeeze(out, -2);
  });
}

/** maxPool1d/2d: the output, or with returnIndices [output, indices] (int32 flat positions in each plane, nn/pool_indices.ts). */
export interface MaxPoolFn {
  (input: Tensor, kernelSize: Size, options: MaxPoolOptions & { returnIndices: true }): [Tensor, Tensor];
  (input: Tensor, kernelSize: Size, options?: MaxPoolOptions): Tensor;
}

export function maxPool(name: string, input: Tensor, kernelSize: Size, options: unknown): Tensor | [Tensor, Tensor] {
  const o = checkOptions<MaxPoolOptions>(name, options, {
    stride: nullableSize,
    padding: sizeSpec,
    dilation: sizeSpec,
    ceilMode: 'boolean',
    returnIndices: 'boolean',
  });
  const kernel = sizeArg(name, 'kernelSize', kernelSize);
  const pool = (x: Tensor) => run(name, name, [['input', inputArg(name, x)]], {
    kernelSize: kernel,
    stride: sizeAttr(o.stride),
    padding: sizeAttr(o.padding),
    dilation: sizeAttr(o.dilation),
    ceilMode: o.ceilMode,
  });
  if (!o.returnIndices) return pool(input);
  const dims = name === 'maxPool1d' ? 1 : 2;
  const tuple = (v: Size | null | undefined, fallback: Size) => {
    const a = v === null || v === undefined ? fallback : v;
    return typeof a === 'number' ? new Array<number>(dims).fill(a) : a.length === 1 ? new Array<number>(dims).fill(a[0]!) : a.slice();
  };
  return maxPoolWithIndices(name, dims, input, {
    kernel: tuple(kernel, 1),
    stride: tuple(o.stride, kernel),
    padding: tuple(o.padding, 0),
    dilation: tuple(o.dilation, 1),
    ceilMode: o.ceilMode ?? false,
  }, pool);
}

export function avgPool(name: string, input: Tensor, kernelSize: Size, options: unknown): Tensor {
  const o = checkOptions<AvgPoolOptions>(name, options, {
    stride: nullableSize,
    padding: sizeSpec,
    ceilMode: 'boolean',
    countIncludePad: 'boolean',
    divisorOverride: { check: (v) => v === null, expected: 'null (divisorOverride is not supported)' },
  });
  return run(name, name, [['input', inputArg(name, input)]], {
    kernelSize: sizeArg(name, 'kernelSize', kernelSize),
    stride: sizeAttr(o.stride),
    padding: sizeAttr(o.padding),
    ceilMode: o.ceilMode,
    countIncludePad: o.countIncludePad,
  });
}

export const maxPool1d = ((input: Tensor, kernelSize: Size, options?: MaxPoolOptions) => maxPool('maxPool1d', input, kernelSize, options)) as MaxPoolFn;
export const maxPool2d = ((input: Tensor, kernelSize: Size, options?: MaxPoolOptions) => maxPool('maxPool2d', input, kernelSize, options)) as MaxPoolFn;
export const avgPool1d = (input: Tensor, kernelSize: Size, options?: AvgPoolOptions): Tensor => avgPool('avgPool1d', input, kernelSize, options);
export const avgPool2d = (input: Tensor, kernelSize: Size, options?: AvgPoolOptions): Tensor => avgPool('avgPool2d', input, kernelSize, options);

/** outputSize: a number, or [h, w] where null keeps that input size (PyTorch's None). */
export function adaptiveAvgPool2d(input: Tensor, outputSize: number | readonly (number | null)[]): Tensor {
  const x = inputArg('adaptiveAvgPool2d', input);
  let size: number | number[];
  if (Array.isArray(outputSize) && outputSize.length === 2 && outputSize.some((v) => v === null)) {
    const shape = x.shape;
    size = outputSize.map((v, i) => (v === null ? shape[shape.length - 2 + i]! : v)) as number[];
    sizeArg('adaptiveAvgPool2d', 'outputSize', size);
  } else size = sizeArg('adaptiveAvgPool2d', 'outputSize', outputSize);
  return run('adaptiveAvgPool2d', 'adaptiveAvgPool2d', [['input', x]], { outputSize: size });
}

/** [N, C, L] or [C, L] → L pooled to outputSize (through adaptiveAvgPool2d over [.., 1, L]). */
export function adaptiveAvgPool1d(input: Tensor, outputSize: number | readonly number[]): Tensor {
  const x = inputArg('adaptiveAvgPool1d', input);
  const s = sizeArg('adaptiveAvgPool1d', 'outputSize', outputSize);
  const n = typeof s === 'number' ? s : s.length === 1 ? s[0]! : NaN;
  if (!isInteger(n)) throw new Error(`adaptiveAvgPool1d: expected 'outputSize' to be one integer, got ${describe(outputSize)}`);
  return tidy(() => adaptiveAvgPool2d(x.unsqueeze(-2), [1, n]).squeeze(-2));
}

export function dropoutArgs(fn: string, pOrOptions: unknown, training: unknown, inplace?: unknown): { p: number; training: boolean; inplace?: boolean } {
  if (pOrOptions === undefined || pOrOptions === null || isOptionsObject(pOrOptions)) {
    if (training !== undefined || inplace !== undefined) throw new Error(`${fn}: expected (input, options?) or (input, p, training?, inplace?), got an options object and more`);
    const o = checkOptions<DropoutOptions>(fn, pOrOptions, { p: probabilitySpec, training: 'boolean', inplace: 'boolean' });
    return { p: o.p ?? 0.5, training: o.training ?? true, inplace: o.inplace };
  }
  const p = numberArg(fn, 'p', pOrOptions);
  if (training !== undefined && typeof training !== 'boolean') throw new Error(`${fn}: expected 'training' to be a boolean, got ${describe(training)}`);
  if (inplace !== undefined && typeof inplace !== 'boolean') throw new Error(`${fn}: expected 'inplace' to be a boolean, got ${describe(inplace)}`);
  return { p, training: training ?? true, inplace };
}

/** dropout(x, { p = 0.5, training = true, inplace = false }) or dropout(x, p, training, inplace). */
export function dropout(input: Tensor, pOrOptions?: number | DropoutOptions, training?: boolean, inplace?: boolean): Tensor {
  const a = dropoutArgs('dropout', pOrOptions, training, inplace);
  const x = inputArg('dropout', input);
  return inPlace(a.inplace, x, run('dropout', 'dropout', [['input', x]], { p: a.p, training: a.training }));
}

/** Channel dropout of [N, C, H, W] (or unbatched [C, H, W]). */
export function dropout2d(input: Tensor, pOrOptions?: number | DropoutOptions, training?: boolean, inplace?: boolean): Tensor {
  const a = dropoutArgs('dropout2d', pOrOptions, training, inplace);
  const x = inputArg('dropout2d', input);
  return inPlace(a.inplace, x, run('dropout2d', 'dropout2d', [['input', x]], { p: a.p, training: a.training }));
}

export function layerNorm(input: Tensor, normalizedShape: number | readonly number[], weight?: Tensor | null, bias?: Tensor | null, options?: { eps?: number }): Tensor {
  const o = checkOptions<{ eps: number }>('layerNorm', options, { eps: 'number' });
  const shape = sizeArg('layerNorm', 'normalizedShape', normalizedShape);
  return run(
    'layerNorm',
    'layerNorm',
    [
      ['input', inputArg('layerNorm', input)],
      ['weight', optTensor('layerNorm', 'weight', weight)],
      ['bias', optTensor('layerNorm', 'bias', bias)],
    ],
    { normalizedShape: typeof shape === 'number' ? [shape] : shape, eps: o.eps },
  );
}

/** Updates runningMean / runningVar in place when training (PyTorch's F.batch_norm). */
export function batchNorm(
  input: Tensor,
  runningMean: Tensor | null,
  runningVar: Tensor | null,
  weight?: Tensor | null,
  bias?: Tensor | null,
  options?: BatchNormOptions,
): Tensor {
  const o = checkOptions<BatchNormOptions>('batchNorm', options, { training: 'boolean', momentum: 'number', eps: 'number' });
  return run(
    'batchNorm',
    'batchNorm',
    [
      ['input', inputArg('batchNorm', input)],
      ['runningMean', optTensor('batchNorm', 'runningMean', runningMean)],
      ['runningVar', optTensor('batchNorm', 'runningVar', runningVar)],
      ['weight', optTensor('batchNorm', 'weight', weight)],
      ['bias', optTensor('batchNorm', 'bias', bias)],
    ],
    { training: o.training, momentum: o.momentum, eps: o.eps },
  );
}

export function groupNorm(input: Tensor, numGroups: number, weight?: Tensor | null, bias?: Tensor | null, options?: { eps?: number }): Tensor {
  const o = checkOptions<{ eps: number }>('groupNorm', options, { eps: 'number' });
  return run(
    'groupNorm',
    'groupNorm',
    [
      ['input', inputArg('groupNorm', input)],
      ['weight', optTensor('groupNorm', 'weight', weight)],
      ['bias', optTensor('groupNorm', 'bias', bias)],
    ],
    { numGroups: intArg('groupNorm', 'numGroups', numGroups), eps: o.eps },
  );
}

export function instanceNorm(
  input: Tensor,
  runningMean?: Tensor | null,
  runningVar?: Tensor | null,
  weight?: Tensor | null,
  bias?: Tensor | null,
  options?: InstanceNormOptions,
): Tensor {
  const o = checkOptions<InstanceNormOptions>('instanceNorm', options, { useInputStats: 'boolean', momentum: 'number', eps: 'number' });
  return run(
    'instanceNorm',
    'instanceNorm',
    [
      ['input', inputArg('instanceNorm', input)],
      ['runningMean', optTensor('instanceNorm', 'runningMean', runningMean)],
      ['runningVar', optTensor('instanceNorm', 'runningVar', runningVar)],
      ['weight', optTensor('instanceNorm', 'weight', weight)],
      ['bias', optTensor('instanceNorm', 'bias', bias)],
    ],
    { useInputStats: o.useInputStats, momentum: o.momentum, eps: o.eps },
  );
}

/** Rows of weight [n, d] picked by int32 indices (or an integer array) → indices.shape + [d]. */
export function embedding(input: ClassIndices, weight: Tensor, options?: { paddingIdx?: number | null }): Tensor {
  const o = checkOptions<{ paddingIdx: number | null }>('embedding', options, {
    paddingIdx: { check: (v) => v === null || isInteger(v), expected: 'an integer or null' },
  });
  const w = tensorArg('embedding', 'weight', weight);
  return withIndices('embedding', 'input', input, (ix) =>
    run('embedding', 'embedding', [['weight', w], ['input', ix]], { paddingIdx: o.paddingIdx ?? undefined }),
  w.device);
}

/** int32 one-hot rows; numClasses −1 means max + 1 (also `{ numClasses }`). */
export const oneHot = keywords('oneHot', ['numClasses'], (input: ClassIndices, numClasses: unknown = -1): Tensor => {
  const n = intArg('oneHot', 'numClasses', numClasses);
  return withIndices('oneHot', 'input', input, (ix) => run('oneHot', 'oneHot', [['input', ix]], { numClasses: n }));
}) as (input: ClassIndices, ...args: KwArgs<[], [numClasses: number], { numClasses?: number }>) => Tensor;

/** x / max(‖x‖_p over dim, eps) (F.normalize). */
export function normalize(input: Tensor, options?: { p?: number; dim?: number; eps?: number }): Tensor {
  const o = checkOptions<{ p: number; dim: number; eps: number }>('normalize', options, { p: 'numberOrInfinity', dim: 'integer', eps: 'number' });
  const x = inputArg('normalize', input);
  return tidy(() => x.div(x.norm(o.p ?? 2, o.dim ?? 1, true).clamp(o.eps ?? 1e-12, null)));
}

// ---- activations that are compositions of ops ----

export function hardtanh(input: TensorLike, options?: { minVal?: number; maxVal?: number }): Tensor {
  const o = checkOptions<{ minVal: number; maxVal: number }>('hardtanh', options, { minVal: 'number', maxVal: 'number' });
  const lo = o.minVal ?? -1;
  const hi = o.maxVal ?? 1;
  if (lo > hi) throw new Error(`hardtanh: expected minVal <= maxVal, got minVal ${lo} and maxVal ${hi}`);
  return clampActivation('hardtanh', input, lo, hi);
}

/** hardtanh under the name the user called (hardtanh, relu6), for its error messages. */
export function clampActivation(name: string, input: TensorLike, lo: number, hi: number): Tensor {
  // Not clamp: hardtanh's gradient is 0 at the bounds themselves (PyTorch's hardtanh_backward).
  return run(name, 'hardtanh', [['input', input]], { minVal: lo, maxVal: hi });
}

export const relu6 = (input: TensorLike): Tensor => clampActivation('relu6', input, 0, 6);
// These compositions check their input first: else a wrong one was reported by the first op they
// run ("softplus: expected 'input' ..." from mish).
const composite = (fn: string, input: TensorLike, f: () => Tensor): Tensor => (checkOperands(fn, ['input', input]), tidy(f));
export const logsigmoid = (input: TensorLike): Tensor => composite('logsigmoid', input, () => ops.softplus(ops.neg(input)).neg());
export const mish = (input: TensorLike): Tensor => composite('mish', input, () => ops.mul(input, ops.softplus(input).tanh()));
// hardtanh (not clamp) so that the gradient is 0 at ±3, as PyTorch's hardsigmoid_backward; hardswish's
// clamp gives PyTorch's values there (−0.5 and 1.5).
export const hardsigmoid = (input: TensorLike): Tensor => composite('hardsigmoid', input, () => hardtanh(ops.add(input, 3), { minVal: 0, maxVal: 6 }).div(6));
export const hardswish = (input: TensorLike): Tensor => composite('hardswish', input, () => ops.mul(input, ops.clamp(ops.add(input, 3), 0, 6).div(6)));
export const softsign = (input: TensorLike): Tensor => composite('softsign', input, () => ops.div(input, ops.abs(input).add(1)));
export const softmin = keywords('softmin', ['dim'], (input: TensorLike, dim: unknown): Tensor => {
  checkOperands('softmin', ['input', input]);
  const d = intArg('softmin', 'dim', dim);
  return tidy(() => ops.softmax(ops.neg(input), d));
}) as (input: TensorLike, ...args: DimArgs) => Tensor;

/** First half of dim (default -1; also `{ dim }`) times sigmoid of the second half. */
export const glu = keywords('glu', ['dim'], (input: Tensor, dim: unknown = -1): Tensor => {
  const x = inputArg('glu', input);
  const d = intArg('glu', 'dim', dim);
  const shape = x.shape;
  const size = shape[d < 0 ? d + shape.length : d];
  if (size !== undefined && size % 2 !== 0) {
    throw new Error(`glu: halving dimension must be even, but dim ${d} of the input of shape [${shape.join(', ')}] has size ${size}`);
  }
  return tidy(() => {
    const [a, b] = x.chunk(2, d) as [Tensor, Tensor];
    return a.mul(b.sigmoid());
  });
}) as (input: Tensor, ...args: OptionalDimArgs) => Tensor;

// ---- attention ----

/** A float mask added to scores: bool masks become 0 / −∞ (−∞ where `maskedWhere` is the mask's value). */
export function additiveMask(mask: Tensor, maskedWhere: boolean): Tensor {
  if (mask.dtype === 'float32') return mask;
  if (mask.dtype !== 'bool') throw new Error(`attention: expected a bool or float32 mask, got ${mask.dtype}`);
  return tidy(() => {
    const masked = maskedWhere ? mask : mask.eq(false);
    return zeros(mask.shape).maskedFill(masked, -Infinity);
  });
}

/**
 * softmax(q·kᵀ·scale + mask)·v over the last two dims (batch dims broadcast), with dropout on
 * the weights; returns [output, weights]. q is scaled before the product, as PyTorch 1.13's
 * multi_head_attention_forward does. mask: a float mask (already additive), null, or 'causal'
 * (causalSoftmax: the causal mask without its [L, S] tensor).
 */
export function attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | null | 'causal', dropoutP: number, scale: number): [Tensor, Tensor] {
  return tidy(() => {
    const scores = q.mul(scale).matmul(k.transpose(-2, -1));
    let weights = mask === 'causal' ? causalSoftmax(scores) : (mask === null ? scores : scores.add(mask)).softmax(-1);
    if (dropoutP > 0) weights = dropout(weights, { p: dropoutP, training: true });
    return [weights.matmul(v), weights] as [Tensor, Tensor];
  });
}

/** The options of F.scaledDotProductAttention (PyTorch 2.5's keywords). */
export interface SDPAOptions {
  dropoutP?: number;
  isCausal?: boolean;
  /** Defaults to 1 / √(query.size(-1)). */
  scale?: number | null;
  /** Grouped-query attention: key/value with Hkv heads (dim −3) serve query's Hq heads (Hq a multiple of Hkv), each kv head repeated Hq/Hkv times. */
  enableGqa?: boolean;
}

/**
 * PyTorch 2.5's F.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
 * scale, enable_gqa) (the math path): attnMask is positional (a bool mask, true = take part, or
 * a float mask that is added; null or left out for none), the rest in the options object. The
 * older form with the mask inside the options (f(q, k, v, { attnMask, isCausal })) is still
 * read when the fourth argument is a plain object and there is no fifth: a Tensor or null is
 * never a plain object, so the two forms cannot be confused.
 */
export function scaledDotProductAttention(query: Tensor, key: Tensor, value: Tensor, attnMask?: Tensor | null | (SDPAOptions & AttentionOptions), options?: SDPAOptions): Tensor {
  const fn = 'scaledDotProductAttention';
  let mask: Tensor | null;
  let opts: unknown = options;
  if (isOptionsObject(attnMask)) {
    if (options !== undefined) throw new Error(`${fn}: expected 'attnMask' (4th argument) to be a Tensor or null when options are given 5th, got ${describe(attnMask)}`);
    const { attnMask: m, ...rest } = attnMask as AttentionOptions & SDPAOptions;
    mask = optTensor(fn, 'attnMask', m);
    opts = rest;
  } else mask = optTensor(fn, 'attnMask', attnMask);
  const o = checkOptions<SDPAOptions>(fn, opts, {
    dropoutP: probabilitySpec,
    isCausal: 'boolean',
    scale: { check: (v) => v === null || (typeof v === 'number' && Number.isFinite(v)), expected: 'a finite number or null' },
    enableGqa: 'boolean',
  });
  const q = tensorArg(fn, 'query', query);
  let k = tensorArg(fn, 'key', key);
  let v = tensorArg(fn, 'value', value);
  if (q.ndim < 2 || k.ndim < 2) throw new Error(`${fn}: expected query and key with at least 2 dims, got [${q.shape.join(', ')}] and [${k.shape.join(', ')}]`);
  if (o.isCausal && mask) throw new Error(`${fn}: attnMask and isCausal cannot both be set`);
  const scale = o.scale ?? 1 / Math.sqrt(q.shape[q.ndim - 1]!);
  return tidy(() => {
    if (o.enableGqa && q.ndim >= 3 && k.ndim >= 3 && v.ndim >= 3) {
      const hq = q.shape[q.ndim - 3]!;
      const hk = k.shape[k.ndim - 3]!;
      const hv = v.shape[v.ndim - 3]!;
      if (hk === 0 || hv === 0 || hq % hk !== 0 || hq % hv !== 0) {
        throw new Error(`${fn}: enableGqa needs query's heads (${hq}) to be a multiple of key's (${hk}) and value's (${hv}) (dim -3)`);
      }
      if (hq !== hk) k = k.repeatInterleave(hq / hk, k.ndim - 3);
      if (hq !== hv) v = v.repeatInterleave(hq / hv, v.ndim - 3);
    }
    const m = mask ? additiveMask(mask, false) : o.isCausal ? 'causal' : null;
    return attention(q, k, v, m, o.dropoutP ?? 0, scale)[0];
  });
}

/**
 * [L, S] float mask: −∞ above the diagonal (position i sees j ≤ i). Made by ops (full, triu) rather
 * than from JavaScript data, so that sg.onnx.export computes it from the runtime sequence length.
 * Made on `device` (default: the default device): one made elsewhere and moved costs a transfer, and
 * a copy moved to the cpu cannot be used before it has arrived.
 */
export function causalMask(L: number, S: number, device?: Device): Tensor {
  return tidy(() => full([L, S], -Infinity, device === undefined ? undefined : { device }).triu(1));
}

/**
 * softmax(scores + causalMask(L, S)) over the last dim of scores [..., L, S], without the mask: the
 * op causalSoftmax, whose row kernel reads the entries j ≤ i only and writes 0 past them (sg.onnx
 * exports it as causalMask's nodes, Add and Softmax). float32 and float64 scores run the op (float64
 * rows by the reference loop, in double, on every CPU backend); 16-bit scores run it in float32 and
 * come back in their own dtype, as PyTorch's softmax of a bfloat16/float16 tensor (computed in float,
 * rounded once) and HF's attention, which builds its mask in the scores' dtype. (Before, they took
 * the composed form, whose float32 mask promoted them: a bfloat16 model's attention then returned
 * float32, and every later activation of the model, and its head's weight, became float32.)
 */
export function causalSoftmax(scores: Tensor): Tensor {
  if (scores.dtype === 'float32' || scores.dtype === 'float64') return run('causalSoftmax', 'causalSoftmax', [['input', scores]]);
  if (scores.dtype === 'bfloat16' || scores.dtype === 'float16') {
    return tidy(() => run('causalSoftmax', 'causalSoftmax', [['input', scores.to('float32')]]).to(scores.dtype));
  }
  return tidy(() => scores.add(causalMask(scores.shape[scores.ndim - 2]!, scores.shape[scores.ndim - 1]!, scores.device)).softmax(-1));
}

