// Cyclic schedules of PyTorch 1.13's torch/optim/lr_scheduler.py: CosineAnnealingWarmRestarts
// (SGDR) and CyclicLR (with its momentum cycling), in closed form as PyTorch computes them.
import { checkOptions, describe, isInteger, isOptionsObject, type Spec } from '../runtime/options.js';
import { checkOptimizer, intAtLeast, LRScheduler, numberOrList, perGroup, positional } from './lr_scheduler.js';
import type { Optimizer } from './optimizer.js';

export interface CosineAnnealingWarmRestartsOptions {
  /** Growth of the period after each restart (an integer >= 1, default 1). */
  tMult?: number;
  etaMin?: number;
  lastEpoch?: number;
}

/**
 * Cosine annealing from the initial lr to etaMin over t0 epochs, then a restart at the initial
 * lr with a period multiplied by tMult. step(epoch?) also takes a (fractional) epoch, as
 * PyTorch's does: `sched.step(epoch + i / itersPerEpoch)` after each batch.
 */
export class CosineAnnealingWarmRestarts extends LRScheduler {
  readonly t0: number;
  readonly tMult: number;
  readonly etaMin: number;
  /** Length of the current period, and the epochs (possibly fractional) since its restart. */
  tI: number;
  tCur: number;

  constructor(optimizer: Optimizer, t0: number | (CosineAnnealingWarmRestartsOptions & { t0: number }), options?: CosineAnnealingWarmRestartsOptions) {
    const fn = 'CosineAnnealingWarmRestarts';
    const [t, rest] = positional(fn, 't0', t0, options);
    const o = checkOptions<CosineAnnealingWarmRestartsOptions>(fn, rest, { tMult: intAtLeast(1), etaMin: 'number', lastEpoch: intAtLeast(-1) });
    if (!isInteger(t) || t <= 0) throw new Error(`${fn}: expected t0 to be a positive integer, got ${describe(t)}`);
    super(fn, optimizer, o.lastEpoch);
    this.t0 = t;
    this.tI = t;
    this.tMult = o.tMult ?? 1;
    this.etaMin = o.etaMin ?? 0;
    this.tCur = this.lastEpoch;
    this.initialStep();
  }

  protected computeLr(): number[] {
    return this.baseLrs.map((base) => this.etaMin + ((base - this.etaMin) * (1 + Math.cos((Math.PI * this.tCur) / this.tI))) / 2);
  }

  /** Advances one epoch, or jumps to `epoch` (a number >= 0, fractions allowed). */
  step(epoch?: number): void {
    const fn = 'CosineAnnealingWarmRestarts.step';
    if (arguments.length > 1) throw new Error(`${fn}: takes at most one argument (the epoch)`);
    let e = epoch;
    if (e === undefined && this.lastEpoch < 0) e = 0;
    if (e === undefined) {
      e = this.lastEpoch + 1;
      this.tCur += 1;
      if (this.tCur >= this.tI) {
        this.tCur -= this.tI;
        this.tI *= this.tMult;
      }
    } else {
      if (typeof e !== 'number' || !Number.isFinite(e) || e < 0) throw new Error(`${fn}: expected a non-negative epoch, got ${describe(e)}`);
      if (e >= this.t0) {
        if (this.tMult === 1) {
          this.tCur = e % this.t0;
        } else {
          const n = Math.trunc(Math.log((e / this.t0) * (this.tMult - 1) + 1) / Math.log(this.tMult));
          this.tCur = e - (this.t0 * (this.tMult ** n - 1)) / (this.tMult - 1);
          this.tI = this.t0 * this.tMult ** n;
        }
      } else {
        this.tI = this.t0;
        this.tCur = e;
      }
    }
    this.stepCount++;
    this.lastEpoch = Math.floor(e);
    this.writeLrs(this.computeLr());
  }

  /** SequentialLR's restart: PyTorch calls step(0), which this scheduler overrides. */
  stepToEpoch(epoch: number): void {
    this.step(epoch);
  }
}

export type CyclicMode = 'triangular' | 'triangular2' | 'exp_range';

export interface CyclicLROptions {
  /** Iterations of the rising half of a cycle (default 2000). */
  stepSizeUp?: number;
  /** Iterations of the falling half (default stepSizeUp). */
  stepSizeDown?: number | null;
  mode?: CyclicMode;
  /** exp_range's decay per iteration (default 1). */
  gamma?: number;
  /** A custom amplitude scale (replaces mode): x → factor, x the cycle or the iteration. */
  scaleFn?: ((x: number) => number) | null;
  /** What scaleFn receives: 'cycle' (default) or 'iterations'. */
  scaleMode?: 'cycle' | 'iterations';
  /** Cycle the optimizer's momentum inversely to the lr (default true; SGD, RMSprop). */
  cycleMomentum?: boolean;
  baseMomentum?: number | number[];
  maxMomentum?: number | number[];
  lastEpoch?: number;
}

/**
 * The cyclical learning rate policy (Smith, 2017): lr between baseLr and maxLr in triangles
 * of stepSizeUp + stepSizeDown iterations; call step() after every batch.
 */
