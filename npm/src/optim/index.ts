// sg.optim: the optimizers (each step one C++ call per param group) and sg.optim.lrScheduler.
import { Adagrad } from './adagrad.js';
import { Adam } from './adam.js';
import { AdamW } from './adamw.js';
import { CosineAnnealingLR, ExponentialLR, LinearLR, LRScheduler, MultiStepLR, OneCycleLR, ReduceLROnPlateau, StepLR } from './lr_scheduler.js';
import { Optimizer } from './optimizer.js';
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
};

export const optim = {
  Optimizer,
  SGD,
  Adam,
  AdamW,
  RMSprop,
  Adagrad,
  lrScheduler,
};

export { Optimizer, SGD, Adam, AdamW, RMSprop, Adagrad };
export { LRScheduler, StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR, OneCycleLR, ReduceLROnPlateau };
export type { ParamGroup, ParamGroupInput, ParamsInput, ParamState, OptimizerStateDict } from './optimizer.js';
export type { SGDOptions } from './sgd.js';
export type { AdamOptions } from './adam.js';
export type { AdamWOptions } from './adamw.js';
export type { RMSpropOptions } from './rmsprop.js';
export type { AdagradOptions } from './adagrad.js';
export type {
  SchedulerState,
  StepLROptions,
  MultiStepLROptions,
  CosineAnnealingLROptions,
  LinearLROptions,
  OneCycleLROptions,
  ReduceLROnPlateauOptions,
} from './lr_scheduler.js';
