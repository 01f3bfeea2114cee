// Device moves inside a compiled function. A copy from the GPU to the CPU completes
// asynchronously (the data is read back), so `t.to('cpu')` of a GPU tensor cannot be an ordinary
// op of the graph: the CPU ops after it would find no data, at trace time and on every call. While
// a function is traced, such a move becomes a stage boundary instead: a callback node whose
// placeholder result lives on the CPU; on every call the run stops there and the executor's
// caller (compile.ts) enqueues the copy. A function compiled with { async: true } awaits it and
// resumes the run with the host copy; a synchronous one returns placeholders of its results at
// once and resumes the run in a host step of the device's queue once the copy has landed,
// filling them (their data arrive later, as an eager `to('cpu')`'s do). Moves to the GPU are
// uploads, complete at once: ordinary ops.
//
// Tensor's `to()` asks runtime/trace_flag.ts's traceMove while tracing; this module installs the
// answer (installTransfers), so that tensor/ needs no knowledge of compile/.
import * as G from './graph_binding.js';
import { ensureGraphHost } from './host.js';
import { registerCallback, type VjpFn } from './jscall_registry.js';
import type { Template } from './jscall_template.js';
import { activeTrace, useEntry, type TraceState } from './trace_state.js';
import type { Device, DType } from '../runtime/embind.js';
import { Tensor } from '../tensor/tensor.js';

import { setTracedMove } from '../runtime/trace_flag.js';

/** The device a `to` argument names ('cpu' or 'webgpu'), or undefined. */
function deviceIn(target: unknown): Device | undefined {
  if (target === 'cpu' || target === 'webgpu') return target;
  if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
    const d = (target as { device?: unknown }).device;
    if (d === 'cpu' || d === 'webgpu') return d;
  }
  return undefined;
}

/**
 * The callback of a transfer stage: the identity. compile.ts hands a callback whose inputs are on
 * a GPU host copies of them (awaited, or in a host step of a synchronous call), the whole copy.
 */
function transferToHost(x: Tensor): Tensor {
  return x;
}

/** Whether `fn` is a transfer stage's callback (its results stay on the CPU). */
export function isTransfer(fn: unknown): boolean {
  return fn === transferToHost;
}

/** The gradient of a move to the CPU: the gradient moved back to where the input was. */
const moveBack: VjpFn = ({ statics }, [g]) => (g === null || g === undefined ? [null] : [g.to(statics[0] as Device)]);

/** The traced form of a move of `t` (on a GPU) to the CPU: a transfer stage's placeholder result. */
function traceToHost(trace: TraceState, t: Tensor): Tensor {
  ensureGraphHost();
  const spec = { shape: t.shape, dtype: t.dtype as DType };
  const template: Template = { specs: [spec], multi: false, text: `{ shape: [${spec.shape.join(', ')}], dtype: '${spec.dtype}' }` };
  const cb = registerCallback(transferToHost as (...a: unknown[]) => unknown, template, [t.device], t.device, {
    pure: true,
    vjp: moveBack,
    name: `to('cpu') from '${t.device}'`,
  });
  useEntry(trace, cb.id);
  return G.traceCallback(cb.id, [t], [{ ...spec, device: 'cpu' }], true)[0]!;
}

/** The traced form of `t.to(target)`: a transfer stage for a GPU → CPU move, else undefined (an ordinary op). */
function tracedMove(obj: object, target: unknown): Tensor | undefined {
  const t = obj as Tensor;
  const trace = activeTrace();
  if (trace === null || deviceIn(target) !== 'cpu' || t.isDisposed || t.device === 'cpu') return undefined;
  const moved = traceToHost(trace, t);
  const dtype = typeof target === 'object' && target !== null ? (target as { dtype?: DType }).dtype : undefined;
  if (dtype === undefined || dtype === moved.dtype) return moved;
  try {
    return moved.to(dtype);
  } finally {
    moved.dispose();
  }
}

let installed = false;

/** Installs the traced form of device moves (idempotent). */
export function installTransfers(): void {
  if (installed) return;
  installed = true;
  setTracedMove(tracedMove);
}

/** A plain move, never a stage boundary (compile.ts's host copies between stages). */
export function toDevice(t: Tensor, device: Device): Tensor {
  setTracedMove(null);
  try {
    return t.to(device);
  } finally {
    if (installed) setTracedMove(tracedMove);
  }
}
