// sg.nn: the modules, sg.nn.init, sg.nn.utils and sg.nn.functional (= sg.F), in one object.
import { F } from './functional.js';
import * as act from './activation_modules.js';
import { MultiheadAttention } from './attention.js';
import { ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential } from './container.js';
import { Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d } from './conv.js';
import { AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d } from './pool3d.js';
import { Fold, Unfold } from './unfold.js';
import { AdaptiveMaxPool1d, AdaptiveMaxPool2d, MaxUnpool1d, MaxUnpool2d } from './pool_indices.js';
import { Dropout, Dropout2d } from './dropout.js';
import { Embedding } from './embedding.js';
import { EmbeddingBag } from './embedding_bag.js';
import { CTCLoss } from './ctc_loss.js';
import * as more from './layers_composed.js';
import { init } from './init.js';
import { Upsample, UpsamplingBilinear2d, UpsamplingNearest2d } from './interpolate.js';
import { Bilinear, Flatten, Identity, Linear, Unflatten } from './linear.js';
import * as losses from './loss_modules.js';
import { Module, Parameter } from './module.js';
import { BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LayerNorm } from './norm.js';
import { RMSNorm } from './rms_norm.js';
import { GRU, GRUCell, LSTM, LSTMCell, RNN, RNNCell } from './rnn.js';
import { AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d } from './pool.js';
import {
  generateSquareSubsequentMask,
  PositionalEncoding,
  Transformer,
  TransformerDecoder,
  TransformerDecoderLayer,
  TransformerEncoder,
  TransformerEncoderLayer,
} from './transformer.js';
import { utils } from './utils.js';
import * as rearrange from './rearrange_modules.js';

export const nn = {
  Module,
  Parameter,
  // layers
  Linear,
  Bilinear,
  Identity,
  Flatten,
  Unflatten,
  Conv1d,
  Conv2d,
  Conv3d,
  ConvTranspose1d,
  ConvTranspose2d,
  ConvTranspose3d,
  Unfold,
  Fold,
  MaxPool1d,
  MaxPool2d,
  AvgPool1d,
  AvgPool2d,
  AdaptiveAvgPool1d,
  AdaptiveAvgPool2d,
  AdaptiveMaxPool1d,
  AdaptiveMaxPool2d,
  MaxPool3d,
  AvgPool3d,
  AdaptiveAvgPool3d,
  AdaptiveMaxPool3d,
  MaxUnpool1d,
  MaxUnpool2d,
  BatchNorm1d,
  BatchNorm2d,
  BatchNorm3d,
  InstanceNorm3d,
  Dropout1d: more.Dropout1d,
  Dropout3d: more.Dropout3d,
  AlphaDropout: more.AlphaDropout,
  FeatureAlphaDropout: more.FeatureAlphaDropout,
  LocalResponseNorm: more.LocalResponseNorm,
  LPPool1d: more.LPPool1d,
  LPPool2d: more.LPPool2d,
  ChannelShuffle: more.ChannelShuffle,
  ConstantPad3d: rearrange.ConstantPad3d,
  ReflectionPad3d: rearrange.ReflectionPad3d,
  ReplicationPad3d: rearrange.ReplicationPad3d,
  InstanceNorm1d,
  InstanceNorm2d,
  LayerNorm,
  RMSNorm,
  GroupNorm,
  Dropout,
  Dropout2d,
  Embedding,
  EmbeddingBag,
  Upsample,
  UpsamplingNearest2d,
  UpsamplingBilinear2d,
  PixelShuffle: rearrange.PixelShuffle,
  PixelUnshuffle: rearrange.PixelUnshuffle,
  CosineSimilarity: rearrange.CosineSimilarity,
  PairwiseDistance: rearrange.PairwiseDistance,
  ZeroPad2d: rearrange.ZeroPad2d,
  ConstantPad1d: rearrange.ConstantPad1d,
  ConstantPad2d: rearrange.ConstantPad2d,
  ReflectionPad1d: rearrange.ReflectionPad1d,
  ReflectionPad2d: rearrange.ReflectionPad2d,
  ReplicationPad1d: rearrange.ReplicationPad1d,
  ReplicationPad2d: rearrange.ReplicationPad2d,
  // activations
  ReLU: act.ReLU,
  ReLU6: act.ReLU6,
  LeakyReLU: act.LeakyReLU,
  PReLU: act.PReLU,
  ELU: act.ELU,
  SELU: act.SELU,
  GELU: act.GELU,
  Sigmoid: act.Sigmoid,
  Tanh: act.Tanh,
  SiLU: act.SiLU,
  Mish: act.Mish,
  Softplus: act.Softplus,
  Softsign: act.Softsign,
  Hardshrink: act.Hardshrink,
  Softshrink: act.Softshrink,
  Tanhshrink: act.Tanhshrink,
  CELU: act.CELU,
  Threshold: act.Threshold,
  RReLU: act.RReLU,
  Softmax2d: act.Softmax2d,
  Hardtanh: act.Hardtanh,
  Hardsigmoid: act.Hardsigmoid,
  Hardswish: act.Hardswish,
  LogSigmoid: act.LogSigmoid,
  Softmax: act.Softmax,
  LogSoftmax: act.LogSoftmax,
  Softmin: act.Softmin,
  GLU: act.GLU,
  // containers
  Sequential,
  ModuleList,
  ModuleDict,
  ParameterList,
  ParameterDict,
  // recurrent layers
  RNN,
  LSTM,
  GRU,
  RNNCell,
  LSTMCell,
  GRUCell,
  // attention and transformers
  MultiheadAttention,
  TransformerEncoderLayer,
  TransformerDecoderLayer,
  TransformerEncoder,
  TransformerDecoder,
  Transformer,
  PositionalEncoding,
  generateSquareSubsequentMask,
  // losses
  CrossEntropyLoss: losses.CrossEntropyLoss,
  NLLLoss: losses.NLLLoss,
  MSELoss: losses.MSELoss,
  L1Loss: losses.L1Loss,
  SmoothL1Loss: losses.SmoothL1Loss,
  HuberLoss: losses.HuberLoss,
  BCELoss: losses.BCELoss,
  BCEWithLogitsLoss: losses.BCEWithLogitsLoss,
  KLDivLoss: losses.KLDivLoss,
  CosineEmbeddingLoss: losses.CosineEmbeddingLoss,
  TripletMarginLoss: losses.TripletMarginLoss,
  MarginRankingLoss: losses.MarginRankingLoss,
  HingeEmbeddingLoss: losses.HingeEmbeddingLoss,
  MultiLabelSoftMarginLoss: losses.MultiLabelSoftMarginLoss,
  SoftMarginLoss: losses.SoftMarginLoss,
  MultiMarginLoss: losses.MultiMarginLoss,
  MultiLabelMarginLoss: losses.MultiLabelMarginLoss,
  TripletMarginWithDistanceLoss: losses.TripletMarginWithDistanceLoss,
  CTCLoss,
  PoissonNLLLoss: losses.PoissonNLLLoss,
  GaussianNLLLoss: losses.GaussianNLLLoss,
  // namespaces
  init,
  utils,
  functional: F,
};

export type NN = typeof nn;
export { Module, Parameter } from './module.js';
export type { LoadResult, StateDict, StateDictOptions } from './module.js';
