// An eager sg.jsCall (outside compiled code) whose tensor inputs are on a GPU: its callback gets
// host (CPU) copies of them, as in a compiled call (compile.ts needsCopy), so that the same
// function reads them with dataSync() eagerly and compiled, on the CPU and on a GPU, with the
// same results. Nothing can wait for the copies here, so this goes as a synchronous compiled
// call's deferred part does: the downloads are enqueued now, the results handed out at once as
// placeholders (bindings/graph_pending.cpp: on a GPU, filled by a device copy that the queue
// orders before any later GPU work; on the CPU, pending like an eager `to('cpu')` result), and
// the callback runs in a host step of the device's queue once the copies have landed
// (runtime/webgpu_device.ts hostStep), which fills them. An error there (the callback's, a
// result that does not match the template) is reported by the next sg.sync() (or t.data() of
// a result) and leaves the results unfilled.
//
// Gradients: GPU placeholders are joined to autograd at once (link_callback, src/graph/
// callbacks.cpp; its packing ops are GPU work, ordered after the fill), so backward right after
// the call runs the vjp, on the inputs as they are (on the GPU) and the filled results. CPU
// placeholders (the first input on the CPU, another on a GPU) cannot be read to be linked before
// the data arrive: they get graph_pending's node instead, whose backward, once filled, is the
// linked real results' (before, it is a clear Error).
import * as G from './graph_binding.js';
import { freeMade, invokeSync, type Invocable, type Result } from './jscall_invoke.js';
import { toDevice } from './transfer.js';
import * as H from '../runtime/handles.js';
import { dispose, keep } from '../runtime/memory.js';
import { hostStep } from '../runtime/webgpu_device.js';
import type { Device } from '../runtime/embind.js';
import { Tensor } from '../tensor/tensor.js';

const syncHint = 'only a function compiled with sg.compile(fn, { async: true }) can await a callback';

/** Whether an eager call with these inputs goes through host copies (some input on a GPU). */
export function needsHostCopies(inputs: readonly Tensor[]): boolean {
  return inputs.some((t) => t.device !== 'cpu');
}

/**
 * Runs `cb` on host copies of `inputs` in a host step; returns its results (placeholders now) on
 * `device`, joined to autograd through `vjp` (null: an error node, as eagerly on the CPU).
 */
export function callOnHostCopies(cb: Invocable, vjp: G.VjpAdapter | null, inputs: readonly Tensor[], device: Device): Tensor[] {
  // What the host step uses outlives the call (and any tidy() around it): second handles on the
  // inputs and the copies, kept, freed by the host step.
  const held: Tensor[] = [];
  const hold = (t: Tensor): Tensor => {
    const h = keep(t);
    held.push(h);
    return h;
  };
  let pending: { id: number; tensors: Tensor[] } | undefined;
  let outs: Tensor[] | undefined;
  // The call failed after the host step was enqueued (linking the results): the step then only
  // frees what it holds, and the callback does not run.
  let abandoned = false;
  let enqueued = false;
  try {
    const own = inputs.map((t) => hold(new Tensor(H.shareHandle(t.handle))));
    const copies = own.map((t) => (t.device === 'cpu' ? t : hold(toDevice(t, 'cpu'))));
    const specs = cb.template.specs.map((s) => ({ ...s, device }));
    const linkNow = device !== 'cpu';
    pending = G.pendingResults(0, linkNow ? [] : own, specs);
    const id = pending.id;
    hostStep(() => {
      if (abandoned) return void dispose(held);
      let r: Result | undefined;
      let results: Tensor[] = [];
      try {
        r = invokeSync(cb, copies, syncHint);
        results = r.outputs.map((t) => (t.device === device ? t : toDevice(t, device)));
        // CPU placeholders: the real results joined now (their node's backward is theirs).
        const filled = linkNow ? results : G.linkCallback(cb.label, vjp, own, results);
        try {
          G.fillPending(id, filled);
        } finally {
          if (filled !== results) dispose(filled);
        }
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        try {
          G.failPending(id, err.message);
        } catch {
          // The module is gone: nothing left to mark.
        }
        throw err;
      } finally {
        results.forEach((t, k) => t !== r!.outputs[k] && t.dispose());
        freeMade(r);
        dispose(held);
      }
    });
    enqueued = true;
    outs = linkNow ? G.linkCallback(cb.label, vjp, inputs, pending.tensors) : pending.tensors;
    return outs;
  } catch (e) {
    // What the call made is freed (by the host step, if it was enqueued) and the results fail.
    if (enqueued) abandoned = true;
    else dispose(held);
    if (pending !== undefined) {
      try {
        G.failPending(pending.id, e instanceof Error ? e.message : String(e));
      } catch {
        // The module is gone.
      }
    }
    throw e;
  } finally {
    if (pending !== undefined && outs !== pending.tensors) dispose(pending.tensors);
  }
}
