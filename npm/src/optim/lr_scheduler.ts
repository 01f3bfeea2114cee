// Learning-rate schedulers (sg.optim.lrScheduler), transcribed from PyTorch 1.13's
// torch/optim/lr_scheduler.py so that every group's lr follows exactly the same sequence of
// double-precision values: the same (recursive, "chainable") formulas in the same order of
// operations. Like PyTorch, a scheduler writes group.lr (and group.initialLr, OneCycleLR's
// group.maxLr / minLr / maxMomentum / baseMomentum), and its constructor already takes the
// first step (lastEpoch 0). Required PyTorch positional arguments stay positional
// (`new StepLR(opt, 30, { gamma: 0.1 })`) and may also be given in the options object
// (`new StepLR(opt, { stepSize: 30, gamma: 0.1 })`).
import { checkOptions, describe, isInteger, isOptionsObject, type Spec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { Optimizer } from './optimizer.js';
import { recordHostStep } from '../compile/trace_state.js';
import { isTracing } from '../runtime/trace_flag.js';

/** The scheduler's own numbers and lists (PyTorch's state_dict(): everything but the optimizer). */
export type SchedulerState = Record<string, unknown>;

export const intAtLeast = (min: number) => ({ check: (v: unknown) => isInteger(v) && v >= min, expected: `an integer >= ${min}` });
export const numberOrList = { check: (v: unknown) => (typeof v === 'number' && Number.isFinite(v)) || (Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x))), expected: 'a number or an array of numbers (one per param group)' };

export function checkOptimizer(fn: string, optimizer: unknown): Optimizer {
  if (!(optimizer instanceof Optimizer)) throw new Error(`${fn}: expected an optimizer (sg.optim.SGD, Adam, ...), got ${describe(optimizer)}`);
  return optimizer;
}

/**
 * Splits (optimizer, required?, options?) where the required value may instead be a key of the
 * options object; returns [value, options].
 */
export function positional(fn: string, key: string, first: unknown, rest: unknown): [unknown, Record<string, unknown> | undefined] {
  if (isOptionsObject(first)) {
    if (rest !== undefined) throw new Error(`${fn}: got an options object and then ${describe(rest)}; pass ${key} positionally or in the options, not both`);
    const { [key]: v, ...others } = first;
    return [v, others];
  }
  if (rest !== undefined && !isOptionsObject(rest)) throw new Error(`${fn}: expected an options object, got ${describe(rest)}`);
  return [first, rest as Record<string, unknown> | undefined];
}

/** Per-group value: a number for every group, or one per group. */
export function perGroup(fn: string, name: string, v: number | number[], groups: number): number[] {
  if (Array.isArray(v)) {
    if (v.length !== groups) throw new Error(`${fn}: expected ${groups} values for ${name} (one per param group), got ${v.length}`);
    return v.slice();
  }
  return new Array<number>(groups).fill(v);
}

/** PyTorch's _LRScheduler: lastEpoch counts step() calls, the constructor makes the first one. */
export abstract class LRScheduler {
  readonly optimizer: Optimizer;
  /** Every group's initialLr when the scheduler was made. */
  baseLrs: number[];
  lastEpoch: number;
  protected stepCount = 0;
  private lastLr: number[] = [];

  protected constructor(fn: string, optimizer: unknown, lastEpoch: number | undefined) {
    this.optimizer = checkOptimizer(fn, optimizer);
    const last = lastEpoch ?? -1;
    if (last === -1) {
      for (const g of this.optimizer.paramGroups) if (g.initialLr === undefined) g.initialLr = g.lr;
    } else {
      this.optimizer.paramGroups.forEach((g, i) => {
        if (g.initialLr === undefined) throw new Error(`${fn}: param 'initialLr' is not specified in paramGroups[${i}] when resuming (lastEpoch ${last})`);
      });
    }
    this.baseLrs = this.optimizer.paramGroups.map((g) => g.initialLr as number);
    this.lastEpoch = last;
  }

