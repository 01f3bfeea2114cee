// Calling a jsCall callback, eagerly or between the stages of a compiled call: fn gets the
// tensor arguments then the static ones; its result is checked against the template; an
// exception becomes `jsCall: JavaScript callback raised: <message>` (the original as `cause`);
// a Promise is awaited only where the caller can (a function compiled with { async: true }).
import { checkResult, type Template } from './jscall_template.js';
import { tidy } from '../runtime/memory.js';
import { Tensor, tensorSerial } from '../tensor/tensor.js';

export interface Invocable {
  fn: (...args: unknown[]) => unknown;
  template: Template;
  statics: unknown[];
  timeoutMs: number | undefined;
  label: string;
}

/** The callback's result: its tensors, and which of them it made (to be freed by the caller). */
export interface Result {
  outputs: Tensor[];
  made: Tensor[];
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

function raised(e: unknown): Error {
  const msg = e instanceof Error ? e.message : String(e);
  return new Error(`jsCall: JavaScript callback raised: ${msg}`, { cause: e });
}

function timedOut(cb: Invocable): Error {
  return new Error(`jsCall: callback ${cb.label} timed out after ${cb.timeoutMs} ms`);
}

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** The Tensors in value (nested arrays) that the callback made. */
function madeIn(value: unknown, before: number, out: Tensor[] = []): Tensor[] {
  if (value instanceof Tensor) {
    if (value.id > before && !value.isDisposed && !out.includes(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) madeIn(v, before, out);
  }
  return out;
}

function result(cb: Invocable, value: unknown, before: number): Result {
  let outputs: Tensor[];
  try {
    outputs = checkResult(cb.template, value);
  } catch (e) {
    for (const t of madeIn(value, before)) t.dispose();  // a wrong result leaves nothing behind
    throw e;
  }
  return { outputs, made: madeIn(outputs, before) };
}

/** Frees the result tensors the callback made (once C++ holds what it needs). */
export function freeMade(r: Result | undefined): void {
  if (r !== undefined) for (const t of r.made) t.dispose();
}

/**
 * Calls the callback synchronously; its temporaries are freed (tidy), its result kept. A Promise
 * result is an Error: `asyncHint` says where one is allowed.
 */
export function invokeSync(cb: Invocable, inputs: readonly Tensor[], asyncHint: string): Result {
  const before = tensorSerial();
  const start = now();
  let promise: PromiseLike<unknown> | null = null;
  let value: unknown;
  try {
    value = tidy(() => {
      const r = cb.fn(...inputs, ...cb.statics);
      if (!isPromiseLike(r)) return r;
      promise = r;
      return undefined;
    });
  } catch (e) {
    throw raised(e);
  }
  if (promise !== null) {
    Promise.resolve(promise).then(undefined, () => {});  // its outcome is ignored: no unhandled rejection
    throw new Error(`jsCall: callback ${cb.label} returned a Promise; ${asyncHint}`);
  }
  const r = result(cb, value, before);
  if (cb.timeoutMs !== undefined && now() - start > cb.timeoutMs) {
    freeMade(r);
    throw timedOut(cb);
  }
  return r;
}

/** Calls the callback and awaits its result (with the timeout, if any). */
export async function invokeAsync(cb: Invocable, inputs: readonly Tensor[]): Promise<Result> {
  const before = tensorSerial();
  let value: unknown;
  try {
    value = cb.fn(...inputs, ...cb.statics);
  } catch (e) {
    throw raised(e);
  }
  if (isPromiseLike(value)) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pending = Promise.resolve(value).then(undefined, (e) => {
      throw raised(e);
    });
    try {
      value =
        cb.timeoutMs === undefined
          ? await pending
          : await Promise.race([pending, new Promise((_, reject) => (timer = setTimeout(() => reject(timedOut(cb)), cb.timeoutMs)))]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
  return result(cb, value, before);
}
