// sg.autocast: PyTorch's automatic mixed precision. While fn runs, every op call passes its
// inputs through a hook (runtime/handles.ts setAutocastHook) that casts them as PyTorch's op
// lists say: ops that are fast and safe in the low dtype get their floating inputs in it, ops that
// need range or precision (losses, reductions, exp/log, softmax on CUDA) get them in float32, and
// ops that mix inputs (cat, stack) get the widest. float64 inputs are never cast, integer ones
// never. The casts are recorded (differentiable), so gradients arrive in the inputs' dtypes.
//
// The lists are PyTorch 1.13's, by the device that autocasts to each dtype there:
// - 'bfloat16': torch.autocast('cpu') (CPU autocast is bfloat16-only in 1.13): its lower-precision
//   list (conv1d/2d/3d, matmul, mm, bmm, baddbmm, addmm, addbmm, linear) and its float32 list
//   (conv_transpose*, the losses, avg_pool3d, reflection_pad1d); tests/data/gen_autocast.py
//   checks every op of it against torch.autocast('cpu', torch.bfloat16).
// - 'float16': torch.autocast('cuda') (torch/testing/_internal/autocast_test_lists.py,
//   AutocastTestLists): conv*, prelu, matmul, einsum, linear, bilinear's matrix products and the
//   RNN cells in float16; exp/log family, pow, softmax, logSoftmax, layerNorm, groupNorm, norm,
//   cosineSimilarity, sums, products, cumsum, logsumexp, softplus and the losses in float32;
//   binaryCrossEntropy refused, as there ("unsafe to autocast").
import type { DType, TensorHandle } from '../runtime/embind.js';
import { callOp1, handleDType, setAutocastHook, type AutocastHook } from '../runtime/handles.js';
import { checkOptions, describe } from '../runtime/options.js';
import { isFloatingDType, promoteTypes } from '../runtime/dtypes.js';

type Policy = 'lower' | 'float32' | 'promote' | 'banned';

const LOSSES_FP32 = ['mseLoss', 'l1Loss', 'smoothL1Loss', 'huberLoss', 'nllLoss', 'crossEntropy', 'binaryCrossEntropyWithLogits',
  'cosineEmbeddingLoss', 'hingeEmbeddingLoss', 'marginRankingLoss', 'tripletMarginLoss', 'poissonNllLoss', 'softMarginLoss',
  'multiMarginLoss', 'multilabelMarginLoss'];

function table(entries: [Policy, string[]][]): Map<string, Policy> {
  const m = new Map<string, Policy>();
  for (const [policy, ops] of entries) for (const op of ops) m.set(op, policy);
  return m;
}

/** Op name → what autocast does to its inputs, per autocast dtype. */
export const AUTOCAST_LISTS: Readonly<Record<'bfloat16' | 'float16', ReadonlyMap<string, Policy>>> = {
  bfloat16: table([
    ['lower', ['conv1d', 'conv2d', 'conv3d', 'conv2dReluMaxPool2d', 'matmul', 'mm', 'bmm', 'baddbmm', 'addmm', 'addbmm', 'linear']],
    // crossEntropy is log_softmax then nll_loss in PyTorch, and nll_loss is on this list; here it
    // is one op, so its input is cast before the log-softmax (the result's dtype is the same).
    ['float32', ['convTranspose1d', 'convTranspose2d', 'convTranspose3d', 'avgPool3d', 'binaryCrossEntropy', ...LOSSES_FP32]],
    ['promote', ['cat', 'stack']],
  ]),
  float16: table([
    ['lower', ['conv1d', 'conv2d', 'conv3d', 'conv2dReluMaxPool2d', 'convTranspose1d', 'convTranspose2d', 'convTranspose3d', 'prelu',
      'matmul', 'mm', 'bmm', 'baddbmm', 'addmm', 'addbmm', 'einsum', 'linear', 'rnnLayer', 'scaledDotProductAttention']],
    ['float32', ['acos', 'asin', 'cosh', 'erfinv', 'exp', 'expm1', 'log', 'log10', 'log2', 'log1p', 'reciprocal', 'rsqrt', 'sinh',
      'tan', 'pow', 'softplus', 'softmax', 'logSoftmax', 'layerNorm', 'groupNorm', 'norm', 'cosineSimilarity', 'cumprod', 'cumsum',
      'dist', 'cdist', 'prod', 'sum', 'logsumexp', 'klDiv', ...LOSSES_FP32]],
    ['promote', ['cat', 'stack', 'addcdiv', 'addcmul', 'atan2', 'bilinear', 'cross', 'dot', 'tensordot', 'scatterAdd', 'indexPut']],
    ['banned', ['binaryCrossEntropy']],
  ]),
};

