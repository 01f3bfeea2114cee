// sg.customLoss, the linearization trick: a remote service that computes log-probabilities and
// trains only through its own weighted cross-entropy (loss = −Σ w·logprob) trains any custom
// loss L(logprobs) when it is sent w = −∂L/∂logprobs, computed here. This file holds the
// regularizers and linearize (the gradient methods); evaluate.ts runs the loss
// functions, clients.ts the whole round trip with a client.
//
// The gradient is assembled term by term (the base loss and each regularizer): by autograd, one
// backward per term, where the term's loss reaches the inputs through the graph; by central
// differences for the terms (or the inputs of a term) it does not reach that way and for terms
// that ask for differences. So a term computed from values read back (dataSync, data, item) is
// differentiated, not given a silent zero.
import { enableGrad } from '../autograd/backward.js';
import { tensor } from '../tensor/creation.js';
import { dispose } from '../runtime/memory.js';
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

/** How one regularizer is differentiated (its option `gradMethod`). */
export type TermGradMethod = 'auto' | 'symbolic' | 'numerical';
/** How a term's gradient was computed (telemetry): 'mixed' = autograd for some inputs, differences for others. */
export type TermGradReport = 'symbolic' | 'numerical' | 'mixed' | 'hybrid';

export interface RegularizerOptions {
  /** fn returns a Promise (default false); async regularizers of one call run concurrently. */
  async?: boolean;
  /** An async regularizer that takes longer fails the call (default: no limit). */
  timeoutMs?: number;
  /**
   * 'auto' (default): as linearize's gradMethod says, except that under 'symbolic' the inputs its
   * loss does not reach through the autograd graph (values read back with dataSync, data, item...)
   * are differentiated numerically; 'symbolic': autograd only (an Error if its loss has no graph
   * to the inputs); 'numerical': central differences, whatever linearize's gradMethod.
   */
  gradMethod?: TermGradMethod;
}

/** A named, weighted term of a custom loss (made by sg.customLoss.regularizer). */
export interface Regularizer<D = unknown> {
  readonly name: string;
  readonly weight: number;
  readonly fn: AsyncLossFn<D>;
  readonly async: boolean;
  readonly timeoutMs?: number;
  readonly gradMethod: TermGradMethod;
}

/** The user's gradient for gradMethod 'hybrid': ∂total/∂logprobsList[i], one tensor per input. */
export type GradFn<D = unknown> = (logprobsList: Tensor[], data: D) => Tensor[] | Promise<Tensor[]>;

export interface LinearizeOptions<D = unknown> {
  /** The unweighted base loss; synchronous. */
  baseLoss?: LossFn<D>;
  regularizers?: readonly Regularizer<D>[];
  /**
   * 'numerical' (default): central differences; 'symbolic': autograd (with differences for the
   * inputs a term does not reach through the graph, unless the term says 'symbolic'); 'hybrid':
   * gradFn. A regularizer's own gradMethod ('symbolic' or 'numerical') overrides it for that term.
   */
  gradMethod?: GradMethod;
  /** Step of the central differences (default 1e-2: in float32 it balances rounding and truncation errors). */
  eps?: number;
  /**
   * Central differences of this many log-probabilities are evaluated together (default 1): their
   * 2·chunkSize evaluations run concurrently (async regularizers overlap), with at most that many
   * perturbed copies of an input alive, so memory stays bounded whatever the number of elements.
   */
  chunkSize?: number;
  gradFn?: GradFn<D>;
}

export interface RegularizerTelemetry {
  value: number;
  weight: number;
  /** value · weight */
  contribution: number;
  /** The metrics the regularizer returned. */
  custom: Metrics;
  /** How its gradient was computed. */
  gradient_method: TermGradReport;
}