  /** Makes the constructor's first step; subclasses call it once their fields are set. */
  protected initialStep(): void {
    this.stepCount = 0;
    this.step();
  }

  /** @internal PyTorch's _initial_step(), which SequentialLR calls on its first scheduler. */
  restartInitialStep(): void {
    this.initialStep();
  }

  /** The lr of every group for the current lastEpoch, from the groups' current lrs (PyTorch's get_lr). */
  protected abstract computeLr(): number[];

  /** The lr of every group at lastEpoch from the base lrs alone (PyTorch's _get_closed_form_lr), where there is one. */
  protected closedFormLr(): number[] | null {
    return null;
  }

  /**
   * @internal PyTorch's deprecated step(epoch): jumps to `epoch` and writes the closed-form lrs
   * (or get_lr's where there is no closed form). SequentialLR restarts a scheduler with step(0).
   */
  stepToEpoch(epoch: number): void {
    this.stepCount++;
    this.lastEpoch = epoch;
    this.writeLrs(this.closedFormLr() ?? this.computeLr());
  }

  protected writeLrs(values: number[]): void {
    this.optimizer.paramGroups.forEach((g, i) => {
      g.lr = values[i]!;
    });
    this.lastLr = this.optimizer.paramGroups.map((g) => g.lr);
  }

  /** Advances one epoch (or iteration) and writes every group's lr. */
  step(): void {
    if (arguments.length > 0) throw new Error(`${this.constructor.name}.step: takes no arguments (PyTorch's deprecated epoch argument is not supported)`);
    // Inside sg.compile: recorded, and run on every compiled call.
    if (recordHostStep(`${this.constructor.name}.step`, () => this.step())) return;
    this.stepCount++;
    this.lastEpoch++;
    this.writeLrs(this.computeLr());
  }

  /** The lrs the last step() set, one per group. */
  getLastLr(): number[] {
    return this.lastLr.slice();
  }

  protected groupLrs(): number[] {
    return this.optimizer.paramGroups.map((g) => g.lr);
  }

  /** The scheduler's state (plain numbers and arrays): lastEpoch, baseLrs, ... */
  stateDict(): SchedulerState {
    const out: SchedulerState = {};
    for (const [k, v] of Object.entries(this)) {
      if (k === 'optimizer' || typeof v === 'function') continue;
      out[k] = Array.isArray(v) ? v.slice() : v instanceof Map ? new Map(v) : v;
    }
    return out;
  }

  loadStateDict(state: SchedulerState): void {
    if (!isOptionsObject(state)) throw new Error(`${this.constructor.name}.loadStateDict: expected an object from stateDict(), got ${describe(state)}`);
    for (const [k, v] of Object.entries(state)) {
      if (!(k in this) || k === 'optimizer') throw new Error(`${this.constructor.name}.loadStateDict: unknown key '${k}'`);
      (this as Record<string, unknown>)[k] = Array.isArray(v) ? v.slice() : v instanceof Map ? new Map(v) : v;
    }
  }
}

export interface StepLROptions {
  gamma?: number;
  lastEpoch?: number;
}

/** lr ·= gamma every stepSize epochs. */
export class StepLR extends LRScheduler {
  readonly stepSize: number;
  readonly gamma: number;

  constructor(optimizer: Optimizer, stepSize: number | (StepLROptions & { stepSize: number }), options?: StepLROptions) {
    const [size, rest] = positional('StepLR', 'stepSize', stepSize, options);
    const o = checkOptions<StepLROptions>('StepLR', rest, { gamma: 'number', lastEpoch: intAtLeast(-1) });
    if (!isInteger(size) || size <= 0) throw new Error(`StepLR: expected stepSize to be a positive integer, got ${describe(size)}`);
    super('StepLR', optimizer, o.lastEpoch);
    this.stepSize = size;
    this.gamma = o.gamma ?? 0.1;
    this.initialStep();
  }

  protected computeLr(): number[] {
    if (this.lastEpoch === 0 || this.lastEpoch % this.stepSize !== 0) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * this.gamma);
  }

  protected closedFormLr(): number[] {
    return this.baseLrs.map((base) => base * this.gamma ** Math.floor(this.lastEpoch / this.stepSize));
  }
}

