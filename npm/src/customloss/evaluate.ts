// Running the loss functions of sg.customLoss: a synchronous one inside tidy (its temporaries
// freed), an async one raced against its timeout, all of one evaluation concurrently. Whatever
// happens, every tensor they return is disposed by the caller or here, also the result of an
// async function that resolves after the call has failed or timed out.
import { enableGrad, noGrad } from '../autograd/backward.js';
import { tidy } from '../runtime/memory.js';
import { describe, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

/** What a loss function may return besides its loss: plain values (one-element tensors are read). */
export type Metrics = Record<string, unknown>;
/** A loss function's result: `[loss, metrics]`, or the loss alone. */
export type LossResult = Tensor | [loss: Tensor, metrics?: Metrics | null];
export type LossFn<D = unknown> = (logprobsList: Tensor[], data: D) => LossResult;
export type AsyncLossFn<D = unknown> = (logprobsList: Tensor[], data: D) => LossResult | Promise<LossResult>;

/** One loss function of an evaluation: the base loss or a regularizer. */
export interface LossEntry<D> {
  /** In failure messages and telemetry: 'baseLoss' or the regularizer's name. */
  label: string;
  weight: number;
  fn: AsyncLossFn<D>;
  /** true: awaited (with the timeout, if any); false: must return synchronously. */
  async: boolean;
  timeoutMs?: number;
  /** How linearize differentiates it (custom_loss.ts); the base loss: 'auto'. */
  gradMethod?: 'auto' | 'symbolic' | 'numerical';
}

/** A loss function's result once checked: a one-element loss tensor (owned) and read metrics. */
export interface Outcome {
  loss: Tensor;
  metrics: Metrics;
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The Error every failure of a loss function (or of the client) becomes; a thrown value is kept as its `cause`. */
export function failure(label: string, reason: unknown): Error {
  return new Error(`Custom loss failed: ${label}: ${messageOf(reason)}`, typeof reason === 'string' ? undefined : { cause: reason });
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

/** Disposes the tensors reachable from a value a loss function returned, except the inputs. */
function release(value: unknown, inputs: ReadonlySet<Tensor>): void {
  if (value instanceof Tensor) {
    if (!inputs.has(value)) value.dispose();
  } else if (Array.isArray(value)) {
    for (const v of value) release(v, inputs);
  } else if (isOptionsObject(value)) {
    for (const v of Object.values(value)) release(v, inputs);
  }
}

/** Rejects after `ms`; the late result of `p` is then released when it comes. */
function withTimeout<T>(p: Promise<T>, ms: number | undefined, label: string, inputs: ReadonlySet<Tensor>): Promise<T> {
  if (ms === undefined) return p;
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(failure(label, `timed out after ${ms} ms (timeoutMs)`));
    }, ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        if (timedOut) release(v, inputs);
        else resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        if (!timedOut) reject(e);
      },
    );
  });
}

/** Checks a returned value; the metrics' tensors are read and released. */
async function toOutcome(label: string, out: unknown, inputs: ReadonlySet<Tensor>): Promise<Outcome> {
  const [loss, metrics] = out instanceof Tensor ? [out, undefined] : Array.isArray(out) ? out : [undefined, undefined];
  const badLoss = !(loss instanceof Tensor) || loss.isDisposed || loss.dtype !== 'float32' || loss.numel !== 1;
  const badMetrics = metrics !== undefined && metrics !== null && !isOptionsObject(metrics);
  if (badLoss || badMetrics || (Array.isArray(out) && out.length > 2)) {
    const what = badLoss ? `a one-element float32 loss tensor, got ${describe(loss)}` : `metrics as a plain object, got ${describe(metrics)}`;
    release(out, inputs);
    throw failure(label, `expected the function to return [loss, metrics] or a loss tensor: ${what}`);
  }
  const read: Metrics = {};
  try {
    for (const [k, v] of Object.entries((metrics as Metrics | null | undefined) ?? {})) {
      if (!(v instanceof Tensor)) read[k] = v;
      else if (!v.isDisposed) {
        const values = await v.data();
        read[k] = v.numel === 1 ? Number(values[0]) : Array.from(values, Number);
      }
    }
  } finally {
    if (metrics) release(Object.values(metrics).filter((v) => v !== loss), inputs);
  }
  return { loss: loss as Tensor, metrics: read };
}

