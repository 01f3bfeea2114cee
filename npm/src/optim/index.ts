// sg.optim: the optimizers (each step one C++ call per param group) and sg.optim.lrScheduler.
import { Adadelta } from './adadelta.js';
import { Adagrad } from './adagrad.js';
import { Adam } from './adam.js';
import { Adamax } from './adamax.js';
import { AdamW } from './adamw.js';
import { CosineAnnealingLR, ExponentialLR, LinearLR, LRScheduler, MultiStepLR, OneCycleLR, ReduceLROnPlateau, StepLR } from './lr_scheduler.js';
import { LBFGS } from './lbfgs.js';
import { NAdam } from './nadam.js';
import { ChainedScheduler, SequentialLR } from './lr_scheduler_compose.js';
import { CosineAnnealingWarmRestarts, CyclicLR } from './lr_scheduler_cyclic.js';
import { ConstantLR, LambdaLR, MultiplicativeLR, PolynomialLR } from './lr_scheduler_factor.js';
import { Optimizer } from './optimizer.js';
import { RAdam } from './radam.js';
import { RMSprop } from './rmsprop.js';
import { SGD } from './sgd.js';

export const lrScheduler = {
  LRScheduler,
  StepLR,
  MultiStepLR,
  ExponentialLR,
  CosineAnnealingLR,
  LinearLR,
  OneCycleLR,
  ReduceLROnPlateau,
  LambdaLR,
  MultiplicativeLR,
  ConstantLR,
  PolynomialLR,
  CosineAnnealingWarmRestarts,
  CyclicLR,
  SequentialLR,
  ChainedScheduler,
};

export const optim = {
  Optimizer,
  SGD,
  Adam,
  AdamW,
  RMSprop,
  Adagrad,
  Adadelta,
  Adamax,
  NAdam,
  RAdam,
  LBFGS,
  lrScheduler,
};

export { Optimizer, SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, LBFGS };
export { LRScheduler, StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR, OneCycleLR, ReduceLROnPlateau };
export { LambdaLR, MultiplicativeLR, ConstantLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR, ChainedScheduler };
export type { LrLambda, ConstantLROptions, PolynomialLROptions } from './lr_scheduler_factor.js';
export type { CosineAnnealingWarmRestartsOptions, CyclicLROptions, CyclicMode } from './lr_scheduler_cyclic.js';
export type { SequentialLROptions } from './lr_scheduler_compose.js';
export type { ParamGroup, ParamGroupInput, ParamsInput, ParamState, OptimizerStateDict } from './optimizer.js';
export type { SGDOptions } from './sgd.js';
export type { AdamOptions } from './adam.js';
export type { AdamWOptions } from './adamw.js';
export type { RMSpropOptions } from './rmsprop.js';
export type { AdagradOptions } from './adagrad.js';
export type { AdadeltaOptions } from './adadelta.js';
export type { AdamaxOptions } from './adamax.js';
export type { NAdamOptions } from './nadam.js';
export type { RAdamOptions } from './radam.js';
export type { LBFGSOptions } from './lbfgs.js';
export type {
  SchedulerState,
  StepLROptions,
  MultiStepLROptions,
  CosineAnnealingLROptions,
  LinearLROptions,
  OneCycleLROptions,
  ReduceLROnPlateauOptions,
} from './lr_scheduler.js';