export interface MultiStepLROptions {
  gamma?: number;
  lastEpoch?: number;
}

/** lr ·= gamma at each milestone epoch (a milestone listed k times multiplies by gamma^k). */
export class MultiStepLR extends LRScheduler {
  /** milestone → how many times it was listed (PyTorch's Counter). */
  readonly milestones: Map<number, number>;
  readonly gamma: number;

  constructor(optimizer: Optimizer, milestones: number[] | (MultiStepLROptions & { milestones: number[] }), options?: MultiStepLROptions) {
    const [ms, rest] = positional('MultiStepLR', 'milestones', milestones, options);
    const o = checkOptions<MultiStepLROptions>('MultiStepLR', rest, { gamma: 'number', lastEpoch: intAtLeast(-1) });
    if (!Array.isArray(ms) || !ms.every(isInteger)) throw new Error(`MultiStepLR: expected milestones to be an array of integers, got ${describe(ms)}`);
    super('MultiStepLR', optimizer, o.lastEpoch);
    this.milestones = new Map();
    for (const m of ms as number[]) this.milestones.set(m, (this.milestones.get(m) ?? 0) + 1);
    this.gamma = o.gamma ?? 0.1;
    this.initialStep();
  }

  protected computeLr(): number[] {
    const k = this.milestones.get(this.lastEpoch);
    if (k === undefined) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * this.gamma ** k);
  }

  protected closedFormLr(): number[] {
    let passed = 0; // bisect_right over the sorted milestones, repeats counted
    for (const [m, count] of this.milestones) if (m <= this.lastEpoch) passed += count;
    return this.baseLrs.map((base) => base * this.gamma ** passed);
  }
}

/** lr ·= gamma every epoch. */
export class ExponentialLR extends LRScheduler {
  readonly gamma: number;

  constructor(optimizer: Optimizer, gamma: number | { gamma: number; lastEpoch?: number }, options?: { lastEpoch?: number }) {
    const [g, rest] = positional('ExponentialLR', 'gamma', gamma, options);
    const o = checkOptions<{ lastEpoch: number }>('ExponentialLR', rest, { lastEpoch: intAtLeast(-1) });
    if (typeof g !== 'number' || !Number.isFinite(g)) throw new Error(`ExponentialLR: expected gamma to be a finite number, got ${describe(g)}`);
    super('ExponentialLR', optimizer, o.lastEpoch);
    this.gamma = g;
    this.initialStep();
  }

  protected computeLr(): number[] {
    if (this.lastEpoch === 0) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * this.gamma);
  }

  protected closedFormLr(): number[] {
    return this.baseLrs.map((base) => base * this.gamma ** this.lastEpoch);
  }
}

export interface CosineAnnealingLROptions {
  etaMin?: number;
  lastEpoch?: number;
}

/**
 * Cosine annealing from the initial lr to etaMin over tMax epochs, then back up (a period of
 * 2·tMax), in PyTorch's recursive form (which also follows lrs changed from outside).
 */
export class CosineAnnealingLR extends LRScheduler {
  readonly tMax: number;
  readonly etaMin: number;

  constructor(optimizer: Optimizer, tMax: number | (CosineAnnealingLROptions & { tMax: number }), options?: CosineAnnealingLROptions) {
    const [t, rest] = positional('CosineAnnealingLR', 'tMax', tMax, options);
    const o = checkOptions<CosineAnnealingLROptions>('CosineAnnealingLR', rest, { etaMin: 'number', lastEpoch: intAtLeast(-1) });
    if (!isInteger(t) || t <= 0) throw new Error(`CosineAnnealingLR: expected tMax to be a positive integer, got ${describe(t)}`);
    super('CosineAnnealingLR', optimizer, o.lastEpoch);
    this.tMax = t;
    this.etaMin = o.etaMin ?? 0;
    this.initialStep();
  }

