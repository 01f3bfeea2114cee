// Schedulers made of schedulers (PyTorch 1.13's SequentialLR and ChainedScheduler). Their state
// dicts hold the inner schedulers' states under 'schedulers'.
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { checkOptimizer, intAtLeast, LRScheduler, type SchedulerState } from './lr_scheduler.js';
import type { Optimizer } from './optimizer.js';

function schedulerList(fn: string, v: unknown, optimizer: Optimizer | null): LRScheduler[] {
  if (!Array.isArray(v) || v.length === 0) throw new Error(`${fn}: expected a non-empty array of schedulers, got ${describe(v)}`);
  return v.map((s, i) => {
    if (!(s instanceof LRScheduler)) {
      throw new Error(`${fn}: schedulers[${i}] is ${describe(s)}, expected an epoch-based scheduler (sg.optim.lrScheduler.StepLR, LinearLR, ...; not ReduceLROnPlateau)`);
    }
    const expected = optimizer ?? (v[0] as LRScheduler).optimizer;
    if (s.optimizer !== expected) {
      throw new Error(`${fn}: expects all schedulers to belong to the same optimizer, but schedulers[${i}] has a different one${optimizer ? ' than the optimizer passed in' : ' than schedulers[0]'}`);
    }
    return s;
  });
}

function loadInner(fn: string, schedulers: LRScheduler[], states: unknown): void {
  if (!Array.isArray(states) || states.length !== schedulers.length) {
    throw new Error(`${fn}.loadStateDict: expected 'schedulers' to hold ${schedulers.length} states, got ${describe(states)}`);
  }
  schedulers.forEach((s, i) => s.loadStateDict(states[i] as SchedulerState));
}

export interface SequentialLROptions {
  lastEpoch?: number;
}

/**
 * Runs schedulers one after the other: schedulers[i] from milestone i − 1 (restarted at its
 * epoch 0 there) until milestone i. Its constructor undoes the inner schedulers' first steps
 * and takes the first step of schedulers[0] only.
 */
export class SequentialLR {
  readonly optimizer: Optimizer;
  readonly schedulers: LRScheduler[];
  readonly milestones: number[];
  lastEpoch: number;
  private lastLr: number[];

  constructor(
    optimizer: Optimizer,
    schedulers: LRScheduler[] | { schedulers: LRScheduler[]; milestones: number[]; lastEpoch?: number },
    milestones?: number[] | SequentialLROptions,
    options?: SequentialLROptions,
  ) {
    const fn = 'SequentialLR';
    let list: unknown = schedulers;
    let ms: unknown = milestones;
    let rest: unknown = options;
    if (isOptionsObject(schedulers)) {
      if (milestones !== undefined) throw new Error(`${fn}: got an options object and then ${describe(milestones)}; pass schedulers and milestones positionally or in the options, not both`);
      const { schedulers: s, milestones: m, ...others } = schedulers as Record<string, unknown>;
      [list, ms, rest] = [s, m, others];
    }
    const o = checkOptions<SequentialLROptions>(fn, rest, { lastEpoch: intAtLeast(-1) });
    this.optimizer = checkOptimizer(fn, optimizer);
    this.schedulers = schedulerList(fn, list, this.optimizer);
    if (!Array.isArray(ms) || !ms.every(isInteger)) throw new Error(`${fn}: expected milestones to be an array of integers, got ${describe(ms)}`);
    if (ms.length !== this.schedulers.length - 1) {
      throw new Error(
        `${fn}: expects the number of schedulers provided to be one more than the number of milestone points, but got ${this.schedulers.length} schedulers and ${ms.length} milestones`,
      );
    }
    this.milestones = ms.slice();
    this.lastEpoch = (o.lastEpoch ?? -1) + 1;
    this.optimizer.paramGroups.forEach((g, i) => {
      if (g.initialLr === undefined) throw new Error(`${fn}: paramGroups[${i}] has no initialLr (make the schedulers first)`);
      g.lr = g.initialLr as number;
    });
    for (const s of this.schedulers) s.lastEpoch -= 1;
    this.schedulers[0]!.restartInitialStep();
    this.lastLr = this.schedulers[0]!.getLastLr();
  }

  step(): void {
    if (arguments.length > 0) throw new Error('SequentialLR.step: takes no arguments');
    this.lastEpoch += 1;
    let idx = 0; // bisect_right
    while (idx < this.milestones.length && this.milestones[idx]! <= this.lastEpoch) idx++;
    const s = this.schedulers[idx]!;
    if (idx > 0 && this.milestones[idx - 1] === this.lastEpoch) s.stepToEpoch(0);
    else s.step();
    this.lastLr = s.getLastLr();
  }

  getLastLr(): number[] {
    return this.lastLr.slice();
  }

  stateDict(): SchedulerState {
    return { lastEpoch: this.lastEpoch, lastLr: this.lastLr.slice(), milestones: this.milestones.slice(), schedulers: this.schedulers.map((s) => s.stateDict()) };
  }

  loadStateDict(state: SchedulerState): void {
    const o = checkOptions<{ lastEpoch: number; lastLr: number[]; milestones: number[]; schedulers: unknown[] }>('SequentialLR.loadStateDict', state, {
      lastEpoch: intAtLeast(-1),
      lastLr: { check: (v) => Array.isArray(v) && v.every((x) => typeof x === 'number'), expected: 'an array of numbers' },
      milestones: { check: (v) => Array.isArray(v) && v.length === this.milestones.length && v.every(isInteger), expected: `an array of ${this.milestones.length} integers` },
      schedulers: { check: Array.isArray, expected: 'an array of scheduler states' },
    });
    if (o.schedulers !== undefined) loadInner('SequentialLR', this.schedulers, o.schedulers);
    if (o.lastEpoch !== undefined) this.lastEpoch = o.lastEpoch;
    if (o.lastLr !== undefined) this.lastLr = o.lastLr.slice();
    if (o.milestones !== undefined) this.milestones.splice(0, this.milestones.length, ...o.milestones);
  }
}

/** Steps every scheduler at each step(), in order (their changes compose). */
export class ChainedScheduler {
  readonly optimizer: Optimizer;
  readonly schedulers: LRScheduler[];
  private lastLr: number[];

  constructor(schedulers: LRScheduler[]) {
    this.schedulers = schedulerList('ChainedScheduler', schedulers, null);
    this.optimizer = this.schedulers[0]!.optimizer;
    this.lastLr = this.optimizer.paramGroups.map((g) => g.lr);
  }

  step(): void {
    if (arguments.length > 0) throw new Error('ChainedScheduler.step: takes no arguments');
    for (const s of this.schedulers) s.step();
    this.lastLr = this.optimizer.paramGroups.map((g) => g.lr);
  }

  getLastLr(): number[] {
    return this.lastLr.slice();
  }

  stateDict(): SchedulerState {
    return { lastLr: this.lastLr.slice(), schedulers: this.schedulers.map((s) => s.stateDict()) };
  }

  loadStateDict(state: SchedulerState): void {
    const o = checkOptions<{ lastLr: number[]; schedulers: unknown[] }>('ChainedScheduler.loadStateDict', state, {
      lastLr: { check: (v) => Array.isArray(v) && v.every((x) => typeof x === 'number'), expected: 'an array of numbers' },
      schedulers: { check: Array.isArray, expected: 'an array of scheduler states' },
    });
    if (o.schedulers !== undefined) loadInner('ChainedScheduler', this.schedulers, o.schedulers);
    if (o.lastLr !== undefined) this.lastLr = o.lastLr.slice();
  }
}
