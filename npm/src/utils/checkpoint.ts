// sg.utils.checkpoint(fn, ...args): activation checkpointing, as torch.utils.checkpoint. fn runs
// without building a graph, so none of its intermediates stay alive; its results join the graph
// through one node (a sg.jsCall with a vjp) that keeps only the tensor arguments and the results.
// In backward that node re-runs fn with gradients on, from the random-number state fn's forward
// started from (so dropout draws the same masks; the state is put back afterwards, as PyTorch's
// preserve_rng_state), and back-propagates through the recomputed graph: into the tensor
// arguments (returned to the outer backward) and into every other leaf fn uses, such as a
// module's parameters (accumulated into their .grad, as PyTorch's reentrant variant does).
//
// So: tensors fn reads other than parameters must be passed as args (a temporary captured by
// the closure may be freed before backward), and sg.autograd.grad(loss, [param]) does not see
// parameters used only inside fn (their gradient goes to param.grad); loss.backward() is exact.
import { backward, enableGrad, noGrad } from '../autograd/backward.js';
import { jsCallOnDevice } from '../compile/jscall.js';
import { activeTrace } from '../compile/trace_state.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { mod } from '../runtime/module.js';
import { describe } from '../runtime/options.js';
import { zeros } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';

interface RngBindings {
  getRngState(): [number, number];
  setRngState(seed: number, offset: number): void;
}

function rng(): RngBindings {
  const m = mod() as unknown as Partial<RngBindings>;
  if (typeof m.getRngState !== 'function' || typeof m.setRngState !== 'function') {
    throw new Error('checkpoint: this build of the wasm module cannot save the random state (rebuild with scripts/build.sh)');
  }
  return m as RngBindings;
}

function resultList(value: unknown): Tensor[] | null {
  if (value instanceof Tensor) return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((t) => t instanceof Tensor)) return value as Tensor[];
  return null;
}

/** Runs fn(...args) keeping none of its intermediates; they are recomputed in backward. Returns what fn returns (a Tensor or an array of Tensors). */
export function checkpoint<R extends Tensor | Tensor[]>(fn: (...args: any[]) => R, ...args: unknown[]): R {
  if (typeof fn !== 'function') throw new Error(`checkpoint: expected a function, got ${describe(fn)}`);
  // Under noGrad there is no backward to prepare for: a plain call. Inside sg.compile too: fn's
  // ops join the graph as they are (no recomputation, so no memory saved). The recomputing node
  // would hand back the trace's own results on every call, and fn's random draws in the graph
  // could not be repeated by an eager recompute in backward.
  if (!H.isGradEnabled() || activeTrace() !== null) return fn(...args);
  args.forEach((a, i) => {
    if (a instanceof Tensor && a.isDisposed) throw new Error(`checkpoint: argument ${i} is a disposed Tensor`);
  });
  const r = rng();
  const start = r.getRngState();
  // tidy: fn's intermediates are freed now, not when an enclosing tidy ends.
  const result = noGrad(() => tidy(() => fn(...args)));
  const outs = resultList(result);
  if (outs === null) {
    throw new Error(`checkpoint: fn must return a Tensor or a non-empty array of Tensors, got ${describe(result)}`);
  }
  const positions = args.flatMap((a, i) => (a instanceof Tensor ? [i] : []));
  const tensors = positions.map((i) => args[i] as Tensor);
  // With no argument requiring grad (a frozen embedding's output feeding a LoRA block) the node
  // would not join the graph and fn's parameters would get nothing: a scalar leaf anchors it.
  const needsGrad = tensors.map((t) => t.requiresGrad);
  const anchor = needsGrad.some(Boolean) ? null : zeros([], { device: tensors[0]?.device ?? outs[0]!.device }).requiresGrad_();
  const inputs = anchor === null ? tensors : [...tensors, anchor];
  const vjp = ({ inputs: saved }: { inputs: Tensor[] }, grads: (Tensor | null)[]): (Tensor | null)[] => {
    // The saved inputs come back detached: whether each wanted a gradient was noted at the call.
    const detached = saved.slice(0, positions.length).map((t, k) => {
      const d = t.detach();
      return needsGrad[k] ? d.requiresGrad_() : d;
    });
    const again = args.slice();
    positions.forEach((p, k) => {
      again[p] = detached[k];
    });
    const now = r.getRngState();
    r.setRngState(start[0], start[1]);
    let recomputed: unknown;
    try {
      recomputed = enableGrad(() => fn(...again));
    } finally {
      r.setRngState(now[0], now[1]);
    }
    const outs2 = resultList(recomputed);
    if (outs2 === null || outs2.length !== outs.length) throw new Error('checkpoint: fn returned something else when recomputed in backward');
    // One backward through Σ <output, grad> reaches every leaf once (grad mode is off inside a
    // backward pass: the sum is built with it on).
    enableGrad(() => {
      let total: Tensor | null = null;
      for (let k = 0; k < outs2.length; k++) {
        const o = outs2[k]!;
        const g = grads[k];
        if (g === null || g === undefined || !o.requiresGrad) continue;
        const term = o.mul(g).sum();
        total = total === null ? term : total.add(term);
      }
      if (total !== null) backward(total);
    });
    const back = detached.map((d, k) => (needsGrad[k] ? d.grad : null));
    return anchor === null ? back : [...back, null];
  };
  const template = Array.isArray(result) ? outs : outs[0]!;
  try {
    // On device: the node reads no values; its vjp recomputes fn where the parameters live.
    return jsCallOnDevice(template, inputs, () => template, { vjp, name: 'checkpoint' }) as R;
  } finally {
    for (const t of outs) t.dispose();
    anchor?.dispose();
  }
}