  protected computeLr(): number[] {
    const { lastEpoch: e, tMax: T, etaMin } = this;
    const groups = this.optimizer.paramGroups;
    if (e === 0) return this.groupLrs();
    if (this.stepCount === 1 && e > 0) {
      return this.baseLrs.map((base) => etaMin + ((base - etaMin) * (1 + Math.cos((e * Math.PI) / T))) / 2);
    }
    if ((e - 1 - T) % (2 * T) === 0) {
      return this.baseLrs.map((base, i) => groups[i]!.lr + ((base - etaMin) * (1 - Math.cos(Math.PI / T))) / 2);
    }
    return groups.map((g) => ((1 + Math.cos((Math.PI * e) / T)) / (1 + Math.cos((Math.PI * (e - 1)) / T))) * (g.lr - etaMin) + etaMin);
  }

  protected closedFormLr(): number[] {
    return this.baseLrs.map((base) => this.etaMin + ((base - this.etaMin) * (1 + Math.cos((Math.PI * this.lastEpoch) / this.tMax))) / 2);
  }
}

export interface LinearLROptions {
  /** Factor of the initial lr at epoch 0 (default 1/3), in (0, 1]. */
  startFactor?: number;
  /** Factor reached at totalIters (default 1), in [0, 1]. */
  endFactor?: number;
  /** Epochs of the linear ramp (default 5). */
  totalIters?: number;
  lastEpoch?: number;
}

/** Linear change of the lr factor from startFactor to endFactor over totalIters epochs (warm-up). */
export class LinearLR extends LRScheduler {
  readonly startFactor: number;
  readonly endFactor: number;
  readonly totalIters: number;

  constructor(optimizer: Optimizer, options?: LinearLROptions) {
    const o = checkOptions<LinearLROptions>('LinearLR', options, {
      startFactor: 'number',
      endFactor: 'number',
      totalIters: intAtLeast(0),
      lastEpoch: intAtLeast(-1),
    });
    const start = o.startFactor ?? 1 / 3;
    const end = o.endFactor ?? 1;
    // PyTorch accepts startFactor 0 and then divides by zero on the next step: rejected here.
    if (!(start > 0 && start <= 1)) throw new Error(`LinearLR: starting multiplicative factor expected to be greater than 0 and less or equal to 1, got ${start}`);
    if (!(end >= 0 && end <= 1)) throw new Error(`LinearLR: ending multiplicative factor expected to be between 0 and 1, got ${end}`);
    super('LinearLR', optimizer, o.lastEpoch);
    this.startFactor = start;
    this.endFactor = end;
    this.totalIters = o.totalIters ?? 5;
    this.initialStep();
  }

  protected computeLr(): number[] {
    const { lastEpoch: e, startFactor: s, endFactor: f, totalIters: n } = this;
    if (e === 0) return this.groupLrs().map((lr) => lr * s);
    if (e > n) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * (1 + (f - s) / (n * s + (e - 1) * (f - s))));
  }

  protected closedFormLr(): number[] {
    const { lastEpoch: e, startFactor: s, endFactor: f, totalIters: n } = this;
    return this.baseLrs.map((base) => base * (s + ((f - s) * Math.min(n, e)) / n));
  }
}

export interface OneCycleLROptions {
  /** Total number of steps; or give epochs and stepsPerEpoch. */
  totalSteps?: number;
  epochs?: number;
  stepsPerEpoch?: number;
  /** Fraction of the cycle spent increasing the lr (default 0.3). */
  pctStart?: number;
  annealStrategy?: 'cos' | 'linear';
  /** Cycle momentum (SGD/RMSprop momentum, Adam's beta1) inversely to the lr (default true). */
  cycleMomentum?: boolean;
  baseMomentum?: number | number[];
  maxMomentum?: number | number[];
  /** initialLr = maxLr / divFactor (default 25). */
  divFactor?: number;
  /** minLr = initialLr / finalDivFactor (default 1e4). */
  finalDivFactor?: number;
  /** Three phases (up, down to initialLr, annihilation) instead of two. */
  threePhase?: boolean;
  lastEpoch?: number;
}

