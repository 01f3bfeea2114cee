// Forward mode for sg.func.jvp: fn runs once with each primal carrying a tangent; every op call
// with a tangent-carrying input computes its results as usual, then their tangents by the op's
// rule (jvp_rules.ts). That is one forward plus about one more (PyTorch's forward AD), instead of
// the double-VJP's forward and two backward passes.
//
// The op calls are seen through the batch hook of runtime/handles.ts (the door vmap uses), put
// over vmap's own hook when jvp runs inside a vmap. Whatever forward mode cannot follow throws
// Unsupported, and jvp then runs fn again by the double-VJP: an op without a rule, an in-place op
// or a value written into a tensor that carries a tangent, a backward pass or a gradient inside fn
// (jvp(grad(f))), a vmap inside fn.
import type { Attrs, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { directDepth } from './batching.js';
import { Calls, jvpRule, Unsupported } from './jvp_rules.js';

export { Unsupported };

interface State {
  tangents: Map<TensorHandle, TensorHandle>;
  below: H.BatchHook | null;
  busy: number;
  detaching: TensorHandle;
}

let state: State | null = null;

/** Whether a forward-mode jvp is running (a vmap inside it cannot be followed: batching.ts asks). */
export function forwardModeActive(): boolean {
  return state !== null;
}

function dualCall(s: State, op: string, inputs: ArrayLike<number>, attrs: Attrs): TensorHandle[] {
  if (op.endsWith('_')) throw new Unsupported(`sg.func.jvp: in-place op '${op}' on a tensor that carries a tangent`);
  const rule = jvpRule(op);
  if (rule === undefined) throw new Unsupported(`sg.func.jvp: op '${op}' has no forward-mode rule`);
  s.busy++;
  const c = new Calls();
  try {
    const outs = H.callOp(op, inputs, attrs);
    try {
      const tin = Array.from(inputs, (id) => (id ? s.tangents.get(id) ?? 0 : 0));
      const touts = c.keep(rule({ op, inputs, attrs, outs, tin }, c));
      touts.forEach((t, i) => {
        if (t !== 0 && outs[i]) s.tangents.set(outs[i]!, t);
      });
    } catch (e) {
      for (const o of outs) if (o) H.releaseHandle(o);
      throw e;
    }
    return outs;
  } finally {
    c.release();
    s.busy--;
  }
}

function hookOf(s: State): H.BatchHook {
  const below = s.below;
  return {
    call(op, inputs, attrs) {
      // vmap's rules emit physical ops (directDepth > 0): those are below this level.
      if (s.busy === 0 && directDepth() === 0) {
        for (let i = 0; i < inputs.length; i++) {
          if (inputs[i] && s.tangents.has(inputs[i]!)) return dualCall(s, op, inputs, attrs ?? {});
        }
      }
      return below === null ? null : below.call(op, inputs, attrs);
    },
    shape: (id) => (below === null ? null : below.shape(id)),
    read: (id) => below?.read(id),
    release(id) {
      below?.release(id);
      const t = s.tangents.get(id);
      if (t !== undefined) {
        s.tangents.delete(id);
        H.releaseHandle(t);
      }
    },
    derive(from, to) {
      below?.derive(from, to);
      if (from === s.detaching) {
        s.detaching = 0; // detach() cuts the tangent too (as PyTorch's forward AD)
        return;
      }
      const t = s.tangents.get(from);
      if (t !== undefined && s.busy === 0) s.tangents.set(to, H.shareHandle(t));
    },
  };
}

/**
 * Runs fn(...primals) with tangents attached: [fn's result, a function giving the tangent id of
 * a result id (a new id, owned by the caller; 0 when the result does not depend on the primals)].
 * The tangent ids must be taken before this returns: they go with the state. fn owns the ids it
 * gets (new ids on the primals).
 */
export function withTangents<T>(primals: readonly TensorHandle[], tangents: readonly TensorHandle[], fn: (ids: TensorHandle[]) => T, take: (result: T, tangentOf: (id: TensorHandle) => TensorHandle) => T): T {
  if (state !== null) throw new Unsupported('sg.func.jvp: a jvp inside a forward-mode jvp');
  const s: State = { tangents: new Map(), below: null, busy: 0, detaching: 0 };
  const ids = primals.map((p, i) => {
    const id = H.shareHandle(p);
    s.tangents.set(id, H.shareHandle(tangents[i]!));
    return id;
  });
  s.below = H.setBatchHook(null);
  H.setBatchHook(hookOf(s));
  const prevObserver = H.setBoundaryObserver((event, id) => {
    prevObserver?.(event, id);
    if (event === 'link' && s.tangents.has(id)) throw new Unsupported('sg.func.jvp: a JavaScript node (sg.jsCall) takes a tensor that carries a tangent');
    if (event === 'backward' || event === 'computeGrads') throw new Unsupported(`sg.func.jvp: fn runs a backward pass (${event}); forward mode cannot follow it`);
    if (event === 'write' && s.tangents.has(id)) throw new Unsupported('sg.func.jvp: fn writes values into a tensor that carries a tangent');
    // Values taken out to JavaScript (item, dataSync, a jsCall's callback) come back without a tangent.
    if (event === 'read' && s.tangents.has(id) && s.busy === 0) throw new Unsupported('sg.func.jvp: fn reads the values of a tensor that carries a tangent');
    if (event === 'detach') s.detaching = id;
  });
  state = s;
  try {
    const result = fn(ids);
    return take(result, (id) => {
      const t = s.tangents.get(id);
      return t === undefined ? 0 : H.shareHandle(t);
    });
  } finally {
    state = null;
    H.setBoundaryObserver(prevObserver);
    H.setBatchHook(s.below);
    for (const t of s.tangents.values()) H.releaseHandle(t);
  }
}