export interface AutocastOptions {
  /** The low dtype: 'bfloat16' (default, as torch.autocast('cpu')) or 'float16'. */
  dtype?: DType;
  /** false runs fn without autocast (inside an outer autocast too). Default true. */
  enabled?: boolean;
}

function castTo(id: TensorHandle, dtype: DType, temps: TensorHandle[]): number {
  const cast = callOp1('cast', [id], { dtype });
  temps.push(cast);
  return cast;
}

function hookFor(low: 'bfloat16' | 'float16'): AutocastHook {
  const lists = AUTOCAST_LISTS[low];
  return (op, inputs) => {
    const policy = lists.get(op);
    if (policy === undefined) return null;
    if (policy === 'banned') {
      throw new Error(`${op}: unsafe to autocast to float16 (as torch.nn.functional.binary_cross_entropy under CUDA autocast): `
        + 'use binaryCrossEntropyWithLogits, or run it in sg.autocast({ enabled: false }, ...) with float32 inputs');
    }
    // Eligible inputs: floating and not float64 (PyTorch's autocast leaves float64 and integers).
    const dtypes = Array.from(inputs, (id) => (id ? handleDType(id) : undefined));
    const eligible = (d: DType | undefined): d is DType => d !== undefined && isFloatingDType(d) && d !== 'float64';
    let target: DType = policy === 'lower' ? low : 'float32';
    if (policy === 'promote') {
      let widest: DType | undefined;
      for (const d of dtypes) if (d !== undefined && isFloatingDType(d)) widest = widest === undefined ? d : promoteTypes(widest, d);
      if (widest === undefined) return null;
      target = widest;
    }
    if (!dtypes.some((d) => eligible(d) && d !== target)) return null;
    const temps: TensorHandle[] = [];
    const out = Array.from(inputs, (id, k) => {
      const d = dtypes[k];
      return eligible(d) && d !== target ? castTo(id, target, temps) : id;
    });
    return { inputs: out, temps };
  };
}

/**
 * Runs fn with PyTorch's autocast (torch.autocast) and returns its result. Only the synchronous
 * part of fn is autocast: the previous setting is back when fn returns (a returned Promise's later
 * ops run without it).
 */
export function autocast<T>(options: AutocastOptions, fn: () => T): T {
  const o = checkOptions<AutocastOptions>('autocast', options, { dtype: 'string', enabled: 'boolean' });
  if (typeof fn !== 'function') throw new Error(`autocast: expected fn to be a function, got ${describe(fn)}`);
  const dtype = o.dtype ?? 'bfloat16';
  if (dtype !== 'bfloat16' && dtype !== 'float16') {
    throw new Error(`autocast: expected dtype 'bfloat16' or 'float16', got '${String(dtype)}'`
      + (dtype === 'float64' ? ' (autocast lowers precision; float64 is not a lower-precision dtype, as in PyTorch)' : ''));
  }
  const prev = setAutocastHook(o.enabled === false ? null : hookFor(dtype));
  try {
    return fn();
  } finally {
    setAutocastHook(prev);
  }
}