interface Phase {
  endStep: number;
  startLr: 'initialLr' | 'maxLr' | 'minLr';
  endLr: 'initialLr' | 'maxLr' | 'minLr';
  startMomentum: 'maxMomentum' | 'baseMomentum';
  endMomentum: 'maxMomentum' | 'baseMomentum';
}

/** The 1cycle policy (Smith & Topin): call step() after every batch, totalSteps times at most. */
export class OneCycleLR extends LRScheduler {
  readonly totalSteps: number;
  readonly cycleMomentum: boolean;
  readonly annealStrategy: 'cos' | 'linear';
  private readonly phases: Phase[];
  private readonly useBeta1: boolean;

  constructor(optimizer: Optimizer, maxLr: number | number[] | (OneCycleLROptions & { maxLr: number | number[] }), options?: OneCycleLROptions) {
    const fn = 'OneCycleLR';
    const [max, rest] = positional(fn, 'maxLr', maxLr, options);
    const o = checkOptions<OneCycleLROptions>(fn, rest, {
      totalSteps: intAtLeast(1),
      epochs: intAtLeast(1),
      stepsPerEpoch: intAtLeast(1),
      pctStart: 'number',
      annealStrategy: ['cos', 'linear'],
      cycleMomentum: 'boolean',
      baseMomentum: numberOrList,
      maxMomentum: numberOrList,
      divFactor: 'number',
      finalDivFactor: 'number',
      threePhase: 'boolean',
      lastEpoch: intAtLeast(-1),
    } satisfies Spec);
    const opt = checkOptimizer(fn, optimizer);
    if (!numberOrList.check(max)) throw new Error(`${fn}: expected maxLr to be ${numberOrList.expected}, got ${describe(max)}`);
    let total: number;
    if (o.totalSteps !== undefined) total = o.totalSteps;
    else if (o.epochs !== undefined && o.stepsPerEpoch !== undefined) total = o.epochs * o.stepsPerEpoch;
    else throw new Error(`${fn}: you must define either totalSteps OR (epochs AND stepsPerEpoch)`);
    const pct = o.pctStart ?? 0.3;
    if (!(pct >= 0 && pct <= 1)) throw new Error(`${fn}: expected pctStart to be a number between 0 and 1, got ${pct}`);
    const groups = opt.paramGroups;
    const divFactor = o.divFactor ?? 25;
    const finalDivFactor = o.finalDivFactor ?? 1e4;
    const maxLrs = perGroup(fn, 'maxLr', max as number | number[], groups.length);
    const cycle = o.cycleMomentum ?? true;
    let useBeta1 = false;
    let maxMs: number[] = [];
    let baseMs: number[] = [];
    if (cycle) {
      if (!('momentum' in opt.defaults) && !('betas' in opt.defaults)) {
        throw new Error(`${fn}: optimizer must support momentum with the cycleMomentum option enabled (SGD, RMSprop, Adam, AdamW; or pass cycleMomentum: false)`);
      }
      useBeta1 = 'betas' in opt.defaults;
      maxMs = perGroup(fn, 'maxMomentum', o.maxMomentum ?? 0.95, groups.length);
      baseMs = perGroup(fn, 'baseMomentum', o.baseMomentum ?? 0.85, groups.length);
    }
    const last = o.lastEpoch ?? -1;
    if (last === -1) {
      groups.forEach((g, i) => {
        g.initialLr = maxLrs[i]! / divFactor;
        g.maxLr = maxLrs[i]!;
        g.minLr = (g.initialLr as number) / finalDivFactor;
      });
    }
    if (cycle && last === -1) {
      groups.forEach((g, i) => {
        if (useBeta1) g.betas = [maxMs[i]!, (g.betas as number[])[1]!];
        else g.momentum = maxMs[i]!;
        g.maxMomentum = maxMs[i]!;
        g.baseMomentum = baseMs[i]!;
      });
    }
    super(fn, opt, o.lastEpoch);
    this.totalSteps = total;
    this.cycleMomentum = cycle;
    this.useBeta1 = useBeta1;
    this.annealStrategy = o.annealStrategy ?? 'cos';
    this.phases = o.threePhase
      ? [
          { endStep: pct * total - 1, startLr: 'initialLr', endLr: 'maxLr', startMomentum: 'maxMomentum', endMomentum: 'baseMomentum' },
          { endStep: 2 * pct * total - 2, startLr: 'maxLr', endLr: 'initialLr', startMomentum: 'baseMomentum', endMomentum: 'maxMomentum' },
          { endStep: total - 1, startLr: 'initialLr', endLr: 'minLr', startMomentum: 'maxMomentum', endMomentum: 'maxMomentum' },
        ]
      : [
          { endStep: pct * total - 1, startLr: 'initialLr', endLr: 'maxLr', startMomentum: 'maxMomentum', endMomentum: 'baseMomentum' },
          { endStep: total - 1, startLr: 'maxLr', endLr: 'minLr', startMomentum: 'baseMomentum', endMomentum: 'maxMomentum' },
        ];
    this.initialStep();
  }

