// Factor schedules of PyTorch 1.13's torch/optim/lr_scheduler.py: LambdaLR, MultiplicativeLR,
// ConstantLR and PolynomialLR, with its (recursive, chainable) formulas in the same order of
// operations (see lr_scheduler.ts for the conventions).
import { checkOptions, describe } from '../runtime/options.js';
import { checkOptimizer, intAtLeast, LRScheduler, positional } from './lr_scheduler.js';
import type { Optimizer } from './optimizer.js';

/** epoch → factor (LambdaLR: of the initial lr; MultiplicativeLR: of the current lr). */
export type LrLambda = (epoch: number) => number;

/** One function for every group, or one per group. */
function lambdasArg(fn: string, optimizer: unknown, v: unknown): LrLambda[] {
  const groups = checkOptimizer(fn, optimizer).paramGroups.length;
  if (typeof v === 'function') return new Array<LrLambda>(groups).fill(v as LrLambda);
  if (Array.isArray(v)) {
    if (v.length !== groups) throw new Error(`${fn}: expected ${groups} lrLambdas (one per param group), got ${v.length}`);
    v.forEach((f, i) => {
      if (typeof f !== 'function') throw new Error(`${fn}: expected lrLambda[${i}] to be a function, got ${describe(f)}`);
    });
    return v.slice() as LrLambda[];
  }
  throw new Error(`${fn}: expected lrLambda to be a function (epoch → factor) or an array of them, got ${describe(v)}`);
}

/** Calls the lambda and checks it gave a number. */
function factor(fn: string, f: LrLambda, epoch: number): number {
  const v = f(epoch);
  if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`${fn}: lrLambda(${epoch}) must return a number, got ${describe(v)}`);
  return v;
}

/** Options of LambdaLR and MultiplicativeLR: the functions, positional or as lrLambda. */
function lambdaArgs(fn: string, optimizer: unknown, lrLambda: unknown, options: unknown): [LrLambda[], number | undefined] {
  const [f, rest] = positional(fn, 'lrLambda', lrLambda, options);
  const o = checkOptions<{ lastEpoch: number }>(fn, rest, { lastEpoch: intAtLeast(-1) });
  return [lambdasArg(fn, optimizer, f), o.lastEpoch];
}

/** Scheduler state without the functions (PyTorch saves plain functions as None too). */
function withoutLambdas(state: Record<string, unknown>): Record<string, unknown> {
  const { lrLambdas: _l, ...rest } = state;
  return rest;
}

/** lr = initial lr · lrLambda(epoch). */
export class LambdaLR extends LRScheduler {
  readonly lrLambdas: LrLambda[];

  constructor(optimizer: Optimizer, lrLambda: LrLambda | LrLambda[] | { lrLambda: LrLambda | LrLambda[]; lastEpoch?: number }, options?: { lastEpoch?: number }) {
    const [lambdas, lastEpoch] = lambdaArgs('LambdaLR', optimizer, lrLambda, options);
    // The first step's factors, checked before anything is written to the optimizer.
    for (const f of lambdas) factor('LambdaLR', f, (lastEpoch ?? -1) + 1);
    super('LambdaLR', optimizer, lastEpoch);
    this.lrLambdas = lambdas;
    this.initialStep();
  }

  protected computeLr(): number[] {
    return this.baseLrs.map((base, i) => base * factor('LambdaLR', this.lrLambdas[i]!, this.lastEpoch));
  }

  stateDict(): Record<string, unknown> {
    return withoutLambdas(super.stateDict());
  }
}

/** lr ·= lrLambda(epoch) every epoch after the first. */
export class MultiplicativeLR extends LRScheduler {
  readonly lrLambdas: LrLambda[];

  constructor(optimizer: Optimizer, lrLambda: LrLambda | LrLambda[] | { lrLambda: LrLambda | LrLambda[]; lastEpoch?: number }, options?: { lastEpoch?: number }) {
    const [lambdas, lastEpoch] = lambdaArgs('MultiplicativeLR', optimizer, lrLambda, options);
    super('MultiplicativeLR', optimizer, lastEpoch);
    this.lrLambdas = lambdas;
    this.initialStep();
  }

  protected computeLr(): number[] {
    if (this.lastEpoch <= 0) return this.groupLrs();
    return this.groupLrs().map((lr, i) => lr * factor('MultiplicativeLR', this.lrLambdas[i]!, this.lastEpoch));
  }

  stateDict(): Record<string, unknown> {
    return withoutLambdas(super.stateDict());
  }
}

export interface ConstantLROptions {
  /** Factor of the lr until totalIters (default 1/3), in (0, 1]. */
  factor?: number;
  /** Epochs at the reduced lr (default 5). */
  totalIters?: number;
  lastEpoch?: number;
}

/** lr · factor for the first totalIters epochs, then the lr itself. */
export class ConstantLR extends LRScheduler {
  readonly factor: number;
  readonly totalIters: number;

  constructor(optimizer: Optimizer, options?: ConstantLROptions) {
    const o = checkOptions<ConstantLROptions>('ConstantLR', options, { factor: 'number', totalIters: intAtLeast(0), lastEpoch: intAtLeast(-1) });
    const f = o.factor ?? 1 / 3;
    // PyTorch accepts 0 and then divides by it at totalIters: rejected here, as LinearLR's start.
    if (!(f > 0 && f <= 1)) throw new Error(`ConstantLR: constant multiplicative factor expected to be greater than 0 and at most 1, got ${f}`);
    super('ConstantLR', optimizer, o.lastEpoch);
    this.factor = f;
    this.totalIters = o.totalIters ?? 5;
    this.initialStep();
  }

  protected computeLr(): number[] {
    if (this.lastEpoch === 0) return this.groupLrs().map((lr) => lr * this.factor);
    if (this.lastEpoch !== this.totalIters) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * (1.0 / this.factor));
  }

  protected closedFormLr(): number[] {
    return this.baseLrs.map((base) => base * (this.factor + Number(this.lastEpoch >= this.totalIters) * (1 - this.factor)));
  }
}

export interface PolynomialLROptions {
  /** Epochs of the decay to 0 (default 5). */
  totalIters?: number;
  /** Power of the polynomial (default 1: linear). */
  power?: number;
  lastEpoch?: number;
}

/** lr = initial lr · (1 − epoch/totalIters)^power, then 0. */
export class PolynomialLR extends LRScheduler {
  readonly totalIters: number;
  readonly power: number;

  constructor(optimizer: Optimizer, options?: PolynomialLROptions) {
    const o = checkOptions<PolynomialLROptions>('PolynomialLR', options, { totalIters: intAtLeast(1), power: 'number', lastEpoch: intAtLeast(-1) });
    super('PolynomialLR', optimizer, o.lastEpoch);
    this.totalIters = o.totalIters ?? 5;
    this.power = o.power ?? 1;
    this.initialStep();
  }

  protected computeLr(): number[] {
    const { lastEpoch: e, totalIters: n } = this;
    if (e === 0 || e > n) return this.groupLrs();
    const decay = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** this.power;
    return this.groupLrs().map((lr) => lr * decay);
  }

  protected closedFormLr(): number[] {
    return this.baseLrs.map((base) => base * (1.0 - Math.min(this.totalIters, this.lastEpoch) / this.totalIters) ** this.power);
  }
}