/** Runs one loss function and checks what it returns; every failure is a `failure(label, ...)`. */
async function run<D>(entry: LossEntry<D>, list: Tensor[], data: D, inputs: ReadonlySet<Tensor>, record: boolean): Promise<Outcome> {
  const withMode = record ? enableGrad : noGrad;
  let out: unknown;
  let promise: PromiseLike<unknown> | null = null;
  try {
    if (entry.async === true) {
      // The mode covers the synchronous call only: kept across the await, concurrent entries
      // would restore each other's modes out of order (and code running meanwhile would see it).
      promise = Promise.resolve(withMode(() => ({ result: entry.fn(list, data) })).result);
    } else {
      out = withMode(() =>
        tidy(() => {
          const r = entry.fn(list, data);
          if (!isPromiseLike(r)) return r;
          promise = r;
          return undefined;
        }),
      );
    }
  } catch (e) {
    throw failure(entry.label, e);
  }
  if (promise !== null) {
    if (entry.async === false) {
      Promise.resolve(promise).then((v) => release(v, inputs), () => {});
      const fix = entry.label === 'baseLoss' ? 'baseLoss must be synchronous (an async loss can be a regularizer with weight 1)' : 'declare it with { async: true }';
      throw failure(entry.label, `returned a Promise: ${fix}`);
    }
    try {
      out = await withTimeout(Promise.resolve(promise), entry.timeoutMs, entry.label, inputs);
    } catch (e) {
      throw messageOf(e).startsWith('Custom loss failed: ') ? e : failure(entry.label, e);
    }
  }
  return toOutcome(entry.label, out, inputs);
}

/** Releases the losses of outcomes (inputs excepted). */
export function releaseOutcomes(outcomes: readonly (Outcome | undefined)[], inputs: ReadonlySet<Tensor>): void {
  for (const o of outcomes) if (o) release(o.loss, inputs);
}

/**
 * Evaluates every entry on `list` (async ones concurrently), recording the graph when `record`.
 * Resolves to one outcome per entry, in order; on the first failure, rejects with it and
 * releases every other result, now or when it arrives.
 */
export async function evaluate<D>(entries: readonly LossEntry<D>[], list: Tensor[], data: D, record: boolean): Promise<Outcome[]> {
  const inputs = new Set(list);
  const outcomes: (Outcome | undefined)[] = new Array(entries.length);
  let failed = false;
  const settle = (i: number, o: Outcome) => {
    if (failed) release(o.loss, inputs);
    else outcomes[i] = o;
  };
  const pending: Promise<void>[] = [];
  try {
    entries.forEach((e, i) => {
      if (e.async === true) {
        const p = run(e, list, data, inputs, record).then((o) => settle(i, o));
        p.catch(() => {}); // awaited below; this only stops an "unhandled rejection" if a synchronous entry fails first
        pending.push(p);
      }
    });
    for (let i = 0; i < entries.length; i++) if (entries[i]!.async !== true) settle(i, await run(entries[i]!, list, data, inputs, record));
    await Promise.all(pending);
  } catch (e) {
    failed = true;
    releaseOutcomes(outcomes, inputs);
    throw e;
  }
  return outcomes as Outcome[];
}

/** The loss values (as numbers) of outcomes. */
export async function lossValues(outcomes: readonly Outcome[]): Promise<number[]> {
  return Promise.all(outcomes.map(async (o) => Number((await o.loss.data())[0]!)));
}