export interface CustomLossTelemetry {
  /** base + regularizer_total */
  loss_total: number;
  base_loss?: { value: number; custom: Metrics; gradient_method: TermGradReport };
  regularizers: Record<string, RegularizerTelemetry>;
  /** Σ contribution */
  regularizer_total: number;
  /** The call's gradMethod (each term's own: its gradient_method). */
  gradient_method: GradMethod;
  gradient_duration_ms: number;
  /** Evaluations of loss functions the gradient took after the first (central differences and dependence probes). */
  gradient_evaluations: number;
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
const TERM_METHODS: readonly TermGradMethod[] = ['auto', 'symbolic', 'numerical'];

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
    gradMethod: TERM_METHODS,
  });
  if (o.timeoutMs !== undefined && o.async !== true) {
    throw new Error(`${fn}: option 'timeoutMs' of regularizer '${name}' needs { async: true } (a synchronous function cannot be interrupted)`);
  }
  const r: Regularizer<D> = { name, weight, fn: f as AsyncLossFn<D>, async: o.async ?? false, gradMethod: o.gradMethod ?? 'auto' };
  if (o.timeoutMs !== undefined) (r as { timeoutMs?: number }).timeoutMs = o.timeoutMs;
  return Object.freeze(r);
}

/** A regularizer: `fn(logprobsList, data)` returns `[lossTensor, metrics]` (a Promise of it when async). */
function regularizer<D = unknown>(name: string, weight: number, fn: AsyncLossFn<D>, options?: RegularizerOptions): Regularizer<D> {
  return checkRegularizer('customLoss.regularizer', name, weight, fn, options);
}