export class CyclicLR extends LRScheduler {
  readonly maxLrs: number[];
  readonly totalSize: number;
  readonly stepRatio: number;
  readonly mode: CyclicMode;
  readonly gamma: number;
  readonly scaleMode: 'cycle' | 'iterations';
  readonly cycleMomentum: boolean;
  readonly baseMomentums: number[] = [];
  readonly maxMomentums: number[] = [];
  private readonly scaleFnCustom: ((x: number) => number) | null;

  constructor(
    optimizer: Optimizer,
    baseLr: number | number[] | (CyclicLROptions & { baseLr: number | number[]; maxLr: number | number[] }),
    maxLr?: number | number[] | CyclicLROptions,
    options?: CyclicLROptions,
  ) {
    const fn = 'CyclicLR';
    let base: unknown = baseLr;
    let max: unknown = maxLr;
    let rest: unknown = options;
    if (isOptionsObject(baseLr)) {
      if (maxLr !== undefined) throw new Error(`${fn}: got an options object and then ${describe(maxLr)}; pass baseLr and maxLr positionally or in the options, not both`);
      const { baseLr: b, maxLr: m, ...others } = baseLr as Record<string, unknown>;
      [base, max, rest] = [b, m, others];
    }
    const spec: Spec = {
      stepSizeUp: 'number',
      stepSizeDown: { check: (v) => v === null || (typeof v === 'number' && Number.isFinite(v)), expected: 'a finite number or null' },
      mode: ['triangular', 'triangular2', 'exp_range'],
      gamma: 'number',
      scaleFn: { check: (v) => v === null || typeof v === 'function', expected: 'a function or null' },
      scaleMode: ['cycle', 'iterations'],
      cycleMomentum: 'boolean',
      baseMomentum: numberOrList,
      maxMomentum: numberOrList,
      lastEpoch: intAtLeast(-1),
    };
    const o = checkOptions<CyclicLROptions>(fn, rest, spec);
    const opt = checkOptimizer(fn, optimizer);
    const groups = opt.paramGroups;
    for (const [name, v] of [['baseLr', base], ['maxLr', max]] as const) {
      if (!numberOrList.check(v)) throw new Error(`${fn}: expected ${name} to be ${numberOrList.expected}, got ${describe(v)}`);
    }
    const baseLrs = perGroup(fn, 'baseLr', base as number | number[], groups.length);
    const last = o.lastEpoch ?? -1;
    if (last === -1) groups.forEach((g, i) => (g.lr = baseLrs[i]!));
    const up = o.stepSizeUp ?? 2000;
    const down = o.stepSizeDown ?? up;
    if (!(up > 0) || !(down >= 0)) throw new Error(`${fn}: expected stepSizeUp > 0 and stepSizeDown >= 0, got ${up} and ${down}`);
    const cycle = o.cycleMomentum ?? true;
    const baseMs = cycle ? perGroup(fn, 'baseMomentum', o.baseMomentum ?? 0.8, groups.length) : [];
    if (cycle) {
      if (!('momentum' in opt.defaults)) {
        throw new Error(`${fn}: optimizer must support momentum with the cycleMomentum option enabled (SGD, RMSprop; or pass cycleMomentum: false)`);
      }
      if (last === -1) groups.forEach((g, i) => (g.momentum = baseMs[i]!));
    }
    super(fn, opt, o.lastEpoch);
    this.maxLrs = perGroup(fn, 'maxLr', max as number | number[], groups.length);
    this.totalSize = up + down;
    this.stepRatio = up / this.totalSize;
    this.mode = o.mode ?? 'triangular';
    this.gamma = o.gamma ?? 1;
    this.scaleFnCustom = o.scaleFn ?? null;
    this.scaleMode = this.scaleFnCustom ? (o.scaleMode ?? 'cycle') : this.mode === 'exp_range' ? 'iterations' : 'cycle';
    this.cycleMomentum = cycle;
    if (cycle) {
      this.baseMomentums = groups.map((g) => g.momentum as number);
      this.maxMomentums = perGroup(fn, 'maxMomentum', o.maxMomentum ?? 0.9, groups.length);
    }
    this.initialStep();
    this.baseLrs = baseLrs;
  }

  private scale(x: number): number {
    if (this.scaleFnCustom) {
      const v = this.scaleFnCustom(x);
      if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`CyclicLR: scaleFn(${x}) must return a number, got ${describe(v)}`);
      return v;
    }
    if (this.mode === 'triangular') return 1;
    if (this.mode === 'triangular2') return 1 / 2 ** (x - 1);
    return this.gamma ** x;
  }

  protected computeLr(): number[] {
    const cycle = Math.floor(1 + this.lastEpoch / this.totalSize);
    const x = 1 + this.lastEpoch / this.totalSize - cycle;
    const scaleFactor = x <= this.stepRatio ? x / this.stepRatio : (x - 1) / (this.stepRatio - 1);
    const s = this.scale(this.scaleMode === 'cycle' ? cycle : this.lastEpoch);
    const lrs = this.baseLrs.map((base, i) => base + (this.maxLrs[i]! - base) * scaleFactor * s);
    if (this.cycleMomentum) {
      this.optimizer.paramGroups.forEach((g, i) => {
        g.momentum = this.maxMomentums[i]! - (this.maxMomentums[i]! - this.baseMomentums[i]!) * scaleFactor * s;
      });
    }
    return lrs;
  }

  stateDict(): Record<string, unknown> {
    const { scaleFnCustom: _f, ...rest } = super.stateDict();
    return rest;
  }
}
