// sg.F: torch.nn.functional. Tensors are positional (optional ones may be null or left out),
// scalars and flags go in a trailing options object checked by checkOptions (unknown names
// are errors). Each function only turns its arguments into one callOp (bindings/README.md:
// layer, conv/pool and loss ops) or composes ops of ops.ts; the C++ op checks shapes and
// values. Activations that exist as ops are the very same functions as sg.relu etc.
import { interpolate } from './interpolate.js';
import { celu, hardshrink, rrelu, softmax2d, softshrink, tanhshrink, threshold } from './activations_composed.js';
import { affineGrid, gridSample } from './grid_sample.js';
import { multilabelMarginLoss, multiMarginLoss, softMarginLoss, tripletMarginWithDistanceLoss } from './loss_margin.js';
import { fold, unfold } from './unfold.js';
import { embeddingBag } from './embedding_bag.js';
import { rmsNorm } from './rms_norm.js';
import { ctcLoss } from './ctc_loss.js';
import { alphaDropout, channelShuffle, dropout1d, dropout3d, featureAlphaDropout, localResponseNorm, lpPool1d, lpPool2d } from './layers_composed.js';
import { adaptiveMaxPool1d, adaptiveMaxPool2d, maxUnpool1d, maxUnpool2d } from './pool_indices.js';
import { conv3d, convTranspose3d } from './conv3d.js';
import { adaptiveAvgPool3d, adaptiveMaxPool3d, avgPool3d, maxPool3d } from './pool3d.js';
import { gaussianNllLoss, hingeEmbeddingLoss, marginRankingLoss, multilabelSoftMarginLoss, poissonNllLoss, sigmoidFocalLoss, tripletMarginLoss } from './loss_functions.js';
import { functionOps, ops } from '../tensor/ops.js';
import { functionalMore } from './distance_pixel_shuffle.js';
import { Tensor } from '../tensor/tensor.js';
import { Size, MaxPoolOptions, AvgPoolOptions } from './functional_args.js';
import { linear, bilinear, conv1d, conv2d, convTranspose2d, convTranspose1d, maxPool1d, maxPool2d, avgPool1d, avgPool2d, adaptiveAvgPool2d, adaptiveAvgPool1d, dropout, dropout2d, layerNorm, batchNorm, groupNorm, instanceNorm, embedding, oneHot, normalize, hardtanh, relu6, logsigmoid, mish, hardsigmoid, hardswish, softsign, softmin, glu, scaledDotProductAttention } from './functional_layers.js';
import { crossEntropy, nllLoss, mseLoss, l1Loss, smoothL1Loss, huberLoss, binaryCrossEntropy, binaryCrossEntropyWithLogits, klDiv, cosineEmbeddingLoss } from './functional_losses.js';
export * from './functional_args.js';
export { additiveMask, attention, causalMask, causalSoftmax, conv2dReluMaxPool2d, type LinearOptions } from './functional_layers.js';

/** sg.F (also sg.nn.functional). */
export const F = {
  // activations (the same functions as sg.relu, sg.softmax, ...)
  relu: ops.relu,
  leakyRelu: ops.leakyRelu,
  prelu: ops.prelu,
  elu: ops.elu,
  selu: ops.selu,
  gelu: ops.gelu,
  sigmoid: ops.sigmoid,
  tanh: ops.tanh,
  softplus: ops.softplus,
  silu: ops.silu,
  softmax: ops.softmax,
  logSoftmax: ops.logSoftmax,
  relu6,
  hardtanh,
  logsigmoid,
  mish,
  hardsigmoid,
  hardswish,
  softsign,
  softmin,
  glu,
  hardshrink,
  softshrink,
  tanhshrink,
  celu,
  threshold,
  rrelu,
  softmax2d,
  // layers
  linear,
  bilinear,
  conv1d,
  conv2d,
  conv3d,
  convTranspose1d,
  convTranspose2d,
  convTranspose3d,
  maxPool1d,
  maxPool2d,
  adaptiveMaxPool1d,
  adaptiveMaxPool2d,
  maxUnpool1d,
  maxUnpool2d,
  avgPool1d,
  avgPool2d,
  adaptiveAvgPool1d,
  adaptiveAvgPool2d,
  maxPool3d,
  avgPool3d,
  adaptiveAvgPool3d,
  adaptiveMaxPool3d,
  dropout,
  dropout1d,
  dropout2d,
  dropout3d,
  alphaDropout,
  featureAlphaDropout,
  localResponseNorm,
  lpPool1d,
  lpPool2d,
  channelShuffle,
  layerNorm,
  rmsNorm,
  batchNorm,
  groupNorm,
  instanceNorm,
  pad: functionOps.pad,
  embedding,
  embeddingBag,
  oneHot,
  normalize,
  scaledDotProductAttention,
  interpolate,
  unfold,
  fold,
  affineGrid,
  gridSample,
  ...functionalMore,
  // losses
  crossEntropy,
  nllLoss,
  mseLoss,
  l1Loss,
  smoothL1Loss,
  huberLoss,
  binaryCrossEntropy,
  binaryCrossEntropyWithLogits,
  klDiv,
  cosineEmbeddingLoss,
  tripletMarginLoss,
  marginRankingLoss,
  hingeEmbeddingLoss,
  multilabelSoftMarginLoss,
  poissonNllLoss,
  gaussianNllLoss,
  sigmoidFocalLoss,
  softMarginLoss,
  multiMarginLoss,
  multilabelMarginLoss,
  tripletMarginWithDistanceLoss,
  ctcLoss,
};

export type Functional = typeof F;
