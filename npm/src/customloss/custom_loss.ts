// sg.customLoss, the linearization trick: a remote service that computes log-probabilities and
// trains only through its own weighted cross-entropy (loss = −Σ w·logprob) trains any custom
// loss L(logprobs) when it is sent w = −∂L/∂logprobs, computed here. This file holds the
// regularizers and linearize (the gradient methods); evaluate.ts runs the loss
// functions, clients.ts the whole round trip with a client.
import { enableGrad } from '../autograd/backward.js';
import { tensor, zerosLike } from '../tensor/creation.js';
import { dispose, tidy } from '../runtime/memory.js';
import { checkOptions, describe, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { emit, type GradMethod } from './telemetry.js';
import {
  evaluate,
  failure,
  lossValues,
  releaseOutcomes,
  type AsyncLossFn,
  type LossEntry,
  type LossFn,
  type Metrics,
  type Outcome,
} from './evaluate.js';

export type { GradMethod } from './telemetry.js';
export type { AsyncLossFn, LossFn, LossResult, Metrics } from './evaluate.js';

export interface RegularizerOptions {
  /** fn returns a Promise (default false); async regularizers of one call run concurrently. */
  async?: boolean;
  /** An async regularizer that takes longer fails the call (default: no limit). */
  timeoutMs?: number;
}

/** A named, weighted term of a custom loss (made by sg.customLoss.regularizer). */
export interface Regularizer<D = unknown> {
  readonly name: string;
  readonly weight: number;
  readonly fn: AsyncLossFn<D>;
  readonly async: boolean;
  readonly timeoutMs?: number;
}

/** The user's gradient for gradMethod 'hybrid': ∂total/∂logprobsList[i], one tensor per input. */
export type GradFn<D = unknown> = (logprobsList: Tensor[], data: D) => Tensor[] | Promise<Tensor[]>;

export interface LinearizeOptions<D = unknown> {
  /** The unweighted base loss; synchronous. */
  baseLoss?: LossFn<D>;
  regularizers?: readonly Regularizer<D>[];
  /** 'numerical' (default): central differences; 'symbolic': autograd; 'hybrid': gradFn. */
  gradMethod?: GradMethod;
  /** Step of the central differences (default 1e-2: in float32 it balances rounding and truncation errors). */
  eps?: number;
  gradFn?: GradFn<D>;
}

export interface RegularizerTelemetry {
  value: number;
  weight: number;
  /** value · weight */
  contribution: number;
  /** The metrics the regularizer returned. */
  custom: Metrics;
}

export interface CustomLossTelemetry {
  /** base + regularizer_total */
  loss_total: number;
  base_loss?: { value: number; custom: Metrics };
  regularizers: Record<string, RegularizerTelemetry>;
  /** Σ contribution */
  regularizer_total: number;
  gradient_method: GradMethod;
  gradient_duration_ms: number;
}

export interface LinearizeResult {
  /** weights[i] = −∂total/∂logprobsList[i], shaped and placed as logprobsList[i]; the caller owns them. */
  weights: Tensor[];
  lossTotal: number;
  telemetry: CustomLossTelemetry;
}

// The losses are float32: a total near 6 is known to ±2.4e-7, so a step of 1e-3 leaves rounding
// errors up to 1.2e-4 in the quotient (8.9e-5 measured on the sum of [1, 2, 3]). A step of 1e-2
// divides them by 10 (2.4e-5), while the truncation error of smooth losses, h²·f'''/6, stays near 2e-5.
const DEFAULT_EPS = 1e-2;
const METHODS: readonly GradMethod[] = ['numerical', 'symbolic', 'hybrid'];

// ---- regularizers ----

function checkRegularizer<D>(fn: string, name: unknown, weight: unknown, f: unknown, options: unknown): Regularizer<D> {
  if (typeof name !== 'string' || name.length === 0) throw new Error(`${fn}: expected 'name' to be a non-empty string, got ${describe(name)}`);
  if (typeof weight !== 'number' || !Number.isFinite(weight)) {
    throw new Error(`${fn}: expected 'weight' of regularizer '${name}' to be a finite number, got ${describe(weight)}`);
  }
  if (typeof f !== 'function') throw new Error(`${fn}: expected 'fn' of regularizer '${name}' to be a function, got ${describe(f)}`);
  const o = checkOptions<RegularizerOptions>(fn, options, {
    async: 'boolean',
    timeoutMs: { check: (v) => typeof v === 'number' && v > 0 && Number.isFinite(v), expected: 'a positive finite number of milliseconds' },
  });
  if (o.timeoutMs !== undefined && o.async !== true) {
    throw new Error(`${fn}: option 'timeoutMs' of regularizer '${name}' needs { async: true } (a synchronous function cannot be interrupted)`);
  }
  const r: Regularizer<D> = { name, weight, fn: f as AsyncLossFn<D>, async: o.async ?? false };
  if (o.timeoutMs !== undefined) (r as { timeoutMs?: number }).timeoutMs = o.timeoutMs;
  return Object.freeze(r);
}

/** A regularizer: `fn(logprobsList, data)` returns `[lossTensor, metrics]` (a Promise of it when async). */
function regularizer<D = unknown>(name: string, weight: number, fn: AsyncLossFn<D>, options?: RegularizerOptions): Regularizer<D> {
  return checkRegularizer('customLoss.regularizer', name, weight, fn, options);
}

/** The entries of one evaluation: the base loss first (weight 1), then the regularizers. */
function lossEntries<D>(fn: string, baseLoss: LossFn<D> | undefined, regularizers: readonly unknown[]): LossEntry<D>[] {
  const entries: LossEntry<D>[] = baseLoss ? [{ label: 'baseLoss', weight: 1, fn: baseLoss, async: false }] : [];
  const names = new Set<string>();
  regularizers.forEach((r, i) => {
    if (!isOptionsObject(r)) throw new Error(`${fn}: expected regularizers[${i}] to be made by sg.customLoss.regularizer, got ${describe(r)}`);
    const { name, weight, fn: f, ...rest } = r;
    const reg = checkRegularizer<D>(fn, name, weight, f, rest);
    if (names.has(reg.name)) throw new Error(`${fn}: two regularizers are named '${reg.name}' (names key the telemetry: they must be unique)`);
    names.add(reg.name);
    entries.push({ label: reg.name, weight: reg.weight, fn: reg.fn, async: reg.async, timeoutMs: reg.timeoutMs });
  });
  return entries;
}

// ---- argument checks ----

export function tensorList(fn: string, name: string, v: unknown): Tensor[] {
  if (!Array.isArray(v) || v.length === 0) throw new Error(`${fn}: expected '${name}' to be a non-empty array of float32 Tensors, got ${describe(v)}`);
  v.forEach((t, i) => {
    if (!(t instanceof Tensor) || t.isDisposed || t.dtype !== 'float32') {
      throw new Error(`${fn}: expected '${name}[${i}]' to be a float32 Tensor, got ${describe(t)}`);
    }
  });
  return v as Tensor[];
}

function sameShapes(a: readonly Tensor[], b: readonly Tensor[]): boolean {
  return a.length === b.length && a.every((t, i) => t.shape.join() === b[i]!.shape.join());
}

// ---- the gradient methods ----

/** base + Σ weight·value over entries, as a 0-d tensor with its graph. */
function totalTensor<D>(entries: readonly LossEntry<D>[], outcomes: readonly Outcome[]): Tensor {
  return enableGrad(() =>
    tidy(() =>
      outcomes
        .map((o, i) => (entries[i]!.weight === 1 ? o.loss.reshape([]) : o.loss.reshape([]).mul(entries[i]!.weight)))
        .reduce((sum, term) => sum.add(term)),
    ),
  );
}

/** What one evaluation gave, read to numbers: one value and one metrics object per entry. */
interface Evaluated {
  values: number[];
  metrics: Metrics[];
}

async function read(outcomes: readonly Outcome[]): Promise<Evaluated> {
  return { values: await lossValues(outcomes), metrics: outcomes.map((o) => o.metrics) };
}

/** −∂total/∂inputs by autograd, through fresh leaves that share the inputs' data. */
async function symbolic<D>(entries: readonly LossEntry<D>[], inputs: Tensor[], data: D): Promise<Evaluated & { weights: Tensor[]; ms: number }> {
  const leaves = inputs.map((t) => t.detach().requiresGrad_());
  let outcomes: Outcome[] = [];
  try {
    outcomes = await evaluate(entries, leaves, data, true);
    const evaluated = await read(outcomes);
    const t0 = performance.now();
    const total = totalTensor(entries, outcomes);
    try {
      if (total.requiresGrad) total.backward();
    } finally {
      total.dispose();
    }
    const weights = leaves.map((leaf) =>
      tidy(() => {
        const g = leaf.grad;
        // No gradient: the total does not depend on this input.
        return g === null ? zerosLike(leaf).to(leaf.device) : g.neg();
      }),
    );
    return { ...evaluated, weights, ms: performance.now() - t0 };
  } finally {
    releaseOutcomes(outcomes, new Set(leaves));
    for (const leaf of leaves) leaf.dispose();
  }
}

/** Σ weight·value of one evaluation on `list`, as a number. */
async function totalValue<D>(entries: readonly LossEntry<D>[], list: Tensor[], data: D): Promise<number> {
  const outcomes = await evaluate(entries, list, data, false);
  try {
    const values = await lossValues(outcomes);
    return values.reduce((sum, v, i) => sum + entries[i]!.weight * v, 0);
  } finally {
    releaseOutcomes(outcomes, new Set(list));
  }
}

/**
 * −∂total/∂inputs by central differences, one element at a time. The step actually taken is
 * fl(x ± eps) − x in float32, so the quotient divides by it rather than by 2·eps.
 */
async function numerical<D>(entries: readonly LossEntry<D>[], inputs: Tensor[], data: D, eps: number): Promise<Tensor[]> {
  const weights: Tensor[] = [];
  try {
    for (let i = 0; i < inputs.length; i++) {
      const x = inputs[i]!;
      const host = Float32Array.from(await x.data());
      const shape = x.shape;
      const at = async (j: number, value: number): Promise<number> => {
        const saved = host[j]!;
        host[j] = value;
        const perturbed = tensor(host, { shape });
        host[j] = saved;
        const moved = perturbed.to(x.device);
        perturbed.dispose();
        try {
          return await totalValue(entries, inputs.map((t, k) => (k === i ? moved : t)), data);
        } finally {
          moved.dispose();
        }
      };
      const w = new Float32Array(host.length);
      for (let j = 0; j < host.length; j++) {
        const v = host[j]!;
        if (!Number.isFinite(v)) continue; // no derivative at ±∞ or NaN (a masked log-probability): weight 0
        const up = Math.fround(v + eps);
        const down = Math.fround(v - eps);
        w[j] = -((await at(j, up)) - (await at(j, down))) / (up - down);
      }
      const t = tensor(w, { shape });
      weights.push(t.to(x.device));
      t.dispose();
    }
    return weights;
  } catch (e) {
    dispose(weights);
    throw e;
  }
}

/** −gradFn(inputs, data), its result checked against the inputs' shapes. */
async function hybrid<D>(gradFn: GradFn<D>, inputs: Tensor[], data: D): Promise<Tensor[]> {
  let grads: unknown;
  try {
    grads = await gradFn(inputs, data);
  } catch (e) {
    throw failure('gradFn', e);
  }
  const protectedInputs = new Set(inputs);
  const owned = () => dispose((Array.isArray(grads) ? grads : [grads]).filter((g) => !protectedInputs.has(g as Tensor)));
  const ok = Array.isArray(grads) && grads.every((g) => g instanceof Tensor && !g.isDisposed && g.dtype === 'float32');
  if (!ok || !sameShapes(grads as Tensor[], inputs)) {
    owned();
    const want = inputs.map((t) => `[${t.shape.join(', ')}]`).join(', ');
    throw failure('gradFn', `expected an array of float32 Tensors shaped as logprobsList (${want}), got ${describe(grads)}`);
  }
  try {
    return (grads as Tensor[]).map((g) => g.neg());
  } finally {
    owned();
  }
}

// ---- linearize ----

/**
 * The weights that make the service's cross-entropy −Σ w·logprob train total = baseLoss +
 * Σ weightₖ·regularizerₖ: w = −∂total/∂logprobs, with the total's telemetry.
 */
async function linearize<D = unknown>(logprobsList: Tensor[], data: D, options?: LinearizeOptions<D>): Promise<LinearizeResult> {
  const fn = 'customLoss.linearize';
  const inputs = tensorList(fn, 'logprobsList', logprobsList);
  const o = checkOptions<LinearizeOptions<D>>(fn, options, {
    baseLoss: { check: (v) => typeof v === 'function', expected: 'a function (logprobsList, data) => [loss, metrics]' },
    regularizers: { check: Array.isArray, expected: 'an array of regularizers' },
    gradMethod: METHODS,
    eps: { check: (v) => typeof v === 'number' && v > 0 && Number.isFinite(v), expected: 'a positive finite number' },
    gradFn: { check: (v) => typeof v === 'function', expected: 'a function (logprobsList, data) => gradients' },
  });
  const entries = lossEntries(fn, o.baseLoss, o.regularizers ?? []);
  if (entries.length === 0) throw new Error('Must provide regularizers or baseLoss (customLoss.linearize got neither)');
  const method = o.gradMethod ?? 'numerical';
  if (method === 'hybrid' && !o.gradFn) throw new Error(`${fn}: gradMethod 'hybrid' needs option 'gradFn' (the gradient of the total loss)`);
  if (o.gradFn && method !== 'hybrid') throw new Error(`${fn}: option 'gradFn' is used by gradMethod 'hybrid' only, got gradMethod '${method}'`);
  if (o.eps !== undefined && method !== 'numerical') throw new Error(`${fn}: option 'eps' is used by gradMethod 'numerical' only, got gradMethod '${method}'`);

  let evaluated: Evaluated;
  let weights: Tensor[];
  let ms: number;
  if (method === 'symbolic') {
    ({ weights, ms, ...evaluated } = await symbolic(entries, inputs, data));
  } else {
    const outcomes = await evaluate(entries, inputs, data, false);
    try {
      evaluated = await read(outcomes);
    } finally {
      releaseOutcomes(outcomes, new Set(inputs));
    }
    const t0 = performance.now();
    weights = method === 'numerical' ? await numerical(entries, inputs, data, o.eps ?? DEFAULT_EPS) : await hybrid(o.gradFn!, inputs, data);
    ms = performance.now() - t0;
  }
  const telemetry = report(entries, evaluated, method, ms);
  return { weights, lossTotal: telemetry.loss_total, telemetry };
}

/** The telemetry of a call, and its events (emitted once the weights exist). */
function report<D>(entries: readonly LossEntry<D>[], { values, metrics }: Evaluated, method: GradMethod, ms: number): CustomLossTelemetry {
  const hasBase = entries[0]?.label === 'baseLoss';
  let regularizerTotal = 0;
  const rows = entries.flatMap((e, i): [string, RegularizerTelemetry][] => {
    if (hasBase && i === 0) return [];
    const contribution = values[i]! * e.weight;
    regularizerTotal += contribution;
    return [[e.label, { value: values[i]!, weight: e.weight, contribution, custom: metrics[i]! }]];
  });
  // fromEntries defines own properties, whatever the names (even '__proto__').
  const regularizers: Record<string, RegularizerTelemetry> = Object.fromEntries(rows);
  const base = hasBase ? values[0]! : 0;
  const telemetry: CustomLossTelemetry = {
    loss_total: base + regularizerTotal,
    ...(hasBase ? { base_loss: { value: base, custom: metrics[0]! } } : {}),
    regularizers,
    regularizer_total: regularizerTotal,
    gradient_method: method,
    gradient_duration_ms: ms,
  };
  for (const [name, r] of Object.entries(regularizers)) {
    emit('regularizer', { regularizer: name, value: r.value, weight: r.weight, contribution: r.contribution, ...r.custom });
  }
  emit('gradient', { method, duration_ms: ms });
  return telemetry;
}

/** sg.customLoss (forwardBackwardCustom and localClient are added in clients.ts). */
export const customLossCore = { regularizer, linearize };
