// sg.autograd.Function: torch.autograd.Function. A subclass defines static forward(ctx, ...args)
// and static backward(ctx, ...gradOutputs) (and optionally static jvp(ctx, ...tangents));
// F.apply(...args) runs forward without recording, then joins its results to the graph through
// one node whose vjp is backward (compile/graph_binding.ts linkCallback, the node sg.jsCall uses).
// With a jvp, the gradients backward returns are themselves joined through a node whose vjp is
// jvp, so sg.func.jvp (the double-VJP) uses it; second derivatives then do not flow through the
// function's backward with respect to its inputs.
import * as G from '../compile/graph_binding.js';
import { activeTrace } from '../compile/trace_state.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { levelsOf } from './batching.js';
import { forwardModeActive, Unsupported } from './forward_mode.js';

/** The ctx of forward/backward/jvp: saved tensors and anything the function stores on it. */
export class FunctionCtx {
  private saved: Tensor[] = [];
  /** Per forward argument: whether it is a Tensor that requires grad. */
  needsInputGrad: boolean[] = [];
  [key: string]: unknown;

  /** Keeps tensors for backward (PyTorch's ctx.save_for_backward). */
  saveForBackward(...tensors: (Tensor | null | undefined)[]): void {
    tensors.forEach((t, i) => {
      if (t !== null && t !== undefined && !(t instanceof Tensor)) throw new Error(`saveForBackward: argument ${i} must be a Tensor or null, got ${describe(t)}`);
    });
    this.saved = tensors.map((t) => (t === null || t === undefined ? (null as unknown as Tensor) : t));
  }

  /** The tensors given to saveForBackward, in order. */
  get savedTensors(): Tensor[] {
    return this.saved.slice();
  }
}

type Static = {
  name: string;
  forward(ctx: FunctionCtx, ...args: any[]): any;
  backward(ctx: FunctionCtx, ...grads: any[]): any;
  jvp?(ctx: FunctionCtx, ...tangents: any[]): any;
};

function asList(where: string, r: unknown, n: number, what: string): (Tensor | null)[] {
  const list = Array.isArray(r) ? r : [r];
  if (list.length !== n) throw new Error(`${where} returned ${list.length} ${what}, expected ${n}`);
  return list.map((g, i) => {
    if (g === null || g === undefined) return null;
    if (!(g instanceof Tensor)) throw new Error(`${where}: ${what} ${i} must be a Tensor or null, got ${describe(g)}`);
    return g;
  });
}

function sameShape(a: Tensor, b: Tensor): boolean {
  const x = a.shape, y = b.shape;
  return x.length === y.length && x.every((s, i) => s === y[i]);
}

/** Base class of custom differentiable functions (subclass it; call F.apply). */
export class Function {
  static forward(_ctx: FunctionCtx, ..._args: any[]): any {
    throw new Error(`autograd.Function: ${this.name} must define static forward(ctx, ...args)`);
  }

  static backward(_ctx: FunctionCtx, ..._grads: any[]): any {
    throw new Error(`autograd.Function: ${this.name} must define static backward(ctx, ...gradOutputs)`);
  }

  /** Runs forward and records backward (and jvp) for the results. */
  static apply(this: Static, ...args: unknown[]): any {
    const name = this.name || 'Function';
    if (activeTrace() !== null) throw new Error(`${name}.apply: an autograd.Function cannot be traced by sg.compile yet (use sg.jsCall with a vjp inside compiled code)`);
    // Forward mode would follow forward's ops, not the function's own backward/jvp: jvp takes the double-VJP.
    if (forwardModeActive()) throw new Unsupported(`sg.func.jvp: ${name} is an autograd.Function`);
    const tensorAt: number[] = [];
    args.forEach((a, i) => {
      if (a instanceof Tensor) {
        if (a.isDisposed) throw new Error(`${name}.apply: argument ${i} is a disposed Tensor`);
        if (levelsOf(a.handle).length > 0) throw new Error(`${name}.apply: argument ${i} is batched by sg.func.vmap, and an autograd.Function has no batching rule`);
        tensorAt.push(i);
      }
    });
    const ctx = new FunctionCtx();
    ctx.needsInputGrad = args.map((a) => a instanceof Tensor && a.requiresGrad);
    const record = H.isGradEnabled() && ctx.needsInputGrad.some((b) => b);
    const prev = H.isGradEnabled();
    H.setGradEnabled(false);
    let result: unknown;
    try {
      result = this.forward(ctx, ...args);
    } finally {
      H.setGradEnabled(prev);
    }
    const multi = Array.isArray(result);
    const outs = multi ? (result as unknown[]) : [result];
    outs.forEach((t, i) => {
      if (!(t instanceof Tensor)) throw new Error(`${name}.forward must return a Tensor or an array of Tensors, got ${describe(t)}${multi ? ` at ${i}` : ''}`);
    });
    if (!record) return result;
    const inputs = tensorAt.map((i) => args[i] as Tensor);
    const fn = this;
    const adapter: G.VjpAdapter = {
      vjp: (_ins, outputs, grads) => {
        // PyTorch materializes missing output gradients as zeros.
        const gs = grads.map((g, k) => (g === null ? outputs[k]!.mul(0) : g));
        const r = fn.backward(ctx, ...gs);
        const all = asList(`${name}.backward`, r, args.length, 'gradients (one per forward argument, null for none)');
        const perInput = tensorAt.map((i) => all[i]!);
        perInput.forEach((g, k) => {
          if (g !== null && !sameShape(g, inputs[k]!)) {
            throw new Error(`${name}.backward: the gradient of argument ${tensorAt[k]} has shape [${g.shape.join(', ')}], expected [${inputs[k]!.shape.join(', ')}]`);
          }
        });
        if (fn.jvp === undefined || !H.isGradEnabled()) return perInput;
        // Recorded (createGraph): the map gradOutputs -> gradInputs gets jvp as its vjp.
        const present = perInput.filter((g): g is Tensor => g !== null);
        if (present.length === 0) return perInput;
        const jvpAdapter: G.VjpAdapter = {
          vjp: (_gIns, _gOuts, cots) => {
            const tangents = args.map((_, i) => {
              const k = tensorAt.indexOf(i);
              if (k < 0) return null;
              const j = perInput.slice(0, k + 1).filter((g) => g !== null).length - 1;
              return perInput[k] === null ? inputs[k]!.mul(0) : cots[j] ?? inputs[k]!.mul(0);
            });
            return asList(`${name}.jvp`, fn.jvp!(ctx, ...tangents), outputs.length, 'output tangents');
          },
          describeError: (e) => `${name}.jvp raised: ${e instanceof Error ? e.message : String(e)}`,
          tidy,
        };
        const linked = G.linkCallback(`${name}.backward`, jvpAdapter, gs, present);
        let j = 0;
        return perInput.map((g) => (g === null ? null : linked[j++]!));
      },
      describeError: (e) => `${name}.backward raised: ${e instanceof Error ? e.message : String(e)}`,
      tidy,
    };
    const linked = G.linkCallback(name, adapter, inputs, outs as Tensor[]);
    // The unlinked results go, unless forward returned an input or saved them for backward.
    const saved = ctx.savedTensors;
    for (const t of outs as Tensor[]) if (!inputs.includes(t) && !saved.includes(t)) t.dispose();
    return multi ? linked : linked[0];
  }
}