  private anneal(start: number, end: number, pct: number): number {
    if (this.annealStrategy === 'linear') return (end - start) * pct + start;
    const cosOut = Math.cos(Math.PI * pct) + 1;
    return end + ((start - end) / 2.0) * cosOut;
  }

  protected computeLr(): number[] {
    const stepNum = this.lastEpoch;
    if (stepNum > this.totalSteps) {
      throw new Error(`OneCycleLR: tried to step ${stepNum + 1} times; the specified number of total steps is ${this.totalSteps}`);
    }
    return this.optimizer.paramGroups.map((g) => {
      let startStep = 0;
      let lr = 0;
      let momentum = 0;
      for (let i = 0; i < this.phases.length; i++) {
        const phase = this.phases[i]!;
        const endStep = phase.endStep;
        if (stepNum <= endStep || i === this.phases.length - 1) {
          const pct = (stepNum - startStep) / (endStep - startStep);
          lr = this.anneal(g[phase.startLr] as number, g[phase.endLr] as number, pct);
          if (this.cycleMomentum) momentum = this.anneal(g[phase.startMomentum] as number, g[phase.endMomentum] as number, pct);
          break;
        }
        startStep = phase.endStep;
      }
      if (this.cycleMomentum) {
        if (this.useBeta1) g.betas = [momentum, (g.betas as number[])[1]!];
        else g.momentum = momentum;
      }
      return lr;
    });
  }
}

export interface ReduceLROnPlateauOptions {
  mode?: 'min' | 'max';
  /** lr ·= factor on a plateau (default 0.1, < 1). */
  factor?: number;
  /** Epochs without improvement tolerated before reducing (default 10). */
  patience?: number;
  threshold?: number;
  thresholdMode?: 'rel' | 'abs';
  /** Epochs to wait after a reduction before counting bad epochs again. */
  cooldown?: number;
  /** Lower bound of the lr: a number or one per group. */
  minLr?: number | number[];
  /** Reductions smaller than eps are skipped. */
  eps?: number;
}

/** Reduces the lr when a metric stopped improving: call step(metric) once per epoch. */
export class ReduceLROnPlateau {
  readonly optimizer: Optimizer;
  readonly mode: 'min' | 'max';
  readonly factor: number;
  readonly patience: number;
  readonly threshold: number;
  readonly thresholdMode: 'rel' | 'abs';
  readonly cooldown: number;
  readonly minLrs: number[];
  readonly eps: number;
  best: number;
  numBadEpochs = 0;
  cooldownCounter = 0;
  lastEpoch = 0;
  private lastLr: number[];