/** The entries of one evaluation: the base loss first (weight 1), then the regularizers. */
function lossEntries<D>(fn: string, baseLoss: LossFn<D> | undefined, regularizers: readonly unknown[]): LossEntry<D>[] {
  const entries: LossEntry<D>[] = baseLoss ? [{ label: 'baseLoss', weight: 1, fn: baseLoss, async: false, gradMethod: 'auto' }] : [];
  const names = new Set<string>();
  regularizers.forEach((r, i) => {
    if (!isOptionsObject(r)) throw new Error(`${fn}: expected regularizers[${i}] to be made by sg.customLoss.regularizer, got ${describe(r)}`);
    const { name, weight, fn: f, ...rest } = r;
    const reg = checkRegularizer<D>(fn, name, weight, f, rest);
    if (names.has(reg.name)) throw new Error(`${fn}: two regularizers are named '${reg.name}' (names key the telemetry: they must be unique)`);
    names.add(reg.name);
    entries.push({ label: reg.name, weight: reg.weight, fn: reg.fn, async: reg.async, timeoutMs: reg.timeoutMs, gradMethod: reg.gradMethod });
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

/** What one evaluation gave, read to numbers: one value and one metrics object per entry. */
interface Evaluated {
  values: number[];
  metrics: Metrics[];
}

async function read(outcomes: readonly Outcome[]): Promise<Evaluated> {
  return { values: await lossValues(outcomes), metrics: outcomes.map((o) => o.metrics) };
}

/** How an entry is differentiated in a call: autograd only, autograd with the fallback to differences, or differences. */
type Plan = 'symbolic' | 'auto' | 'numerical';

function planOf<D>(entry: LossEntry<D>, method: GradMethod): Plan {
  const own = entry.gradMethod ?? 'auto';
  if (own !== 'auto') return own;
  return method === 'symbolic' ? 'auto' : 'numerical';
}

/** The gradient being assembled: ∂total/∂inputs[i] in float64, the terms' parts added up. */
class Accumulator {
  readonly grads: Float64Array[];
  evaluations = 0;
  constructor(readonly inputs: readonly Tensor[]) {
    this.grads = inputs.map((t) => new Float64Array(t.numel));
  }

  add(i: number, values: ArrayLike<number>, scale: number): void {
    const g = this.grads[i]!;
    for (let j = 0; j < g.length; j++) g[j]! += scale * values[j]!;
  }

  /** weights[i] = −grads[i], as float32 tensors placed as the inputs (the caller owns them). */
  weights(): Tensor[] {
    const out: Tensor[] = [];
    try {
      this.inputs.forEach((x, i) => out.push(placed(Float32Array.from(this.grads[i]!, (v) => (v === 0 ? 0 : -v)), x)));
      return out;
    } catch (e) {
      dispose(out);
      throw e;
    }
  }
}

/** A float32 tensor's values, copied (any device). */
async function floats(t: Tensor): Promise<Float32Array> {
  return Float32Array.from((await t.data()) as ArrayLike<number>);
}

/** A tensor of `values` shaped and placed as `like`. */
function placed(values: Float32Array, like: Tensor): Tensor {
  const host = tensor(values, { shape: like.shape });
  if (host.device === like.device) return host;
  try {
    return host.to(like.device);
  } finally {
    host.dispose();
  }
}

/** Each entry's value on `list` (no graph). */
async function entryValues<D>(entries: readonly LossEntry<D>[], list: Tensor[], data: D): Promise<number[]> {
  const outcomes = await evaluate(entries, list, data, false);
  try {
    return await lossValues(outcomes);
  } finally {
    releaseOutcomes(outcomes, new Set(list));
  }
}

/** Σ weight·value of `entries` on `inputs` with inputs[i] replaced by `values` (the replacement freed after). */
async function totalWith<D>(entries: readonly LossEntry<D>[], inputs: readonly Tensor[], i: number, values: Float32Array, data: D): Promise<number> {
  const moved = placed(values, inputs[i]!);
  try {
    const v = await entryValues(entries, inputs.map((t, k) => (k === i ? moved : t)), data);
    return v.reduce((sum, x, k) => sum + entries[k]!.weight * x, 0);
  } finally {
    moved.dispose();
  }
}

/**
 * Adds ∂(Σ weight·entry)/∂inputs[i] over `entries` by central differences, `chunkSize` elements
 * at a time (their evaluations concurrently). The step actually taken is fl(x ± eps) − x in
 * float32, so the quotient divides by it rather than by 2·eps. A non-finite element (a masked
 * log-probability) has no derivative: weight 0.
 */
async function differences<D>(acc: Accumulator, entries: readonly LossEntry<D>[], i: number, data: D, eps: number, chunkSize: number): Promise<void> {
  const host = await floats(acc.inputs[i]!);
  const g = new Float64Array(host.length);
  const at = (j: number, value: number): Promise<number> => {
    const moved = Float32Array.from(host);
    moved[j] = value;
    return totalWith(entries, acc.inputs, i, moved, data);
  };
  const elements: number[] = [];
  host.forEach((v, j) => Number.isFinite(v) && elements.push(j));
  for (let c = 0; c < elements.length; c += chunkSize) {
    const chunk = elements.slice(c, c + chunkSize);
    await Promise.all(
      chunk.map(async (j) => {
        const v = host[j]!;
        const up = Math.fround(v + eps);
        const down = Math.fround(v - eps);
        const [fu, fd] = await Promise.all([at(j, up), at(j, down)]);
        g[j] = (fu - fd) / (up - down);
      }),
    );
    acc.evaluations += 2 * chunk.length * entries.length;
  }
  acc.add(i, g, 1);
}

/** A fixed pattern of ±1 for the probes (moving elements apart also changes their order). */
function signs(n: number): Float32Array {
  let s = 0x2545f491;
  return Float32Array.from({ length: n }, () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) & 0x10000 ? 1 : -1));
}

/**
 * Those of `candidates` (input indices) the entry's value depends on: the candidates moved
 * together by ±eps (a fixed sign pattern), and when the value changes, each on its own. A value
 * unchanged bit for bit means no dependence there (a zero derivative, which differences would
 * also give).
 */
async function dependsOn<D>(acc: Accumulator, entry: LossEntry<D>, candidates: readonly number[], data: D, eps: number): Promise<number[]> {
  const hosts = new Map<number, Float32Array>();
  for (const i of candidates) hosts.set(i, await floats(acc.inputs[i]!));
  const valueWith = async (which: readonly number[], dir: number): Promise<number> => {
    const list = acc.inputs.slice();
    const made: Tensor[] = [];
    try {
      for (const i of which) {
        const h = hosts.get(i)!;
        const s = signs(h.length);
        const t = placed(Float32Array.from(h, (v, j) => (Number.isFinite(v) ? Math.fround(v + dir * eps * s[j]!) : v)), acc.inputs[i]!);
        made.push(t);
        list[i] = t;
      }
      acc.evaluations++;
      return (await entryValues([entry], list, data))[0]!;
    } finally {
      dispose(made);
    }
  };
  const changes = async (which: readonly number[]): Promise<boolean> => {
    const [a, b] = await Promise.all([valueWith(which, 1), valueWith(which, -1)]);
    return !(a === b || (Number.isNaN(a) && Number.isNaN(b)));
  };
  if (!(await changes(candidates))) return [];
  if (candidates.length === 1) return [...candidates];
  const out: number[] = [];
  for (const i of candidates) if (await changes([i])) out.push(i);
  return out;
}

/**
 * Every entry's part of ∂total/∂inputs into acc: one evaluation (on leaves with a graph when some
 * entry uses autograd), one backward per autograd entry (noting the inputs it does not reach),
 * then central differences: of the 'numerical' entries, and of the 'auto' ones on the inputs they
 * do not reach through the graph but depend on. Returns the evaluation's values and metrics, how
 * each entry was differentiated, and the time the gradient took.
 */
async function gradients<D>(
  acc: Accumulator,
  entries: readonly LossEntry<D>[],
  plans: readonly Plan[],
  data: D,
  eps: number,
  chunkSize: number,
): Promise<{ evaluated: Evaluated; reports: TermGradReport[]; ms: number }> {
  const inputs = acc.inputs;
  const graph = plans.some((p) => p !== 'numerical');
  const leaves = graph ? inputs.map((t) => t.detach().requiresGrad_()) : inputs.slice();
  const reached = entries.map(() => inputs.map(() => false));
  let outcomes: Outcome[] = [];
  let evaluated: Evaluated;
  let ms = 0;
  try {
    outcomes = await evaluate(entries, leaves, data, graph);
    evaluated = await read(outcomes);
    const t0 = performance.now();
    for (let k = 0; k < entries.length; k++) {
      if (plans[k] === 'numerical') continue;
      const loss = outcomes[k]!.loss;
      if (!loss.requiresGrad) {
        if (plans[k] === 'symbolic') {
          throw failure(
            entries[k]!.label,
            "gradMethod 'symbolic', but its loss has no autograd graph to the log-probabilities (computed from values read back with " +
              "dataSync, data or item?), so its gradient would be zero; use { gradMethod: 'numerical' } or 'auto' (the default)",
          );
        }
        continue;
      }
      for (const leaf of leaves) leaf.grad = null;
      enableGrad(() => loss.backward({ retainGraph: true }));
      for (let i = 0; i < leaves.length; i++) {
        const g = leaves[i]!.grad; // a new wrapper of the leaf's gradient: disposed here
        if (g === null) continue; // not reached through the graph
        try {
          reached[k]![i] = true;
          acc.add(i, await floats(g), entries[k]!.weight);
        } finally {
          g.dispose();
          leaves[i]!.grad = null;
        }
      }
    }
    ms += performance.now() - t0;
  } finally {
    releaseOutcomes(outcomes, new Set(leaves));
    if (graph) for (const leaf of leaves) leaf.dispose();
  }
  const t1 = performance.now();
  const numericalOn: number[][] = inputs.map(() => []); // per input, the entries differenced there
  const reports: TermGradReport[] = [];
  for (let k = 0; k < entries.length; k++) {
    const viaGraph = reached[k]!.some(Boolean);
    let viaDifferences = false;
    if (plans[k] === 'numerical') {
      numericalOn.forEach((list) => list.push(k));
      viaDifferences = true;
    } else if (plans[k] === 'auto') {
      const rest = inputs.map((_, i) => i).filter((i) => !reached[k]![i]);
      const needed = rest.length > 0 ? await dependsOn(acc, entries[k]!, rest, data, eps) : [];
      for (const i of needed) numericalOn[i]!.push(k);
      // Reaching nothing through the graph, its gradient came from the probe and the differences.
      viaDifferences = needed.length > 0 || !viaGraph;
    }
    reports.push(viaGraph && viaDifferences ? 'mixed' : viaDifferences ? 'numerical' : 'symbolic');
  }
  for (let i = 0; i < inputs.length; i++) {
    const ks = numericalOn[i]!;
    if (ks.length > 0) await differences(acc, ks.map((k) => entries[k]!), i, data, eps, chunkSize);
  }
  ms += performance.now() - t1;
  return { evaluated: evaluated!, reports, ms };
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
    chunkSize: { check: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1, expected: 'a positive integer' },
    gradFn: { check: (v) => typeof v === 'function', expected: 'a function (logprobsList, data) => gradients' },
  });
  const entries = lossEntries(fn, o.baseLoss, o.regularizers ?? []);
  if (entries.length === 0) throw new Error('Must provide regularizers or baseLoss (customLoss.linearize got neither)');
  const method = o.gradMethod ?? 'numerical';
  if (method === 'hybrid' && !o.gradFn) throw new Error(`${fn}: gradMethod 'hybrid' needs option 'gradFn' (the gradient of the total loss)`);
  if (o.gradFn && method !== 'hybrid') throw new Error(`${fn}: option 'gradFn' is used by gradMethod 'hybrid' only, got gradMethod '${method}'`);
  if (method === 'hybrid') {
    for (const opt of ['eps', 'chunkSize'] as const) {
      if (o[opt] !== undefined) throw new Error(`${fn}: option '${opt}' is for central differences, which gradMethod 'hybrid' does not use (gradFn gives the gradient)`);
    }
    const own = entries.find((e) => (e.gradMethod ?? 'auto') !== 'auto');
    if (own) throw new Error(`${fn}: regularizer '${own.label}' has gradMethod '${own.gradMethod}', but gradMethod 'hybrid' takes the whole gradient from gradFn`);
  }

  let evaluated: Evaluated;
  let weights: Tensor[];
  let ms: number;
  let reports: TermGradReport[];
  let evaluations = 0;
  if (method === 'hybrid') {
    const outcomes = await evaluate(entries, inputs, data, false);
    try {
      evaluated = await read(outcomes);
    } finally {
      releaseOutcomes(outcomes, new Set(inputs));
    }
    const t0 = performance.now();
    weights = await hybrid(o.gradFn!, inputs, data);
    ms = performance.now() - t0;
    reports = entries.map((): TermGradReport => 'hybrid');
  } else {
    const acc = new Accumulator(inputs);
    const plans = entries.map((e) => planOf(e, method));
    ({ evaluated, reports, ms } = await gradients(acc, entries, plans, data, o.eps ?? DEFAULT_EPS, o.chunkSize ?? 1));
    evaluations = acc.evaluations;
    weights = acc.weights();
  }
  const telemetry = report(entries, evaluated, method, ms, reports, evaluations);
  return { weights, lossTotal: telemetry.loss_total, telemetry };
}

