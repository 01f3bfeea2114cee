// The callbacks compiled graphs call, under integer ids (C++ knows a graph's callbacks only by
// these): sg.jsCall's functions, registered once per (function, template, static arguments),
// and host steps (library code with effects, such as an optimizer's step, run in place on every
// compiled call). Compiled programs hold references to the ids they use; an entry goes when the
// last program using it is freed.
import type { Template } from './jscall_template.js';
import type { Tensor } from '../tensor/tensor.js';

/** What a vjp gets first: the callback's tensor inputs, its outputs, and its static arguments. */
export interface Residuals {
  inputs: Tensor[];
  outputs: Tensor[];
  statics: unknown[];
}

/** gradOutputs[k] is null for an output without a gradient (int32/bool ones). */
export type VjpFn = (residuals: Residuals, gradOutputs: (Tensor | null)[]) => Tensor | null | (Tensor | null | undefined)[];

export interface JsCallOptions {
  /** Makes the call differentiable: the gradients of its tensor inputs (one per input, null for none). */
  vjp?: VjpFn;
  /** No side effects: may be removed when unused and merged with an identical call (as jax.pure_callback). */
  pure?: boolean;
  /** An Error naming the callback when it takes longer (an async one is rejected then). */
  timeoutMs?: number;
  /** How messages name the callback (default: the function's name). */
  name?: string;
}

export interface Callback {
  kind: 'callback';
  id: number;
  fn: (...args: unknown[]) => unknown;
  template: Template;
  statics: unknown[];
  pure: boolean;
  vjp: VjpFn | undefined;
  timeoutMs: number | undefined;
  /** "'tokenize' (jsCall #3)" */
  label: string;
  /**
   * Internal (library callbacks that compute with GPU tensors: sg.penalties.gradientPenalty,
   * sg.utils.checkpoint): the callback gets its inputs where they are. Otherwise a compiled call
   * hands it host (CPU) copies of inputs on a GPU (compile.ts needsCopy).
   */
  keepOnDevice: boolean;
  refs: number;
}

export interface HostStep {
  kind: 'host';
  id: number;
  run: () => void;
  label: string;
  refs: number;
}

const entries = new Map<number, Callback | HostStep>();
const byFunction = new WeakMap<object, Map<string, Callback>>();
let nextId = 0;

/** How messages name a callback before it has an id. */
export function callbackName(fn: (...args: never[]) => unknown, name: string | undefined): string {
  const n = name ?? fn.name;
  return n ? `'${n}'` : 'an anonymous callback';
}

/** The entry of callback (fn, template, statics); vjp, timeout and name follow the latest call. */
export function registerCallback(
  fn: (...args: unknown[]) => unknown,
  template: Template,
  statics: unknown[],
  staticsKey: string,
  options: JsCallOptions,
  keepOnDevice = false,
): Callback {
  const pure = options.pure === true;
  const key = `${template.text}|${staticsKey}|${pure}|${keepOnDevice}`;
  let forFn = byFunction.get(fn);
  if (forFn === undefined) byFunction.set(fn, (forFn = new Map()));
  let cb = forFn.get(key);
  if (cb === undefined || !entries.has(cb.id)) {
    const id = ++nextId;
    cb = { kind: 'callback', id, fn, template, statics, pure, vjp: undefined, timeoutMs: undefined, label: '', keepOnDevice, refs: 0 };
    forFn.set(key, cb);
    entries.set(id, cb);
  }
  cb.vjp = options.vjp;
  cb.timeoutMs = options.timeoutMs;
  cb.label = `${callbackName(fn, options.name)} (jsCall #${cb.id})`;
  return cb;
}

export function registerHostStep(label: string, run: () => void): HostStep {
  const id = ++nextId;
  const step: HostStep = { kind: 'host', id, run, label, refs: 0 };
  entries.set(id, step);
  return step;
}

export function entry(id: number): Callback | HostStep | undefined {
  return entries.get(id);
}

export function callbackOf(id: number): Callback {
  const e = entries.get(id);
  if (e === undefined || e.kind !== 'callback') throw new Error(`sg.compile: no callback #${id} (its compiled function was cleared?)`);
  return e;
}

/** A program holds the entry. */
export function retain(id: number): void {
  const e = entries.get(id);
  if (e !== undefined) e.refs++;
}

/** A program lets go of the entry; the last one removes it. */
export function release(id: number): void {
  const e = entries.get(id);
  if (e !== undefined && --e.refs <= 0) entries.delete(id);
}

/** Live entries (tests check that cleared functions leave none). */
export function registeredCount(): number {
  return entries.size;
}
