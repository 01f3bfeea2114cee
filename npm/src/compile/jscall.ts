// sg.jsCall(outputTemplate, args, fn, { vjp, pure, timeoutMs, name }): JavaScript inside a graph.
// Outside compiled code it runs fn at once (with the same checks); while sg.compile traces, it
// records a callback node whose outputs are placeholders of the template (fn does not run), and
// every compiled call then runs fn exactly once, between the graph's stages (compile.ts), on host
// (CPU) copies of its inputs that are on a GPU; eagerly too (jscall_host_copies.ts: the call
// returns at once, fn runs once the copies have landed), so that fn sees the same thing either
// way. Library code whose callback computes with GPU tensors (gradientPenalty, checkpoint) calls
// jsCallOnDevice instead: its inputs stay where they are.
import { ensureGraphHost, tensorVjp } from './host.js';
import { activeTrace, useEntry } from './trace_state.js';
import { flattenArgs } from './arg_tree.js';
import * as G from './graph_binding.js';
import { freeMade, invokeSync } from './jscall_invoke.js';
import { callOnHostCopies, needsHostCopies } from './jscall_host_copies.js';
import { batchHookActive } from '../runtime/handles.js';
import { callbackName, registerCallback, type JsCallOptions } from './jscall_registry.js';
import { parseTemplate } from './jscall_template.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

export type { JsCallOptions, Residuals, VjpFn } from './jscall_registry.js';

function checkJsCallOptions(options: unknown): JsCallOptions {
  const o = checkOptions<JsCallOptions>('jsCall', options, {
    vjp: { check: (v) => typeof v === 'function', expected: 'a function (residuals, gradOutputs) => gradInputs' },
    pure: 'boolean',
    timeoutMs: { check: (v) => typeof v === 'number' && v > 0 && Number.isFinite(v), expected: 'a positive number of milliseconds' },
    name: 'string',
  });
  return o;
}

export function jsCall(outputTemplate: unknown, args: unknown, fn: unknown, options?: JsCallOptions): Tensor | Tensor[] {
  return call(outputTemplate, args, fn, options, false);
}

/**
 * Internal (not on sg): jsCall whose callback gets its inputs where they are in compiled calls
 * too, for library callbacks that compute with GPU tensors they read from outside
 * (penalties.ts's gradientPenalty, utils/checkpoint.ts); host copies would mix devices there.
 */
export function jsCallOnDevice(outputTemplate: unknown, args: unknown, fn: unknown, options?: JsCallOptions): Tensor | Tensor[] {
  return call(outputTemplate, args, fn, options, true);
}

function call(outputTemplate: unknown, args: unknown, fn: unknown, options: JsCallOptions | undefined, keepOnDevice: boolean): Tensor | Tensor[] {
  const template = parseTemplate(outputTemplate);
  if (!Array.isArray(args)) throw new Error(`jsCall: expected args to be an array of Tensors and static values, got ${describe(args)}`);
  if (typeof fn !== 'function') throw new Error(`jsCall: expected fn to be a function, got ${describe(fn)}`);
  const o = checkJsCallOptions(options);
  const tensors: Tensor[] = [];
  const statics: unknown[] = [];
  args.forEach((a, i) => {
    if (!(a instanceof Tensor)) return void statics.push(a);
    if (a.isDisposed) throw new Error(`jsCall: args[${i}] is a disposed Tensor`);
    tensors.push(a);
  });
  const callback = fn as (...a: unknown[]) => unknown;
  const trace = activeTrace();
  if (trace !== null) {
    ensureGraphHost();
    const cb = registerCallback(callback, template, statics, flattenArgs(statics, false).key, o, keepOnDevice);
    useEntry(trace, cb.id);
    // The placeholders (and so the callback's results, moved there if need be) live where its
    // inputs do, or where new tensors go.
    const device = tensors.length > 0 ? tensors[0]!.device : undefined;
    const specs = template.specs.map((s) => ({ ...s, device }));
    const outs = G.traceCallback(cb.id, tensors, specs, cb.pure);
    return template.multi ? outs : outs[0]!;
  }
  // Eagerly: run it now; its results join autograd (through the vjp, or an error node without).
  const label = callbackName(callback, o.name);
  const cb = { fn: callback, template, statics, timeoutMs: o.timeoutMs, label };
  // Results go where the inputs live (as in a compiled call, where they replace placeholders made there).
  const device = tensors.length > 0 ? tensors[0]!.device : undefined;
  const vjp = o.vjp === undefined ? null : tensorVjp(o.vjp, statics, label);
  // Under sg.func.vmap the inputs are batched views that only the transform's hooks know: as they are.
  if (!keepOnDevice && needsHostCopies(tensors) && !batchHookActive()) {
    const outs = callOnHostCopies(cb, vjp, tensors, device!);
    return template.multi ? outs : outs[0]!;
  }
  const r = invokeSync(cb, tensors, 'only a function compiled with sg.compile(fn, { async: true }) can await a callback');
  const moved = r.outputs.map((t) => (device === undefined || t.device === device ? t : t.to(device)));
  let outs: Tensor[];
  try {
    outs = G.linkCallback(label, vjp, tensors, moved);
  } finally {
    moved.forEach((t, k) => t !== r.outputs[k] && t.dispose());
    freeMade(r);
  }
  return template.multi ? outs : outs[0]!;
}