  constructor(optimizer: Optimizer, options?: ReduceLROnPlateauOptions) {
    const fn = 'ReduceLROnPlateau';
    const o = checkOptions<ReduceLROnPlateauOptions>(fn, options, {
      mode: ['min', 'max'],
      factor: 'number',
      patience: intAtLeast(0),
      threshold: 'number',
      thresholdMode: ['rel', 'abs'],
      cooldown: intAtLeast(0),
      minLr: numberOrList,
      eps: 'number',
    });
    this.optimizer = checkOptimizer(fn, optimizer);
    this.factor = o.factor ?? 0.1;
    if (this.factor >= 1) throw new Error(`${fn}: factor should be < 1.0, got ${this.factor}`);
    this.mode = o.mode ?? 'min';
    this.patience = o.patience ?? 10;
    this.threshold = o.threshold ?? 1e-4;
    this.thresholdMode = o.thresholdMode ?? 'rel';
    this.cooldown = o.cooldown ?? 0;
    this.minLrs = perGroup(fn, 'minLr', o.minLr ?? 0, this.optimizer.paramGroups.length);
    this.eps = o.eps ?? 1e-8;
    this.best = this.mode === 'min' ? Infinity : -Infinity;
    this.lastLr = this.optimizer.paramGroups.map((g) => g.lr);
  }

  get inCooldown(): boolean {
    return this.cooldownCounter > 0;
  }

  private isBetter(a: number, best: number): boolean {
    if (this.mode === 'min' && this.thresholdMode === 'rel') return a < best * (1 - this.threshold);
    if (this.mode === 'min') return a < best - this.threshold;
    if (this.thresholdMode === 'rel') return a > best * (this.threshold + 1);
    return a > best + this.threshold;
  }

  /** Records this epoch's metric (a number or a one-element Tensor) and reduces the lr on a plateau. */
  step(metric: number | Tensor): void {
    if (isTracing()) {
      throw new Error('ReduceLROnPlateau.step: depends on the metric\'s value, which a compiled function cannot read; call it outside sg.compile');
    }
    let current: number;
    if (metric instanceof Tensor) current = metric.item();
    else if (typeof metric === 'number') current = metric;
    else throw new Error(`ReduceLROnPlateau.step: expected the metric as a number or a one-element Tensor, got ${describe(metric)}`);
    this.lastEpoch += 1;
    if (this.isBetter(current, this.best)) {
      this.best = current;
      this.numBadEpochs = 0;
    } else {
      this.numBadEpochs += 1;
    }
    if (this.inCooldown) {
      this.cooldownCounter -= 1;
      this.numBadEpochs = 0;
    }
    if (this.numBadEpochs > this.patience) {
      this.optimizer.paramGroups.forEach((g, i) => {
        const oldLr = g.lr;
        const newLr = Math.max(oldLr * this.factor, this.minLrs[i]!);
        if (oldLr - newLr > this.eps) g.lr = newLr;
      });
      this.cooldownCounter = this.cooldown;
      this.numBadEpochs = 0;
    }
    this.lastLr = this.optimizer.paramGroups.map((g) => g.lr);
  }

  getLastLr(): number[] {
    return this.lastLr.slice();
  }

  stateDict(): SchedulerState {
    return { best: this.best, numBadEpochs: this.numBadEpochs, cooldownCounter: this.cooldownCounter, lastEpoch: this.lastEpoch, lastLr: this.lastLr.slice() };
  }

  loadStateDict(state: SchedulerState): void {
    const o = checkOptions<Record<string, unknown>>('ReduceLROnPlateau.loadStateDict', state, {
      best: 'numberOrInfinity',
      numBadEpochs: intAtLeast(0),
      cooldownCounter: intAtLeast(0),
      lastEpoch: intAtLeast(0),
      lastLr: numberOrList,
    });
    if (o.best !== undefined) this.best = o.best as number;
    if (o.numBadEpochs !== undefined) this.numBadEpochs = o.numBadEpochs as number;
    if (o.cooldownCounter !== undefined) this.cooldownCounter = o.cooldownCounter as number;
    if (o.lastEpoch !== undefined) this.lastEpoch = o.lastEpoch as number;
    if (o.lastLr !== undefined) this.lastLr = (o.lastLr as number[]).slice();
  }
}
