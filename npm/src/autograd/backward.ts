// Autograd from JS: backward (with hooks that can never throw into wasm), registerHook, noGrad,
// and the functional sg.grad / sg.valueAndGrad over computeGrads. backward and registerHook
// become Tensor methods here (their types are merged into Tensor below).
import { isFloatingDType } from '../runtime/dtypes.js';
import type { TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { isTracing } from '../runtime/trace_flag.js';
import { Tensor } from '../tensor/tensor.js';

export interface BackwardOptions {
  /** Keep the graph's saved tensors for another backward (default: createGraph, as PyTorch). */
  retainGraph?: boolean;
  /**
   * Record the gradients too, so they can be differentiated again (higher-order gradients).
   * Each .grad then carries a graph: set it to null (or zeroGrad({ setToNone: true })) before the
   * next step, or use sg.autograd.grad, which fills no .grad.
   */
  createGraph?: boolean;
}

/** What registerHook accepts: gets the gradient, returns a replacement or nothing. */
export type GradHook = (grad: Tensor) => Tensor | undefined | void;

declare module '../tensor/tensor.js' {
  interface Tensor {
    /** Accumulates d(this)/d(leaf) into every leaf's .grad. gradOutput is required unless this has one element. */
    backward(gradOutput?: Tensor | number | null | BackwardOptions, options?: BackwardOptions): void;
    /** Calls fn with this tensor's gradient during backward; fn may return a replacement. */
    registerHook(fn: GradHook): void;
  }
}

// Tensors returned by hooks and made inside them: C++ reads them during backward, so they
// are disposed only once the outermost backward/computeGrads call has returned.
const hookResults: Tensor[] = [];
let backwardDepth = 0;

function withHookCleanup<T>(f: () => T): T {
  backwardDepth++;
  try {
    return f();
  } finally {
    if (--backwardDepth === 0) while (hookResults.length) hookResults.pop()!.dispose();
  }
}

export function backward(t: Tensor, gradOutput?: Tensor | number | null | BackwardOptions, options?: BackwardOptions): void {
  // backward({ retainGraph: true }) is allowed for one-element tensors.
  if (isOptionsObject(gradOutput)) {
    if (options !== undefined) throw new Error('backward: expected (gradOutput?, options?), got two options objects');
    options = gradOutput as BackwardOptions;
    gradOutput = undefined;
  }
  const o = checkOptions<BackwardOptions>('backward', options, { retainGraph: 'boolean', createGraph: 'boolean' });
  const createGraph = o.createGraph ?? false;
  const h = t.handle;
  let gh: TensorHandle = 0;
  let temp = false;
  if (gradOutput instanceof Tensor) gh = gradOutput.handle;
  else if (typeof gradOutput === 'number') {
    gh = H.scalarHandle(gradOutput, 'float32');
    temp = true;
  } else if (gradOutput !== undefined && gradOutput !== null) {
    throw new Error(`backward: expected gradOutput to be a Tensor, a number or undefined, got ${describe(gradOutput)}`);
  }
  try {
    withHookCleanup(() => H.backwardHandle(h, gh, o.retainGraph ?? createGraph, createGraph));
  } finally {
    if (temp) H.releaseHandle(gh);
  }
}

function message(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

export function registerHook(t: Tensor, fn: GradHook): void {
  if (typeof fn !== 'function') throw new Error(`registerHook: expected a function, got ${describe(fn)}`);
  if (isTracing()) throw new Error('registerHook: hooks cannot be registered inside sg.compile yet; register them outside the compiled function');
  H.registerHookHandle(t.handle, (h: TensorHandle): TensorHandle | undefined | string => {
    try {
      let before = 0;
      // tidy: the incoming gradient's wrapper (which owns h) and the hook's temporaries are
      // freed when the hook returns; only its result survives, until backward ends.
      const result = tidy(() => {
        const g = new Tensor(h);
        before = g.id;
        const r = fn(g);
        if (r === undefined || r === null || r === g) return undefined;
        if (!(r instanceof Tensor)) throw new Error(`registerHook: a hook must return a Tensor or undefined, got ${describe(r)}`);
        return r;
      });
      if (result === undefined) return undefined;
      if (result.id > before) hookResults.push(result);
      return result.handle;
    } catch (e) {
      return message(e);
    }
  });
}

Object.defineProperties(Tensor.prototype, {
  backward: {
    value: function (this: Tensor, gradOutput?: Tensor | number | null | BackwardOptions, options?: BackwardOptions): void {
      backward(this, gradOutput, options);
    },
    writable: true,
    configurable: true,
  },
  registerHook: {
    value: function (this: Tensor, fn: GradHook): void {
      registerHook(this, fn);
    },
    writable: true,
    configurable: true,
  },
});

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

/** Runs fn with gradient recording set to `enabled`, restoring it afterwards (also after an async fn settles). */
function withGradMode<T>(enabled: boolean, fn: () => T): T {
  if (typeof fn !== 'function') throw new Error(`${enabled ? 'enableGrad' : 'noGrad'}: expected a function, got ${describe(fn)}`);
  const prev = H.isGradEnabled();
  H.setGradEnabled(enabled);
  let r: T;
  try {
    r = fn();
  } catch (e) {
    H.setGradEnabled(prev);
    throw e;
  }
  if (isPromiseLike(r)) {
    return Promise.resolve(r).finally(() => H.setGradEnabled(prev)) as T;
  }
  H.setGradEnabled(prev);
  return r;
}

/** Runs fn without recording the graph (PyTorch's torch.no_grad()). */
export function noGrad<T>(fn: () => T): T {
  return withGradMode(false, fn);
}

/** Runs fn with graph recording on, even inside noGrad. */
export function enableGrad<T>(fn: () => T): T {
  return withGradMode(true, fn);
}

function normalizeArgnums(fn: string, argnums: unknown): number[] {
  if (argnums === undefined) return [0];
  if (isInteger(argnums) && argnums >= 0) return [argnums];
  if (Array.isArray(argnums) && argnums.length > 0 && argnums.every((a) => isInteger(a) && a >= 0)) return argnums.slice();
  throw new Error(`${fn}: expected argnums to be a non-negative integer or a non-empty array of them, got ${describe(argnums)}`);
}

function valueAndGradImpl(name: string, fn: unknown, argnums: unknown): (...args: unknown[]) => [Tensor, Tensor | Tensor[]] {
  if (typeof fn !== 'function') throw new Error(`${name}: expected a function, got ${describe(fn)}`);
  const idx = normalizeArgnums(name, argnums);
  const single = argnums === undefined || typeof argnums === 'number';
  return (...args: unknown[]) => {
    for (const i of idx) {
      const a = args[i];
      if (!(a instanceof Tensor)) throw new Error(`${name}: argument ${i} must be a Tensor to differentiate with respect to, got ${describe(a)}`);
      if (!isFloatingDType(a.dtype)) throw new Error(`${name}: argument ${i} must be a floating Tensor (float32, float64, float16, bfloat16) to differentiate with respect to, got ${a.dtype}`);
    }
    // Inside another differentiation (sg.grad of sg.grad), an argument that requires grad is
    // followed through a recorded copy, and the gradient is recorded too, so the outer one can
    // differentiate it.
    const createGraph = H.isGradEnabled() && idx.some((i) => (args[i] as Tensor).requiresGrad);
    return enableGrad(() =>
      tidy(() => {
        // Fresh leaves sharing the arguments' data, so the caller's tensors and graphs are untouched.
        const inputs = idx.map((i) => {
          const a = args[i] as Tensor;
          if (createGraph && a.requiresGrad) return a.clone();
          const leaf = a.detach();
          leaf.requiresGrad = true;
          return leaf;
        });
        const callArgs = args.slice();
        idx.forEach((i, k) => (callArgs[i] = inputs[k]));
        const out: unknown = (fn as (...a: unknown[]) => unknown)(...callArgs);
        if (!(out instanceof Tensor) || out.numel !== 1) {
          throw new Error(`${name}: fn must return a Tensor with one element, got ${describe(out)}`);
        }
        const hs = withHookCleanup(() =>
          H.computeGradHandles(
            out.handle,
            0,
            inputs.map((t) => t.handle),
            createGraph,
            createGraph,
          ),
        );
        const grads = hs.map((h) => new Tensor(h));
        const value = createGraph ? out : out.detach();
        return [value, single ? grads[0]! : grads] as [Tensor, Tensor | Tensor[]];
      }),
    );
  };
}

/**
 * grad(fn, argnums = 0): a function returning d fn(...args) / d args[argnums] for a fn with
 * a one-element Tensor result; a single Tensor when argnums is a number, else an array.
 */
export function grad(fn: (...args: any[]) => Tensor, argnums?: number): (...args: any[]) => Tensor;
export function grad(fn: (...args: any[]) => Tensor, argnums: readonly number[]): (...args: any[]) => Tensor[];
export function grad(fn: (...args: any[]) => Tensor, argnums?: number | readonly number[]): (...args: any[]) => Tensor | Tensor[] {
  const f = valueAndGradImpl('grad', fn, argnums);
  return (...args: unknown[]) => {
    const [value, grads] = f(...args);
    value.dispose();
    return grads;
  };
}

/** Like grad(fn, argnums), but the function returns [value, grads]. */
export function valueAndGrad(fn: (...args: any[]) => Tensor, argnums?: number): (...args: any[]) => [Tensor, Tensor];
export function valueAndGrad(fn: (...args: any[]) => Tensor, argnums: readonly number[]): (...args: any[]) => [Tensor, Tensor[]];
export function valueAndGrad(
  fn: (...args: any[]) => Tensor,
  argnums?: number | readonly number[],
): (...args: any[]) => [Tensor, Tensor | Tensor[]] {
  return valueAndGradImpl('valueAndGrad', fn, argnums);
}

export interface GradOfOptions {
  /** The gradient of `output` (required unless it has one element; a number for a one-element output). */
  gradOutput?: Tensor | number;
  /** Keep the graph for another backward (default: createGraph). */
  retainGraph?: boolean;
  /** Record the gradients, so they can be differentiated again (higher-order gradients). */
  createGraph?: boolean;
}

/**
 * torch.autograd.grad: d output / d inputs (each a float32 Tensor that requires grad, leaf or
 * not), leaving every .grad untouched. An input the output does not depend on gets zeros.
 */
export function gradOf(output: Tensor, inputs: Tensor, options?: GradOfOptions): Tensor;
export function gradOf(output: Tensor, inputs: readonly Tensor[], options?: GradOfOptions): Tensor[];
export function gradOf(output: Tensor, inputs: Tensor | readonly Tensor[], options?: GradOfOptions): Tensor | Tensor[] {
  const name = 'autograd.grad';
  if (!(output instanceof Tensor)) throw new Error(`${name}: expected output to be a Tensor, got ${describe(output)}`);
  if (!output.requiresGrad) throw new Error(`${name}: the output does not require grad and has no grad_fn`);
  const list = inputs instanceof Tensor ? [inputs] : inputs;
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error(`${name}: expected inputs to be a Tensor or a non-empty array of Tensors, got ${describe(inputs)}`);
  }
  list.forEach((t: unknown, i: number) => {
    if (!(t instanceof Tensor)) throw new Error(`${name}: input ${i} must be a Tensor, got ${describe(t)}`);
    if (!t.requiresGrad) throw new Error(`${name}: input ${i} does not require grad`);
  });
  const o = checkOptions<GradOfOptions>(name, options, {
    gradOutput: { check: (v) => v instanceof Tensor || (typeof v === 'number' && Number.isFinite(v)), expected: 'a Tensor or a finite number' },
    retainGraph: 'boolean',
    createGraph: 'boolean',
  });
  const createGraph = o.createGraph ?? false;
  let gh: TensorHandle = 0;
  let temp = false;
  if (o.gradOutput instanceof Tensor) gh = o.gradOutput.handle;
  else if (typeof o.gradOutput === 'number') {
    gh = H.scalarHandle(o.gradOutput, 'float32');
    temp = true;
  }
  try {
    const hs = withHookCleanup(() =>
      H.computeGradHandles(
        output.handle,
        gh,
        list.map((t: Tensor) => t.handle),
        o.retainGraph ?? createGraph,
        createGraph,
      ),
    );
    const grads = hs.map((h) => new Tensor(h));
    return inputs instanceof Tensor ? grads[0]! : grads;
  } finally {
    if (temp) H.releaseHandle(gh);
  }
}