/** The telemetry of a call, and its events (emitted once the weights exist). */
function report<D>(
  entries: readonly LossEntry<D>[],
  { values, metrics }: Evaluated,
  method: GradMethod,
  ms: number,
  reports: readonly TermGradReport[],
  evaluations: number,
): CustomLossTelemetry {
  const hasBase = entries[0]?.label === 'baseLoss';
  let regularizerTotal = 0;
  const rows = entries.flatMap((e, i): [string, RegularizerTelemetry][] => {
    if (hasBase && i === 0) return [];
    const contribution = values[i]! * e.weight;
    regularizerTotal += contribution;
    return [[e.label, { value: values[i]!, weight: e.weight, contribution, custom: metrics[i]!, gradient_method: reports[i]! }]];
  });
  // fromEntries defines own properties, whatever the names (even '__proto__').
  const regularizers: Record<string, RegularizerTelemetry> = Object.fromEntries(rows);
  const base = hasBase ? values[0]! : 0;
  const telemetry: CustomLossTelemetry = {
    loss_total: base + regularizerTotal,
    ...(hasBase ? { base_loss: { value: base, custom: metrics[0]!, gradient_method: reports[0]! } } : {}),
    regularizers,
    regularizer_total: regularizerTotal,
    gradient_method: method,
    gradient_duration_ms: ms,
    gradient_evaluations: evaluations,
  };
  for (const [name, r] of Object.entries(regularizers)) {
    emit('regularizer', { regularizer: name, value: r.value, weight: r.weight, contribution: r.contribution, ...r.custom });
  }
  emit('gradient', { method, duration_ms: ms });
  return telemetry;
}

/** sg.customLoss (forwardBackwardCustom and localClient are added in clients.ts). */
export const customLossCore = { regularizer, linearize };
